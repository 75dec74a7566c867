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
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID

from ddcards._core.tt cimport (TTable, TTHit, TT_NO_MOVE, TT_WAYS, tt_init, tt_free, tt_use,
                              tt_new_generation, tt_probe, tt_store, tt_bucket, tt_aux_bytes, tt_fit_aux)
from ddcards._core.bits cimport DD_BUILD_FEATURES, dd_prefetch, dd_atomic_load_int, dd_atomic_store_int
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
    # The flags (a cancel, another thread's answer to the root move searched) and the clock
    # are read every 256 nodes: a thread of a root split leaves an answered move within ~25 us
    # rather than ~350 us, and a deadline holds where nodes are slow.  The first search in a
    # fresh large table waits on the kernel's page faults (up to ~35 us a node), and a game's
    # own endgame nodes go uncounted here: with the clock read every 4,096 nodes a 10 ms
    # timeout on a fresh 36-card Mariasz deal stopped after 2.4 s (benchmarks/RESULTS.md).
    POLL_MASK = 255
    ABORT_CANCELLED = 1
    ABORT_TIMEOUT = 2
    ABORT_QUIT = 3       # the root split: another thread answered this root move first


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

    def __init__(self):
        pass                        # takes no arguments (a __cinit__ alone would ignore them)

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
    int reply_first      # mid-trick, the last cutoff move at the ply goes first (Board.reply_first)
    uint64_t own0        # the game's own nodes (GameOps.own_nodes) when the search began
    int upper_from       # tests at beta >= this run in the game's mode 1
    int lower_below      # a value known <= this: bound it by the lower measure (mode 2)
    int etc_from         # mid-trick: look up the boundaries the moves reach from this depth (Board.etc_from)
    int ply              # depth below the current test's root
    # History of cutoffs by moves at boundaries (leads), per side: [is_max][move]
    uint64_t history[2][256]
    # The history this search reads and raises ([is_max * 256 + move]): its own, or with
    # Board.history_leads in a root split on several threads, the first thread's
    uint64_t* hist
    # The last lead that cut off, per depth (mod 64) and side ("killer"), -1 none
    int killer[64][2]
    # Mid-trick: the move that last cut off at this ply (from the search's
    # root, mod 64) and side where the game's first choice did not, -1 none
    int reply[64][2]
    # reply_first: the refutation at the ply before the last one (the second guess), -1 none
    int reply2[64][2]
    # The root split this search works for (RootSplit*), else NULL: the
    # root move's value search reads the best value so far (mtd's cuts)
    void* split
    double cpu           # CPU seconds of this thread's part (the root split), else 0
    volatile_int* quit   # the root split: set when another thread answered the move searched
    int reverse          # the root split's helper: the search's first node tries its moves last first
    int split_move       # the root split: the root move this thread's search values (show_bound)
    # The root split's progress, in the first thread's context for readers on
    # other threads (Searcher.root_progress): distinct root moves (0: no root
    # split runs), how many are answered, and once a test has bounded one of
    # them on the mover's side, the best such bound so far (an exact value or
    # one a move's search has proven on the way: a bound on the root's value)
    # packed with its move as value * 256 + move (one atomic word).
    int root_moves
    int root_answered
    int root_best
    int root_have_best
    int root_ismax
    # The root split keeps its threads' contexts side by side: this keeps one
    # thread's hot fields (nodes, ply) off the cache lines of the other's.
    char pad[128]


ctypedef struct ThreadTable:
    # A thread's view of the shared table (its own counters and side area),
    # padded as SearchCtx is: the counters change at every probe.
    TTable t
    char pad[128]


cdef inline uint64_t ctx_nodes(SearchCtx* c) noexcept nogil:
    """The nodes a search has run: the core's and those of the game's own search (a leaf's)."""
    if c.ops.own_nodes == NULL:
        return c.nodes
    return c.nodes + (c.ops.own_nodes(c.pos) - c.own0)


# Benchmarks that measured a game's own nodes apart (Mariasz's endgame) read this: since it
# exists, the core's counts include them.
COUNTS_OWN_NODES = True


cdef inline double monotonic() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int poll_stop(SearchCtx* c) noexcept nogil:
    if c.stop != NULL and c.stop[0] != 0:
        c.aborted = ABORT_CANCELLED
    elif c.deadline > 0 and monotonic() > c.deadline:
        c.aborted = ABORT_TIMEOUT
    elif c.quit != NULL and c.quit[0] != 0:
        c.aborted = ABORT_QUIT
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
        if v < hi:
            hi = v
    elif best >= beta0:
        if v > lo:
            lo = v
    else:
        lo = v
        hi = v
    tt_store(c.tt, k0, k1, depth, lo, hi, bestmove)
    if c.ops.stored != NULL:
        c.ops.stored(c.pos, lo, hi)


