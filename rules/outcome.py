"""How a game ended: the termination, the winner, and the result text of spec §4.8."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

COLOR_NAMES = ("white", "black")


class Termination(Enum):
    CHECKMATE = "checkmate"
    ROYAL_CAPTURE = "royal capture"
    STALEMATE = "stalemate"
    STALEMATE_POINTS = "stalemate on points"
    STALEMATE_WIN = "stalemate loses"
    DROP_MATE = "drop mate"
    BARE_KING = "bare king"
    BARED_WIN = "bare king wins"
    CHECKMATED_WIN = "checkmate wins for the mated"
    CHECK_COUNT = "checks given"
    EXTINCTION = "extinction"
    EXPLOSION = "explosion"
    FORBIDDEN_MATE = "forbidden mate"
    MATE_DRAW = "drawn mate"
    GOAL = "goal zone"
    CASTLING = "castling"
    REPETITION = "repetition"
    REPETITION_LOSS = "repetition loses"
    PERPETUAL_CHECK = "perpetual check"
    MOVE_REPETITION = "repeated move"
    PERPETUAL_CHASE = "perpetual chase"
    BIKJANG = "bikjang"
    PASSES = "both passed"
    MOVE_RULE = "move rule"
    COUNTING = "counting"
    INSUFFICIENT_MATERIAL = "insufficient material"
    AGREEMENT = "agreement"
    RESIGNATION = "resignation"
    TIME = "time"
    ABORTED = "aborted"


BY_RULE = frozenset(
    {
        Termination.CHECKMATE,
        Termination.ROYAL_CAPTURE,
        Termination.STALEMATE,
        Termination.STALEMATE_POINTS,
        Termination.STALEMATE_WIN,
        Termination.DROP_MATE,
        Termination.BARE_KING,
        Termination.BARED_WIN,
        Termination.CHECKMATED_WIN,
        Termination.CHECK_COUNT,
        Termination.EXTINCTION,
        Termination.EXPLOSION,
        Termination.FORBIDDEN_MATE,
        Termination.MATE_DRAW,
        Termination.GOAL,
        Termination.CASTLING,
        Termination.REPETITION,
        Termination.REPETITION_LOSS,
        Termination.PERPETUAL_CHECK,
        Termination.MOVE_REPETITION,
        Termination.PERPETUAL_CHASE,
        Termination.BIKJANG,
        Termination.PASSES,
        Termination.MOVE_RULE,
        Termination.COUNTING,
        Termination.INSUFFICIENT_MATERIAL,
    }
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """`winner` is 0 (White), 1 (Black) or None for a draw. `detail` carries the N of the
    N-move rule and the N of N-check, and 1 when a side won by castling (None: its
    opponent can no longer castle so). A winner of a repetition, the move rule, bikjang,
    both passing or a stalemate won it on material points (Janggi)."""

    termination: Termination
    winner: int | None
    detail: int | None = None

    @property
    def result_text(self) -> str:
        """The verbatim result text used in game records (spec §4.8)."""
        w = COLOR_NAMES[self.winner] if self.winner is not None else ""
        loser = COLOR_NAMES[self.winner ^ 1] if self.winner is not None else ""
        match self.termination:
            case Termination.CHECKMATE:
                return f"{w} wins by checkmate"
            case Termination.ROYAL_CAPTURE:
                return f"{w} wins by capturing the royal piece"
            case Termination.STALEMATE if self.winner is not None:
                return f"{w} wins on points after stalemate"
            case Termination.STALEMATE:
                return "draw by stalemate"
            case Termination.STALEMATE_POINTS:
                return f"{w} stalemates {loser}"
            case Termination.STALEMATE_WIN:
                return f"{w} wins by stalemate"
            case Termination.BARE_KING:
                if self.winner is None:
                    return "draw by baring the king"
                return f"{w} wins by baring the king"
            case Termination.BARED_WIN:
                return f"{w} wins with a bare king"
            case Termination.CHECKMATED_WIN:
                return f"{w} wins by being checkmated"
            case Termination.CHECK_COUNT:
                plural = "" if self.detail == 1 else "s"
                return f"{w} wins by giving {self.detail} check{plural}"
            case Termination.EXTINCTION:
                return f"{w} wins by the extinction rule"
            case Termination.EXPLOSION:
                return f"{w} wins by exploding the king"
            case Termination.MATE_DRAW:
                return "draw by a checkmate without a decisive check"
            case Termination.FORBIDDEN_MATE:
                return f"{w} wins: {loser}'s checkmate was given by a forbidden piece"
            case Termination.GOAL:
                return f"{w} wins by reaching the goal" if w else "draw: both reached the goal"
            case Termination.CASTLING if self.detail:
                return f"{w} wins by castling"
            case Termination.CASTLING:
                return f"{w} wins: {loser} can no longer castle"
            case Termination.REPETITION if self.winner is not None:
                return f"{w} wins on points after repetition"
            case Termination.REPETITION:
                return "draw by repetition"
            case Termination.REPETITION_LOSS:
                return f"{w} wins by repetition"
            case Termination.PERPETUAL_CHECK:
                return f"{w} wins: {loser} gave perpetual check"
            case Termination.DROP_MATE:
                return f"{w} wins: {loser} gave mate with a forbidden drop"
            case Termination.MOVE_REPETITION:
                return f"{w} wins: {loser} repeated a move"
            case Termination.PERPETUAL_CHASE:
                return f"{w} wins: {loser} chased perpetually"
            case Termination.BIKJANG if self.winner is not None:
                return f"{w} wins on points after bikjang"
            case Termination.BIKJANG:
                return "draw by bikjang"
            case Termination.PASSES if self.winner is not None:
                return f"{w} wins on points after both sides passed"
            case Termination.PASSES:
                return "draw: both sides passed"
            case Termination.MOVE_RULE if self.winner is not None:
                return f"{w} wins on points after the {self.detail}-move rule"
            case Termination.MOVE_RULE:
                return f"draw by the {self.detail}-move rule"
            case Termination.COUNTING:
                return "draw by the counting rule"
            case Termination.INSUFFICIENT_MATERIAL:
                return "draw by insufficient material"
            case Termination.AGREEMENT:
                return "draw by agreement"
            case Termination.RESIGNATION:
                return f"{w} wins by resignation"
            case Termination.TIME:
                return f"{w} wins on time"
            case Termination.ABORTED:
                return "aborted"
        raise AssertionError(self.termination)  # pragma: no cover

    @property
    def score(self) -> tuple[float, float]:
        """Points for White and Black (3/5-2/5 for a Bat-game stalemate)."""
        if self.termination is Termination.ABORTED:
            return (0.0, 0.0)
        if self.winner is None:
            return (0.5, 0.5)
        if self.termination is Termination.STALEMATE_POINTS:
            return (0.6, 0.4) if self.winner == 0 else (0.4, 0.6)
        return (1.0, 0.0) if self.winner == 0 else (0.0, 1.0)

    @classmethod
    def from_text(cls, text: str) -> Outcome | None:
        """Parse a result text of spec §4.8; None for `unfinished`, ValueError otherwise."""
        t = " ".join(text.strip().lower().split())
        if t == "unfinished":
            return None
        for winner, name in enumerate(COLOR_NAMES):
            simple = {
                f"{name} wins by checkmate": Termination.CHECKMATE,
                f"{name} wins by capturing the royal piece": Termination.ROYAL_CAPTURE,
                f"{name} stalemates {COLOR_NAMES[winner ^ 1]}": Termination.STALEMATE_POINTS,
                f"{name} wins by stalemate": Termination.STALEMATE_WIN,
                f"{name} wins by baring the king": Termination.BARE_KING,
                f"{name} wins with a bare king": Termination.BARED_WIN,
                f"{name} wins by being checkmated": Termination.CHECKMATED_WIN,
                f"{name} wins by the extinction rule": Termination.EXTINCTION,
                f"{name} wins by exploding the king": Termination.EXPLOSION,
                f"{name} wins: {COLOR_NAMES[winner ^ 1]}'s checkmate was given by a forbidden "
                "piece": Termination.FORBIDDEN_MATE,
                f"{name} wins by reaching the goal": Termination.GOAL,
                f"{name} wins: {COLOR_NAMES[winner ^ 1]} can no longer castle": (
                    Termination.CASTLING
                ),
                f"{name} wins by repetition": Termination.REPETITION_LOSS,
                f"{name} wins: {COLOR_NAMES[winner ^ 1]} gave mate with a forbidden drop": (
                    Termination.DROP_MATE
                ),
                f"{name} wins by resignation": Termination.RESIGNATION,
                f"{name} wins on time": Termination.TIME,
                f"{name} wins: {COLOR_NAMES[winner ^ 1]} gave perpetual check": (
                    Termination.PERPETUAL_CHECK
                ),
                f"{name} wins: {COLOR_NAMES[winner ^ 1]} repeated a move": (
                    Termination.MOVE_REPETITION
                ),
                f"{name} wins: {COLOR_NAMES[winner ^ 1]} chased perpetually": (
                    Termination.PERPETUAL_CHASE
                ),
                f"{name} wins on points after stalemate": Termination.STALEMATE,
                f"{name} wins on points after repetition": Termination.REPETITION,
                f"{name} wins on points after bikjang": Termination.BIKJANG,
                f"{name} wins on points after both sides passed": Termination.PASSES,
            }
            if t in simple:
                return cls(simple[t], winner)
            if t == f"{name} wins by castling":
                return cls(Termination.CASTLING, winner, 1)
            checks = t.removeprefix(f"{name} wins by giving ").removesuffix(" checks")
            checks = checks.removesuffix(" check") if checks == "1 check" else checks
            if t.startswith(f"{name} wins by giving ") and checks.isascii() and checks.isdigit():
                return cls(Termination.CHECK_COUNT, winner, int(checks))
            prefix = f"{name} wins on points after the "
            if t.startswith(prefix) and t.endswith("-move rule"):
                n = t.removeprefix(prefix).removesuffix("-move rule")
                if n.isascii() and n.isdigit():
                    return cls(Termination.MOVE_RULE, winner, int(n))
        draws = {
            "draw by stalemate": Termination.STALEMATE,
            "draw by repetition": Termination.REPETITION,
            "draw by bikjang": Termination.BIKJANG,
            "draw: both sides passed": Termination.PASSES,
            "draw: both reached the goal": Termination.GOAL,
            "draw by insufficient material": Termination.INSUFFICIENT_MATERIAL,
            "draw by the counting rule": Termination.COUNTING,
            "draw by baring the king": Termination.BARE_KING,
            "draw by a checkmate without a decisive check": Termination.MATE_DRAW,
            "draw by agreement": Termination.AGREEMENT,
            "aborted": Termination.ABORTED,
        }
        if t in draws:
            return cls(draws[t], None)
        if t.startswith("draw by the ") and t.endswith("-move rule"):
            n = t.removeprefix("draw by the ").removesuffix("-move rule")
            if n.isascii() and n.isdigit():
                return cls(Termination.MOVE_RULE, None, int(n))
        raise ValueError(f"unknown result {text!r}")
