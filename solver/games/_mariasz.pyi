"""Type stubs of ddcards.games._mariasz (Cython): Mariasz, the Polish stock game, in C."""
from collections.abc import Sequence
from typing import Any

from typing_extensions import disjoint_base  # Cython extension types take no second native base

from ddcards._core.search import Board

OBJ_POINTS: int
OBJ_RACE: int
EXCHANGE: int

def use_race_cache(on: bool) -> bool:
    """Switch the race cache of dominated needs on or off, module-wide (tests and benchmarks); the old
    setting."""
def use_endgame(on: bool) -> bool:
    """Switch the phase-2 endgame search on or off, module-wide (tests and benchmarks); the old setting."""

@disjoint_base
class MariaszBoard(Board):
    """A Mariasz deal in C form (hands: a card mask per seat, codes ``suit * 16 + power``)."""

    def __init__(self, hands: Sequence[int], side_of: Sequence[int], maxside: int, trump: int, objective: int,
                 stock: Sequence[int], six: int, need: Sequence[int], points: Sequence[int],
                 partner: Sequence[int], marriage: Sequence[int], must_beat: bool = False,
                 marriage_on_second: bool = False, leader: int = 0, salt0: int = 0, salt1: int = 0) -> None: ...
    @property
    def endgame_nodes(self) -> int:
        """Cards tried by the phase-2 endgame search since the board was made."""
    def refresh_guess(self) -> None:
        """Set the value the search's first null-window test is at, for the current position."""
    def quick_bounds(self) -> tuple[int, int, int] | None:
        """(banked, lo, hi) at a trick boundary: lo <= future value <= hi; None elsewhere."""
    def endgame_bounds(self) -> tuple[int, int, int] | None:
        """(banked, lo, hi) at a two-player phase-2 trick boundary, as the endgame search has them."""
    def legal_mask(self) -> int:
        """The cards the player to move may play, as a mask of codes."""
    def can_exchange(self) -> bool:
        """May the player to move exchange the trump six now?"""
    @property
    def finished(self) -> bool:
        """The deal is over: every card played, or a race claimed."""
    @property
    def to_move(self) -> int: ...
    @property
    def state(self) -> dict[str, Any]: ...
