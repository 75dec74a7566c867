"""Prší in C for the search core (docs/RULES.md §4).

Prší is a shedding game, not a trick game: every ply is one player's action
(a card, an Ober naming a suit, ``draw`` or ``pass``) and play can go on for
ever, so the search runs to a *horizon* of H plies.

Cards are ints ``suit * 8 + rank`` with ranks 7 8 9 T U O K A = 0..7 and
suits S H D C = 0..3; card sets are uint32 masks.  Moves (GameOps: ints
0..254) are the cards 0..31 (never an Ober by itself), then
``32 + ober_suit * 4 + named_suit`` for an Ober naming a suit, ``draw`` (48)
and ``pass`` (49).

The draw queue
    The stock and the discard pile below its top card form one queue: the
    stock first (first drawn first), then the pile, oldest card first.
    Drawing takes the queue's front (when the stock is empty the pile is
    turned over, which is the same front); playing a card puts the old top
    card at the back.  The queue lives in ``cells`` (the deal's stock first,
    then every covered top card in the order covered); a state holds its
    window [head, tail).  Along one line of play tail only grows, so a
    child's writes never touch its parent's window.

Values (GameOps, all from the view of one player P, "MAX"; paranoid for 3+)
    the game settled for P at ply d after the root: +(H + 1 - d) if P won,
    -(H + 1 - d) if P lost, 0 if nothing is settled when the horizon ends.
    Nothing is banked: the future value is the value, and since it only
    depends on the plies left (r = H - d) a table entry keyed on r holds for
    every root and every horizon.  MTD then finds the fastest forced win
    (the winner hurries) and the longest loss (the loser delays).

Table key (exact, 128 bits)
    What decides the rest of a search of r plies: the hands, the top card,
    the active suit, a pending 7 chain or ace, the mover, r, who is out, and
    the queue's front as far as r plies can draw (``draws_within``).  The
    deal's stock part of that front is given by ``head``; the cards covered
    since (path-dependent) are listed one by one, up to 6 of them with 2 or 3
    players and none with more (the hands take 3 bits a card then); a
    position whose front needs more than the key holds is not probed.  The
    salt holds the deal's stock, the seats, the variants and P.
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from ddcards._core.bits cimport dd_popcount32, dd_ctz32, dd_mix64
from ddcards._core.search cimport (Board, GameOps, sort_moves, NODE_BOUNDARY, NODE_SMALL,
                                  NODE_TERMINAL, MAX_MOVES)

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

MOVE_DRAW = MV_DRAW
MOVE_PASS = MV_PASS
MOVE_OBER = MV_OBER
MAX_HISTORY = STACK - 300        # actions a history may hold (the rest is the search's)
MAX_HORIZON = 250                # plies (the key holds r in 8 bits)

cdef uint32_t SEVENS = 0x01010101
cdef uint32_t OBERS = 0x20202020
cdef uint32_t ACES = 0x80808080


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


cdef inline uint32_t playable(PState* s) noexcept nogil:
    """The cards the mover may play (an Ober still names a suit)."""
    cdef uint32_t h = s.hand[s.turn]
    if s.sevens:
        return h & SEVENS
    if s.ace:
        return h & ACES
    return h & (suit_cards(s.suit) | rank_cards(s.top & 7) | OBERS)


cdef inline int next_seat(PPos* p, PState* s, int x) noexcept nogil:
    """The next seat after x that is not out."""
    cdef int i, j
    for i in range(1, p.n + 1):
        j = (x + i) % p.n
        if not (s.out >> j) & 1:
            return j
    return x


cdef inline int players_in(PPos* p, PState* s) noexcept nogil:
    return p.n - dd_popcount32(s.out)


cdef inline int outcome(PPos* p, PState* s, int* settled_ply) noexcept nogil:
    """P's outcome so far: +1 won, -1 lost, 0 open; settled_ply: when it was settled.

    The usual game: the first seat out for good wins.  play_on: P wins by
    being out for good at all, and loses by being the one left.
    """
    if not p.play_on:
        if s.first_out < 0:
            return 0
        settled_ply[0] = s.done_ply
        return 1 if s.first_out == p.player else -1
    if (s.out >> p.player) & 1 and s.pending_out != p.player:
        settled_ply[0] = s.out_ply[p.player]
        return 1
    if s.done:
        settled_ply[0] = s.done_ply
        return -1
    return 0


cdef inline void goes_out(PPos* p, PState* s, int x) noexcept nogil:
    """Seat x is out for good."""
    s.nout += 1
    s.place[x] = s.nout
    s.out_ply[x] = s.ply
    s.out |= bit(x)
    if s.first_out < 0:
        s.first_out = x
    if not p.play_on:
        s.done = 1
        s.done_ply = s.ply


cdef void apply(PPos* p, PState* s, int mv) noexcept nogil:
    """Play move mv in state s (already a copy of its parent)."""
    cdef int x = s.turn, card = -1, cnt, c, seven = 0, r, back
    s.ply += 1
    if mv == MV_DRAW:
        cnt = 2 * s.sevens if s.sevens else 1
        s.sevens = 0
        while cnt > 0 and s.head < s.tail:
            if s.slen == 0:                 # the stock is empty: turn the pile over
                s.slen = s.tail - s.head
                s.turnovers += 1
            c = p.cells[s.head]
            s.head += 1
            s.slen -= 1
            s.hand[x] |= bit(c)
            cnt -= 1
    elif mv == MV_PASS:
        s.ace = 0
    else:
        card = card_of(mv)
        s.hand[x] &= ~bit(card)
        p.cells[s.tail] = s.top
        s.tail += 1
        s.top = card
        s.suit = (mv - MV_OBER) & 3 if mv >= MV_OBER else card >> 3
        r = card & 7
        if r == R7:
            s.sevens += 1
            seven = 1
        elif r == RA:
            s.ace = 1
    if s.pending_out >= 0:
        # The player who went out last ply: a 7 on his last card brings him
        # back (variant `return`); anything else and he is out for good.
        back = s.pending_out
        s.pending_out = -1
        if seven:
            s.out &= ~bit(back)
        else:
            goes_out(p, s, back)
    if card >= 0 and s.hand[x] == 0 and not s.done:
        if p.comeback:
            # The next player may bring him back with a 7.  With no one else left in
            # (play_on: the last card also put the player before him out for good),
            # no one can answer: he is the one left, the loser (below).
            if players_in(p, s) > 1:
                s.out |= bit(x)
                s.pending_out = x
        else:
            goes_out(p, s, x)
    if p.play_on and not s.done and s.pending_out < 0 and players_in(p, s) <= 1:
        s.done = 1                         # the one left is the loser
        s.done_ply = s.ply
    if not s.done:
        s.turn = next_seat(p, s, x)


# ---------------------------------------------------------------- ops

cdef void p_make(void* vp, int mv) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    memcpy(&p.st[p.sp + 1], &p.st[p.sp], sizeof(PState))
    p.sp += 1
    apply(p, &p.st[p.sp], mv)


cdef void p_unmake(void* vp) noexcept nogil:
    (<PPos*> vp).sp -= 1


cdef int p_max_to_move(void* vp) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    return p.st[p.sp].turn == p.player


cdef inline int is_terminal(PPos* p, PState* s) noexcept nogil:
    cdef int settled
    return s.ply >= p.hend or s.done or outcome(p, s, &settled) != 0


cdef int p_node_kind(void* vp) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    return NODE_TERMINAL if is_terminal(p, &p.st[p.sp]) else NODE_BOUNDARY


cdef int p_terminal_future(void* vp) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    cdef PState* s = &p.st[p.sp]
    cdef int d = 0, result = outcome(p, s, &d)
    if result == 0:
        return 0
    # Settled before the root (a history that went on): as if at the root.
    if d < p.root:
        d = p.root
    return result * (p.hend + 1 - d)


cdef inline int first_out_ply(PPos* p, PState* s, int j, int offset, int period) noexcept nogil:
    """The earliest ply at which seat j can be out for good.

    His turns come at ply + offset, then every `period` plies at the
    soonest; he needs one turn per card (one more to draw first if he holds
    none), and with `return` the next player's answer too.
    """
    cdef int k = dd_popcount32(s.hand[j]), queue
    if s.pending_out == j:
        return s.ply + 1
    if j == s.turn and playable(s) == 0:
        # The mover cannot play now: this turn goes on a draw (the whole penalty on
        # an active 7: as much of it as the queue holds) or a pass.
        queue = s.tail - s.head
        if s.sevens:
            k += 2 * s.sevens if 2 * s.sevens < queue else queue
        elif not s.ace and queue:
            k += 1
        offset += period
        if k == 0:
            k = 2
    elif k == 0:
        k = 2
    return s.ply + offset + (k - 1) * period + (1 if p.comeback else 0)


cdef void future_bounds(PPos* p, PState* s, int* lo, int* hi) noexcept nogil:
    """lo <= value <= hi from how soon anyone can be out.

    P can win no sooner than his earliest way out (hi), and lose no sooner
    than the earliest the others can settle it (lo): the first of them out
    (the usual game), or the last of them (play_on: P loses when left alone).
    """
    cdef int m = players_in(p, s), period, offset = 0, j, i, e, ep = 0x7FFF, el
    cdef int horizon = p.hend
    # Turns come round every m plies while nobody leaves for good; under
    # play_on players leave and it may shrink to 2.
    period = 2 if p.play_on else m
    el = 0 if p.play_on else 0x7FFF
    j = s.turn
    for i in range(p.n):
        if not (s.out >> j) & 1 or s.pending_out == j:
            if not (s.out >> j) & 1:
                offset += 1
            e = first_out_ply(p, s, j, offset, period)
            if j == p.player:
                ep = e
            elif p.play_on:
                if e > el:
                    el = e
            elif e < el:
                el = e
        j = j + 1 if j + 1 < p.n else 0
    if p.play_on and el == 0:
        el = 0x7FFF
    hi[0] = horizon + 1 - ep if ep <= horizon else 0
    lo[0] = -(horizon + 1 - el) if el <= horizon else 0


cdef inline uint64_t spread2(uint32_t x) noexcept nogil:
    """Bit i of x to bit 2i."""
    cdef uint64_t v = x
    v = (v | (v << 16)) & 0x0000FFFF0000FFFFULL
    v = (v | (v << 8)) & 0x00FF00FF00FF00FFULL
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FULL
    v = (v | (v << 2)) & 0x3333333333333333ULL
    v = (v | (v << 1)) & 0x5555555555555555ULL
    return v


cdef inline int draws_within(PPos* p, PState* s, int r) noexcept nogil:
    """At most how many cards r plies can draw (or the whole queue).

    A ply draws one card, or cashes the chain of 7s: 2 a 7.  A 7 played is drawn again
    only once the whole queue has gone round, so short of that each 7 is played at most
    once: at most `sevens` of them, those in hands and those the draws bring.  With k
    7-plays (k <= r - 1: one ply cashes them) r plies draw at most
    2*(chain + k) + (r - 1 - k) cards, or r without any 7.
    """
    cdef int sevens = dd_popcount32((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3] | s.hand[4] | s.hand[5]) & SEVENS)
    cdef int d0, d, i, k
    k = 4 if r - 1 > 4 else r - 1
    d0 = 2 * s.sevens + r - 1 + k
    if d0 < r:
        d0 = r
    if s.head + d0 >= s.tail:
        return d0                                      # the whole queue: no bound needed
    for i in range(s.head, s.head + d0):
        if (p.cells[i] & 7) == R7:
            sevens += 1
    if sevens < k:
        k = sevens
    d = 2 * s.sevens + r - 1 + k
    return d if d > r else r


cdef inline int queue_front(PPos* p, PState* s, int r, int* first, int* last) noexcept nogil:
    """The queue cells r plies can draw that lie beyond the deal's stock: [first, last)."""
    cdef int d = draws_within(p, s, r)
    first[0] = s.head if s.head > p.L0 else p.L0
    last[0] = s.head + d if s.head + d < s.tail else s.tail
    return last[0] - first[0] if last[0] > first[0] else 0


