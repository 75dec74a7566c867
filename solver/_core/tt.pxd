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
# Beside the buckets the table holds a side area (`aux`, `aux_bytes`: an eighth
# of the table, from TT_AUX_MIN_BYTES to TT_AUX_MAX_BYTES, a power of two) that
# the game may use for its own memo of exact sub-results during a search
# (GameOps.use_table lends it the table).  Its entries are the game's, keyed
# with everything they depend on (the game itself included: one Searcher may
# serve several games) and stamped with `gen`, so that clearing the table (a
# new generation) forgets them too.  The side area is never shared between
# threads; the buckets may be (the root split, root_split.pxi).
#
#   k0:64 | kx:64 | data:64 | pad:64,   kx = k1 ^ data,
#   data = lo:16 | hi:16 | depth:8 | gen:8 | move:8 (from the low bits)
#
# Threads that share the buckets write them without locks: a probe reads the
# data word once and accepts the entry only if k0 matches and kx ^ data is k1,
# so an entry torn by two writes at once (words of two stores) reads as a
# miss, never as the bounds of another position (the lockless scheme of chess
# engines' shared tables).  One thread alone pays one xor for it.
from libc.stdint cimport uint8_t, int16_t, uint16_t, uint64_t
from libc.string cimport memset
from ddcards._core.bits cimport dd_mix64, dd_table_alloc, dd_table_free, dd_load64, dd_store64

cdef enum:
    TT_WAYS = 2          # 2 x 32 bytes: a bucket is one cache line
    TT_NO_MOVE = 255
    TT_AUX_MIN_BYTES = 262144      # 256 KiB: stays in a core's L2 cache
    TT_AUX_MAX_BYTES = 16777216    # 16 MiB

ctypedef struct TTEntry:
    uint64_t k0
    uint64_t kx       # k1 ^ data
    uint64_t data     # see above; depth 0 = empty
    uint64_t pad

ctypedef struct TTHit:
    # What a probe found: a copy, so that another thread's store cannot change it.
    int lo
    int hi
    int move          # TT_NO_MOVE if none

ctypedef struct TTable:
    TTEntry* slots
    void* aux            # the game's side area (zeroed at first)
    size_t aux_bytes     # its size in use (tt_use): a power of two, at least TT_AUX_MIN_BYTES
    size_t aux_capacity  # its size allocated
    uint64_t nbuckets_mask
    uint64_t nbuckets    # the buckets in use (tt_use): a power of two, at most capacity
    uint64_t capacity    # the buckets allocated
    uint8_t gen
    uint64_t probes
    uint64_t hits
    uint64_t stores


cdef inline uint64_t tt_pack(int lo, int hi, int depth, int gen, int move) noexcept nogil:
    return (<uint64_t> <uint16_t> lo) | ((<uint64_t> <uint16_t> hi) << 16) | \
        ((<uint64_t> <uint8_t> depth) << 32) | ((<uint64_t> <uint8_t> gen) << 40) | \
        ((<uint64_t> <uint8_t> move) << 48)

cdef inline int tt_lo(uint64_t d) noexcept nogil:
    return <int16_t> (d & 0xFFFF)

cdef inline int tt_hi(uint64_t d) noexcept nogil:
    return <int16_t> ((d >> 16) & 0xFFFF)

cdef inline int tt_depth(uint64_t d) noexcept nogil:
    return <int> ((d >> 32) & 0xFF)

cdef inline int tt_gen(uint64_t d) noexcept nogil:
    return <int> ((d >> 40) & 0xFF)

cdef inline int tt_move(uint64_t d) noexcept nogil:
    return <int> ((d >> 48) & 0xFF)


cdef inline size_t pow2_at_most(size_t want) noexcept nogil:
    """The largest power of two at most `want` (1 if want < 2)."""
    cdef size_t n = 1
    while n * 2 <= want:
        n *= 2
    return n


