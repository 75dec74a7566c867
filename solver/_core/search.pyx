# cython: freethreading_compatible = False
"""Alpha-beta search with a transposition table and MTD-style drivers.

Reading guide
- ``alphabeta`` is a fail-soft alpha-beta on the *total* value (banked +
  future).  At trick boundaries it first tries the game's quick bounds, then
  the table, then the game's own endgame solver if it has one (``leaf``),
  and stores what it learnt as bounds on the future value.  Move order: the
  game's, then the table's move first; at boundaries the lead that last cut
  off at that depth (killer leads, for games that ask) or the history of
  cutoffs; mid-trick the last cutoff move at that ply second (reply killers).
- ``mtd`` finds the exact value with a sequence of null-window searches; a
  threshold game (won / lost) needs one.  Tests fall only on values the game
  can have (``snap``), each in the measure the game names for it
  (``set_mode``: Klaverjas searches an additive margin where that is exact,
  and first bounds a lost deal by its value as if lost: ``lower_measure``).
  ``set_mode`` also names the test's threshold: every search is a
  null-window one, so a game may skip work no node of that test can use.
- ``Searcher`` is the Python face: value, per-move values by mode, the
  principal variation, node counts.  It releases the GIL for all of it and
  polls a cancel flag and a deadline every few thousand nodes.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from ddcards._core.tt cimport (TTable, TTEntry, TT_NO_MOVE, TT_WAYS, tt_init, tt_free,
                              tt_new_generation, tt_probe, tt_store)
from ddcards._core.bits cimport DD_BUILD_FEATURES
from ddcards.errors import SearchCancelled, SearchTimeout

#: The instruction sets this module was compiled for ("base popcnt bmi2 avx2"...).
BUILD_FEATURES = (<bytes> DD_BUILD_FEATURES).decode()

cdef extern from *:
    ctypedef int volatile_int "volatile int"

# Modes, as DDS names them: one best move / all optimal moves / every move.
cdef enum:
    C_MODE_BEST = 0
    C_MODE_OPTIMAL = 1
    C_MODE_ALL = 2

MODE_BEST = C_MODE_BEST
MODE_OPTIMAL = C_MODE_OPTIMAL
MODE_ALL = C_MODE_ALL

cdef enum:
    POLL_MASK = 4095
    ABORT_CANCELLED = 1
    ABORT_TIMEOUT = 2


cdef class Board:
    def __cinit__(self, *args, **kwargs):
        self.exact = True
        self.threshold = 1
        self.granularity = 1
        self.guess = 0
        self.history_leads = True
        self.killer_leads = False
        self.upper_from = VALUE_INF
        self.lower_below = -VALUE_INF
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
    def terminal(self):
        """Nothing is left to decide (all played, or the outcome is settled)."""
        return self.ops.node_kind(self.pos) == NODE_TERMINAL


cdef class CancelToken:
    """A flag another thread sets to stop a running search (thread-safe)."""
    cdef volatile_int flag

    def __cinit__(self):
        self.flag = 0

    def cancel(self):
        """Ask every search polling this token to stop."""
        self.flag = 1

    @property
    def cancelled(self):
        return self.flag != 0

    def __repr__(self):
        return f"CancelToken(cancelled={self.flag != 0})"


ctypedef struct SearchCtx:
    const GameOps* ops
    void* pos
    TTable* tt
    uint64_t nodes
    volatile_int* stop
    double deadline      # CLOCK_MONOTONIC seconds; 0 = none
    int aborted
    int granularity      # values are multiples of it
    int history_leads    # order boundary moves by history
    int killer_leads     # try the last lead that cut off at the same depth early
    int upper_from       # tests at beta >= this run in the game's mode 1
    int lower_below      # a value known <= this: bound it by the lower measure (mode 2)
    int ply              # depth below the current test's root
    # History of cutoffs by moves at boundaries (leads), per side: [is_max][move]
    uint64_t history[2][256]
    # The last lead that cut off, per depth (mod 64) and side ("killer"), -1 none
    int killer[64][2]
    # Mid-trick: the move that last cut off at this ply (from the search's
    # root, mod 64) and side where the game's first choice did not, -1 none
    int reply[64][2]


cdef inline double monotonic() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int poll_stop(SearchCtx* c) noexcept nogil:
    if c.stop != NULL and c.stop[0] != 0:
        c.aborted = ABORT_CANCELLED
    elif c.deadline > 0 and monotonic() > c.deadline:
        c.aborted = ABORT_TIMEOUT
    return c.aborted


cdef inline void order_by_history(uint64_t* history, int* moves, int n) noexcept nogil:
    """Stable insertion sort of moves by history, highest first."""
    cdef int i, j, m
    cdef uint64_t h
    for i in range(1, n):
        m = moves[i]
        h = history[m]
        j = i - 1
        while j >= 0 and history[moves[j]] < h:
            moves[j + 1] = moves[j]
            j -= 1
        moves[j + 1] = m


cdef inline void store_bounds(SearchCtx* c, uint64_t k0, uint64_t k1, int depth, int lo, int hi,
                              int best, int banked, int alpha0, int beta0, int bestmove) noexcept nogil:
    """Store what a search of a boundary node learnt about its future (best - banked).

    Fail-soft: a fail low bounds the value from above, a fail high from
    below; inside the window it is exact.  Keep the quick bounds too.
    """
    cdef int v = best - banked
    if best <= alpha0:
        tt_store(c.tt, k0, k1, depth, lo, v if v < hi else hi, bestmove)
    elif best >= beta0:
        tt_store(c.tt, k0, k1, depth, v if v > lo else lo, hi, bestmove)
    else:
        tt_store(c.tt, k0, k1, depth, v, v, bestmove)


cdef inline void raise_move(int* moves, int n, int m) noexcept nogil:
    """Move m (if listed) to the front, the others keeping their order."""
    cdef int i, j
    for i in range(1, n):
        if moves[i] == m:
            for j in range(i, 0, -1):
                moves[j] = moves[j - 1]
            moves[0] = m
            return


cdef int alphabeta(SearchCtx* c, int alpha, int beta) noexcept nogil:
    cdef const GameOps* ops = c.ops
    cdef void* pos = c.pos
    cdef int moves[MAX_MOVES]
    cdef int kind, banked, lo = -VALUE_INF, hi = VALUE_INF, depth = 0
    cdef int n, i, j, v, best, bestmove = TT_NO_MOVE, ttmove = TT_NO_MOVE
    cdef int alpha0 = alpha, beta0 = beta, ismax
    cdef uint64_t k0 = 0, k1 = 0
    cdef TTEntry* e

    c.nodes += 1
    if (c.nodes & POLL_MASK) == 0 and poll_stop(c):
        return 0
    kind = ops.node_info(pos, &banked, &ismax, &lo, &hi)
    if kind == NODE_TERMINAL:
        return banked + ops.terminal_future(pos)

    if kind == NODE_BOUNDARY or kind == NODE_SMALL:
        if banked + lo >= beta:
            return banked + lo
        if banked + hi <= alpha:
            return banked + hi
    if kind == NODE_BOUNDARY:
        ops.tt_key(pos, &k0, &k1, &depth)
        e = tt_probe(c.tt, k0, k1)
        if e != NULL:
            if e.lo > lo:
                lo = e.lo
            if e.hi < hi:
                hi = e.hi
            if banked + lo >= beta:
                return banked + lo
            if banked + hi <= alpha:
                return banked + hi
            ttmove = e.move

    if kind != NODE_INNER and ops.leaf != NULL and ops.leaf(pos, alpha, beta, &best):
        if kind == NODE_BOUNDARY:
            store_bounds(c, k0, k1, depth, lo, hi, best, banked, alpha0, beta0, TT_NO_MOVE)
        return best

    n = ops.gen_moves(pos, moves, 1)
    if kind == NODE_BOUNDARY and n > 1 and c.history_leads:
        # Leads that cut off elsewhere in this search go first: the game's
        # static guess is weakest on leads (measured: -40% nodes).
        order_by_history(c.history[ismax], moves, n)
    if kind == NODE_BOUNDARY and n > 1 and c.killer_leads and c.killer[depth & 63][ismax] >= 0:
        # The lead that last cut off at this depth goes first (after the
        # table's move, below): sibling positions share their refutations.
        raise_move(moves, n, c.killer[depth & 63][ismax])
    if kind == NODE_INNER and n > 2 and c.reply[c.ply & 63][ismax] >= 0 and \
            moves[0] != c.reply[c.ply & 63][ismax]:
        # Mid-trick the game's first choice stays first (it is right ~94% of
        # the time); a sibling's cutoff move is the best second guess.
        raise_move(moves + 1, n - 1, c.reply[c.ply & 63][ismax])
    if ttmove != TT_NO_MOVE:
        # The move that was best here before goes first.
        raise_move(moves, n, ttmove)

    if ismax:
        best = -VALUE_INF
        for i in range(n):
            ops.make(pos, moves[i])
            c.ply += 1
            v = alphabeta(c, alpha, beta)
            c.ply -= 1
            ops.unmake(pos)
            if c.aborted:
                return 0
            if v > best:
                best = v
                bestmove = moves[i]
                if best >= beta:
                    if kind == NODE_INNER and i > 0:
                        c.reply[c.ply & 63][1] = moves[i]
                    if kind == NODE_BOUNDARY:
                        c.killer[depth & 63][1] = moves[i]
                        c.history[1][moves[i]] += depth * depth
                    break
                if best > alpha:
                    alpha = best
    else:
        best = VALUE_INF
        for i in range(n):
            ops.make(pos, moves[i])
            c.ply += 1
            v = alphabeta(c, alpha, beta)
            c.ply -= 1
            ops.unmake(pos)
            if c.aborted:
                return 0
            if v < best:
                best = v
                bestmove = moves[i]
                if best <= alpha:
                    if kind == NODE_INNER and i > 0:
                        c.reply[c.ply & 63][0] = moves[i]
                    if kind == NODE_BOUNDARY:
                        c.killer[depth & 63][0] = moves[i]
                        c.history[0][moves[i]] += depth * depth
                    break
                if best < beta:
                    beta = best

    if kind == NODE_BOUNDARY:
        # A fail low keeps the move only where it refuted (MIN's cutoff): at
        # MAX every move failed, and none is a better guess than another.
        store_bounds(c, k0, k1, depth, lo, hi, best, banked, alpha0, beta0,
                     bestmove if (best > alpha0 or not ismax) else TT_NO_MOVE)
    return best


cdef inline int test(SearchCtx* c, int beta) noexcept nogil:
    """Null-window search at beta (fail-soft), the game told the mode first."""
    if c.ops.set_mode != NULL:
        c.ops.set_mode(c.pos, 1 if beta >= c.upper_from else 0, beta)
    return alphabeta(c, beta - 1, beta)


cdef inline int snap(SearchCtx* c, int v, int up) noexcept nogil:
    return c.ops.snap(c.pos, v, up) if c.ops.snap != NULL else v


cdef int lower_measure(SearchCtx* c, int hi) noexcept nogil:
    """The exact minimax of the game's lower measure L (mode 2), given L <= hi.

    L <= value in every finished game, so its minimax bounds the value from
    below; the first test, at hi, settles the value when they meet.
    """
    cdef int lo = -VALUE_INF, beta = hi, r, down = 0
    while lo < hi:
        if lo > -VALUE_INF:
            beta = lo + c.granularity * (((hi - lo) // c.granularity + 1) // 2)
        beta = snap(c, beta if beta > lo else lo + 1, 1)
        if beta > hi:
            beta = hi
        c.ops.set_mode(c.pos, 2, beta)
        r = alphabeta(c, beta - 1, beta)
        if c.aborted:
            return 0
        if r >= beta:
            lo = snap(c, r, 1)
        else:
            hi = snap(c, r, 0)
            beta = hi - down
            down = down * 2 if down else c.granularity
    return lo


cdef int mtd(SearchCtx* c, int guess, int lo=-VALUE_INF, int hi=VALUE_INF) noexcept nogil:
    """Exact value by null-window tests "value >= beta?" (MTD-style).

    lo <= value <= hi is what the caller already knows.  While one side is
    open, the next test is at the bound just returned (MTD(f)), stepping
    further each time the bound creeps; once both sides are known, it
    bisects.  Tests and bounds fall only on values the game can have (the
    multiples of its granularity, or what its ``snap`` allows): a test
    between two such values asks the same as one at the upper of them.
    Once the value is known <= Board.lower_below, the game's lower measure
    bounds it from below first (``lower_measure``).
    """
    cdef int g = c.granularity, beta = guess, r, up = 0, down = 0, lower_done = 0
    while lo < hi:
        if not lower_done and hi <= c.lower_below and c.ops.set_mode != NULL:
            lower_done = 1
            r = lower_measure(c, hi)
            if c.aborted:
                return 0
            if r > lo:
                lo = r
            beta = hi
            continue
        if lo > -VALUE_INF and hi < VALUE_INF:
            beta = lo + g * (((hi - lo) // g + 1) // 2)
        if beta <= lo:
            beta = lo + 1
        beta = snap(c, beta, 1)
        if beta > hi:
            beta = hi
        r = test(c, beta)
        if c.aborted:
            return 0
        if r >= beta:
            lo = snap(c, r, 1)
            beta = lo + up
            up = up * 2 if up else g
        else:
            hi = snap(c, r, 0)
            beta = hi - down
            down = down * 2 if down else g
    return lo


cdef inline int at_least(SearchCtx* c, int target) noexcept nogil:
    """Is the value >= target?"""
    if target <= c.lower_below and c.ops.set_mode != NULL:
        # The lower measure (cheaper to search) may already reach it.
        c.ops.set_mode(c.pos, 2, target)
        if alphabeta(c, target - 1, target) >= target or c.aborted:
            return 1
    return test(c, target) >= target


cdef inline int at_most(SearchCtx* c, int target) noexcept nogil:
    """Is the value <= target?"""
    return test(c, target + 1) <= target


cdef class Searcher:
    """Owns a transposition table and answers questions about Boards.

    Not thread-safe: use one Searcher per thread.  The table persists across
    calls (its keys carry the game's parameters, so reuse is sound); call
    ``clear()`` to start cold.
    """
    cdef TTable tt
    cdef readonly size_t tt_mb
    cdef readonly uint64_t nodes

    def __cinit__(self, size_t tt_mb=64):
        if tt_mb < 1:
            raise ValueError("tt_mb must be at least 1")
        if tt_init(&self.tt, tt_mb) != 0:
            raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")
        self.tt_mb = tt_mb
        self.nodes = 0

    def __dealloc__(self):
        tt_free(&self.tt)

    def clear(self):
        """Forget all stored positions (O(1))."""
        tt_new_generation(&self.tt)

    @property
    def tt_entries(self):
        return self.tt.nbuckets * TT_WAYS

    @property
    def tt_stats(self):
        return {"probes": self.tt.probes, "hits": self.tt.hits, "stores": self.tt.stores}

    cdef int _prepare(self, SearchCtx* c, Board board, CancelToken cancel, object timeout) except -1:
        c.ops = board.ops
        c.pos = board.pos
        c.tt = &self.tt
        c.nodes = 0
        c.aborted = 0
        memset(c.history, 0, sizeof(c.history))
        memset(c.killer, 0xFF, sizeof(c.killer))
        memset(c.reply, 0xFF, sizeof(c.reply))
        c.ply = 0
        c.stop = &cancel.flag if cancel is not None else NULL
        c.granularity = board.granularity if board.granularity > 0 else 1
        c.history_leads = board.history_leads
        c.killer_leads = board.killer_leads
        c.upper_from = board.upper_from
        c.lower_below = board.lower_below
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

    cdef int _finish(self, SearchCtx* c) except -1:
        self.nodes = c.nodes
        if c.ops.use_table != NULL:
            c.ops.use_table(c.pos, NULL)
        if c.aborted == ABORT_CANCELLED:
            raise SearchCancelled(f"the search was cancelled after {c.nodes} nodes")
        if c.aborted == ABORT_TIMEOUT:
            raise SearchTimeout(f"the search ran out of time after {c.nodes} nodes")
        return 0

    def solve(self, Board board, int mode=C_MODE_ALL, CancelToken cancel=None,
              timeout=None, guess=None, bint want_pv=True):
        """Search `board` and return (value, moves, pv, nodes).

        value: the exact measure (exact games) or +1/-1 (threshold games).
        moves: [(move, value or None)] by `mode`; pv: the principal variation.
        The board is left as it was given.
        """
        cdef SearchCtx c
        cdef int moves[MAX_MOVES]
        cdef int values[MAX_MOVES]
        cdef int flags[MAX_MOVES]
        cdef int pv[MAX_PLY]
        cdef int n = 0, i, value, ismax, npv = 0, won = 0, first
        cdef int exact = board.exact, t = board.threshold
        cdef int g0 = board.guess if guess is None else guess
        self._prepare(&c, board, cancel, timeout)
        with nogil:
            if exact:
                value = mtd(&c, g0)
            else:
                won = at_least(&c, t)
                value = 1 if won else -1
            if not c.aborted:
                n = root_moves(&c, moves, values, flags, mode, exact, t, value)
            if want_pv and not c.aborted:
                # In "best" mode the line starts with the move reported.
                first = -1
                if mode == C_MODE_BEST:
                    for i in range(n):
                        if flags[i]:
                            first = moves[i]
                npv = principal_variation(&c, pv, exact, t, value, first)
        self._finish(&c)
        out = []
        for i in range(n):
            if flags[i]:
                out.append((moves[i], values[i] if values[i] != VALUE_INF else None))
        return value, out, [pv[i] for i in range(npv)], c.nodes

    def value(self, Board board, CancelToken cancel=None, timeout=None, guess=None):
        """The value alone (exact measure or +1/-1)."""
        cdef SearchCtx c
        cdef int value
        cdef int g0 = board.guess if guess is None else guess
        self._prepare(&c, board, cancel, timeout)
        with nogil:
            if board.exact:
                value = mtd(&c, g0)
            else:
                value = 1 if at_least(&c, board.threshold) else -1
        self._finish(&c)
        return value


cdef int child_outcome(SearchCtx* c, int exact, int t, int value, int ismax,
                       int want_exact, int* out) noexcept nogil:
    """Value of the current (child) node: exact, or whether it keeps `value`.

    Writes the child's value to out[0] (VALUE_INF if only optimality was
    asked and the move is not optimal); returns 1 if the move is optimal.
    """
    cdef int v, ok
    if not exact:
        v = 1 if at_least(c, t) else -1
        out[0] = v
        return v == value
    if want_exact:
        # The parent's value bounds every child: none beats it for the mover.
        v = mtd(c, value, -VALUE_INF, value) if ismax else mtd(c, value, value, VALUE_INF)
        out[0] = v
        return v == value
    ok = at_least(c, value) if ismax else at_most(c, value)
    out[0] = value if ok else VALUE_INF
    return ok


cdef inline void value_mode(SearchCtx* c) noexcept nogil:
    """Back to the game's mode 0 (the value itself) before listing pruned
    moves or asking for equivalent moves outside a search: both must hold
    for the value, whatever measure the last test searched (a game may
    merge moves in its other modes that differ in value)."""
    if c.ops.set_mode != NULL:
        c.ops.set_mode(c.pos, 0, VALUE_INF)


cdef int root_moves(SearchCtx* c, int* moves, int* values, int* flags, int mode,
                    int exact, int t, int value) noexcept nogil:
    """Fill moves/values/flags (flag = report this move) for the root.

    Moves the game declares equivalent share one search.
    """
    cdef const GameOps* ops = c.ops
    cdef int n, ismax, i, j, optimal, twin
    cdef int opt[MAX_MOVES]
    # A settled outcome still has legal moves (a lost Betl may be played
    # out); they all keep the value.  A finished deal has none.
    n = ops.gen_moves(c.pos, moves, 0)
    ismax = ops.max_to_move(c.pos)
    for i in range(n):
        flags[i] = 0
        values[i] = VALUE_INF
    for i in range(n):
        twin = -1
        if ops.equivalent != NULL:
            value_mode(c)
            for j in range(i):
                if flags[j] and ops.equivalent(c.pos, moves[i], moves[j]):
                    twin = j
                    break
        if twin >= 0:
            values[i] = values[twin]
            optimal = opt[twin]
        else:
            ops.make(c.pos, moves[i])
            optimal = child_outcome(c, exact, t, value, ismax, mode == C_MODE_ALL, &values[i])
            ops.unmake(c.pos)
            if c.aborted:
                return n
        opt[i] = optimal
        if mode == C_MODE_BEST:
            if optimal:
                flags[i] = 1
                return n
        else:
            flags[i] = 1
    return n


cdef int principal_variation(SearchCtx* c, int* pv, int exact, int t, int value,
                             int first) noexcept nogil:
    """Follow optimal moves to the end (starting with `first` if >= 0); return the number of moves."""
    cdef const GameOps* ops = c.ops
    cdef int moves[MAX_MOVES]
    cdef int n, i, k, ismax, ok, npv = 0, dummy
    if first >= 0 and ops.node_kind(c.pos) != NODE_TERMINAL:
        ops.make(c.pos, first)
        pv[0] = first
        npv = 1
    while npv < MAX_PLY and ops.node_kind(c.pos) != NODE_TERMINAL:
        value_mode(c)
        n = ops.gen_moves(c.pos, moves, 1)
        if n == 0:
            break
        ismax = ops.max_to_move(c.pos)
        k = -1
        for i in range(n):
            ops.make(c.pos, moves[i])
            ok = child_outcome(c, exact, t, value, ismax, 0, &dummy)
            if c.aborted:
                ops.unmake(c.pos)
                break
            if ok:
                k = i
                break
            ops.unmake(c.pos)
        if c.aborted or k < 0:
            break
        pv[npv] = moves[k]
        npv += 1
    for i in range(npv):
        ops.unmake(c.pos)
    return npv
