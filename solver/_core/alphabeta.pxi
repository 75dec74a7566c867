# The search itself: a fail-soft alpha-beta on the total value (alphabeta), with what it
# does at a node: the game's quick bounds, the table (bounds on the future stored at trick
# boundaries), the move order, and mid-trick the enhanced transposition cutoff.
#
# One text, compiled twice over: search.pyx includes it with the game reached through GameOps
# (game_calls.pxi), and a game module may include it with its own functions, which the
# compiler then inlines into the search (GameOps.search: no call through a pointer at every
# node; Mariáš's Hra, benchmarks/RESULTS.md "Mariáš's search compiled in its module").  The
# includer defines the game's calls, each given the search's GameOps (c.ops, which the core's
# copy calls through and a game's own ignores) and the game's position (c.pos):
#   g_node_info(ops, pos, &banked, &ismax, &lo, &hi)   GameOps.node_info
#   g_terminal_future(ops, pos)                        GameOps.terminal_future
#   g_tt_key(ops, pos, &k0, &k1, &depth)               GameOps.tt_key
#   g_gen_moves(ops, pos, moves)                       GameOps.gen_moves with prune set
#   g_make(ops, pos, move), g_unmake(ops, pos)         GameOps.make / unmake
#   g_leaf(ops, pos, alpha, beta, &value)              GameOps.leaf (0 if the game has none)
#   g_stored(ops, pos, lo, hi)                         GameOps.stored (nothing if none)
# They must do what the game's GameOps entries do: a game's own copy and the core's give the
# same answers and node counts (a test compares them: Board.own_search).
# and search_int, the type alphabeta returns: int in the core (game_calls.pxi), flat_int in a
# game's copy, which asks the compiler to inline every call in it (own_search.pxd); and it cimports
# what the search uses: from ddcards._core.search SearchCtx, MAX_MOVES,
# VALUE_INF, NODE_INNER, NODE_BOUNDARY, NODE_SMALL, NODE_TERMINAL, POLL_MASK, poll_stop,
# sort_moves; from ddcards._core.tt TTHit, TT_NO_MOVE, tt_probe, tt_store, tt_bucket;
# dd_prefetch from ddcards._core.bits; uint64_t.


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
    g_stored(c.ops, c.pos, lo, hi)


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
    cdef void* pos = c.pos
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
        g_make(ops, pos, moves[i])
        kind = g_node_info(ops, pos, &banked[i], &cismax, &lo, &hi)
        if kind == NODE_INNER:
            g_unmake(ops, pos)
            return 0
        if kind == NODE_TERMINAL:
            lo = g_terminal_future(ops, pos)
            hi = lo
        elif kind == NODE_BOUNDARY:
            g_tt_key(ops, pos, &k0[nk], &k1[nk], &depth)
            if depth < c.etc_from:
                g_unmake(ops, pos)
                return 0
            dd_prefetch(tt_bucket(c.tt, k0[nk], k1[nk]))
            idx[nk] = i
            nk += 1
        g_unmake(ops, pos)
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
# arrays made every alphabeta frame 2.2 KB (now 360 bytes in the core's copy, about 700 in
# Mariáš's, its game inlined), a deep search's stack spread over many more cache lines (Mariáš
# every first card: -1% to -3% CPU, benchmarks/RESULTS.md).
ctypedef int (*EtcFn)(SearchCtx*, int*, int, int, int, int, int*) noexcept nogil
cdef EtcFn etc_fn = etc_cutoff


cdef search_int alphabeta(SearchCtx* c, int alpha, int beta) noexcept nogil:
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
    kind = g_node_info(ops, pos, &banked, &ismax, &lo, &hi)
    if kind == NODE_TERMINAL:
        return banked + g_terminal_future(ops, pos)

    if kind == NODE_BOUNDARY or kind == NODE_SMALL:
        if banked + lo >= beta:
            return banked + lo
        if banked + hi <= alpha:
            return banked + hi
    if kind == NODE_BOUNDARY:
        g_tt_key(ops, pos, &k0, &k1, &depth)
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

    if kind != NODE_INNER and g_leaf(ops, pos, alpha, beta, &best):
        if ops.own_nodes != NULL and ops.own_nodes(pos) - c.own_polled > POLL_MASK:
            # A leaf that counts its own nodes (Mariasz's endgame: tens to thousands of cards
            # tried, each slow while a fresh table's pages are backed) polls the stop as often
            # as the core's nodes do: a cancel waited up to a second for 256 such leaves.
            c.own_polled = ops.own_nodes(pos)
            if poll_stop(c):
                return 0                # (a stopped search's value is not used: nothing stored)
        if kind == NODE_BOUNDARY:
            store_bounds(c, k0, k1, depth, lo, hi, best, banked, alpha0, beta0, TT_NO_MOVE)
        return best

    n = g_gen_moves(ops, pos, moves)
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
            g_make(ops, pos, moves[i])
            c.ply += 1
            v = alphabeta(c, alpha, beta)
            c.ply -= 1
            g_unmake(ops, pos)
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
            g_make(ops, pos, moves[i])
            c.ply += 1
            v = alphabeta(c, alpha, beta)
            c.ply -= 1
            g_unmake(ops, pos)
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
