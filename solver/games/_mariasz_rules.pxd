# Mariasz rules in C (docs/RULES.md §3.3-§3.8): what may be played, who wins a
# trick, drawing from the stock, the exchange, marriages, race claims.
# Everything here reads or changes one ZState; make/unmake live in _mariasz.pyx.
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_msb64
from ddcards.games._mariasz_state cimport (ZPos, ZState, lane, bit, above, in_phase1, stock_card,
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


cdef inline int trick_winner_index(ZPos* p, ZState* s) noexcept nogil:
    cdef int best = 0, i
    for i in range(1, s.nt):
        if beats(p, s.trick[i], s.trick[best]):
            best = i
    return best


cdef inline void claim(ZPos* p, ZState* s, int side) noexcept nogil:
    """Race: a side whose points reach its target claims at once (§3.8)."""
    if p.objective == OBJ_RACE_C and s.claimed < 0 and s.pts[side] >= p.need[side]:
        s.claimed = side


cdef inline void exchange(ZPos* p, ZState* s) noexcept nogil:
    """The player to move takes the turned card and puts the six under the stock (§3.7)."""
    cdef int turned = p.stock[p.nstock - 1]
    s.hand[s.turn] = (s.hand[s.turn] & ~bit(p.six)) | bit(turned)
    s.stockmask = (s.stockmask & ~bit(turned)) | bit(p.six)
    s.exchanged = 1


cdef inline void play_card(ZPos* p, ZState* s, int c) noexcept nogil:
    """The player to move plays c: marriages, then the trick's end, its points and the draws."""
    cdef int seat = s.turn, side = p.side_of[seat], married, i, w, wc, tp, last, nxt
    s.hand[seat] &= ~bit(c)
    married = marriage_with(p, s.hand[seat], c)
    s.pending[s.nt] = 0
    if married:
        if s.nt == 0:                         # on lead: scores at once (§3.6 rule 1)
            s.pts[side] += married
            s.mpts[seat] += married
            s.mcount[seat] += 1
            claim(p, s, side)
        elif p.mos:                           # as a follower: if this card wins (§3.6 rule 2)
            s.pending[s.nt] = married
    s.trick[s.nt] = c
    s.trickmask |= bit(c)
    s.nt += 1
    if s.claimed >= 0:
        return
    if s.nt < p.nseats:
        nxt = seat + 1
        s.turn = nxt if nxt < p.nseats else 0
        return
    i = trick_winner_index(p, s)
    w = s.leader + i
    if w >= p.nseats:
        w -= p.nseats
    side = p.side_of[w]
    tp = 0
    for wc in range(s.nt):
        tp += p.pts_of[s.trick[wc]]
    last = s.drawn >= p.nstock and (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) == 0
    if last:
        tp += MZ_LAST_TRICK
    if s.pending[i]:
        tp += s.pending[i]
        s.mpts[w] += s.pending[i]
        s.mcount[w] += 1
    s.pts[side] += tp
    s.tricks[side] += 1
    s.ntricks += 1
    claim(p, s, side)
    if s.drawn < p.nstock:                    # the winner draws first (§3.3 rule 3)
        wc = stock_card(p, s, s.drawn)
        s.hand[w] |= bit(wc)
        s.stockmask &= ~bit(wc)
        wc = stock_card(p, s, s.drawn + 1)
        s.hand[1 - w] |= bit(wc)
        s.stockmask &= ~bit(wc)
        s.drawn += 2
    s.leader = w
    s.turn = w
    s.nt = 0
    s.trickmask = 0
