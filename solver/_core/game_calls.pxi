# The game's calls that alphabeta.pxi makes, through GameOps: the core's own search, for the
# games that do not compile one of their own (GameOps.search).
#
# Part of search.pyx (included there, its imports shared: see its docstring).


ctypedef int search_int


cdef inline int g_node_info(const GameOps* ops, void* pos, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    return ops.node_info(pos, banked, ismax, lo, hi)


cdef inline int g_terminal_future(const GameOps* ops, void* pos) noexcept nogil:
    return ops.terminal_future(pos)


cdef inline void g_tt_key(const GameOps* ops, void* pos, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    ops.tt_key(pos, k0, k1, depth)


cdef inline int g_gen_moves(const GameOps* ops, void* pos, int* moves) noexcept nogil:
    return ops.gen_moves(pos, moves, 1)


cdef inline void g_make(const GameOps* ops, void* pos, int move) noexcept nogil:
    ops.make(pos, move)


cdef inline void g_unmake(const GameOps* ops, void* pos) noexcept nogil:
    ops.unmake(pos)


cdef inline int g_leaf(const GameOps* ops, void* pos, int alpha, int beta, int* value) noexcept nogil:
    return ops.leaf != NULL and ops.leaf(pos, alpha, beta, value)


cdef inline void g_stored(const GameOps* ops, void* pos, int lo, int hi) noexcept nogil:
    if ops.stored != NULL:
        ops.stored(pos, lo, hi)
