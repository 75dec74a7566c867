# The Klaverjas endgame leaf (module doc of _klaverjas.pyx, "The endgame
# leaf"): a trick boundary two or three tricks from the end that neither the
# quick bounds nor the table settles is solved in one go on the hand masks,
# through the core's GameOps.leaf hook (k_leaf).  two_exact values all 16
# combinations of the next trick without branches and reduces them seat by
# seat; two_left puts quick bounds and a cache in the search table's side
# area (two_slot) in front of it; three_left is a fail-soft alpha-beta over
# the next trick's lines (next_trick), each line valued by two_left.  No
# make/unmake, move generation or ordering.
#
# Apart because it is a search of its own, with its own cache: the core sees
# only the hook, and the rest of the game none of it.
from libc.stdint cimport int16_t, uint32_t, uint64_t
from libc.string cimport memset

from ddcards._core.bits cimport dd_prefetch, dd_pext32, dd_msb32, dd_ctz32
from ddcards.games._klaverjas_state cimport (KPos, KState, TwoEntry, suit_mask, team_of, M_VALUE, M_MARGIN,
                                            M_ASNAT, PIT, LAST_TRICK, TWO_CACHE_BITS)
from ddcards.games._klaverjas_rules cimport beats, trick_roem, follow_mask

cdef extern from *:
    """
    static uint64_t KJ_TWO_KEY_TAG;
    static int16_t KJ_SELV[4][16];
    """
    # Marks two_slot's keys as Klaverjas's (the side area is the Searcher's, for any game).
    uint64_t TWO_KEY_TAG "KJ_TWO_KEY_TAG"
    # SELV[k][i]: all ones if combination i of two_exact plays seat k's higher card in trick 7.
    int16_t SELV "KJ_SELV"[4][16]


cdef inline int improve(int v, int* best, int* alpha, int beta) noexcept nogil:
    """One fail-soft negamax step: take v into best (raising alpha); 1 on a cutoff."""
    if v > best[0]:
        best[0] = v
        if v >= beta:
            return 1
        if v > alpha[0]:
            alpha[0] = v
    return 0


