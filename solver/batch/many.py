"""Many positions on every core, or on any executor: what ``ddcards.solve_many`` runs.

Positions go out in *chunks* (a task solves several one after another), sized from the time
positions have taken so that a task takes about :data:`CHUNK_SECONDS` on an executor in
other processes (a Dask cluster, a process pool: one round trip per tenth of a second of
work, and the last tasks of a batch end close together) and about
:data:`THREAD_CHUNK_SECONDS` on threads of this process (where a round trip costs a few
microseconds).  The chunks run through a :class:`~ddcards.batch.pipeline.Pipeline`: at
most ``window`` of them outstanding, answers yielded as they finish.  One job with no
executor runs in the calling thread.
"""
from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from ddcards._jsonio import not_a_position
from ddcards.api import (DEFAULT_TT_MB, CancelToken, PositionLike, Solver, check_tables_fit, check_timeout,
                         check_tt_mb, whole_argument)
from ddcards.api.arguments import as_position, check_mode
from ddcards.errors import DdcardsError, InvalidArgumentTypeError, InvalidOptionError, SearchAborted
from ddcards.position import Position
from ddcards.result import Mode, Result
from ddcards.batch.pipeline import END, Done, Pipeline, Work

__all__ = ["Solved", "ExecutorFailure", "Task", "solve_tasks", "solve_chunk", "answers_of",
           "CHUNK_SECONDS", "THREAD_CHUNK_SECONDS"]

CHUNK_SECONDS = 0.1           # a task's work on an executor in other processes
THREAD_CHUNK_SECONDS = 0.002  # ... on this process's threads
CLIENT_CHECK_SECONDS = 1.0    # how often a Dask client is looked at while its answers are awaited
MAX_CHUNK = 1024
_RULE = "ddcards.solve_many: options"
#: (tag, result, error) for each task, as they finish; close() stops the work.
Answers = Generator[tuple[Any, "Result | None", "BaseException | None"], None, None]


@dataclass(frozen=True, slots=True)
class Solved:
    """One answer of :func:`ddcards.solve_many`: the position's place in the input and its
    :class:`~ddcards.Result`, or the error that stopped it (a ``DdcardsError`` for a bad
    position, ``SearchTimeout`` past the timeout, :class:`ExecutorFailure` when the
    executor lost its task)."""

    # It holds a Result, which is no dict key: say so plainly ("unhashable type: 'Solved'").
    __hash__ = None  # type: ignore[assignment]

    index: int
    result: Result | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        """Was it solved (``error`` None, ``result`` its Result)?  A type checker learns that from
        ``result is not None``, not from this property."""
        return self.error is None


class ExecutorFailure(RuntimeError):
    """The executor did not run a position's task (a worker died, the task was cancelled,
    the cluster went away): the position was not solved; running it again may."""


@dataclass(frozen=True, slots=True)
class Task:
    """A position to solve, tagged by the caller; ``position`` None passes the tag through
    unsolved, in its turn (for an answer the caller has already)."""

    tag: Any
    position: PositionLike | None


# ----------------------------------------------------------------- the work of one task

_local = threading.local()


def _thread_solver(tt_mb: int | None) -> Solver:
    """This thread's Solver of `tt_mb` MiB, or sized per game for None (a worker thread keeps
    its table between tasks)."""
    solver: Solver | None = getattr(_local, "solver", None)
    if solver is None or solver.sized_per_game != (tt_mb is None) or (tt_mb is not None and solver.tt_mb != tt_mb):
        solver = _local.solver = Solver(tt_mb=tt_mb)
    return solver


