"""Klaverjas card play in C for the search core (docs/RULES.md §2).

One job per file, as Mariasz's: the position (structs, constants, the card
layout's tables) in _klaverjas_state.pxd; the rules (what may be played, who
wins a trick, roem, the measures of a finished deal, the lattice of values)
in _klaverjas_rules.pxd; a trick boundary's class and quick bounds in
_klaverjas_bounds.pxd; the table key in _klaverjas_key.pxd; the endgame leaf
in _klaverjas_endgame.pxd; move generation and order in _klaverjas_moves.pxd.
This file fills the lookup tables at import, makes and unmakes moves, strings
the rest into the core's GameOps and holds the board (KlaverjasBoard).

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
strongest card).  Those hold on every line of play, and the class rests on
them.  The bounds on the value may be tighter: they need only hold under
best play.  Where the test under way is left open (four or more tricks
left), ``roem_denied`` takes out of the sequence term the runs of a plain
suit that a team can keep from ever falling together: a run two of whose
cards lie in the other team's hands, the third in the hand of a player
longer in the suit than one of them; or two of whose cards lie in the
team's own hands, one of the two longer in the suit than one more than
his partner's trumps (``seq_max_denied`` gives the strategies).  Measured:
7-11% fewer nodes, 3-7% less time.

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
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_Calloc, PyMem_Free

from ddcards._core.tt cimport TTable, TT_AUX_MIN_BYTES
from ddcards._core.bits cimport dd_popcount32, dd_ctz32
from ddcards._core.search cimport (Board, GameOps, VALUE_INF, NODE_INNER, NODE_BOUNDARY, NODE_TERMINAL)
from ddcards.games._klaverjas_state cimport (KPos, KState, TwoEntry, team_of, suit_mask, to_nat, NSEATS,
                                            MAXSTACK, C_NAT, C_DONE, M_MARGIN, LAST_TRICK, TWO_CACHE_BITS,
                                            PLAIN_NAT, TRUMP_NAT, PLAIN_PTS, TRUMP_PTS, NAT_LANE)
from ddcards.games._klaverjas_rules cimport (SEQ_ROEM, QUAD_ROEM, beats, trick_roem, legal_mask,
                                            final_value, nearest_value)
from ddcards.games._klaverjas_bounds cimport (TRUMP_LANE_PTS, SEQ_MAX, RUN4_TOP, RUN3_OFF0, RUN3_OFF1,
                                             RUN3_OFF2, Runs, DENY_ALL, DENY_P, DENY_O, boundary,
                                             roem_bound, roem_denied)
from ddcards.games._klaverjas_key cimport KEY_SALT0, KEY_SALT1, boundary_key
from ddcards.games._klaverjas_endgame cimport TWO_KEY_TAG, SELV, two_left, three_left
from ddcards.games._klaverjas_moves cimport roem_live, gen_choices

# Debug switches (tests compare searches with features turned off).
FLAG_NO_PRUNE = 1       # no equivalent-card pruning
FLAG_NO_CLASSES = 2     # every boundary is OPEN (P and O always in the key)
FLAG_NO_BOUNDS = 4      # no quick bounds (only the exact last trick), no endgame leaf
FLAG_NO_LEAF = 8        # no endgame leaf (k_leaf): the core searches the last three tricks

# ---------------------------------------------------------------- tables
# The lookup tables are declared in the .pxd files beside the code that reads
# them, with what they hold (C statics of this module: a .pxd holds no module
# code), and filled here, once, at import.

TWO_KEY_TAG = (<uint64_t> 0x2B) << 58

PLAIN_NAT[:] = [0, 1, 2, 4, 5, 6, 3, 7]
TRUMP_NAT[:] = [0, 1, 5, 6, 3, 7, 2, 4]
PLAIN_PTS[:] = [0, 0, 0, 2, 3, 4, 10, 11]
TRUMP_PTS[:] = [0, 0, 3, 4, 10, 11, 14, 20]

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

RUN3_OFF0 = 0x08080808U
RUN3_OFF1 = 0x04040404U
RUN3_OFF2 = 0x33333333U


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

QUAD_ROEM[:] = [0, 0, 0, 100, 200, 100, 100, 100]

# Where the value search starts, by the playing team's number of trumps: about
# the median value of the corpora's full deals with that many (4: 55, 5: 94,
# 6: 120, 7: 131; benchmarks/corpus).  With 3 or fewer a deal is mostly nat
# (every trump suit of a DD table): start at "made?" (2), the margin test
# that settles it.  (Measured: median nodes -3 to -8%, sums unchanged.)
cdef int GUESS_BY_TRUMPS[9]
GUESS_BY_TRUMPS[:] = [2, 2, 2, 2, 60, 90, 120, 130, 130]

KEY_SALT0 = 0x6b6c61766572a5a5ULL
KEY_SALT1 = 0x6a61737365e1c3d2ULL


if sizeof(TwoEntry) << TWO_CACHE_BITS > TT_AUX_MIN_BYTES:
    raise ImportError("two_left's cache entries do not fit the table's side area")


cdef void _init_selv():
    cdef int k, i
    for k in range(4):
        for i in range(16):
            SELV[k][i] = -((i >> k) & 1)
_init_selv()


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
    # Each changed field is read from the state before the card (o) and
    # written to the copy: reading it back from the copy just written waits
    # on the store (as Mariáš's play_card).
    cdef KState* o = p.cur
    cdef KState* s = o + 1
    cdef int seat = o.turn, win = o.win, w, team, tp, r
    cdef uint32_t bit = (<uint32_t> 1) << c
    cdef uint32_t gone = o.tricknat | p.natbit[c]
    cdef uint32_t mine = o.hand[seat] & ~bit
    memcpy(s, o, sizeof(KState))
    p.cur = s
    s.hand[seat] = mine
    s.trick[3] = c
    s.winhist = (o.winhist << 2) | win
    if beats(p, c, o.trick[win]):
        win = 3
    s.win = win
    w = (o.leader + win) & 3
    team = team_of(p, w)
    tp = p.points[o.trick[0]] + p.points[o.trick[1]] + p.points[o.trick[2]] + p.points[c]
    s.crem = o.crem - tp
    r = trick_roem(p, gone)
    if (mine | o.hand[(seat + 1) & 3] | o.hand[(seat + 2) & 3] | o.hand[(seat + 3) & 3]) == 0:
        tp += LAST_TRICK
    s.pts[team] = o.pts[team] + tp + r
    s.roem[team] = o.roem[team] + r
    s.tricks[team] = o.tricks[team] + 1
    s.ntricks = o.ntricks + 1
    s.last_roem = r
    s.last_winner = w
    s.leader = w
    s.turn = w
    s.nt = 0
    s.bnat[0] = o.bnat[0] & ~gone
    s.bnat[1] = o.bnat[1] & ~gone
    s.bnat[2] = o.bnat[2] & ~gone
    s.bnat[3] = o.bnat[3] & ~gone
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

    def roem_bound(self, bint deny=False):
        """The bound on the roem still to come at a trick boundary: (in all, in
        the playing team's tricks, in the other team's), else None (tests).
        deny: the two teams' bounds for the minimax, the runs the other team
        can deny taken out."""
        cdef int rP, rO, dP, dO, dR, r
        cdef Runs runs
        if self.kp.cur.nt != 0:
            return None
        r = roem_bound(self.kp, self.kp.cur, &rP, &rO, &runs)
        if not deny:
            return r, rP, rO
        if not runs.w:
            return r, rP, rO
        dP = roem_denied(self.kp, &runs, DENY_P)
        dO = roem_denied(self.kp, &runs, DENY_O)
        dR = roem_denied(self.kp, &runs, DENY_ALL)
        return r - dR, rP - dP, rO - dO

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
