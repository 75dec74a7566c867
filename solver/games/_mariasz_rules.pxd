# Mariasz rules in C (docs/RULES.md §3.3-§3.8): what may be played, who wins a
# trick, drawing from the stock, the exchange, marriages, race claims.
# Everything here reads or changes one ZState (play_card: the state before the card and its
# copy); make/unmake live in _mariasz.pyx.
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_msb64
from ddcards.games._mariasz_state cimport (ZPos, ZState, lane, bit, above, all_hands, in_phase1, stock_card,
                                          marriage_with, MZ_LAST_TRICK, OBJ_RACE_C)


cdef inline uint64_t legal_cards(ZPos* p, ZState* s) noexcept nogil:
    """The cards the player to move may play (§3.3, §3.4)."""
    cdef uint64_t h = s.hand[s.turn], ledm, inled, tr, higher, trumpm
    cdef int led
    if s.nt == 0 or in_phase1(p, s):
        return h
    led = s.trick[0] >> 4
    ledm = lane(led)
    inled = h & ledm
    trumpm = p.trumps
    if inled:
        if p.must_beat and not (led != p.trump and (s.trickmask & trumpm)):
            higher = inled & above(dd_msb64(s.trickmask & ledm))
            if higher:
                return higher
        return inled
    tr = h & trumpm
    if tr:
        if p.must_beat and (s.trickmask & trumpm):
            higher = tr & above(dd_msb64(s.trickmask & trumpm))
            if higher:
                return higher
        return tr
    return h


cdef inline int can_exchange(ZPos* p, ZState* s) noexcept nogil:
    """May the player to move exchange the trump six now (§3.7)?"""
    return (p.six >= 0 and s.nt == 0 and not s.exchanged and s.drawn < p.nstock
            and (s.hand[s.turn] >> p.six) & 1)


cdef inline int beats(ZPos* p, int c, int best) noexcept nogil:
    """Does card c, played after `best` (the trick's winner so far), take the trick (§3.5)?"""
    if (c >> 4) == (best >> 4):
        return c > best
    return (c >> 4) == p.trump


cdef inline int winner_among(ZPos* p, int* trick, int n) noexcept nogil:
    """The index of the card that takes the trick's first n cards `trick` (§3.5)."""
    cdef int best = 0, i
    for i in range(1, n):
        if beats(p, trick[i], trick[best]):
            best = i
    return best


cdef inline int trick_winner_index(ZPos* p, ZState* s) noexcept nogil:
    return winner_among(p, s.trick, s.nt)


cdef inline int claims(ZPos* p, int side, int pts) noexcept nogil:
    """Race: does `side`, with `pts` points, claim at once (§3.8)?"""
    return p.objective == OBJ_RACE_C and pts >= p.need[side]


cdef inline void exchange(ZPos* p, ZState* s) noexcept nogil:
    """The player to move takes the turned card and puts the six under the stock (§3.7)."""
    cdef int turned = p.stock[p.nstock - 1]
    s.hand[s.turn] = (s.hand[s.turn] & ~bit(p.six)) | bit(turned)
    s.stockmask = (s.stockmask & ~bit(turned)) | bit(p.six)
    s.exchanged = 1


cdef inline void play_card(ZPos* p, ZState* o, ZState* s, int c) noexcept nogil:
    """The player to move plays c: marriages, then the trick's end, its points and the draws.

    o is the state before the card and s its copy: every field that changes is read from o and
    written to s, as reading it back from the copy just written waits on the copy's stores."""
    cdef int seat = o.turn, side = p.side_of[seat], nt = o.nt, claimed = o.claimed, married, i, w, wc, tp, pend, first, second
    cdef uint64_t mine = o.hand[seat] & ~bit(c), hw, hl
    s.hand[seat] = mine
    married = marriage_with(p, mine, c)
    pend = 0
    if married:
        if nt == 0:                           # on lead: scores at once (§3.6 rule 1)
            s.pts[side] = o.pts[side] + married
            s.mpts[seat] = o.mpts[seat] + married
            s.mcount[seat] = o.mcount[seat] + 1
            if claimed < 0 and claims(p, side, o.pts[side] + married):
                claimed = side                # a race's claim (§3.8): the trick stops here
                s.claimed = side
        elif p.mos:                           # as a follower: if this card wins (§3.6 rule 2)
            pend = married
    s.pending[nt] = pend
    s.trick[nt] = c
    s.trickmask = o.trickmask | bit(c)
    s.nt = nt + 1
    if claimed >= 0:
        return
    if nt + 1 < p.nseats:
        s.turn = seat + 1 if seat + 1 < p.nseats else 0
        return
    # the trick's last card: who takes it (§3.5), from the cards before it and c
    i = winner_among(p, o.trick, nt)
    if beats(p, c, o.trick[i]):
        i = nt
    else:
        pend = o.pending[i]
    w = o.leader + i
    if w >= p.nseats:
        w -= p.nseats
    side = p.side_of[w]
    tp = p.pts_of[c]
    for wc in range(nt):
        tp += p.pts_of[o.trick[wc]]
    if o.drawn >= p.nstock and (all_hands(o) & ~bit(c)) == 0:
        tp += MZ_LAST_TRICK
    if pend:
        tp += pend
        s.mpts[w] = o.mpts[w] + pend
        s.mcount[w] = o.mcount[w] + 1
    s.pts[side] = o.pts[side] + tp
    s.tricks[side] = o.tricks[side] + 1
    s.ntricks = o.ntricks + 1
    if claims(p, side, o.pts[side] + tp):
        s.claimed = side                      # (claimed < 0: the play went on to here)
    if o.drawn < p.nstock:                    # the winner draws first (§3.3 rule 3)
        # two players while the stock lasts: the winner w and the other, 1 - w
        hw = mine if w == seat else o.hand[w]
        hl = mine if w != seat else o.hand[1 - w]
        first = stock_card(p, o, o.drawn)
        second = stock_card(p, o, o.drawn + 1)
        s.hand[w] = hw | bit(first)
        s.hand[1 - w] = hl | bit(second)
        s.stockmask = o.stockmask & ~(bit(first) | bit(second))
        s.drawn = o.drawn + 2
    s.leader = w
    s.turn = w
    s.nt = 0
    s.trickmask = 0
