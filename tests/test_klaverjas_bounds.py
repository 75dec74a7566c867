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
- the roem still to come that the bounds allow (in all and per team) is at least the most roem
  any line of play makes;
- on longer endgames (the reference is too slow there) the bounds hold the exact value of the
  solver searched without quick bounds and classes (FLAG_NO_BOUNDS | FLAG_NO_CLASSES).
"""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddcards._core.search import Searcher
from ddcards.games import _klaverjas
from ddcards.games import klaverjas as kj

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


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 3), rulesets, closeness, st.integers(-40, 40))
def test_bounds_during_a_test_settle_what_the_full_bounds_settle(seed, tricks_left, rules, close, shift):
    # During a null-window test "value >= beta" the margin and as-if-nat modes skip the roem
    # bound where no bound could settle the node (a bound of 200 a trick stands in): the
    # bounds must still hold the exact future, and settle the test exactly when the full
    # bounds do.
    doc = k.random_endgame(random.Random(seed), tricks_left, rules=rules, close=close)
    check_test_bounds(doc, shift)


def check_test_bounds(doc, shift):
    s = k.from_doc(doc)
    exact_of = {"value": k.minimax(s), "margin": reference_margin(s), "asnat": reference_asnat(s)}
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    for measure, exact_value in exact_of.items():
        board.fix_measure(measure)
        full, full_key = board.boundary_info(), board.table_key()
        if full["class"] == "done":
            continue
        for beta in (exact_value + shift, full["banked"] + full["lo"] + shift,
                     full["banked"] + full["hi"] + shift):
            board.fix_measure(measure, beta)
            fast = board.boundary_info()
            text = (measure, beta, full, fast, json.dumps(doc))
            assert fast["lo"] <= exact_value - fast["banked"] <= fast["hi"], text
            assert (fast["banked"] + fast["lo"] >= beta) == (full["banked"] + full["lo"] >= beta), text
            assert (fast["banked"] + fast["hi"] <= beta - 1) == (full["banked"] + full["hi"] <= beta - 1), text
            assert fast["class"] == full["class"] and fast["banked"] == full["banked"], text
            assert board.table_key() == full_key, text
    board.fix_measure(None)


def boundary_facts(board, measure):
    board.fix_measure(measure)
    info = board.boundary_info(), board.table_key()
    board.fix_measure(None)
    return info


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(3, 5), rulesets, closeness)
def test_a_searched_board_keeps_the_bounds_and_key_of_a_fresh_one(seed, tricks_left, rules, close):
    # During a null-window test the game skips work the test's threshold makes needless
    # (the roem bound where no bound could settle the node, the table key where the quick
    # bounds do): a board searched at any threshold, then played on, must answer every
    # boundary's class, bounds and table key exactly as a fresh board does.
    doc = k.random_endgame(random.Random(seed), tricks_left, rules=rules, close=close)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    _SEARCHER.clear()
    _SEARCHER.value(board)
    rng = random.Random(seed)
    played = []
    while not board.terminal:
        if board.boundary_info() is not None:
            fresh = kj.GAME.replay(kj.parse_setup(doc)).board
            for card in played:
                fresh.play(card)
            for measure in ("value", "margin", "asnat"):
                assert boundary_facts(board, measure) == boundary_facts(fresh, measure), \
                    (measure, played, json.dumps(doc))
        card = rng.choice(board.legal_moves())
        board.play(card)
        played.append(card)
        if rng.random() < 0.3:
            _SEARCHER.value(board)        # a search in the middle of the line, too


def most_roem(st, memo):
    """The most roem still to come on any line of play: (in all, in the playing team's tricks,
    in the other team's), each maximised on its own."""
    key = (st.hands, st.leader, st.trick)
    if key in memo:
        return memo[key]
    best = (0, 0, 0)
    for card in st.legal_moves():
        nxt = st.play(card)
        sub = most_roem(nxt, memo)
        if len(st.trick) == 3:
            r = k.roem(st.trick + (card,), st.trump)
            won = 0 if nxt.roem[0] > st.roem[0] else 1      # the winner's team scored it
            sub = (sub[0] + r, sub[1] + (r if won == 0 else 0), sub[2] + (r if won == 1 else 0))
        best = tuple(max(x, y) for x, y in zip(best, sub))
    memo[key] = best
    return best


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 3), rulesets)
def test_roem_bound_holds_the_most_roem_of_any_line(seed, tricks_left, rules):
    # The quick bounds' roem term (in all and per team) must hold on every line of play, not
    # only under best play: the classes and the keys without points rely on it.  Checked
    # against the most roem any line makes, by exhaustive search with the reference's rules.
    doc = k.random_endgame(random.Random(seed), tricks_left, rules=rules)
    board = kj.GAME.replay(kj.parse_setup(doc)).board
    bound = board.roem_bound()
    most = most_roem(k.from_doc(doc), {})
    assert all(b >= m for b, m in zip(bound, most)), (bound, most, json.dumps(doc))


