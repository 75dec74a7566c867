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
# rests on with the key: the class must hold on every line of play; the
# bounds on the future need hold only under best play (roem_denied).
from libc.stdint cimport uint32_t

from ddcards._core.tt cimport tt_bucket
from ddcards._core.search cimport VALUE_INF
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


# The runs still possible at a boundary, as roem_bound found them, for
# roem_denied (which boundary() calls only where the test is left open).
cdef struct Runs:
    uint32_t hn[4]      # the hands, natural layout
    uint32_t rem
    uint32_t w          # 3-run starts (0: none; then the rest is not set)
    uint32_t w4         # 4-run starts
    uint32_t w4P        # ... the playing team's strongest card
    uint32_t maj        # the playing team holds two cards of the 3-run
    uint32_t w3P        # 3-runs each team could take
    uint32_t w3O
    int seq             # roem_bound's sequence terms, before the cap: in all,
    int seqP            # the playing team's, the other team's
    int seqO


# ---------------------------------------------------------------- boundary bookkeeping

cdef inline int denials(uint32_t* hn, int lane, int d, uint32_t two, uint32_t four, uint32_t* r3,
                        uint32_t* r4) noexcept nogil:
    """The choices of seat d's one denied triple in a suit (seq_max_denied): for
    each, the 3-run and 4-run starts it takes out (r3, r4); returns how many."""
    cdef uint32_t h = (hn[d] >> lane) & 0xFF, z = (hn[d ^ 2] >> lane) & 0xFF, c
    cdef int n = 0, i, off, t
    c = two & (h | (h >> 1) | (h >> 2))         # the 3-runs whose lone card is d's
    while c:
        i = dd_ctz32(c)
        c &= c - 1
        r3[n] = (<uint32_t> 1) << i
        r4[n] = (((<uint32_t> 1) << i) | (((<uint32_t> 1) << i) >> 1)) & 0x1F     # the 4-runs holding it
        n += 1
    c = four
    while c:
        i = dd_ctz32(c)
        c &= c - 1
        off = dd_ctz32(z >> i)                  # his partner's card of the 4-run
        r4[n] = (<uint32_t> 1) << i
        r3[n] = 0
        if off == 0 or off == 3:
            # The rest is a 3-run too, when his partner's card ends the 4-run:
            # it goes, with the other 4-run holding it.
            t = i + 1 if off == 0 else i
            r3[n] = (<uint32_t> 1) << t
            r4[n] = (((<uint32_t> 1) << t) | (((<uint32_t> 1) << t) >> 1)) & 0x1F
        n += 1
    return n


