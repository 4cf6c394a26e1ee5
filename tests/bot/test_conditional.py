"""Conditional moves through the service: lines checked like /move, trees that branch and
converge, privacy, and answers played in the opponent's move's transaction."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.replies import refusal
from bot.service import GameService, ManualClock
from bot.service.conditional import (
    DROPPED,
    ConditionalService,
    Tree,
    check_line,
    position_key,
    split_line,
)
from bot.service.consequences import GameEvent, Notice
from bot.service.effects import EffectRunner
from bot.service.errors import LineStepError, ServiceError
from bot.service.timers import TimerService
from bot.ui.conditional import tree_lines
from rules.game import Game as RulesGame
from storage.conditional import Branch
from storage.models import Color
from tests.bot.conftest import ANN, BOB, EVE, Announced, start_game

THREAD = 5000


@pytest.fixture
def cond(service: GameService) -> ConditionalService:
    return ConditionalService(service)


async def ann_waits(service: GameService, *moves: str) -> int:
    """A chess game Ann (White) vs Bob where Ann has played 1. e4 (and `moves` after it)."""
    game_id = await start_game(service, "chess")
    players = [ANN, BOB]
    for i, text in enumerate(("e4", *moves)):
        await service.play(channel_id=THREAD, user=players[i % 2], text=text)
    return game_id


async def add(cond: ConditionalService, line: str, user: object = ANN) -> list[str]:
    added = await cond.add(channel_id=THREAD, user=user, text=line)  # type: ignore[arg-type]
    return tree_lines(added.tree)


async def refused(cond: ConditionalService, line: str, user: object = ANN) -> str:
    with pytest.raises(Exception) as caught:
        await cond.add(channel_id=THREAD, user=user, text=line)  # type: ignore[arg-type]
    text = refusal(caught.value)
    assert text is not None, caught.value
    return text


# ---------------------------------------------------------------------------- reading lines


def test_lines_split_on_spaces_or_on_commas() -> None:
    assert split_line("e7-e5 Ng1-f3  Nb8-c6 Bf1-b5") == ["e7-e5", "Ng1-f3", "Nb8-c6", "Bf1-b5"]
    assert split_line("1... e5 2. Nf3 Nc6 3.Bb5") == ["e5", "Nf3", "Nc6", "Bb5"]
    assert split_line("e7 e5, g1 f3; b8c6\nBb5") == ["e7 e5", "g1 f3", "b8c6", "Bb5"]
    assert split_line("d7-d5 e4xd5 e.p.") == ["d7-d5", "e4xd5 e.p."]
    for empty in ("", "   ", "1. 2..."):
        with pytest.raises(ServiceError, match="expected move, then your answer"):
            split_line(empty)
    with pytest.raises(ServiceError, match="at most 100"):
        split_line("a6 a3 " * 51)
    with pytest.raises(ServiceError, match=r"`line` is 2,001 characters long \(at most 2,000\)"):
        split_line("a" * 2001)
    with pytest.raises(ServiceError, match="`line` contains a tab"):
        split_line("e5\tNf3")


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_line_or_a_clear_refusal(text: str) -> None:
    """Untrusted input: every text either checks as a line or is refused with a message."""
    start = RulesGame.new("chess")
    start.play("e4")
    try:
        line = check_line(start, Color.WHITE, split_line(text))
    except (ServiceError, ValueError) as exc:
        assert refusal(exc)
    else:
        assert len(line.steps) % 2 == 0 and len(line.branches) == len(line.steps) // 2


# ---------------------------------------------------------------------------- entering


async def test_a_line_is_checked_step_by_step_like_move(
    service: GameService, cond: ConditionalService
) -> None:
    await ann_waits(service)
    assert await add(cond, "e7-e5 Ng1-f3 Nb8-c6 Bf1-b5") == [
        "If 1... e7-e5 → **2. Ng1-f3**",
        "\u2003↳ if 2... Nb8-c6 → **3. Bf1-b5**",
    ]
    # The /move refusal, naming the step and whose move it is.
    text = await refused(cond, "e5 Nf3 Nc6 Bb6")
    assert text.startswith("Step 4 of the line (your answer): `Bb6`: ")
    assert "No Bishop of yours can go to b6" in text
    text = await refused(cond, "Nd7 Nf3")
    assert text.startswith("Step 1 of the line (your opponent's move): `Nd7`: ")
    assert "No Knight of theirs can go to d7" in text
    text = await refused(cond, "e5 Nf3 Nc6 N5")
    assert text.startswith("Step 4 of the line (your answer): `N5`")


async def test_ambiguous_and_incomplete_lines(
    service: GameService, cond: ConditionalService
) -> None:
    # 1. e4 e5 2. Nf3 Nc6 3. d3: two Black Knights reach e7, two White Knights reach d2.
    await ann_waits(service, "e5", "Nf3", "Nc6", "d3")
    text = await refused(cond, "Ne7 Be2")
    assert text == (
        "Step 1 of the line (your opponent's move): `Ne7` fits several moves: which one do "
        "you mean, `Nce7` or `Nge7`?"
    )
    text = await refused(cond, "a6 Nd2")
    assert text == (
        "Step 2 of the line (your answer): `Nd2` fits several moves: which one do you mean, "
        "`Nbd2` or `Nfd2`?"
    )
    text = await refused(cond, "Nge7")
    assert (
        text == "The line ends with your opponent's move (step 1, `Nge7`): add your answer to it."
    )
    text = await refused(cond, "Nge7 Be2 Ng6")
    assert "(step 3, `Ng6`)" in text and "add your answer" in text
    assert await add(cond, "Nge7 Nbd2") == ["If 3... Ng8-e7 → **4. Nb1-d2**"]


async def test_who_may_enter_lines_and_when(service: GameService, cond: ConditionalService) -> None:
    await ann_waits(service)
    text = await refused(cond, "e4 e5", user=BOB)
    assert text.startswith("It is your turn in game #") and "/move" in text
    text = await refused(cond, "e5 Nf3", user=EVE)
    assert "not playing" in text
    with pytest.raises(ServiceError, match="no game in this channel"):
        await cond.add(channel_id=1, user=ANN, text="e5 Nf3")


async def test_a_line_past_the_end_of_the_game_is_refused(
    service: GameService, cond: ConditionalService
) -> None:
    # 1. e4 e5 2. Bc4 Nc6 3. Qh5 and Black to move: if 3... Nf6 then 4. Qxf7 mate.
    await ann_waits(service, "e5", "Bc4", "Nc6", "Qh5")
    line = await cond.add(channel_id=THREAD, user=ANN, text="Nf6 Qxf7")
    assert line.line.ends_game == "white wins by checkmate"
    text = await refused(cond, "Nf6 Qxf7 Ke7 Qe8")
    assert "Step 5" not in text and "Step 3 (`Ke7`): the game would already be over" in text


async def test_two_answers_to_one_move_in_one_position_are_refused(
    service: GameService, cond: ConditionalService
) -> None:
    await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    text = await refused(cond, "e5 Nf3 Nc6 Bc4")
    assert text.startswith("Step 4 (`Bc4`): another of your lines already answers Nb8-c6 with")
    # Entering the same line again changes nothing.
    again = await cond.add(channel_id=THREAD, user=ANN, text="e5 Nf3 Nc6 Bb5")
    assert again.new_branches == 0 and again.tree.count == 2


# ---------------------------------------------------------------------------- trees


async def test_trees_branch_and_converge(service: GameService, cond: ConditionalService) -> None:
    await ann_waits(service)
    await add(cond, "e6 d4 d6 Nc3 Nf6 Nf3")
    await add(cond, "e6 d4 d5 Nc3")
    rows = await add(cond, "d6 d4 e6 Nc3")  # transposes into the first line after 3. Nc3
    assert rows == [
        "If 1... e7-e6 → **2. d2-d4**",
        "\u2003↳ if 2... d7-d6 → **3. Nb1-c3**",
        "\u2003\u2003↳ if 3... Ng8-f6 → **4. Ng1-f3**",
        "\u2003↳ if 2... d7-d5 → **3. Nb1-c3**",
        "If 1... d7-d6 → **2. d2-d4**",
        "\u2003↳ if 2... e7-e6 → **3. Nb1-c3** *(then as above)*",
    ]
    # Converging lines share the position after 3. Nc3: its answers are one set.
    text = await refused(cond, "d6 d4 e6 Nc3 Nf6 e5")
    assert "Step 6 (`e5`): another of your lines already answers Ng8-f6 with Ng1-f3" in text


def test_a_tree_keeps_what_is_reachable() -> None:
    a = Branch("r", "m1", "M1", "a1", "A1", "x")
    b = Branch("x", "m2", "M2", "a2", "A2", "y")
    c = Branch("r", "m3", "M3", "a3", "A3", "z")
    d = Branch("z", "m4", "M4", "a4", "A4", "y")  # converges on y
    e = Branch("y", "m5", "M5", "a5", "A5", "r")  # and back to the root: a cycle
    tree = Tree("r", (a, b, c, d, e))
    assert set(tree.reachable("x").branches) == {b, e, a, c, d}
    assert set(Tree("r", (a, b, c, d)).reachable("z").branches) == {d}
    assert Tree("r", (a, b)).reachable("nowhere").branches == ()
    assert tree.conflict([Branch("r", "m1", "M1", "other", "O", "q")]) == a
    assert tree.conflict([a, Branch("q", "m1", "M1", "other", "O", "q")]) is None


async def test_listing_and_clearing(service: GameService, cond: ConditionalService) -> None:
    game_id = await ann_waits(service)
    (empty,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert empty.count == 0 and empty.opponent_name == "Bob"
    await add(cond, "e5 Nf3 Nc6 Bb5")
    await add(cond, "c5 Nf3")
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert view.count == 3 and view.game.id == game_id and view.variant_name == "Chess"
    # Outside the thread: every game with conditional moves.
    assert [v.game.id for v in await cond.show(channel_id=1, user_id=ANN.id)] == [game_id]
    assert await cond.show(channel_id=1, user_id=BOB.id) == []
    with pytest.raises(ServiceError, match="not playing"):
        await cond.show(channel_id=THREAD, user_id=EVE.id)
    with pytest.raises(ServiceError, match="not playing"):
        await cond.clear(channel_id=THREAD, user=EVE)
    assert (await cond.clear(channel_id=THREAD, user=BOB))[1] == 0
    assert (await cond.clear(channel_id=THREAD, user=ANN))[1] == 3
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert view.count == 0


async def test_a_long_line_stays_readable_on_a_phone(
    service: GameService, cond: ConditionalService
) -> None:
    """15 answers deep: continuations are indented at most four steps (the move numbers tell
    the depth), so every row stays short enough for a phone's width."""
    from bot.ui.conditional import MAX_INDENT, tree_embed

    await ann_waits(service)
    rows = await add(
        cond,
        "a6 a3 a5 a4 b6 b3 b5 b4 c6 c3 c5 c4 d6 d3 g6 g3 g5 h3 h6 f3 f6 h4 e6 Nc3 Ne7 Nge2 "
        "Ng6 Bg2 Nd7 Be3",
    )
    assert len(rows) == 15
    assert rows[1] == "\u2003↳ if 2... a6-a5 → **3. a3-a4**"
    assert rows[-1] == "\u2003" * MAX_INDENT + "↳ if 15... Nb8-d7 → **16. Bc1-e3**"
    assert max(len(r.replace("**", "")) for r in rows) <= 40
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    description = tree_embed(view).description
    assert description is not None and "15 answers waiting for Bob's moves" in description


