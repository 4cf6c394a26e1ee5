"""The one configuration loader: `.env` by the usual rules, the environment on top, and a clear
message (never a traceback) for the operator when something is missing or malformed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import (
    DEFAULT_DB,
    ENV_FILE_VARIABLE,
    ConfigError,
    Settings,
    Shards,
    load_settings,
    read_dotenv,
)

REPO = Path(__file__).resolve().parents[2]


def clean_environ() -> dict[str, str]:
    """The test process's environment without any Fairy Post or Discord setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}


def settings_from(tmp_path: Path, text: str, **environ: str) -> Settings:
    dotenv = tmp_path / ".env"
    dotenv.write_text(text, encoding="utf-8")
    return load_settings(environ, dotenv)


def test_a_bad_local_port_is_named(tmp_path: Path) -> None:
    assert settings_from(tmp_path, "").local_port == 8765
    assert settings_from(tmp_path, "FAIRYPOST_LOCAL_PORT=9000\n").local_port == 9000
    for bad in ("0", "70000", "http"):
        with pytest.raises(ConfigError, match="FAIRYPOST_LOCAL_PORT"):
            settings_from(tmp_path, f"FAIRYPOST_LOCAL_PORT={bad}\n")


def test_environment_overrides_dotenv(tmp_path: Path) -> None:
    settings = settings_from(
        tmp_path,
        '# comment\nDISCORD_TOKEN="from-file"\nFAIRYPOST_DB=x.db\n'
        "export FAIRYPOST_LOG_LEVEL=debug\n",
        DISCORD_TOKEN="from-env",
    )
    assert settings.token == "from-env"
    assert settings.database == "x.db"
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild is None
    assert settings.env_file == tmp_path / ".env"


