"""The quick bounds of Prší against exact values.

At every node the search tries lo <= value <= hi (PrsiBoard.quick_bounds, _prsi_bounds.pxd):
how soon P can be out at the earliest bounds his win from above, how soon the others can settle
it against him bounds his loss from below. The value is P's outcome within the horizon,
+(H + 1 - d) for a win settled d plies on, -(H + 1 - d) for a loss, 0 for none (the module doc
of _prsi.pyx, docs/RULES.md §4.9). A bound that ever cuts the exact value would answer wrongly
wherever it settles a test, so each is checked against the plain reference's minimax
(tests/reference/prsi.py) at the position and after each of its actions, on positions late in
games (ends forced within the horizon, where the bounds are near the value), with 7s and aces
pending, and under the variants with players out.
"""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards

try:
    from tests.reference import prsi as ref
    from tests.test_differential_prsi import late_position, special_position, variants_position
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import prsi as ref
    from test_differential_prsi import late_position, special_position, variants_position

seeds = st.integers(0, 2**32 - 1)


def bounds(doc, horizon=None):
    """The board's quick bounds at the position `doc` describes, within its horizon (or `horizon`)."""
    session = ddcards.Position.from_dict(doc).session()
    session.board.set_search(session.player, doc["options"]["horizon"] if horizon is None else horizon)
    return session.board.quick_bounds()


def check_bounds(doc):
    """The bounds hold the reference's exact value here and after each action (within one ply
    less); where the board gives none the value is settled: by the history, or the horizon."""
    rules, state, player, horizon = ref.from_document(doc)
    want = ref.solve(rules, state, player, horizon)
    here = bounds(doc)
    if here is None:
        assert ref.outcome(rules, state, player) or state.done or horizon == 0, doc
    else:
        assert here[0] <= want["value"] <= here[1], (here, want["value"], doc)
    if horizon < 2 or here is None:
        return
    for action, value in want["moves"].items():
        # (P stays the same player: without `player` a document's P is the seat to move)
        child = dict(doc, played=[*doc["played"], action], options=dict(doc["options"], horizon=horizon - 1,
                                                                         player=player))
        after = bounds(child)
        if after is not None:      # (the same raw number: a value counts the plies left to the horizon)
            assert after[0] <= value <= after[1], (action, after, value, doc)


def deal(first, second, horizon):
    """Two players, seat 0 (P) to lead on the upcard 8H, the rest of the deck in the stock."""
    deck = [rank + suit for suit in "SHDC" for rank in "789TJQKA"]
    stock = " ".join(card for card in deck if card not in {*first.split(), *second.split(), "8H"})
    return {"game": "prsi", "hands": [first, second], "upcard": "8H", "stock": stock, "options": {"horizon": horizon},
            "played": []}


def test_hand_checked_bounds():
    # P holds four cards, 9H fits: he plays at plies 1, 3, 5, 7 and is out at ply 7 at the
    # earliest, hi = H + 1 - 7; the other, four cards too, at ply 8, lo = -(H + 1 - 8).
    assert bounds(deal("9H 9S KD 8C", "KS TD JC QS", 10)) == (-3, 4)
    # Nothing of P's fits (no heart, no 8, no Ober): he draws at ply 1 and holds five cards, out at
    # ply 11 at the earliest: within 10 plies he cannot win (hi 0), within 11 only at its last.
    assert bounds(deal("9S KD TC 7C", "KS TD JC QS", 10)) == (-3, 0)
    assert bounds(deal("9S KD TC 7C", "KS TD JC QS", 11)) == (-4, 1)
    # The exact values lie within (no end can be forced so soon), and within 0 plies there is
    # nothing left to bound.
    assert ddcards.solve(deal("9H 9S KD 8C", "KS TD JC QS", 10)).value == 0
    assert bounds(deal("9H 9S KD 8C", "KS TD JC QS", 10), horizon=0) is None


@settings(deadline=None, max_examples=400)
@given(seeds, st.sampled_from([2, 2, 3, 4, 5, 6]))
def test_bounds_hold_late_in_games(seed, seats):
    check_bounds(late_position(random.Random(seed), seats)[1])


@settings(deadline=None, max_examples=200)
@given(seeds)
def test_bounds_hold_with_sevens_and_aces_pending(seed):
    check_bounds(special_position(random.Random(seed))[0])


@settings(deadline=None, max_examples=200)
@given(seeds)
def test_bounds_hold_with_players_out(seed):
    check_bounds(variants_position(random.Random(seed)))
