"""`make run` without a token: local mode starts, says where in one line, and keeps its world.

The real `python -m bot` process in a temporary folder, as a newcomer starts it: no `.env`,
no DISCORD_TOKEN. Its page answers, SIGTERM stops it cleanly, and a second start finds the
same guild and users (the bot's games name them by id); after a game against the bot, Ctrl-C
(SIGINT to the whole process group, as a terminal sends it) stops it without a traceback.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bot.local import LOCAL_DB, LOCAL_WORLD

START_TIMEOUT = 120.0  # a first start builds the database; the machine may be busy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalMode:
    def __init__(self, folder: Path, port: int) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}
        env["FAIRYPOST_LOCAL_PORT"] = str(port)
        env["FAIRYPOST_ENGINE_PAUSE_MS"] = "0"
        self.port = port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a process group of its own, as in a terminal
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.put(line)

    def banner(self) -> str:
        line = self.lines.get(timeout=START_TIMEOUT)
        return line.rstrip("\n")

    def state(self) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.port}/page/events?user=alice"
        with urllib.request.urlopen(url, timeout=30) as response:
            for raw in response:
                if raw.startswith(b"data: "):
                    data: dict[str, Any] = json.loads(raw[6:])
                    return data["state"]
        raise AssertionError("no state event")

    def act(self, **body: Any) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/page/act",
            data=json.dumps({"user": "alice", **body}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def wait_for_post(self, text: str) -> None:
        """Waits until a message with `text` is shown in one of alice's channels."""
        for _ in range(int(START_TIMEOUT)):
            for channel in self.state()["channels"]:
                url = f"http://127.0.0.1:{self.port}/page/events?user=alice&channel={channel['id']}"
                with urllib.request.urlopen(url, timeout=30) as response:
                    for raw in response:
                        if raw.startswith(b"data: "):
                            shown = json.loads(raw[6:]).get("upserts", [])
                            if any(text in m["html"] for m in shown):
                                return
                            break
            time.sleep(1)
        raise AssertionError(f"no post with {text!r}")

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> tuple[int, str]:
        os.killpg(self.proc.pid, sig)
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err


def test_without_a_token_local_mode_starts_and_resumes(tmp_path: Path) -> None:
    port = free_port()
    first = LocalMode(tmp_path, port)
    try:
        banner = first.banner()
        assert banner.startswith(f"Fairy Post local mode: open http://127.0.0.1:{port}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert b"<title>" in page.read()
        state = first.state()
        assert state["bot"]["online"]
        assert [u["name"] for u in state["users"]] == ["alice", "bob", "carol"]
        assert [c["name"] for c in state["channels"]] == ["lobby"]
        assert "challenge" in {c["name"] for c in state["commands"]}
    finally:
        code, err = first.stop()
    assert code == 0, err
    assert "Traceback" not in err
    # After the banner, plain log lines for a person's terminal (the README shows them).
    lines = err.splitlines()
    assert lines and all(re.match(r"\d\d:\d\d:\d\d (INFO|WARNING) \S", line) for line in lines)
    assert any(line.endswith("slash commands synced (global)") for line in lines), err
    assert (tmp_path / LOCAL_DB).is_file() and (tmp_path / LOCAL_WORLD).is_file()
    assert not (tmp_path / "data" / "fairypost.sqlite3").exists()

    second = LocalMode(tmp_path, port)
    try:
        second.banner()
        again = second.state()
        # A game against the bot, which opens as White: its search process is running.
        lobby = again["channels"][0]["id"]
        options = {"variant": "chess", "opponent": again["bot"]["id"], "color": "black"}
        second.act(kind="slash", channel=lobby, command="challenge", options=options)
        second.wait_for_post("Fairy Post played")
    finally:
        code, err = second.stop(signal.SIGINT)  # Ctrl-C
    assert code == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert again["guild"] == state["guild"]
    assert again["users"] == state["users"]


def test_a_busy_port_is_explained(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}
        result = subprocess.run(
            [sys.executable, "-m", "bot"],
            cwd=tmp_path,
            env={**env, "FAIRYPOST_LOCAL_PORT": str(port)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 1
    assert f"port {port} is in use" in result.stderr
    assert "FAIRYPOST_LOCAL_PORT" in result.stderr and "Traceback" not in result.stderr


def test_the_same_process_heartbeat_is_not_reported_as_lag() -> None:
    """discord.py's "Can't keep up ... 41.3s behind" is an artefact of the stand-in running in
    the bot's own loop (see `SameProcessHeartbeat`); its "heartbeat blocked" stays."""
    from discord.gateway import KeepAliveHandler

    from bot.local import SameProcessHeartbeat

    def record(msg: str, *args: object) -> logging.LogRecord:
        return logging.LogRecord("discord.gateway", logging.WARNING, "", 0, msg, args, None)

    behind = "Can't keep up, shard ID %s websocket is %.1fs behind."
    blocked = "Shard ID %s heartbeat blocked for more than %s seconds."
    source = inspect.getsource(KeepAliveHandler.__init__)
    assert behind in source and blocked in source  # discord.py still says it this way
    keep = SameProcessHeartbeat()
    assert not keep.filter(record(behind, 0, 41.3))
    assert keep.filter(record(blocked, 0, 10))


def test_a_world_saved_by_an_earlier_version_gets_an_owner_and_roles() -> None:
    """Before, the guild belonged to nobody on the page, so nobody could try /config or
    /tournament create: its first member now owns it, and the roles and topic are there."""
    from bot.local import LOBBY_TOPIC, ROLES, bring_up_to_date
    from localdiscord import LocalDiscord

    fake = LocalDiscord(keep_requests=False)
    guild = fake.add_guild("Fairy Post (local)")  # owned by the application's owner
    lobby = fake.add_channel(guild, "lobby", topic="Challenges: /challenge, then Accept")
    alice = fake.add_user("alice", guild=guild)
    fake.add_user("bob", guild=guild)
    bring_up_to_date(fake, guild)
    assert guild.owner_id == alice.id
    assert {r.name for r in guild.roles.values()} >= set(ROLES)
    assert lobby.topic == LOBBY_TOPIC
    bring_up_to_date(fake, guild)  # a second start changes nothing
    assert sorted(r.name for r in guild.roles.values()).count("Admins") == 1
