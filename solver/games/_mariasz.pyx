"""Mariasz for the search core (docs/RULES.md §3): the GameOps table and the board.

One job per file: the state in _mariasz_state.pxd, the rules (what may be
played, who wins a trick, draws, the exchange, marriages, claims) in
_mariasz_rules.pxd, quick bounds in _mariasz_bounds.pxd, move generation and
order in _mariasz_moves.pxd, the table key in _mariasz_key.pxd, and the
two-player phase-2 search in _mariasz_endgame.pxd.  This file strings them
into the core's GameOps.  mariasz.py validates documents and maps notation to
the card codes.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from libc.math cimport round
from cpython.mem cimport PyMem_Calloc, PyMem_Free

from ddcards._core.bits cimport dd_popcount64, dd_prefetch
from ddcards._core.search cimport (Board, GameOps, sort_moves, NODE_INNER, NODE_BOUNDARY, NODE_SMALL,
                                  NODE_TERMINAL, MAX_MOVES, VALUE_INF)
from ddcards.games._mariasz_state cimport (ZPos, ZState, top, bit, lane, all_hands, stock_card,
                                          MZ_EXCHANGE, MZ_STACK, OBJ_POINTS_C, OBJ_RACE_C)
from ddcards.games._mariasz_rules cimport legal_cards, can_exchange, play_card, exchange
from ddcards.games._mariasz_bounds cimport PointMasks, future_bounds, mask_points, point_planes
from ddcards.games._mariasz_moves cimport generate, others_live, singletons, interchangeable
from ddcards.games._mariasz_key cimport boundary_key, needs_free_key
from ddcards.games._mariasz_endgame cimport Endgame, eg_node, eg_bounds, EG_INF, RaceSlot, race_slot, race_bounds, race_keep
from ddcards._core.tt cimport TTable

OBJ_POINTS = OBJ_POINTS_C
OBJ_RACE = OBJ_RACE_C
EXCHANGE = MZ_EXCHANGE

ctypedef struct ZBoard:
    ZPos pos
    PointMasks pm
    Endgame eg          # the two-player phase-2 search (GameOps.leaf)
    # two-player races, by state: each boundary's key without the needs and its race cache slot
    # (z_tt_key works them out for z_leaf and z_stored)
    uint64_t rkey[MZ_STACK][2]
    RaceSlot* rslot[MZ_STACK]


# ---------------------------------------------------------------- ops

cdef void z_make(void* vp, int move) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* o = &p.st[p.sp]
    cdef ZState* s = o + 1
    memcpy(s, o, sizeof(ZState))
    p.sp += 1
    if move == MZ_EXCHANGE:
        exchange(p, s)
    else:
        play_card(p, o, s, move)


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


cdef int USE_ENDGAME = 1
cdef enum:
    ETC_DEPTH = 13      # boundary_key's depth of a phase-2 entry: 12 cards left + 1


cdef int USE_RACE_CACHE = 1


def use_race_cache(bint on):
    """Switch the race cache of dominated needs on or off for the searches to come (tests, side-by-side
    measurements); returns the old setting."""
    global USE_RACE_CACHE
    old = USE_RACE_CACHE
    USE_RACE_CACHE = on
    return bool(old)


def use_endgame(bint on):
    """Switch the phase-2 endgame search on or off (for side-by-side measurements); returns the old setting."""
    global USE_ENDGAME
    old = USE_ENDGAME
    USE_ENDGAME = on
    return bool(old)


cdef inline int at_endgame(ZPos* p, ZState* s) noexcept nogil:
    """A trick boundary of two players with the stock used up: the endgame search's ground."""
    return p.nseats == 2 and s.drawn >= p.nstock and s.nt == 0


cdef inline void entry_bounds(ZBoard* b, ZState* s, int* lo, int* hi) noexcept nogil:
    """At a two-player phase-2 boundary: the endgame search's quick bounds, the leader's cash
    included (_mariasz_endgame.eg_bounds, with a window that cuts nothing)."""
    cdef ZPos* p = &b.pos
    eg_bounds(&b.eg, s.hand[0], s.hand[1], s.leader, p.need[0] - s.pts[0], p.need[1] - s.pts[1],
              -EG_INF, EG_INF, lo, hi)