async def test_autocomplete_follows_the_line(
    service: GameService, cond: ConditionalService
) -> None:
    await ann_waits(service)
    first = await cond.suggest(channel_id=THREAD, user_id=ANN.id, typed="N")
    assert {s.value for s in first} == {"Nb8-a6", "Nb8-c6", "Ng8-f6", "Ng8-h6"}
    second = await cond.suggest(channel_id=THREAD, user_id=ANN.id, typed="e5 Ng")
    assert {s.value for s in second} == {"e5 Ng1-e2", "e5 Ng1-f3", "e5 Ng1-h3"}
    assert second[0].name.endswith("· Knight")
    commas = await cond.suggest(channel_id=THREAD, user_id=ANN.id, typed="e7 e5, g1")
    assert "e7 e5, Ng1-f3" in {s.value for s in commas}
    assert await cond.suggest(channel_id=THREAD, user_id=ANN.id, typed="e5 Qh8 ") == []
    assert await cond.suggest(channel_id=THREAD, user_id=BOB.id, typed="") == []
    assert await cond.suggest(channel_id=THREAD, user_id=EVE.id, typed="") == []


def test_position_keys_are_the_move_hashes() -> None:
    game = RulesGame.new("chess")
    played = game.play("e4")
    assert position_key(game.position) == played.position_hash


