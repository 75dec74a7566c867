"""Mariasz through every interface: documents and their errors, the Python API, the result
document, the command line and the gRPC service (docs/RULES.md §3.2, §3.11, §3.12)."""
from __future__ import annotations

import json
import subprocess
import sys

import grpc
import pytest

import ddcards
from ddcards.errors import IllegalPlayError, InvalidCardError, InvalidDealError, InvalidOptionError

try:
    from tests.reference import mariasz as m
except ImportError:                                   # run from tests/ (sys.path holds it)
    from reference import mariasz as m

from _server_helpers import running_server  # noqa: E402

A = {"game": "mariasz", "hands": ["AKQ.6.7.8", "T9.A.6.97"],
     "stock": "JS 8H QD 6C TH 9D KC 7S 8D QH JC AD 6S KD TC 9H 8S JD AC KH JH TD QC 7H"}
KIKS = ddcards.example("mariasz-kiks")
THREE = ddcards.example("mariasz-three")


def rejected(doc, error, token, *words):
    with pytest.raises(error) as info:
        ddcards.Position.from_dict(doc)
    err = info.value
    assert err.token == token, (err.token, str(err))
    assert err.rule, str(err)
    for word in words:
        assert word in f"{err} [{err.rule}]", (str(err), err.rule)
    return err


# --------------------------------------------------------------------------- documents (§3.2, §3.12)

def test_document_round_trips_in_canonical_form():
    p = ddcards.Position.from_dict(dict(A, played=["KS", "9s", "EXCHANGE"]))
    doc = p.to_dict()
    assert doc == {"game": "mariasz", "hands": ["AKQ.6.7.8", "T9.A.6.97"], "stock": A["stock"], "trump": "H",
                   "objective": "points", "played": ["KS", "9S", "exchange"]}
    assert ddcards.Position.from_json(p.to_json()) == p
    race = ddcards.Position.from_dict(dict(A, objective="race", start_scores=[40, 7]))
    assert race.to_dict()["first_deal"] is False and race.to_dict()["start_scores"] == [40, 7]
    assert ddcards.Position.from_dict(dict(A, objective="race")).to_dict()["first_deal"] is True
    assert ddcards.Position.from_dict({"game": "Mariasz Polski", **{k: v for k, v in A.items() if k != "game"}})


@pytest.mark.parametrize("change, error, token, words", [
    ({"hands": ["AKQ.6.7.8"]}, InvalidDealError, "hands", ["2 hands"]),
    ({"hands": ["AKQ.6.7.", "T9.A.6.97"]}, InvalidDealError, "hand 0", ["5 cards", "6"]),
    ({"stock": A["stock"].replace("7H", "7S")}, InvalidDealError, "7S", ["twice"]),
    ({"stock": A["stock"][:-3]}, InvalidDealError, "stock", ["24 cards", "not 23"]),
    ({"stock": None}, InvalidDealError, "stock", ["needs the stock", "§3.2"]),
    ({"trump": "S"}, InvalidOptionError, "S", ["contradicts the turned card 7H", "§3.2"]),
    ({"objective": "kilo"}, InvalidOptionError, "kilo", ["points and race"]),
    ({"start_scores": [1, 2]}, InvalidOptionError, "start_scores", ["race objective only"]),
    ({"objective": "race", "start_scores": [131, 0]}, InvalidOptionError, "131", ["0..130"]),
    ({"objective": "race", "start_scores": [1]}, InvalidOptionError, "[1]", ["2 scores"]),
    ({"objective": "race", "start_scores": [5, 0], "first_deal": True}, InvalidOptionError, "first_deal",
     ["earlier deals"]),
    ({"leader": 2}, InvalidOptionError, "2", ["seat 0..1"]),
    ({"options": {"player": 1}}, InvalidOptionError, "player", ["three players only"]),
    ({"options": {"slepy": True}}, InvalidOptionError, "trump", ["drawn before the deal"]),
    ({"options": {"variant": "kiks"}}, InvalidDealError, "hands", ["4 hands"]),
    ({"options": {"szlifowany": True}}, InvalidCardError, "7D", ["szlifowany deck", "6 T J Q K A"]),
    ({"options": {"misere": True}}, InvalidOptionError, "misere", ["unknown option"]),
    ({"contract": "hra"}, InvalidOptionError, "hra", ["single contract"]),
    ({"talon": "7S 8S"}, InvalidOptionError, "talon", ["does not apply"]),
    ({"played": ["KS", "ZZ"]}, InvalidCardError, "ZZ", ["played[1]", "'exchange'"]),
])
def test_bad_documents_are_rejected(change, error, token, words):
    doc = dict(A)
    for key, value in change.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    rejected(doc, error, token, *words)


