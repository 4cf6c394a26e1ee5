"""The one rule for players' text (`rules.text`): what it refuses, in words, and what it
lets through (every script, emoji, accents)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.text import MAX_MARKS, shown_name, text_problem

REFUSED = [
    ("Tiny\nChess", "contains a line break"),
    ("Tiny\rChess", "contains a line break"),
    ("a\tb", "contains a tab"),
    ("nul\x00", "contains a NUL character"),
    ("bell\x07", "control character U+0007"),
    ("esc\x1b[2J", "control character U+001B"),
    ("del\x7f", "control character U+007F"),
    ("c1\x85", "control character U+0085"),
    ("sep\u2028", "control character U+2028"),
    ("par\u2029", "control character U+2029"),
    ("\u202eevil", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("\u202dx", "U+202D (LEFT-TO-RIGHT OVERRIDE)"),
    ("\u2067x\u2069", "U+2067 (RIGHT-TO-LEFT ISOLATE)"),
    ("\u200fx", "U+200F (RIGHT-TO-LEFT MARK)"),
    ("zero\u200bwidth", "U+200B (ZERO WIDTH SPACE)"),
    ("join\u200dme", "U+200D (ZERO WIDTH JOINER)"),
    ("\ufeffbom", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"),
    ("soft\u00adhyphen", "U+00AD (SOFT HYPHEN)"),
    ("word\u2060joiner", "U+2060 (WORD JOINER)"),
    ("\u3164", "invisible or unassigned character U+3164"),
    ("\u2800", "invisible or unassigned character U+2800"),
    ("private\ue000", "invisible or unassigned character U+E000"),
    ("unassigned\U000e0080", "invisible or unassigned character U+E0080"),
    ("z" + "\u0301" * (MAX_MARKS + 1), "combining marks"),
    ("x" * 61, "is 61 characters long (at most 60)"),
]


@pytest.mark.parametrize(("text", "problem"), REFUSED)
def test_refused_with_what_is_wrong(text: str, problem: str) -> None:
    found = text_problem(text, limit=60)
    assert found is not None and problem in found


@pytest.mark.parametrize(
    "text",
    [
        "@everyone Cup",
        "**bold** _it_ `code` <@123> [link](https://x.example)",
        "Šogi · 将棋 · شطرنج · शतरंज · Шахматы",
        "Tiếng Việt",  # stacked accents, precomposed
        "Tie\u0302\u0301ng",  # and decomposed: two marks on one letter
        "👨\u200d👩 no",
        "🏆 ♞ ♛",
        "non\u00a0breaking",
    ],
)
def test_plain_text_in_any_script_passes(text: str) -> None:
    if "\u200d" in text:
        assert text_problem(text, limit=60) is not None  # a joiner is zero-width: refused
    else:
        assert text_problem(text, limit=60) is None


def test_line_breaks_only_where_allowed() -> None:
    assert text_problem("one\ntwo", limit=60, lines=True) is None
    assert text_problem("one\ttwo", limit=60, lines=True) == "contains a tab"


def test_shown_name_drops_what_the_rule_refuses() -> None:
    assert shown_name("\u202eAnn\u200b\nSmith\x07", 32) == "Ann Smith"
    assert shown_name("\u3164\u200b", 32) == ""
    assert shown_name("x" * 50, 32) == "x" * 32


@given(st.text(max_size=80))
def test_shown_names_pass_the_rule(text: str) -> None:
    assert text_problem(shown_name(text, 40), limit=40) is None
