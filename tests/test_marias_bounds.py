"""The quick bounds of Mariáš trick boundaries against exact values.

At a trick boundary the board gives the value banked so far and bounds lo <= future <= hi
(MariasBoard.quick_bounds, _marias_bounds.pxd future_bounds).  For the Hra margin the leader's cash
of his sure winners (leader_cash, cash_margin) narrows them: the declarer's lo when he leads,
hi when a defender does; a cash of the declarer's whole hand settles the rest.

- On random endgames (every objective, both options, any leader) the bounds hold the exact
  future value of the plain reference minimax (Kilo: the minimax of the declarer's Kilo count,
  the measure the search bounds; money: the rank of the exact money).
- On hand-made deals the bounds are the figures worked out by hand, and the solver's exact
  value lies within them (and meets them where the cash settles the deal).
"""
import json
import random

import ddcards
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ddcards.games import _marias
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


def lost(state):
    """A Betl or Durch the history has lost already: nothing left to bound."""
    return (state.contract == "betl" and state.declarer_tricks > 0) or \
        (state.contract == "durch" and state.declarer_tricks < state.tricks_done)


def random_boundary(rng, tricks_left, kind, options):
    contract, objective, announcements = kind
    kw = {}
    if contract == "hra":
        kw = dict(objective=objective, options=options, announcements=announcements)
    # biased deals give the declarer high cards (Kilo) or keep contracts alive; unbiased ones
    # leave the cash to whoever holds the top cards.  A lost Betl or Durch (most unbiased ones)
    # is drawn again.
    for _draw in range(10):
        doc = m.random_endgame(rng, contract, tricks_left, bias=rng.random() < 0.5, **kw)
        if not lost(m.from_doc(doc)):
            break
    return doc


KINDS = [("hra", None, ()), ("hra", None, ()), ("hra", "kilo", ()), ("hra", "sedma", ()),
         ("hra", "money", ("sedma",)), ("hra", "money", ("kilo",)), ("hra", "money", ("sedma", "kilo")),
         ("betl", None, ()), ("durch", None, ())]


@settings(deadline=None, max_examples=1300, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(2, 4), st.sampled_from(KINDS), hra_options)
def test_bounds_hold_the_exact_value(seed, tricks_left, kind, options):
    doc = random_boundary(random.Random(seed), tricks_left, kind, options)
    session = GAME.session(doc)
    bounds = session.board.quick_bounds()
    # no bounds exactly where the history has settled a Betl or Durch (left after 10 draws)
    assert (bounds is None) == lost(m.from_doc(doc)), (bounds, json.dumps(doc))
    assume(bounds is not None)
    banked, lo, hi = bounds
    future = exact_future(doc, session, banked)
    assert lo <= future <= hi, (bounds, future, json.dumps(doc))


# ---------------------------------------------------------------- hand-made deals (trumps hearts)

def hand_made(hands, talon, played=(), **options):
    return {"game": "marias", "hands": hands, "talon": talon, "contract": "hra", "trump": "H",
            "options": options, "played": list(played)}


def bounds_and_value(doc):
    exact = ddcards.solve(ddcards.Position.from_dict(doc)).value
    return GAME.session(doc).board.quick_bounds(), exact


# The declarer holds every trump but the J, and the three other aces: his top trumps draw
# seat 1's J and each of his cards wins.  Seat 1 holds the spade and diamond marriages.
SWEEP = ["A.ATKQ987.A.A", "KQJ.J.KQJT9.K", "T987..87.QJT9"]


def test_declarer_cashing_his_whole_hand_settles_the_deal():
    # every point (AS TS AH TH AD TD AC TC: 80), the last trick (10) and his trump marriage
    # (40): 130 both ways; the talon holds no points
    assert bounds_and_value(hand_made(SWEEP, "8C 7C")) == ((0, 130, 130), 130)


def test_declarer_cashing_his_whole_hand_with_marriages_on_follow():
    # seat 1 may score his two marriages (20 + 20) playing a K or O as a follower: lo 130 - 40;
    # he does, throwing them on the declarer's trumps once his J is gone
    doc = hand_made(SWEEP, "8C 7C", marriage_on_follow=True)
    assert bounds_and_value(doc) == ((0, 90, 130), 90)


# The declarer's A T of trumps draw both defenders' two trumps; then his 7 of trumps and his
# A T K of spades win too: 6 tricks, 40 points (AH TH AS TS), the defenders' trumps and spades
# following for nothing.  Seat 2 holds two marriages (KD QD, KC QC: 40).
CASH = ["ATK.AT7.87.87", "QJ9.K9.TJ9.T9", "87.Q8.AKQ.AKQ"]


def test_declarer_cash_raises_lo():
    # lo: 2 * 40 - 90 (the points left with the last trick) - 40 (seat 2's marriages) = -50,
    # where the sure trumps alone gave -90 - 40 + 2 * 20 = -90; hi: 90
    (banked, lo, hi), exact = bounds_and_value(hand_made(CASH, "JH JC"))
    assert (banked, lo, hi) == (0, -50, 90)
    assert lo <= exact <= hi


# After 7D JD KD (no points) seat 2 leads with A T K of trumps, above the declarer's Q 8 and
# seat 1's 9 7, which follow; then his A T of spades and his A of clubs are above every other
# card of their suits: 6 tricks, 50 points (AH TH AS TS AC), all following for nothing.  Still
# on lead, he then scores his club marriage (20) by leading its K.
DEFENCE = ["87.Q8.A987.87", "KQJ.97.TJ.TJ9", "AT.ATK.KQ.AKQ"]


