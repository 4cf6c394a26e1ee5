"""No player waits for another (issue 31): the event loop's lag seen by one player's
`/board` while another player runs each heavy command, the first autocomplete of a long
game in a fresh process, and the CPU of a `/move` with its picture.

1. Loop lag. One process, one SQLite store, the bot's service with its pictures. While a
   heavy command runs (each in turn, several times), a monitor sleeps 5 ms again and again
   and records how late it wakes (the loop's lag), and a second player asks for `/board` of
   their chess game (the board and its picture) every 50 ms. Heavy commands: `/piece` of
   Bigorra with its piece values not yet computed, `/variant define` and `/variant show`
   of a 16x16 server variant (Bigorra's definition under another id, values not yet
   computed), `/conditional add` of a 98-step Bigorra line and its autocomplete after the
   98 steps, the first autocomplete of a 400-ply Bigorra game not in memory, the animated
   replay of a 60-ply chess game (`/history`'s GIF), and `/analyze` of that game.
2. Cold autocomplete: a fresh interpreter imports the bot and opens the store (as a bot
   that has just started), then the player to move in a 400-ply Bigorra game types `N`;
   the time to its answer (CPU and wall), whether that answer held moves, and the time
   until the moves are there; once with nothing warmed, once after the warm-up the bot
   runs at start (`GameService.warm_variants`: the tables of the variants in play).
3. `/move` CPU: `GameService.play` and the picture drawn after it, in process CPU time
   (every thread), p50/p95 over a seeded random game, chess and Bigorra.

The machine is shared: the load average is printed with the rows. Run alone:
`python -m benchmarks --only responsive`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.common import Row, child_json, ms, percentiles
from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.pictures import RendererPictures
from rules.game import Game as RulesGame
from storage import Storage
from storage.games import insert_game
from storage.models import NewGame

SECTION = "responsive"
ANN, BOB, CAT, DAN = (
    UserRef(101, "Ann"),
    UserRef(102, "Bob"),
    UserRef(103, "Cat"),
    UserRef(104, "Dan"),
)
GUILD, CHANNEL = 900, 901
LONG, BOARD, LINE = 7000, 6000, 7100  # threads: the long Bigorra game, the probe's, the line's
LAG_GOAL = 0.100
SLEEP = 0.005
WINDOW = 1.0


def random_line(game: RulesGame, plies: int, seed: int) -> list[str]:
    """`plies` random moves from `game`'s position (fewer if it ends), in coordinates."""
    rng = random.Random(seed)
    trial = RulesGame(game.variant, game.position)
    out = []
    for _ in range(plies):
        if trial.outcome() is not None:
            break
        played = trial.play_move(trial.position.to_move(rng.choice(trial.position.legal_codes())))
        out.append(played.coordinates)
    return out


async def insert_long_game(storage: Storage, variant_id: str, moves: list[str]) -> int:
    """A game of `moves` between Ann and Bob, written in bulk (a benchmark fixture)."""
    game = RulesGame.replay(variant_id, (), moves)
    now = 1_800_000_000
    async with storage._db.transaction() as tx:
        game_id = await insert_game(
            tx,
            NewGame(
                guild_id=GUILD,
                channel_id=CHANNEL,
                white_id=ANN.id,
                black_id=BOB.id,
                variant_id=variant_id,
                start_position=RulesGame.new(variant_id).position_text,
                thread_id=LONG,
            ),
            now,
            STORAGE_ENGINE.version,
        )
        rows = [
            (
                game_id,
                p.ply,
                "white" if p.ply % 2 else "black",
                p.notation,
                p.coordinates,
                p.position_hash,
                now,
            )
            for p in game.history
        ]
        await tx.many(
            "INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, "
            "made_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        await tx.run(
            "UPDATE games SET ply_count = ?, position_text = ? WHERE id = ?",
            (len(rows), game.position_text, game_id),
        )
    return game_id


async def new_game(
    service: GameService, variant: str, white: UserRef, black: UserRef, thread: int
) -> int:
    view = await service.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=white,
        opponent=black,
        variant=variant,
        color="white",
    )
    game = await service.accept_challenge(view.challenge.id, black)
    await service.attach_thread(game.game.id, thread)
    return game.game.id


