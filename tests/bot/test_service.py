"""The service layer without Discord: challenges, whole games, refusals and races."""

from __future__ import annotations

import asyncio

import pytest

from bot.replies import refusal
from bot.service import GameService, ManualClock
from bot.service.effects import EffectRunner
from bot.service.errors import ServiceError
from bot.service.picker import MovePicker
from rules import IllegalMoveError
from rules.record import read_record, replay_record
from storage.errors import GameMovedOnError, NotAddressedToYouError, OwnChallengeError
from storage.models import DAY, Termination
from tests.bot.conftest import ANN, BOB, CHANNEL, EVE, GUILD, ROBOT, start_game
from tests.rules.conftest import GAMES, record_moves

THREAD = 5000


async def test_a_whole_patchanka_game_through_the_service(
    service: GameService, effects: EffectRunner
) -> None:
    game_id = await start_game(service, "patchanka")
    players = [ANN, BOB]
    result = None
    for i, text in enumerate(record_moves(GAMES / "patchanka.txt")):
        result = await service.play(channel_id=THREAD, user=players[i % 2], text=text)
        assert result.notation == text
    assert result is not None and result.view.finished
    assert result.view.game.end_detail == "black wins by checkmate"
    assert result.view.game.termination is Termination.RULES
    assert result.view.status == "Black wins by checkmate"
    record = await service.history(channel_id=THREAD)
    replayed = replay_record(read_record(record.text))
    assert replayed.ply == 150
    assert f"# source: Fairy Post game #{game_id}" in record.text
    # Both players get rated, by the effect recorded with the mate.
    assert await service.storage.ratings.game_changes(game_id) == []
    await effects.run_due()
    changes = await service.storage.ratings.game_changes(game_id)
    assert len(changes) == 2
    bob = next(c for c in changes if c.user_id == BOB.id)
    assert bob.rating_after > bob.rating_before
    kinds = [e.kind for e in await service.storage.effects.find(game_id=game_id, limit=1000)]
    assert kinds.count("ratings.apply") == 1 and kinds[-2:] == ["game.ended", "game.replay"]
    assert kinds.count("game.moved") == 149


async def test_challenge_refusals(service: GameService) -> None:
    base = {"guild_id": GUILD, "channel_id": CHANNEL, "challenger": ANN}
    cases = [
        ({"variant": "chess", "opponent": ANN}, "cannot challenge yourself"),
        ({"variant": "chess", "opponent": ROBOT}, "is a bot"),
        ({"variant": "checkers"}, "unknown variant 'checkers'"),
        ({"variant": "chess", "days_per_move": 4}, "must be one of 1, 2, 3, 5, 7, 10, 14"),
        ({"variant": "chess", "color": "green"}, "white, black or random"),
        ({"variant": "chess", "options": "fixed-king"}, "has no option"),
    ]
    for kwargs, fragment in cases:
        with pytest.raises(ServiceError, match=fragment):
            await service.create_challenge(**base, **kwargs)  # type: ignore[arg-type]


async def test_only_the_addressee_accepts_and_only_once(service: GameService) -> None:
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, opponent=BOB, variant="Heavy Shako"
    )
    assert view.variant.name == "Heavy Shako" and view.challenge.clock.move_seconds == 3 * DAY
    with pytest.raises(OwnChallengeError):
        await service.accept_challenge(view.challenge.id, ANN)
    with pytest.raises(NotAddressedToYouError):
        await service.accept_challenge(view.challenge.id, EVE)
    with pytest.raises(ServiceError, match="Bots cannot play"):
        await service.accept_challenge(view.challenge.id, ROBOT)
    game = await service.accept_challenge(view.challenge.id, BOB)
    assert {game.game.white_id, game.game.black_id} == {ANN.id, BOB.id}
    with pytest.raises(Exception, match="no longer open") as info:
        await service.accept_challenge(view.challenge.id, BOB)
    assert "no longer open" in (refusal(info.value) or "")


async def test_open_challenges_and_expiry(service: GameService, clock: ManualClock) -> None:
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
    )
    clock.advance(DAY + 1)
    with pytest.raises(Exception) as info:
        await service.accept_challenge(view.challenge.id, EVE)
    assert refusal(info.value) == "This challenge has expired. Post a new one with /challenge."
    open_view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="grand"
    )
    game = await service.accept_challenge(open_view.challenge.id, EVE)
    assert EVE.id in (game.game.white_id, game.game.black_id)