def test_variant_specific_errors():
    rejected(dict(KIKS, stock="6S"), InvalidOptionError, "stock", "no stock", "§3.10")
    rejected(dict(KIKS, options={"variant": "kiks", "szlifowany": True}), InvalidOptionError, "szlifowany",
             "36-card deck")
    no_trump = {k: v for k, v in KIKS.items() if k != "trump"}
    rejected(no_trump, InvalidOptionError, "trump", "dealer's last card")
    # ślepy: drawn before the deal, not the dealer's last card's suit (§3.10)
    err = rejected(dict(no_trump, options={"variant": "kiks", "slepy": True}), InvalidOptionError, "trump",
                   "ślepy Kiks needs the trump suit drawn before the deal", "§3.10: ślepy")
    assert "dealer's last card" not in str(err)
    rejected({k: v for k, v in THREE.items() if k != "trump"} | {"options": {**THREE["options"], "slepy": True}},
             InvalidOptionError, "trump", "ślepy Mariasz for three needs the trump suit drawn before the deal")
    # the dealer (seat 2) must hold a card of the trump suit: swap his 6C for seat 0's KD
    void = dict(THREE, hands=["AT.K6.J.QT6", "Q.QJ.T6.AKJ", "KJ6.AT.AKQ."], trump="C")
    rejected(void, InvalidDealError, "C", "dealer (seat 2) holds no C", "slepy")
    assert ddcards.Position.from_dict(dict(void, options={**THREE["options"], "slepy": True}))
    rejected(dict(THREE, options={**THREE["options"], "player": 3}), InvalidOptionError, "3", "from 0 to 2, not 3")
    rejected(dict(THREE, objective="race", start_scores=[0, 0]), InvalidOptionError, "[0, 0]", "3 scores")


def test_hands_for_another_variant_name_the_variant():
    """Three or four hands without the variant (or two with one) say which option seats them:
    "needs 2 hands, got 3" alone does not tell how to ask for the three-player game."""
    no_variant = {k: v for k, v in THREE.items() if k != "options"}
    rejected(no_variant, InvalidDealError, "hands", "needs 2 hands", "got 3", "option variant 'three'", "§0.6 rule 3")
    rejected({k: v for k, v in KIKS.items() if k != "options"}, InvalidDealError, "hands", "got 4",
             "option variant 'kiks'")
    rejected(dict(THREE, hands=A["hands"]), InvalidDealError, "hands", "needs 3 hands", "got 2",
             "option variant 'standard'")
    rejected(dict(A, hands=["..."] * 5), InvalidDealError, "hands", "(field 'hands'), got 5 (")   # no variant seats 5


def test_the_szlifowany_deck_without_its_option_says_so():
    """The 24 cards of the szlifowany deck without option szlifowany: the option was left out, not
    cards played (three players' 8-card hands were told to give back the cards played)."""
    szl = ddcards.example("mariasz-szlifowany")
    err = rejected(dict(szl, options={}), InvalidDealError, "stock", "not 12", "set option 'szlifowany'")
    assert "§3.2" in err.rule
    err = rejected(dict(THREE, options={"variant": "three"}), InvalidDealError, "hand 0", "8 cards",
                   "hold 12", "set option 'szlifowany'")
    assert "cards played" not in str(err)
    # a short hand of the full deck keeps its own hint
    err = rejected(dict(A, hands=["AKQ.6.7.", "T9.A.6.97"]), InvalidDealError, "hand 0", "5 cards")
    assert "szlifowany" not in str(err)


def test_illegal_history_names_the_action_and_clause():
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(A, played=["KS", "KS"]))
    assert info.value.token == "KS" and "played[1]" in str(info.value) and "already been played" in str(info.value)
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(A, played=["JS"]))
    assert "still in the stock" in str(info.value)
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(A, played=["TS"]))
    assert "in seat 1's hand, not seat 0's" in str(info.value)


