# cython: freethreading_compatible = False
"""Alpha-beta search with a transposition table and MTD-style drivers.

Reading guide
- ``alphabeta`` is a fail-soft alpha-beta on the *total* value (banked +
  future).  At trick boundaries it first tries the game's quick bounds, then
  the table, then the game's own endgame solver if it has one (``leaf``),
  and stores what it learnt as bounds on the future value.  Move order: the
  game's, then the table's move first; at boundaries the lead that last cut
  off at that depth (killer leads, for games that ask) or the history of
  cutoffs; mid-trick the last cutoff move at that ply second (reply killers),
  or first where the game's own guess of the reply is weak (``reply_first``).
- ``mtd`` finds the exact value with a sequence of null-window searches; a
  threshold game (won / lost) needs one.  Tests fall only on values the game
  can have (``snap``), each in the measure the game names for it
  (``set_mode``: Klaverjas searches an additive margin where that is exact,
  and first bounds a lost deal by its value as if lost: ``lower_measure``).
  ``set_mode`` also names the test's threshold: every search is a
  null-window one, so a game may skip work no node of that test can use.
- The root split (``split_root``) answers a position: each root move is
  valued against the best value found so far (``mtd``'s cuts: in mode
  optimal a move that falls short of it is dropped after one test), the
  moves shared out among threads that probe one lockless table (tt.pxd);
  a thread with no move left helps an open one from its other end.  One
  thread runs it too: it takes less time than finding the value first and
  then testing each move against it.  ``solve_one_thread``, the value first,
  serves a root with nothing to share out and ``split=False``.
- Several positions at once (``multi_split``, ``Searcher.values``: a DD
  table's rows): each row is a root split of its own in mode best; the
  threads keep to one row each and, once every row is started, take moves
  of the others, so none idles while the last row ends.
- ``Searcher`` is the Python face: value, per-move values by mode, the
  principal variation, node counts.  It releases the GIL for all of it and
  polls a cancel flag and a deadline every 256 nodes.

Files, a concern each, in the order they are included (one C module: the
search's own calls stay direct calls the compiler can inline): context.pxi
(a thread's view of the table), game_calls.pxi (the game's calls, through
GameOps), alphabeta.pxi, drivers.pxi (tests, ``mtd``, ``lower_measure``),
then this file's Python face (``Board``,
``CancelToken``, ``Searcher``), root.pxi (one thread: the value, the root
moves by mode, the principal variation), root_split.pxi, multi_split.pxi.
The table is tt.pxd, the bit operations bits.pxd / bitops.h, the thread
pool pool.h; what a game provides is ``GameOps`` in search.pxd, and a search
thread's state (``SearchCtx``, the stop polling) is there too: a game may
compile alphabeta.pxi in its own module, its functions inlined into it
(``GameOps.search``; the drivers call it instead of this module's copy).
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID

from ddcards._core.tt cimport (TTable, TTHit, TT_NO_MOVE, TT_WAYS, tt_init, tt_free, tt_use,
                              tt_new_generation, tt_probe, tt_store, tt_bucket, tt_aux_bytes, tt_fit_aux)
from ddcards._core.bits cimport DD_BUILD_FEATURES, dd_prefetch, dd_atomic_load_int, dd_atomic_store_int
from ddcards.errors import SearchCancelled, SearchTimeout

import _signal     # its getsignal, not the signal module's (Python code, in every search's way)
import os as _os
import threading as _threading

#: The instruction sets this module was compiled for ("base popcnt bmi2 avx2"...).
BUILD_FEATURES = (<bytes> DD_BUILD_FEATURES).decode()

cdef extern from "sigint.h":
    volatile_int dd_sigint_hit
    int dd_sigint_arm() noexcept nogil
    int dd_sigint_disarm() noexcept nogil
    int dd_sigint_pass_on() noexcept nogil

cdef extern from "Python.h":
    int PyErr_SetInterruptEx(int signum)
    int PyErr_CheckSignals() except -1
    int PyOS_InterruptOccurred()

# Modes, as DDS names them: one best move / all optimal moves / every move.
cdef enum:
    C_MODE_BEST = 0
    C_MODE_OPTIMAL = 1
    C_MODE_ALL = 2

MODE_BEST = C_MODE_BEST
MODE_OPTIMAL = C_MODE_OPTIMAL
MODE_ALL = C_MODE_ALL

cdef class Board:
    def __cinit__(self, *args, **kwargs):
        self.exact = True
        self.threshold = 1
        self.granularity = 1
        self.guess = 0
        self.history_leads = True
        self.killer_leads = False
        self.reply_first = False
        self.upper_from = VALUE_INF
        self.lower_below = -VALUE_INF
        self.etc_from = VALUE_INF
        self.own_search = True
        self.max_ply = 0
        self.ply = 0

    def legal_moves(self, bint prune=False):
        """Legal moves of the player to move, in the search's order (prune: one per equivalent group)."""
        cdef int moves[MAX_MOVES]
        cdef int n = self.ops.gen_moves(self.pos, moves, prune)
        return [moves[i] for i in range(n)]

    def play(self, int move):
        """Play `move`, which must be legal (the game checks before it calls this)."""
        if self.ply >= self.max_ply:
            raise ValueError(f"the board holds at most {self.max_ply} moves")
        self.ops.make(self.pos, move)
        self.ply += 1

    def undo(self):
        """Take back the last move played."""
        if self.ply == 0:
            raise ValueError("nothing to undo")
        self.ops.unmake(self.pos)
        self.ply -= 1

    @property
    def has_own_search(self):
        """The game compiles the core's alpha-beta in its own module (GameOps.search), which
        searches this board unless own_search is False."""
        return self.ops.search != NULL

    @property
    def terminal(self):
        """Nothing is left to decide (all played, or the outcome is settled)."""
        return self.ops.node_kind(self.pos) == NODE_TERMINAL


