# Quick bounds on a Mariáš position's future value at a trick boundary, and
# the money objective's classes of the announced parts (module doc of
# _marias.pyx, "Money").
#
# Hra: at most every point left, the last trick and the declarer's marriages;
# at least all of that lost.  Sure things tighten them: trump Aces and Tens
# above every trump of the other side (sure_trump_points), a marriage the
# leader scores at once, and the leader's cash of his sure winners
# (leader_cash, cash_margin).  Kilo: the sure trump points.  Sedma: lost once
# the declarer cannot take the last trick with the trump 7.  Betl and Durch
# need none: the search ends at the first trick that settles them.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport dd_popcount32, dd_msb32, dd_ctz32
from ddcards.games._marias_state cimport (MPos, MState, suit_mask, in_hands, O_HRA, O_KILO, O_SEDMA,
                                         O_MONEY, A_SEDMA, A_KILO, ST_LOST, ST_WON, ST_OPEN, KILO_TARGET,
                                         NSEATS, P_SEVEN)
from ddcards.games._marias_rules cimport live_marriages, marriage_value, last_trick_future


cdef inline int best_marriage(MPos* p, uint32_t live) noexcept nogil:
    """The most valuable single marriage among `live` (K|O pairs)."""
    if live == 0:
        return 0
    if p.trump >= 0 and (live & suit_mask(p.trump)):
        return 40
    return 20


cdef inline uint32_t above_all(uint32_t m, uint32_t theirs) noexcept nogil:
    """The cards of m above every card of theirs (one suit; all of m when theirs is empty)."""
    return m & ~(((<uint32_t> 2) << dd_msb32(theirs)) - 1) if theirs else m


cdef inline void sure_trump_points(MPos* p, MState* s, int* sure_d, int* sure_f) noexcept nogil:
    """Points of the trump Aces and Tens above every trump of the other side: the highest
    trump out always wins its trick (only its own side's trumps could beat it), so these
    points are their owner's side's, whatever is played."""
    cdef uint32_t tm, dt, ft
    sure_d[0] = 0
    sure_f[0] = 0
    if p.trump < 0:
        return
    tm = suit_mask(p.trump)
    dt = s.hand[0] & tm
    ft = (s.hand[1] | s.hand[2]) & tm
    sure_d[0] = 10 * dd_popcount32(above_all(dt & p.tens, ft))
    sure_f[0] = 10 * dd_popcount32(above_all(ft & p.tens, dt))


cdef inline void seat_marriages(MState* s, int trump, uint32_t* live) noexcept nogil:
    """live[seat]: the marriages each seat holds (K|O pairs)."""
    live[0] = live_marriages(s, 0, 0, trump)
    live[1] = live_marriages(s, 1, 0, trump)
    live[2] = live_marriages(s, 2, 0, trump)


cdef inline void margin_bounds(MPos* p, MState* s, int pts, int sure_d, int sure_f, uint32_t* live,
                               int every_line, int* lo, int* hi) noexcept nogil:
    """Bounds on the Hra margin still to come: at most every point left, the last trick and
    the declarer's marriages, at least all that for the defenders; sure trump points and a
    marriage the player on lead can score now tighten them.  live: seat_marriages.
    every_line: bounds that hold on every line of play, not only under best play (the money
    classes, which the table keys by): without the marriage the leader may not lead."""
    cdef int lead_m
    hi[0] = pts + marriage_value(p, live[0]) - 2 * sure_f
    lo[0] = -pts - marriage_value(p, live[1] | live[2]) + 2 * sure_d
    if every_line:
        return
    lead_m = best_marriage(p, live[s.leader])
    if s.leader == 0:
        lo[0] += lead_m
    else:
        hi[0] -= lead_m


cdef inline void kilo_bounds(MPos* p, MState* s, int pts, int sure_d, int sure_f, int* lo, int* hi) noexcept nogil:
    """Bounds on the declarer's Kilo count still to come (cards, last trick, trump marriage)."""
    hi[0] = pts + (40 if live_marriages(s, 0, 1, p.trump) else 0) - sure_f
    lo[0] = sure_d


cdef inline uint32_t run_suit(uint32_t mine, uint32_t a, uint32_t b, int keep_a, int keep_b,
                              uint32_t* taken) noexcept nogil:
    """The leader's cards of one suit that win led from the top down, the two others following
    with their cheapest of it (which keeps their best, and costs them least); taken[0] gains
    the cards of the tricks.  keep_a, keep_b: that follower holds a trump, so the run stops
    once he is void (he would trump)."""
    cdef uint32_t won = 0, c
    while mine:
        c = (<uint32_t> 1) << dd_msb32(mine)
        if (a | b) > c or (keep_a and a == 0) or (keep_b and b == 0):
            break                       # another card of the suit beats it, or he may trump
        won |= c
        mine &= ~c
        taken[0] |= (a & (~a + 1)) | (b & (~b + 1))
        a &= a - 1
        b &= b - 1
    return won


