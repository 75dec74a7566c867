# The two-player endgame: phase 2 (the stock used up) searched on its own.
#
# Once the stock is empty a two-player deal is a small game of perfect
# information with obligations (§3.4): at most six tricks, two hands, no draws.
# Nearly all of a full deal's nodes are spent here, every phase-2 position
# being reached from many lines of phase 1, so it gets a search of its own:
# a fail-soft null-window alpha-beta over whole tricks on two hand masks, with
# no state copies, its own move order and equivalent cards merged.  It keeps
# what it learns as the core does (same keys, bounds on the future): in the
# core's table with 4 or more tricks left, in a small cache in the table's side
# area with 3 (those come back most often).  With 2 left a search costs less
# than a cache line fetched from memory, and the last trick is valued at once
# (last_trick).  The core calls it
# (GameOps.leaf) at every phase-2 trick boundary it does not settle by itself.
# Its quick bounds (eg_bounds) add the leader's cash of his sure winners to
# the core's (_mariasz_bounds.cash_bounds); at a phase-2 entry the core tries
# them itself (z_node_info), before its table probe.
#
# Values are futures from seat 0's view (the maximising side with two
# players): points, the margin still to come; race, +1 / 0 / -1, with the
# points each seat still needs to reach 131.
from libc.stdint cimport uint64_t, int8_t, int16_t, uint8_t

from ddcards._core.bits cimport dd_popcount64, dd_msb64, dd_ctz64, dd_prefetch, dd_mix64
from ddcards._core.tt cimport TTable, TTHit, tt_bucket, tt_probe, tt_store, TT_NO_MOVE
from ddcards.games._mariasz_state cimport (ZPos, lane, bit, above, married_queens, marriage_cards, marriages_points,
                                          best_marriage_points, marriage_with, MZ_LAST_TRICK, OBJ_RACE_C)
from ddcards.games._mariasz_bounds cimport PointMasks, mask_points, top_trumps, cash_bounds
from ddcards.games._mariasz_rules cimport beats
from ddcards.games._mariasz_key cimport boundary_key, needs_free_key

cdef enum:
    EG_INF = 30000
    EG_SMALL_CARDS = 6          # 3 tricks left (6 cards): the small cache (2 left: searched, benchmarks/RESULTS.md)
    EG_LARGE_CARDS = 8          # 4 or more tricks left: the core's table


# The small cache: bounds on the futures of the last tricks, which come back
# most often, in the search table's side area (TTable.aux: an eighth of the
# table, 256 KiB to 16 MiB, direct-mapped).  It sits closer in the caches than
# the big table, whose probes mostly wait on memory, and keeps these many small
# entries out of it.  Keyed as the table is (the same 128 bits), stamped with
# its generation.
ctypedef struct EgSlot:
    uint64_t k0
    uint64_t k1
    int16_t lo
    int16_t hi
    uint8_t gen
    uint8_t move
    uint8_t pad[10]


# Races: the cache of dominated needs.  A race's future is monotone in the points each seat
# still needs: on every line of play, seat 0 needing fewer points or seat 1 needing more can
# only bring seat 0's reaching 131 first nearer, so a bound proven with needs (n0, n1) is a
# lower bound wherever seat 0 needs at most n0 and seat 1 at least n1, and an upper bound the
# other way round.  The table keys the needs exactly, so positions reached with other points
# won so far (most of them) never meet there.  This cache, keyed without the needs, keeps each
# position's last informative lower and upper bounds with the needs they were proven at.  It
# takes the upper half of the side area while in use (the small cache the lower half).  The core
# reaches it through GameOps.leaf (read, once the quick bounds and the table have not settled a
# boundary) and GameOps.stored (kept), the endgame search at its own boundaries.
ctypedef struct RaceSlot:
    uint64_t k0
    uint64_t k1
    int8_t lo                   # future >= lo where seat 0 needs <= lo_n0 and seat 1 >= lo_n1
    int8_t hi                   # future <= hi where seat 0 needs >= hi_n0 and seat 1 <= hi_n1
    uint8_t lo_n0
    uint8_t lo_n1
    uint8_t hi_n0
    uint8_t hi_n1
    uint8_t gen
    uint8_t pad[9]


