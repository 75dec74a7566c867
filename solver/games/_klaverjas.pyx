"""Klaverjas card play in C for the search core (docs/RULES.md §2).

Cards are ints ``suit * 8 + power`` where power 0..7 is the card's strength
in its suit's rank order, so "beats" within a suit is ``>``:

    power        0  1  2  3  4  5  6  7
    plain suit   7  8  9  J  Q  K  T  A      points 0 0 0 2 3  4 10 11
    trump suit   7  8  Q  K  T  A  9  J      points 0 0 3 4 10 11 14 20

Card sets are uint32 masks with one 8-bit lane per suit, in that power
layout.  Roem (sequences, four of a kind, stuk) is judged in the *natural*
layout (lane bit = 7 8 9 T J Q K A -> 0..7); ``natbit`` maps a card to it.
The Python side (klaverjas.py) maps notation cards to these ints.

Teams are numbered from the playing team: team 0 = the playing team (seats
``playing``, ``playing + 2``), team 1 = the other team.  The playing team is
MAX; the measure is its final score minus the other team's (nat, pit and the
last trick included).

Nat and the table
-----------------
Nat makes the value non-additive: with P, O the two teams' points (cards,
last trick, roem) at the end, the value is ``P - O (+100 pit)`` if P > O,
else ``-(P + O) (-100 if the other team took every trick)``.  The core's
table stores bounds on the *future* (value - banked), which must be a
function of the key.  At each trick boundary the position is classified
with sure bounds on the margin still to come, ``dlo <= P_f - O_f <= dhi``
(from the card points left ``U`` incl. the last trick, a roem bound ``R``,
and the points of trumps that are higher than all the other team's: those
win whatever trick they fall in):

- MADE   (D + dlo > 0, D = P - O so far): the playing team cannot fail, so
  value = D + future margin (+ pit); banked = D and the future depends on
  the cards (and who may still take every trick) alone.
- NAT    (D + dhi <= 0): it cannot succeed, so value = -(162 + roem so far)
  - future roem (- the other team's pit); banked = -(162 + roem so far), and
  again the future depends on the cards alone.
- OPEN   otherwise: the future depends on P and O, so both go into the key
  (banked = 0, future = value).  Correct, and it only costs sharing where the
  outcome really is open.  (Keying OPEN positions without P and O, which
  would be unsound, saves only 30-45% of the nodes: measured.)

With one trick left play is forced: the class follows the actual outcome and
the bounds are the exact future.  The key is exact (no hashing): the owner
of every remaining card (2 bits each, packed by pext over the remaining
cards), the remaining set, the leader, the "a team has taken every trick so
far" flags, the class, P and O in the OPEN class, and the trump, rules and
playing team.  In a suit where no possible sequence holds a worthless card
(7 8 9, trumps 7 8), those left are keyed by number and order only
(``canonical_rem``): positions that differ only there are the same game.

Quick bounds: the card points left, sure trumps (above all of the other
team's: their points are their team's), and a roem bound per team
(``roem_bound``: disjoint runs per suit by dynamic programming, at most one
run per trick, a 4-run and four of a kind only for the team holding their
strongest card).

Every value is even: the card points of the two teams add up to 162, so
P - O = 2 P_cards - 162 + (roem difference, a multiple of 10) (+ pit), and
a nat value is -(162 + roem) (- pit).  So ``granularity`` is 2 and the
bounds are rounded inward to even totals.

The margin (for a core that names each test's threshold)
--------------------------------------------------------
Let D' = P - O + (100 if the playing team took every trick), at the end.
Then value <= D' at every finished deal (made: equal; nat: -(P + O) <= P - O
as P >= 0, and with the other team's pit P = 0), and for every t >= 1,
value >= t <=> D' >= t (made and D' >= t, or nat and then D' <= 0 < t).  The
minimax of a function of the finished deal keeps both facts: so a
null-window test "value >= t" with t >= 1 may search the additive D'
instead, and its fail-soft result r is still a bound on the value (r >= t:
D' >= r >= 1 and the deal is made, value = D' >= r; r < t: value <= D' <= r).
``k_set_mode(1)`` does that: every boundary is then classed MADE (banked D,
future bounds on D'), whose table entries mean the same in both modes (for a
position surely made, value - D = D' - D).  The searched nodes drop by
~20-30% (no OPEN positions keyed by P and O when the deal is made).  The
core names each test's threshold through ``GameOps.set_mode`` (mode 1 for
beta >= ``Board.upper_from`` = 1); ``fix_measure`` fixes one by hand (tests).

As if nat (the core's lower measure, mode 2)
--------------------------------------------
Let L = -(P + O) (-100 if the other team took every trick): the value as
if the deal were nat, whoever makes it.  L <= value always (a made deal is
worth >= 2 > L), so the minimax of L bounds the value from below; a deal
known nat (value <= 0: one margin test) is usually worth exactly that.  L is
additive in the roem still to come, so mode 2 classes every boundary NAT
(keyed without P and O, its table entries mean the same as in mode 0) and
merges the roem-neutral cards of a group: its search is a fraction of the
value's.  Values are on a lattice (``k_snap``): made >= 2 and even, nat
<= -162 and = -162 mod 10; the core tests only those.

The endgame leaf
---------------
With two or three tricks left a boundary that neither the quick bounds nor
the table settles is solved in one go through the core's ``GameOps.leaf``
hook (``k_leaf``) instead of node by node: ``two_left`` values all 16
combinations of the next trick (each hand holds two cards; the last trick
is forced) without branches, vectorized, and takes their exact minimax
(illegal cards excluded); ``three_left`` is a fail-soft alpha-beta over the
next trick's lines, computed on the masks (no make/unmake, no move
generation or ordering), calling ``two_left`` for each line.  Both
give the final measure of the current mode (the value, D' in the margin
mode, or L as if nat), so the core stores their result as it would a
searched node's.  The class, key and quick bounds of these boundaries are
unchanged, and the principal variation still walks them move by move.
(Measured: a leaf four tricks from the end is slower: it loses the table
and the card merging.)  The same two-trick endgames come back often (other
lines of ``three_left``, later tests), so ``two_exact`` goes through a
cache (``two_slot``, 16 K entries in the search table's side area): the margin and the value
as if nat are a banked part plus a future of the cards alone, which the
cache keeps, so that endgames reached with other points meet.

The core names the threshold of each test (``k_set_mode``: every search is
a null-window one), so ``boundary()`` does only what the test can use: it
skips the roem bound where the quick bounds could not settle the test even
with no roem to come (a bound of 200 a trick stands in, sound), and the
table key where they do settle it (``k_tt_key`` works it out if asked).
Otherwise it works the key out as soon as the trick ends and prefetches the
bucket (the core lends the game its table: ``use_table``), so that the load
overlaps the way back to the core's probe.

Move pruning (``pruned_moves``) merges cards only when provably redundant
(rank-adjacent for trick taking, never part of roem: ``roem_live``), and the
root equivalence (``k_equivalent``) is the same test with equal points.
"""
from libc.stdint cimport int8_t, int16_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from ddcards._core.tt cimport TTable, TT_AUX_MIN_BYTES, tt_bucket
from ddcards._core.bits cimport dd_prefetch, cards_high_to_low, dd_popcount32, dd_pext32, dd_msb32, dd_ctz32
from ddcards._core.search cimport (Board, GameOps, sort_moves, VALUE_INF, NODE_INNER, NODE_BOUNDARY,
                                  NODE_TERMINAL, MAX_MOVES)

# Debug switches (tests compare searches with features turned off).
FLAG_NO_PRUNE = 1       # no equivalent-card pruning
FLAG_NO_CLASSES = 2     # every boundary is OPEN (P and O always in the key)
FLAG_NO_BOUNDS = 4      # no quick bounds (only the exact last trick), no endgame leaf
FLAG_NO_LEAF = 8        # no endgame leaf (k_leaf): the core searches the last three tricks

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

# Marks two_slot's keys as Klaverjas's (the side area is the Searcher's, for any game).
cdef uint64_t TWO_KEY_TAG = (<uint64_t> 0x2B) << 58

# Power -> natural rank index (7 8 9 T J Q K A = 0..7), and points, by power.
cdef int PLAIN_NAT[8]
cdef int TRUMP_NAT[8]
cdef int PLAIN_PTS[8]
cdef int TRUMP_PTS[8]
PLAIN_NAT[:] = [0, 1, 2, 4, 5, 6, 3, 7]
TRUMP_NAT[:] = [0, 1, 5, 6, 3, 7, 2, 4]
PLAIN_PTS[:] = [0, 0, 0, 2, 3, 4, 10, 11]
TRUMP_PTS[:] = [0, 0, 3, 4, 10, 11, 14, 20]

# Card points of a trump lane (power layout).
cdef int TRUMP_LANE_PTS[256]
# Sequence roem of one natural lane holding a trick's cards of that suit.
cdef int SEQ_ROEM[256]
# Natural lane of a power lane: [0] plain suits, [1] the trump suit.
cdef uint32_t NAT_LANE[2][256]


cdef void _init_tables():
    cdef int x, b, run, best
    for x in range(256):
        best = 0
        run = 0
        for b in range(8):
            if (x >> b) & 1:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
        SEQ_ROEM[x] = 50 if best >= 4 else (20 if best == 3 else 0)
        TRUMP_LANE_PTS[x] = 0
        for b in range(8):
            if (x >> b) & 1:
                TRUMP_LANE_PTS[x] += TRUMP_PTS[b]
        NAT_LANE[0][x] = 0
        NAT_LANE[1][x] = 0
        for b in range(8):
            if (x >> b) & 1:
                NAT_LANE[0][x] |= (<uint32_t> 1) << PLAIN_NAT[b]
                NAT_LANE[1][x] |= (<uint32_t> 1) << TRUMP_NAT[b]

_init_tables()

# SEQ_MAX[w3 | w4 << 6]: the most sequence roem one suit can still give, from
# the starts of its possible 3-runs (w3, 6 bits) and 4-runs (w4, 5 bits):
# the best set of disjoint runs.
cdef int SEQ_MAX[2048]
# RUN4_TOP[trump?][start]: natural position of the strongest card of the
# 4-run starting at `start` (plain suits: the T, or the A in J-Q-K-A;
# trumps: the 9 in 7-8-9-T, else the J).
cdef int RUN4_TOP[2][5]
# The strongest card of a 3-run starting at natural position i of a plain
# suit is at i + 0 for i = 3 (T J Q), i + 1 for i = 2 (9 T J), i + 2 else;
# in trumps (masks 0x10, 0x0A, 0x25 of the lane) at i + 0 for J Q K, i + 1
# for 8 9 T and T J Q, i + 2 else.  Bits: starts, in every lane.
cdef uint32_t RUN3_OFF0 = 0x08080808U
cdef uint32_t RUN3_OFF1 = 0x04040404U
cdef uint32_t RUN3_OFF2 = 0x33333333U