def solve_chunk(positions: list[PositionLike | _Refused], mode: str, timeout: float | None, tt_mb: int | None,
                cancel: Any = None, portable: bool = True) -> tuple[list[tuple[Result | None, BaseException | None]], float]:
    """Solve `positions` one after another: ([(result, error) each], seconds spent).

    The task a worker runs (importable, so that Dask and process pools can send it).
    With `portable`, an error that is neither a DdcardsError nor a stopped search (a bug)
    comes back as a RuntimeError naming it, so that any answer can be pickled home.
    """
    start = time.perf_counter()
    try:
        solver = _thread_solver(tt_mb)
    except DdcardsError as exc:
        # A table this worker cannot have (a remote worker with less memory than the caller's
        # machine, which checked tt_mb): each position's answer, as bad input, not a task the
        # executor lost (running the same job again could never help)
        return [(None, exc) for _ in positions], time.perf_counter() - start
    out: list[tuple[Result | None, BaseException | None]] = []
    for position in positions:
        if isinstance(position, _Refused):        # read where it was given (_portable)
            out.append((None, position.error))
            continue
        try:
            out.append((solver.solve(position, mode=mode, timeout=timeout, cancel=cancel), None))
        except (DdcardsError, SearchAborted) as exc:
            out.append((None, _detached(exc)))
        except Exception as exc:          # noqa: BLE001 - a bug, reported with its position
            out.append((None, RuntimeError(f"{type(exc).__name__}: {exc}") if portable else _detached(exc)))
    # An error's traceback holds this frame, which would hold the Solver: not past the return.
    del solver
    return out, time.perf_counter() - start


def _detached(exc: BaseException) -> BaseException:
    """`exc`, an answer handed out, without the variables of the finished frames its traceback
    passed through, which hold this worker's Solver (``self``, ``solver``) and so its table, up
    to 1 GiB, for as long as the answer is kept, whether or not the worker thread has ended
    (their lines stay in the traceback; solve_chunk's own frame, still running, lets its
    Solver go as it returns)."""
    traceback.clear_frames(exc.__traceback__)
    return exc


# ----------------------------------------------------------------- executors

class _Runner:
    """Where the chunks run: this thread (one job), our own threads, a caller's executor, or a
    Dask client's."""

    def __init__(self, jobs: int | None, executor: Any):
        self.owned: Executor | None = None
        self.executor: Any = None
        self.inline = False
        if executor is None:
            from ddcards.ddtable import available_threads

            self.parallel = jobs or available_threads()
            self.threads = True
            # One job needs no thread: handing every position between threads would only
            # make the Python parts of the work (reading, validating, writing) take turns
            # at the GIL.
            self.inline = self.parallel == 1
            if not self.inline:
                self.executor = self.owned = ThreadPoolExecutor(self.parallel, thread_name_prefix="ddcards-solve")
        elif _is_dask_client(executor):
            # a dask.distributed Client: its concurrent.futures face, one task per chunk
            self.executor = executor.get_executor(pure=False)
            self.parallel = jobs or max(1, sum(executor.nthreads().values()))
            self.threads = False
        else:
            self.executor = executor
            self.threads = isinstance(executor, ThreadPoolExecutor)
            self.parallel = jobs or getattr(executor, "_max_workers", None) or 1

    def close(self) -> None:
        if self.owned is not None:
            self.owned.shutdown(wait=True, cancel_futures=True)


class _ChunkSize:
    """How many positions the next task takes: fixed, or sized from the time positions took."""

    def __init__(self, fixed: int | None, seconds: float):
        self.fixed, self.seconds = fixed, seconds
        self.per_position: float | None = None      # moving mean of the seconds a position took

    def next(self) -> int:
        if self.fixed is not None:
            return self.fixed
        if self.per_position is None:
            return 1 if self.seconds < 0.01 else 4  # nothing measured yet
        return max(1, min(MAX_CHUNK, round(self.seconds / max(self.per_position, 1e-7))))

    def measured(self, seconds: float, count: int) -> None:
        if count:
            each = seconds / count
            self.per_position = each if self.per_position is None else self.per_position + (each - self.per_position) * 0.2


