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
from collections.abc import Mapping
from enum import Enum
from typing import Any

from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL, CancelToken, Searcher
from ddcards.errors import InvalidOptionError, SearchTimeout
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisStep, MoveValue, Result

__all__ = ["Mode", "Solver", "solve", "analyse", "CancelToken", "DEFAULT_TT_MB"]

DEFAULT_TT_MB = 2


class Mode(str, Enum):
    """Which moves a solve reports, as in DDS."""

    BEST = "best"        # the value and one optimal move
    OPTIMAL = "optimal"  # the value and every optimal move
    ALL = "all"          # the value of every legal move

    def __str__(self) -> str:
        return self.value


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


def _value_kind(session: Any) -> str:
    """"points" (a margin) or "outcome" (+1 / -1, or 0 where a game has a draw, e.g. a Mariasz race)."""
    kind = getattr(session, "value_kind", None)
    if kind:
        return kind
    return "points" if session.board.exact else "outcome"


def _position(position: Position | Mapping[str, Any] | str) -> Position:
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

    def value(self, position: Position | Mapping[str, Any] | str, *, timeout: float | None = None,
              cancel: CancelToken | None = None, keep_tt: bool = False) -> int:
        """The value of `position` alone: no move values, no principal variation (the fastest ask)."""
        _check_limits(timeout, cancel)
        pos = _position(position)
        if not keep_tt:
            self._searcher.clear()
        return self._searcher.value(pos.session().board, cancel, timeout)

    def solve(self, position: Position | Mapping[str, Any] | str, *, mode: Mode | str = Mode.ALL,
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
            game=pos.game, mode=mode.value, value=value,
            value_kind=_value_kind(session),
            to_move=None if session.over else session.to_move,
            optimal_moves=[m.move for m in moves if m.optimal],
            moves=moves,
            pv=[session.move_name(m) for m in raw_pv],
            scores=summary.scores, tricks=summary.tricks, won=summary.won,
            settlement=summary.settlement, outcomes=summary.outcomes,
            nodes=nodes, elapsed=elapsed, position=pos.to_dict(),
        )

    def analyse(self, position: Position | Mapping[str, Any] | str, *, timeout: float | None = None,
                cancel: CancelToken | None = None) -> Analysis:
        """The value before and after every recorded action of `position`, from the deal's start."""
        _check_limits(timeout, cancel)
        pos = _position(position)
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        session = pos.start().session()
        board = session.board
        self._searcher.clear()
        nodes = 0

        def remaining() -> float | None:
            if deadline is None:
                return None
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SearchTimeout("the analysis ran out of time")
            return left

        def solve_here() -> tuple[int, list[str]]:
            nonlocal nodes
            value, raw, _, n = self._searcher.solve(board, MODE_OPTIMAL, cancel, remaining(),
                                                    want_pv=False)
            nodes += n
            raw.sort(key=lambda mv: session.move_order(mv[0]))
            return value, [session.move_name(m) for m, v in raw if v == value]

        steps: list[AnalysisStep] = []
        value, best = solve_here()
        initial = value
        for ply, move in enumerate(pos.played):
            seat = session.to_move
            session.play(move)
            after, next_best = solve_here()
            cost = value - after if session.is_max(seat) else after - value
            steps.append(AnalysisStep(ply=ply, seat=seat, move=session.history[-1], value_before=value,
                                      value_after=after, best_moves=best, cost=cost, mistake=cost > 0))
            value, best = after, next_best
        return Analysis(game=pos.game, value_kind=_value_kind(session),
                        initial_value=initial, final_value=value, steps=steps, nodes=nodes,
                        elapsed=time.perf_counter() - start)


_local = threading.local()


def default_solver() -> Solver:
    """This thread's Solver (created on first use)."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(position: Position | Mapping[str, Any] | str, *, mode: Mode | str = Mode.ALL,
          timeout: float | None = None, cancel: CancelToken | None = None) -> Result:
    """Solve `position` with this thread's Solver; see Solver.solve."""
    return default_solver().solve(position, mode=mode, timeout=timeout, cancel=cancel)


def analyse(position: Position | Mapping[str, Any] | str, *, timeout: float | None = None,
            cancel: CancelToken | None = None) -> Analysis:
    """Analyse the recorded play of `position`; see Solver.analyse."""
    return default_solver().analyse(position, timeout=timeout, cancel=cancel)
