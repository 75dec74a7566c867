"""The Python API: solve a position, analyse a recorded deal.

>>> import ddcards
>>> pos = ddcards.Position.from_dict(ddcards.example("marias-betl"))
>>> res = ddcards.solve(pos)
>>> res.value, res.won
(1, True)
"""
from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL, CancelToken, Searcher
from ddcards.errors import InvalidOptionError, SearchTimeout
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisStep, Mode, MoveValue, Result, ValueKind

if TYPE_CHECKING:
    from ddcards.batch.many import Solved

__all__ = ["Mode", "Solver", "solve", "analyse", "solve_many", "CancelToken", "DEFAULT_TT_MB", "PositionLike"]

DEFAULT_TT_MB = 2

#: What solve() and analyse() take: a Position, a position document, or its JSON text.
PositionLike: TypeAlias = Position | Mapping[str, Any] | str

_MODE_CODE = {Mode.BEST: MODE_BEST, Mode.OPTIMAL: MODE_OPTIMAL, Mode.ALL: MODE_ALL}


def _mode(mode: Mode | str) -> Mode:
    try:
        return Mode(mode)
    except ValueError:
        raise InvalidOptionError(f"unknown mode {mode!r} (modes: best, optimal, all)", token=str(mode),
                                 rule="solve modes") from None


def _check_limits(timeout: float | None, cancel: CancelToken | None) -> None:
    if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)):
        raise TypeError(f"timeout must be a number of seconds or None, not {timeout!r}")
    if cancel is not None and not isinstance(cancel, CancelToken):
        raise TypeError(f"cancel must be a ddcards.CancelToken or None, not {cancel!r}")


def _position(position: PositionLike) -> Position:
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_json(position)
    return Position.from_dict(position)


class Solver:
    """A solver with its own transposition table (at most `tt_mb` MiB, plus a
    256 KiB side area where a game keeps exact sub-results, e.g. Klaverjas's
    two-trick endgames).

    Not thread-safe: give each thread its own.  Searches release the GIL, so
    threads with their own Solver run in parallel.
    """

    def __init__(self, tt_mb: int = DEFAULT_TT_MB):
        if not isinstance(tt_mb, int) or isinstance(tt_mb, bool) or tt_mb < 1:
            raise ValueError(f"tt_mb must be a whole number of MiB, at least 1 (got {tt_mb!r})")
        self._searcher = Searcher(tt_mb)

    @property
    def tt_mb(self) -> int:
        return self._searcher.tt_mb

    def clear(self) -> None:
        """Forget the table's contents (O(1))."""
        self._searcher.clear()

    @property
    def last_nodes(self) -> int:
        """Nodes searched by the last call."""
        return self._searcher.nodes

    def value(self, position: PositionLike, *, timeout: float | None = None,
              cancel: CancelToken | None = None, keep_tt: bool = False) -> int:
        """The value of `position` alone: no move values, no principal variation (the fastest ask)."""
        _check_limits(timeout, cancel)
        pos = _position(position)
        if not keep_tt:
            self._searcher.clear()
        return self._searcher.value(pos.session().board, cancel, timeout)

    def solve(self, position: PositionLike, *, mode: Mode | str = Mode.ALL,
              timeout: float | None = None, cancel: CancelToken | None = None,
              keep_tt: bool = False) -> Result:
        """Solve `position`: its value, the moves by `mode`, the principal variation.

        Raises SearchTimeout after `timeout` seconds and SearchCancelled when
        `cancel` is cancelled; DdcardsError subclasses for bad input.
        """
        _check_limits(timeout, cancel)
        pos = _position(position)
        mode = _mode(mode)
        session = pos.session()
        board = session.board
        if not keep_tt:
            self._searcher.clear()
        start = time.perf_counter()
        value, raw_moves, raw_pv, nodes = self._searcher.solve(board, _MODE_CODE[mode], cancel, timeout)
        elapsed = time.perf_counter() - start
        raw_moves.sort(key=lambda mv: session.move_order(mv[0]))
        moves = [MoveValue(session.move_name(m), v, v == value) for m, v in raw_moves]
        summary = session.summary(raw_pv, value)
        return Result(
            game=pos.game, mode=mode, value=value, value_kind=_value_kind(board.exact),
            to_move=None if session.over else session.to_move,
            optimal_moves=[m.move for m in moves if m.optimal],
            moves=moves,
            pv=[session.move_name(m) for m in raw_pv],
            scores=summary.scores, tricks=summary.tricks, won=summary.won,
            settlement=summary.settlement, outcomes=summary.outcomes,
            nodes=nodes, elapsed=elapsed, position=pos.to_dict(),
        )

    def analyse(self, position: PositionLike, *, timeout: float | None = None,
                cancel: CancelToken | None = None, mode: Mode | str = Mode.OPTIMAL) -> Analysis:
        """The value before and after every recorded action of `position`, from the deal's start.

        Each step also says whether the action changed the outcome, which seat
        won the trick it completed and the score after it; ``final`` is the
        solve after the last action (its continuation, final scores and
        settlement).  With ``mode="all"`` each step lists every legal move's
        value, as a solve in mode "all" would.
        """
        _check_limits(timeout, cancel)
        pos = _position(position)
        mode = _mode(mode)
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        session = pos.start().session()
        board = session.board
        value_kind = _value_kind(board.exact)
        self._searcher.clear()
        nodes = 0

        def remaining() -> float | None:
            if deadline is None:
                return None
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SearchTimeout("the analysis ran out of time")
            return left

        def solve_here() -> tuple[int, list[MoveValue]]:
            nonlocal nodes
            value, raw, _, n = self._searcher.solve(board, _MODE_CODE[mode], cancel, remaining(),
                                                    want_pv=False)
            nodes += n
            raw.sort(key=lambda mv: session.move_order(mv[0]))
            return value, [MoveValue(session.move_name(m), v, v == value) for m, v in raw]

        def outcome(value: int) -> str:
            # the game's own words on a value here ("declarer wins", "nat: ...")
            return session.verdict(value, session.summary((), value).won, value_kind)

        steps: list[AnalysisStep] = []
        deal = dict(session.view(), position=pos.to_dict())
        value, moves = solve_here()
        initial, initial_outcome = value, outcome(value)
        value_outcome = initial_outcome
        for ply, move in enumerate(pos.played):
            seat = session.to_move
            session.play(move)
            after, next_moves = solve_here()
            after_outcome = outcome(after)
            cost = value - after if session.is_max(seat) else after - value
            # A trick game's trick is done when the table is cleared; its winner leads next.
            done = session.trick_size is not None and not session.describe().get("trick")
            steps.append(AnalysisStep(
                ply=ply, seat=seat, move=session.history[-1], value_before=value, value_after=after,
                best_moves=[m.move for m in moves if m.optimal], cost=cost, mistake=cost > 0,
                changes_outcome=after_outcome != value_outcome, outcome=after_outcome,
                moves=moves if mode is Mode.ALL else [],
                trick_winner=session.to_move if done else None, score=session.scores_now()))
            value, moves, value_outcome = after, next_moves, after_outcome
        final = self.solve(pos, mode=mode, timeout=remaining(), cancel=cancel, keep_tt=True)
        nodes += final.nodes
        return Analysis(game=pos.game, value_kind=value_kind,
                        initial_value=initial, final_value=value, steps=steps, nodes=nodes,
                        elapsed=time.perf_counter() - start, mode=mode.value, deal=deal,
                        initial_outcome=initial_outcome, final_outcome=value_outcome, final=final)