cdef inline void raise_move(int* moves, int n, int m) noexcept nogil:
    """Move m (if listed) to the front, the others keeping their order."""
    cdef int i, j
    for i in range(1, n):
        if moves[i] == m:
            for j in range(i, 0, -1):
                moves[j] = moves[j - 1]
            moves[0] = m
            return


cdef inline void remember_reply(SearchCtx* c, int ismax, int move) noexcept nogil:
    """A mid-trick cutoff by `move` at this ply: the reply killer (and with reply_first, the one
    before it moves to second place)."""
    cdef int* last = &c.reply[c.ply & 63][ismax]
    if c.reply_first and last[0] != move:
        c.reply2[c.ply & 63][ismax] = last[0]
    last[0] = move


cdef int etc_cutoff(SearchCtx* c, int* moves, int n, int ismax, int alpha, int beta,
                    int* value) noexcept nogil:
    """Enhanced transposition cutoff at a mid-trick node: 1 and value[0] (a
    fail-soft bound that settles the node) if a move's boundary, looked up
    without a search (quick bounds, then the table), already refutes the
    window; 0 otherwise, or when the moves do not end the trick or reach
    boundaries shallower than c.etc_from (every move of a trick's last card
    reaches the same depth, so the first tells).  The keys are worked out
    first and their buckets prefetched, then probed: the probes wait on
    memory together rather than one after another.

    When no move settles the node, the bounds found still order the moves:
    MAX's by the highest guaranteed value (lower bound) first, MIN's by the
    lowest guaranteed (upper bound) first, ties in the game's order (Mariasz:
    -5% to -8% nodes, benchmarks/RESULTS.md "Moves ordered by what the ETC
    found").  The caller's own first choices (the last refuting replies, the
    table's move) are raised to the front afterwards."""
    cdef const GameOps* ops = c.ops
    cdef int i, kind, cismax, lo, hi, depth, nk = 0
    cdef int banked[MAX_MOVES]
    cdef int idx[MAX_MOVES]
    cdef int sure[MAX_MOVES]          # each move's guaranteed value: lower bound (MAX), upper (MIN)
    cdef uint64_t k0[MAX_MOVES]
    cdef uint64_t k1[MAX_MOVES]
    cdef TTHit e
    for i in range(n):
        lo = -VALUE_INF
        hi = VALUE_INF
        ops.make(c.pos, moves[i])
        kind = ops.node_info(c.pos, &banked[i], &cismax, &lo, &hi)
        if kind == NODE_INNER:
            ops.unmake(c.pos)
            return 0
        if kind == NODE_TERMINAL:
            lo = ops.terminal_future(c.pos)
            hi = lo
        elif kind == NODE_BOUNDARY:
            ops.tt_key(c.pos, &k0[nk], &k1[nk], &depth)
            if depth < c.etc_from:
                ops.unmake(c.pos)
                return 0
            dd_prefetch(tt_bucket(c.tt, k0[nk], k1[nk]))
            idx[nk] = i
            nk += 1
        ops.unmake(c.pos)
        sure[i] = banked[i] + (lo if ismax else hi)
        if ismax and banked[i] + lo >= beta:
            value[0] = banked[i] + lo
            return 1
        if not ismax and banked[i] + hi <= alpha:
            value[0] = banked[i] + hi
            return 1
    for i in range(nk):
        if tt_probe(c.tt, k0[i], k1[i], &e):
            if ismax and banked[idx[i]] + e.lo >= beta:
                value[0] = banked[idx[i]] + e.lo
                return 1
            if not ismax and banked[idx[i]] + e.hi <= alpha:
                value[0] = banked[idx[i]] + e.hi
                return 1
            if ismax and banked[idx[i]] + e.lo > sure[idx[i]]:
                sure[idx[i]] = banked[idx[i]] + e.lo
            elif not ismax and banked[idx[i]] + e.hi < sure[idx[i]]:
                sure[idx[i]] = banked[idx[i]] + e.hi
    if not ismax:
        for i in range(n):
            sure[i] = -sure[i]              # sort_moves puts the highest score first
    sort_moves(moves, sure, n)
    return 0


# etc_cutoff is called through a pointer so that the compiler cannot inline it: inlined, its
# arrays made every alphabeta frame 2.2 KB (now 360 bytes), a deep search's stack spread over
# many more cache lines (Mariáš every first card: -1% to -3% CPU, benchmarks/RESULTS.md).
ctypedef int (*EtcFn)(SearchCtx*, int*, int, int, int, int, int*) noexcept nogil
cdef EtcFn etc_fn = etc_cutoff


