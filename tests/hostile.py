"""What a hostile member types: texts for every field a player fills in, and a variant file
with every text at its longest (the abuse suites of tests/bot and tests/e2e share them)."""

from __future__ import annotations

from rules import limits

REFUSED = {
    "a line break": "Tiny\nCup",
    "a carriage return": "Tiny\rCup",
    "a tab": "Tiny\tCup",
    "a NUL": "Tiny\x00Cup",
    "an escape sequence": "Tiny\x1b[2JCup",
    "a bell": "Tiny\x07Cup",
    "a C1 control": "Tiny\x85Cup",
    "a line separator": "Tiny\u2028Cup",
    "a right-to-left override": "\u202epuC yniT",
    "a left-to-right override": "Tiny\u202dCup",
    "a right-to-left isolate": "Tiny\u2067Cup\u2069",
    "a right-to-left mark": "Tiny\u200fCup",
    "a zero-width space": "Tiny\u200bCup",
    "a zero-width joiner": "Tiny\u200dCup",
    "a byte-order mark": "\ufeffTiny Cup",
    "a soft hyphen": "Ti\u00adny Cup",
    "a blank filler": "\u3164",
    "a private-use character": "Tiny\ue000Cup",
    "stacked combining marks": "Z" + "\u0300\u0301\u0302\u0303\u0304\u0305" + "algo",
    "100 KB": "x" * 100_000,
}
"""Texts the one rule refuses, wherever a player writes them (`rules.text`)."""

SHOWN = {
    "@everyone": "@everyone Cup",
    "@here": "@here Cup",
    "a user mention": "<@123456789012345678> Cup",
    "a role mention": "<@&123456789012345678> Cup",
    "markdown": "**Big** __Cup__ ~~x~~ ||spoiler|| `code`",
    "a masked link": "[free nitro](https://evil.example)",
    "a heading": "# Cup",
    "a code fence": "```Cup```",
}
"""Texts that are plain text and accepted, and must reach messages inert: no ping, no
formatting (`bot.ui.format.shown`)."""


def maximal_variant(variant_id: str = "maximal") -> str:
    """A valid definition with every text at the longest the loader accepts and the most
    of everything: 16x16, 40 piece types with 60-character names (mentions and markdown in
    them), a 2,000-character description over several lines, a 200-character inventor, 8
    options with 2,000-character descriptions, and long decisions. It is what makes the
    longest /rules, /variant show and announcement."""
    hostile = "@everyone **x** <@1> "
    name = (hostile + "Maximal Chess " * 5)[: limits.MAX_NAME]
    description = "\n".join(
        [(f"Line {i}: " + "a long description of the game, " * 6)[:100] for i in range(19)]
    )
    description = (description + "\n" + "@here " * 40)[: limits.MAX_STRING]
    inventor = ("@everyone " + "Inventor Name " * 20)[: limits.MAX_INVENTOR]
    letters = [a + b for a in "ABCDEFGHIJ" for b in "ABCD"]
    moves = ["W", "F", "N", "WF", "FN", "D", "A", "WA"]
    pieces = ['king = "K"']
    rows: list[list[str]] = [["K"]]
    for i in range(limits.MAX_PIECE_TYPES - 1):
        piece_name = (f"{hostile}Piece {i:02d} " + "long name " * 8)[: limits.MAX_NAME]
        pieces.append(
            f'p{i:02d} = {{ letter = "{letters[i]}", name = "{piece_name}", '
            f'betza = "{moves[i % len(moves)]}" }}'
        )
        if len(rows[-1]) == 16:
            rows.append([])
        rows[-1].append(letters[i])
    options = []
    for i in range(limits.MAX_OPTIONS):
        text = (f"Option {i}: @everyone " + "what this option changes, at length. " * 60)[
            : limits.MAX_STRING
        ]
        rule = f"set = {{ rules = {{ move-rule = {50 + i} }} }}"
        options.append(f'[options.opt{i}]\ndescription = "{text}"\n{rule}')
    decisions = ", ".join(
        '"' + (f"Decision {i}: " + "why it is so. " * 200)[:1500] + '"' for i in range(3)
    )
    lines = [
        f'id = "{variant_id}"',
        f'name = "{name}"',
        f'description = """{description}"""',
        f'inventor = "{inventor}"',
        f"decisions = [{decisions}]",
        "files = 16",
        "ranks = 16",
        "",
        "[pieces]",
        *pieces,
        "",
        "[setup]",
        *(f'{n} = "{" ".join(row + ["."] * (16 - len(row)))}"' for n, row in enumerate(rows, 1)),
        "",
        *options,
    ]
    return "\n".join(lines) + "\n"
