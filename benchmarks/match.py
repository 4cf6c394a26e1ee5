"""Engine matches: Fairy Post's engine against a random mover, a one-ply greedy mover and
Fairy-Stockfish, game by game through the rules engine (which judges every move and every
ending).

Games come in pairs from the same opening, one with each colour. Against Fairy-Stockfish
each pair starts from two random plies (its Skill Level plays at random too); a game both
engines score at 10 Pawns or more for the same side, three moves running each, is
adjudicated to that side, and a game still running at the ply cap is a draw. The engine
matches of issue 29 (`benchmarks/bench_engine.py`) may also adjudicate a draw: both
engines within 0.20 Pawns of level for eight moves running each, from move 40 on (as
cutechess-cli's `-draw movenumber=40 movecount=8 score=20`).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rules.game import Game
from rules.notation import coordinates
from rules.variant import Variant, load_definition, load_variant, variant_ids
from search.evaluate import eval_tables
from search.play import think
from search.searcher import MATE_BOUND, Limits
from search.tt import TranspositionTable
from search.uci import UciEngine

VARIANT_FILES = Path(__file__).resolve().parent.parent / "docs" / "examples"
ADJUDICATE_CP = 1_000
ADJUDICATE_MOVES = 3
DRAW_FROM_PLY = 80  # move 40
DRAW_CP = 20
DRAW_MOVES = 8
DRIVER = Path(__file__).resolve().parent / "engine_driver.py"


@dataclass(frozen=True, slots=True)
class Choice:
    move: str  # coordinates, as the rules engine reads them
    score: int | None = None  # centipawns for the side that moves, when the player says


class Player:
    """A match player: told when a game starts, asked for moves."""

    name = "player"

    def start(self, game: Game) -> None:
        """A new game begins (the position may already have opening moves)."""

    def choose(self, game: Game) -> Choice:
        raise NotImplementedError

    def close(self) -> None:
        """Free what the player holds (an engine process)."""


class RandomPlayer(Player):
    name = "random mover"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Choice:
        pos = game.position
        return Choice(coordinates(pos, self.rng.choice(pos.legal_codes())))


class GreedyPlayer(Player):
    """One ply deep: wins at once when it can, otherwise takes the move that leaves it the
    most material (the engine's own piece values), at random among equals. It never looks
    at the reply."""

    name = "greedy mover"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Choice:
        pos = game.position
        side = pos.side
        value = eval_tables(pos.t).value
        royal = eval_tables(pos.t).royal
        best: list[int] = []
        best_score = -(1 << 60)
        for c in pos.legal_codes():
            pos.push_code(c, keep_key=False)
            outcome = pos.outcome()
            if outcome is not None and outcome.winner == side:
                score = 1 << 50
            else:
                score = 0
                for code, squares in enumerate(pos.pieces):
                    if squares and not royal[code]:
                        sign = 1 if code & 1 == side else -1
                        score += sign * value[code] * len(squares)
                for color, hand in enumerate(pos.hands):
                    sign = 1 if color == side else -1
                    score += sign * sum(value[code] * n for code, n in enumerate(hand) if n)
            pos.pop_code()
            if score > best_score:
                best, best_score = [c], score
            elif score == best_score:
                best.append(c)
        return Choice(coordinates(pos, self.rng.choice(best)))


class EnginePlayer(Player):
    """Fairy Post's engine with a fixed budget and its own table for the game."""

    def __init__(self, limits: Limits, name: str, table_mb: float = 16) -> None:
        self.limits = limits
        self.name = name
        self.table_mb = table_mb
        self.tt = TranspositionTable(table_mb)
        self.nodes = 0
        self.seconds = 0.0

    def start(self, game: Game) -> None:
        self.tt.clear()

    def choose(self, game: Game) -> Choice:
        result = think(game, self.limits, tt=self.tt)
        self.nodes += result.nodes
        self.seconds += result.elapsed
        assert result.move is not None
        return Choice(coordinates(game.position, result.move), result.score)


def elo_pick_depth(elo: int) -> int:
    """The depth at which Fairy-Stockfish, set to `UCI_Elo` (UCI_LimitStrength), picks the
    move it plays: its skill level is (elo - 1346.6) / 143.4 raised to 1 / 0.806, rounded
    down or (at random, by its fraction) up, and the move is drawn from the MultiPV 4 lines
    at depth 1 + level; searching deeper does not change it (src/search.cpp, `Skill`).
    So a search to this depth plays as that Elo whatever the machine's load."""
    level = min(max(((elo - 1346.6) / 143.4) ** (1 / 0.806), 0.0), 20.0)
    return 2 + int(level)


class FairyStockfishPlayer(Player):
    """Fairy-Stockfish over UCI at a fixed Skill Level, or at a `UCI_Elo` when `elo` is
    given (its UCI_LimitStrength, 1350 to 2850 in 11.1), and a fixed time per move, or a
    fixed depth when `depth` is given (`elo_pick_depth`). `letters` maps Fairy Post's
    promotion letters to Fairy-Stockfish's where they differ."""

    def __init__(
        self,
        engine: UciEngine,
        variant: str,
        skill: int,
        movetime_ms: int,
        letters: dict[str, str] | None = None,
        *,
        elo: int | None = None,
        depth: int | None = None,
    ) -> None:
        self.engine = engine
        self.variant = variant
        self.skill = skill
        self.elo = elo
        self.movetime_ms = movetime_ms
        self.depth = depth
        self.depths: list[int] = []
        self.to_fsf = {k: v.lower() for k, v in (letters or {}).items()}
        self.from_fsf = {v.lower(): k for k, v in (letters or {}).items()}
        self.name = (
            f"Fairy-Stockfish UCI_Elo {elo}"
            if elo is not None
            else f"Fairy-Stockfish Skill Level {skill}"
        )

    def start(self, game: Game) -> None:
        if self.elo is not None:
            self.engine.set_option("UCI_LimitStrength", "true")
            self.engine.set_option("UCI_Elo", str(self.elo))
        else:
            self.engine.set_option("UCI_LimitStrength", "false")
            self.engine.set_option("Skill Level", str(self.skill))
        self.engine.new_game(self.variant)

    def _fsf(self, text: str) -> str:
        body = text.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        letter = text[len(body) :]
        if not letter:
            return text
        return body + self.to_fsf.get(letter, letter.lower())

    def choose(self, game: Game) -> Choice:
        moves = [self._fsf(m.coordinates) for m in game.history]
        position = "startpos" + (" moves " + " ".join(moves) if moves else "")
        limits = f"depth {self.depth}" if self.depth is not None else f"movetime {self.movetime_ms}"
        result = self.engine.go(position, limits, timeout=None)
        assert result is not None  # nothing can call it off
        move, score = result.bestmove, None
        if result.lines:
            best = result.lines[0]
            score = best.score if best.mate is None else (100_000 if best.mate > 0 else -100_000)
        self.depths.append(result.depth)
        body = move.rstrip("abcdefghijklmnopqrstuvwxyz+")  # moves end in a rank or a letter
        letter = move[len(body) :]
        if letter:
            letter = self.from_fsf.get(letter, letter.upper())
        if score is not None and abs(score) >= 100_000:
            score = MATE_BOUND if score > 0 else -MATE_BOUND
        return Choice(body + letter, score)


class DriverPlayer(Player):
    """A Fairy Post engine in a process of its own (`benchmarks/engine_driver.py`): the
    engine under `root` (the working tree, or an earlier commit's `rules` and `search`), on
    the CPU clock by default. `cpu` and `wall` add up what its searches took."""

    def __init__(
        self, root: Path, name: str, movetime: float, *, level: int = 8, clock: str = "cpu"
    ) -> None:
        self.name = name
        self.movetime = movetime
        self.level = level
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(DRIVER), "--root", str(root), "--clock", clock],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.moves = 0
        self.nodes = 0
        self.cpu = 0.0
        self.wall = 0.0
        self.depths: list[int] = []

    def ask(self, request: dict[str, object]) -> dict[str, object]:
        """One request, its answer; RuntimeError when the engine fails."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name}: the engine process exited")
        answer: dict[str, object] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"{self.name}: {answer['error']}")
        return answer

    def start(self, game: Game) -> None:
        self.ask({"op": "new", "variant": game.variant.id})

    def choose(self, game: Game) -> Choice:
        moves = [m.coordinates for m in game.history]
        answer = self.ask(
            {"op": "go", "moves": moves, "movetime": self.movetime, "level": self.level}
        )
        move, score = answer["move"], answer["score"]
        assert isinstance(move, str) and isinstance(score, int)
        self.moves += 1
        self.nodes += int(str(answer["nodes"]))
        self.cpu += float(str(answer["cpu"]))
        self.wall += float(str(answer["wall"]))
        self.depths.append(int(str(answer["depth"])))
        return Choice(move, score)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class GameResult:
    points: float  # for the engine
    reason: str
    plies: int


@dataclass
class MatchResult:
    variant: str
    opponent: str
    games: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def points(self) -> list[float]:
        return [g.points for g in self.games]

    def tally(self) -> str:
        wins = sum(1 for g in self.games if g.points > 0.5)
        losses = sum(1 for g in self.games if g.points < 0.5)
        draws = len(self.games) - wins - losses
        return f"+{wins} ={draws} -{losses}"

    def reasons(self) -> str:
        counts = Counter(g.reason for g in self.games)
        return ", ".join(f"{n}× {reason}" for reason, n in counts.most_common())


def load_match_variant(name: str) -> Variant:
    """A built-in variant, or one of the players' variant files of docs/examples
    (S-Chess): the engine reads them as it reads any guild's variant."""
    if name in variant_ids():
        return load_variant(name)
    path = VARIANT_FILES / f"{name}.toml"
    return load_definition(path.read_text(encoding="utf-8"), source=path.name)


