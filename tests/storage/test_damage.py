"""A damaged database file: noticed, reported in a sentence (never a traceback), refused by
the bot at start-up, and restored from a verified backup by one command."""

from __future__ import annotations

import asyncio
import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import Storage
from storage.__main__ import main
from storage.backup import backup_file, list_backups, restore_file, scheduled_backup
from storage.errors import DatabaseDamagedError, DatabaseInUseError
from storage.health import file_health
from storage.instance import InstanceLock
from tests.storage.commands import REPO, storage_command
from tests.storage.conftest import T0, new_game, play
from tests.storage.fakes import FAKE_ENGINE

GAMES = 120


async def _fill(path: Path) -> None:
    async with await Storage.open(path, engine=FAKE_ENGINE) as store:
        for i in range(GAMES):
            game = await new_game(store, white=10_000 + i, black=20_000 + i, thread_id=i + 1)
            await play(store, game, ["e2e4", "e7e5", "g1f3", "b8c6"], T0)


def make_database(path: Path) -> None:
    asyncio.run(_fill(path))
    with sqlite3.connect(path) as conn:  # everything into the main file, -wal emptied
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def damage(path: Path, *, page: int | None = None) -> None:
    """4 KiB of garbage over a page in the middle of the file (or over `page`, 1-based)."""
    with sqlite3.connect(path) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        count = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    index = (page if page is not None else count // 2) - 1
    with path.open("r+b") as f:
        f.seek(index * size)
        f.write(bytes((i * 37 + 11) % 256 for i in range(4096)))
        f.flush()
        os.fsync(f.fileno())


def damage_an_index(path: Path) -> None:
    """Every page sound, but an index out of step with its table: the deadline index lacks
    the new deadlines of some games (the timer query would never see them fall due)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        entry = conn.execute(
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master "
            "WHERE name = 'games_deadline'"
        ).fetchone()
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("DELETE FROM sqlite_master WHERE name = 'games_deadline'")
    finally:
        conn.close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("UPDATE games SET deadline_at = deadline_at - 3600 WHERE id % 10 = 0")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) "
            "VALUES (?, ?, ?, ?, ?)",
            entry,
        )
    finally:
        conn.close()


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sound") / "fairypost.sqlite3"
    make_database(path)
    return path


def copy_of(sound: Path, folder: Path) -> Path:
    target = folder / "fairypost.sqlite3"
    backup_file(sound, target)
    return target


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, engine_loader=lambda: FAKE_ENGINE, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_a_sound_file_passes_both_checks(sound: Path) -> None:
    assert file_health(sound).ok and file_health(sound, full=True).ok


@pytest.mark.parametrize("where", ["middle", "header"])
def test_damage_is_reported_not_raised(sound: Path, tmp_path: Path, where: str) -> None:
    db = copy_of(sound, tmp_path)
    damage(db, page=1 if where == "header" else None)
    quick, full = file_health(db), file_health(db, full=True)
    assert not quick.ok and not full.ok
    assert quick.summary  # SQLite's own words: "file is not a database", "Tree 4 page ..."


def test_an_index_out_of_step_passes_quick_check_but_not_the_full_check(
    sound: Path, tmp_path: Path
) -> None:
    """Why the start-up check is the full integrity_check (see bot/app.py)."""
    db = copy_of(sound, tmp_path)
    damage_an_index(db)
    assert file_health(db).ok
    full = file_health(db, full=True)
    assert not full.ok and "missing from index games_deadline" in full.summary


def test_check_and_backup_commands_report_damage_with_exit_code_2(
    sound: Path, tmp_path: Path
) -> None:
    db = copy_of(sound, tmp_path)
    scheduled_backup(db, tmp_path / "backups", T0, keep=7)
    damage(db)
    code, out, err = run(["check", "--db", str(db)])
    assert code == 2 and "integrity check:" in out
    assert "is damaged" in err and "Traceback" not in err
    assert "python -m storage restore --latest" in err
    code, _, err = run(["backup", "--db", str(db), str(tmp_path / "copy.sqlite3")])
    assert code == 2 and "damaged" in err and "Traceback" not in err
    assert not (tmp_path / "copy.sqlite3").exists()


def test_a_header_damaged_file_is_reported_too(sound: Path, tmp_path: Path) -> None:
    db = copy_of(sound, tmp_path)
    damage(db, page=1)
    for argv in (["check"], ["backup", str(tmp_path / "x.sqlite3")], ["effects"]):
        code, _, err = run([*argv, "--db", str(db)])
        assert code == 2 and err.startswith("error: ") and "Traceback" not in err, argv


def test_restore_latest_puts_the_newest_sound_backup_back(sound: Path, tmp_path: Path) -> None:
    db = copy_of(sound, tmp_path)
    folder = tmp_path / "backups"
    older = scheduled_backup(db, folder, T0, keep=7)
    newest = scheduled_backup(db, folder, T0 + 86_400, keep=7)
    damage(newest)  # the newest backup itself went bad: the restore takes the one before
    damage(db)
    code, out, err = run(["restore", "--latest", "--db", str(db), "--backups", str(folder)])
    assert code == 0, err
    assert f"skipping {newest}" in out and f"from {older}" in out
    assert file_health(db, full=True).ok
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert aside and all(p.name.startswith("fairypost.sqlite3") for p in aside)

    async def games() -> int:
        async with await Storage.open(db, engine=FAKE_ENGINE) as store:
            return len(await store.games.list_all_ids())

    assert asyncio.run(games()) == GAMES


def test_restore_refuses_while_the_bot_runs_and_refuses_a_bad_backup(
    sound: Path, tmp_path: Path
) -> None:
    db = copy_of(sound, tmp_path)
    backup = scheduled_backup(db, tmp_path / "backups", T0, keep=7)
    with InstanceLock(db), pytest.raises(DatabaseInUseError, match="stop it first"):
        restore_file(backup, db, T0)
    code, _, err = run(["restore", str(backup), "--db", str(db)])
    assert code == 0, err
    damage(backup)
    with pytest.raises(DatabaseDamagedError, match="pick an older one"):
        restore_file(backup, db, T0)


def test_scheduled_backups_keep_the_newest(sound: Path, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    made = [scheduled_backup(sound, folder, T0 + day * 86_400, keep=3) for day in range(5)]
    assert list_backups(folder) == made[-3:]
    assert all(file_health(p, full=True).ok for p in list_backups(folder))
    (folder / "notes.txt").write_text("not a backup")  # other files are left alone
    scheduled_backup(sound, folder, T0 + 9 * 86_400, keep=3)
    assert (folder / "notes.txt").exists() and len(list_backups(folder)) == 3


@pytest.mark.parametrize("where", ["page", "index"])
def test_the_bot_refuses_a_damaged_database_at_start_up(
    sound: Path, tmp_path: Path, where: str
) -> None:
    """`python -m bot` on a damaged file (4 KiB of garbage over a middle page, or an index
    out of step with its table): one clear log line naming the file and the command that
    restores the newest backup, exit code 2, and the file untouched."""
    db = copy_of(sound, tmp_path)
    scheduled_backup(db, tmp_path / "backups", T0, keep=7)
    if where == "page":
        damage(db)
    else:
        damage_an_index(db)
    before = db.read_bytes()
    env = {
        **os.environ,
        "DISCORD_TOKEN": "not-a-real-token",
        "FAIRYPOST_DB": str(db),
        "FAIRYPOST_ENV_FILE": "",
        "PYTHONPATH": str(REPO),
    }
    child = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert child.returncode == 2, child.stderr
    errors = [line for line in child.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1, child.stderr
    assert str(db) in errors[0] and "is damaged" in errors[0]
    assert "python -m storage restore --latest" in errors[0]
    assert "Traceback" not in child.stderr
    assert db.read_bytes() == before


def test_the_restore_command_refuses_while_the_bot_runs(sound: Path, tmp_path: Path) -> None:
    """A sentence and exit code 2; the database and its folder stay as they were."""
    db = copy_of(sound, tmp_path)
    backup = scheduled_backup(db, tmp_path / "backups", T0, keep=7)
    content = db.read_bytes()
    with InstanceLock(db):  # what the running bot holds
        before = sorted(p.name for p in tmp_path.iterdir())
        code, out, err = run(["restore", str(backup), "--db", str(db)])
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing set aside
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "stop it first" in err and "Traceback" not in err
    assert db.read_bytes() == content


@pytest.mark.parametrize("bad", ["damaged", "not-a-database", "missing"])
def test_the_restore_command_refuses_a_bad_backup(sound: Path, tmp_path: Path, bad: str) -> None:
    db = copy_of(sound, tmp_path)
    backup = tmp_path / "backups" / "fairypost-20260101-000000.sqlite3"
    backup_file(sound, backup)
    if bad == "damaged":
        damage(backup)
    elif bad == "not-a-database":
        backup.write_text("these are not the pages you are looking for\n" * 200)
    else:
        backup.unlink()
    before = db.read_bytes()
    code, _, err = run(["restore", str(backup), "--db", str(db)])
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err, err
    assert str(backup) in err
    assert db.read_bytes() == before and file_health(db, full=True).ok
    assert not [p for p in tmp_path.iterdir() if ".damaged-" in p.name]


def test_the_real_commands_report_damage_without_a_traceback(sound: Path, tmp_path: Path) -> None:
    """`python -m storage check|backup|restore` as an operator types them, in a child
    process: a damaged database (or backup) is a message on stderr and exit code 2."""
    db = copy_of(sound, tmp_path)
    good = scheduled_backup(db, tmp_path / "backups", T0, keep=7)
    bad = tmp_path / "bad.sqlite3"
    backup_file(sound, bad)
    damage(bad)
    damage(db)
    for argv in (
        ["check"],
        ["backup", str(tmp_path / "copy.sqlite3")],
        ["restore", str(bad)],
    ):
        child = storage_command([*argv, "--db", str(db)], tmp_path, FAIRYPOST_ENV_FILE="")
        assert child.returncode == 2, (argv, child.stderr)
        assert "Traceback" not in child.stderr and child.stderr.startswith("error: "), argv
        assert "damaged" in child.stderr, argv
    assert not (tmp_path / "copy.sqlite3").exists()
    child = storage_command(
        ["restore", str(good), "--db", str(db)], tmp_path, FAIRYPOST_ENV_FILE=""
    )
    assert child.returncode == 0, child.stderr
    assert "kept the replaced file as" in child.stdout
    assert file_health(db, full=True).ok