cdef inline int next_trick(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Negamax over the next trick's lines from a boundary three tricks from
    the end, fail-soft in (alpha, beta), from the leader's team's view (seats
    alternate teams): each line is valued by two_left.  Cards are tried high
    to low (measured best).
    """
    cdef uint32_t h[4]
    cdef uint32_t m0, m1, m2, m3, b0, b1, b2
    cdef int L = s.leader, t0, sg, led
    cdef int c0, c1, c2, c3, w1, w2, w3, v
    cdef int a0, be0, a1, be1, a2, be2, a3, be3, best0, best1, best2, best3
    cdef KState ns
    h[0] = s.hand[L]                # one by one: a vector gather here is slower
    h[1] = s.hand[(L + 1) & 3]
    h[2] = s.hand[(L + 2) & 3]
    h[3] = s.hand[(L + 3) & 3]
    t0 = team_of(p, L)
    sg = 1 if t0 == 0 else -1
    if sg > 0:
        a0 = alpha
        be0 = beta
    else:
        a0 = -beta
        be0 = -alpha
    best0 = -30000
    m0 = h[0]
    while m0:
        c0 = dd_msb32(m0)
        m0 &= ~((<uint32_t> 1) << c0)
        led = c0 >> 3
        b0 = (<uint32_t> 1) << c0
        a1 = -be0
        be1 = -a0
        best1 = -30000
        m1 = follow_mask(p, h[1], led, b0, 0)
        while m1:
            c1 = dd_msb32(m1)
            m1 &= ~((<uint32_t> 1) << c1)
            w1 = 1 if beats(p, c1, c0) else 0
            b1 = b0 | ((<uint32_t> 1) << c1)
            a2 = -be1
            be2 = -a1
            best2 = -30000
            m2 = follow_mask(p, h[2], led, b1, w1 == 0)
            while m2:
                c2 = dd_msb32(m2)
                m2 &= ~((<uint32_t> 1) << c2)
                w2 = 2 if beats(p, c2, c1 if w1 else c0) else w1
                b2 = b1 | ((<uint32_t> 1) << c2)
                a3 = -be2
                be3 = -a2
                best3 = -30000
                m3 = follow_mask(p, h[3], led, b2, w2 == 1)
                while m3:
                    c3 = dd_msb32(m3)
                    m3 &= ~((<uint32_t> 1) << c3)
                    w3 = 3 if beats(p, c3, c2 if w2 == 2 else (c1 if w2 == 1 else c0)) else w2
                    # Seat 3 is the other team's: its view is -sg * measure.
                    after_trick(p, s, &ns, c0, c1, c2, c3, w3)
                    if sg > 0:
                        v = -two_left(p, &ns, -be3, -a3)
                    else:
                        v = two_left(p, &ns, a3, be3)
                    if improve(v, &best3, &a3, be3):
                        break
                if improve(-best3, &best2, &a2, be2):
                    break
            if improve(-best2, &best1, &a1, be1):
                break
        if improve(-best1, &best0, &a0, be0):
            break
    return sg * best0


cdef inline int legal2(KPos* p, uint32_t h, int lo, int hi, int led, uint32_t trickmask,
                       int partner_wins) noexcept nogil:
    """follow_mask for a two-card hand as 2 bits (bit 0: lo legal, bit 1: hi)."""
    cdef uint32_t inled = h & suit_mask(led), m
    if inled and inled != h:
        return 1 if (inled >> lo) & 1 else 2          # exactly one card of the led suit
    m = follow_mask(p, h, led, trickmask, partner_wins)
    return <int> (((m >> lo) & 1) | (((m >> hi) & 1) << 1))


cdef inline int pick_max(int a, int b, int leg) noexcept nogil:
    """A seat's choice between its two cards' results a (low card) and b (high
    card), its team maximising: leg bit 0/1 = that card is legal.  An illegal
    card takes the other's result, so it never decides."""
    a = a if leg & 1 else b
    b = b if leg & 2 else a
    return a if a > b else b


cdef inline int pick_min(int a, int b, int leg) noexcept nogil:
    """pick_max for a seat whose team minimises."""
    a = a if leg & 1 else b
    b = b if leg & 2 else a
    return a if a < b else b


cdef inline int legal_pre(KPos* p, uint32_t h, int lo, int led) noexcept nogil:
    """The legal cards (2 bits: low, high) of a two-card hand when they follow
    from the led suit alone, else -1 (they depend on the trick: follow_mask)."""
    cdef uint32_t inled = h & suit_mask(led)
    if inled:
        if inled != h:
            return 1 if (inled >> lo) & 1 else 2      # one card of the led suit
        if led != p.trump:
            return 3
        return -1                                     # two trumps: overtrumping
    if led == p.trump or (h & p.trumpmask) == 0:
        return 3
    return -1                                         # void with trumps: trick-dependent


cdef inline int reduce_legal(KPos* p, int16_t* val, uint32_t h1, uint32_t h2, uint32_t h3, int c00, int c01,
                             int c10, int c11, int c20, int c21, int c30, int c31,
                             int pre1a, int pre1b, int pre2a, int pre2b, int pre3a, int pre3b) noexcept nogil:
    """two_exact's reduction (leader's team's view) when some seat's legal
    cards depend on the trick so far: legal2 for every prefix of such a
    seat (once per prefix), legal_pre's answer (preXa/preXb: seat 0 plays
    its lower/higher card) for the others."""
    cdef int b, j, x, c, cj, cx, led, w1, w2, best0 = -30000, best1, best2, v, l1, l2, l3
    cdef uint32_t b0, b1, b2
    for b in range(2):
        c = c01 if b else c00
        led = c >> 3
        b0 = (<uint32_t> 1) << c
        best1 = 30000
        l1 = pre1b if b else pre1a
        if l1 < 0:
            l1 = legal2(p, h1, c10, c11, led, b0, 0)
        for j in range(2):
            cj = c11 if j else c10
            if not (l1 >> j) & 1:
                continue
            w1 = 1 if beats(p, cj, c) else 0
            b1 = b0 | ((<uint32_t> 1) << cj)
            best2 = -30000
            l2 = pre2b if b else pre2a
            if l2 < 0:
                l2 = legal2(p, h2, c20, c21, led, b1, w1 == 0)
            for x in range(2):
                cx = c21 if x else c20
                if not (l2 >> x) & 1:
                    continue
                w2 = 2 if beats(p, cx, cj if w1 else c) else w1
                b2 = b1 | ((<uint32_t> 1) << cx)
                l3 = pre3b if b else pre3a
                if l3 < 0:
                    l3 = legal2(p, h3, c30, c31, led, b2, w2 == 1)
                v = pick_min(val[b | (j << 1) | (x << 2)], val[b | (j << 1) | (x << 2) | 8], l3)
                best2 = v if v > best2 else best2
            best1 = best2 if best2 < best1 else best1
        best0 = best1 if best1 > best0 else best0
    return best0


ctypedef struct SeatPair:
    # One seat's two cards in two_exact, card 0 the lower, card 1 the higher
    int c0, c1
    int16_t su0, su1               # suits
    int16_t kb0, kb1               # trick-winning keys (power, +32 trump) * 4 + seat
    int16_t dp, dk, ds             # card 0 minus card 1 (dp: card 1 minus card 0)
    uint32_t n0, dn                # card 0's natural bit; both cards' bits xor-ed


cdef inline void seat_pair(KPos* p, uint32_t h, int seat, SeatPair* q) noexcept nogil:
    """Describe a hand of two cards for two_exact (a local struct: the
    compiler keeps its fields in registers)."""
    q.c0 = dd_ctz32(h)
    q.c1 = dd_msb32(h)
    q.su0 = q.c0 >> 3
    q.su1 = q.c1 >> 3
    q.kb0 = ((q.c0 & 7) + (32 if q.su0 == p.trump else 0)) * 4 + seat
    q.kb1 = ((q.c1 & 7) + (32 if q.su1 == p.trump else 0)) * 4 + seat
    q.dp = p.points[q.c1] - p.points[q.c0]
    q.dk = q.kb0 - q.kb1
    q.ds = q.su0 - q.su1
    q.n0 = p.natbit[q.c0]
    q.dn = q.n0 ^ p.natbit[q.c1]


cdef inline void led_key_terms(SeatPair* q, int led0, int led1, int16_t* A, int16_t* B,
                               int16_t* C, int16_t* D) noexcept nogil:
    """A follower's trick-7 key as A + (b0 ? B) + (bk ? C) + (b0 and bk ? D):
    b0 = the leader plays his higher card (suit led1, else led0), bk = the
    follower plays his; +64 for a card of the led suit."""
    A[0] = q.kb0 + (64 if q.su0 == led0 else 0)
    B[0] = q.kb0 + (64 if q.su0 == led1 else 0) - A[0]
    C[0] = q.kb1 + (64 if q.su1 == led0 else 0) - A[0]
    D[0] = q.kb1 + (64 if q.su1 == led1 else 0) - A[0] - B[0] - C[0]


cdef inline int two_exact(KPos* p, KState* s, int roem) noexcept nogil:
    """The exact minimax of the final measure with two tricks left: all 16
    combinations of the next trick (bit k of the index: seat k from the leader
    plays its higher card; the last trick gets the other cards), valued
    lane-wise without branches (the loops vectorize, int16 lanes), then
    reduced over seats 3, 2, 1, 0, an illegal card taking the other card's
    result.  Seat k's trick-winning key is (power + 32 if trump + 16 if of
    the led suit) * 4 + k: the largest wins, its low bits name the seat.
    Per-seat inputs are scalars, not arrays: arrays filled by scalar stores
    and read as vectors stall on store forwarding.  (Measured against the
    alpha-beta over the lines it replaced, ~3.2 lines a call: full deals -4%
    CPU sum, -7% median with PGO; without PGO about even.)"""
    cdef uint32_t h0, h1, h2, h3, natall, nat7, nat8, q7, q8
    cdef int16_t val[16]
    cdef int16_t R7[16]
    cdef int16_t R8[16]
    cdef int L = s.leader, t0, i, j, x, sh, tr = p.trump
    # int16 lanes: the 16 combinations fill one vector
    cdef int16_t P0 = s.pts[0], O0 = s.pts[1], T0 = s.tricks[0], T1 = s.tricks[1]
    cdef int16_t crem10 = s.crem + LAST_TRICK, madeall, isval, t16, neg, y
    cdef int16_t m0, m1, k0, k1, k2, k3, w7, w8, s0, s1, s2, s3, ld8, tw7, tw8, e0, e1, e2, e3
    cdef int16_t pts7, tp7, tp8, P, O, tP, tO, vm, vn, made, r7, r8, ptsbase, keyb0
    cdef int mode = p.mode
    cdef int16_t la, lb, ma, mb
    cdef int sg, pre1a, pre1b, pre2a, pre2b, pre3a, pre3b
    cdef SeatPair q0, q1, q2, q3
    t0 = team_of(p, L)
    sg = 1 - 2 * t0
    neg = -t0
    t16 = t0
    h0 = s.hand[L]
    h1 = s.hand[(L + 1) & 3]
    h2 = s.hand[(L + 2) & 3]
    h3 = s.hand[(L + 3) & 3]
    seat_pair(p, h0, 0, &q0)
    seat_pair(p, h1, 1, &q1)
    seat_pair(p, h2, 2, &q2)
    seat_pair(p, h3, 3, &q3)
    # Plain names for the loops below (scalars: see the docstring).
    cdef int c00 = q0.c0, c01 = q0.c1, c10 = q1.c0, c11 = q1.c1
    cdef int c20 = q2.c0, c21 = q2.c1, c30 = q3.c0, c31 = q3.c1
    cdef int16_t su00 = q0.su0, su01 = q0.su1, su11 = q1.su1, su21 = q2.su1, su31 = q3.su1
    cdef int16_t kb00 = q0.kb0, kb01 = q0.kb1, kb11 = q1.kb1, kb21 = q2.kb1, kb31 = q3.kb1
    cdef int16_t dp0 = q0.dp, dp1 = q1.dp, dp2 = q2.dp, dp3 = q3.dp
    cdef int16_t dk0 = q0.dk, dk1 = q1.dk, dk2 = q2.dk, dk3 = q3.dk
    cdef int16_t ds0 = q0.ds, ds1 = q1.ds, ds2 = q2.ds, ds3 = q3.ds
    cdef uint32_t n00 = q0.n0, n10 = q1.n0, n20 = q2.n0, n30 = q3.n0
    cdef uint32_t dn0 = q0.dn, dn1 = q1.dn, dn2 = q2.dn, dn3 = q3.dn
    cdef int16_t A1, B1, C1, D1, A2, B2, C2, D2, A3, B3, C3, D3
    ptsbase = p.points[c00] + p.points[c10] + p.points[c20] + p.points[c30]
    natall = n00 | n10 | n20 | n30 | dn0 ^ n00 | dn1 ^ n10 | dn2 ^ n20 | dn3 ^ n30
    sh = 8 * tr + 5
    # Trick 7 key of seat k by (b0, bk), + 64 in the led suit (seat 0's card's):
    # A + (b0 ? B) + (bk ? C) + (b0 and bk ? D).
    led_key_terms(&q1, su00, su01, &A1, &B1, &C1, &D1)
    led_key_terms(&q2, su00, su01, &A2, &B2, &C2, &D2)
    led_key_terms(&q3, su00, su01, &A3, &B3, &C3, &D3)
    keyb0 = kb01 - kb00
    madeall = -1 if mode == M_MARGIN else 0
    isval = -1 if mode == M_VALUE else 0
    if roem:
        for i in range(16):
            e0 = SELV[0][i]
            e1 = SELV[1][i]
            e2 = SELV[2][i]
            e3 = SELV[3][i]
            # roem of each trick (4 cards: at most one run, a quad excludes runs)
            nat7 = n00 ^ (<uint32_t> e0 & dn0) ^ n10 ^ (<uint32_t> e1 & dn1) ^ \
                n20 ^ (<uint32_t> e2 & dn2) ^ n30 ^ (<uint32_t> e3 & dn3)
            nat8 = natall ^ nat7
            q7 = nat7 & (nat7 >> 1) & (nat7 >> 2) & 0x3F3F3F3F
            q8 = nat8 & (nat8 >> 1) & (nat8 >> 2) & 0x3F3F3F3F
            r7 = (-(q7 != 0) & 20) + (-((q7 & (nat7 >> 3) & 0x1F1F1F1F) != 0) & 30)
            r8 = (-(q8 != 0) & 20) + (-((q8 & (nat8 >> 3) & 0x1F1F1F1F) != 0) & 30)
            q7 = nat7 & (nat7 >> 8) & (nat7 >> 16) & (nat7 >> 24) & 0xF8
            q8 = nat8 & (nat8 >> 8) & (nat8 >> 16) & (nat8 >> 24) & 0xF8
            r7 += (-(q7 != 0) & 100) + (-(q7 == 0x10) & 100) + (-(((nat7 >> sh) & 3) == 3) & 20)
            r8 += (-(q8 != 0) & 100) + (-(q8 == 0x10) & 100) + (-(((nat8 >> sh) & 3) == 3) & 20)
            R7[i] = r7
            R8[i] = r8
    else:
        memset(R7, 0, sizeof(R7))
        memset(R8, 0, sizeof(R8))
    for i in range(16):
        e0 = SELV[0][i]
        e1 = SELV[1][i]
        e2 = SELV[2][i]
        e3 = SELV[3][i]
        k0 = kb00 + 64 + (e0 & keyb0)                   # seat 0 leads its suit
        k1 = A1 + (e0 & B1) + (e1 & C1) + (e0 & e1 & D1)
        k2 = A2 + (e0 & B2) + (e2 & C2) + (e0 & e2 & D2)
        k3 = A3 + (e0 & B3) + (e3 & C3) + (e0 & e3 & D3)
        m0 = k0 if k0 > k1 else k1
        m1 = k2 if k2 > k3 else k3
        w7 = (m0 if m0 > m1 else m1) & 3
        # trick 8: the other cards, led by w7
        s0 = su01 + (e0 & ds0)
        s1 = su11 + (e1 & ds1)
        s2 = su21 + (e2 & ds2)
        s3 = su31 + (e3 & ds3)
        ld8 = (-(w7 == 0) & s0) | (-(w7 == 1) & s1) | (-(w7 == 2) & s2) | (-(w7 == 3) & s3)
        k0 = kb01 + (e0 & dk0) + (-(s0 == ld8) & 64)
        k1 = kb11 + (e1 & dk1) + (-(s1 == ld8) & 64)
        k2 = kb21 + (e2 & dk2) + (-(s2 == ld8) & 64)
        k3 = kb31 + (e3 & dk3) + (-(s3 == ld8) & 64)
        m0 = k0 if k0 > k1 else k1
        m1 = k2 if k2 > k3 else k3
        w8 = (m0 if m0 > m1 else m1) & 3
        pts7 = ptsbase + (e0 & dp0) + (e1 & dp1) + (e2 & dp2) + (e3 & dp3)
        tp7 = pts7 + R7[i]
        tp8 = crem10 - pts7 + R8[i]
        tw7 = (w7 ^ t16) & 1          # 1: the other team took the trick
        tw8 = (w8 ^ t16) & 1
        P = P0 + (~(-tw7) & tp7) + (~(-tw8) & tp8)
        O = O0 + (-tw7 & tp7) + (-tw8 & tp8)
        tP = T0 + 2 - tw7 - tw8
        tO = T1 + tw7 + tw8
        vm = P - O + (-(tO == 0) & PIT)
        vn = -(P + O) - (-(tP == 0) & PIT)
        made = madeall | (-(P > O) & isval)
        y = (made & vm) | (~made & vn)
        val[i] = (y ^ neg) - neg                  # sg * y
    # Legal cards by prefix (follow_mask's rules); most follow from the led suit.
    pre1a = legal_pre(p, h1, c10, su00)
    pre1b = legal_pre(p, h1, c10, su01)
    pre2a = legal_pre(p, h2, c20, su00)
    pre2b = legal_pre(p, h2, c20, su01)
    pre3a = legal_pre(p, h3, c30, su00)
    pre3b = legal_pre(p, h3, c30, su01)
    if (pre1a | pre1b | pre2a | pre2b | pre3a | pre3b) < 0:
        return sg * reduce_legal(p, val, h1, h2, h3, c00, c01, c10, c11, c20, c21, c30, c31,
                                 pre1a, pre1b, pre2a, pre2b, pre3a, pre3b)
    # Leader's team's view (sg): seats 0, 2 maximise, seats 1, 3 minimise.
    # Seat 3 (R7[j], j = seats 0-2's cards), then seat 2 (R8[j]); which cards
    # are legal depends on seat 0's card (bit 0 of j) alone here.
    la = -(pre3a & 1)
    lb = -((pre3a >> 1) & 1)
    ma = -(pre3b & 1)
    mb = -((pre3b >> 1) & 1)
    for j in range(8):
        e0 = SELV[0][j]
        k0 = (e0 & ma) | (~e0 & la)
        k1 = (e0 & mb) | (~e0 & lb)
        m0 = (k0 & val[j]) | (~k0 & val[j + 8])
        m1 = (k1 & val[j + 8]) | (~k1 & val[j])
        R7[j] = m0 if m0 < m1 else m1
    la = -(pre2a & 1)
    lb = -((pre2a >> 1) & 1)
    ma = -(pre2b & 1)
    mb = -((pre2b >> 1) & 1)
    for j in range(4):
        e0 = SELV[0][j]
        k0 = (e0 & ma) | (~e0 & la)
        k1 = (e0 & mb) | (~e0 & lb)
        m0 = (k0 & R7[j]) | (~k0 & R7[j + 4])
        m1 = (k1 & R7[j + 4]) | (~k1 & R7[j])
        R8[j] = m0 if m0 > m1 else m1
    x = pick_max(pick_min(R8[0], R8[2], pre1a), pick_min(R8[1], R8[3], pre1b), 3)
    return sg * x


cdef inline int two_left(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Minimax of the final measure of the mode (the value, D' or L)
    from a trick boundary with two tricks left, fail-soft in (alpha, beta).

    After the quick bounds, the exact minimax (two_exact), through the
    cache (two_slot): a fail-soft result for any window, and the table
    stores it as an exact bound.
    """
    cdef uint32_t nat = s.bnat[0] | s.bnat[1] | s.bnat[2] | s.bnat[3]
    cdef int roem, U, D, v, base = 0
    cdef uint64_t key = 0
    cdef uint32_t pts = 0
    cdef TwoEntry* e = NULL
    if p.two != NULL:
        # Start loading the cache's entry now: the quick bounds below
        # overlap the load.
        e = two_slot(p, s, &key, &pts, &base)
        dd_prefetch(e)
    # Many endgames can make no roem at all (no 3 of a suit in a row, no
    # four of a rank, no trump Q and K): then two_exact skips it.
    roem = (nat & (nat >> 1) & (nat >> 2) & 0x3F3F3F3F) != 0 or \
        (nat & (nat >> 8) & (nat >> 16) & (nat >> 24) & 0xF8) != 0 or \
        ((nat >> (8 * p.trump + 5)) & 3) == 3
    # Quick bounds first: the points still to come, U (the cards, the last
    # trick, at most 200 roem a trick), may go either way.
    U = s.crem + LAST_TRICK + (400 if roem else 0)
    D = s.pts[0] - s.pts[1]
    v = D + U + (PIT if s.tricks[1] == 0 else 0)          # >= D' >= value >= L
    if v <= alpha:
        return v
    if p.mode == M_MARGIN or (p.mode == M_VALUE and D - U > 0):
        v = D - U                                         # surely made (mode 0)
    else:
        v = -(s.pts[0] + s.pts[1] + U) - (PIT if s.tricks[0] == 0 else 0)
    if v >= beta:
        return v
    if e == NULL:
        return two_exact(p, s, roem)          # no search under way: no cache
    if e.key == key and e.pts == pts and e.gen == p.two_gen:
        return base + e.future
    v = two_exact(p, s, roem)
    e.key = key
    e.pts = pts
    e.future = <int16_t> (v - base)
    e.gen = p.two_gen
    return v


cdef inline TwoEntry* two_slot(KPos* p, KState* s, uint64_t* key, uint32_t* pts, int* base) noexcept nogil:
    """The cache entry for two_exact's result at s, and what it is keyed by.

    The same two-trick endgames come back often, from other lines of
    three_left and in later tests.  The margin is D + a future of the cards
    (and of who may take every trick), as if nat is -(P + O) + a future:
    those two are keyed without the points and the entry stores the future
    (the result less base); the value itself (not additive) keys P and O
    too.  The cache lives in the search table's side area (TTable.aux: one
    per Searcher, not per board, so that a board stays small), keyed with
    the deal's parameters and cleared with the table.  (Measured: ~60% of
    the calls hit.)"""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef uint64_t k = (<uint64_t> rem) | ((<uint64_t> dd_pext32(s.hand[1] | s.hand[3], rem)) << 32) | \
        ((<uint64_t> dd_pext32(s.hand[2] | s.hand[3], rem)) << 40) | ((<uint64_t> s.leader) << 48) | \
        ((<uint64_t> p.mode) << 50) | ((<uint64_t> p.trump) << 54) | ((<uint64_t> p.rotterdam) << 56) | \
        ((<uint64_t> p.playing) << 57) | TWO_KEY_TAG
    pts[0] = 0
    if p.mode == M_MARGIN:
        base[0] = s.pts[0] - s.pts[1]
        k |= (<uint64_t> (s.tricks[1] == 0)) << 52
    elif p.mode == M_ASNAT:
        base[0] = -(s.pts[0] + s.pts[1])
        k |= (<uint64_t> (s.tricks[0] == 0)) << 53
    else:
        base[0] = 0
        pts[0] = <uint32_t> (s.pts[0] * 1024 + s.pts[1])    # (not one 32-bit load: store forwarding)
        k |= ((<uint64_t> (s.tricks[1] == 0)) << 52) | ((<uint64_t> (s.tricks[0] == 0)) << 53)
    key[0] = k
    return p.two + (((k ^ (<uint64_t> pts[0] << 7)) * 0x9E3779B97F4A7C15ULL) >> (64 - TWO_CACHE_BITS))


cdef inline void after_trick(KPos* p, KState* s, KState* ns, int c0, int c1, int c2,
                             int c3, int w) noexcept nogil:
    """Fill ns (the fields two_left reads) with the boundary after the trick
    c0..c3 (by seat from s's leader, index w winning it) from s."""
    cdef int x, pts, team, r
    cdef uint32_t tn = p.natbit[c0] | p.natbit[c1] | p.natbit[c2] | p.natbit[c3]
    cdef uint32_t tm = ((<uint32_t> 1) << c0) | ((<uint32_t> 1) << c1) | ((<uint32_t> 1) << c2) | \
        ((<uint32_t> 1) << c3)
    pts = p.points[c0] + p.points[c1] + p.points[c2] + p.points[c3]
    r = trick_roem(p, tn)
    team = team_of(p, s.leader + w)
    for x in range(4):
        ns.hand[x] = s.hand[x] & ~tm
        ns.bnat[x] = s.bnat[x] & ~tn
    ns.pts[0] = s.pts[0]
    ns.pts[1] = s.pts[1]
    ns.tricks[0] = s.tricks[0]
    ns.tricks[1] = s.tricks[1]
    ns.pts[team] += pts + r
    ns.tricks[team] += 1
    ns.crem = s.crem - pts
    ns.leader = (s.leader + w) & 3


cdef inline int three_left(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Minimax of the final measure from a trick boundary with three tricks
    left, fail-soft in (alpha, beta): the next trick's lines, each line's
    remaining two tricks by two_left."""
    return next_trick(p, s, alpha, beta)
