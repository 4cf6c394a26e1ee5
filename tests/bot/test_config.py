"""Start-up configuration: the operator gets a clear message, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings, read_dotenv


def test_missing_token_exits_2_with_guidance(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr
    assert "Developer Portal" in result.stderr
    assert ".env" in result.stderr
    assert "Traceback" not in result.stderr


def test_environment_overrides_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        '# comment\nDISCORD_TOKEN="from-file"\nFAIRYPOST_DB=x.db\n'
        "export FAIRYPOST_LOG_LEVEL=debug\n"
    )
    settings = load_settings({"DISCORD_TOKEN": "from-env"}, dotenv)
    assert settings.token == "from-env"
    assert settings.db_path == Path("x.db")
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild is None


def test_dotenv_parsing_strips_quotes(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("A='1'\nB = two\nnot a line\n")
    assert read_dotenv(dotenv) == {"A": "1", "B": "two"}


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [("FAIRYPOST_DEV_GUILD", "abc", "numeric"), ("FAIRYPOST_LOG_LEVEL", "LOUD", "one of")],
)
def test_bad_settings_are_named(key: str, value: str, fragment: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=fragment):
        load_settings({"DISCORD_TOKEN": "t", key: value}, tmp_path / "none")
