"""Unit tests of server.service.SolverPool: bounded lending of solvers, FIFO waits, cancel and deadline."""
from __future__ import annotations

import threading
import time

import pytest

import ddcards  # noqa: E402

from ddcards.server.service import SolverPool, _Deadline  # noqa: E402
from ddcards.errors import SearchCancelled, SearchTimeout  # noqa: E402
from _server_helpers import wait_until  # noqa: E402


class FakeSolver:
    made = 0

    def __init__(self):
        FakeSolver.made += 1
        self.id = FakeSolver.made
        self.users = 0


def _pool(workers):
    FakeSolver.made = 0
    return SolverPool(workers, 1, solver_factory=FakeSolver)


def _deadline(seconds):
    d = _Deadline(None)
    d.at = time.monotonic() + seconds
    return d


def test_search_timeout_is_the_smaller_of_deadline_and_limit():
    assert _Deadline(None).search_timeout() is None
    assert _Deadline(None).search_timeout(2.5) == 2.5
    assert _Deadline(None).search_timeout(float("inf")) is None
    assert 0.9 < _deadline(1.0).search_timeout() <= 1.0
    assert _deadline(10.0).search_timeout(0.5) == 0.5
    assert _deadline(0.2).search_timeout(5.0) <= 0.2
    with pytest.raises(SearchTimeout):
        _deadline(-0.1).search_timeout(5.0)


def test_lends_at_most_workers_solvers_each_to_one_thread():
    pool = _pool(2)
    active = []
    peak = [0]
    lock = threading.Lock()

    def work():
        for _ in range(50):
            with pool.lend() as s:
                with lock:
                    s.users += 1
                    assert s.users == 1, "a solver lent to two threads at once"
                    active.append(s)
                    peak[0] = max(peak[0], len(active))
                time.sleep(0.0005)
                with lock:
                    s.users -= 1
                    active.remove(s)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert FakeSolver.made == 2 and peak[0] == 2
    assert pool.busy == 0 and pool.waiting == 0


def test_solvers_are_made_lazily_and_reused():
    pool = _pool(4)
    for _ in range(10):
        with pool.lend() as s:
            assert s.id == 1
    assert FakeSolver.made == 1


def test_waiters_are_served_first_come_first_served():
    pool = _pool(1)
    order = []
    held = pool._acquire(None, None)
    threads = []
    for i in range(5):
        def wait(i=i):
            with pool.lend():
                order.append(i)
        t = threading.Thread(target=wait)
        t.start()
        threads.append(t)
        assert wait_until(lambda: pool.waiting == i + 1)
    pool._release(held)
    for t in threads:
        t.join(5)
    assert order == [0, 1, 2, 3, 4]


def test_cancelled_waiter_gives_up_promptly():
    pool = _pool(1)
    held = pool._acquire(None, None)
    token = ddcards.CancelToken()
    errors = []

    def wait():
        try:
            with pool.lend(token):
                pass
        except SearchCancelled as exc:
            errors.append(exc)

    t = threading.Thread(target=wait)
    t.start()
    assert wait_until(lambda: pool.waiting == 1)
    started = time.monotonic()
    token.cancel()
    t.join(5)
    # promptly (it polls every 20 ms; this pool has no queue timeout): a bound loose enough for a loaded machine
    assert errors and time.monotonic() - started < 2.0
    assert pool.waiting == 0 and pool.busy == 1
    pool._release(held)
    assert pool.busy == 0
    with pool.lend() as s:  # the solver went back to the pool, not to the gone waiter
        assert s is held


def test_waiter_times_out_at_the_deadline():
    pool = _pool(1)
    held = pool._acquire(None, None)
    started = time.monotonic()
    with pytest.raises(SearchTimeout):
        with pool.lend(None, _deadline(0.1)):
            pass
    assert 0.05 < time.monotonic() - started < 5.0          # at the deadline (this pool has no queue timeout)
    assert pool.waiting == 0
    pool._release(held)
    assert pool.busy == 0


