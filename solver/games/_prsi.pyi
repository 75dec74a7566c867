"""Type stubs of ddcards.games._prsi (Cython): Prší, the shedding game, in C."""
from collections.abc import Sequence
from typing import Any

from typing_extensions import disjoint_base  # Cython extension types take no second native base

from ddcards._core.search import Board

MOVE_DRAW: int
MOVE_PASS: int
MOVE_OBER: int
MAX_HISTORY: int
MAX_HORIZON: int

@disjoint_base
class PrsiBoard(Board):
    """A Prší deal in C form (hands: a card mask per seat; stock: card ints, first drawn first)."""

    def __init__(self, hands: Sequence[int], stock: Sequence[int], upcard: int, leader: int = 0,
                 play_on: bool = False, comeback: bool = False, salt0: int = 0, salt1: int = 0,
                 not_last: bool = False) -> None: ...
    def set_search(self, player: int, horizon: int) -> None:
        """Search for `player` (P, maximising), `horizon` plies from the current position."""
    @property
    def probe(self) -> bool:
        """Whether the search probes the table (the tests turn it off to check the keys)."""
    @probe.setter
    def probe(self, on: bool) -> None: ...
    def is_legal(self, move: int) -> bool: ...
    def quick_bounds(self) -> tuple[int, int] | None:
        """(lo, hi) bounds on the value within the horizon; None where it is known without them."""
    @property
    def to_move(self) -> int: ...
    @property
    def done(self) -> bool:
        """The game is over (first out; with play_on, one player left)."""
    def settled(self) -> int:
        """P's outcome so far: +1 won, -1 lost, 0 open (P as set_search named him)."""
    @property
    def state(self) -> dict[str, Any]:
        """The current state as a dict (for reporting and tests)."""
    def pack(self) -> bytes:
        """Everything that decides the future of this position, as bytes."""
    def load(self, packed: bytes) -> None:
        """Make the current state the one `pack` described."""
