# Mariasz in C: the position the search core walks (docs/RULES.md §3).
#
# Cards are ints ``suit * 16 + power`` (power 0..8: the card's strength in
# its suit's order: plain 6 7 8 9 J Q K T A, trumps 6 7 8 9 J K T A Q), so a
# card set is a uint64 with one 16-bit lane per suit (9 bits used) and
# "beats" within a suit is ``>``.  The non-card action `exchange` is move
# MZ_EXCHANGE, above every card.  mariasz.py maps notation to these codes.
#
# ZPos holds what a deal fixes (seats, sides, trumps, options, the stock in
# draw order, card points, the race targets) and a stack of ZState, one per
# action played: make() copies the top state and changes the copy, unmake()
# pops it.
#
# Sides: two players and three players: the seat; Kiks: the team (seat % 2).
# The maximising side ("MAX") is side 0, or seat `player` with three players.
from libc.stdint cimport uint64_t

from ddcards._core.bits cimport dd_popcount64

cdef enum:
    MZ_SEATS = 4            # at most
    MZ_STOCK = 24           # at most
    MZ_STACK = 48           # states: the root, every card of a deal, the exchange
    MZ_EXCHANGE = 64        # move code of the exchange of the trump six
    MZ_LANE_BITS = 16
    MZ_LAST_TRICK = 10
    OBJ_POINTS_C = 0
    OBJ_RACE_C = 1

ctypedef struct ZState:
    uint64_t hand[MZ_SEATS] # by seat
    uint64_t stockmask      # cards still in the stock
    uint64_t trickmask      # cards of the trick in progress
    int trick[4]            # its cards in play order
    int pending[4]          # marriage_on_second: what the card at trick place i scores if it wins
    int nt                  # cards in the trick
    int leader
    int turn
    int drawn               # stock cards drawn so far
    int exchanged           # the trump six went under the stock (the turned card is in a hand)
    int claimed             # race: the side that reached 131, -1 none
    int ntricks
    int pts[4]              # by side: cards won, the last trick, marriages
    int tricks[4]           # by side
    int mpts[4]             # by seat: marriage points
    int mcount[4]           # by seat: marriages announced

ctypedef struct ZPos:
    int nseats
    int nsides
    int side_of[4]          # seat -> side
    int maxside             # the side whose value is maximised
    int trump
    int objective           # OBJ_POINTS_C / OBJ_RACE_C
    int must_beat
    int mos                 # marriage_on_second
    int nstock              # stock size at the deal (0: no stock)
    int stock[MZ_STOCK]     # draw order, the turned card last
    int six                 # the trump six when an exchange can ever happen, else -1
    int need[4]             # race: 131 - start score, by side
    int pts_of[64]          # card points by code
    int partner[64]         # K <-> Q of the same suit, -1 for other cards
    int marriage_of[64]     # points a marriage with this K or Q announces (20, trumps 40), else 0
    int king[4]             # by suit: the K's code
    int queen[4]            # by suit: the Q's code
    uint64_t kings          # the four K's
    uint64_t queens         # the four Q's
    uint64_t deck
    uint64_t trumps         # the trump lane
    uint64_t salt0
    uint64_t salt1
    int sp
    ZState st[MZ_STACK]


cdef inline uint64_t lane(int suit) noexcept nogil:
    return (<uint64_t> 0x1FF) << (MZ_LANE_BITS * suit)


cdef inline uint64_t bit(int card) noexcept nogil:
    return (<uint64_t> 1) << card


cdef inline uint64_t above(int card) noexcept nogil:
    """The cards of every suit above `card`'s bit (mask with the suit's lane)."""
    return ~(((<uint64_t> 2) << card) - 1)


cdef inline uint64_t queens_of(ZPos* p, uint64_t kings) noexcept nogil:
    """The Q of each K in `kings`: a plain K sits one power above its Q (6, 5), the trump K
    three below the pamfil (5, 8)."""
    return ((kings & ~p.trumps) >> 1) | ((kings & p.trumps) << 3)


cdef inline uint64_t married_queens(ZPos* p, uint64_t h) noexcept nogil:
    """The Q's of the suits where h holds both the K and the Q (the marriages it can announce)."""
    return queens_of(p, h & p.kings) & h


cdef inline uint64_t marriage_cards(ZPos* p, uint64_t q) noexcept nogil:
    """Both cards of the marriages whose Q's are q (married_queens)."""
    return q | ((q & ~p.trumps) << 1) | ((q & p.trumps) >> 3)


cdef inline uint64_t queens_touched(ZPos* p, uint64_t cards) noexcept nogil:
    """The Q's of the suits of which `cards` holds the K or the Q."""
    return (cards & p.queens) | queens_of(p, cards & p.kings)


cdef inline int marriages_points(ZPos* p, uint64_t q) noexcept nogil:
    """The points of the marriages whose Q's are q: 20 each, the trump one 40."""
    return 20 * dd_popcount64(q) + (20 if q & p.trumps else 0)


cdef inline int best_marriage_points(ZPos* p, uint64_t q) noexcept nogil:
    """The points of the best of the marriages whose Q's are q (0 if none)."""
    return 40 if q & p.trumps else (20 if q else 0)


cdef inline int marriage_with(ZPos* p, uint64_t h, int c) noexcept nogil:
    """Points of the marriage playing c from hand h announces (0 if none)."""
    if p.marriage_of[c] and (h >> p.partner[c]) & 1:
        return p.marriage_of[c]
    return 0


cdef inline ZState* top(ZPos* p) noexcept nogil:
    return &p.st[p.sp]


cdef inline int in_phase1(ZPos* p, ZState* s) noexcept nogil:
    """Two players while the stock lasts: no obligations (§3.3)."""
    return s.drawn < p.nstock


cdef inline uint64_t all_hands(ZState* s) noexcept nogil:
    return s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]


cdef inline int stock_card(ZPos* p, ZState* s, int i) noexcept nogil:
    """The i-th card of the stock in draw order (the six, once exchanged, is the last)."""
    if i == p.nstock - 1 and s.exchanged:
        return p.six
    return p.stock[i]
