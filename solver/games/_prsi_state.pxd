# Prší in C: the position the search core walks (module doc of _prsi.pyx:
# the draw queue, the moves, the values).
#
# Cards are ints ``suit * 8 + rank`` (ranks 7 8 9 T U O K A = 0..7, suits
# S H D C = 0..3), card sets uint32 masks.  PPos holds what a deal fixes (the
# seats, the variants, P and the horizon of the search, the salt) with the
# queue's cells and a stack of PState, one per action: make() copies the top
# state and changes the copy, unmake() pops it.
#
# A file of its own because every other _prsi_*.pxd reads it and it reads
# none of them: the files cimport one another without cycles.
from libc.stdint cimport uint8_t, int8_t, int16_t, uint32_t, uint64_t

cdef enum:
    MAXSEATS = 6
    NCARDS = 32
    R7 = 0
    RQ = 5
    RA = 7
    MV_OBER = 32
    MV_DRAW = 48
    MV_PASS = 49
    STACK = 2048                 # states: the history and a search together
    QCAP = NCARDS + STACK        # queue cells: the stock, then one per card played
    MIN_PROBE = 2                # plies left below which a table probe does not pay
    KEY_CARDS_SMALL = 6          # queue cards a key holds beyond the deal's stock (<= 3 seats)

# The cards of a rank in every suit: true C constants, so that the compiler folds them.
cdef extern from *:
    """
    #define PRSI_SEVENS 0x01010101u
    #define PRSI_OBERS 0x20202020u
    #define PRSI_ACES 0x80808080u
    """
    const uint32_t SEVENS "PRSI_SEVENS"
    const uint32_t OBERS "PRSI_OBERS"
    const uint32_t ACES "PRSI_ACES"


ctypedef struct PState:
    uint32_t hand[MAXSEATS]
    int16_t head             # queue window [head, tail)
    int16_t tail
    int16_t slen             # of which the stock: the first slen cells (the rest is the pile)
    int16_t ply              # actions since the deal
    int16_t done_ply         # when the game ended
    int8_t top               # the discard pile's top card
    int8_t suit              # the suit to match (an Ober's named suit)
    int8_t sevens            # 7s in the active chain (0: none)
    int8_t ace               # an active ace
    int8_t turn
    int8_t pending_out       # `return`: the seat who just went out and may be brought back, -1 none
    int8_t first_out         # the first seat out for good, -1 none
    int8_t done              # the game is over
    int8_t nout              # players out for good, in order
    int16_t turnovers        # times the pile was turned over
    uint8_t out              # seats out (for good, or pending a return)
    int8_t place[MAXSEATS]   # 1 = first out for good, 0 = not out
    int16_t out_ply[MAXSEATS]  # when each seat went out for good


ctypedef struct PPos:
    int n                    # seats
    int player               # P, whose value is searched
    int play_on              # variant: play on until one player is left (the loser)
    int not_last             # P's goal (play_on only): getting out at all, not being the one left
    int comeback             # variant `return`
    int root                 # ply of the search's root
    int hend                 # ply at which the horizon ends
    int L0                   # cells 0..L0-1 hold the deal's stock
    uint64_t base0           # the deal's salt (seats, variants, the stock)
    uint64_t base1
    uint64_t salt0           # ... with P's seat mixed in: keys hold for one P
    uint64_t salt1
    int probe                # probe the table (tests turn it off)
    int sp
    int8_t cells[QCAP]
    PState st[STACK]


cdef inline uint32_t bit(int c) noexcept nogil:
    return (<uint32_t> 1) << c

cdef inline uint32_t suit_cards(int s) noexcept nogil:
    return (<uint32_t> 0xFF) << (8 * s)

cdef inline uint32_t rank_cards(int r) noexcept nogil:
    return (<uint32_t> 0x01010101) << r

cdef inline int card_of(int mv) noexcept nogil:
    """The card a move plays (an Ober for the Ober moves), -1 for draw and pass."""
    if mv < NCARDS:
        return mv
    if mv < MV_DRAW:
        return ((mv - MV_OBER) >> 2) * 8 + RQ
    return -1
