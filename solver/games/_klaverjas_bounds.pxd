# A Klaverjas trick boundary classified and bounded (module doc of
# _klaverjas.pyx, "Nat and the table"): its class (MADE, NAT, OPEN, DONE), the
# value banked so far and sure bounds on the future, from the card points
# left, the sure trumps (above all of the other team's) and a bound on the
# roem still to come (roem_bound).  boundary() is called at each trick's end
# (end_trick) and when the core names a test's mode (k_set_mode); it works the
# table key out (_klaverjas_key.pxd) only where a table probe follows.
#
# Apart because this is what the core reads at a boundary (GameOps.node_info:
# the class's banked value and the bounds) and what the table's soundness
# rests on with the key: a future bounded here must hold for every line.
from libc.stdint cimport uint32_t

from ddcards._core.tt cimport tt_bucket
from ddcards._core.bits cimport dd_prefetch, dd_popcount32, dd_msb32, dd_ctz32
from ddcards.games._klaverjas_state cimport (KPos, KState, above, NSEATS, F_NO_BOUNDS, F_NO_CLASSES,
                                            F_NO_LEAF, C_OPEN, C_MADE, C_NAT, C_DONE, M_MARGIN, M_ASNAT,
                                            ALL_CARD_POINTS, PIT, LAST_TRICK)
from ddcards.games._klaverjas_rules cimport (QUAD_ROEM, final_value, final_asnat, final_margin,
                                            last_trick_play)
from ddcards.games._klaverjas_key cimport boundary_key

cdef extern from *:
    """
    static int KJ_TRUMP_LANE_PTS[256];
    static int KJ_SEQ_MAX[2048];
    static int KJ_RUN4_TOP[2][5];
    static uint32_t KJ_RUN3_OFF0;
    static uint32_t KJ_RUN3_OFF1;
    static uint32_t KJ_RUN3_OFF2;
    """
    # Card points of a trump lane (power layout).
    int TRUMP_LANE_PTS "KJ_TRUMP_LANE_PTS"[256]
    # SEQ_MAX[w3 | w4 << 6]: the most sequence roem one suit can still give, from
    # the starts of its possible 3-runs (w3, 6 bits) and 4-runs (w4, 5 bits):
    # the best set of disjoint runs.
    int SEQ_MAX "KJ_SEQ_MAX"[2048]
    # RUN4_TOP[trump?][start]: natural position of the strongest card of the
    # 4-run starting at `start` (plain suits: the T, or the A in J-Q-K-A;
    # trumps: the 9 in 7-8-9-T, else the J).
    int RUN4_TOP "KJ_RUN4_TOP"[2][5]
    # The strongest card of a 3-run starting at natural position i of a plain
    # suit is at i + 0 for i = 3 (T J Q), i + 1 for i = 2 (9 T J), i + 2 else;
    # in trumps (masks 0x10, 0x0A, 0x25 of the lane) at i + 0 for J Q K, i + 1
    # for 8 9 T and T J Q, i + 2 else.  Bits: starts, in every lane.
    uint32_t RUN3_OFF0 "KJ_RUN3_OFF0"
    uint32_t RUN3_OFF1 "KJ_RUN3_OFF1"
    uint32_t RUN3_OFF2 "KJ_RUN3_OFF2"


# ---------------------------------------------------------------- boundary bookkeeping