cdef int z_node_info(void* vp, int* bank, int* ismax, int* lo, int* hi) noexcept nogil:
    cdef ZBoard* b = <ZBoard*> vp
    cdef ZPos* p = &b.pos
    cdef ZState* s = top(p)
    cdef int kind = z_node_kind(vp)
    bank[0] = banked(p, s)
    ismax[0] = p.side_of[s.turn] == p.maxside
    if kind == NODE_BOUNDARY and USE_ENDGAME and at_endgame(p, s):
        # A phase-2 entry: the endgame search's bounds, the leader's cash included (worked out
        # once here for the core's tests, the table and the ETC; eg_node skips them at its
        # entry).  Measured: -2..-3% nodes, -6..-10% CPU against future_bounds here and
        # eg_bounds again in the endgame search.
        entry_bounds(b, s, lo, hi)
    elif kind == NODE_BOUNDARY or kind == NODE_SMALL:
        future_bounds(p, &b.pm, s, lo, hi)
    return kind


cdef int z_terminal_future(void* vp) noexcept nogil:
    cdef ZPos* p = &(<ZBoard*> vp).pos
    cdef ZState* s = top(p)
    if p.objective == OBJ_RACE_C and s.claimed >= 0:
        return 1 if s.claimed == p.maxside else -1
    return 0


cdef inline int race_cache(ZBoard* b) noexcept nogil:
    """Does this search use the race cache of dominated needs (_mariasz_endgame.pxd)?"""
    return b.eg.race_cache


cdef void z_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """The exact key of a trick boundary (_mariasz_key.pxd); in a two-player race, the key
    without the needs kept for z_leaf and z_stored, its race cache slot on its way."""
    cdef ZBoard* b = <ZBoard*> vp
    cdef ZPos* p = &b.pos
    cdef ZState* s = top(p)
    cdef int need_left[4]
    cdef int side
    for side in range(p.nsides):
        need_left[side] = p.need[side] - s.pts[side]
    depth[0] = boundary_key(p, s.hand, s.drawn, s.exchanged, s.leader, need_left, s.stockmask, k0, k1)
    if race_cache(b):
        needs_free_key(p, k0[0], k1[0], &b.rkey[p.sp][0], &b.rkey[p.sp][1])
        b.rslot[p.sp] = race_slot(b.eg.tt, b.rkey[p.sp][0], b.rkey[p.sp][1])
        dd_prefetch(b.rslot[p.sp])


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


cdef int z_leaf(void* vp, int alpha, int beta, int* value) noexcept nogil:
    """A two-player race boundary that the race cache settles (_mariasz_endgame.pxd); two
    players, the stock used up: the endgame search (_mariasz_endgame.pxd) takes over."""
    cdef ZBoard* b = <ZBoard*> vp
    cdef ZPos* p = &b.pos
    cdef ZState* s = top(p)
    cdef int bank, lo = -1, hi = 1
    if race_cache(b) and s.nt == 0 and z_node_kind(vp) == NODE_BOUNDARY:
        # (the core asked for this boundary's key: z_tt_key kept its slot)
        race_bounds(b.rslot[p.sp], b.rkey[p.sp][0], b.rkey[p.sp][1], b.eg.tt.gen, p.need[0] - s.pts[0],
                    p.need[1] - s.pts[1], &lo, &hi)
        if lo >= beta:
            value[0] = lo
            return 1
        if hi <= alpha:
            value[0] = hi
            return 1
    if not USE_ENDGAME or not at_endgame(p, s):
        return 0
    bank = banked(p, s)
    b.eg.exchanged = s.exchanged
    value[0] = bank + eg_node(&b.eg, s.hand[0], s.hand[1], s.leader, p.need[0] - s.pts[0],
                              p.need[1] - s.pts[1], alpha - bank, beta - bank, 0)
    return 1


cdef void z_stored(void* vp, int lo, int hi) noexcept nogil:
    """GameOps.stored: a two-player race keeps the bounds in its race cache too."""
    cdef ZBoard* b = <ZBoard*> vp
    cdef ZPos* p = &b.pos
    cdef ZState* s = top(p)
    if race_cache(b):
        race_keep(b.rslot[p.sp], b.rkey[p.sp][0], b.rkey[p.sp][1], b.eg.tt.gen, p.need[0] - s.pts[0],
                  p.need[1] - s.pts[1], lo, hi)


cdef uint64_t z_own_nodes(void* vp) noexcept nogil:
    """GameOps.own_nodes: the phase-2 endgame search's cards tried (the core counts them in)."""
    return (<ZBoard*> vp).eg.nodes


