"""The Python API: solve a position, analyse a recorded deal.

>>> import ddcards
>>> pos = ddcards.Position.from_dict(ddcards.example("marias-betl"))
>>> res = ddcards.solve(pos)
>>> res.value, res.won
(1, True)
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any

from ddcards._core.search import CancelToken
from ddcards._jsonio import argument_shown, argument_token
from ddcards.errors import InvalidArgumentTypeError
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisStep, Mode, Result

# The parts, a module each (arguments, memory, turns, solver, analysis, moves); what the one
# module offered is offered here too (`X as X`: re-exported, for mypy --strict's importers).
from ddcards.api.arguments import (ANALYSIS_MODE_RULE as ANALYSIS_MODE_RULE, CANCEL_RULE as CANCEL_RULE,
                                   FROM_PLY_RULE as FROM_PLY_RULE, KEEP_TT_RULE as KEEP_TT_RULE,
                                   MAX_THREADS as MAX_THREADS, MODE_RULE as MODE_RULE, TIMEOUT_RULE as TIMEOUT_RULE,
                                   PositionLike as PositionLike, check_from_ply as check_from_ply,
                                   check_timeout as check_timeout, whole_argument as whole_argument)
from ddcards.api.memory import (DEFAULT_TT_MB as DEFAULT_TT_MB, GROWTH_MB_PER_SECOND as GROWTH_MB_PER_SECOND,
                                TT_MB_LIMIT as TT_MB_LIMIT, TT_MB_RULE as TT_MB_RULE,
                                check_tables_fit as check_tables_fit, check_tt_mb as check_tt_mb,
                                first_table_mb as first_table_mb, first_tables_memory_mb as first_tables_memory_mb,
                                largest_table_mb as largest_table_mb, physical_memory_mb as physical_memory_mb,
                                table_memory_mb as table_memory_mb, table_sizes_text as table_sizes_text,
                                tt_mb_limit as tt_mb_limit)
from ddcards.api.turns import TURN_POLL_SECONDS as TURN_POLL_SECONDS, taking_turn as taking_turn
from ddcards.api.solver import Solver as Solver

__all__ = ["Mode", "Solver", "solve", "analyse", "solve_many", "CancelToken", "DEFAULT_TT_MB", "MAX_THREADS",
           "PositionLike"]


_local = threading.local()


def default_solver() -> Solver:
    """This thread's Solver (created on first use)."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(position: PositionLike, *, mode: Mode | str = Mode.ALL,
          timeout: float | None = None, cancel: CancelToken | None = None, threads: int = 1) -> Result:
    """Solve `position` with this thread's Solver; see Solver.solve."""
    return default_solver().solve(position, mode=mode, timeout=timeout, cancel=cancel, threads=threads)


def analyse(position: PositionLike, *, timeout: float | None = None,
            cancel: CancelToken | None = None, mode: Mode | str = Mode.OPTIMAL, threads: int = 1,
            from_ply: int = 0, on_step: Callable[[AnalysisStep], object] | None = None) -> Analysis:
    """Analyse the recorded play of `position`; see Solver.analyse."""
    return default_solver().analyse(position, timeout=timeout, cancel=cancel, mode=mode, threads=threads,
                                    from_ply=from_ply, on_step=on_step)


def solve_many(positions: Iterable[PositionLike], *, jobs: int | None = None, executor: Any = None,
               mode: Mode | str = Mode.ALL, timeout: float | None = None, tt_mb: int | None = DEFAULT_TT_MB,
               window: int | None = None, chunk_size: int | None = None) -> Generator[Solved, None, None]:
    """Solve every position of `positions` in parallel, yielding a ``Solved`` for each as it finishes.

    ``Solved.index`` is the position's place in `positions` (answers come in the order they
    finish); ``Solved.result`` is its Result, or ``Solved.error`` what stopped it: a
    DdcardsError for a bad position, SearchTimeout past `timeout` (seconds, per position),
    ``ExecutorFailure`` when the executor lost the task.  One bad position costs only itself.

    Where the searches run: `jobs` threads of this process (default: every CPU it may use;
    the searches release the GIL), or `executor`: any ``concurrent.futures.Executor`` (a
    ``ThreadPoolExecutor`` is used as it is; others, such as a ``ProcessPoolExecutor``,
    get chunks of positions as documents) or a ``dask.distributed.Client`` (chunks of
    positions per task on the cluster's workers, which need ddcards installed).

    `positions` is read on a thread of its own (with ``jobs=1`` and no executor, all runs
    in the calling thread), at most `window` tasks (default: twice the searches that run
    at once) ahead of the answers taken; a task is a chunk of positions
    (`chunk_size`; by default sized from the time positions take).  Closing the generator,
    or leaving the ``for`` loop, stops the work: on threads (our own, or a
    ``ThreadPoolExecutor``) the searches under way too; on another executor (a
    ``ProcessPoolExecutor``, a Dask client) the tasks not started, while a chunk already
    running in another process runs to its end (`timeout` bounds it; a process pool's
    ``shutdown(wait=True)`` waits for it).  Each search thread keeps a Solver of
    `tt_mb` MiB (default: sized per game, see ``Solver``).

    >>> import ddcards
    >>> docs = [ddcards.example("marias-hra"), ddcards.example("marias-betl"), {"game": "marias"}]
    >>> for done in sorted(ddcards.solve_many(docs, jobs=2), key=lambda d: d.index):
    ...     print(done.index, done.result.value if done.result is not None else type(done.error).__name__)
    0 70
    1 1
    2 InvalidDealError
    """
    from ddcards.batch.many import Task, answers_of, solve_tasks

    if isinstance(positions, (str, bytes, bytearray, memoryview, Mapping, Position)):
        # one position, not an iterable of them (a str or a dict would iterate by characters or keys)
        raise InvalidArgumentTypeError(f"solve_many takes an iterable of positions, not one "
                                       f"{type(positions).__name__} (a list of one, or ddcards.solve)",
                                       token=type(positions).__name__, rule="solve_many: an iterable of positions",
                                       field="positions")
    try:
        source = iter(positions)
    except TypeError:
        raise InvalidArgumentTypeError(f"solve_many takes an iterable of positions, not {argument_shown(positions)}",
                                       token=argument_token(positions), rule="solve_many: an iterable of positions",
                                       field="positions") from None
    tasks = (Task(index, position) for index, position in enumerate(source))
    return answers_of(solve_tasks(tasks, jobs=jobs, executor=executor, mode=mode, timeout=timeout, tt_mb=tt_mb,
                                  window=window, chunk_size=chunk_size))


# At the end, once this module's names exist (ddcards.batch.many imports them): the name
# solve_many's annotation uses, there for typing.get_type_hints at run time too.
from ddcards.batch.many import Solved  # noqa: E402