cdef int alphabeta(SearchCtx* c, int alpha, int beta) noexcept nogil:
    cdef const GameOps* ops = c.ops
    cdef void* pos = c.pos
    cdef int moves[MAX_MOVES]
    cdef int kind, banked, lo = -VALUE_INF, hi = VALUE_INF, depth = 0
    cdef int n, i, j, v, best, bestmove = TT_NO_MOVE, ttmove = TT_NO_MOVE
    cdef int alpha0 = alpha, beta0 = beta, ismax
    cdef uint64_t k0 = 0, k1 = 0
    cdef TTHit e

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
        if tt_probe(c.tt, k0, k1, &e):
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
    if kind == NODE_INNER and n > 1 and c.etc_from < VALUE_INF and etc_fn(c, moves, n, ismax, alpha, beta, &v):
        return v
    if kind == NODE_BOUNDARY and n > 1 and c.history_leads:
        # Leads that cut off elsewhere in this search go first: the game's
        # static guess is weakest on leads (measured: -40% nodes).
        order_by_history(c.hist + 256 * ismax, moves, n)
    if kind == NODE_BOUNDARY and n > 1 and c.killer_leads and c.killer[depth & 63][ismax] >= 0:
        # The lead that last cut off at this depth goes first (after the
        # table's move, below): sibling positions share their refutations.
        raise_move(moves, n, c.killer[depth & 63][ismax])
    if kind == NODE_INNER and n > 1 and c.reply[c.ply & 63][ismax] >= 0:
        if c.reply_first:
            # A game whose first choice mid-trick is weak: the last two moves
            # that cut off at this ply go first, the latest first (Mariasz's
            # phase-1 replies: -30-60% nodes; the second one -4-10% more).
            if c.reply2[c.ply & 63][ismax] >= 0:
                raise_move(moves, n, c.reply2[c.ply & 63][ismax])
            raise_move(moves, n, c.reply[c.ply & 63][ismax])
        elif n > 2 and moves[0] != c.reply[c.ply & 63][ismax]:
            # Mid-trick the game's first choice stays first (it is right ~94% of
            # the time); a sibling's cutoff move is the best second guess.
            raise_move(moves + 1, n - 1, c.reply[c.ply & 63][ismax])
    if ttmove != TT_NO_MOVE:
        # The move that was best here before goes first.
        raise_move(moves, n, ttmove)
    if c.reverse and c.ply == 0:
        # A second thread on the same root move (the root split) starts at the
        # other end, so that the two meet through the shared table.
        for i in range(n // 2):
            j = moves[i]
            moves[i] = moves[n - 1 - i]
            moves[n - 1 - i] = j

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
                    if kind == NODE_INNER and (i > 0 or c.reply_first):
                        remember_reply(c, 1, moves[i])
                    if kind == NODE_BOUNDARY:
                        c.killer[depth & 63][1] = moves[i]
                        c.hist[256 + moves[i]] += depth * depth
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
                    if kind == NODE_INNER and (i > 0 or c.reply_first):
                        remember_reply(c, 0, moves[i])
                    if kind == NODE_BOUNDARY:
                        c.killer[depth & 63][0] = moves[i]
                        c.hist[moves[i]] += depth * depth
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


cdef inline int lower_test(SearchCtx* c, int beta) noexcept nogil:
    """Null-window search at beta of the game's lower measure (mode 2; the game has set_mode)."""
    c.ops.set_mode(c.pos, 2, beta)
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
        r = lower_test(c, beta)
        if c.aborted:
            return 0
        if r >= beta:
            lo = snap(c, r, 1)
        else:
            hi = snap(c, r, 0)
            beta = hi - down
            down = down * 2 if down else c.granularity
    return lo


cdef int mtd(SearchCtx* c, int guess, int lo=-VALUE_INF, int hi=VALUE_INF,
             int cut_below=-VALUE_INF, int cut_above=VALUE_INF, int* exact_out=NULL) noexcept nogil:
    """Exact value by null-window tests "value >= beta?" (MTD-style).

    lo <= value <= hi is what the caller already knows.  While one side is
    open, the next test is at the bound just returned (MTD(f)), stepping
    further each time the bound creeps; once both sides are known, it
    bisects.  Tests and bounds fall only on values the game can have (the
    multiples of its granularity, or what its ``snap`` allows): a test
    between two such values asks the same as one at the upper of them.
    Once the value is known <= Board.lower_below, the game's lower measure
    bounds it from below first (``lower_measure``).

    cut_below / cut_above: stop as soon as the value is known to be below
    cut_below (return that upper bound) or above cut_above (return that
    lower bound), exact_out[0] then 0; the next test falls on the cut when
    it lies between the bounds.  The root split asks "does this move reach
    the best so far, and if so, by how much" (and with c.split set, reads the
    best so far, which other threads raise, before each test, and shows the
    bound on the root mover's side that the move's tests have proven so far:
    show_bound).
    """
    cdef int g = c.granularity, beta = guess, r, up = 0, down = 0, lower_done = 0, at_cut
    if exact_out != NULL:
        exact_out[0] = 0
    while lo < hi:
        if c.split != NULL:
            show_bound(c, lo, hi)
            split_cuts(c, &cut_below, &cut_above)
        if hi < cut_below:
            return hi
        if lo > cut_above:
            return lo
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
        at_cut = 1
        if lo < cut_below <= hi:
            beta = cut_below                    # "does it reach the cut?"
        elif lo <= cut_above < hi:
            beta = snap(c, cut_above + 1, 1)    # "does it stay at or below the cut?"
        else:
            at_cut = 0
        if at_cut and beta <= c.lower_below and c.ops.set_mode != NULL:
            # As at_least: the lower measure (cheaper) may already reach the cut.
            r = lower_test(c, beta)
            if c.aborted:
                return 0
            if r >= beta:
                lo = snap(c, r, 1)
                beta = lo + up
                up = up * 2 if up else g
                continue
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
    if exact_out != NULL:
        exact_out[0] = 1
    return lo


cdef inline int at_least(SearchCtx* c, int target) noexcept nogil:
    """Is the value >= target?"""
    if target <= c.lower_below and c.ops.set_mode != NULL:
        # The lower measure (cheaper to search) may already reach it.
        if lower_test(c, target) >= target or c.aborted:
            return 1
    return test(c, target) >= target


cdef inline int at_most(SearchCtx* c, int target) noexcept nogil:
    """Is the value <= target?"""
    return test(c, target + 1) <= target


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
        cdef uint64_t total = 0
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
        return self.tt.nbuckets * TT_WAYS

    @property
    def side_area_bytes(self):
        """The game's side area in use (tt.pxd): an eighth of the table in use, 256 KiB to 16 MiB."""
        return self.tt.aux_bytes

    @property
    def tt_stats(self):
        return {"probes": self.tt.probes, "hits": self.tt.hits, "stores": self.tt.stores}

    cdef int _prepare(self, SearchCtx* c, Board board, CancelToken cancel, object timeout) except -1:
        c.ops = board.ops
        c.pos = board.pos
        c.tt = &self.tt
        c.nodes = 0
        c.own0 = c.ops.own_nodes(c.pos) if c.ops.own_nodes != NULL else 0
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
        c.granularity = board.granularity if board.granularity > 0 else 1
        c.history_leads = board.history_leads
        c.killer_leads = board.killer_leads
        c.reply_first = board.reply_first
        c.upper_from = board.upper_from
        c.lower_below = board.lower_below
        c.etc_from = board.etc_from
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
        try:
            for k in range(nthreads):
                (<Searcher> searchers[k])._prepare(&ctxs[k], boards[k], cancel, timeout)
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
            self.live, self.live_threads = ctxs, nthreads
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
            nodes = 0
            for k in range(nthreads):
                nodes += ctx_nodes(&ctxs[k])
                add_counts(&self.tt, &tables[k])
        finally:
            self.last_progress = root_progress_of(&ctxs[0]) if prepared else None
            self.live = NULL
            for k in range(prepared):
                (<Searcher> searchers[k])._release(&ctxs[k])
            aborted = ctxs[0].aborted
            PyMem_Free(ctxs)
            PyMem_Free(tables)
        self.nodes = nodes
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
        """The values of several positions at once (multi_split): [(value, nodes)], one per row.

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
                    thread._prepare(&ctxs[m], boards[m], cancel, timeout)
                    prepared += 1
                    lend_table(&ctxs[m], &tables[m], &owner.tt, thread)     # the row's table
            self.live, self.live_threads = ctxs, nrows * nthreads
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
        finally:
            self.live = NULL
            for m in range(prepared):
                if ctxs[m].ops.use_table != NULL:
                    ctxs[m].ops.use_table(ctxs[m].pos, NULL)
            PyMem_Free(ctxs)
            PyMem_Free(tables)
            PyMem_Free(splits)
            PyMem_Free(ints)
        self.nodes = total
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


cdef int solve_one_thread(SearchCtx* c, int mode, int exact, int t, int guess, int* moves,
                          int* values, int* flags, int* value, int want_moves) noexcept nogil:
    """The value first, then each root move against it (root_moves)."""
    if exact:
        value[0] = mtd(c, guess)
    else:
        value[0] = 1 if at_least(c, t) else -1
    if c.aborted or not want_moves:
        return 0
    return root_moves(c, moves, values, flags, mode, exact, t, value[0])


cdef int pv_after(SearchCtx* c, int* pv, int mode, int exact, int t, int value, int* moves,
                  int* flags, int n) noexcept nogil:
    """The principal variation once the root is answered: in mode best it
    starts with the move reported."""
    cdef int i, first = -1
    if mode == C_MODE_BEST:
        for i in range(n):
            if flags[i]:
                first = moves[i]
    return principal_variation(c, pv, exact, t, value, first)


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


# ---------------------------------------------------------------- the root split (threads)
#
# One deal on several threads: the root's moves are shared out among workers,
# each with a board of its own (the same position) and its game's side area,
# all probing and storing one table (tt.pxd: lockless entries).
# A worker takes the next move not yet taken (the game's order: the likely best
# first) and answers for it what the mode needs, knowing the best value any
# move has reached so far (``RootSplit.best``):
# - all: the move's exact value (its search starts at the best so far);
# - optimal: does it reach the best so far?  If not, it is not optimal and
#   one test said so; if it does, its exact value (which may raise the best);
# - best: does it beat the best so far?  Only then its exact value.
# The value is the best exact value found; a move is optimal when its exact
# value is that.  Threshold games (won / lost) test each move once.
# A worker with no move left helps an open one from the other end of its
# replies, meeting the first worker through the table.  (The one-thread
# driver finds the value first, then tests each move against it: see
# Searcher.solve.)

cdef extern from "<pthread.h>" nogil:
    ctypedef struct pthread_mutex_t:
        pass
    int pthread_mutex_init(pthread_mutex_t* m, void* attr)
    int pthread_mutex_destroy(pthread_mutex_t* m)
    int pthread_mutex_lock(pthread_mutex_t* m)
    int pthread_mutex_unlock(pthread_mutex_t* m)

cdef enum:
    MAX_THREADS = 64


ctypedef struct RootSplit:
    pthread_mutex_t lock
    int n                      # distinct root moves (one per equivalent group)
    int moves[MAX_MOVES]
    int values[MAX_MOVES]      # exact value, or a bound short of the best (exactf 0)
    int exactf[MAX_MOVES]
    int owner[MAX_MOVES]       # the worker that answered it
    volatile_int finished[MAX_MOVES]   # answered (the other workers on it quit)
    int workers_on[MAX_MOVES]  # workers searching it now
    int taken[MAX_MOVES]       # a worker took it
    int boundary               # the root is a trick's start (moves are leads)
    int next                   # the next move to take (under lock)
    int best                   # the best exact value so far, the mover's view
    int have_best
    int shown                  # the best bound on the root's value on the mover's side (show_bound)
    int have_shown
    int done                   # mode best in a threshold game: a winning move was found
    int ismax
    int mode
    int exact
    int t                      # threshold (threshold games)
    int guess
    SearchCtx* progress        # the first thread's context: where readers see how far it got


ctypedef struct SplitWorker:
    SearchCtx* c
    RootSplit* rs
    int index


cdef inline void split_cuts(SearchCtx* c, int* cut_below, int* cut_above) noexcept nogil:
    """Raise a root move's cuts to the best value any thread has found so far:
    in mode optimal a move must reach it, in mode best beat it."""
    cdef RootSplit* rs = <RootSplit*> c.split
    cdef int L
    if rs.mode == C_MODE_ALL or not dd_atomic_load_int(&rs.have_best):
        return
    L = dd_atomic_load_int(&rs.best)
    if rs.ismax:
        L = L if rs.mode == C_MODE_OPTIMAL else snap(c, L + 1, 1)
        if L > cut_below[0]:
            cut_below[0] = L
    else:
        L = L if rs.mode == C_MODE_OPTIMAL else snap(c, L - 1, 0)
        if L < cut_above[0]:
            cut_above[0] = L


cdef inline void shown_bound(RootSplit* rs, int v, int move) noexcept nogil:
    """The root's value is at least v (the mover is MAX; at most v for MIN), reached by move:
    the progress shows it if it is the best such bound so far (called holding rs.lock)."""
    if rs.have_shown and not (v > rs.shown if rs.ismax else v < rs.shown):
        return
    rs.shown = v
    rs.have_shown = 1
    dd_atomic_store_int(&rs.progress.root_best, v * 256 + move)
    dd_atomic_store_int(&rs.progress.root_have_best, 1)


cdef void show_bound(SearchCtx* c, int lo, int hi) noexcept nogil:
    """mtd's bounds lo <= value <= hi on the root move c.split_move, after one of its tests:
    the side to move at the root can reach at least lo with it (MAX), at most hi (MIN), so the
    progress may show that bound of the root's value before the move's value is known (a fresh
    36-card Mariasz deal's first move takes minutes)."""
    cdef RootSplit* rs = <RootSplit*> c.split
    cdef int v = lo if rs.ismax else hi
    if v <= -VALUE_INF or v >= VALUE_INF:
        return
    pthread_mutex_lock(&rs.lock)
    shown_bound(rs, v, c.split_move)
    pthread_mutex_unlock(&rs.lock)


cdef void split_child(SearchCtx* c, RootSplit* rs, int i, int w_index) noexcept nogil:
    """Answer for root move i (already made on c's board) what rs.mode needs."""
    cdef int v, exactv = 1, won, L
    if c.quit != NULL and c.quit[0]:
        return                                  # answered while this worker made the move
    if not rs.exact:
        won = at_least(c, rs.t)
        v = 1 if won else -1
    else:
        # The search starts at the best so far (a likely value for a good move)
        # and stops once the move falls short of it (mtd, split_cuts).
        L = dd_atomic_load_int(&rs.best) if dd_atomic_load_int(&rs.have_best) else rs.guess
        c.split = <void*> rs
        c.split_move = rs.moves[i]
        v = mtd(c, L, -VALUE_INF, VALUE_INF, -VALUE_INF, VALUE_INF, &exactv)
        c.split = NULL
    if c.aborted:
        return
    pthread_mutex_lock(&rs.lock)
    if rs.finished[i]:
        pthread_mutex_unlock(&rs.lock)          # another worker answered it first
        return
    rs.finished[i] = 1
    rs.owner[i] = w_index
    rs.values[i] = v
    rs.exactf[i] = exactv
    if exactv:
        if not rs.have_best or (v > rs.best if rs.ismax else v < rs.best):
            dd_atomic_store_int(&rs.best, v)
            dd_atomic_store_int(&rs.have_best, 1)
        shown_bound(rs, v, rs.moves[i])
        if not rs.exact and rs.mode == C_MODE_BEST and v == (1 if rs.ismax else -1):
            rs.done = 1
    dd_atomic_store_int(&rs.progress.root_answered, rs.progress.root_answered + 1)
    pthread_mutex_unlock(&rs.lock)


cdef int next_root_move(SearchCtx* c, RootSplit* rs) noexcept nogil:
    """The next root move to take (under rs.lock): the game's order, or for a
    game that orders its leads by history (Board.history_leads) at a trick's
    start, the untaken move with the best history so far in this thread's
    search (the other moves' searches teach it which leads cut off)."""
    cdef int i, k = -1
    cdef uint64_t h, best = 0
    if not (c.history_leads and rs.boundary):
        k = rs.next
    else:
        for i in range(rs.n):
            if not rs.taken[i]:
                h = c.hist[256 * rs.ismax + rs.moves[i]]
                if k < 0 or h > best:
                    k = i
                    best = h
    rs.taken[k] = 1
    return k


cdef extern from "pool.h" nogil:
    void dd_pool_run(void* (*work)(void*) noexcept nogil, char* args, size_t size, int nthreads)


cdef inline void run_on_threads(void* (*work)(void*) noexcept nogil, char* args, size_t size,
                                int nthreads) noexcept nogil:
    """work(args + k * size) for k < nthreads: k = 0 on this thread, the others on parked
    threads that pool.h keeps between searches (a share no thread can be found for is left to
    the rest: the workers hand the moves out among themselves); returns once all have."""
    dd_pool_run(work, args, size, nthreads)


cdef void answer_move(SearchCtx* c, RootSplit* rs, int i, int helping, int w_index,
                      pthread_mutex_t* lock) noexcept nogil:
    """Search root move i of rs on c's board (a helper from the other end of its replies);
    `lock` guards rs.workers_on, which the caller raised for it."""
    c.ops.make(c.pos, rs.moves[i])
    c.quit = &rs.finished[i]
    c.reverse = helping
    split_child(c, rs, i, w_index)
    c.quit = NULL
    c.reverse = 0
    if c.aborted == ABORT_QUIT:
        c.aborted = 0                   # (nothing of the abandoned search was stored)
    c.ops.unmake(c.pos)
    pthread_mutex_lock(lock)
    rs.workers_on[i] -= 1
    pthread_mutex_unlock(lock)


cdef void* split_worker(void* arg) noexcept nogil:
    """Take root moves until none is left (or the search stops)."""
    cdef SplitWorker* w = <SplitWorker*> arg
    cdef SearchCtx* c = w.c
    cdef RootSplit* rs = w.rs
    cdef int i, j, helping
    cdef timespec t0, t1
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0)
    while not c.aborted:
        helping = 0
        pthread_mutex_lock(&rs.lock)
        i = rs.n
        if not rs.done:
            if rs.next < rs.n:
                i = next_root_move(c, rs)
                rs.next += 1
            else:
                # Every move is taken: help the one with the fewest workers that is
                # still open (the earliest on a tie), through the shared table.
                for j in range(rs.n):
                    if not rs.finished[j] and rs.workers_on[j] > 0 and \
                            (i == rs.n or rs.workers_on[j] < rs.workers_on[i]):
                        i = j
                helping = 1
        if i < rs.n:
            rs.workers_on[i] += 1
        pthread_mutex_unlock(&rs.lock)
        if i >= rs.n:
            break
        answer_move(c, rs, i, helping, w.index, &rs.lock)
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1)
    c.cpu = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9
    return NULL