cdef class CancelToken:
    """A flag another thread sets to stop a running search (thread-safe).

    A token stays cancelled: every later search given it stops at once, so give each search
    (or each group of searches to stop together) a new one."""
    cdef volatile_int flag

    def __cinit__(self):
        self.flag = 0

    def __init__(self):
        pass                        # takes no arguments (a __cinit__ alone would ignore them)

    def cancel(self):
        """Ask every search polling this token to stop."""
        self.flag = 1

    @property
    def cancelled(self):
        """Whether cancel() was called (for good: a token is not reset)."""
        return self.flag != 0

    def __repr__(self):
        return f"CancelToken(cancelled={self.flag != 0})"

    def __reduce__(self):
        # A copy would be a flag no search polls (Cython's default says only "non-trivial __cinit__")
        raise TypeError("a CancelToken stops the searches of this process that poll it: it cannot be pickled "
                        "or copied (make one where the searches run; closing solve_many's generator stops its work)")


include "context.pxi"


include "game_calls.pxi"
include "alphabeta.pxi"


include "drivers.pxi"


cdef int check_table_mb(size_t tt_mb) except -1:
    if tt_mb < 1:
        raise ValueError("tt_mb must be at least 1")
    if tt_mb > (<size_t> -1) >> 20:
        # its bytes would not fit a size_t (tt_init would wrap round to a tiny table)
        raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")
    return 0


def side_area_bytes(size_t tt_mb):
    """The side area beside a table of `tt_mb` MiB (bytes): an eighth of it, 256 KiB to 16 MiB."""
    check_table_mb(tt_mb)
    return tt_aux_bytes(tt_mb)