cdef void _init_run_tops():
    cdef int t, st, i, best
    cdef int power_of[2][8]
    for i in range(8):
        power_of[0][PLAIN_NAT[i]] = i
        power_of[1][TRUMP_NAT[i]] = i
    for t in range(2):
        for st in range(5):
            best = st
            for i in range(st, st + 4):
                if power_of[t][i] > power_of[t][best]:
                    best = i
            RUN4_TOP[t][st] = best

_init_run_tops()


cdef void _init_seq_max():
    cdef int x, i, w3, w4, a, b, c
    cdef int best[12]
    for x in range(2048):
        w3 = x & 0x3F
        w4 = x >> 6
        for i in range(12):
            best[i] = 0
        for i in range(7, -1, -1):
            a = best[i + 1]
            if (w3 >> i) & 1:
                b = 20 + best[i + 3]
                if b > a:
                    a = b
            if (w4 >> i) & 1:
                c = 50 + best[i + 4]
                if c > a:
                    a = c
            best[i] = a
        SEQ_MAX[x] = best[0]

_init_seq_max()

# Four of a kind by natural rank: T 100, J 200, Q K A 100; 7 8 9 nothing.
cdef int QUAD_ROEM[8]
QUAD_ROEM[:] = [0, 0, 0, 100, 200, 100, 100, 100]

# Where the value search starts, by the playing team's number of trumps: about
# the median value of the corpora's full deals with that many (4: 55, 5: 94,
# 6: 120, 7: 131; benchmarks/corpus).  With 3 or fewer a deal is mostly nat
# (every trump suit of a DD table): start at "made?" (2), the margin test
# that settles it.  (Measured: median nodes -3 to -8%, sums unchanged.)
cdef int GUESS_BY_TRUMPS[9]
GUESS_BY_TRUMPS[:] = [2, 2, 2, 2, 60, 90, 120, 130, 130]

cdef uint64_t KEY_SALT0 = 0x6b6c61766572a5a5ULL    # "klaver": keeps keys apart from other games
cdef uint64_t KEY_SALT1 = 0x6a61737365e1c3d2ULL


ctypedef struct KState:
    # 72 bytes: make() copies the whole state at each trick's end, so keep it small.
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


if sizeof(TwoEntry) << TWO_CACHE_BITS > TT_AUX_MIN_BYTES:
    raise ImportError("two_left's cache entries do not fit the table's side area")


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


# ---------------------------------------------------------------- boundary bookkeeping

