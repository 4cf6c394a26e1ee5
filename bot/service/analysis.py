"""/analyze: the engine's review of a game, the way lichess players review one.

The engine (`search.analysis`) searches every position of the game within a node budget,
off the event loop, one review at a time per process (a review takes the CPU for seconds
to a minute; a queue keeps the bot answering the others meanwhile). It answers with the
game record annotated with `?!`, `?`, `??` and `!` (the record still replays: marks and
`#` lines after the moves are allowed by the format), a short summary and an evaluation
graph.

Where the operator named Fairy-Stockfish (FAIRYPOST_FAIRY_STOCKFISH), it reviews the games of
every variant it can play (`search.partner`), Fairy Post's engine the others; the review
says which did.

When a game may be reviewed: a finished game, by anyone (games are public). A running game
between two people, never: the engine's opinion would be advice to the player to move. A
running game against Fairy Post itself may be reviewed when it is unrated (the engine is
the opponent, nobody is wronged and the player learns); a rated one waits for its end, so
the bot's rating pool stays honest.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.service.describe import MAX_DESCRIPTION
from bot.service.engine import replay
from bot.service.errors import BadRequestError
from bot.service.games import GameService
from bot.service.models import Picture, RecordFile
from bot.service.offload import off_loop
from rules.record import format_record
from rules.variant import Variant
from search.analysis import MATE_CP, Analysis, analyze, win_chance
from search.partner import OWN_ENGINE
from storage.models import Game, JsonObject, NewEffect

if TYPE_CHECKING:
    from bot.service.searchpool import SearchPool

log = logging.getLogger("fairypost.analysis")

TOTAL_NODES = 1_200_000
"""The nodes one review may spend over the whole game (about half a minute on a busy
machine), shared out among its positions."""
MIN_NODES, MAX_NODES = 3_000, 25_000
"""Per position: enough for a tactic three plies deep, never more than a short game needs."""
PARTNER_TOTAL_NODES = 20_000_000
PARTNER_MIN_NODES, PARTNER_MAX_NODES = 100_000, 1_000_000
"""Fairy-Stockfish's share of a review: about half a minute at its 600,000 nodes a second
in chess, depth 12 to 16 a position."""
SAFETY_SECONDS = 600.0
"""A review stops after ten minutes whatever its budget (Discord keeps a deferred reply
open for fifteen); positions it did not reach get no marks, and the reply says so."""
SHOWN_MOVES = 6
MARK_NAMES = {"??": "blunder", "?": "mistake", "?!": "inaccuracy", "!": "only good move"}


def nodes_per_position(positions: int, total: int = TOTAL_NODES) -> int:
    """The node budget of one position of a review of `positions` positions."""
    return max(MIN_NODES, min(MAX_NODES, total // max(1, positions)))


def partner_nodes_per_position(positions: int, total: int = PARTNER_TOTAL_NODES) -> int:
    """Fairy-Stockfish's node budget for one position of a review of `positions`."""
    share = total // max(1, positions)
    return max(PARTNER_MIN_NODES, min(PARTNER_MAX_NODES, share))


def eval_text(cp: int) -> str:
    """White's view: `+0.65`, `−2.10`, `White mates`, `Black mates`."""
    if cp >= MATE_CP:
        return "White mates"
    if cp <= -MATE_CP:
        return "Black mates"
    return f"{cp / 100:+.2f}".replace("-", "−")


def graph_description(title: str, analysis: Analysis) -> str:
    """The evaluation graph in words (its alt text): White's winning chances where the game
    started, peaked, sank and ended, and the marked moves the dots show."""
    head = f"Evaluation graph of {title}: White's winning chances after each move"
    chances = [
        (ply, round(100 * win_chance(score)))
        for ply, score in enumerate(analysis.scores)
        if score is not None
    ]
    if not chances:
        return f"{head}; no position was reached in the time."
    names = {m.ply: f"{m.label} {m.notation}" for m in analysis.moves}

    def at(ply: int) -> str:
        return "at the start" if ply == 0 else f"after {names.get(ply, ply)}"

    high = max(chances, key=lambda c: c[1])
    low = min(chances, key=lambda c: c[1])
    points = [(chances[0], ""), (high, "highest "), (low, "lowest "), (chances[-1], "")]
    shown = [f"{prefix}{pct}% {at(ply)}" for (ply, pct), prefix in points]
    text = f"{head}: {', '.join(shown)}."
    marked = [f"{m.label} {m.notation}{m.mark}" for m in analysis.moves if m.mark]
    if marked:
        text += f" Marked moves (coloured dots): {', '.join(marked)}."
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


@dataclass(frozen=True, slots=True)
class Review:
    """What /analyze answers: the annotated record, the graph and the summary's lines."""

    game_id: int
    title: str
    record: RecordFile
    graph: Picture
    summary: tuple[str, ...]
    worst: tuple[str, ...]
    footer: str
    complete: bool
    engine: str = OWN_ENGINE
    """Who reviewed the game, as players read it (`Fairy-Stockfish 11.1`)."""