cdef class Searcher:
    """Owns a transposition table and answers questions about Boards.

    Not thread-safe: use one Searcher per thread.  The table persists across
    calls (its keys carry the game's parameters, so reuse is sound); call
    ``clear()`` to start cold.
    """
    cdef TTable tt
    cdef readonly size_t tt_mb          # the part of the table searches use (use())
    cdef readonly size_t allocated_mb   # the table allocated (resize())
    cdef readonly uint64_t nodes
    cdef readonly double cpu_seconds   # the last root split: this table's thread's CPU time
    # root_progress as the last search left it (how far a search that stopped got), or None
    cdef readonly object last_progress
    # The contexts of the search under way, for nodes_now (set and cleared holding the GIL,
    # so a reader holding it never sees them freed).
    cdef SearchCtx* live
    cdef int live_threads
    cdef uint64_t live_before   # the nodes of its tries before (a search gone on after a SIGINT)

    def __cinit__(self, size_t tt_mb=64):
        cdef TTable* t = &self.tt
        cdef int failed
        check_table_mb(tt_mb)
        with nogil:                 # other threads (a server's health checks) run meanwhile
            failed = tt_init(t, tt_mb)
        if failed:
            raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")
        self.tt_mb = self.allocated_mb = tt_mb
        self.nodes = 0

    def __dealloc__(self):
        tt_free(&self.tt)

    def clear(self):
        """Forget all stored positions (O(1))."""
        tt_new_generation(&self.tt)

    def resize(self, size_t tt_mb):
        """Give this Searcher a table of at most `tt_mb` MiB, empty (its side area too).

        The new table is allocated before the old one is freed: if it cannot be had,
        MemoryError, and the old table stays as it was (contents included).  Never while
        a search runs on it (RuntimeError), nor while it serves as another's helper.
        """
        cdef TTable fresh
        cdef int failed
        check_table_mb(tt_mb)
        if self.live != NULL:
            # Another thread is searching on this table (the search holds no GIL).
            raise RuntimeError("cannot resize the table of a Searcher while it searches")
        with nogil:
            failed = tt_init(&fresh, tt_mb)
        if failed:
            raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")
        tt_free(&self.tt)
        self.tt = fresh
        self.tt_mb = self.allocated_mb = tt_mb

    def use(self, size_t tt_mb):
        """Search in `tt_mb` MiB of the allocated table (at most all of it), empty: each search
        then runs as in a table of that size alone (the same nodes), whatever size the searches
        before used.  No memory is allocated or freed; a no-op if that size is in use."""
        check_table_mb(tt_mb)
        if self.live != NULL:
            raise RuntimeError("cannot change the table of a Searcher while it searches")
        if tt_mb > self.allocated_mb:
            tt_mb = self.allocated_mb
        if tt_mb != self.tt_mb:
            tt_use(&self.tt, tt_mb)
            self.tt_mb = tt_mb

    @property
    def nodes_now(self):
        """Nodes of the search under way so far (every thread's), read from another thread
        while this one searches without the GIL; between searches, the last one's."""
        cdef uint64_t total = self.live_before
        if self.live == NULL:
            return self.nodes
        for k in range(self.live_threads):
            total += ctx_nodes(&self.live[k])
        return total

    @property
    def root_progress(self):
        """How far the root split under way got, read from another thread while this one
        searches without the GIL: (root moves answered, distinct root moves, the best bound on
        the root's value on its mover's side so far or None, the move that reaches it or None,
        the root's side is MAX).  The bound: the root's value is at least it (MAX to move), at
        most it (MIN), from a move's exact value or from the tests of a move still searched.
        None when no root split runs (between searches, or the one-thread driver)."""
        if self.live == NULL:
            return None
        return root_progress_of(self.live)

    @property
    def tt_entries(self):
        """The entries of the part of the table searches use (``use``): buckets x TT_WAYS."""
        return self.tt.nbuckets * TT_WAYS

    @property
    def side_area_bytes(self):
        """The game's side area in use (tt.pxd): an eighth of the table in use, 256 KiB to 16 MiB."""
        return self.tt.aux_bytes

    @property
    def tt_stats(self):
        """The table's probes, hits and stores, every thread's, counted since it was allocated
        (``resize`` starts them again; ``clear`` and ``use`` do not)."""
        return {"probes": self.tt.probes, "hits": self.tt.hits, "stores": self.tt.stores}

    cdef int _prepare(self, SearchCtx* c, Board board, CancelToken cancel, object timeout,
                      bint interruptible=False) except -1:
        c.ops = board.ops
        c.pos = board.pos
        c.tt = &self.tt
        c.nodes = 0
        c.own0 = c.ops.own_nodes(c.pos) if c.ops.own_nodes != NULL else 0
        c.own_polled = c.own0
        c.aborted = 0
        memset(c.history, 0, sizeof(c.history))
        c.hist = &c.history[0][0]
        memset(c.killer, 0xFF, sizeof(c.killer))
        memset(c.reply, 0xFF, sizeof(c.reply))
        memset(c.reply2, 0xFF, sizeof(c.reply2))
        c.ply = 0
        c.split = NULL
        c.cpu = 0.0
        c.quit = NULL
        c.reverse = 0
        c.root_moves = c.root_answered = c.root_have_best = 0
        c.stop = &cancel.flag if cancel is not None else NULL
        c.interrupt = &dd_sigint_hit if interruptible else NULL
        c.granularity = board.granularity if board.granularity > 0 else 1
        c.history_leads = board.history_leads
        c.killer_leads = board.killer_leads
        c.reply_first = board.reply_first
        c.upper_from = board.upper_from
        c.lower_below = board.lower_below
        c.etc_from = board.etc_from
        c.own_search = board.ops.search if board.own_search else NULL
        c.deadline = 0.0
        if timeout is not None:
            if timeout <= 0:
                raise SearchTimeout("the deadline passed before the search started")
            c.deadline = monotonic() + float(timeout)
        if cancel is not None and cancel.flag:
            raise SearchCancelled("the search was cancelled")
        if c.ops.use_table != NULL:
            c.ops.use_table(c.pos, c.tt)
        return 0

    cdef void _release(self, SearchCtx* c) noexcept:
        """The search on c is over: its nodes are this Searcher's count, the board lets the table go."""
        self.nodes = ctx_nodes(c)
        self.cpu_seconds = c.cpu
        if c.ops.use_table != NULL:
            c.ops.use_table(c.pos, NULL)

    def solve(self, Board board, int mode=C_MODE_ALL, CancelToken cancel=None,
              timeout=None, guess=None, bint want_pv=True, helpers=(), split=None,
              bint want_moves=True):
        """Search `board` and return (value, moves, pv, nodes).

        Ctrl-C on the main thread (take_ctrl_c): the search stops and hands SIGINT to the
        handler it displaced; one that does not raise (a program's own, faulthandler's) lets
        the search go on from what its table holds, as Python code goes on after a handler."""
        # (read once: a search that goes on reads them again)
        return self._going_on(self._solve_once, timeout, (board, mode, cancel),
                              (guess, want_pv, list(helpers), split, want_moves))

    def _going_on(self, once, timeout, before, after):
        """once(*before, timeout, *after, nodes_before), again with the time left for as long as
        it raises _GoOn (a SIGINT whose handler did not raise stopped it)."""
        cdef double deadline = 0.0
        nodes = 0
        if timeout is not None and timeout > 0:
            deadline = monotonic() + float(timeout)
        while True:
            try:
                return once(*before, timeout, *after, nodes)
            except _GoOn as on:
                nodes = on.nodes
                if deadline:
                    timeout = deadline - monotonic()
                    if timeout <= 0:
                        # (the handler took the time left) as the try would have stopped: its rows'
                        # progress too, which says that the search had begun (Solver._values)
                        stop = SearchTimeout(f"the search ran out of time after {nodes:,} nodes")
                        if on.rows_progress is not None:
                            stop.rows_progress = on.rows_progress
                        raise stop from None

    def _solve_once(self, Board board, int mode, CancelToken cancel, timeout, guess, bint want_pv, helpers,
                    split, bint want_moves, nodes_before):
        """One try of `solve` (_GoOn: a SIGINT stopped it and its handler did not raise), its
        nodes counted after `nodes_before`, those of the tries before.

        value: the exact measure (exact games) or +1/-1 (threshold games).
        moves: [(move, value or None)] by `mode`; pv: the principal variation.
        The board is left as it was given.

        The root split (below) answers each root move against the best value
        found so far, the root's moves shared out among the threads: the
        caller's and one per helper.  helpers: (Searcher, Board) pairs, each
        Board holding the same position as `board`; every thread probes and
        stores this Searcher's table, each keeps its game's side area in its
        own Searcher.  split=False (one thread only): the value first, then
        each move against it.  split=None (default): the root split, on one
        thread too (measured on the 200 Mariáš Hra deals, one thread: nodes
        -11% / +1% / -2% in modes best / optimal / all, CPU -9% / -3% / -5%;
        Klaverjas -8% nodes; Mariasz -4% to -21%, races +3%).  A game that
        orders its leads by history (Board.history_leads) takes the next root
        move by its history so far, and its threads share one history.
        want_moves=False: the value alone (moves may be empty).
        """
        cdef int moves[MAX_MOVES]
        cdef int values[MAX_MOVES]
        cdef int flags[MAX_MOVES]
        cdef int pv[MAX_PLY]
        cdef int n = 0, i, value = 0, npv = 0, owner = 0, first = -1, nthreads
        cdef int exact = board.exact, t = board.threshold
        cdef int g0 = board.guess if guess is None else guess
        cdef SearchCtx* ctxs
        cdef ThreadTable* tables
        cdef bint use_split
        helpers = list(helpers)
        nthreads = 1 + len(helpers)
        if nthreads > MAX_THREADS:
            raise ValueError(f"at most {MAX_THREADS} threads")
        use_split = True if split is None else bool(split)
        if nthreads > 1 and not use_split:
            raise ValueError("helpers work through the root split (split=True)")
        searchers = [self]
        boards = [board]
        for h_searcher, h_board in helpers:
            if not isinstance(h_searcher, Searcher) or not isinstance(h_board, Board):
                raise TypeError("helpers are (Searcher, Board) pairs")
            if any(h_searcher is x for x in searchers) or any(h_board is x for x in boards):
                raise ValueError("each thread needs a Searcher and a Board of its own")
            if (<Board> h_board).ops != board.ops or (<Board> h_board).ply != board.ply:
                raise ValueError("the helpers' boards must hold the same position as the board")
            searchers.append(h_searcher)
            boards.append(h_board)
        ctxs = <SearchCtx*> PyMem_Malloc(nthreads * sizeof(SearchCtx))
        tables = <ThreadTable*> PyMem_Malloc(nthreads * sizeof(ThreadTable))
        if ctxs == NULL or tables == NULL:
            PyMem_Free(ctxs)
            PyMem_Free(tables)
            raise MemoryError()
        prepared = 0
        nodes = nodes_before
        interruptible = take_ctrl_c()
        interrupted = False
        try:
            for k in range(nthreads):
                (<Searcher> searchers[k])._prepare(&ctxs[k], boards[k], cancel, timeout, interruptible)
                prepared += 1
                if board.history_leads:
                    # One history for all threads: the lead order lives on it (2 threads,
                    # 100 Hra deals: -5% nodes).  An increment lost between threads only blurs it.
                    ctxs[k].hist = &ctxs[0].history[0][0]
                if k > 0:
                    # A helper's side area as large as this table's (Mariasz's endgame memo:
                    # a 256 KiB one beside a 32 MiB table took 25-60% more nodes on 2 threads).
                    fit_side_area(<Searcher> searchers[k], self.tt.aux_bytes)
                # Every thread probes and stores this Searcher's buckets (tt.pxd: lockless
                # entries); the game's side area stays each thread's own.
                lend_table(&ctxs[k], &tables[k], &self.tt, <Searcher> searchers[k])
            self.live, self.live_threads, self.live_before = ctxs, nthreads, nodes_before
            with nogil:
                n = -2
                if use_split:
                    n = split_root(ctxs, nthreads, moves, values, flags, mode, exact, t, g0,
                                   &value, &owner, &first)
                if n == -2:
                    n = solve_one_thread(&ctxs[0], mode, exact, t, g0, moves, values, flags, &value,
                                         want_moves)
                    npv = -1
                if want_pv and not ctxs[0].aborted:
                    if npv == -1:
                        npv = pv_after(&ctxs[0], pv, mode, exact, t, value, moves, flags, n)
                    else:
                        # The table that searched the first optimal move follows its line.
                        npv = principal_variation(&ctxs[owner], pv, exact, t, value, first)
                if npv < 0:
                    npv = 0
            for k in range(nthreads):
                nodes += ctx_nodes(&ctxs[k])
                add_counts(&self.tt, &tables[k])
        finally:
            self.last_progress = root_progress_of(&ctxs[0]) if prepared else None
            self.live = NULL
            for k in range(prepared):
                (<Searcher> searchers[k])._release(&ctxs[k])
            self.nodes = nodes          # every thread's and try's (_release counted the first thread's)
            aborted = ctxs[0].aborted
            PyMem_Free(ctxs)
            PyMem_Free(tables)
            if interruptible:           # (after the count: a KeyboardInterrupt raised here says it)
                interrupted = give_back_ctrl_c()
        if interrupted and aborted == ABORT_CANCELLED and not (cancel is not None and cancel.flag):
            raise _GoOn(nodes)
        stop = stopped(aborted, nodes)
        if stop is not None:
            raise stop
        out = []
        for i in range(n):
            if flags[i]:
                out.append((moves[i], values[i] if values[i] != VALUE_INF else None))
        return value, out, [pv[i] for i in range(npv)], nodes

    def value(self, Board board, CancelToken cancel=None, timeout=None, guess=None, helpers=()):
        """The value alone (exact measure or +1/-1): the root split in mode best."""
        return self.solve(board, C_MODE_BEST, cancel, timeout, guess, want_pv=False, helpers=helpers,
                          want_moves=False)[0]

    def values(self, rows, helpers=(), CancelToken cancel=None, timeout=None):
        """The values of several positions at once (multi_split): [(value, nodes)], one per row
        (Ctrl-C: as for ``solve``)."""
        # (read once, as for ``solve``)
        return self._going_on(self._values_once, timeout,
                              (list(rows), [(h, list(bs)) for h, bs in helpers], cancel), ())

    def _values_once(self, rows, helpers, CancelToken cancel, timeout, nodes_before):
        """One try of `values`, as `_solve_once` is of `solve` (the nodes of the tries before
        count in the first row's).

        rows: (Searcher, Board) pairs: the table that row is searched in (cleared or not, as
        its owner left it; several rows may share one, whose keys keep the positions apart)
        and the position, on this thread's board.  helpers: (Searcher, [Board, ...]) for
        each further thread: the Searcher whose side area it uses and a board of its own for
        every row, at that row's position.  This Searcher keeps the first thread's side
        area.  Each thread answers one row's moves in order and, once every row is started,
        takes moves of the others (multi_split): the same values as ``value`` on each row.
        A search that stops raises as ``solve`` does, with ``rows_progress``: each row's
        root_progress as it stopped.
        """
        cdef int nrows, nthreads, r, k, m, code = 0
        cdef size_t aux_need = 0
        cdef SearchCtx* ctxs = NULL
        cdef ThreadTable* tables = NULL
        cdef RootSplit* splits = NULL
        cdef int* ints = NULL
        cdef Searcher owner, thread
        cdef Board b
        rows = list(rows)
        helpers = [(h, list(bs)) for h, bs in helpers]
        nrows = len(rows)
        nthreads = 1 + len(helpers)
        if nthreads > MAX_THREADS:
            raise ValueError(f"at most {MAX_THREADS} threads")
        if nrows == 0:
            return []
        threads = [self] + [h for h, _ in helpers]
        for h in threads:
            if not isinstance(h, Searcher):
                raise TypeError("helpers are (Searcher, [Board, ...]) pairs")
        if len({id(h) for h in threads}) != nthreads:
            raise ValueError("each thread needs a Searcher of its own")
        boards = []                   # boards[r * nthreads + k]
        for r, (owner_, b_) in enumerate(rows):
            if not isinstance(owner_, Searcher) or not isinstance(b_, Board):
                raise TypeError("rows are (Searcher, Board) pairs")
            boards.append(b_)
            for _, bs in helpers:
                if len(bs) != nrows:
                    raise ValueError("each helper needs a board for every row")
                if not isinstance(bs[r], Board) or (<Board> bs[r]).ops != (<Board> b_).ops or \
                        (<Board> bs[r]).ply != (<Board> b_).ply:
                    raise ValueError("a helper's boards must hold the rows' positions")
                boards.append(bs[r])
        if len({id(x) for x in boards}) != len(boards):
            raise ValueError("each row needs a board of its own on every thread")
        ctxs = <SearchCtx*> PyMem_Malloc(nrows * nthreads * sizeof(SearchCtx))
        tables = <ThreadTable*> PyMem_Malloc(nrows * nthreads * sizeof(ThreadTable))
        splits = <RootSplit*> PyMem_Malloc(nrows * sizeof(RootSplit))
        ints = <int*> PyMem_Malloc(4 * nrows * sizeof(int))
        if ctxs == NULL or tables == NULL or splits == NULL or ints == NULL:
            PyMem_Free(ctxs)
            PyMem_Free(tables)
            PyMem_Free(splits)
            PyMem_Free(ints)
            raise MemoryError()
        cdef int* exact = ints
        cdef int* t = exact + nrows
        cdef int* guess = t + nrows
        cdef int* value = guess + nrows
        prepared = 0
        interruptible = take_ctrl_c()
        interrupted = False
        try:
            for r in range(nrows):
                owner = <Searcher> rows[r][0]
                if owner.tt.aux_bytes > aux_need:
                    aux_need = owner.tt.aux_bytes
            for k in range(1, nthreads):
                fit_side_area(<Searcher> threads[k], aux_need)
            for r in range(nrows):
                owner = <Searcher> rows[r][0]
                b = <Board> boards[r * nthreads]
                exact[r] = b.exact
                t[r] = b.threshold
                guess[r] = b.guess
                for k in range(nthreads):
                    m = r * nthreads + k
                    thread = <Searcher> threads[k]
                    thread._prepare(&ctxs[m], boards[m], cancel, timeout, interruptible)
                    prepared += 1
                    lend_table(&ctxs[m], &tables[m], &owner.tt, thread)     # the row's table
            self.live, self.live_threads, self.live_before = ctxs, nrows * nthreads, nodes_before
            with nogil:
                code = multi_split(ctxs, nrows, nthreads, splits, exact, t, guess, value)
            rows_progress = [root_progress_of(&ctxs[r * nthreads]) for r in range(nrows)]
            out = []
            total = 0
            for r in range(nrows):
                owner = <Searcher> rows[r][0]
                nodes = 0
                for k in range(nthreads):
                    m = r * nthreads + k
                    nodes += ctx_nodes(&ctxs[m])
                    add_counts(&owner.tt, &tables[m])
                out.append((value[r], nodes))
                total += nodes
            total += nodes_before
            self.nodes = total                      # (as in _solve_once)
        finally:
            self.live = NULL
            for m in range(prepared):
                if ctxs[m].ops.use_table != NULL:
                    ctxs[m].ops.use_table(ctxs[m].pos, NULL)
            PyMem_Free(ctxs)
            PyMem_Free(tables)
            PyMem_Free(splits)
            PyMem_Free(ints)
            if interruptible:
                interrupted = give_back_ctrl_c()
        if nodes_before:
            out[0] = (out[0][0], out[0][1] + nodes_before)
        if interrupted and code == ABORT_CANCELLED and not (cancel is not None and cancel.flag):
            raise _GoOn(total, rows_progress)
        stop = stopped(code, total)
        if stop is not None:
            stop.rows_progress = rows_progress    # each row's root_progress as it stopped
            raise stop
        return out


