"""Differential test: the fast Klaverjas solver against the plain-Python reference.

Random legal endgames (2-5 tricks left, also mid-trick, both rule sets, any trump, playing
team and leader) are solved by both; the side to move, the legal moves, the value, the exact
value of every legal move and the optimal moves must agree, and the solver's principal
variation, replayed in the reference, is legal, keeps the value at every card and ends the
deal with the scores, tricks, outcomes and settlement the solver reports.  Some histories are
picked for a margin near zero so that nat is still open (the solver's hardest table case).
Most random endgames are decided already (every move has the same value), so about half of
the examples are *decisive*: the first position on a random line of play from the endgame
where the moves' values differ (none found in a few lines: the example is rejected, not
passed).  A failure prints the position document: replay it with
``ddcards.solve(ddcards.Position.from_dict(doc))`` and ``reference_solve(doc)``.

The solver's own switches (no pruning, no nat classes in the table key, no quick bounds, no
endgame leaf) must not change any value on longer endgames the reference is too slow for.
"""
import json
import random
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ddcards._core.search import MODE_ALL, Searcher
from ddcards.games import _klaverjas
from ddcards.games import klaverjas as kj
from ddcards.notation import Card, Suit

try:
    from tests.reference import klaverjas as k
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as k
from _differential import assert_answers  # noqa: E402 - tests/ is on sys.path

seeds = st.integers(0, 2**32 - 1)
short = st.integers(2, 4)                 # tricks left (with one left every card is forced)
in_trick = st.integers(0, 3)              # cards of the current trick already played
rulesets = st.sampled_from(k.RULESETS)
decisive = st.booleans()                  # look for a position whose moves' values differ
DRAWS = 6                                 # endgames drawn for a decisive one


def check(doc, expected=None):
    expected = expected or k.reference_solve(doc)
    text = json.dumps(doc)
    res = assert_answers(doc, expected, text)
    # the line reaches the end of the deal and its scores give the value
    assert len(res.pv) == 32 - len(doc["played"]), text
    assert res.scores["playing"] - res.scores["other"] == res.value, text
    check_line(doc, res, text)


def check_line(doc, res, text):
    """Replay the solver's principal variation in the reference: one line of optimal play to
    the end of the deal, with the scores, tricks, outcomes and settlement at its end (§2)."""
    state = k.from_doc(doc)
    for card in res.pv:
        state = state.play(card)                  # the reference refuses an illegal card
        assert k.minimax(state) == res.value, (card, res.pv, text)   # each card keeps the value
    assert state.over and state.value() == res.value, (res.pv, text)
    final = state.scores()
    assert res.scores == {"playing": final["playing"], "other": final["other"],
                          "playing_roem": state.roem[0], "other_roem": state.roem[1]}, (res.scores, text)
    assert res.tricks == {"playing": state.tricks[0], "other": state.tricks[1]}, (res.tricks, text)
    assert res.outcomes == {"nat": state.nat(), "pit": state.tricks[1] == 0,
                            "pit_other": state.tricks[0] == 0}, (res.outcomes, text)
    assert res.won == (not state.nat()), text
    # each seat gets its team's score minus the other's
    assert res.settlement == [res.value if seat % 2 == doc["playing_team"] else -res.value
                              for seat in range(4)], (res.settlement, text)


def differ(expected):
    return len(set(expected["moves"].values())) > 1


def endgame(seed, tricks_left, cards, rules, close=1):
    return k.random_endgame(random.Random(seed), tricks_left, cards_in_trick=cards, rules=rules,
                            close=close)


