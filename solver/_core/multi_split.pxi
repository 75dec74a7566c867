# Several roots at once: a DD table's rows on a few threads.
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
#
# Part of search.pyx (included there, its imports shared: see its docstring).

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