def test_line_step_errors_keep_the_move_refusal() -> None:
    game = RulesGame.new("chess")
    game.play("e4")
    with pytest.raises(LineStepError) as caught:
        check_line(game, Color.WHITE, ["e5", "Ke3"])
    assert caught.value.number == 2 and caught.value.mine


# ---------------------------------------------------------------------------- playing them


async def moves_of(service: GameService, game_id: int) -> list[str]:
    return [m.notation for m in await service.storage.games.moves(game_id)]


async def turn_items(service: GameService) -> list[tuple[str, int | None, int | None]]:
    """Every reminder and deadline ahead (a month), in the order they fall."""
    due = await service.storage.timers.due(service.clock.now() + 30 * 86_400)
    return [(d.kind.value, d.user_id, d.ply) for d in due]


async def test_a_match_plays_the_answer_at_once_down_to_depth_three(
    service: GameService,
    cond: ConditionalService,
    effects: EffectRunner,
    announced: Announced,
    clock: ManualClock,
) -> None:
    game_id = await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5 a6 Ba4")
    await add(cond, "e5 Nf3 Nf6 Nxe5")
    await effects.run_due()
    announced.clear()
    result = await service.play(channel_id=THREAD, user=BOB, text="e5")
    assert (result.notation, result.answer) == ("e7-e5", "Ng1-f3")
    assert result.view.game.ply_count == 3 and result.view.game.to_move_id == BOB.id
    assert result.view.last_move == "Ng1-f3" and "2. Ng1-f3" in result.view.recent_moves
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert tree_lines(view) == [
        "If 2... Nb8-c6 → **3. Bf1-b5**",
        "\u2003↳ if 3... a7-a6 → **4. Bb5-a4**",
        "If 2... Ng8-f6 → **3. Nf3xe5**",
    ]
    # Two posts: Bob's move (asking nobody to move), then Ann's answer, marked conditional;
    # and Bob's turn notice (recorded with the move), nobody else's.
    await effects.run_due()
    notices = [e for e in announced if isinstance(e, Notice)]
    assert [(n.user_id, n.game.ply_count, n.reminder) for n in notices] == [(BOB.id, 3, False)]
    posts = [e for e in announced if isinstance(e, GameEvent)]
    assert [(e.kind, e.actor_id, e.notation, e.conditional, e.answered) for e in posts] == [
        ("game.moved", BOB.id, "e7-e5", False, True),
        ("game.moved", ANN.id, "Ng1-f3", True, False),
    ]
    first, second = posts
    assert first.view.recent_moves[-1] == "1... e7-e5" and first.view.status == "White to move"
    assert second.view.status == "Black to move" and second.view.to_move_id == BOB.id
    # Ann is not asked to move in between: only Bob's turn is announced, and his clock runs.
    now = service.clock.now()
    assert await service.storage.timers.due(now) == []
    assert result.view.game.deadline_at == now + 3 * 86_400
    # Nor reminded, ever: every reminder and deadline ahead is Bob's, for ply 3.
    assert await turn_items(service) == [
        ("reminder", BOB.id, 3),
        ("reminder", BOB.id, 3),
        ("timeout", BOB.id, 3),
    ]
    announced.clear()
    result = await service.play(channel_id=THREAD, user=BOB, text="Nc6")
    assert result.answer == "Bf1-b5"
    result = await service.play(channel_id=THREAD, user=BOB, text="a6")
    assert result.answer == "Bb5-a4" and result.view.game.ply_count == 7
    assert {user for _, user, _ in await turn_items(service)} == {BOB.id}
    # Each of Bob's moves posted without asking anyone to move, each answer with its note,
    # down to the third answer.
    await effects.run_due()
    posts = [e for e in announced if isinstance(e, GameEvent)]
    assert [(e.actor_id, e.notation, e.conditional, e.answered) for e in posts] == [
        (BOB.id, "Nb8-c6", False, True),
        (ANN.id, "Bf1-b5", True, False),
        (BOB.id, "a7-a6", False, True),
        (ANN.id, "Bb5-a4", True, False),
    ]
    assert posts[-1].view.recent_moves[-1] == "4. Bb5-a4" and posts[-1].view.to_move_id == BOB.id
    # The notices: Bob's turn (recorded with the move that began it; the one of his
    # earlier turn, over by then, is not sent), then a reminder a day before his deadline;
    # nothing for Ann, whose moves were played for her.
    notices = [(n.user_id, n.reminder) for n in announced if isinstance(n, Notice)]
    assert notices == [(BOB.id, False)]
    announced.clear()
    timers = TimerService(service.storage, service.clock)
    await timers.run_due()
    clock.advance(2 * 86_400 + 60)
    await timers.run_due()
    await effects.run_due()
    notices = [(n.user_id, n.reminder) for n in announced if isinstance(n, Notice)]
    assert notices == [(BOB.id, True)]
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert view.count == 0
    assert await moves_of(service, game_id) == [
        "e2-e4",
        "e7-e5",
        "Ng1-f3",
        "Nb8-c6",
        "Bf1-b5",
        "a7-a6",
        "Bb5-a4",
    ]
    # With no line left, Bob's next move waits for Ann as usual.
    result = await service.play(channel_id=THREAD, user=BOB, text="Nf6")
    assert result.answer is None and result.view.game.to_move_id == ANN.id


