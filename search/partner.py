"""Fairy-Stockfish as a partner: it plays the strongest level and reviews games in every
variant its variants.ini can say, where the operator installed it.

A variant reaches it through `rules.ini.export_ini` (which refuses what the format cannot
say: 16x16 boards, bent and circular riders, royal capture...), written to a file named by
the section's content hash in `folder` and loaded with `VariantPath` + `UCI_Variant`; the
engine must confirm the section (`info string variant NAME`), or it would silently play
another game's rules. Positions go as `fen START moves ...` in its notation (`rules.fsf`),
so its repetition rules see the whole game. Before it searches, its legal moves there
(`go perft 1`) must be ours: an engine older than the export (Debian's 11.1 ignores keys it
does not know, such as `doubleStepRegionBlack`) plays other rules, or misreads a move of the
game and searches another position. Every move it gives back is looked up among our legal
moves. A disagreement (or a second crash) in a variant is a `PartnerError` once, and that
variant is not given to this process again (`Unsupported`); the caller plays its own engine.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rules.errors import VariantError
from rules.fsf import fen, format_uci, uci_moves
from rules.fsf import letters as fsf_letters
from rules.game import Game
from rules.ini import export_ini
from rules.notation import coordinates, format_code
from rules.position import Position
from rules.postext import parse_position
from rules.variant import Variant
from search.play import EngineMove, line_notation
from search.searcher import MATE
from search.uci import GoResult, Info, UciEngine, UciError, UciTimeout, short_name

OWN_ENGINE = "Fairy Post's engine"
"""How players read the name of the engine in `search/`."""
OPTIONS: Mapping[str, str] = {"Threads": "1", "Hash": "16"}
"""One thread (the machine's other core is the bot's) and a bounded table."""
CRASHES_REFUSED = 2
"""A variant that crashed the engine this many times is not given to it again (one crash
may be the machine's doing: the process is restarted and asked again)."""
TIMEOUT_SHARE, TIMEOUT_MARGIN = 0.1, 1.0
"""A search told `movetime T` that has not answered after T * 1.1 + 1 s is hung."""


class PartnerError(Exception):
    """The partner cannot give this answer: the variant is beyond its format, or it
    crashed, hung or answered an illegal move. The message says which, for the logs."""


class Unsupported(PartnerError):
    """The variant is beyond what Fairy-Stockfish's variants.ini can say: not an incident,
    the partner simply does not play it."""


@dataclass(frozen=True, slots=True)
class Section:
    """A variant as a variants.ini section, under a name unique to its content."""

    name: str
    text: str


def section_for(variant: Variant) -> Section:
    """The variant's section, named `<id>-<hash>` so that two variants with one id (a
    server's own `chess`) never share a name in the engine; PartnerError when the format
    cannot say the variant."""
    try:
        plain = export_ini(variant, variant.id)
    except (VariantError, ValueError) as exc:
        raise Unsupported(str(exc)) from exc
    digest = hashlib.sha256(plain.encode()).hexdigest()[:12]
    base = re.sub(r"[^a-z0-9-]+", "-", variant.id.lower()).strip("-") or "variant"
    name = f"{base}-{digest}"
    return Section(name, export_ini(variant, name))


def uci_position(game: Game) -> tuple[str, Position]:
    """`fen START moves M1 M2 ...` for the game in Fairy-Stockfish's notation, and the
    current position (a copy). PartnerError for a piece or move it has no letters for."""
    try:
        pos = parse_position(game.variant, game.start_text)
        start = fen(pos)
        table = fsf_letters(game.variant)
        moves = []
        for played in game.history:
            code = pos.to_code(played.move)
            moves.append(format_uci(pos, code, table))
            pos.push_code(code)
    except ValueError as exc:
        raise Unsupported(f"{game.variant.id}: {exc}") from exc
    return f"fen {start}" + (" moves " + " ".join(moves) if moves else ""), pos


def mate_score(mate: int) -> int:
    """A UCI `score mate N` (moves; negative: mated) on the search's scale (MATE - plies)."""
    return MATE - (2 * mate - 1) if mate > 0 else -MATE + 2 * -mate


def info_score(info: Info) -> int:
    """An `info` line's score for the side to move, on the search's scale."""
    if info.mate is not None:
        return mate_score(info.mate)
    return info.score or 0


def line_codes(pos: Position, moves: tuple[str, ...]) -> list[int]:
    """The legal prefix of a principal variation given in UCI, as move codes."""
    work = pos.copy()
    out = []
    for text in moves:
        code = uci_moves(work).get(text)
        if code is None:
            break
        out.append(code)
        work.push_code(code, False)
    return out


def _difference(ours: Iterable[str], theirs: Iterable[str], position: str) -> str:
    """A disagreement on the legal moves, briefly: a few moves each side alone has."""
    mine, its = set(ours), set(theirs)
    only_ours = " ".join(sorted(mine - its)[:5]) or "none"
    only_its = " ".join(sorted(its - mine)[:5]) or "none"
    return (
        f"its legal moves differ from ours ({len(its)} against {len(mine)}; only ours: "
        f"{only_ours}; only its: {only_its}) after {position}"
    )


@dataclass(frozen=True, slots=True)
class Judged:
    """A position as the partner sees it: `move` (our move code, legal) and the scores of
    its best lines for the side to move, the best first."""

    move: int
    scores: tuple[int, ...]
    result: GoResult


class FairyStockfish:
    """One Fairy-Stockfish process, started on first use and again after a crash or a hang.
    Not thread-safe (a search worker owns one)."""

    def __init__(self, path: str, folder: Path, options: Mapping[str, str] = OPTIONS) -> None:
        self.path = path
        self.folder = folder
        self.options = dict(options)
        self.name = ""
        """Its name for players (`Fairy-Stockfish 11.1`), once it has started."""
        self._engine: UciEngine | None = None
        self._variant: str | None = None
        self._multipv = 1
        self._refused: dict[str, str] = {}
        """Sections it disagreed on or crashed in, with why: not given to it again."""
        self._crashes: dict[str, int] = {}

    def _process(self) -> UciEngine:
        if self._engine is not None and not self._engine.alive:
            self._engine.kill()
            self._engine = None
        if self._engine is None:
            self._engine = UciEngine(self.path, self.options)
            self.name = short_name(self._engine.name) or Path(self.path).name
            self._variant = None
            self._multipv = 1
        return self._engine

    def start(self) -> None:
        """Starts the process now if it is not running (PartnerError when it cannot)."""
        try:
            self._process()
        except UciError as exc:
            raise PartnerError(f"{self.path}: {exc}") from exc

    def _file(self, section: Section) -> Path:
        """The section's file, written once: the workers share the folder, so each writes
        its own partial file and renames it (the engine never reads a half-written one)."""
        path = self.folder / f"{section.name}.ini"
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            partial.write_text(section.text, encoding="utf-8")
            partial.replace(path)
        return path

    def _select(self, engine: UciEngine, section: Section, multipv: int) -> None:
        if section.name != self._variant:
            engine.set_option("VariantPath", str(self._file(section)))
            engine.set_option("UCI_Variant", section.name)
            said = engine.ready()
            if not any(line.startswith(f"info string variant {section.name} ") for line in said):
                self._variant = None
                raise PartnerError(f"the engine did not load {section.name}")
            engine.send("ucinewgame")
            self._variant = section.name
        if multipv != self._multipv:
            engine.set_option("MultiPV", str(multipv))
            self._multipv = multipv

    def stop(self) -> None:
        """Ends the process (the worker's end, or one that misbehaved)."""
        if self._engine is not None:
            self._engine.close()
            self._engine = None
            self._variant = None

    def _search(
        self,
        game: Game,
        limits: str | None,
        timeout: float,
        multipv: int = 1,
        should_stop: Callable[[], bool] | None = None,
    ) -> Judged | None:
        """The engine's verdict on the game's position; None when called off, or when
        `limits` is None (only its legal moves are compared with ours)."""
        section = section_for(game.variant)  # refuses before a process starts for nothing
        known = self._refused.get(section.name)
        if known is not None:
            raise Unsupported(f"{game.variant.id}: {known} (earlier in this process)")
        position, pos = uci_position(game)
        ours = uci_moves(pos)
        try:
            engine = self._process()
            self._select(engine, section, multipv)
            theirs = engine.legal_moves(position)
            if theirs != ours.keys():
                raise self._refuse(section, game, _difference(ours.keys(), theirs, position))
            if limits is None:
                return None
            result = engine.go(position, limits, timeout=timeout, should_stop=should_stop)
        except UciTimeout as exc:
            self.kill()
            raise PartnerError(f"{game.variant.id}: {exc}") from exc
        except UciError as exc:
            self.kill()
            crashes = self._crashes[section.name] = self._crashes.get(section.name, 0) + 1
            if crashes >= CRASHES_REFUSED:
                raise self._refuse(section, game, f"it crashed {crashes} times ({exc})") from exc
            raise PartnerError(f"{game.variant.id}: {exc}") from exc
        if result is None:
            return None
        code = ours.get(result.bestmove)
        if code is None:
            # Not one of our legal moves: the export and our rules disagree somewhere.
            raise self._refuse(
                section, game, f"it answered {result.bestmove}, not a legal move after {position}"
            )
        scores = tuple(info_score(i) for i in result.lines)
        return Judged(code, scores, result)

    def _refuse(self, section: Section, game: Game, reason: str) -> PartnerError:
        """Remembers that this section is not to be given again; the error to raise."""
        self._refused[section.name] = reason
        return PartnerError(f"{game.variant.id}: {self.name or self.path}: {reason}")

    def kill(self) -> None:
        """Ends the process at once (it crashed or hung: nothing it says can be trusted)."""
        if self._engine is not None:
            self._engine.kill()
            self._engine = None
            self._variant = None

    def best_move(
        self, game: Game, movetime: float, should_stop: Callable[[], bool] | None = None
    ) -> EngineMove | None:
        """The partner's move in `game` within `movetime` seconds, as the bot plays one;
        None when called off. PartnerError when it cannot give one."""
        if game.outcome() is not None:
            return None
        limit = max(1, round(movetime * 1000))
        timeout = movetime * (1 + TIMEOUT_SHARE) + TIMEOUT_MARGIN
        judged = self._search(game, f"movetime {limit}", timeout, should_stop=should_stop)
        if judged is None:
            return None
        pos = game.position
        score = judged.scores[0] if judged.scores else 0
        best = judged.result.lines[0] if judged.result.lines else None
        pv = line_codes(pos, best.pv) if best is not None else []
        if not pv or pv[0] != judged.move:
            pv = [judged.move]
        return EngineMove(
            notation=format_code(pos, judged.move),
            coordinates=coordinates(pos, judged.move),
            move=pos.to_move(judged.move),
            score=score,
            mate_in=None if best is None or best.mate is None else best.mate,
            depth=judged.result.depth,
            nodes=judged.result.nodes,
            elapsed=judged.result.elapsed,
            pv=line_notation(pos, pv),
        )

    def check(self, game: Game) -> None:
        """Whether it plays the game's variant as we do, judged by its legal moves in the
        game's position: PartnerError (Unsupported) when not."""
        self._search(game, None, timeout=0.0)

    def judge(
        self, game: Game, nodes: int, timeout: float, should_stop: Callable[[], bool] | None = None
    ) -> Judged | None:
        """The best move of the game's position and the scores of its two best lines, within
        `nodes` (a review's budget); None when called off."""
        return self._search(game, f"nodes {nodes}", timeout, multipv=2, should_stop=should_stop)