def solved_endgame(seed, tricks_left, cards, rules, close=1, decisive=False, floor=2):
    """A random endgame and the reference's answer.  ``decisive``: instead, the first position
    where the moves' values differ on a random line of play from it, ``floor`` tricks left or
    more; none in DRAWS endgames, the example is rejected."""
    rng = random.Random(seed)
    for _draw in range(DRAWS if decisive else 1):
        doc = k.random_endgame(rng, tricks_left, cards_in_trick=cards, rules=rules, close=close)
        if not decisive:
            return doc, k.reference_solve(doc)
        state, played = k.from_doc(doc), list(doc["played"])
        while 8 - state.tricks_done >= floor:
            moves = state.legal_moves()
            if len(moves) > 1:
                expected = k.solve_state(state)
                if differ(expected):
                    return dict(doc, played=played), expected
            card = rng.choice(moves)
            state = state.play(card)
            played.append(card)
    assume(False)


@settings(deadline=None, max_examples=250)
@given(seeds, short, in_trick, decisive)
def test_amsterdam(seed, tricks_left, cards, want_decisive):
    check(*solved_endgame(seed, tricks_left, cards, "amsterdam", decisive=want_decisive))


@settings(deadline=None, max_examples=250)
@given(seeds, short, in_trick, decisive)
def test_rotterdam(seed, tricks_left, cards, want_decisive):
    check(*solved_endgame(seed, tricks_left, cards, "rotterdam", decisive=want_decisive))


@settings(deadline=None, max_examples=200)
@given(seeds, short, in_trick, rulesets, decisive)
def test_close_margins(seed, tricks_left, cards, rules, want_decisive):
    # the history with the margin nearest 0 out of 25: whether it is nat is still open
    check(*solved_endgame(seed, tricks_left, cards, rules, close=25, decisive=want_decisive))


@settings(deadline=None, max_examples=10,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seeds, in_trick, rulesets)
def test_five_tricks_left(seed, cards, rules):
    # The reference's memo reaches the fourth and fifth tricks: positions whose moves' values
    # differ, the margin near 0.
    check(*solved_endgame(seed, 5, cards, rules, close=25, decisive=True, floor=4))


# ----------------------------------------------------------------------- self-consistency

_SEARCHER = Searcher(8)
FLAGS = (_klaverjas.FLAG_NO_PRUNE, _klaverjas.FLAG_NO_CLASSES, _klaverjas.FLAG_NO_BOUNDS,
         _klaverjas.FLAG_NO_LEAF,
         _klaverjas.FLAG_NO_PRUNE | _klaverjas.FLAG_NO_CLASSES | _klaverjas.FLAG_NO_BOUNDS)


def search(doc, flags):
    session = kj.GAME.replay(kj.parse_setup(doc), flags)
    _SEARCHER.clear()
    value, moves, _, _ = _SEARCHER.solve(session.board, MODE_ALL, want_pv=False)
    return value, sorted(moves)


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(5, 7), in_trick, rulesets)
def test_switches_do_not_change_values(seed, tricks_left, cards, rules):
    doc = endgame(seed, tricks_left, cards, rules, close=25)
    base = search(doc, 0)
    for flags in FLAGS:
        assert search(doc, flags) == base, (flags, json.dumps(doc))


FULL_DEALS = [   # whole deals (benchmarks/corpus), both rule sets
    {"game": "klaverjas", "rules": "amsterdam", "trump": "S", "playing_team": 1,
     "hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.QJ"]},
    {"game": "klaverjas", "rules": "rotterdam", "trump": "H", "playing_team": 0,
     "hands": ["K9.AJ9.QT.A", "J7.Q8.AK.K8", "AT.KT.97.JT", "Q8.7.J8.Q97"]},
    {"game": "klaverjas", "rules": "amsterdam", "trump": "C", "playing_team": 0, "leader": 2,
     "hands": ["J7.AQ.AQ.AK", "Q.JT.K.JT98", "KT9..JT97.7", "A8.K987.8.Q"]},
]


def test_switches_do_not_change_whole_deals():
    for doc in FULL_DEALS:
        base = search(doc, 0)
        for flags in (_klaverjas.FLAG_NO_PRUNE, _klaverjas.FLAG_NO_CLASSES, _klaverjas.FLAG_NO_LEAF):
            assert search(doc, flags) == base, (flags, json.dumps(doc))


