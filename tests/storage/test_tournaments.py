"""Tournaments in storage, on both backends: every transition is one guarded transaction that
emits its event, so the effects it sets off are recorded with it (never paired twice, never
a withdrawal without its resignations); and the upgrade from the table of owed posts."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from storage import Storage
from storage.db import connect
from storage.errors import ConflictError, RefusedError
from storage.migrate import migrate
from storage.models import (
    DAY,
    Clock,
    EventKind,
    GameStatus,
    NewBoard,
    NewEffect,
    NewGame,
    NewTournament,
    Result,
    StorageEvent,
    Termination,
    Tournament,
)
from tests.storage.conftest import CHANNEL, GUILD, T0, play
from tests.storage.fakes import FAKE_ENGINE, start_text

P1, P2, P3, P4 = 4001, 4002, 4003, 4004
ORGANISER = 4000


def record_everything(event: StorageEvent) -> Iterable[NewEffect]:
    """One effect per event, naming it (and its game, tournament and round)."""
    payload: dict[str, object] = {"event": event.kind.value}
    if event.tournament is not None:
        payload["tournament"] = event.tournament.id
    if event.round is not None:
        payload["round"] = event.round
    if event.part_of is not None:
        payload["part_of"] = event.part_of.value
    if event.games:
        payload["games"] = list(event.games)
    yield NewEffect("seen", payload, event.game.id if event.game else None)


@pytest.fixture
def rules(store: Storage) -> Storage:
    for kind in EventKind:
        store.effects.rules.on(kind, record_everything)
    return store


async def seen(store: Storage) -> list[tuple[dict[str, object], int | None]]:
    return [(dict(e.payload), e.game_id) for e in await store.effects.find(kind="seen")]


async def signed_up(
    store: Storage, players: Iterable[int], format: str = "swiss", **kw: object
) -> Tournament:
    t = await store.tournaments.create(
        NewTournament(
            guild_id=GUILD,
            channel_id=CHANNEL,
            name="Cup",
            variant_id="chess",
            format=format,
            created_by=ORGANISER,
            **kw,  # type: ignore[arg-type]
        ),
        T0,
    )
    for i, user in enumerate(players):
        await store.tournaments.join(t.id, user, T0 + i)
    return t


def board(t: Tournament, round_no: int, no: int, white: int, black: int) -> NewBoard:
    game = NewGame(
        guild_id=GUILD,
        channel_id=CHANNEL,
        white_id=white,
        black_id=black,
        variant_id="chess",
        start_position=start_text(),
        clock=Clock(3 * DAY, 0),
        tournament_id=t.id,
    )
    return NewBoard(round_no, no, white, black, game=game)


async def started(store: Storage, **kw: object) -> Tournament:
    t = await signed_up(store, [P1, P2, P3, P4], **kw)
    numbers = {P1: 1, P2: 2, P3: 3, P4: 4}
    boards = [board(t, 1, 1, P1, P3), board(t, 1, 2, P4, P2)]
    deadline = T0 + 7 * DAY if kw.get("round_seconds") else None
    return await store.tournaments.start(t.id, numbers, 2, boards, T0 + 10, deadline)


async def test_a_round_commits_with_its_games_and_its_events(rules: Storage) -> None:
    store = rules
    t = await started(store)
    boards = await store.tournaments.pairings(t.id)
    games = [b.game for b in boards]
    assert all(g is not None and g.tournament_id == t.id for g in games)
    events = await seen(store)
    assert [p["event"] for p, _ in events] == [
        "tournament_created",
        "tournament_started",
        "game_started",
        "notice_due",  # White's turn notice, an effect of the game's creation
        "game_started",
        "notice_due",
        "round_paired",
    ]
    assert events[-1][0]["round"] == 1
    assert [gid for p, gid in events if p["event"] == "game_started"] == [b.game_id for b in boards]
    board_of = await store.tournaments.board_of(boards[1].game_id or 0)
    assert board_of is not None and (board_of.round, board_of.board) == (1, 2)

    # Round 2 once: the second attempt (a restart, another process) changes nothing.
    again = [board(t, 2, 1, P1, P2), board(t, 2, 2, P3, P4)]
    await store.tournaments.next_round(t.id, 1, again, T0 + DAY, None)
    with pytest.raises(ConflictError):
        await store.tournaments.next_round(t.id, 1, again, T0 + DAY, None)
    assert len(await store.tournaments.pairings(t.id)) == 4
    assert sum(p["event"] == "round_paired" for p, _ in await seen(store)) == 2
    with pytest.raises(ConflictError):
        await store.tournaments.start(t.id, {}, 2, [], T0, None)


async def test_deadlines_win_over_a_withdrawal(rules: Storage) -> None:
    store = rules
    t = await signed_up(store, [P1, P2, P3], format="round-robin", all_at_once=False)
    t = await store.tournaments.start(
        t.id,
        {P1: 1, P2: 2, P3: 3},
        3,
        [board(t, 1, 1, P1, P2)],
        T0,
        None,
    )
    # Round 2 (stored by hand here): P3 against P1 and a board P2 v P3 without a game yet.
    await store.tournaments.next_round(
        t.id, 1, [board(t, 2, 1, P3, P1), NewBoard(2, 2, P2, P3)], T0 + 1, None
    )
    (first, second, _unplayed) = await store.tournaments.pairings(t.id)
    assert first.game is not None and second.game is not None
    # P1's first game is past its deadline: that is a loss on time, not a resignation.
    withdrawn, resigned = await store.tournaments.withdraw(t.id, P1, T0 + 4 * DAY)
    assert resigned == [] and withdrawn.status == "running"
    boards = {(b.round, b.board): b for b in await store.tournaments.pairings(t.id)}
    assert boards[(1, 1)].game is not None
    assert boards[(1, 1)].game.termination is Termination.TIMEOUT
    assert boards[(2, 1)].game is not None
    assert boards[(2, 1)].game.termination is Termination.TIMEOUT  # P3's clock ran out too
    assert (boards[(2, 2)].white_points, boards[(2, 2)].black_points) == (None, None)
    players = {p.user_id: p for p in await store.tournaments.players(t.id)}
    assert players[P1].withdrawn_after == 2
    with pytest.raises(ConflictError):
        await store.tournaments.withdraw(t.id, P1, T0 + 4 * DAY)


async def test_withdrawing_resigns_games_and_scores_boards_still_to_play(rules: Storage) -> None:
    store = rules
    t = await signed_up(store, [P1, P2, P3], format="round-robin", all_at_once=False)
    t = await store.tournaments.start(
        t.id, {P1: 1, P2: 2, P3: 3}, 3, [board(t, 1, 1, P1, P2), NewBoard(1, 2, P3, P1)], T0, None
    )
    game_id = (await store.tournaments.pairings(t.id))[0].game_id
    assert game_id is not None
    await play(store, await store.games.get(game_id), ["e2e4"], T0 + 60)
    _, resigned = await store.tournaments.withdraw(t.id, P1, T0 + 120)
    assert resigned == [game_id]
    game = await store.games.get(game_id)
    assert (game.status, game.result, game.termination) == (
        GameStatus.FINISHED,
        Result.BLACK_WINS,
        Termination.RESIGNATION,
    )
    assert game.end_detail == "black wins: white withdrew from the tournament"
    rest = (await store.tournaments.pairings(t.id))[1]
    assert (rest.white_points, rest.black_points) == ("1", "0")
    events = [p for p, _ in await seen(store)][-2:]
    assert events == [
        {"event": "game_ended", "part_of": "player_withdrew"},
        {"event": "player_withdrew", "tournament": t.id, "games": [game_id]},
    ]


async def test_a_rounds_deadline_draws_its_games_unrated(rules: Storage) -> None:
    store = rules
    t = await started(store, round_seconds=7 * DAY)
    one, two = await store.tournaments.pairings(t.id)
    assert one.game_id is not None and two.game_id is not None
    await store.games.resign(one.game_id, P1, T0 + DAY)
    # Moves keep the other game's clock going until the round's deadline.
    game = await play(store, await store.games.get(two.game_id), ["e2e4", "e7e5"], T0 + 2 * DAY)
    game = await play(store, game, ["g1f3", "b8c6"], T0 + 5 * DAY)
    assert await store.tournaments.end_round(t.id, 1, T0 + 7 * DAY - 1) == []
    assert await store.tournaments.end_round(t.id, 2, T0 + 7 * DAY) == []
    assert await store.tournaments.end_round(t.id, 1, T0 + 7 * DAY + 10) == [two.game_id]
    assert await store.tournaments.end_round(t.id, 1, T0 + 7 * DAY + 20) == []
    drawn = await store.games.get(two.game_id)
    assert (drawn.result, drawn.termination, drawn.rated) == (
        Result.DRAW,
        Termination.ADJUDICATION,
        False,
    )
    assert drawn.end_detail == "draw: the deadline of round 1 passed"
    assert [p for p, _ in await seen(store)][-2:] == [
        {"event": "game_ended", "part_of": "round_deadline_passed"},
        {
            "event": "round_deadline_passed",
            "tournament": t.id,
            "round": 1,
            "games": [two.game_id],
        },
    ]


async def test_finishing_and_cancelling_happen_once(rules: Storage) -> None:
    store = rules
    t = await started(store)
    assert await store.tournaments.finish(t.id, T0 + DAY, "done")
    assert not await store.tournaments.finish(t.id, T0 + DAY)
    other = await signed_up(store, [P1])
    await store.tournaments.cancel(other.id, T0, "too few")
    with pytest.raises(RefusedError):
        await store.tournaments.cancel(other.id, T0, "again")
    kinds = [p["event"] for p, _ in await seen(store)]
    assert kinds.count("tournament_finished") == 1 and kinds.count("tournament_cancelled") == 1


async def test_upgrade_turns_owed_posts_into_effects(db_target: str) -> None:
    """A database of 0011 whose tournaments owed posts: they become effects (nothing owed is
    lost), with the start time, the round deadline and a look at the running tournament."""
    db = await connect(db_target)
    try:
        await migrate(db, target=11)
        async with db.transaction() as tx:
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) "
                "VALUES (?, 0, 0), (?, 0, 0), (?, 0, 0)",
                (ORGANISER, P1, P2),
            )
            running = await tx.insert(
                "INSERT INTO tournaments (guild_id, channel_id, name, variant_id, format, "
                "rated, max_players, status, current_round, rounds, round_seconds, "
                "round_deadline_at, created_by, created_at, started_at) "
                "VALUES (?, ?, 'Old', 'chess', 'swiss', 1, 8, 'running', 2, 3, ?, ?, ?, ?, ?)",
                (GUILD, CHANNEL, 7 * DAY, T0 + 9 * DAY, ORGANISER, T0, T0 + 10),
            )
            signup = await tx.insert(
                "INSERT INTO tournaments (guild_id, channel_id, name, variant_id, format, "
                "rated, max_players, starts_at, created_by, created_at) "
                "VALUES (?, ?, 'Later', 'chess', 'swiss', 1, 8, ?, ?, ?)",
                (GUILD, CHANNEL, T0 + 5 * DAY, ORGANISER, T0),
            )
            game = await tx.insert(
                "INSERT INTO games (guild_id, channel_id, variant_id, white_id, black_id, "
                "rated, turn, ply_count, position_text, engine_version, move_seconds, "
                "created_at, updated_at) VALUES (?, ?, 'chess', ?, ?, 1, 'white', 0, ?, "
                "'fake-1', ?, ?, ?)",
                (GUILD, CHANNEL, P1, P2, start_text(), 3 * DAY, T0, T0),
            )
            await tx.run(
                "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, "
                "black_id, game_id) VALUES (?, 2, 1, ?, ?, ?)",
                (running, P1, P2, game),
            )
            await tx.run(
                "INSERT INTO tournament_posts (tournament_id, kind, subject, created_at, "
                "done_at) VALUES (?, 'started', 0, ?, ?), (?, 'round', 2, ?, NULL), "
                "(?, 'game', ?, ?, NULL), (?, 'result', ?, ?, NULL)",
                (running, T0, T0, running, T0 + 1, running, game, T0 + 1, running, game, T0 + 2),
            )
    finally:
        await db.close()
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as store:
        assert (await store.games.get(game)).tournament_id == running
        effects = [
            (e.kind, json.loads(json.dumps(dict(e.payload))), e.game_id, e.queue, e.next_attempt_at)
            for e in await store.effects.find()
        ]
        assert await store.foreign_key_check() == []
    q = f"tournament:{running}"
    assert effects == [
        ("tournament.round", {"tournament_id": running, "round": 2}, None, q, T0 + 1),
        ("tournament.result", {"tournament_id": running}, game, q, T0 + 2),
        ("tournament.game", {}, game, f"game:{game}", T0 + 1),
        ("game.started", {}, game, f"game:{game}", T0 + 1),
        ("tournament.start", {"tournament_id": signup}, None, None, T0 + 5 * DAY),
        ("tournament.deadline", {"tournament_id": running, "round": 2}, None, None, T0 + 9 * DAY),
        (
            "tournament.advance",
            {"tournament_id": running},
            None,
            f"tournament-advance:{running}",
            T0 + 10,
        ),
    ]