cdef int roem_bound(KPos* p, KState* s, int* rP, int* rO) noexcept nogil:
    """Upper bounds on the roem still to come (from a trick boundary): in
    all (returned) and in the tricks each team takes (rP, rO).

    Sequences: a trick's cards of one suit hold at most one run, a 3-run (20)
    of 3 consecutive cards from 3 different hands or a 4-run (50) from all 4;
    runs of one suit use disjoint cards, so SEQ_MAX (the best set of disjoint
    runs that can exist, by dynamic programming over the suit) bounds a
    suit's sequences; a trick has 4 cards, so at most one run per trick:
    at most 50 per trick left.  A 4-run trick is all of one suit, so the
    holder of its strongest card takes it: only that card's team can score
    it.  Four of a kind needs its cards in 4 different hands, and the trump
    among them takes the trick: only that card's team scores it.  Stuk needs
    the trump K and Q in different hands.
    """
    cdef uint32_t hn[4]
    cdef uint32_t rem = 0, bad = 0, bad4 = 0, w, w4, w4P, w3P, w3O, maj, topP, q, rb, mP
    cdef int i, t, su, k, r = 0, a = 0, b = 0, qP = 0, qO = 0, one, stuk = 0, cap
    for i in range(4):
        hn[i] = s.bnat[i]
        rem |= hn[i]
        bad |= (hn[i] & (hn[i] >> 1)) | ((hn[i] >> 1) & (hn[i] >> 2)) | (hn[i] & (hn[i] >> 2))
    mP = hn[p.playing] | hn[p.playing + 2]
    w = rem & (rem >> 1) & (rem >> 2) & 0x3F3F3F3F & ~bad       # 3-run starts
    if w:           # (late in a deal mostly none: skip the sequence bounds)
        for i in range(4):
            bad4 |= (hn[i] & (hn[i] >> 3)) | ((hn[i] >> 1) & (hn[i] >> 3)) | ((hn[i] >> 2) & (hn[i] >> 3))
        w4 = w & (rem >> 3) & 0x1F1F1F1F & ~bad4 & ~(bad >> 1)      # 4-run starts
        w4P = 0                                                     # ... the playing team's top card
        for su in range(4):
            t = 1 if su == p.trump else 0
            k = (w4 >> (8 * su)) & 0x1F
            while k:
                i = dd_ctz32(k)
                k &= k - 1
                if (mP >> (8 * su + RUN4_TOP[t][i])) & 1:
                    w4P |= (<uint32_t> 1) << (8 * su + i)
        # A 3-run's trick goes to its strongest card or to the fourth player (who
        # holds none of it, the partner of the run's lone card of one team): if
        # the strongest card is that lone card, only its team can score the run.
        maj = (mP & (mP >> 1)) | (mP & (mP >> 2)) | ((mP >> 1) & (mP >> 2))   # P holds 2 of 3
        t = 8 * p.trump
        topP = (mP & ((RUN3_OFF0 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x10) << t))) | \
            ((mP >> 1) & ((RUN3_OFF1 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x0A) << t))) | \
            ((mP >> 2) & ((RUN3_OFF2 & ~(<uint32_t> 0xFF << t)) | ((<uint32_t> 0x25) << t)))
        w3P = w & ~(maj & ~topP)
        w3O = w & ~(~maj & topP)
        for su in range(4):
            if (w >> (8 * su)) & 0x3F:      # w3P, w3O, w4, w4P are all within w
                r += SEQ_MAX[((w >> (8 * su)) & 0x3F) | (((w4 >> (8 * su)) & 0x1F) << 6)]
                a += SEQ_MAX[((w3P >> (8 * su)) & 0x3F) | (((w4P >> (8 * su)) & 0x1F) << 6)]
                b += SEQ_MAX[((w3O >> (8 * su)) & 0x3F) | ((((w4 & ~w4P) >> (8 * su)) & 0x1F) << 6)]
        cap = 50 * (dd_popcount32(rem) // NSEATS)
        r = r if r < cap else cap
        a = a if a < cap else cap
        b = b if b < cap else cap
    q = rem & (rem >> 8) & (rem >> 16) & (rem >> 24) & 0xF8     # T..A all out
    while q:
        k = dd_ctz32(q)
        q &= q - 1
        rb = (<uint32_t> 0x01010101) << k
        one = 1
        for i in range(4):
            if dd_popcount32(hn[i] & rb) != 1:
                one = 0
        if one:
            if (mP >> (8 * p.trump + k)) & 1:
                qP += QUAD_ROEM[k]
            else:
                qO += QUAD_ROEM[k]
    rb = (<uint32_t> 3) << (8 * p.trump + 5)
    if (rem & rb) == rb:
        one = 1
        for i in range(4):
            if (hn[i] & rb) == rb:
                one = 0
        if one:
            stuk = 20
    rP[0] = a + qP + stuk
    rO[0] = b + qO + stuk
    return r + qP + qO + stuk


cdef inline void sure_trumps(KPos* p, KState* s, int* sP, int* sO, int* hasP, int* hasO) noexcept nogil:
    """Points of each team's trumps that are higher than all the other team's."""
    cdef uint32_t tP = (s.hand[p.playing] | s.hand[p.playing + 2]) & p.trumpmask
    cdef uint32_t tO = (s.hand[p.playing ^ 1] | s.hand[(p.playing ^ 1) + 2]) & p.trumpmask
    cdef uint32_t hiP = tP, hiO = tO
    if tO:
        hiP = above(tP, dd_msb32(tO))
    if tP:
        hiO = above(tO, dd_msb32(tP))
    hasP[0] = hiP != 0
    hasO[0] = hiO != 0
    sP[0] = TRUMP_LANE_PTS[(hiP >> (8 * p.trump)) & 0xFF]
    sO[0] = TRUMP_LANE_PTS[(hiO >> (8 * p.trump)) & 0xFF]


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


cdef void last_trick_play(KPos* p, KState* s, int* winner_team, int* pts) noexcept nogil:
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


cdef inline int improve(int v, int* best, int* alpha, int beta) noexcept nogil:
    """One fail-soft negamax step: take v into best (raising alpha); 1 on a cutoff."""
    if v > best[0]:
        best[0] = v
        if v >= beta:
            return 1
        if v > alpha[0]:
            alpha[0] = v
    return 0


cdef inline int next_trick(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Negamax over the next trick's lines from a boundary three tricks from
    the end, fail-soft in (alpha, beta), from the leader's team's view (seats
    alternate teams): each line is valued by two_left.  Cards are tried high
    to low (measured best).
    """
    cdef uint32_t h[4]
    cdef uint32_t m0, m1, m2, m3, b0, b1, b2
    cdef int L = s.leader, t0, sg, led
    cdef int c0, c1, c2, c3, w1, w2, w3, v
    cdef int a0, be0, a1, be1, a2, be2, a3, be3, best0, best1, best2, best3
    cdef KState ns
    h[0] = s.hand[L]                # one by one: a vector gather here is slower
    h[1] = s.hand[(L + 1) & 3]
    h[2] = s.hand[(L + 2) & 3]
    h[3] = s.hand[(L + 3) & 3]
    t0 = team_of(p, L)
    sg = 1 if t0 == 0 else -1
    if sg > 0:
        a0 = alpha
        be0 = beta
    else:
        a0 = -beta
        be0 = -alpha
    best0 = -30000
    m0 = h[0]
    while m0:
        c0 = dd_msb32(m0)
        m0 &= ~((<uint32_t> 1) << c0)
        led = c0 >> 3
        b0 = (<uint32_t> 1) << c0
        a1 = -be0
        be1 = -a0
        best1 = -30000
        m1 = follow_mask(p, h[1], led, b0, 0)
        while m1:
            c1 = dd_msb32(m1)
            m1 &= ~((<uint32_t> 1) << c1)
            w1 = 1 if beats(p, c1, c0) else 0
            b1 = b0 | ((<uint32_t> 1) << c1)
            a2 = -be1
            be2 = -a1
            best2 = -30000
            m2 = follow_mask(p, h[2], led, b1, w1 == 0)
            while m2:
                c2 = dd_msb32(m2)
                m2 &= ~((<uint32_t> 1) << c2)
                w2 = 2 if beats(p, c2, c1 if w1 else c0) else w1
                b2 = b1 | ((<uint32_t> 1) << c2)
                a3 = -be2
                be3 = -a2
                best3 = -30000
                m3 = follow_mask(p, h[3], led, b2, w2 == 1)
                while m3:
                    c3 = dd_msb32(m3)
                    m3 &= ~((<uint32_t> 1) << c3)
                    w3 = 3 if beats(p, c3, c2 if w2 == 2 else (c1 if w2 == 1 else c0)) else w2
                    # Seat 3 is the other team's: its view is -sg * measure.
                    after_trick(p, s, &ns, h, c0, c1, c2, c3, w3)
                    if sg > 0:
                        v = -two_left(p, &ns, -be3, -a3)
                    else:
                        v = two_left(p, &ns, a3, be3)
                    if improve(v, &best3, &a3, be3):
                        break
                if improve(-best3, &best2, &a2, be2):
                    break
            if improve(-best2, &best1, &a1, be1):
                break
        if improve(-best1, &best0, &a0, be0):
            break
    return sg * best0


cdef inline int legal2(KPos* p, uint32_t h, int lo, int hi, int led, uint32_t trickmask,
                       int partner_wins) noexcept nogil:
    """follow_mask for a two-card hand as 2 bits (bit 0: lo legal, bit 1: hi)."""
    cdef uint32_t inled = h & suit_mask(led), m
    if inled and inled != h:
        return 1 if (inled >> lo) & 1 else 2          # exactly one card of the led suit
    m = follow_mask(p, h, led, trickmask, partner_wins)
    return <int> (((m >> lo) & 1) | (((m >> hi) & 1) << 1))


cdef inline int pick_max(int a, int b, int leg) noexcept nogil:
    """A seat's choice between its two cards' results a (low card) and b (high
    card), its team maximising: leg bit 0/1 = that card is legal.  An illegal
    card takes the other's result, so it never decides."""
    a = a if leg & 1 else b
    b = b if leg & 2 else a
    return a if a > b else b


cdef inline int pick_min(int a, int b, int leg) noexcept nogil:
    """pick_max for a seat whose team minimises."""
    a = a if leg & 1 else b
    b = b if leg & 2 else a
    return a if a < b else b


# SELV[k][i]: all ones if combination i of two_exact plays seat k's higher card in trick 7.
cdef int16_t SELV[4][16]
cdef void _init_selv():
    cdef int k, i
    for k in range(4):
        for i in range(16):
            SELV[k][i] = -((i >> k) & 1)
_init_selv()


cdef inline int legal_pre(KPos* p, uint32_t h, int lo, int led) noexcept nogil:
    """The legal cards (2 bits: low, high) of a two-card hand when they follow
    from the led suit alone, else -1 (they depend on the trick: follow_mask)."""
    cdef uint32_t inled = h & suit_mask(led)
    if inled:
        if inled != h:
            return 1 if (inled >> lo) & 1 else 2      # one card of the led suit
        if led != p.trump:
            return 3
        return -1                                     # two trumps: overtrumping
    if led == p.trump or (h & p.trumpmask) == 0:
        return 3
    return -1                                         # void with trumps: trick-dependent


cdef int reduce_legal(KPos* p, int16_t* val, uint32_t h1, uint32_t h2, uint32_t h3, int c00, int c01,
                      int c10, int c11, int c20, int c21, int c30, int c31,
                      int pre1a, int pre1b, int pre2a, int pre2b, int pre3a, int pre3b) noexcept nogil:
    """two_exact's reduction (leader's team's view) when some seat's legal
    cards depend on the trick so far: legal2 for every prefix of such a
    seat (once per prefix), legal_pre's answer (preXa/preXb: seat 0 plays
    its lower/higher card) for the others."""
    cdef int b, j, x, c, cj, cx, led, w1, w2, best0 = -30000, best1, best2, v, l1, l2, l3
    cdef uint32_t b0, b1, b2
    for b in range(2):
        c = c01 if b else c00
        led = c >> 3
        b0 = (<uint32_t> 1) << c
        best1 = 30000
        l1 = pre1b if b else pre1a
        if l1 < 0:
            l1 = legal2(p, h1, c10, c11, led, b0, 0)
        for j in range(2):
            cj = c11 if j else c10
            if not (l1 >> j) & 1:
                continue
            w1 = 1 if beats(p, cj, c) else 0
            b1 = b0 | ((<uint32_t> 1) << cj)
            best2 = -30000
            l2 = pre2b if b else pre2a
            if l2 < 0:
                l2 = legal2(p, h2, c20, c21, led, b1, w1 == 0)
            for x in range(2):
                cx = c21 if x else c20
                if not (l2 >> x) & 1:
                    continue
                w2 = 2 if beats(p, cx, cj if w1 else c) else w1
                b2 = b1 | ((<uint32_t> 1) << cx)
                l3 = pre3b if b else pre3a
                if l3 < 0:
                    l3 = legal2(p, h3, c30, c31, led, b2, w2 == 1)
                v = pick_min(val[b | (j << 1) | (x << 2)], val[b | (j << 1) | (x << 2) | 8], l3)
                best2 = v if v > best2 else best2
            best1 = best2 if best2 < best1 else best1
        best0 = best1 if best1 > best0 else best0
    return best0


ctypedef struct SeatPair:
    # One seat's two cards in two_exact, card 0 the lower, card 1 the higher
    int c0, c1
    int16_t su0, su1               # suits
    int16_t kb0, kb1               # trick-winning keys (power, +32 trump) * 4 + seat
    int16_t dp, dk, ds             # card 0 minus card 1 (dp: card 1 minus card 0)
    uint32_t n0, dn                # card 0's natural bit; both cards' bits xor-ed


cdef inline void seat_pair(KPos* p, uint32_t h, int seat, SeatPair* q) noexcept nogil:
    """Describe a hand of two cards for two_exact (a local struct: the
    compiler keeps its fields in registers)."""
    q.c0 = dd_ctz32(h)
    q.c1 = dd_msb32(h)
    q.su0 = q.c0 >> 3
    q.su1 = q.c1 >> 3
    q.kb0 = ((q.c0 & 7) + (32 if q.su0 == p.trump else 0)) * 4 + seat
    q.kb1 = ((q.c1 & 7) + (32 if q.su1 == p.trump else 0)) * 4 + seat
    q.dp = p.points[q.c1] - p.points[q.c0]
    q.dk = q.kb0 - q.kb1
    q.ds = q.su0 - q.su1
    q.n0 = p.natbit[q.c0]
    q.dn = q.n0 ^ p.natbit[q.c1]


cdef inline void led_key_terms(SeatPair* q, int led0, int led1, int16_t* A, int16_t* B,
                               int16_t* C, int16_t* D) noexcept nogil:
    """A follower's trick-7 key as A + (b0 ? B) + (bk ? C) + (b0 and bk ? D):
    b0 = the leader plays his higher card (suit led1, else led0), bk = the
    follower plays his; +64 for a card of the led suit."""
    A[0] = q.kb0 + (64 if q.su0 == led0 else 0)
    B[0] = q.kb0 + (64 if q.su0 == led1 else 0) - A[0]
    C[0] = q.kb1 + (64 if q.su1 == led0 else 0) - A[0]
    D[0] = q.kb1 + (64 if q.su1 == led1 else 0) - A[0] - B[0] - C[0]


cdef int two_exact(KPos* p, KState* s, int roem) noexcept nogil:
    """The exact minimax of the final measure with two tricks left: all 16
    combinations of the next trick (bit k of the index: seat k from the leader
    plays its higher card; the last trick gets the other cards), valued
    lane-wise without branches (the loops vectorize, int16 lanes), then
    reduced over seats 3, 2, 1, 0, an illegal card taking the other card's
    result.  Seat k's trick-winning key is (power + 32 if trump + 16 if of
    the led suit) * 4 + k: the largest wins, its low bits name the seat.
    Per-seat inputs are scalars, not arrays: arrays filled by scalar stores
    and read as vectors stall on store forwarding.  (Measured against the
    alpha-beta over the lines it replaced, ~3.2 lines a call: full deals -4%
    CPU sum, -7% median with PGO; without PGO about even.)"""
    cdef uint32_t h0, h1, h2, h3, natall, nat7, nat8, q7, q8
    cdef int16_t val[16]
    cdef int16_t R7[16]
    cdef int16_t R8[16]
    cdef int L = s.leader, t0, i, j, x, sh, tr = p.trump
    # int16 lanes: the 16 combinations fill one vector
    cdef int16_t P0 = s.pts[0], O0 = s.pts[1], T0 = s.tricks[0], T1 = s.tricks[1]
    cdef int16_t crem10 = s.crem + LAST_TRICK, madeall, isval, t16, neg, y
    cdef int16_t m0, m1, k0, k1, k2, k3, w7, w8, s0, s1, s2, s3, ld8, tw7, tw8, e0, e1, e2, e3
    cdef int16_t pts7, tp7, tp8, P, O, tP, tO, vm, vn, made, r7, r8, ptsbase, keyb0
    cdef int mode = p.mode
    cdef int16_t la, lb, ma, mb
    cdef int sg, pre1a, pre1b, pre2a, pre2b, pre3a, pre3b
    cdef SeatPair q0, q1, q2, q3
    t0 = team_of(p, L)
    sg = 1 - 2 * t0
    neg = -t0
    t16 = t0
    h0 = s.hand[L]
    h1 = s.hand[(L + 1) & 3]
    h2 = s.hand[(L + 2) & 3]
    h3 = s.hand[(L + 3) & 3]
    seat_pair(p, h0, 0, &q0)
    seat_pair(p, h1, 1, &q1)
    seat_pair(p, h2, 2, &q2)
    seat_pair(p, h3, 3, &q3)
    # Plain names for the loops below (scalars: see the docstring).
    cdef int c00 = q0.c0, c01 = q0.c1, c10 = q1.c0, c11 = q1.c1
    cdef int c20 = q2.c0, c21 = q2.c1, c30 = q3.c0, c31 = q3.c1
    cdef int16_t su00 = q0.su0, su01 = q0.su1, su11 = q1.su1, su21 = q2.su1, su31 = q3.su1
    cdef int16_t kb00 = q0.kb0, kb01 = q0.kb1, kb11 = q1.kb1, kb21 = q2.kb1, kb31 = q3.kb1
    cdef int16_t dp0 = q0.dp, dp1 = q1.dp, dp2 = q2.dp, dp3 = q3.dp
    cdef int16_t dk0 = q0.dk, dk1 = q1.dk, dk2 = q2.dk, dk3 = q3.dk
    cdef int16_t ds0 = q0.ds, ds1 = q1.ds, ds2 = q2.ds, ds3 = q3.ds
    cdef uint32_t n00 = q0.n0, n10 = q1.n0, n20 = q2.n0, n30 = q3.n0
    cdef uint32_t dn0 = q0.dn, dn1 = q1.dn, dn2 = q2.dn, dn3 = q3.dn
    cdef int16_t A1, B1, C1, D1, A2, B2, C2, D2, A3, B3, C3, D3
    ptsbase = p.points[c00] + p.points[c10] + p.points[c20] + p.points[c30]
    natall = n00 | n10 | n20 | n30 | dn0 ^ n00 | dn1 ^ n10 | dn2 ^ n20 | dn3 ^ n30
    sh = 8 * tr + 5
    # Trick 7 key of seat k by (b0, bk), + 64 in the led suit (seat 0's card's):
    # A + (b0 ? B) + (bk ? C) + (b0 and bk ? D).
    led_key_terms(&q1, su00, su01, &A1, &B1, &C1, &D1)
    led_key_terms(&q2, su00, su01, &A2, &B2, &C2, &D2)
    led_key_terms(&q3, su00, su01, &A3, &B3, &C3, &D3)
    keyb0 = kb01 - kb00
    madeall = -1 if mode == M_MARGIN else 0
    isval = -1 if mode == M_VALUE else 0
    if roem:
        for i in range(16):
            e0 = SELV[0][i]
            e1 = SELV[1][i]
            e2 = SELV[2][i]
            e3 = SELV[3][i]
            # roem of each trick (4 cards: at most one run, a quad excludes runs)
            nat7 = n00 ^ (<uint32_t> e0 & dn0) ^ n10 ^ (<uint32_t> e1 & dn1) ^ \
                n20 ^ (<uint32_t> e2 & dn2) ^ n30 ^ (<uint32_t> e3 & dn3)
            nat8 = natall ^ nat7
            q7 = nat7 & (nat7 >> 1) & (nat7 >> 2) & 0x3F3F3F3F
            q8 = nat8 & (nat8 >> 1) & (nat8 >> 2) & 0x3F3F3F3F
            r7 = (-(q7 != 0) & 20) + (-((q7 & (nat7 >> 3) & 0x1F1F1F1F) != 0) & 30)
            r8 = (-(q8 != 0) & 20) + (-((q8 & (nat8 >> 3) & 0x1F1F1F1F) != 0) & 30)
            q7 = nat7 & (nat7 >> 8) & (nat7 >> 16) & (nat7 >> 24) & 0xF8
            q8 = nat8 & (nat8 >> 8) & (nat8 >> 16) & (nat8 >> 24) & 0xF8
            r7 += (-(q7 != 0) & 100) + (-(q7 == 0x10) & 100) + (-(((nat7 >> sh) & 3) == 3) & 20)
            r8 += (-(q8 != 0) & 100) + (-(q8 == 0x10) & 100) + (-(((nat8 >> sh) & 3) == 3) & 20)
            R7[i] = r7
            R8[i] = r8
    else:
        memset(R7, 0, sizeof(R7))
        memset(R8, 0, sizeof(R8))
    for i in range(16):
        e0 = SELV[0][i]
        e1 = SELV[1][i]
        e2 = SELV[2][i]
        e3 = SELV[3][i]
        k0 = kb00 + 64 + (e0 & keyb0)                   # seat 0 leads its suit
        k1 = A1 + (e0 & B1) + (e1 & C1) + (e0 & e1 & D1)
        k2 = A2 + (e0 & B2) + (e2 & C2) + (e0 & e2 & D2)
        k3 = A3 + (e0 & B3) + (e3 & C3) + (e0 & e3 & D3)
        m0 = k0 if k0 > k1 else k1
        m1 = k2 if k2 > k3 else k3
        w7 = (m0 if m0 > m1 else m1) & 3
        # trick 8: the other cards, led by w7
        s0 = su01 + (e0 & ds0)
        s1 = su11 + (e1 & ds1)
        s2 = su21 + (e2 & ds2)
        s3 = su31 + (e3 & ds3)
        ld8 = (-(w7 == 0) & s0) | (-(w7 == 1) & s1) | (-(w7 == 2) & s2) | (-(w7 == 3) & s3)
        k0 = kb01 + (e0 & dk0) + (-(s0 == ld8) & 64)
        k1 = kb11 + (e1 & dk1) + (-(s1 == ld8) & 64)
        k2 = kb21 + (e2 & dk2) + (-(s2 == ld8) & 64)
        k3 = kb31 + (e3 & dk3) + (-(s3 == ld8) & 64)
        m0 = k0 if k0 > k1 else k1
        m1 = k2 if k2 > k3 else k3
        w8 = (m0 if m0 > m1 else m1) & 3
        pts7 = ptsbase + (e0 & dp0) + (e1 & dp1) + (e2 & dp2) + (e3 & dp3)
        tp7 = pts7 + R7[i]
        tp8 = crem10 - pts7 + R8[i]
        tw7 = (w7 ^ t16) & 1          # 1: the other team took the trick
        tw8 = (w8 ^ t16) & 1
        P = P0 + (~(-tw7) & tp7) + (~(-tw8) & tp8)
        O = O0 + (-tw7 & tp7) + (-tw8 & tp8)
        tP = T0 + 2 - tw7 - tw8
        tO = T1 + tw7 + tw8
        vm = P - O + (-(tO == 0) & PIT)
        vn = -(P + O) - (-(tP == 0) & PIT)
        made = madeall | (-(P > O) & isval)
        y = (made & vm) | (~made & vn)
        val[i] = (y ^ neg) - neg                  # sg * y
    # Legal cards by prefix (follow_mask's rules); most follow from the led suit.
    pre1a = legal_pre(p, h1, c10, su00)
    pre1b = legal_pre(p, h1, c10, su01)
    pre2a = legal_pre(p, h2, c20, su00)
    pre2b = legal_pre(p, h2, c20, su01)
    pre3a = legal_pre(p, h3, c30, su00)
    pre3b = legal_pre(p, h3, c30, su01)
    if (pre1a | pre1b | pre2a | pre2b | pre3a | pre3b) < 0:
        return sg * reduce_legal(p, val, h1, h2, h3, c00, c01, c10, c11, c20, c21, c30, c31,
                                 pre1a, pre1b, pre2a, pre2b, pre3a, pre3b)
    # Leader's team's view (sg): seats 0, 2 maximise, seats 1, 3 minimise.
    # Seat 3 (R7[j], j = seats 0-2's cards), then seat 2 (R8[j]); which cards
    # are legal depends on seat 0's card (bit 0 of j) alone here.
    la = -(pre3a & 1)
    lb = -((pre3a >> 1) & 1)
    ma = -(pre3b & 1)
    mb = -((pre3b >> 1) & 1)
    for j in range(8):
        e0 = SELV[0][j]
        k0 = (e0 & ma) | (~e0 & la)
        k1 = (e0 & mb) | (~e0 & lb)
        m0 = (k0 & val[j]) | (~k0 & val[j + 8])
        m1 = (k1 & val[j + 8]) | (~k1 & val[j])
        R7[j] = m0 if m0 < m1 else m1
    la = -(pre2a & 1)
    lb = -((pre2a >> 1) & 1)
    ma = -(pre2b & 1)
    mb = -((pre2b >> 1) & 1)
    for j in range(4):
        e0 = SELV[0][j]
        k0 = (e0 & ma) | (~e0 & la)
        k1 = (e0 & mb) | (~e0 & lb)
        m0 = (k0 & R7[j]) | (~k0 & R7[j + 4])
        m1 = (k1 & R7[j + 4]) | (~k1 & R7[j])
        R8[j] = m0 if m0 > m1 else m1
    x = pick_max(pick_min(R8[0], R8[2], pre1a), pick_min(R8[1], R8[3], pre1b), 3)
    return sg * x


cdef int two_left(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Minimax of the final measure of the mode (the value, D' or L)
    from a trick boundary with two tricks left, fail-soft in (alpha, beta).

    After the quick bounds, the exact minimax (two_exact), through the
    cache (two_slot): a fail-soft result for any window, and the table
    stores it as an exact bound.
    """
    cdef uint32_t nat = s.bnat[0] | s.bnat[1] | s.bnat[2] | s.bnat[3]
    cdef int roem, U, D, v, base = 0
    cdef uint64_t key = 0
    cdef uint32_t pts = 0
    cdef TwoEntry* e = NULL
    if p.two != NULL:
        # Start loading the cache's entry now: the quick bounds below
        # overlap the load.
        e = two_slot(p, s, &key, &pts, &base)
        dd_prefetch(e)
    # Many endgames can make no roem at all (no 3 of a suit in a row, no
    # four of a rank, no trump Q and K): then two_exact skips it.
    roem = (nat & (nat >> 1) & (nat >> 2) & 0x3F3F3F3F) != 0 or \
        (nat & (nat >> 8) & (nat >> 16) & (nat >> 24) & 0xF8) != 0 or \
        ((nat >> (8 * p.trump + 5)) & 3) == 3
    # Quick bounds first: the points still to come, U (the cards, the last
    # trick, at most 200 roem a trick), may go either way.
    U = s.crem + LAST_TRICK + (400 if roem else 0)
    D = s.pts[0] - s.pts[1]
    v = D + U + (PIT if s.tricks[1] == 0 else 0)          # >= D' >= value >= L
    if v <= alpha:
        return v
    if p.mode == M_MARGIN or (p.mode == M_VALUE and D - U > 0):
        v = D - U                                         # surely made (mode 0)
    else:
        v = -(s.pts[0] + s.pts[1] + U) - (PIT if s.tricks[0] == 0 else 0)
    if v >= beta:
        return v
    if e == NULL:
        return two_exact(p, s, roem)          # no search under way: no cache
    if e.key == key and e.pts == pts and e.gen == p.two_gen:
        return base + e.future
    v = two_exact(p, s, roem)
    e.key = key
    e.pts = pts
    e.future = <int16_t> (v - base)
    e.gen = p.two_gen
    return v


cdef inline TwoEntry* two_slot(KPos* p, KState* s, uint64_t* key, uint32_t* pts, int* base) noexcept nogil:
    """The cache entry for two_exact's result at s, and what it is keyed by.

    The same two-trick endgames come back often, from other lines of
    three_left and in later tests.  The margin is D + a future of the cards
    (and of who may take every trick), as if nat is -(P + O) + a future:
    those two are keyed without the points and the entry stores the future
    (the result less base); the value itself (not additive) keys P and O
    too.  The cache lives in the search table's side area (TTable.aux: one
    per Searcher, not per board, so that a board stays small), keyed with
    the deal's parameters and cleared with the table.  (Measured: ~60% of
    the calls hit.)"""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef uint64_t k = (<uint64_t> rem) | ((<uint64_t> dd_pext32(s.hand[1] | s.hand[3], rem)) << 32) | \
        ((<uint64_t> dd_pext32(s.hand[2] | s.hand[3], rem)) << 40) | ((<uint64_t> s.leader) << 48) | \
        ((<uint64_t> p.mode) << 50) | ((<uint64_t> p.trump) << 54) | ((<uint64_t> p.rotterdam) << 56) | \
        ((<uint64_t> p.playing) << 57) | TWO_KEY_TAG
    pts[0] = 0
    if p.mode == M_MARGIN:
        base[0] = s.pts[0] - s.pts[1]
        k |= (<uint64_t> (s.tricks[1] == 0)) << 52
    elif p.mode == M_ASNAT:
        base[0] = -(s.pts[0] + s.pts[1])
        k |= (<uint64_t> (s.tricks[0] == 0)) << 53
    else:
        base[0] = 0
        pts[0] = <uint32_t> (s.pts[0] * 1024 + s.pts[1])    # (not one 32-bit load: store forwarding)
        k |= ((<uint64_t> (s.tricks[1] == 0)) << 52) | ((<uint64_t> (s.tricks[0] == 0)) << 53)
    key[0] = k
    return p.two + (((k ^ (<uint64_t> pts[0] << 7)) * 0x9E3779B97F4A7C15ULL) >> (64 - TWO_CACHE_BITS))


cdef inline int after_trick(KPos* p, KState* s, KState* ns, uint32_t* h, int c0, int c1, int c2,
                            int c3, int w) noexcept nogil:
    """Fill ns (the fields two_left reads) with the boundary after the trick
    c0..c3 (by seat from s's leader, index w winning it) from s."""
    cdef int x, pts, team, r
    cdef uint32_t tn = p.natbit[c0] | p.natbit[c1] | p.natbit[c2] | p.natbit[c3]
    cdef uint32_t tm = ((<uint32_t> 1) << c0) | ((<uint32_t> 1) << c1) | ((<uint32_t> 1) << c2) | \
        ((<uint32_t> 1) << c3)
    pts = p.points[c0] + p.points[c1] + p.points[c2] + p.points[c3]
    r = trick_roem(p, tn)
    team = team_of(p, s.leader + w)
    for x in range(4):
        ns.hand[x] = s.hand[x] & ~tm
        ns.bnat[x] = s.bnat[x] & ~tn
    ns.pts[0] = s.pts[0]
    ns.pts[1] = s.pts[1]
    ns.tricks[0] = s.tricks[0]
    ns.tricks[1] = s.tricks[1]
    ns.pts[team] += pts + r
    ns.tricks[team] += 1
    ns.crem = s.crem - pts
    ns.leader = (s.leader + w) & 3
    return 0


cdef int three_left(KPos* p, KState* s, int alpha, int beta) noexcept nogil:
    """Minimax of the final measure from a trick boundary with three tricks
    left, fail-soft in (alpha, beta): the next trick's lines, each line's
    remaining two tricks by two_left."""
    return next_trick(p, s, alpha, beta)


cdef inline int roem_cannot_decide(KPos* p, KState* s, int D, int dlo, int dhi, int allP,
                                   int allO) noexcept nogil:
    """In the margin or the as-if-nat mode, would the quick bounds fail to
    settle "value >= p.beta" at this boundary even if no roem were to come
    (dlo <= future margin <= dhi then)?  Then no roem bound can make them
    settle it (roem only widens them)."""
    cdef int lo, hi
    if p.mode == M_MARGIN:
        lo = D + dlo
        hi = D + dhi + (PIT if allP else 0)
    elif p.mode == M_ASNAT:
        lo = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1]) - (PIT if allO else 0)
        hi = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
    else:
        return 0
    lo += lo & 1                        # rounded inward to even, as the bounds are
    hi -= hi & 1
    return lo < p.beta and hi > p.beta - 1


cdef void boundary(KPos* p, KState* s) noexcept nogil:
    """Classify a trick boundary and cache banked value and quick bounds."""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef int U, R, RP, RO, D, allP, allO, wt, tp, v, sP, sO, hasP, hasO, dlo, dhi
    cdef KState fin
    s.leaf = 0                  # which endgame leaf solves this boundary (k_leaf)
    s.keyed = 0
    if not (p.flags & (F_NO_BOUNDS | F_NO_LEAF)) and \
            (dd_popcount32(rem) == 2 * NSEATS or dd_popcount32(rem) == 3 * NSEATS):
        s.leaf = dd_popcount32(rem) // NSEATS
    if rem == 0:
        s.cls = C_DONE
        if p.mode == M_MARGIN:
            s.banked = final_margin(s)
        elif p.mode == M_ASNAT:
            s.banked = final_asnat(s)
        else:
            s.banked = final_value(s)
        s.flo = 0
        s.fhi = 0
        return
    allP = s.tricks[1] == 0
    allO = s.tricks[0] == 0
    D = s.pts[0] - s.pts[1]
    if p.mode == M_MARGIN and dd_popcount32(rem) == NSEATS:
        # The margin: its future is additive, the class is always MADE.
        last_trick_play(p, s, &wt, &tp)
        s.cls = C_MADE
        s.banked = D
        s.flo = tp + (PIT if allP else 0) if wt == 0 else -tp
        s.fhi = s.flo
        return
    if dd_popcount32(rem) == NSEATS:
        # One trick left: play is forced, the future is exact.
        last_trick_play(p, s, &wt, &tp)
        fin.pts[0] = s.pts[0]
        fin.pts[1] = s.pts[1]
        fin.tricks[0] = s.tricks[0]
        fin.tricks[1] = s.tricks[1]
        fin.pts[wt] += tp
        fin.tricks[wt] += 1
        v = final_asnat(&fin) if p.mode == M_ASNAT else final_value(&fin)
        if p.flags & F_NO_CLASSES and p.mode != M_ASNAT:
            s.cls = C_OPEN
            s.banked = 0
        elif fin.pts[0] > fin.pts[1] and p.mode != M_ASNAT:
            s.cls = C_MADE
            s.banked = D
        else:
            s.cls = C_NAT
            s.banked = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
        s.flo = v - s.banked
        s.fhi = s.flo
        return
    U = s.crem + LAST_TRICK
    # Trumps above every trump of the other team win whatever trick they fall
    # in: their points surely go to their team, and that team takes a trick.
    sure_trumps(p, s, &sP, &sO, &hasP, &hasO)
    if hasO:
        allP = 0
    if hasP:
        allO = 0
    dlo = -U + 2 * sP                    # bounds on the future margin P - O, roem aside
    dhi = U - 2 * sO
    if roem_cannot_decide(p, s, D, dlo, dhi, allP, allO):
        # The quick bounds cannot settle this node for the test under way
        # even with no roem to come: a bound of 200 a trick (four jacks;
        # a run and stuk make 70) serves, and the roem bound's work is
        # saved.  (The value mode needs it for the class: always worked out.)
        R = 200 * (dd_popcount32(rem) // NSEATS)
        RP = R
        RO = R
    else:
        R = roem_bound(p, s, &RP, &RO)
    dlo -= RO
    dhi += RP
    if p.mode == M_MARGIN:
        s.cls = C_MADE
    elif p.mode == M_ASNAT:
        s.cls = C_NAT
    elif p.flags & F_NO_CLASSES:
        s.cls = C_OPEN
    elif D + dlo > 0:
        s.cls = C_MADE
    elif D + dhi <= 0:
        s.cls = C_NAT
    else:
        s.cls = C_OPEN
    if s.cls == C_MADE:
        s.banked = D
        s.flo = dlo
        s.fhi = dhi + (PIT if allP else 0)
    elif s.cls == C_NAT:
        s.banked = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1])
        s.flo = -R - (PIT if allO else 0)
        s.fhi = 0
    else:
        s.banked = 0
        s.flo = -(ALL_CARD_POINTS + s.roem[0] + s.roem[1] + R) - (PIT if allO else 0)
        if D + dhi > 0:
            s.fhi = D + dhi + (PIT if allP else 0)
        else:                   # cannot be made
            s.fhi = -ALL_CARD_POINTS - s.roem[0] - s.roem[1]
    # Every final value is even (see the module doc): round the bounds on the
    # total inward to even numbers.
    s.flo += (s.banked + s.flo) & 1
    s.fhi -= (s.banked + s.fhi) & 1
    if p.flags & F_NO_BOUNDS:
        s.flo = -30000 + 1
        s.fhi = 30000 - 1
    # The table is probed next unless the quick bounds settle the node for
    # the test under way (they do at a quarter of the boundaries; then no
    # key is needed): start loading its bucket now, so that the load
    # overlaps the way back to the core (measured: -2 to -4% CPU).
    if s.banked + s.flo >= p.beta or s.banked + s.fhi <= p.beta - 1:
        return
    boundary_key(p, s)
    s.keyed = 1
    if p.tt != NULL:
        dd_prefetch(tt_bucket(p.tt, s.key0, s.key1))


