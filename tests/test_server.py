"""End-to-end tests of the gRPC service against a real server on an ephemeral loopback port.

Every value is checked against ``ddcards.solve`` / ``ddcards.analyse`` on the same
position. Timing assertions are only generous bounds for promptness.
"""
from __future__ import annotations

import json
from pathlib import Path
import logging
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

import ddcards

from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc  # noqa: E402

from _long_search import ENDLESS  # noqa: E402
from _server_helpers import marias_deal, marias_position, running_server, wait_until  # noqa: E402
from ddcards.server import convert  # noqa: E402
from ddcards.v1 import ddcards_pb2 as pb  # noqa: E402
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc  # noqa: E402
from ddcards.client import Client, error_details  # noqa: E402
from ddcards.errors import DdcardsError  # noqa: E402

# Full deals among the slowest of the seeded corpus (tens of ms each in mode "all"):
# long enough to be mid-search when a tiny deadline or a cancel arrives; a
# stream of many of them keeps a worker busy for seconds.
HARD_SET = [marias_deal(95, trump="H"), marias_deal(79, trump="H"), marias_deal(142, trump="S"),
            marias_deal(180, trump="H"), marias_deal(147, trump="S"), marias_deal(168, trump="S")]
# One search long enough (~0.1 s here) that a cancel or a tiny deadline surely lands inside it:
# a Klaverjas full deal, every first card's exact value.
HARD = json.loads((Path(__file__).resolve().parent.parent / "benchmarks" / "corpus" /
                   "klaverjas-amsterdam.jsonl").read_text().splitlines()[0])
