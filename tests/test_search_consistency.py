"""The fast search agrees with itself: table sizes, table reuse across deals, modes, the ETC,
and each move's value with the value of the position it leads to, on positions too large for
the plain references.

The transposition table keys carry the game's parameters (contract, trump,
objective, options), so a table shared by many different deals must never
change an answer; neither may a table too small to hold the search.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddcards

try:
    from tests.reference import klaverjas as kj_ref, marias as m_ref, mariasz as z_ref
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as kj_ref, marias as m_ref, mariasz as z_ref

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"


def corpus(contract: str, n: int) -> list[dict]:
    lines = (CORPUS / f"marias-{contract}.jsonl").read_text().splitlines()[:n]
    return [json.loads(line) for line in lines]


def answers(engine: ddcards.Solver, docs: list[dict], **kw) -> list[tuple]:
    out = []
    for doc in docs:
        res = engine.solve(doc, mode="all", **kw)
        out.append((res.value, tuple((m.move, m.value) for m in res.moves), tuple(res.pv)))
    return out


@pytest.fixture(scope="module")
def mixed() -> list[dict]:
    docs = corpus("hra", 12) + corpus("betl", 6) + corpus("durch", 4)
    # the same deals under other objectives and options, interleaved
    extra = []
    for doc in corpus("hra", 6):
        extra.append(dict(doc, objective="sedma"))
        extra.append(dict(doc, objective="kilo"))
        extra.append(dict(doc, options={"marriage_on_follow": True}))
    return [d for pair in zip(docs, extra + docs) for d in pair]


def test_tiny_table_gives_the_same_answers(mixed):
    assert answers(ddcards.Solver(tt_mb=1), mixed) == answers(ddcards.Solver(tt_mb=32), mixed)


def test_table_shared_across_deals_gives_the_same_answers(mixed):
    fresh = answers(ddcards.Solver(), mixed)
    shared = answers(ddcards.Solver(), mixed, keep_tt=True)
    assert shared == fresh


def test_value_modes_agree_on_full_deals():
    engine = ddcards.Solver()
    for doc in corpus("hra", 10) + corpus("betl", 5):
        every = engine.solve(doc, mode="all")
        optimal = engine.solve(doc, mode="optimal")
        best = engine.solve(doc, mode="best")
        assert every.value == optimal.value == best.value
        assert optimal.optimal_moves == every.optimal_moves
        assert best.optimal_moves[0] in every.optimal_moves
        assert max(m.value for m in every.moves) == every.value       # the declarer leads: max


def test_pv_reaches_the_value_on_full_deals():
    engine = ddcards.Solver()
    for doc in corpus("hra", 10):
        res = engine.solve(doc)
        assert len(res.pv) == 30
        assert res.scores["declarer"] - res.scores["defenders"] == res.value
        pos = ddcards.Position.from_dict(doc)
        for move in res.pv:                       # every card of the line is legal
            pos = pos.play(move)
        assert pos.is_over and engine.solve(pos).value == res.value


def mariasz_positions(stock_left: int, n: int) -> list[dict]:
    """The Mariasz ladder's two-player positions (36 cards, points) with `stock_left` cards in the stock."""
    out = []
    for line in (CORPUS / "mariasz-ladder.jsonl").read_text().splitlines():
        doc = json.loads(line)
        if len(doc["stock"].split()) - sum(a != "exchange" for a in doc["played"]) == stock_left:
            out.append(doc)
    return out[:n]


def test_the_etc_and_its_order_never_change_a_mariasz_answer():
    """Two-player Mariasz looks up every card's boundary before a trick's last card is searched
    (Board.etc_from): a settled one answers the node, the others order the cards.  Neither may
    change a value: the same positions searched without it give the same value and the same
    value for every first action, in a different number of nodes."""
    from ddcards._core.search import MODE_ALL, Searcher

    engine = Searcher(32)
    nodes_differ = 0
    for doc in mariasz_positions(6, 6) + mariasz_positions(8, 4):
        got = []
        for etc_on in (True, False):
            session = ddcards.Position.from_dict(doc).session()
            if etc_on:
                assert session.board.etc_from < 30000      # two players: on by default
            else:
                session.board.etc_from = 30000              # the core's VALUE_INF: never
            engine.clear()
            value, moves, _, nodes = session.search(engine, MODE_ALL, None, None)
            got.append(((value, sorted(moves)), nodes))
        assert got[0][0] == got[1][0], json.dumps(doc)
        nodes_differ += got[0][1] != got[1][1]
    assert nodes_differ >= 5, nodes_differ     # the look-ups did take part


