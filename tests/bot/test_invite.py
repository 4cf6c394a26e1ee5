"""`python -m bot invite`: the link carries exactly the scopes and permissions the bot needs."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import discord
import pytest

from bot.config import ConfigError
from bot.invite import application_id_from_token, invite_url, permissions


def fake_token(app_id: int) -> str:
    head = base64.b64encode(str(app_id).encode()).decode().rstrip("=")
    return f"{head}.GhIjKl.secret-part"


def test_the_id_comes_from_the_token() -> None:
    assert application_id_from_token(fake_token(1174345128763457616)) == 1174345128763457616
    with pytest.raises(ConfigError, match="--client-id"):
        application_id_from_token("not-a-token")


def test_the_link_asks_for_what_the_bot_uses_and_nothing_more() -> None:
    query = parse_qs(urlparse(invite_url(42)).query)
    assert query["client_id"] == ["42"]
    assert query["scope"] == ["bot applications.commands"]
    granted = discord.Permissions(int(query["permissions"][0]))
    assert granted == permissions()
    named = {name for name, value in granted if value}
    assert named == {
        "read_messages",  # discord.py's name for View Channels
        "send_messages",
        "embed_links",
        "attach_files",
        "read_message_history",
        "create_public_threads",
        "send_messages_in_threads",
    }
    assert not granted.administrator and not granted.manage_messages


def test_the_command_prints_the_link(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={fake_token(777)}  # from the portal\n")
    done = subprocess.run(
        [sys.executable, "-m", "bot", "invite"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == invite_url(777)
    assert "Create Public Threads" in done.stderr