# ----------------------------------------------------------------------- the margin mode

def reference_margin(st):
    """Minimax of the margin D' = P - O (+100 if the playing team takes every trick), no nat."""
    return k.minimax(st, measure=lambda end: (end.points[0] - end.points[1]
                                              + (100 if end.tricks[1] == 0 else 0)))


_MARGIN_SEARCHER = Searcher(1)


@settings(deadline=None, max_examples=200)
@given(seeds, short, in_trick, rulesets)
def test_margin_mode(seed, tricks_left, cards, rules):
    # The margin mode (for a core that switches it per null-window test, see _klaverjas's
    # module doc) searches D'; D' >= value always, equal when the deal is made.  One table
    # serves both modes, in any order.
    doc = endgame(seed, tricks_left, cards, rules, close=25)
    st = k.from_doc(doc)
    margin, value = reference_margin(st), k.minimax(st)
    assert margin >= value and (value <= -162 or margin == value), json.dumps(doc)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    order = (True, False) if seed & 1 else (False, True)
    if seed & 2:
        _MARGIN_SEARCHER.clear()
    for on in order:
        board.fix_measure("margin" if on else None)
        assert _MARGIN_SEARCHER.value(board) == (margin if on else value), (on, json.dumps(doc))
    board.fix_measure(None)


# ----------------------------------------------------------------------- as if nat (mode 2)

def reference_asnat(st):
    """Minimax of L = -(P + O) (-100 if the other team takes every trick): the value as if nat."""
    return k.minimax(st, measure=lambda end: (-(end.points[0] + end.points[1])
                                              - (100 if end.tricks[0] == 0 else 0)))


@settings(deadline=None, max_examples=200)
@given(seeds, short, in_trick, rulesets)
def test_lower_measure(seed, tricks_left, cards, rules):
    # The core's lower measure (mode 2, _klaverjas's module doc "As if nat"): L <= value,
    # searched alone it is the reference's minimax of L; the value is the same whether the
    # core bounds it by L first or not, and one table serves every mode in any order.
    doc = endgame(seed, tricks_left, cards, rules, close=25)
    st = k.from_doc(doc)
    lower, value = reference_asnat(st), k.minimax(st)
    assert lower <= value, json.dumps(doc)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    if seed & 2:
        _MARGIN_SEARCHER.clear()
    steps = [("asnat", lower), (None, value)]
    for measure, expected in (steps if seed & 1 else steps[::-1]):
        board.fix_measure(measure)
        assert _MARGIN_SEARCHER.value(board) == expected, (measure, json.dumps(doc))
    board.fix_measure(None)
    board.lower_below = -29999            # no lower measure: the same value
    assert _MARGIN_SEARCHER.value(board) == value, json.dumps(doc)
    board.lower_below = 0


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(4, 5), in_trick, rulesets)
def test_two_trick_cache_across_measures(seed, tricks_left, cards, rules):
    # The search caches exact two-trick endgames (two_slot, in its table's side area): the
    # margin and the value as if nat keyed without the points, the value with them.  One
    # board and one Searcher that is never cleared, searched in every measure in a seeded
    # order and back, answer as fresh boards and Searchers do.
    doc = endgame(seed, tricks_left, cards, rules, close=25)
    measures = ["value", "margin", "asnat"]
    random.Random(seed).shuffle(measures)
    fresh = {}
    for measure in measures:
        board = kj.GAME.replay(kj.parse_setup(doc)).board
        board.fix_measure(measure)
        fresh[measure] = Searcher(1).value(board)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    shared = Searcher(1)
    for measure in measures + measures[::-1]:
        board.fix_measure(measure)
        assert shared.value(board) == fresh[measure], (measure, json.dumps(doc))
    assert fresh["asnat"] <= fresh["value"] <= fresh["margin"], json.dumps(doc)


