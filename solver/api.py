"""The Python API: solve a position, analyse a recorded deal.

>>> import ddcards
>>> pos = ddcards.Position.from_dict(ddcards.example("marias-betl"))
>>> res = ddcards.solve(pos)
>>> res.value, res.won
(1, True)
"""
from __future__ import annotations

import math
import numbers
import operator
import os
import threading
import time
import functools
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeAlias, TypeVar, cast

from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL, CancelToken, Searcher, side_area_bytes
from ddcards._jsonio import argument_shown, argument_token, shown, token_text
from ddcards.errors import (DdcardsError, InvalidArgumentTypeError, InvalidOptionError, SearchAborted, SearchCancelled,
                            SearchTimeout, TableMemoryError)
from ddcards.games import _search_budget
from ddcards.games.base import DEFAULT_TABLE_MB, Session
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisProgress, AnalysisStep, Mode, MoveValue, Result, SearchProgress

__all__ = ["Mode", "Solver", "solve", "analyse", "solve_many", "CancelToken", "DEFAULT_TT_MB", "MAX_THREADS",
           "PositionLike"]

#: The default of every ``tt_mb`` (Solver, solve_many, the CLI's and the server's ``--tt-mb``):
#: None, a table sized per game (``Position.table_mb``: 2 MiB, 32 for Mariasz, up to 1024 early in a deal).
DEFAULT_TT_MB: int | None = None
#: The most threads one search may use (``Solver.solve(..., threads=)``).
MAX_THREADS = 64

#: What solve() and analyse() take: a Position, a position document, or its JSON text (str, or UTF-8 bytes).
PositionLike: TypeAlias = Position | Mapping[str, Any] | str | bytes

_MODE_CODE = {Mode.BEST: MODE_BEST, Mode.OPTIMAL: MODE_OPTIMAL, Mode.ALL: MODE_ALL}


MODE_RULE = "docs/RULES.md §0.8 rule 5: the mode is best, optimal or all"
ANALYSIS_MODE_RULE = ("docs/RULES.md §0.10: an analysis is in mode optimal (each step's optimal moves) or all "
                      "(every legal move's value too)")
FROM_PLY_RULE = ("docs/RULES.md §0.10: an analysis starts at a ply of the record, a whole number from 0 to the "
                 "number of recorded actions")


def _folded(mode: Mode | str) -> Mode | str:
    """A mode named in any case ("BEST"), as contracts and suits are."""
    return mode.strip().lower() if isinstance(mode, str) and not isinstance(mode, Mode) else mode


def _mode(mode: Mode | str) -> Mode:
    try:
        return Mode(_folded(mode))
    except ValueError:
        if not isinstance(mode, str):                     # mode=5: a TypeError too
            raise InvalidArgumentTypeError(f"mode is a Mode or its name (best, optimal, all), not {mode!r}",
                                           token=str(mode), rule=MODE_RULE, field="mode") from None
        raise InvalidOptionError(f"unknown mode {mode!r} (modes: best, optimal, all)", token=str(mode),
                                 rule=MODE_RULE, field="mode") from None


def _analysis_mode(mode: Mode | str) -> Mode:
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


def _check_limits(timeout: float | None, cancel: CancelToken | None, keep_tt: bool = False) -> float | None:
    timeout = check_timeout(timeout)
    if cancel is not None and not isinstance(cancel, CancelToken):
        raise InvalidArgumentTypeError(f"cancel must be a ddcards.CancelToken or None, not {argument_shown(cancel)}",
                                       token=argument_token(cancel), rule=CANCEL_RULE, field="cancel")
    if not isinstance(keep_tt, bool):
        raise InvalidArgumentTypeError(f"keep_tt must be True or False, not {argument_shown(keep_tt)}",
                                       token=argument_token(keep_tt), rule=KEEP_TT_RULE, field="keep_tt")
    return timeout


def check_from_ply(from_ply: int, actions: int) -> int:
    """The ply an analysis starts at: 0 (the deal's start) to `actions` (the record's end)."""
    whole = whole_argument(from_ply)
    if whole is None or not 0 <= whole <= actions:
        error = InvalidOptionError if whole is not None else InvalidArgumentTypeError
        raise error(f"from_ply is a whole number from 0 to {actions}, the recorded actions (got {from_ply!r}; "
                    f"{FROM_PLY_RULE})", token=repr(from_ply), rule=FROM_PLY_RULE, field="from_ply")
    return whole


def _threads(threads: int, rule: str = "solve: threads") -> int:
    whole = whole_argument(threads)
    if whole is None or not 1 <= whole <= MAX_THREADS:
        error = InvalidOptionError if whole is not None else InvalidArgumentTypeError  # threads="2": a TypeError too
        raise error(f"threads is a whole number from 1 to {MAX_THREADS} (got {threads!r})",
                    token=repr(threads), rule=rule, field="threads")
    return whole


#: The largest table any ``tt_mb`` may ask for where this machine's memory is not known (MiB).
TT_MB_LIMIT = 1 << 24
TT_MB_RULE = "tt_mb: None (sized per game) or a whole number of MiB, from 1 to this machine's memory"


def physical_memory_mb() -> int | None:
    """This machine's physical memory in MiB, or None where the system does not say."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return pages * page_size // (1024 * 1024)


def tt_mb_limit() -> int:
    """The largest ``tt_mb`` (MiB): this machine's physical memory (TT_MB_LIMIT if unknown)."""
    memory = physical_memory_mb()
    return TT_MB_LIMIT if memory is None else min(memory, TT_MB_LIMIT)