async def test_a_move_after_its_deadline_is_lost_on_time_without_an_answer(
    service: GameService, cond: ConditionalService, clock: ManualClock
) -> None:
    """A move after its deadline first settles the timeout: the game is lost on time, and
    no conditional answer is played in it."""
    game_id = await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    deadline = (await service.storage.games.get(game_id)).deadline_at
    assert deadline is not None
    clock.set(deadline)
    with pytest.raises(Exception) as caught:
        await service.play(channel_id=THREAD, user=BOB, text="e5")
    assert "on time" in (refusal(caught.value) or "")
    game = await service.storage.games.get(game_id)
    assert not game.is_active and game.ply_count == 1 and game.result is not None
    assert game.result.value == "1-0"
    assert await moves_of(service, game_id) == ["e2-e4"]
    assert await service.storage.conditional.waiting(game_id) is None


async def test_the_move_buttons_path_plays_the_answer_too(
    service: GameService, cond: ConditionalService
) -> None:
    """The Move button's menus play through `play(at_ply=...)`: the answer comes the same
    way, and a menu opened before it (at Bob's ply) is stale once both moves are in."""
    from bot.service.errors import PositionChangedError

    game_id = await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    result = await service.play(channel_id=THREAD, user=BOB, text="e7e5", at_ply=1)
    assert result.answer == "Ng1-f3" and result.view.game.ply_count == 3
    with pytest.raises(PositionChangedError):
        await service.play(channel_id=THREAD, user=BOB, text="b8c6", at_ply=1)
    result = await service.play(channel_id=THREAD, user=BOB, text="b8c6", at_ply=3)
    assert result.answer == "Bf1-b5"
    assert await moves_of(service, game_id) == [
        "e2-e4",
        "e7-e5",
        "Ng1-f3",
        "Nb8-c6",
        "Bf1-b5",
    ]