def play_game(
    variant: Variant,
    white: Player,
    black: Player,
    opening: Sequence[str] = (),
    *,
    max_plies: int = 400,
    adjudicate: bool = False,
    adjudicate_draws: bool = False,
    adjudicate_cp: int = ADJUDICATE_CP,
    record: list[str] | None = None,
) -> tuple[float, str, int]:
    """One game; (White's points, how it ended, plies). `adjudicate` ends a game both
    players score `adjudicate_cp` or more for one side, three moves running each;
    `adjudicate_draws` one both score as level late. `record` receives every move played,
    the opening's included (coordinates), so that a lost game can be replayed."""
    game = Game(variant)
    if record is None:
        record = []
    for text in opening:
        game.play(text, check_marks=False)
        record.append(text)
    players = (white, black)
    for p in players:
        p.start(game)
    big: list[list[int]] = [[], []]  # each player's recent scores, White's view
    level: list[list[int]] = [[], []]
    while True:
        outcome = game.outcome()
        if outcome is not None:
            return outcome.score[0], outcome.result_text, game.ply
        if game.ply >= max_plies:
            return 0.5, f"draw at the {max_plies}-ply cap", game.ply
        side = game.side_to_move
        choice = players[side].choose(game)
        game.play(choice.move, check_marks=False)
        record.append(choice.move)
        if adjudicate and choice.score is not None:
            view = choice.score if side == 0 else -choice.score
            big[side] = [*big[side][-(ADJUDICATE_MOVES - 1) :], view]
            for sign in (1, -1):
                if all(
                    len(b) == ADJUDICATE_MOVES and all(sign * s >= adjudicate_cp for s in b)
                    for b in big
                ):
                    who = "white" if sign > 0 else "black"
                    return (1.0 if sign > 0 else 0.0), f"{who} wins (adjudicated)", game.ply
        if adjudicate_draws and choice.score is not None:
            level[side] = [*level[side][-(DRAW_MOVES - 1) :], choice.score]
            if game.ply >= DRAW_FROM_PLY and all(
                len(s) == DRAW_MOVES and all(abs(x) <= DRAW_CP for x in s) for s in level
            ):
                return 0.5, "draw (adjudicated)", game.ply