cdef int fit_side_area(Searcher helper, size_t nbytes) except -1:
    """A helper thread's side area grown to at least nbytes (MemoryError if it cannot be)."""
    cdef int failed
    with nogil:
        failed = tt_fit_aux(&helper.tt, nbytes)
    if failed:
        raise MemoryError(f"cannot allocate a helper thread's {nbytes:,} byte side area")
    return 0


cdef void lend_table(SearchCtx* c, ThreadTable* view, TTable* table, Searcher side) noexcept:
    """c searches `table` through `view`: the table's buckets, counters of its own, and the
    side area of `side` (the Searcher of c's thread)."""
    view.t = table[0]
    view.t.probes = view.t.hits = view.t.stores = 0
    view.t.aux = side.tt.aux
    view.t.aux_bytes = side.tt.aux_bytes
    c.tt = &view.t
    if c.ops.use_table != NULL:
        c.ops.use_table(c.pos, &view.t)


cdef inline void add_counts(TTable* table, ThreadTable* view) noexcept:
    """The probes, hits and stores a thread counted in its view, added to the table's."""
    table.probes += view.t.probes
    table.hits += view.t.hits
    table.stores += view.t.stores


cdef long _main_thread = _threading.main_thread().ident


def _forked():
    """In a child of fork(): the thread that forked is its main thread, the one Python runs its
    signal handlers on (a fork from another thread than the parent's main one)."""
    global _main_thread
    _main_thread = _threading.get_ident()


