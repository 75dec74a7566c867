"""The fast search agrees with itself: table sizes, table reuse across deals, modes, the ETC.

The transposition table keys carry the game's parameters (contract, trump,
objective, options), so a table shared by many different deals must never
change an answer; neither may a table too small to hold the search.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ddcards

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
