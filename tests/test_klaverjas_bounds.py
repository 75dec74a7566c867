"""The quick bounds of Klaverjas trick boundaries against exact values.

At a trick boundary the game classes the position (made / nat / open) and gives bounds
lo <= future <= hi on the future value (value - banked) in every mode (the value, the
margin D' searched for tests "value >= t", t >= 1, and the value as if nat, the core's lower
measure: see _klaverjas's module doc).  On random
endgames (any rules, trump, playing team, leader; some histories picked for a margin near 0):

- the bounds hold the exact future value from the plain reference minimax, in every mode;
- a settled class holds on EVERY line of play (the table keys made / nat positions without
  the points so far): made means the playing team wins on every line, nat that it loses on
  every line;
- on longer endgames (the reference is too slow there) the bounds hold the exact value of the
  solver searched without quick bounds and classes (FLAG_NO_BOUNDS | FLAG_NO_CLASSES).
"""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver._core.search import Searcher
from solver.games import _klaverjas
from solver.games import klaverjas as kj

try:
    from tests.reference import klaverjas as k
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as k

seeds = st.integers(0, 2**32 - 1)
rulesets = st.sampled_from(k.RULESETS)
closeness = st.sampled_from((1, 25))


def reference_margin(st):
    """Minimax of the margin D' = P - O (+100 if the playing team takes every trick), no nat."""
    return k.minimax(st, measure=lambda end: (end.points[0] - end.points[1]
                                              + (100 if end.tricks[1] == 0 else 0)))


def reference_asnat(st):
    """Minimax of L = -(P + O) (-100 if the other team takes every trick): the value as if nat."""
    return k.minimax(st, measure=lambda end: (-(end.points[0] + end.points[1])
                                              - (100 if end.tricks[0] == 0 else 0)))


def margin_range(s):
    """The least and the greatest P - O over every line of play from s."""
    if s.over:
        return s.points[0] - s.points[1], s.points[0] - s.points[1]
    lo, hi = None, None
    for card in s.legal_moves():
        a, b = margin_range(s.play(card))
        lo = a if lo is None or a < lo else lo
        hi = b if hi is None or b > hi else hi
    return lo, hi


def check_bounds(doc, value, margin, lines=None, asnat=None):
    text = json.dumps(doc)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    info = board.boundary_info()
    assert info is not None, text
    future = value - info["banked"]
    assert info["lo"] <= future <= info["hi"], (info, value, text)
    if info["class"] == "made":
        assert value > 0, (info, value, text)
        if lines is not None:
            assert lines[0] > 0, (info, lines, text)
    elif info["class"] == "nat":
        assert value < 0, (info, value, text)
        if lines is not None:
            assert lines[1] <= 0, (info, lines, text)
    board.fix_measure("margin")
    info = board.boundary_info()
    future = margin - info["banked"]
    assert info["class"] in ("made", "done"), text
    assert info["lo"] <= future <= info["hi"], ("margin", info, margin, text)
    board.fix_measure(None)
    if asnat is not None:
        board.fix_measure("asnat")
        info = board.boundary_info()
        assert info["class"] in ("nat", "done"), text
        assert info["lo"] <= asnat - info["banked"] <= info["hi"], ("as if nat", info, asnat, text)
        board.fix_measure(None)
    return board


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 3), rulesets, closeness)
def test_bounds_hold_the_reference_value(seed, tricks_left, rules, close):
    doc = k.random_endgame(random.Random(seed), tricks_left, rules=rules, close=close)
    s = k.from_doc(doc)
    lines = margin_range(s) if tricks_left <= 2 or seed % 4 == 0 else None
    check_bounds(doc, k.minimax(s), reference_margin(s), lines, reference_asnat(s))


_SEARCHER = Searcher(8)
_ORACLE = _klaverjas.FLAG_NO_BOUNDS | _klaverjas.FLAG_NO_CLASSES


def exact(doc, measure):
    """Value (or another measure) by the solver without quick bounds, classes or leaf."""
    board = kj.GAME.replay(kj.parse_setup(doc), _ORACLE).board
    board.fix_measure(measure)
    _SEARCHER.clear()
    return _SEARCHER.value(board)


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(4, 6), rulesets, closeness)
def test_bounds_hold_the_exact_value_of_longer_endgames(seed, tricks_left, rules, close):
    doc = k.random_endgame(random.Random(seed), tricks_left, rules=rules, close=close)
    check_bounds(doc, exact(doc, None), exact(doc, "margin"), asnat=exact(doc, "asnat"))
