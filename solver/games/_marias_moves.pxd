# Mariáš move generation for the search: the legal cards, interchangeable ones
# merged, best guess first.
#
# Two cards of one hand are interchangeable when no other live card (another
# hand's, or one in the trick) lies between them and they are of one class:
# both 10-pointers or both plain (in Hra), neither a card with an effect of its
# own (a marriage card, the trump 7 where Sedma counts).  The order is a
# heuristic score per card: a marriage led first, then sure winners, cheap
# cards to lose; in a trick, taking a trick that is sure to stay the mover's
# side's with the most points, else beating cheaply, and giving points to a
# partner only where the trick is sure to be his (the player still to play
# cannot beat him, or is the partner and must beat).  Every legal card of a
# node either beats the trick's best card or none does (the duty to beat), so
# only the order inside these cases matters.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport cards_high_to_low, dd_ctz32, dd_msb32
from ddcards._core.search cimport sort_moves, MAX_MOVES
from ddcards.games._marias_state cimport (MPos, MState, suit_mask, in_hands, side_of, card_points, O_HRA,
                                         O_KILO, O_SEDMA, O_BETL, O_MONEY, A_SEDMA, NSEATS, P_SEVEN, P_OBER,
                                         P_KING)
from ddcards.games._marias_rules cimport legal_mask, trick_winner_index, live_marriages


ctypedef struct OrderCtx:
    uint32_t others      # live cards not in the mover's hand
    int me               # mover's side
    int wc               # card winning the trick so far (-1 when leading)
    int wside            # its side
    int last             # mover plays the trick's last card
    int third            # the seat still to play after the mover (-1: the mover is last)
    int third_mate       # ... and he is the mover's partner
    int third_beats_wc   # ... and he holds a card that beats wc


cdef inline int may_beat(MPos* p, uint32_t h, int led, int w) noexcept nogil:
    """A hand h, following a trick led in suit `led` and won so far by card w, holds a card
    that beats w when played there (it must follow, else trump or overtrump)."""
    cdef uint32_t inled = h & suit_mask(led)
    cdef int ws = w >> 3
    if inled:
        return ws == led and (inled & ~((<uint32_t> 2 << w) - 1)) != 0
    if p.trump < 0 or led == p.trump:
        return 0
    h &= suit_mask(p.trump)
    if ws != p.trump:
        return h != 0
    return (h & ~((<uint32_t> 2 << w) - 1)) != 0


cdef inline void order_context(MPos* p, MState* s, OrderCtx* o) noexcept nogil:
    cdef int wi
    o.me = side_of(s.turn)
    o.others = in_hands(s) & ~s.hand[s.turn]
    o.last = s.nt == NSEATS - 1
    o.third = -1 if o.last else (s.turn + 1) % NSEATS
    o.third_mate = 0
    o.third_beats_wc = 0
    if s.nt == 0:
        o.wc = -1
        o.wside = -1
    else:
        wi = trick_winner_index(p, s)
        o.wc = s.trick[wi]
        o.wside = side_of((s.leader + wi) % NSEATS)
        if not o.last:
            o.third_mate = side_of(o.third) == o.me
            o.third_beats_wc = may_beat(p, s.hand[o.third], s.trick[0] >> 3, o.wc)


cdef inline int order_score(MPos* p, MState* s, OrderCtx* o, int c) noexcept nogil:
    """Heuristic worth of playing c now; only the order matters."""
    cdef int rank = c & 7, suit = c >> 3, pts = card_points(p, c), beats
    cdef uint32_t sm, tm
    cdef int seat, safe
    if o.wc < 0:
        if p.objective == O_BETL:
            return -rank if o.me == 0 else rank
        if p.hra and (rank == P_KING or rank == P_OBER) and (s.hand[s.turn] >> (c ^ 1)) & 1:
            return 80 + (40 if suit == p.trump else 20)     # a marriage scores at once
        sm = suit_mask(suit)
        if (o.others & sm & ~((<uint32_t> 2 << c) - 1)) == 0:   # top of its suit
            # ... and safe if no opponent can trump it
            safe = 1
            if p.trump >= 0 and suit != p.trump:
                tm = suit_mask(p.trump)
                for seat in range(NSEATS):
                    if side_of(seat) != o.me and (s.hand[seat] & sm) == 0 and (s.hand[seat] & tm):
                        safe = 0
            if safe:
                return 50 + pts + (20 if suit == p.trump and o.me == 0 else 0)
            return pts - rank
        return -rank - pts - (10 if suit == p.trump else 0)
    if suit == (o.wc >> 3):
        beats = c > o.wc
    else:
        beats = suit == p.trump
    if p.objective == O_BETL:
        if o.me == 0:
            return -100 - rank if beats else 100 + rank
        if o.wside == 0:
            return -rank if beats else 100 + rank
        return -rank
    if beats:
        if o.last or o.third_mate or not may_beat(p, s.hand[o.third], s.trick[0] >> 3, c):
            return 100 + pts - rank         # the trick is surely the mover's side's
        return 60 - rank
    if (o.wside == o.me and not o.third_beats_wc) or (o.third_mate and o.third_beats_wc):
        # a partner's sure trick (the player after cannot beat him), or the partner still to
        # play must take it: give him points
        return 40 + pts - rank
    return 20 - 2 * pts - rank


