# A thread's view of a shared table, and a search thread's node count (its SearchCtx, the
# stop polling and POLL_MASK are in search.pxd, for the games that compile the search).
#
# Part of search.pyx (included there, its imports shared: see its docstring).


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
