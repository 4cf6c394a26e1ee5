"""A random setup (`[setup.random]`, Fischer Random) through the service: the array is drawn
once when the challenge is accepted, stored with the game as its option `setup-<letters>`,
shown in the game's post, and kept by every replay and by the game's record."""

from __future__ import annotations

import random

from bot.service import GameService
from bot.ui.embeds import game_embed
from rules import shuffle
from rules.record import read_record, replay_record
from rules.variant import load_variant
from tests.bot.conftest import ANN, BOB, start_game

THREAD = 5000


async def test_the_array_is_drawn_at_acceptance_and_pinned_to_the_game(
    service: GameService,
) -> None:
    service.variants.rng = random.Random(7)
    option = shuffle.draw_option(load_variant("fischerandom"), random.Random(7))
    assert option is not None
    array = option.removeprefix("setup-").upper()
    game_id = await start_game(service, "fischerandom")
    game = await service.storage.games.get(game_id)
    assert option in game.options
    assert game.position_text.startswith(f"{array.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{array} ")

    view = await service.view(game_id)
    assert view.variant.start_array == array
    fields = {f.name: f.value for f in game_embed(view).fields}
    assert fields["Starting array"] == f"`{array}`"

    # The game goes on from its own array, also when its variant is loaded afresh.
    result = await service.play(channel_id=THREAD, user=ANN, text="a2a3")
    assert result.notation
    await service.play(channel_id=THREAD, user=BOB, text="h7h6")
    again = await service.variants.for_game(await service.storage.games.get(game_id))
    assert shuffle.pinned_array(again) == array
    record = await service.history(channel_id=THREAD)
    replayed = replay_record(read_record(record.text))
    assert replayed.ply == 2
    assert replayed.position_text.split("/")[-1].startswith(array)


async def test_each_game_draws_its_own_array(service: GameService) -> None:
    service.variants.rng = random.Random(11)
    arrays = set()
    for i in range(6):
        game_id = await start_game(service, "fischerandom", thread=6000 + i)
        game = await service.storage.games.get(game_id)
        arrays |= {o for o in game.options if o.startswith("setup-")}
    assert len(arrays) > 1


async def test_games_without_a_random_setup_keep_their_options(service: GameService) -> None:
    game_id = await start_game(service, "chess")
    game = await service.storage.games.get(game_id)
    assert game.options == ()
    assert (await service.view(game_id)).variant.start_array is None