# ---------------------------------------------------------------- ops

cdef void k_make(void* vp, int c) noexcept nogil:
    # Mid-trick moves change the state in place (k_unmake takes them back
    # from the trick itself); only a trick's last card pushes a copy, so the
    # stack holds one state per trick.  The trick's end is a separate
    # function: this common path stays a cheap leaf.
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    cdef int seat = s.turn
    cdef uint32_t bit = (<uint32_t> 1) << c
    if s.nt == NSEATS - 1:
        END_TRICK(p, c)
        return
    s.hand[seat] &= ~bit
    s.trick[s.nt] = c
    s.trickmask |= bit
    s.tricknat |= p.natbit[c]
    s.winhist = (s.winhist << 2) | s.win
    if s.nt == 0:
        s.win = 0
    elif beats(p, c, s.trick[s.win]):
        s.win = s.nt
    s.nt += 1
    s.turn = (seat + 1) & 3


# Called through a pointer so that the compiler cannot inline it into k_make,
# whose common path then saves no registers (measured: fewer instructions).
cdef void (*END_TRICK)(KPos* p, int c) noexcept nogil


cdef void end_trick(KPos* p, int c) noexcept nogil:
    """Play the trick's last card c on a copy of the state and settle the trick."""
    cdef KState* s = p.cur + 1
    cdef int seat, w, team, tp, r
    cdef uint32_t bit = (<uint32_t> 1) << c
    memcpy(s, p.cur, sizeof(KState))
    p.cur += 1
    seat = s.turn
    s.hand[seat] &= ~bit
    s.trick[3] = c
    s.winhist = (s.winhist << 2) | s.win
    if beats(p, c, s.trick[s.win]):
        s.win = 3
    w = (s.leader + s.win) & 3
    team = team_of(p, w)
    tp = p.points[s.trick[0]] + p.points[s.trick[1]] + p.points[s.trick[2]] + p.points[c]
    s.crem -= tp
    r = trick_roem(p, s.tricknat | p.natbit[c])
    if (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) == 0:
        tp += LAST_TRICK
    s.pts[team] += tp + r
    s.roem[team] += r
    s.tricks[team] += 1
    s.ntricks += 1
    s.last_roem = r
    s.last_winner = w
    s.leader = w
    s.turn = w
    s.nt = 0
    s.bnat[0] &= ~(s.tricknat | p.natbit[c])
    s.bnat[1] &= ~(s.tricknat | p.natbit[c])
    s.bnat[2] &= ~(s.tricknat | p.natbit[c])
    s.bnat[3] &= ~(s.tricknat | p.natbit[c])
    s.trickmask = 0
    s.tricknat = 0
    boundary(p, s)


