# Mariáš rules in C (docs/RULES.md §1.4-§1.8): what may be played, who wins a
# trick, marriages, a card played (play_card), the forced last trick played
# out and the measures of a finished deal.  Everything here reads or changes
# one MState (play_card reads the state before the card and writes its copy);
# make/unmake live in _marias.pyx.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport dd_popcount32, dd_msb32, dd_ctz32
from ddcards.games._marias_state cimport (MPos, MState, suit_mask, in_hands, side_of, O_HRA, O_KILO,
                                         O_SEDMA, O_BETL, O_MONEY, A_SEDMA, A_KILO, KILO_TARGET, NSEATS,
                                         P_SEVEN, P_OBER, P_KING)


cdef inline uint32_t legal_mask(MPos* p, MState* s) noexcept nogil:
    """The legal cards of the player to move (docs/RULES.md §1.4 rules 1-4)."""
    cdef uint32_t h = s.hand[s.turn]
    cdef uint32_t ledm, inled, tr, higher, trumpm
    cdef int led
    if s.nt == 0:
        return h
    led = s.trick[0] >> 3
    ledm = suit_mask(led)
    inled = h & ledm
    if inled:
        if p.trump >= 0 and led != p.trump and (s.trickmask & suit_mask(p.trump)):
            return inled                      # trick already trumped: any card of the suit
        higher = inled & ~((<uint32_t> 2 << dd_msb32(s.trickmask & ledm)) - 1)
        return higher if higher else inled    # must beat if you can
    if p.trump >= 0:
        trumpm = suit_mask(p.trump)
        tr = h & trumpm
        if tr:
            if s.trickmask & trumpm:
                higher = tr & ~((<uint32_t> 2 << dd_msb32(s.trickmask & trumpm)) - 1)
                return higher if higher else tr   # must overtrump if you can
            return tr                             # must trump
    return h


cdef inline int beats_card(MPos* p, int c, int b) noexcept nogil:
    """Card c, played after b, beats it: higher in its suit, or a trump on a plain card."""
    return c > b if (c >> 3) == (b >> 3) else (c >> 3) == p.trump


cdef inline int trick_winner_index(MPos* p, MState* s) noexcept nogil:
    cdef int best = 0
    if s.nt > 1 and beats_card(p, s.trick[1], s.trick[0]):
        best = 1
    if s.nt > 2 and beats_card(p, s.trick[2], s.trick[best]):
        best = 2
    return best


cdef inline uint32_t live_marriages(MState* s, int seat, int trump_only, int trump) noexcept nogil:
    """Lanes (as K|O bit pairs) where `seat` holds both the K and the O."""
    cdef uint32_t h = s.hand[seat]
    cdef uint32_t both = (h >> 1) & h & 0x10101010   # O bit (4) set where K (5) also held
    if trump_only:
        both &= (<uint32_t> 0x10) << (8 * trump) if trump >= 0 else 0
    return both | (both << 1)


cdef inline int marriage_value(MPos* p, uint32_t live) noexcept nogil:
    """Points of the marriages marked in `live` (K|O pairs)."""
    cdef int v = 20 * (dd_popcount32(live) >> 1)
    if p.trump >= 0 and (live & suit_mask(p.trump)):
        v += 20
    return v


