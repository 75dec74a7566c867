# The exact table key of a Prší position (module doc of _prsi.pyx, "Table
# key"): the hands, the top card and the state of play, the plies left and the
# queue's front as far as they can draw; key_fits says where the key holds it
# (elsewhere the search does not probe).
from libc.stdint cimport uint32_t, uint64_t

from ddcards._core.bits cimport dd_popcount32, dd_ctz32
from ddcards.games._prsi_state cimport PPos, PState, SEVENS, R7, MIN_PROBE, KEY_CARDS_SMALL


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


cdef inline int key_fits(PPos* p, PState* s) noexcept nogil:
    """The table is probed here: enough plies left to pay, and a queue front the key holds."""
    cdef int r = p.hend - s.ply, a, b, m
    if r < MIN_PROBE or r > 255:
        return 0
    m = queue_front(p, s, r, &a, &b)
    return m <= (KEY_CARDS_SMALL if p.n <= 3 else 0)


cdef inline void table_key(PPos* p, PState* s, uint64_t* k0, uint64_t* k1, int* depth) noexcept nogil:
    """The exact key; only called where key_fits."""
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