def _chunks(tasks: Iterable[Task], size: _ChunkSize, make_run: Any) -> Iterator[Work]:
    """Group the positions of `tasks` into Work items; a task without a position passes at once."""
    tags: list[Any] = []
    positions: list[Any] = []
    want = size.next()
    for task in tasks:
        if task.position is None:
            yield Work([task.tag], result=None)
            continue
        tags.append(task.tag)
        positions.append(task.position)
        if len(positions) >= want:
            yield Work(tags, make_run(positions))
            tags, positions, want = [], [], size.next()
    if positions:
        yield Work(tags, make_run(positions))


@dataclass(frozen=True, slots=True)
class _Refused:
    """A position read where it was given and refused: the error the worker answers for it."""

    error: DdcardsError


def _portable(position: PositionLike) -> PositionLike | _Refused:
    # A Position travels as its canonical document, rebuilt (and validated) by the worker.
    if isinstance(position, Position):
        return position.to_json()
    if isinstance(position, (dict, str, bytes, bytearray)):
        return position
    # Anything else may not pickle (an object that is no document, a mappingproxy, a memoryview),
    # which would lose its whole chunk, the good positions with it (ExecutorFailure): read here.
    try:
        return as_position(position).to_json()
    except DdcardsError as exc:
        return _Refused(exc)


def solve_tasks(tasks: Iterable[Task], *, jobs: int | None = None, executor: Any = None,
                mode: Mode | str = Mode.ALL, timeout: float | None = None, tt_mb: int | None = DEFAULT_TT_MB,
                window: int | None = None, chunk_size: int | None = None,
                cancel: CancelToken | None = None) -> Answers:
    """(tag, result, error) for every task, as each finishes; what solve_many and the batch job run.

    A task without a position comes back as (tag, None, None).  The options are checked
    here; the work starts when the first answer is asked for.  `cancel` (the batch job's):
    stops the searches here when it is cancelled (a Ctrl-C the job takes while a search runs
    on its own thread, the one job's).
    """
    mode_name = check_mode(mode).value
    timeout = check_timeout(timeout)
    tt_mb = check_tt_mb(tt_mb, here=not _is_dask_client(executor))   # a cluster's workers have memory of their own
    jobs = _check_count("jobs", jobs)
    window = _check_count("window", window)
    chunk_size = _check_count("chunk_size", chunk_size)
    if executor is not None and not isinstance(executor, Executor) and not _is_dask_client(executor):
        raise InvalidArgumentTypeError(f"executor must be a concurrent.futures.Executor or a dask.distributed Client, "
                                       f"not {type(executor).__name__}", token=type(executor).__name__,
                                       rule=_RULE, field="executor")
    if not _is_dask_client(executor):        # each search thread or process here holds a table
        check_tables_fit(_local_parallel(jobs, executor), tt_mb, "jobs", "tt_mb",
                         what="one per search at once", fewer="fewer jobs")
    return _run(tasks, jobs, executor, mode_name, timeout, tt_mb, window, chunk_size, cancel)


def _local_parallel(jobs: int | None, executor: Executor | None) -> int:
    """The searches at once on this machine: `jobs`, else the executor's workers or every CPU."""
    if jobs:
        return jobs
    if executor is None:
        from ddcards.ddtable import available_threads

        return available_threads()
    return getattr(executor, "_max_workers", None) or 1


def _check_count(name: str, value: Any) -> int | None:
    """`value` if it is None or a whole number at least 1 (as an int: numpy's int64 as its value)."""
    if value is None:
        return None
    whole = whole_argument(value)
    # of the wrong type: a TypeError too (InvalidArgumentTypeError), as every API argument
    error = InvalidArgumentTypeError if whole is None else InvalidOptionError
    if whole is None or whole < 1:
        raise error(f"{name} is a whole number, at least 1 (got {value!r})", token=repr(value), rule=_RULE, field=name)
    return whole