def service_for(storage: Storage) -> GameService:
    service = GameService(storage, clock=ManualClock(), pictures=RendererPictures())
    try:
        from bot.service.offload import SUGGEST_SECONDS
    except ImportError:  # before issue 31: autocomplete waited
        pass
    else:
        service.suggest_seconds = SUGGEST_SECONDS
    return service


def forget_values(service: GameService) -> None:
    """Piece values not yet computed, as in a bot that never showed them: the caches of
    this process and of the service emptied, the bot's worker process (if any) stopped, so
    the next one starts afresh (its start is part of the command's time)."""
    from search import values

    values._CACHE.clear()
    kept = getattr(service.variants, "_values", None)
    if kept is not None:
        kept.clear()
    try:
        from bot.service.offload import close_process
    except ImportError:
        return
    close_process()


async def measured(
    work: Callable[[], Awaitable[object]], service: GameService, board_game: int
) -> dict[str, Any]:
    """Runs `work` while the monitor and the other player's /board run; their figures."""
    lags: list[float] = []
    boards: list[float] = []
    running = True

    async def monitor() -> None:
        while running:
            t = time.perf_counter()
            await asyncio.sleep(SLEEP)
            lags.append(time.perf_counter() - t - SLEEP)

    async def board() -> None:
        while running:
            t = time.perf_counter()
            view = await service.board(channel_id=BOARD, user_id=CAT.id)
            await service.render(view.scene)
            boards.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)

    tasks = [asyncio.create_task(monitor()), asyncio.create_task(board())]
    await asyncio.sleep(0.02)
    start = time.perf_counter()
    cpu = time.process_time()
    await work()
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    # At least a second of samples: the figures of a short command are those of the second
    # that began with it (its after-effects included).
    await asyncio.sleep(max(0.0, WINDOW - took))
    running = False
    await asyncio.gather(*tasks)
    return {"lags": lags, "boards": boards, "took": took, "cpu": cpu}


