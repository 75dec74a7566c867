# Mariasz move generation for the search: the legal moves, equivalent cards
# merged, best guess first.
#
# Two cards of one hand are interchangeable when they are of one suit, score
# the same points and no live card of anyone else (another hand, the stock,
# the trick) lies between them: every later comparison treats them alike.
# Never merged: the trump six while it can still be exchanged, and a K or Q
# whose partner the mover holds or may still draw (it can announce a marriage).
# In practice: runs of 6 7 8 9 and the pamfil with the trump ace.
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_msb64
from ddcards.games._mariasz_state cimport (ZPos, ZState, lane, bit, above, all_hands, in_phase1,
                                          married_queens, marriage_cards, marriage_with, MZ_EXCHANGE)
from ddcards.games._mariasz_rules cimport beats, trick_winner_index


cdef inline uint64_t others_live(ZPos* p, ZState* s) noexcept nogil:
    """Live cards the mover does not hold: other hands, the stock, the trick."""
    return (all_hands(s) & ~s.hand[s.turn]) | s.stockmask | s.trickmask


cdef inline uint64_t singletons(ZPos* p, ZState* s) noexcept nogil:
    """The mover's cards never merged with a neighbour (see the file's head)."""
    cdef uint64_t h = s.hand[s.turn], single = 0
    if p.six >= 0 and not s.exchanged and s.drawn < p.nstock:
        single |= bit(p.six)
    # both cards of each marriage he holds or may still draw
    single |= marriage_cards(p, married_queens(p, h | s.stockmask))
    return single & h


cdef inline int interchangeable(ZPos* p, uint64_t others, uint64_t single, int lo, int hi) noexcept nogil:
    """Cards lo < hi of one suit, both the mover's and legal: may one stand for the other?"""
    cdef uint64_t between = (bit(hi) - 1) & ~((bit(lo) << 1) - 1)
    return ((others & between) == 0 and p.pts_of[lo] == p.pts_of[hi]
            and not ((single >> lo) & 1) and not ((single >> hi) & 1))


ctypedef struct OrderCtx:
    uint64_t others        # live cards not in the mover's hand
    uint64_t opp_hands     # the hands of the other sides
    int side
    int win                # card winning the trick so far (-1: leading)
    int wside              # its side
    int trick_pts          # points in the trick so far
    int phase1
    int kiks_open          # Kiks, a player still to play after the mover (later_beats asked)
    int win_unsafe         # ... and win is the mover's side's, and an opponent still to play can take it


cdef inline int later_beats(ZPos* p, ZState* s, int side, int w) noexcept nogil:
    """A player still to play in this trick, of another side than `side`, holds a card that
    could take it from card w (a higher card of the led suit where w is of it, a trump where
    he has none of the led suit).  Asked in Kiks only (four players, two sides): with two
    players the follower is the last to play, and with three the order it gives saved no nodes
    (benchmarks/RESULTS.md, "Mariáš's replies ordered by sure tricks ...")."""
    cdef int k, seat, led = s.trick[0] >> 4
    cdef uint64_t h, inled
    for k in range(s.nt + 1, p.nseats):
        seat = (s.leader + k) % p.nseats
        if p.side_of[seat] == side:
            continue
        h = s.hand[seat]
        inled = h & lane(led)
        if inled:
            if (w >> 4) == led and (inled & above(w)):
                return 1
        elif (w >> 4) == p.trump:
            if h & p.trumps & above(w):
                return 1
        elif h & p.trumps:
            return 1
    return 0