async def test_a_move_off_the_tree_drops_every_line(
    service: GameService, cond: ConditionalService
) -> None:
    await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    await add(cond, "c5 Nf3")
    result = await service.play(channel_id=THREAD, user=BOB, text="d5")
    assert result.answer is None and result.view.game.to_move_id == ANN.id
    (view,) = await cond.show(channel_id=THREAD, user_id=ANN.id)
    assert view.count == 0
    # The tree is gone even if the game comes back to the same moves later.
    await service.play(channel_id=THREAD, user=ANN, text="exd5")
    result = await service.play(channel_id=THREAD, user=BOB, text="c5")
    assert result.answer is None


async def test_converging_lines_answer_after_either_order(
    service: GameService, cond: ConditionalService
) -> None:
    await ann_waits(service)
    await add(cond, "e6 d4 d6 Nc3 Nf6 Nf3")
    await add(cond, "d6 d4 e6 Nc3")
    assert (await service.play(channel_id=THREAD, user=BOB, text="d6")).answer == "d2-d4"
    assert (await service.play(channel_id=THREAD, user=BOB, text="e6")).answer == "Nb1-c3"
    # The first line's continuation applies in the position both orders reach.
    assert (await service.play(channel_id=THREAD, user=BOB, text="Nf6")).answer == "Ng1-f3"


