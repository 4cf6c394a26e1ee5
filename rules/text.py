"""The one rule for text that players write: names, descriptions, reasons, command options.

Whatever a player types or puts in a file ends up in posts, embeds and thread names that
other people read. `text_problem` says in words what would make a text unfit to show: a
control character (a line break where a name is one line, a tab, an escape), an invisible
formatting character (the bidi overrides that reverse the text after them, zero-width
spaces and joiners, the byte-order mark, soft hyphens), a character Unicode does not
assign or keeps private, a blank-looking filler letter, a pile of combining marks that
spills over the lines around it, or more characters than the field holds. The bot's
command options, its services and the variant loader (`python -m rules check` too) all
ask this function, so a text is refused, or accepted, the same way everywhere.

`shown_name` is its counterpart for names the bot does not control (Discord display
names): instead of refusing, it drops what the rule refuses and bounds the length.
"""

from __future__ import annotations

import unicodedata

LINE_BREAKS = frozenset("\n\r")
_NAMES = {"\n": "a line break", "\r": "a line break", "\t": "a tab", "\x00": "a NUL character"}
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Letters and marks that print as nothing (Hangul fillers, the blank Braille pattern, the
combining grapheme joiner, Khmer's inherent vowels): the usual way to make a blank name."""
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
MAX_MARKS = 4
"""Combining marks on one letter; Vietnamese stacks two, "Zalgo" text dozens."""


def char_problem(char: str, *, lines: bool = False) -> str | None:
    """Why `char` may not appear in a player's text (None if it may); `lines`: line
    breaks are allowed (a description written over several lines)."""
    if lines and char in LINE_BREAKS:
        return None
    if char in _NAMES:
        return f"contains {_NAMES[char]}"
    category = unicodedata.category(char)
    code = f"U+{ord(char):04X}"
    if category in ("Cc", "Zl", "Zp"):
        return f"contains the control character {code}"
    if category == "Cf":
        name = unicodedata.name(char, "")
        what = f" ({name})" if name else ""
        return f"contains the invisible formatting character {code}{what}"
    if category in _REFUSED_CATEGORIES or char in _INVISIBLE:
        return f"contains the invisible or unassigned character {code}"
    return None


def text_problem(text: str, *, limit: int, lines: bool = False) -> str | None:
    """What is wrong with `text` as a player's text of at most `limit` characters, as the
    end of a sentence ("contains a line break"), or None if nothing is."""
    if len(text) > limit:
        return f"is {len(text):,} characters long (at most {limit:,})"
    marks = 0
    for char in text:
        problem = char_problem(char, lines=lines)
        if problem is not None:
            return problem
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            return f"stacks more than {MAX_MARKS} combining marks on one letter"
    return None


def without_refused(text: str, *, lines: bool = False) -> str:
    """`text` with what `text_problem` refuses taken out (breaks and tabs become spaces;
    line breaks stay with `lines`): for texts the rule did not check when they were
    written (a display name, a definition stored before the rule)."""
    kept: list[str] = []
    marks = 0
    for char in text:
        if char_problem(char, lines=lines) is not None:
            char = " " if char in "\t\n\r\u2028\u2029" else ""
            if not char:
                continue
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            continue
        kept.append(char)
    return "".join(kept)


def shown_name(name: str, limit: int) -> str:
    """A name the bot does not choose (a Discord display name) with what `text_problem`
    refuses taken out, spaces collapsed, at most `limit` characters ("" if nothing is
    left)."""
    return " ".join(without_refused(name).split())[:limit].strip()