cdef inline uint32_t leader_cash(MPos* p, MState* s, uint32_t* won) noexcept nogil:
    """Hra, a trick boundary: the cards the player on lead surely takes if he cashes his sure
    winners now (docs/RULES.md §1.4); won[0]: his cards that win (his whole hand when the cash
    takes every trick left).  Every card of a cash trick goes to the leader's side, his
    partner's too; a follower's cards count at least as his cheapest of the suit he must play.

    He leads his trumps from the top while each is above every other trump, the others
    following with a trump while they have one (they must follow and cannot beat: run_suit).
    Then his plain suits run, each only while every follower who still holds a trump holds the
    suit too (he must follow it, so cannot trump); one without a trump discards when void (what
    he throws counts nothing: those discards only take cards out of the others' way)."""
    cdef int o1 = s.leader + 1 if s.leader < 2 else 0, o2 = 3 - s.leader - o1, keep1, keep2
    cdef uint32_t tm = suit_mask(p.trump), mine = s.hand[s.leader], taken = 0, sm, plain = mine & ~tm
    won[0] = run_suit(mine & tm, s.hand[o1] & tm, s.hand[o2] & tm, 0, 0, &taken)
    # who still holds a trump after the run (each followed with one a trick)
    keep1 = dd_popcount32(s.hand[o1] & tm) > dd_popcount32(won[0])
    keep2 = dd_popcount32(s.hand[o2] & tm) > dd_popcount32(won[0])
    while plain:
        sm = suit_mask(dd_ctz32(plain) >> 3)
        won[0] |= run_suit(plain & sm, s.hand[o1] & sm, s.hand[o2] & sm, keep1, keep2, &taken)
        plain &= ~sm
    return taken | won[0]


cdef inline uint32_t pairs_touched(uint32_t live, uint32_t cards) noexcept nogil:
    """The marriages of `live` (K|O pairs) with a card in `cards`."""
    cdef uint32_t any = live & cards
    any = (any | (any >> 1)) & 0x10101010
    return live & (any | (any << 1))


cdef inline uint32_t kept_marriages(uint32_t live, uint32_t hand, uint32_t won) noexcept nogil:
    """The marriages of `live` that a follower (`hand`) of the cash `won` can still hold after
    it: where the cash leads r cards of a suit he plays r of it while he has them, so he keeps
    both of a pair only with two cards more.  (Played as a follower, a marriage scores nothing
    unless marriage_on_follow.)"""
    cdef uint32_t kept = 0, sm
    while live:
        sm = suit_mask(dd_ctz32(live) >> 3)
        if dd_popcount32(hand & sm) - dd_popcount32(won & sm) >= 2:
            kept |= live & sm
        live &= ~sm
    return kept


cdef inline void cash_margin(MPos* p, MState* s, int pts, uint32_t* live, int* lo, int* hi) noexcept nogil:
    """Narrow the Hra margin's bounds by the leader's cash (leader_cash): the declarer's lo when
    he leads, hi when a defender does.  pts: the points left with the last trick; live:
    seat_marriages.

    On that line the leader's side gets at least the cash's cards and the marriages he leads a
    card of in it (holding the other), then, still on lead, the best other marriage he holds;
    the other side at most everything else and every marriage it holds.  The defenders' trumps
    above every trump of the declarer win for them whatever is played (sure_trump_points), so
    they join a defender's cash.  A cash of the declarer's whole hand settles the margin: he
    takes every trick and scores every marriage he holds, the defenders only theirs played as
    followers (marriage_on_follow).  A defender's cash of his whole hand bounds it only from
    above: leading a low trump early, he may hand the lead to his partner, who can then lead a
    marriage of his own (tests/test_marias_bounds.py)."""
    cdef uint32_t won, own = live[s.leader], theirs = live[1] | live[2] if s.leader == 0 else live[0]
    cdef uint32_t in_cash, dt, cards = leader_cash(p, s, &won)
    cdef int taken, v
    if won == s.hand[s.leader]:
        v = pts + marriage_value(p, own)
        if s.leader == 0:
            lo[0] = v - (marriage_value(p, theirs) if p.mof else 0)
            hi[0] = v
        else:
            hi[0] = -v + (marriage_value(p, theirs) if p.mof else 0)
        return
    if s.leader != 0:
        dt = s.hand[0] & suit_mask(p.trump)
        cards |= above_all((s.hand[1] | s.hand[2]) & suit_mask(p.trump), dt)
    if not p.mof:
        if s.leader == 0:
            theirs = kept_marriages(live[1], s.hand[1], won) | kept_marriages(live[2], s.hand[2], won)
        else:
            theirs = kept_marriages(live[0], s.hand[0], won)
    in_cash = pairs_touched(own, won)
    taken = 2 * 10 * dd_popcount32(cards & p.tens) + marriage_value(p, in_cash) \
        + best_marriage(p, own & ~in_cash)
    v = taken - pts - marriage_value(p, theirs)
    if s.leader == 0:
        if v > lo[0]:
            lo[0] = v
    elif -v < hi[0]:
        hi[0] = -v


