"""A game's search memory (table, history, killers) kept between its moves, bounded."""

from __future__ import annotations

from rules.game import Game, game_after
from rules.tables import tables_of
from rules.variant import load_variant
from search.play import best_move, think
from search.searcher import Limits
from search.tt import EXACT, GameMemories, GameMemory, TranspositionTable

OPENINGS = [
    ["e2e4", "e7e5", "g1f3", "b8c6"],
    ["d2d4", "d7d5", "c2c4", "e7e6"],
    ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4"],
    ["g1f3", "g8f6", "c2c4", "g7g6", "b1c3"],
    ["e2e4", "e7e6", "d2d4", "d7d5", "b1c3", "g8f6"],
]


def test_a_kept_memory_saves_work_at_the_next_search() -> None:
    """Summed over five openings: one position's second search may still redo its last
    iteration (its score moved outside the aspiration window), the sum may not."""
    fresh_nodes = again_nodes = 0
    for line in OPENINGS:
        game = game_after("chess", line)
        fresh = think(game, Limits(depth=5))
        memory = GameMemory(4)
        think(game, Limits(depth=5), memory=memory)
        again = think(game, Limits(depth=5), memory=memory)
        assert again.move == fresh.move or abs(again.score - fresh.score) < 50
        fresh_nodes += fresh.nodes
        again_nodes += again.nodes
    assert again_nodes < fresh_nodes // 2


def test_memory_is_cleared_when_the_variant_changes() -> None:
    memory = GameMemory(1)
    think(Game.new("chess"), Limits(depth=3), memory=memory)
    assert any(memory.tt.keys)
    assert any(memory.history)
    memory.use_for(tables_of(load_variant("shako")))
    assert not any(memory.tt.keys)
    assert not any(memory.history)
    assert best_move(Game.new("shako"), 1, depth=2, memory=memory) is not None


def test_memories_are_bounded_least_recently_used_out() -> None:
    memories = GameMemories(games=2, megabytes=0.1)
    a = memories.get("a")
    b = memories.get("b")
    b.history[5] = 9
    assert memories.get("a") is a  # "a" is now the most recent
    a.history[5] = 7
    memories.get("c")  # "b" goes
    assert len(memories) == 2
    assert memories.get("a") is a
    assert a.history[5] == 7
    fresh = memories.get("b")  # back, with a cleared memory (not what it had)
    assert not any(fresh.history)
    assert len(memories) == 2


def test_deep_entries_of_this_search_survive_shallow_ones() -> None:
    tt = TranspositionTable(0.01)
    key, other = 5, 5 + tt.size  # one slot
    tt.store(key, 11, 30, 8, EXACT)
    tt.store(other, 12, 40, 1, EXACT)
    assert tt.probe(key) == (11, 30, 8, EXACT)
    assert tt.probe(other) is None
    tt.new_search()  # the next move: old entries give way
    tt.store(other, 12, 40, 1, EXACT)
    assert tt.probe(other) == (12, 40, 1, EXACT)
    tt.store(other, 0, 45, 2, EXACT)  # a bound without a move keeps the move
    assert tt.probe(other) == (12, 45, 2, EXACT)