cdef void z_use_table(void* vp, TTable* t) noexcept nogil:
    cdef ZBoard* b = <ZBoard*> vp
    b.eg.tt = t
    b.eg.race_cache = (t != NULL and USE_RACE_CACHE and b.pos.objective == OBJ_RACE_C and b.pos.nseats == 2)


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
MARIASZ_OPS.leaf = z_leaf
MARIASZ_OPS.use_table = z_use_table
MARIASZ_OPS.own_nodes = z_own_nodes
MARIASZ_OPS.stored = z_stored


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
            p.kings |= bit(p.king[su])
            p.queens |= bit(p.queen[su])
            # married_queens (_mariasz_state.pxd) finds a K's Q by this offset
            if p.queen[su] - p.king[su] != (3 if su == trump else -1):
                raise ValueError(f"the K and Q of suit {su} are not where the card codes put them")
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
        point_planes(pm)
        p.salt0 = salt0
        p.salt1 = salt1
        self.zb.eg.p = p
        self.zb.eg.pm = &self.zb.pm
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
        # Leads: the game's order, then the lead that last cut off at the same depth, then
        # the history of cutoffs (measured on szlifowany deals: -33% nodes over history alone)
        self.killer_leads = True
        # Two players: before the last card of a trick is searched, every card's boundary is
        # looked up (Board.etc_from), from a phase-2 entry (12 cards in the hands, no stock:
        # depth 13) up, and what it finds orders the cards.  Measured on szlifowany deals:
        # -30% nodes, -15% CPU.  With three or four players it costs more than it saves on
        # most deals, even with the ordering: three players' two slowest deals -18% CPU, the
        # others +10% to +70% (benchmarks/RESULTS.md, Mariasz, "Moves ordered by what the
        # ETC found"), so off there.
        self.etc_from = ETC_DEPTH if p.nseats == 2 else VALUE_INF
        # Two players: in phase 1 any card answers the lead and the game's guess of the
        # reply is weak (it cuts first 67-76% of the time), so the reply that last refuted
        # a lead at the same ply goes first (Board.reply_first).  Measured side by side
        # (benchmarks/RESULTS.md, Mariasz, bench_mariasz.py reply-first): -29/-42/-59% nodes,
        # -25/-36/-58% CPU with 10/12/14 cards left in the stock, szlifowany deals the same;
        # +40% nodes in Kiks and +69% with three players, where the follow rules leave the
        # game's own order the better guess.
        self.reply_first = p.nseats == 2

    def __dealloc__(self):
        if self.zb != NULL:
            PyMem_Free(self.zb)

    @property
    def endgame_nodes(self):
        """Cards tried by the phase-2 endgame search since the board was made (the core adds each
        search's to its node count: GameOps.own_nodes)."""
        return self.zb.eg.nodes

    def refresh_guess(self):
        """Set the value the search's first null-window test is at, for the current position.

        Points with two sides: the banked margin, plus half the card points in the hands and 8
        for each trump (and a fifth of its points) more that side 0 holds (fitted on 70
        positions: the error falls from 44 to 27 points on average; measured on szlifowany
        deals: -28% nodes for the value, -11% for every first card's value).  Otherwise the
        banked value.
        """
        cdef ZPos* p = &self.zb.pos
        cdef ZState* s = top(p)
        cdef double g = banked(p, s)
        cdef double sign
        cdef int seat
        if p.objective == OBJ_POINTS_C and p.nsides == 2:
            for seat in range(p.nseats):
                sign = 1.0 if p.side_of[seat] == p.maxside else -1.0
                g += sign * (0.5 * mask_points(&self.zb.pm, s.hand[seat])
                             + 8.0 * dd_popcount64(s.hand[seat] & p.trumps)
                             + 1.6 * mask_points(&self.zb.pm, s.hand[seat] & p.trumps))
            self.guess = 2 * <int> round(g / 2)
        else:
            self.guess = <int> g
        return self.guess

    def quick_bounds(self):
        """(banked, lo, hi) at a trick boundary: the value banked so far and the quick bounds
        lo <= future <= hi that the search tries there (_mariasz_bounds.pxd; at a two-player
        phase-2 boundary the endgame search's, as endgame_bounds gives them); None elsewhere."""
        cdef int bank, ismax, lo = 0, hi = 0
        cdef int kind = z_node_info(<void*> self.zb, &bank, &ismax, &lo, &hi)
        if kind != NODE_BOUNDARY and kind != NODE_SMALL:
            return None
        return bank, lo, hi

    def endgame_bounds(self):
        """(banked, lo, hi) at a two-player phase-2 trick boundary: the quick bounds the endgame
        search tries there (_mariasz_endgame.eg_bounds, with a window cutting nothing: the
        leader's cash included); None elsewhere."""
        cdef ZPos* p = &self.zb.pos
        cdef ZState* s = top(p)
        cdef int lo = 0, hi = 0
        if not at_endgame(p, s) or s.claimed >= 0 or all_hands(s) == 0:
            return None
        entry_bounds(self.zb, s, &lo, &hi)
        return banked(p, s), lo, hi

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