cdef void k_set_mode(void* vp, int mode, int beta) noexcept nogil:
    """Search the value (mode 0), the margin D' (mode 1) or the value as if
    the deal were nat (mode 2) from here on.

    The core names the mode of each null-window test: mode 1 when the test
    is "value >= t" with t >= 1, mode 2 for its lower measure.  See the
    module doc, "The margin" and "As if nat".  The current trick's class and
    caches follow the mode.
    """
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    cdef KState t
    cdef int i
    if p.fixed >= 0:
        mode = p.fixed
    p.beta = beta
    # Always reclassify, even in the same mode: after a search below a
    # trick's last card the trick may carry a class from another mode.
    p.mode = mode
    if s.nt == 0:
        boundary(p, s)
        return
    # Reclassify from the current trick's start (its cards back in the
    # hands): a mid-trick position carries its trick's class (pruning).
    memcpy(&t, s, sizeof(KState))
    for i in range(s.nt):
        t.hand[(s.leader + i) & 3] |= (<uint32_t> 1) << s.trick[i]
    boundary(p, &t)
    s.cls = t.cls
    s.banked = t.banked
    s.flo = t.flo
    s.fhi = t.fhi


cdef int nearest_value(int v, int up) noexcept nogil:
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


cdef int k_snap(void* vp, int v, int up) noexcept nogil:
    cdef KPos* p = <KPos*> vp
    if p.fixed == M_MARGIN:         # every test searches D' (tests): any even number
        return v + (v & 1) if up else v - (v & 1)
    return nearest_value(v, up)


