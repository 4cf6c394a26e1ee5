"""/settings pieces: a player's board pictures use the piece set they chose (issue 27)."""

from __future__ import annotations

from bot.service import GameService, ManualClock
from bot.service.models import Scene
from bot.service.pictures import RendererPictures
from rules.game import Game
from rules.variant import load_variant
from storage import Storage
from tests.bot.conftest import ANN, BOB


async def test_the_setting_switches_the_pieces_of_the_pictures(
    storage: Storage, clock: ManualClock
) -> None:
    service = GameService(storage, clock=clock, pictures=RendererPictures())
    scene = Scene(Game(load_variant("shogi")).position, 0)
    await storage.players.upsert(ANN.id, ANN.name, clock.now())
    await storage.players.upsert(BOB.id, BOB.name, clock.now())
    await storage.players.set_preferences(ANN.id, clock.now(), piece_set="letters")
    assert await service.piece_set(ANN.id) == "letters"
    assert await service.piece_set(BOB.id) == "traditional"
    assert await service.piece_set(None) == "traditional"
    assert await service.piece_set(999) == "traditional"  # never seen: the default
    ann = await service.render(scene, viewer=ANN.id)
    bob = await service.render(scene, viewer=BOB.id)
    anyone = await service.render(scene)
    assert bob.png == anyone.png and ann.png != bob.png
    assert ann.width == bob.width  # the same board, other pieces