def test_the_first_guess_never_changes_a_marias_answer():
    """A Hra search starts its null-window tests at the board's guess (marias.hra_guess, an
    estimate from the hands).  Wherever it starts, the value and every first card's value are
    the same: only the nodes differ."""
    from ddcards._core.search import MODE_ALL, Searcher

    engine = Searcher(32)
    # plain deals, the four-player form, marriages scored on follow, and positions with cards
    # already played (whose guess still comes from the hands as dealt)
    docs = corpus("hra", 8) + [dict(doc, players=4) for doc in corpus("hra", 2)] \
        + [dict(doc, options={"marriage_on_follow": True}) for doc in corpus("hra", 2)] \
        + [doc for doc in corpus("midgame", 40) if doc.get("contract") == "hra"
           and doc.get("objective", "hra") == "hra" and not doc.get("announcements")][:4]
    nodes_differ = 0
    own_guesses = set()
    for doc in docs:
        got = []
        for guess in (None, -250, 0, 70, 250):
            session = ddcards.Position.from_dict(doc).session()
            if guess is None:
                own_guesses.add(session.board.guess)
            else:
                session.board.guess = guess
            engine.clear()
            value, moves, _, nodes = session.search(engine, MODE_ALL, None, None)
            got.append(((value, sorted(moves)), nodes))
        assert all(g[0] == got[0][0] for g in got), json.dumps(doc)
        nodes_differ += len({g[1] for g in got}) > 1
    assert len(docs) == 16
    assert nodes_differ >= 10, nodes_differ
    assert len(own_guesses) >= 4, own_guesses      # the estimate, not one constant


def test_marias_own_search_is_the_cores(mixed):
    """Mariáš compiles the core's alpha-beta in its own module (GameOps.search), its functions
    inlined.  Searched by the core's copy instead, which calls it through GameOps
    (Board.own_search False), every position gives the same value, move values, line and node
    count: every objective and option, the four-player form, the money of announced parts,
    positions with cards already played, and the core's move-order switches that Mariáš leaves
    off (the ETC, killer leads, replies first, no history), which its copy compiles too.  Every
    fifth position is searched on two threads, where the value and the moves' values must
    agree (the line and the nodes follow the threads' timing)."""
    from ddcards._core.search import MODE_ALL, MODE_OPTIMAL, Searcher

    engines = [Searcher(32), Searcher(32)]
    docs = mixed[:16] + corpus("announced", 6) + corpus("mixed", 12) \
        + [dict(doc, players=4) for doc in corpus("hra", 3)] + corpus("midgame", 10)
    switches = [{}, {"etc_from": 1}, {"killer_leads": True}, {"reply_first": True}, {"history_leads": False},
                {"etc_from": 13, "reply_first": True}]
    for k, doc in enumerate(docs):
        got = []
        for own in (True, False):
            boards = [ddcards.Position.from_dict(doc).session() for _ in range(2)]
            for session in boards:
                assert session.board.has_own_search
                session.board.own_search = own
                for name, setting in switches[k % len(switches)].items():
                    setattr(session.board, name, setting)
            mode = MODE_ALL if k % 2 == 0 else MODE_OPTIMAL
            threads = 2 if k % 5 == 0 else 1
            helpers = [(engines[1], boards[1].board)] if threads == 2 else []
            engines[0].clear()
            value, moves, pv, nodes = boards[0].search(engines[0], mode, None, None, helpers=helpers)
            got.append((value, sorted(moves)) + ((pv, nodes) if threads == 1 else ()))
        assert got[0] == got[1], (json.dumps(doc), switches[k % len(switches)])
    assert len(docs) == 47