LONG_STREAM = HARD_SET * 8
# ENDLESS (tests/_long_search.py) outlasts any test, for the tests whose point needs a search
# running while they act: the queue's bounds, a cancel. They cancel it at the end.
# Positions a few tricks into the play: quick, exact, varied.
SEEDS = [(1, 5), (2, 6), (3, 4), (4, 7), (5, 5), (6, 6)]


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server):
    with Client(f"127.0.0.1:{server.port}", timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def positions():
    return [marias_position(seed, tricks) for seed, tricks in SEEDS]


def _direct(doc, mode="all"):
    return ddcards.solve(ddcards.Position.from_dict(doc), mode=mode)


def _messages(caplog) -> list[str]:
    """The log lines caplog has caught. A test picks its own calls' lines by what they hold: the
    other servers alive in its process (other tests' module fixtures, under pytest-xdist) may log
    a call of theirs meanwhile, one whose search outlived its deadline."""
    return [r.getMessage() for r in caplog.records]


def _quick_doc():
    return marias_position(99, 8)


# ---------------------------------------------------------------- Solve


@pytest.mark.parametrize("mode", ["all", "optimal", "best"])
def test_solve_matches_the_library(client, positions, mode):
    for doc in positions:
        got = client.solve(doc, mode=mode)
        want = _direct(doc, mode)
        assert got["value"] == want.value
        assert got["scores"] == want.scores
        assert got["won"] == want.won
        assert got["settlement"] == list(want.settlement)
        assert got["to_move"] == want.to_move
        assert got["outcomes"] == dict(want.outcomes)
        assert got["mode"] == mode
        if mode == "best":
            all_optimal = set(_direct(doc, "all").optimal_moves)
            assert len(got["optimal_moves"]) == 1 and set(got["optimal_moves"]) <= all_optimal
            assert len(got["moves"]) == 1 and got["moves"][0]["optimal"]
        else:
            assert set(got["optimal_moves"]) == set(want.optimal_moves)
            assert {m["move"]: (m["value"], m["optimal"]) for m in got["moves"]} == {
                m.move: (m.value, m.optimal) for m in want.moves}
        # The principal variation is a legal line that starts with an optimal move.
        assert got["pv"] and got["pv"][0] in set(_direct(doc, "all").optimal_moves)
        position = ddcards.Position.from_dict(doc)
        for move in got["pv"]:
            position = position.play(move)


def test_solve_all_values_every_legal_move(client, positions):
    doc = positions[0]
    got = client.solve(doc, mode="all", as_dict=False)
    legal = set(map(str, ddcards.Position.from_dict(doc).legal_moves))
    assert {m.move.notation for m in got.moves} == legal
    assert all(m.HasField("value") for m in got.moves)
    best = max(m.value for m in got.moves) if got.to_move == 0 else min(m.value for m in got.moves)
    assert got.value == best
    assert {m.move.notation for m in got.moves if m.optimal} == {a.notation for a in got.optimal_moves}
    # Cards come both as notation and structured.
    card = got.optimal_moves[0].card
    assert card.rank and card.suit and convert.RANK_LETTERS[card.rank] + convert.SUIT_LETTERS[card.suit] == card.notation
    assert got.game == pb.GAME_MARIAS and got.game_name == "marias" and got.nodes > 0


def test_position_forms_agree(client, positions):
    """Notation, structured cards + enums, and the JSON document give the same answer."""
    doc = positions[1]
    by_doc = client.solve(doc)
    by_json = client.solve(json.dumps(doc))
    structured = pb.Position(game=pb.GAME_MARIAS, contract=pb.CONTRACT_HRA,
                             trump=convert.name_to_enum(pb.Suit, {"S": "spades", "H": "hearts", "D": "diamonds",
                                                                  "C": "clubs"}[doc["trump"]]))
    for hand in doc["hands"]:
        cards = [pb.Card(notation=r + s) for s, ranks in zip("SHDC", hand.split(".")) for r in ranks]
        structured.hands.add(cards=cards)
    structured.talon.cards.extend(convert.card_message(c) for c in doc["talon"].split())
    for move in doc["played"]:
        structured.played.add(card=convert.card_message(move))
    by_struct = client.solve(structured)
    by_position = client.solve(ddcards.Position.from_dict(doc))
    for other in (by_json, by_struct, by_position):
        assert other["value"] == by_doc["value"] and other["scores"] == by_doc["scores"]
        assert set(other["optimal_moves"]) == set(by_doc["optimal_moves"])


def test_solve_with_an_alias_and_the_enum(client, positions):
    doc = positions[2]
    message = convert.doc_to_position(doc)
    message.game_name = "mariáš"
    message.game = pb.GAME_MARIAS
    got = client.solve(message)
    assert got["value"] == _direct(doc).value and got["game"] == "marias"


@pytest.mark.parametrize("name", ddcards.example_names())
def test_every_shipped_example_solves_as_in_the_library(client, name):
    """Every game's example positions go through the same service code (no per-game code)."""
    doc = ddcards.example(name)
    doc = doc.to_dict() if hasattr(doc, "to_dict") else doc
    for mode in ("all", "best"):
        got = client.solve(doc, mode=mode)
        want = _direct(doc, mode)
        assert got["game"] == want.game and got["value"] == want.value and got["scores"] == want.scores
        # whose value it is and what it means, in the game's words for this deal
        assert (got["value_owner"], got["value_meaning"]) == (want.value_owner, want.value_meaning)
        assert want.value_meaning
        if mode == "all":
            assert {m["move"]: m["value"] for m in got["moves"]} == {m.move: m.value for m in want.moves}


# ---------------------------------------------------------------- AnalysePlay


def test_analyse_play_matches_the_library(client):
    doc = marias_position(21, 10)  # a whole recorded deal
    got = client.analyse(doc)
    want = ddcards.analyse(ddcards.Position.from_dict(doc))
    assert got["initial_value"] == want.initial_value and got["final_value"] == want.final_value
    assert len(got["steps"]) == len(want.steps) == len(doc["played"])
    for g, w in zip(got["steps"], want.steps):
        assert (g["ply"], g["seat"], g["move"], g["value_before"], g["value_after"], g["cost"], g["mistake"]) == (
            w.ply, w.seat, str(w.move), w.value_before, w.value_after, w.cost, w.mistake)
        assert set(g["best_moves"]) == set(map(str, w.best_moves))
    assert got["mistakes"] == [m.ply for m in want.mistakes]
    assert got["mistakes"] == [s["ply"] for s in got["steps"] if s["mistake"]]


@pytest.mark.parametrize("name, mode", [("marias", "all"), ("mariasz-recorded", "optimal"),
                                        ("prsi-endgame", "all")])
def test_analyse_play_steps_carry_what_the_library_says(client, name, mode):
    """Every field of a step (outcome, trick winner, score, every move's value in mode all)
    arrives as ddcards.analyse gives it (RULES §0.10)."""
    doc = marias_position(21, 10) if name == "marias" else ddcards.example(name)
    got = client.analyse(doc, mode=mode)
    want = ddcards.analyse(doc, mode=mode).to_dict()
    for g, w in zip(got["steps"], want["steps"], strict=True):
        assert g == dict(w, best_moves=g["best_moves"]) and set(g["best_moves"]) == set(w["best_moves"])
    assert any(s["trick_winner"] is not None for s in got["steps"]) == (name != "prsi-endgame")
    assert all(s["moves"] for s in got["steps"]) == (mode == "all")
    assert got["initial_outcome"] == want["initial_outcome"] and got["final"]["value"] == want["final"]["value"]


def test_typed_fields_replace_extras_for_foreign_clients(client):
    """Prší's distance and horizon are typed fields; a null field of the document is not in
    extra; a Cards from a response reads back in a request."""
    prsi = client.solve(ddcards.example("prsi-endgame"), mode="best", as_dict=False)
    assert (prsi.distance, prsi.horizon) == (11, 20) and not prsi.HasField("extra")
    # whose value it is, typed (Prší's flips with the player to move unless options.player says)
    assert prsi.value_owner == "seat 0"
    endgame = ddcards.example("prsi-endgame")
    other = client.solve(dict(endgame, options=dict(endgame["options"], player=1)), mode="best", as_dict=False)
    assert (other.value_owner, other.value) == ("seat 1", -prsi.value)
    assert client.analyse(endgame)["value_owner"] == "seat 0"
    # and what the values mean, typed: the game's words for this deal
    assert prsi.value_meaning == ddcards.solve(endgame, mode="best").value_meaning
    assert prsi.value_meaning.startswith("+1 forces a win")
    # a game settled by parts, typed
    money = client.solve(dict(ddcards.example("marias-hra"), objective="money", announcements=["kilo"]), mode="best",
                          as_dict=False)
    assert {k: (p.won, p.stake, p.money) for k, p in money.parts.items()} == {"hra": (True, 2, 4),
                                                                            "kilo": (True, 4, 8)}
    assert not money.HasField("extra")
    # an analysis's outcome fields and its final solve, typed
    seed = ddcards.example("marias-seed")
    analysis = client.analyse(seed, as_dict=False)
    want = ddcards.analyse(seed)
    assert (analysis.initial_outcome, analysis.final_outcome) == (want.initial_outcome, want.final_outcome)
    assert list(analysis.outcome_mistakes) == [s.ply for s in want.outcome_mistakes]
    assert analysis.final.value == want.final.value and analysis.final.value_owner == "declarer"
    assert analysis.value_meaning == analysis.final.value_meaning == want.value_meaning
    assert "the defenders'" in analysis.value_meaning
    marias = client.solve(ddcards.example("marias-hra"), mode="best", as_dict=False)
    assert not marias.HasField("distance") and not marias.HasField("horizon") and not marias.HasField("extra")
    assert client.solve(ddcards.example("prsi-endgame"), mode="best")["distance"] == 11
    table = client.solve_table(ddcards.example("marias-hra"), as_dict=False)
    assert [c.notation for c in table.talon.cards] == table.talon.notation.split() and len(table.talon.cards) == 2
    assert len(table.hands[0].cards) == 10 and table.hands[0].notation
    position = pb.Position(game_name="marias", contract_name="hra", trump=pb.SUIT_HEARTS, hands=table.hands,
                           talon=table.entries[0].discard)
    again = client.stub.Solve(pb.SolveRequest(position=position, mode=pb.SOLVE_MODE_BEST), timeout=30)
    assert again.value == table.entries[0].value


def test_a_text_history_goes_through_the_client(client):
    """played as one text (RULES §0.7 rule 1), a printed line included, as the library reads it."""
    doc = dict(ddcards.example("marias-hra"), played="AH 8H JS | AS, QS 9S")
    assert client.solve(doc, mode="best")["value"] == ddcards.solve(doc, mode="best").value
    assert [s["move"] for s in client.analyse(doc)["steps"]] == ["AH", "8H", "JS", "AS", "QS", "9S"]
    with pytest.raises(grpc.RpcError) as err:
        client.analyse(ddcards.example("marias-seed"), mode=7)
    assert "use SOLVE_MODE_OPTIMAL (2) or SOLVE_MODE_ALL (3)" in err.value.details()
    assert "BEST" not in err.value.details()


def test_analyse_play_refuses_mode_best(client):
    with pytest.raises(grpc.RpcError) as err:
        client.stub.AnalysePlay(pb.AnalysePlayRequest(mode=pb.SOLVE_MODE_BEST,
                                                      document_json=json.dumps(marias_position(21, 10))))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not SOLVE_MODE_BEST" in err.value.details() and "§0.10" in err.value.details()
    assert error_details(err.value)["field"] == "mode"


def test_analyse_play_stream_sends_each_step_then_the_analysis(client):
    """AnalysePlayStream: the steps in play order, each as AnalysePlay has it, then the whole analysis."""
    seed = ddcards.example("marias-seed")
    whole = client.analyse(seed, mode="all")
    events = list(client.analyse_stream(seed, mode="all"))
    assert [list(e) for e in events] == [["step"]] * 30 + [["analysis"]]
    assert [e["step"] for e in events[:-1]] == whole["steps"]

    def unmeasured(doc):        # but the search's figures
        return {k: unmeasured(v) if k == "final" else v for k, v in doc.items() if k not in ("elapsed_ms", "nodes")}
    assert unmeasured(events[-1]["analysis"]) == unmeasured(whole)
    messages = list(client.analyse_stream(seed, from_ply=28, as_dict=False))
    assert [m.WhichOneof("event") for m in messages] == ["step", "step", "analysis"]
    assert [m.step.ply for m in messages[:2]] == [28, 29] and messages[-1].analysis.from_ply == 28
    assert messages[-1].analysis.nodes > 0
    # a request AnalysePlay refuses is refused before any message, as there
    with pytest.raises(grpc.RpcError) as err:
        next(client.analyse_stream(dict(seed, played=["ZZ"])))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_details(err.value)["field"] == "position.played[0]"
    request = pb.AnalysePlayStreamRequest(mode=pb.SOLVE_MODE_BEST, document_json=json.dumps(seed))
    with pytest.raises(grpc.RpcError) as err:
        next(client.stub.AnalysePlayStream(request))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_details(err.value)["field"] == "mode"


def test_the_client_refuses_a_mode_an_analysis_does_not_take_when_it_is_called(client):
    """Client.analyse / analyse_stream: "best" (the server refuses it) and an unknown name are
    refused at the call, naming the modes an analysis takes; analyse_stream's came only with the
    first next(), and an unknown name's message suggested "best"."""
    seed = ddcards.example("marias-seed")
    for call in (client.analyse, client.analyse_stream):
        with pytest.raises(DdcardsError, match="not best") as err:
            call(seed, mode="best")
        assert err.value.field == "mode"
        with pytest.raises(DdcardsError) as err:
            call(seed, mode="bogus")
        assert str(err.value).startswith("unknown analysis mode 'bogus': use optimal or all (")
        assert "best" not in str(err.value) and err.value.token == "bogus"


def test_a_mode_number_the_enum_lacks_goes_to_the_server_which_refuses_it(client):
    """docs/SERVICE.md: a name the call does not take is refused at the call; a number goes as it
    is, as the receiver checks enum numbers, and one the enum lacks is the server's INVALID_ARGUMENT."""
    seed = ddcards.example("marias-seed")
    for call in (client.solve, client.analyse):
        with pytest.raises(grpc.RpcError) as err:
            call(seed, mode=9)
        assert isinstance(err.value, grpc.RpcError) and not isinstance(err.value, DdcardsError)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and error_details(err.value)["field"] == "mode"
        # the enum's own names, as a client in any language has them (not Python's "best")
        assert "SOLVE_MODE_OPTIMAL (2) or SOLVE_MODE_ALL (3)" in err.value.details()
    assert client.solve(seed, mode=pb.SOLVE_MODE_BEST)["mode"] == "best"


def _search_hook(monkeypatch, at_call, action):
    """Run `action()` at the `at_call`-th search of a (Klaverjas) position of this process."""
    from ddcards.games.base import Session
    search, calls = Session.search, []

    def counted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == at_call:
            action()
        return search(self, *args, **kwargs)
    monkeypatch.setattr(Session, "search", counted)


def test_analyse_play_stream_sends_a_step_while_the_analysis_goes_on(client, monkeypatch):
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])
    go_on = threading.Event()
    _search_hook(monkeypatch, 4, lambda: go_on.wait(30))    # after the steps of plies 0 and 1
    stream = client.analyse_stream(doc)
    first = [next(stream)["step"]["ply"], next(stream)["step"]["ply"]]
    assert first == [0, 1] and not go_on.is_set()          # sent while the analysis waits
    go_on.set()
    rest = list(stream)
    assert [e["step"]["ply"] for e in rest[:-1]] == list(range(2, 10)) and "analysis" in rest[-1]