cdef int p_key_fits(PPos* p, PState* s) noexcept nogil:
    cdef int r = p.hend - s.ply, a, b, m
    if r < MIN_PROBE or r > 255:
        return 0
    m = queue_front(p, s, r, &a, &b)
    return m <= (KEY_CARDS_SMALL if p.n <= 3 else 0)


cdef int p_node_info(void* vp, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    cdef PState* s = &p.st[p.sp]
    banked[0] = 0
    ismax[0] = s.turn == p.player
    if is_terminal(p, s):
        return NODE_TERMINAL
    future_bounds(p, s, lo, hi)
    return NODE_BOUNDARY if p.probe and p_key_fits(p, s) else NODE_SMALL


cdef void p_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """The exact key (see the module's doc); only called where p_key_fits."""
    cdef PPos* p = <PPos*> vp
    cdef PState* s = &p.st[p.sp]
    cdef int r = p.hend - s.ply, a, b, i, j, c, shift
    cdef uint64_t x0, x1, code
    cdef uint32_t h
    cdef int h0 = s.head if s.head < p.L0 else p.L0
    cdef int state = s.sevens if s.sevens else (5 if s.ace else 0)
    queue_front(p, s, r, &a, &b)
    if p.n <= 3:
        # 2 bits a card: 0, 1, 2 a seat's hand, 3 elsewhere (the top or the queue).
        x0 = 0xFFFFFFFFFFFFFFFFULL
        x0 &= ~(spread2(s.hand[0]) * 3)
        x0 &= ~(spread2(s.hand[1]) << 1)
        if p.n == 3:
            x0 &= ~spread2(s.hand[2])
        x1 = (<uint64_t> s.top) | ((<uint64_t> s.suit) << 5) | ((<uint64_t> state) << 7) | \
             ((<uint64_t> s.turn) << 10) | ((<uint64_t> r) << 12) | ((<uint64_t> h0) << 20) | \
             ((<uint64_t> s.out) << 26) | ((<uint64_t> (s.pending_out + 1)) << 29)
        shift = 31
        for i in range(a, b):
            x1 |= (<uint64_t> p.cells[i]) << shift
            shift += 5
    else:
        # 3 bits a card: seat + 1 for a hand, 7 the top, 0 the queue; cards
        # 0..20 in the first word, 21..31 in the second.
        x0 = 0
        x1 = 0
        for j in range(p.n):
            h = s.hand[j]
            code = j + 1
            while h:
                c = dd_ctz32(h)
                h &= h - 1
                if c < 21:
                    x0 |= code << (3 * c)
                else:
                    x1 |= code << (3 * (c - 21))
        if s.top < 21:
            x0 |= (<uint64_t> 7) << (3 * s.top)
        else:
            x1 |= (<uint64_t> 7) << (3 * (s.top - 21))
        x1 |= ((<uint64_t> s.suit) << 33) | ((<uint64_t> state) << 35) | ((<uint64_t> s.turn) << 38) | \
              ((<uint64_t> r) << 41) | ((<uint64_t> h0) << 49) | ((<uint64_t> s.out) << 55) | \
              ((<uint64_t> (s.pending_out + 1)) << 61)
    k0[0] = x0 ^ p.salt0
    k1[0] = x1 ^ p.salt1
    depth[0] = r


cdef inline int order_score(PPos* p, PState* s, uint32_t nxt, int follow, int mv) noexcept nogil:
    """Heuristic worth of a move (only the order matters): shedding before drawing (an Ober
    too: below a draw it costs 3x the nodes); a 7 or an ace first unless the next player
    (``nxt``, his hand) can answer in kind; among plain cards, one the next player cannot
    follow and one the mover's own hand can follow later; an Ober late, naming a suit the mover
    holds and the next player lacks.  (Measured on fresh deals: -40% nodes against plain
    "specials first, then suit length".)"""
    cdef int card, r, named
    cdef uint32_t h = s.hand[s.turn]
    if mv == MV_DRAW or mv == MV_PASS:
        return 0
    card = card_of(mv)
    r = card & 7
    h &= ~bit(card)
    if r == RQ:
        named = (mv - MV_OBER) & 3
        return 10 + 3 * dd_popcount32(h & suit_cards(named)) - 4 * dd_popcount32(nxt & (suit_cards(named) | OBERS))
    if r == R7:
        return 25 if nxt & SEVENS else 45
    if r == RA:
        return 25 if nxt & ACES else 40
    return 35 + 2 * dd_popcount32(h & (suit_cards(card >> 3) | rank_cards(r))) \
        - follow * dd_popcount32(nxt & (suit_cards(card >> 3) | rank_cards(r) | OBERS))


cdef int p_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    cdef PState* s = &p.st[p.sp]
    cdef uint32_t cards = playable(s), plain, nxt
    cdef int n = 0, c, named, i, follow
    cdef int scores[MAX_MOVES]
    if s.done:
        return 0
    plain = cards & ~OBERS
    while plain:
        c = dd_ctz32(plain)
        plain &= plain - 1
        moves[n] = c
        n += 1
    cards &= OBERS
    while cards:
        c = dd_ctz32(cards)
        cards &= cards - 1
        for named in range(4):
            moves[n] = MV_OBER + (c >> 3) * 4 + named
            n += 1
    moves[n] = MV_PASS if s.ace else MV_DRAW
    n += 1
    c = next_seat(p, s, s.turn)
    nxt = s.hand[c]
    # Paranoid: two of the others in a row play together, so the mover wants the next one to
    # follow (measured with 3 to 6 players: -8% to -28% nodes, 5 players +2%).
    follow = -3 if (s.turn != p.player and c != p.player) else 3
    for i in range(n):
        scores[i] = order_score(p, s, nxt, follow, moves[i])
    sort_moves(moves, scores, n)
    return n


cdef inline int legal(PPos* p, PState* s, int mv) noexcept nogil:
    cdef int card
    if s.done or mv < 0 or mv > MV_PASS:
        return 0
    if mv == MV_DRAW:
        return not s.ace
    if mv == MV_PASS:
        return s.ace
    card = card_of(mv)
    return (playable(s) >> card) & 1 and ((card & 7) != RQ or mv >= MV_OBER)


cdef GameOps PRSI_OPS
PRSI_OPS.gen_moves = p_gen_moves
PRSI_OPS.make = p_make
PRSI_OPS.unmake = p_unmake
PRSI_OPS.max_to_move = p_max_to_move
PRSI_OPS.node_kind = p_node_kind
PRSI_OPS.node_info = p_node_info
PRSI_OPS.terminal_future = p_terminal_future
PRSI_OPS.tt_key = p_tt_key


cdef class PrsiBoard(Board):
    """A Prší deal in C form, searchable by ddcards._core.search.Searcher.

    hands: a card mask per seat; stock: card ints, first drawn first;
    upcard: the card turned up (a 7 or an A acts on `leader`, who starts);
    play_on, comeback: the variants `play_on` and `return`.  Before a search,
    ``set_search(player, horizon)`` names P and the horizon from here.
    """
    cdef PPos* pp

    def __cinit__(self, hands, stock, int upcard, int leader=0, bint play_on=False, bint comeback=False,
                  unsigned long long salt0=0, unsigned long long salt1=0):
        cdef PState* s
        if not 2 <= len(hands) <= MAXSEATS:
            raise ValueError(f"Prší is played by 2 to {MAXSEATS} players")
        self.pp = <PPos*> PyMem_Calloc(1, sizeof(PPos))
        if self.pp == NULL:
            raise MemoryError()
        p = self.pp
        p.n = len(hands)
        p.play_on = play_on
        p.comeback = comeback
        p.base0 = salt0
        p.base1 = salt1
        p.probe = 1
        p.L0 = len(stock)
        for i, c in enumerate(stock):
            p.cells[i] = c
        s = &p.st[0]
        for i in range(p.n):
            s.hand[i] = hands[i]
        s.head = 0
        s.tail = p.L0
        s.slen = p.L0
        s.top = upcard
        s.suit = upcard >> 3
        s.sevens = 1 if (upcard & 7) == R7 else 0
        s.ace = 1 if (upcard & 7) == RA else 0
        s.turn = leader
        s.pending_out = -1
        s.first_out = -1
        p.player = leader
        p.hend = STACK
        self.ops = &PRSI_OPS
        self.pos = <void*> p
        self.exact = True
        self.granularity = 1
        self.guess = 0
        # The cutoff history reorders badly here: the static order is far better (-80% nodes).
        self.history_leads = False
        self.max_ply = STACK - 1

    def __dealloc__(self):
        if self.pp != NULL:
            PyMem_Free(self.pp)

    def set_search(self, int player, int horizon):
        """Search for `player` (P, maximising), `horizon` plies from the current position."""
        if not 0 <= player < self.pp.n:
            raise ValueError(f"no seat {player}")
        if not 0 <= horizon <= MAX_HORIZON:
            raise ValueError(f"the horizon is 0..{MAX_HORIZON} plies")
        cdef PState* s = &self.pp.st[self.pp.sp]
        self.pp.player = player
        self.pp.salt0 = self.pp.base0 ^ dd_mix64(2 * player + 1)
        self.pp.salt1 = self.pp.base1 ^ dd_mix64(2 * player + 2)
        self.pp.root = s.ply
        self.pp.hend = s.ply + horizon
        if self.ply + horizon >= STACK - 1:
            raise ValueError("the history and the horizon together are too long")

    @property
    def probe(self):
        """Whether the search probes the table (the tests turn it off to check the keys)."""
        return bool(self.pp.probe)

    @probe.setter
    def probe(self, bint on):
        self.pp.probe = on

    def is_legal(self, int move):
        return bool(legal(self.pp, &self.pp.st[self.pp.sp], move))

    @property
    def seats(self):
        return self.pp.n

    @property
    def to_move(self):
        return self.pp.st[self.pp.sp].turn

    @property
    def done(self):
        """The game is over (first out; with play_on, one player left)."""
        return bool(self.pp.st[self.pp.sp].done)

    def settled(self):
        """P's outcome so far: +1 won, -1 lost, 0 open (P as set_search named him)."""
        cdef int ply = 0
        return outcome(self.pp, &self.pp.st[self.pp.sp], &ply)

    def playable_mask(self):
        """The cards the mover may play now (an Ober with any named suit)."""
        return playable(&self.pp.st[self.pp.sp])

    def quick_bounds(self):
        """(lo, hi): the bounds the search uses here, for P and the horizon set."""
        cdef int lo = 0, hi = 0
        future_bounds(self.pp, &self.pp.st[self.pp.sp], &lo, &hi)
        return lo, hi

    @property
    def state(self):
        """The current state as a dict (for reporting and tests)."""
        cdef PPos* p = self.pp
        cdef PState* s = &p.st[p.sp]
        queue = [p.cells[i] for i in range(s.head, s.tail)]
        return {
            "hands": [s.hand[i] for i in range(p.n)],
            "stock": queue[:s.slen],
            "pile": queue[s.slen:],            # below the top card, oldest first
            "top": s.top,
            "suit": s.suit,
            "sevens": s.sevens,
            "ace": bool(s.ace),
            "turn": s.turn,
            "out": [bool((s.out >> i) & 1) for i in range(p.n)],
            "pending_out": None if s.pending_out < 0 else s.pending_out,
            "places": [s.place[i] for i in range(p.n)],
            "done": bool(s.done),
            "first_out": None if s.first_out < 0 else s.first_out,
            "ply": s.ply,
            "turnovers": s.turnovers,
        }

    def key(self):
        """The table key here (None where the search does not probe): for tests."""
        cdef uint64_t k0 = 0, k1 = 0
        cdef int depth = 0
        if is_terminal(self.pp, &self.pp.st[self.pp.sp]) or not p_key_fits(self.pp, &self.pp.st[self.pp.sp]):
            return None
        p_tt_key(<void*> self.pp, &k0, &k1, &depth)
        return (k0, k1, depth)

    def pack(self):
        """Everything that decides the future of this position, as bytes (the
        whole queue in order): equal bytes, equal positions (for the exact,
        horizon-free analysis)."""
        cdef PPos* p = self.pp
        cdef PState* s = &p.st[p.sp]
        head = bytes([s.top, s.suit, s.sevens, s.ace, s.turn, s.pending_out + 1, s.out, s.first_out + 1,
                      s.done])
        hands = b"".join(int(s.hand[i]).to_bytes(4, "little") for i in range(p.n))
        return head + hands + bytes([p.cells[i] for i in range(s.head, s.tail)])

    def load(self, bytes packed):
        """Make the current state the one `pack` described (the history is
        lost: the state becomes the board's only one)."""
        cdef PPos* p = self.pp
        cdef PState* s = &p.st[0]
        cdef int i, q
        p.sp = 0
        self.ply = 0
        memset_state(s)
        s.top, s.suit, s.sevens, s.ace, s.turn = packed[0], packed[1], packed[2], packed[3], packed[4]
        s.pending_out = packed[5] - 1
        s.out = packed[6]
        s.first_out = packed[7] - 1
        s.done = packed[8]
        for i in range(p.n):
            s.hand[i] = int.from_bytes(packed[9 + 4 * i:13 + 4 * i], "little")
        q = 9 + 4 * p.n
        for i in range(len(packed) - q):
            p.cells[i] = packed[q + i]
        s.head = 0
        s.tail = len(packed) - q
        s.slen = s.tail
        p.L0 = 0


cdef inline void memset_state(PState* s) noexcept nogil:
    memset(s, 0, sizeof(PState))
    s.pending_out = -1
    s.first_out = -1


from cpython.mem cimport PyMem_Calloc, PyMem_Free
