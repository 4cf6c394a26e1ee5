"""Fairy Post's engine: it plays and reviews every variant the rules engine knows.

Standard library only, and nothing but `rules` from the project:

    >>> from rules.game import game_after
    >>> from search import best_move
    >>> best_move(game_after("chess", ["f2f3", "e7e5", "g2g4"]), level_number=1).notation
    'Qd8-h4++'

`search.values` derives piece values from movement, `search.evaluate` scores positions,
`search.searcher` is the alpha-beta search, `search.levels` the playing levels,
`search.play` the entry points on a rules `Game`, `search.analysis` the post-game review.
"""

from search.analysis import Analysis, MoveReview, analyze
from search.levels import DEFAULT_LEVEL, LEVELS, MAX_LEVEL, MIN_LEVEL, Level, level
from search.play import EngineMove, accepts_draw, best_move, score_text, think
from search.searcher import Limits, Searcher, SearchResult
from search.tt import TranspositionTable
from search.values import PieceValue, piece_values

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "Analysis",
    "EngineMove",
    "Level",
    "Limits",
    "MoveReview",
    "PieceValue",
    "SearchResult",
    "Searcher",
    "TranspositionTable",
    "accepts_draw",
    "analyze",
    "best_move",
    "level",
    "piece_values",
    "score_text",
    "think",
]