cdef inline uint32_t equivalence_singletons(MPos* p, MState* s) noexcept nogil:
    """Cards never merged with a neighbour (they carry their own effect)."""
    cdef uint32_t single = 0
    if p.objective == O_HRA:
        single = live_marriages(s, s.turn, 0, p.trump)
    elif p.objective == O_MONEY:
        single = live_marriages(s, s.turn, 0, p.trump)
        if p.announce & A_SEDMA:
            single |= (<uint32_t> 1) << (p.trump * 8 + P_SEVEN)
    elif p.objective == O_KILO:
        single = live_marriages(s, s.turn, 1, p.trump)
    elif p.objective == O_SEDMA:
        single = (<uint32_t> 1) << (p.trump * 8 + P_SEVEN)
    return single


cdef inline int interchangeable(MPos* p, MState* s, int a, int b) noexcept nogil:
    """Cards a and b both legal and one of them makes the other redundant: the test of
    generate()'s pruning for two cards (the root's per-card equivalence)."""
    cdef uint32_t legal = legal_mask(p, s), others, single, classmask, span
    cdef int lo = a if a < b else b, hi = a if a > b else b
    if (a >> 3) != (b >> 3) or not ((legal >> a) & 1) or not ((legal >> b) & 1):
        return 0
    others = (in_hands(s) & ~s.hand[s.turn]) | s.trickmask
    single = equivalence_singletons(p, s)
    classmask = p.tens if p.hra and p.objective != O_SEDMA else 0
    span = ((<uint32_t> 2) << hi) - ((<uint32_t> 1) << lo)     # lo..hi inclusive
    if others & span or single & span:
        return 0
    # every card of the span is ours and legal: one class throughout
    span &= s.hand[s.turn]
    return (classmask & span) == 0 or (classmask & span) == span


cdef inline int generate(MPos* p, MState* s, int* moves, int prune) noexcept nogil:
    """The legal cards into moves[], best guess first; prune: one card of each run of
    interchangeable ones."""
    cdef uint32_t legal = legal_mask(p, s)
    cdef uint32_t others, single, classmask, between, L, rest
    cdef int n = 0, c, prev, su
    cdef int scores[MAX_MOVES]
    cdef int i
    cdef OrderCtx o
    if (legal & (legal - 1)) == 0:
        moves[0] = dd_ctz32(legal)          # forced (following a suit with one card, say)
        return 1 if legal else 0
    if prune:
        # Two cards of one hand are interchangeable when no other live card
        # (another hand's or one in the trick) lies between them and they are
        # of one class: both 10-pointers or both plain, neither special.
        others = (in_hands(s) & ~s.hand[s.turn]) | s.trickmask
        single = equivalence_singletons(p, s)
        classmask = p.tens if p.hra and p.objective != O_SEDMA else 0
        rest = legal
        while rest:                 # the suits with a legal card, lowest first
            su = dd_ctz32(rest) >> 3
            L = rest & suit_mask(su)
            rest &= ~L
            prev = -1
            while L:
                c = dd_msb32(L)
                L &= ~((<uint32_t> 1) << c)
                if prev >= 0:
                    between = ((<uint32_t> 1) << prev) - ((<uint32_t> 2) << c)
                    if (others & between) == 0 and not ((single >> c) & 1) and not ((single >> prev) & 1) \
                            and ((classmask >> c) & 1) == ((classmask >> prev) & 1):
                        prev = c
                        continue
                moves[n] = c
                n += 1
                prev = c
    else:
        n = cards_high_to_low(legal, moves)
    # Order: best guess first (insertion sort on a heuristic score).
    if n < 2:
        return n
    order_context(p, s, &o)
    for i in range(n):
        scores[i] = order_score(p, s, &o, moves[i])
    sort_moves(moves, scores, n)
    return n
