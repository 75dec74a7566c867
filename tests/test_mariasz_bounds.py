"""The quick bounds of Mariasz trick boundaries against exact values.

At a trick boundary the board gives the value banked so far and bounds lo <= future <= hi
(MariaszBoard.quick_bounds, _mariasz_bounds.pxd; with two players and the stock used up the
phase-2 endgame search's, MariaszBoard.endgame_bounds, _mariasz_endgame.pxd, which the core
tries there too).  The leader's cash of his sure winners (cash_run) narrows them: with three
players MAX's lo when he leads, hi when one of the other two does; with two players in phase 2
the leader's side (cash_bounds), both objectives.

- On random endgames (every option and objective, any leader; a race open at the boundary) the
  bounds hold the exact value of the plain reference minimax.
- On hand-made deals the bounds are the figures worked out by hand, and the solver's exact value
  lies within them (and meets them where the cash takes every trick).
"""
import json
import random

import ddcards
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ddcards.games import get_game

try:
    from tests.reference import mariasz as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import mariasz as m

seeds = st.integers(0, 2**32 - 1)
GAME = get_game("mariasz")


def live_race(rng, doc):
    """`doc`, its history played under the points objective, as a race still open at its end:
    start scores that leave each side 1 to all the card points still out to go from what it
    banked there (so no one claimed on the way: points only grow).  Start scores drawn without
    regard to the history end most races before the boundary.  `doc` if a side banked 131."""
    state = m.from_doc(doc)
    if max(state.points) >= 131:
        return doc
    out = [c for hand in state.hands for c in hand] + list(state.stock)
    left = sum(m.points(c, state.rules.trump) for c in out) + m.LAST_TRICK
    return dict(doc, objective="race", start_scores=[max(0, 131 - p - rng.randint(1, left)) for p in state.points])


def three_deal(rng):
    szlifowany = rng.random() < 0.5
    leader = rng.randrange(3)
    slepy = rng.random() < 0.2
    doc = m.random_deal(rng, variant="three", szlifowany=szlifowany, slepy=slepy)
    if not slepy:                   # trumps are a suit of the dealer's, the seat before the leader
        doc["trump"] = rng.choice(m.parse_hand(doc["hands"][(leader - 1) % 3]))[1]
    for name in ("must_beat", "marriage_on_second"):
        if rng.random() < 0.4:
            doc["options"][name] = True
    doc["options"]["player"] = rng.randrange(3)
    doc["leader"] = leader
    return doc


def reference_value(doc):
    """The reference's exact value of `doc`, its memo cleared first (the memo is per deal)."""
    m.clear_memo()
    return m.reference_solve(doc)["value"]


def three_position(rng, tricks_left):
    """A trick boundary `tricks_left` tricks from the end; a race (open there) 30% of the time."""
    doc = three_deal(rng)
    per = 8 if doc["options"].get("szlifowany") else 12
    doc = m.random_history(rng, doc, (per - tricks_left) * 3)
    return live_race(rng, doc) if rng.random() < 0.3 else doc


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 4))
def test_three_player_bounds_hold_the_exact_value(seed, tricks_left):
    doc = three_position(random.Random(seed), tricks_left)
    assume(not m.from_doc(doc).over)
    exact = reference_value(doc)
    banked, lo, hi = GAME.session(doc).board.quick_bounds()
    assert lo <= exact - banked <= hi, json.dumps(doc)


def hand_made(hands, player, leader):
    return {"game": "mariasz", "hands": hands, "trump": "H", "leader": leader,
            "options": {"variant": "three", "szlifowany": True, "slepy": True, "player": player}}


# Seat 0 holds every trump and the two best spades: every card of his wins.
SWEEP = ["AT.AKQJT6..", "KQ..AKQJT6.", "J6...AKQJT6"]
# Seat 0 holds the two best trumps (Q A: 22 points) and low cards; seats 1 and 2 two trumps each.
TWO_TOP = ["J6.AQ.J6.J6", "AKQT.KT.AT.", ".J6.KQ.AKQT"]