def roem_game(st, scored, memo):
    """The roem still to come under best play when one side plays for it and the other against
    it: in the tricks of team `scored` (0 the playing team, 1 the other; that team maximises it),
    or with `scored` None in all tricks (the other team maximises it, the playing team keeps it
    down).  By exhaustive search with the reference's rules."""
    if st.over:
        return 0
    key = (st.hands, st.leader, st.trick)
    if key in memo:
        return memo[key]
    maximiser = 1 if scored is None else scored
    maximise = st.team(st.to_move) == maximiser
    best = None
    for card in st.legal_moves():
        nxt = st.play(card)
        v = roem_game(nxt, scored, memo)
        if len(st.trick) == 3:
            r = k.roem(st.trick + (card,), st.trump)
            won = 0 if nxt.roem[0] > st.roem[0] else 1
            v += r if scored is None or won == scored else 0
        if best is None or (v > best if maximise else v < best):
            best = v
    memo[key] = best
    return best


def endgame_with_a_denied_run(rng, tricks_left, rules, close=1):
    """A random endgame at a trick boundary where a team can deny a run (the roem bound for
    the minimax is below the one for every line), and its board."""
    for _ in range(400):
        doc = k.random_endgame(rng, tricks_left, rules=rules, close=close)
        board = kj.GAME.replay(kj.parse_setup(doc)).board
        if board.roem_bound(deny=True) != board.roem_bound():
            return doc, board
    raise AssertionError(f"no endgame of {tricks_left} tricks with a deniable run in 400 draws")


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.just(4), rulesets)
def test_denied_runs_hold_the_roem_of_best_play(seed, tricks_left, rules):
    # A 3-run of a plain suit whose cards lie two in one team's hands and one in a hand of
    # the other team that is longer in the suit than one of the two can be kept from ever
    # falling in one trick (roem_bound's docstring: seq_max_denied).  The bounds for the
    # minimax leave such runs out: each must hold the roem that the side denying them can
    # hold the other to, against any play (exhaustive search with the reference's rules).
    doc, board = endgame_with_a_denied_run(random.Random(seed), tricks_left, rules)
    total, playing, other = board.roem_bound(deny=True)
    s = k.from_doc(doc)
    text = json.dumps(doc)
    assert roem_game(s, 0, {}) <= playing, (board.roem_bound(deny=True), text)
    assert roem_game(s, 1, {}) <= other, (board.roem_bound(deny=True), text)
    assert roem_game(s, None, {}) <= total, (board.roem_bound(deny=True), text)


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, rulesets, st.integers(-40, 40))
def test_bounds_with_denied_runs_during_a_test_settle_what_the_full_bounds_settle(seed, rules, shift):
    # During a test the game works out only the denied runs' bound that may settle it.
    doc, _ = endgame_with_a_denied_run(random.Random(seed), 4, rules)
    check_test_bounds(doc, shift)


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(4, 6), rulesets, closeness)
def test_bounds_with_denied_runs_hold_the_exact_value(seed, tricks_left, rules, close):
    doc, _ = endgame_with_a_denied_run(random.Random(seed), tricks_left, rules, close)
    check_bounds(doc, exact(doc, None), exact(doc, "margin"), asnat=exact(doc, "asnat"))