cdef int split_setup(SearchCtx* c, RootSplit* rs, int* moves, int* rep, int mode, int exact, int t,
                     int guess) noexcept nogil:
    """Set rs up for the position on c's board: its legal moves (returned: how many, in
    `moves`) grouped by equivalence (rep[i]: move i's group, one root move of rs each), and
    what the split asks.  Its lock is the caller's to initialise."""
    cdef const GameOps* ops = c.ops
    cdef int n, i, j
    n = ops.gen_moves(c.pos, moves, 0)
    rs.n = 0
    for i in range(n):
        rep[i] = -1
        if ops.equivalent != NULL:
            value_mode(c)
            for j in range(i):
                if rep[j] >= 0 and rs.moves[rep[j]] == moves[j] and ops.equivalent(c.pos, moves[i], moves[j]):
                    rep[i] = rep[j]
                    break
        if rep[i] < 0:
            rep[i] = rs.n
            rs.moves[rs.n] = moves[i]
            rs.exactf[rs.n] = 0
            rs.values[rs.n] = VALUE_INF
            rs.owner[rs.n] = 0
            rs.finished[rs.n] = 0
            rs.workers_on[rs.n] = 0
            rs.taken[rs.n] = 0
            rs.n += 1
    rs.next = 0
    rs.boundary = ops.node_kind(c.pos) == NODE_BOUNDARY
    rs.best = 0
    rs.have_best = 0
    rs.shown = 0
    rs.have_shown = 0
    rs.done = 0
    rs.ismax = ops.max_to_move(c.pos)
    rs.mode = mode
    rs.exact = exact
    rs.t = t
    rs.guess = guess
    rs.progress = c
    c.root_ismax = rs.ismax
    dd_atomic_store_int(&c.root_moves, rs.n)
    return n


