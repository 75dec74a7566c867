# Quick bounds on a Prší position's value (module doc of _prsi.pyx, "Values"):
# how soon P can be out at the earliest, and how soon the others can settle
# it against him, one turn per card and a turn for each round of the table.
from ddcards._core.bits cimport dd_popcount32
from ddcards.games._prsi_state cimport PPos, PState
from ddcards.games._prsi_rules cimport playable, players_in


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


cdef inline void future_bounds(PPos* p, PState* s, int* lo, int* hi) noexcept nogil:
    """lo <= value <= hi from how soon anyone can be out.

    P can win no sooner than his earliest way out (hi), and lose no sooner
    than the earliest the others can settle it (lo): the first of them out
    (the usual goal), or the last of them (not_last: P loses when left alone).
    """
    cdef int m = players_in(p, s), period, offset = 0, j, i, e, ep = 0x7FFF, el
    cdef int horizon = p.hend
    # Turns come round every m plies while nobody leaves for good; with
    # not_last (play_on: the search goes on past a player out) players leave
    # and it may shrink to 2.
    period = 2 if p.not_last else m
    el = 0 if p.not_last else 0x7FFF
    j = s.turn
    for i in range(p.n):
        if not (s.out >> j) & 1 or s.pending_out == j:
            if not (s.out >> j) & 1:
                offset += 1
            e = first_out_ply(p, s, j, offset, period)
            if j == p.player:
                ep = e
            elif p.not_last:
                if e > el:
                    el = e
            elif e < el:
                el = e
        j = j + 1 if j + 1 < p.n else 0
    if p.not_last and el == 0:
        el = 0x7FFF
    hi[0] = horizon + 1 - ep if ep <= horizon else 0
    lo[0] = -(horizon + 1 - el) if el <= horizon else 0
