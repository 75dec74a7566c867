"""Differential test: the fast Prší solver against the plain-Python reference (tests/reference/prsi.py).

Random positions — 2 to 6 players, both variants, 7 chains and aces pending, stocks about to
run out and piles turned over, players out or waiting on a return — are solved by both within
a short horizon; the side to move, the legal actions, the value, its distance and every
action's value and distance must agree.  A failure prints the position document, so it can be
replayed with ``ddcards.solve(doc)`` and ``reference.solve(*reference.from_document(doc))``.
"""
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards
from ddcards.games import _prsi

try:
    from tests.reference import prsi as ref
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import prsi as ref

seeds = st.integers(0, 2**32 - 1)


def _fmt(cards):
    return ".".join("".join(r for r in "AKQJT987" if r + s in cards) for s in "SHDC")


def random_position(rng, seats=None, *, steps=None, draw_bias=None, stop=None, play_on=None, comeback=None,
                    horizon=None):
    """A position document reached by random legal play from a random deal.

    draw_bias: how often a player draws when he may; stop(state) -> True ends the history there.
    """
    seats = seats or rng.choice([2, 2, 3, 4])
    deck = list(ref.DECK)
    rng.shuffle(deck)
    hands = [deck[4 * i:4 * i + 4] for i in range(seats)]
    upcard, stock = deck[4 * seats], deck[4 * seats + 1:]
    rules = ref.Rules(seats, rng.random() < 0.3 if play_on is None else play_on,
                      rng.random() < 0.3 if comeback is None else comeback)
    state = ref.start(hands, stock, upcard)
    played = []
    bias = rng.choice([0.1, 0.4, 0.7, 0.95]) if draw_bias is None else draw_bias
    for _ in range(rng.randrange(0, 70) if steps is None else steps):
        if stop is not None and stop(state):
            break
        actions = ref.legal_actions(state)
        action = "draw" if "draw" in actions and rng.random() < bias else rng.choice(actions)
        after = ref.play(rules, state, action)
        if after.done:
            break
        state = after
        played.append(action)
    # Short horizons: the reference's plain minimax grows ~10x a ply with big hands.
    options = {"horizon": horizon or rng.choice([1, 2, 3, 3, 4, 4]), "player": rng.randrange(seats),
               "play_on": rules.play_on, "return": rules.comeback}
    doc = {"game": "prsi", "hands": [_fmt(h) for h in hands], "upcard": upcard, "stock": " ".join(stock),
           "options": options, "played": played}
    return doc, state


def check(doc):
    text = json.dumps(doc)
    rules, state, player, horizon = ref.from_document(doc)
    want = ref.solve(rules, state, player, horizon)
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == (None if state.done else state.turn), text
    assert sorted(pos.legal_moves) == sorted(ref.legal_actions(state)), text
    res = ddcards.solve(pos, mode="all")
    assert (res.value, res.distance) == ref.report(want["value"], horizon, rules.seats), text
    got = {m.move: (m.value, m.distance) for m in res.moves}
    assert got == {a: ref.report(v, horizon, rules.seats) for a, v in want["moves"].items()}, text
    best = {a for a, v in want["moves"].items() if v == want["value"]}
    assert set(res.optimal_moves) == best, text
    assert res.horizon == horizon, text
    return res


def test_the_examples():
    for name in ("prsi", "prsi-endgame", "prsi-4players"):
        doc = ddcards.example(name)
        check(dict(doc, options=dict(doc.get("options", {}), horizon=5)))


@settings(deadline=None, max_examples=1000)
@given(seeds)
def test_two_players(seed):
    check(random_position(random.Random(seed), 2)[0])


@settings(deadline=None, max_examples=500)
@given(seeds, st.sampled_from([3, 4]))
def test_three_and_four_players(seed, seats):
    check(random_position(random.Random(seed), seats, horizon=random.Random(seed).randrange(1, 5))[0])