async def lag_rows(folder: Path, quick: bool) -> list[Row]:
    from bot.service.analysis import AnalysisService
    from bot.service.conditional import ConditionalService

    storage = await Storage.open(
        folder / "lag.sqlite3", engine=STORAGE_ENGINE, rng=random.Random(3)
    )
    rows: list[Row] = []
    pool = None
    try:
        service = service_for(storage)
        for user in (ANN, BOB, CAT, DAN):
            await service.seen(user)
        # The probe's chess game (Cat and Dan), 60 plies: also /history's and /analyze's.
        chess_id = await new_game(service, "chess", CAT, DAN, BOARD)
        for i, text in enumerate(random_line(RulesGame.new("chess"), 60, seed=5)):
            await service.play(channel_id=BOARD, user=(CAT, DAN)[i % 2], text=text)
        with contextlib.suppress(Exception):  # over: /analyze reviews finished games
            await service.resign(channel_id=BOARD, user=DAN)
        plies = 60 if quick else 400
        long_moves = random_line(RulesGame.new("bigorra"), plies, seed=21)
        long_id = await insert_long_game(storage, "bigorra", long_moves)
        # Ann waits in a Bigorra game (she played 1 move): her 98-step line.
        await new_game(service, "bigorra", ANN, BOB, LINE)
        first = random_line(RulesGame.new("bigorra"), 1, seed=8)[0]
        await service.play(channel_id=LINE, user=ANN, text=first)
        line = random_line(RulesGame.replay("bigorra", (), [first]), 98, seed=9)
        line = line[: len(line) // 2 * 2]
        cond = ConditionalService(service)
        text = (Path(__file__).parent.parent / "rules/variants/bigorra.toml").read_text()
        defined: list[str] = []
        authors = iter(range(200, 10_000))

        async def piece() -> None:
            forget_values(service)
            variant, info = await service.variants.piece_info(GUILD, "bigorra", "King")
            await service.render_piece(variant, info.id)

        async def define() -> None:
            number = len(defined) + 1
            own = text.replace('id = "bigorra"', f'id = "big{number}"').replace(
                'name = "Bigorra"', f'name = "Big {number}"'
            )
            await service.variants.define(
                GUILD,
                UserRef(next(authors), "Author"),
                can_manage=True,
                filename=f"big{number}.toml",
                data=own.encode(),
            )
            defined.append(f"big{number}")

        async def show() -> None:
            forget_values(service)
            loaded = getattr(service.variants, "_loaded", None)
            if loaded is not None:
                loaded.clear()
            await service.variants.show(GUILD, defined[0])

        async def add() -> None:
            await cond.add(channel_id=LINE, user=ANN, text=" ".join(line))
            await cond.clear(channel_id=LINE, user=ANN)

        async def line_autocomplete() -> None:
            steps = getattr(cond, "_steps", None)
            if steps is not None:
                steps.clear()
            await cond.suggest(channel_id=LINE, user_id=ANN.id, typed=" ".join(line) + " ")

        async def first_touch() -> None:
            service.cache.drop(long_id)
            await service.suggest_moves(channel_id=LONG, user_id=ANN.id, typed="N")
            # and until the moves are there (the work goes on after a quick answer)
            while getattr(service, "_listing", None):
                await asyncio.sleep(0.005)

        async def history() -> None:
            await service.replay(chess_id)

        async def analyze() -> None:
            review = AnalysisService(
                service,
                total_nodes=60_000 if quick else 240_000,
                **({"pool": pool} if pool is not None else {}),
            )
            await review.review(channel_id=BOARD)

        try:
            from bot.service.searchpool import SearchPool

            pool = SearchPool(1)
            if "pool" not in AnalysisService.__init__.__code__.co_varnames:
                pool.close()
                pool = None
            else:
                await pool.warm()
        except ImportError:
            pool = None
        commands: list[tuple[str, Callable[[], Awaitable[object]], int]] = [
            ("nothing (idle)", lambda: asyncio.sleep(1.0), 1),
            ("/piece bigorra (piece values not computed)", piece, 3),
            ("/variant define (Bigorra's 16x16 file)", define, 3),
            ("/variant show (16x16 server variant, values not computed)", show, 3),
            (f"/conditional add (Bigorra, {len(line)} steps)", add, 3),
            (f"/conditional autocomplete after {len(line)} steps", line_autocomplete, 3),
            (f"first autocomplete of a {len(long_moves)}-ply Bigorra game", first_touch, 3),
            ("/history animated replay (chess, 60 plies)", history, 2),
            ("/analyze (chess, 60 plies)", analyze, 1),
        ]
        for label, work, times in commands:
            if quick:
                times = 1
            lags: list[float] = []
            boards: list[float] = []
            took: list[float] = []
            for _ in range(times):
                got = await measured(work, service, chess_id)
                lags += got["lags"]
                boards += got["boards"]
                took.append(got["took"])
            p99, top = percentiles(lags, 99, 100)
            label += f"; {len(lags)} lag samples"
            b50, b99 = percentiles(boards, 50, 99) if boards else (float("nan"),) * 2
            rows.append(
                Row(
                    SECTION,
                    f"loop lag p99 / max while: {label} (took {statistics.median(took):.2f} s, "
                    f"other player's /board p50 / p99 {ms(b50)} / {ms(b99)}, {len(boards)} asked)",
                    f"{ms(p99)} / {ms(top)}",
                    goal="p99 < 100 ms",
                )
            )
            print(f"  {rows[-1].entry}: {rows[-1].value}", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.close()
        await storage.close()
    return rows


# ---------------------------------------------------------------------- cold autocomplete


async def _cold_child(path: str, warm: bool = False) -> dict[str, Any]:
    storage = await Storage.open(path, engine=STORAGE_ENGINE)
    try:
        service = service_for(storage)
        if warm:
            await service.warm_variants()  # as the bot does at start, before players come
        cpu, start = time.process_time(), time.perf_counter()
        found = await service.suggest_moves(channel_id=LONG, user_id=ANN.id, typed="N")
        answered_cpu, answered = time.process_time() - cpu, time.perf_counter() - start
        has_moves = bool(found) and "keep typing" not in found[0].name
        while getattr(service, "_listing", None):
            await asyncio.sleep(0.002)
        again = await service.suggest_moves(channel_id=LONG, user_id=ANN.id, typed="N")
        ready = time.perf_counter() - start
        return {
            "wall": answered,
            "cpu": answered_cpu,
            "moves": has_moves,
            "ready": ready,
            "count": len(again),
        }
    finally:
        await storage.close()


async def cold_rows(folder: Path, quick: bool) -> list[Row]:
    path = folder / "cold.sqlite3"
    storage = await Storage.open(path, engine=STORAGE_ENGINE, rng=random.Random(4))
    plies = 60 if quick else 400
    try:
        moves = random_line(RulesGame.new("bigorra"), plies, seed=21)
        await insert_long_game(storage, "bigorra", moves)
    finally:
        await storage.close()
    rows = []
    for warm, how in ((False, "no warm-up"), (True, "after the start's warm-up")):
        args = ["--cold", str(path)] + (["--warm"] if warm else [])
        runs = [child_json("benchmarks.bench_responsive", *args) for _ in range(1 if quick else 3)]
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        ready = statistics.median(r["ready"] for r in runs)
        with_moves = sum(bool(r["moves"]) for r in runs)
        rows.append(
            Row(
                SECTION,
                f"first autocomplete of a {len(moves)}-ply Bigorra game in a fresh process "
                f"(bot imported, store open; {how}): answer wall / CPU, median of {len(runs)} "
                f"({with_moves} answered with moves, the others 'keep typing'); moves there "
                "after",
                f"{ms(wall)} / {ms(cpu)}; {ms(ready)}",
                goal="< 100 ms",
            )
        )
    return rows


# ---------------------------------------------------------------------------- /move CPU


async def move_rows(folder: Path, quick: bool) -> list[Row]:
    rows = []
    for variant_id in ("chess", "bigorra"):
        storage = await Storage.open(
            folder / f"move-{variant_id}.sqlite3", engine=STORAGE_ENGINE, rng=random.Random(5)
        )
        try:
            service = service_for(storage)
            for user in (ANN, BOB):
                await service.seen(user)
            await new_game(service, variant_id, ANN, BOB, LINE)
            view = await service.view((await service.find(LINE)).id)
            for side in (0, 1):  # the sprites of both sides drawn once, as in a running bot
                await service.render(dataclasses.replace(view.scene, perspective=side))
            moves = random_line(RulesGame.new(variant_id), 8 if quick else 40, seed=2026)
            play: list[float] = []
            total: list[float] = []
            for i, text in enumerate(moves):
                cpu = time.process_time()
                result = await service.play(channel_id=LINE, user=(ANN, BOB)[i % 2], text=text)
                played = time.process_time()
                await service.render(result.view.scene)
                play.append(played - cpu)
                total.append(time.process_time() - cpu)
            p50, p95 = percentiles(total, 50, 95)
            q50, q95 = percentiles(play, 50, 95)
            rows.append(
                Row(
                    SECTION,
                    f"{variant_id}: /move CPU (every thread) with its picture p50 / p95; "
                    f"without the picture p50 / p95 ({len(moves)} moves)",
                    f"{ms(p50)} / {ms(p95)}; {ms(q50)} / {ms(q95)}",
                    goal="Bigorra p95 < 25 ms" if variant_id == "bigorra" else "",
                )
            )
        finally:
            await storage.close()
    return rows


def load_text() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} cores"


def run(quick: bool = False) -> list[Row]:
    rows = [Row(SECTION, "machine during this section", load_text())]
    with tempfile.TemporaryDirectory(prefix="fairypost-responsive-") as name:
        folder = Path(name)
        rows += asyncio.run(move_rows(folder, quick))
        rows += asyncio.run(cold_rows(folder, quick))
        rows += asyncio.run(lag_rows(folder, quick))
    rows.append(Row(SECTION, "machine after this section", load_text()))
    return rows


if __name__ == "__main__" and sys.argv[1:2] == ["--cold"]:
    print(json.dumps(asyncio.run(_cold_child(sys.argv[2], "--warm" in sys.argv[3:]))))