_os.register_at_fork(after_in_child=_forked)


cdef bint take_ctrl_c():
    """On Python's main thread, with a Python handler for SIGINT (KeyboardInterrupt's, or the
    program's own), take SIGINT over for the search about to run (sigint.h): Ctrl-C then stops
    it within milliseconds, where Python would take it only when the search ends.  Elsewhere
    (another thread, SIGINT ignored or left to the system) nothing changes."""
    global dd_sigint_hit
    if _threading.get_ident() != _main_thread or not callable(_signal.getsignal(_signal.SIGINT)):
        return False
    if not dd_sigint_arm():
        return False
    if PyOS_InterruptOccurred():
        # A SIGINT Python's handler took just before (its Python handler not run yet, as no
        # bytecode ran since): it would wait for the search's end, so it stops the search.
        dd_sigint_hit = 1
    return True


cdef bint give_back_ctrl_c() except -1:
    """The handler there was back in place; a SIGINT the search took meanwhile is raised again
    for it now (Python's raises KeyboardInterrupt, or does what the program's own handler does;
    a C one, faulthandler's, does its own).  Whether one came."""
    if not dd_sigint_disarm():
        return False
    if not dd_sigint_pass_on():         # this thread blocks SIGINT: straight to Python's handler
        PyErr_SetInterruptEx(_signal.SIGINT)
    PyErr_CheckSignals()
    return True


