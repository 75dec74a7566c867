"""Prší in C for the search core (docs/RULES.md §4).

One job per file, as the trick games': the position (structs, constants,
card codes) in _prsi_state.pxd; the rules (what may be played, who is out,
an action applied) in _prsi_rules.pxd; quick bounds in _prsi_bounds.pxd; the
table key in _prsi_key.pxd; move generation and order in _prsi_moves.pxd.
This file makes and unmakes moves, strings the rest into the core's GameOps
and holds the board (PrsiBoard).

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
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

from ddcards._core.bits cimport dd_mix64
from ddcards._core.search cimport Board, GameOps, NODE_BOUNDARY, NODE_SMALL, NODE_TERMINAL
from ddcards.games._prsi_state cimport PPos, PState, MAXSEATS, R7, RA, MV_OBER, MV_DRAW, MV_PASS, STACK
from ddcards.games._prsi_rules cimport apply, outcome, is_terminal, legal
from ddcards.games._prsi_bounds cimport future_bounds
from ddcards.games._prsi_key cimport key_fits, table_key
from ddcards.games._prsi_moves cimport generate

MOVE_DRAW = MV_DRAW
MOVE_PASS = MV_PASS
MOVE_OBER = MV_OBER
MAX_HISTORY = STACK - 300        # actions a history may hold (the rest is the search's)
MAX_HORIZON = 250                # plies (the key holds r in 8 bits)


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


cdef int p_node_info(void* vp, int* banked, int* ismax, int* lo, int* hi) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    cdef PState* s = &p.st[p.sp]
    banked[0] = 0
    ismax[0] = s.turn == p.player
    if is_terminal(p, s):
        return NODE_TERMINAL
    future_bounds(p, s, lo, hi)
    return NODE_BOUNDARY if p.probe and key_fits(p, s) else NODE_SMALL


cdef void p_tt_key(void* vp, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    table_key(p, &p.st[p.sp], k0, k1, depth)


cdef int p_gen_moves(void* vp, int* moves, int prune) noexcept nogil:
    cdef PPos* p = <PPos*> vp
    return generate(p, &p.st[p.sp], moves)


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
    play_on, comeback: the variants `play_on` and `return`; not_last: P's goal
    under play_on is getting out at all (default: being out first).  Before a search,
    ``set_search(player, horizon)`` names P and the horizon from here.
    """
    cdef PPos* pp

    def __cinit__(self, hands, stock, int upcard, int leader=0, bint play_on=False, bint comeback=False,
                  unsigned long long salt0=0, unsigned long long salt1=0, bint not_last=False):
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
        if not_last and not play_on:
            raise ValueError("not_last is a goal of the play_on variant")
        p.not_last = not_last
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
        # No action follows a history's last (docs/RULES.md §4.1): the window ends there too.
        self.pp.hend = min(s.ply + horizon, MAX_HISTORY)
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

    def quick_bounds(self):
        """(lo, hi): the quick bounds lo <= value <= hi the search tries here, within the horizon
        set_search named (_prsi_bounds.pxd: how soon anyone can be out); None where the value is
        known without them (the game over or settled for P, or the horizon reached)."""
        cdef int banked = 0, ismax = 0, lo = 0, hi = 0
        if p_node_info(<void*> self.pp, &banked, &ismax, &lo, &hi) == NODE_TERMINAL:
            return None
        return lo, hi

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
