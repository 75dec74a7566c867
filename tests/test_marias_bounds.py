"""The quick bounds of Mariáš trick boundaries against exact values.

At a trick boundary the board gives the value banked so far and bounds lo <= future <= hi
(MariasBoard.quick_bounds, _marias.pyx m_future_bounds).

- On random endgames (every objective, both options, any leader) the bounds hold the exact
  future value of the plain reference minimax (Kilo: the minimax of the declarer's Kilo count,
  the measure the search bounds; money: the rank of the exact money).
"""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddcards.games.marias import GAME

try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m

seeds = st.integers(0, 2**32 - 1)
hra_options = st.fixed_dictionaries({}, optional={
    "marriage_on_follow": st.booleans(),
    "talon_points": st.sampled_from(["defenders", "nobody"]),
})


def kilo_count(st_):
    """The declarer's Kilo count of a finished deal: card points, last trick, trump marriage."""
    return st_.cards[0] + (40 if st_.declarer_trump_marriage else 0)


def minimax(st_, measure):
    """Plain minimax of `measure` over finished deals (declarer maximises)."""
    if st_.over:
        return measure(st_)
    pick = max if st_.to_move == 0 else min
    return pick(minimax(st_.play(c), measure) for c in st_.legal_moves())


def exact_future(doc, session, banked):
    """The exact future value the board's quick bounds bound, from the reference."""
    state = m.from_doc(doc)
    objective = doc.get("objective") or ("money" if doc.get("announcements") else doc["contract"])
    if objective == "kilo":
        return minimax(state, kilo_count) - banked
    value = m.minimax(state)
    if objective == "money":
        return session.scale.values.index(value) - banked
    return value - banked


def random_boundary(rng, tricks_left, kind, options):
    contract, objective, announcements = kind
    kw = {}
    if contract == "hra":
        kw = dict(objective=objective, options=options, announcements=announcements)
    # biased deals give the declarer high cards (Kilo) or keep contracts alive; unbiased ones
    # leave the cash to whoever holds the top cards
    return m.random_endgame(rng, contract, tricks_left, bias=rng.random() < 0.5, **kw)


KINDS = [("hra", None, ()), ("hra", None, ()), ("hra", "kilo", ()), ("hra", "sedma", ()),
         ("hra", "money", ("sedma",)), ("hra", "money", ("kilo",)), ("hra", "money", ("sedma", "kilo")),
         ("betl", None, ()), ("durch", None, ())]


@settings(deadline=None, max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(2, 4), st.sampled_from(KINDS), hra_options)
def test_bounds_hold_the_exact_value(seed, tricks_left, kind, options):
    doc = random_boundary(random.Random(seed), tricks_left, kind, options)
    session = GAME.session(doc)
    bounds = session.board.quick_bounds()
    if bounds is None:
        return                      # Betl/Durch settled by the history
    banked, lo, hi = bounds
    future = exact_future(doc, session, banked)
    assert lo <= future <= hi, (bounds, future, json.dumps(doc))
