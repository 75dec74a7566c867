"""Type stubs of ddcards.games._marias (Cython): Mariáš card play in C."""
from collections.abc import Sequence
from typing import Any

from typing_extensions import disjoint_base  # Cython extension types take no second native base

from ddcards._core.search import Board

OBJ_HRA: int
OBJ_SEDMA: int
OBJ_KILO: int
OBJ_BETL: int
OBJ_DURCH: int
OBJ_MONEY: int
ANN_SEDMA: int
ANN_KILO: int

@disjoint_base
class MariasBoard(Board):
    """A Mariáš position in C form (hands: three masks of card codes ``suit * 8 + power``)."""

    def __init__(self, hands: Sequence[int], trump: int, objective: int, marriage_on_follow: bool = False,
                 talon_points: int = 0, salt0: int = 0, salt1: int = 0, announce: int = 0,
                 ranks: Sequence[int] | None = None) -> None: ...
    def legal_mask(self) -> int: ...
    def quick_bounds(self) -> tuple[int, int, int] | None:
        """(banked, lo, hi) at a trick boundary: the value banked so far and the quick bounds on the future."""
    def money_classes(self) -> tuple[str, str] | None:
        """(Hra, Kilo) classes at a money trick boundary: "won", "lost" or "open", each holding on every line."""
    def key(self) -> tuple[int, int]:
        """The table key (k0, k1) of this position, at a trick boundary."""
    @property
    def finished(self) -> bool:
        """All cards played."""
    @property
    def state(self) -> dict[str, Any]:
        """The current state as a dict (for reporting)."""
    @property
    def to_move(self) -> int: ...
