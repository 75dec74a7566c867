"""The API's arguments checked: the position, the mode, the time limit, the threads, where an
analysis starts, its callback; each wrong one named with the rule it breaks."""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, cast

from ddcards._core.search import CancelToken
from ddcards._jsonio import argument_shown, argument_token, shown, token_text
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError
from ddcards.position import Position
from ddcards.result import AnalysisStep, Mode

#: The most threads one search may use (``Solver.solve(..., threads=)``).
MAX_THREADS = 64

#: What solve() and analyse() take: a Position, a position document, or its JSON text (str, or UTF-8 bytes).
PositionLike: TypeAlias = Position | Mapping[str, Any] | str | bytes

MODE_RULE = "docs/RULES.md §0.8 rule 5: the mode is best, optimal or all"
ANALYSIS_MODE_RULE = ("docs/RULES.md §0.10: an analysis is in mode optimal (each step's optimal moves) or all "
                      "(every legal move's value too)")
FROM_PLY_RULE = ("docs/RULES.md §0.10: an analysis starts at a ply of the record, a whole number from 0 to the "
                 "number of recorded actions")


def _folded(mode: Mode | str) -> Mode | str:
    """A mode named in any case ("BEST"), as contracts and suits are."""
    return mode.strip().lower() if isinstance(mode, str) and not isinstance(mode, Mode) else mode


def check_mode(mode: Mode | str) -> Mode:
    """A solve's mode: best, optimal or all, a Mode or its name in any case."""
    try:
        return Mode(_folded(mode))
    except ValueError:
        if not isinstance(mode, str):                     # mode=5: a TypeError too
            raise InvalidArgumentTypeError(f"mode is a Mode or its name (best, optimal, all), not {mode!r}",
                                           token=str(mode), rule=MODE_RULE, field="mode") from None
        raise InvalidOptionError(f"unknown mode {mode!r} (modes: best, optimal, all)", token=str(mode),
                                 rule=MODE_RULE, field="mode") from None


def check_analysis_mode(mode: Mode | str) -> Mode:
    """An analysis's mode: optimal or all.  Mode best names one optimal move where a step needs
    all of them (its best_moves, and whether the move played was one)."""
    try:
        found = Mode(_folded(mode))
    except ValueError:
        if not isinstance(mode, str):
            raise InvalidArgumentTypeError(f"mode is a Mode or its name (optimal, all), not {mode!r} "
                                           f"({ANALYSIS_MODE_RULE})", token=str(mode), rule=ANALYSIS_MODE_RULE,
                                           field="mode") from None
        raise InvalidOptionError(f"unknown mode {mode!r} (an analysis's modes: optimal, all; {ANALYSIS_MODE_RULE})",
                                 token=str(mode), rule=ANALYSIS_MODE_RULE, field="mode") from None
    if found is Mode.BEST:
        raise InvalidOptionError("an analysis takes mode optimal or all, not best: each step lists every optimal "
                                 "move (best_moves) and whether the move played was one of them "
                                 f"({ANALYSIS_MODE_RULE})",
                                 token=str(mode), rule=ANALYSIS_MODE_RULE, field="mode")
    return found


TIMEOUT_RULE = "solve: timeout is None (no limit) or a number of seconds, at least 0"
CANCEL_RULE = "solve: cancel is None or a ddcards.CancelToken"
KEEP_TT_RULE = "solve: keep_tt is True or False"


def whole_argument(value: object) -> int | None:
    """`value` as the int a whole-number argument takes (threads, tt_mb, from_ply, jobs...): an
    int, or a number of another integer type (numpy's int64: one with ``__index__``, as
    ``range()`` takes it); None for anything else, a bool (Python's or numpy's) too."""
    if isinstance(value, bool):
        return None
    try:
        return int(operator.index(value))       # type: ignore[arg-type]
    except TypeError:                           # no __index__, or numpy's bool_, whose refuses
        return None