cdef void k_unmake(void* vp) noexcept nogil:
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    cdef int c, seat
    if s.nt == 0:
        p.cur -= 1               # a completed trick: its copy goes
        return
    s.nt -= 1
    c = s.trick[s.nt]
    seat = (s.leader + s.nt) & 3
    s.hand[seat] |= (<uint32_t> 1) << c
    s.trickmask &= ~((<uint32_t> 1) << c)
    s.tricknat &= ~p.natbit[c]
    s.win = s.winhist & 3
    s.winhist >>= 2
    s.turn = seat


cdef int k_leaf(void* vp, int alpha, int beta, int* value) noexcept nogil:
    """GameOps.leaf: a boundary with two or three tricks left, which the
    quick bounds and the table did not settle, is solved on the masks by
    two_left / three_left (module doc, "The endgame leaf")."""
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    if not s.leaf or s.nt:
        return 0
    if s.leaf == 3:
        value[0] = three_left(p, s, alpha, beta)
    else:
        value[0] = two_left(p, s, alpha, beta)
    return 1


cdef int k_max_to_move(void* vp) noexcept nogil:
    cdef KPos* p = <KPos*> vp
    return team_of(p, p.cur.turn) == 0


cdef int k_node_kind(void* vp) noexcept nogil:
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    if s.nt != 0:
        return NODE_INNER
    if s.cls == C_DONE:
        return NODE_TERMINAL
    return NODE_BOUNDARY


cdef int k_node_info(void* vp, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    """GameOps.node_info: the node's kind, banked value, side and quick bounds."""
    cdef KState* s = (<KPos*> vp).cur
    cdef int kind = k_node_kind(vp)
    banked[0] = s.banked
    ismax[0] = k_max_to_move(vp)
    if kind == NODE_BOUNDARY:
        lo[0] = s.flo
        hi[0] = s.fhi
    return kind


cdef int k_terminal_future(void* vp) noexcept nogil:
    return 0


cdef inline uint32_t canonical_rem(KPos* p, KState* s, uint32_t rem) noexcept nogil:
    """The remaining set as the table key sees it: in a suit where no possible
    sequence holds a worthless card (7 8 9, trumps 7 8), those left count
    only by number and order, so they are keyed as the lowest ones.

    Such positions are the same game: the cards keep their order (who beats
    whom) and their points (none); they can be part of no roem (no sequence,
    four 7s, 8s or 9s score nothing, stuk is the trump Q and K), and the
    sequences among the other cards are the same.  The owners (k0) are
    listed in card order, so they line up.  No other position has the
    canonical cards: the lowest 1 or 2 make no window, and 7 8 9 (or trump
    7 8) left are the canonical set themselves.  Otherwise the suit keeps its
    exact cards.
    """
    cdef uint32_t n = s.bnat[0] | s.bnat[1] | s.bnat[2] | s.bnat[3]
    cdef uint32_t bad = 0, h, w, low, out = rem
    cdef int i, su, k
    for i in range(4):
        h = s.bnat[i]
        bad |= (h & (h >> 1)) | ((h >> 1) & (h >> 2)) | (h & (h >> 2))
    w = n & (n >> 1) & (n >> 2) & 0x3F3F3F3F & ~bad         # possible 3-run starts
    for su in range(4):
        # Windows starting at 7, 8 or 9 (trumps: 7, 8) hold a worthless card.
        if (w >> (8 * su)) & (0x03 if su == p.trump else 0x07):
            continue
        low = (rem >> (8 * su)) & (0x03 if su == p.trump else 0x07)
        k = dd_popcount32(low)
        out = (out & ~(low << (8 * su))) | ((((<uint32_t> 1) << k) - 1) << (8 * su))
    return out


cdef void boundary_key(KPos* p, KState* s) noexcept nogil:
    """The exact table key of boundary s (see the module docstring): 2 owner
    bits per remaining card in key0; the remaining set, leader, pit flags,
    class, P/O (OPEN only) and the game's parameters in key1."""
    cdef uint32_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef uint64_t lo = dd_pext32(s.hand[1] | s.hand[3], rem)
    cdef uint64_t hi = dd_pext32(s.hand[2] | s.hand[3], rem)
    cdef uint32_t keyrem = canonical_rem(p, s, rem)
    cdef uint64_t allP = s.tricks[1] == 0
    cdef uint64_t allO = s.tricks[0] == 0
    cdef uint64_t extra = 0
    if s.cls == C_MADE:
        allO = 0                      # the other team cannot take every trick
    elif s.cls == C_NAT:
        allP = 0                      # the playing team cannot take every trick
    else:
        extra = ((<uint64_t> s.pts[0]) << 38) | ((<uint64_t> s.pts[1]) << 48)
    s.key0 = (lo | (hi << 32)) ^ KEY_SALT0
    s.key1 = ((<uint64_t> keyrem) | ((<uint64_t> s.leader) << 32) | (allP << 34) | (allO << 35) |
              ((<uint64_t> s.cls) << 36) | extra | ((<uint64_t> p.trump) << 58) |
              ((<uint64_t> p.rotterdam) << 60) | ((<uint64_t> p.playing) << 61)) ^ KEY_SALT1


cdef void k_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """GameOps.tt_key: the key boundary() worked out (or works it out now)."""
    cdef KState* s = (<KPos*> vp).cur
    if not s.keyed:
        boundary_key(<KPos*> vp, s)
        s.keyed = 1
    k0[0] = s.key0
    k1[0] = s.key1
    depth[0] = dd_popcount32(s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) // NSEATS + 1


cdef void k_use_table(void* vp, TTable* t) noexcept nogil:
    """GameOps.use_table: the search's table (prefetch); NULL when it ends,
    and then no test is under way either (boundary() works everything out)."""
    cdef KPos* p = <KPos*> vp
    p.tt = t
    if t == NULL:
        p.two = NULL
        p.beta = VALUE_INF
    else:
        p.two = <TwoEntry*> t.aux
        p.two_gen = t.gen


cdef inline int trick_certain(KPos* p, KState* s, int c) noexcept nogil:
    """+1 if the mover's team surely wins the current trick when he plays c,
    -1 if it surely loses it, 0 if later players may decide."""
    cdef int w = c, wseat = s.turn, led = c >> 3, k, later
    if s.nt:
        led = s.trick[0] >> 3
        if not beats(p, c, s.trick[s.win]):
            w = s.trick[s.win]
            wseat = (s.leader + s.win) & 3
    for k in range(s.nt + 1, NSEATS):
        later = (s.leader + k) & 3
        if team_of(p, later) != team_of(p, wseat) and can_beat(p, s, later, led, w):
            return 0
    return 1 if team_of(p, wseat) == team_of(p, s.turn) else -1


cdef inline uint32_t seq_live(uint32_t U, uint32_t* H, int nh) noexcept nogil:
    """Natural positions p such that some 3-window of p's suit containing p
    has its two other cards in U and not both in one of the sets H[0..nh)
    (cards of U outside every H are fixed cards, each of its own player)."""
    cdef uint32_t r1 = (U >> 1) & 0x7F7F7F7F, r2 = (U >> 2) & 0x3F3F3F3F
    cdef uint32_t l1 = (U << 1) & 0xFEFEFEFEU, l2 = (U << 2) & 0xFCFCFCFCU
    cdef uint32_t d1 = 0, d2 = 0
    cdef int i
    # d1: cards whose next one up is in the same set H[i]; d2: the same two
    # up.  A window p, p+1, p+2 has two of its cards in one set when p+1 is
    # in d1 (right), p-1 in d2 (middle) or p-2 in d1 (left).
    for i in range(nh):
        d1 |= H[i] & (H[i] >> 1) & 0x7F7F7F7F
        d2 |= H[i] & (H[i] >> 2) & 0x3F3F3F3F
    return (r1 & r2 & ~(d1 >> 1)) | (l1 & r1 & ~((d2 << 1) & 0xFEFEFEFEU)) | \
        (l1 & l2 & ~((d1 << 2) & 0xFCFCFCFCU))


cdef inline uint32_t quad_stuk_live(KPos* p, uint32_t U, uint32_t* H, int nh) noexcept nogil:
    """Natural positions whose card could make four of a kind (its three
    mates all in U, no two in one set H[i]) or stuk (its mate in U)."""
    cdef uint32_t out = 0, rb, q, kb, qb
    cdef int k, i, ok
    q = U & (U >> 8) & (U >> 16) & 0xF8
    q |= U & (U >> 8) & (U >> 24) & 0xF8
    q |= U & (U >> 16) & (U >> 24) & 0xF8
    q |= (U >> 8) & (U >> 16) & (U >> 24) & 0xF8     # ranks T..A with 3 cards in U
    while q:
        k = dd_ctz32(q)
        q &= q - 1
        rb = (<uint32_t> 0x01010101) << k
        if dd_popcount32(U & rb) != 3:
            continue
        ok = 1
        for i in range(nh):
            if dd_popcount32(H[i] & rb) > 1:
                ok = 0
        if ok:
            out |= rb & ~U
    qb = (<uint32_t> 1) << (8 * p.trump + 5)
    kb = qb << 1
    if U & qb:
        out |= kb
    if U & kb:
        out |= qb
    return out


cdef uint32_t roem_live(KPos* p, KState* s) noexcept nogil:
    """Natural positions where a card of the player to move could be part of
    roem, in the current trick or in a later one.

    A card x of the mover is part of roem in a trick only with cards of the
    three other players, one each: a sequence needs a 3-window of x's suit
    around x whose two other cards come from two different players; four of
    a kind needs x's three mates from the three others; stuk needs the trump
    K/Q mate.  In the current trick the others are the cards already in it
    (each its own player's) and the hands of the players still to play; in a
    later trick the three other hands (as they are now: later hands are
    subsets).  Positions outside the returned mask never take part in roem.
    """
    cdef uint32_t H[3]
    cdef uint32_t U = 0, out, h, ledm
    cdef int i, seat, nh = 0
    for i in range(1, 4):
        H[i - 1] = s.bnat[(s.turn + i) & 3] & ~s.tricknat
        U |= H[i - 1]
    out = seq_live(U, H, 3) | quad_stuk_live(p, U, H, 3)
    if s.nt:
        # The current trick: the cards in it and the players after the mover.
        # A player holding the led suit must play one of it.
        U = s.tricknat
        ledm = suit_mask(s.trick[0] >> 3)
        for i in range(s.nt + 1, NSEATS):
            seat = (s.leader + i) & 3
            h = s.bnat[seat] & ~s.tricknat
            if h & ledm:
                h &= ledm
            H[nh] = h
            U |= H[nh]
            nh += 1
        out |= seq_live(U, H, nh) | quad_stuk_live(p, U, H, nh)
    return out


cdef int k_equivalent(void* vp, int a, int b) noexcept nogil:
    """Are a and b (legal cards of the mover) interchangeable: same suit, no
    other live card between them, roem-neutral, worth the same (or nat
    settled)?  Then they have the same value (see pruned_moves)."""
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    cdef uint32_t others, lo, hi
    if (a >> 3) != (b >> 3) or a == b:
        return a == b
    if p.points[a] != p.points[b] and s.cls != C_NAT:
        return 0
    others = ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[s.turn]) | s.trickmask
    lo = a if a < b else b
    hi = b if a < b else a
    if others & (((<uint32_t> 1) << hi) - ((<uint32_t> 2) << lo)):
        return 0
    return ((p.natbit[a] | p.natbit[b]) & roem_live(p, s)) == 0