@settings(deadline=None, max_examples=200)
@given(seeds, st.sampled_from([5, 6]))
def test_five_and_six_players(seed, seats):
    """Five and six seats: a stock of 11 or 7 cards that turns over soon, and the wider table key."""
    check(random_position(random.Random(seed), seats, horizon=random.Random(seed).randrange(1, 5))[0])


@settings(deadline=None, max_examples=400)
@given(seeds)
def test_special_cards_pending(seed):
    rng = random.Random(seed)
    doc, state = random_position(rng, stop=lambda s: (s.sevens or s.ace) and rng.random() < 0.7)
    check(doc)


@settings(deadline=None, max_examples=400)
@given(seeds, st.integers(0, 4))
def test_the_pile_about_to_turn_over(seed, left):
    """Draw-heavy play until the stock holds `left` cards or fewer (also after a turnover)."""
    rng = random.Random(seed)
    doc, state = random_position(rng, steps=200, draw_bias=0.85, horizon=rng.randrange(1, 4),
                                 stop=lambda s: len(s.stock) <= left and rng.random() < 0.5)
    check(doc)


@settings(deadline=None, max_examples=300)
@given(seeds)
def test_variants_with_players_out(seed):
    """play_on and return, with histories that run until someone is out or waiting on a return."""
    rng = random.Random(seed)
    doc, state = random_position(rng, rng.choice([3, 4]), steps=120, draw_bias=0.05,
                                 play_on=rng.random() < 0.7, comeback=rng.random() < 0.6,
                                 stop=lambda s: (s.out or s.waiting is not None) and rng.random() < 0.6)
    check(doc)


@settings(deadline=None, max_examples=150)
@given(seeds)
def test_finished_games_report_the_seat_who_started(seed):
    """A history played to the end, `player` left out: the value is the leader's (RULES §4.9)."""
    rng = random.Random(seed)
    seats = rng.choice([2, 3, 4])
    deck = list(ref.DECK)
    rng.shuffle(deck)
    hands = [deck[4 * i:4 * i + 4] for i in range(seats)]
    upcard, stock = deck[4 * seats], deck[4 * seats + 1:]
    leader = rng.randrange(seats)
    rules = ref.Rules(seats, rng.random() < 0.4, rng.random() < 0.4)
    state, played = ref.start(hands, stock, upcard, leader), []
    while not state.done and len(played) < 400:
        actions = ref.legal_actions(state)
        action = rng.choice([a for a in actions if a != "draw"] or actions)
        state = ref.play(rules, state, action)
        played.append(action)
    if not state.done:              # a rare endless line: nothing to check here
        return
    doc = {"game": "prsi", "hands": [_fmt(h) for h in hands], "upcard": upcard, "stock": " ".join(stock),
           "leader": leader, "options": {"horizon": 2, "play_on": rules.play_on, "return": rules.comeback},
           "played": played}
    res = check(doc)
    assert ref.from_document(doc)[2] == leader
    assert res.value == ref.outcome(rules, state, leader), json.dumps(doc)


# ---------------------------------------------------------------- the exact analysis on small games

def mini_state(rng, seats, size):
    """A small game (not a deal: `size` cards only), as the reference's State and the board's bytes."""
    cards = rng.sample(ref.DECK, size)
    top, rest = cards[0], cards[1:]
    hands = [[] for _ in range(seats)]
    for i in range(seats):
        hands[i].append(rest[i])
    queue = []
    for c in rest[seats:]:
        (hands[rng.randrange(seats)] if rng.random() < 0.5 else queue).append(c)
    sevens = 1 if top[0] == "7" and rng.random() < 0.5 else 0
    ace = top[0] == "A" and rng.random() < 0.5
    suit = rng.choice("SHDC") if top[0] == "Q" else top[1]
    turn = rng.randrange(seats)
    state = ref.State(hands=tuple(frozenset(h) for h in hands), stock=tuple(queue), pile=(top,), suit=suit,
                      sevens=sevens, ace=ace, turn=turn, out=frozenset(), waiting=None, finished=(), done=False)
    code = {c: "SHDC".index(c[1]) * 8 + "789TJQKA".index(c[0]) for c in ref.DECK}
    # PrsiBoard.pack's layout: top, suit, sevens, ace, turn, pending_out + 1, out, first_out + 1, done,
    # the hands (4 bytes each), the queue.
    packed = bytes([code[top], "SHDC".index(suit), sevens, int(ace), turn, 0, 0, 0, 0])
    packed += b"".join(sum(1 << code[c] for c in h).to_bytes(4, "little") for h in hands)
    packed += bytes(code[c] for c in queue)
    return state, packed