async def test_declining_and_withdrawing(service: GameService) -> None:
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, opponent=BOB, variant="chess"
    )
    with pytest.raises(NotAddressedToYouError):
        await service.decline_challenge(view.challenge.id, EVE)
    declined = await service.decline_challenge(view.challenge.id, BOB)
    assert declined.challenge.status.value == "declined"
    other = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, variant="chess"
    )
    withdrawn = await service.decline_challenge(other.challenge.id, ANN)
    assert withdrawn.challenge.status.value == "cancelled"


async def test_move_refusals(service: GameService) -> None:
    await start_game(service, "chess")
    with pytest.raises(ServiceError, match="not playing in game"):
        await service.play(channel_id=THREAD, user=EVE, text="e2e4")
    with pytest.raises(ServiceError, match=r"not your turn in game .*Ann is to move"):
        await service.play(channel_id=THREAD, user=BOB, text="e7e5")
    with pytest.raises(IllegalMoveError, match="cannot move from e2 to e5"):
        await service.play(channel_id=THREAD, user=ANN, text="e2e5")
    with pytest.raises(ServiceError, match="no game in this channel"):
        await service.play(channel_id=12345, user=ANN, text="e2e4")
    with pytest.raises(ServiceError, match="no game #999"):
        await service.play(channel_id=12345, user=ANN, text="e2e4", game_id=999)
    result = await service.play(channel_id=12345, user=ANN, text="e2e4", game_id=1)
    assert result.view.status == "Black to move"
    assert result.view.recent_moves == ("1. e2-e4",)


async def test_two_moves_race_and_exactly_one_lands(service: GameService) -> None:
    game_id = await start_game(service, "chess")
    other = GameService(service.storage, clock=service.clock)  # a second process
    results = await asyncio.gather(
        service.play(channel_id=THREAD, user=ANN, text="e2e4"),
        other.play(channel_id=THREAD, user=ANN, text="d2d4"),
        return_exceptions=True,
    )
    landed = [r for r in results if not isinstance(r, BaseException)]
    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(landed) == 1 and len(failed) == 1
    assert isinstance(failed[0], (GameMovedOnError, ServiceError))
    moves = await service.storage.games.moves(game_id)
    assert len(moves) == 1
    # Both services agree on what happened next.
    view = await other.board(channel_id=THREAD, user_id=BOB)
    assert view.game.ply_count == 1


