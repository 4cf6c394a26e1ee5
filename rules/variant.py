"""Variants as data: one TOML file per variant in `rules/variants/`, validated at load.

A file may `extend` a parent (a family shares one definition) and declare named options,
each a table merged over the variant when the option is chosen. Every unknown key, bad
value, duplicate letter, off-board square or unknown piece is a `VariantError` naming the
file and the key. Pieces come from the shared catalogue `rules/pieces.toml`; a variant
names them, gives their letters, and may rename them or define new ones.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from rules.betza import Component, Kind, parse_betza
from rules.errors import BetzaError, UnknownVariantError, VariantError
from rules.geometry import Geometry
from rules.movement import MOVEMENT_KEYS, components_from_entry

PACKAGE_DIR = Path(__file__).resolve().parent
VARIANTS_DIR = PACKAGE_DIR / "variants"
CATALOGUE_PATH = PACKAGE_DIR / "pieces.toml"

TOP_KEYS = {
    "id",
    "name",
    "description",
    "status",
    "inventor",
    "sources",
    "extends",
    "abstract",
    "files",
    "ranks",
    "pieces",
    "setup",
    "piece-count",
    "rules",
    "castling",
    "reserve",
    "options",
    "decisions",
}
CATALOGUE_KEYS = {"name", "aliases", "royal", *MOVEMENT_KEYS}
PIECE_KEYS = {
    *CATALOGUE_KEYS,
    "letter",
    "double-step",
    "promotion",
    "flip",
    "family",
    "initial-leap",
    "once-per-game",
    "succession",
    "no-drop-rows",
}
PROMOTION_KEYS = {"to", "compulsory-rows", "optional-rows", "limit", "pawn-moves-only"}
RULES_KEYS = {
    "move-rule",
    "repetition",
    "stalemate",
    "goal",
    "insufficient-material",
    "en-passant",
    "captures-to-hand",
    "drop-any-face",
}
STATUSES = ("documented", "reconstructed setup")
LETTERS_RE = re.compile(r"[A-Z]{1,2}")
ID_RE = re.compile(r"[a-z][a-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Promotion:
    """How one piece type promotes; rows are counted from the owner's side (1-based)."""

    to: tuple[str, ...]
    compulsory_rows: frozenset[int]
    optional_rows: frozenset[int]
    limited_by_start_count: bool = False
    pawn_moves_only: bool = False


@dataclass(frozen=True, slots=True)
class PieceType:
    """A piece as one variant uses it: its letters, name and complete movement."""

    id: str
    name: str
    letters: str
    aliases: tuple[str, ...]
    components: tuple[Component, ...]
    royal: bool = False
    promotion: Promotion | None = None
    flip: str | None = None
    family: str | None = None
    initial_leap: str | None = None
    once_per_game: tuple[Component, ...] = ()
    succession: str | None = None
    no_drop_rows: frozenset[int] = frozenset()

    @property
    def is_pawn(self) -> bool:
        """The Pawn is the piece written without letters."""
        return self.letters == ""

    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True, slots=True)
class StandardCastling:
    """One castling move for White (Black mirrors it): King and Rook squares before/after."""

    king_from: int
    king_to: int
    rook_from: int
    rook_to: int


@dataclass(frozen=True, slots=True)
class FastCastling:
    """Florea's castling: the King jumps to any empty safe square between it and a Rook."""

    king_from: int
    rooks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OptionDef:
    name: str
    description: str


@dataclass(frozen=True, eq=False)
class Variant:
    """Everything the engine needs to know about one variant with its chosen options."""

    id: str
    name: str
    description: str
    status: str
    inventor: str
    sources: tuple[str, ...]
    geometry: Geometry
    pieces: tuple[PieceType, ...]
    setup: tuple[tuple[int, str], ...]
    castling: tuple[StandardCastling, ...] = ()
    fast_castling: FastCastling | None = None
    ep_capturers: frozenset[str] = frozenset()
    ep_victims: frozenset[str] = frozenset()
    move_rule: int = 50
    repetition: int = 3
    stalemate: str = "draw"
    goal: str = "checkmate"
    insufficient_material: bool = False
    captures_to_hand: bool = False
    drop_any_face: bool = False
    reserve: tuple[str, ...] = ()
    option_defs: tuple[OptionDef, ...] = ()
    options: frozenset[str] = frozenset()
    decisions: tuple[str, ...] = ()
    source_file: str = ""
    _by_id: dict[str, PieceType] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({p.id: p for p in self.pieces})

    def piece(self, piece_id: str) -> PieceType:
        return self._by_id[piece_id]

    def has_piece(self, piece_id: str) -> bool:
        return piece_id in self._by_id

    def by_letters(self, letters: str) -> PieceType | None:
        for p in self.pieces:
            if p.letters == letters:
                return p
        return None

    @property
    def full_id(self) -> str:
        """The id with its options, as players and the command line write it."""
        return "+".join([self.id, *sorted(self.options)])

    @property
    def pawn_symbol(self) -> str:
        """The Pawn's symbol in setups and position text: `P`, or `+` where `P` is taken."""
        return "+" if any(p.letters == "P" for p in self.pieces) else "P"

    @property
    def castles(self) -> bool:
        return bool(self.castling) or self.fast_castling is not None