async def test_a_conditional_mate_ends_the_game(
    service: GameService, cond: ConditionalService, effects: EffectRunner, announced: Announced
) -> None:
    game_id = await ann_waits(service, "e5", "Bc4", "Nc6", "Qh5")
    await add(cond, "Nf6 Qxf7")
    await effects.run_due()
    announced.clear()
    result = await service.play(channel_id=THREAD, user=BOB, text="Nf6")
    assert result.answer == "Qh5xf7++"
    assert result.view.finished and result.view.status == "White wins by checkmate"
    # Its consequences were recorded with it: Bob's move posted, then Ann's mate, rated.
    await effects.run_due()
    posts = [e for e in announced if isinstance(e, GameEvent)]
    assert [(e.kind, e.actor_id, e.notation, e.conditional, e.answered) for e in posts] == [
        ("game.moved", BOB.id, "Ng8-f6", False, True),
        ("game.ended", ANN.id, "Qh5xf7++", True, False),
    ]
    assert posts[0].view.status == "White to move"  # the board of Bob's move, as it was
    assert len(posts[1].rating_changes) == 2
    assert (await moves_of(service, game_id))[-1] == "Qh5xf7++"
    assert await service.storage.conditional.waiting(game_id) is None
    assert await service.storage.timers.due(service.clock.now() + 30 * 86_400) == []


async def test_a_takeback_drops_the_lines(service: GameService, cond: ConditionalService) -> None:
    game_id = await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    # Bob takes back 1... e5 and Ann's conditional 2. Nf3 with it: the rest is dropped.
    await service.play(channel_id=THREAD, user=BOB, text="e5")
    request = await service.request_takeback(channel_id=THREAD, user=BOB)
    assert request.takeback is not None and request.takeback.plies == 2
    await service.answer_takeback(request.takeback.id, ANN, accept=True)
    assert await service.storage.conditional.waiting(game_id) is None
    result = await service.play(channel_id=THREAD, user=BOB, text="e5")
    assert result.answer is None and result.view.game.to_move_id == ANN.id
    # Ann takes back her own move while her lines wait: they go too.
    await service.play(channel_id=THREAD, user=ANN, text="Nf3")
    await add(cond, "Nc6 Bb5")
    request = await service.request_takeback(channel_id=THREAD, user=ANN)
    assert request.takeback is not None
    await service.answer_takeback(request.takeback.id, BOB, accept=True)
    assert await service.storage.conditional.waiting(game_id) is None


@pytest.mark.parametrize("how", ["draw", "resign", "abort"])
async def test_endings_drop_the_lines(
    service: GameService, cond: ConditionalService, how: str
) -> None:
    game_id = await ann_waits(service)
    await add(cond, "e5 Nf3")
    if how == "draw":
        offer = await service.offer_draw(channel_id=THREAD, user=ANN)
        await service.offer_draw(channel_id=THREAD, user=BOB)  # accepts Ann's offer
        assert offer is not None
    elif how == "resign":
        await service.resign(channel_id=THREAD, user=BOB)
    else:
        await service.abort(channel_id=THREAD, user=BOB)
    assert not (await service.storage.games.get(game_id)).is_active
    assert await service.storage.conditional.waiting(game_id) is None
    with pytest.raises(ServiceError, match="is over"):
        await cond.add(channel_id=THREAD, user=ANN, text="e5 Nf3")


async def test_a_mate_by_the_opponent_drops_the_lines(
    service: GameService, cond: ConditionalService
) -> None:
    """The game ends by the opponent's own move (1. f3 e5 2. g4 Qh4#, which no line can
    answer: it would be refused as past the end): the lines go with the game."""
    game_id = await start_game(service, "chess")
    for user, text in ((ANN, "f3"), (BOB, "e5"), (ANN, "g4")):
        await service.play(channel_id=THREAD, user=user, text=text)
    await add(cond, "Nc6 d3")
    result = await service.play(channel_id=THREAD, user=BOB, text="Qh4")
    assert result.answer is None and result.view.status == "Black wins by checkmate"
    assert await moves_of(service, game_id) == ["f2-f3", "e7-e5", "g2-g4", "Qd8-h4++"]
    assert await service.storage.conditional.waiting(game_id) is None


