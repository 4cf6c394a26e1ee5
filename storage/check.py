"""Health check: SQLite's own integrity check, then every active game replayed.

Read-only: problems are reported, never repaired, so an operator sees them before anything
changes. (Stale caches after an engine upgrade are rebuilt by `Games.get` when loaded.)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from storage.engine import Engine, replay_game
from storage.store import Storage


@dataclass(frozen=True, slots=True)
class GameProblem:
    game_id: int
    problem: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    schema_version: int
    integrity: tuple[str, ...]
    """`("ok",)` when SQLite finds nothing wrong."""
    foreign_key_problems: int
    engine_version: str
    games_checked: int
    problems: tuple[GameProblem, ...]

    @property
    def ok(self) -> bool:
        return self.integrity == ("ok",) and not self.foreign_key_problems and not self.problems

    def lines(self) -> list[str]:
        """The report as the CLI prints it."""
        out = [
            f"schema version: {self.schema_version}",
            f"integrity check: {'; '.join(self.integrity)}",
            f"foreign key problems: {self.foreign_key_problems}",
            f"games replayed with rules engine {self.engine_version}: {self.games_checked}",
        ]
        out += [f"game {p.game_id}: {p.problem}" for p in self.problems]
        out.append("all good" if self.ok else "PROBLEMS FOUND")
        return out


async def check_database(
    storage: Storage, engine: Engine, *, all_games: bool = False
) -> CheckReport:
    """Runs the integrity check and replays every active game (every game with
    `all_games`), comparing the replay with the cached position and the move numbering."""
    integrity = tuple(await storage.integrity_check())
    fk_problems = len(await storage.foreign_key_check())
    ids = await (storage.games.list_all_ids() if all_games else storage.games.list_active_ids())
    problems: list[GameProblem] = []
    for game_id in ids:
        game, moves = await storage.games.get_with_moves(game_id, verify=False)
        plies = [m.ply for m in moves]
        if plies != list(range(1, len(plies) + 1)) or len(plies) != game.ply_count:
            problems.append(
                GameProblem(
                    game_id,
                    f"the move list has plies {_ranges(plies)} but the game has "
                    f"{game.ply_count} moves",
                )
            )
            continue
        definition = await storage.variants.definition(game.definition_digest)
        try:
            text = await asyncio.to_thread(
                replay_game, engine, game, [m.coordinate for m in moves], definition
            )
        except ValueError as exc:
            problems.append(GameProblem(game_id, f"does not replay: {exc}"))
            continue
        if text != game.position_text:
            problems.append(
                GameProblem(
                    game_id,
                    f"the cached position (engine {game.engine_version}) differs from the replay",
                )
            )
    return CheckReport(
        schema_version=await storage.schema_version(),
        integrity=integrity,
        foreign_key_problems=fk_problems,
        engine_version=engine.version,
        games_checked=len(ids),
        problems=tuple(problems),
    )


def _ranges(plies: list[int]) -> str:
    if not plies:
        return "none"
    parts: list[str] = []
    start = prev = plies[0]
    for ply in [*plies[1:], None]:
        if ply is not None and ply == prev + 1:
            prev = ply
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if ply is not None:
            start = prev = ply
    return ", ".join(parts)
