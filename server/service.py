"""The ddcards.v1 SolverService: a thin layer over the solver's Python API.

Each handler converts the message to a position document
(:mod:`ddcards.server.convert`), builds a ``ddcards.Position`` (which validates it),
runs the search with a solver of the :class:`SolverPool` and converts the
result back. Errors propagate as exceptions; :mod:`ddcards.server.interceptors` turns
them into status codes and writes the log line.

Concurrency: the pool owns ``workers`` ``ddcards.Solver`` instances (each with
its own transposition table; a Solver is not thread-safe) and lends each to
one thread at a time, so at most ``workers`` searches run at once. A unary
call searches in its own gRPC thread (no thread hop on the latency path);
stream items search on the pool's executor. The search releases the GIL, so
the searches use all cores. Every search gets a ``ddcards.CancelToken`` that
gRPC's termination callback sets (client cancelled, deadline passed, server
stopping) and the time left before the deadline as its timeout, so no search
outlives its call; a call waiting for a free solver gives up the same way.

Admission: a unary call that finds every solver busy waits in the pool's
bounded queue (``max_queue`` calls, ``queue_timeout`` seconds each) and is
otherwise turned away with ``Overloaded`` (RESOURCE_EXHAUSTED + RetryInfo);
a SolveStream is bounded by its window instead, and closes itself when idle.
"""
from __future__ import annotations

import logging
import math
import queue
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from functools import partial
from typing import Any

import grpc

import ddcards
from ddcards._jsonio import ID_RULE, MAX_ID_CHARS
from ddcards.batch.pipeline import END, Pipeline, Work
from ddcards.ddtable import table_job
from ddcards.errors import SearchAborted, SearchCancelled, SearchTimeout
from ddcards.server import calllog, convert, status
from ddcards.server.interceptors import StallWatch, Undecodable, call_budget
from ddcards.server.status import Overloaded, ShuttingDown, StreamIdle
from ddcards.v1 import ddcards_pb2 as pb
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

#: Threads of one search (Solver.solve's threads=): the service runs its calls in parallel,
#: one per worker, so a call splitting its own search would only take a core from another.
SEARCH_THREADS = 1
#: The latest searches whose time holding a worker RetryInfo's typical time is the median of.
HOLD_SAMPLES = 32