# --------------------------------------------------------------------------- the API and the result

def test_solve_result_document():
    res = ddcards.solve(ddcards.example("mariasz"))
    doc = res.to_dict()
    assert doc["game"] == "mariasz" and doc["value_kind"] == "points" and doc["to_move"] == 0
    assert set(doc["scores"]) == {"seat0", "seat1", "seat0_marriages", "seat1_marriages"}
    assert doc["scores"]["seat0"] - doc["scores"]["seat1"] == doc["value"]
    assert doc["tricks"]["seat0"] + doc["tricks"]["seat1"] == 18
    assert sum(doc["settlement"]) == 0 and doc["outcomes"] == {}
    best = {m["move"] for m in doc["moves"] if m["optimal"]}
    assert best == set(doc["optimal_moves"]) and doc["pv"][0] in best


def test_race_from_the_first_trick():
    res = ddcards.solve(ddcards.example("mariasz-race"))
    assert res.value_kind == "outcome" and res.value in (-1, 0, 1)
    assert "exchange" in res.move_values and res.scores["stake"] in (0, 1)   # a later deal: sympla
    claimer = [k for k, v in res.outcomes.items() if k.endswith("_claims") and v]
    assert len(claimer) == (res.value != 0)
    an = ddcards.analyse(dict(ddcards.example("mariasz-race"), played=res.pv[:4]))
    assert an.value_kind == "outcome" and an.initial_value == res.value


def test_modes_and_values_agree():
    doc = ddcards.example("mariasz-phase2")
    every = ddcards.solve(doc, mode="all")
    optimal = ddcards.solve(doc, mode="optimal")
    best = ddcards.solve(doc, mode="best")
    assert every.value == optimal.value == best.value == ddcards.Solver().value(doc)
    assert set(optimal.optimal_moves) == set(every.optimal_moves)
    assert best.optimal_moves[0] in every.optimal_moves


def test_the_phase2_example_is_in_phase_2():
    # its name says so: the stock used up, seat 0 leading the first trick of phase 2 (it used to be
    # the last trick of phase 1, two cards left in the stock)
    pos = ddcards.Position.from_dict(ddcards.example("mariasz-phase2"))
    assert pos.table["stock"] == () and pos.to_move == 0 and len(pos.played) == 25
    assert pos.legal_moves == ("AS", "8S", "9H", "6H", "AD", "KD")
    res = ddcards.solve(pos)
    assert (res.value, res.optimal_moves, res.scores["seat0"], res.scores["seat1"]) == (64, ["AD", "KD"], 101, 37)
    assert len(res.pv) == 12                 # six tricks of phase 2
    # the same figures from the plain reference (tests/reference/mariasz.py, written from the rules)
    ref = m.reference_solve(ddcards.example("mariasz-phase2"))
    assert ref["value"] == 64 and sorted(a for a, v in ref["moves"].items() if v == 64) == ["AD", "KD"]
    assert {a: v for a, v in ref["moves"].items()} == {mv.move: mv.value for mv in res.moves}
    end = m.from_doc(dict(ddcards.example("mariasz-phase2"), played=list(pos.played) + list(res.pv)))
    assert end.over and (m.scores(end)["seat0"], m.scores(end)["seat1"]) == (101, 37)


def test_analyse_a_recorded_deal():
    an = ddcards.analyse(ddcards.example("mariasz-recorded"))
    assert an.game == "mariasz" and len(an.steps) == 25 and an.steps[0].move == "exchange"
    assert [(s.ply, s.move) for s in an.mistakes] == [(3, "QD"), (8, "KD")]
    assert all(s.cost > 0 for s in an.mistakes)
    assert an.final_value == ddcards.solve(ddcards.example("mariasz-recorded")).value


def test_games_registry_lists_mariasz():
    info = ddcards.find_game("mariasz")
    assert info is ddcards.find_game("Polish Mariasz") and info.seats == (2, 3, 4)
    assert set(info.objectives["play"]) == {"points", "race"}
    assert {o.name for o in info.options} == {"variant", "szlifowany", "slepy", "must_beat",
                                             "marriage_on_second", "player"}
    assert info.option("variant").choices == ("standard", "kiks", "three")


# --------------------------------------------------------------------------- the command line

def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ddcards", *args], capture_output=True, text=True, timeout=300)


