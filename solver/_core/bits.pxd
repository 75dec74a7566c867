# Bit helpers shared by the core and the game modules (see bitops.h).
from libc.stdint cimport uint32_t, uint64_t

cdef extern from "bitops.h" nogil:
    int dd_popcount32(uint32_t x)
    int dd_popcount64(uint64_t x)
    int dd_ctz32(uint32_t x)
    int dd_ctz64(uint64_t x)
    int dd_msb32(uint32_t x)
    int dd_msb64(uint64_t x)
    uint32_t dd_pext32(uint32_t x, uint32_t mask)
    uint64_t dd_pext64(uint64_t x, uint64_t mask)
    uint64_t dd_mix64(uint64_t z)
    void dd_prefetch(const void* p)
    int dd_atomic_load_int(const int* p)
    void dd_atomic_store_int(int* p, int v)
    uint64_t dd_load64(const uint64_t* p)
    void dd_store64(uint64_t* p, uint64_t v)
    void* dd_table_alloc(size_t bytes)
    void dd_table_free(void* p, size_t bytes)
    const char* DD_BUILD_FEATURES


cdef inline int cards_high_to_low(uint32_t mask, int* out) noexcept nogil:
    """Write the set bits of `mask` to `out`, highest first; return how many."""
    cdef int n = 0, c
    while mask:
        c = dd_msb32(mask)
        mask &= ~((<uint32_t> 1) << c)
        out[n] = c
        n += 1
    return n