@settings(deadline=None, max_examples=200)
@given(seeds, st.sampled_from([2, 2, 3]))
def test_exact_analysis_of_small_games(seed, seats):
    from ddcards.games import prsi

    rng = random.Random(seed)
    rules = ref.Rules(seats, rng.random() < 0.3, rng.random() < 0.3)
    # Small enough for the reference's exact analysis (a few thousand states at most).
    state, packed = mini_state(rng, seats, rng.choice([4, 5, 5, 6]) if seats == 2 else 5)
    player = rng.randrange(seats)
    want = ref.exact(rules, state, player)
    value, moves, pv, states = prsi.exact_graph(packed, seats, rules.play_on, rules.comeback, player)
    # The same game graph: the reference tells apart states that differ only in where the stock
    # ends and the pile begins (the same queue to draw from), and in who went out second.
    assert states == len({(s.hands, s.stock + s.pile, s.suit, s.sevens, s.ace, s.turn, s.out, s.waiting,
                           s.finished[:1], s.done) for s in want})
    o, d = want[state]
    assert prsi.decode_exact(value) == (o, d if o else None), (seed, state)
    for action, v in moves:
        child = ref.play(rules, state, _action_name(action))
        o, d = want[child]
        assert prsi.decode_exact(v) == (o, d + 1 if o else None), (seed, state, action)
    if value == 0:
        assert pv, "a drawn game has a line that goes round"


def _action_name(move):
    if move == _prsi.MOVE_DRAW:
        return "draw"
    if move == _prsi.MOVE_PASS:
        return "pass"
    if move >= _prsi.MOVE_OBER:
        return f"Q{'SHDC'[(move - 32) >> 2]}/{'SHDC'[(move - 32) & 3]}"
    return "789TJQKA"[move & 7] + "SHDC"[move >> 3]


# ---------------------------------------------------------------- the table at long horizons

CORPUS = __import__("pathlib").Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"


def corpus(name, n):
    return [json.loads(line) for line in (CORPUS / f"prsi-{name}.jsonl").read_text().splitlines()[:n]]


def raw_answer(doc, searcher, probe=True):
    from ddcards._core.search import MODE_ALL

    session = ddcards.Position.from_dict(doc).session()
    session.board.probe = probe
    value, moves, pv, _ = session.search(searcher, MODE_ALL, None, None)
    return value, sorted(moves)


def test_the_table_never_changes_an_answer():
    """The keys are exact: at horizons the reference cannot reach, a search that probes the table
    answers as one that does not (values coded with their distance, every action's)."""
    from ddcards._core.search import Searcher

    for name, horizon, n in (("fresh-2", 24, 20), ("fresh-3", 22, 20), ("fresh-4", 26, 20), ("midgame", 20, 40)):
        for doc in corpus(name, n):
            doc = dict(doc, options=dict(doc.get("options", {}), horizon=horizon))
            assert raw_answer(doc, Searcher(2)) == raw_answer(doc, Searcher(2), probe=False), json.dumps(doc)


def test_a_shared_table_never_changes_an_answer():
    """One table across deals, horizons and players (keys carry the deal, plies left and P)."""
    from ddcards._core.search import Searcher

    shared = Searcher(2)
    docs = corpus("fresh-2", 8) + corpus("midgame", 8)
    for doc in docs:
        for player in range(len(doc["hands"]))[:3]:
            for horizon in (12, 18):
                d = dict(doc, options=dict(doc.get("options", {}), horizon=horizon, player=player))
                assert raw_answer(d, shared) == raw_answer(d, Searcher(2)), json.dumps(d)
