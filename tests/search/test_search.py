"""The search: always a legal move, never past its budget, endings scored by the rules."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.game import Game
from rules.notation import coordinates
from rules.outcome import Outcome, Termination
from rules.position import Position
from rules.postext import parse_position
from rules.variant import variant_ids
from search.evaluate import TEMPO, eval_tables, evaluate
from search.levels import LEVELS, level
from search.play import best_move, history_hashes, think
from search.searcher import MATE, STALEMATE_POINTS, Limits, Searcher, mate_in, outcome_score
from search.tt import EXACT, LOWER, UPPER, TranspositionTable, pack, unpack


def random_game(variant: str, plies: int, seed: int) -> Game:
    """A game of `plies` random moves (fewer if it ends first)."""
    rng = random.Random(seed)
    game = Game.new(variant)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        codes = game.position.legal_codes()
        game.play_move(game.position.to_move(rng.choice(codes)))
    return game


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    variant=st.sampled_from(variant_ids()),
    plies=st.integers(min_value=0, max_value=80),
    seed=st.integers(min_value=0, max_value=2**32),
    budget=st.integers(min_value=1, max_value=3_000),
)
def test_a_legal_move_within_the_node_budget(
    variant: str, plies: int, seed: int, budget: int
) -> None:
    """Random positions of every variant and any budget, however small: the move is legal
    and the search never counts more nodes than it was given."""
    game = random_game(variant, plies, seed)
    result = think(game, Limits(nodes=budget))
    legal = game.position.legal_codes() if game.outcome() is None else []
    if not legal:
        assert result.move is None
    else:
        assert result.move in legal
        assert all(isinstance(c, int) for c in result.pv)
    assert result.nodes <= budget


def test_no_move_in_a_game_both_sides_have_passed() -> None:
    """Janggi ends when both sides pass in a row: the search, which plays from a copy of
    the position, gives no move there (hypothesis found janggi, 6 plies, seed 36525712)."""
    game = Game.new("janggi")
    game.play("pass")
    game.play("pass")
    assert game.outcome() is not None
    assert think(game, Limits(nodes=1)).move is None
    assert random_game("janggi", 6, 36525712).outcome() is not None
    assert think(random_game("janggi", 6, 36525712), Limits(nodes=1)).move is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(variant_ids()),
    plies=st.integers(min_value=0, max_value=60),
    seed=st.integers(min_value=0, max_value=2**32),
    level_number=st.sampled_from(sorted(LEVELS)),
)
def test_every_level_plays_a_legal_move(
    variant: str, plies: int, seed: int, level_number: int
) -> None:
    """The move comes back in notation that the rules engine plays, at every level (its
    node budget cut down so the test stays quick)."""
    game = random_game(variant, plies, seed)
    choice = best_move(game, level_number, nodes=1_500, movetime=math.inf, seed=seed)
    if game.outcome() is not None:
        assert choice is None
        return
    assert choice is not None
    assert choice.nodes <= 1_500
    game.play(choice.notation)
    assert game.history[-1].coordinates == choice.coordinates


def test_the_principal_variation_is_a_legal_line() -> None:
    game = random_game("grand", 20, 7)
    result = think(game, Limits(depth=4))
    pos = game.position.copy()
    for c in result.pv:
        assert c in pos.legal_codes()
        pos.push_code(c)


def test_cancelling_stops_the_search_with_a_legal_move() -> None:
    game = random_game("bigorra", 30, 3)
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    result = think(game, Limits(depth=64), should_stop=stop)
    assert result.move in game.position.legal_codes()
    assert result.nodes < 10_000


def _running(searcher: Searcher) -> tuple[int, int, int, int]:
    return (searcher.mg, searcher.eg, searcher.ph, searcher.pk)


def _fresh(searcher: Searcher) -> tuple[int, int, int, int]:
    et = searcher.et
    return (*et.board_terms(searcher.pos), et.pawn_key(searcher.pos))


def test_the_incremental_evaluation_equals_a_fresh_count() -> None:
    """Every variant, random moves made and unmade through the search: the running
    middle-game/ending/phase sums and the pawn-class key always equal a count from
    scratch."""
    rng = random.Random(5)
    for variant in variant_ids():
        searcher = Searcher(Position.start(variant))
        saved = []
        for _ply in range(60):
            codes = searcher.pos.legal_codes()
            if not codes:
                break
            saved.append(_running(searcher))
            searcher._push(rng.choice(codes))
            assert _running(searcher) == _fresh(searcher), variant
        while saved:
            searcher._pop(saved.pop())
            assert _running(searcher) == _fresh(searcher), variant


@pytest.mark.parametrize("variant", variant_ids())
def test_the_start_is_level(variant: str) -> None:
    """Mirrored arrays are worth the same: the start position scores the tempo only."""
    start = Position.start(variant)
    geo = start.t.geo

    def row(sq: int, color: int) -> int:
        return geo.rank_of(sq) if color == 0 else geo.ranks - 1 - geo.rank_of(sq)

    armies = [
        sorted((row(sq, color), pid) for sq, pid in start.variant.army(color)) for color in (0, 1)
    ]
    if armies[0] != armies[1]:
        pytest.skip(
            "the armies differ, or stand on other rows ([setup.black]: Racing Kings' Black "
            "starts on its seventh and eighth rows); see test_the_smaller_army_is_behind"
        )
    assert evaluate(start) == TEMPO


def test_the_smaller_army_is_behind() -> None:
    """Manchu's Red has eight pieces fewer than Black (the Banner instead of Chariots,
    Horses and Cannons): the start scores Red well behind, whatever the tempo."""
    assert evaluate(Position.start("manchu")) < -5 * TEMPO


def test_a_piece_up_scores_about_its_value() -> None:
    level_pos = parse_position("chess", "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1")
    rook_up = parse_position("chess", "4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1")
    gain = evaluate(rook_up) - evaluate(level_pos)
    assert 400 < gain < 700


def test_a_losing_side_takes_a_repetition() -> None:
    """Black, a Rook down, can bring about a position already seen: a draw by repetition
    is worth more than the loss, and the search knows the game's history."""
    game = Game.from_position_text("chess", "4k3/8/8/8/8/8/R7/K7 b - - 0 1")
    first = think(game, Limits(depth=3))
    assert first.score < -300
    assert len(game.position.legal_codes()) == 5
    # Pretend the position after Ke8-d7 was seen before: that move now draws.
    after = game.position.copy()
    target = next(c for c in after.legal_codes() if after.to_move(c).target.name == "d7")
    after.push_code(target)
    searcher = Searcher(game.position, history=[*history_hashes(game), after.hash])
    result = searcher.search(Limits(depth=3))
    assert result.move == target
    assert result.score == 0


