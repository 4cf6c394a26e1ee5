"""docs/variants.md is tested: every complete file in it loads and passes the sanity run,
every fragment marked `# on chess` loads on top of chess, every other TOML block parses,
every command line in it runs (its printed lines appear in the output, `...` skipping), every
catalogue piece is in its table and every limit it quotes is the code's."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest

from rules import limits
from rules.cli import main
from rules.sanity import sanity_check
from rules.variant import catalogue, load_definition

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "variants.md"
PLACEHOLDERS = ("my-variant.toml", "mine.toml")


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    line: int


def blocks(text: str) -> Iterator[Block]:
    for m in re.finditer(r"^```(\w+)\n(.*?)^```", text, re.M | re.S):
        yield Block(m.group(1), m.group(2), text[: m.start()].count("\n") + 1)


def guide_files(text: str | None = None) -> dict[str, str]:
    """The complete definition files of the guide, by file name (`# file: NAME.toml`)."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    out = {}
    for b in blocks(text):
        m = re.match(r"# file: (\S+\.toml)\n", b.text)
        if b.lang == "toml" and m:
            out[m.group(1)] = b.text
    return out


ALL = list(blocks(GUIDE.read_text(encoding="utf-8")))
FILES = guide_files()


def test_the_guide_writes_its_variants() -> None:
    assert list(FILES) == [
        "paladin-chess.toml",
        "alamos-house.toml",
        "lancer-chess.toml",
        "judkins-house.toml",
    ]


@pytest.mark.parametrize("name", list(FILES))
def test_each_file_of_the_guide_is_valid_and_plays(name: str) -> None:
    variant = load_definition(FILES[name], source=name)
    assert variant.id == name.removesuffix(".toml")
    assert sanity_check(variant).start_moves > 0


@pytest.mark.parametrize(
    "block",
    [b for b in ALL if b.lang == "toml" and "# file:" not in b.text],
    ids=lambda b: f"line {b.line}",
)
def test_each_fragment_parses_and_fragments_on_chess_load(block: Block) -> None:
    tomllib.loads(block.text)
    if block.text.startswith("# on chess"):
        head = 'id = "fragment"\nname = "Fragment"\nextends = "chess"\n'
        sanity_check(load_definition(head + block.text))


def commands() -> Iterator[tuple[Block, list[str], list[str]]]:
    """(block, argv, printed lines) of every `python -m rules` command of the guide."""
    for b in ALL:
        if b.lang != "console":
            continue
        lines = b.text.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("$ .venv/bin/python -m rules "):
                continue
            argv = shlex.split(line.split("#")[0])[4:]
            if any(a in PLACEHOLDERS for a in argv):
                continue
            printed = []
            for after in lines[i + 1 :]:
                if after.startswith("$"):
                    break
                printed.append(after)
            yield b, argv, printed


@pytest.mark.parametrize(
    ("block", "argv", "printed"),
    list(commands()),
    ids=lambda x: " ".join(x) if isinstance(x, list) and x and "--" not in x[0] else None,
)
def test_each_command_line_of_the_guide_prints_what_it_says(
    block: Block, argv: list[str], printed: list[str], tmp_path: Path
) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = [str(tmp_path / a) if a in FILES else a for a in argv]
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(argv) == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    at = 0
    for expected in (p for p in printed if p.strip() != "..."):
        while at < len(lines) and lines[at].rstrip() != expected.rstrip():
            at += 1
        assert at < len(lines), f"line {block.line}: {expected!r} not printed by {argv}"
        at += 1


def test_every_catalogue_piece_is_in_the_guide() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    missing = [pid for pid in catalogue() if f"| `{pid}` |" not in text]
    assert not missing


def test_the_limits_table_quotes_the_code() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    for value in (
        f"{limits.MAX_FILE_BYTES // 1024} KB",
        f"| {limits.MAX_NESTING} |",
        f"| {limits.MAX_DOTS} |",
        f"{limits.MAX_VALUES:,}",
        f"{limits.MAX_STRING:,} characters",
        f"up to {limits.MAX_INTEGER:,}",
        f"| {limits.MAX_PIECE_TYPES} |",
        f"{limits.MAX_TABLE_ENTRIES:,}",
        f"{limits.MAX_SANITY_WORK:,} moves",
        f"| {limits.MAX_OPTIONS} |",
    ):
        assert value in text, value