cdef inline void play_card(MPos* p, MState* prev, MState* s, int c) noexcept nogil:
    """Card c played by the player to move (§1.4, §1.6) into s, a copy of prev: a marriage he
    scores with it, and at the trick's last card its winner, its points (the last trick's 10
    too), the Sedma.  Every field it changes is read from prev, not from the copy just made:
    a load from the copy waits on its stores being forwarded (−3% CPU on the Hra corpus)."""
    cdef int seat = prev.turn, nt = prev.nt
    cdef uint32_t bit = (<uint32_t> 1) << c
    cdef uint32_t hand = prev.hand[seat] & ~bit, tm = prev.trickmask | bit
    cdef int r = c & 7, suit = c >> 3, w, wc, tp, i, side, b0, b1
    cdef int pts0 = prev.pts[0], pts1 = prev.pts[1], kilo = prev.kilo, mv = 0
    s.hand[seat] = hand
    if p.hra and (r == P_KING or r == P_OBER) and (nt == 0 or p.mof):
        if hand & ((<uint32_t> 1) << (c ^ 1)):
            mv = 40 if suit == p.trump else 20
            if seat == 0:
                pts0 += mv
                if suit == p.trump:
                    kilo += 40
            else:
                pts1 += mv
    s.marriage = mv
    s.trick[nt] = c
    if nt < NSEATS - 1:
        s.trickmask = tm
        s.nt = nt + 1
        s.turn = seat + 1 if seat < NSEATS - 1 else 0
        s.pts[0] = pts0
        s.pts[1] = pts1
        s.kilo = kilo
        return
    b0 = prev.trick[0]
    b1 = prev.trick[1]
    i = 1 if beats_card(p, b1, b0) else 0
    wc = b1 if i else b0
    if beats_card(p, c, wc):
        i = 2
        wc = c
    w = prev.leader + i
    if w >= NSEATS:
        w -= NSEATS
    side = side_of(w)
    tp = 10 * dd_popcount32(tm & p.tens)
    s.ntricks = prev.ntricks + 1
    s.tricks[side] = prev.tricks[side] + 1
    if (in_hands(prev) & ~bit) == 0:
        if p.hra:
            tp += 10
        if w == 0 and p.trump >= 0 and wc == p.trump * 8 + P_SEVEN:
            s.sedma = 1
    if side == 0:
        pts0 += tp
    else:
        pts1 += tp
    if w == 0:
        kilo += tp
    s.pts[0] = pts0
    s.pts[1] = pts1
    s.kilo = kilo
    s.leader = w
    s.turn = w
    s.nt = 0
    s.trickmask = 0


cdef inline int money_rank(MPos* p, int margin, int kilo, int sedma) noexcept nogil:
    """The rank of a finished deal's money: which announced parts the declarer won."""
    cdef int combo = 1 if margin > 0 else 0
    if sedma and (p.announce & A_SEDMA):
        combo |= 2
    if kilo >= KILO_TARGET and (p.announce & A_KILO):
        combo |= 4
    return p.rank[combo]


cdef inline int last_trick_play(MPos* p, MState* s, int* best) noexcept nogil:
    """Play out the last trick (one card left in each hand: it is forced); return its winner,
    with the winning card in best[0]."""
    cdef int c0 = dd_ctz32(s.hand[s.leader])
    cdef int c1 = dd_ctz32(s.hand[(s.leader + 1) % NSEATS])
    cdef int c2 = dd_ctz32(s.hand[(s.leader + 2) % NSEATS])
    cdef int b = c0, bi = 0
    if ((c1 >> 3) == (b >> 3) and c1 > b) or ((c1 >> 3) == p.trump and (b >> 3) != p.trump):
        b = c1
        bi = 1
    if ((c2 >> 3) == (b >> 3) and c2 > b) or ((c2 >> 3) == p.trump and (b >> 3) != p.trump):
        b = c2
        bi = 2
    best[0] = b
    return (s.leader + bi) % NSEATS


cdef inline int last_trick_future(MPos* p, MState* s) noexcept nogil:
    """The future value when one card is left in each hand: play is forced."""
    cdef int best, w, pts
    w = last_trick_play(p, s, &best)
    pts = 10 * dd_popcount32(in_hands(s) & p.tens) + 10
    if p.objective == O_HRA:
        return pts if w == 0 else -pts
    if p.objective == O_KILO:
        return pts if w == 0 else 0
    if p.objective == O_SEDMA:
        return 1 if w == 0 and best == p.trump * 8 + P_SEVEN else -1
    if p.objective == O_MONEY:
        return money_rank(p, s.pts[0] - s.pts[1] + (pts if w == 0 else -pts), s.kilo + (pts if w == 0 else 0),
                          w == 0 and best == p.trump * 8 + P_SEVEN)
    if p.objective == O_BETL:
        return -1 if w == 0 else 1
    return 1 if w == 0 else -1
