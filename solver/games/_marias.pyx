"""Mariáš card play in C for the search core (docs/RULES.md §1).

Cards are ints ``suit * 8 + power`` where power 0..7 is the card's strength
in the contract's rank order (Hra: 7 8 9 U O K T A; Betl/Durch:
7 8 9 T U O K A), so "beats" within a suit is ``>``.  Card sets are uint32
masks with one 8-bit lane per suit.  The Python side (marias.py) maps
notation cards to these ints.

Seat 0 is the declarer (the maximising side); seats 1 and 2 defend together.

Money: a non-additive measure
-----------------------------
The objective ``money`` measures a Hra with Sedma and/or Kilo announced on
top (docs/RULES.md §1.8): the declarer's settlement, the sum over the parts
of +stake if he wins the part and -stake if he loses it.  The search never
sees the money itself (stakes up to a million would not fit the table's
16-bit bounds): Python numbers the distinct sums of the 8 outcome
combinations (bit 0 Hra won, bit 1 Sedma won, bit 2 Kilo won) from the
lowest, ``rank[combo]``, and the search finds the minimax of the rank, a
strictly increasing function of the money, so the same line is optimal.

The rank depends on the finished deal as a whole, so, as Klaverjas's nat
(_klaverjas.pyx), nothing is banked (banked = 0, future = the rank) and
at each trick boundary every announced part is classed with sure bounds on
what is still to come: WON (it cannot be lost), LOST (it cannot be won) or
OPEN.  The table key carries what the future depends on: the cards (the
Hra layout of tens and live marriages, and the trump 7), the class of Hra
and of Kilo, and only for an OPEN part its banked score (the margin so far
for Hra, the declarer's Kilo count for Kilo).  Sedma needs nothing more:
it is LOST once the declarer no longer holds the trump 7 (or a defender
holds nothing but trumps), OPEN while he does, and decided by the last
trick: all of it follows from the cards.  The quick bounds are the ranks of the
worst and the best combination the classes allow (money grows with every
part won, so the rank does too).
"""
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy, memset

from ddcards._core.bits cimport cards_high_to_low, dd_popcount32, dd_pext32, dd_msb32, dd_ctz32
from ddcards._core.search cimport (Board, GameOps, sort_moves, NODE_INNER, NODE_BOUNDARY, NODE_SMALL,
                                  NODE_TERMINAL, MAX_MOVES)

# Objectives: what the search measures.
OBJ_HRA = 0      # declarer's points - defenders' points
OBJ_SEDMA = 1    # declarer wins the last trick with the trump 7: +1 / -1
OBJ_KILO = 2     # declarer's cards + last trick + trump marriage >= 100
OBJ_BETL = 3     # declarer takes no trick
OBJ_DURCH = 4    # declarer takes every trick
OBJ_MONEY = 5    # Hra: the declarer's money over the announced parts, as a rank (see above)

# Parts announced on top of Hra (objective money).
ANN_SEDMA = 1
ANN_KILO = 2

cdef enum:
    O_HRA = 0
    O_SEDMA = 1
    O_KILO = 2
    O_BETL = 3
    O_DURCH = 4
    O_MONEY = 5
    A_SEDMA = 1
    A_KILO = 2
    # classes of an announced part at a trick boundary (objective money)
    ST_LOST = 0
    ST_WON = 1
    ST_OPEN = 2
    KILO_TARGET = 100
    NSEATS = 3
    MAXSTACK = 40
    # Hra powers of the cards that matter
    P_SEVEN = 0
    P_OBER = 4
    P_KING = 5
    HRA_TENS_LANE = 0xC0     # T (6) and A (7)
    KO_LANE = 0x30           # O (4) and K (5)

ctypedef struct MState:
    uint32_t hand[3]
    uint32_t trickmask
    int trick[3]
    int nt            # cards in the current trick
    int leader
    int turn
    int ntricks
    int pts[2]        # side 0 declarer, side 1 defenders (cards, last trick, marriages, talon)
    int kilo          # declarer's cards + last trick + trump marriage
    int tricks[2]
    int sedma         # declarer won the last trick with the trump 7
    int marriage      # marriage points scored by the move that led here