def test_a_stopped_analysis_stream_has_sent_the_steps_before_it(client, monkeypatch):
    """A long deal's analysis stopped by its time limit: the steps sent stay the client's, then
    the stream ends with DEADLINE_EXCEEDED saying how far it got."""
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])
    want = ddcards.analyse(doc).to_dict()["steps"]

    def time_is_up():
        raise ddcards.SearchTimeout("the search ran out of time")
    _search_hook(monkeypatch, 5, time_is_up)               # the start, the steps of plies 0 to 2, then ply 3's
    got = []
    with pytest.raises(grpc.RpcError) as err:
        for event in client.analyse_stream(doc):
            got.append(event["step"])
    assert got == want[:3]
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert "the analysis ran out of time after" in err.value.details()
    assert "with 3 of the 10 recorded actions analysed" in err.value.details()


def test_an_analysis_stream_logs_the_steps_it_sent_as_its_items(client, caplog, monkeypatch):
    """A stream's log line says items=N, the items it sent; an AnalysePlayStream said items=0 of
    every call, the 30 steps of a whole analysis as the 3 of one stopped by its deadline."""
    def stream_lines(*parts):
        # (this call's lines: the other servers of this test process may log a late call meanwhile)
        return [m for m in _messages(caplog) if "rpc method=AnalysePlayStream " in m and all(p in m for p in parts)]

    whole_call = (" game=marias status=OK ",)
    stopped_call = (" game=klaverjas status=DEADLINE_EXCEEDED ",)
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        assert len(list(client.analyse_stream(ddcards.example("marias-seed")))) == 31
        assert wait_until(lambda: len(stream_lines(*whole_call)) == 1, timeout=5), stream_lines()
        deal = ddcards.example("klaverjas")
        doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])

        def time_is_up():
            raise ddcards.SearchTimeout("the search ran out of time")
        _search_hook(monkeypatch, 5, time_is_up)               # the start, the steps of plies 0 to 2, then ply 3's
        with pytest.raises(grpc.RpcError):
            list(client.analyse_stream(doc))
        assert wait_until(lambda: len(stream_lines(*stopped_call)) == 1, timeout=5), stream_lines()
    (whole,), (stopped,) = stream_lines(*whole_call), stream_lines(*stopped_call)
    assert " game=marias status=OK " in whole and " items=30 " in whole, whole
    assert " status=DEADLINE_EXCEEDED " in stopped and " items=3 " in stopped, stopped
    assert int(re.search(r" nodes=(\d+) ", stopped).group(1)) > 0, stopped


def test_analyse_play_from_a_later_ply(client):
    """from_ply: the steps from played[k] on, as the library gives them; out of the record's
    range INVALID_ARGUMENT naming the field; what no int32 holds is refused before sending."""
    seed = ddcards.example("marias-seed")
    got = client.analyse(seed, from_ply=24)
    want = ddcards.analyse(seed, from_ply=24).to_dict()
    assert got["from_ply"] == 24 and [s["ply"] for s in got["steps"]] == list(range(24, 30))
    assert (got["initial_value"], got["final_value"], got["mistakes"]) == \
        (want["initial_value"], want["final_value"], want["mistakes"]) == (70, 50, [24])
    assert client.analyse(seed, as_dict=False).from_ply == 0
    for bad in (-1, 31):
        with pytest.raises(grpc.RpcError) as err:
            client.analyse(seed, from_ply=bad)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"from_ply is a whole number from 0 to 30, the recorded actions (got {bad}" in err.value.details()
        assert error_details(err.value)["field"] == "from_ply"
    for bad in ("3", True, 1 << 40):
        with pytest.raises(ddcards.DdcardsError, match="from_ply is a whole number") as refused:
            client.analyse(seed, from_ply=bad)
        assert refused.value.field == "from_ply"


# ---------------------------------------------------------------- SolveStream


def test_solve_stream_returns_every_item(client, positions):
    docs = list(positions) + [dict(positions[0], talon="ZZ 8D")]
    ids = [f"item-{i}" for i in range(len(docs))]
    outcomes = list(client.solve_many(docs, mode="all", ids=ids))
    assert sorted(o["index"] for o in outcomes) == list(range(len(docs)))
    for outcome in outcomes:
        i = outcome["index"]
        assert outcome["id"] == ids[i]
        if i == len(docs) - 1:
            assert outcome["error"]["code"] == "INVALID_ARGUMENT" and "ZZ" in outcome["error"]["message"]
            continue
        want = _direct(docs[i])
        assert outcome["result"]["value"] == want.value
        assert set(outcome["result"]["optimal_moves"]) == set(want.optimal_moves)


def test_solve_stream_empty(client):
    assert list(client.solve_many([])) == []


# ---------------------------------------------------------------- SolveTable

def test_solve_table_klaverjas(client):
    from ddcards.ddtable import dd_table

    deal = ddcards.example("klaverjas")
    table = client.solve_table(deal)
    assert table["game"] == "klaverjas" and table["rules"] == "amsterdam"
    assert table["values"] == dd_table(deal)["values"]
    # the client's table is dd_table's, the hands too: a row's own position is made of it (it lacked
    # them, and row_position could not be used on it)
    direct = dd_table(deal)
    assert {k: v for k, v in table.items() if k not in ("nodes", "elapsed_ms")} == \
        {k: v for k, v in direct.items() if k not in ("nodes", "elapsed_ms")}
    from ddcards.ddtable import row_position
    assert _direct(row_position(table, ("H", 0))).value == table["values"]["H"][0]
    # each entry is the value of that contract solved on its own
    assert table["values"]["S"][1] == _direct(dict(deal, trump="S", playing_team=1)).value
    message = client.solve_table(json.dumps(deal), as_dict=False)
    assert len(message.entries) == 8
    assert [(e.trump, e.playing_team) for e in message.entries[:2]] == [(pb.SUIT_SPADES, 0), (pb.SUIT_SPADES, 1)]


def test_solve_table_bad_requests(client):
    with pytest.raises(grpc.RpcError) as info:
        client.solve_table(dict(ddcards.example("marias-hra"), talon="9C"))
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "docs/RULES.md §1.13 rule 1" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        client.solve_table(dict(ddcards.example("klaverjas"), played=["AS"]))
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "AS" in info.value.details()


def test_solve_table_sets_trump_and_team_itself_but_checks_those_given(client):
    """docs/SERVICE.md: a position's own trump and playing team do not change the table, but
    given they must be valid (docs/RULES.md §2.8 rule 5); so for Mariáš's contract and trump."""
    deal = ddcards.example("klaverjas")
    plain = client.solve_table({k: v for k, v in deal.items() if k not in ("trump", "playing_team")})
    assert client.solve_table(dict(deal, trump="D", playing_team=1))["values"] == plain["values"]
    for bad, reason in (({"trump": "X"}, "INVALID_CARD"), ({"playing_team": 5}, "INVALID_OPTION")):
        with pytest.raises(grpc.RpcError) as info:
            client.solve_table(json.dumps(dict(deal, **bad)))
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_details(info.value)["reason"] == reason, bad
    with pytest.raises(grpc.RpcError) as info:
        client.stub.SolveTable(pb.SolveTableRequest(position=pb.Position(game_name="klaverjas", trump=99)),
                               timeout=30)
    assert error_details(info.value)["reason"] == "INVALID_CARD"
    for bad, reason in (({"trump": "X"}, "INVALID_CARD"), ({"contract": "foo"}, "INVALID_OPTION")):
        with pytest.raises(grpc.RpcError) as info:
            client.solve_table(json.dumps(dict(ddcards.example("marias-hra"), **bad)))
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_details(info.value)["reason"] == reason, bad


# ---------------------------------------------------------------- ListGames