# ----------------------------------------------------------------------- the table key

NATURAL = "789TJQKA"                      # natural order (sequences)
PLAIN_POWER = "789JQKTA"                  # strength order, plain suits
TRUMP_POWER = "78QKTA9J"                  # strength order, trumps


def relabel_worthless(hands, trump):
    """The hands with, in every suit where no possible sequence holds a worthless card
    (7 8 9; trumps 7 8), those replaced in order by the lowest ones: the same game."""
    out = [list(h) for h in hands]
    for suit in "SHDC":
        owner = {c[0]: seat for seat, h in enumerate(hands) for c in h if c[1] == suit}
        worthless = "78" if suit == trump else "789"
        runs = any(all(r in owner for r in NATURAL[i:i + 3])
                   and len({owner[r] for r in NATURAL[i:i + 3]}) == 3
                   for i in range(6) if set(NATURAL[i:i + 3]) & set(worthless))
        if runs:
            continue
        present = [r for r in worthless if r in owner]
        for old, new in zip(present, worthless):
            seat = owner[old]
            out[seat][out[seat].index(old + suit)] = new + suit
    return out


def small_board(hands, trump, playing, rules, leader):
    codes = kj.card_codes(Suit.parse(trump))
    masks = [sum(1 << codes[Card.parse(c)] for c in h) for h in hands]
    return _klaverjas.KlaverjasBoard(masks, "SHDC".index(trump), playing, rules == "rotterdam", leader)


def played_out(board, playing):
    """Plain minimax of the margin P - O (+100 pit) over every line (the search itself
    assumes whole deals of 162 card points; these boards hold a few cards per hand)."""
    if board.finished:
        st = board.state
        return st["points"][0] - st["points"][1] + (100 if st["tricks"][1] == 0 else 0)
    values = []
    for card in board.legal_moves():
        board.play(card)
        values.append(played_out(board, playing))
        board.undo()
    mine = (board.to_move - playing) % 2 == 0
    return max(values) if mine else min(values)


@settings(deadline=None, max_examples=300)
@given(seeds, st.integers(2, 3), rulesets)
def test_worthless_cards_share_a_table_key(seed, per_hand, rules):
    # Endgames that differ only in which worthless cards are left, in suits that can make
    # no sequence, are the same game: one table key and one value.  Others keep apart.
    rng = random.Random(seed)
    deck = [r + s for s in "SHDC" for r in NATURAL]
    cards = rng.sample(deck, 4 * per_hand)
    hands = [cards[i::4] for i in range(4)]
    trump, playing, leader = rng.choice("SHDC"), rng.randrange(2), rng.randrange(4)
    other = relabel_worthless(hands, trump)
    a = small_board(hands, trump, playing, rules, leader)
    b = small_board(other, trump, playing, rules, leader)
    assert a.table_key() == b.table_key(), (hands, other)
    assert played_out(a, playing) == played_out(b, playing), (hands, other, trump)
    # A point card swapped for a worthless one changes the key.
    points = [c for h in hands for c in h if c[0] in "JQKA" and c[1] != trump]
    if points:
        seat = next(i for i, h in enumerate(hands) if points[0] in h)
        spare = [c for c in deck if c not in cards and c[1] == points[0][1] and c[0] in "789"]
        if spare:
            changed = [list(h) for h in hands]
            changed[seat][changed[seat].index(points[0])] = spare[0]
            assert small_board(changed, trump, playing, rules, leader).table_key() != a.table_key()