async def test_lines_survive_a_restart(
    service: GameService, cond: ConditionalService, db_target: str
) -> None:
    from bot.service import ManualClock
    from bot.service.engine import STORAGE_ENGINE
    from storage import Storage

    await ann_waits(service)
    await add(cond, "e5 Nf3 Nc6 Bb5")
    await add(cond, "c5 c3")
    await service.storage.close()
    # A new process: a fresh store, service and caches on the same database.
    reopened = await Storage.open(db_target, engine=STORAGE_ENGINE)
    try:
        again = GameService(reopened, clock=ManualClock())
        (view,) = await ConditionalService(again).show(channel_id=THREAD, user_id=ANN.id)
        assert view.count == 3
        assert (await again.play(channel_id=THREAD, user=BOB, text="c5")).answer == "c2-c3"
    finally:
        await reopened.close()


async def test_nobody_else_sees_the_lines(service: GameService, cond: ConditionalService) -> None:
    """Privacy: nothing another user can ask for shows a line before it is played."""
    game_id = await ann_waits(service)
    await add(cond, "Nc6 Bb5 a6 Ba4")
    secrets = ("Bb5", "b5", "Ba4", "a4", "f1b5", "Nc6", "b8c6")

    def clean(text: str) -> None:
        assert not any(s in text for s in secrets), text

    for user in (BOB, EVE):
        clean((await service.history(channel_id=THREAD)).text)
        board = await service.board(channel_id=THREAD, user_id=user.id)
        clean(" ".join((board.status, *board.recent_moves, board.last_move or "")))
        assert (await cond.show(channel_id=1, user_id=user.id)) == []
        assert (await cond.clear(channel_id=THREAD, user=BOB))[1] == 0
        clean(repr(await service.my_games(user.id)))
    (bobs,) = await cond.show(channel_id=THREAD, user_id=BOB.id)
    assert bobs.count == 0
    with pytest.raises(ServiceError) as caught:
        await cond.show(channel_id=THREAD, user_id=EVE.id)
    clean(refusal(caught.value) or "")
    # Bob's refusals say nothing of Ann's lines either.
    for text in ("Nc7", "Bb5", "e4"):
        with pytest.raises(Exception) as caught:
            await service.play(channel_id=THREAD, user=BOB, text=text)
        assert "conditional" not in (refusal(caught.value) or "")
    # Once played, the moves are the game's, as any move.
    await service.play(channel_id=THREAD, user=BOB, text="Nc6")
    assert "Bf1-b5" in (await service.history(channel_id=THREAD)).text
    assert await service.storage.conditional.waiting(game_id) is not None


async def test_an_answer_that_is_no_longer_legal_is_dropped_with_a_reason(
    service: GameService,
) -> None:
    """It cannot happen through /conditional add; the tree is forged in storage here."""
    from bot.service.conditional import reply_to

    game_id = await ann_waits(service)
    game = await service.storage.games.get(game_id)
    trial = RulesGame.new("chess")
    trial.play("e4")
    root = position_key(trial.position)
    forged = Branch(root, "e7e5", "e7-e5", "e1e3", "Ke1-e3", "x")
    await service.storage.conditional.add(game_id, ANN.id, 1, [forged], 0)
    result = await service.play(channel_id=THREAD, user=BOB, text="e5")
    assert result.answer is None and result.view.game.to_move_id == ANN.id
    assert await service.storage.conditional.waiting(game_id) is None
    # Ann is told privately, by a notice recorded with Bob's move.
    (notice,) = await service.storage.effects.find(game_id=game_id, kind=DROPPED)
    assert notice.payload["user_id"] == ANN.id and notice.queue == f"notices:{game_id}"
    assert str(notice.payload["reason"]).startswith("your answer Ke1-e3 to e7-e5 is not legal")
    # What the hook decided, and why.
    trial.play("e5")
    waiting = await service.storage.conditional.tree(game_id, ANN.id)
    assert waiting.empty
    from storage.conditional import ConditionalTree

    reply = reply_to(ConditionalTree(game_id, ANN.id, (forged,)), game, root, trial)
    assert reply.answer is None and reply.owner_id == ANN.id
    assert reply.dropped.startswith("your answer Ke1-e3 to e7-e5 is not legal in the game")
    stale = Branch("0" * 16, "e7e5", "e7-e5", "g1f3", "Ng1-f3", "x")
    reply = reply_to(ConditionalTree(game_id, ANN.id, (stale,)), game, root, trial)
    assert reply.answer is None and "could be matched" in reply.dropped