cdef inline int seq_max_denied(uint32_t* hn, int lane, uint32_t w3, uint32_t w4, uint32_t two,
                               uint32_t four, int d1, int d2, uint32_t pair3, uint32_t pair4) noexcept nogil:
    """SEQ_MAX of one plain suit (its 3-run starts w3 and 4-run starts w4, lane
    bits) less the runs the other team can deny (a bound for the minimax only).

    A denial: three cards of the suit, a and b in the hands of the two seats of
    team `holders` (the seat parity) and x in the hand of a seat d of the other
    team, who holds more cards of the suit than one of the two does.  d can
    keep a, b and x from ever falling in one trick: he never plays x while a
    and b may both still join it (unless some holder has already played another
    card to this trick: then he plays x if he can, and the three are parted),
    and he always has another card of the suit to follow with.  A trick of the
    suit that d does not lead has a holder playing before him (the holders are
    both his opponents): his card of the three (d follows with another) or not
    (d plays x); either way the three are parted.  On a trick of another suit
    a plain card of d's may be played whenever x may.  Only d's own leads of
    the suit keep the three together, and each uses one of d's other cards and
    one of each holder's: d, who has more than the shorter holder, never runs
    out first.  So every run holding the three is out: the 3-run they make
    (two: its start, the run's lone card d's) or the 4-run with d's partner's
    card (four: its start).  Plain suits only (in trumps the overtrump may
    force x).  One denial per seat and suit (two would share d's spare cards),
    the pair of the two seats' choices that leaves the least.  d1, d2: the
    seats of the other team that can deny (longer in the suit than one of
    the holders), -1 for one that cannot.

    A denial by a pair, instead: two cards of the suit, x1 and x2, in the
    hands of the two players d1, d2 of the denying team, where d1 holds more
    cards of the suit than one more than d2's trumps.  They never let x1 and
    x2 fall in one trick: d1 plays x1 only where x2 cannot join it (d2 has
    played another card to this trick, or, on a trick led in another suit,
    d2 holds a card of that suit or another plain card to play instead of
    x2), else another card (of another suit if he can); d2 plays x2 (or
    another card: then x2 never joins x1) whenever d1 has played another
    card of the suit to this trick.  A trick led in the suit parts them (d1
    follows with another card and d2 with x2, or d2 has played first: x2,
    and d1 follows with another card, or not, and d1 plays x1).  On a trick
    of another suit, d1 (void in it) could not play x1 safely before d2
    only if x2 might be d2's only legal card: d2's hand x2 and his trumps.
    Hands are equal at a trick's start, and d1's holds x1 and more spares
    than d2 has trumps: it never happens.  So d1 spends no spare there
    before they are parted, and d2's trumps only fall: the condition holds
    at every trick's start until a trick led in the suit parts the two.
    So every run holding x1 and x2 is out:
    pair3, the 3-runs whose cards lie two in the denying team's hands (with
    the 4-runs holding them), or pair4, a 4-run.  One such denial a suit,
    instead of the single ones (it takes both seats' spare cards).
    """
    cdef uint32_t r3a[12]
    cdef uint32_t r4a[12]
    cdef uint32_t r3b[12]
    cdef uint32_t r4b[12]
    cdef int best = SEQ_MAX[w3 | (w4 << 6)], v, na = 0, nb = 0, i, j
    if d1 >= 0:
        na = denials(hn, lane, d1, two, four, r3a, r4a)
    if d2 >= 0:
        nb = denials(hn, lane, d2, two, four, r3b, r4b)
    r3a[na] = 0         # the last choice of each: none
    r4a[na] = 0
    r3b[nb] = 0
    r4b[nb] = 0
    for i in range(na + 1):
        for j in range(nb + 1):
            v = SEQ_MAX[(w3 & ~(r3a[i] | r3b[j])) | ((w4 & ~(r4a[i] | r4b[j])) << 6)]
            if v < best:
                best = v
    while pair3:
        i = dd_ctz32(pair3)
        pair3 &= pair3 - 1
        v = SEQ_MAX[(w3 & ~((<uint32_t> 1) << i)) |
                    ((w4 & ~((((<uint32_t> 1) << i) | (((<uint32_t> 1) << i) >> 1)) & 0x1F)) << 6)]
        if v < best:
            best = v
    while pair4:
        i = dd_ctz32(pair4)
        pair4 &= pair4 - 1
        v = SEQ_MAX[w3 | ((w4 & ~((<uint32_t> 1) << i)) << 6)]
        if v < best:
            best = v
    return best


cdef inline uint32_t run_starts(KPos* p, uint32_t* hn, uint32_t rem, uint32_t* w4_, uint32_t* w4P_,
                                uint32_t* maj_, uint32_t* w3P_, uint32_t* w3O_) noexcept nogil:
    """The starts (lane bits, natural layout) of the runs still possible from
    the hands hn (rem: all their cards): returns the 3-runs' (w); if there are
    any, the 4-runs' (w4_), those whose strongest card is the playing team's
    (w4P_), the 3-runs that team holds two cards of (maj_, over every start),
    and the 3-runs each team could take (w3P_, w3O_).  See roem_bound."""
    cdef uint32_t bad = 0, bad4 = 0, w, w4, w4P, maj, topP, mP, k
    cdef int i, t, su
    for i in range(4):
        bad |= (hn[i] & (hn[i] >> 1)) | ((hn[i] >> 1) & (hn[i] >> 2)) | (hn[i] & (hn[i] >> 2))
    w = rem & (rem >> 1) & (rem >> 2) & 0x3F3F3F3F & ~bad       # 3-run starts
    if not w:       # (late in a deal mostly none: skip the rest)
        return 0
    mP = hn[p.playing] | hn[p.playing + 2]
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
    w4_[0] = w4
    w4P_[0] = w4P
    maj_[0] = maj
    w3P_[0] = w & ~(maj & ~topP)
    w3O_[0] = w & ~(~maj & topP)
    return w


