"""The bookkeeping of a search made of several (``ddcards.games._search_budget``): a long Prší
horizon searched shorter first, the exact analysis. A stop says the nodes of every search run,
in ``nodes`` and in its message, where the core's message counts only the search it stopped.

The searcher here is a stand-in with the core's two observable habits (each search sets
``nodes``; a stop raises with "after N nodes"; one that stops before it begins leaves the count
and the table's probes as they were), so that a stop can be put exactly where a test needs it.
The real search's stops are checked in tests/test_prsi_api.py."""
import time

import pytest

from ddcards.errors import SearchCancelled, SearchTimeout
from ddcards.games import _search_budget


class Searches:
    """Searches of `sizes` nodes each; the one at `stop` stops after `stop_after` nodes (0: before
    it begins, as a cancelled or late search does)."""

    def __init__(self, sizes, stop=None, stop_after=0):
        self.sizes, self.stop, self.stop_after = list(sizes), stop, stop_after
        self.nodes = 0
        self.tt_stats = {"probes": 0}
        self.calls = 0

    def value(self, board, cancel, timeout):
        k = self.calls
        self.calls += 1
        if k == self.stop:
            if not self.stop_after:
                raise SearchCancelled("the search was cancelled")
            self.nodes = self.stop_after
            self.tt_stats["probes"] += 1
            raise SearchTimeout(f"the search ran out of time after {self.stop_after:,} nodes")
        self.nodes = self.sizes[k]
        self.tt_stats["probes"] += self.sizes[k]
        return k


def test_the_nodes_of_searches_that_finish_add_up():
    with _search_budget.tallied(Searches([100, 2_000, 30_000])) as tally:
        assert [tally.value(None, None, None) for _ in range(3)] == [0, 1, 2]
        assert tally.spent == 32_100 and tally.nodes == 30_000      # nodes: the last search's, as the core's


def test_a_stop_in_a_later_search_says_every_search_s_nodes():
    with pytest.raises(SearchTimeout) as stop:
        with _search_budget.tallied(Searches([100, 2_000], stop=2, stop_after=555)) as tally:
            for _ in range(3):
                tally.value(None, None, None)
    assert stop.value.nodes == 2_655
    assert str(stop.value) == "the search ran out of time after 2,655 nodes"


def test_a_search_stopped_before_it_began_adds_nothing_of_its_own():
    # (the stand-in's count still holds the search before: a stop that began nothing must not add it)
    with pytest.raises(SearchCancelled) as stop:
        with _search_budget.tallied(Searches([100, 2_000], stop=2)) as tally:
            for _ in range(3):
                tally.value(None, None, None)
    assert stop.value.nodes == 2_100
    assert str(stop.value) == "the search was cancelled after 2,100 nodes"


def test_time_out_between_two_searches_says_the_nodes_so_far():
    searches = Searches([100, 2_000])
    with pytest.raises(SearchTimeout) as stop:
        with _search_budget.tallied(searches) as tally:
            deadline = _search_budget.deadline(60.0)
            tally.value(None, None, _search_budget.time_left(deadline))
            tally.value(None, None, _search_budget.time_left(deadline))
            passed = time.monotonic() - 1.0
            tally.value(None, None, _search_budget.time_left(passed))      # no time left: never called
    assert searches.calls == 2
    assert stop.value.nodes == 2_100
    assert str(stop.value) == "the search ran out of time after 2,100 nodes"


def test_the_first_search_stopped_says_its_own_nodes():
    with pytest.raises(SearchTimeout) as stop:
        with _search_budget.tallied(Searches([], stop=0, stop_after=777)) as tally:
            tally.value(None, None, None)
    assert stop.value.nodes == 777 and str(stop.value) == "the search ran out of time after 777 nodes"


def test_no_time_limit_is_no_deadline():
    assert _search_budget.deadline(None) is None and _search_budget.time_left(None) is None
    left = _search_budget.time_left(_search_budget.deadline(30.0))
    assert left is not None and 29.0 < left <= 30.0
