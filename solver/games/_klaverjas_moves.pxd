# Klaverjas move generation and order: the legal cards less those another one
# makes redundant (pruned_moves: cards of a group that no other live card
# separates, roem-neutral by roem_live, whose order and points make them
# alike; the root equivalence, k_equivalent in _klaverjas.pyx, is the same
# test), then sorted by a heuristic worth: lead_scores for a lead,
# follow_scores for a follower.  gen_choices is what the core's gen_moves hook
# (k_gen_moves) calls when there is a choice.
#
# Apart because the order only changes how fast the search is, never its
# answer, and the pruning only drops cards proven to change nothing: the
# file can be tuned without touching the rules, the bounds or the key.
from libc.stdint cimport uint32_t

from ddcards._core.bits cimport cards_high_to_low, dd_pext32, dd_msb32, dd_ctz32, dd_popcount32
from ddcards._core.search cimport sort_moves, MAX_MOVES
from ddcards.games._klaverjas_state cimport (KPos, KState, suit_mask, team_of, above, NSEATS, F_NO_PRUNE,
                                            C_NAT)
from ddcards.games._klaverjas_rules cimport beats, trick_roem


cdef inline int trick_certain(KPos* p, KState* s, int c) noexcept nogil:
    """+1 if the mover's team surely wins the current trick when he plays c,
    -1 if it surely loses it, 0 if later players may decide."""
    cdef int w = c, wseat = s.turn, led = c >> 3, k, later
    if s.nt:
        led = s.trick[0] >> 3
        if not beats(p, c, s.trick[s.win]):
            w = s.trick[s.win]
            wseat = (s.leader + s.win) & 3
    for k in range(s.nt + 1, NSEATS):
        later = (s.leader + k) & 3
        if team_of(p, later) != team_of(p, wseat) and can_beat(p, s, later, led, w):
            return 0
    return 1 if team_of(p, wseat) == team_of(p, s.turn) else -1


cdef inline uint32_t seq_live(uint32_t U, uint32_t* H, int nh) noexcept nogil:
    """Natural positions p such that some 3-window of p's suit containing p
    has its two other cards in U and not both in one of the sets H[0..nh)
    (cards of U outside every H are fixed cards, each of its own player)."""
    cdef uint32_t r1 = (U >> 1) & 0x7F7F7F7F, r2 = (U >> 2) & 0x3F3F3F3F
    cdef uint32_t l1 = (U << 1) & 0xFEFEFEFEU, l2 = (U << 2) & 0xFCFCFCFCU
    cdef uint32_t d1 = 0, d2 = 0
    cdef int i
    # d1: cards whose next one up is in the same set H[i]; d2: the same two
    # up.  A window p, p+1, p+2 has two of its cards in one set when p+1 is
    # in d1 (right), p-1 in d2 (middle) or p-2 in d1 (left).
    for i in range(nh):
        d1 |= H[i] & (H[i] >> 1) & 0x7F7F7F7F
        d2 |= H[i] & (H[i] >> 2) & 0x3F3F3F3F
    return (r1 & r2 & ~(d1 >> 1)) | (l1 & r1 & ~((d2 << 1) & 0xFEFEFEFEU)) | \
        (l1 & l2 & ~((d1 << 2) & 0xFCFCFCFCU))


cdef inline uint32_t quad_stuk_live(KPos* p, uint32_t U, uint32_t* H, int nh) noexcept nogil:
    """Natural positions whose card could make four of a kind (its three
    mates all in U, no two in one set H[i]) or stuk (its mate in U)."""
    cdef uint32_t out = 0, rb, q, kb, qb
    cdef int k, i, ok
    q = U & (U >> 8) & (U >> 16) & 0xF8
    q |= U & (U >> 8) & (U >> 24) & 0xF8
    q |= U & (U >> 16) & (U >> 24) & 0xF8
    q |= (U >> 8) & (U >> 16) & (U >> 24) & 0xF8     # ranks T..A with 3 cards in U
    while q:
        k = dd_ctz32(q)
        q &= q - 1
        rb = (<uint32_t> 0x01010101) << k
        if dd_popcount32(U & rb) != 3:
            continue
        ok = 1
        for i in range(nh):
            if dd_popcount32(H[i] & rb) > 1:
                ok = 0
        if ok:
            out |= rb & ~U
    qb = (<uint32_t> 1) << (8 * p.trump + 5)
    kb = qb << 1
    if U & qb:
        out |= kb
    if U & kb:
        out |= qb
    return out


