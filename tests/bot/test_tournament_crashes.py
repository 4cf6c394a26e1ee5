"""A tournament killed at every boundary of its transitions, on both backends: a game ends,
its result is posted with the standings, the next round is paired (its pairings post, each
game's post and thread), the last result ends the tournament (the winner's post), a player
withdraws. At each boundary the process "dies" (nothing after the point runs; see
`tests/bot/tournament_world.py`), restarts on the same database and carries out what is
left; the end state must equal a run without a crash: the same pairings, results, ratings
once, every post exactly once. (The crash points are the ones
`tests/e2e/test_crash_effects.py` arms in a real process killed by SIGKILL for games' endings;
here the process's death is simulated in-process, which reaches every tournament boundary.)"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from bot.service.models import UserRef
from storage.models import DAY, EffectStatus
from tests.bot.tournament_world import CHANNEL, GUILD, ORGANISER, World, people
from tests.postgres import temporary_schema

ROUND_END = [
    "event.committed:resign",
    "effect.claimed:tournament.result",
    "effect.sent:tournament.result",
    "effect.done:tournament.result",
    "effect.completed:tournament.result",
    "effect.claimed:ratings.apply",
    "effect.done:ratings.apply",
    "effect.sent:game.ended",
    "effect.claimed:tournament.advance",
    "event.committed:round-paired",
    "effect.done:tournament.advance",
    "effect.sent:tournament.round",
    "effect.done:tournament.round",
    "effect.sent:tournament.game",
    "effect.done:tournament.game",
    "effect.sent:game.started",
    "effect.done:game.started",
]
LAST_RESULT = [
    "event.committed:timeout",
    "effect.sent:tournament.result",
    "effect.claimed:tournament.advance",
    "event.committed:tournament-finish",
    "effect.done:tournament.advance",
    "effect.claimed:tournament.final",
    "effect.sent:tournament.final",
    "effect.done:tournament.final",
]
WITHDRAWAL = [
    "event.committed:withdraw",
    "effect.sent:game.ended",
    "effect.sent:tournament.withdrawal",
    "effect.done:tournament.withdrawal",
    "event.committed:tournament-finish",
    "effect.sent:tournament.final",
]
BOUNDARIES = (
    [("round-end", b) for b in ROUND_END]
    + [("last-result", b) for b in LAST_RESULT]
    + [("withdrawal", b) for b in WITHDRAWAL]
)
ON_POSTGRES = {
    ("round-end", "event.committed:resign"),
    ("round-end", "event.committed:round-paired"),
    ("round-end", "effect.sent:tournament.game"),
    ("last-result", "event.committed:tournament-finish"),
    ("withdrawal", "event.committed:withdraw"),
}
"""Every boundary runs on SQLite; these also on PostgreSQL (the transitions' SQL is the
same, and the storage suite runs all of it on both)."""
CASES = [("sqlite", p, b) for p, b in BOUNDARIES] + [
    ("postgresql", p, b) for p, b in BOUNDARIES if (p, b) in ON_POSTGRES
]

_reference: dict[str, dict[str, object]] = {}


async def play(world: World, phase: str, boundary: str | None) -> dict[str, object]:
    """A Swiss of four players in two rounds; `boundary` is armed for the phase's event."""
    await world.open()

    def do(action: Callable[[], Coroutine[Any, Any, object]]) -> Coroutine[Any, Any, None]:
        return world.do(action)

    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Crash Cup",
        variant="chess", format="swiss", rounds=2, days_per_move=3,
    )  # fmt: skip
    tid = view.tournament.id
    for p in people(4):
        await world.tournaments.join(tid, p)
    await do(lambda: world.tournaments.start(tid))

    async def resign_black(game_id: int) -> None:
        game = await world.storage.games.get(game_id)
        await world.games.resign(channel_id=0, user=UserRef(game.black_id, "b"), game_id=game_id)

    first, second = await world.running_games(tid)
    await do(lambda: resign_black(first))
    if phase == "round-end":
        world.crash_at(boundary)
    await do(lambda: resign_black(second))  # round 1 is over: round 2 is paired

    third, fourth = await world.running_games(tid)
    await do(lambda: resign_black(third))
    if phase == "withdrawal":
        world.crash_at(boundary)
        game = await world.storage.games.get(fourth)
        quitter = UserRef(game.white_id, "w")
        await do(lambda: world.tournaments.withdraw(tid, quitter))
    else:
        if phase == "last-result":
            world.crash_at(boundary)
        world.clock.advance(3 * DAY)  # the last game is lost on time
        await do(world.timers.run_due)
    await world.settle()
    if boundary is not None:
        assert world.killed_at == [boundary], f"the process never reached {boundary}"
    statuses = await world.effects_by_status()
    assert statuses[EffectStatus.PENDING] == 0 and statuses[EffectStatus.FAILED] == 0
    outcome = await world.outcome(tid)
    await world.close()
    return outcome


@pytest.mark.parametrize(
    ("backend", "phase", "boundary"), CASES, ids=[f"{d}-{p}:{b}" for d, p, b in CASES]
)
async def test_a_kill_at_any_boundary_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, phase: str, boundary: str
) -> None:
    if backend == "postgresql":
        async with temporary_schema() as url:
            await killed_at(url, tmp_path, monkeypatch, phase, boundary)
    else:
        await killed_at(str(tmp_path / "db.sqlite3"), tmp_path, monkeypatch, phase, boundary)


async def killed_at(
    db_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, phase: str, boundary: str
) -> None:
    if phase not in _reference:
        reference = World(str(tmp_path / "reference.sqlite3"))
        _reference[phase] = await play(reference, phase, None)
    expected = _reference[phase]
    posts = expected["posts"]
    assert posts and set(posts.values()) == {1}  # type: ignore[attr-defined]

    world = World(db_target)
    world.install_crashes(monkeypatch)
    got = await play(world, phase, boundary)
    assert world.restarts == 1
    for key, value in expected.items():
        assert got[key] == value, f"{phase}, killed at {boundary}: {key} differs"
    # A post accepted just before the kill was sent again with the same nonce and Discord
    # handed back the first message.
    assert world.discord.repeats == (1 if boundary.startswith("effect.sent:") else 0)