def history_keeping(st_, keep):
    """A legal history from st_ to the trick boundary where the hands are `keep` (depth first)."""
    if [set(h) for h in st_.hands] == keep:
        return []
    for card in st_.legal_moves():
        if card not in keep[st_.to_move]:
            rest = history_keeping(st_.play(card), keep)
            if rest is not None:
                return [card] + rest
    return None


def hand_made_endgame(doc, keep):
    """The deal `doc` played on to the trick boundary where the hands are `keep`: the position
    document (its history found by history_keeping), its reference state and its board."""
    doc = dict(doc, played=history_keeping(k.from_doc(dict(doc, played=[])), keep))
    return doc, k.from_doc(doc), kj.GAME.replay(kj.parse_setup(doc)).board


def test_a_run_the_other_team_denies():
    # Hand-checked, two tricks left, diamonds trumps and none left, the playing team seats 0
    # and 2.  Hearts 9 (seat 0), T (seat 2) and J (seat 1) can make a run the playing team
    # takes (its T is the run's strongest card) on some line; but seat 1 holds the 7 of hearts
    # too, against seat 0's and seat 2's one heart each, and keeps his J out of their trick.
    deal = {"game": "klaverjas", "hands": ["AQ87.9..987", ".J7.QJT987.", "KJT9.T.AK.A", ".AKQ8..KQJT"],
            "trump": "D", "playing_team": 0, "rules": "amsterdam", "leader": 1}
    _, end, board = hand_made_endgame(deal, [{"9H", "AS"}, {"JH", "7H"}, {"TH", "AC"}, {"KC", "QC"}])
    assert board.roem_bound()[1] == 20                      # on some line, seat 0's team scores it
    assert board.roem_bound(deny=True)[1] == 0              # against seat 1's best, never
    assert roem_game(end, 0, {}) == 0
    # Without seat 1's 7 of hearts (a club instead) he must give his J to a heart lead.
    deal["hands"] = ["AQ87.9..987", ".J.QJT987.J", "KJT9.T.AK.A", ".AKQ87..KQT"]
    _, end, board = hand_made_endgame(deal, [{"9H", "AS"}, {"JH", "JC"}, {"TH", "AC"}, {"KC", "QC"}])
    assert board.roem_bound(deny=True)[1] == board.roem_bound()[1] == 20
    assert roem_game(end, 0, {}) == 20


def test_a_run_the_team_holding_two_of_its_cards_denies():
    # Hand-checked, two tricks left, no trumps left (diamonds), the playing team seats 0 and 2.
    # Hearts 9 (seat 0), T (seat 2) and J (seat 1) can make a run on some line; the playing team
    # keeps the roem of a nat deal down by keeping its 9 and T apart: seat 0 holds the 7 of
    # hearts too, more hearts than one more than seat 2's trumps (none).
    deal = {"game": "klaverjas", "hands": ["AKQJT9.97..", "87.AKQJ8..K", ".T.AKQJT9.A", "..87.QJT987"],
            "trump": "D", "playing_team": 0, "rules": "rotterdam", "leader": 0}
    _, end, board = hand_made_endgame(deal, [{"9H", "7H"}, {"JH", "KC"}, {"TH", "AC"}, {"8C", "7C"}])
    assert board.roem_bound()[0] == 20                      # in all, on some line
    assert board.roem_bound(deny=True)[0] == 0              # against the playing team's best, never
    assert roem_game(end, None, {}) == 0
