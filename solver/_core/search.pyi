"""Type stubs of ddcards._core.search (Cython): the search core's Python face.

The public API exposes :class:`CancelToken` (``ddcards.CancelToken``); the
rest is what game modules and the solver use.
"""
from collections.abc import Iterable

from typing_extensions import disjoint_base  # Cython extension types take no second native base

from ddcards.errors import SearchCancelled as SearchCancelled
from ddcards.errors import SearchTimeout as SearchTimeout

#: The instruction sets this module was compiled for ("base popcnt bmi2 avx2"...).
BUILD_FEATURES: str

MODE_BEST: int
MODE_OPTIMAL: int
MODE_ALL: int
COUNTS_OWN_NODES: bool      # the node counts include a game's own search's (GameOps.own_nodes)

def side_area_bytes(tt_mb: int) -> int: ...

@disjoint_base
class Board:
    """A game position the core can search: the game's C state plus its ops."""

    exact: bool
    threshold: int
    granularity: int
    guess: int
    history_leads: bool
    killer_leads: bool
    reply_first: bool
    upper_from: int
    lower_below: int
    etc_from: int
    own_search: bool
    max_ply: int
    @property
    def ply(self) -> int: ...
    @property
    def has_own_search(self) -> bool: ...
    def legal_moves(self, prune: bool = False) -> list[int]:
        """Legal moves of the player to move, in the search's order (prune: one per equivalent group)."""
    def play(self, move: int) -> None:
        """Play `move`, which must be legal (the game checks before it calls this)."""
    def undo(self) -> None:
        """Take back the last move played."""
    @property
    def terminal(self) -> bool:
        """Nothing is left to decide (all played, or the outcome is settled)."""

@disjoint_base
class CancelToken:
    """A flag another thread sets to stop a running search (thread-safe).

    A token stays cancelled: every later search given it stops at once, so give each search
    (or each group of searches to stop together) a new one."""

    def __init__(self) -> None: ...
    def cancel(self) -> None:
        """Ask every search polling this token to stop."""
    @property
    def cancelled(self) -> bool:
        """Whether cancel() was called (for good: a token is not reset)."""

@disjoint_base
class Searcher:
    """Owns a transposition table and answers questions about Boards (one per thread)."""

    def __init__(self, tt_mb: int = 64) -> None: ...
    @property
    def tt_mb(self) -> int: ...
    @property
    def allocated_mb(self) -> int: ...
    @property
    def nodes(self) -> int: ...
    @property
    def nodes_now(self) -> int: ...
    @property
    def root_progress(self) -> tuple[int, int, int | None, int | None, bool] | None: ...
    @property
    def last_progress(self) -> tuple[int, int, int | None, int | None, bool] | None: ...
    @property
    def tt_entries(self) -> int: ...
    @property
    def side_area_bytes(self) -> int: ...
    @property
    def tt_stats(self) -> dict[str, int]: ...
    def clear(self) -> None:
        """Forget all stored positions (O(1))."""
    def resize(self, tt_mb: int) -> None:
        """A table of at most `tt_mb` MiB, empty; MemoryError (the old table kept) if it cannot be had."""
    def use(self, tt_mb: int) -> None:
        """Search in `tt_mb` MiB of the allocated table (at most all of it), empty."""
    @property
    def cpu_seconds(self) -> float:
        """The CPU time of this table's thread in the last root split."""
    def solve(self, board: Board, mode: int = ..., cancel: CancelToken | None = None,
              timeout: float | None = None, guess: int | None = None,
              want_pv: bool = True, helpers: Iterable[tuple[Searcher, Board]] = (),
              split: bool | None = None, want_moves: bool = True,
              ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """Search `board` and return (value, [(move, value or None)], principal variation, nodes)."""
    def value(self, board: Board, cancel: CancelToken | None = None, timeout: float | None = None,
              guess: int | None = None, helpers: Iterable[tuple[Searcher, Board]] = ()) -> int:
        """The value alone (exact measure or +1/-1)."""
    def values(self, rows: Iterable[tuple[Searcher, Board]],
               helpers: Iterable[tuple[Searcher, Iterable[Board]]] = (), cancel: CancelToken | None = None,
               timeout: float | None = None) -> list[tuple[int, int]]:
        """The values of several positions at once: [(value, nodes)], one per (table, board) row."""