cdef int pruned_moves(KPos* p, KState* s, uint32_t legal, int* moves) noexcept nogil:
    """The legal moves less those another one makes redundant.

    Cards of the mover's hand form a *group* when no other live card (in
    another hand or in the trick) lies between them in power: they take
    tricks alike, now and later.  A card is *roem-neutral* when it can never
    be part of roem, in this trick or a later one (outside ``roem_live``).
    Swapping two roem-neutral cards of a group changes nothing but where
    their points land, so within a group's roem-neutral cards:
    - when the current trick surely goes to the other team, only the one
      worth least needs trying (the other keeps its points for a trick the
      mover's team may yet win: never worse), when it surely goes to the
      mover's team only the one worth most (the value is monotone in the
      playing team's share of a fixed total, nat included);
    - otherwise cards worth the same are interchangeable: keep one;
    - once nat is settled (class NAT) points do not count at all: keep one.
    Cards that are not roem-neutral are always kept.
    """
    cdef uint32_t others = ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[s.turn]) | s.trickmask
    cdef uint32_t live = 0
    cdef uint32_t L, group, between, neutral, g
    cdef int n = 0, su, c, prev, status, best, bc, k, x, ready = 0
    cdef uint32_t nb, rest
    # Mostly every group is a single card: no two legal cards are next to
    # each other among the live cards (legal or others, packed in order).
    # Then the moves are the legal cards, suit by suit, high to low.
    nb = dd_pext32(legal, legal | others)
    rest = legal
    if (nb & (nb >> 1)) == 0:
        while rest:
            su = dd_ctz32(rest) >> 3
            g = rest & suit_mask(su)
            rest &= ~g
            n += cards_high_to_low(g, moves + n)
        return n
    while rest:         # suit by suit, lowest first
        su = dd_ctz32(rest) >> 3
        L = rest & suit_mask(su)
        rest &= ~L
        while L:
            # The next group: from the highest remaining legal card down.
            c = dd_msb32(L)
            group = (<uint32_t> 1) << c
            prev = c
            L &= ~group
            while L:
                c = dd_msb32(L)
                between = ((<uint32_t> 1) << prev) - ((<uint32_t> 2) << c)
                if others & between:
                    break
                group |= (<uint32_t> 1) << c
                L &= ~((<uint32_t> 1) << c)
                prev = c
            if (group & (group - 1)) == 0:
                moves[n] = prev                 # a group of one
                n += 1
                continue
            if not ready:
                live = roem_live(p, s)
                ready = 1
            # Split off the cards that are not roem-neutral.
            neutral = 0
            g = group
            while g:
                x = dd_ctz32(g)
                g &= g - 1
                if p.natbit[x] & live:
                    moves[n] = x
                    n += 1
                else:
                    neutral |= (<uint32_t> 1) << x
            if neutral == 0:
                continue
            if s.cls == C_NAT:
                # Nat is settled: card points no longer count, only tricks
                # and roem, so the group's roem-neutral cards are all alike.
                moves[n] = dd_msb32(neutral)
                n += 1
                continue
            status = trick_certain(p, s, dd_msb32(neutral))
            if status != 0:
                # The cheapest (sure loss) or dearest (sure win) card.
                best = -1
                bc = -1
                g = neutral
                while g:
                    x = dd_ctz32(g)
                    g &= g - 1
                    k = p.points[x] if status > 0 else -p.points[x]
                    if bc < 0 or k > best:
                        best = k
                        bc = x
                moves[n] = bc
                n += 1
            else:
                # One card per point value.
                g = neutral
                while g:
                    x = dd_msb32(g)
                    g &= ~((<uint32_t> 1) << x)
                    moves[n] = x
                    n += 1
                    k = p.points[x]
                    nb = g
                    while nb:
                        c = dd_ctz32(nb)
                        nb &= nb - 1
                        if p.points[c] == k:
                            g &= ~((<uint32_t> 1) << c)
    return n


cdef int k_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef KPos* p = <KPos*> vp
    cdef KState* s = p.cur
    cdef uint32_t legal = legal_mask(p, s)
    if (legal & (legal - 1)) == 0:
        moves[0] = dd_ctz32(legal)              # forced (or nothing left)
        return 1 if legal else 0
    return GEN_CHOICES(p, s, legal, moves, prune)


# A pointer, like END_TRICK: forced moves (a quarter of the nodes) skip the
# register saves and stack frame of the full generator.
cdef int (*GEN_CHOICES)(KPos* p, KState* s, uint32_t legal, int* moves, int prune) noexcept nogil


cdef int gen_choices(KPos* p, KState* s, uint32_t legal, int* moves, int prune) noexcept nogil:
    """The moves when there is a choice: pruned (prune set) and ordered."""
    cdef int n = 0
    cdef int scores[MAX_MOVES]
    if prune and not (p.flags & F_NO_PRUNE):
        n = pruned_moves(p, s, legal, moves)
    else:
        n = cards_high_to_low(legal, moves)
    if n <= 1:
        return n
    # Heuristic worth of each move; only the order matters.
    if s.nt == 0:
        lead_scores(p, s, moves, scores, n)
    else:
        follow_scores(p, s, moves, scores, n)
    sort_moves(moves, scores, n)
    return n


cdef inline int can_beat(KPos* p, KState* s, int seat, int led, int w) noexcept nogil:
    """Does `seat` hold a card that would beat card w in a trick led in suit `led`?"""
    cdef uint32_t h = s.hand[seat]
    cdef uint32_t inled = h & suit_mask(led)
    if inled:
        return (w >> 3) == led and above(inled, w) != 0
    if (w >> 3) == p.trump:
        return above(h & p.trumpmask, w) != 0
    return (h & p.trumpmask) != 0


cdef inline int later_can_beat(KPos* p, KState* s, int wseat, int led, int wc) noexcept nogil:
    """Can a player after the mover, of the other team than wseat's, beat card wc?"""
    cdef int k, later
    for k in range(s.nt + 1, NSEATS):
        later = (s.leader + k) & 3
        if team_of(p, later) != team_of(p, wseat) and can_beat(p, s, later, led, wc):
            return 1
    return 0


