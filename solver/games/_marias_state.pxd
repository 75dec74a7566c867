# Mariáš in C: the position the search core walks (docs/RULES.md §1).
#
# Cards are ints ``suit * 8 + power`` (power 0..7: the card's strength in the
# contract's rank order: Hra 7 8 9 U O K T A, Betl/Durch 7 8 9 T U O K A), so
# a card set is a uint32 with one 8-bit lane per suit and "beats" within a
# suit is ``>``.  marias.py maps notation cards to these ints.
#
# Seat 0 is the declarer, side 0, the maximising side; seats 1 and 2 defend
# together (side 1).  MPos holds what a deal fixes (the trumps, the objective
# and the money ranks, the table's salt) and a stack of MState, one per card
# played: make() copies the top state and changes the copy, unmake() pops it.
#
# A file of its own because every other _marias_*.pxd reads it and it reads
# none of them: the files cimport one another without cycles.
from libc.stdint cimport uint32_t, uint64_t, int16_t, int8_t

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
    # Small fields: make() copies the whole state at every card (40 bytes rather than 72).
    uint32_t hand[3]
    uint32_t trickmask
    int16_t pts[2]    # side 0 declarer, side 1 defenders (cards, last trick, marriages, talon)
    int16_t kilo      # declarer's cards + last trick + trump marriage
    int16_t marriage  # marriage points scored by the move that led here
    int8_t trick[3]
    int8_t nt         # cards in the current trick
    int8_t leader
    int8_t turn
    int8_t ntricks
    int8_t tricks[2]
    int8_t sedma      # declarer won the last trick with the trump 7

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


cdef inline MState* top(MPos* p) noexcept nogil:
    return &p.st[p.sp]

cdef inline uint32_t suit_mask(int s) noexcept nogil:
    return (<uint32_t> 0xFF) << (8 * s)

cdef inline uint32_t in_hands(MState* s) noexcept nogil:
    """Every card still in a hand."""
    return s.hand[0] | s.hand[1] | s.hand[2]

cdef inline int side_of(int seat) noexcept nogil:
    return 0 if seat == 0 else 1

cdef inline int card_points(MPos* p, int c) noexcept nogil:
    return 10 if (p.tens >> c) & 1 else 0