cdef int split_value(RootSplit* rs) noexcept nogil:
    """The root's value once every root move of rs is answered."""
    cdef int i
    if not rs.have_best:
        # Mode best in a threshold game that stopped early can leave none: cannot
        # happen otherwise (the first move taken is always answered exactly).
        for i in range(rs.n):
            if rs.exactf[i]:
                rs.best = rs.values[i]
                rs.have_best = 1
    if not rs.exact and rs.mode == C_MODE_BEST and not rs.done:
        rs.best = -1 if rs.ismax else 1
    return rs.best


cdef int split_root(SearchCtx* ctxs, int nthreads, int* moves, int* values, int* flags,
                    int mode, int exact, int t, int guess, int* value, int* owner,
                    int* firstmove) noexcept nogil:
    """The root split: fill moves / values / flags as root_moves does and the value;
    owner[0] the worker whose table searched the first optimal move.  Returns the
    number of legal moves; -2 when there is nothing to share out (the caller
    then runs the one-thread driver).  Workers that cannot be started leave
    their share to the others."""
    cdef SearchCtx* c = &ctxs[0]
    cdef const GameOps* ops = c.ops
    cdef RootSplit rs
    cdef SplitWorker workers[MAX_THREADS]
    cdef int rep[MAX_MOVES]
    cdef int n, i, k, first = -1
    n = split_setup(c, &rs, moves, rep, mode, exact, t, guess)
    if rs.n < 2 or ops.node_kind(c.pos) == NODE_TERMINAL:
        return -2                   # nothing to share out: the one-thread driver
    pthread_mutex_init(&rs.lock, NULL)
    for k in range(nthreads):
        workers[k].c = &ctxs[k]
        workers[k].rs = &rs
        workers[k].index = k
    run_on_threads(split_worker, <char*> workers, sizeof(SplitWorker), nthreads)
    pthread_mutex_destroy(&rs.lock)
    for k in range(nthreads):
        if ctxs[k].aborted:
            c.aborted = ctxs[k].aborted
            return n
    value[0] = split_value(&rs)
    for i in range(n):
        k = rep[i]
        flags[i] = 0
        if rs.exactf[k] and rs.values[k] == rs.best:
            if first < 0:
                first = k
            values[i] = rs.values[k]
            if mode == C_MODE_BEST:
                if first == k and rs.moves[k] == moves[i]:
                    flags[i] = 1
                continue
            flags[i] = 1
        elif rs.exactf[k] and (mode == C_MODE_ALL or not exact):
            values[i] = rs.values[k]
            flags[i] = 1
        else:
            values[i] = VALUE_INF
            flags[i] = mode != C_MODE_BEST
    owner[0] = rs.owner[first] if first >= 0 else 0
    firstmove[0] = rs.moves[first] if first >= 0 else -1
    return n


