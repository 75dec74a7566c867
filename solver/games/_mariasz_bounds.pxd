# Quick bounds on a Mariasz position's future value at a trick boundary.
#
# What is left to win: the points in the hands and the stock, the last
# trick's 10 and the marriages a side can still announce (both cards live,
# neither held by another side).  Two sure things narrow it:
# - a trump above every trump another side holds or the stock hides wins
#   whenever it is played (it is led and unbeatable, or it follows and beats
#   everything), so its points are its side's;
# - the leader can announce a marriage he holds by leading it now;
# - the leader can cash his sure winners (cash_run), taking his opponents'
#   cards that the follow rules force onto them.  Three players, points: it
#   raises MAX's lo when he leads and lowers hi when one of the other two does
#   (a cash of every card left settles the rest of the deal).  Two players in
#   phase 2, both objectives: cash_bounds, through the endgame search's
#   eg_bounds, which the core also tries at the phase-2 entries in place of
#   future_bounds (_mariasz.pyx z_node_info).
# Points: MAX's future margin lies between MAX getting only his sure cards
# and the other side getting only theirs.  Race: a side that cannot reach
# 131 with everything it could still win never claims; one whose sure points
# reach it claims by the deal's end unless another side claims first.
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_popcount64, dd_msb64, dd_ctz64
from ddcards.games._mariasz_state cimport (ZPos, ZState, bit, lane, above, all_hands, married_queens,
                                          queens_touched, marriages_points, best_marriage_points,
                                          MZ_LAST_TRICK, OBJ_POINTS_C)
from ddcards.games._mariasz_rules cimport beats


ctypedef struct PointMasks:
    uint64_t m11     # A, pamfil
    uint64_t m10     # T
    uint64_t m4      # K
    uint64_t m3      # plain Q
    uint64_t m2      # J
    uint64_t bit8    # the cards whose points have bit 3 set (11 = 8+2+1, 10 = 8+2)
    uint64_t bit4    # ... bit 2 (4)
    uint64_t bit2    # ... bit 1 (11, 10, 3 = 2+1, 2)
    uint64_t bit1    # ... bit 0 (11, 3)


cdef inline void point_planes(PointMasks* pm) noexcept nogil:
    """Set the bit planes of the points from the masks by value."""
    pm.bit8 = pm.m11 | pm.m10
    pm.bit4 = pm.m4
    pm.bit2 = pm.m11 | pm.m10 | pm.m3 | pm.m2
    pm.bit1 = pm.m11 | pm.m3


cdef inline int mask_points(PointMasks* pm, uint64_t m) noexcept nogil:
    """The card points of m, plane by plane of their binary digits: four popcounts, not five."""
    return ((dd_popcount64(m & pm.bit8) << 3) + (dd_popcount64(m & pm.bit4) << 2)
            + (dd_popcount64(m & pm.bit2) << 1) + dd_popcount64(m & pm.bit1))


cdef inline uint64_t top_trumps(ZPos* p, uint64_t mine, uint64_t theirs) noexcept nogil:
    """My trumps above every trump in `theirs`: each wins the trick it is played to."""
    cdef uint64_t mt = mine & p.trumps, tt = theirs & p.trumps
    if mt == 0 or tt == 0:
        return mt
    return mt & above(dd_msb64(tt))


cdef inline uint64_t cheapest(uint64_t m, int n) noexcept nogil:
    """The n lowest cards of m, all of one suit: its cheapest (in either order, plain or trumps,
    a card scores at least what a lower one does)."""
    cdef uint64_t low = 0
    while n > 0 and m:
        low |= m & (~m + 1)
        m &= m - 1
        n -= 1
    return low


cdef inline int cheapest_points(PointMasks* pm, uint64_t m, int n) noexcept nogil:
    """The points of the n cheapest cards of m, of any suits."""
    cdef uint64_t level[6]
    cdef int worth[6]
    cdef int i, k, total = 0
    level[0] = m & ~(pm.m11 | pm.m10 | pm.m4 | pm.m3 | pm.m2)
    level[1] = m & pm.m2
    level[2] = m & pm.m3
    level[3] = m & pm.m4
    level[4] = m & pm.m10
    level[5] = m & pm.m11
    worth[0] = 0
    worth[1] = 2
    worth[2] = 3
    worth[3] = 4
    worth[4] = 10
    worth[5] = 11
    for i in range(6):
        if n <= 0:
            break
        k = dd_popcount64(level[i])
        if k > n:
            k = n
        total += k * worth[i]
        n -= k
    return total


