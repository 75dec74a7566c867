# The exact table key of a Klaverjas trick boundary (module doc of
# _klaverjas.pyx, "Nat and the table"): 2 owner bits per remaining card
# (key0), and the remaining set, the leader, the pit flags, the class, P and O
# in the OPEN class and the deal's parameters (key1), salted apart from other
# games' keys.  No hashing: positions share a key only when they are the same
# game, the worthless low cards of a suit that can make no roem with them
# being keyed by number and order alone (canonical_rem).
#
# Apart because the table is only sound if the key names everything the
# future depends on: that one claim is checked here, next to nothing else.
from libc.stdint cimport uint32_t, uint64_t

from ddcards._core.bits cimport dd_popcount32, dd_pext32
from ddcards.games._klaverjas_state cimport KPos, KState, C_MADE, C_NAT

cdef extern from *:
    """
    static uint64_t KJ_KEY_SALT0;
    static uint64_t KJ_KEY_SALT1;
    """
    uint64_t KEY_SALT0 "KJ_KEY_SALT0"    # "klaver": keeps keys apart from other games
    uint64_t KEY_SALT1 "KJ_KEY_SALT1"


cdef inline uint32_t canonical_rem(KPos* p, KState* s, uint32_t rem) noexcept nogil:
    """The remaining set as the table key sees it: in a suit where no possible
    sequence holds a worthless card (7 8 9, trumps 7 8), those left count
    only by number and order, so they are keyed as the lowest ones.

    Such positions are the same game: the cards keep their order (who beats
    whom) and their points (none); they can be part of no roem (no sequence,
    four 7s, 8s or 9s score nothing, stuk is the trump Q and K), and the
    sequences among the other cards are the same.  The owners (k0) are
    listed in card order, so they line up.  No other position has the
    canonical cards: the lowest 1 or 2 make no window, and 7 8 9 (or trump
    7 8) left are the canonical set themselves.  Otherwise the suit keeps its
    exact cards.
    """
    cdef uint32_t n = s.bnat[0] | s.bnat[1] | s.bnat[2] | s.bnat[3]
    cdef uint32_t bad = 0, h, w, low, out = rem
    cdef int i, su, k
    for i in range(4):
        h = s.bnat[i]
        bad |= (h & (h >> 1)) | ((h >> 1) & (h >> 2)) | (h & (h >> 2))
    w = n & (n >> 1) & (n >> 2) & 0x3F3F3F3F & ~bad         # possible 3-run starts
    for su in range(4):
        # Windows starting at 7, 8 or 9 (trumps: 7, 8) hold a worthless card.
        if (w >> (8 * su)) & (0x03 if su == p.trump else 0x07):
            continue
        low = (rem >> (8 * su)) & (0x03 if su == p.trump else 0x07)
        k = dd_popcount32(low)
        out = (out & ~(low << (8 * su))) | ((((<uint32_t> 1) << k) - 1) << (8 * su))
    return out


cdef inline void boundary_key(KPos* p, KState* s) noexcept nogil:
    """The exact table key of boundary s (see the module docstring): 2 owner
    bits per remaining card in key0; the remaining set, leader, pit flags,
    class, P/O (OPEN only) and the game's parameters in key1."""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef uint64_t lo = dd_pext32(s.hand[1] | s.hand[3], rem)
    cdef uint64_t hi = dd_pext32(s.hand[2] | s.hand[3], rem)
    cdef uint32_t keyrem = canonical_rem(p, s, rem)
    cdef uint64_t allP = s.tricks[1] == 0
    cdef uint64_t allO = s.tricks[0] == 0
    cdef uint64_t extra = 0
    if s.cls == C_MADE:
        allO = 0                      # the other team cannot take every trick
    elif s.cls == C_NAT:
        allP = 0                      # the playing team cannot take every trick
    else:
        extra = ((<uint64_t> s.pts[0]) << 38) | ((<uint64_t> s.pts[1]) << 48)
    s.key0 = (lo | (hi << 32)) ^ KEY_SALT0
    s.key1 = ((<uint64_t> keyrem) | ((<uint64_t> s.leader) << 32) | (allP << 34) | (allO << 35) |
              ((<uint64_t> s.cls) << 36) | extra | ((<uint64_t> p.trump) << 58) |
              ((<uint64_t> p.rotterdam) << 60) | ((<uint64_t> p.playing) << 61)) ^ KEY_SALT1
