# The exact table key of a Mariasz trick boundary: everything the rest of the
# deal depends on, packed into 128 bits, then salted with the deal (the stock's
# order, the trumps, the options, the race's start scores).
#
#   two players:  hand 0 (36 bits) | hand 1 (36) | stock cards drawn (5) | exchanged (1)
#   Kiks, three:  cards left (36) | owner bit 0 per card left | owner bit 1 per card left
#   then:         leader (2) | race: the points each side still needs (8 each; three players
#                 at the deal's start leave them to the salt, to stay within 128 bits)
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_popcount64, dd_pext64
from ddcards.games._mariasz_state cimport ZPos, OBJ_RACE_C

cdef extern from *:
    """
    #define MZ_LANES36 0x01FF01FF01FF01FFULL  /* the 9 card bits of each 16-bit suit lane */
    """
    uint64_t LANES36 "MZ_LANES36"


cdef inline void put(uint64_t* k, int* at, uint64_t v, int nbits) noexcept nogil:
    """Append the nbits-bit value v at bit `at` of the 128-bit key k[0], k[1]."""
    cdef int a = at[0]
    if a < 64:
        k[0] |= v << a
        if a + nbits > 64:
            k[1] |= v >> (64 - a)
    else:
        k[1] |= v << (a - 64)
    at[0] = a + nbits


cdef inline int boundary_key(ZPos* p, uint64_t* hand, int drawn, int exchanged, int leader, int* need_left,
                             uint64_t* k0, uint64_t* k1) noexcept nogil:
    """Write the key of the boundary with these hands (by seat) and return its depth (> 0).

    need_left: race only, the points each side still needs to reach 131.
    """
    cdef uint64_t k[2]
    cdef uint64_t rem = hand[0] | hand[1] | hand[2] | hand[3]
    cdef int at = 0, side, nrem = dd_popcount64(rem)
    k[0] = 0
    k[1] = 0
    if p.nseats == 2:
        put(k, &at, dd_pext64(hand[0], LANES36), 36)
        put(k, &at, dd_pext64(hand[1], LANES36), 36)
        put(k, &at, <uint64_t> drawn, 5)
        put(k, &at, <uint64_t> exchanged, 1)
    else:
        put(k, &at, dd_pext64(rem, LANES36), 36)
        put(k, &at, dd_pext64(hand[1] | hand[3], rem), nrem)
        put(k, &at, dd_pext64(hand[2] | hand[3], rem), nrem)
    put(k, &at, <uint64_t> leader, 2)
    if p.objective == OBJ_RACE_C and not (p.nseats == 3 and nrem == 36):
        for side in range(p.nsides):
            put(k, &at, <uint64_t> need_left[side], 8)
    k0[0] = k[0] ^ p.salt0
    k1[0] = k[1] ^ p.salt1
    return nrem + (p.nstock - drawn) + 1