cdef inline int roem_bound(KPos* p, KState* s, int* rP, int* rO) noexcept nogil:
    """Upper bounds on the roem still to come (from a trick boundary): in
    all (returned) and in the tricks each team takes (rP, rO).

    Sequences: a trick's cards of one suit hold at most one run, a 3-run (20)
    of 3 consecutive cards from 3 different hands or a 4-run (50) from all 4;
    runs of one suit use disjoint cards, so SEQ_MAX (the best set of disjoint
    runs that can exist, by dynamic programming over the suit) bounds a
    suit's sequences; a trick has 4 cards, so at most one run per trick:
    at most 50 per trick left.  A 4-run trick is all of one suit, so the
    holder of its strongest card takes it: only that card's team can score
    it.  Four of a kind needs its cards in 4 different hands, and the trump
    among them takes the trick: only that card's team scores it.  Stuk needs
    the trump K and Q in different hands.
    """
    cdef uint32_t hn[4]
    cdef uint32_t rem = 0, bad = 0, bad4 = 0, w, w4, w4P, w3P, w3O, maj, topP, q, rb, mP
    cdef int i, t, su, k, r = 0, a = 0, b = 0, qP = 0, qO = 0, one, stuk = 0, cap
    for i in range(4):
        hn[i] = s.bnat[i]
        rem |= hn[i]
        bad |= (hn[i] & (hn[i] >> 1)) | ((hn[i] >> 1) & (hn[i] >> 2)) | (hn[i] & (hn[i] >> 2))
    mP = hn[p.playing] | hn[p.playing + 2]
    w = rem & (rem >> 1) & (rem >> 2) & 0x3F3F3F3F & ~bad       # 3-run starts
    if w:           # (late in a deal mostly none: skip the sequence bounds)
        for i in range(4):
            bad4 |= (hn[i] & (hn[i] >> 3)) | ((hn[i] >> 1) & (hn[i] >> 3)) | ((hn[i] >> 2) & (hn[i] >> 3))
        w4 = w & (rem >> 3) & 0x1F1F1F1F & ~bad4 & ~(bad >> 1)      # 4-run starts
        w4P = 0                                                     # ... the playing team's top card
        for su in range(4):
            t = 1 if su == p.trump else 0
            k = (w4 >> (8 * su)) & 0x1F
            while k:
                i = dd_ctz32(k)
                k &= k - 1
                if (mP >> (8 * su + RUN4_TOP[t][i])) & 1:
                    w4P |= (<uint32_t> 1) << (8 * su + i)
        # A 3-run's trick goes to its strongest card or to the fourth player (who
        # holds none of it, the partner of the run's lone card of one team): if
        # the strongest card is that lone card, only its team can score the run.
        maj = (mP & (mP >> 1)) | (mP & (mP >> 2)) | ((mP >> 1) & (mP >> 2))   # P holds 2 of 3
        t = 8 * p.trump
        topP = (mP & ((RUN3_OFF0 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x10) << t))) | \
            ((mP >> 1) & ((RUN3_OFF1 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x0A) << t))) | \
            ((mP >> 2) & ((RUN3_OFF2 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x25) << t)))
        w3P = w & ~(maj & ~topP)
        w3O = w & ~(~maj & topP)
        for su in range(4):
            if (w >> (8 * su)) & 0x3F:      # w3P, w3O, w4, w4P are all within w
                r += SEQ_MAX[((w >> (8 * su)) & 0x3F) | (((w4 >> (8 * su)) & 0x1F) << 6)]
                a += SEQ_MAX[((w3P >> (8 * su)) & 0x3F) | (((w4P >> (8 * su)) & 0x1F) << 6)]
                b += SEQ_MAX[((w3O >> (8 * su)) & 0x3F) | ((((w4 & ~w4P) >> (8 * su)) & 0x1F) << 6)]
        cap = 50 * (dd_popcount32(rem) // NSEATS)
        r = r if r < cap else cap
        a = a if a < cap else cap
        b = b if b < cap else cap
    q = rem & (rem >> 8) & (rem >> 16) & (rem >> 24) & 0xF8     # T..A all out
    while q:
        k = dd_ctz32(q)
        q &= q - 1
        rb = (<uint32_t> 0x01010101) << k
        one = 1
        for i in range(4):
            if dd_popcount32(hn[i] & rb) != 1:
                one = 0
        if one:
            if (mP >> (8 * p.trump + k)) & 1:
                qP += QUAD_ROEM[k]
            else:
                qO += QUAD_ROEM[k]
    rb = (<uint32_t> 3) << (8 * p.trump + 5)
    if (rem & rb) == rb:
        one = 1
        for i in range(4):
            if (hn[i] & rb) == rb:
                one = 0
        if one:
            stuk = 20
    rP[0] = a + qP + stuk
    rO[0] = b + qO + stuk
    return r + qP + qO + stuk


cdef inline void sure_trumps(KPos* p, KState* s, int* sP, int* sO, int* hasP, int* hasO) noexcept nogil:
    """Points of each team's trumps that are higher than all the other team's."""
    cdef uint32_t tP = (s.hand[p.playing] | s.hand[p.playing + 2]) & p.trumpmask
    cdef uint32_t tO = (s.hand[p.playing ^ 1] | s.hand[(p.playing ^ 1) + 2]) & p.trumpmask
    cdef uint32_t hiP = tP, hiO = tO
    if tO:
        hiP = above(tP, dd_msb32(tO))
    if tP:
        hiO = above(tO, dd_msb32(tP))
    hasP[0] = hiP != 0
    hasO[0] = hiO != 0
    sP[0] = TRUMP_LANE_PTS[(hiP >> (8 * p.trump)) & 0xFF]
    sO[0] = TRUMP_LANE_PTS[(hiO >> (8 * p.trump)) & 0xFF]


cdef inline int roem_cannot_decide(KPos* p, KState* s, int D, int dlo, int dhi, int allP,
                                   int allO) noexcept nogil:
    """In the margin or the as-if-nat mode, would the quick bounds fail to
    settle "value >= p.beta" at this boundary even if no roem were to come
    (dlo <= future margin <= dhi then)?  Then no roem bound can make them
    settle it (roem only widens them)."""
    cdef int lo, hi
    if p.mode == M_MARGIN:
        lo = D + dlo
        hi = D + dhi + (PIT if allP else 0)
    elif p.mode == M_ASNAT:
        lo = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1]) - (PIT if allO else 0)
        hi = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
    else:
        return 0
    lo += lo & 1                        # rounded inward to even, as the bounds are
    hi -= hi & 1
    return lo < p.beta and hi > p.beta - 1