def _value_kind(exact: bool) -> ValueKind:
    return "points" if exact else "outcome"


_local = threading.local()


def default_solver() -> Solver:
    """This thread's Solver (created on first use)."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(position: PositionLike, *, mode: Mode | str = Mode.ALL,
          timeout: float | None = None, cancel: CancelToken | None = None) -> Result:
    """Solve `position` with this thread's Solver; see Solver.solve."""
    return default_solver().solve(position, mode=mode, timeout=timeout, cancel=cancel)


def analyse(position: PositionLike, *, timeout: float | None = None,
            cancel: CancelToken | None = None, mode: Mode | str = Mode.OPTIMAL) -> Analysis:
    """Analyse the recorded play of `position`; see Solver.analyse."""
    return default_solver().analyse(position, timeout=timeout, cancel=cancel, mode=mode)


def solve_many(positions: Iterable[PositionLike], *, jobs: int | None = None, executor: Any = None,
               mode: Mode | str = Mode.ALL, timeout: float | None = None, tt_mb: int = DEFAULT_TT_MB,
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
    or leaving the ``for`` loop, stops the work.  Each search thread keeps a Solver of
    `tt_mb` MiB.

    >>> import ddcards
    >>> docs = [ddcards.example("marias-hra"), ddcards.example("marias-betl"), {"game": "marias"}]
    >>> for done in sorted(ddcards.solve_many(docs, jobs=2), key=lambda d: d.index):
    ...     print(done.index, done.result.value if done.ok else type(done.error).__name__)
    0 70
    1 1
    2 InvalidOptionError
    """
    from ddcards.batch.many import Task, answers_of, solve_tasks

    tasks = (Task(index, position) for index, position in enumerate(positions))
    return answers_of(solve_tasks(tasks, jobs=jobs, executor=executor, mode=mode, timeout=timeout, tt_mb=tt_mb,
                                  window=window, chunk_size=chunk_size))
