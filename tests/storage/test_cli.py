"""`python -m storage backup|check|migrate`: in process with an injected engine, and once as
a real subprocess."""

from __future__ import annotations

import asyncio
import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import LATEST_VERSION, Storage
from storage.__main__ import default_db, load_rules_engine, main
from storage.backup import backup_file
from storage.check import check_database
from storage.engine import Engine
from storage.errors import EngineUnavailableError, InvalidValueError
from tests.storage.commands import REPO, storage_command
from tests.storage.conftest import T0, new_game, play, raw_sql
from tests.storage.fakes import FAKE_ENGINE, ILLEGAL, fake_replay


def run(argv: list[str], engine: Engine = FAKE_ENGINE) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()

    def loader() -> Engine:
        return engine

    code = main(argv, engine_loader=loader, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


async def arun(argv: list[str], engine: Engine = FAKE_ENGINE) -> tuple[int, str, str]:
    """`main` runs its own event loop, so async tests call it from a worker thread."""
    return await asyncio.to_thread(run, argv, engine)


def broken_engine() -> Engine:
    raise EngineUnavailableError("the rules engine could not be imported (test)")


async def seeded(target: str | Path) -> list[int]:
    async with await Storage.open(target, engine=FAKE_ENGINE) as storage:
        one = await play(storage, await new_game(storage), ["e2e4", "e7e5"], T0)
        two = await play(storage, await new_game(storage, white=7, black=8), ["d2d4"], T0)
        done = await new_game(storage, white=9, black=10)
        await storage.games.resign(done.id, 9, T0)
    return [one.id, two.id, done.id]


async def test_backup_while_the_store_is_open_and_writing(db_path: Path, tmp_path: Path) -> None:
    """Moves keep landing during the backup; the copy holds a consistent prefix of them."""
    target = tmp_path / "backups" / "copy.sqlite3"
    coordinates = [f"m{i}x" for i in range(60)]
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        game = await play(storage, await new_game(storage), ["e2e4"], T0)
        await asyncio.gather(storage.backup(target), play(storage, game, coordinates, T0 + 1))
        assert (await storage.games.get(game.id)).ply_count == 61
    assert not list(target.parent.glob(".*partial*"))
    with sqlite3.connect(target) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("PRAGMA user_version").fetchone() == (LATEST_VERSION,)
    conn.close()
    async with await Storage.open(target, engine=FAKE_ENGINE) as restored:
        copy, moves = await restored.games.get_with_moves(game.id)
        assert [m.coordinate for m in moves] == ["e2e4", *coordinates][: copy.ply_count]
        assert copy.position_text == fake_replay("chess", (), [m.coordinate for m in moves])
        report = await check_database(restored, FAKE_ENGINE)
        assert report.ok


async def test_backup_command(db_path: Path, tmp_path: Path) -> None:
    await seeded(db_path)
    target = tmp_path / "copy.sqlite3"
    code, out, err = await arun(["backup", str(target), "--db", str(db_path)])
    assert (code, err) == (0, "")
    assert f"backed up {db_path} to {target}" in out
    code, out, _ = await arun(["--db", str(target), "check"])
    assert code == 0 and "all good" in out
    code, _, _ = await arun(["backup", str(target), "--db", str(db_path)])  # replaces the old copy
    assert code == 0


def test_backup_refusals(db_path: Path, tmp_path: Path) -> None:
    code, _, err = run(["backup", str(tmp_path / "x"), "--db", str(tmp_path / "none.sqlite3")])
    assert code == 2 and "there is no database" in err
    db_path.write_bytes(b"")
    with pytest.raises(InvalidValueError):
        backup_file(db_path, db_path)
    with pytest.raises(InvalidValueError):
        backup_file(db_path, tmp_path)


async def test_check_replays_every_active_game(db_target: str) -> None:
    ids = await seeded(db_target)
    code, out, err = await arun(["check", "--db", db_target])
    assert (code, err) == (0, "")
    assert "integrity check: ok" in out
    assert "games replayed with rules engine fake-1: 2" in out
    assert out.strip().endswith("all good")
    code, out, _ = await arun(["check", "--all", "--db", db_target])
    assert code == 0 and ": 3" in out
    assert ids


async def test_check_reports_games_that_do_not_replay_or_disagree(db_target: str) -> None:
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
        bad = await play(storage, await new_game(storage), ["e2e4", ILLEGAL], T0)
        stale = await play(storage, await new_game(storage, white=5, black=6), ["a2a3"], T0)
        fine = await new_game(storage, white=7, black=8)
    await raw_sql(db_target, "UPDATE games SET position_text = 'wrong' WHERE id = ?", (stale.id,))
    code, out, _ = await arun(["check", "--db", str(db_target)])
    assert code == 1
    assert f"game {bad.id}: does not replay: ply 2: 'z0z0' is illegal" in out
    assert f"game {stale.id}: the cached position (engine fake-1) differs" in out
    assert f"game {fine.id}:" not in out
    assert "PROBLEMS FOUND" in out


async def test_check_reports_holes_in_a_move_list(db_path: Path) -> None:
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        game = await play(storage, await new_game(storage), ["e2e4", "e7e5", "g1f3"], T0)
    with sqlite3.connect(db_path) as conn:  # what a corrupted file could look like
        conn.execute("DROP TRIGGER moves_are_archived_before_delete")
        conn.execute("DELETE FROM moves WHERE ply = 2")
    conn.close()
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        report = await check_database(storage, FAKE_ENGINE)
    assert not report.ok
    assert [(p.game_id, p.problem) for p in report.problems] == [
        (game.id, "the move list has plies 1, 3 but the game has 3 moves")
    ]


async def test_backup_of_postgresql_points_to_pg_dump() -> None:
    code, _, err = await arun(["backup", "x.sql", "--db", "postgresql://nobody@localhost/none"])
    assert code == 2 and "pg_dump" in err


async def test_check_without_the_rules_engine_says_so(db_path: Path) -> None:
    await seeded(db_path)
    out, err = io.StringIO(), io.StringIO()
    code = await asyncio.to_thread(
        main, ["check", "--db", str(db_path)], engine_loader=broken_engine, out=out, err=err
    )
    assert code == 2
    assert "the rules engine could not be imported" in err.getvalue()


def test_check_does_not_create_or_migrate(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite3"
    code, _, err = run(["check", "--db", str(missing)])
    assert code == 2 and "there is no database" in err
    assert not missing.exists()
    old = tmp_path / "old.sqlite3"
    sqlite3.connect(old).close()
    code, _, err = run(["check", "--db", str(old)])
    assert code == 2 and "python -m storage migrate" in err
    code, out, _ = run(["migrate", "--db", str(old)])
    assert code == 0 and f"schema version {LATEST_VERSION}" in out
    code, out, _ = run(["check", "--db", str(old)])
    assert code == 0


def test_the_database_path_comes_from_the_environment(tmp_path: Path) -> None:
    none = tmp_path / "no.env"
    assert default_db({}, none) == "data/fairypost.sqlite3"
    assert default_db({"FAIRYPOST_DB": "  "}, none) == "data/fairypost.sqlite3"
    assert default_db({"FAIRYPOST_DB": "/srv/fp.sqlite3"}, none) == "/srv/fp.sqlite3"
    dotenv = tmp_path / ".env"
    dotenv.write_text('FAIRYPOST_DB="/srv/from file.sqlite3" # the live one\n')
    assert default_db({}, dotenv) == "/srv/from file.sqlite3"
    assert default_db({"FAIRYPOST_DB": "/srv/env.sqlite3"}, dotenv) == "/srv/env.sqlite3"
    url = "postgresql://fairypost@db.internal/fairypost"
    assert default_db({"FAIRYPOST_DB": url}, none) == url


async def test_the_commands_honour_the_env_file(db_path: Path, tmp_path: Path) -> None:
    """The operator's report: with FAIRYPOST_DB in .env, `backup` copied the default file."""
    await seeded(db_path)
    workdir = tmp_path / "bot"
    workdir.mkdir()
    (workdir / ".env").write_text(f"FAIRYPOST_DB={db_path}  # the live database\n")
    done = storage_command(["backup", "copy.sqlite3"], workdir)
    assert done.returncode == 0, done.stderr
    assert str(db_path) in done.stdout
    assert (workdir / "copy.sqlite3").is_file()
    assert not (workdir / "data").exists()  # the default file was never touched
    done = storage_command(["check"], workdir)  # the seeded games come from a fake engine
    assert "integrity check: ok" in done.stdout and "game 2" in done.stdout, done.stderr
    # a service keeps its file elsewhere and names it
    named = tmp_path / "fairypost.env"
    named.write_text(f"export FAIRYPOST_DB='{db_path}'\n")
    done = storage_command(["migrate"], tmp_path, FAIRYPOST_ENV_FILE=str(named))
    assert done.returncode == 0 and str(db_path) in done.stdout, done.stderr
    # a malformed setting is one line naming it, not a traceback
    (workdir / ".env").write_text("FAIRYPOST_LOG_LEVEL=LOUD\n")
    done = storage_command(["check"], workdir)
    assert done.returncode == 2
    assert "FAIRYPOST_LOG_LEVEL" in done.stderr and "Traceback" not in done.stderr


def test_the_real_engine_loader_either_loads_or_explains() -> None:
    try:
        engine = load_rules_engine()
    except EngineUnavailableError as exc:
        assert "rules" in str(exc)
    else:
        assert isinstance(engine.version, str) and callable(engine.replay)


async def test_as_a_real_command(db_path: Path, tmp_path: Path) -> None:
    await seeded(db_path)
    target = tmp_path / "copy.sqlite3"
    env_db = {"FAIRYPOST_DB": str(db_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "storage", "backup", str(target)],
        cwd=REPO,
        env=env_db,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert target.is_file()
    help_text = subprocess.run(
        [sys.executable, "-m", "storage", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert help_text.returncode == 0
    assert "backup" in help_text.stdout and "check" in help_text.stdout