def check_timeout(timeout: float | None, name: str = "timeout") -> float | None:
    """`timeout` as a search takes it: None for no limit (None or infinity), else the seconds
    (0 stops before the search starts: SearchTimeout), as an int or a float (a real number of
    another type, numpy's or a Fraction, is taken as its value).  NaN and negative numbers are
    InvalidOptionError (an unbounded search from a NaN somewhere would be a silent fix);
    anything but a number is an InvalidArgumentTypeError (a DdcardsError and a TypeError)."""
    if timeout is None:
        return None
    given = timeout                         # as the caller wrote it, for the messages
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool):
        whole = whole_argument(timeout)
        if whole is None and (not isinstance(timeout, numbers.Real) or isinstance(timeout, bool)):
            raise InvalidArgumentTypeError(f"{name} must be a number of seconds or None, not {argument_shown(timeout)}",
                                           token=argument_token(timeout), rule=TIMEOUT_RULE, field=name)
        if whole is not None:
            timeout = whole
        else:
            try:
                timeout = float(timeout)
            except OverflowError:           # a Fraction beyond any float: its sign says which
                timeout = 10 ** 400 if timeout > 0 else -10 ** 400
    if isinstance(timeout, int) and timeout > 1e300:
        return None                         # beyond any float (10**400): no limit, as math.inf
    # (-10**400, beyond any float too, is compared as an int: math.isnan would raise OverflowError)
    if timeout < 0 or math.isnan(timeout):
        raise InvalidOptionError(f"{name} is a number of seconds, at least 0 (None or math.inf: no limit), "
                                 f"not {shown(given)}", token=token_text(given), rule=TIMEOUT_RULE, field=name)
    return None if math.isinf(timeout) else timeout


def check_limits(timeout: float | None, cancel: CancelToken | None, keep_tt: bool = False) -> float | None:
    """A search's timeout (as ``check_timeout`` answers it), its cancel token and keep_tt checked."""
    timeout = check_timeout(timeout)
    if cancel is not None and not isinstance(cancel, CancelToken):
        raise InvalidArgumentTypeError(f"cancel must be a ddcards.CancelToken or None, not {argument_shown(cancel)}",
                                       token=argument_token(cancel), rule=CANCEL_RULE, field="cancel")
    if not isinstance(keep_tt, bool):
        raise InvalidArgumentTypeError(f"keep_tt must be True or False, not {argument_shown(keep_tt)}",
                                       token=argument_token(keep_tt), rule=KEEP_TT_RULE, field="keep_tt")
    return timeout


def check_whole(value: object, low: int, high: int | None, message: str, *, rule: str, field: str) -> int:
    """`value` as the int a whole-number argument takes (any integer type: ``whole_argument``)
    from `low` to `high` (None: no upper bound); else the error saying `message`, naming the
    value as its token: an InvalidOptionError, or where `value` is no whole number at all
    (``threads="2"``) an InvalidArgumentTypeError, a TypeError too."""
    whole = whole_argument(value)
    if whole is None or whole < low or (high is not None and whole > high):
        error = InvalidOptionError if whole is not None else InvalidArgumentTypeError
        raise error(message, token=repr(value), rule=rule, field=field)
    return whole


def check_from_ply(from_ply: int, actions: int) -> int:
    """The ply an analysis starts at: 0 (the deal's start) to `actions` (the record's end)."""
    return check_whole(from_ply, 0, actions, f"from_ply is a whole number from 0 to {actions}, the recorded actions "
                       f"(got {from_ply!r}; {FROM_PLY_RULE})", rule=FROM_PLY_RULE, field="from_ply")


def check_threads(threads: int, rule: str = "solve: threads") -> int:
    """A search's threads: a whole number from 1 to MAX_THREADS (`rule`: the call's, for the error)."""
    return check_whole(threads, 1, MAX_THREADS, f"threads is a whole number from 1 to {MAX_THREADS} (got {threads!r})",
                       rule=rule, field="threads")


def as_position(position: PositionLike) -> Position:
    """What solve() takes as a position (a Position, its document, its JSON text) as a Position."""
    if isinstance(position, Position):
        return position
    if isinstance(position, (str, bytes, bytearray)):    # JSON text, or its UTF-8 bytes (as from_json)
        return Position.from_json(position)
    return Position.from_dict(position)


def check_step_callback(on_step: Any) -> Callable[[AnalysisStep], object] | None:
    """`on_step` checked: a function of one AnalysisStep, or None."""
    if on_step is not None and not callable(on_step):
        raise InvalidArgumentTypeError(f"on_step must be a function of one AnalysisStep or None, "
                                       f"not {argument_shown(on_step)}", token=argument_token(on_step),
                                       rule="analyse: on_step is called with each step", field="on_step")
    return cast(Callable[[AnalysisStep], object] | None, on_step)