def test_factory_failure_frees_the_slot():
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError("no table")
        return FakeSolver()

    pool = SolverPool(1, 1, solver_factory=failing)
    with pytest.raises(MemoryError):
        with pool.lend():
            pass
    assert pool.busy == 0
    with pool.lend() as s:
        assert isinstance(s, FakeSolver)


def test_one_long_search_does_not_tell_a_burst_of_short_calls_after_it_to_wait_long():
    """RetryInfo's delay drains the queue at the typical time a search holds a worker, the median of
    the latest 32: a running mean raised by one 45 s search told 30 calls waiting behind two
    workers to retry in 30 s, while their short searches drained in 2 s (a heavy user's audit)."""
    import ddcards.server.service as service

    now = [1000.0]
    pool = SolverPool(2, 1, solver_factory=FakeSolver, clock=lambda: now[0])

    def held(seconds):
        with pool.lend():
            now[0] += seconds

    for _ in range(20):
        held(0.05)
    held(45.0)
    for _ in range(3):
        held(0.05)
    with pool.lend(), pool.lend():                      # both workers busy, just lent
        pool._waiters.extend(service._Waiter() for _ in range(29))      # 30 calls ahead with this one
        assert pool.retry_after() == pytest.approx(0.05 + 0.05 * 30 / 2)     # 0.8 s, not 30
        pool._waiters.clear()
    for _ in range(32):                                  # long searches only: the typical time is long
        held(3.0)
    with pool.lend(), pool.lend():
        assert pool.retry_after() == pytest.approx(3.0 + 3.0 * 1 / 2)


def test_retry_after_counts_how_long_the_running_searches_have_run():
    """RetryInfo's delay: a worker held for minutes is not free in 0.1 s (the mean of short
    searches said so); one that has run t seconds is expected to run about t more."""
    pool = _pool(1)
    assert pool.retry_after() == 0.1                          # a worker free: retry at once
    with pool.lend() as solver:
        assert pool.retry_after() == pytest.approx(0.1, abs=0.02)   # just lent, short searches so far
        pool._lent_at[id(solver)] -= 12.0                     # as if lent 12 s ago
        assert pool.retry_after() == pytest.approx(12.05, abs=0.1)
        pool._lent_at[id(solver)] -= 120.0
        assert pool.retry_after() == 30.0                     # at most 30 s
    assert pool.retry_after() == 0.1
    two = _pool(2)
    with two.lend() as solver:
        two._lent_at[id(solver)] -= 60.0
        assert two.retry_after() == 0.1                       # the other worker is free


@pytest.mark.parametrize("max_queue, why", [
    (0, "no call may wait for one here: --max-queue 0"),
    (1, "1 call already waits for one"),
    (2, "2 calls already wait for one"),
])
def test_a_call_turned_away_by_the_full_queue_is_told_how_full(max_queue, why):
    """With --max-queue 0 it said '0 calls already wait for one', as if the queue were empty."""
    from ddcards.server.status import Overloaded

    FakeSolver.made = 0
    pool = SolverPool(1, 1, max_queue=max_queue, queue_timeout=30.0, solver_factory=FakeSolver)
    stop = threading.Event()

    def wait_in_the_queue():
        with pool.lend(_Stop(stop)):
            pass

    with pool.lend():
        waiting = [threading.Thread(target=lambda: pytest.raises(SearchCancelled, wait_in_the_queue))
                   for _ in range(max_queue)]
        for thread in waiting:
            thread.start()
        assert wait_until(lambda: pool.waiting == max_queue, timeout=5)
        with pytest.raises(Overloaded) as info:
            with pool.lend():
                pass
        stop.set()
        for thread in waiting:
            thread.join(5)
    assert str(info.value) == f"every worker is busy ({why}): retry later"


class _Stop:
    """A cancel token that fires with its event."""

    def __init__(self, event):
        self._event = event

    @property
    def cancelled(self):
        return self._event.is_set()