def annotated_record(text: str, analysis: Analysis) -> str:
    """A record from `format_record` with each move's mark after it and, under every
    marked move, a `#` line with the evaluation and the engine's move."""
    reviews = {m.ply: m for m in analysis.moves}
    lines = text.splitlines()
    out: list[str] = []
    ply = 0
    legend = (
        "# analysis: ?! inaccuracy, ? mistake, ?? blunder, ! the only good move; "
        "evaluations in pawns, White's view"
    )
    for line in lines:
        if line.startswith("#"):
            out.append(line)
            if line.startswith("# piece letters:"):
                out.append(legend)
            continue
        ply += 1
        review = reviews.get(ply)
        if review is None:
            out.append(line)
            continue
        out.append(line + review.mark)
        # The move's own score, from the search that judged it (the graph's point after it
        # comes from the next position's search and may differ a little).
        if review.mark in ("?!", "?", "??"):
            best = f"; {review.best} was better" if review.best else ""
            out.append(f"#   {MARK_NAMES[review.mark]}: {eval_text(review.score)}{best}")
        elif review.mark == "!":
            out.append(f"#   only good move: {eval_text(review.score)}")
    return "\n".join(out) + "\n"


POST = "analysis.post"
"""The effect posting a review in its channel: a review that outlives the interaction's
token (15 minutes, queued behind others) is delivered through the outbox, never lost."""


def review_payload(review: Review, channel_id: int) -> JsonObject:
    """A review as an effect's payload (the graph's PNG in base64)."""
    return {
        "channel_id": channel_id,
        "game_id": review.game_id,
        "title": review.title,
        "record": [review.record.filename, review.record.text],
        "graph": [
            base64.b64encode(review.graph.png).decode("ascii"),
            review.graph.width,
            review.graph.height,
            review.graph.filename,
            review.graph.description,
        ],
        "summary": list(review.summary),
        "worst": list(review.worst),
        "footer": review.footer,
        "complete": review.complete,
        "engine": review.engine,
    }


def review_of(payload: JsonObject) -> Review:
    """The review an effect's payload carries (`review_payload`)."""
    png, width, height, filename, description = payload["graph"]
    record_name, record_text = payload["record"]
    return Review(
        game_id=int(payload["game_id"]),
        title=str(payload["title"]),
        record=RecordFile(str(record_name), str(record_text)),
        graph=Picture(
            base64.b64decode(str(png)), int(width), int(height), str(filename), str(description)
        ),
        summary=tuple(str(x) for x in payload["summary"]),
        worst=tuple(str(x) for x in payload["worst"]),
        footer=str(payload["footer"]),
        complete=bool(payload["complete"]),
        engine=str(payload.get("engine", OWN_ENGINE)),  # reviews recorded before it was said
    )