def bounds_and_value(doc):
    exact = ddcards.solve(ddcards.Position.from_dict(doc)).value
    return GAME.session(doc).board.quick_bounds(), exact


def test_max_leading_every_winner_takes_every_trick():
    # lo: every card (128) and the last trick (10); hi adds his trump marriage (40), which he
    # announces by leading the K or the pamfil
    assert bounds_and_value(hand_made(SWEEP, player=0, leader=0)) == ((0, 138, 178), 178)


def test_another_leading_every_winner_leaves_max_nothing():
    assert bounds_and_value(hand_made(SWEEP, player=1, leader=0)) == ((0, 0, 0), 0)


def test_max_cashing_top_trumps_takes_the_trumps_that_must_follow():
    # Q A (22), then seat 1's K T (14) and seat 2's J 6 (2) follow: 38, all he gets
    assert bounds_and_value(hand_made(TWO_TOP, player=0, leader=0)) == ((0, 38, 138), 38)


def test_another_cashing_top_trumps_takes_max_trumps():
    # MAX is seat 1: 138 left, his spade marriage (20), less seat 0's sure Q A (22) and the
    # K T (14) that MAX must follow to them with
    assert bounds_and_value(hand_made(TWO_TOP, player=1, leader=0)) == ((0, 0, 122), 24)


# Seat 0 holds the two best trumps (Q A) and the A K T of spades; seats 1 and 2 one trump each,
# so the spades win too.  Seat 1 has no spade: he throws four cards onto the cash.
SHORT3 = ["AKT.AQJ6.6.", ".K.AKJT.AQT", "QJ6.T.Q.KJ6"]


def test_a_seat_short_of_the_cash_throws_his_cheapest_cards():
    # Q A (22) and A K T of spades (25), with seat 1's K (4) and seat 2's T of trumps (10) and
    # Q J 6 of spades (5): 66; seat 1 throws four more, at least J Q K T (19): 85
    assert bounds_and_value(hand_made(SHORT3, player=0, leader=0)) == ((0, 85, 138), 124)
    # MAX is seat 1: 138 left, less the trumps above his K (Q A T: 32) and what the cash takes
    # beyond seat 0's Q A: the A K T of spades (25), his K (4) and the four he throws (19): 58
    assert bounds_and_value(hand_made(SHORT3, player=1, leader=0)) == ((0, 0, 58), 11)


# ---------------------------------------------------------------- two players, phase 2

def two_player_phase2(rng, tricks_left):
    """A phase-2 trick boundary `tricks_left` tricks from the end, either seat leading the
    first trick; a race (open there) 40% of the time."""
    doc = m.random_deal(rng, szlifowany=rng.random() < 0.5, slepy=rng.random() < 0.2)
    for name in ("must_beat", "marriage_on_second"):
        if rng.random() < 0.4:
            doc["options"][name] = True
    if rng.random() < 0.5:
        doc["leader"] = 1
    stock = len(doc["stock"].split())
    doc = m.random_history(rng, doc, stock + 2 * (6 - tricks_left))
    state = m.from_doc(doc)
    if state.trick:                         # an exchange took a ply: the trick's second card
        doc["played"].append(rng.choice(state.legal()))
    return live_race(rng, doc) if rng.random() < 0.4 else doc


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 4))
def test_two_player_phase2_bounds_hold_the_exact_value(seed, tricks_left):
    doc = two_player_phase2(random.Random(seed), tricks_left)
    assume(not m.from_doc(doc).over)
    exact = reference_value(doc)
    board = GAME.session(doc).board
    for banked, lo, hi in (board.quick_bounds(), board.endgame_bounds()):
        assert lo <= exact - banked <= hi, json.dumps(doc)


