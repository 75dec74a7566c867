"""What a search made of several searches shares: one deadline, and a count of their nodes.

A Prší search within a long horizon tries shorter ones first, and its exact analysis searches ever
longer ones (``prsi``, ``prsi_exact``): each call of the core is one search, which counts its own
nodes and keeps its own time.  The caller asked for one search, so the time is the caller's
``timeout`` for all of them together, and a stop says the nodes of all (``SearchAborted.tell_nodes``).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ddcards.errors import SearchAborted, SearchTimeout

__all__ = ["Tally", "tallied", "deadline", "time_left"]

T = TypeVar("T")


class Tally:
    """A Searcher whose searches' nodes add up (``spent``), for a search made of several: one that
    stops says (``SearchAborted.tell_nodes``) the nodes of them all, its own if it began.
    ``on_search(n)`` is told each search's nodes as it ends, a stopped one's too: a count kept over
    several tallies (the Mariáš contract table's, one a thread)."""

    def __init__(self, searcher: Any, on_search: Callable[[int], None] | None = None) -> None:
        self.searcher = searcher
        self.on_search = on_search
        self.spent = 0

    @property
    def nodes(self) -> int:
        """The last search's nodes (as Searcher.nodes)."""
        return int(self.searcher.nodes)

    def value(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(self.searcher.value, args, kwargs)

    def solve(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(self.searcher.solve, args, kwargs)

    def _run(self, search: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        # (a search that stops before it begins leaves the count and the probes as they were)
        before = self._mark()
        try:
            found = search(*args, **kwargs)
        except SearchAborted as exc:
            own = self.searcher.nodes if self._mark() != before else 0
            if own and self.on_search is not None:
                self.on_search(own)
            exc.tell_nodes(self.spent + own)
            raise
        self.spent += self.searcher.nodes
        if self.on_search is not None:
            self.on_search(self.searcher.nodes)
        return found

    def _mark(self) -> tuple[int, int]:
        return self.searcher.nodes, self.searcher.tt_stats["probes"]


@contextmanager
def tallied(searcher: Any) -> Iterator[Tally]:
    """The searches run through the tally it yields add up their nodes; a stop, in one of them or
    between two (out of time before the next began), says the nodes of all."""
    tally = Tally(searcher)
    try:
        yield tally
    except SearchAborted as exc:
        if not exc._nodes_told and tally.spent:
            exc.tell_nodes(tally.spent)
        raise


def deadline(timeout: float | None) -> float | None:
    """When a search of several searches given `timeout` seconds must end (None: no limit)."""
    return None if timeout is None else time.monotonic() + timeout


def time_left(deadline: float | None, stopped: str = "the search ran out of time") -> float | None:
    """The seconds left before `deadline` for the next of a search's several searches; past it,
    SearchTimeout(`stopped`)."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise SearchTimeout(stopped)
    return left
