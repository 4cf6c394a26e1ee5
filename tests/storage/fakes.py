"""A stand-in for the rules engine: deterministic position texts from the move list."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from storage.engine import Engine

ILLEGAL = "z0z0"
"""A coordinate move the fake engine rejects, like a real engine rejects an illegal move."""


class FakeIllegalMoveError(ValueError):
    """Subclasses ValueError, as the real engine's errors do."""


def position_after(variant_id: str, options: Sequence[str], moves: Sequence[str]) -> str:
    """The position text, without judging legality (what an older engine once computed)."""
    digest = hashlib.sha256(" ".join(moves).encode()).hexdigest()[:16]
    return f"{variant_id}[{','.join(options)}] after {len(moves)}: {digest}"


def fake_replay(
    variant_id: str,
    options: Sequence[str],
    moves: Sequence[str],
    definition: str | None = None,
) -> str:
    for ply, move in enumerate(moves, start=1):
        if move == ILLEGAL:
            raise FakeIllegalMoveError(f"ply {ply}: {move!r} is illegal")
    if definition is not None:  # a pinned definition: its text decides the variant
        variant_id = f"{variant_id}#{hashlib.sha256(definition.encode()).hexdigest()[:8]}"
    return position_after(variant_id, options, moves)


def start_text(variant_id: str = "chess", options: Sequence[str] = ()) -> str:
    return position_after(variant_id, options, [])


def fake_hash(moves: Sequence[str]) -> str:
    return hashlib.sha256("/".join(moves).encode()).hexdigest()[:16]


FAKE_ENGINE = Engine(version="fake-1", replay=fake_replay)