def phase2_doc(final, leader, objective="points", need=None, **options):
    """A szlifowany deal (trumps hearts, ślepy) played to the empty stock, then `final` (seat 0's
    and seat 1's hands) with `leader` to lead; race: the points each still needs (`need`).

    The other 12 cards are the hands of phase 1, each seat playing them in order and drawing his
    final cards (the trick's winner first): the first of a seeded series of shuffles of them that
    ends with `leader` winning the last trick of phase 1 (and leaves start scores 0..130)."""
    final = [m.parse_hand(h) for h in final]
    rest = [c for c in m.deck(True) if c not in final[0] + final[1]]
    rng = random.Random(0)
    while True:
        rng.shuffle(rest)
        phase1, turn, played, draws = [rest[:6], rest[6:]], 0, [], []
        for t in range(6):
            trick = [phase1[turn][t], phase1[1 - turn][t]]
            played += trick
            turn = turn if m.trick_winner(trick, "H") == 0 else 1 - turn
            draws += [turn, 1 - turn]
        if turn != leader:
            continue
        taken = [iter(final[0]), iter(final[1])]
        doc = {"game": "mariasz", "hands": [m.format_hand(h) for h in phase1], "trump": "H",
               "stock": " ".join(next(taken[seat]) for seat in draws), "played": played,
               "options": dict(szlifowany=True, slepy=True, **options)}
        if objective != "race":
            break
        pts = m.from_doc(doc).points    # phase 1's card points and marriages, by seat
        start = [131 - need[i] - pts[i] for i in range(2)]
        if min(start) >= 0:
            doc.update(objective="race", start_scores=start)
            break
    state = m.from_doc(doc)
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in final] and state.leader == leader
    assert not state.over
    return doc


def endgame_figures(doc):
    """The endgame search's bounds (eg_bounds) and the solver's exact future, checked against the
    reference under every option, which must not change them.  The core tries the same bounds
    at a phase-2 entry (quick_bounds)."""
    seen = set()
    for must_beat in (False, True):
        for mos in (False, True):
            trial = dict(doc, options=dict(doc["options"], must_beat=must_beat, marriage_on_second=mos))
            board = GAME.session(trial).board
            banked, lo, hi = board.quick_bounds()
            exact = ddcards.solve(ddcards.Position.from_dict(trial)).value
            assert exact == reference_value(trial)
            assert lo <= exact - banked <= hi
            assert board.endgame_bounds() == (banked, lo, hi)
            seen.add((board.endgame_bounds()[1:], exact - banked))
    assert len(seen) == 1
    return seen.pop()


# Seat 0 holds the trump marriage with the trump A (Q A K, above seat 1's J 6) and the top
# spades and diamonds: every card of his wins.  Seat 1's two marriages never get a lead.
SWEEP2 = ["AT.AKQ.A.", "KQ.J6.KQ."]
# Seat 0 holds the two best trumps (Q A: 22) and low cards; seat 1 the K T of trumps (14) that
# must follow them, and the best spades and diamonds.
TWO_TOP2 = ["J6.AQ.J6.", "AK.KT.AT."]
# Seat 0 holds the trump marriage (Q K, above seat 1's J 6), the A T of spades and the A of
# diamonds over seat 1's K J and K, and the six of clubs under seat 1's A.
MARRIED_CASH = ["AT.KQ.A.6", "KJ.J6.K.A"]
# Seat 0 holds the two best trumps (Q A) and the A T of spades; seat 1 one trump (K), no
# spade, and A T, A K J of the minor suits: he must throw three of those onto the cash.
SHORT_SUITS = ["AT.AQ.6.6", ".K.AT.AKJ"]


def swap(hands):
    return hands[::-1]


def test_a_cash_of_every_card_settles_the_points():
    # every card (58 + 16) and the last trick (10), his trump marriage (40); seat 1 nothing
    assert endgame_figures(phase2_doc(SWEEP2, leader=0)) == ((124, 124), 124)
    assert endgame_figures(phase2_doc(swap(SWEEP2), leader=1)) == ((-124, -124), -124)


def test_a_cash_of_every_card_settles_a_race():
    # his 124 reach 100: he claims; they fall short of 125, and seat 1, who needs only 10,
    # wins no trick: nobody claims
    assert endgame_figures(phase2_doc(SWEEP2, 0, "race", need=[100, 10])) == ((1, 1), 1)
    assert endgame_figures(phase2_doc(SWEEP2, 0, "race", need=[125, 10])) == ((0, 0), 0)
    assert endgame_figures(phase2_doc(swap(SWEEP2), 1, "race", need=[10, 100])) == ((-1, -1), -1)


