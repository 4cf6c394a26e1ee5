"""A server's variant that Black opens (`[setup] first = "black"`), through the service: the
game starts on Black's turn, the post says so, the board and the record number the moves
from `1...`, and the engine playing Black moves at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.announce import content
from bot.service import GameService
from bot.service.consequences import STARTED, GameEvent
from bot.service.effects import EffectRegistry, EffectRunner
from bot.service.errors import NotYourTurnError
from bot.service.opponent import EngineConfig, OpponentService, install, install_handler
from bot.service.searchpool import SearchPool
from rules.record import read_record, replay_record
from storage.models import Color
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, TINY_CHESS, Announced, start_game
from tests.bot.test_opponent import FAIRY, NODES, engine_effects, new_game
from tests.bot.tournament_world import ORGANISER, World, people

BLACK_FIRST = (
    TINY_CHESS.replace('id = "tiny"', 'id = "tiny-black"')
    .replace('name = "Tiny Chess"', 'name = "Tiny Black"')
    .replace('1 = "R . . . K"', '1 = "R . . . K"\nfirst = "black"')
)
THREAD = 5100


@pytest.fixture(scope="module")
def pool() -> Iterator[SearchPool]:
    searches = SearchPool(1, table_megabytes=1)
    try:
        yield searches
    finally:
        searches.close()


@pytest.fixture
def opponent(service: GameService, pool: SearchPool, effects: EffectRunner) -> OpponentService:
    engine = OpponentService(service, pool, EngineConfig(pause=0, nodes=NODES))
    install(EffectRegistry(service.storage), engine)
    return engine


async def define(service: GameService) -> None:
    await service.variants.define(
        GUILD, ANN, can_manage=False, filename="tiny-black.toml", data=BLACK_FIRST.encode()
    )


async def test_black_opens_the_game_and_the_record_counts_from_one_dots(
    service: GameService, effects: EffectRunner, announced: Announced
) -> None:
    await define(service)
    game_id = await start_game(service, "tiny-black", white=ANN, black=BOB, thread=THREAD)
    game = await service.storage.games.get(game_id)
    assert game.turn is Color.BLACK and game.to_move_id == BOB.id
    board = await service.board(channel_id=THREAD, user_id=BOB.id)
    assert board.status == "Black to move"
    assert board.scene.perspective == 1  # the board faces the player to move
    await effects.run_due()
    started = [e for e in announced if isinstance(e, GameEvent) and e.kind == STARTED]
    assert len(started) == 1 and "Black moves first." in content(started[0])
    with pytest.raises(NotYourTurnError):
        await service.play(channel_id=THREAD, user=ANN, text="a2-a3")
    await service.play(channel_id=THREAD, user=BOB, text="a4-a3")
    game = await service.storage.games.get(game_id)
    assert game.turn is Color.WHITE and game.to_move_id == ANN.id and game.ply_count == 1
    await service.play(channel_id=THREAD, user=ANN, text="b2-b3")
    record = await service.history(channel_id=THREAD)
    assert "1... a4-a3\n2. b2-b3\n" in record.text
    assert replay_record(read_record(record.text, BLACK_FIRST)).ply == 2


async def test_the_engine_playing_black_moves_first(
    service: GameService, opponent: OpponentService
) -> None:
    await define(service)
    game_id = await new_game(opponent, "white", variant="tiny-black")
    game = await service.storage.games.get(game_id)
    assert (game.white_id, game.black_id) == (ANN.id, FAIRY.id)
    assert game.turn is Color.BLACK and game.engine_to_move
    assert len(await engine_effects(opponent, game_id)) == 1
    registry = EffectRegistry(opponent.storage)
    install_handler(registry, opponent)
    runner = EffectRunner(registry, service.clock, owner="engine", batch=1)
    assert await runner.run_due() == 1
    game = await service.storage.games.get(game_id)
    assert game.ply_count == 1 and game.to_move_id == ANN.id


async def test_a_tournament_game_starts_on_blacks_turn(db_target: str) -> None:
    world = World(db_target)
    await world.open()
    await world.games.variants.define(
        GUILD, ORGANISER, can_manage=True, filename="tiny-black.toml", data=BLACK_FIRST.encode()
    )
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Black Cup",
        variant="tiny-black", format="round-robin", round_by_round=True,
    )  # fmt: skip
    tid = view.tournament.id
    for p in people(2):
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    await world.runner.run_due()
    (game_id,) = await world.running_games(tid)
    game = await world.storage.games.get(game_id)
    assert game.turn is Color.BLACK and game.to_move_id == game.black_id
    await world.close()