cdef inline void order_context(ZPos* p, ZState* s, OrderCtx* o) noexcept nogil:
    cdef int wi, seat
    o.side = p.side_of[s.turn]
    o.others = others_live(p, s)
    o.opp_hands = 0
    for seat in range(p.nseats):
        if p.side_of[seat] != o.side:
            o.opp_hands |= s.hand[seat]
    o.phase1 = in_phase1(p, s)
    o.trick_pts = 0
    o.kiks_open = 0
    o.win_unsafe = 0
    if s.nt == 0:
        o.win = -1
        o.wside = -1
        return
    wi = trick_winner_index(p, s)
    o.win = s.trick[wi]
    o.wside = p.side_of[(s.leader + wi) % p.nseats]
    for wi in range(s.nt):
        o.trick_pts += p.pts_of[s.trick[wi]]
    if p.nseats == 4 and s.nt < 3:
        o.kiks_open = 1
        o.win_unsafe = o.wside == o.side and later_beats(p, s, o.side, o.win)


cdef inline int safe_lead(ZPos* p, ZState* s, OrderCtx* o, int c) noexcept nogil:
    """No opponent can beat c if it is led now."""
    cdef int suit = c >> 4, seat
    cdef uint64_t sm = lane(suit), opp = o.opp_hands
    if opp & sm & above(c):
        return 0
    if suit == p.trump:
        return 1
    if (opp & p.trumps) == 0:
        return 1
    if o.phase1:
        return 0
    # phase 2: an opponent holding the suit must follow; one void in it may trump
    for seat in range(p.nseats):
        if p.side_of[seat] != o.side and (s.hand[seat] & sm) == 0 and (s.hand[seat] & p.trumps):
            return 0
    return 1


cdef inline int order_score(ZPos* p, ZState* s, OrderCtx* o, int c) noexcept nogil:
    """Heuristic worth of playing c now; only the order matters."""
    cdef int pts, power, trump, cost
    if c == MZ_EXCHANGE:
        return 100000                 # a trump for a six: first
    pts = p.pts_of[c]
    power = c & 15
    trump = (c >> 4) == p.trump
    if o.win < 0:
        if marriage_with(p, s.hand[s.turn], c):
            return 50000 + p.marriage_of[c]
        if o.phase1:
            # Phase 1: lead low plain cards, keep the trumps to capture with, cash a plain
            # card the opponent cannot take (measured: -7% nodes on szlifowany deals)
            if safe_lead(p, s, o, c):
                return (6000 + pts) if trump else (9000 + 10 * pts)
            return 8000 - 30 * pts - 3 * power - (500 if trump else 0)
        if safe_lead(p, s, o, c):
            return 20000 + 100 * pts + power
        return 10000 - 40 * pts - 3 * power - (60 if trump else 0)
    cost = (12 + power) if trump else power
    if beats(p, c, o.win):
        if o.wside == o.side:
            return 9000 + 10 * pts - cost          # partner already wins: overtaking wastes
        if o.kiks_open and later_beats(p, s, o.side, c):
            return 13000 + 10 * (o.trick_pts + pts) - 4 * cost   # a later opponent may take it
        return 15000 + 20 * (o.trick_pts + pts) - 4 * cost
    if o.wside == o.side:
        if o.win_unsafe:
            return 11000 - 30 * pts - power        # the partner's trick is not safe yet
        return 14000 + 20 * pts - power            # partner wins: give him points
    return 12000 - 30 * pts - power - (40 if trump else 0)


cdef inline int generate(ZPos* p, ZState* s, uint64_t legal, int exch, int* moves, int* scores,
                         int prune) noexcept nogil:
    """Fill moves (unordered) and their order scores; return the count."""
    cdef uint64_t others, single, L
    cdef int n = 0, c, prev, su
    cdef OrderCtx o
    order_context(p, s, &o)
    if exch:
        moves[n] = MZ_EXCHANGE
        scores[n] = order_score(p, s, &o, MZ_EXCHANGE)
        n += 1
    others = o.others
    single = singletons(p, s) if prune else 0
    for su in range(4):
        L = legal & lane(su)
        prev = -1
        while L:
            c = dd_msb64(L)
            L &= ~bit(c)
            if prune and prev >= 0 and interchangeable(p, others, single, c, prev):
                prev = c
                continue
            moves[n] = c
            scores[n] = order_score(p, s, &o, c)
            n += 1
            prev = c
    return n