async def test_double_click_in_one_process(service: GameService) -> None:
    await start_game(service, "chess")
    results = await asyncio.gather(
        *(service.play(channel_id=THREAD, user=ANN, text="e2e4") for _ in range(5)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1


async def test_draw_offer_lapses_when_the_offerer_moves(service: GameService) -> None:
    await start_game(service, "chess")
    offer = await service.offer_draw(channel_id=THREAD, user=ANN)
    assert offer.offer is not None and offer.to_id == BOB.id
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    assert await service.storage.draws.pending(1) is None
    offer = await service.offer_draw(channel_id=THREAD, user=BOB)
    ended = await service.offer_draw(channel_id=THREAD, user=ANN)  # accepts Bob's offer
    assert ended.view.finished  # type: ignore[union-attr]
    assert ended.view.game.termination is Termination.AGREEMENT  # type: ignore[union-attr]


async def test_takeback_accepted_restores_the_position(service: GameService) -> None:
    await start_game(service, "chess")
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await service.play(channel_id=THREAD, user=BOB, text="e7e5")
    request = await service.request_takeback(channel_id=THREAD, user=BOB)
    assert request.takeback is not None and request.takeback.plies == 1
    with pytest.raises(ServiceError, match="opponent must answer"):
        await service.answer_takeback(request.takeback.id, BOB, accept=True)
    view = await service.answer_takeback(request.takeback.id, ANN, accept=True)
    assert view.game.ply_count == 1  # type: ignore[union-attr]
    result = await service.play(channel_id=THREAD, user=BOB, text="c7c5")
    assert result.view.recent_moves == ("1. e2-e4", "1... c7-c5")
    archived = await service.storage.games.archived_moves(1)
    assert [m.notation for m in archived] == ["e7-e5"]


async def test_abort_and_resign(service: GameService, effects: EffectRunner) -> None:
    first = await start_game(service, "chess")
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    aborted = await service.abort(channel_id=THREAD, user=BOB)
    assert aborted.view.game.status.value == "aborted"
    await effects.run_due()
    assert await service.storage.ratings.game_changes(first) == []
    await start_game(service, "chess", thread=5001)
    await service.play(channel_id=5001, user=ANN, text="e2e4")
    await service.play(channel_id=5001, user=BOB, text="e7e5")
    with pytest.raises(Exception) as info:
        await service.abort(channel_id=5001, user=ANN)
    assert "before both sides have moved" in (refusal(info.value) or "")
    resigned = await service.resign(channel_id=5001, user=ANN)
    assert (
        resigned.view.status.startswith("Black won by resignation")
        or "resign" in resigned.view.status
    )
    await effects.run_due()
    assert len(await service.storage.ratings.game_changes(resigned.view.game.id)) == 2
    with pytest.raises(ServiceError, match="is over"):
        await service.play(channel_id=5001, user=BOB, text="d7d5")


async def test_autocomplete_lists_legal_moves_by_prefix(service: GameService) -> None:
    await start_game(service, "patchanka")
    all_moves = await service.suggest_moves(channel_id=THREAD, user_id=ANN.id, typed="")
    assert len(all_moves) == 25
    phoenix = await service.suggest_moves(channel_id=THREAD, user_id=ANN.id, typed="Hi2")
    assert {s.value for s in phoenix} == {"Hi2-g4", "Hi2-i1"}
    assert phoenix[0].name.endswith("· Phoenix")
    coords = await service.suggest_moves(channel_id=THREAD, user_id=ANN.id, typed="e3e")
    assert [s.value for s in coords] == ["e3-e4", "e3-e5"]
    assert await service.suggest_moves(channel_id=THREAD, user_id=BOB.id, typed="") == []
    assert await service.suggest_moves(channel_id=THREAD, user_id=EVE.id, typed="") == []


async def test_moves_from_a_square(service: GameService) -> None:
    await start_game(service, "chess")
    found = await service.moves_from(channel_id=THREAD, user_id=ANN.id, square="g1")
    assert found.moves == ("Ng1-f3", "Ng1-h3") and not found.planning
    # Black's Knight during White's turn: the moves it would have, marked as planning.
    ahead = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="g8")
    assert ahead.moves == ("Ng8-f6", "Ng8-h6") and ahead.planning
    assert ahead.view.scene.highlights and ahead.view.scene.selected is not None
    with pytest.raises(ServiceError, match="no piece on e4"):
        await service.moves_from(channel_id=THREAD, user_id=ANN.id, square="e4")
    with pytest.raises(ServiceError, match="not a square"):
        await service.moves_from(channel_id=THREAD, user_id=ANN.id, square="z9")


async def test_my_games_lists_whose_turn(service: GameService) -> None:
    await start_game(service, "chess")
    await start_game(service, "grand", white=BOB, black=ANN, thread=5001)
    mine = await service.my_games(ANN.id)
    assert [(g.variant_name, g.my_turn) for g in mine] == [("Chess", True), ("Grand Chess", False)]


async def test_finished_games_list_their_results(service: GameService) -> None:
    await start_game(service, "chess")
    await service.resign(channel_id=THREAD, user=BOB)
    finished = await service.my_games(ANN.id, finished=True)
    assert [(g.variant_name, g.ending) for g in finished] == [
        ("Chess", "white wins by resignation")
    ]
    assert await service.my_games(ANN.id) == []


async def test_a_shogi_game_as_shogi_players_write_it(service: GameService) -> None:
    """Minishogi through the service: moves typed in Western notation and in Fairy-Stockfish's
    UCI, /moves with a Shogi square, autocomplete of drops, and a promotion choice by the
    Move button, every square named as the game names it."""
    game_id = await start_game(service, "minishogi")
    for user, text, printed in (
        (ANN, "Rx1b", "R1ex1b"),
        (BOB, "Gx1b", "G2ax1b"),
        (ANN, "b1c2", "G4e-3d"),
        (BOB, "Rx5d", "R5ax5d"),
        (ANN, "K-4e", "K5e-4e"),
    ):
        result = await service.play(channel_id=THREAD, user=user, text=text)
        assert result.notation == printed, text
    found = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="5d")
    assert found.square == "5d" and {"R5d-5e=", "R5d-5e+"} <= set(found.moves)
    suggestions = await service.suggest_moves(channel_id=THREAD, user_id=BOB.id, typed="R*")
    assert "R*5e" in {s.value for s in suggestions}
    picker = MovePicker(service)
    pieces = await picker.pieces(game_id=game_id, user_id=BOB.id)
    assert "Rook in hand" in {o.label for o in pieces.options}
    rook = await picker.targets(game_id=game_id, user_id=BOB.id, ply=pieces.ply, origin="a2")
    assert rook.prompt.startswith("Where does the Rook on 5d go?")
    assert "5e (2 choices)" in {o.label for o in rook.options}
    step = await picker.choices(
        game_id=game_id, user_id=BOB.id, ply=pieces.ply, origin="a2", target="a1"
    )
    assert [o.value for o in step.options] == ["R5d-5e=", "R5d-5e+"]
    played = await service.play(channel_id=THREAD, user=BOB, text=step.options[1].value)
    assert played.notation == "R5d-5e+"
