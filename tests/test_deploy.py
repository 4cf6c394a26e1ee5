"""deploy/: the systemd unit and its environment file agree with the code and the README."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from bot.config import load_settings

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "deploy" / "fairypost.service"
ENV = ROOT / "deploy" / "fairypost.env"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT, encoding="utf-8")
    return parser


def test_the_unit_runs_the_console_entry_point_with_the_environment_file() -> None:
    service = unit()["Service"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert service["ExecStart"].endswith("/.venv/bin/fairypost run") and "fairypost" in scripts
    assert service["Environment"] == "FAIRYPOST_ENV_FILE=/etc/fairypost/fairypost.env"
    assert service["StateDirectory"] == "fairypost"
    assert service["WorkingDirectory"] == "/var/lib/fairypost"
    assert service["Restart"] == "on-failure"
    # exit 2 is the bot's configuration error (bot/__main__.py), which a restart cannot fix
    assert service["RestartPreventExitStatus"] == "2"
    assert service["KillSignal"] == "SIGTERM"
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


def test_the_environment_file_is_read_by_the_loader(tmp_path: Path) -> None:
    text = ENV.read_text(encoding="utf-8").replace(
        "DISCORD_TOKEN=", "DISCORD_TOKEN=abc.def.ghi  # the portal's", 1
    )
    copy = tmp_path / "fairypost.env"
    copy.write_text(text)
    settings = load_settings({"FAIRYPOST_ENV_FILE": str(copy)})
    assert settings.token == "abc.def.ghi"
    assert settings.database.startswith("/var/lib/fairypost/")  # the StateDirectory
    assert settings.env_file == copy


def test_every_setting_is_documented() -> None:
    """Each variable the loader reads is in the README's configuration table."""
    code = (ROOT / "bot" / "config.py").read_text()
    readme = (ROOT / "README.md").read_text()
    names = set(re.findall(r'"(FAIRYPOST_[A-Z_]+|DISCORD_TOKEN)"', code))
    assert {"DISCORD_TOKEN", "FAIRYPOST_DB", "FAIRYPOST_STARTUP_RETRY"} <= names
    missing = sorted(n for n in names if f"`{n}`" not in readme)
    assert not missing, f"not in the README: {missing}"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_accepts_the_unit() -> None:
    """No unknown key or bad value; only the missing program of an uninstalled copy."""
    done = subprocess.run(
        ["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, check=False
    )
    complaints = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "/opt/fairypost/.venv/bin/fairypost is not executable" not in line
    ]
    assert not complaints, complaints


def test_the_readme_says_what_privacy_says() -> None:
    """/privacy and the README's privacy section are the same statement."""
    from bot.service import privacy

    readme = " ".join((ROOT / "README.md").read_text().split())
    for what, why in privacy.STORED:
        assert f"**{what}**: {why}." in readme
    for text in (privacy.NOT_STORED, privacy.KEPT_FOR, privacy.FORGET):
        assert " ".join(text.split()) in readme
