"""The bot's move pipeline, autocomplete, and the bot process's memory with 10,000 games.

* Pipeline: `GameService.play` exactly as the /move command calls it (find the game, check
  the turn, parse and validate the move, apply it, detect the end, commit it to SQLite in a
  temporary folder with fsync), then the picture drawn by `RendererPictures` through
  `GameService.render`, as the cog does after acknowledging the move. Two players play a
  seeded random game typed in the printed notation, as autocomplete offers it.
* Autocomplete: `GameService.suggest_moves` for the player to move with several prefixes of
  the move they then play; the first call of a turn computes the list of legal moves with
  their notation (cached for the turn), the others filter it.
* Memory: 10,000 active games of every variant (with their moves) are written in bulk; a
  fresh interpreter then does what the bot process does: imports the bot, opens the store,
  builds the service, and loads games lazily as players touch them (/board and one
  autocomplete each) for a sample larger than the service's cache of 512 games.

Run alone: `python -m benchmarks --only pipeline`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Row, child_json, ms, percentiles, rss_mb
from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.pictures import Pictures, RendererPictures
from rules.game import Game as RulesGame
from rules.notation import format_code
from rules.variant import load_variant, variant_ids
from storage import Storage
from storage.games import insert_game
from storage.health import file_health
from storage.models import NewGame

SECTION = "pipeline"
PIPELINE_VARIANTS = ("chess", "patchanka", "timurid-herat", "bigorra")
AUTOCOMPLETE_VARIANTS = ("bigorra", "chess")
ANN, BOB = UserRef(101, "Ann"), UserRef(102, "Bob")
GUILD, CHANNEL, THREAD = 900, 901, 5000
MEMORY_GAMES = 10_000
MEMORY_THREADS = 1_000_000
CACHE_SIZE = 512  # GameService's default


def run(quick: bool = False) -> list[Row]:
    """Pipeline and autocomplete times, then memory; `quick` plays and creates less."""
    return asyncio.run(_run(quick))


async def _run(quick: bool) -> list[Row]:
    pictures, missing = renderer_pictures()
    rows = []
    with tempfile.TemporaryDirectory(prefix="fairypost-bench-") as folder:
        rows += await pipeline_rows(Path(folder), quick, pictures, missing)
        rows += await memory_rows(Path(folder), quick)
    return rows


def renderer_pictures() -> tuple[Pictures | None, str]:
    """The bot's picture maker if the renderer draws a start position, else why not."""
    pictures = RendererPictures()
    try:
        pictures.board(
            RulesGame.new("chess").position,
            perspective=0,
            last_move=None,
            highlights=(),
            captures=(),
            selected=None,
        )
    except Exception as exc:  # the renderer is optional here: any failure means "not yet"
        return None, f"{type(exc).__name__}: {exc}"
    return pictures, ""


# ---------------------------------------------------------------- pipeline and autocomplete


def random_line(variant_id: str, plies: int, seed: int) -> list[str]:
    """A seeded random game in printed notation, stopped before the end by rule."""
    rng = random.Random(seed)
    game = RulesGame.new(variant_id)
    pos = game.position
    out: list[str] = []
    for _ in range(plies):
        codes = pos.legal_codes()
        if not codes or pos.outcome(codes) is not None:
            break
        text = format_code(pos, rng.choice(codes))
        game.play(text)
        if game.outcome() is not None:
            game.undo()
            break
        out.append(text)
    return out


@dataclass
class Timings:
    play: list[float]
    total: list[float]
    suggest: list[float]
    suggest_first: list[float]


async def play_game(
    folder: Path, variant_id: str, moves: list[str], pictures: Pictures | None, suggest: bool
) -> Timings:
    """Plays `moves` through a fresh service and store, timing every step."""
    folder.mkdir(exist_ok=True)
    path = folder / f"pipeline-{variant_id}.sqlite3"
    storage = await Storage.open(path, engine=STORAGE_ENGINE, rng=random.Random(7))
    try:
        service = GameService(storage, clock=ManualClock(), pictures=pictures)
        view = await service.create_challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=ANN,
            opponent=BOB,
            variant=variant_id,
            color="white",
        )
        game = await service.accept_challenge(view.challenge.id, BOB)
        await service.attach_thread(game.game.id, THREAD)
        if pictures is not None and view.scene is not None:
            # Steady state: a running bot has drawn this variant's pieces from both sides
            # before (the sprite cache); a first picture per side and process costs about
            # 0.1 s more, which `bench_render` reports as "sprite cache empty".
            for side in (0, 1):
                await service.render(dataclasses.replace(view.scene, perspective=side))
        out = Timings([], [], [], [])
        for ply, text in enumerate(moves):
            player = (ANN, BOB)[ply % 2]
            if suggest:
                for i, typed in enumerate(_prefixes(text)):
                    begin = time.perf_counter()
                    found = await service.suggest_moves(
                        channel_id=THREAD, user_id=player.id, typed=typed
                    )
                    spent = time.perf_counter() - begin
                    (out.suggest_first if i == 0 else out.suggest).append(spent)
                    assert found, f"no suggestion for {typed!r}"
            begin = time.perf_counter()
            result = await service.play(channel_id=THREAD, user=player, text=text)
            played = time.perf_counter()
            if pictures is not None:
                await service.render(result.view.scene)
            out.play.append(played - begin)
            out.total.append(time.perf_counter() - begin)
        out.suggest += out.suggest_first
        return out
    finally:
        await storage.close()