ctypedef struct MPos:
    int trump         # -1: none (Betl, Durch)
    int hra           # contract is Hra: points and marriages count
    int objective
    int mof           # marriage_on_follow
    uint32_t tens     # A and T of every suit (Hra), for points
    int announce      # money: the parts announced on top of Hra (A_SEDMA | A_KILO)
    int rank[8]       # money: the rank of each outcome combination (bit 0 Hra, 1 Sedma, 2 Kilo won)
    uint64_t salt0
    uint64_t salt1
    int sp
    MState st[MAXSTACK]


cdef inline uint32_t suit_mask(int s) noexcept nogil:
    return (<uint32_t> 0xFF) << (8 * s)

cdef inline int side_of(int seat) noexcept nogil:
    return 0 if seat == 0 else 1

cdef inline int card_points(MPos* p, int c) noexcept nogil:
    return 10 if (p.tens >> c) & 1 else 0


cdef uint32_t legal_mask(MPos* p, MState* s) noexcept nogil:
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


# ---------------------------------------------------------------- ops

cdef void m_make(void* vp, int c) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp + 1]
    memcpy(s, &p.st[p.sp], sizeof(MState))
    p.sp += 1
    cdef int seat = s.turn
    cdef uint32_t bit = (<uint32_t> 1) << c
    cdef int r = c & 7, suit = c >> 3, w, wc, tp, i, side
    cdef int mv = 0
    s.hand[seat] &= ~bit
    s.marriage = 0
    if p.hra and (r == P_KING or r == P_OBER) and (s.nt == 0 or p.mof):
        # Leading (or, with the option, playing) one of a pair you hold.
        if s.hand[seat] & ((<uint32_t> 1) << (c ^ 1)):
            mv = 40 if suit == p.trump else 20
            s.pts[side_of(seat)] += mv
            if seat == 0 and suit == p.trump:
                s.kilo += 40
            s.marriage = mv
    s.trick[s.nt] = c
    s.trickmask |= bit
    s.nt += 1
    if s.nt < NSEATS:
        s.turn = seat + 1 if seat < NSEATS - 1 else 0
        return
    i = trick_winner_index(p, s)
    w = s.leader + i
    if w >= NSEATS:
        w -= NSEATS
    wc = s.trick[i]
    side = side_of(w)
    tp = 10 * dd_popcount32(s.trickmask & p.tens)      # p.tens is empty unless points count
    s.ntricks += 1
    s.tricks[side] += 1
    if (s.hand[0] | s.hand[1] | s.hand[2]) == 0:
        if p.hra:
            tp += 10                                   # last trick
        if w == 0 and p.trump >= 0 and wc == p.trump * 8 + P_SEVEN:
            s.sedma = 1
    s.pts[side] += tp
    if w == 0:
        s.kilo += tp
    s.leader = w
    s.turn = w
    s.nt = 0
    s.trickmask = 0


cdef void m_unmake(void* vp) noexcept nogil:
    (<MPos*> vp).sp -= 1


cdef int m_max_to_move(void* vp) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    return p.st[p.sp].turn == 0


cdef int m_node_kind(void* vp) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    cdef uint32_t rem
    if s.nt != 0:
        return NODE_INNER
    rem = s.hand[0] | s.hand[1] | s.hand[2]
    if rem == 0:
        return NODE_TERMINAL
    if p.objective == O_BETL and s.tricks[0] > 0:
        return NODE_TERMINAL
    if p.objective == O_DURCH and s.tricks[1] > 0:
        return NODE_TERMINAL
    if dd_popcount32(rem) == NSEATS:          # the last trick: exact, no probe needed
        return NODE_SMALL
    return NODE_BOUNDARY


cdef int m_banked(void* vp) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    if p.objective == O_HRA:
        return s.pts[0] - s.pts[1]
    if p.objective == O_KILO:
        return s.kilo
    return 0


