# The root on one thread: the value first, then each root move against it (root_moves),
# by mode (best / optimal / all); and the principal variation.
#
# Part of search.pyx (included there, its imports shared: see its docstring).


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
