"""An independent, brute-force judge of forced wins, for the search's tests.

It knows nothing of the search: it tries every legal move to the given depth and asks the
rules engine whether the game has ended, and how.
"""

from __future__ import annotations

from rules.position import Position


def _full_win_for(pos: Position, side: int) -> bool:
    outcome = pos.outcome()
    return outcome is not None and outcome.winner == side and outcome.score[side] >= 1


def winning_moves(pos: Position, n: int) -> list[int]:
    """The moves with which the side to move wins (checkmate, royal capture, any full
    win by rule) by its n-th move at the latest, whatever the defence."""
    side = pos.side
    return [c for c in pos.legal_codes() if _wins_after(pos, c, side, n)]


def wins_within(pos: Position, n: int) -> bool:
    side = pos.side
    return any(_wins_after(pos, c, side, n) for c in pos.legal_codes())


def _wins_after(pos: Position, c: int, side: int, n: int) -> bool:
    pos.push_code(c)
    try:
        if _full_win_for(pos, side):
            return True
        if n == 1 or pos.outcome() is not None:
            return False
        if pos.side == side:  # a placement keeps the turn: not used by these tests
            return False
        for reply in pos.legal_codes():
            pos.push_code(reply)
            try:
                if _full_win_for(pos, side):  # a bare King is claimed after the reply
                    continue
                if pos.outcome() is not None:  # the defence ended the game: no win for us
                    return False
                if not wins_within(pos, n - 1):
                    return False
            finally:
                pos.pop_code()
        return True
    finally:
        pos.pop_code()