def _prefixes(text: str) -> list[str]:
    """What a player has typed on the way to `text`: nothing, then longer and longer
    beginnings (the first one opens the turn's list)."""
    return list(dict.fromkeys(["", text[:1], text[:2], text[:3], text[:-1]]))


async def pipeline_rows(
    folder: Path, quick: bool, pictures: Pictures | None, missing: str
) -> list[Row]:
    plies = 8 if quick else 40
    rows = []
    drawn = "the picture" if pictures is not None else f"NO picture (renderer: {missing})"
    # A few unmeasured moves first: the first game of a process also pays for imports and
    # SQLite's first files, which a running bot has long paid.
    await play_game(folder / "warm-up", "chess", random_line("chess", 4, 1), pictures, True)
    for seed, variant_id in enumerate(PIPELINE_VARIANTS):
        RulesGame.new(variant_id).legal_moves()  # the move tables, built once per process
        moves = random_line(variant_id, plies, seed=2026 + seed)
        name = load_variant(variant_id).name
        t = await play_game(
            folder, variant_id, moves, pictures, suggest=variant_id in AUTOCOMPLETE_VARIANTS
        )
        p50, p95 = percentiles(t.total, 50, 95)
        rows.append(
            Row(
                SECTION,
                f"{name}: /move pipeline (read, validate, apply, end check, SQLite commit, "
                f"{drawn}), p50 / p95 over {len(moves)} moves",
                f"{ms(p50)} / {ms(p95)}",
                goal="p95 < 50 ms" if variant_id == "bigorra" else "",
            )
        )
        if pictures is not None:
            p50, p95 = percentiles(t.play, 50, 95)
            rows.append(
                Row(
                    SECTION,
                    f"{name}: the same without the picture, p50 / p95",
                    f"{ms(p50)} / {ms(p95)}",
                )
            )
        if t.suggest:
            (p95,) = percentiles(t.suggest, 95)
            (first95,) = percentiles(t.suggest_first, 95)
            rows.append(
                Row(
                    SECTION,
                    f"{name}: autocomplete, p95 of {len(t.suggest)} calls (up to 5 prefixes "
                    f"in each of {len(moves)} positions) / p95 of the first call of each turn",
                    f"{ms(p95)} / {ms(first95)}",
                    goal="p95 < 30 ms",
                )
            )
    return rows


# ---------------------------------------------------------------------------- memory


@dataclass(frozen=True)
class Line:
    """A game's moves as storage keeps them, and the position they lead to."""

    start_text: str
    moves: list[tuple[str, str, str]]  # (notation, coordinates, position hash)
    position_text: str


