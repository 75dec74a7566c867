# The search core: alpha-beta with a transposition table, driven by
# null-window (MTD-style) tests, over any game that fills in GameOps.
#
# The core knows no rules.  It asks the game, through GameOps, for the
# legal moves (ordered, equivalent cards removed), to make and unmake a move,
# whose side is to move, what kind of node this is, the value banked so far,
# the table key and quick bounds on what is left.  Values are from the point
# of view of the maximising side ("MAX"); the game decides who that is.
from libc.stdint cimport uint64_t
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
    cdef public int max_ply       # how many moves the game's state stack holds
    cdef readonly int ply         # moves played through play() and not undone