cdef inline int roem_bound(KPos* p, KState* s, int* rP, int* rO, Runs* runs) noexcept nogil:
    """Upper bounds on the roem still to come (from a trick boundary): in
    all (returned) and in the tricks each team takes (rP, rO), on every line
    of play; what it found of the runs in `runs`.

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
    cdef uint32_t* hn = runs.hn
    cdef uint32_t rem = 0, w, w4 = 0, w4P = 0, w3P = 0, w3O = 0, maj = 0, q, rb, mP
    cdef int i, su, k, r = 0, a = 0, b = 0, qP = 0, qO = 0, one, stuk = 0, cap
    for i in range(4):
        hn[i] = s.bnat[i]
        rem |= hn[i]
    mP = hn[p.playing] | hn[p.playing + 2]
    w = run_starts(p, hn, rem, &w4, &w4P, &maj, &w3P, &w3O)
    runs.rem = rem
    runs.w = w
    runs.w4 = w4
    runs.w4P = w4P
    runs.maj = maj
    runs.w3P = w3P
    runs.w3O = w3O
    if w:
        for su in range(4):
            if (w >> (8 * su)) & 0x3F:      # w3P, w3O, w4, w4P are all within w
                r += SEQ_MAX[((w >> (8 * su)) & 0x3F) | (((w4 >> (8 * su)) & 0x1F) << 6)]
                a += SEQ_MAX[((w3P >> (8 * su)) & 0x3F) | (((w4P >> (8 * su)) & 0x1F) << 6)]
                b += SEQ_MAX[((w3O >> (8 * su)) & 0x3F) | ((((w4 & ~w4P) >> (8 * su)) & 0x1F) << 6)]
        runs.seq = r
        runs.seqP = a
        runs.seqO = b
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


# roem_denied's measures
cdef enum:
    DENY_ALL = 0        # the roem in all, the playing team denying the other team's runs
    DENY_P = 1          # the playing team's, the other team denying
    DENY_O = 2          # the other team's, the playing team denying


cdef inline int roem_denied(KPos* p, Runs* runs, int which) noexcept nogil:
    """How much lower than roem_bound's a sequence bound is for the minimax,
    with the runs a team can deny taken out (seq_max_denied): the bound in
    all, the one on the playing team's or on the other team's roem (which).
    From the runs roem_bound found; worked out only where its bounds leave
    the test under way open, and only the one that may settle it (boundary)."""
    cdef uint32_t* hn = runs.hn
    cdef uint32_t w = runs.w & ~((<uint32_t> 0xFF) << (8 * p.trump)), x3, x4, two
    cdef int su, lane, cut = 0, seq, cap, n0, n2, d1, d2, e1, e2, tl = 8 * p.trump
    cdef uint32_t pair3, pair4
    cdef int holders = p.playing if which == DENY_P else p.playing ^ 1
    if not w:
        return 0    # no run possible in a plain suit
    for su in range(4):
        lane = 8 * su
        x3 = (w >> lane) & 0x3F
        if not x3:
            continue
        if which == DENY_ALL:
            x4 = (runs.w4 >> lane) & 0x1F
            two = x3 & ~(runs.maj >> lane)
        elif which == DENY_P:
            x3 = (runs.w3P >> lane) & 0x3F
            x4 = (runs.w4P >> lane) & 0x1F
            two = x3 & (runs.maj >> lane)
        else:
            x3 = (runs.w3O >> lane) & 0x3F
            x4 = ((runs.w4 & ~runs.w4P) >> lane) & 0x1F
            two = x3 & ~(runs.maj >> lane)
        # the single deniers: longer in the suit than one of the holders
        n0 = dd_popcount32((hn[holders] >> lane) & 0xFF)
        n2 = dd_popcount32((hn[holders + 2] >> lane) & 0xFF)
        n0 = n0 if n0 < n2 else n2
        e1 = dd_popcount32((hn[holders ^ 1] >> lane) & 0xFF)
        e2 = dd_popcount32((hn[(holders ^ 1) + 2] >> lane) & 0xFF)
        d1 = holders ^ 1 if e1 > n0 and (two | x4) else -1
        d2 = (holders ^ 1) + 2 if e2 > n0 and (two | x4) else -1
        # the pair: one of them longer in the suit than one more than the other's trumps
        pair3 = x3 & ~two
        pair4 = x4
        if not (e1 > 1 + dd_popcount32((hn[(holders ^ 1) + 2] >> tl) & 0xFF) or
                e2 > 1 + dd_popcount32((hn[holders ^ 1] >> tl) & 0xFF)):
            pair3 = 0
            pair4 = 0
        if d1 < 0 and d2 < 0 and not (pair3 | pair4):
            continue
        cut += SEQ_MAX[x3 | (x4 << 6)] - seq_max_denied(hn, lane, x3, x4, two, x4, d1, d2, pair3, pair4)
    if not cut:
        return 0
    # roem_bound caps the suits' sum (at most a run of 50 a trick left)
    seq = runs.seq if which == DENY_ALL else (runs.seqP if which == DENY_P else runs.seqO)
    cap = 50 * (dd_popcount32(runs.rem) // NSEATS)
    return (seq if seq < cap else cap) - (seq - cut if seq - cut < cap else cap)


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


cdef inline void future_bounds(KPos* p, KState* s, int D, int dlo, int dhi, int R, int allP, int allO,
                               int* banked, int* flo, int* fhi) noexcept nogil:
    """The banked value and the bounds on the future of a boundary of class
    s.cls, from bounds on the future margin (dlo, dhi) and on the roem to
    come in all (R); rounded inward to the values a deal can have."""
    cdef int nat = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1]), lo, hi
    if s.cls == C_MADE:
        banked[0] = D
        lo = dlo
        hi = dhi + (PIT if allP else 0)
    elif s.cls == C_NAT:
        banked[0] = nat
        lo = -R - (PIT if allO else 0)
        hi = 0
    else:
        banked[0] = 0
        lo = nat - R - (PIT if allO else 0)
        hi = D + dhi + (PIT if allP else 0) if D + dhi > 0 else nat      # (else: cannot be made)
    # Every final value is even (see the module doc): round the bounds on the
    # total inward to even numbers.
    flo[0] = lo + ((banked[0] + lo) & 1)
    fhi[0] = hi - ((banked[0] + hi) & 1)
    if p.flags & F_NO_BOUNDS:
        flo[0] = -30000 + 1
        fhi[0] = 30000 - 1


cdef inline bint settled(KPos* p, int banked, int flo, int fhi) noexcept nogil:
    """Do these bounds settle the test under way ("value >= p.beta")?"""
    return banked + flo >= p.beta or banked + fhi <= p.beta - 1


cdef inline void boundary(KPos* p, KState* s) noexcept nogil:
    """Classify a trick boundary and cache banked value and quick bounds."""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef int U, R, RP, RO, dRP, dRO, dR, D, allP, allO, wt, tp, v, sP, sO, hasP, hasO, dlo, dhi, roem
    cdef int b, lo, hi, b2, lo2, hi2
    cdef Runs runs
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
    roem = not roem_cannot_decide(p, s, D, dlo, dhi, allP, allO)
    if roem:
        R = roem_bound(p, s, &RP, &RO, &runs)
    else:
        # The quick bounds cannot settle this node for the test under way
        # even with no roem to come: a bound of 200 a trick (four jacks;
        # a run and stuk make 70) serves, and the roem bound's work is
        # saved.  (The value mode needs it for the class: always worked out.)
        R = 200 * (dd_popcount32(rem) // NSEATS)
        RP = R
        RO = R
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
    future_bounds(p, s, D, dlo, dhi, R, allP, allO, &b, &lo, &hi)
    if roem and runs.w and dd_popcount32(rem) >= 4 * NSEATS and \
            (p.beta >= VALUE_INF or not settled(p, b, lo, hi)):
        # Left open (or no test under way): the bounds for the minimax, each
        # team denying the runs it can (roem_denied), may settle it, if
        # bounds with no sequence to come at all would (the sums before the
        # cap make those wider still: a filter, never a bound).  The class
        # stays on the bounds for every line (the table keys made and nat
        # positions without the points: that holds only where every line
        # makes or fails the deal).  Not with fewer than four tricks left:
        # there the endgame leaf (two or three tricks) or the next boundary
        # settles the node for less (measured: fewer nodes without it there).
        future_bounds(p, s, D, dlo + runs.seqO, dhi - runs.seqP, R - runs.seq, allP, allO, &b2, &lo2, &hi2)
        dRP = 0
        dRO = 0
        dR = 0
        if p.beta >= VALUE_INF:
            dRP = roem_denied(p, &runs, DENY_P)
            dRO = roem_denied(p, &runs, DENY_O)
            dR = roem_denied(p, &runs, DENY_ALL)
        else:
            if b2 + lo2 >= p.beta:          # the lower bound may reach the test
                if s.cls == C_MADE:
                    dRO = roem_denied(p, &runs, DENY_O)
                else:
                    dR = roem_denied(p, &runs, DENY_ALL)
            if b2 + hi2 <= p.beta - 1:      # the upper bound may
                dRP = roem_denied(p, &runs, DENY_P)
        if dRP | dRO | dR:
            future_bounds(p, s, D, dlo + dRO, dhi - dRP, R - dR, allP, allO, &b, &lo, &hi)
    s.banked = b
    s.flo = lo
    s.fhi = hi
    # The table is probed next unless the quick bounds settle the node for
    # the test under way (they do at a quarter of the boundaries; then no
    # key is needed): start loading its bucket now, so that the load
    # overlaps the way back to the core (measured: -2 to -4% CPU).
    if settled(p, s.banked, s.flo, s.fhi):
        return
    boundary_key(p, s)
    s.keyed = 1
    if p.tt != NULL:
        dd_prefetch(tt_bucket(p.tt, s.key0, s.key1))