def template_lines(per_variant: int) -> dict[str, list[Line]]:
    """Seeded random games of 10 to 40 plies (an even number: White to move) per variant."""
    out: dict[str, list[Line]] = {}
    for v, variant_id in enumerate(variant_ids()):
        out[variant_id] = []
        for k in range(per_variant):
            seed = v * 100 + k
            line = random_line(variant_id, 2 * random.Random(seed).randint(5, 20), seed)
            game = RulesGame.replay(variant_id, (), line[: len(line) // 2 * 2])
            moves = [(m.notation, m.coordinates, m.position_hash) for m in game.history]
            out[variant_id].append(Line(game.start_text, moves, game.position_text))
    return out


async def create_games(path: Path, count: int, lines: dict[str, list[Line]]) -> int:
    """`count` active games, White to move in each, written in one transaction through
    storage's own `insert_game`; their moves and positions follow in bulk. Returns the
    number of moves written."""
    storage = await Storage.open(path, engine=STORAGE_ENGINE, rng=random.Random(1))
    ids = list(lines)
    rng = random.Random(10_000)
    now = 1_800_000_000
    moves_rows: list[tuple[Any, ...]] = []
    game_rows: list[tuple[Any, ...]] = []
    try:
        # A benchmark fixture: storage has no public bulk insert, and 10,000 separate
        # fsync'd transactions would take minutes.
        async with storage._db.transaction() as tx:
            for i in range(count):
                variant_id = ids[i % len(ids)]
                line = rng.choice(lines[variant_id])
                white = 1 + rng.randrange(2_000)
                black = 1 + (white + rng.randrange(1, 1_999)) % 2_000
                new = NewGame(
                    guild_id=GUILD,
                    channel_id=CHANNEL,
                    white_id=white,
                    black_id=black,
                    variant_id=variant_id,
                    start_position=line.start_text,
                    thread_id=MEMORY_THREADS + i,
                )
                game_id = await insert_game(tx, new, now, STORAGE_ENGINE.version)
                for ply, (notation, coordinate, position_hash) in enumerate(line.moves, 1):
                    color = "white" if ply % 2 else "black"
                    moves_rows.append(
                        (game_id, ply, color, notation, coordinate, position_hash, now)
                    )
                game_rows.append((len(line.moves), line.position_text, game_id))
            await tx.many(
                "INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, "
                "made_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                moves_rows,
            )
            await tx.many(
                "UPDATE games SET ply_count = ?, position_text = ? WHERE id = ?", game_rows
            )
    finally:
        await storage.close()
    return len(moves_rows)


async def memory_rows(folder: Path, quick: bool) -> list[Row]:
    count = 500 if quick else MEMORY_GAMES
    sample = 60 if quick else 1_000
    begin = time.perf_counter()
    lines = template_lines(1 if quick else 4)
    path = folder / "memory.sqlite3"
    moves = await create_games(path, count, lines)
    created = time.perf_counter() - begin
    size = sum(p.stat().st_size for p in folder.glob("memory.sqlite3*")) / 1e6
    quick, full = integrity_seconds(path)
    m = child_json("benchmarks.bench_pipeline", "--memory", str(path), str(sample))
    tables = child_json("benchmarks.bench_pipeline", "--tables")
    return [
        Row(
            SECTION,
            f"{count:,} active games of all {len(lines)} variants, {moves:,} moves: written "
            f"in bulk (seconds) / database size",
            f"{created:.1f} s / {size:.0f} MB",
        ),
        Row(
            SECTION,
            "checking that database: PRAGMA quick_check / the full integrity_check (the "
            "bot's start-up check; best of 3, file in the page cache)",
            f"{ms(quick)} / {ms(full)}",
        ),
        Row(
            SECTION,
            f"bot process RSS: bot imported / store open + service / after {m['touched']:,} "
            f"games loaded lazily (/board + autocomplete each; cache {CACHE_SIZE} games) / peak",
            f"{m['imported']:.0f} / {m['opened']:.0f} / {m['touched_rss']:.0f} / "
            f"{m['peak']:.0f} MB",
        ),
        Row(
            SECTION,
            f"of which: the move tables of all {tables['variants']} variants (RSS growth of a "
            "fresh process loading them and nothing else)",
            f"{tables['mb']:.0f} MB",
        ),
        Row(
            SECTION,
            "loading a game on first touch (read its moves, replay them, build the view; the "
            "first game of a variant also builds its move tables), p50 / p95",
            f"{ms(m['load_p50'])} / {ms(m['load_p95'])}",
        ),
    ]


def integrity_seconds(path: Path) -> tuple[float, float]:
    """quick_check and the full integrity_check (the start-up check) on `path`, best of 3."""
    out = []
    for full in (False, True):
        best = float("inf")
        for _ in range(3):
            begin = time.perf_counter()
            assert file_health(path, full=full).ok
            best = min(best, time.perf_counter() - begin)
        out.append(best)
    return out[0], out[1]


def _tables_child() -> dict[str, float]:
    """RSS growth from building the move tables of every variant (and listing a start)."""
    ids = variant_ids()
    before, _ = rss_mb()
    for variant_id in ids:
        RulesGame.new(variant_id).position.legal_codes()
    after, _ = rss_mb()
    return {"variants": len(ids), "mb": after - before}


async def _memory_child(path: Path, sample: int) -> dict[str, float]:
    """The bot process's share of the work, in a fresh interpreter (see `memory_rows`)."""
    import bot.client  # noqa: F401 - what the bot process has loaded (discord.py, cogs)

    imported, _ = rss_mb()
    storage = await Storage.open(path, engine=STORAGE_ENGINE)
    try:
        service = GameService(storage, clock=ManualClock(), pictures=RendererPictures())
        ids = await storage.games.list_active_ids()
        opened, _ = rss_mb()
        chosen = random.Random(3).sample(ids, min(sample, len(ids)))
        loads = []
        for game_id in chosen:
            game = await storage.games.get(game_id)
            assert game.thread_id is not None
            begin = time.perf_counter()
            await service.board(channel_id=game.thread_id, user_id=game.white_id)
            loads.append(time.perf_counter() - begin)
            await service.suggest_moves(channel_id=game.thread_id, user_id=game.white_id, typed="")
        touched_rss, peak = rss_mb()
    finally:
        await storage.close()
    p50, p95 = percentiles(loads, 50, 95)
    return {
        "imported": imported,
        "opened": opened,
        "touched": len(chosen),
        "touched_rss": touched_rss,
        "peak": peak,
        "load_p50": p50,
        "load_p95": p95,
    }


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--memory":
        print(json.dumps(asyncio.run(_memory_child(Path(sys.argv[2]), int(sys.argv[3])))))
    elif sys.argv[1:] == ["--tables"]:
        print(json.dumps(_tables_child()))
    else:
        for row in run(quick="--quick" in sys.argv):
            print(f"{row.section} | {row.entry} | {row.value} | {row.goal}")
