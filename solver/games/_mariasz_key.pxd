# The exact table key of a Mariasz trick boundary: everything the rest of the
# deal depends on, packed into 128 bits, then salted with the deal (the stock's
# order, the trumps, the options, the race's start scores).
#
#   two players:  hand 0 (36 bits) | hand 1 (36) | stock cards drawn (5) | exchanged while
#                 the stock lasts (1)
#   Kiks, three:  cards left (36) | owner bit 0 per card left | owner bit 1 per card left
#   then:         leader (2) | race: the points each side still needs (8 each; three players
#                 at the deal's start leave them to the salt, to stay within 128 bits)
#
# Relative ranks of the low cards: 6 7 8 9 score nothing and rank below every other card of
# their suit, and no rule tells them apart but their order (the trump six's exchange aside),
# so a position's value depends only on the order and the owners of the ones still live, not
# on which were played.  The key packs each suit's live low cards to the top of its four
# ranks (7 9 live -> 8 9), keeping their order and owners: two positions that differ only in
# which low cards are gone share a key.  A suit is packed only where all of its live low cards
# are in the hands (none in the stock, whose cards the key does not name) and, for the trumps,
# once the six can no longer be exchanged.  (The table's move is then a hint that may name a
# card this position does not hold: the search only uses it to order moves.)
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_popcount64, dd_pext64
from ddcards.games._mariasz_state cimport ZPos, OBJ_RACE_C, MZ_LANE_BITS

cdef extern from *:
    """
    #define MZ_LANES36 0x01FF01FF01FF01FFULL  /* the 9 card bits of each 16-bit suit lane */
    /* MZ_PACK[live * 16 + mine]: a suit's live low cards (bits 0-3: 6 7 8 9) packed to the
       top of the four, keeping their order; the bits of those that are `mine` (a subset). */
    static const unsigned char MZ_PACK[256] = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4,8,12,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8,0,0,0,0,0,0,0,0,0,0,0,0,4,0,0,8,12,0,0,0,0,0,0,0,0,0,0,0,0,4,0,8,0,12,0,0,0,0,0,0,0,0,0,0,2,4,6,8,10,12,14,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8,0,0,0,0,0,0,0,0,4,0,0,0,0,0,0,8,12,0,0,0,0,0,0,0,0,4,0,0,0,0,0,8,0,12,0,0,0,0,0,0,2,4,6,0,0,0,0,8,10,12,14,0,0,0,0,0,0,0,0,4,0,0,0,8,0,0,0,12,0,0,0,0,2,0,0,4,6,0,0,8,10,0,0,12,14,0,0,0,0,2,0,4,0,6,0,8,0,10,0,12,0,14,0,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15};
    """
    uint64_t LANES36 "MZ_LANES36"
    const unsigned char* PACK "MZ_PACK"


cdef enum:
    MZ_NEEDS_AT = 80        # two players: the needs' 16 bits in the key (after 36 + 36 + 5 + 1 + 2)


cdef inline void needs_free_key(ZPos* p, uint64_t k0, uint64_t k1, uint64_t* r0, uint64_t* r1) noexcept nogil:
    """A two-player race boundary's key without the needs (the race cache's, _mariasz_endgame.pxd), from
    its key: the needs' bits as the salt leaves them where the needs are 0."""
    cdef uint64_t m = (<uint64_t> 0xFFFF) << (MZ_NEEDS_AT - 64)
    r0[0] = k0
    r1[0] = (k1 & ~m) | (p.salt1 & m)


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


cdef inline uint64_t pack_low(ZPos* p, uint64_t live, uint64_t mine, uint64_t stockmask, int six_live,
                              uint64_t* packed_live) noexcept nogil:
    """The relative-rank form of the low cards (see the file's head): returns `mine` (a subset of
    `live`) with each packable suit's low cards packed, and `live` so packed in packed_live[0]."""
    cdef int su, sh
    cdef uint64_t u, nu, clear
    packed_live[0] = live
    for su in range(4):
        sh = MZ_LANE_BITS * su
        u = (live >> sh) & 0xF
        if u == 0 or u == 0x8 or u == 0xC or u == 0xE or u == 0xF:
            continue                        # already packed
        if (stockmask >> sh) & 0xF or (six_live and su == p.trump):
            continue
        nu = PACK[u * 16 + u]
        clear = ~((<uint64_t> 0xF) << sh)
        packed_live[0] = (packed_live[0] & clear) | (nu << sh)
        mine = (mine & clear) | ((<uint64_t> PACK[u * 16 + ((mine >> sh) & u)]) << sh)
    return mine


cdef inline int boundary_key(ZPos* p, uint64_t* hand, int drawn, int exchanged, int leader, int* need_left,
                             uint64_t stockmask, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """Write the key of the boundary with these hands (by seat) and return its depth (> 0).

    need_left: race only, the points each side still needs to reach 131; stockmask: the cards
    still in the stock.
    """
    cdef uint64_t k[2]
    cdef uint64_t rem = hand[0] | hand[1] | hand[2] | hand[3], packed, h0
    cdef int at = 0, side, nrem = dd_popcount64(rem)
    cdef int six_live = p.six >= 0 and not exchanged and drawn < p.nstock
    k[0] = 0
    k[1] = 0
    if p.nseats == 2:
        # the two hands hold every live card outside the stock: hand 1 is the rest of them
        h0 = pack_low(p, rem, hand[0], stockmask, six_live, &packed)
        put(k, &at, dd_pext64(h0, LANES36), 36)
        put(k, &at, dd_pext64(packed & ~h0, LANES36), 36)
        put(k, &at, <uint64_t> drawn, 5)
        # once the stock is used up, whether the six was exchanged changes nothing to come
        put(k, &at, <uint64_t> (exchanged and drawn < p.nstock), 1)
    else:
        # packing keeps each suit's order, so the owner bits (in rem's order) stay as they are
        pack_low(p, rem, 0, stockmask, six_live, &packed)
        put(k, &at, dd_pext64(packed, LANES36), 36)
        put(k, &at, dd_pext64(hand[1] | hand[3], rem), nrem)
        put(k, &at, dd_pext64(hand[2] | hand[3], rem), nrem)
    put(k, &at, <uint64_t> leader, 2)
    if p.objective == OBJ_RACE_C and not (p.nseats == 3 and nrem == 36):
        for side in range(p.nsides):
            put(k, &at, <uint64_t> need_left[side], 8)
    k0[0] = k[0] ^ p.salt0
    k1[0] = k[1] ^ p.salt1
    return nrem + (p.nstock - drawn) + 1
