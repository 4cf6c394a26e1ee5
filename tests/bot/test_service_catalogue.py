"""A whole game of every variant family through the service: challenged, accepted, played
to its end by the two players, and exported as a record that replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import GameService
from bot.service.effects import EffectRunner
from rules.record import read_record, replay_record
from tests.bot.conftest import ANN, BOB, start_game
from tests.rules.conftest import GAMES

RECORDS = sorted(
    [*GAMES.glob("*.txt"), *(Path(__file__).parents[1] / "rules" / "games").glob("*.txt")]
)
FAMILIES = {
    "chess": "chess",
    "patchanka": "Cazaux",
    "heavy-shako": "Cazaux",
    "bigorra": "Cazaux",
    "timurid-babur": "Timurid",
    "frog-gryphon": "Florea",
    "missing-bat-zebra": "Bat",
    "patricia": "Patricia",
    "grand": "Grand",
}


def test_every_family_has_a_recorded_game() -> None:
    variants = {read_record(p.read_text()).variant for p in RECORDS}
    assert set(FAMILIES.values()) <= {FAMILIES.get(v, v) for v in variants}


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
async def test_a_recorded_game_through_the_service(
    path: Path, service: GameService, effects: EffectRunner
) -> None:
    record = read_record(path.read_text())
    game_id = await start_game(
        service, record.variant, options=",".join(record.options), rated=True
    )
    players = {0: ANN, 1: BOB}
    replay = replay_record(record)  # who moves when (placements keep the turn)
    sides = []
    probe = type(replay)(replay.variant)
    for played in replay.history:
        sides.append(probe.position.side)
        probe.play_move(played.move)
    result = None
    for index, (ply, side) in enumerate(zip(record.plies, sides, strict=True)):
        result = await service.play(channel_id=5000, user=players[side], text=ply.text)
        assert result.notation == replay.history[index].notation
    assert result is not None
    view = result.view
    expected = replay.outcome()
    if expected is None:
        assert not view.finished
    else:
        assert view.finished and view.game.end_detail == expected.result_text
        await effects.run_due()
        assert len(await service.storage.ratings.game_changes(game_id)) == 2
    exported = await service.history(channel_id=5000)
    again = replay_record(read_record(exported.text))
    assert [p.notation for p in again.history] == [p.notation for p in replay.history]
    assert f"game #{game_id}" in exported.text
