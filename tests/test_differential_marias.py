"""Differential test: the fast solver against the plain-Python Mariáš reference.

Random legal endgames (1-4 tricks left, also mid-trick) are solved by both; the value, the
exact value of every legal move, the side to move, the legal moves and the optimal moves
must agree.  A failure prints the position document, so it can be replayed with
``ddcards.solve(ddcards.Position.from_dict(doc))`` and ``reference_solve(doc)``.
"""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddcards

try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m

SEED_DOC, SEED_LINE = m.SEED_DOC, m.SEED_LINE    # hand-checked deal (test_reference_marias)

seeds = st.integers(0, 2**32 - 1)
short = st.integers(1, 3)                 # tricks left
in_trick = st.integers(0, 2)              # cards of the current trick already played
trumps = st.sampled_from("SHDC")
hra_options = st.fixed_dictionaries({}, optional={
    "marriage_on_follow": st.booleans(),
    "talon_points": st.sampled_from(["defenders", "nobody"]),
})


def check(doc):
    expected = m.reference_solve(doc)
    text = json.dumps(doc, ensure_ascii=False)
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == expected["to_move"], text
    assert sorted(pos.legal_moves) == sorted(expected["moves"]), text
    res = ddcards.solve(pos, mode="all")
    assert res.to_move == expected["to_move"], text
    assert res.value == expected["value"], text
    assert {mv.move: mv.value for mv in res.moves} == expected["moves"], text
    optimal = {c for c, v in expected["moves"].items() if v == expected["value"]}
    assert set(res.optimal_moves) == optimal, text


def endgame(seed, contract, tricks_left, cards, **kw):
    return m.random_endgame(random.Random(seed), contract, tricks_left,
                            cards_in_trick=cards, **kw)


def test_seed_example_endgames():
    for n in range(18, 31):                  # the seed's worked example, last 4 tricks
        check(dict(SEED_DOC, played=SEED_LINE[:n]))
        check(dict(SEED_DOC, played=SEED_LINE[:n], options={"marriage_on_follow": True}))


@settings(deadline=None, max_examples=1500)
@given(seeds, short, in_trick, trumps, hra_options)
def test_hra(seed, tricks_left, cards, trump, options):
    check(endgame(seed, "hra", tricks_left, cards, trump=trump, options=options))


@settings(deadline=None, max_examples=500)
@given(seeds, short, in_trick, trumps, hra_options)
def test_sedma(seed, tricks_left, cards, trump, options):
    check(endgame(seed, "hra", tricks_left, cards, trump=trump, objective="sedma",
                  options=options))


@settings(deadline=None, max_examples=500)
@given(seeds, short, in_trick, trumps, hra_options)
def test_kilo(seed, tricks_left, cards, trump, options):
    check(endgame(seed, "hra", tricks_left, cards, trump=trump, objective="kilo",
                  options=options))


@settings(deadline=None, max_examples=500)
@given(seeds, short, in_trick)
def test_betl(seed, tricks_left, cards):
    check(endgame(seed, "betl", tricks_left, cards))


@settings(deadline=None, max_examples=500)
@given(seeds, short, in_trick)
def test_durch(seed, tricks_left, cards):
    check(endgame(seed, "durch", tricks_left, cards))


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, in_trick, st.sampled_from([("hra", None), ("hra", "sedma"), ("hra", "kilo"),
                                         ("betl", None), ("durch", None)]),
       trumps, hra_options)
def test_four_tricks_left(seed, cards, kind, trump, options):
    contract, objective = kind
    kw = dict(trump=trump, objective=objective, options=options) if contract == "hra" else {}
    check(endgame(seed, contract, 4, cards, **kw))


@settings(deadline=None, max_examples=300)
@given(seeds, short, in_trick, trumps, hra_options)
def test_unbiased_histories(seed, tricks_left, cards, trump, options):
    rng = random.Random(seed)
    contract = rng.choice(["hra", "hra", "betl", "durch"])
    kw = dict(trump=trump, options=options) if contract == "hra" else {}
    check(m.random_endgame(rng, contract, tricks_left, cards_in_trick=cards, bias=False, **kw))