cdef inline uint32_t roem_live(KPos* p, KState* s) noexcept nogil:
    """Natural positions where a card of the player to move could be part of
    roem, in the current trick or in a later one.

    A card x of the mover is part of roem in a trick only with cards of the
    three other players, one each: a sequence needs a 3-window of x's suit
    around x whose two other cards come from two different players; four of
    a kind needs x's three mates from the three others; stuk needs the trump
    K/Q mate.  In the current trick the others are the cards already in it
    (each its own player's) and the hands of the players still to play; in a
    later trick the three other hands (as they are now: later hands are
    subsets).  Positions outside the returned mask never take part in roem.
    """
    cdef uint32_t H[3]
    cdef uint32_t U = 0, out, h, ledm
    cdef int i, seat, nh = 0
    for i in range(1, 4):
        H[i - 1] = s.bnat[(s.turn + i) & 3] & ~s.tricknat
        U |= H[i - 1]
    out = seq_live(U, H, 3) | quad_stuk_live(p, U, H, 3)
    if s.nt:
        # The current trick: the cards in it and the players after the mover.
        # A player holding the led suit must play one of it.
        U = s.tricknat
        ledm = suit_mask(s.trick[0] >> 3)
        for i in range(s.nt + 1, NSEATS):
            seat = (s.leader + i) & 3
            h = s.bnat[seat] & ~s.tricknat
            if h & ledm:
                h &= ledm
            H[nh] = h
            U |= H[nh]
            nh += 1
        out |= seq_live(U, H, nh) | quad_stuk_live(p, U, H, nh)
    return out


cdef inline int pruned_moves(KPos* p, KState* s, uint32_t legal, int* moves) noexcept nogil:
    """The legal moves less those another one makes redundant.

    Cards of the mover's hand form a *group* when no other live card (in
    another hand or in the trick) lies between them in power: they take
    tricks alike, now and later.  A card is *roem-neutral* when it can never
    be part of roem, in this trick or a later one (outside ``roem_live``).
    Swapping two roem-neutral cards of a group changes nothing but where
    their points land, so within a group's roem-neutral cards:
    - when the current trick surely goes to the other team, only the one
      worth least needs trying (the other keeps its points for a trick the
      mover's team may yet win: never worse), when it surely goes to the
      mover's team only the one worth most (the value is monotone in the
      playing team's share of a fixed total, nat included);
    - otherwise cards worth the same are interchangeable: keep one;
    - once nat is settled (class NAT) points do not count at all: keep one.
    Cards that are not roem-neutral are always kept.
    """
    cdef uint32_t others = ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[s.turn]) | s.trickmask
    cdef uint32_t live = 0
    cdef uint32_t L, group, between, neutral, g
    cdef int n = 0, su, c, prev, status, best, bc, k, x, ready = 0
    cdef uint32_t nb, rest
    # Mostly every group is a single card: no two legal cards are next to
    # each other among the live cards (legal or others, packed in order).
    # Then the moves are the legal cards, suit by suit, high to low.
    nb = dd_pext32(legal, legal | others)
    rest = legal
    if (nb & (nb >> 1)) == 0:
        while rest:
            su = dd_ctz32(rest) >> 3
            g = rest & suit_mask(su)
            rest &= ~g
            n += cards_high_to_low(g, moves + n)
        return n
    while rest:         # suit by suit, lowest first
        su = dd_ctz32(rest) >> 3
        L = rest & suit_mask(su)
        rest &= ~L
        while L:
            # The next group: from the highest remaining legal card down.
            c = dd_msb32(L)
            group = (<uint32_t> 1) << c
            prev = c
            L &= ~group
            while L:
                c = dd_msb32(L)
                between = ((<uint32_t> 1) << prev) - ((<uint32_t> 2) << c)
                if others & between:
                    break
                group |= (<uint32_t> 1) << c
                L &= ~((<uint32_t> 1) << c)
                prev = c
            if (group & (group - 1)) == 0:
                moves[n] = prev                 # a group of one
                n += 1
                continue
            if not ready:
                live = roem_live(p, s)
                ready = 1
            # Split off the cards that are not roem-neutral.
            neutral = 0
            g = group
            while g:
                x = dd_ctz32(g)
                g &= g - 1
                if p.natbit[x] & live:
                    moves[n] = x
                    n += 1
                else:
                    neutral |= (<uint32_t> 1) << x
            if neutral == 0:
                continue
            if s.cls == C_NAT:
                # Nat is settled: card points no longer count, only tricks
                # and roem, so the group's roem-neutral cards are all alike.
                moves[n] = dd_msb32(neutral)
                n += 1
                continue
            status = trick_certain(p, s, dd_msb32(neutral))
            if status != 0:
                # The cheapest (sure loss) or dearest (sure win) card.
                best = -1
                bc = -1
                g = neutral
                while g:
                    x = dd_ctz32(g)
                    g &= g - 1
                    k = p.points[x] if status > 0 else -p.points[x]
                    if bc < 0 or k > best:
                        best = k
                        bc = x
                moves[n] = bc
                n += 1
            else:
                # One card per point value.
                g = neutral
                while g:
                    x = dd_msb32(g)
                    g &= ~((<uint32_t> 1) << x)
                    moves[n] = x
                    n += 1
                    k = p.points[x]
                    nb = g
                    while nb:
                        c = dd_ctz32(nb)
                        nb &= nb - 1
                        if p.points[c] == k:
                            g &= ~((<uint32_t> 1) << c)
    return n


