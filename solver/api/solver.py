"""The Solver: a transposition table of its own, and the searches run in it (a value, a solve in
each mode, an analysis), one at a time."""
from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ddcards._core.search import CancelToken, Searcher
from ddcards.api.analysis import analyse_record
from ddcards.api.arguments import (PositionLike, as_position, check_analysis_mode, check_from_ply, check_limits,
                                   check_mode, check_step_callback, check_threads)
from ddcards.api.memory import DEFAULT_TT_MB, GROWTH_MB_PER_SECOND, check_tt_mb, first_table_mb
from ddcards.api.moves import MODE_CODE, move_values
from ddcards.api.turns import one_at_a_time
from ddcards.errors import SearchAborted, TableMemoryError
from ddcards.games.base import DEFAULT_TABLE_MB, Session
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisProgress, AnalysisStep, Mode, Result, SearchProgress


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
        # Held by each call that uses the table (one_at_a_time): threads sharing this Solver take turns.
        self._turn = threading.RLock()
        _SOLVERS.add(self)                  # (a forked child frees it if another thread held it: _forked)

    def _forked(self) -> None:
        """In a child of fork(): a Solver that another thread of the parent was searching with
        (its turn held, its table mid-search) would wait for ever for a search this process
        does not run, and its table could not grow (the core sees a search under way): it is
        made free again, with a table of its own, empty, as a new Solver of its size starts.
        One the forking thread itself holds (a fork from an analysis's on_step) stays as it is."""
        if self._turn.acquire(blocking=False):
            self._turn.release()
            return
        self._turn = threading.RLock()
        self._helpers = []
        self._searching = None
        self._analysing = None
        try:
            self._searcher = Searcher(first_table_mb(None if self._per_game else self._searcher.tt_mb))
        except MemoryError:
            pass                # (its first search says TableMemoryError where the table cannot grow)

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

    @one_at_a_time
    def clear(self) -> None:
        """Forget the table's contents (O(1)); the memory stays held (see ``release_memory``)."""
        self._searcher.clear()

    @one_at_a_time
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

    @one_at_a_time
    def value(self, position: PositionLike, *, timeout: float | None = None,
              cancel: CancelToken | None = None, keep_tt: bool = False, threads: int = 1) -> int:
        """The value of `position` alone: no move values, no principal variation (the fastest ask).

        threads: how many threads the search uses (see ``solve``)."""
        timeout = check_limits(timeout, cancel, keep_tt)
        threads = check_threads(threads)
        pos = as_position(position)
        self._fit_table(pos, keep_tt, timeout)
        if not keep_tt:
            self._searcher.clear()
        session = pos.session()
        helpers = self._helper_boards(pos, threads) if threads > 1 else ()
        with self._watched(session), self._counted():
            return session.reported(session.search_value(self._searcher, cancel, timeout, helpers=helpers))

    @one_at_a_time
    def _values(self, positions: Sequence[Position], *, timeout: float | None = None,
                cancel: CancelToken | None = None, threads: int = 1) -> list[tuple[int, int]]:
        """[(value, nodes)] of each position, searched together (``Searcher.values``): the
        positions' first moves shared out among `threads` threads, all in this Solver's table
        (cleared first, sized for the first position; the keys keep the positions apart), each
        further thread with a side area of its own.  A search that stops raises as ``value``
        does, its ``progress`` that of the first position not answered yet, whose index is
        the exception's ``row`` (None when no position has any progress to show)."""
        timeout = check_limits(timeout, cancel)
        threads = check_threads(threads)
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

    @one_at_a_time
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
        timeout = check_limits(timeout, cancel, keep_tt)
        threads = check_threads(threads)
        pos = as_position(position)
        mode = check_mode(mode)
        session = pos.session()
        self._fit_table(pos, keep_tt, timeout)
        if not keep_tt:
            self._searcher.clear()
        helpers = self._helper_boards(pos, threads) if threads > 1 else ()
        start = time.perf_counter()
        with self._watched(session), self._counted():
            value, raw_moves, raw_pv, nodes = session.search(self._searcher, MODE_CODE[mode], cancel, timeout,
                                                             helpers=helpers)
        elapsed = time.perf_counter() - start
        moves = move_values(session, raw_moves, value, mode)
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

    @one_at_a_time
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
        timeout = check_limits(timeout, cancel)
        threads = check_threads(threads)
        pos = as_position(position)
        mode = check_analysis_mode(mode)
        from_ply = check_from_ply(from_ply, len(pos.played))
        on_step = check_step_callback(on_step)
        # None, or the analysis whose on_step analyses with this Solver too (its turn is the
        # caller's): analysis_now is that one's progress again after this one
        outer = self._analysing
        try:
            return analyse_record(self, pos, timeout=timeout, cancel=cancel, mode=mode, threads=threads,
                                  from_ply=from_ply, on_step=on_step)
        finally:
            self._analysing = outer

    @property
    def analysis_now(self) -> AnalysisProgress | None:
        """How far the analysis under way got (how many of its recorded actions are analysed),
        read from another thread as ``nodes_now`` (which counts the search under way, one of
        the analysis's); None when no analysis runs."""
        return self._analysing



# Every Solver of this process, for a forked child to free those another thread held (Solver._forked).
_SOLVERS: weakref.WeakSet[Solver] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for solver in list(_SOLVERS):
        solver._forked()


os.register_at_fork(after_in_child=_after_fork_in_child)
