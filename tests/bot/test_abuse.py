"""The abuse suite, through the service: what a hostile member tries, each refused with its
message and nothing changed in the database (every table compared before and after).

- hostile texts (`tests.hostile.REFUSED`: control, bidi and zero-width characters, 100 KB)
  in every field a player fills in: tournament names, moderators' reasons, conditional
  lines, every kind of text of a variant file, and any command option;
- mentions and markdown (`tests.hostile.SHOWN`) accepted as plain text and shown inert;
- every object reached by its number from another server (or from direct messages by
  someone who does not play): a game in every command that takes one, its variant, a
  tournament, a challenge;
- a moderator judging their own game;
- flooding: open challenges per player and per channel, tournaments per server,
  conditional lines per minute, variant definitions per hour.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.replies import refusal
from bot.service import GameService, ManualClock, limits
from bot.service.analysis import AnalysisService
from bot.service.conditional import ConditionalService
from bot.service.effects import EffectRunner
from bot.service.inputs import MAX_OPTION_LENGTH, odd_text, player_name
from bot.service.models import UserRef
from bot.service.moderation import Moderation, Verdict
from bot.service.opponent import OpponentService
from bot.service.searchpool import SearchPool
from bot.service.tournaments import TournamentService
from bot.service.variants import ANNOUNCE, UnchangedVariantError
from bot.ui.embeds import challenge_embed, game_embed, rules_embed
from bot.ui.format import plain, shown
from bot.ui.tournaments import game_post_text, signup_embed
from rules.errors import VariantError
from rules.variant import definition_digest
from storage import Storage
from storage.copy import _tables
from tests.bot.conftest import (
    ANN,
    BOB,
    CHANNEL,
    EVE,
    GUILD,
    TINY_CHESS,
    announcing_runner,
    start_game,
)
from tests.hostile import REFUSED, SHOWN, maximal_variant

OTHER_GUILD = GUILD + 1
THREAD = 5000
MOD = UserRef(105, "Mo")
FAIRY = UserRef(777, "Fairy Post", bot=True)


async def snapshot(storage: Storage) -> dict[str, list[str]]:
    """Every row of every table, to compare before and after a refusal."""
    async with storage._db.transaction(write=False) as tx:
        tables = sorted(await _tables(tx))
        out: dict[str, list[str]] = {}
        for table in tables:
            rows = await tx.all(f'SELECT * FROM "{table}"')
            out[table] = sorted(repr(tuple(row)) for row in rows)
    return out


async def refused(storage: Storage, attempt: Callable[[], Awaitable[Any]], *expected: str) -> str:
    """`attempt` is refused with a message for the player holding `expected`, and leaves the
    database as it was."""
    before = await snapshot(storage)
    with pytest.raises(Exception) as info:
        await attempt()
    message = refusal(info.value)
    assert message is not None, f"not a refusal: {info.value!r}"
    for words in expected:
        assert words in message, message
    assert await snapshot(storage) == before, "a refusal changed the database"
    return message


def texts(embed: discord.Embed) -> str:
    """Everything an embed shows in words."""
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


# ---------------------------------------------------------------------------- hostile texts

FIELDS = ["tournament name", "moderator's reason", "conditional line", "command option"]


async def _attempt(
    field: str, service: GameService, text: str, game_id: int
) -> Callable[[], Awaitable[Any]]:
    if field == "tournament name":
        t = TournamentService(service)
        return lambda: t.create(
            guild_id=GUILD, channel_id=CHANNEL, organiser=ANN, name=text, variant="chess",
            format="swiss",
        )  # fmt: skip
    if field == "moderator's reason":
        return lambda: Moderation(service).cancel(
            guild_id=GUILD, game_id=game_id, moderator=MOD, reason=text
        )
    if field == "conditional line":  # Bob is to move: Ann leaves answers to his moves
        return lambda: ConditionalService(service).add(channel_id=THREAD, user=ANN, text=text)

    async def option() -> None:
        odd_text("variant", text)

    return option


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("what", sorted(REFUSED))
async def test_hostile_text_in_a_field_is_refused(
    service: GameService, storage: Storage, field: str, what: str
) -> None:
    game_id = await start_game(service, "chess", thread=THREAD)
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    name = {"tournament name": "`name`", "moderator's reason": "`reason`"}
    label = name.get(field, "`line`" if field == "conditional line" else "`variant`")
    if field == "conditional line" and what in ("a line break", "a carriage return"):
        label = "Step 1 of the line"  # line breaks separate a line's moves: `Tiny` is no move
    attempt = await _attempt(field, service, REFUSED[what], game_id)
    await refused(storage, attempt, label)


VARIANT_KEYS = {
    "name": lambda t: TINY_CHESS.replace('name = "Tiny Chess"', f"name = {t}"),
    "description": lambda t: TINY_CHESS.replace(
        'description = "A Rook and a King on 5x5."', f"description = {t}"
    ),
    "inventor": lambda t: TINY_CHESS.replace("files = 5", f"inventor = {t}\nfiles = 5"),
    "a piece's name": lambda t: TINY_CHESS.replace(
        'rook = "R"', f'rook = {{ letter = "R", name = {t} }}'
    ),
    "an option's description": lambda t: (
        TINY_CHESS
        + f"\n[options.fast]\ndescription = {t}\nset = {{ rules = {{ move-rule = 25 }} }}\n"
    ),
    "a source": lambda t: TINY_CHESS.replace("files = 5", f"sources = [{t}]\nfiles = 5"),
    "a table key": lambda t: TINY_CHESS.replace('king = "K"', f'king = "K"\n{t} = "Q"'),
}


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (escapes for what TOML cannot hold as it is)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@pytest.mark.parametrize("key", sorted(VARIANT_KEYS))
@pytest.mark.parametrize("what", sorted(set(REFUSED) - {"100 KB"}))
async def test_hostile_text_in_a_variant_file_is_refused(
    service: GameService, storage: Storage, key: str, what: str
) -> None:
    text = REFUSED[what]
    multiline = ("description", "an option's description", "a source")
    if key in multiline and what in ("a line break", "a carriage return"):
        text = text.replace("\n", "\t").replace("\r", "\t")  # descriptions hold line breaks
    data = VARIANT_KEYS[key](toml_string(text)).encode()
    message = await refused(
        storage,
        lambda: service.variants.define(
            GUILD, ANN, can_manage=False, filename="tiny.toml", data=data
        ),
        "tiny.toml",
    )
    assert "contains" in message or "combining marks" in message or "characters" in message


async def test_a_definition_stored_before_the_rule_still_loads_and_shows_plain(
    service: GameService, storage: Storage
) -> None:
    """Games pin their definitions: one stored before the rule (a name with a bell and a
    right-to-left override) must still load, and is shown without those characters."""
    odd = TINY_CHESS.replace('name = "Tiny Chess"', 'name = "Tiny\\u202eChess\\u0007"')
    await storage.variants.define(
        GUILD, "tiny", name="Tiny Chess", content=odd, digest=definition_digest(odd),
        author_id=ANN.id, expected_version=0, now=0,
    )  # fmt: skip
    await start_game(service, "tiny", thread=THREAD)
    view = await service.board(channel_id=THREAD, user_id=ANN.id)
    assert view.variant.name == "Tiny\u202eChess\x07"
    assert "Tiny Chess" not in texts(game_embed(view)) and "TinyChess" in texts(game_embed(view))
    assert plain(view.variant.name) == "TinyChess"
    with pytest.raises(VariantError, match="U\\+202E"):
        await service.variants.define(
            GUILD, ANN, can_manage=True, filename="tiny.toml", data=(odd + "\n").encode()
        )


async def test_a_file_of_100_kb_is_refused_before_it_is_read(
    service: GameService, storage: Storage
) -> None:
    data = TINY_CHESS.replace("A Rook", "x" * 100_000).encode()
    await refused(
        storage,
        lambda: service.variants.define(GUILD, ANN, can_manage=False, filename="t.toml", data=data),
        "a definition may be at most 32,768 bytes",
    )


@pytest.mark.parametrize("what", sorted(SHOWN))
async def test_mentions_and_markdown_are_plain_text_shown_inert(
    service: GameService, what: str
) -> None:
    text = SHOWN[what]
    view = await TournamentService(service).create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ANN, name=text, variant="chess",
        format="swiss",
    )  # fmt: skip
    assert view.tournament.name == text  # kept as typed
    embed = texts(signup_embed(view))
    assert "@everyone" not in embed and "@here" not in embed
    assert "<@123456789012345678>" not in embed and "<@&" not in embed
    for marker in ("**", "__", "~~", "||", "```", "[free"):
        if marker in text:
            assert shown(marker) in embed  # escaped: shown as typed, no formatting
    game_id = await start_game(service, "chess", thread=THREAD)
    game = await service.storage.games.get(game_id)
    post = game_post_text(view, game, 1)
    assert "@everyone" not in post and "@here" not in post and "<@&" not in post


async def test_display_names_are_cleaned_and_shown_inert(service: GameService) -> None:
    hostile = UserRef(201, "\u202e@everyone\u200b **Ann**\n<@102>")
    assert player_name(hostile.id, hostile.name) == "@everyone **Ann** <@102>"
    assert player_name(202, "\u3164\u200b") == "player 202"
    clean = UserRef(hostile.id, player_name(hostile.id, hostile.name))
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=clean, opponent=BOB, variant="chess"
    )
    embed = texts(challenge_embed(view))
    assert "@everyone" not in embed and "<@102>" not in embed and "\\*\\*Ann\\*\\*" in embed
    game = await service.accept_challenge(view.challenge.id, BOB)
    assert "@everyone" not in texts(game_embed(game))


# ------------------------------------------------------------- objects from another server


async def test_a_game_from_another_server_does_not_exist_there(
    service: GameService, storage: Storage
) -> None:
    game_id = await start_game(service, "chess", thread=THREAD)
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    await service.play(channel_id=THREAD, user=BOB, text="e5")
    conditional = ConditionalService(service)
    analysis = AnalysisService(service, total_nodes=2_000)
    elsewhere = {"channel_id": 7777, "game_id": game_id, "guild_id": OTHER_GUILD}
    attempts: list[Callable[[], Awaitable[Any]]] = [
        lambda: service.board(user_id=EVE.id, **elsewhere),
        lambda: service.board(user_id=ANN.id, **elsewhere),  # a player, in another server
        lambda: service.history(user_id=EVE.id, **elsewhere),
        lambda: service.pgn(user_id=EVE.id, **elsewhere),
        lambda: service.moves_from(user_id=EVE.id, square="e2", **elsewhere),
        lambda: service.play(user=ANN, text="Nf3", **elsewhere),
        lambda: service.resign(user=ANN, **elsewhere),
        lambda: service.abort(user=ANN, **elsewhere),
        lambda: service.offer_draw(user=ANN, **elsewhere),
        lambda: service.request_takeback(user=ANN, **elsewhere),
        lambda: conditional.add(user=BOB, text="Nc3 Nf6", **elsewhere),
        lambda: conditional.show(user_id=BOB.id, **elsewhere),
        lambda: conditional.clear(user=BOB, **elsewhere),
        lambda: analysis.review(user_id=EVE.id, **elsewhere),
        lambda: Moderation(service).cancel(guild_id=OTHER_GUILD, game_id=game_id, moderator=MOD),
        # In direct messages (no server): only the game's two players.
        lambda: service.board(channel_id=1, game_id=game_id, user_id=EVE.id),
        lambda: service.history(channel_id=1, game_id=game_id, user_id=EVE.id),
        lambda: analysis.review(channel_id=1, game_id=game_id, user_id=EVE.id),
        # A number that names no game at all gets the same words.
        lambda: service.board(channel_id=1, game_id=game_id + 99, guild_id=GUILD, user_id=1),
    ]
    for attempt in attempts:
        await refused(storage, attempt, "There is no game #", " here")
    assert [s.game.id for s in await service.my_games(ANN.id, guild_id=OTHER_GUILD)] == []
    # In its own server, and to its players in direct messages, it is there.
    assert (await service.board(channel_id=1, game_id=game_id, guild_id=GUILD, user_id=1)).game
    assert (await service.board(channel_id=1, game_id=game_id, user_id=ANN.id)).game
    assert [s.game.id for s in await service.my_games(ANN.id, guild_id=GUILD)] == [game_id]
    assert [s.game.id for s in await service.my_games(ANN.id)] == [game_id]


async def test_a_variant_a_tournament_and_a_challenge_of_another_server(
    service: GameService, storage: Storage
) -> None:
    await service.variants.define(
        GUILD, ANN, can_manage=False, filename="tiny.toml", data=TINY_CHESS.encode()
    )
    key = f"tiny@{GUILD}"
    for text in ("tiny", key, "Tiny Chess"):
        await refused(storage, lambda t=text: service.variants.resolve(OTHER_GUILD, t), "unknown")
        await refused(storage, lambda t=text: service.variants.show(OTHER_GUILD, t), "no variant")
        await refused(storage, lambda t=text: service.variants.export(OTHER_GUILD, t), "no variant")
        await refused(
            storage,
            lambda t=text: service.variants.delete(OTHER_GUILD, ANN, can_manage=True, text=t),
            "no variant",
        )
    tournaments = TournamentService(service)
    view = await tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ANN, name="Club Cup", variant="tiny",
        format="swiss",
    )  # fmt: skip
    tid = view.tournament.id
    for text in (f"#{tid}", str(tid), "Club Cup"):
        await refused(storage, lambda t=text: tournaments.find(OTHER_GUILD, 1, t), "no tournament")
    await refused(storage, lambda: tournaments.join(tid, BOB, guild_id=OTHER_GUILD), "no")
    challenge = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
    )
    cid = challenge.challenge.id
    await refused(storage, lambda: service.accept_challenge(cid, BOB, guild_id=OTHER_GUILD), "no")
    await refused(storage, lambda: service.decline_challenge(cid, BOB, guild_id=OTHER_GUILD), "no")


# --------------------------------------------------------------------------- self-judging


@pytest.mark.parametrize("decision", ["cancel", "adjudicate"])
async def test_a_moderator_does_not_judge_their_own_game(
    service: GameService, storage: Storage, effects: EffectRunner, decision: str
) -> None:
    moderation = Moderation(service)
    game_id = await start_game(service, "chess", white=MOD, black=BOB, thread=THREAD, rated=True)

    def decide(moderator: UserRef) -> Callable[[], Awaitable[Any]]:
        if decision == "cancel":
            return lambda: moderation.cancel(
                guild_id=GUILD, game_id=game_id, moderator=moderator, reason="stuck"
            )
        return lambda: moderation.adjudicate(
            guild_id=GUILD, game_id=game_id, moderator=moderator, verdict=Verdict.WHITE,
            reason="Bob left",
        )  # fmt: skip

    await refused(storage, decide(MOD), f"You play in game #{game_id}", "another moderator")
    ended = await decide(EVE)()
    assert not ended.view.game.is_active and ended.view.game.decided_by == EVE.id


# ------------------------------------------------------------------------------- flooding


async def test_open_challenges_per_player_and_per_channel(
    service: GameService, storage: Storage
) -> None:
    for _ in range(limits.OPEN_CHALLENGES_PER_PLAYER):
        await service.create_challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
        )
    await refused(
        storage,
        lambda: service.create_challenge(
            guild_id=GUILD, channel_id=CHANNEL + 1, challenger=ANN, variant="chess"
        ),
        f"You have {limits.OPEN_CHALLENGES_PER_PLAYER} open challenges",
    )
    # Another server is another count.
    await service.create_challenge(
        guild_id=OTHER_GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
    )
    # A channel fills up with many members' challenges.
    for i in range(limits.OPEN_CHALLENGES_PER_CHANNEL - limits.OPEN_CHALLENGES_PER_PLAYER):
        await service.create_challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger=UserRef(1000 + i, "m"), variant="chess"
        )
    await refused(
        storage,
        lambda: service.create_challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger=EVE, variant="chess"
        ),
        f"This channel has {limits.OPEN_CHALLENGES_PER_CHANNEL} open challenges",
    )
    # Expired challenges do not count.
    assert isinstance(service.clock, ManualClock)
    service.clock.advance(2 * 86_400)
    await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
    )


async def test_games_against_the_bot_per_player(service: GameService, storage: Storage) -> None:
    pool = SearchPool(1, table_megabytes=1)  # never started: nobody asks the engine to move
    try:
        engine = OpponentService(service, pool)

        async def play_the_bot(guild: int = GUILD) -> Any:
            return await engine.challenge(
                guild_id=guild, channel_id=CHANNEL, challenger=ANN, engine=FAIRY,
                variant="chess", color="white",
            )  # fmt: skip

        for _ in range(limits.GAMES_AGAINST_THE_BOT_PER_PLAYER):
            await play_the_bot()
        await refused(
            storage,
            lambda: play_the_bot(OTHER_GUILD),
            f"You play {limits.GAMES_AGAINST_THE_BOT_PER_PLAYER} games against Fairy Post",
        )
        first = (await service.my_games(ANN.id))[0].game.id
        await service.resign(channel_id=0, user=ANN, game_id=first)
        await play_the_bot()
    finally:
        pool.close()


async def test_tournaments_per_server(service: GameService, storage: Storage) -> None:
    tournaments = TournamentService(service)

    async def create(name: str, guild: int = GUILD) -> int:
        view = await tournaments.create(
            guild_id=guild, channel_id=CHANNEL, organiser=ANN, name=name, variant="chess",
            format="swiss",
        )  # fmt: skip
        return view.tournament.id

    ids = [await create(f"Cup {i}") for i in range(limits.TOURNAMENTS_PER_SERVER)]
    await refused(
        storage, lambda: create("One too many"), f"already runs {limits.TOURNAMENTS_PER_SERVER}"
    )
    await create("Elsewhere", OTHER_GUILD)
    await tournaments.cancel(ids[0])  # a cancelled one no longer counts
    await create("Now there is room")


async def test_conditional_lines_per_minute(service: GameService, storage: Storage) -> None:
    await start_game(service, "chess", thread=THREAD)
    await service.play(channel_id=THREAD, user=ANN, text="e4")  # Bob to move: Ann's lines
    conditional = ConditionalService(service)
    replies = ["a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6"]
    replies += ["g5", "h6", "h5", "Na6", "Nc6", "Nf6", "Nh6", "Nh6"]
    for reply in replies[: limits.CONDITIONAL_LINES_PER_MINUTE]:
        await conditional.add(channel_id=THREAD, user=ANN, text=f"{reply} d4")
    await refused(
        storage,
        lambda: conditional.add(channel_id=THREAD, user=ANN, text="Nh6 d4"),
        f"{limits.CONDITIONAL_LINES_PER_MINUTE} lines in a minute",
    )
    assert isinstance(service.clock, ManualClock)
    service.clock.advance(61)
    await conditional.add(channel_id=THREAD, user=ANN, text="Nh6 d4")


async def test_variant_definitions_per_hour_and_identical_files(
    service: GameService, storage: Storage, clock: ManualClock
) -> None:
    runner, announced = announcing_runner(storage, clock)

    async def define(text: str) -> object:
        return await service.variants.define(
            GUILD, ANN, can_manage=False, filename="tiny.toml", data=text.encode(), channel_id=77
        )

    await define(TINY_CHESS)
    # The announcement was written with the version: a stop now would not lose it.
    (pending,) = await storage.effects.find(kind=ANNOUNCE)
    assert pending.status.value == "pending" and pending.payload["version"] == 1
    await runner.run_due()
    assert announced == [
        {"guild_id": GUILD, "variant_id": "tiny", "version": 1, "channel_id": 77, "author_id": 101}
    ]
    # The same file again: no new version, no announcement, not counted.
    for _ in range(3):
        message = await refused(storage, lambda: define(TINY_CHESS), "already version 1")
        assert "nothing changed" in message
    with pytest.raises(UnchangedVariantError):
        await define(TINY_CHESS)
    # Versions 2..: refused files count as much as accepted ones (the same checks).
    for i in range(limits.VARIANT_DEFINITIONS_PER_HOUR - 1):
        if i % 2:
            with pytest.raises(VariantError):
                await define(TINY_CHESS.replace("files = 5", "files = 99"))
        else:
            await define(TINY_CHESS.replace("5x5.", f"5x5 ({i})."))
    await refused(
        storage,
        lambda: define(TINY_CHESS.replace("5x5.", "5x5, once more.")),
        f"{limits.VARIANT_DEFINITIONS_PER_HOUR} definitions in an hour",
    )
    clock.advance(3600)
    await define(TINY_CHESS.replace("5x5.", "5x5, once more."))
    await runner.run_due()
    versions = [p["version"] for p in announced]
    assert versions == sorted(set(versions)) and versions[-1] == len(versions)


def test_the_readme_quotes_the_limits() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for value in (
        f"| {limits.OPEN_CHALLENGES_PER_PLAYER} |",
        f"| {limits.OPEN_CHALLENGES_PER_CHANNEL} |",
        f"| {limits.GAMES_AGAINST_THE_BOT_PER_PLAYER} |",
        f"| {limits.TOURNAMENTS_PER_SERVER} |",
        f"| {limits.CONDITIONAL_LINES_PER_MINUTE} a minute |",
        f"| {limits.VARIANT_DEFINITIONS_PER_HOUR} an hour |",
    ):
        assert value in readme, value


def test_an_option_longer_than_it_declares_is_refused() -> None:
    with pytest.raises(Exception, match=f"at most {MAX_OPTION_LENGTH}"):
        odd_text("move", "e" * (MAX_OPTION_LENGTH + 1))
    odd_text("line", "e" * 2000, 2000)


def test_the_longest_texts_of_a_variant_fit_its_rules() -> None:
    from bot.service.catalogue import rules_view
    from rules.variant import load_definition

    embed = rules_embed(rules_view(load_definition(maximal_variant())))
    assert len(embed) <= 6000 and "@everyone" not in texts(embed)
