"""ddcards: double-dummy solver for Mariáš, Klaverjas, Mariasz and Prší, on one game-agnostic search core.

>>> import ddcards
>>> res = ddcards.solve(ddcards.example("marias-hra"))
>>> res.value, res.scores
(70, {'declarer': 100, 'defenders': 30})
"""
from ddcards.api import CancelToken, Mode, PositionLike, Solver, analyse, default_solver, solve, solve_many
from ddcards.batch.many import ExecutorFailure, Solved
from ddcards.ddtable import dd_table
from ddcards.errors import (DdcardsError, IllegalPlayError, InvalidArgumentTypeError, InvalidCardError,
                           InvalidDealError, InvalidOptionError, NotationError, NotationTypeError, NothingToUndoError,
                           SearchAborted, SearchCancelled, SearchTimeout, TableMemoryError)
from ddcards.examples import example, example_names
from ddcards.games import GameInfo, OptionInfo, find_game, list_games
from ddcards.games.base import Score, TrickCard
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand, parse_cards, parse_hand
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisProgress, AnalysisStep, MoveValue, Result, SearchProgress, ValueKind

__all__ = [
    "solve", "analyse", "solve_many", "Solved", "ExecutorFailure", "Solver", "Mode", "CancelToken",
    "default_solver", "PositionLike", "dd_table",
    "Position", "TrickCard", "Score", "Result", "MoveValue", "Analysis", "AnalysisStep", "ValueKind",
    "SearchProgress", "AnalysisProgress",
    "list_games", "find_game", "GameInfo", "OptionInfo",
    "Card", "Suit", "Rank", "parse_cards", "format_cards", "parse_hand", "format_hand",
    "example", "example_names",
    "DdcardsError", "NotationError", "NotationTypeError", "InvalidCardError", "InvalidDealError", "IllegalPlayError",
    "InvalidOptionError", "InvalidArgumentTypeError", "NothingToUndoError", "SearchAborted", "SearchCancelled",
    "SearchTimeout", "TableMemoryError",
]
__version__ = "0.2.0"
