"""Mariáš card play in C for the search core (docs/RULES.md §1).

One job per file, as Klaverjas's and Mariasz's: the position (structs,
constants, the card layout) in _marias_state.pxd; the rules (what may be
played, who wins a trick, marriages, a card played, the forced last trick,
the money rank of a finished deal) in _marias_rules.pxd; quick bounds and the
money classes in _marias_bounds.pxd; the table key in _marias_key.pxd; move
generation and order in _marias_moves.pxd.  This file makes and unmakes
moves, strings the rest into the core's GameOps and holds the board
(MariasBoard).  marias.py validates documents and maps notation cards to the
card codes: ``suit * 8 + power``, the power in the contract's rank order (Hra:
7 8 9 U O K T A; Betl/Durch: 7 8 9 T U O K A).

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
from libc.string cimport memcpy

from ddcards._core.search cimport (Board, GameOps, SearchCtx, MAX_MOVES, VALUE_INF, NODE_INNER, NODE_BOUNDARY,
                                   NODE_SMALL, NODE_TERMINAL, POLL_MASK, poll_stop, sort_moves)
from ddcards._core.own_search cimport flat_int as search_int
from ddcards._core.tt cimport TTHit, TT_NO_MOVE, tt_probe, tt_store, tt_bucket
from ddcards._core.bits cimport dd_popcount32, dd_prefetch
from ddcards.games._marias_state cimport (MPos, MState, top, in_hands, O_HRA, O_SEDMA, O_KILO, O_BETL,
                                         O_DURCH, O_MONEY, ST_LOST, ST_WON, ST_OPEN, NSEATS, MAXSTACK)
from ddcards.games._marias_rules cimport legal_mask, play_card, money_rank
from ddcards.games._marias_bounds cimport future_bounds, money_classes
from ddcards.games._marias_moves cimport generate, interchangeable
from ddcards.games._marias_key cimport boundary_key

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


# ---------------------------------------------------------------- ops

cdef void m_make(void* vp, int c) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* prev = &p.st[p.sp]
    cdef MState* s = prev + 1
    memcpy(s, prev, sizeof(MState))
    p.sp += 1
    play_card(p, prev, s, c)


cdef void m_unmake(void* vp) noexcept nogil:
    (<MPos*> vp).sp -= 1


cdef int m_max_to_move(void* vp) noexcept nogil:
    return top(<MPos*> vp).turn == 0


cdef int m_node_kind(void* vp) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    cdef MState* s = top(p)
    cdef uint32_t rem
    if s.nt != 0:
        return NODE_INNER
    rem = in_hands(s)
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
    cdef MState* s = top(p)
    if p.objective == O_HRA:
        return s.pts[0] - s.pts[1]
    if p.objective == O_KILO:
        return s.kilo
    return 0


cdef int m_node_info(void* vp, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    """GameOps.node_info: m_node_kind, m_banked, m_max_to_move, m_future_bounds."""
    cdef MPos* p = <MPos*> vp
    cdef MState* s = top(p)
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
    cdef MState* s = top(p)
    if p.objective == O_SEDMA:
        return 1 if s.sedma else -1
    if p.objective == O_BETL:
        return -1 if s.tricks[0] > 0 else 1
    if p.objective == O_DURCH:
        return -1 if s.tricks[1] > 0 else 1
    if p.objective == O_MONEY:
        return money_rank(p, s.pts[0] - s.pts[1], s.kilo, s.sedma)
    return 0


cdef void m_future_bounds(void* vp, int* lo, int* hi) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    future_bounds(p, top(p), lo, hi)


cdef void m_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    boundary_key(p, top(p), k0, k1, depth)


cdef int m_equivalent(void* vp, int a, int b) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    return interchangeable(p, top(p), a, b)


cdef int m_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef MPos* p = <MPos*> vp
    return generate(p, top(p), moves, prune)


# ---------------------------------------------------------------- the search, compiled here

# The core's alpha-beta compiled against this module's functions (alphabeta.pxi): the
# compiler inlines them all into it (its return type, search_int, is the core's flat_int),
# where the core's own copy calls them through GameOps at every node (Hra, every first card:
# about 7% less time, benchmarks/RESULTS.md "Mariáš's search compiled in its module").

cdef inline int g_node_info(const GameOps* ops, void* pos, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    return m_node_info(pos, banked, ismax, lo, hi)


cdef inline int g_terminal_future(const GameOps* ops, void* pos) noexcept nogil:
    return m_terminal_future(pos)


cdef inline void g_tt_key(const GameOps* ops, void* pos, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    m_tt_key(pos, k0, k1, depth)


cdef inline int g_gen_moves(const GameOps* ops, void* pos, int* moves) noexcept nogil:
    return m_gen_moves(pos, moves, 1)


cdef inline void g_make(const GameOps* ops, void* pos, int move) noexcept nogil:
    m_make(pos, move)


cdef inline void g_unmake(const GameOps* ops, void* pos) noexcept nogil:
    m_unmake(pos)


cdef inline int g_leaf(const GameOps* ops, void* pos, int alpha, int beta, int* value) noexcept nogil:
    return 0                            # MARIAS_OPS has no leaf (nor stored): keep these in step


cdef inline void g_stored(const GameOps* ops, void* pos, int lo, int hi) noexcept nogil:
    pass


include "../_core/alphabeta.pxi"


cdef int m_search(void* c, int alpha, int beta) noexcept nogil:
    return alphabeta(<SearchCtx*> c, alpha, beta)


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
MARIAS_OPS.search = m_search


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
