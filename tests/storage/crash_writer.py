"""Child process of the crash test: appends moves to one game in a loop until it is killed.

Usage: python -m tests.storage.crash_writer DB GAME_ID
Prints "ready", then the ply of every move once its transaction has committed.
"""

from __future__ import annotations

import asyncio
import sys
import time

from storage import Storage
from storage.models import NewMove
from tests.storage.fakes import FAKE_ENGINE, fake_hash, position_after


async def write_forever(path: str, game_id: int) -> None:
    storage = await Storage.open(path, engine=FAKE_ENGINE, create=False)
    game = await storage.games.get(game_id)
    history = [m.coordinate for m in await storage.games.moves(game_id)]
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        coordinate = f"c{len(history) + 1}x"
        moves = [*history, coordinate]
        move = NewMove(
            notation=coordinate.upper(),
            coordinate=coordinate,
            position_hash=fake_hash(moves),
            position_text=position_after(game.variant_id, game.options, moves),
        )
        done = await storage.games.append_move(
            game.id, game.to_move_id, game.ply_count, move, int(time.time())
        )
        game = done.game
        history.append(coordinate)
        sys.stdout.write(f"{done.move.ply}\n")  # only after the commit returned
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(write_forever(sys.argv[1], int(sys.argv[2])))
