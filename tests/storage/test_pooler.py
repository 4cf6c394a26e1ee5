"""Connection poolers in front of PostgreSQL: session mode works, transaction mode is named.

Fairy Post keeps its statements prepared on each connection (every statement is then one
round trip) and holds its instance lock as a session advisory lock, so a pooler must give a
client the same server connection for the whole session: PgBouncer's `pool_mode = session`
(docs/deploy.md). In transaction mode a statement prepared on one server connection is
missing on the next, and the error says what to change instead of a driver's message.

The PgBouncer test runs where `pgbouncer` is installed (Debian's package) and skips
elsewhere; the refusal's wording is checked everywhere, by taking the prepared statements
away from a connection the way a transaction pooler would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Storage
from storage.errors import DatabaseUnavailableError
from storage.models import DAY, Clock
from tests.postgres import SERVER, require_server, temporary_schema
from tests.storage.conftest import T0, make_move, new_game
from tests.storage.fakes import FAKE_ENGINE


async def test_a_lost_prepared_statement_names_the_pooler_setting() -> None:
    """What a transaction-mode pooler does to a client (its prepared statements are not on
    the next server connection) ends in a message naming the setting to change."""
    async with temporary_schema() as url:
        one_connection = url + "&pool_size=1"
        async with await Storage.open(one_connection, engine=FAKE_ENGINE) as store:
            game = await new_game(store, clock=Clock(3 * DAY, 0))
            await store.games.get(game.id)  # prepared on the pool's only connection
            async with store._db._pool.acquire() as conn:  # type: ignore[attr-defined]
                await conn.execute("DEALLOCATE ALL")
            with pytest.raises(DatabaseUnavailableError, match="pool_mode = session"):
                await store.games.get(game.id)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def pgbouncer(mode: str) -> AsyncIterator[str]:
    """A PgBouncer in `mode` in front of a database of its own; yields its URL."""
    binary = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None
    )
    if binary is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    await require_server()
    import asyncpg

    name = f"fp_pooler_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(SERVER)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    folder = Path(tempfile.mkdtemp(prefix="fp-pgbouncer-"))
    os.chmod(folder, 0o777)
    port = _free_port()
    user = (SERVER.split("//", 1)[1].split("@", 1)[0] or "postgres").split(":")[0]
    (folder / "users.txt").write_text(f'"{user}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        f"[databases]\n{name} = host=127.0.0.1 port=5432 dbname={name}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
        f"pool_mode = {mode}\ndefault_pool_size = 8\nmax_client_conn = 200\n"
        f"logfile = {folder / 'pgbouncer.log'}\npidfile = {folder / 'pgbouncer.pid'}\n"
    )
    for path in folder.iterdir():
        os.chmod(path, 0o666)
    argv = [binary, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:
        argv[1:1] = ["-u", "nobody"]  # PgBouncer refuses to run as root
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            await asyncio.sleep(0.05)
        yield f"postgresql://{user}@127.0.0.1:{port}/{name}"
    finally:
        process.terminate()
        await process.wait()
        admin = await asyncpg.connect(SERVER)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        shutil.rmtree(folder, ignore_errors=True)


async def test_pgbouncer_in_session_mode_carries_the_bot() -> None:
    """Through PgBouncer in session mode, from two stores at once (more clients than
    server connections): migrations, moves in one call, claims, the instance lock."""
    async with pgbouncer("session") as url:
        # A session holds its server connection: the bouncer's pool must hold every
        # connection of every process (here 2 x 3 <= 8, docs/deploy.md).
        stores = [await Storage.open(f"{url}?pool_size=3", engine=FAKE_ENGINE) for _ in range(2)]
        try:
            a, b = stores
            games = [
                await new_game(a, clock=Clock(3 * DAY, 0), white=8000 + k, black=9000 + k)
                for k in range(4)
            ]

            async def play(store: Storage, game_id: int) -> int:
                game = await store.games.get(game_id)
                moved = await store.games.append_move(
                    game_id, game.to_move_id, 0, make_move(game, [], "e2e4"), T0 + 10
                )
                return moved.game.ply_count

            plies = await asyncio.gather(*(play(stores[k % 2], g.id) for k, g in enumerate(games)))
            assert plies == [1, 1, 1, 1]
            assert a.writer.calls + b.writer.calls == 4  # each in one call
            assert await a.hold_instance(f"pooled-a-{os.getpid()}")
            await a.effects.add([], T0)
            assert await b.effects.release_dead(T0) == 0
        finally:
            for store in stores:
                await store.close()


async def test_pgbouncer_in_transaction_mode_is_refused_at_start() -> None:
    """Through PgBouncer in transaction mode the store refuses to open, saying which
    setting to change, before anything is written: a statement prepared on one server
    connection would be missing on the next, or another process's statement of the same
    name would run instead."""
    async with pgbouncer("transaction") as url:
        with pytest.raises(DatabaseUnavailableError, match="pool_mode = session"):
            await Storage.open(url, engine=FAKE_ENGINE)