# ---------------------------------------------------------------- several roots at once
#
# The values of several positions (a Klaverjas DD table's eight rows) on a few
# threads, each position with a root split of its own (RootSplit, mode best).
# A worker answers the moves of one row in order, as one thread's root split
# would (the first move's exact value, then each other move against the
# row's best); when its row has no move left it starts a row nobody has, and
# once every row is started it takes the next move of the row with the most
# moves left, then helps an open move.  So a thread is left idle only for
# the end of one move: handed out whole, rows left it idle for the end of a
# row (benchmarks/RESULTS.md, "Where a DD table's second thread goes").  A
# worker keeps to its row so that its table's entries stay in its caches
# (the rows' first moves all taken before any second move: 4% slower on two
# threads, 4-7% on one).  Thread k searches row r on a board of its own,
# ctxs[r * nthreads + k], in the row's table with its own side area.

ctypedef struct MultiSplit:
    pthread_mutex_t lock       # guards every row's next and workers_on
    RootSplit* rows
    int nrows
    int nthreads
    SearchCtx* ctxs
    int stopped                # (atomic) a search stopped (cancel or deadline): take no more moves


ctypedef struct MultiWorker:
    MultiSplit* ms
    int k
    int row                    # the row it works on, -1 none yet


cdef int next_row(MultiSplit* ms, MultiWorker* w) noexcept nogil:
    """The row whose next move w takes (under ms.lock): its own while it has moves left, else a
    row nobody has started, else the row with the most moves left; -1 when every move is taken."""
    cdef RootSplit* rows = ms.rows
    cdef int r, best = -1
    if w.row >= 0 and not rows[w.row].done and rows[w.row].next < rows[w.row].n:
        return w.row
    for r in range(ms.nrows):
        if rows[r].next == 0 and rows[r].n > 0 and not rows[r].done:
            w.row = r
            return r
    for r in range(ms.nrows):
        if not rows[r].done and rows[r].next < rows[r].n and \
                (best < 0 or rows[r].n - rows[r].next > rows[best].n - rows[best].next):
            best = r
    if best >= 0:
        w.row = best
    return best