def test_an_empty_environment_value_does_not_hide_the_file(tmp_path: Path) -> None:
    assert settings_from(tmp_path, "DISCORD_TOKEN=abc\n", DISCORD_TOKEN="").token == "abc"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        # comments after a value are comments, as in a shell
        ("FAIRYPOST_LOG_LEVEL=INFO # default", "INFO"),
        ("DISCORD_TOKEN=abc # from the portal", "abc"),
        ("DISCORD_TOKEN=abc\t# a tab before the hash", "abc"),
        # quotes are not part of the value; inside them, # is text
        ('DISCORD_TOKEN="abc"', "abc"),
        ("DISCORD_TOKEN='abc'", "abc"),
        ('DISCORD_TOKEN="abc # not a comment"', "abc # not a comment"),
        ('DISCORD_TOKEN="abc" # a comment after quotes', "abc"),
        # a # that does not follow a space belongs to the value
        ("DISCORD_TOKEN=abc#def", "abc#def"),
        # export, spaces around =, Windows line ends
        ("export DISCORD_TOKEN=abc", "abc"),
        ("DISCORD_TOKEN = abc", "abc"),
        ("DISCORD_TOKEN=abc\r", "abc"),
        # ${VAR} expands a variable defined above
        ("BASE=/srv/fp\nFAIRYPOST_DB=${BASE}/fp.sqlite3", "/srv/fp/fp.sqlite3"),
    ],
)
def test_dotenv_rules(line: str, value: str, tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(line + "\n", encoding="utf-8")
    key = line.rsplit("\n", 1)[-1].removeprefix("export ").split("=", 1)[0].strip()
    assert read_dotenv(dotenv)[key] == value


def test_comments_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("# a comment\n\n   # indented comment\nA=1\nKEY_WITHOUT_VALUE\n")
    assert read_dotenv(dotenv) == {"A": "1"}


def test_the_example_file_is_read_as_documented(tmp_path: Path) -> None:
    """`.env.example` copied as the README says, with the token filled in, just works."""
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    text = text.replace("DISCORD_TOKEN=", "DISCORD_TOKEN=abc.def.ghi # from the portal", 1)
    settings = settings_from(tmp_path, text)
    assert settings.token == "abc.def.ghi"
    assert settings.database == DEFAULT_DB
    assert settings.log_level == "INFO"


def test_comment_after_a_value_is_not_refused(tmp_path: Path) -> None:
    """The operator's report: `FAIRYPOST_LOG_LEVEL=INFO # default` was refused."""
    settings = settings_from(
        tmp_path,
        "DISCORD_TOKEN=abc # from the portal\nFAIRYPOST_LOG_LEVEL=warning # quieter\n"
        "FAIRYPOST_DEV_GUILD=1234 # my test server\n",
    )
    assert (settings.token, settings.log_level, settings.dev_guild) == ("abc", "WARNING", 1234)


def test_no_file_is_fine(tmp_path: Path) -> None:
    settings = load_settings({"DISCORD_TOKEN": "t"}, tmp_path / "none")
    assert settings.env_file is None and settings.database == DEFAULT_DB


def test_the_environment_file_can_be_named(tmp_path: Path) -> None:
    named = tmp_path / "fairypost.env"
    named.write_text("FAIRYPOST_DB=/srv/fairypost/fp.sqlite3 # the service's database\n")
    settings = load_settings({ENV_FILE_VARIABLE: str(named)})
    assert settings.database == "/srv/fairypost/fp.sqlite3"
    assert settings.token is None
    with pytest.raises(ConfigError, match=ENV_FILE_VARIABLE):
        load_settings({ENV_FILE_VARIABLE: str(tmp_path / "missing.env")})


def test_a_file_that_is_not_text_is_named(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_bytes(b"DISCORD_TOKEN=\xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_settings({}, dotenv)


def test_the_token_is_required_only_where_needed(tmp_path: Path) -> None:
    settings = load_settings({}, tmp_path / "none")
    assert settings.token is None
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        settings.require_token()


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [("FAIRYPOST_DEV_GUILD", "abc", "numeric"), ("FAIRYPOST_LOG_LEVEL", "LOUD", "one of")],
)
def test_bad_settings_are_named(key: str, value: str, fragment: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=f"{key}.*{fragment}"):
        load_settings({"DISCORD_TOKEN": "t", key: value}, tmp_path / "none")


def test_shards_and_a_postgresql_database(tmp_path: Path) -> None:
    url = "postgresql://fairypost@db.internal/fairypost"
    settings = settings_from(tmp_path, f"FAIRYPOST_DB={url}\nFAIRYPOST_SHARDS=4-7/8 # second box\n")
    assert settings.database == url
    assert settings.shards == Shards((4, 5, 6, 7), 8)
    assert str(settings.shards) == "4-7/8" and not settings.shards.all
    one = settings_from(tmp_path, f"FAIRYPOST_DB={url}\nFAIRYPOST_SHARDS=3/4\n").shards
    assert one == Shards((3,), 4) and str(one) == "3/4"
    assert settings_from(tmp_path, "").shards is None


def test_every_shard_in_one_process_is_fine_on_sqlite(tmp_path: Path) -> None:
    settings = settings_from(tmp_path, "FAIRYPOST_SHARDS=0-3/4\n")
    assert settings.shards is not None and settings.shards.all
    assert settings.database == DEFAULT_DB


def test_part_of_the_shards_on_sqlite_is_refused_with_the_way_out(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(tmp_path, "FAIRYPOST_SHARDS=0-1/4\n")
    message = str(caught.value)
    assert "FAIRYPOST_SHARDS=0-1/4" in message
    assert "SQLite file cannot be shared" in message
    assert "postgresql://" in message


@pytest.mark.parametrize("bad", ["4", "0-3", "3-1/4", "4/4", "a-b/c", "0-3/8/2", "-1/4"])
def test_malformed_shards_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError, match="FAIRYPOST_SHARDS must look like"):
        settings_from(tmp_path, f"FAIRYPOST_DB=postgresql://x@y/z\nFAIRYPOST_SHARDS={bad}\n")


def test_run_insists_on_a_token(tmp_path: Path) -> None:
    """`python -m bot run` (the service's command) never falls back to local mode."""
    result = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=clean_environ(),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr and "Traceback" not in result.stderr


def test_fairy_stockfish_must_name_a_program_that_runs(tmp_path: Path) -> None:
    assert settings_from(tmp_path, "").fairy_stockfish is None
    program = tmp_path / "fsf"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    found = settings_from(tmp_path, f"FAIRYPOST_FAIRY_STOCKFISH={program}\n").fairy_stockfish
    assert found == str(program)
    program.chmod(0o644)  # there, but not a program
    for bad in (str(program), str(tmp_path / "missing")):
        with pytest.raises(ConfigError, match="FAIRYPOST_FAIRY_STOCKFISH names"):
            settings_from(tmp_path, f"FAIRYPOST_FAIRY_STOCKFISH={bad}\n")