def test_cashing_top_trumps_takes_the_trumps_that_must_follow():
    # lo: Q A (22) with seat 1's K T (14), 36; seat 1 then takes the other 40 and the last
    # trick: 36 - 50, the exact margin.  hi: 76 and the last trick, seat 1 has no sure trump
    assert endgame_figures(phase2_doc(TWO_TOP2, leader=0)) == ((-14, 86), -14)
    assert endgame_figures(phase2_doc(swap(TWO_TOP2), leader=1)) == ((-86, 14), 14)


def test_cashing_top_trumps_in_a_race():
    # the cash's 36 reach 30: a claim before seat 1, who needs 20, wins a trick
    assert endgame_figures(phase2_doc(TWO_TOP2, 0, "race", need=[30, 20])) == ((1, 1), 1)
    # 40 are out of the cash's reach, and the 50 after it out of seat 1's (60): lo 0
    assert endgame_figures(phase2_doc(TWO_TOP2, 0, "race", need=[40, 60])) == ((0, 1), 0)
    # with 50 seat 1 may reach them after the cash: no narrowing (and he does)
    assert endgame_figures(phase2_doc(TWO_TOP2, 0, "race", need=[40, 50])) == ((-1, 1), -1)
    assert endgame_figures(phase2_doc(swap(TWO_TOP2), 1, "race", need=[60, 40])) == ((-1, 0), 0)


def test_a_marriage_led_in_the_cash_counts():
    # the trump Q K (15) with J 6 (2), the A T of spades with K J (27), the A of diamonds with
    # the K (15): 59 of the 80 left (with the last trick), and the trump marriage he leads in
    # it (40): 59 - 21 + 40 = 78.  The exact margin is more (98: he gives the club trick up
    # first, and takes the last one).  hi: everything and his marriage, 120.
    assert endgame_figures(phase2_doc(MARRIED_CASH, leader=0)) == ((78, 120), 98)
    assert endgame_figures(phase2_doc(swap(MARRIED_CASH), leader=1)) == ((-120, -78), -98)


# Seat 0 holds three marriages: spades and diamonds (20 each) and trumps (40: the K and the
# pamfil); seat 1 the A T of the same three suits.
THREE_MARRIAGES = ["KQ.KQ.KQ.", "AT.AT.AT."]


def test_every_marriage_a_hand_holds_counts_in_the_bounds():
    # 102 left: seat 0's K Q of each suit (7 + 15 + 7), seat 1's A T (63) and the last trick.
    # Seat 0's pamfil is the one sure trump (11).  Seat 1 on lead: hi 102 and all three of seat
    # 0's marriages (80), lo -(102 - 2 * 11); seat 1 cashes nothing (the pamfil is out).
    # Seat 0 on lead: lo gains the trump marriage he can lead now (40), then his cash raises it:
    # the pamfil with seat 1's T (21) and the marriage the pamfil belongs to (40), seat 1 at
    # most the other 81: 21 + 40 - 81 = -20.
    for leader, want in ((1, (-80, 182)), (0, (-20, 182))):
        doc = phase2_doc(THREE_MARRIAGES, leader=leader)
        banked, lo, hi = GAME.session(doc).board.quick_bounds()
        assert (lo, hi) == want
        exact = ddcards.solve(ddcards.Position.from_dict(doc)).value
        assert exact == reference_value(doc)
        assert lo <= exact - banked <= hi


def test_a_follower_short_of_the_cash_throws_his_cheapest_cards():
    # the cash: Q A of trumps (22) with the K (4), the A T of spades (21) and three cards
    # seat 1 throws, at least his J K T (16): 63 of the 95 left, and the follower at most the
    # other 32: lo 31 (without the throws it was -1).  The exact margin is 51.
    assert endgame_figures(phase2_doc(SHORT_SUITS, leader=0)) == ((31, 95), 51)
    assert endgame_figures(phase2_doc(swap(SHORT_SUITS), leader=1)) == ((-95, -31), -51)