cdef inline int cash_run(ZPos* p, PointMasks* pm, uint64_t* hands, int nseats, int leader, int counted,
                         uint64_t* won) noexcept nogil:
    """The points the leader's side surely takes if he cashes his sure winners now; won[0]: the
    cards of his that win (his whole hand when the cash takes every trick left).

    His trumps above every other trump win one by one, each other seat following with a trump
    while he has one (his cheapest, at least: phase 2 obliges to follow suit, else to trump, and
    must_beat only adds to that).  Once no one else holds a trump, his cards above every other
    live card of a plain suit win too, the others following with that suit's cheapest cards.
    A seat short of the cash's suits still plays a card to each of its tricks: the cheapest
    of the rest of his hand (whatever he throws, the cash takes at least those points).
    `counted`: a bit per seat whose cards forced onto the cash count (the leader's opponents;
    a partner's go to the leader's side at best)."""
    cdef uint64_t L = hands[leader], others = 0, T, W, os, w, h
    cdef uint64_t forced[4]       # by seat (at most four)
    cdef int seat, k, su, n, tricks, extra = 0, allt = 1
    forced[0] = forced[1] = forced[2] = forced[3] = 0
    for seat in range(nseats):
        if seat != leader:
            others |= hands[seat]
    T = top_trumps(p, L, others)
    k = dd_popcount64(T)
    for seat in range(nseats):
        if seat == leader:
            continue
        h = hands[seat] & p.trumps
        if (counted >> seat) & 1:
            forced[seat] = cheapest(h, k)
        if dd_popcount64(h) > k:
            allt = 0
    W = T
    if allt:
        for su in range(4):
            if su == p.trump:
                continue
            w = L & lane(su)
            if w == 0:
                continue
            os = others & lane(su)
            if os:
                w &= above(dd_msb64(os))
            if w == 0:
                continue
            W |= w
            n = dd_popcount64(w)
            for seat in range(nseats):
                if (counted >> seat) & 1:
                    forced[seat] |= cheapest(hands[seat] & lane(su), n)
    won[0] = W
    # the cards the cash takes, each counted once: the leader's winners, each counted seat's
    # forced cards, and for his tricks beyond them his cheapest other cards
    tricks = dd_popcount64(W)
    T = W
    for seat in range(nseats):
        if (counted >> seat) & 1:
            T |= forced[seat]
            extra += cheapest_points(pm, hands[seat] & ~forced[seat], tricks - dd_popcount64(forced[seat]))
    return mask_points(pm, T) + extra


cdef inline int leader_run(ZPos* p, PointMasks* pm, ZState* s, int* all_win) noexcept nogil:
    """Three players: the points the leader's team (MAX, or the two others) surely takes if he
    cashes his sure winners now (cash_run), and all_win[0] = 1 when that takes every trick left.
    The partner's cards (with three players, the other opponent's) count nothing."""
    cdef int seat, counted = 0, team = p.side_of[s.leader] != p.maxside
    cdef uint64_t won
    cdef int got
    for seat in range(p.nseats):
        if seat != s.leader and (p.side_of[seat] != p.maxside) != team:
            counted |= 1 << seat
    got = cash_run(p, pm, s.hand, p.nseats, s.leader, counted, &won)
    all_win[0] = won == s.hand[s.leader]
    return got


cdef inline void cash_bounds(ZPos* p, PointMasks* pm, uint64_t hl, uint64_t hf, int leader, int need_l,
                             int need_f, int rest, int ml, int mf, int* lo, int* hi) noexcept nogil:
    """Two players, phase 2, a trick boundary: narrow lo <= future <= hi (seat 0's view) by the
    leader cashing his sure winners (cash_run).  hl, hf: the leader's and the follower's hands;
    need_l, need_f: the points each still needs (race); rest: the points left with the last
    trick; ml, mf: the marriages each holds.

    The follower wins no trick of the cash, so he scores nothing in it (not even a marriage
    played second).  A cash of the whole hand settles the rest: the leader takes everything,
    announcing every marriage he holds on the way (the first of its cards he leads).  Else he
    gets at least the cash and the marriages whose cards he leads in it; the follower at most
    everything after it and his marriages."""
    cdef uint64_t hands[2]
    cdef uint64_t won
    cdef int run, v, mw, sign = 1 if leader == 0 else -1
    hands[0] = hl
    hands[1] = hf
    run = cash_run(p, pm, hands, 2, 0, 2, &won)
    if won == hl:
        if p.objective == OBJ_POINTS_C:
            v = rest + ml
        else:
            v = 1 if rest + ml >= need_l else 0
        lo[0] = sign * v
        hi[0] = lo[0]
        return
    if run == 0:
        return
    mw = marriages_points(p, married_queens(p, hl) & queens_touched(p, won))
    if p.objective == OBJ_POINTS_C:
        v = run - (rest - run) - mf + mw
    elif run + mw >= need_l:
        lo[0] = sign                # he claims in the cash, before the follower wins a trick
        hi[0] = sign
        return
    elif rest - run + mf < need_f:
        v = 0                       # after the cash the follower cannot reach his target
    else:
        return
    if leader == 0:
        if v > lo[0]:
            lo[0] = v
    elif -v < hi[0]:
        hi[0] = -v