class _GoOn(Exception):
    """A search stopped by a SIGINT whose handler did not raise: it goes on (Searcher._going_on)."""

    def __init__(self, nodes, rows_progress=None):
        super().__init__(nodes)
        self.nodes = nodes
        self.rows_progress = rows_progress      # values: each row's root_progress as it stopped


cdef object stopped(int aborted, nodes):
    """The exception a search that stopped raises (None if it did not)."""
    if aborted == ABORT_CANCELLED:
        return SearchCancelled(f"the search was cancelled after {nodes:,} nodes")
    if aborted == ABORT_TIMEOUT:
        return SearchTimeout(f"the search ran out of time after {nodes:,} nodes")
    return None


cdef object root_progress_of(SearchCtx* c):
    """Searcher.root_progress of the search on c (its first thread's context)."""
    cdef int n, packed
    n = dd_atomic_load_int(&c.root_moves)
    if n == 0:
        return None
    if not dd_atomic_load_int(&c.root_have_best):
        return dd_atomic_load_int(&c.root_answered), n, None, None, bool(c.root_ismax)
    packed = dd_atomic_load_int(&c.root_best)
    return dd_atomic_load_int(&c.root_answered), n, packed >> 8, packed & 255, bool(c.root_ismax)


include "root.pxi"


include "root_split.pxi"


include "multi_split.pxi"
