/* Bit tricks for card sets held as machine words.
 *
 * pext packs the bits of `x` selected by `mask` into the low bits of the
 * result, in order.  The transposition-table keys use it to list who owns
 * each remaining card in rank order, so positions that differ only in which
 * of several interchangeable cards were played meet in the table.
 */
#ifndef DDCARDS_BITOPS_H
#define DDCARDS_BITOPS_H
#include <stdint.h>
#if defined(__BMI2__)
#include <immintrin.h>
#endif

static inline int dd_popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int dd_popcount64(uint64_t x) { return __builtin_popcountll(x); }
/* index of the lowest / highest set bit; undefined for 0 */
static inline int dd_ctz32(uint32_t x) { return __builtin_ctz(x); }
static inline int dd_ctz64(uint64_t x) { return __builtin_ctzll(x); }
static inline int dd_msb32(uint32_t x) { return 31 - __builtin_clz(x); }
static inline int dd_msb64(uint64_t x) { return 63 - __builtin_clzll(x); }

static inline void dd_prefetch(const void* p) { __builtin_prefetch(p); }

static inline uint32_t dd_pext32(uint32_t x, uint32_t mask) {
#if defined(__BMI2__)
    return _pext_u32(x, mask);
#else
    uint32_t r = 0, bit = 1;
    while (mask) {
        uint32_t low = mask & (0u - mask);
        if (x & low) r |= bit;
        bit <<= 1;
        mask ^= low;
    }
    return r;
#endif
}

static inline uint64_t dd_pext64(uint64_t x, uint64_t mask) {
#if defined(__BMI2__)
    return _pext_u64(x, mask);
#else
    uint64_t r = 0, bit = 1;
    while (mask) {
        uint64_t low = mask & (0ull - mask);
        if (x & low) r |= bit;
        bit <<= 1;
        mask ^= low;
    }
    return r;
#endif
}

/* A word another thread may write: read it whole, never from a register copy. */
static inline int dd_atomic_load_int(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void dd_atomic_store_int(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
/* One whole 64-bit load or store (a plain mov on x86-64) of a table word that another
   thread may write at the same time: the compiler may neither split nor repeat it. */
static inline uint64_t dd_load64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void dd_store64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

/* The instruction sets this file was compiled for, as a word list
 * (ddcards._core.search.BUILD_FEATURES: which build of the kernels runs). */
#if defined(__POPCNT__)
#define DD_F_POPCNT " popcnt"
#else
#define DD_F_POPCNT ""
#endif
#if defined(__BMI2__)
#define DD_F_BMI2 " bmi2"
#else
#define DD_F_BMI2 ""
#endif
#if defined(__AVX2__)
#define DD_F_AVX2 " avx2"
#else
#define DD_F_AVX2 ""
#endif
#if defined(__AVX512F__)
#define DD_F_AVX512 " avx512f"
#else
#define DD_F_AVX512 ""
#endif
#define DD_BUILD_FEATURES ("base" DD_F_POPCNT DD_F_BMI2 DD_F_AVX2 DD_F_AVX512)

/* Zeroed memory for a transposition table.  Huge pages (where the kernel
 * grants them) spare the search most TLB misses on random probes.
 *
 * On Linux a table of 2 MiB or more is mapped, not written: the kernel
 * hands out zeroed pages as the search first touches them.  Zeroing a
 * Mariasz 1 GiB table up front took 0.2-2 s before the search (and its
 * timeout and cancel) could start; mapped, it costs nothing until used, and
 * a table larger than the search needs never takes the memory it does not
 * touch.  Its start is aligned to 2 MiB so that huge pages can back it all.
 * Free it with dd_table_free and the same size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#define DD_TABLE_MAP_MIN ((size_t)2 << 20)

static inline void* dd_table_alloc(size_t bytes) {
    void* p = NULL;
#if defined(__linux__)
    if (bytes >= DD_TABLE_MAP_MIN) {
        size_t span = bytes + DD_TABLE_MAP_MIN;
        char* raw = (char*) mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char* start;
        if (raw == (char*) MAP_FAILED) return NULL;
        start = (char*) (((uintptr_t) raw + DD_TABLE_MAP_MIN - 1) & ~(uintptr_t) (DD_TABLE_MAP_MIN - 1));
        if (start > raw) munmap(raw, (size_t) (start - raw));
        if (raw + span > start + bytes) munmap(start + bytes, (size_t) (raw + span - (start + bytes)));
#if defined(MADV_HUGEPAGE)
        madvise(start, bytes, MADV_HUGEPAGE);
#endif
        return start;
    }
#endif
    if (posix_memalign(&p, bytes < DD_TABLE_MAP_MIN ? 64 : DD_TABLE_MAP_MIN, bytes) != 0) return NULL;
    memset(p, 0, bytes);
    return p;
}

static inline void dd_table_free(void* p, size_t bytes) {
    if (p == NULL) return;
#if defined(__linux__)
    if (bytes >= DD_TABLE_MAP_MIN) {
        munmap(p, bytes);
        return;
    }
#endif
    free(p);
}

/* A strong 64-bit mixer (splitmix64 finaliser) for table indices. */
static inline uint64_t dd_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