def check_tt_mb(tt_mb: int | None, name: str = "tt_mb", *, here: bool = True, unset: str | None = None
                ) -> int | None:
    """`tt_mb` if it is a table size: None (sized per game) or a whole number of MiB from 1 to
    this machine's physical memory (``tt_mb_limit()``; `here` False: the tables are another
    machine's, TT_MB_LIMIT); else InvalidOptionError naming the value and the range (`name`:
    the option as the caller knows it, e.g. "--tt-mb"; `unset`: what the message says leaving it
    unset gives, where that is not a table sized per game)."""
    if tt_mb is None:
        return None
    limit = tt_mb_limit() if here else TT_MB_LIMIT
    whole = whole_argument(tt_mb)
    if whole is None:
        why = "is not a whole number"
    elif whole < 1:
        why = "is too small"
    elif whole > limit:
        why = "is too large"
    else:
        return whole
    memory = "this machine's memory" if here and physical_memory_mb() is not None else "the most a table may take"
    if unset is None:
        unset = ("leave it out" if name.startswith("-") else "give None") + " for a table sized per game"
    given = argument_shown(tt_mb)           # a Python argument: True, as passed
    error = InvalidArgumentTypeError if why == "is not a whole number" else InvalidOptionError
    raise error(f"{name} {given} {why}: a table takes 1 to {limit:,} MiB ({memory}); "
                f"{unset}", token=token_text(tt_mb), rule=TT_MB_RULE, field=name)


def first_table_mb(tt_mb: int | None) -> int:
    """The table (MiB) a Solver of `tt_mb` allocates when it is made: `tt_mb`, or sized per game
    (None) the smallest, which grows at the first search that wants more."""
    return DEFAULT_TABLE_MB if tt_mb is None else tt_mb


def largest_table_mb() -> int:
    """The most a table sized per game grows to (MiB): the largest any position asks for."""
    from ddcards.games import list_games
    return max(info.largest_table_mb for info in list_games())