log = logging.getLogger("ddcards.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["SolverService"].full_name


class _Waiter:
    __slots__ = ("event", "solver")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.solver: Any = None


class SolverPool:
    """At most ``workers`` searches at once, each with its own ``ddcards.Solver(tt_mb=...)``
    (``tt_mb=None``: its table sized per game, see ``ddcards.Solver``).

    The pool owns ``workers`` solvers (made up front, so the first calls do not
    pay for allocating their tables; a table sized per game grows once, at its
    first search of a game that wants more), and lends each to
    one thread at a time: a unary call searches in its own gRPC thread, so no
    thread hop is added to its latency; stream items search on a small
    executor of ``workers`` threads. Callers waiting for a solver are served
    first come, first served, and give up when their call is cancelled or its
    deadline passes. The transposition tables take at most ``workers x tt_mb``
    MiB, sized per game ``workers x`` the largest table a position asks for, each
    with its side area (``table_bound_mb``).

    Admission: at most ``max_queue`` calls wait at once, each at most
    ``queue_timeout`` seconds; a call that finds the queue full, or waits
    longer, gets :class:`~ddcards.server.status.Overloaded` (RESOURCE_EXHAUSTED
    with a RetryInfo: the time the queue ahead of it should take, from how
    long searches have been holding a solver). Stream items (``bounded=False``)
    are not counted: their stream's window bounds them.  Once the server stops (``drain``), a
    call whose wait ends so is told ``ShuttingDown`` (UNAVAILABLE) instead.

    ``clock``: the monotonic clock those times are read on (a test's own, to set them).
    """

    def __init__(self, workers: int, tt_mb: int | None, *, max_queue: int | None = None,
                 queue_timeout: float | None = None, solver_factory: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if workers < 1:
            raise ValueError("workers must be >= 1")
        if max_queue is not None and max_queue < 0:
            raise ValueError("max_queue must be >= 0")
        if queue_timeout is not None and not queue_timeout > 0:
            raise ValueError("queue_timeout must be > 0")
        self.workers = workers
        self.tt_mb = tt_mb
        # What the tables may take at most, MiB, side areas included: per game, each grows to the
        # largest a position asks for.
        self.table_bound_mb = workers * ddcards.api.table_memory_mb(
            ddcards.api.largest_table_mb() if tt_mb is None else tt_mb)
        self.max_queue = max_queue
        self.queue_timeout = queue_timeout
        self._queued = 0                      # bounded callers waiting now
        self._holds: deque[float] = deque(maxlen=HOLD_SAMPLES)  # how long the latest searches held a solver
        self._clock = clock                   # what those times and the running searches' ages are read on
        self._lent_at: dict[int, float] = {}  # id(solver) -> when each lent solver's call began
        self._factory = solver_factory or (lambda: ddcards.Solver(tt_mb=tt_mb))
        self._lock = threading.Lock()
        self._free: list[Any] = [self._factory() for _ in range(workers)] if solver_factory is None else []
        self._created = len(self._free)
        self._busy = 0
        self._waiters: deque[_Waiter] = deque()
        self._executor: ThreadPoolExecutor | None = None
        self._draining = False                # the server is stopping (drain): see _overloaded

    @contextmanager
    def lend(self, token: Any = None, deadline: _Deadline | None = None, *, bounded: bool = True) -> Iterator[Any]:
        """A solver for the duration of the ``with`` block (waits for one if all are busy;
        ``bounded``: the wait is subject to ``max_queue`` and ``queue_timeout``)."""
        instance = self._acquire(token, deadline, bounded)
        started = self._clock()
        with self._lock:
            self._lent_at[id(instance)] = started
        try:
            yield instance
        finally:
            with self._lock:
                self._lent_at.pop(id(instance), None)
            self._release(instance, self._clock() - started)

    @property
    def _hold_seconds(self) -> float:
        """How long a search typically holds a worker: the median of the latest HOLD_SAMPLES (a
        running mean that one 45 s search had raised told a burst of short calls after it to
        retry in 30 s, while the queue drained in 2 s: a heavy user's audit)."""
        return statistics.median(self._holds) if self._holds else 0.05

    def retry_after(self) -> float:
        """Seconds until a worker should be free for one more call (for RetryInfo): the queue
        now waiting drained at the typical time a search holds a worker, after the soonest of
        the running searches ends.  A search that has run for a while is expected to run about
        as long again (a fresh 36-card Mariasz deal holds a worker for minutes): the typical time
        of short searches alone told clients to retry in 0.1 s while every worker was held."""
        now = self._clock()
        with self._lock:
            ahead = len(self._waiters) + 1
            running = [now - at for at in self._lent_at.values()]
            hold = self._hold_seconds
            soonest = min(max(hold, age) for age in running) if len(running) >= self.workers else 0.0
            return min(30.0, max(0.1, soonest + hold * ahead / self.workers))

    def drain(self) -> None:
        """The server is stopping: a call still waiting for a worker when its wait ends is told
        so (UNAVAILABLE, reason SHUTTING_DOWN), not to retry here later (OVERLOADED)."""
        with self._lock:
            self._draining = True

    def _overloaded(self, why: str) -> Overloaded | ShuttingDown:
        if self._draining:
            return ShuttingDown(f"the server is shutting down and no worker took this call ({why}): "
                                "send it to another instance, or again once this one is back",
                                metadata={"workers": str(self.workers)})
        return Overloaded(f"every worker is busy ({why}): retry later", retry_after=self.retry_after(),
                          metadata={"workers": str(self.workers), "queued": str(self.waiting),
                                    "max_queue": str(self.max_queue), "queue_timeout_seconds":
                                    f"{self.queue_timeout:g}" if self.queue_timeout else "none"})

    def _acquire(self, token: Any, deadline: _Deadline | None, bounded: bool = True) -> Any:
        instance, make, waiter = None, False, None
        with self._lock:
            if self._free and not self._waiters:
                instance = self._free.pop()
            elif self._created < self.workers and not self._waiters:
                self._created += 1
                make = True
            elif bounded and self.max_queue is not None and self._queued >= self.max_queue:
                full = self.max_queue
            else:
                waiter = _Waiter()
                self._waiters.append(waiter)
                self._queued += bounded
            if instance is not None or make or waiter is not None:
                self._busy += 1
        if instance is None and not make and waiter is None:
            raise self._overloaded("no call may wait for one here: --max-queue 0" if not full else
                                   f"{full} call{' already waits' if full == 1 else 's already wait'} for one")
        if make:
            try:
                return self._factory()
            except BaseException:
                with self._lock:
                    self._created -= 1
                    self._busy -= 1
                raise
        if instance is not None:
            return instance
        # Neither a free solver nor one to make, and not turned away: it queued.
        assert waiter is not None
        # Wait for a solver handed over by _release, checking the call's state.
        give_up = time.monotonic() + self.queue_timeout if bounded and self.queue_timeout else None
        try:
            try:
                while not waiter.event.wait(0.02):
                    if token is not None and token.cancelled:
                        raise SearchCancelled("the call ended while waiting for a free worker")
                    now = time.monotonic()
                    if deadline is not None and deadline.at is not None and now >= deadline.at:
                        raise SearchTimeout("the deadline passed while waiting for a free worker")
                    if give_up is not None and now >= give_up:
                        raise self._overloaded(f"waited {self.queue_timeout:g} s for one")
            finally:
                if bounded:
                    with self._lock:
                        self._queued -= 1
        except BaseException:
            with self._lock:
                if waiter.solver is None:
                    self._waiters.remove(waiter)
                    self._busy -= 1
                    raise
            self._release(waiter.solver, None)  # handed over just now: pass it on
            raise
        return waiter.solver

    def _release(self, instance: Any, held_seconds: float | None = None) -> None:
        with self._lock:
            if held_seconds is not None:
                self._holds.append(held_seconds)
            self._busy -= 1
            if self._waiters:
                waiter = self._waiters.popleft()
                waiter.solver = instance  # the waiter was counted in _busy when it queued
                waiter.event.set()
            else:
                self._free.append(instance)

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run ``fn()`` on the pool's executor (used for stream items; ``fn`` borrows a solver itself)."""
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ddcards-stream")
            executor = self._executor
        return executor.submit(fn)

    @property
    def busy(self) -> int:
        """Searches running or about to run (solvers lent out)."""
        with self._lock:
            return self._busy - len(self._waiters)

    @property
    def waiting(self) -> int:
        """Calls waiting for a free solver."""
        with self._lock:
            return len(self._waiters)

    def shutdown(self, wait: bool = True) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)


class _Deadline:
    """When a call must end: its gRPC deadline (``at`` on the monotonic clock, None for none)."""

    def __init__(self, context: grpc.ServicerContext | None):
        self.at: float | None = None
        remaining = call_budget(context) if context is not None else None
        if remaining is not None:
            self.at = time.monotonic() + remaining

    def search_timeout(self, limit_seconds: float = 0.0) -> float | None:
        """The timeout for a search starting now: the time left before the deadline, or the
        request's own limit if that is smaller; None for no limit. Raises SearchTimeout if
        the deadline has passed already."""
        limits = []
        if self.at is not None:
            left = self.at - time.monotonic()
            if left <= 0:
                raise SearchTimeout("the deadline passed before the search started")
            limits.append(left)
        if limit_seconds and limit_seconds > 0 and math.isfinite(limit_seconds):   # 0 (unset), inf: none
            limits.append(limit_seconds)
        return min(limits) if limits else None


class ServerLimitTimeout(SearchTimeout):
    """A search stopped by the server's own limit (--max-search-seconds), not by the call's: its
    message says so, and its status message begins "search stopped at the server's limit"."""

    def __init__(self, exc: SearchTimeout, server_limit: float):
        super().__init__(f"{exc} (the server stops a search after {server_limit:g} s: --max-search-seconds)")
        self.nodes, self.progress, self.server_limit = exc.nodes, exc.progress, server_limit


class RequestLimitTimeout(SearchTimeout):
    """A search stopped by the request's own ``timeout_seconds``, not by the call's deadline: its
    status message begins "search stopped at timeout_seconds" (it said "at the deadline", which
    sent a client whose deadline was far off looking for the wrong limit)."""

    def __init__(self, exc: SearchTimeout, request_limit: float):
        super().__init__(f"{exc} (the request's timeout_seconds: {request_limit:g} s)")
        self.nodes, self.progress, self.request_limit = exc.nodes, exc.progress, request_limit


def _stopped(exc: SearchTimeout, timeout: float | None, capped: float | None, limit: float) -> SearchTimeout:
    """``exc`` named by the limit that stopped it: the server's cap, the request's
    timeout_seconds (``limit``, when it was the search's timeout), or else the deadline."""
    if capped is not None:
        return ServerLimitTimeout(exc, capped)
    if limit and timeout is not None and timeout == limit:
        return RequestLimitTimeout(exc, limit)
    return exc


def _capped_timeout(timeout: float | None, cap: float | None) -> tuple[float | None, float | None]:
    """A search's timeout under the server's cap, and the cap where it is what bounds it (else None)."""
    if cap is not None and (timeout is None or cap < timeout):
        return cap, cap
    return timeout, None


class SolverServicer(pb_grpc.SolverServiceServicer):
    """Solve, AnalysePlay, AnalysePlayStream, SolveStream, SolveTable and ListGames over a
    :class:`SolverPool`."""

    def __init__(self, pool: SolverPool, *, stream_window: int | None = None, version: str = "",
                 stream_idle_timeout: float | None = None, max_search_seconds: float | None = None):
        self._pool = pool
        self._window = max(1, stream_window or pool.workers)
        self._version = version
        self._idle_timeout = stream_idle_timeout
        # The longest any one search (a Solve, an analysis, a table, a stream's item) may run,
        # whatever the call asks: None for none (a fresh 36-card Mariasz deal takes minutes).
        self._max_search = max_search_seconds

    # ------------------------------------------------------------ helpers

    def _position(self, request: Any) -> Any:
        doc = convert.request_to_doc(request, canonical_game=_canonical_game)
        try:
            position = ddcards.Position.from_dict(doc)
        except Exception:
            calllog.note(game=str(doc.get("game", "")))  # as requested, for the log line
            raise
        calllog.note(game=position.game)
        return position

    def _run(self, job: Callable[[Any, float | None, Any], Any], limit_seconds: float,
             context: grpc.ServicerContext) -> Any:
        """Run ``job(solver, timeout, token)`` in this thread with a solver of the pool.

        The call's termination (client cancel, deadline, server stop) cancels
        the token, which stops the search (or the wait for a free solver); a
        search that stops counts its nodes in the call's log line, as its
        status message does. A NaN or negative ``limit_seconds`` is a RequestError.
        """
        limit_seconds = convert.timeout_limit(limit_seconds)
        token = ddcards.CancelToken()
        if not context.add_callback(token.cancel):  # the call already ended
            token.cancel()
        if token.cancelled:
            raise SearchCancelled("the call ended before the search started")
        deadline = _Deadline(context)
        with self._pool.lend(token, deadline, bounded=True) as instance:
            timeout, capped = _capped_timeout(deadline.search_timeout(limit_seconds), self._max_search)
            try:
                return job(instance, timeout, token)
            except SearchAborted as exc:
                calllog.note(nodes=exc.nodes)
                if isinstance(exc, SearchTimeout):
                    raise _stopped(exc, timeout, capped, limit_seconds) from None
                raise

    # ------------------------------------------------------------ RPCs

    def Solve(self, request: pb.SolveRequest, context: grpc.ServicerContext) -> pb.SolveResponse:
        mode = convert.mode_to_name(request.mode)
        position = self._position(request)
        result = self._run(
            lambda s, timeout, cancel: s.solve(position, mode=mode, timeout=timeout, cancel=cancel,
                                               threads=SEARCH_THREADS),
            request.timeout_seconds, context)
        calllog.note(nodes=result.nodes)
        return convert.result_to_response(result, mode=mode, game=position.game)

    def AnalysePlay(self, request: pb.AnalysePlayRequest, context: grpc.ServicerContext) -> pb.AnalysePlayResponse:
        mode = convert.analysis_mode_name(request.mode)
        position = self._position(request)
        from_ply = convert.analysis_from_ply(request.from_ply, len(position.played))
        analysis = self._run(
            lambda s, timeout, cancel: s.analyse(position, timeout=timeout, cancel=cancel, mode=mode,
                                                 from_ply=from_ply),
            request.timeout_seconds, context)
        calllog.note(nodes=getattr(analysis, "nodes", 0))
        return convert.analysis_to_response(analysis, game=position.game)

    def AnalysePlayStream(self, request: pb.AnalysePlayStreamRequest,
                          context: grpc.ServicerContext) -> Iterator[pb.AnalysePlayStreamResponse]:
        """AnalysePlay, each step sent as soon as it is analysed, then the whole analysis.

        The analysis runs on a thread of its own (this generator sends what it hands over), with
        a worker of the pool as AnalysePlay's; the call's end (a cancel, its deadline, the
        server's stop) stops it, and its own stop (timeout_seconds) ends the stream with its
        status after the steps sent.  A client that takes no message for the idle timeout is
        cancelled (StallWatch), as a SolveStream's."""
        mode = convert.analysis_mode_name(request.mode)
        position = self._position(request)
        from_ply = convert.analysis_from_ply(request.from_ply, len(position.played))
        handed: queue.SimpleQueue[Any] = queue.SimpleQueue()       # steps, then the outcome
        ended: list[Any] = []                                      # the Analysis, or the exception

        def analyse() -> None:
            try:
                ended.append(self._run(
                    lambda s, timeout, cancel: s.analyse(position, timeout=timeout, cancel=cancel, mode=mode,
                                                         from_ply=from_ply, on_step=handed.put),
                    request.timeout_seconds, context))
            except BaseException as exc:     # noqa: BLE001 - raised to the call in the generator below
                ended.append(exc)
            finally:
                handed.put(_ANALYSED)

        threading.Thread(target=analyse, name="ddcards-analysis-stream", daemon=True).start()
        stall = StallWatch(context, self._idle_timeout)
        counted = False                     # the analysis's nodes are in the call's log line
        try:
            while (step := handed.get()) is not _ANALYSED:
                message = pb.AnalysePlayStreamResponse(step=convert.step_message(step))
                calllog.note(items=1)           # the log line's items: the steps sent
                stall.writing()
                yield message
                stall.written()
            outcome = ended[0]
            # (its searches ran on the analysis's thread: the call's log line counts them here)
            calllog.note(nodes=getattr(outcome, "nodes", 0))
            counted = True
            if isinstance(outcome, BaseException):
                raise outcome
            message = pb.AnalysePlayStreamResponse(analysis=convert.analysis_to_response(outcome, game=position.game))
            stall.writing()
            yield message
            stall.written()
        finally:
            stall.stop()
            if not counted and not context.is_active():
                # The call ended while steps waited to be sent (the client left, or took no more):
                # the generator was closed at a step, and its analysis, stopped by the call's end,
                # still counts in the log line.
                _note_analysis_stopped(handed, ended)
            if stall.fired:
                log.info("AnalysePlayStream: the client took no message for %g s: the stream was closed",
                         self._idle_timeout)

    def SolveTable(self, request: pb.SolveTableRequest, context: grpc.ServicerContext) -> pb.SolveTableResponse:
        doc = convert.request_to_doc(request, canonical_game=_canonical_game)
        calllog.note(game=str(doc.get("game", "")))
        job = table_job(doc)        # a bad deal is refused now, not after a wait for a worker
        table = self._run(lambda s, timeout, cancel: job(s, timeout, cancel, 1), request.timeout_seconds, context)
        calllog.note(nodes=table["nodes"])
        return convert.table_to_response(table)

    def ListGames(self, request: pb.ListGamesRequest, context: grpc.ServicerContext) -> pb.ListGamesResponse:
        return convert.games_to_response(ddcards.list_games(), version=self._version)

    def SolveStream(self, request_iterator: Iterator[pb.SolveStreamRequest],
                    context: grpc.ServicerContext) -> Iterator[pb.SolveStreamResponse]:
        """Results in completion order; at most ``stream_window`` items of one stream between
        their request and their response.

        The batch path (:class:`ddcards.batch.pipeline.Pipeline`, as ``ddcards.solve_many``):
        a reader thread takes requests, validates them and queues searches; this generator
        yields each outcome as it arrives.  A client that stops reading responses stops the
        reading of its requests once the window is full (back-pressure). A bad item (one that
        does not even decode, a bad position, a result that does not fit the
        response) yields an in-band ItemError and the stream goes on; the call's
        cancellation or deadline stops every search of the stream and ends it
        with that status. A stream with no request, nothing in flight and
        nothing to send for ``stream_idle_timeout`` seconds ends with
        UNAVAILABLE (reason STREAM_IDLE). One whose client takes no response for
        that long (the next cannot be written: the client's HTTP/2 window is
        full) is cancelled (StallWatch).
        """
        token = ddcards.CancelToken()               # shared by every search of this stream
        stream_deadline = _Deadline(context)
        last_request = [time.monotonic()]

        def job(position: Any, mode: str, limit: float) -> Any:
            if token.cancelled:
                raise SearchCancelled("the stream ended before the search started")
            with self._pool.lend(token, stream_deadline, bounded=False) as instance:
                timeout, capped = _capped_timeout(stream_deadline.search_timeout(limit), self._max_search)
                try:
                    return instance.solve(position, mode=mode, timeout=timeout, cancel=token,
                                          threads=SEARCH_THREADS)
                except SearchTimeout as exc:
                    raise _stopped(exc, timeout, capped, limit) from None

        def items() -> Iterator[Work]:
            # On the pipeline's reader thread: a bad item is answered in band, in its turn.
            for index, item in enumerate(request_iterator):
                last_request[0] = time.monotonic()
                if isinstance(item, Undecodable):
                    # a message that parsed but is refused (a oneof conflict) still has its id
                    parsed_id = getattr(item.message, "id", "")[:MAX_ID_CHARS]
                    yield Work((index, parsed_id, "", None, None), error=item.to_error())
                    continue
                if len(item.id) > MAX_ID_CHARS:
                    # as a document's id (RULES §0.11 rule 4); echoed whole, a 4 MB id made its
                    # response too large for the client and ended the stream
                    yield Work((index, item.id[:MAX_ID_CHARS], "", None, None), error=status.RequestError(
                        f"id: text of {len(item.id):,} characters; an item's id holds at most {MAX_ID_CHARS} "
                        "(its response carries the first of them)", token=status.shorten(item.id, 20),
                        rule=ID_RULE, field="id"))
                    continue
                try:
                    mode = convert.mode_to_name(item.solve.mode)
                    limit = convert.timeout_limit(item.solve.timeout_seconds)
                    doc = convert.request_to_doc(item.solve, canonical_game=_canonical_game)
                    position = ddcards.Position.from_dict(doc)
                except Exception as exc:  # noqa: BLE001 - bad item: in-band error
                    yield Work((index, item.id, "", None, item.solve), error=exc)
                    continue
                yield Work((index, item.id, position.game, mode, item.solve),
                           partial(job, position, mode, limit))

        # At most `stream_window` items between their request and their response: a
        # client that does not read its responses stops the reading of its requests.
        pipe = Pipeline(items(), self._pool.submit, self._window, name="ddcards-stream-reader")

        def cancel_all() -> None:
            pipe.close()
            token.cancel()

        if not context.add_callback(cancel_all):
            cancel_all()
        stall = StallWatch(context, self._idle_timeout)
        last_sent = time.monotonic()
        poll = 0.25 if self._idle_timeout is None else min(0.25, self._idle_timeout / 2)
        try:
            while True:
                done = pipe.get(timeout=poll)
                if done is END:
                    if pipe.stopped:
                        # cancel_all closed it: the call ended under the stream (a cancel, its
                        # deadline, the server's stop), whose client heard no OK
                        raise SearchCancelled("the stream's call ended")
                    if pipe.source_error is not None:
                        log.debug("SolveStream request iterator ended: %s",
                                  calllog.log_field(repr(pipe.source_error), 200))
                    return
                if done is None:
                    if (self._idle_timeout is not None and pipe.outstanding == 0 and pipe.reading
                            and time.monotonic() - max(last_request[0], last_sent) > self._idle_timeout):
                        raise StreamIdle(f"no request for {self._idle_timeout:g} s and nothing in flight: the "
                                         "server closed the idle stream; open a new one when there is work",
                                         retry_after=0.0,
                                         metadata={"idle_timeout_seconds": f"{self._idle_timeout:g}"}) from None
                    continue
                (index, item_id, game, mode, request), exc = done.tag, done.error
                response = None
                if exc is None:
                    result = done.result
                    try:
                        response = pb.SolveStreamResponse(
                            id=item_id, index=index, result=convert.result_to_response(result, mode=mode, game=game))
                        calllog.note(game=game, nodes=result.nodes, items=1)
                    except Exception as conversion_error:  # noqa: BLE001 - e.g. a value the response cannot hold
                        exc = conversion_error
                if exc is not None:
                    if isinstance(exc, (SearchCancelled, SearchTimeout, CancelledError)) and (
                            pipe.stopped or _expired(stream_deadline)):
                        # the stream itself ended: its status is the answer; the log line still
                        # counts the search it stopped (its game and nodes)
                        calllog.note(game=game, nodes=getattr(exc, "nodes", 0))
                        raise exc
                    # a field of the item's `solve`, or of the item itself (its id; no request read)
                    failure = status.describe(exc, request, prefix="solve." if request is not None else "")
                    if failure.code is grpc.StatusCode.INTERNAL:
                        log.error("SolveStream item %d failed: %s", index, calllog.exception_text(exc))
                    calllog.note(nodes=getattr(exc, "nodes", 0), items=1)
                    response = pb.SolveStreamResponse(id=item_id, index=index, error=failure.to_error_message())
                assert response is not None     # the result's, or else (exc set) the item's error
                stall.writing()
                yield response                  # (grpc writes it before it asks for the next)
                stall.written()
                last_sent = time.monotonic()
        finally:
            stall.stop()
            cancel_all()
            _note_stopped(pipe)
            if stall.fired:
                log.info("SolveStream: the client took no response for %g s: the stream was closed",
                         self._idle_timeout)


def _note_stopped(pipe: Pipeline, wait: float = 0.5) -> None:
    """Count the nodes of the searches a stream stopped (the client gone, a shutdown) in its log
    line: they end within milliseconds of their cancel; at most ``wait`` seconds are given them."""
    end = time.monotonic() + wait
    while pipe.outstanding and time.monotonic() < end:
        done = pipe.get(timeout=max(0.0, end - time.monotonic()))
        if done is None or done is END:
            return
        nodes = done.result.nodes if done.error is None else getattr(done.error, "nodes", 0)
        calllog.note(nodes=nodes or 0)


# What AnalysePlayStream's analysis hands over after its last step
_ANALYSED = object()


def _note_analysis_stopped(handed: queue.SimpleQueue[Any], ended: list[Any], wait: float = 0.5) -> None:
    """Count the nodes of an AnalysePlayStream's analysis whose call ended before the stream took
    its outcome (the client gone with steps unsent) in the call's log line: the steps still
    handed over are passed by; a running analysis stops within milliseconds of the call's end, and
    at most ``wait`` seconds are given it (as ``_note_stopped`` a SolveStream's searches)."""
    end = time.monotonic() + wait
    while True:
        try:
            item = handed.get(timeout=max(0.0, end - time.monotonic()))
        except queue.Empty:
            return
        if item is _ANALYSED:
            calllog.note(nodes=getattr(ended[0], "nodes", 0) or 0)
            return


def _expired(deadline: _Deadline) -> bool:
    return deadline.at is not None and time.monotonic() >= deadline.at


def _canonical_game(name: str) -> str:
    return ddcards.find_game(name).name