def test_worthless_cards_relabelled_example():
    # Clubs 9 and 8 left (7 gone), no club sequence possible: keyed as 7 and 8.
    hands = [["9C", "AS"], ["8C", "TS"], ["JC", "7H"], ["AH", "KS"]]
    other = relabel_worthless(hands, "H")
    assert other == [["8C", "AS"], ["7C", "TS"], ["JC", "7H"], ["AH", "KS"]]
    a, b = (small_board(h, "H", 0, "amsterdam", 0) for h in (hands, other))
    assert a.table_key() == b.table_key() and played_out(a, 0) == played_out(b, 0)
    # With 7 8 9 of clubs in three hands a sequence is possible: the cards keep their names.
    runs = [["9C", "AS"], ["8C", "TS"], ["7C", "7H"], ["AH", "KS"]]
    assert relabel_worthless(runs, "H") == runs
    # A sequence of the high spades only (Q K A) leaves the 8 free: keyed as the 7.
    high = [["8S", "QS"], ["KS", "9D"], ["AS", "TD"], ["JH", "7C"]]
    assert relabel_worthless(high, "H")[0] == ["7S", "QS"]


def _roem_edge_endgames(rules, want=40):
    """Endgames one card before a two-tricks-left boundary (the endgame leaf
    solves it inside the search) where three seats hold Q, K, A of a suit, one
    each, and the fourth none of it but a 7 of another suit: a trick of those
    four has a 3-run next to a card of the next lane of the natural layout,
    which must not count as a 4-run."""
    out = []
    for seed in range(200000):
        doc = endgame(seed, 3, 3, rules)
        hands = []
        for h in doc["hands"]:                  # the deal's hands, in S.H.D.C order
            cards = {r + suit for suit, part in zip("SHDC", h.split(".")) for r in part}
            hands.append(cards - set(doc["played"]))
        for s in "SHDC":
            holders = [i for i in range(4) if hands[i] & {"Q" + s, "K" + s, "A" + s}]
            rest = [i for i in range(4) if i not in holders]
            if len(holders) == 3 and not any(c[1] == s for c in hands[rest[0]]) and \
                    any(c[0] == "7" for c in hands[rest[0]]) and \
                    all(len(hands[i] & {"Q" + s, "K" + s, "A" + s}) == 1 for i in holders):
                out.append(doc)
                break
        if len(out) == want:
            break
    return out


def test_two_left_roem_lanes():
    # the two-trick leaf computes each line's roem lane-wise on the natural layout
    for rules in k.RULESETS:
        docs = _roem_edge_endgames(rules)
        assert len(docs) >= 20
        for doc in docs:
            check(doc)


def test_two_trick_cache_shared_across_deals_and_parameters():
    # The two-trick cache lives in the search table's side area (one per Searcher), keyed
    # with the deal's parameters: one Searcher that never clears, valuing every trump suit
    # and playing team of the same hands under both rule sets (the DD table's work, where
    # the same endgames come back), answers as fresh Searchers do.
    shared = Searcher(2)
    for doc in FULL_DEALS[:2]:
        for rules in ("amsterdam", "rotterdam"):
            for trump in "SHDC":
                for team in (0, 1):
                    variant = dict(doc, rules=rules, trump=trump, playing_team=team)
                    board = kj.GAME.replay(kj.parse_setup(variant)).board
                    fresh = Searcher(2).value(kj.GAME.replay(kj.parse_setup(variant)).board)
                    assert shared.value(board) == fresh, json.dumps(variant)


def test_the_midgame_corpus_late_in_the_deal():
    """The positions of benchmarks/corpus/klaverjas-midgame.jsonl (any trump, playing team, rule
    set and first leader, cut by random play) with 16 or more cards played, as the reference
    solves them."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus" / "klaverjas-midgame.jsonl"
    docs = [json.loads(line) for line in path.read_text().splitlines()]
    late = [(i, doc) for i, doc in enumerate(docs, 1) if len(doc["played"]) >= 16]
    assert len(late) >= 25 and len({doc.get("leader", 0) for _, doc in late}) == 4
    for i, doc in late:
        assert_answers(doc, k.reference_solve(doc), f"klaverjas-midgame.jsonl line {i}: {json.dumps(doc)}")