def test_list_games(client):
    games = {g["name"]: g for g in client.list_games()}
    assert "marias" in games
    assert {"hra", "betl", "durch"} <= set(games["marias"]["contracts"])
    raw = client.list_games(as_dict=False)
    marias = next(g for g in raw.games if g.name == "marias")
    assert marias.game == pb.GAME_MARIAS
    assert {c.contract for c in marias.contracts} >= {pb.CONTRACT_HRA, pb.CONTRACT_BETL, pb.CONTRACT_DURCH}
    assert set(raw.modes) == {pb.SOLVE_MODE_BEST, pb.SOLVE_MODE_OPTIMAL, pb.SOLVE_MODE_ALL}
    # Exactly what the library lists: games come from ddcards.list_games(), not from server code.
    assert [g.name for g in raw.games] == [g.name for g in ddcards.list_games()]
    for info in ddcards.list_games():
        listed = next(g for g in raw.games if g.name == info.name)
        assert [o.name for o in listed.options] == [o.name for o in info.options]


def test_list_games_gives_every_options_choices_and_range_as_the_library_and_cli(client):
    """OptionInfo carries the choices of every option and the range of a whole-number one,
    exactly as ddcards.list_games() has them and `ddcards games --json` prints them."""
    import subprocess
    import sys

    raw = client.list_games(as_dict=False)
    seen = set()
    for info in ddcards.list_games():
        listed = {o.name: o for o in next(g for g in raw.games if g.name == info.name).options}
        for option in info.options:
            got = listed[option.name]
            assert list(got.choices) == list(option.choices), (info.name, option.name)
            if option.type == "int":
                assert got.HasField("minimum") and got.HasField("maximum"), (info.name, option.name)
                assert (got.minimum, got.maximum) == (option.minimum, option.maximum), (info.name, option.name)
            else:                           # no bound: unset, not 0
                assert not got.HasField("minimum") and not got.HasField("maximum"), (info.name, option.name)
            seen.add((info.name, option.name))
    # the auditor's examples
    assert list(listed_option(raw, "marias", "talon_points").choices) == ["defenders", "nobody"]
    assert list(listed_option(raw, "mariasz", "variant").choices) == ["standard", "kiks", "three"]
    assert (listed_option(raw, "marias", "sedma_value").minimum,
            listed_option(raw, "marias", "sedma_value").maximum) == (0, 1_000_000)
    assert (listed_option(raw, "prsi", "horizon").minimum, listed_option(raw, "prsi", "horizon").maximum) == (1, 250)
    assert ("mariasz", "player") in seen and ("prsi", "player") in seen
    # Each game's sides (the maximising one first) and what its value means, as the library says.
    assert [(g.name, list(g.sides), g.value_doc) for g in raw.games] == \
        [(i.name, list(i.sides), i.value_doc) for i in ddcards.list_games()]
    assert list(next(g for g in raw.games if g.name == "marias").sides) == ["declarer", "defenders"]
    # The client's dicts are what the command line prints, option for option.
    cli = json.loads(subprocess.run([sys.executable, "-m", "ddcards", "games", "--json"], capture_output=True,
                                    text=True, timeout=60, check=True).stdout)
    assert client.list_games() == cli


def listed_option(raw: pb.ListGamesResponse, game: str, name: str) -> pb.OptionInfo:
    return next(o for g in raw.games if g.name == game for o in g.options if o.name == name)


# ---------------------------------------------------------------- concurrency


def test_concurrent_clients(server, positions):
    want = {i: _direct(doc) for i, doc in enumerate(positions)}

    def work(k):
        with Client(f"127.0.0.1:{server.port}", timeout=60) as own:
            out = []
            for j in range(len(positions)):
                i = (j + k) % len(positions)
                got = own.solve(positions[i])
                out.append((i, got["value"], set(got["optimal_moves"])))
            return out

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(8)))
    for out in results:
        for i, value, optimal in out:
            assert value == want[i].value and optimal == set(want[i].optimal_moves)


# ---------------------------------------------------------------- deadlines and cancellation


def _direct_seconds(doc, mode="all"):
    position = ddcards.Position.from_dict(doc)
    return min(ddcards.solve(position, mode=mode).elapsed for _ in range(3))


def test_deadline_mid_search(client, server):
    deadline = max(_direct_seconds(HARD) / 5, 0.002)  # expires well inside the search
    with pytest.raises(grpc.RpcError) as info:
        client.solve(HARD, mode="all", timeout=deadline)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    # The search stops too: the workers are free again, and the server answers.
    assert wait_until(lambda: server.pool.busy == 0, timeout=1.0)
    doc = _quick_doc()
    assert client.solve(doc, timeout=10)["value"] == _direct(doc).value


def test_request_timeout_seconds(client):
    request = Client.solve_request(HARD, "all", timeout_seconds=max(_direct_seconds(HARD) / 5, 0.002))
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(request, timeout=30)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    # the call's deadline (30 s) was far off: the message names the limit that stopped the search
    assert info.value.details().startswith("search stopped at timeout_seconds: "), info.value.details()


def test_cancel_stops_the_search(caplog):
    with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        with caplog.at_level(logging.INFO, logger="ddcards.server"):
            future = c.solve_future(ENDLESS, mode="all")
            assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.0005), "the search never started"
            future.cancel()
            assert wait_until(lambda: srv.pool.busy == 0, timeout=1.0), "the worker kept searching"
            doc = _quick_doc()
            assert c.solve(doc, timeout=10)["value"] == _direct(doc).value
            assert future.cancelled()
            wait_until(lambda: any(m.startswith("rpc method=Solve game=mariasz ") for m in _messages(caplog)))
        # (the endless deal's lines: the other servers of this test process may log a late call)
        solve_lines = [m for m in _messages(caplog) if m.startswith("rpc method=Solve game=mariasz ")]
        # The search was stopped, not finished (it runs for hours): the call ended CANCELLED, and
        # its line counts the nodes the stopped search had searched.
        cancelled = [line for line in solve_lines if " status=CANCELLED " in line]
        assert cancelled, solve_lines
        assert int(re.search(r" nodes=(\d+) ", cancelled[0]).group(1)) > 0, solve_lines


def test_a_cancelled_analysis_stream_stops_its_analysis(caplog, monkeypatch):
    """A cancel stops the server's analysis and frees its worker; the call's log line counts
    the nodes it searched. The client's stream cancels the call when its reader leaves it."""
    with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        with caplog.at_level(logging.INFO, logger="ddcards.server"):
            call = c.stub.AnalysePlayStream(pb.AnalysePlayStreamRequest(document_json=json.dumps(ENDLESS)), timeout=120)
            assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.0005), "the analysis never started"
            call.cancel()
            assert wait_until(lambda: srv.pool.busy == 0, timeout=2.0), "the analysis went on"
            # the client's generator, left after its first step
            deal = ddcards.example("klaverjas")
            doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])
            go_on = threading.Event()
            from ddcards.games.base import Session
            search, calls = Session.search, []

            def held(self, searcher, mode, cancel, *args, **kwargs):
                # after the step of ply 0: held until the client has left, and until its cancel has
                # reached the server (the 9 steps left take ~15 ms: a cancel still on its way let
                # the analysis end OK, as a loaded CI machine once saw)
                calls.append(1)
                if len(calls) == 3:
                    go_on.wait(30)
                    wait_until(lambda: cancel is not None and cancel.cancelled, timeout=10.0)
                return search(self, searcher, mode, cancel, *args, **kwargs)

            monkeypatch.setattr(Session, "search", held)
            stream = c.analyse_stream(doc, timeout=120)
            assert next(stream)["step"]["ply"] == 0 and not go_on.is_set()
            stream.close()
            go_on.set()
            assert wait_until(lambda: srv.pool.busy == 0, timeout=2.0), "the analysis went on"
            assert wait_until(lambda: all(any(m.startswith(f"rpc method=AnalysePlayStream game={game} ")
                                              for m in _messages(caplog)) for game in ("mariasz", "klaverjas")))
        # (the two calls' lines: the endless deal's, then the Klaverjas one's)
        lines = [m for game in ("mariasz", "klaverjas") for m in _messages(caplog)
                 if m.startswith(f"rpc method=AnalysePlayStream game={game} ")]
        assert len(lines) == 2 and all("status=CANCELLED" in line for line in lines), lines
        assert int(re.search(r" nodes=(\d+) ", lines[0]).group(1)) > 0, lines