# ---------------------------------------------------------------------------------------
# Loading


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(_display(path), "", f"not valid TOML: {exc}") from None


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(PACKAGE_DIR.parent))
    except ValueError:
        return str(path)


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """The shared piece catalogue, checked once."""
    data = _read_toml(CATALOGUE_PATH)
    source = _display(CATALOGUE_PATH)
    for pid, entry in data.items():
        if not ID_RE.fullmatch(pid):
            raise VariantError(source, pid, "piece ids are lowercase words joined by '-'")
        if not isinstance(entry, dict):
            raise VariantError(source, pid, "must be a table")
        for key in entry:
            if key not in CATALOGUE_KEYS:
                raise VariantError(source, f"{pid}.{key}", "unknown key")
        if not isinstance(entry.get("name"), str):
            raise VariantError(source, f"{pid}.name", "every piece needs a name")
        if not any(k in entry for k in MOVEMENT_KEYS):
            raise VariantError(source, pid, "the piece has no movement")
        components_from_entry(entry, source, pid)
    return data


def deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` merged into a copy of `base`: tables merge key by key, other values replace."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def variant_path(variant_id: str) -> Path:
    return VARIANTS_DIR / f"{variant_id}.toml"


def _raw(variant_id: str, chain: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
    """The file's data merged over its parents', with the file name for messages."""
    path = variant_path(variant_id)
    source = _display(path)
    if variant_id in chain:
        raise VariantError(source, "extends", f"circular inheritance: {' -> '.join(chain)}")
    if not path.is_file():
        raise UnknownVariantError(f"no variant file {source}")
    data = _read_toml(path)
    for key in data:
        if key not in TOP_KEYS:
            raise VariantError(source, key, "unknown key")
    if data.get("id") != variant_id:
        raise VariantError(source, "id", f"must be {variant_id!r}, the file's name")
    parent = data.get("extends")
    if parent is None:
        return data, source
    if not isinstance(parent, str):
        raise VariantError(source, "extends", "must be a variant id")
    try:
        base, _ = _raw(parent, (*chain, variant_id))
    except UnknownVariantError:
        raise VariantError(source, "extends", f"no parent variant {parent!r}") from None
    base.pop("abstract", None)
    merged = deep_merge(base, {k: v for k, v in data.items() if k != "extends"})
    return merged, source


def variant_ids() -> tuple[str, ...]:
    """Ids of every playable variant (abstract parents excluded), in file-name order."""
    return _ids_in(VARIANTS_DIR)


@cache
def _ids_in(folder: Path) -> tuple[str, ...]:
    out = []
    for path in sorted(folder.glob("*.toml")):
        data = _read_toml(path)
        if not data.get("abstract"):
            out.append(path.stem)
    return tuple(out)


def normalize_name(text: str) -> str:
    """How game records and players name variants: case and spacing do not matter."""
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def resolve_variant_id(text: str) -> tuple[str, tuple[str, ...]]:
    """`'patricia+fixed-king'` or `'Heavy Shako'` -> (id, options); unknown names raise."""
    base, *opts = text.split("+")
    key = normalize_name(base)
    ids = variant_ids()
    if key not in ids:
        by_name = {normalize_name(load_variant(i).name): i for i in ids}
        if key not in by_name:
            raise UnknownVariantError(
                f"unknown variant {base.strip()!r}; known variants: {', '.join(ids)}"
            )
        key = by_name[key]
    return key, tuple(normalize_name(o) for o in opts if o.strip())


def load_variant(variant_id: str, options: Iterable[str] = ()) -> Variant:
    """The variant with these options, loaded and validated once per combination."""
    return _load(variant_id, frozenset(options))


@cache
def _load(variant_id: str, options: frozenset[str]) -> Variant:
    data, source = _raw(variant_id)
    if data.get("abstract"):
        raise UnknownVariantError(f"{variant_id!r} is a family definition, not a playable variant")
    option_table = data.get("options", {})
    if not isinstance(option_table, dict):
        raise VariantError(source, "options", "must be a table of named options")
    option_defs = []
    for name, body in option_table.items():
        if not isinstance(body, dict) or not isinstance(body.get("description"), str):
            raise VariantError(source, f"options.{name}", "needs a description")
        unknown = set(body) - {"description", "set"}
        if unknown:
            raise VariantError(source, f"options.{name}.{sorted(unknown)[0]}", "unknown key")
        option_defs.append(OptionDef(name, body["description"]))
    for opt in sorted(options):
        if opt not in option_table:
            known = ", ".join(option_table) or "none"
            raise UnknownVariantError(f"{variant_id} has no option {opt!r} (options: {known})")
        overlay = option_table[opt].get("set", {})
        for key in overlay:
            if key not in TOP_KEYS - {"id", "extends", "options"}:
                raise VariantError(source, f"options.{opt}.set.{key}", "unknown key")
        data = deep_merge(data, overlay)
    return _build(data, source, tuple(option_defs), options)


def _req(data: Mapping[str, Any], key: str, kind: type, source: str, prefix: str = "") -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise VariantError(source, prefix + key, f"required, a {kind.__name__}")
    return value


def _build(
    data: dict[str, Any],
    source: str,
    option_defs: tuple[OptionDef, ...],
    options: frozenset[str],
) -> Variant:
    files = _req(data, "files", int, source)
    ranks = _req(data, "ranks", int, source)
    try:
        geometry = Geometry(files, ranks)
    except ValueError as exc:
        raise VariantError(source, "files", str(exc)) from None
    status = data.get("status", "documented")
    if status not in STATUSES:
        raise VariantError(source, "status", f"must be one of {', '.join(STATUSES)}")

    pieces = _build_pieces(data, source, geometry)
    by_id = {p.id: p for p in pieces}

    def square(value: Any, key: str) -> int:
        if not isinstance(value, str):
            raise VariantError(source, key, "must be a square name such as 'e1'")
        sq = geometry.parse(value)
        if sq is None:
            raise VariantError(source, key, f"{value!r} is not a square; {geometry.square_hint()}")
        return sq

    setup = _build_setup(data, source, geometry, pieces)
    white_count = len(setup)
    expected = data.get("piece-count")
    if expected is not None and expected != white_count:
        raise VariantError(
            source, "piece-count", f"the setup has {white_count} White pieces, not {expected}"
        )

    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(source, "rules", "must be a table")
    for key in rules:
        if key not in RULES_KEYS:
            raise VariantError(source, f"rules.{key}", "unknown key")
    move_rule = rules.get("move-rule", 50)
    if not isinstance(move_rule, int) or move_rule < 0:
        raise VariantError(source, "rules.move-rule", "must be 0 (none) or a number of moves")
    repetition = rules.get("repetition", 3)
    if not isinstance(repetition, int) or repetition < 2:
        raise VariantError(source, "rules.repetition", "must be 2 or more")
    stalemate = rules.get("stalemate", "draw")
    if stalemate not in ("draw", "win-on-points"):
        raise VariantError(source, "rules.stalemate", "must be 'draw' or 'win-on-points'")
    goal = rules.get("goal", "checkmate")
    if goal not in ("checkmate", "royal-capture"):
        raise VariantError(source, "rules.goal", "must be 'checkmate' or 'royal-capture'")
    royals = [p for p in pieces if p.royal]
    if not royals:
        raise VariantError(source, "pieces", "no royal piece: the game could never end")
    royal_in_setup = sum(1 for _, pid in setup if by_id[pid].royal)
    if goal == "checkmate" and royal_in_setup != 1:
        raise VariantError(
            source,
            "setup",
            f"checkmate needs exactly one royal piece a side, found {royal_in_setup}",
        )
    flags: dict[str, bool] = {}
    for key in ("insufficient-material", "captures-to-hand", "drop-any-face"):
        value = rules.get(key, False)
        if not isinstance(value, bool):
            raise VariantError(source, f"rules.{key}", "must be true or false")
        flags[key] = value

    ep = rules.get("en-passant", {})
    if not isinstance(ep, dict) or set(ep) - {"capturers", "victims"}:
        raise VariantError(source, "rules.en-passant", "a table with capturers and victims")
    ep_sets = []
    for key in ("capturers", "victims"):
        ids = ep.get(key, [])
        if not isinstance(ids, list):
            raise VariantError(source, f"rules.en-passant.{key}", "must be a list of piece ids")
        for pid in ids:
            if pid not in by_id:
                raise VariantError(source, f"rules.en-passant.{key}", f"unknown piece {pid!r}")
        ep_sets.append(frozenset(ids))
    for pid in ep_sets[0]:
        if not any(
            c.capture and not c.move and c.kind is Kind.LEAP and {(1, 1), (-1, 1)} <= c.vectors
            for c in by_id[pid].components
        ):
            raise VariantError(
                source,
                "rules.en-passant.capturers",
                f"{pid} has no diagonal forward capture (fcF) to take en passant with",
            )
    for pid in ep_sets[1]:
        if not any(_is_double_step(c) for c in by_id[pid].components):
            raise VariantError(
                source, "rules.en-passant.victims", f"{pid} has no double step to be taken after"
            )

    castling, fast = _build_castling(data, source, square, setup, by_id)

    reserve_data = data.get("reserve", {})
    if not isinstance(reserve_data, dict) or set(reserve_data) - {"pieces"}:
        raise VariantError(source, "reserve", "a table with the key 'pieces'")
    reserve = tuple(reserve_data.get("pieces", ()))
    for pid in reserve:
        if pid not in by_id:
            raise VariantError(source, "reserve.pieces", f"unknown piece {pid!r}")

    for p in pieces:
        if p.promotion:
            for target in p.promotion.to:
                if target not in by_id:
                    raise VariantError(
                        source, f"pieces.{p.id}.promotion.to", f"unknown piece {target!r}"
                    )
                if by_id[target].royal:
                    raise VariantError(
                        source, f"pieces.{p.id}.promotion.to", "cannot promote to a royal piece"
                    )
        for ref, key in ((p.flip, "flip"), (p.succession, "succession")):
            if ref is not None and ref not in by_id:
                raise VariantError(source, f"pieces.{p.id}.{key}", f"unknown piece {ref!r}")
    decisions = data.get("decisions", [])
    if not isinstance(decisions, list) or not all(isinstance(d, str) for d in decisions):
        raise VariantError(source, "decisions", "must be a list of strings")
    sources = data.get("sources", [])
    if not isinstance(sources, list):
        raise VariantError(source, "sources", "must be a list of strings")
    return Variant(
        id=_req(data, "id", str, source),
        name=_req(data, "name", str, source),
        description=_req(data, "description", str, source),
        status=status,
        inventor=str(data.get("inventor", "")),
        sources=tuple(sources),
        geometry=geometry,
        pieces=pieces,
        setup=setup,
        castling=castling,
        fast_castling=fast,
        ep_capturers=ep_sets[0],
        ep_victims=ep_sets[1],
        move_rule=move_rule,
        repetition=repetition,
        stalemate=stalemate,
        goal=goal,
        insufficient_material=flags["insufficient-material"],
        captures_to_hand=flags["captures-to-hand"],
        drop_any_face=flags["drop-any-face"],
        reserve=reserve,
        option_defs=option_defs,
        options=options,
        decisions=tuple(decisions),
        source_file=source,
    )


def _is_double_step(c: Component) -> bool:
    """The lame two-square forward step of spec §3.6 (`fmnD`), whoever owns it."""
    return c.kind is Kind.LAME and c.vectors == frozenset({(0, 2)}) and c.move and not c.capture


def _rows(value: Any, source: str, key: str, ranks: int) -> frozenset[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise VariantError(source, key, "must be a list of row numbers")
    for v in value:
        if not 1 <= v <= ranks:
            raise VariantError(source, key, f"row {v} is not between 1 and {ranks}")
    return frozenset(value)


def _build_pieces(data: dict[str, Any], source: str, geometry: Geometry) -> tuple[PieceType, ...]:
    table = data.get("pieces")
    if not isinstance(table, dict) or not table:
        raise VariantError(source, "pieces", "required: a table of piece ids and their letters")
    cat = catalogue()
    out: list[PieceType] = []
    letters_seen: dict[str, str] = {}
    for pid, raw in table.items():
        key = f"pieces.{pid}"
        if raw is False:
            continue  # removed by a child or an option
        entry: dict[str, Any] = {"letter": raw} if isinstance(raw, str) else raw
        if not isinstance(entry, dict):
            raise VariantError(source, key, "must be the piece's letters or a table")
        for k in entry:
            if k not in PIECE_KEYS:
                raise VariantError(source, f"{key}.{k}", "unknown key")
        base = cat.get(pid)
        defines_movement = any(k in entry for k in MOVEMENT_KEYS)
        if base is None and not defines_movement:
            raise VariantError(
                source, key, f"unknown piece {pid!r}: not in the catalogue and no movement given"
            )
        merged: dict[str, Any] = {}
        if base is not None and not defines_movement:
            merged.update(base)
        elif base is not None:
            merged.update({k: v for k, v in base.items() if k not in MOVEMENT_KEYS})
        merged.update(entry)
        letters = merged.get("letter")
        if not isinstance(letters, str) or (letters and not LETTERS_RE.fullmatch(letters)):
            raise VariantError(
                source, f"{key}.letter", "one or two uppercase letters, or '' for the Pawn"
            )
        if letters in letters_seen:
            raise VariantError(
                source,
                f"{key}.letter",
                f"{letters or 'no letter'!r} is already the letter of {letters_seen[letters]}",
            )
        letters_seen[letters] = pid
        name = merged.get("name")
        if not isinstance(name, str) or not name:
            raise VariantError(source, f"{key}.name", "every piece needs a name")
        aliases = list(merged.get("aliases", []))
        if base is not None and name != base["name"]:
            aliases.insert(0, base["name"])
        comps = list(components_from_entry(merged, source, key))
        double = merged.get("double-step", "none")
        if double not in ("none", "initial", "any"):
            raise VariantError(source, f"{key}.double-step", "must be none, initial or any")
        if double != "none":
            comps.extend(parse_betza("ifmnD" if double == "initial" else "fmnD", pawnlike=True))
        promotion = _build_promotion(merged.get("promotion"), source, f"{key}.promotion", geometry)
        once: tuple[Component, ...] = ()
        if "once-per-game" in merged:
            try:
                once = parse_betza(str(merged["once-per-game"]))
            except BetzaError as exc:
                raise VariantError(source, f"{key}.once-per-game", str(exc)) from None
        leap = merged.get("initial-leap")
        if leap not in (None, "metamachy"):
            raise VariantError(source, f"{key}.initial-leap", "the only kind is 'metamachy'")
        royal = merged.get("royal", False)
        if not isinstance(royal, bool):
            raise VariantError(source, f"{key}.royal", "must be true or false")
        if (once or leap) and not royal:
            raise VariantError(source, key, "only a royal piece has once-per-game or initial leaps")
        out.append(
            PieceType(
                id=pid,
                name=name,
                letters=letters,
                aliases=tuple(dict.fromkeys(a for a in aliases if a != name)),
                components=tuple(comps),
                royal=royal,
                promotion=promotion,
                flip=merged.get("flip"),
                family=merged.get("family"),
                initial_leap=leap,
                once_per_game=once,
                succession=merged.get("succession"),
                no_drop_rows=_rows(
                    merged.get("no-drop-rows", []), source, f"{key}.no-drop-rows", geometry.ranks
                ),
            )
        )
    return tuple(out)


def _build_promotion(raw: Any, source: str, key: str, geometry: Geometry) -> Promotion | None:
    if raw is None or raw is False:
        return None
    if not isinstance(raw, dict):
        raise VariantError(source, key, "must be a table with 'to'")
    for k in raw:
        if k not in PROMOTION_KEYS:
            raise VariantError(source, f"{key}.{k}", "unknown key")
    to = raw.get("to")
    if not isinstance(to, list) or not to or not all(isinstance(t, str) for t in to):
        raise VariantError(source, f"{key}.to", "must list at least one piece id")
    compulsory = _rows(
        raw.get("compulsory-rows", [geometry.ranks]),
        source,
        f"{key}.compulsory-rows",
        geometry.ranks,
    )
    optional = _rows(raw.get("optional-rows", []), source, f"{key}.optional-rows", geometry.ranks)
    if compulsory & optional:
        raise VariantError(source, f"{key}.optional-rows", "a row cannot be both")
    limit = raw.get("limit", "none")
    if limit not in ("none", "start-count"):
        raise VariantError(source, f"{key}.limit", "must be 'none' or 'start-count'")
    pawn_only = raw.get("pawn-moves-only", False)
    if not isinstance(pawn_only, bool):
        raise VariantError(source, f"{key}.pawn-moves-only", "must be true or false")
    return Promotion(tuple(to), compulsory, optional, limit == "start-count", pawn_only)


def _build_setup(
    data: dict[str, Any], source: str, geometry: Geometry, pieces: tuple[PieceType, ...]
) -> tuple[tuple[int, str], ...]:
    table = data.get("setup")
    if not isinstance(table, dict) or not table:
        raise VariantError(source, "setup", "required: White's pieces rank by rank")
    pawn_symbol = "+" if any(p.letters == "P" for p in pieces) else "P"
    by_token = {p.letters: p.id for p in pieces if p.letters}
    pawn = next((p for p in pieces if p.is_pawn), None)
    if pawn is not None:
        by_token[pawn_symbol] = pawn.id
    out: list[tuple[int, str]] = []
    for rank_key, row in table.items():
        key = f"setup.{rank_key}"
        if not rank_key.isdigit() or not 1 <= int(rank_key) <= geometry.ranks:
            raise VariantError(source, key, f"ranks are numbered 1 to {geometry.ranks}")
        if not isinstance(row, str):
            raise VariantError(source, key, "must be a string of piece letters")
        tokens = row.split()
        if len(tokens) != geometry.files:
            raise VariantError(
                source, key, f"has {len(tokens)} squares; the board has {geometry.files} files"
            )
        rank = int(rank_key) - 1
        for file, token in enumerate(tokens):
            if token == ".":
                continue
            pid = by_token.get(token)
            if pid is None:
                raise VariantError(source, key, f"{token!r} is not a piece letter of this variant")
            out.append((geometry.index(file, rank), pid))
    mirrored = {geometry.mirror(sq) for sq, _ in out}
    if mirrored & {sq for sq, _ in out}:
        raise VariantError(source, "setup", "White's array reaches the ranks of Black's mirror")
    return tuple(sorted(out))


def _build_castling(
    data: dict[str, Any],
    source: str,
    square: Any,
    setup: tuple[tuple[int, str], ...],
    by_id: dict[str, PieceType],
) -> tuple[tuple[StandardCastling, ...], FastCastling | None]:
    raw = data.get("castling")
    if raw is None:
        return (), None
    if not isinstance(raw, dict):
        raise VariantError(source, "castling", "must be a table")
    occupant = dict(setup)
    style = raw.get("style", "standard")
    if style == "standard":
        if set(raw) - {"style", "moves"}:
            raise VariantError(
                source, f"castling.{sorted(set(raw) - {'style', 'moves'})[0]}", "unknown key"
            )
        moves = raw.get("moves")
        if not isinstance(moves, list) or not moves:
            raise VariantError(source, "castling.moves", "must list the castling moves")
        out = []
        for i, mv in enumerate(moves):
            key = f"castling.moves[{i}]"
            if not isinstance(mv, dict) or set(mv) != {"king", "king-to", "rook", "rook-to"}:
                raise VariantError(source, key, "needs exactly king, king-to, rook, rook-to")
            c = StandardCastling(
                square(mv["king"], f"{key}.king"),
                square(mv["king-to"], f"{key}.king-to"),
                square(mv["rook"], f"{key}.rook"),
                square(mv["rook-to"], f"{key}.rook-to"),
            )
            king = occupant.get(c.king_from)
            if king is None or not by_id[king].royal:
                raise VariantError(
                    source, f"{key}.king", "no royal piece stands there at the start"
                )
            if occupant.get(c.rook_from) is None:
                raise VariantError(source, f"{key}.rook", "no piece stands there at the start")
            rank = {sq // data["files"] for sq in (c.king_from, c.king_to, c.rook_from, c.rook_to)}
            if len(rank) != 1:
                raise VariantError(source, key, "castling happens along one rank")
            out.append(c)
        return tuple(out), None
    if style == "fast":
        if set(raw) - {"style", "king", "rooks"}:
            raise VariantError(source, "castling", "fast castling takes king and rooks")
        king_sq = square(raw.get("king"), "castling.king")
        rooks = raw.get("rooks")
        if not isinstance(rooks, list) or not rooks:
            raise VariantError(source, "castling.rooks", "must list the Rooks' squares")
        rook_sqs = tuple(square(r, f"castling.rooks[{i}]") for i, r in enumerate(rooks))
        return (), FastCastling(king_sq, rook_sqs)
    raise VariantError(source, "castling.style", "must be 'standard' or 'fast'")