def test_cli_solve_shows_the_stock_and_groups_the_exchange():
    out = run("solve", "--example", "mariasz-race")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Mariasz, trumps H, race from 95/102 - seat 0 (forehand) to move" in text
    assert "stock             7C 7H 9S" in text
    line = next(l for l in text.splitlines() if l.startswith("Line"))[len("Line"):]
    first = line.split("|")[0].split()
    assert first[0] == "exchange" and len(first) == 3         # the exchange goes with the trick it opens
    assert "Value       -1  seat 1 reaches 131 first (totals" in text


def test_cli_games_and_examples():
    out = run("games")
    assert "mariasz: Mariasz (Polish) (2/3/4 players)" in out.stdout
    assert 'option variant (str, default "standard") [standard|kiks|three]' in out.stdout
    names = run("examples").stdout.split()
    assert {"mariasz", "mariasz-phase2", "mariasz-race", "mariasz-kiks", "mariasz-three", "mariasz-szlifowany",
            "mariasz-recorded"} <= set(names)


def test_cli_bad_input_exits_2(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(A, played=["exchange", "exchange"])))
    out = run("solve", str(path))
    assert out.returncode == 2 and "played[1] 'exchange' by seat 0: " in out.stderr and "§3.7" in out.stderr


# --------------------------------------------------------------------------- the service

def test_service_solves_and_lists_mariasz():
    from ddcards.client import Client
    from ddcards.server import convert
    from ddcards.v1 import ddcards_pb2 as pb

    with running_server(workers=1) as server, Client(f"127.0.0.1:{server.port}", timeout=120) as client:
        games = {g["name"]: g for g in client.list_games()}
        assert games["mariasz"]["seats"] == [2, 3, 4]
        assert {o["name"] for o in games["mariasz"]["options"]} >= {"variant", "must_beat", "marriage_on_second"}
        raw = client.list_games(as_dict=False)
        assert next(g for g in raw.games if g.name == "mariasz").game == pb.GAME_MARIASZ
        doc = dict(ddcards.example("mariasz-race"), played=["exchange"])
        message = convert.doc_to_position(doc)
        assert message.start_scores == [95, 102] and list(message.played)[0].notation == "exchange"
        got = client.solve(message)
        want = ddcards.solve(doc)
        assert got["value"] == want.value and got["value_kind"] == "outcome" and got["scores"] == want.scores
        assert {m["move"]: m["value"] for m in got["moves"]} == want.move_values
        assert got["outcomes"] == want.outcomes
        with pytest.raises(grpc.RpcError) as info:
            client.solve(dict(A, played=["AS", "exchange"]))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "§3.7" in info.value.details()
        # An empty start_scores is no race's scores: the client must not drop it on the way
        # (a message's repeated field has no "empty"), so the service refuses it as the library does.
        bad = dict(ddcards.example("mariasz-race"), start_scores=[])
        with pytest.raises(ddcards.InvalidOptionError) as lib:
            ddcards.Position.from_dict(bad)
        with pytest.raises(grpc.RpcError) as info:
            client.solve(bad)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and info.value.details() == str(lib.value)


def test_three_players_win_with_a_positive_settlement_not_a_positive_value():
    """Three players' points (§3.8, §3.9): the value is the player's deal points, positive once he
    takes a point; `won` says whether his settlement (3 x own − all points) is positive."""
    doc = {"game": "mariasz", "trump": "C", "hands": ["KJ.A6.T6.KT", "Q.JT.AKQ.J6", "AT6.KQ.J.AQ"],
           "options": {"szlifowany": True, "variant": "three", "must_beat": True, "player": 1},
           "played": ["KC", "6C", "QC", "AC", "TC", "JC", "AS", "KS", "QS", "JD", "TD", "AD"]}
    result = ddcards.solve(doc)
    points = [result.scores[f"seat{seat}"] for seat in range(3)]
    assert result.value == points[1] == 53
    assert result.settlement == [3 * p - sum(points) for p in points] == [-107, 1, 106]
    assert result.won
    lost = ddcards.solve(ddcards.example("mariasz-three"))        # solved for seat 0
    assert lost.value == 29 and lost.settlement[0] == -51 and not lost.won
    two = ddcards.solve(ddcards.example("mariasz-szlifowany"))
    assert two.won == (two.value > 0) == (two.settlement[0] > 0)
