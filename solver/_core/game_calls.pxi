# The game's calls that alphabeta.pxi makes, through GameOps: the core's own search, for the
# games that do not compile one of their own (GameOps.search).
#
# Part of search.pyx (included there, its imports shared: see its docstring).


ctypedef int search_int


cdef inline int g_node_info(SearchCtx* c, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    return c.ops.node_info(c.pos, banked, ismax, lo, hi)


cdef inline int g_terminal_future(SearchCtx* c) noexcept nogil:
    return c.ops.terminal_future(c.pos)


cdef inline void g_tt_key(SearchCtx* c, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    c.ops.tt_key(c.pos, k0, k1, depth)


cdef inline int g_gen_moves(SearchCtx* c, int* moves) noexcept nogil:
    return c.ops.gen_moves(c.pos, moves, 1)


cdef inline void g_make(SearchCtx* c, int move) noexcept nogil:
    c.ops.make(c.pos, move)


cdef inline void g_unmake(SearchCtx* c) noexcept nogil:
    c.ops.unmake(c.pos)


cdef inline int g_leaf(SearchCtx* c, int alpha, int beta, int* value) noexcept nogil:
    return c.ops.leaf != NULL and c.ops.leaf(c.pos, alpha, beta, value)


cdef inline void g_stored(SearchCtx* c, int lo, int hi) noexcept nogil:
    if c.ops.stored != NULL:
        c.ops.stored(c.pos, lo, hi)
