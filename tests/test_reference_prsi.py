"""The plain-Python Prší reference (tests/reference/prsi.py) checked by hand.

The differential tests trust it, so it is checked here on its own: the seed's worked example,
the pile turned over, the end and the variants, and its minimax and retrograde analysis on
games small enough to solve in one's head, then against each other on random small games.
"""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

try:
    from tests.reference import prsi as ref
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import prsi as ref

DECK = list(ref.DECK)


def start(hands, upcard, stock_head=(), seats=None, **rules):
    used = {c for h in hands for c in h} | {upcard} | set(stock_head)
    stock = list(stock_head) + [c for c in DECK if c not in used]
    return ref.Rules(seats or len(hands), **rules), ref.start(hands, stock, upcard)


def run(rules, state, *actions):
    for a in actions:
        state = ref.play(rules, state, a)
    return state


def test_the_seeds_worked_example():
    # Players 3, 4, 1, 2 in that order are seats 0-3; the pile starts with the 9 of leaves (9S).
    rules, s = start([["7S", "8D", "9D", "KD"], ["7H", "QD", "8C", "9C"], ["TC", "8S", "JS", "KS"],
                      ["AH", "JD", "TD", "7C"]], "9S")
    s = run(rules, s, "7S", "7H")             # 1. player 3 plays 7S, player 4 answers with 7H
    assert ref.legal_actions(s) == ["draw"] and s.sevens == 2
    s = run(rules, s, "draw")                 # 2. player 1 has no 7: he draws 4
    assert len(s.hands[2]) == 8 and s.sevens == 0
    s = run(rules, s, "AH")                   # 3. player 2 plays AH: player 3 loses his turn
    assert ref.legal_actions(s) == ["pass"]
    s = run(rules, s, "pass")
    assert "QD/C" in ref.legal_actions(s) and not any(a[1] == "H" for a in ref.legal_actions(s) if a != "draw")
    s = run(rules, s, "QD/C")                 # 4. player 4: no hearts, no ace, an Ober naming acorns
    assert "TC" in ref.legal_actions(s)       # 5. player 1 plays TC
    s = run(rules, s, "TC")
    assert s.top == "TC" and s.turn == 3


def test_illegal_actions_are_refused():
    rules, s = start([["8S", "9S", "KH", "TD"], ["JC", "7C", "AD", "QH"]], "8C")
    for action in ("KH", "QH/S", "pass", "JC"):
        with pytest.raises(ref.InvalidPosition):
            ref.play(rules, s, action)


def test_the_pile_turned_over_oldest_first_midway_through_a_penalty():
    rules, s = start([["8S", "9S", "7S", "JS"], ["8H", "9H", "TH", "JH"]], "KS")
    s = run(rules, s, "8S", "draw", "9S", *["draw"] * 21)
    assert len(s.stock) == 1 and s.pile == ("KS", "8S", "9S")
    last = s.stock[0]
    s = run(rules, s, "7S", "draw")
    assert {last, "KS"} <= s.hands[1] and s.stock == ("8S", "9S") and s.pile == ("7S",)


def test_nothing_to_draw():
    rules, s = start([["8S", "9S", "TS", "JS"], ["8H", "9H", "TH", "JH"]], "7C")
    s = run(rules, s, *["draw"] * 24)
    assert s.stock == () and s.pile == ("7C",) and s.turn == 0
    assert len(s.hands[0]) + len(s.hands[1]) == 31


def test_the_end_play_on_and_return():
    hands = [["8C", "9C", "TC", "7C"], ["8H", "9H", "TH", "JH"], ["8D", "9D", "TD", "JD"]]
    line = ["8C", "draw", "draw", "9C", "draw", "draw", "TC", "draw", "draw", "7C"]
    rules, s = start(hands, "KC")
    s = run(rules, s, *line)
    assert s.done and ref.outcome(rules, s, 0) == 1 and ref.outcome(rules, s, 1) == -1
    rules, s = start(hands, "KC", play_on=True)
    s = run(rules, s, *line)
    assert not s.done and s.turn == 1 and s.sevens == 1 and ref.outcome(rules, s, 0) == 1
    assert ref.outcome(rules, s, 1) == -1                      # seat 0 was out first: settled
    rules, s = start(hands, "KC", play_on=True, not_last=True)
    s = run(rules, s, *line)
    assert ref.outcome(rules, s, 0) == 1 and ref.outcome(rules, s, 1) == 0    # not the one left, yet
    rules, s = start(hands, "KC", comeback=True)
    s = run(rules, s, *line)
    assert not s.done and s.waiting == 0 and ref.outcome(rules, s, 0) == 0
    assert run(rules, s, "draw").done                          # not a 7: seat 0 is out, and first
    back = run(rules, s, "7S")                                 # seat 1 drew 7S first: a 7 on 7C
    assert not back.done and 0 not in back.out and back.sevens == 2 and back.turn == 2