def test_an_analysis_stream_left_with_steps_unsent_logs_its_nodes(caplog):
    """A client that leaves while the server still has steps to send (its flow-control window
    full): the call's log line counts the nodes the analysis searched, as a stopped search's
    line does; it said nodes=0, the analysis's outcome never taken."""
    seed = ddcards.example("marias-seed")
    want = ddcards.Solver(tt_mb=16).analyse(seed, mode="all")       # as the server's worker
    with running_server(workers=1) as srv:
        # a 1 KiB window, not grown: the server's writes wait after a few steps
        channel = grpc.insecure_channel(f"127.0.0.1:{srv.port}", options=[
            ("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)])
        with caplog.at_level(logging.INFO, logger="ddcards.server"), channel:
            stub = pb_grpc.SolverServiceStub(channel)
            call = stub.AnalysePlayStream(pb.AnalysePlayStreamRequest(
                document_json=json.dumps(seed), mode=pb.SOLVE_MODE_ALL), timeout=60)
            assert next(call).step.ply == 0
            # the analysis has ended (its worker back), its steps wait to be sent
            assert wait_until(lambda: srv.pool.busy == 0, timeout=10.0), "the analysis never ended"
            call.cancel()
            assert wait_until(lambda: any(m.startswith("rpc method=AnalysePlayStream game=marias ")
                                          for m in _messages(caplog)), timeout=5)
    line = next(m for m in _messages(caplog) if m.startswith("rpc method=AnalysePlayStream game=marias "))
    assert " status=CANCELLED " in line, line
    assert int(re.search(r" nodes=(\d+) ", line).group(1)) == want.nodes, line


def test_cancel_frees_the_worker():
    """A cancelled stream of searches stops at once; a following call on the 1-worker server is prompt."""
    with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        requests = [pb.SolveStreamRequest(id=str(i), solve=Client.solve_request(doc))
                    for i, doc in enumerate(LONG_STREAM)]
        stream = c.stub.SolveStream(iter(requests), timeout=120)
        first = next(stream)                       # the stream is under way
        assert first.WhichOneof("outcome") == "result"
        assert srv.pool.busy == 1 or wait_until(lambda: srv.pool.busy == 1, timeout=2.0)
        stream.cancel()
        cancelled = time.monotonic()
        assert wait_until(lambda: srv.pool.busy == 0, timeout=1.0), "the worker kept searching after the cancel"
        doc = _quick_doc()
        assert c.solve(doc, timeout=10)["value"] == _direct(doc).value
        assert time.monotonic() - cancelled < 2.0
        with pytest.raises(grpc.RpcError) as info:
            list(stream)
        assert info.value.code() is grpc.StatusCode.CANCELLED


def test_stream_deadline_ends_the_stream(client, server):
    with pytest.raises(grpc.RpcError) as info:
        list(client.solve_many(LONG_STREAM, timeout=0.2))
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert wait_until(lambda: server.pool.busy == 0, timeout=1.0)


# ---------------------------------------------------------------- bad requests


PRSI = ddcards.example("prsi")
SZLIFOWANY = ddcards.example("mariasz-szlifowany")


def _bad_requests():
    base = marias_deal(5)
    hand0 = base["hands"][0]
    first_suit = next(i for i, part in enumerate(hand0.split(".")) if part)
    a_card = hand0.split(".")[first_suit][0] + "SHDC"[first_suit]   # a card of seat 0
    talon = base["talon"].split()
    ace = next(c for c in (r + s for s in "SHDC" for r in "A") if c not in talon)
    owner = next(i for i, h in enumerate(base["hands"]) if ace[0] in h.split(".")["SHDC".index(ace[1])])
    # swap the ace into the talon and a talon card into its hand (a legal-size, ace-in-talon deal)
    hands = list(base["hands"])
    parts = hands[owner].split(".")
    s = "SHDC".index(ace[1])
    parts[s] = parts[s].replace("A", "")
    cards = [r + suit for suit, p in zip("SHDC", parts) for r in p] + [talon[0]]
    hands[owner] = ".".join("".join(sorted((c[0] for c in cards if c[1] == suit), key="AKQJT987".index))
                            for suit in "SHDC")
    ace_in_talon = dict(base, hands=hands, talon=f"{ace} {talon[1]}")
    seat1_card = next(r + "SHDC"[i] for i, p in enumerate(base["hands"][1].split(".")) for r in p)
    short = list(base["hands"])   # seat 1 gives a card to the talon: 9 cards in hand, 3 in the talon
    parts = short[1].split(".")
    s = "SHDC".index(seat1_card[1])
    parts[s] = parts[s].replace(seat1_card[0], "", 1)
    short[1] = ".".join(parts)
    return [
        ("unknown card", dict(base, talon="ZZ " + talon[1]), "ZZ", "talon"),
        ("duplicate card", dict(base, talon=f"{a_card} {talon[1]}"), a_card, "talon"),     # where it repeats
        ("wrong hand size", dict(base, hands=short, talon=f"{talon[0]} {talon[1]} {seat1_card}"), None, "hands[1]"),
        ("ace in a hra talon", ace_in_talon, ace, "talon"),
        ("illegal history card", dict(base, played=[seat1_card]), seat1_card, "played[0]"),
        ("bad card in the history", dict(base, played=[a_card, "XX"]), "XX", "played[1]"),
        ("bad card in a hand", dict(base, hands=[base["hands"][0], "Z" + base["hands"][1], base["hands"][2]]),
         "Z", "hands[1]"),
        ("trump for betl", dict(marias_deal(5, "betl"), trump="H"), None, "trump"),
        ("unknown game", dict(base, game="skat"), "skat", "game"),
        ("unknown option", dict(base, options={"no_such_option": True}), "no_such_option",
         "options.no_such_option"),
        # The newer games name their fields alike.
        ("mariasz: bad card in the stock", dict(SZLIFOWANY, stock="ZZ " + SZLIFOWANY["stock"].split(" ", 1)[1]),
         "ZZ", "stock"),
        ("mariasz: a second exchange", dict(SZLIFOWANY, played=["exchange", "exchange"]), "exchange", "played[1]"),
        ("mariasz: a start score out of range", dict(SZLIFOWANY, objective="race", start_scores=[0, 131]), "131",
         "start_scores"),
        ("prsi: an Ober without its suit", dict(PRSI, played=["QS"]), "QS", "played[0]"),
        ("prsi: a bad card in a hand", dict(PRSI, hands=["Z" + PRSI["hands"][0], PRSI["hands"][1]]), "Z", "hands[0]"),
    ]


@pytest.mark.parametrize("case, doc, token, doc_field", _bad_requests(), ids=[c[0] for c in _bad_requests()])
def test_bad_request(client, case, doc, token, doc_field):
    with pytest.raises(DdcardsError) as direct:
        ddcards.Position.from_dict(doc)
    # In the message the game's field is game_name; every other document field keeps its name.
    in_message = {"game": "game_name"}.get(doc_field, doc_field)
    for send, field in ((doc, f"position.{in_message}" if doc_field else "position"),
                        (json.dumps(doc), "document_json")):
        with pytest.raises(grpc.RpcError) as info:
            client.solve(send)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, case
        details = info.value.details()
        assert details == str(direct.value)
        if token is not None:
            assert token in details, (case, details)
        # The same facts, machine-readable: google.rpc ErrorInfo + BadRequest.
        got = error_details(info.value)
        assert got["reason"] == direct.value.reason and got["domain"] == "ddcards"
        assert got["token"] == (direct.value.token or "") and got["rule"] == (direct.value.rule or "")
        assert got["field"] == field and got["doc_field"] == (doc_field or "")
        assert got["retry_after"] is None
        # The custom ASCII trailers of 0.1 are gone: the details say it all.
        assert not any(key.startswith("ddcards-") for key, _ in info.value.trailing_metadata() or ())
    # The same bad position inside a stream is an in-band error with the same details.
    (outcome,) = list(client.solve_many([doc]))
    error = outcome["error"]
    assert error["code"] == "INVALID_ARGUMENT" and error["message"] == str(direct.value)
    assert error["reason"] == direct.value.reason and error["doc_field"] == (doc_field or "")
    assert error["field"] == (f"solve.position.{in_message}" if doc_field else "solve.position")


@pytest.mark.parametrize("message, token", [
    (pb.Position(game_name="marias", hands=[pb.Cards(cards=[pb.Card(rank=pb.RANK_ACE)])]), "suit"),
    (pb.Position(game_name="marias", game=pb.GAME_KLAVERJAS), "klaverjas"),
    (pb.Position(game_name="marias", game=pb.GAME_MARIAS, contract_name="hra", contract=pb.CONTRACT_BETL), "disagree"),
    (pb.Position(), "game"),
    (pb.Position(game_name="marias", options={"x": pb.OptionValue()}), "'x'"),
])
def test_bad_messages(client, message, token):
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(position=message), timeout=10)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert token in info.value.details().lower()


@pytest.mark.parametrize("message, field, doc_field", [
    (pb.Position(game_name="marias", trump=99), "position.trump", "trump"),
    (pb.Position(game=99), "position.game", "game"),
    (pb.Position(game_name="marias", contract=99), "position.contract", "contract"),
    (pb.Position(game_name="marias", played=[pb.Action(card=pb.Card(rank=5, suit=pb.SUIT_HEARTS))]),
     "position.played[0].card.rank", "played[0]"),
    (pb.Position(game_name="marias", hands=[pb.Cards(cards=[pb.Card(rank=pb.RANK_ACE)])]),
     "position.hands[0].cards[0].suit", "hands[0]"),
])
def test_a_fault_in_the_message_s_own_form_names_its_document_field_too(client, message, field, doc_field):
    """ErrorInfo's `field` is the position document's path (docs/SERVICE.md), also for a fault found
    in the message itself (an enum value out of range, a card with no suit): it was left out there,
    where the same fault sent as document_json named it."""
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(position=message), timeout=10)
    got = error_details(info.value)
    assert (got["field"], got["doc_field"]) == (field, doc_field)


@pytest.mark.parametrize("cards, field, token", [
    (["AS", "AS", "TS", "AH", "KH", "TH", "9H", "AC", "9C", "7C"], "position.hands[0].cards[1]", "AS"),
    (["AS", "KS", "TS", "AH", "KH", "TH", "10H", "AC", "9C", "7C"], "position.hands[0].cards[6]", "TH"),  # an alias
])
def test_a_card_twice_in_a_hand_s_list_names_the_list_item(client, cards, field, token):
    """A hand sent as a list of cards with one card twice was refused quoting a hand text the client
    never wrote ("appears twice in hand 'AAT.AKT9..A97'"), on the whole hand's field: it names the
    item of the list, as a bad card of the list is named (an audit's find)."""
    hands = [pb.Cards(cards=[pb.Card(notation=c) for c in cards]), pb.Cards(notation="QJ98.Q8.KQ.KQ"),
             pb.Cards(notation="7.J7.AJT7.JT8")]
    position = pb.Position(game_name="marias", contract_name="hra", trump=pb.SUIT_HEARTS, hands=hands,
                           talon=pb.Cards(notation="8D 9D"))
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(position=position), timeout=10)
    got = error_details(info.value)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert (got["reason"], got["field"], got["doc_field"], got["token"]) == ("NOTATION", field, "hands[0]", token)
    assert info.value.details().startswith(f"{field}: card '{token}' appears twice in the hand (also position.hands[0].cards[")
    assert "AAT" not in info.value.details() and "docs/RULES.md §0.4 rule 2" in info.value.details()
    # in a stream the item's error names the same item, under its `solve.`
    [item] = client.stub.SolveStream(iter([pb.SolveStreamRequest(id="h", solve=pb.SolveRequest(position=position))]),
                                     timeout=10)
    assert (item.error.reason, item.error.field) == ("NOTATION", "solve." + field)