def test_the_move_rule_draws() -> None:
    """On the 99th quiet ply the lone King's next move ends the game by the 50-move rule."""
    game = Game.from_position_text("chess", "7k/8/8/8/8/8/6R1/K7 b - - 99 80")
    result = think(game, Limits(depth=3))
    assert result.score == 0


def test_stalemate_on_points_is_a_small_sure_win() -> None:
    outcome = Outcome(Termination.STALEMATE_POINTS, winner=0)
    assert outcome_score(outcome, 0, 3) == STALEMATE_POINTS
    assert outcome_score(outcome, 1, 3) == -STALEMATE_POINTS
    assert outcome_score(Outcome(Termination.CHECKMATE, winner=1), 0, 4) == -MATE + 4
    assert outcome_score(Outcome(Termination.STALEMATE, winner=None), 0, 2) == 0


def test_mate_scores_read_as_moves() -> None:
    assert mate_in(MATE - 1) == 1
    assert mate_in(MATE - 3) == 2
    assert mate_in(-MATE + 2) == -1
    assert mate_in(250) is None


def test_a_mated_side_has_no_move() -> None:
    game = Game.from_position_text("chess", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert game.outcome() is not None
    assert best_move(game, 4) is None
    result = think(game, Limits(depth=2))
    assert result.move is None
    assert result.score == -MATE


def test_the_low_levels_choose_among_near_moves_reproducibly() -> None:
    game = random_game("chess", 6, 11)
    first = best_move(game, 1, movetime=math.inf, seed=42)
    again = best_move(game, 1, movetime=math.inf, seed=42)
    assert first is not None and again is not None
    assert first.notation == again.notation
    seen = {
        choice.notation
        for seed in range(12)
        if (choice := best_move(game, 1, movetime=math.inf, seed=seed)) is not None
    }
    assert len(seen) > 1  # level 1 does not always play the same move


def test_level_bounds() -> None:
    assert level(1).margin > level(4).margin > level(6).margin == 0
    with pytest.raises(ValueError, match="levels run from 1 to 8"):
        level(9)


@given(
    move=st.integers(min_value=0, max_value=(1 << 48) - 1),
    score=st.integers(min_value=-MATE, max_value=MATE),
    depth=st.integers(min_value=0, max_value=127),
    flag=st.sampled_from([EXACT, LOWER, UPPER]),
    key=st.integers(min_value=1, max_value=(1 << 64) - 1),
)
def test_table_entries_round_trip(move: int, score: int, depth: int, flag: int, key: int) -> None:
    assert unpack(pack(score, depth, flag)) == (score, depth, flag)
    table = TranspositionTable(0.01)
    table.store(key, move, score, depth, flag)
    assert table.probe(key) == (move, score, depth, flag)
    assert table.probe(key ^ (1 << 63)) is None


def test_evaluation_tables_are_cached_per_variant() -> None:
    pos = Position.start("grand")
    assert eval_tables(pos.t) is eval_tables(Position.start("grand").t)


def _capture(pos: Position, move: str) -> int:
    return next(c for c in pos.capture_codes() if coordinates(pos, c) == move)


def test_the_exchange_test_reads_the_board_after_the_capture() -> None:
    """A Cannon's screen leaving (the Chariot takes the Horse it stood in front of: the
    Cannon behind can no longer take back) is no loss; a Cannon's capture that becomes the
    screen-less target of the enemy Cannon behind it (it left the line the enemy needed
    as a screen) loses the Cannon for a Soldier."""
    searcher = Searcher(parse_position("xiangqi", "4k4/9/9/9/4h4/9/4R4/9/4c4/3K5 w - - 0 1"))
    value = searcher.et.value
    take_horse = _capture(searcher.pos, "e4e6")
    horse = value[searcher.pos.board[(take_horse >> 8) & 0xFF]]
    assert not searcher._losing(take_horse, horse)
    searcher = Searcher(parse_position("xiangqi", "4k4/9/9/4p4/9/4p4/9/4C4/9/3Kc4 w - - 0 1"))
    take_soldier = _capture(searcher.pos, "e3e7")
    soldier = searcher.et.value[searcher.pos.board[(take_soldier >> 8) & 0xFF]]
    assert searcher._losing(take_soldier, soldier)


@pytest.mark.parametrize(
    "knobs",
    [
        {"LMP_DEPTH": 3},
        {"IIR_DEPTH": 4},
        {"LMP_DEPTH": 3, "IIR_DEPTH": 4},
        {"LMR_HISTORY": True},
        {"QUIESCENCE_TT": False},
        {"COUNTERMOVES": True},
        {"RAZOR_DEPTH": 2},
        {"SEE_PRUNE_DEPTH": 2},
        {"NULL_FLOOR": 1},
        {"IMPROVING": True},
    ],
)
def test_the_pruning_knobs_left_off_still_search_soundly(
    knobs: dict[str, int | bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Late-move pruning, IIR, history-led reductions, countermoves, razoring, shallow
    exchange pruning, the null move's floor and the improving rule are off as shipped (the
    probe found them no better), the quiescence table on, but each kept to be probed again:
    switched the other way, the search still finds the mate the search as shipped finds, wins
    a Queen left hanging and plays legal moves."""
    import search.searcher as searcher_module

    mate = parse_position("chess", "6k1/5p2/6pQ/8/8/8/8/6RK w - - 0 1")
    shipped = mate_in(Searcher(mate).search(Limits(depth=6)).score)
    assert shipped is not None
    for name, value in knobs.items():
        monkeypatch.setattr(searcher_module, name, value)
    assert mate_in(Searcher(mate).search(Limits(depth=6)).score) == shipped
    queen = parse_position(
        "chess", "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 3"
    )
    result = Searcher(queen).search(Limits(nodes=20_000))
    assert result.move is not None and coordinates(queen, result.move) == "c1g5"
    game = Game("chess")
    for _ply in range(12):
        choice = Searcher(game.position, history=history_hashes(game)).search(Limits(nodes=3_000))
        assert choice.move in game.position.legal_codes()
        game.play_move(game.position.to_move(choice.move))


def test_the_null_moves_floor_shows_a_quiet_mate_threat(monkeypatch: pytest.MonkeyPatch) -> None:
    """A null move whose search falls into quiescence sees captures only: a quiet King move
    that sets up mate looks harmless to it. With the floor (`NULL_FLOOR`, off as shipped) the
    reply to the pass is searched a full ply, and a depth-3 search finds the mate in two."""
    import search.searcher as searcher_module

    monkeypatch.setattr(searcher_module, "NULL_FLOOR", 1)
    pos = parse_position(
        "leaping-bat", "16/16/16/10N5/16/16/3Q12/16/1K14/5c10/16/2kD5a6 w - - 0 1 once:wb"
    )
    result = Searcher(pos).search(Limits(depth=3))
    assert result.move is not None and coordinates(pos, result.move) == "b4c3"
    assert mate_in(result.score) == 2


def test_the_quiescence_table_never_hides_a_mate_at_the_horizon() -> None:
    """Past its first ply quiescence stands pat even in check, and writes that score to
    the table; a node in check at the horizon, where every evasion is searched, must not
    take it from there (Black is mated on the back rank here)."""
    mated = parse_position("chess", "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    searcher = Searcher(mated)
    assert searcher.pos.is_check()
    stood = searcher._quiesce(-MATE, MATE, 3, False, 1)  # a deeper ply: stands pat
    assert stood > -MATE // 2
    assert searcher._quiesce(-MATE, MATE, 2, True, 0) == -MATE + 2


def test_the_countermove_comes_after_the_killers(monkeypatch: pytest.MonkeyPatch) -> None:
    import search.searcher as searcher_module

    monkeypatch.setattr(searcher_module, "COUNTERMOVES", True)
    searcher = Searcher(Game("chess").position)
    quiets = searcher.pos.quiet_codes()
    counter = min(quiets)  # without it, the last of equal history (ties go by code)
    killer = max(quiets)
    searcher.killers[1] = [killer, 0]
    searcher.line[0] = 0x1234  # the opponent's previous move, by its squares
    searcher.counter[0x1234 | searcher.pos.side << 16] = counter
    assert searcher._quiets(quiets, 0, 1)[:2] == [killer, counter]
    monkeypatch.setattr(searcher_module, "COUNTERMOVES", False)
    assert searcher._quiets(quiets, 0, 1)[-1] == counter
