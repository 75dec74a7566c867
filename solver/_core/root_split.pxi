# The root split: a position answered move by move, against the best value any move
# has reached so far, on one thread or several.  On several, the root's moves are shared
# out among workers, each with a board of its own (the same position) and its game's side area,
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
#
# Part of search.pyx (included there, its imports shared: see its docstring).

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