def test_bad_json_and_bad_mode(client):
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(document_json="{oops"), timeout=10)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "JSON" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(document_json=json.dumps(_quick_doc()), mode=17), timeout=10)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "17" in info.value.details()


def test_internal_error_keeps_serving(client, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("conversion exploded")

    monkeypatch.setattr(convert, "result_to_response", boom)
    with pytest.raises(grpc.RpcError) as info:
        client.solve(_quick_doc())
    assert info.value.code() is grpc.StatusCode.INTERNAL and "conversion exploded" in info.value.details()
    monkeypatch.undo()
    doc = _quick_doc()
    assert client.solve(doc)["value"] == _direct(doc).value


# ---------------------------------------------------------------- timeouts, actions


@pytest.mark.parametrize("bad", [float("nan"), -1.0, float("-inf")])
def test_a_nan_or_negative_timeout_seconds_is_invalid_argument(client, bad):
    doc = json.dumps(_quick_doc())
    table = json.dumps(ddcards.example("klaverjas"))
    message = (f"timeout_seconds must be a number of seconds, at least 0 (0: no limit but the call's deadline), "
               f"not {bad!r}")
    for call in (lambda: client.stub.Solve(pb.SolveRequest(document_json=doc, timeout_seconds=bad), timeout=10),
                 lambda: client.stub.AnalysePlay(pb.AnalysePlayRequest(document_json=doc, timeout_seconds=bad),
                                                 timeout=10),
                 lambda: client.stub.SolveTable(pb.SolveTableRequest(document_json=table, timeout_seconds=bad),
                                                timeout=10)):
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT and info.value.details() == message
        got = error_details(info.value)
        assert (got["reason"], got["field"], got["token"]) == ("INVALID_REQUEST", "timeout_seconds", repr(bad))
        assert got["rule"] == convert.TIMEOUT_RULE
    # In a stream: an in-band error for that item, and the stream goes on.
    requests = [pb.SolveStreamRequest(id="bad", solve=pb.SolveRequest(document_json=doc, timeout_seconds=bad)),
                pb.SolveStreamRequest(id="good", solve=pb.SolveRequest(document_json=doc))]
    out = {r.id: r for r in client.stub.SolveStream(iter(requests), timeout=30)}
    bad_item = out["bad"].error
    assert (bad_item.code_name, bad_item.message, bad_item.field) == ("INVALID_ARGUMENT", message,
                                                                      "solve.timeout_seconds")
    assert out["good"].WhichOneof("outcome") == "result"


def test_an_infinite_or_unset_timeout_seconds_is_no_limit(client):
    doc = _quick_doc()
    for seconds in (float("inf"), 0.0):
        request = pb.SolveRequest(document_json=json.dumps(doc), timeout_seconds=seconds)
        assert client.stub.Solve(request, timeout=30).value == _direct(doc).value




@pytest.mark.parametrize("action, message", [
    (pb.Action(notation="QS", named_suit=pb.SUIT_DIAMONDS),
     "position.played[0]: named_suit (the suit an Ober names, in Prší) goes with card, not with notation: give "
     "card and named_suit, or write the named suit in notation ('QS/D')"),
    (pb.Action(notation="QS/H", named_suit=pb.SUIT_DIAMONDS),
     "position.played[0]: notation 'QS/H' and named_suit SUIT_DIAMONDS disagree (and named_suit goes with card: "
     "with notation alone, the suit is written in it)"),
    (pb.Action(notation="QS/D", named_suit=pb.SUIT_DIAMONDS),
     "position.played[0]: named_suit goes with card, and notation 'QS/D' names the suit already: leave "
     "named_suit unset, or give card and named_suit"),
    (pb.Action(notation="QS/H", card=pb.Card(notation="QS"), named_suit=pb.SUIT_DIAMONDS),
     "position.played[0]: notation 'QS/H' and named_suit SUIT_DIAMONDS disagree"),
])
def test_named_suit_beside_notation_names_the_conflict(client, action, message):
    position = pb.Position(game_name="prsi", hands=[pb.Cards(notation=hand) for hand in PRSI["hands"]],
                           upcard=pb.Card(notation=PRSI["upcard"]), stock=pb.Cards(notation=PRSI["stock"]),
                           played=[action])
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(pb.SolveRequest(position=position), timeout=10)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT and info.value.details() == message
    got = error_details(info.value)
    assert (got["reason"], got["field"], got["token"]) == ("INVALID_REQUEST", "position.played[0].named_suit",
                                                           action.notation)


# ---------------------------------------------------------------- what the log says of stopped calls


def _log_line(caplog, game: str, status: str) -> str:
    """The last Solve line of `game` ending with `status` (_messages: other servers' calls aside)."""
    def lines():
        return [m for m in _messages(caplog) if f"rpc method=Solve game={game} status={status} " in m]
    assert wait_until(lines, timeout=5), _messages(caplog)
    return lines()[-1]


def test_a_call_whose_deadline_passes_mid_search_logs_deadline_exceeded_and_its_nodes(client, server, caplog):
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        with pytest.raises(grpc.RpcError) as info:
            client.solve(ENDLESS, mode="best", timeout=0.3)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        line = _log_line(caplog, "mariasz", "DEADLINE_EXCEEDED")
    # What the client got (DEADLINE_EXCEEDED), not CANCELLED; and the nodes the stopped search
    # searched, not 0.
    assert int(re.search(r" nodes=(\d+) ", line).group(1)) > 0, line
    assert re.search(r" peer=\S+$", line), line                  # read while the call was alive
    assert wait_until(lambda: server.pool.busy == 0, timeout=2.0)


def test_a_stream_whose_deadline_passes_mid_search_logs_its_game_items_and_nodes(client, caplog):
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        with pytest.raises(grpc.RpcError) as info:
            list(client.solve_many([ENDLESS], mode="best", timeout=0.3))
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        stopped = "rpc method=SolveStream game=mariasz status=DEADLINE_EXCEEDED "
        assert wait_until(lambda: any(m.startswith(stopped) for m in _messages(caplog)), timeout=5), _messages(caplog)
    line = [m for m in _messages(caplog) if m.startswith(stopped)][-1]
    assert " items=0 " in line, line
    assert int(re.search(r" nodes=(\d+) ", line).group(1)) > 0 and re.search(r" peer=\S+$", line), line


def test_a_search_stopped_by_timeout_seconds_logs_the_nodes_its_status_gives(client, caplog):
    request = Client.solve_request(ENDLESS, "best", timeout_seconds=0.3)
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        with pytest.raises(grpc.RpcError) as info:
            client.stub.Solve(request, timeout=30)
        line = _log_line(caplog, "mariasz", "DEADLINE_EXCEEDED")
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    # timeout_seconds stopped it, not the call's deadline 30 s away ("at the deadline", as it said,
    # sent the client looking for the wrong limit)
    nodes = re.fullmatch(r"search stopped at timeout_seconds: the search ran out of time after ([\d,]+) nodes; "
                         r"by then 0 of 6 distinct first moves answered \(the request's timeout_seconds: 0.3 s\)",
                         info.value.details()).group(1)
    assert " status=DEADLINE_EXCEEDED " in line and f" nodes={nodes.replace(',', '')} " in line, (line, nodes)
    assert error_details(info.value)["reason"] == "SEARCH_TIMEOUT"
    # a stream item's own timeout_seconds, the same; the stream's deadline, as before
    item = pb.SolveStreamRequest(id="a", solve=Client.solve_request(ENDLESS, "best", timeout_seconds=0.3))
    (response,) = client.stub.SolveStream(iter([item]), timeout=30)
    assert response.error.message.startswith("search stopped at timeout_seconds: "), response
    with pytest.raises(grpc.RpcError) as info:
        client.stub.Solve(Client.solve_request(ENDLESS, "best"), timeout=0.3)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED and "timeout_seconds" not in info.value.details()


# ---------------------------------------------------------------- capacity


def _outcomes(futures, wait=1.0):
    codes = []
    for future in futures:
        try:
            error = future.exception(timeout=wait)
            codes.append(error if error is not None else None)
        except grpc.FutureTimeoutError:
            codes.append("running")
    return codes


def test_a_full_queue_turns_calls_away_with_retry_advice():
    """1 worker, room for 1 waiting call: of 5 long calls 1 runs, 1 waits, 3 are turned away at once
    with RESOURCE_EXHAUSTED, reason OVERLOADED and a RetryInfo."""
    with running_server(workers=1, max_queue=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        futures = [c.solve_future(ENDLESS, timeout=30)]
        assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.0005)
        futures.append(c.solve_future(ENDLESS, timeout=30))
        assert wait_until(lambda: srv.pool.waiting == 1, timeout=5.0, step=0.0005)
        futures += [c.solve_future(ENDLESS, timeout=30) for _ in range(3)]
        try:
            outcomes = _outcomes(futures[2:], wait=5.0)
        finally:
            for future in futures:
                future.cancel()
        for error in outcomes:
            assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, outcomes
            got = error_details(error)
            assert got["reason"] == "OVERLOADED" and 0.1 <= got["retry_after"] <= 30.0, got
            assert "busy" in got["message"]
        # Capacity frees up once the admitted calls end.
        assert wait_until(lambda: srv.pool.busy == 0 and srv.pool.waiting == 0, timeout=2.0)
        doc = _quick_doc()
        assert c.solve(doc, timeout=10)["value"] == _direct(doc).value


def test_a_call_waits_in_the_queue_for_its_bound_then_gets_retry_advice():
    bound = 0.03  # the running search never ends within it
    with running_server(workers=1, queue_timeout=bound) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        running = c.solve_future(ENDLESS, timeout=30)
        try:
            assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.0005)
            started = time.monotonic()
            with pytest.raises(grpc.RpcError) as info:
                c.solve(_quick_doc(), timeout=30)
            waited = time.monotonic() - started
        finally:
            running.cancel()
        assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        got = error_details(info.value)
        assert got["reason"] == "OVERLOADED" and got["retry_after"] >= 0.1
        assert bound <= waited < 5.0                 # it waited for its bound: not for ever, not 0


