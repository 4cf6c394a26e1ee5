"""Game records (spec §6): read, replay with every check, and write.

A record is UTF-8 text: `# key: value` header lines, then one ply per line, `12. move`
for White and `12... move` for Black (placements before move 1 are numbered 0).
Replaying verifies that every ply is legal, that every annotated check or mate is right,
and that a `result` naming an end by rule is the end actually reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.errors import GameRecordError, MoveError, RulesError, UnknownVariantError
from rules.game import Game
from rules.notation import Letters
from rules.outcome import BY_RULE, Outcome
from rules.variant import (
    Variant,
    load_definition,
    load_variant,
    normalize_name,
    resolve_variant_id,
)

_HEADER_RE = re.compile(r"#\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*)")
_PLY_RE = re.compile(r"(\d+)(\.\.\.|\.)\s*(.+)")
FREE_KEYS = ("source", "white", "black", "date", "setup", "note")


@dataclass(frozen=True, slots=True)
class RecordPly:
    line: int
    number: int
    color: int
    text: str

    @property
    def label(self) -> str:
        return f"{self.number}{'.' if self.color == 0 else '...'} {self.text}"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A parsed record: headers in order (keys lowercased), the variant id and options,
    the stated result (None if absent), the letter legend and the plies."""

    headers: tuple[tuple[str, str], ...]
    variant: str
    options: tuple[str, ...]
    result: str | None
    legend: tuple[tuple[str, str], ...]
    plies: tuple[RecordPly, ...]
    definition: str = ""
    """A player's variant: the text of its definition file (the record names its id)."""

    def header(self, key: str) -> str | None:
        for k, v in self.headers:
            if k == key:
                return v
        return None


def read_record(text: str, definition: str | None = None) -> GameRecord:
    """Parse a record's structure; `GameRecordError` names the offending line."""
    headers: list[tuple[str, str]] = []
    plies: list[RecordPly] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _HEADER_RE.fullmatch(line)
            if m and not plies:
                headers.append((m.group(1).strip().lower(), m.group(2).strip()))
            continue
        m = _PLY_RE.fullmatch(line)
        if not m:
            raise GameRecordError(
                f"expected a ply like '12. e2-e4' or '12... e7-e5', found {line!r}", line=number
            )
        plies.append(
            RecordPly(number, int(m.group(1)), 0 if m.group(2) == "." else 1, m.group(3).strip())
        )
    found = dict(headers)
    if "variant" not in found:
        raise GameRecordError("the record has no '# variant:' header")
    try:
        if definition is not None:
            variant_id, *plus = found["variant"].split("+")
            extra = tuple(normalize_name(o) for o in plus if o.strip())
            own = load_definition(definition).id
            if normalize_name(variant_id) != own:
                raise GameRecordError(
                    f"the record is a game of {variant_id.strip()!r}, the definition is {own!r}"
                )
            variant_id = own
        else:
            variant_id, extra = resolve_variant_id(found["variant"])
    except UnknownVariantError as exc:
        raise GameRecordError(
            f"{exc}. A game of a server's own variant replays with its file: "
            "python -m rules replay RECORD --definition FILE.toml"
        ) from None
    options = tuple(
        sorted(
            {
                *extra,
                *(normalize_name(o) for o in found.get("options", "").split(",") if o.strip()),
            }
        )
    )
    legend = _parse_legend(found.get("piece letters", ""))
    return GameRecord(
        definition=definition or "",
        headers=tuple(headers),
        variant=variant_id,
        options=options,
        result=found.get("result"),
        legend=legend,
        plies=tuple(plies),
    )