cdef inline RaceSlot* race_slot(TTable* tt, uint64_t r0, uint64_t r1) noexcept nogil:
    """The race cache's slot for the key r0, r1 (needs_free_key)."""
    cdef size_t half = tt.aux_bytes // 2
    return (<RaceSlot*> ((<char*> tt.aux) + half)) + (dd_mix64(r0 ^ (r1 * 0x9E3779B97F4A7C15ULL))
                                                      & (half // sizeof(RaceSlot) - 1))


cdef inline void race_bounds(RaceSlot* r, uint64_t r0, uint64_t r1, uint8_t gen, int n0, int n1,
                             int* lo, int* hi) noexcept nogil:
    """Tighten lo / hi (the future with needs n0, n1) by the slot's bounds that serve those needs."""
    if r.k0 != r0 or r.k1 != r1 or r.gen != gen:
        return
    if r.lo > lo[0] and n0 <= r.lo_n0 and n1 >= r.lo_n1:
        lo[0] = r.lo
    if r.hi < hi[0] and n0 >= r.hi_n0 and n1 <= r.hi_n1:
        hi[0] = r.hi


cdef inline void race_keep(RaceSlot* r, uint64_t r0, uint64_t r1, uint8_t gen, int n0, int n1, int lo,
                           int hi) noexcept nogil:
    """Keep lo <= future <= hi, proven with needs (n0, n1): each bound replaces the slot's if it is
    tighter, or as tight and proven with needs that serve at least as many others."""
    if r.k0 != r0 or r.k1 != r1 or r.gen != gen:
        r.k0 = r0
        r.k1 = r1
        r.gen = gen
        r.lo = -1
        r.hi = 1
    if lo > -1 and (lo > r.lo or (lo == r.lo and n0 >= r.lo_n0 and n1 <= r.lo_n1)):
        r.lo = <int8_t> (lo if lo < 1 else 1)
        r.lo_n0 = <uint8_t> n0
        r.lo_n1 = <uint8_t> n1
    if hi < 1 and (hi < r.hi or (hi == r.hi and n0 <= r.hi_n0 and n1 >= r.hi_n1)):
        r.hi = <int8_t> (hi if hi > -1 else -1)
        r.hi_n0 = <uint8_t> n0
        r.hi_n1 = <uint8_t> n1


ctypedef struct Endgame:
    ZPos* p
    PointMasks* pm
    TTable* tt                  # the core's table, NULL outside a search
    int exchanged               # for the key: the deal's exchange is history by now
    int race_cache              # a two-player race keeps its bounds in the race cache too (set with tt)
    uint64_t nodes              # cards tried (leads and replies), as the core counts nodes


cdef inline uint64_t follow_mask(ZPos* p, uint64_t h, int lead) noexcept nogil:
    """The cards of h that may follow `lead` (§3.4; two players)."""
    cdef uint64_t inled = h & lane(lead >> 4), tr, higher
    if inled:
        if p.must_beat:
            higher = inled & above(lead)
            if higher:
                return higher
        return inled
    tr = h & p.trumps
    if tr:
        return tr                # with two players any trump beats a plain lead
    return h


cdef inline int pick(ZPos* p, uint64_t cards, uint64_t others, uint64_t hand, int* out, int* score,
                     int lead) noexcept nogil:
    """The cards to try, one per group of equivalent ones, with their order scores.

    lead < 0: leads; else replies to `lead`.  `others`: the opponent's cards.
    """
    cdef int n = 0, c, prev, su, pts, power, trump, i, j, m, sc
    cdef uint64_t L, between
    cdef uint64_t married = marriage_cards(p, married_queens(p, hand))    # each announces a marriage
    cdef uint64_t rest = cards
    # Two tricks left (points): a sure winner is led after the other card, kept for the last
    # trick and its bonus.  (Led first, the other card cut off 4 times as often as the winner
    # here; with three tricks left, or in a race, the winner first is right: benchmarks/RESULTS.md.)
    cdef int winner_base = 500 if lead < 0 and p.objective != OBJ_RACE_C and dd_popcount64(hand) == 2 else 3000
    while rest:                     # the suits of `cards`, lowest first
        su = dd_ctz64(rest) >> 4
        L = rest & lane(su)
        rest &= ~L
        prev = -1
        while L:
            c = dd_msb64(L)
            L &= ~bit(c)
            if prev >= 0 and p.pts_of[c] == p.pts_of[prev] and not (married >> c) & 1 \
                    and not (married >> prev) & 1:
                between = (bit(prev) - 1) & ~((bit(c) << 1) - 1)
                if (others & between) == 0:
                    prev = c
                    continue
            pts = p.pts_of[c]
            power = c & 15
            trump = (c >> 4) == p.trump
            if lead < 0:
                if (married >> c) & 1:
                    score[n] = 5000 + p.marriage_of[c]
                elif (others & lane(su) & above(c)) == 0 and (trump or (others & lane(su))
                                                          or (others & p.trumps) == 0):
                    score[n] = winner_base + 10 * pts + power   # wins: the opponent must follow under it
                else:
                    score[n] = 1000 - 10 * pts - power - (20 if trump else 0)
            elif beats(p, c, lead):
                score[n] = 3000 + 10 * (p.pts_of[lead] + pts) - power - (12 if trump else 0)
            else:
                score[n] = 2000 - 10 * pts - power
            out[n] = c
            n += 1
            prev = c
    # insertion sort, best first
    for i in range(1, n):
        m = out[i]
        sc = score[i]
        j = i - 1
        while j >= 0 and score[j] < sc:
            out[j + 1] = out[j]
            score[j + 1] = score[j]
            j -= 1
        out[j + 1] = m
        score[j + 1] = sc
    return n


cdef inline int eg_bounds(Endgame* e, uint64_t h0, uint64_t h1, int leader, int n0, int n1,
                          int alpha, int beta, int* lo, int* hi) noexcept nogil:
    """Quick bounds on the future (as _mariasz_bounds.future_bounds, for two hands); the leader's
    cash (cash_bounds) only when the plain ones cut nothing in (alpha, beta): it costs more."""
    cdef ZPos* p = e.p
    cdef int rest = mask_points(e.pm, h0 | h1) + MZ_LAST_TRICK
    cdef int sure0 = mask_points(e.pm, top_trumps(p, h0, h1))
    cdef int sure1 = mask_points(e.pm, top_trumps(p, h1, h0))
    cdef uint64_t q0 = married_queens(p, h0), q1 = married_queens(p, h1)
    cdef int m0 = marriages_points(p, q0), m1 = marriages_points(p, q1)
    cdef int lead_m = best_marriage_points(p, q0 if leader == 0 else q1)
    if p.objective != OBJ_RACE_C:
        hi[0] = rest - 2 * sure1 + m0 - (lead_m if leader == 1 else 0)
        lo[0] = -(rest - 2 * sure0 + m1) + (lead_m if leader == 0 else 0)
    elif lead_m >= (n0 if leader == 0 else n1):
        lo[0] = 1 if leader == 0 else -1            # the leader claims with a marriage now
        hi[0] = lo[0]
        return 0
    else:
        lo[0] = -1 if rest - sure0 + m1 >= n1 else 0
        hi[0] = 1 if rest - sure1 + m0 >= n0 else 0
        if sure0 >= n0 and lo[0] == 0:
            lo[0] = 1
        if sure1 >= n1 and hi[0] == 0:
            hi[0] = -1
    if lo[0] >= beta or hi[0] <= alpha or lo[0] == hi[0]:
        return 0
    if leader == 0:
        cash_bounds(p, e.pm, h0, h1, 0, n0, n1, rest, m0, m1, lo, hi)
    else:
        cash_bounds(p, e.pm, h1, h0, 1, n1, n0, rest, m1, m0, lo, hi)
    return 0


cdef inline int last_trick(Endgame* e, uint64_t hl, uint64_t ho, int leader, int n0, int n1) noexcept nogil:
    """One card in each hand: the last trick, forced (no marriage: a marriage needs two cards)."""
    cdef ZPos* p = e.p
    cdef int l = dd_ctz64(hl), f = dd_ctz64(ho)
    cdef int gain = p.pts_of[l] + p.pts_of[f] + MZ_LAST_TRICK
    cdef int w = 1 - leader if beats(p, f, l) else leader
    e.nodes += 1                                       # one position valued, as the core counts its last trick
    if p.objective != OBJ_RACE_C:
        return gain if w == 0 else -gain
    if (n0 if w == 0 else n1) <= gain:
        return 1 if w == 0 else -1                     # the winner reaches 131
    return 0


cdef inline int eg_node(Endgame* e, uint64_t h0, uint64_t h1, int leader, int n0, int n1,
                        int alpha, int beta, int probe) noexcept nogil:
    """A phase-2 trick boundary: the future value, fail-soft in (alpha, beta).

    Two levels per call: the leader's leads (max for seat 0), and for each the
    follower's replies (the other way), each reply recursing to the next trick.
    probe = 0: the core's phase-2 entry, whose table and quick bounds the core has tried.
    """
    cdef ZPos* p = e.p
    cdef int lo, hi, maxl = leader == 0, i, j, l, f, m, v, fv, best, fbest, n, nf, w, gain, sign, last
    cdef int depth = 0, bestmove = TT_NO_MOVE, ttmove = TT_NO_MOVE, cards
    cdef int alpha0 = alpha, beta0 = beta, fa, fb, k0n, k1n, c0, c1, offset
    cdef uint64_t hl = h0 if leader == 0 else h1
    cdef uint64_t ho = h1 if leader == 0 else h0
    cdef uint64_t k0 = 0, k1 = 0, a0, a1, b0, b1
    cdef uint64_t hands[4]
    cdef int need_left[4]
    cdef int moves[12]
    cdef int replies[12]
    cdef int score[12]
    cdef TTHit t
    cdef EgSlot* slot = NULL
    cdef RaceSlot* rslot = NULL
    cdef uint64_t r0 = 0, r1 = 0
    cards = dd_popcount64(h0 | h1)
    if cards == 2:
        return last_trick(e, hl, ho, leader, n0, n1)
    if probe and e.tt != NULL and cards >= EG_SMALL_CARDS:
        # the key first, and its slot on its way into the cache while the bounds are worked out
        hands[0] = h0
        hands[1] = h1
        hands[2] = 0
        hands[3] = 0
        need_left[0] = n0
        need_left[1] = n1
        need_left[2] = 0        # (two sides: never read; set so that gcc sees it set)
        need_left[3] = 0
        depth = boundary_key(p, hands, p.nstock, e.exchanged, leader, need_left, 0, &k0, &k1)
        if e.race_cache:
            needs_free_key(p, k0, k1, &r0, &r1)
            rslot = race_slot(e.tt, r0, r1)
            dd_prefetch(rslot)
        if cards < EG_LARGE_CARDS:
            slot = (<EgSlot*> e.tt.aux) + (dd_mix64(k0 ^ (k1 * 0x9E3779B97F4A7C15ULL))
                                            & ((e.tt.aux_bytes >> e.race_cache) // sizeof(EgSlot) - 1))
            dd_prefetch(slot)
        else:
            dd_prefetch(tt_bucket(e.tt, k0, k1))
    if probe:
        eg_bounds(e, h0, h1, leader, n0, n1, alpha, beta, &lo, &hi)
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
    else:
        lo = -EG_INF            # the core's entry: it has tried these bounds (z_node_info)
        hi = EG_INF
    if depth:
        if slot != NULL:
            if slot.k0 == k0 and slot.k1 == k1 and slot.gen == e.tt.gen:
                if slot.lo > lo:
                    lo = slot.lo
                if slot.hi < hi:
                    hi = slot.hi
                ttmove = slot.move
        else:
            if tt_probe(e.tt, k0, k1, &t):
                if t.lo > lo:
                    lo = t.lo
                if t.hi < hi:
                    hi = t.hi
                ttmove = t.move
        if rslot != NULL:
            race_bounds(rslot, r0, r1, e.tt.gen, n0, n1, &lo, &hi)
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
    n = pick(p, hl, ho, hl, moves, score, -1)
    if ttmove != TT_NO_MOVE:
        for i in range(1, n):
            if moves[i] == ttmove:
                moves[i] = moves[0]
                moves[0] = ttmove
                break
    best = -EG_INF if maxl else EG_INF
    for i in range(n):
        l = moves[i]
        e.nodes += 1
        m = marriage_with(p, hl, l)
        a0 = h0 & ~bit(l) if leader == 0 else h0
        a1 = h1 & ~bit(l) if leader == 1 else h1
        # after the lead: a race may be claimed with the marriage; points bank it
        k0n = n0
        k1n = n1
        offset = 0
        if p.objective == OBJ_RACE_C:
            if leader == 0:
                k0n -= m
            else:
                k1n -= m
        else:
            offset = m if leader == 0 else -m
        if p.objective == OBJ_RACE_C and (k0n <= 0 or k1n <= 0):
            v = 1 if leader == 0 else -1                      # claims with the marriage
        else:
            # the follower's replies: the other side's optimum, in the window shifted by the marriage
            fa = alpha - offset
            fb = beta - offset
            nf = pick(p, follow_mask(p, ho, l), (a0 if leader == 0 else a1) | bit(l), ho, replies, score, l)
            fbest = EG_INF if maxl else -EG_INF
            for j in range(nf):
                f = replies[j]
                e.nodes += 1
                b0 = a0 & ~bit(f) if leader == 1 else a0
                b1 = a1 & ~bit(f) if leader == 0 else a1
                gain = p.pts_of[l] + p.pts_of[f]
                if beats(p, f, l):
                    w = 1 - leader
                    if p.mos:
                        gain += marriage_with(p, ho, f)
                else:
                    w = leader
                last = (b0 | b1) == 0
                if last:
                    gain += MZ_LAST_TRICK
                sign = 1 if w == 0 else -1
                if p.objective == OBJ_RACE_C:
                    c0 = k0n - (gain if w == 0 else 0)
                    c1 = k1n - (gain if w == 1 else 0)
                    if c0 <= 0 or c1 <= 0:
                        fv = sign                             # the winner claims
                    elif last:
                        fv = 0
                    else:
                        fv = eg_node(e, b0, b1, w, c0, c1, fa, fb, 1)
                elif last:
                    fv = sign * gain
                else:
                    fv = sign * gain + eg_node(e, b0, b1, w, n0, n1, fa - sign * gain, fb - sign * gain, 1)
                if maxl:                                      # the follower is seat 1: minimises
                    if fv < fbest:
                        fbest = fv
                        if fbest <= fa:
                            break
                        if fbest < fb:
                            fb = fbest
                else:
                    if fv > fbest:
                        fbest = fv
                        if fbest >= fb:
                            break
                        if fbest > fa:
                            fa = fbest
            v = offset + fbest
        if maxl:
            if v > best:
                best = v
                bestmove = l
                if best >= beta:
                    break
                if best > alpha:
                    alpha = best
        else:
            if v < best:
                best = v
                bestmove = l
                if best <= alpha:
                    break
                if best < beta:
                    beta = best
    if depth:
        # what this search learnt, as the core stores it (fail-soft: a bound, or the value)
        if best <= alpha0:
            if best < hi:
                hi = best
            if maxl:
                bestmove = TT_NO_MOVE
        elif best >= beta0:
            if best > lo:
                lo = best
        else:
            lo = best
            hi = best
        if rslot != NULL:
            race_keep(rslot, r0, r1, e.tt.gen, n0, n1, lo, hi)
        if slot != NULL:
            slot.k0 = k0
            slot.k1 = k1
            slot.lo = <int16_t> lo
            slot.hi = <int16_t> hi
            slot.gen = e.tt.gen
            slot.move = <uint8_t> bestmove
        else:
            tt_store(e.tt, k0, k1, depth, lo, hi, bestmove)
    return best
