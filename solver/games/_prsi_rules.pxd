# Prší rules in C (docs/RULES.md §4): what the mover may play, the next seat,
# who is out and the outcome so far, an action applied to a state (apply),
# and whether a move is legal.  make/unmake live in _prsi.pyx.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport dd_popcount32
from ddcards.games._prsi_state cimport (PPos, PState, bit, suit_cards, rank_cards, card_of, SEVENS, OBERS,
                                       ACES, R7, RQ, RA, MV_OBER, MV_DRAW, MV_PASS)


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

    The usual goal, with play_on too (docs/RULES.md §4.9): the first seat out
    for good wins.  not_last (play_on only): P wins by being out for good at
    all, and loses by being the one left.
    """
    if not p.not_last:
        if s.first_out < 0:
            return 0
        settled_ply[0] = s.out_ply[s.first_out]       # (under play_on the game goes on past it)
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


cdef inline void apply(PPos* p, PState* s, int mv) noexcept nogil:
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


cdef inline int is_terminal(PPos* p, PState* s) noexcept nogil:
    cdef int settled
    return s.ply >= p.hend or s.done or outcome(p, s, &settled) != 0


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