cdef void* multi_worker(void* arg) noexcept nogil:
    """Take root moves (next_row) until none is left or the search stops, then help open ones."""
    cdef MultiWorker* w = <MultiWorker*> arg
    cdef MultiSplit* ms = w.ms
    cdef RootSplit* rows = ms.rows
    cdef SearchCtx* c
    cdef int r, i, rj, j, helping
    while not dd_atomic_load_int(&ms.stopped):
        helping = 0
        i = -1
        pthread_mutex_lock(&ms.lock)
        r = next_row(ms, w)
        if r >= 0:
            i = rows[r].next
            rows[r].next += 1
        else:
            # Every move is taken: help the open one with the fewest workers (the earliest on
            # a tie), through its row's table.
            for rj in range(ms.nrows):
                if rows[rj].done:
                    continue
                for j in range(rows[rj].n):
                    if not rows[rj].finished[j] and rows[rj].workers_on[j] > 0 and \
                            (r < 0 or rows[rj].workers_on[j] < rows[r].workers_on[i]):
                        r = rj
                        i = j
            helping = 1
        if r >= 0:
            rows[r].workers_on[i] += 1
        pthread_mutex_unlock(&ms.lock)
        if r < 0:
            break
        c = &ms.ctxs[r * ms.nthreads + w.k]
        answer_move(c, &rows[r], i, helping, w.k, &ms.lock)
        if c.aborted:
            dd_atomic_store_int(&ms.stopped, 1)
    return NULL


