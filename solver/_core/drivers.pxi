# The drivers: null-window tests (test, lower_test) strung into an exact value by MTD
# (mtd), the exact value of a game's lower measure (lower_measure), or one yes / no
# (at_least, at_most).
#
# Part of search.pyx (included there, its imports shared: see its docstring).


cdef inline int search_window(SearchCtx* c, int alpha, int beta) noexcept nogil:
    """alphabeta: the game's own compiled copy if it has one (GameOps.search), else the core's."""
    if c.own_search != NULL:
        return c.own_search(c, alpha, beta)
    return alphabeta(c, alpha, beta)


cdef inline int test(SearchCtx* c, int beta) noexcept nogil:
    """Null-window search at beta (fail-soft), the game told the mode first."""
    if c.ops.set_mode != NULL:
        c.ops.set_mode(c.pos, 1 if beta >= c.upper_from else 0, beta)
    return search_window(c, beta - 1, beta)


cdef inline int lower_test(SearchCtx* c, int beta) noexcept nogil:
    """Null-window search at beta of the game's lower measure (mode 2; the game has set_mode)."""
    c.ops.set_mode(c.pos, 2, beta)
    return search_window(c, beta - 1, beta)


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
