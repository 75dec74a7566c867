"""One search at a time in a Solver's table: calls from several threads take turns, each
waiting within its own timeout and cancel token, its arguments checked before it waits."""
from __future__ import annotations

import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast

from ddcards._core.search import CancelToken
from ddcards.api.arguments import (as_position, check_analysis_mode, check_from_ply, check_limits, check_mode,
                                   check_step_callback, check_threads)
from ddcards.errors import SearchAborted, SearchCancelled, SearchTimeout
from ddcards.position import Position
from ddcards.result import Mode

if TYPE_CHECKING:
    from ddcards.api.solver import Solver

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: How often a call waiting for a Solver another thread is searching with looks at its cancel token.
TURN_POLL_SECONDS = 0.02

#: What a call given a token cancelled before it began adds to its SearchCancelled's message.
STALE_TOKEN = ("its CancelToken was cancelled before this call began, and a token stays cancelled: "
               "give each search a new one")


def one_at_a_time(method: Callable[Concatenate[Solver, _P], _R]) -> Callable[Concatenate[Solver, _P], _R]:
    """A Solver method that uses its table: calls from several threads take turns (the table
    and its sizing are one per Solver; two searches at once in one table would corrupt it).

    A call's ``timeout`` and ``cancel`` cover its wait for its turn too: its arguments are
    checked before it waits (bad input is said at once, as are arguments the method does not
    take: a misspelt keyword's TypeError), it gives up with SearchTimeout or
    SearchCancelled (``nodes`` 0) if its time runs out or its token is cancelled while another
    thread's search holds the Solver, and its search gets what is left of its time.  A call given
    a token cancelled before it began says so in its SearchCancelled (``stale_token_told``)."""
    signature = inspect.signature(method)

    def taking_turns(solver: Solver, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with stale_token_told(kwargs.get("cancel")):
            return in_turn(solver, *args, **kwargs)

    def in_turn(solver: Solver, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if solver._turn.acquire(blocking=False):        # the Solver is free: the usual case
            try:
                return method(solver, *args, **kwargs)
            finally:
                solver._turn.release()
        try:
            signature.bind(solver, *args, **kwargs)
        except TypeError:
            # Arguments the method does not take (timout=, a mode given by position, no position):
            # Python's own TypeError for the call, said now. Binding fails before the method's
            # body runs, so nothing touches the table without the turn.
            return method(solver, *args, **kwargs)
        given = cast(dict[str, Any], kwargs)           # (the checks say what is wrong with a value)
        timeout = check_limits(given.get("timeout"), given.get("cancel"), given.get("keep_tt", False))
        cancel = given.get("cancel")
        if "threads" in given:
            check_threads(given["threads"])
        check = _CHECKED_BEFORE_THE_TURN.get(method.__name__)
        if check is not None:               # the position, the mode, from_ply: said now, not after the wait
            check(args, given)
        start = time.monotonic()
        try:
            with taking_turn(solver, start, timeout, cancel):
                if timeout is not None:
                    kwargs["timeout"] = max(0.0, timeout - (time.monotonic() - start))
                return method(solver, *args, **kwargs)
        except SearchAborted as exc:
            if method.__name__ == "analyse" and exc.steps is None:
                exc.steps = []          # it gave up waiting: no step finished (a list, as a later stop's)
            raise
    functools.update_wrapper(taking_turns, method)     # the method's name and docstring
    return taking_turns


@contextmanager
def stale_token_told(token: Any) -> Iterator[None]:
    """Around a call given `token`: if the token was cancelled before the call began, its
    SearchCancelled says so (once). A token stays cancelled, and one reused after an earlier
    search's cancel stops every later call at once, with a message ("the search was cancelled")
    that would not say why."""
    stale = isinstance(token, CancelToken) and token.cancelled
    try:
        yield
    except SearchCancelled as exc:
        if stale and exc.args and STALE_TOKEN not in str(exc.args[0]):
            exc.args = (f"{exc.args[0]} ({STALE_TOKEN})",) + exc.args[1:]
        raise


def _given_position(args: tuple[Any, ...], given: dict[str, Any]) -> Position | None:
    """The call's position read, or None where it names none (the call itself then says so)."""
    if not args and "position" not in given:
        return None
    return as_position(args[0] if args else given["position"])


def _check_value(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    _given_position(args, given)


def _check_solve(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    _given_position(args, given)
    check_mode(given.get("mode", Mode.ALL))


def _check_analyse(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    pos = _given_position(args, given)
    check_analysis_mode(given.get("mode", Mode.OPTIMAL))
    check_step_callback(given.get("on_step"))
    if pos is not None:
        check_from_ply(given.get("from_ply", 0), len(pos.played))


# What a call that must wait for a shared Solver has checked first (it may wait for minutes).
_CHECKED_BEFORE_THE_TURN: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], None]] = {
    "solve": _check_solve,
    "value": _check_value,
    "analyse": _check_analyse,
}


def _wait_for_turn(turn: threading.RLock, start: float, timeout: float | None, cancel: CancelToken | None) -> None:
    """Take `turn`, looking at `cancel` and the time left every TURN_POLL_SECONDS."""
    while True:
        wait = TURN_POLL_SECONDS if timeout is None else max(0.0, min(TURN_POLL_SECONDS,
                                                                      start + timeout - time.monotonic()))
        if turn.acquire(timeout=wait):
            return
        if cancel is not None and cancel.cancelled:
            raise SearchCancelled("the search was cancelled while it waited for this Solver's other search")
        if timeout is not None and time.monotonic() - start >= timeout:
            raise SearchTimeout(f"the search ran out of time ({timeout:g} s) while it waited for this "
                                "Solver's other search")


@contextmanager
def taking_turn(solver: Solver, start: float, timeout: float | None, cancel: CancelToken | None) -> Iterator[None]:
    """Hold `solver`'s turn for the block, as its own calls take it (``one_at_a_time``; a DD
    table's searches too): a wait for another thread's search gives up at `timeout` seconds from
    `start` (monotonic) or when `cancel` is cancelled; with neither there is nothing to give up for."""
    if not solver._turn.acquire(blocking=False):
        if timeout is None and cancel is None:
            solver._turn.acquire()
        else:
            _wait_for_turn(solver._turn, start, timeout, cancel)
    try:
        yield
    finally:
        solver._turn.release()