cdef inline int gen_choices(KPos* p, KState* s, uint32_t legal, int* moves, int prune) noexcept nogil:
    """The moves when there is a choice: pruned (prune set) and ordered."""
    cdef int n = 0
    cdef int scores[MAX_MOVES]
    if prune and not (p.flags & F_NO_PRUNE):
        n = pruned_moves(p, s, legal, moves)
    else:
        n = cards_high_to_low(legal, moves)
    if n <= 1:
        return n
    # Heuristic worth of each move; only the order matters.
    if s.nt == 0:
        lead_scores(p, s, moves, scores, n)
    else:
        follow_scores(p, s, moves, scores, n)
    sort_moves(moves, scores, n)
    return n


cdef inline int can_beat(KPos* p, KState* s, int seat, int led, int w) noexcept nogil:
    """Does `seat` hold a card that would beat card w in a trick led in suit `led`?"""
    cdef uint32_t h = s.hand[seat]
    cdef uint32_t inled = h & suit_mask(led)
    if inled:
        return (w >> 3) == led and above(inled, w) != 0
    if (w >> 3) == p.trump:
        return above(h & p.trumpmask, w) != 0
    return (h & p.trumpmask) != 0


cdef inline int later_can_beat(KPos* p, KState* s, int wseat, int led, int wc) noexcept nogil:
    """Can a player after the mover, of the other team than wseat's, beat card wc?"""
    cdef int k, later
    for k in range(s.nt + 1, NSEATS):
        later = (s.leader + k) & 3
        if team_of(p, later) != team_of(p, wseat) and can_beat(p, s, later, led, wc):
            return 1
    return 0