def test_minimax_a_win_in_seven_and_the_horizon():
    rules, s = start([["8C", "9C", "TC", "JC"], ["KH", "KD", "AH", "AD"]], "KC", ["7S", "7H", "7D"])
    assert ref.value(rules, s, 0, 7) == 1                      # +(7 + 1 - 7): a win at ply 7
    assert ref.value(rules, s, 0, 6) == 0
    assert ref.value(rules, s, 1, 9) == -3
    assert ref.report(1, 7, 2) == (1, 7) and ref.report(-3, 9, 2) == (-1, 7) and ref.report(0, 9, 3) == (-1, None)


def small(hands, top, queue, turn=0, suit=None):
    return ref.State(hands=tuple(frozenset(h) for h in hands), stock=tuple(queue), pile=(top,),
                     suit=suit or top[1], sevens=0, ace=False, turn=turn, out=frozenset(), waiting=None,
                     finished=(), done=False)


def test_retrograde_a_draw_for_ever():
    # Nothing fits KS and nothing is left to draw: both draw nothing, for ever.
    s = small([["8H"], ["9C"]], "KS", [])
    values = ref.exact(ref.Rules(2), s, 0)
    assert values[s] == (0, 0) and len(values) == 2


def test_retrograde_the_winner_hurries_the_loser_delays():
    # Seat 0 can play 8S now: a win in 1.  If he draws 9S instead, seat 1 has nothing to draw,
    # seat 0 plays 8S (not 9S, on which seat 1's 9H fits), seat 1 draws KS, seat 0 plays 9S.
    s = small([["8S"], ["9H"]], "KS", ["9S"])
    values = ref.exact(ref.Rules(2), s, 0)
    assert values[s] == (1, 1)
    assert values[ref.play(ref.Rules(2), s, "draw")] == (1, 4)
    # Seat 1 to move, holding nothing that fits and nothing to draw: seat 0 then wins in 2.
    t = small([["8S"], ["9H"]], "KS", [], turn=1)
    assert ref.exact(ref.Rules(2), t, 0)[t] == (1, 2)


# ------------------------------------------------------------ the two analyses against each other

def mini(rng, seats, size):
    """A small game (`size` cards only, not a deal): a card at least in every hand, the others in
    the hands or the stock, a 7 or an ace on top sometimes pending, an Ober's suit named."""
    cards = rng.sample(DECK, size)
    top, rest = cards[0], cards[1:]
    hands = [[c] for c in rest[:seats]]
    queue = []
    for c in rest[seats:]:
        (hands[rng.randrange(seats)] if rng.random() < 0.5 else queue).append(c)
    return ref.State(hands=tuple(frozenset(h) for h in hands), stock=tuple(queue), pile=(top,),
                     suit=rng.choice("SHDC") if top[0] == "Q" else top[1],
                     sevens=1 if top[0] == "7" and rng.random() < 0.5 else 0,
                     ace=top[0] == "A" and rng.random() < 0.5, turn=rng.randrange(seats), out=frozenset(),
                     waiting=None, finished=(), done=False)


def _canonical(state):
    """A state's sort key that does not depend on the hash seed (a frozenset's repr does), so that
    a seed replays the same sample."""
    return (tuple(tuple(sorted(hand)) for hand in state.hands), state.stock, state.pile, state.suit, state.sevens,
            state.ace, state.turn, tuple(sorted(state.out)), -1 if state.waiting is None else state.waiting,
            state.finished, state.done)


@settings(deadline=None, max_examples=100)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 2, 3]))
def test_the_exact_analysis_is_the_minimax_at_a_deep_enough_horizon(seed, seats):
    """ref.exact (backwards over the whole graph) against ref.value (a plain minimax within a
    horizon), two independent analyses: an end exact() finds forced at d plies shows in the
    minimax at every horizon from d on with the same distance, and at none shorter; a draw shows
    at no horizon.  The differential test leans on this to compare the solver's default horizon
    and its exact values with the reference's minimax (forced_end)."""
    rng = random.Random(seed)
    rules = ref.Rules(seats, rng.random() < 0.3, rng.random() < 0.3)
    state = mini(rng, seats, rng.choice([4, 5, 5, 6]) if seats == 2 else 5)
    player = rng.randrange(seats)
    exact = ref.exact(rules, state, player)
    # The position, the positions after its actions, and a few anywhere in the graph.
    sample = {state, *rng.sample(sorted(exact, key=_canonical), min(4, len(exact)))}
    sample |= {t for t in (ref.play(rules, state, a) for a in ref.legal_actions(state)) if t in exact}
    deepest = 8                     # the plain minimax's cost grows fast past that
    for s in sample:
        outcome, plies = exact[s]
        if not outcome or plies > deepest:
            assert ref.value(rules, s, player, deepest) == 0, (seed, s, exact[s])
            continue
        for horizon in {plies, plies + 1, deepest}:
            value = ref.value(rules, s, player, horizon)
            assert ref.report(value, horizon, seats) == (outcome, plies), (seed, s, horizon)
        if plies:
            assert ref.value(rules, s, player, plies - 1) == 0, (seed, s)
