"""The closing figures of a batch: search times (median, p90, max) in bounded memory, node rates."""
from __future__ import annotations

import random

__all__ = ["SearchTimes", "milliseconds"]


class SearchTimes:
    """Count, total, maximum and quantiles of the search times of a batch, in bounded memory.

    Quantiles are exact up to RESERVOIR positions and estimated from a fixed random sample
    of that size beyond (a batch of any length keeps the same few kilobytes).
    """

    RESERVOIR = 10_001

    def __init__(self) -> None:
        self.count, self.total, self.max = 0, 0.0, 0.0
        self.nodes = 0
        self._sample: list[float] = []
        self._rng = random.Random(0)

    def add(self, seconds: float, nodes: int = 0) -> None:
        self.count += 1
        self.total += seconds
        self.nodes += nodes
        self.max = max(self.max, seconds)
        if len(self._sample) < self.RESERVOIR:
            self._sample.append(seconds)
        else:
            slot = self._rng.randrange(self.count)
            if slot < self.RESERVOIR:
                self._sample[slot] = seconds

    @property
    def exact(self) -> bool:
        """Are the quantiles exact (every time kept) rather than estimated from a sample?"""
        return self.count <= self.RESERVOIR

    def quantile(self, q: float) -> float:
        """The q-quantile (0..1) of the times, by linear interpolation between the closest ranks."""
        ordered = sorted(self._sample)
        if not ordered:
            return 0.0
        rank = q * (len(ordered) - 1)
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)

    def median(self) -> tuple[float, bool]:
        """(the median, whether it is exact)."""
        return self.quantile(0.5), self.exact

    def nodes_per_second(self) -> float:
        """Nodes searched per second of search (one search thread's rate)."""
        return self.nodes / self.total if self.total > 0 else 0.0


def milliseconds(seconds: float) -> str:
    """A time in ms with about three significant digits: 0.031 ms, 3.71 ms, 49.4 ms, 1,203 ms."""
    ms = seconds * 1000
    if ms >= 100:
        return f"{ms:,.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    if ms >= 1:
        return f"{ms:.2f} ms"
    return f"{ms:.3f} ms"