def _parse_legend(text: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in (p.strip() for p in text.split(",") if p.strip()):
        letters, eq, name = item.partition("=")
        if not eq:
            raise GameRecordError(f"piece letters: expected LETTERS=Name, found {item!r}")
        letters = letters.strip()
        if letters.lower() == "(no letter)":
            letters = ""
        elif not re.fullmatch(r"\+?[A-Z]{1,2}", letters):
            raise GameRecordError(f"piece letters: {letters!r} is not one or two capital letters")
        out.append((letters, name.strip()))
    return tuple(out)


def legend_letters(variant: Variant, legend: tuple[tuple[str, str], ...]) -> Letters:
    """The variant's letters overridden by a record's legend; names are matched without
    case against the piece's name in the variant and its other names."""
    by_id = {p.id: p.letters for p in variant.pieces}
    named: dict[str, str] = {}
    for letters, name in legend:
        candidates = {name.lower()}
        m = re.fullmatch(r"(.*?)\s*\((.*)\)\s*", name)
        if m:
            candidates = {m.group(1).strip().lower(), m.group(2).strip().lower()}
        matches = [p.id for p in variant.pieces if candidates & {n.lower() for n in p.all_names()}]
        if not matches:
            raise GameRecordError(f"piece letters: {name!r} is not a piece of {variant.name}")
        if matches[0] in named:
            raise GameRecordError(
                f"piece letters: {name!r} is given both {named[matches[0]] or '(no letter)'} "
                f"and {letters or '(no letter)'}"
            )
        named[matches[0]] = letters
        by_id[matches[0]] = letters
    seen: dict[str, str] = {}
    for pid, letters in by_id.items():
        if letters in seen:
            raise GameRecordError(
                f"piece letters: {letters or '(no letter)'} names both {seen[letters]} and {pid}"
            )
        seen[letters] = pid
    return Letters(by_id)


def replay_record(record: GameRecord) -> Game:
    """Replay every ply with its checks; the first failure raises `GameRecordError`
    naming the ply and why."""
    variant = (
        load_definition(record.definition, record.options)
        if record.definition
        else load_variant(record.variant, record.options)
    )
    letters = legend_letters(variant, record.legend) if record.legend else None
    game = Game(variant)
    for index, ply in enumerate(record.plies, start=1):
        pos = game.position
        expected_color = pos.side
        expected_number = 0 if pos.placing else pos.fullmove
        if ply.color != expected_color or ply.number != expected_number:
            want = f"{expected_number}{'.' if expected_color == 0 else '...'}"
            raise GameRecordError(
                f"expected a ply numbered {want!r}, found {ply.label!r}", line=ply.line, ply=index
            )
        try:
            game.play(ply.text, letters=letters, check_marks=True)
        except (MoveError, RulesError) as exc:
            reason = exc.reason if isinstance(exc, MoveError) else str(exc)
            raise GameRecordError(f"{ply.label}: {reason}", line=ply.line, ply=index) from None
    _check_result(record, game)
    return game


def _check_result(record: GameRecord, game: Game) -> None:
    reached = game.outcome()
    if record.result is None:
        return
    try:
        stated = Outcome.from_text(record.result)
    except ValueError as exc:
        raise GameRecordError(f"result: {exc}") from None
    reached_text = reached.result_text if reached else "unfinished"
    if stated is None:
        if reached is not None:
            raise GameRecordError(f"the result says unfinished, but the game ended: {reached_text}")
        return
    if stated.termination in BY_RULE:
        if reached is None or reached.result_text != stated.result_text:
            raise GameRecordError(
                f"the result says {stated.result_text!r}, "
                f"but the final position gives {reached_text!r}"
            )
    elif reached is not None:
        raise GameRecordError(
            f"the result says {stated.result_text!r}, "
            f"but the game had already ended: {reached_text}"
        )


def ply_label(variant: Variant, index: int) -> str:
    """The move-number prefix of the ply at `index` (0-based) of a game from the start:
    `12.` for White, `12...` for Black, `0.`/`0...` for Florea's placements. A game whose
    first move is Black's (`[setup] first`) starts at `1...`, then `2.`, as its FEN counts."""
    placements = len(variant.reserve) if variant.placement else 0
    if index < 2 * placements:
        return "0." if index < placements else "0..."
    index += variant.first - 2 * placements
    return f"{index // 2 + 1}{'.' if index % 2 == 0 else '...'}"


def format_record(
    game: Game, headers: dict[str, str] | None = None, result: str | None = None
) -> str:
    """The record of `game` in the spec §6 format, with its legend and result."""
    v = game.variant
    lines = [f"# variant: {v.id}"]
    if v.options:
        lines.append(f"# options: {', '.join(sorted(v.options))}")
    for key, value in (headers or {}).items():
        if key in FREE_KEYS:
            lines.append(f"# {key}: {value}")
    outcome = game.outcome()
    lines.append(f"# result: {result or (outcome.result_text if outcome else 'unfinished')}")
    legend = ", ".join(
        f"{p.letters or '(no letter)'}={p.name}"
        for p in sorted(v.pieces, key=lambda p: (p.letters == "", p.letters))
    )
    lines.append(f"# piece letters: {legend}")
    for index, played in enumerate(game.history):
        lines.append(f"{ply_label(v, index)} {played.notation}")
    return "\n".join(lines) + "\n"