class AnalysisService:
    """`/analyze` over the game service (games, storage, pictures). Reviews run in `pool`
    (worker processes of their own: a review holds the CPU for up to ten minutes and must
    not slow the bot's replies); `run` carries one elsewhere (tests); else a worker thread."""

    def __init__(
        self,
        games: GameService,
        *,
        total_nodes: int = TOTAL_NODES,
        partner_nodes: int = PARTNER_TOTAL_NODES,
        run: Callable[[Callable[[], Analysis]], Awaitable[Analysis]] | None = None,
        pool: SearchPool | None = None,
    ) -> None:
        self.games = games
        self.storage = games.storage
        self.total_nodes = total_nodes
        self.partner_nodes = partner_nodes
        self._run = run
        self._pool = pool
        self._queue = asyncio.Semaphore(1)
        self._waiting = 0

    async def post_later(self, review: Review, channel_id: int) -> None:
        """Records the review's post in `channel_id` in the outbox (`POST`): the bot's
        effect runner posts it, once, whatever happens to the interaction or the process."""
        effect = NewEffect(
            POST,
            review_payload(review, channel_id),
            queue=f"analysis:{review.game_id}",
            dedupe_key=None,
        )
        await self.storage.effects.add([effect], self.games.clock.now())

    async def _may_review(self, game: Game, engine_ids: Collection[int]) -> None:
        if game.ply_count == 0:
            raise BadRequestError(f"Game #{game.id} has no moves to analyse.")
        if not game.is_active:
            return
        against_engine = (
            game.engine_id is not None or game.white_id in engine_ids or game.black_id in engine_ids
        )
        if not against_engine:
            raise BadRequestError(
                f"Game #{game.id} is still being played: the engine's opinion would be advice "
                "to a player. /analyze works once the game is over."
            )
        if game.rated:
            raise BadRequestError(
                f"Game #{game.id} against Fairy Post is rated: it can be analysed once it is "
                "over (an unrated game against Fairy Post can be analysed at any time)."
            )

    async def review(
        self,
        *,
        channel_id: int,
        game_id: int | None = None,
        engine_ids: Collection[int] = (),
        guild_id: int | None = None,
        user_id: int | None = None,
        queued: Callable[[int], Awaitable[None]] | None = None,
    ) -> Review:
        """Review the game named (or the one of this channel; by number, in its own server or
        by its players in direct messages). `engine_ids`: the users that are Fairy Post
        itself (a running game against it may be reviewed, if unrated)."""
        game = await self.games.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        await self._may_review(game, engine_ids)
        moves = [m.coordinate for m in await self.storage.games.moves(game.id)]
        variant = await self.games.variants.for_game(game)
        positions = len(moves) + 1
        budget = nodes_per_position(positions, self.total_nodes)

        def work() -> Analysis:
            # A game of its own: the cached one may move on (a running game) meanwhile.
            return analyze(
                replay(variant, moves),
                nodes_per_move=budget,
                movetime_per_move=None,
                total_time=SAFETY_SECONDS,
            )

        if self._queue.locked() and queued is not None:
            # One review at a time: tell the player where theirs stands.
            await queued(self._waiting + 1)
        self._waiting += 1
        try:
            await self._queue.acquire()
        finally:
            self._waiting -= 1
        engine = OWN_ENGINE
        try:
            if self._pool is not None:
                partner = partner_nodes_per_position(positions, self.partner_nodes)
                reviewed = await self._pool.analyze(
                    variant,
                    moves,
                    nodes_per_move=budget,
                    total_time=SAFETY_SECONDS,
                    partner_nodes=partner,
                )
                analysis, engine = reviewed.analysis, reviewed.engine
                if reviewed.fallback:
                    log.warning(
                        "game %d: Fairy-Stockfish did not review it (%s); %s did",
                        game.id,
                        reviewed.fallback,
                        engine,
                    )
                if engine != OWN_ENGINE:
                    budget = partner
            elif self._run is not None:
                analysis = await self._run(work)
            else:
                analysis = await asyncio.to_thread(work)
        finally:
            self._queue.release()
        return await self._answer(game, variant, moves, analysis, budget, engine)

    async def _answer(
        self,
        game: Game,
        variant: Variant,
        moves: Sequence[str],
        analysis: Analysis,
        budget: int,
        engine: str = OWN_ENGINE,
    ) -> Review:
        white, black = (
            await self.games.name_of(game.white_id),
            await self.games.name_of(game.black_id),
        )
        result = None if game.is_active else (game.end_detail or "game over")
        date = dt.datetime.fromtimestamp(game.created_at, dt.UTC).date().isoformat()
        headers = {
            "white": white,
            "black": black,
            "date": date,
            "source": f"Fairy Post game #{game.id}, analysed by {engine}",
        }
        # Off the loop: the record replays the game (a second for 400 plies of Bigorra).
        text = await off_loop(
            lambda: annotated_record(
                format_record(replay(variant, moves), headers, result=result), analysis
            )
        )
        title = f"Game #{game.id}, {variant.name}: {white} vs {black}"
        if self.games.pictures is None:
            raise BadRequestError("Pictures are not available.")
        pictures = self.games.pictures
        marks = [(m.ply, m.mark) for m in analysis.moves if m.mark]
        graph = await asyncio.to_thread(pictures.eval_graph, analysis.scores, marks, title=title)
        graph = replace(graph, description=graph_description(title, analysis))
        summary = []
        for color, name in ((0, white), (1, black)):
            counts = analysis.counts(color)
            parts = [f"{counts[k]} {k}" for k in ("??", "?", "?!", "!") if counts[k]]
            side = "White" if color == 0 else "Black"
            summary.append(f"{name} ({side}): {', '.join(parts) or 'no marks'}")
        marked = sorted(
            (m for m in analysis.moves if m.mark in ("??", "?")), key=lambda m: -m.loss
        )[:SHOWN_MOVES]
        worst = tuple(
            f"{m.label} {m.notation}{m.mark} ({eval_text(m.score)}"
            + (f"; {m.best} was better)" if m.best else ")")
            for m in sorted(marked, key=lambda m: m.ply)
        )
        footer = (
            f"{len(analysis.scores)} positions, {budget:,} nodes each "
            f"({analysis.nodes:,} in all, {analysis.elapsed:.0f} s)"
        )
        if not analysis.complete:
            reached = sum(s is not None for s in analysis.scores)
            footer += (
                f"; time ran out after {reached} positions (from the end): "
                "the first moves have no marks"
            )
        return Review(
            game_id=game.id,
            title=title,
            record=RecordFile(f"fairypost-{game.id}-{variant.id}-analysis.txt", text),
            graph=graph,
            summary=tuple(summary),
            worst=worst,
            footer=footer,
            complete=analysis.complete,
            engine=engine,
        )
