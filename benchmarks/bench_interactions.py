"""The slow work behind an interaction, on the biggest boards, and the animated replays.

Discord drops an interaction that is not acknowledged within 3 seconds, so every command
and button that may take long acknowledges first (`bot.cogs.common.acknowledge`) and does
this work afterwards. What is measured is that work, in its worst case: a long Bigorra
(16x16, 34 piece types) and Leaping Bat (16x12) game of 400 plies touched for the first
time in a fresh process (the variant's move tables built, the moves replayed, the legal
moves listed with their notation), the steps of the Move button's menus on it, and the
animated replay of the whole game, with its size as GIF and as animated WebP.

Run alone: `python -m benchmarks --only interactions`.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, child_json, ms
from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.picker import MovePicker
from rules.game import Game as RulesGame

SECTION = "interactions"
VARIANTS = ("bigorra", "leaping-bat")
PLIES = 400
ANN, BOB = UserRef(101, "Ann"), UserRef(102, "Bob")
GUILD, CHANNEL, THREAD = 900, 901, 5000


def long_game(variant_id: str, plies: int, seed: int = 21) -> list[str]:
    """A seeded random game of `plies` plies (or until it ends), in coordinates."""
    rng = random.Random(seed)
    game = RulesGame.new(variant_id)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        codes = game.position.legal_codes()
        game.play_move(game.position.to_move(rng.choice(codes)))
    return [p.coordinates for p in game.history]


def first_touch(variant_id: str, moves: list[str]) -> dict[str, float]:
    """In a fresh interpreter: import the rules, replay the game, list its moves."""
    start = time.perf_counter()
    from rules.game import Game

    game = Game.replay(variant_id, (), moves)
    replayed = time.perf_counter()
    game.legal_moves()
    listed = time.perf_counter()
    return {"replay": replayed - start, "list": listed - replayed}


async def menu_steps(variant_id: str, moves: list[str], folder: Path) -> dict[str, float]:
    """The Move button's three menus on the game's last position (warm process)."""
    from storage import Storage
    from storage.models import Clock, NewGame

    store = await Storage.open(folder / f"{variant_id}.sqlite3", engine=STORAGE_ENGINE)
    try:
        service = GameService(store, clock=ManualClock())
        for user in (ANN, BOB):
            await service.seen(user)
        game = await store.games.create(
            NewGame(
                guild_id=GUILD,
                channel_id=CHANNEL,
                white_id=ANN.id,
                black_id=BOB.id,
                variant_id=variant_id,
                start_position=RulesGame.new(variant_id).position_text,
                options=(),
                rated=False,
                clock=Clock.untimed(),
                thread_id=THREAD,
            ),
            0,
        )
        for i, text in enumerate(moves):
            await service.play(channel_id=THREAD, user=(ANN, BOB)[i % 2], text=text)
        mover = (ANN, BOB)[len(moves) % 2]
        picker = MovePicker(service)
        service.cache.drop(game.id)
        t0 = time.perf_counter()
        pieces = await picker.pieces(game_id=game.id, user_id=mover.id)
        t1 = time.perf_counter()
        _, rules_game, legal = await service.turn_moves(game.id, mover.id)
        origin = max(
            {o.value for o in pieces.options},
            key=lambda o: sum(1 for m in legal if m.move.origin and m.move.origin.name == o),
        )
        t2 = time.perf_counter()
        targets = await picker.targets(
            game_id=game.id, user_id=mover.id, ply=pieces.ply, origin=origin
        )
        t3 = time.perf_counter()
        await picker.choices(
            game_id=game.id,
            user_id=mover.id,
            ply=pieces.ply,
            origin=origin,
            target=targets.options[0].value,
        )
        t4 = time.perf_counter()
        del rules_game
        return {
            "pieces_cold": t1 - t0,
            "targets": t3 - t2,
            "choices": t4 - t3,
            "page_count": pieces.pages,
            "piece_count": len(legal),
        }
    finally:
        await store.close()


def replay_figures(variant_id: str, moves: list[str]) -> dict[str, float]:
    from PIL import Image

    from renderer.replay import render_replay

    game = RulesGame.replay(variant_id, (), moves)
    start = time.perf_counter()
    replay = render_replay(game, result="draw by agreement")
    took = time.perf_counter() - start
    frames = []
    im = Image.open(io.BytesIO(replay.data))
    for i in range(im.n_frames):
        im.seek(i)
        frames.append(im.convert("RGB"))
    webp = io.BytesIO()
    frames[0].save(
        webp, format="WEBP", save_all=True, append_images=frames[1:], duration=900, quality=80
    )
    return {
        "seconds": took,
        "frames": replay.frames,
        "gif": len(replay.data),
        "webp": len(webp.getvalue()),
        "width": replay.width,
        "height": replay.height,
    }


def run(quick: bool = False) -> list[Row]:
    plies = 60 if quick else PLIES
    rows = []
    with tempfile.TemporaryDirectory(prefix="fairypost-bench-") as folder:
        for variant_id in VARIANTS:
            moves = long_game(variant_id, plies)
            cold = child_json(
                "benchmarks.bench_interactions", "--child", variant_id, stdin=json.dumps(moves)
            )
            rows.append(
                Row(
                    SECTION,
                    f"{variant_id}, {len(moves)} plies, first touch in a fresh process: replay "
                    "(tables built) / list the moves with their notation (after the "
                    "acknowledgement)",
                    f"{ms(cold['replay'])} / {ms(cold['list'])}",
                    goal="acknowledged first",
                )
            )
            menu = asyncio.run(menu_steps(variant_id, moves, Path(folder)))
            rows.append(
                Row(
                    SECTION,
                    f"{variant_id}: Move button menus, pieces (game not cached, "
                    f"{int(menu['page_count'])} pages) / destinations / choices",
                    f"{ms(menu['pieces_cold'])} / {ms(menu['targets'])} / {ms(menu['choices'])}",
                    goal="acknowledged first",
                )
            )
            replay = replay_figures(variant_id, moves)
            rows.append(
                Row(
                    SECTION,
                    f"{variant_id}: animated replay of {len(moves)} plies "
                    f"({int(replay['frames'])} frames, {int(replay['width'])}x"
                    f"{int(replay['height'])}): time / GIF / the same as animated WebP",
                    f"{replay['seconds']:.1f} s / {replay['gif'] / 1e6:.2f} MB / "
                    f"{replay['webp'] / 1e6:.2f} MB",
                    goal="< 10 MiB",
                )
            )
    return rows


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    print(json.dumps(first_touch(sys.argv[2], json.loads(sys.stdin.read()))))
