# The search core: alpha-beta with a transposition table, driven by
# null-window (MTD-style) tests, over any game that fills in GameOps.
#
# The core knows no rules.  It asks the game, through GameOps, for the
# legal moves (ordered, equivalent cards removed), to make and unmake a move,
# whose side is to move, what kind of node this is, the value banked so far,
# the table key and quick bounds on what is left.  Values are from the point
# of view of the maximising side ("MAX"); the game decides who that is.
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from ddcards._core.tt cimport TTable

cdef enum:
    MAX_MOVES = 64
    MAX_PLY = 512
    VALUE_INF = 30000

cdef enum NodeKind:
    NODE_INNER = 0       # mid-trick: no table probe
    NODE_BOUNDARY = 1    # trick boundary: probe/store the table, try quick bounds
    NODE_TERMINAL = 2    # nothing left to play (or the outcome is settled)
    NODE_SMALL = 3       # a boundary too close to the end for a table probe to pay: quick bounds only

ctypedef struct GameOps:
    # Moves are ints 0..254 (the table keeps one in a byte; 255 means none):
    # cards, then a game's non-card actions above them.
    # Fill `moves` with the legal moves, best guess first; with `prune` set,
    # keep one representative of each group of equivalent moves. Returns count.
    int (*gen_moves)(void* pos, int* moves, int prune) noexcept nogil
    void (*make)(void* pos, int move) noexcept nogil
    void (*unmake)(void* pos) noexcept nogil
    int (*max_to_move)(void* pos) noexcept nogil
    int (*node_kind)(void* pos) noexcept nogil
    # What the search asks at every node, in one call (calls are a good part
    # of a node's cost): returns node_kind; sets banked, the value banked by
    # the history so far (MAX's view; total = banked + future), max_to_move
    # and, at a boundary or small node, quick bounds lo <= future <= hi.
    int (*node_info)(void* pos, int* banked, int* ismax, int* lo, int* hi) noexcept nogil
    # Future value at a terminal node.
    int (*terminal_future)(void* pos) noexcept nogil
    # Exact table key and depth (> 0) at a boundary node.
    void (*tt_key)(void* pos, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil
    # Are legal moves a and b interchangeable here (same value, always)?
    # Optional (NULL: never); lets the root search one move per group.
    int (*equivalent)(void* pos, int a, int b) noexcept nogil
    # Optional (NULL: none): the driver is about to test "value >= beta"
    # (every search is a null-window one: (beta - 1, beta) throughout);
    # mode 1 when beta >= Board.upper_from, else 0 (see Board.upper_from);
    # mode 2 to search the game's lower measure (see Board.lower_below).
    # beta = VALUE_INF: no search follows (the game only lists moves).
    void (*set_mode)(void* pos, int mode, int beta) noexcept nogil
    # Optional (NULL: every multiple of Board.granularity may occur): the
    # nearest value a finished game can have, >= v (up = 1) or <= v (up = 0).
    # The driver tests and keeps bounds only on such values.
    int (*snap)(void* pos, int v, int up) noexcept nogil
    # Optional (NULL: none): at a boundary (or small) node that neither the
    # quick bounds nor the table settled, the game may search the subtree
    # itself (e.g. a small endgame solved on its own data): return 1 with
    # value[0] the fail-soft total value for the window (alpha, beta), as
    # alphabeta would return it (a boundary stores it in the table); 0 to
    # let the core search the node.
    int (*leaf)(void* pos, int alpha, int beta, int* value) noexcept nogil
    # Optional (NULL: none): the table the coming search uses (NULL after it),
    # so that the game can prefetch a boundary's bucket as soon as it knows its key.
    void (*use_table)(void* pos, TTable* t) noexcept nogil
    # Optional (NULL: none): the nodes the game's own search (its leaf) has run
    # on this position's board so far, a running count; the core adds what each
    # search adds to it to its own count (Result.nodes, nodes_now).
    uint64_t (*own_nodes)(void* pos) noexcept nogil
    # Optional (NULL: none): the core has just stored lo <= future <= hi for this boundary (whose
    # tt_key it asked for) in the table; a game may keep it in a form of its own too, e.g. one that
    # serves other positions, which its leaf then reads (Mariasz races: dominated needs).
    void (*stored)(void* pos, int lo, int hi) noexcept nogil
    # Optional (NULL: the core's own): the core's alpha-beta (alphabeta.pxi) compiled in the
    # game's module against the game's functions, which it then calls directly rather than
    # through these pointers (see alphabeta.pxi); ctx is the search's SearchCtx*.  It must be
    # that text compiled, not a search of the game's own: the drivers and the root split rely
    # on what it keeps in the SearchCtx (nodes, aborted, ply, the history, reverse).
    int (*search)(void* ctx, int alpha, int beta) noexcept nogil


cdef extern from *:
    ctypedef int volatile_int "volatile int"

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


# The state of one search thread: the table it probes, its node count, what stops it (a
# cancel, a deadline, another thread's answer) and its move-order memory (history, killer
# leads, reply killers).  Declared here, with the stop polling, for the game modules that
# compile the search themselves (GameOps.search).
ctypedef struct SearchCtx:
    const GameOps* ops
    void* pos
    TTable* tt
    uint64_t nodes
    volatile_int* stop
    volatile_int* interrupt  # Ctrl-C on the main thread (sigint.h), else NULL
    double deadline      # CLOCK_MONOTONIC seconds; 0 = none
    int aborted
    int granularity      # values are multiples of it
    int history_leads    # order boundary moves by history
    int killer_leads     # try the last lead that cut off at the same depth early
    int reply_first      # mid-trick, the last cutoff move at the ply goes first (Board.reply_first)
    uint64_t own0        # the game's own nodes (GameOps.own_nodes) when the search began
    uint64_t own_polled  # ... when the stop was last polled for them (alphabeta, after a leaf)
    int upper_from       # tests at beta >= this run in the game's mode 1
    int lower_below      # a value known <= this: bound it by the lower measure (mode 2)
    int etc_from         # mid-trick: look up the boundaries the moves reach from this depth (Board.etc_from)
    int (*own_search)(void* ctx, int alpha, int beta) noexcept nogil   # GameOps.search if used, else NULL
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


cdef inline double monotonic() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int poll_stop(SearchCtx* c) noexcept nogil:
    if (c.stop != NULL and c.stop[0] != 0) or (c.interrupt != NULL and c.interrupt[0] != 0):
        c.aborted = ABORT_CANCELLED
    elif c.deadline > 0 and monotonic() > c.deadline:
        c.aborted = ABORT_TIMEOUT
    elif c.quit != NULL and c.quit[0] != 0:
        c.aborted = ABORT_QUIT
    return c.aborted


cdef inline void sort_moves(int* moves, int* scores, int n) noexcept nogil:
    """Order moves by score, highest first; stable (ties keep the game's order)."""
    cdef int i, j, m, sc
    for i in range(1, n):
        m = moves[i]
        sc = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            moves[j + 1] = moves[j]
            scores[j + 1] = scores[j]
            j -= 1
        moves[j + 1] = m
        scores[j + 1] = sc


cdef class Board:
    """A game position the core can search: the game's C state plus its ops.

    exact: the value is the measure itself (minimax of banked + future);
    otherwise the game is won when the measure reaches `threshold`.
    granularity: every value is a multiple of it (Mariáš Hra: 10).
    guess: where the value search starts when the caller has no better idea.
    history_leads: order moves at boundaries by the history of cutoffs
    (a large gain where the game's own lead order is weak).
    reply_first: mid-trick, try the move that last cut off at the same ply
    first and the one that cut off before it second, before the game's own
    first choice (where that choice is weak: Mariasz's phase-1 replies, any
    card answering the lead); otherwise the last one is tried second, and
    only a cutoff by a later move is remembered.
    killer_leads: try the lead that last cut off at the same depth second,
    after the table's move (where the game's own lead order is good).
    upper_from: tests "value >= beta" with beta >= upper_from run in the
    game's mode 1 (GameOps.set_mode), where it may search an upper measure
    U >= value with U >= beta <=> value >= beta for such beta (fail-soft
    results stay bounds on the value); VALUE_INF: never.
    etc_from: enhanced transposition cutoff mid-trick: before searching the
    moves of a mid-trick node whose moves end the trick, make each and look
    its boundary up (quick bounds and table) when its depth is >= etc_from;
    any that settles the node answers without a search, else the bounds found
    order the moves (the best guaranteed first); VALUE_INF: never.
    lower_below: once the value is known to be <= lower_below, the driver
    first finds the exact minimax of the game's lower measure L <= value
    (mode 2, GameOps.set_mode): a lower bound, often the value itself, from
    a search that is cheaper than the value's; -VALUE_INF: never.
    own_search: search with the game's own compiled copy of the alpha-beta where it has one
    (GameOps.search); False: the core's copy, which calls the game through GameOps (the same
    answers and nodes, more slowly: a test compares the two).
    """
    cdef const GameOps* ops
    cdef void* pos
    cdef public bint exact
    cdef public int threshold
    cdef public int granularity
    cdef public int guess
    cdef public bint history_leads
    cdef public bint killer_leads
    cdef public bint reply_first
    cdef public int upper_from
    cdef public int lower_below
    cdef public int etc_from
    cdef public bint own_search
    cdef public int max_ply       # how many moves the game's state stack holds
    cdef readonly int ply         # moves played through play() and not undone