def _is_dask_client(executor: Any) -> bool:
    return callable(getattr(executor, "get_executor", None)) and callable(getattr(executor, "nthreads", None))


def _run(tasks: Iterable[Task], jobs: int | None, executor: Any, mode: str, timeout: float | None, tt_mb: int | None,
         window: int | None, chunk_size: int | None, given: CancelToken | None = None) -> Answers:
    runner = _Runner(jobs, executor)
    if runner.inline:
        # each position solved and its answer handed over before the next is read
        for work in _chunks(tasks, _ChunkSize(chunk_size or 1, 0.0),
                            lambda positions: partial(solve_chunk, positions, mode, timeout, tt_mb, given, False)):
            yield from _unpack(Done(work.tag, work.run() if work.run is not None else work.result), None)
        return
    size = _ChunkSize(chunk_size, THREAD_CHUNK_SECONDS if runner.threads else CHUNK_SECONDS)
    # stops our threads' searches when we stop
    cancel = (given or CancelToken()) if runner.threads else None

    def make_run(positions: list[Any]) -> Any:
        if runner.threads:
            return partial(solve_chunk, positions, mode, timeout, tt_mb, cancel, False)
        return partial(solve_chunk, [_portable(p) for p in positions], mode, timeout, tt_mb)

    pipe = Pipeline(_chunks(tasks, size, make_run), runner.executor.submit, window or 2 * runner.parallel)
    client = executor if _is_dask_client(executor) else None
    gone: str | None = None
    try:
        while True:
            # A Dask client that closes (it lost its scheduler and gave up reconnecting) leaves
            # some of its futures for ever pending: look at it while waiting, and when it is
            # gone cancel what is outstanding (each an ExecutorFailure) rather than wait.
            done = pipe.get(timeout=None if client is None or gone else CLIENT_CHECK_SECONDS)
            if done is None:
                gone = _client_gone(client)
                if gone:
                    pipe.abandon(RuntimeError(f"the Dask client is {gone}: it lost its scheduler"))
                continue
            if done is END:
                break
            yield from _unpack(done, size)
        if gone:
            raise ExecutorFailure(f"the Dask client is {gone} (it lost its scheduler): the positions not answered "
                                  "yet were not solved")
        if pipe.source_error is not None:
            raise pipe.source_error
    finally:
        pipe.close()
        if cancel is not None:
            cancel.cancel()
        runner.close()


def _client_gone(client: Any) -> str | None:
    """The Dask client's status if it can run nothing more (closed, or closing), else None."""
    status = getattr(client, "status", None)
    return status if status in ("closed", "closing") else None


def _unpack(done: Done, size: _ChunkSize | None) -> Iterator[tuple[Any, Result | None, BaseException | None]]:
    tags = done.tag
    if done.error is not None:
        # (a CancelledError says nothing of itself: a cluster cancels a task when it loses it)
        why = str(done.error) or ("the executor cancelled it (a Dask cluster does when its scheduler or the "
                                  "task's worker is lost)" if type(done.error).__name__.endswith("CancelledError") else
                                  "no reason given")
        failure = ExecutorFailure(f"the executor did not run this position's task: "
                                  f"{type(done.error).__name__}: {why}"[:500])
        failure.__cause__ = done.error
        for tag in tags:
            yield tag, None, failure
        return
    if done.result is None:                       # a task that passed through
        yield tags[0], None, None
        return
    answers, seconds = done.result
    if size is not None:
        size.measured(seconds, len(answers))
    for tag, (result, error) in zip(tags, answers):
        yield tag, result, error


def answers_of(answers: Answers) -> Generator[Solved, None, None]:
    """solve_many's answers: each (index, result, error) as a Solved (closing this closes them)."""
    try:
        for index, result, error in answers:
            if result is None and error is None:
                # solve_many's tasks all hold a position: None is one (the pass-through is the CLI's)
                error = not_a_position(None, given=True)
            yield Solved(index, result, error)
    finally:
        answers.close()