def test_the_hra_guess_reads_the_hands():
    from ddcards.games.marias import hra_guess

    # Trumps spades (suit 0).  Seat 0: AS TS KS QS 9S and AH TH: 4 A/T, 5 trumps, the trump
    # marriage.  Defenders: AD TD AC TC, 2 trumps, seat 1 the K and Q of clubs (20).  7.5 * 4 -
    # 15 * 4 + 15 * 5 - 4 * 2 + 0.9 * 40 - 0.6 * 20 = 61, rounded to 60.
    def mask(cards):
        power = {"7": 0, "8": 1, "9": 2, "J": 3, "Q": 4, "K": 5, "T": 6, "A": 7}
        return sum(1 << (8 * "SHDC".index(c[1]) + power[c[0]]) for c in cards)

    masks = [mask("AS TS KS QS 9S AH TH".split()), mask("AD TD KC QC".split()), mask("AC TC 8S 7S".split())]
    assert hra_guess(masks, 0) == 60
    # split between the two defenders, the K and Q are no marriage: 73, rounded to 70; with 20
    # talon points counted for the defenders, 53, rounded to 50
    masks = [masks[0], mask("AD TD KC 8S".split()), mask("AC TC QC 7S".split())]
    assert hra_guess(masks, 0) == 70
    assert hra_guess(masks, 0, talon_points=20) == 50


def large_position(rng: random.Random, game: str) -> dict:
    """A random position of `game` early in its deal: Klaverjas 7-8 tricks from the end (either
    rule set, a random trump, playing team and leader), Mariáš 9-10 tricks from the end (3 or 4
    players, every contract and objective), Mariasz from anywhere in a 24-card deal's stock or the
    last three draws of a 36-card one, Kiks and three players from a quarter of the way in, any
    objective."""
    if game == "klaverjas":
        return kj_ref.random_endgame(rng, rng.randint(7, 8), cards_in_trick=rng.randrange(4),
                                     rules=rng.choice(["amsterdam", "rotterdam"]), close=rng.choice([1, 3]))
    if game == "marias":
        contract = rng.choice(["hra", "hra", "betl", "durch"])
        objective = rng.choice([None, None, "sedma", "kilo"]) if contract == "hra" else None
        return m_ref.random_endgame(rng, contract, rng.randint(9, 10), cards_in_trick=rng.randrange(3),
                                    players=rng.choice([3, 3, 4]), objective=objective)
    variant = rng.choice(["standard", "standard", "kiks", "three"])
    doc = z_ref.random_deal(rng, variant=variant, szlifowany=variant != "kiks" and rng.random() < 0.7)
    if rng.random() < 0.4:
        doc["objective"] = "race"
        doc["start_scores"] = [rng.randrange(0, 120) for _ in range(3 if variant == "three" else 2)]
    if "stock" not in doc:
        cards = sum(len(hand.replace(".", "")) for hand in doc["hands"])
        return z_ref.random_history(rng, doc, rng.randrange(cards // 4, cards - 2))
    stock = len(doc["stock"].split())
    szlifowany = doc["options"].get("szlifowany", False)
    plies = rng.randrange(0, stock + 8) if szlifowany else rng.randrange(stock - 3, stock + 8)
    return z_ref.random_history(rng, doc, plies)


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(["klaverjas", "marias", "mariasz"]))
def test_each_move_is_worth_the_position_it_leads_to(seed, game):
    """On positions too large for the references: each move's value (mode all) is the value of
    the position after it, searched afresh; the value is the best move's; modes optimal and best
    and two threads give the same answers."""
    rng = random.Random(seed)
    doc = large_position(rng, game)
    pos = ddcards.Position.from_dict(doc)
    text = json.dumps(doc, ensure_ascii=False)
    engine = ddcards.Solver()
    every = engine.solve(pos, mode="all")
    values = {m.move: m.value for m in every.moves}
    if not values:
        assert pos.is_over, text
        return
    assert sorted(values) == sorted(pos.legal_moves), text
    assert every.value in values.values(), text
    assert set(every.optimal_moves) == {m for m, v in values.items() if v == every.value}, text
    optimal = engine.solve(pos, mode="optimal")
    best = engine.solve(pos, mode="best")
    assert optimal.value == best.value == every.value, text
    assert set(optimal.optimal_moves) == set(every.optimal_moves), text
    assert best.optimal_moves[0] in every.optimal_moves, text
    two = engine.solve(pos, mode="all", threads=2)
    assert (two.value, {m.move: m.value for m in two.moves}) == (every.value, values), text
    for move in rng.sample(sorted(values), min(3, len(values))):
        child = pos.play(move)          # (a finished deal's value is its outcome)
        assert ddcards.Solver().value(child) == values[move], (text, move)