def random_opening(variant: Variant, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    game = Game(variant)
    out = []
    for _ in range(plies):
        if game.outcome() is not None:
            break
        pos = game.position
        text = coordinates(pos, rng.choice(pos.legal_codes()))
        game.play(text, check_marks=False)
        out.append(text)
    return out


def match(
    variant: Variant,
    engine: Player,
    opponent: Player,
    games: int,
    *,
    opening_plies: int = 0,
    max_plies: int = 400,
    adjudicate: bool = False,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> MatchResult:
    """`games` games (rounded up to pairs), the engine White in the first of each pair."""
    result = MatchResult(variant.id, opponent.name)
    start = time.monotonic()
    pairs = (games + 1) // 2
    for pair in range(pairs):
        opening = random_opening(variant, opening_plies, seed * 1000 + pair)
        for engine_color in (0, 1):
            white, black = (engine, opponent) if engine_color == 0 else (opponent, engine)
            points, reason, plies = play_game(
                variant, white, black, opening, max_plies=max_plies, adjudicate=adjudicate
            )
            mine = points if engine_color == 0 else 1 - points
            result.games.append(GameResult(mine, reason, plies))
            if progress is not None:
                n = len(result.games)
                progress(f"{variant.id} vs {opponent.name}, game {n}: {mine} ({reason}, {plies})")
    result.seconds = time.monotonic() - start
    return result