cdef inline int marriage_potential(ZPos* p, ZState* s, int side) noexcept nogil:
    """Marriage points `side` could still announce: a seat of it holds or may draw both cards."""
    cdef uint64_t q = 0
    cdef int seat
    for seat in range(p.nseats):
        if p.side_of[seat] == side:
            q |= married_queens(p, s.hand[seat] | s.stockmask)
    return marriages_points(p, q)


cdef inline int lead_marriage(ZPos* p, ZState* s) noexcept nogil:
    """The best marriage the leader can announce by leading now (0 if none)."""
    return best_marriage_points(p, married_queens(p, s.hand[s.leader]))


cdef inline int last_trick_future(ZPos* p, ZState* s) noexcept nogil:
    """One card left in every hand, stock empty: the play is forced (exact future)."""
    cdef int i, seat, c, best, bi = 0, w, side, tp
    best = dd_ctz64(s.hand[s.leader])
    tp = p.pts_of[best] + MZ_LAST_TRICK
    for i in range(1, p.nseats):
        seat = (s.leader + i) % p.nseats
        c = dd_ctz64(s.hand[seat])
        tp += p.pts_of[c]
        if beats(p, c, best):
            best = c
            bi = i
    w = (s.leader + bi) % p.nseats
    side = p.side_of[w]
    if p.objective == OBJ_POINTS_C:
        if p.nsides == 3:
            return tp if side == p.maxside else 0
        return tp if side == p.maxside else -tp
    if s.pts[side] + tp >= p.need[side]:
        return 1 if side == p.maxside else -1
    return 0


cdef inline void future_bounds(ZPos* p, PointMasks* pm, ZState* s, int* lo, int* hi) noexcept nogil:
    """lo <= future value <= hi at a trick boundary (see the file's head)."""
    cdef uint64_t hands = all_hands(s), others
    cdef uint64_t held[4]         # by side (at most four seats, so four sides)
    cdef int sure[4]
    cdef int beyond[4]
    cdef int mpot[4]
    cdef int rest, side, seat, mx = p.maxside, lead_m, lead_side
    cdef int can_max, others_can, max_sure, other_sure, run, all_win
    if s.drawn >= p.nstock and dd_popcount64(hands) == p.nseats:
        lo[0] = last_trick_future(p, s)
        hi[0] = lo[0]
        return
    rest = mask_points(pm, hands | s.stockmask) + MZ_LAST_TRICK
    held[0] = held[1] = held[2] = held[3] = 0
    for seat in range(p.nseats):
        held[p.side_of[seat]] |= s.hand[seat]
    for side in range(p.nsides):
        others = (hands & ~held[side]) | s.stockmask
        sure[side] = mask_points(pm, top_trumps(p, held[side], others))
        beyond[side] = mask_points(pm, top_trumps(p, hands & ~held[side], held[side] | s.stockmask))
        mpot[side] = marriage_potential(p, s, side)
    lead_m = lead_marriage(p, s)
    lead_side = p.side_of[s.leader]
    if p.objective == OBJ_POINTS_C:
        if p.nsides == 2:
            hi[0] = rest - 2 * sure[1 - mx] + mpot[mx]
            lo[0] = -(rest - 2 * sure[mx] + mpot[1 - mx])
            if lead_side == mx:
                lo[0] += lead_m
            else:
                hi[0] -= lead_m
        else:
            lo[0] = sure[mx] + (lead_m if lead_side == mx else 0)
            hi[0] = rest - beyond[mx] + mpot[mx]
            # the leader cashing his sure winners: MAX's points, or the others' that MAX never gets
            run = leader_run(p, pm, s, &all_win)
            if lead_side == mx:
                if all_win:
                    lo[0] = rest
                elif run > lo[0]:
                    lo[0] = run
            elif all_win:
                hi[0] = 0                 # MAX never wins a trick again (nor scores a marriage)
            else:
                # the leader's top trumps are among the others' sure ones (beyond) already
                hi[0] -= run - mask_points(pm, top_trumps(p, s.hand[s.leader], hands & ~s.hand[s.leader]))
        return
    # race: who can still reach 131, who surely will
    if lead_m and s.pts[lead_side] + lead_m >= p.need[lead_side]:
        lo[0] = 1 if lead_side == mx else -1      # the leader claims now with a marriage
        hi[0] = lo[0]
        return
    can_max = s.pts[mx] + rest - beyond[mx] + mpot[mx] >= p.need[mx]
    max_sure = s.pts[mx] + sure[mx] >= p.need[mx]
    others_can = 0
    other_sure = 0
    for side in range(p.nsides):
        if side != mx:
            if s.pts[side] + rest - beyond[side] + mpot[side] >= p.need[side]:
                others_can = 1
            if s.pts[side] + sure[side] >= p.need[side]:
                other_sure = 1
    lo[0] = -1 if others_can else 0
    hi[0] = 1 if can_max else 0
    if max_sure and not others_can:
        lo[0] = 1
    if other_sure and not can_max:
        hi[0] = -1
