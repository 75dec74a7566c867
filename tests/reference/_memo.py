"""The transposition memo of the references' plain alpha-beta (Mariáš, Klaverjas): bounds on a
state's value, as a fail-soft search leaves them.  Search bookkeeping only: the rules stay in
each game's own module."""
from __future__ import annotations

import math
from collections.abc import Hashable


class BoundMemo:
    """State -> (lower, upper) bounds on its value.  Fail-soft: a result <= alpha is an upper
    bound, >= beta a lower bound, and exact in between.  It is only a cache: past `limit`
    entries it starts afresh."""

    def __init__(self, limit: int = 1 << 16):
        self.limit = limit
        self._bounds: dict[Hashable, tuple[float, float]] = {}

    def probe(self, key: Hashable, alpha: float, beta: float) -> tuple[float | None, float, float]:
        """(the value if the bounds settle the search in (alpha, beta), else None; the window
        narrowed by the bounds)."""
        lower, upper = self._bounds.get(key, (-math.inf, math.inf))
        if lower == upper or lower >= beta:
            return lower, alpha, beta
        if upper <= alpha:
            return upper, alpha, beta
        return None, max(alpha, lower), min(beta, upper)

    def store(self, key: Hashable, best: float, alpha: float, beta: float) -> None:
        """What a search of `key` in (alpha, beta) that returned `best` proves.  The window is the
        one the search ran with (after `probe` narrowed it), so the bounds it had are kept."""
        lower, upper = self._bounds.get(key, (-math.inf, math.inf))
        if best <= alpha:
            upper = best
        elif best >= beta:
            lower = best
        else:
            lower = upper = best
        if len(self._bounds) >= self.limit:
            self._bounds.clear()
        self._bounds[key] = (lower, upper)

    def clear(self) -> None:
        self._bounds.clear()


def fail_soft(result: float, alpha: float, beta: float, true: float) -> bool:
    """Does `result` of a search in the window (alpha, beta) keep the fail-soft contract with the
    true value?"""
    if result <= alpha:
        return true <= result
    if result >= beta:
        return true >= result
    return result == true
