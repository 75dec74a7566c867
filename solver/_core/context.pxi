# The state of one search thread (SearchCtx): the table it probes, its node count, what
# stops it (a cancel, a deadline, another thread's answer) and its move-order memory
# (history, killer leads, reply killers); a thread's view of a shared table.
#
# Part of search.pyx (included there, its imports shared: see its docstring).


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
    if (c.stop != NULL and c.stop[0] != 0) or (c.interrupt != NULL and c.interrupt[0] != 0):
        c.aborted = ABORT_CANCELLED
    elif c.deadline > 0 and monotonic() > c.deadline:
        c.aborted = ABORT_TIMEOUT
    elif c.quit != NULL and c.quit[0] != 0:
        c.aborted = ABORT_QUIT
    return c.aborted