cdef int m_node_info(void* vp, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    """GameOps.node_info: m_node_kind, m_banked, m_max_to_move, m_future_bounds."""
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    banked[0] = m_banked(vp)
    ismax[0] = m_max_to_move(vp)
    if s.nt != 0:
        return NODE_INNER               # 55% of the nodes: kept apart from the boundary's work
    return boundary_info(vp, lo, hi)


cdef int boundary_info(void* vp, int* lo, int* hi) noexcept nogil:
    """m_node_info at a trick boundary: the kind, and the quick bounds where the search uses them."""
    cdef int kind = m_node_kind(vp)
    if kind == NODE_BOUNDARY or kind == NODE_SMALL:
        m_future_bounds(vp, lo, hi)
    return kind


cdef int m_terminal_future(void* vp) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    if p.objective == O_SEDMA:
        return 1 if s.sedma else -1
    if p.objective == O_BETL:
        return -1 if s.tricks[0] > 0 else 1
    if p.objective == O_DURCH:
        return -1 if s.tricks[1] > 0 else 1
    if p.objective == O_MONEY:
        return money_rank(p, s.pts[0] - s.pts[1], s.kilo, s.sedma)
    return 0


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


cdef int last_trick_future(MPos* p, MState* s) noexcept nogil:
    """The future value when one card is left in each hand: play is forced."""
    cdef int best, w, pts
    w = last_trick_play(p, s, &best)
    pts = 10 * dd_popcount32((s.hand[0] | s.hand[1] | s.hand[2]) & p.tens) + 10
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
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2]
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


cdef void m_future_bounds(void* vp, int* lo, int* hi) noexcept nogil:
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
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2]
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