cdef inline size_t tt_buckets(size_t megabytes) noexcept nogil:
    """The buckets of a table of at most `megabytes` MiB (a power of two, at least one)."""
    return pow2_at_most(megabytes * 1024 * 1024 // (sizeof(TTEntry) * TT_WAYS))


cdef inline size_t tt_aux_bytes(size_t megabytes) noexcept nogil:
    """The side area of a table of `megabytes` MiB: an eighth of it within the limits.  A game's
    memo of small endgames (Mariasz's) gains with the search, as the table does: 4 MiB against
    256 KiB saved a fifth of a 32 MiB search's nodes (benchmarks/RESULTS.md)."""
    cdef size_t n = pow2_at_most(megabytes * 1024 * 1024 // 8)
    if n < TT_AUX_MIN_BYTES:
        return TT_AUX_MIN_BYTES
    return n if n < TT_AUX_MAX_BYTES else TT_AUX_MAX_BYTES


cdef inline int tt_init(TTable* t, size_t megabytes) noexcept nogil:
    """Allocate a table of at most `megabytes` MiB (rounded down to a power of two buckets)."""
    cdef size_t n = tt_buckets(megabytes)
    t.slots = <TTEntry*> dd_table_alloc(n * TT_WAYS * sizeof(TTEntry))
    if t.slots == NULL:
        return -1
    t.aux_bytes = t.aux_capacity = tt_aux_bytes(megabytes)
    t.aux = dd_table_alloc(t.aux_capacity)
    if t.aux == NULL:
        dd_table_free(t.slots, n * TT_WAYS * sizeof(TTEntry))
        t.slots = NULL
        return -1
    t.nbuckets = n
    t.nbuckets_mask = n - 1
    t.capacity = n
    t.gen = 1
    t.probes = 0
    t.hits = 0
    t.stores = 0
    return 0


cdef inline void tt_free(TTable* t) noexcept nogil:
    if t.slots != NULL:
        dd_table_free(t.slots, t.capacity * TT_WAYS * sizeof(TTEntry))
        t.slots = NULL
    if t.aux != NULL:
        dd_table_free(t.aux, t.aux_capacity)
        t.aux = NULL


cdef inline int tt_fit_aux(TTable* t, size_t nbytes) noexcept nogil:
    """Use a side area of `nbytes` (another table's, for a helper thread of its search, so that
    each thread's memo is as large as the first one's): reallocated, empty, if it has less."""
    cdef void* aux
    if nbytes > t.aux_capacity:
        aux = dd_table_alloc(nbytes)
        if aux == NULL:
            return -1
        dd_table_free(t.aux, t.aux_capacity)
        t.aux = aux
        t.aux_capacity = nbytes
    t.aux_bytes = nbytes
    return 0


cdef inline void tt_new_generation(TTable* t) noexcept nogil:
    """Forget every entry in O(1): entries of another generation never match."""
    t.gen += 1
    if t.gen == 0:     # wrapped: old entries could come back to life, so wipe
        memset(t.slots, 0, t.capacity * TT_WAYS * sizeof(TTEntry))
        memset(t.aux, 0, t.aux_capacity)
        t.gen = 1


cdef inline void tt_use(TTable* t, size_t megabytes) noexcept nogil:
    """Search in the first `megabytes` MiB of the buckets (at most all of them), empty: a
    search then runs as it would in a table of that size alone, whatever ran before."""
    cdef size_t n = tt_buckets(megabytes)
    if n > t.capacity:
        n = t.capacity
    t.nbuckets = n
    t.nbuckets_mask = n - 1
    t.aux_bytes = tt_aux_bytes(megabytes)
    if t.aux_bytes > t.aux_capacity:
        t.aux_bytes = t.aux_capacity
    tt_new_generation(t)


cdef inline TTEntry* tt_bucket(TTable* t, uint64_t k0, uint64_t k1) noexcept nogil:
    return t.slots + (dd_mix64(k0 ^ dd_mix64(k1)) & t.nbuckets_mask) * TT_WAYS


cdef inline int tt_probe(TTable* t, uint64_t k0, uint64_t k1, TTHit* out) noexcept nogil:
    """1 and the entry's bounds and move in out if the table holds key (k0, k1), else 0."""
    cdef TTEntry* b = tt_bucket(t, k0, k1)
    cdef uint64_t d
    cdef int i
    t.probes += 1
    for i in range(TT_WAYS):
        if dd_load64(&b[i].k0) != k0:
            continue
        d = dd_load64(&b[i].data)
        if (dd_load64(&b[i].kx) ^ d) == k1 and tt_depth(d) != 0 and tt_gen(d) == t.gen:
            t.hits += 1
            out.lo = tt_lo(d)
            out.hi = tt_hi(d)
            out.move = tt_move(d)
            return 1
    return 0


cdef inline void tt_write(TTEntry* e, uint64_t k0, uint64_t k1, uint64_t d) noexcept nogil:
    dd_store64(&e.k0, k0)
    dd_store64(&e.kx, k1 ^ d)
    dd_store64(&e.data, d)


cdef inline void tt_store(TTable* t, uint64_t k0, uint64_t k1, int depth,
                          int lo, int hi, int move) noexcept nogil:
    cdef TTEntry* b = tt_bucket(t, k0, k1)
    cdef TTEntry* victim = NULL
    cdef int i, vdepth = 0, vlive = 0, edepth, elive
    cdef uint64_t d
    t.stores += 1
    for i in range(TT_WAYS):
        d = dd_load64(&b[i].data)
        edepth = tt_depth(d)
        elive = edepth != 0 and tt_gen(d) == t.gen
        if elive and dd_load64(&b[i].k0) == k0 and (dd_load64(&b[i].kx) ^ d) == k1:
            # Both the old and the new bounds hold: keep their intersection.
            if tt_lo(d) > lo:
                lo = tt_lo(d)
            if tt_hi(d) < hi:
                hi = tt_hi(d)
            if move == TT_NO_MOVE:
                move = tt_move(d)
            tt_write(&b[i], k0, k1, tt_pack(lo, hi, edepth, t.gen, move))
            return
        # An empty or stale slot first, else the shallowest live one.
        if victim == NULL or (vlive and (not elive or edepth < vdepth)):
            victim = &b[i]
            vdepth = edepth
            vlive = elive
    tt_write(victim, k0, k1, tt_pack(lo, hi, depth, t.gen, move))