def table_memory_mb(tt_mb: int) -> int:
    """The memory (MiB, rounded up) a table of `tt_mb` MiB takes with its side area (an eighth of
    the table, 256 KiB to 16 MiB): what a worker's or thread's Solver may hold at most."""
    return tt_mb + -(-side_area_bytes(tt_mb) // (1024 * 1024))


def first_tables_memory_mb(count: int, tt_mb: int | None) -> int:
    """The memory (MiB) `count` Solvers of `tt_mb` take when they are made: each its first table
    (``first_table_mb``) and its side area."""
    return count * table_memory_mb(first_table_mb(tt_mb))


def check_tables_fit(count: int, tt_mb: int | None, count_name: str, tt_name: str, *, what: str,
                     fewer: str) -> None:
    """InvalidOptionError (naming `count_name`) unless `count` tables of `tt_mb` (as a Solver
    allocates first: ``first_table_mb``), each with its side area, fit in this machine's
    memory. For the message: `what` says where the tables are, `fewer` what to give fewer of."""
    memory = physical_memory_mb()
    needed = first_tables_memory_mb(count, tt_mb)
    if memory is None or needed <= memory:
        return
    table = f"{tt_name} {tt_mb}" if tt_mb is not None else "a table sized per game"
    each = table_memory_mb(first_table_mb(tt_mb))
    raise InvalidOptionError(
        f"{count_name} {count} x {table}: the tables take {needed:,} MiB ({what}; each {each:,} MiB "
        f"with its side area), more than this machine's memory, {memory:,} MiB: give {fewer} or a smaller "
        f"table", token=str(count), rule=f"{count_name} x the table fit in the machine's memory",
        field=count_name.lstrip("-").replace("-", "_"))


def table_sizes_text() -> str:
    """The tables sized per game, for people: "2 MiB, 32 for mariasz (up to 1024 early in a deal)"."""
    from ddcards.games import list_games
    larger = [f"{info.table_mb} for {info.name}"
              + (f" (up to {info.table_mb_max} early in a deal)" if info.table_mb_max > info.table_mb else "")
              for info in list_games() if info.largest_table_mb != DEFAULT_TABLE_MB]
    return ", ".join([f"{DEFAULT_TABLE_MB} MiB"] + larger)


_P = ParamSpec("_P")
_R = TypeVar("_R")


#: A table sized per game grows past its game's own size for a search with a time limit only as
#: far as this many MiB a second of the limit. The kernel backs a new table as the search first
#: touches it, 2 MiB huge pages zeroed at a time, and a search's first stores fall all over it: a
#: fresh 36-card Mariasz deal's 1 GiB took 2.9 s of system time in its first 10,000 nodes, which a
#: 3-second timeout spent before the search had begun (2026-12-05). 64 MiB a second: 192 MiB for 3.
GROWTH_MB_PER_SECOND = 64

#: How often a call waiting for a Solver another thread is searching with looks at its cancel token.
TURN_POLL_SECONDS = 0.02


def _one_at_a_time(method: Callable[Concatenate[Solver, _P], _R]) -> Callable[Concatenate[Solver, _P], _R]:
    """A Solver method that uses its table: calls from several threads take turns (the table
    and its sizing are one per Solver; two searches at once in one table would corrupt it).

    A call's ``timeout`` and ``cancel`` cover its wait for its turn too: its arguments are
    checked before it waits (bad input is said at once), it gives up with SearchTimeout or
    SearchCancelled (``nodes`` 0) if its time runs out or its token is cancelled while another
    thread's search holds the Solver, and its search gets what is left of its time."""
    def taking_turns(solver: Solver, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if solver._turn.acquire(blocking=False):        # the Solver is free: the usual case
            try:
                return method(solver, *args, **kwargs)
            finally:
                solver._turn.release()
        given = cast(dict[str, Any], kwargs)           # (the checks say what is wrong with a value)
        timeout = _check_limits(given.get("timeout"), given.get("cancel"), given.get("keep_tt", False))
        cancel = given.get("cancel")
        if "threads" in given:
            _threads(given["threads"])
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


def _given_position(args: tuple[Any, ...], given: dict[str, Any]) -> Position | None:
    """The call's position read, or None where it names none (the call itself then says so)."""
    if not args and "position" not in given:
        return None
    return _position(args[0] if args else given["position"])


def _check_value(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    _given_position(args, given)


def _check_solve(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    _given_position(args, given)
    _mode(given.get("mode", Mode.ALL))


def _check_analyse(args: tuple[Any, ...], given: dict[str, Any]) -> None:
    pos = _given_position(args, given)
    _analysis_mode(given.get("mode", Mode.OPTIMAL))
    _step_callback(given.get("on_step"))
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
    """Hold `solver`'s turn for the block, as its own calls take it (``_one_at_a_time``; a DD
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


def _position(position: PositionLike) -> Position:
    if isinstance(position, Position):
        return position
    if isinstance(position, (str, bytes, bytearray)):    # JSON text, or its UTF-8 bytes (as from_json)
        return Position.from_json(position)
    return Position.from_dict(position)


class Solver:
    """A solver with its own transposition table (at most `tt_mb` MiB, plus a
    side area of an eighth of it, 256 KiB to 16 MiB, where a game keeps exact
    sub-results, e.g. Klaverjas's two-trick endgames, Mariasz's last tricks).

    tt_mb=None (the default): the table is sized per game, as each position
    asks (``Position.table_mb``): 2 MiB (it stays in a core's L2 cache, the
    fastest for Mariáš, Klaverjas and Prší), 32 MiB for Mariasz, whose long
    searches need room, and more early in a long Mariasz deal solved for
    points (a race keeps 32): 128 MiB with 16 or more cards left in a
    two-player stock, up to 1024 MiB for a fresh 36-card deal, 128 MiB for
    the first tricks of a 36-card three-player one.
    The table starts at 2 MiB and grows, empty, the first time a search
    wants more; it keeps that memory after (a Solver that alternates games
    allocates once, not at every switch), and a smaller search runs in a
    part of it, exactly as in a table of its own (the same nodes, whatever
    ran before; ``tt_mb`` is the size in use, ``tt_allocated_mb`` the memory
    held).  A table beyond the game's own size that cannot be had gives way
    to the game's own size; one of the game's own size that cannot grow
    raises TableMemoryError, and the Solver keeps the one it has.  A search
    with a timeout grows the memory past its game's own size only by
    GROWTH_MB_PER_SECOND (64) MiB a second of it (the kernel's backing of a
    new table costs time); memory held serves whole.  tt_mb=N: N MiB for
    every game, always.

    One search at a time: threads that share a Solver take turns (a call
    waits for the one under way, within its own timeout and cancel: its
    timeout counts from the call, its token stops the wait too, and bad
    arguments are said before it waits).
    Searches release the GIL, so threads with a Solver each run in
    parallel: give each thread its own for that.  One search may also use
    several threads itself (``threads=``): they share this Solver's table,
    each with a side area of its own.
    """

    def __init__(self, tt_mb: int | None = DEFAULT_TT_MB):
        tt_mb = check_tt_mb(tt_mb)          # (an int: numpy's int64 is taken as its value)
        self._per_game = tt_mb is None
        try:
            self._searcher = Searcher(first_table_mb(tt_mb))
        except MemoryError:
            raise TableMemoryError(first_table_mb(tt_mb)) from None
        # One per further thread of a search: only its side area serves (the table is
        # this Solver's), so it holds the smallest table; the search gives its side area
        # the size of this Solver's.
        self._helpers: list[Searcher] = []
        # The session searched now, for progress_now's names and values (read by other threads).
        self._searching: Session | None = None
        self._analysing: AnalysisProgress | None = None      # Solver.analysis_now
        # Held by each call that uses the table (_one_at_a_time): threads sharing this Solver take turns.
        self._turn = threading.RLock()

    def __repr__(self) -> str:
        size = "sized per game" if self._per_game else "fixed"
        return f"<ddcards.Solver: table {self.tt_mb} MiB, {size}; {self.tt_allocated_mb} MiB held>"

    def __copy__(self) -> Solver:
        # A copy would share this one's table and turn while looking like a Solver of its own.
        raise TypeError("a Solver is not copied: make another (ddcards.Solver(tt_mb=...)) for a table of its own")

    def __deepcopy__(self, memo: dict[int, Any]) -> Solver:
        return self.__copy__()

    def __reduce__(self) -> Any:
        raise TypeError("a Solver is not pickled: its table lives in this process; make one where it is needed")

    def _helper_searchers(self, threads: int) -> list[Searcher]:
        """A Searcher for each thread beyond the caller's, made once and kept."""
        while len(self._helpers) < threads - 1:
            self._helpers.append(Searcher(1))
        return self._helpers[:threads - 1]

    def _helper_boards(self, pos: Position, threads: int) -> list[tuple[Searcher, Any]]:
        """(Searcher, board at `pos`) for each thread beyond the caller's."""
        return [(helper, pos.session().board) for helper in self._helper_searchers(threads)]

    @property
    def tt_mb(self) -> int:
        """The table's size now, MiB: sized per game, the last search's game's."""
        return self._searcher.tt_mb

    @property
    def tt_allocated_mb(self) -> int:
        """The memory the table holds, MiB: sized per game, the largest any game searched so far wanted."""
        return self._searcher.allocated_mb

    @property
    def sized_per_game(self) -> bool:
        """Is the table sized per game (made with tt_mb=None) rather than fixed?"""
        return self._per_game

    def _fit_table(self, pos: Position, keep: bool = False, timeout: float | None = None) -> None:
        """Sized per game: search `pos` in the table it wants (``Position.table_mb``), growing the
        memory (empty) the first time a search wants more; a smaller one searches in a part of
        it, as in a table of its own size (the same nodes, whatever ran before).  keep (keep_tt):
        a table in use at least that large stays, with what it holds (as does, with a `timeout`,
        one at least the game's own size: growing would empty it).  A search with a `timeout`
        grows the memory past its game's own table only as far as GROWTH_MB_PER_SECOND says;
        memory already held serves whole."""
        if not self._per_game:
            return
        want = pos.table_mb
        own = pos.game_info.table_mb
        held = self._searcher.allocated_mb
        if timeout is not None and want > max(own, held):
            # (the product in floating point: a timeout of 1e308 makes it infinite, int() of which raises)
            growth = timeout * GROWTH_MB_PER_SECOND
            if growth < want:
                want = max(own, held, int(growth))
            if keep and self._searcher.tt_mb >= own:
                return
        if keep and self._searcher.tt_mb >= want:
            return
        if want > self._searcher.allocated_mb:
            try:
                self._searcher.resize(want)
            except MemoryError:
                # More than the game's own table is a speed-up, not a need: without the memory
                # the search runs in the game's own size (which, failing, is the caller's error).
                want = pos.game_info.table_mb
                if want > self._searcher.allocated_mb:
                    try:
                        self._searcher.resize(want)
                    except MemoryError:
                        raise TableMemoryError(want, game=pos.game) from None
        self._searcher.use(want)

    def _mark(self) -> tuple[int, int]:
        """What changes whenever a search runs: the last search's nodes, and the table's probes
        (counted since it was allocated, so two searches of the same count still differ)."""
        return self._searcher.nodes, self._searcher.tt_stats["probes"]

    @contextmanager
    def _counted(self) -> Iterator[None]:
        """A search that stops (SearchAborted) says in ``nodes`` what it searched before it stopped,
        as its message does: its Searcher's count, or 0 if it stopped before it began (the count
        and the table's probes left as the search before set them); and in ``progress`` how far
        it got (progress_now as it stopped), which its message adds after "by then"."""
        before = self._mark()
        try:
            yield
        except SearchAborted as exc:
            started = self._mark() != before
            if not exc._nodes_told:     # (a search made of several, a long Prší horizon's, told them all)
                exc.nodes = self._searcher.nodes if started else 0
            progress = self._progress(self._searching, self._searcher.last_progress) if started else None
            if progress is not None:
                exc.tell_progress(progress)
            raise
        except KeyboardInterrupt as exc:
            # Ctrl-C stopped the search (the core hands SIGINT on to Python's handler as it stops,
            # which raises a bare KeyboardInterrupt): it says, as a timeout does, how far it got.
            if type(exc) is KeyboardInterrupt and not exc.args and self._mark() != before:
                exc.nodes = self._searcher.nodes           # type: ignore[attr-defined]
                progress = self._progress(self._searching, self._searcher.last_progress)
                exc.progress = progress                     # type: ignore[attr-defined]
                exc.args = (f"the search was interrupted after {exc.nodes:,} nodes"       # type: ignore[attr-defined]
                            + (f"; by then {progress}" if progress is not None else ""),)
            raise

    @_one_at_a_time
    def clear(self) -> None:
        """Forget the table's contents (O(1)); the memory stays held (see ``release_memory``)."""
        self._searcher.clear()

    @_one_at_a_time
    def release_memory(self) -> None:
        """Give back the memory the table grew to, and the further threads' side areas.

        A Solver sized per game keeps the memory its largest search wanted (up to 1024 MiB after
        a fresh 36-card Mariasz deal), so that searches that follow do not allocate again; in a
        long-lived process (a notebook, ``ddcards.solve``'s ``default_solver()``) call this to
        return to the 2 MiB table it started with, empty.  The next search that wants more grows
        it again.  A Solver of a fixed size (``tt_mb=N``) keeps its table and gives back the side
        areas of the threads its searches used beyond the caller's (``threads=``)."""
        self._helpers = []
        if self._per_game and self._searcher.allocated_mb > DEFAULT_TABLE_MB:
            self._searcher.resize(DEFAULT_TABLE_MB)
        self._searcher.clear()              # empty, as the docstring says, whatever its size

    @property
    def last_nodes(self) -> int:
        """Nodes of the last search this Solver ran: a ``value()``'s (which returns no count),
        or a solve's (its ``Result.nodes``).  A call that runs several searches counts only its
        last here: an analysis's is its final solve (``Analysis.final.nodes``; ``Analysis.nodes``
        counts them all), a Mariáš DD table's its last contract's (the table's ``nodes``: all), a
        Prší solve within more than 20 plies (shorter horizons searched first) or without a
        horizon its last search's (``Result.nodes`` and a stop's ``nodes``: all)."""
        return self._searcher.nodes

    @property
    def nodes_now(self) -> int:
        """Nodes of the search under way so far, every thread's: another thread may read it while
        this Solver searches (the search holds no GIL), e.g. to show progress.  A call made of
        several searches (an analysis, a Mariáš contract table, a Prší solve within more than 20 plies
        or without a horizon) starts it again with each: a reading below the one before means
        that a new search began (``ddcards solve``'s ticker adds them up so)."""
        return int(self._searcher.nodes_now)

    @contextmanager
    def _watched(self, session: Session) -> Iterator[None]:
        """`session` is the one searched while the block runs (progress_now names its moves)."""
        self._searching = session
        try:
            yield
        finally:
            self._searching = None

    @property
    def progress_now(self) -> SearchProgress | None:
        """How far the search under way got: how many first moves are answered and the best
        bound on the position's value on the mover's side so far (a first move's exact value, or
        what the tests of one still searched have proven it reaches), read from another thread
        as ``nodes_now``; None between searches and where there is nothing to share out (a single
        first move, or none).  A search that stops says the same in its exception's
        ``progress``."""
        return self._progress(self._searching, self._searcher.root_progress)

    @staticmethod
    def _progress(session: Session | None, got: tuple[int, int, int | None, int | None, bool] | None
                  ) -> SearchProgress | None:
        """The Searcher's root progress `got` in the game's terms (`session`'s moves and values),
        or what the session keeps itself of a search it makes of several (Session.own_progress),
        whichever has answered more first moves (the session's on a tie: it knows the value)."""
        if session is None:
            return None
        own = session.own_progress
        if got is None or not session.root_progress or (own is not None and own.answered >= got[0]):
            return own
        answered, moves, best, move, at_least = got
        return SearchProgress(answered=answered, moves=moves,
                              value=None if best is None else session.reported(best),
                              move=None if move is None else session.move_name(move), at_least=at_least)

    @_one_at_a_time
    def value(self, position: PositionLike, *, timeout: float | None = None,
              cancel: CancelToken | None = None, keep_tt: bool = False, threads: int = 1) -> int:
        """The value of `position` alone: no move values, no principal variation (the fastest ask).

        threads: how many threads the search uses (see ``solve``)."""
        timeout = _check_limits(timeout, cancel, keep_tt)
        threads = _threads(threads)
        pos = _position(position)
        self._fit_table(pos, keep_tt, timeout)
        if not keep_tt:
            self._searcher.clear()
        session = pos.session()
        helpers = self._helper_boards(pos, threads) if threads > 1 else ()
        with self._watched(session), self._counted():
            return session.reported(session.search_value(self._searcher, cancel, timeout, helpers=helpers))

    @_one_at_a_time
    def _values(self, positions: Sequence[Position], *, timeout: float | None = None,
                cancel: CancelToken | None = None, threads: int = 1) -> list[tuple[int, int]]:
        """[(value, nodes)] of each position, searched together (``Searcher.values``): the
        positions' first moves shared out among `threads` threads, all in this Solver's table
        (cleared first, sized for the first position; the keys keep the positions apart), each
        further thread with a side area of its own.  A search that stops raises as ``value``
        does, its ``progress`` that of the first position not answered yet, whose index is
        the exception's ``row`` (None when no position has any progress to show)."""
        timeout = _check_limits(timeout, cancel)
        threads = _threads(threads)
        if not positions:
            return []
        self._fit_table(positions[0], timeout=timeout)
        self._searcher.clear()
        sessions = [pos.session() for pos in positions]
        rows = [(self._searcher, session.board) for session in sessions]
        helpers = [(helper, [pos.session().board for pos in positions])
                   for helper in self._helper_searchers(threads)] if threads > 1 else []
        try:
            found: list[tuple[int, int]] = self._searcher.values(rows, helpers, cancel, timeout)
        except SearchAborted as exc:
            # Searcher.values's own stops carry each row's progress (else it stopped before it began).
            rows_progress = getattr(exc, "rows_progress", None)
            exc.nodes = self._searcher.nodes if rows_progress is not None else 0
            for r, got in enumerate(rows_progress or ()):
                progress = self._progress(sessions[r], got)
                if progress is not None and progress.answered < progress.moves:
                    exc.row = r
                    exc.tell_progress(progress)
                    break
            raise
        return [(sessions[r].reported(value), nodes) for r, (value, nodes) in enumerate(found)]

    @_one_at_a_time
    def solve(self, position: PositionLike, *, mode: Mode | str = Mode.ALL,
              timeout: float | None = None, cancel: CancelToken | None = None,
              keep_tt: bool = False, threads: int = 1) -> Result:
        """Solve `position`: its value, the moves by `mode`, the principal variation.

        threads: how many threads this one search uses (1 to MAX_THREADS;
        more than the machine's cores only adds overhead).  The moves of the
        player to move are shared out among them, all probing this Solver's
        table; the answers are the same whatever the count (in mode "best"
        the move reported may be another optimal one), ``nodes`` counts every
        thread's.  Default 1: a server or a batch running one search per core
        gains nothing from more.

        keep_tt: search on what the table holds from the searches before
        (by default it is cleared first); a per-game Solver whose table grows
        for this game starts it empty all the same.

        timeout: seconds (None or math.inf: no limit; 0 stops before the search
        starts).  Raises SearchTimeout after `timeout` seconds and
        SearchCancelled when `cancel` is cancelled (their ``nodes``: what the
        search counted before it stopped; their ``progress``: the first moves
        answered and the best bound on the value proven by then, which the
        message repeats); DdcardsError subclasses for bad
        input, InvalidOptionError for a NaN or negative timeout; TableMemoryError
        (a MemoryError) if a per-game table cannot grow to the game's size.  A search stops within
        milliseconds of its deadline or cancel, but the first searches of a
        fresh large table (a 36-card Mariasz deal's, up to 1 GiB) may overrun by
        up to a second while the kernel backs its memory (benchmarks/RESULTS.md,
        "A fresh Solver's first large table").

        Ctrl-C: on the main thread, SIGINT's handler runs within milliseconds,
        as between two lines of Python: KeyboardInterrupt (or a program's own
        handler's exception) ends the search, and a handler that does not raise
        lets it go on.  The KeyboardInterrupt says how far the search got, as a
        timeout's message does, and carries ``nodes`` and ``progress``.  A search
        on another thread stops by its ``cancel`` or ``timeout``.
        """
        timeout = _check_limits(timeout, cancel, keep_tt)
        threads = _threads(threads)
        pos = _position(position)
        mode = _mode(mode)
        session = pos.session()
        self._fit_table(pos, keep_tt, timeout)
        if not keep_tt:
            self._searcher.clear()
        helpers = self._helper_boards(pos, threads) if threads > 1 else ()
        start = time.perf_counter()
        with self._watched(session), self._counted():
            value, raw_moves, raw_pv, nodes = session.search(self._searcher, _MODE_CODE[mode], cancel, timeout,
                                                             helpers=helpers)
        elapsed = time.perf_counter() - start
        moves = _move_values(session, raw_moves, value, mode)
        summary = session.summary(raw_pv, value)
        return Result(
            game=pos.game, mode=mode, value=session.reported(value), value_kind=session.value_kind,
            to_move=None if session.over else session.to_move,
            optimal_moves=[m.move for m in moves if m.optimal],
            moves=moves,
            pv=[session.move_name(m) for m in raw_pv],
            scores=summary.scores, tricks=summary.tricks, won=summary.won,
            settlement=summary.settlement, outcomes=summary.outcomes,
            nodes=nodes, elapsed=elapsed, position=pos.to_dict(), parts=summary.parts,
            distance=session.distance(value), horizon=session.horizon, value_owner=session.value_owner,
            value_meaning=session.value_meaning,
        )

    @_one_at_a_time
    def analyse(self, position: PositionLike, *, timeout: float | None = None,
                cancel: CancelToken | None = None, mode: Mode | str = Mode.OPTIMAL, threads: int = 1,
                from_ply: int = 0, on_step: Callable[[AnalysisStep], object] | None = None) -> Analysis:
        """The value before and after every recorded action of `position`, from the deal's start
        (or from ``played[from_ply]``).

        Each step also says whether the action changed the outcome, which seat
        won the trick it completed and the score after it; ``final`` is the
        solve after the last action (its continuation, final scores and
        settlement).  With ``mode="all"`` each step lists every legal move's
        value, as a solve in mode "all" would.

        timeout (for the whole analysis) and cancel: as for ``solve``; the
        SearchTimeout or SearchCancelled says how far the analysis got, its
        ``nodes`` every search's so far, its ``steps`` those finished (go on with
        ``from_ply`` = the last one's ``ply`` + 1).  threads: how many threads each
        search uses (see ``solve``; the answers are the same).  from_ply: the first recorded action
        analysed (0 to ``len(played)``): the actions before it are replayed, not searched, so a
        long deal's late play is analysed without the searches of its start (a 36-card Mariasz
        deal's first tricks take minutes); the steps are those of the whole analysis from there.
        on_step: called with each step as soon as it is analysed, in the thread that analyses
        (a long deal's values shown as they come: each step of a fresh 36-card Mariasz deal's
        first tricks takes a minute or more); an exception it raises ends the analysis and
        reaches the caller as it is, with a note (``__notes__``) naming the step's ply.  It runs
        while this analysis holds the Solver: it may call the Solver itself, but another thread's
        call on the Solver waits for the analysis to end, so a callback that waits for such a
        call never returns.
        """
        timeout = _check_limits(timeout, cancel)
        threads = _threads(threads)
        pos = _position(position)
        mode = _analysis_mode(mode)
        from_ply = check_from_ply(from_ply, len(pos.played))
        on_step = _step_callback(on_step)
        # None, or the analysis whose on_step analyses with this Solver too (its turn is the
        # caller's): analysis_now is that one's progress again after this one
        outer = self._analysing
        try:
            return self._analyse(pos, timeout=timeout, cancel=cancel, mode=mode, threads=threads, from_ply=from_ply,
                                 on_step=on_step)
        finally:
            self._analysing = outer

    @property
    def analysis_now(self) -> AnalysisProgress | None:
        """How far the analysis under way got (how many of its recorded actions are analysed),
        read from another thread as ``nodes_now`` (which counts the search under way, one of
        the analysis's); None when no analysis runs."""
        return self._analysing

    def _analyse(self, pos: Position, *, timeout: float | None, cancel: CancelToken | None, mode: Mode,
                 threads: int, from_ply: int, on_step: Callable[[AnalysisStep], object] | None) -> Analysis:
        """Solver.analyse, its arguments checked; analysis_now follows it."""
        progress = AnalysisProgress(analysed=0, actions=len(pos.played) - from_ply, from_ply=from_ply)
        self._analysing = progress
        start = time.perf_counter()
        deadline = _search_budget.deadline(timeout)
        first = pos.start()
        session = first.session()
        value_kind = session.value_kind
        # sized for the first position searched: the longest search of the analysis
        self._fit_table(pos._with_played(list(pos.played[:from_ply])), timeout=timeout)
        self._searcher.clear()
        nodes = 0
        # Each further thread follows the play on a session of its own.
        helpers = self._helper_searchers(threads)
        helper_sessions = [first.session() for _ in helpers]

        def remaining() -> float | None:
            return _search_budget.time_left(deadline, "the analysis ran out of time")

        def solve_here() -> tuple[int, list[MoveValue]]:
            nonlocal nodes
            with self._watched(session), self._counted():
                value, raw, _, n = session.search(
                    self._searcher, _MODE_CODE[mode], cancel, remaining(), want_pv=False,
                    helpers=[(helper, other.board) for helper, other in zip(helpers, helper_sessions)])
            nodes += n
            return value, _move_values(session, raw, value, mode)

        def outcome(value: int) -> str:
            # the game's own words on a value here ("declarer wins", "nat: ...")
            return session.verdict(report(value), session.summary((), value).won, value_kind)

        def outcome_here(value: int) -> str:
            # the words for where the analysis starts or ends: how a game over ended, as the command
            # line's solve and analyse say it (Prší: "the game is over: seat 1 went out first", not
            # what can be forced within a horizon), else the verdict on the value
            ended = getattr(session, "ended", None)
            return (ended() if ended is not None else None) or outcome(value)

        report = session.reported
        steps: list[AnalysisStep] = []
        for move in pos.played[:from_ply]:
            session.play(move)
            for other in helper_sessions:
                other.play(move)
        # the first position analysed as a viewer lays it out (the deal as dealt, from ply 0)
        deal = dict(session.view(), position=pos.to_dict())
        try:
            value, moves = solve_here()
        except (SearchAborted, KeyboardInterrupt) as exc:
            raise _analysis_stopped(exc, nodes, progress, steps, None) from None
        except DdcardsError as exc:
            # the first position analysed cannot be solved as asked, though the document's own
            # position may (Prší without a horizon): say which position it was, as for any later step
            raise _at_start(exc, from_ply) if from_ply < len(pos.played) else exc from None
        initial, initial_outcome = value, outcome_here(value)
        progress = replace(progress, value=report(value))
        self._analysing = progress
        value_outcome = outcome(value)

        def so_far(final_outcome: str) -> Analysis:
            """The analysis of the steps finished, up to the value before the next recorded action
            (`final_outcome`: the words on that value, said before the session played the action)."""
            return Analysis(game=pos.game, value_kind=value_kind, initial_value=report(initial),
                            final_value=report(value), steps=list(steps), nodes=nodes,
                            elapsed=time.perf_counter() - start, mode=mode, deal=deal,
                            initial_outcome=initial_outcome, final_outcome=final_outcome, from_ply=from_ply)
        for ply in range(from_ply, len(pos.played)):
            move = pos.played[ply]
            seat = session.to_move
            best = [m.move for m in moves if m.optimal]
            session.play(move)
            for other in helper_sessions:
                other.play(move)
            try:
                following, next_moves = solve_here()
                # The action's value in the search before it (Prší: within the same horizon).
                with self._counted():
                    after, n = session.action_value(self._searcher, value, session.history[-1] in best,
                                                    following, cancel, remaining())
            except (SearchAborted, KeyboardInterrupt) as exc:
                # (the session has played the action: the words on the value before it are those
                # said before it, not "the game is over" of an action that ended the game)
                raise _analysis_stopped(exc, nodes, progress, steps, so_far(value_outcome)) from None
            except DdcardsError as exc:
                # a position on the way that cannot be solved as asked (Prší without a horizon):
                # say which, as the document's own position and the deal's may solve
                raise _at_step(exc, ply, session.history[-1]) from None
            nodes += n
            after_outcome = outcome(after)
            cost = report(value) - report(after) if session.is_max(seat) else report(after) - report(value)
            done = session.trick_done()         # its winner leads next
            steps.append(AnalysisStep(
                ply=ply, seat=seat, move=session.history[-1], value_before=report(value),
                value_after=report(after), best_moves=best, cost=cost, mistake=cost > 0,
                # (the words may also change with what the action settles at no cost, e.g. Prší's
                # "seat 3 went out first" for a -1 that was already forced: not a turn)
                changes_outcome=cost > 0 and after_outcome != value_outcome, outcome=after_outcome,
                moves=moves if mode is Mode.ALL else [],
                trick_winner=session.to_move if done else None, score=session.scores_now(),
                distance=session.distance(after), best_distance=session.distance(value)))
            progress = replace(progress, analysed=len(steps), value=report(following))
            self._analysing = progress
            if on_step is not None:
                try:
                    on_step(steps[-1])
                except BaseException as exc:
                    # raised as it is, but told apart from the analysis's own stop: a SearchTimeout
                    # of a search made in the callback reads like this analysis's
                    exc.add_note(f"raised by on_step, called with the step of ply {ply}: the analysis "
                                 f"stopped there")
                    raise
            value, moves, value_outcome = following, next_moves, outcome(following)
        # The final solve from the analysis's owner's view (Prší: P at the deal's start, where a
        # solve's own default P is the player to move after the last action).
        pos = pos._owned_by(session.owner_options())
        try:
            final = self.solve(pos, mode=mode, timeout=remaining(), cancel=cancel, keep_tt=True, threads=threads)
        except (SearchAborted, KeyboardInterrupt) as exc:
            raise _analysis_stopped(exc, nodes, progress, steps, so_far(outcome_here(value))) from None
        nodes += final.nodes
        return Analysis(game=pos.game, value_kind=value_kind,
                        initial_value=report(initial), final_value=report(value), steps=steps, nodes=nodes,
                        elapsed=time.perf_counter() - start, mode=mode, deal=deal,
                        initial_outcome=initial_outcome, final_outcome=outcome_here(value), final=final,
                        from_ply=from_ply)


def _step_callback(on_step: Any) -> Callable[[AnalysisStep], object] | None:
    """`on_step` checked: a function of one AnalysisStep, or None."""
    if on_step is not None and not callable(on_step):
        raise InvalidArgumentTypeError(f"on_step must be a function of one AnalysisStep or None, "
                                       f"not {argument_shown(on_step)}", token=argument_token(on_step),
                                       rule="analyse: on_step is called with each step", field="on_step")
    return cast(Callable[[AnalysisStep], object] | None, on_step)


def _at_step(exc: DdcardsError, ply: int, move: str) -> DdcardsError:
    """`exc`, raised solving the position after played[ply], saying so (the same class, token,
    rule and field)."""
    return type(exc)(f"analysing the position after played[{ply}] '{move}': {exc}", token=exc.token, rule=exc.rule,
                     field=exc.field)


def _at_start(exc: DdcardsError, from_ply: int = 0) -> DdcardsError:
    """`exc`, raised solving the first position analysed (the deal's start, or the position
    before played[from_ply]), saying so (the same class, token, rule and field)."""
    where = "the deal's start (before played[0])" if from_ply == 0 else f"the position before played[{from_ply}]"
    return type(exc)(f"analysing {where}: {exc}", token=exc.token, rule=exc.rule, field=exc.field)


def _analysis_stopped(exc: SearchAborted | KeyboardInterrupt, nodes: int, progress: AnalysisProgress,
                      steps: list[AnalysisStep], so_far: Analysis | None) -> SearchAborted | KeyboardInterrupt:
    """The analysis's own SearchTimeout, SearchCancelled or KeyboardInterrupt (Ctrl-C) for `exc`,
    which stopped it where `progress` says: ``nodes`` and the message count every search of the
    analysis (`nodes` before the one that stopped, and that one's), ``steps`` the steps finished
    and ``analysis`` the analysis of those (`so_far`: None if the first value was not found), so
    that a long deal's work is not lost to a timeout or Ctrl-C.  With no recorded action to analyse
    the message says the value's search was stopped instead of "0 of the 0"."""
    total = nodes + getattr(exc, "nodes", 0)
    how = ("ran out of time" if isinstance(exc, SearchTimeout) else "was cancelled" if isinstance(exc, SearchAborted)
           else "was interrupted")
    if progress.actions:
        where = f"with {progress}"
    elif progress.from_ply:                 # "0 of the 0 actions" would say nothing: only the value was searched
        where = (f"in the search of the value after the record's last action (nothing from "
                 f"played[{progress.from_ply}] on)")
    else:
        where = "in the search of the deal's value (it records no play to analyse)"
    stopped = type(exc)(f"the analysis {how} after {total:,} nodes, {where}")
    stopped.nodes = total                       # type: ignore[union-attr]
    stopped.steps = list(steps)                 # type: ignore[union-attr]
    stopped.analysis = None if so_far is None else replace(so_far, nodes=total)   # type: ignore[union-attr]
    return stopped


def _move_values(session: Session, raw: list[tuple[int, int | None]], value: int, mode: Mode) -> list[MoveValue]:
    """The search's (move, value) pairs as MoveValues in the game's order; optimal by the
    search's own values (Prší: the fastest win, the longest loss), reported in the game's terms.

    As each mode promises (docs/RULES.md §0.9), whatever else the search learnt on the way (an
    outcome's failed test is the other outcome, so a Betl's root split knows some losing moves'
    values): mode best lists the move reported alone, mode optimal values only optimal moves."""
    ordered = sorted(raw, key=lambda mv: session.move_order(mv[0]))
    if mode is Mode.BEST:
        ordered = [mv for mv in ordered if mv[1] == value][:1]
    listed: list[tuple[int, int | None]] = []
    for move, v in ordered:
        listed.append((move, None if mode is Mode.OPTIMAL and v != value else v))
    return [MoveValue(session.move_name(m), None if v is None else session.reported(v), v == value,
                      None if v is None else session.distance(v)) for m, v in listed]


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
