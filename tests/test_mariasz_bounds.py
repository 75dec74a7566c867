"""The quick bounds of Mariasz trick boundaries against exact values (three players).

At a trick boundary the board gives the value banked so far and bounds lo <= future <= hi
(MariaszBoard.quick_bounds, _mariasz_bounds.pxd).  With three players the leader's cash of his
sure winners (leader_run) narrows them: MAX's lo when he leads, hi when one of the other two does.

- On random three-player endgames (every option and objective, any leader) the bounds hold the
  exact value of the plain reference minimax.
- On hand-made deals the bounds are the figures worked out by hand, and the solver's exact value
  lies within them (and meets them where the cash takes every trick).
"""
import json
import random

import ddcards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddcards.games import get_game

try:
    from tests.reference import mariasz as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import mariasz as m

seeds = st.integers(0, 2**32 - 1)
GAME = get_game("mariasz")


def three_deal(rng):
    szlifowany = rng.random() < 0.5
    leader = rng.randrange(3)
    # trumps are the dealer's (the seat before the leader) unless ślepy
    doc = m.random_deal(rng, variant="three", szlifowany=szlifowany, slepy=leader != 0 or rng.random() < 0.2)
    for name in ("must_beat", "marriage_on_second"):
        if rng.random() < 0.4:
            doc["options"][name] = True
    doc["options"]["player"] = rng.randrange(3)
    doc["leader"] = leader
    if rng.random() < 0.3:
        doc["objective"] = "race"
        doc["start_scores"] = [rng.randrange(40, 131) for _ in range(3)]
    return doc


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 4))
def test_three_player_bounds_hold_the_exact_value(seed, tricks_left):
    rng = random.Random(seed)
    doc = three_deal(rng)
    per = 8 if doc["options"].get("szlifowany") else 12
    doc = m.random_history(rng, doc, (per - tricks_left) * 3)
    if m.from_doc(doc).over:
        return                      # a race claimed before the boundary
    m.clear_memo()
    exact = m.reference_solve(doc)["value"]
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
