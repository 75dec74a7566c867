# The table key of a Mariáš trick boundary (or a position in a trick): who
# holds each live card by relative rank, the layout of the cards whose
# identity counts, the trick, the leader and, for money, the parts' classes.
# Positions of one key have one future value, so the table's bounds on the
# future serve them all.
from libc.stdint cimport uint32_t, uint64_t

from ddcards._core.bits cimport dd_popcount32, dd_pext32
from ddcards.games._marias_state cimport (MPos, MState, in_hands, O_HRA, O_KILO, O_SEDMA, O_MONEY,
                                         ST_OPEN, NSEATS, HRA_TENS_LANE, KO_LANE)
from ddcards.games._marias_rules cimport live_marriages
from ddcards.games._marias_bounds cimport money_classes


cdef inline void boundary_key(MPos* p, MState* s, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """Relative-rank key: who holds each live card (in the hands or in the
    current trick), in rank order, plus the layout of the classes that
    matter (counts per suit of 10-pointers, live marriages, the trump 7), the
    trick's cards by their place among the live ones, and the leader.
    Money adds the classes of Hra and Kilo and, for an open part, its banked
    score (bits 46-55, above the trick's cards)."""
    cdef uint32_t hands = in_hands(s)
    cdef uint32_t rem = hands | s.trickmask
    cdef uint32_t lane, live = 0, tk = 0
    cdef uint64_t layout = 0, banked = 0
    cdef int su, n, ntens, nlive, hst, kst
    cdef int points = p.objective == O_HRA or p.objective == O_KILO or p.objective == O_MONEY
    if points:
        live = live_marriages(s, 0, p.objective == O_KILO, p.trump) | \
               live_marriages(s, 1, p.objective == O_KILO, p.trump) | \
               live_marriages(s, 2, p.objective == O_KILO, p.trump)
    for su in range(4):
        lane = (rem >> (8 * su)) & 0xFF
        n = dd_popcount32(lane)
        if points:
            ntens = dd_popcount32(lane & HRA_TENS_LANE)
            nlive = 1 if (live >> (8 * su)) & KO_LANE else 0
            layout |= (<uint64_t> (n | (ntens << 4) | (nlive << 6))) << (8 * su)
            if p.objective == O_MONEY and su == p.trump:
                layout |= (<uint64_t> (lane & 1)) << (8 * su + 7)      # is the trump 7 live?
        elif p.objective == O_SEDMA and su == p.trump:
            layout |= (<uint64_t> (n | ((lane & 1) << 4))) << (8 * su)
        else:
            layout |= (<uint64_t> n) << (8 * su)
    if s.nt > 0:
        # positions (1-based) of the led card and the second card among the live cards
        tk = dd_popcount32(rem & (((<uint32_t> 1) << s.trick[0]) - 1)) + 1
        if s.nt > 1:
            tk |= (dd_popcount32(rem & (((<uint32_t> 1) << s.trick[1]) - 1)) + 1) << 6
    elif p.objective == O_MONEY and dd_popcount32(hands) > NSEATS:
        # A part's class, or for an open part its banked score in tens: the margin so far
        # (|margin| < 320 while Hra is open) and the declarer's Kilo count (< 100 while open).
        money_classes(p, s, &hst, &kst)
        banked = <uint64_t> (hst if hst != ST_OPEN else ST_OPEN + 32 + (s.pts[0] - s.pts[1]) // 10)
        banked |= (<uint64_t> (kst if kst != ST_OPEN else ST_OPEN + s.kilo // 10)) << 6
    k0[0] = ((<uint64_t> dd_pext32(s.hand[0], rem)) | ((<uint64_t> dd_pext32(s.hand[1], rem)) << 32)) ^ p.salt0
    k1[0] = (layout | ((<uint64_t> s.leader) << 32) | ((<uint64_t> tk) << 34) | (banked << 46)) ^ p.salt1
    depth[0] = dd_popcount32(hands) + 1