cdef inline void money_classes(MPos* p, MState* s, int* hst, int* kst) noexcept nogil:
    """Classify the announced parts at a trick boundary (not the last trick): ST_WON,
    ST_LOST or ST_OPEN by sure bounds on what is to come (Kilo not announced: ST_LOST).  The
    bounds hold on every line of play: the table keys a classed part without its score, so two
    positions of one key must have one future whatever is played from them."""
    cdef uint32_t rem = in_hands(s)
    cdef int pts = 10 * dd_popcount32(rem & p.tens) + 10, sure_d, sure_f, lo, hi, d
    cdef uint32_t live[3]
    sure_trump_points(p, s, &sure_d, &sure_f)
    seat_marriages(s, p.trump, live)
    margin_bounds(p, s, pts, sure_d, sure_f, live, 1, &lo, &hi)
    d = s.pts[0] - s.pts[1]
    hst[0] = ST_WON if d + lo > 0 else (ST_LOST if d + hi <= 0 else ST_OPEN)
    kst[0] = ST_LOST
    if p.announce & A_KILO:
        kilo_bounds(p, s, pts, sure_d, sure_f, &lo, &hi)
        kst[0] = ST_WON if s.kilo + lo >= KILO_TARGET else (ST_LOST if s.kilo + hi < KILO_TARGET else ST_OPEN)


cdef inline int sedma_possible(MPos* p, MState* s) noexcept nogil:
    """At a trick boundary, can the declarer still take the last trick with the trump 7?  Not
    once he no longer holds it, nor while a defender holds nothing but trumps: that defender's
    last card is a trump, which beats the 7 in the last trick."""
    cdef uint32_t tm = suit_mask(p.trump)
    if not (s.hand[0] >> (p.trump * 8 + P_SEVEN)) & 1:
        return 0
    return not ((s.hand[1] and (s.hand[1] & ~tm) == 0) or (s.hand[2] and (s.hand[2] & ~tm) == 0))


cdef inline int sedma_open(MPos* p, MState* s) noexcept nogil:
    """Sedma announced and still possible."""
    return (p.announce & A_SEDMA) != 0 and sedma_possible(p, s)


cdef inline void future_bounds(MPos* p, MState* s, int* lo, int* hi) noexcept nogil:
    """Quick bounds on the future value at a trick boundary.

    Hra: the declarer can at most take every remaining point, the last trick
    and his marriages; at least lose all that to the defenders.  Sure things
    tighten it: the highest trump out always wins its trick, so if it is a
    10-pointer its points are its owner's; and the player on lead can cash
    his sure winners and then score a marriage (cash_margin).  Kilo: the sure
    trump points only.  Money: the ranks of the worst and the best outcome
    the parts' classes allow, classed by the sure trump points and the
    marriage the leader can score at once, not the cash.
    """
    cdef uint32_t rem = in_hands(s)
    cdef int pts, sure_d, sure_f, hst, kst
    cdef uint32_t live[3]
    if dd_popcount32(rem) == NSEATS:
        lo[0] = last_trick_future(p, s)
        hi[0] = lo[0]
        return
    if p.objective == O_HRA or p.objective == O_KILO:
        pts = 10 * dd_popcount32(rem & p.tens) + 10
        sure_trump_points(p, s, &sure_d, &sure_f)
        if p.objective == O_HRA:
            seat_marriages(s, p.trump, live)
            margin_bounds(p, s, pts, sure_d, sure_f, live, 0, lo, hi)
            cash_margin(p, s, pts, live, lo, hi)
        else:
            kilo_bounds(p, s, pts, sure_d, sure_f, lo, hi)
    elif p.objective == O_MONEY:
        money_classes(p, s, &hst, &kst)
        lo[0] = p.rank[(1 if hst == ST_WON else 0) | (4 if kst == ST_WON else 0)]
        hi[0] = p.rank[(1 if hst != ST_LOST else 0) | (2 if sedma_open(p, s) else 0) | (4 if kst != ST_LOST else 0)]
    elif p.objective == O_SEDMA:
        lo[0] = -1
        hi[0] = 1 if sedma_possible(p, s) else -1
    else:
        lo[0] = -1
        hi[0] = 1
