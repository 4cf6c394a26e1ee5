"""Tournament messages: the sign-up post, the standings beside the crosstable picture, a
round's pairings, and the lines of the tournament's posts."""

from __future__ import annotations

import discord

from bot.service.tournaments import Table, TournamentView
from bot.ui.embeds import GOLD, GREEN, GREY
from bot.ui.fit import fit_content, fit_embed
from bot.ui.format import clip, days, mention, shown, timestamp
from storage.models import Board, Game
from tournament.model import points_text

CROSSTABLE = "attachment://crosstable.png"
STATUS = {
    "signup": "sign-up open",
    "running": "running",
    "finished": "finished",
    "cancelled": "cancelled",
}
MAX_MESSAGE = 2000


def signup_embed(view: TournamentView) -> discord.Embed:
    t = view.tournament
    colour = GOLD if t.status == "signup" else GREEN if t.status == "running" else GREY
    embed = discord.Embed(
        title=f"🏆 {shown(t.name)} — tournament #{t.id}",
        description=f"A {view.format_name} of **{shown(view.variant_name)}**, organised by "
        f"{mention(t.created_by)}.",
        colour=colour,
    )
    if t.swiss:
        rounds = f"{t.rounds} rounds" if t.rounds else "rounds: set at the start"
        bye = {"1": "1 point", "1/2": "½ point", "0": "0 points"}[t.bye_points]
        embed.add_field(name="Rounds", value=f"{rounds}; a bye scores {bye}")
    else:
        embed.add_field(
            name="Games",
            value="all at once" if t.all_at_once else "round by round",
        )
    embed.add_field(name="Clock", value=days(t.clock.move_seconds))
    embed.add_field(name="Rated", value="yes" if t.rated else "no")
    names = ", ".join(shown(name) for _id, name in view.players) or "nobody yet"
    embed.add_field(
        name=f"Players ({len(view.players)}/{t.max_players})", value=clip(names, 1024), inline=False
    )
    if t.status == "signup":
        when = (
            f"starts {timestamp(t.starts_at)}" if t.starts_at else "starts when the organiser says"
        )
        embed.add_field(name="Status", value=f"sign-up open; {when}", inline=False)
    else:
        where = f" in <#{t.thread_id}>" if t.thread_id and t.status != "cancelled" else ""
        embed.add_field(
            name="Status",
            value=STATUS[t.status] + (f" ({shown(t.end_reason)})" if t.end_reason else "") + where,
            inline=False,
        )
    embed.set_footer(text=f"Tournament #{t.id}")
    return fit_embed(embed)


def table_embed(table: Table) -> discord.Embed:
    t = table.view.tournament
    embed = discord.Embed(
        title=f"{shown(t.name)} — standings",
        # A name with backquotes must not close the code block: they become look-alikes.
        description=clip(f"```\n{table.text.replace('`', 'ˋ')}\n```", 4000),
        colour=GREEN if t.status == "running" else GREY,
    )
    embed.set_image(url=CROSSTABLE)
    embed.set_footer(text=f"Tournament #{t.id}")
    return fit_embed(embed)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 2] + "\n…"


def game_link(board: Board) -> str:
    """Where a board's game is played: its thread (opened from the game's post in the
    channel, so the post's id is the thread's), else its number."""
    game = board.game
    if game is None:
        return ""
    where = game.thread_id or game.message_id
    return f"<#{where}>" if where else f"game #{game.id}"


def round_text(table: Table, round_no: int) -> str:
    """A round's pairings, board by board, with each game's thread."""
    lines = [f"**Round {round_no}** pairings:"]
    for b in table.games_of_round(round_no):
        if b.black_id is None:
            lines.append(f"{b.board}. {mention(b.white_id)} has the bye")
            continue
        where = f" — {game_link(b)}" if b.game is not None else " — scored without play"
        lines.append(
            f"{b.board}. {mention(b.white_id)} (White) vs {mention(b.black_id)} (Black){where}"
        )
    return _cut("\n".join(lines))


def games_text(table: Table, names: dict[int, str]) -> str:
    """Every board with a game or a forfeit: where it is played and how it stands."""
    lines: list[str] = []
    for b in table.boards:
        if b.black_id is None:
            continue
        game = b.game
        if game is None:
            state = "scored without play"
        elif game.is_active:
            state = "in progress"
        else:
            state = game.result.value if game.result else "aborted"
        where = f" {game_link(b)}" if game is not None else ""
        lines.append(
            f"R{b.round} {shown(names.get(b.white_id, '?'))} vs "
            f"{shown(names.get(b.black_id, '?'))}: {state}{where}"
        )
    return _cut("\n".join(lines) or "No games yet.")


def started_text(view: TournamentView) -> str:
    names = " ".join(mention(user) for user, _name in view.players)
    return _cut(f"Sign-up is closed: {len(view.players)} players. Good luck, {names}!")


def game_post_text(view: TournamentView, game: Game, round_no: int) -> str:
    """A tournament game's post in the channel (its thread opens from it)."""
    return (
        f"🏆 **{shown(view.tournament.name)}**, round {round_no}: "
        f"{mention(game.white_id)} (White) vs {mention(game.black_id)} (Black) — "
        f"game #{game.id}, in the thread below."
    )


def result_text(white: str, black: str, game: Game, status: str) -> str:
    result = game.result.value.replace("1/2", "½") if game.result else "aborted"
    where = f" in <#{game.thread_id}>" if game.thread_id else ""
    return fit_content(f"Result: {shown(white)} {result} {shown(black)}{where} ({shown(status)}).")


def withdrawal_text(user_id: int, resigned: list[int], swiss: bool) -> str:
    games = ", ".join(f"#{g}" for g in resigned)
    text = f"{mention(user_id)} withdrew from the tournament."
    if games:
        text += f" Resigned: game{'s' if len(resigned) > 1 else ''} {games}."
    text += (
        " They are no longer paired."
        if swiss
        else " Their games still to come are scored as losses."
    )
    return text


def deadline_text(round_no: int, drawn: list[int]) -> str:
    games = ", ".join(f"#{g}" for g in drawn)
    return (
        f"⏰ The deadline of round {round_no} passed: "
        f"game{'s' if len(drawn) > 1 else ''} {games} drawn (unrated)."
    )


def final_text(table: Table) -> str:
    t = table.view.tournament
    leaders = table.standings.leaders
    names = " and ".join(mention(r.entrant.id) for r in leaders)
    points = points_text(leaders[0].points) if leaders else "0"
    return (
        f"🏆 **{shown(t.name)}** is over: {names} win{'s' if len(leaders) == 1 else ''} "
        f"with {points} points!" + (f" ({shown(t.end_reason)})" if t.end_reason else "")
    )
