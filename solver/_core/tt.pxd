# Transposition table: bounds on the *future* value of a position.
#
# Contract
# - A game hands the table an exact 128-bit key (k0, k1) for a position at a
#   trick boundary (or wherever it chooses to probe), built from relative ranks
#   so that equivalent positions share a key, and salted with the game's
#   parameters.  The key is exact, so a hit is never a collision.
# - The stored bounds lo <= future <= hi are on the value still to come from
#   this position, not on the total, so they hold whatever the history banked.
# - depth says how much play is left (larger = more valuable to keep).
#
# Layout: buckets of TT_WAYS entries of 32 bytes (one 64-byte line); replacement prefers an empty or
# stale (older generation) slot, then the shallowest one.
#
# Beside the buckets the table holds a side area (`aux`, TT_AUX_BYTES) that
# the game may use for its own memo of exact sub-results during a search
# (GameOps.use_table lends it the table).  Its entries are the game's, keyed
# with everything they depend on (the game itself included: one Searcher may
# serve several games) and stamped with `gen`, so that clearing the table (a
# new generation) forgets them too.
#
#   k0:64 | k1:64 | lo:16 | hi:16 | depth:8 | gen:8 | move:8 | pad:72
from libc.stdint cimport uint8_t, int16_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memset
from ddcards._core.bits cimport dd_mix64, dd_table_alloc

cdef enum:
    TT_WAYS = 2          # 2 x 32 bytes: a bucket is one cache line
    TT_NO_MOVE = 255
    TT_AUX_BYTES = 262144

ctypedef struct TTEntry:
    uint64_t k0
    uint64_t k1
    int16_t lo
    int16_t hi
    uint8_t depth     # 0 = empty
    uint8_t gen
    uint8_t move      # best move found here, TT_NO_MOVE if none
    uint8_t pad[9]

ctypedef struct TTable:
    TTEntry* slots
    void* aux            # the game's side area (TT_AUX_BYTES, zeroed at first)
    uint64_t nbuckets_mask
    uint64_t nbuckets
    uint8_t gen
    uint64_t probes
    uint64_t hits
    uint64_t stores


cdef inline int tt_init(TTable* t, size_t megabytes) noexcept nogil:
    """Allocate a table of at most `megabytes` MiB (rounded down to a power of two buckets)."""
    cdef size_t bucket_bytes = sizeof(TTEntry) * TT_WAYS
    cdef size_t want = megabytes * 1024 * 1024 // bucket_bytes
    cdef size_t n = 1
    if want < 1:
        want = 1
    while n * 2 <= want:
        n *= 2
    t.slots = <TTEntry*> dd_table_alloc(n * TT_WAYS * sizeof(TTEntry))
    if t.slots == NULL:
        return -1
    t.aux = dd_table_alloc(TT_AUX_BYTES)
    if t.aux == NULL:
        free(t.slots)
        t.slots = NULL
        return -1
    t.nbuckets = n
    t.nbuckets_mask = n - 1
    t.gen = 1
    t.probes = 0
    t.hits = 0
    t.stores = 0
    return 0


cdef inline void tt_free(TTable* t) noexcept nogil:
    if t.slots != NULL:
        free(t.slots)
        t.slots = NULL
    if t.aux != NULL:
        free(t.aux)
        t.aux = NULL


cdef inline void tt_new_generation(TTable* t) noexcept nogil:
    """Forget every entry in O(1): entries of another generation never match."""
    t.gen += 1
    if t.gen == 0:     # wrapped: old entries could come back to life, so wipe
        memset(t.slots, 0, t.nbuckets * TT_WAYS * sizeof(TTEntry))
        memset(t.aux, 0, TT_AUX_BYTES)
        t.gen = 1


cdef inline TTEntry* tt_bucket(TTable* t, uint64_t k0, uint64_t k1) noexcept nogil:
    return t.slots + (dd_mix64(k0 ^ dd_mix64(k1)) & t.nbuckets_mask) * TT_WAYS


cdef inline TTEntry* tt_probe(TTable* t, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef TTEntry* b = tt_bucket(t, k0, k1)
    cdef int i
    t.probes += 1
    for i in range(TT_WAYS):
        if b[i].k0 == k0 and b[i].k1 == k1 and b[i].depth != 0 and b[i].gen == t.gen:
            t.hits += 1
            return &b[i]
    return NULL


cdef inline void tt_store(TTable* t, uint64_t k0, uint64_t k1, int depth,
                          int lo, int hi, int move) noexcept nogil:
    cdef TTEntry* b = tt_bucket(t, k0, k1)
    cdef TTEntry* victim = NULL
    cdef TTEntry* e
    cdef int i
    t.stores += 1
    for i in range(TT_WAYS):
        e = &b[i]
        if e.depth != 0 and e.gen == t.gen and e.k0 == k0 and e.k1 == k1:
            # Both the old and the new bounds hold: keep their intersection.
            if lo > e.lo:
                e.lo = <int16_t> lo
            if hi < e.hi:
                e.hi = <int16_t> hi
            if move != TT_NO_MOVE:
                e.move = <uint8_t> move
            return
        if e.depth == 0 or e.gen != t.gen:
            if victim == NULL or (victim.depth != 0 and victim.gen == t.gen):
                victim = e
        elif victim == NULL or (victim.depth != 0 and victim.gen == t.gen and e.depth < victim.depth):
            victim = e
    victim.k0 = k0
    victim.k1 = k1
    victim.lo = <int16_t> lo
    victim.hi = <int16_t> hi
    victim.depth = <uint8_t> depth
    victim.gen = t.gen
    victim.move = <uint8_t> move
