"""Mariasz for the search core (RULES.md §3): the GameOps table and the board.

The rules are in _mariasz_rules.pxd, the quick bounds in _mariasz_bounds.pxd,
move generation and order in _mariasz_moves.pxd, the state in
_mariasz_state.pxd; this file strings them into the core's GameOps and
builds the table key.  mariasz.py validates documents and maps notation to
the card codes.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_Calloc, PyMem_Free

from ddcards._core.bits cimport dd_popcount64, dd_pext64
from ddcards._core.search cimport (Board, GameOps, sort_moves, NODE_INNER, NODE_BOUNDARY, NODE_SMALL,
                                  NODE_TERMINAL, MAX_MOVES)
from ddcards.games._mariasz_state cimport (ZPos, ZState, top, bit, lane, all_hands, stock_card,
                                          MZ_EXCHANGE, MZ_STACK, OBJ_POINTS_C, OBJ_RACE_C)
from ddcards.games._mariasz_rules cimport legal_cards, can_exchange, play_card, exchange
from ddcards.games._mariasz_bounds cimport PointMasks, future_bounds
from ddcards.games._mariasz_moves cimport generate, others_live, singletons, interchangeable

OBJ_POINTS = OBJ_POINTS_C
OBJ_RACE = OBJ_RACE_C
EXCHANGE = MZ_EXCHANGE

cdef extern from *:
    """
    #define MZ_LANES36 0x01FF01FF01FF01FFULL  /* the 9 card bits of each 16-bit suit lane */
    """
    uint64_t LANES36 "MZ_LANES36"


ctypedef struct ZBoard:
    ZPos pos
    PointMasks pm


# ---------------------------------------------------------------- ops

cdef void z_make(void* vp, int move) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = &p.st[p.sp + 1]
    memcpy(s, &p.st[p.sp], sizeof(ZState))
    p.sp += 1
    if move == MZ_EXCHANGE:
        exchange(p, s)
    else:
        play_card(p, s, move)


cdef void z_unmake(void* vp) noexcept nogil:
    (<ZBoard*> vp).pos.sp -= 1


cdef int z_max_to_move(void* vp) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    return p.side_of[top(p).turn] == p.maxside


cdef int z_node_kind(void* vp) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    cdef uint64_t hands
    if s.claimed >= 0:
        return NODE_TERMINAL
    if s.nt != 0:
        return NODE_INNER
    hands = all_hands(s)
    if hands == 0:
        return NODE_TERMINAL
    if s.drawn >= p.nstock and dd_popcount64(hands) == p.nseats:
        return NODE_SMALL            # the last trick: forced, its bounds are exact
    return NODE_BOUNDARY


cdef inline int banked(ZPos* p, ZState* s) noexcept nogil:
    if p.objective == OBJ_RACE_C:
        return 0
    if p.nsides == 3:
        return s.pts[p.maxside]
    return s.pts[p.maxside] - s.pts[1 - p.maxside]


cdef int z_node_info(void* vp, int* bank, int* ismax, int* lo, int* hi) noexcept nogil:
    cdef ZBoard* b = <ZBoard*> vp
    cdef ZPos* p = &b.pos
    cdef ZState* s = top(p)
    cdef int kind = z_node_kind(vp)
    bank[0] = banked(p, s)
    ismax[0] = p.side_of[s.turn] == p.maxside
    if kind == NODE_BOUNDARY or kind == NODE_SMALL:
        future_bounds(p, &b.pm, s, lo, hi)
    return kind


cdef int z_terminal_future(void* vp) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    if p.objective == OBJ_RACE_C and s.claimed >= 0:
        return 1 if s.claimed == p.maxside else -1
    return 0


cdef inline void put(uint64_t* k, int* at, uint64_t v, int nbits) noexcept nogil:
    """Append the nbits-bit value v at bit `at` of the 128-bit key k[0], k[1]."""
    cdef int a = at[0]
    if a < 64:
        k[0] |= v << a
        if a + nbits > 64:
            k[1] |= v >> (64 - a)
    else:
        k[1] |= v << (a - 64)
    at[0] = a + nbits


cdef void z_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """Exact key of a trick boundary: everything the rest of the deal depends on.

    Two players: both hands (36 bits each), how much of the stock is drawn
    (the deal's salt carries its order), whether the six was exchanged, the
    leader.  Kiks and three players: the cards left (36 bits), then two
    owner bits per card left, the leader.  Race: the points each side still
    needs (8 bits each; three players at the deal's start leave them to the
    salt, which carries the start scores, to stay within 128 bits).
    """
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    cdef uint64_t k[2]
    cdef uint64_t rem = all_hands(s)
    cdef int at = 0, side, nrem = dd_popcount64(rem)
    k[0] = 0
    k[1] = 0
    if p.nseats == 2:
        put(k, &at, dd_pext64(s.hand[0], LANES36), 36)
        put(k, &at, dd_pext64(s.hand[1], LANES36), 36)
        put(k, &at, <uint64_t> s.drawn, 5)
        put(k, &at, <uint64_t> s.exchanged, 1)
    else:
        put(k, &at, dd_pext64(rem, LANES36), 36)
        put(k, &at, dd_pext64(s.hand[1] | s.hand[3], rem), nrem)
        put(k, &at, dd_pext64(s.hand[2] | s.hand[3], rem), nrem)
    put(k, &at, <uint64_t> s.leader, 2)
    if p.objective == OBJ_RACE_C and not (p.nseats == 3 and nrem == 36):
        for side in range(p.nsides):
            put(k, &at, <uint64_t> (p.need[side] - s.pts[side]), 8)
    k0[0] = k[0] ^ p.salt0
    k1[0] = k[1] ^ p.salt1
    depth[0] = nrem + dd_popcount64(s.stockmask) + 1


cdef int z_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    cdef int scores[MAX_MOVES]
    cdef int n
    if s.claimed >= 0:
        return 0                     # a claim ends the deal (§3.8)
    n = generate(p, s, legal_cards(p, s), can_exchange(p, s), moves, scores, prune)
    if n > 1:
        sort_moves(moves, scores, n)
    return n


cdef int z_equivalent(void* vp, int a, int b) noexcept nogil:
    """Same test as the pruning in z_gen_moves, for two legal moves a and b."""
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    cdef uint64_t legal = legal_cards(p, s)
    cdef int lo = a if a < b else b, hi = a if a > b else b
    if a == MZ_EXCHANGE or b == MZ_EXCHANGE or (a >> 4) != (b >> 4):
        return 0
    if not ((legal >> a) & 1) or not ((legal >> b) & 1):
        return 0
    return interchangeable(p, others_live(p, s), singletons(p, s), lo, hi)


cdef int z_snap(void* vp, int v, int up) noexcept nogil:
    """The nearest value a finished deal can have: margins of two sides are even; a race is -1, 0 or +1."""
    cdef ZPos* p = &(<ZBoard*> vp).pos
    if p.objective == OBJ_RACE_C:
        if up:
            return -1 if v < -1 else v
        return 1 if v > 1 else v
    if p.nsides == 2 and (v & 1):
        return v + 1 if up else v - 1
    return v


cdef GameOps MARIASZ_OPS
MARIASZ_OPS.gen_moves = z_gen_moves
MARIASZ_OPS.make = z_make
MARIASZ_OPS.unmake = z_unmake
MARIASZ_OPS.max_to_move = z_max_to_move
MARIASZ_OPS.node_kind = z_node_kind
MARIASZ_OPS.node_info = z_node_info
MARIASZ_OPS.terminal_future = z_terminal_future
MARIASZ_OPS.tt_key = z_tt_key
MARIASZ_OPS.equivalent = z_equivalent
MARIASZ_OPS.snap = z_snap


# ---------------------------------------------------------------- the board

cdef class MariaszBoard(Board):
    """A Mariasz deal in C form, searchable by ddcards._core.search.Searcher.

    hands: a card mask per seat (codes suit * 16 + power); side_of: the side
    of each seat; maxside: the side whose value is maximised; stock: card
    codes in draw order, the turned card last (empty: no stock); six: the
    trump six's code when an exchange can ever happen, else -1; need: race
    targets by side (131 - start score); points: card points by code;
    partner / marriage: for each K and Q its partner's code and the
    marriage's points; leader: the seat leading the first trick.
    """
    cdef ZBoard* zb

    def __cinit__(self, hands, side_of, int maxside, int trump, int objective, stock, int six, need,
                  points, partner, marriage, bint must_beat=False, bint marriage_on_second=False,
                  int leader=0, unsigned long long salt0=0, unsigned long long salt1=0):
        cdef ZPos* p
        cdef ZState* s
        cdef PointMasks* pm
        cdef int i, c, su
        self.zb = <ZBoard*> PyMem_Calloc(1, sizeof(ZBoard))
        if self.zb == NULL:
            raise MemoryError()
        p = &self.zb.pos
        p.nseats = len(hands)
        p.nsides = max(side_of) + 1
        for i in range(p.nseats):
            p.side_of[i] = side_of[i]
            p.st[0].hand[i] = hands[i]
        p.maxside = maxside
        p.trump = trump
        p.trumps = lane(trump)
        p.objective = objective
        p.must_beat = must_beat
        p.mos = marriage_on_second
        p.nstock = len(stock)
        for i in range(p.nstock):
            p.stock[i] = stock[i]
            p.st[0].stockmask |= bit(stock[i])
        p.six = six
        for i in range(p.nsides):
            p.need[i] = need[i]
        for c in range(64):
            p.pts_of[c] = points[c]
            p.partner[c] = partner[c]
            p.marriage_of[c] = marriage[c]
        for su in range(4):
            for c in range(su * 16, su * 16 + 16):
                if marriage[c] and partner[c] >= 0:
                    if p.pts_of[c] == 4:
                        p.king[su] = c
                        p.queen[su] = partner[c]
        for i in range(p.nseats):
            p.deck |= p.st[0].hand[i]
        p.deck |= p.st[0].stockmask
        pm = &self.zb.pm
        for c in range(64):
            if (p.deck >> c) & 1:
                if points[c] == 11:
                    pm.m11 |= bit(c)
                elif points[c] == 10:
                    pm.m10 |= bit(c)
                elif points[c] == 4:
                    pm.m4 |= bit(c)
                elif points[c] == 3:
                    pm.m3 |= bit(c)
                elif points[c] == 2:
                    pm.m2 |= bit(c)
        p.salt0 = salt0
        p.salt1 = salt1
        p.sp = 0
        s = &p.st[0]
        s.leader = leader
        s.turn = leader
        s.claimed = -1
        self.ops = &MARIASZ_OPS
        self.pos = <void*> self.zb
        self.exact = True
        self.granularity = 2 if (objective == OBJ_POINTS_C and p.nsides == 2) else 1
        self.guess = 0
        self.max_ply = MZ_STACK - 1

    def __dealloc__(self):
        if self.zb != NULL:
            PyMem_Free(self.zb)

    def legal_mask(self):
        """The cards the player to move may play, as a mask of codes."""
        cdef ZPos* p = &self.zb.pos
        if z_node_kind(<void*> self.zb) == NODE_TERMINAL:
            return 0
        return legal_cards(p, top(p))

    def can_exchange(self):
        """May the player to move exchange the trump six now?"""
        cdef ZPos* p = &self.zb.pos
        if z_node_kind(<void*> self.zb) == NODE_TERMINAL:
            return False
        return bool(can_exchange(p, top(p)))

    @property
    def finished(self):
        """The deal is over: every card played, or a race claimed."""
        return z_node_kind(<void*> self.zb) == NODE_TERMINAL

    @property
    def to_move(self):
        return top(&self.zb.pos).turn

    @property
    def state(self):
        """The current state as a dict (for reporting and validation)."""
        cdef ZPos* p = &self.zb.pos
        cdef ZState* s = top(p)
        n, sides = p.nseats, p.nsides
        return {
            "hands": [s.hand[i] for i in range(n)],
            "stock": [stock_card(p, s, i) for i in range(s.drawn, p.nstock)],
            "trick": [s.trick[i] for i in range(s.nt)],
            "leader": s.leader,
            "turn": s.turn,
            "drawn": s.drawn,
            "exchanged": bool(s.exchanged),
            "claimed": None if s.claimed < 0 else s.claimed,
            "tricks_played": s.ntricks,
            "points": [s.pts[i] for i in range(sides)],
            "tricks": [s.tricks[i] for i in range(sides)],
            "marriage_points": [s.mpts[i] for i in range(n)],
            "marriages": [s.mcount[i] for i in range(n)],
        }