cdef inline void boundary(KPos* p, KState* s) noexcept nogil:
    """Classify a trick boundary and cache banked value and quick bounds."""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef int U, R, RP, RO, D, allP, allO, wt, tp, v, sP, sO, hasP, hasO, dlo, dhi
    cdef KState fin
    s.leaf = 0                  # which endgame leaf solves this boundary (k_leaf)
    s.keyed = 0
    if not (p.flags & (F_NO_BOUNDS | F_NO_LEAF)) and \
            (dd_popcount32(rem) == 2 * NSEATS or dd_popcount32(rem) == 3 * NSEATS):
        s.leaf = dd_popcount32(rem) // NSEATS
    if rem == 0:
        s.cls = C_DONE
        if p.mode == M_MARGIN:
            s.banked = final_margin(s)
        elif p.mode == M_ASNAT:
            s.banked = final_asnat(s)
        else:
            s.banked = final_value(s)
        s.flo = 0
        s.fhi = 0
        return
    allP = s.tricks[1] == 0
    allO = s.tricks[0] == 0
    D = s.pts[0] - s.pts[1]
    if p.mode == M_MARGIN and dd_popcount32(rem) == NSEATS:
        # The margin: its future is additive, the class is always MADE.
        last_trick_play(p, s, &wt, &tp)
        s.cls = C_MADE
        s.banked = D
        s.flo = tp + (PIT if allP else 0) if wt == 0 else -tp
        s.fhi = s.flo
        return
    if dd_popcount32(rem) == NSEATS:
        # One trick left: play is forced, the future is exact.
        last_trick_play(p, s, &wt, &tp)
        fin.pts[0] = s.pts[0]
        fin.pts[1] = s.pts[1]
        fin.tricks[0] = s.tricks[0]
        fin.tricks[1] = s.tricks[1]
        fin.pts[wt] += tp
        fin.tricks[wt] += 1
        v = final_asnat(&fin) if p.mode == M_ASNAT else final_value(&fin)
        if p.flags & F_NO_CLASSES and p.mode != M_ASNAT:
            s.cls = C_OPEN
            s.banked = 0
        elif fin.pts[0] > fin.pts[1] and p.mode != M_ASNAT:
            s.cls = C_MADE
            s.banked = D
        else:
            s.cls = C_NAT
            s.banked = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
        s.flo = v - s.banked
        s.fhi = s.flo
        return
    U = s.crem + LAST_TRICK
    # Trumps above every trump of the other team win whatever trick they fall
    # in: their points surely go to their team, and that team takes a trick.
    sure_trumps(p, s, &sP, &sO, &hasP, &hasO)
    if hasO:
        allP = 0
    if hasP:
        allO = 0
    dlo = -U + 2 * sP                    # bounds on the future margin P - O, roem aside
    dhi = U - 2 * sO
    if roem_cannot_decide(p, s, D, dlo, dhi, allP, allO):
        # The quick bounds cannot settle this node for the test under way
        # even with no roem to come: a bound of 200 a trick (four jacks;
        # a run and stuk make 70) serves, and the roem bound's work is
        # saved.  (The value mode needs it for the class: always worked out.)
        R = 200 * (dd_popcount32(rem) // NSEATS)
        RP = R
        RO = R
    else:
        R = roem_bound(p, s, &RP, &RO)
    dlo -= RO
    dhi += RP
    if p.mode == M_MARGIN:
        s.cls = C_MADE
    elif p.mode == M_ASNAT:
        s.cls = C_NAT
    elif p.flags & F_NO_CLASSES:
        s.cls = C_OPEN
    elif D + dlo > 0:
        s.cls = C_MADE
    elif D + dhi <= 0:
        s.cls = C_NAT
    else:
        s.cls = C_OPEN
    if s.cls == C_MADE:
        s.banked = D
        s.flo = dlo
        s.fhi = dhi + (PIT if allP else 0)
    elif s.cls == C_NAT:
        s.banked = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
        s.flo = -R - (PIT if allO else 0)
        s.fhi = 0
    else:
        s.banked = 0
        s.flo = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1] + R) - (PIT if allO else 0)
        if D + dhi > 0:
            s.fhi = D + dhi + (PIT if allP else 0)
        else:                   # cannot be made
            s.fhi = -ALL_CARD_POINTS - s.roem[0] - s.roem[1]
    # Every final value is even (see the module doc): round the bounds on the
    # total inward to even numbers.
    s.flo += (s.banked + s.flo) & 1
    s.fhi -= (s.banked + s.fhi) & 1
    if p.flags & F_NO_BOUNDS:
        s.flo = -30000 + 1
        s.fhi = 30000 - 1
    # The table is probed next unless the quick bounds settle the node for
    # the test under way (they do at a quarter of the boundaries; then no
    # key is needed): start loading its bucket now, so that the load
    # overlaps the way back to the core (measured: -2 to -4% CPU).
    if s.banked + s.flo >= p.beta or s.banked + s.fhi <= p.beta - 1:
        return
    boundary_key(p, s)
    s.keyed = 1
    if p.tt != NULL:
        dd_prefetch(tt_bucket(p.tt, s.key0, s.key1))