cdef int multi_split(SearchCtx* ctxs, int nrows, int nthreads, RootSplit* rows,
                     int* exact, int* t, int* guess, int* values) noexcept nogil:
    """The value of each row (values[r]) on nthreads threads, its board's exact / threshold /
    guess as Searcher.solve takes them; returns the abort code of a search that stopped
    (ABORT_CANCELLED, ABORT_TIMEOUT), else 0."""
    cdef MultiSplit ms
    cdef MultiWorker workers[MAX_THREADS]
    cdef int moves[MAX_MOVES]
    cdef int rep[MAX_MOVES]
    cdef int r, k, m
    cdef SearchCtx* c
    for r in range(nrows):
        c = &ctxs[r * nthreads]
        split_setup(c, &rows[r], moves, rep, C_MODE_BEST, exact[r], t[r], guess[r])
        if rows[r].n == 0 or c.ops.node_kind(c.pos) == NODE_TERMINAL:
            # A finished position: its outcome, at once (no moves to share out).
            values[r] = mtd(c, guess[r]) if exact[r] else (1 if at_least(c, t[r]) else -1)
            rows[r].n = 0
        pthread_mutex_init(&rows[r].lock, NULL)
    ms.rows = rows
    ms.nrows = nrows
    ms.nthreads = nthreads
    ms.ctxs = ctxs
    ms.stopped = 0
    pthread_mutex_init(&ms.lock, NULL)
    for k in range(nthreads):
        workers[k].ms = &ms
        workers[k].k = k
        workers[k].row = -1
    run_on_threads(multi_worker, <char*> workers, sizeof(MultiWorker), nthreads)
    pthread_mutex_destroy(&ms.lock)
    for r in range(nrows):
        pthread_mutex_destroy(&rows[r].lock)
    for m in range(nrows * nthreads):
        if ctxs[m].aborted and ctxs[m].aborted != ABORT_QUIT:
            return ctxs[m].aborted
    for r in range(nrows):
        if rows[r].n > 0:
            values[r] = split_value(&rows[r])
    return 0