cdef void follow_scores(KPos* p, KState* s, int* moves, int* scores, int n) noexcept nogil:
    """Order of a follower's cards: win a trick your team keeps with the most
    points (with the lowest trump that wins it safely), add points to a trick
    your partner surely wins, throw the least on a trick surely lost; the
    last player sees the trick's exact worth.  A card's worth counts the roem
    it makes with the cards in the trick.  A card thrown on a trick it does
    not win is kept if it is its suit's best card still out (a trick it
    would win later).  (All of a node's moves at once: what does not depend
    on the card is worked out once.)"""
    cdef int seat = s.turn, me = team_of(p, seat)
    cdef int c, power, suit, pts, wc, wseat, tp, i, led, safe, safe0 = -1, base, wt0, mine, r, top
    cdef int wc0 = s.trick[s.win], wseat0 = (s.leader + s.win) & 3
    cdef uint32_t others = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[seat]
    cdef uint32_t opp = s.hand[(seat + 1) & 3] | s.hand[(seat + 3) & 3]
    led = s.trick[0] >> 3
    if s.nt == NSEATS - 1:
        # Last to play: the exact worth of the trick for my team.
        base = p.points[s.trick[0]] + p.points[s.trick[1]] + p.points[s.trick[2]]
        wt0 = team_of(p, wseat0) == me
        for i in range(n):
            c = moves[i]
            tp = base + p.points[c] + trick_roem(p, s.tricknat | p.natbit[c])
            if beats(p, c, wc0):
                if (c >> 3) == p.trump:
                    # my trump's own points are mine whenever it wins: the lowest that wins
                    scores[i] = 8 * (tp - p.points[c]) - (c & 7)
                else:
                    scores[i] = 8 * tp
                continue
            top = (c >> 3) != p.trump and above(others & suit_mask(c >> 3), c) == 0
            if wt0:
                scores[i] = 8 * (tp - (p.points[c] + 1 if top else 0))
            else:
                scores[i] = -8 * tp
        return
    for i in range(n):
        c = moves[i]
        power = c & 7
        suit = c >> 3
        # The card's points and the roem it makes with the cards in the trick
        r = trick_roem(p, s.tricknat | p.natbit[c])
        pts = p.points[c] + r
        # Can a later player of the other team than the winner's take the trick?
        if beats(p, c, wc0):
            wc = c
            wseat = seat
            safe = not later_can_beat(p, s, seat, led, c)
        else:
            wc = wc0
            wseat = wseat0
            if safe0 < 0:
                safe0 = not later_can_beat(p, s, wseat0, led, wc0)
            safe = safe0
        top = wc != c and suit != p.trump and above(others & suit_mask(suit), c) == 0
        if team_of(p, wseat) == me:
            if safe:
                if wc == c and (suit == p.trump or
                                above(opp & suit_mask(suit), c) == 0):
                    # a card that wins later too (a trump, or no opponent holds a
                    # higher card of its suit): win with the lowest that is safe
                    scores[i] = 100 + r - power
                elif top:
                    scores[i] = 100 + r - 1         # keep a winner for later
                else:
                    scores[i] = 100 + pts
            elif wc == c:
                scores[i] = 40 - pts - power        # winning for now with my card
            else:
                scores[i] = 30 - pts - power        # partner ahead for now
        elif safe:
            scores[i] = -2 * pts - power            # lost trick: cheapest card
        else:
            scores[i] = 20 - pts - power


cdef void lead_scores(KPos* p, KState* s, int* moves, int* scores, int n) noexcept nogil:
    """Order of leads: the top trump while opponents hold trumps, sure
    winners with points, low cards to partner's winner, then the cheapest."""
    cdef int seat = s.turn, me = team_of(p, seat)
    cdef int c, power, suit, pts, ruff, top, i
    cdef uint32_t lhs = s.hand[(seat + 1) & 3], rhs = s.hand[(seat + 3) & 3]
    cdef uint32_t notmine = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[seat]
    cdef uint32_t opp = (lhs | rhs) & p.trumpmask
    cdef uint32_t lane, others, higher
    for i in range(n):
        c = moves[i]
        power = c & 7
        suit = c >> 3
        pts = p.points[c]
        lane = suit_mask(suit)
        others = notmine & lane
        higher = above(others, c) & lane
        if suit == p.trump:
            if higher == 0 and opp:
                scores[i] = 70 + pts                # the top trump draws trumps
            elif me == 0 and opp:
                scores[i] = 30 - power
            else:
                scores[i] = -20 - pts - power
            continue
        ruff = ((lhs & lane) == 0 and (lhs & p.trumpmask) != 0) or \
               ((rhs & lane) == 0 and (rhs & p.trumpmask) != 0)
        if higher == 0:
            scores[i] = (5 - pts) if ruff else (60 + pts)
            continue
        top = dd_msb32(others)
        if not ruff and (s.hand[(seat + 2) & 3] >> top) & 1:
            scores[i] = 40 - pts - power            # low to partner's winner
        else:
            scores[i] = -pts - power


END_TRICK = end_trick
GEN_CHOICES = gen_choices

cdef GameOps KLAVERJAS_OPS
KLAVERJAS_OPS.gen_moves = k_gen_moves
KLAVERJAS_OPS.make = k_make
KLAVERJAS_OPS.unmake = k_unmake
KLAVERJAS_OPS.max_to_move = k_max_to_move
KLAVERJAS_OPS.node_kind = k_node_kind
KLAVERJAS_OPS.terminal_future = k_terminal_future
KLAVERJAS_OPS.tt_key = k_tt_key
KLAVERJAS_OPS.equivalent = k_equivalent
KLAVERJAS_OPS.set_mode = k_set_mode
KLAVERJAS_OPS.snap = k_snap
KLAVERJAS_OPS.leaf = k_leaf
KLAVERJAS_OPS.node_info = k_node_info
KLAVERJAS_OPS.use_table = k_use_table


cdef class KlaverjasBoard(Board):
    """A Klaverjas deal in C form, searchable by ddcards._core.search.Searcher.

    hands: four uint32 masks (card = suit * 8 + power, see the module doc);
    trump: suit index; playing: the playing team (0: seats 0 and 2, 1: seats
    1 and 3); rotterdam: Rotterdam rules; leader: the seat leading trick 1.
    The search assumes a whole deal of 32 cards (the nat class and the
    lattice of values count on 162 card points); a board of fewer cards is
    for playing out and its table key only (tests).
    """
    cdef KPos* kp

    def __cinit__(self, hands, int trump, int playing, bint rotterdam=False, int leader=0,
                  int flags=0):
        if not 0 <= trump <= 3 or playing not in (0, 1) or not 0 <= leader <= 3:
            raise ValueError("trump 0..3, playing 0/1, leader 0..3")
        self.kp = <KPos*> PyMem_Calloc(1, sizeof(KPos))
        if self.kp == NULL:
            raise MemoryError()
        p = self.kp
        p.trump = trump
        p.playing = playing
        p.rotterdam = rotterdam
        p.flags = flags
        p.fixed = -1
        p.beta = VALUE_INF
        p.trumpmask = suit_mask(trump)
        for c in range(32):
            if c >> 3 == trump:
                p.points[c] = TRUMP_PTS[c & 7]
                p.natbit[c] = (<uint32_t> 1) << ((c & ~7) + TRUMP_NAT[c & 7])
            else:
                p.points[c] = PLAIN_PTS[c & 7]
                p.natbit[c] = (<uint32_t> 1) << ((c & ~7) + PLAIN_NAT[c & 7])
        p.cur = &p.st[0]
        s = &p.st[0]
        crem = 0
        for i in range(4):
            s.hand[i] = hands[i]
            for c in range(32):
                if (hands[i] >> c) & 1:
                    crem += p.points[c]
        s.crem = crem
        for i in range(4):
            s.bnat[i] = to_nat(p, s.hand[i])
        s.leader = leader
        s.turn = leader
        s.last_winner = -1
        boundary(p, s)
        self.ops = &KLAVERJAS_OPS
        self.pos = <void*> p
        self.exact = True
        self.threshold = 0
        self.history_leads = False     # the game orders its leads better (measured)
        self.killer_leads = True       # ... and a sibling's cutoff lead helps it (-5% nodes)
        self.max_ply = MAXSTACK - 1
        self.upper_from = 1              # value >= t for t >= 1: search the margin (module doc)
        self.lower_below = 0             # a deal known nat: first its value as if nat (module doc)
        self.granularity = 2           # every value is even (see the module doc)

        # Where the value search starts: a typical result for the playing
        # team's trump length (GUESS_BY_TRUMPS).
        ntrumps = dd_popcount32((hands[playing] | hands[playing + 2]) & p.trumpmask)
        self.guess = GUESS_BY_TRUMPS[ntrumps if ntrumps < 9 else 8]

    def __dealloc__(self):
        if self.kp != NULL:
            PyMem_Free(self.kp)

    def legal_mask(self):
        return legal_mask(self.kp, self.kp.cur)

    def play(self, int card):
        """Play `card`, which must be legal."""
        if not (legal_mask(self.kp, self.kp.cur) >> card) & 1:
            raise ValueError(f"card {card} is not legal here")
        Board.play(self, card)

    @property
    def finished(self):
        cdef KState* s = self.kp.cur
        return (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) == 0

    @property
    def to_move(self):
        return self.kp.cur.turn

    @property
    def state(self):
        """The current state as a dict (teams: 0 = playing, 1 = other)."""
        cdef KState* s = self.kp.cur
        return {
            "hands": [s.hand[i] for i in range(4)],
            "trick": [s.trick[i] for i in range(s.nt)],
            "leader": s.leader,
            "turn": s.turn,
            "winning": (s.leader + s.win) & 3 if s.nt else None,
            "tricks_played": s.ntricks,
            "points": [s.pts[0], s.pts[1]],
            "roem": [s.roem[0], s.roem[1]],
            "tricks": [s.tricks[0], s.tricks[1]],
            "last_roem": s.last_roem,
            "last_winner": s.last_winner,
        }

    def final_value(self):
        """The measure of the finished deal."""
        if not self.finished:
            raise ValueError("the deal is not finished")
        return final_value(self.kp.cur)

    def fix_measure(self, measure, beta=None):
        """Search one measure in every test, whatever the core asks (tests):
        "value", "margin" (D'), "asnat" (the value as if nat), or None (as usual).
        beta: classify the current boundary as during a test "value >= beta"
        (the game skips work such a test does not need); None: no test."""
        cdef int m = -1 if measure is None else ("value", "margin", "asnat").index(measure)
        self.kp.fixed = -1
        k_set_mode(self.pos, 0 if m < 0 else m, VALUE_INF if beta is None else beta)
        self.kp.fixed = m

    def boundary_info(self):
        """Class, banked value and quick bounds at a trick boundary (tests)."""
        cdef KState* s = self.kp.cur
        if s.nt != 0:
            return None
        return {"class": ("open", "made", "nat", "done")[s.cls], "banked": s.banked,
                "lo": s.flo, "hi": s.fhi}

    def table_key(self):
        """The transposition-table key (k0, k1) at a trick boundary, else None (tests)."""
        cdef uint64_t k0, k1
        cdef int depth
        if self.kp.cur.nt != 0:
            return None
        k_tt_key(self.pos, &k0, &k1, &depth)
        return k0, k1


def snap_value(int v, bint up):
    """The nearest value a finished deal can have, >= v (up) or <= v (tests)."""
    return nearest_value(v, up)


def roem_of(cards, int trump):
    """Roem of the trick `cards` (ints, see the module doc) with `trump` (tests)."""
    cdef KPos p
    cdef uint32_t nat = 0
    p.trump = trump
    for c in cards:
        if c >> 3 == trump:
            nat |= (<uint32_t> 1) << ((c & ~7) + TRUMP_NAT[c & 7])
        else:
            nat |= (<uint32_t> 1) << ((c & ~7) + PLAIN_NAT[c & 7])
    return trick_roem(&p, nat)


from cpython.mem cimport PyMem_Calloc, PyMem_Free