cdef inline void follow_scores(KPos* p, KState* s, int* moves, int* scores, int n) noexcept nogil:
    """Order of a follower's cards: win a trick your team keeps with the most
    points (with the lowest trump that wins it safely), add points to a trick
    your partner surely wins, throw the least on a trick surely lost; the
    last player sees the trick's exact worth.  A card's worth counts the roem
    it makes with the cards in the trick.  A card thrown on a trick it does
    not win is kept if it is its suit's best card still out (a trick it
    would win later).  (All of a node's moves at once: what does not depend
    on the card is worked out once.)"""
    cdef int seat = s.turn, me = team_of(p, seat)
    cdef int c, power, suit, pts, wc, wseat, tp, i, led, safe, safe0 = -1, base, wt0, mine, r, top
    cdef int wc0 = s.trick[s.win], wseat0 = (s.leader + s.win) & 3
    cdef uint32_t others = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[seat]
    cdef uint32_t opp = s.hand[(seat + 1) & 3] | s.hand[(seat + 3) & 3]
    led = s.trick[0] >> 3
    if s.nt == NSEATS - 1:
        # Last to play: the exact worth of the trick for my team.
        base = p.points[s.trick[0]] + p.points[s.trick[1]] + p.points[s.trick[2]]
        wt0 = team_of(p, wseat0) == me
        for i in range(n):
            c = moves[i]
            tp = base + p.points[c] + trick_roem(p, s.tricknat | p.natbit[c])
            if beats(p, c, wc0):
                if (c >> 3) == p.trump:
                    # my trump's own points are mine whenever it wins: the lowest that wins
                    scores[i] = 8 * (tp - p.points[c]) - (c & 7)
                else:
                    scores[i] = 8 * tp
                continue
            top = (c >> 3) != p.trump and above(others & suit_mask(c >> 3), c) == 0
            if wt0:
                scores[i] = 8 * (tp - (p.points[c] + 1 if top else 0))
            else:
                scores[i] = -8 * tp
        return
    for i in range(n):
        c = moves[i]
        power = c & 7
        suit = c >> 3
        # The card's points and the roem it makes with the cards in the trick
        r = trick_roem(p, s.tricknat | p.natbit[c])
        pts = p.points[c] + r
        # Can a later player of the other team than the winner's take the trick?
        if beats(p, c, wc0):
            wc = c
            wseat = seat
            safe = not later_can_beat(p, s, seat, led, c)
        else:
            wc = wc0
            wseat = wseat0
            if safe0 < 0:
                safe0 = not later_can_beat(p, s, wseat0, led, wc0)
            safe = safe0
        top = wc != c and suit != p.trump and above(others & suit_mask(suit), c) == 0
        if team_of(p, wseat) == me:
            if safe:
                if wc == c and (suit == p.trump or
                                above(opp & suit_mask(suit), c) == 0):
                    # a card that wins later too (a trump, or no opponent holds a
                    # higher card of its suit): win with the lowest that is safe
                    scores[i] = 100 + r - power
                elif top:
                    scores[i] = 100 + r - 1         # keep a winner for later
                else:
                    scores[i] = 100 + pts
            elif wc == c:
                scores[i] = 40 - pts - power        # winning for now with my card
            else:
                scores[i] = 30 - pts - power        # partner ahead for now
        elif safe:
            scores[i] = -2 * pts - power            # lost trick: cheapest card
        else:
            scores[i] = 20 - pts - power


cdef inline void lead_scores(KPos* p, KState* s, int* moves, int* scores, int n) noexcept nogil:
    """Order of leads: the top trump while opponents hold trumps, sure
    winners with points, low cards to partner's winner, then the cheapest."""
    cdef int seat = s.turn, me = team_of(p, seat)
    cdef int c, power, suit, pts, ruff, top, i
    cdef uint32_t lhs = s.hand[(seat + 1) & 3], rhs = s.hand[(seat + 3) & 3]
    cdef uint32_t notmine = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[seat]
    cdef uint32_t opp = (lhs | rhs) & p.trumpmask
    cdef uint32_t lane, others, higher
    for i in range(n):
        c = moves[i]
        power = c & 7
        suit = c >> 3
        pts = p.points[c]
        lane = suit_mask(suit)
        others = notmine & lane
        higher = above(others, c) & lane
        if suit == p.trump:
            if higher == 0 and opp:
                scores[i] = 70 + pts                # the top trump draws trumps
            elif me == 0 and opp:
                scores[i] = 30 - power
            else:
                scores[i] = -20 - pts - power
            continue
        ruff = ((lhs & lane) == 0 and (lhs & p.trumpmask) != 0) or \
               ((rhs & lane) == 0 and (rhs & p.trumpmask) != 0)
        if higher == 0:
            scores[i] = (5 - pts) if ruff else (60 + pts)
            continue
        top = dd_msb32(others)
        if not ruff and (s.hand[(seat + 2) & 3] >> top) & 1:
            scores[i] = 40 - pts - power            # low to partner's winner
        else:
            scores[i] = -pts - power