cdef void m_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """Relative-rank key: who holds each live card (in the hands or in the
    current trick), in rank order, plus the layout of the classes that
    matter (counts per suit of 10-pointers, live marriages, the trump 7), the
    trick's cards by their place among the live ones, and the leader.
    Money adds the classes of Hra and Kilo and, for an open part, its banked
    score (bits 46-55, above the trick's cards)."""
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    cdef uint32_t hands = s.hand[0] | s.hand[1] | s.hand[2]
    cdef uint32_t rem = hands | s.trickmask
    cdef uint32_t lane, live = 0, tk = 0
    cdef uint64_t layout = 0, banked = 0
    cdef int su, n, ntens, nlive, hst, kst
    cdef int points = p.objective == O_HRA or p.objective == O_KILO or p.objective == O_MONEY
    if points:
        live = live_marriages(s, 0, p.objective == O_KILO, p.trump) | \
               live_marriages(s, 1, p.objective == O_KILO, p.trump) | \
               live_marriages(s, 2, p.objective == O_KILO, p.trump)
    for su in range(4):
        lane = (rem >> (8 * su)) & 0xFF
        n = dd_popcount32(lane)
        if points:
            ntens = dd_popcount32(lane & HRA_TENS_LANE)
            nlive = 1 if (live >> (8 * su)) & KO_LANE else 0
            layout |= (<uint64_t> (n | (ntens << 4) | (nlive << 6))) << (8 * su)
            if p.objective == O_MONEY and su == p.trump:
                layout |= (<uint64_t> (lane & 1)) << (8 * su + 7)      # is the trump 7 live?
        elif p.objective == O_SEDMA and su == p.trump:
            layout |= (<uint64_t> (n | ((lane & 1) << 4))) << (8 * su)
        else:
            layout |= (<uint64_t> n) << (8 * su)
    if s.nt > 0:
        # positions (1-based) of the led card and the second card among the live cards
        tk = dd_popcount32(rem & (((<uint32_t> 1) << s.trick[0]) - 1)) + 1
        if s.nt > 1:
            tk |= (dd_popcount32(rem & (((<uint32_t> 1) << s.trick[1]) - 1)) + 1) << 6
    elif p.objective == O_MONEY and dd_popcount32(hands) > NSEATS:
        # A part's class, or for an open part its banked score in tens: the margin so far
        # (|margin| < 320 while Hra is open) and the declarer's Kilo count (< 100 while open).
        money_classes(p, s, &hst, &kst)
        banked = <uint64_t> (hst if hst != ST_OPEN else ST_OPEN + 32 + (s.pts[0] - s.pts[1]) // 10)
        banked |= (<uint64_t> (kst if kst != ST_OPEN else ST_OPEN + s.kilo // 10)) << 6
    k0[0] = ((<uint64_t> dd_pext32(s.hand[0], rem)) | ((<uint64_t> dd_pext32(s.hand[1], rem)) << 32)) ^ p.salt0
    k1[0] = (layout | ((<uint64_t> s.leader) << 32) | ((<uint64_t> tk) << 34) | (banked << 46)) ^ p.salt1
    depth[0] = dd_popcount32(hands) + 1


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


cdef int m_equivalent(void* vp, int a, int b) noexcept nogil:
    """Same test as the pruning in m_gen_moves, for two legal cards a and b."""
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    cdef uint32_t legal = legal_mask(p, s), others, single, classmask, span
    cdef int lo = a if a < b else b, hi = a if a > b else b
    if (a >> 3) != (b >> 3) or not ((legal >> a) & 1) or not ((legal >> b) & 1):
        return 0
    others = ((s.hand[0] | s.hand[1] | s.hand[2]) & ~s.hand[s.turn]) | s.trickmask
    single = equivalence_singletons(p, s)
    classmask = p.tens if p.hra and p.objective != O_SEDMA else 0
    span = ((<uint32_t> 2) << hi) - ((<uint32_t> 1) << lo)     # lo..hi inclusive
    if others & span or single & span:
        return 0
    # every card of the span is ours and legal: one class throughout
    span &= s.hand[s.turn]
    return (classmask & span) == 0 or (classmask & span) == span


cdef int m_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = &p.st[p.sp]
    cdef uint32_t legal = legal_mask(p, s)
    cdef uint32_t others, single, classmask, between, L, rest
    cdef int n = 0, c, prev, su
    cdef int scores[MAX_MOVES]
    cdef int i
    if (legal & (legal - 1)) == 0:
        moves[0] = dd_ctz32(legal)          # forced (following a suit with one card, say)
        return 1 if legal else 0
    if prune:
        # Two cards of one hand are interchangeable when no other live card
        # (another hand's or one in the trick) lies between them and they are
        # of one class: both 10-pointers or both plain, neither special.
        others = ((s.hand[0] | s.hand[1] | s.hand[2]) & ~s.hand[s.turn]) | s.trickmask
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
    cdef OrderCtx o
    order_context(p, s, &o)
    for i in range(n):
        scores[i] = order_score(p, s, &o, moves[i])
    sort_moves(moves, scores, n)
    return n


ctypedef struct OrderCtx:
    uint32_t others      # live cards not in the mover's hand
    int me               # mover's side
    int wc               # card winning the trick so far (-1 when leading)
    int wside            # its side
    int last             # mover plays the trick's last card


cdef inline void order_context(MPos* p, MState* s, OrderCtx* o) noexcept nogil:
    cdef int wi
    o.me = side_of(s.turn)
    o.others = (s.hand[0] | s.hand[1] | s.hand[2]) & ~s.hand[s.turn]
    o.last = s.nt == NSEATS - 1
    if s.nt == 0:
        o.wc = -1
        o.wside = -1
    else:
        wi = trick_winner_index(p, s)
        o.wc = s.trick[wi]
        o.wside = side_of((s.leader + wi) % NSEATS)


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
        if o.last:
            return 100 + pts - rank
        return 60 - rank
    if o.wside == o.me:
        return 40 + pts - rank
    return 20 - 2 * pts - rank


cdef GameOps MARIAS_OPS
MARIAS_OPS.gen_moves = m_gen_moves
MARIAS_OPS.make = m_make
MARIAS_OPS.unmake = m_unmake
MARIAS_OPS.max_to_move = m_max_to_move
MARIAS_OPS.node_kind = m_node_kind
MARIAS_OPS.terminal_future = m_terminal_future
MARIAS_OPS.tt_key = m_tt_key
MARIAS_OPS.equivalent = m_equivalent
MARIAS_OPS.node_info = m_node_info


cdef class MariasBoard(Board):
    """A Mariáš position in C form, searchable by ddcards._core.search.Searcher.

    hands: three uint32 masks (seat 0 = declarer); trump: suit index or -1;
    objective: OBJ_*; talon_points: points banked by the defenders up front.
    Objective OBJ_MONEY: announce, the parts announced on top of Hra (ANN_*);
    ranks, the rank of each of the 8 outcome combinations (see the module's
    docstring), which is what the search values.
    """
    cdef MPos* mp

    def __cinit__(self, hands, int trump, int objective, bint marriage_on_follow=False,
                  int talon_points=0, unsigned long long salt0=0, unsigned long long salt1=0,
                  int announce=0, ranks=None):
        if objective == O_MONEY and (trump < 0 or ranks is None or len(ranks) != 8):
            raise ValueError("the money objective needs a trump suit and the 8 ranks of its outcomes")
        self.mp = <MPos*> PyMem_Calloc(1, sizeof(MPos))
        if self.mp == NULL:
            raise MemoryError()
        p = self.mp
        p.trump = trump
        p.objective = objective
        p.hra = objective in (O_HRA, O_SEDMA, O_KILO, O_MONEY)
        p.announce = announce if objective == O_MONEY else 0
        if objective == O_MONEY:
            for i in range(8):
                p.rank[i] = ranks[i]
        p.mof = marriage_on_follow
        p.tens = 0xC0C0C0C0 if p.hra else 0
        p.salt0 = salt0
        p.salt1 = salt1
        p.sp = 0
        for i in range(3):
            p.st[0].hand[i] = hands[i]
        p.st[0].pts[1] = talon_points
        self.ops = &MARIAS_OPS
        self.pos = <void*> p
        self.exact = objective == O_HRA or objective == O_MONEY
        self.threshold = 100 if objective == O_KILO else 1
        self.granularity = 10 if objective == O_HRA else 1
        self.max_ply = MAXSTACK - 1

    def __dealloc__(self):
        if self.mp != NULL:
            PyMem_Free(self.mp)

    def legal_mask(self):
        return legal_mask(self.mp, &self.mp.st[self.mp.sp])

    def quick_bounds(self):
        """(banked, lo, hi) at a trick boundary: the value banked so far and the quick bounds
        lo <= future <= hi that the search tries there (m_future_bounds); None elsewhere."""
        cdef int bank, ismax, lo = 0, hi = 0
        cdef int kind = m_node_info(self.mp, &bank, &ismax, &lo, &hi)
        if kind != NODE_BOUNDARY and kind != NODE_SMALL:
            return None
        return bank, lo, hi

    def money_classes(self):
        """(Hra, Kilo) at a trick boundary of the money objective, each "won", "lost" or "open":
        the classes the table keys a part by instead of its score so far, so each must hold on
        every line of play from here; None elsewhere."""
        cdef MState* s = &self.mp.st[self.mp.sp]
        cdef int hst, kst
        if self.mp.objective != O_MONEY or m_node_kind(self.mp) != NODE_BOUNDARY:
            return None
        money_classes(self.mp, s, &hst, &kst)
        names = {ST_WON: "won", ST_LOST: "lost", ST_OPEN: "open"}
        return names[hst], names[kst]

    def key(self):
        """The table key (k0, k1) of this position, at a trick boundary: positions with the
        same key have the same future (the contract table groups discards by it)."""
        cdef uint64_t k0, k1
        cdef int depth
        if self.mp.st[self.mp.sp].nt != 0:
            raise ValueError("a table key is taken at a trick boundary")
        m_tt_key(self.mp, &k0, &k1, &depth)
        return k0, k1

    @property
    def finished(self):
        """All cards played."""
        cdef MState* s = &self.mp.st[self.mp.sp]
        return (s.hand[0] | s.hand[1] | s.hand[2]) == 0

    @property
    def state(self):
        """The current state as a dict (for reporting)."""
        cdef MState* s = &self.mp.st[self.mp.sp]
        return {
            "hands": [s.hand[0], s.hand[1], s.hand[2]],
            "trick": [s.trick[i] for i in range(s.nt)],
            "leader": s.leader,
            "turn": s.turn,
            "tricks_played": s.ntricks,
            "points": [s.pts[0], s.pts[1]],
            "tricks": [s.tricks[0], s.tricks[1]],
            "kilo": s.kilo,
            "sedma": bool(s.sedma),
            "marriage": s.marriage,       # points of a marriage the last card scored
        }

    @property
    def to_move(self):
        return self.mp.st[self.mp.sp].turn


from cpython.mem cimport PyMem_Calloc, PyMem_Free
