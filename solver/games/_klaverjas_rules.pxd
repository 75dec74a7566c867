# Klaverjas rules in C (docs/RULES.md §2.4-§2.8): which card beats which, what
# may be played (Amsterdam and Rotterdam rules), the roem of a trick, the forced
# last trick played out, the measures of a finished deal (the value, the margin
# D', the value as if nat) and the lattice of values a deal can end with.
# Nothing here changes a state: make and unmake live in _klaverjas.pyx.
#
# Apart from the search's bookkeeping so that the rules can be read, and
# checked against docs/RULES.md and tests/reference, in one place.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport dd_msb32, dd_ctz32
from ddcards.games._klaverjas_state cimport (KPos, KState, suit_mask, team_of, above, PIT, LAST_TRICK,
                                            ALL_CARD_POINTS)

cdef extern from *:
    """
    static int KJ_SEQ_ROEM[256];
    static int KJ_QUAD_ROEM[8];
    """
    # Sequence roem of one natural lane holding a trick's cards of that suit.
    int SEQ_ROEM "KJ_SEQ_ROEM"[256]
    # Four of a kind by natural rank: T 100, J 200, Q K A 100; 7 8 9 nothing.
    int QUAD_ROEM "KJ_QUAD_ROEM"[8]


cdef inline int beats(KPos* p, int c, int w) noexcept nogil:
    """Does card c beat card w (w played earlier in the trick)?"""
    if (c >> 3) == (w >> 3):
        return c > w
    return (c >> 3) == p.trump

cdef inline int trick_roem(KPos* p, uint32_t nat) noexcept nogil:
    """Roem of a complete trick given its cards in the natural layout."""
    cdef int r = SEQ_ROEM[nat & 0xFF] + SEQ_ROEM[(nat >> 8) & 0xFF] + \
        SEQ_ROEM[(nat >> 16) & 0xFF] + SEQ_ROEM[nat >> 24]
    cdef uint32_t q = nat & (nat >> 8) & (nat >> 16) & (nat >> 24) & 0xFF
    if q:
        r += QUAD_ROEM[dd_ctz32(q)]
    if ((nat >> (8 * p.trump + 5)) & 3) == 3:      # trump Q and K: stuk
        r += 20
    return r


# ---------------------------------------------------------------- legality

cdef inline uint32_t follow_mask(KPos* p, uint32_t h, int led, uint32_t trickmask,
                                 int partner_wins) noexcept nogil:
    """The legal cards of hand h in a trick led in suit `led` holding the cards
    `trickmask`, the mover's partner winning it so far or not (docs/RULES.md §2.4, §2.5)."""
    cdef uint32_t T = p.trumpmask
    cdef uint32_t inled, tr, ttr, higher, rest
    inled = h & suit_mask(led)
    if led == p.trump:
        if inled:                                   # 1. trumps led: overtrump every trump if you can
            higher = above(inled, dd_msb32(trickmask & T))
            return higher if higher else inled
        return h                                    # no trump: any card
    if inled:
        return inled                                # 1. follow suit, any card of it
    tr = h & T
    if tr == 0:
        return h                                    # void and no trumps: any card
    ttr = trickmask & T
    if p.rotterdam:                                 # always trump; overtrump if you can
        if ttr:
            higher = above(tr, dd_msb32(ttr))
            return higher if higher else tr
        return tr
    if partner_wins:                                # 2. partner winning
        if ttr:
            rest = h & ~(tr & ((<uint32_t> 1 << dd_msb32(ttr)) - 1))   # no undertrumping ...
            return rest if rest else h                                 # ... unless nothing else
        return h
    if ttr == 0:                                    # 3. opponent winning: must trump
        return tr
    higher = above(tr, dd_msb32(ttr))
    if higher:
        return higher                               # ... overtrump if you can
    rest = h & ~T
    return rest if rest else tr                     # ... else another suit, else undertrump


cdef inline uint32_t legal_mask(KPos* p, KState* s) noexcept nogil:
    """The legal cards of the player to move (docs/RULES.md §2.4 Amsterdam, §2.5 Rotterdam)."""
    if s.nt == 0:
        return s.hand[s.turn]
    return follow_mask(p, s.hand[s.turn], s.trick[0] >> 3, s.trickmask,
                       ((s.leader + s.win) & 3) == (s.turn ^ 2))

cdef inline int final_value(KState* s) noexcept nogil:
    """The measure of a finished deal (docs/RULES.md §2.8 rule 1)."""
    if s.pts[0] > s.pts[1]:
        return s.pts[0] - s.pts[1] + (PIT if s.tricks[1] == 0 else 0)
    return -(s.pts[0] + s.pts[1]) - (PIT if s.tricks[0] == 0 else 0)


cdef inline int final_asnat(KState* s) noexcept nogil:
    """The lower measure L of a finished deal: its value as if it were nat."""
    return -(s.pts[0] + s.pts[1]) - (PIT if s.tricks[0] == 0 else 0)


cdef inline int final_margin(KState* s) noexcept nogil:
    """The margin D' of a finished deal: P - O, + 100 if the playing team took every trick."""
    return s.pts[0] - s.pts[1] + (PIT if s.tricks[1] == 0 else 0)


cdef inline void last_trick_play(KPos* p, KState* s, int* winner_team, int* pts) noexcept nogil:
    """Play out the forced last trick: its winner's team and its worth (cards, last, roem)."""
    cdef int c[4]
    cdef int i, wi = 0, seat
    cdef uint32_t nat = 0
    for i in range(4):
        seat = (s.leader + i) & 3
        c[i] = dd_ctz32(s.hand[seat])
        nat |= p.natbit[c[i]]
    for i in range(1, 4):
        if beats(p, c[i], c[wi]):
            wi = i
    winner_team[0] = team_of(p, (s.leader + wi) & 3)
    pts[0] = p.points[c[0]] + p.points[c[1]] + p.points[c[2]] + p.points[c[3]] + LAST_TRICK + \
        trick_roem(p, nat)

cdef inline int nearest_value(int v, int up) noexcept nogil:
    """The nearest value a finished deal can have, >= v (up) or <= v.

    Made: P - O (+ pit), even and >= 2.  Nat: -(P + O) (- pit) where
    P + O = 162 + roem and roem is a multiple of 10, so <= -162 and
    = -162 mod 10.  Nothing lies in between: "value >= t" for any t in
    -161..2 is the question "made?", which the margin answers (t = 2).
    """
    cdef int k
    if up:
        if v > -ALL_CARD_POINTS:
            return 2 if v < 2 else v + (v & 1)
        k = (-ALL_CARD_POINTS - v) // 10
        return -ALL_CARD_POINTS - 10 * k
    if v >= 2:
        return v - (v & 1)
    if v > -ALL_CARD_POINTS:
        return -ALL_CARD_POINTS
    k = (-ALL_CARD_POINTS - v + 9) // 10
    return -ALL_CARD_POINTS - 10 * k