def test_calls_the_stop_cancels_log_what_their_clients_heard(caplog):
    """At the end of stop()'s grace grpc cancels the calls still in flight, and their clients
    hear UNAVAILABLE: so do their log lines (not CANCELLED as a client's cancel, nor OK for a
    stream whose generator ended with its call)."""
    from ddcards.server.main import start_server

    srv = start_server(host="127.0.0.1", port=0, workers=2, tt_mb=16)
    stopped = False
    try:
        with caplog.at_level(logging.INFO, logger="ddcards.server"), \
                grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
            stub = pb_grpc.SolverServiceStub(channel)
            unary = stub.Solve.future(Client.solve_request(ENDLESS, "best"))
            item = Client.solve_request(_quick_doc(), "best")
            hold = threading.Event()

            def requests():
                yield pb.SolveStreamRequest(id="a", solve=item)
                hold.wait(30)                          # the stream stays open, its item answered

            stream = stub.SolveStream(requests())
            assert next(stream).id == "a"
            assert wait_until(lambda: srv.pool.busy >= 1, timeout=5.0, step=0.0005)
            srv.stop(0.3)
            stopped = True
            hold.set()
            with pytest.raises(grpc.RpcError) as info:
                unary.result(timeout=10)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            with pytest.raises(grpc.RpcError) as info:
                list(stream)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert wait_until(lambda: sum(" method=Solve" in r.getMessage() for r in caplog.records) >= 2, timeout=5)
        lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("rpc method=Solve")]
        assert any(line.startswith("rpc method=Solve game=mariasz status=UNAVAILABLE") for line in lines), lines
        assert any(line.startswith("rpc method=SolveStream ") and " status=UNAVAILABLE " in line for line in lines), lines
    finally:
        if not stopped:
            srv.stop(0)


def test_a_bad_request_is_refused_without_waiting_for_a_worker():
    """Every RPC checks its request before it queues: with the one worker busy and no room
    to wait, a bad position or table is INVALID_ARGUMENT at once (not OVERLOADED with advice
    to retry what can never succeed, nor a deadline spent waiting)."""
    with running_server(workers=1, max_queue=0, queue_timeout=30) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        running = c.solve_future(ENDLESS, timeout=60)
        try:
            assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.0005)
            table = {"game": "klaverjas", "hands": ["AKQJT987.-.-.-", "-.AKQJT987.-.-", "-.-.AKQJT987.-",
                                                    "-.-.-.AKQJT987"]}
            for call, words in (
                    (lambda: c.solve_table(dict(table, played=["AS"]), timeout=10), "already played"),
                    (lambda: c.solve_table(dict(table, trump="X"), timeout=10), "'X'"),
                    (lambda: c.solve_table({"game": "prsi", "hands": ["7S", "8S"], "stock": "9S"}, timeout=10),
                     "has no such table"),
                    # (as the library reads it: the empty hands are sent as they are, not dropped)
                    (lambda: c.solve({"game": "marias", "hands": []}, timeout=10), "needs a trump suit"),
                    (lambda: c.analyse({"game": "klaverjas", "hands": table["hands"], "trump": "H",
                                        "playing_team": 0, "played": ["ZZ"]},
                                       timeout=10), "ZZ")):
                started = time.monotonic()
                with pytest.raises(grpc.RpcError) as info:
                    call()
                assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
                assert words in info.value.details()
                assert time.monotonic() - started < 5.0
        finally:
            running.cancel()


def test_waiting_calls_are_served_in_turn_when_the_queue_has_room():
    """Over the worker count but within the queue: every call succeeds (no instant rejection)."""
    docs = [marias_position(seed, 6) for seed in range(40, 52)]
    want = [_direct(doc).value for doc in docs]
    with running_server(workers=1, max_queue=len(docs)) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        futures = [c.solve_future(doc, timeout=60) for doc in docs]
        got = [convert.response_to_dict(f.result(timeout=60))["value"] for f in futures]
    assert got == want


# ---------------------------------------------------------------- health, reflection, shutdown


def test_health(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "ddcards.v1.SolverService"):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as info:
            stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
        assert info.value.code() is grpc.StatusCode.NOT_FOUND
        # List, which reflection names too (the library's servicer answered UNIMPLEMENTED)
        listed = stub.List(health_pb2.HealthListRequest(), timeout=5)
        assert {name: reply.status for name, reply in listed.statuses.items()} == {
            "": health_pb2.HealthCheckResponse.SERVING, "ddcards.v1.SolverService": health_pb2.HealthCheckResponse.SERVING}


