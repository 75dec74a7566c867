# Klaverjas in C: the position the search core walks (docs/RULES.md §2).
#
# Cards are ints ``suit * 8 + power`` (power 0..7: the card's strength in its
# suit's order), so a card set is a uint32 with one 8-bit lane per suit and
# "beats" within a suit is ``>``; roem is judged in the natural layout (7 8 9
# T J Q K A).  Teams count from the playing team (team 0, MAX).  The layouts,
# the classes of a trick boundary and the measures a search can ask for
# (modes) are set out in _klaverjas.pyx's module doc.
#
# KPos holds what a deal fixes (trump, playing team, rules, card points and
# natural bits, the search's table) and a stack of KState, one per trick:
# mid-trick moves change the top state in place, a trick's last card pushes a
# copy (k_make, end_trick in _klaverjas.pyx).
#
# Lookup tables: a .pxd holds no module code, so the tables the inline
# functions read are declared here (and in the other _klaverjas_*.pxd files)
# as C statics of the module, and _klaverjas.pyx fills them at import, as
# before the split.
#
# A file of its own because every other _klaverjas_*.pxd reads it and it
# reads none of them: the files cimport one another without cycles.
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t

from ddcards._core.tt cimport TTable

cdef enum:
    F_NO_PRUNE = 1
    F_NO_CLASSES = 2
    F_NO_BOUNDS = 4
    F_NO_LEAF = 8
    NSEATS = 4
    MAXSTACK = 40
    C_OPEN = 0
    C_MADE = 1
    C_NAT = 2
    C_DONE = 3
    M_VALUE = 0            # modes (k_set_mode): the value
    M_MARGIN = 1           # the margin D'
    M_ASNAT = 2            # the value as if the deal were nat
    ALL_CARD_POINTS = 162
    PIT = 100
    LAST_TRICK = 10
    TWO_CACHE_BITS = 14    # two_left's cache (two_slot): 16 K entries of 16 bytes (the table's side area)

cdef extern from *:
    """
    static int KJ_PLAIN_NAT[8];
    static int KJ_TRUMP_NAT[8];
    static int KJ_PLAIN_PTS[8];
    static int KJ_TRUMP_PTS[8];
    static uint32_t KJ_NAT_LANE[2][256];
    """
    # Power -> natural rank index (7 8 9 T J Q K A = 0..7), and points, by power.
    int PLAIN_NAT "KJ_PLAIN_NAT"[8]
    int TRUMP_NAT "KJ_TRUMP_NAT"[8]
    int PLAIN_PTS "KJ_PLAIN_PTS"[8]
    int TRUMP_PTS "KJ_TRUMP_PTS"[8]
    # Natural lane of a power lane: [0] plain suits, [1] the trump suit.
    uint32_t NAT_LANE "KJ_NAT_LANE"[2][256]


ctypedef struct KState:
    # 96 bytes (with the key and leaf fields below): make() copies the whole state at each
    # trick's end, so keep it small.
    uint32_t hand[4]
    uint32_t bnat[4]       # the hands at the last trick boundary, natural layout
    uint32_t trickmask     # power layout
    uint32_t tricknat      # natural layout
    int16_t pts[2]         # team 0 playing, 1 other: cards + last trick + roem (before nat)
    int16_t roem[2]
    int16_t crem           # card points still in the hands and the current trick
    int16_t last_roem      # roem of the last completed trick (reporting)
    # boundary caches (valid when nt == 0)
    int16_t banked
    int16_t flo
    int16_t fhi
    uint64_t key0          # the table key (k_tt_key), set by boundary()
    uint64_t key1
    uint8_t trick[4]
    uint8_t nt             # cards in the current trick
    uint8_t leader
    uint8_t turn
    uint8_t win            # index in `trick` of the card winning so far
    uint8_t winhist        # `win` before each card of the trick, 2 bits each (unmake)
    uint8_t ntricks
    uint8_t cls
    uint8_t tricks[2]
    int8_t last_winner     # seat that won the last completed trick (reporting), -1 none
    uint8_t leaf           # 2 or 3: a boundary that many tricks from the end (k_leaf solves it)
    uint8_t keyed          # key0/key1 hold this boundary's table key (else k_tt_key works it out)

ctypedef struct TwoEntry:
    # A two-trick endgame solved by two_exact: see two_slot.
    uint64_t key          # the cards, owners, leader, mode, pit flags, the deal's parameters, TWO_KEY_TAG
    uint32_t pts          # P * 1024 + O in the value mode (not additive), else 0
    int16_t future        # the result less what the key leaves out (two_slot)
    uint8_t gen           # the table's generation when stored (else: empty)

ctypedef struct KPos:
    int trump
    int playing            # seat parity of the playing team
    int rotterdam
    int flags
    int mode               # M_VALUE, M_MARGIN or M_ASNAT: what the search measures (k_set_mode)
    int fixed              # a mode every test searches (fix_measure, tests), else -1
    int beta               # the search under way tests "value >= beta" (VALUE_INF: none)
    uint32_t trumpmask
    int points[32]
    uint32_t natbit[32]
    TTable* tt             # the table of the search under way (prefetch), else NULL
    TwoEntry* two          # ... its side area: two_left's cache entries (else NULL)
    uint8_t two_gen        # ... its generation (entries of another one are empty)
    KState* cur            # the current state: st[0] at the deal's start, one more per trick
    KState st[MAXSTACK]


cdef inline uint32_t suit_mask(int s) noexcept nogil:
    return (<uint32_t> 0xFF) << (8 * s)

cdef inline int team_of(KPos* p, int seat) noexcept nogil:
    return (seat ^ p.playing) & 1

cdef inline uint32_t above(uint32_t m, int c) noexcept nogil:
    """Cards of m above power c (any lane; callers mask the lane)."""
    return m & ~((<uint32_t> 2 << c) - 1)

cdef inline uint32_t to_nat(KPos* p, uint32_t m) noexcept nogil:
    cdef uint32_t out = 0
    cdef int su
    for su in range(4):
        out |= NAT_LANE[1 if su == p.trump else 0][(m >> (8 * su)) & 0xFF] << (8 * su)
    return out