def test_defender_cash_lowers_hi():
    # hi: 90 (the points left with the last trick) - 2 * 50 - 20 = -30, where the sure trumps
    # and the marriage led at once gave 90 - 2 * 20 - 20 = 30; lo: -90 - 20 - 20 (the
    # defenders' spade and club marriages)
    doc = hand_made(DEFENCE, "9S JH", played=["7D", "JD", "KD"])
    (banked, lo, hi), exact = bounds_and_value(doc)
    assert (banked, lo, hi) == (0, -130, -30)
    assert lo <= exact - banked <= hi


# ---------------------------------------------------------------- a reduced deal, on the board itself

HRA_ORDER = "789JQKTA"


def code(card):
    return "SHDC".index(card[1]) * 8 + HRA_ORDER.index(card[0])


def reduced_board(hands, first_trick=(), marriage_on_follow=False):
    """A Hra in hearts of three short hands (the other cards out of play) after `first_trick`,
    as the solver's board and as the reference's state."""
    board = _marias.MariasBoard([sum(1 << code(c) for c in h) for h in hands], 1, _marias.OBJ_HRA,
                                marriage_on_follow)
    state = m.initial_state([list(h) for h in hands], [], "hra", "H", None,
                            {"marriage_on_follow": marriage_on_follow})
    for card in first_trick:
        board.play(code(card))
        state = state.play(card)
    return board, state


def test_defender_cashing_his_whole_hand_does_not_settle_the_deal():
    # After 7C 8C 9C seat 2 leads AH 7H AD, each a winner in turn (AH draws seat 1's 9H): hi is
    # -(20 + 10), the declarer never scoring.  But leading the 7H first hands the lead to seat 1's
    # 9H, who leads his spade marriage (20) and sees seat 2 trump it: -50, lo.
    board, state = reduced_board([("8S", "7D", "8D", "7C"), ("9H", "KS", "QS", "8C"),
                                  ("AH", "7H", "AD", "9C")], ["7C", "8C", "9C"])
    assert board.quick_bounds() == (0, -50, -30)
    assert m.minimax(state) == -50


# The declarer's A T of trumps run (seat 1 follows with his Q K, seat 2 with 8 9): 20 points; the
# spades' last trick (10) is seat 2's.  (Better, he gives the spade trick first and takes the
# last with a trump: 30.)
BREAK = [("AH", "TH", "7S"), ("KH", "QH", "8S"), ("9H", "8H", "9S")]


def test_declarer_cash_breaks_a_defender_marriage():
    # Seat 1 must play both his trumps to the cash: his trump marriage is gone before he could
    # lead it.  lo: 2 * 20 - 30 (the points left with the last trick) = 10, where counting his
    # marriage gave -30 - 40 + 2 * 20 = -30; hi: 30
    board, state = reduced_board(BREAK)
    assert board.quick_bounds() == (0, 10, 30)
    assert m.minimax(state) == 30


def test_declarer_cash_with_marriages_on_follow():
    # ... unless a marriage played as a follower scores: seat 1's Q or K to a trump trick while
    # holding the other is 40 (lo -30 - 40 + 2 * 20 as before; exact 30 - 40)
    board, state = reduced_board(BREAK, marriage_on_follow=True)
    assert board.quick_bounds() == (0, -30, 30)
    assert m.minimax(state) == -10


# ---------------------------------------------------------------- money: the parts' classes

def finished_lines(st_):
    """Every finished deal reachable from st_ (all lines of play)."""
    if st_.over:
        yield st_
        return
    for card in st_.legal_moves():
        yield from finished_lines(st_.play(card))


def check_classes(doc):
    """The table keys a money position by its parts' classes instead of their scores so far, so a
    part classed won must be won on every line of play from there, one classed lost lost on
    every line, whatever either side plays (not only under best play).  Returns the classes."""
    classes = GAME.session(doc).board.money_classes()
    if classes is None:
        return None
    outcomes = {(line.part_won()["hra"], line.part_won()["kilo"]) for line in finished_lines(m.from_doc(doc))}
    for part, cls in zip((0, 1), classes):
        if part == 1 and "kilo" not in doc["announcements"]:
            assert cls == "lost"
        elif cls != "open":
            assert {won[part] for won in outcomes} == {cls == "won"}, (classes, outcomes, json.dumps(doc))
    return classes


@settings(deadline=None, max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(2, 3), st.sampled_from([("sedma",), ("kilo",), ("sedma", "kilo")]), hra_options)
def test_money_classes_hold_on_every_line(seed, tricks_left, announcements, options):
    doc = m.random_endgame(random.Random(seed), "hra", tricks_left, objective="money", options=options,
                           announcements=announcements, bias=random.Random(seed).random() < 0.5)
    assert check_classes(doc) is not None, json.dumps(doc)     # a trick boundary: classes to check


def test_a_marriage_the_declarer_may_not_lead_leaves_hra_open():
    # Found by a run of 20,000 random endgames: the declarer, on lead, holds the K Q of trumps
    # (spades) and the 8 of clubs.  Leading the K or the Q scores 40 and wins the Hra on every
    # line; leading the 8 of clubs, he can lose it.  The class once counted the marriage he can
    # lead now, and called the Hra won.
    doc = {"game": "marias", "hands": ["KQ.QJ97.A.T98", "AJT.AKT8.T8.Q", "987..KJ7.AKJ7"], "talon": "9D QD",
           "contract": "hra", "trump": "S", "announcements": ["kilo"], "objective": "money", "options": {},
           "played": ["JH", "KH", "9S", "JC", "TC", "QC", "7H", "AH", "8S", "7D", "AD", "TD", "9H", "TH",
                      "7S", "7C", "9C", "AS", "8H", "KD", "QH"]}
    assert check_classes(doc) == ("open", "lost")