def test_health_list_follows_the_shutdown():
    from ddcards.server.main import HealthServicer

    servicer = HealthServicer()
    servicer.set("ddcards.v1.SolverService", health_pb2.HealthCheckResponse.SERVING)
    servicer.enter_graceful_shutdown()
    servicer.set("ddcards.v1.SolverService", health_pb2.HealthCheckResponse.SERVING)   # ignored once closing
    listed = servicer.List(health_pb2.HealthListRequest(), None)
    assert {name: reply.status for name, reply in listed.statuses.items()} == {
        "": health_pb2.HealthCheckResponse.NOT_SERVING, "ddcards.v1.SolverService": health_pb2.HealthCheckResponse.NOT_SERVING}


def test_reflection(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(file_containing_symbol="ddcards.v1.SolverService")]
        replies = list(stub.ServerReflectionInfo(iter(requests), timeout=5))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"ddcards.v1.SolverService", "grpc.health.v1.Health",
                "grpc.reflection.v1alpha.ServerReflection"} <= names
        from google.protobuf import descriptor_pb2

        files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
                 for raw in replies[1].file_descriptor_response.file_descriptor_proto]
        ddcards = next(f for f in files if f.package == "ddcards.v1")
        methods = {m.name for s in ddcards.service for m in s.method}
        assert methods == {"Solve", "AnalysePlay", "AnalysePlayStream", "SolveStream", "ListGames", "SolveTable"}


# A call arriving while the server drains is refused: UNAVAILABLE once the client has seen the
# server's GOAWAY, CANCELLED when the call races it (grpc-core's choice, not ours).
REFUSED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)


def test_graceful_shutdown():
    """SIGTERM's path: NOT_SERVING, new calls refused, the call in flight runs to its end."""
    want = {i: _direct(doc).value for i, doc in enumerate(HARD_SET)}
    docs = HARD_SET * 4
    with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        stream = c.solve_many(docs, timeout=120)
        outcomes = [next(stream)]                   # in flight
        stopper = threading.Thread(target=srv.stop, args=(60,))
        stopper.start()
        try:
            assert wait_until(lambda: srv.health.shutting_down, timeout=5.0)
            with grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                try:
                    status = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5).status
                    assert status == health_pb2.HealthCheckResponse.NOT_SERVING
                except grpc.RpcError as exc:  # already refusing new calls
                    assert exc.code() in REFUSED
            with pytest.raises(grpc.RpcError) as info:
                c.solve(_quick_doc(), timeout=5)
            assert info.value.code() in REFUSED
            assert stopper.is_alive(), "the server stopped before the call in flight finished"
            outcomes += list(stream)
        finally:
            stopper.join(60)
        assert not stopper.is_alive()
        assert sorted(o["index"] for o in outcomes) == list(range(len(docs)))
        for o in outcomes:
            assert o["result"]["value"] == want[o["index"] % len(HARD_SET)]


# ---------------------------------------------------------------- logging


def test_one_log_line_per_request(client, caplog):
    doc = _quick_doc()
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        client.solve(doc)
        with pytest.raises(grpc.RpcError):
            client.solve(dict(doc, game="skat"))
        wait_until(lambda: any(" game=skat " in m for m in _messages(caplog)), timeout=2)
    # (this test's two calls: a Mariáš deal and a game that does not exist; other servers' aside)
    lines = [m for m in _messages(caplog)
             if m.startswith(("rpc method=Solve game=marias ", "rpc method=Solve game=skat "))]
    assert len(lines) == 2, lines
    ok, bad = lines
    assert "method=Solve" in ok and "game=marias" in ok and "status=OK" in ok and "duration_ms=" in ok
    nodes = int(ok.split("nodes=")[1].split()[0])
    assert nodes > 0
    assert "status=INVALID_ARGUMENT" in bad and "game=skat" in bad


def test_a_call_of_a_method_the_server_lacks_is_unimplemented_and_logged(server, caplog):
    """gRPC answered UNIMPLEMENTED itself and the log had no line of it: a client built from
    another .proto (a newer RPC, ddcards.v2) called in vain and the operator saw nothing."""
    path = "/ddcards.v2.SolverService/Solve\x1b[31m"       # the client's text: escaped in the line
    with caplog.at_level(logging.INFO, logger="ddcards.server"), \
            grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        for kind, request in (("unary_unary", b"\xff"), ("stream_stream", iter([b"a", b"b"]))):
            with pytest.raises(grpc.RpcError) as info:
                answer = getattr(channel, kind)(path)(request, timeout=10)
                list(answer) if kind == "stream_stream" else answer
            assert (info.value.code(), info.value.details()) == (grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        expected = "rpc method=/ddcards.v2.SolverService/Solve\\x1b[31m game=- status=UNIMPLEMENTED "
        assert wait_until(lambda: sum(m.startswith(expected) for m in _messages(caplog)) == 2, timeout=5), \
            _messages(caplog)
        games = pb_grpc.SolverServiceStub(channel).ListGames(pb.ListGamesRequest(), timeout=10).games
    assert [game.name for game in games] == ["marias", "klaverjas", "mariasz", "prsi"]      # and it serves on


def test_a_document_with_an_id_is_solved_as_the_cli_solves_it(client):
    """RULES §0.11 rule 4: the id labels the document; the service takes it as the CLI does."""
    answer = client.solve(json.dumps(dict(ddcards.example("marias-hra"), id="deal-7")))
    assert answer["value"] == 70


def test_a_stream_stopped_by_the_shutdown_logs_the_nodes_of_the_search_it_stopped(caplog):
    """It logged nodes=0: the stream's handler was closed before the stopped search reported."""
    with caplog.at_level(logging.INFO, logger="ddcards.server"):
        with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
            stream = c.solve_many([ENDLESS], mode="best", timeout=30)
            reader = threading.Thread(target=lambda: pytest.raises(grpc.RpcError, list, stream), daemon=True)
            reader.start()
            assert wait_until(lambda: srv.pool.busy == 1, timeout=5.0, step=0.001)
            time.sleep(0.2)
            srv.stop(0.1)
            reader.join(timeout=10)
        stopped = "rpc method=SolveStream game=mariasz status=UNAVAILABLE "
        assert wait_until(lambda: any(m.startswith(stopped) for m in _messages(caplog)), timeout=5), _messages(caplog)
    line = [m for m in _messages(caplog) if m.startswith(stopped)][-1]
    assert int(re.search(r" nodes=(\d+) ", line).group(1)) > 0, line


def test_the_servers_own_limit_stops_a_search_the_call_left_unbounded():
    # --max-search-seconds: a call with no deadline and no timeout_seconds on a search that takes
    # minutes (a fresh 36-card Mariasz deal) would hold a worker all that time; the server's own
    # limit stops it and says so. A call's smaller limit is its own, and says nothing of the server.
    doc = json.dumps(ENDLESS)
    with running_server(workers=1, max_search_seconds=0.4) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            c.stub.Solve(pb.SolveRequest(document_json=doc), timeout=60)
        assert time.monotonic() - start < 10
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert info.value.details().startswith("search stopped at the server's limit: the search ran out of time "
                                               "after ")
        assert info.value.details().endswith(" (the server stops a search after 0.4 s: --max-search-seconds)")
        assert error_details(info.value)["reason"] == "SEARCH_TIMEOUT"
        with pytest.raises(grpc.RpcError) as info:
            c.stub.Solve(pb.SolveRequest(document_json=doc, timeout_seconds=0.1), timeout=60)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED and "--max-search-seconds" not in \
            info.value.details()
        # a stream's item: an in-band error saying the same, and the stream goes on
        requests = [pb.SolveStreamRequest(id="long", solve=pb.SolveRequest(document_json=doc)),
                    pb.SolveStreamRequest(id="quick", solve=pb.SolveRequest(document_json=json.dumps(_quick_doc())))]
        out = {r.id: r for r in c.stub.SolveStream(iter(requests), timeout=60)}
        assert out["long"].error.code_name == "DEADLINE_EXCEEDED"
        assert out["long"].error.message.endswith("(the server stops a search after 0.4 s: --max-search-seconds)")
        assert out["quick"].WhichOneof("outcome") == "result"
    with pytest.raises(ValueError, match="max_search_seconds"):
        with running_server(workers=1, max_search_seconds=0):
            pass
