"""Prší through every interface: the Python API, the result document, the analysis, the exact
analysis, the command line and the gRPC service (the values are hand-checked in
test_prsi_rules.py and checked against the reference in test_differential_prsi.py)."""
import json
import subprocess
import sys

import grpc
import pytest

import ddcards
from ddcards import InvalidOptionError, SearchTimeout
from ddcards.report.render import render

try:
    from tests.reference import prsi as ref
except ImportError:                                   # run from tests/ (sys.path holds it)
    from reference import prsi as ref

ENDGAME = ddcards.example("prsi-endgame")     # seat 0 faces a 7: drawing the penalty wins in 11
FRESH = ddcards.example("prsi")               # a fresh two-player deal: QS/D wins in 11


def test_solve_the_endgame():
    res = ddcards.solve(ENDGAME)
    assert (res.value, res.distance, res.horizon, res.value_kind) == (1, 11, 20, "outcome")
    assert res.to_move == 0 and res.optimal_moves == ["draw"] and res.won
    assert [(m.move, m.value, m.distance, m.optimal) for m in res.moves] == [
        ("7D", 0, None, False), ("draw", 1, 11, True)]
    assert len(res.pv) == 11 and res.pv[0] == "draw" and res.settlement == [1, -1]
    assert res.scores["seat0"] == 0 and res.outcomes == {"seat0_out": True, "seat1_out": False}
    # the line is legal and ends with seat 0 out
    end = ddcards.Position.from_dict(dict(ENDGAME, played=ENDGAME["played"] + res.pv))
    assert end.is_over
    # the plain reference (tests/reference/prsi.py): drawing wins within 11 plies, not within 10
    rules, state, player, _ = ref.from_document(ENDGAME)
    assert ref.solve(rules, state, player, 11) == {"value": 1, "moves": {"7D": 0, "draw": 1}}
    assert ref.solve(rules, state, player, 10)["value"] == 0


def test_a_horizon_of_250_plies_is_answered_where_ends_are_forced_sooner():
    """RULES §4.9: a search within more than 20 plies tries shorter horizons first (12, 16, ...), and
    the first that shows a forced end shows the end within any longer one. Within 250 plies, the
    most the rules allow, the search within the whole horizon alone would not finish (the four-player
    example, every first move: 0.03 s within 40 plies, 4.9 s within 60, not one first move answered
    in 120 s within 80)."""
    fresh = ddcards.solve(dict(FRESH, options={"horizon": 250}), mode="optimal")
    assert (fresh.value, fresh.distance, fresh.optimal_moves, fresh.horizon) == (1, 11, ["QS/D"], 250)
    four = ddcards.example("prsi-4players")
    res = ddcards.solve(dict(four, options=dict(four["options"], horizon=250)))      # every action forces an end
    assert (res.value, res.distance, res.horizon) == (-1, 23, 250)
    assert [(m.move, m.value, m.distance) for m in res.moves] == [
        ("QH/S", -1, 16), ("QH/H", -1, 16), ("QH/D", -1, 23), ("QH/C", -1, 23),
        ("QC/S", -1, 16), ("QC/H", -1, 16), ("QC/D", -1, 23), ("QC/C", -1, 23), ("draw", -1, 20)]
    assert res.optimal_moves == ["QH/D", "QH/C", "QC/D", "QC/C"] and len(res.pv) == 23
    # the analysis values a played action within the horizon less one ply, shorter ones first too
    an = ddcards.analyse(dict(four, options=dict(four["options"], horizon=250), played=["draw"]))
    step = an.steps[0]
    assert (step.value_before, step.best_distance, step.value_after, step.distance) == (-1, 23, -1, 20)
    assert step.cost == 0 and not step.mistake      # a loss either way: the value is the same


def test_the_result_document():
    d = json.loads(json.dumps(ddcards.solve(FRESH).to_dict()))
    assert (d["game"], d["value"], d["distance"], d["horizon"]) == ("prsi", 1, 11, 20)
    assert d["optimal_moves"] == ["QS/D"]
    assert {m["move"]: (m["value"], m["distance"]) for m in d["moves"]} == {
        "QS/S": (0, None), "QS/H": (-1, 16), "QS/D": (1, 11), "QS/C": (0, None), "7H": (0, None), "draw": (0, None)}
    assert d["tricks"] == {} and sum(d["settlement"]) == 0


def test_modes_value_and_player():
    best = ddcards.solve(ENDGAME, mode="best")
    assert best.moves == [ddcards.MoveValue("draw", 1, True, 11)]
    optimal = ddcards.solve(ENDGAME, mode="optimal")
    assert [(m.move, m.value) for m in optimal.moves] == [("7D", None), ("draw", 1)]
    assert ddcards.Solver().value(ENDGAME) == 1
    other = ddcards.solve(dict(ENDGAME, options={"player": 1}))
    assert (other.value, other.distance) == (-1, 11) and other.optimal_moves == ["draw"]
    assert ddcards.solve(dict(ENDGAME, options={"horizon": 10})).value == 0


def test_analyse_the_endgame():
    an = ddcards.analyse(ENDGAME)
    assert an.value_kind == "outcome" and an.initial_value == 0 and an.final_value == 1
    assert [s.ply for s in an.mistakes] == [11]
    step = an.steps[11]
    assert (step.seat, step.move, step.value_before, step.value_after, step.cost) == (1, "draw", 0, 1, 1)
    assert step.best_moves == ["7H"]
    # the view is seat 0's (who starts): seat 0's own actions cost him nothing here
    assert all(s.cost == 0 for s in an.steps if s.seat == 0)


def test_analyse_measures_within_the_same_window():
    # The value after an action is its value in the search of the position before it (the same
    # window of plies), so an optimal action keeps the value and a mistake costs what it costs there.
    doc = dict(ENDGAME, options={"horizon": 14, "player": 0})     # the analysis is seat 0's view
    an = ddcards.analyse(doc)
    for step in an.steps:
        before = ddcards.solve(dict(doc, played=doc["played"][:step.ply]))
        assert step.value_before == before.value
        assert step.value_after == before.move_values[step.move]
        assert step.mistake == (step.move not in before.optimal_moves and step.cost > 0)


def test_a_step_checked_by_a_solve_of_the_position_after_it():
    """RULES §4.9: the value after a step is a solve of the position after the action, for the
    analysis's player (who started) and a horizon one ply shorter."""
    doc = dict(ENDGAME, options={"horizon": 8})
    an = ddcards.analyse(doc)
    for step in an.steps:
        after = dict(doc, played=doc["played"][:step.ply + 1], options={"horizon": 7, "player": 0})
        assert ddcards.solve(after, mode="best").value == step.value_after, step.ply


def test_the_final_solve_of_an_analysis_is_its_players():
    """The analysis's `final` is the solve after the last action from the same player's view as
    every value of the analysis (P at the deal's start): with seat 1 to move after 13 actions it
    was seat 1's, final.value -1 against a final_value of +1."""
    doc = dict(ENDGAME, played=ENDGAME["played"][:13])
    assert ddcards.Position.from_dict(doc).to_move == 1
    an = ddcards.analyse(doc).to_dict()
    assert an["value_owner"] == an["final"]["value_owner"] == "seat 0"
    assert an["final_value"] == an["final"]["value"] == 1
    assert an["final"]["won"] is True
    # a player given in the options is kept
    mine = ddcards.analyse(dict(doc, options={"horizon": 20, "player": 1})).to_dict()
    assert mine["value_owner"] == mine["final"]["value_owner"] == "seat 1" and mine["final"]["value"] == -1


def test_a_finished_game_ends_the_analysis_with_how_it_ended():
    """A record played to the end: its final outcome is how the game ended, as `ddcards analyse`
    and `ddcards solve` print it, not "the opponent can force being out first within 20 plies",
    which the report showed for a game already over."""
    end = ENDGAME["played"] + ddcards.solve(ENDGAME).pv              # seat 0 goes out
    for player in (0, 1):
        doc = dict(ENDGAME, played=end, options={"horizon": 20, "player": player})
        assert ddcards.Position.from_dict(doc).is_over
        an = ddcards.analyse(doc, from_ply=len(ENDGAME["played"]))
        assert an.final_outcome == "the game is over: seat 0 went out first"
        assert an.final_value == an.steps[-1].value_after == (1 if player == 0 else -1)
        # the steps keep the verdict on each value (whether the outcome turned is its flip)
        assert not any(s.changes_outcome for s in an.steps)
        page = render(an.to_dict())
        final = page.split('<p class="verdict-final">')[1].split("</p>")[0]
        assert final.endswith(": the game is over: seat 0 went out first.")
        # analysed from the end: the start is that finished position too
        assert ddcards.analyse(doc, from_ply=len(end)).initial_outcome == "the game is over: seat 0 went out first"


# Three players under play_on: seat 1 goes out first with AD at ply 10; the game goes on.
OUT_FIRST = {"game": "prsi", "hands": ["J.J.K.J", "T..A8.8", ".8.T.K9"], "upcard": "TC",
             "stock": "QD TH AS AC 9H 7C 7D 8S QS JD 7H QC KH KS 7S 9D AH QH 9S",
             "options": {"horizon": 6, "play_on": True},
             "played": ["JC", "8C", "draw", "draw", "8D", "QD/S", "JS", "TS", "TD", "KD", "AD"]}
# ... and with not_last: seat 0 goes out for good with 8C at ply 9.
OUT_NOT_LAST = {"game": "prsi", "hands": ["J..T7.8", "T7..Q9.", ".K..AJT"], "upcard": "JD",
                "stock": "8S QH AH AD AS QS JH TH 7C 9H 8D QC 9C 9S KS 8H 7H KD KC",
                "options": {"horizon": 6, "play_on": True, "not_last": True},
                "played": ["TD", "QD/D", "draw", "7D", "7S", "draw", "JS", "TS", "QH/C", "8C"]}


def test_an_outcome_the_history_settled_is_said_so_not_as_a_horizon():
    """docs/RULES.md §4.9: once another seat is out first under play_on, P's -1 is settled (distance
    0); its words said "seat 0 cannot force being out first within 6 plies", as if it were about
    the horizon.  The action that settles it at no cost does not turn the outcome."""
    an = ddcards.analyse(OUT_FIRST, from_ply=8)
    assert [(s.ply, s.value_before, s.value_after, s.cost) for s in an.steps] == [
        (8, -1, -1, 0), (9, -1, -1, 0), (10, -1, -1, 0)]
    assert an.steps[1].outcome == "seat 0 cannot force being out first within 6 plies"
    assert an.steps[2].outcome == an.final_outcome == "seat 1 went out first: settled, seat 0 cannot be first"
    assert not any(s.changes_outcome for s in an.steps) and an.outcome_mistakes == []
    assert an.final.distance == 0
    # the seat to move (seat 2) as the player: the same settled words
    out = subprocess.run([sys.executable, "-m", "ddcards", "solve", "-"], input=json.dumps(OUT_FIRST),
                         capture_output=True, text=True, check=True).stdout
    assert "Value       -1  seat 1 went out first: settled, seat 2 cannot be first" in out
    # not_last: P out for good wins, settled; a seat still in is not settled by it
    an = ddcards.analyse(OUT_NOT_LAST, from_ply=8)
    assert [(s.ply, s.value_before, s.value_after, s.cost, s.changes_outcome) for s in an.steps] == [
        (8, -1, 1, 2, True), (9, 1, 1, 0, False)]
    assert an.final_outcome == "seat 0 is out: settled, he is not the one left"
    other = ddcards.analyse(dict(OUT_NOT_LAST, options=dict(OUT_NOT_LAST["options"], player=1)), from_ply=9)
    assert other.final_outcome == "seat 1 cannot force getting out within 6 plies"


def test_an_analysis_stopped_in_the_search_after_the_last_action_does_not_say_the_game_is_over(monkeypatch):
    """SearchTimeout.analysis stops at the value before the action whose search ran out of time: its
    final outcome is the verdict on that value. Stopped in the search after the action that ends the
    game, it said "the game is over: seat 0 went out first" (the session had played that action
    already), of a value and a page that stop before it."""
    from ddcards.games.prsi import PrsiSession
    end = ENDGAME["played"] + ddcards.solve(ENDGAME).pv              # seat 0 goes out at the last action
    doc = dict(ENDGAME, played=end)
    whole = ddcards.analyse(doc)
    search, calls = PrsiSession.search, []

    def counted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == len(end) + 1:       # the start, a search after each action but the last, then its
            raise SearchTimeout("the search ran out of time (stand-in)")
        return search(self, *args, **kwargs)

    monkeypatch.setattr(PrsiSession, "search", counted)
    with pytest.raises(SearchTimeout) as info:
        ddcards.Solver().analyse(doc)
    part = info.value.analysis
    assert len(part.steps) == len(end) - 1 and part.final_value == whole.steps[-2].value_after
    assert part.final_outcome == whole.steps[-2].outcome == "seat 0 can force being out first within 20 plies"


def test_exact_analysis():
    exact = dict(ENDGAME, options={"horizon": None})
    res = ddcards.solve(exact, mode="optimal")
    assert (res.value, res.distance, res.horizon, res.optimal_moves) == (1, 11, None, ["draw"])
    assert res.to_dict()["horizon"] is None
    for text in ("none", "Exact"):          # where a JSON null cannot be sent (docs/RULES.md §4.9)
        said = ddcards.solve(dict(ENDGAME, options={"horizon": text}), mode="optimal")
        assert (said.value, said.distance, said.horizon, said.optimal_moves) == (1, 11, None, ["draw"])
    with pytest.raises(InvalidOptionError, match="after '7D'") as err:
        ddcards.solve(exact, mode="all")
    assert err.value.token == "7D" and "200,000 states" in str(err.value) and "30 plies" in str(err.value)
    # a position already settled is exact at once
    done = dict(ENDGAME, played=ENDGAME["played"] + ddcards.solve(ENDGAME).pv, options={"horizon": "none"})
    res = ddcards.solve(done)
    assert (res.value, res.distance, res.moves) == (1, 0, [])


def test_exact_analysis_with_no_forced_end_is_refused_not_hung():
    with pytest.raises(InvalidOptionError, match="no side can force the end within 30 plies") as err:
        ddcards.solve(dict(FRESH, played=["QS/S"], options={"horizon": None}), timeout=120)
    assert err.value.rule == "docs/RULES.md §4.9: what is solved, within a horizon or exactly"


def test_an_exact_analysis_names_the_step_it_cannot_solve():
    # The deal's start and the record's own position solve without a horizon; the position after
    # played[1] does not: the error says so (an audit found it naming no step).
    doc = {"game": "prsi", "hands": ["T.T.J.J", "AQ.7.Q."], "upcard": "AC",
           "stock": "QC 9H AD 8H 7S JH QH 8S TC KH 7D KD KC 8C 9S 9C 8D TD KS 9D AH 7C JS",
           "options": {"horizon": None}, "played": ["pass", "QD/S", "TS"]}
    assert ddcards.solve(doc, mode="optimal").value == 1                        # the player to move wins
    assert ddcards.solve(dict(doc, played=[]), mode="optimal").value == -1
    with pytest.raises(InvalidOptionError) as err:
        ddcards.analyse(doc)
    assert str(err.value).startswith("analysing the position after played[1] 'QD/S': options.horizon null: "
                                     "no side can force the end within 30 plies")
    assert err.value.rule == "docs/RULES.md §4.9: what is solved, within a horizon or exactly"
    assert err.value.field == "options.horizon"


def test_an_exact_analysis_names_the_deal_start_it_cannot_solve():
    # The record's own position solves without a horizon, its deal's start does not: the error
    # says it was the start (an audit found it reading as the document's own position).
    doc = dict(ddcards.example("prsi-endgame"), options={"horizon": None})
    assert ddcards.solve(doc, mode="optimal").value == 1
    with pytest.raises(InvalidOptionError) as err:
        ddcards.analyse(doc)
    assert str(err.value).startswith("analysing the deal's start (before played[0]): options.horizon null: "
                                     "no side can force the end within 30 plies")
    assert (err.value.token, err.value.field) == ("horizon", "options.horizon")
    assert err.value.rule == "docs/RULES.md §4.9: what is solved, within a horizon or exactly"
    # with nothing recorded, the start is the document's own position: its error unchanged
    with pytest.raises(InvalidOptionError) as err:
        ddcards.analyse(dict(doc, played=[]))
    assert str(err.value).startswith("options.horizon null: ")


@pytest.mark.parametrize("name, horizon", [("prsi-endgame", 14), ("prsi", 12), ("prsi-4players", 10)])
def test_two_threads_answer_as_one(name, horizon):
    """The root split over threads (Solver.solve(threads=)) sets every helper board's
    player and horizon: the same values, distances and optimal actions as one thread."""
    doc = dict(ddcards.example(name), options={**ddcards.example(name).get("options", {}), "horizon": horizon})
    one = ddcards.Solver().solve(doc, mode="all")
    two = ddcards.Solver().solve(doc, mode="all", threads=2)
    assert (two.value, two.distance, two.optimal_moves) == (one.value, one.distance, one.optimal_moves)
    assert [(m.move, m.value, m.distance) for m in two.moves] == [(m.move, m.value, m.distance) for m in one.moves]
    assert ddcards.Solver().value(doc, threads=2) == one.value


def test_timeout():
    with pytest.raises(SearchTimeout):
        ddcards.solve(dict(FRESH, options={"horizon": 60}), timeout=0.05)


def test_a_timeout_counts_the_nodes_of_every_horizon_searched():
    """Within 60 plies the fresh deal is searched within 12, 16, ... plies first; every first action
    (mode all) that forces no end there is searched on, which runs past the time. The stop counts
    the nodes of those shorter searches too, not only the one it stopped."""
    solver = ddcards.Solver()
    with pytest.raises(SearchTimeout) as stop:
        solver.solve(dict(FRESH, options={"horizon": 60}), timeout=0.5)
    assert stop.value.nodes > solver.last_nodes > 0          # last_nodes: the search it stopped
    assert str(stop.value).startswith(f"the search ran out of time after {stop.value.nodes:,} nodes")


def test_a_stop_while_the_other_actions_are_searched_on_says_what_the_shorter_horizon_answered():
    """Within 45 plies, QS/D forces a win in 11 (found within 12 plies at once); the other actions,
    which force no end that soon, are searched on and take longer than the time given. The stop
    (and the ticker, progress_now) says the win found, not "0 of 6 answered": the searches after an
    action are not of this position, so the core's own progress knew nothing of it."""
    with pytest.raises(SearchTimeout) as stop:
        ddcards.Solver().solve(dict(FRESH, options={"horizon": 45}), timeout=1.5)
    progress = stop.value.progress
    assert progress is not None and progress.moves == 6 and progress.answered >= 1
    assert (progress.value, progress.move, progress.at_least) == (1, "QS/D", True)
    assert str(stop.value).endswith(f"; by then {progress}")


def test_games_registry():
    info = ddcards.find_game("Prší")
    assert info.name == "prsi" and info.seats == (2, 3, 4, 5, 6)
    assert [o.name for o in info.options] == ["horizon", "player", "play_on", "not_last", "return"]
    assert info.option("horizon").default == 20


def test_position_round_trip_and_canonical_actions():
    p = ddcards.Position.from_dict(dict(ENDGAME, played=["OD/♣", "DRAW"]))
    assert p.played == ("QD/C", "draw")
    assert ddcards.Position.from_json(p.to_json()) == p
    assert "options" not in p.to_dict()           # the default horizon is not written out


# ---------------------------------------------------------------- the command line

def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "ddcards", *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def test_cli_solve_and_analyse():
    out = run("solve", "--example", "prsi-endgame")
    assert out.returncode == 0, out.stderr
    assert "seat 0 can force being out first within 20 plies, the end in 11 plies" in out.stdout
    assert "Moves       7D +0  draw +1 in 11" in out.stdout and "top               7H, 7s active: draw 2" in out.stdout
    assert "tricks" not in out.stdout
    out = run("solve", "--example", "prsi-endgame", "--json")
    doc = json.loads(out.stdout)
    assert doc["distance"] == 11 and doc["moves"][1] == {"move": "draw", "value": 1, "optimal": True, "distance": 11}
    out = run("analyse", "--example", "prsi-endgame")
    assert out.returncode == 0, out.stderr
    assert "seat 0's view" in out.stdout and "Mistakes    1: ply 11 draw (seat 1, cost 1)" in out.stdout
    # the value is seat 1's: the mover, seat 0, is his opponent
    other = dict(ENDGAME, options=dict(ENDGAME.get("options", {}), player=1))
    out = run("solve", "-", stdin=json.dumps(other))
    assert "\nPrší, 2 players, horizon 20 plies - seat 0 (opponent) to move\n" in out.stdout, out.stdout


def test_cli_bad_action_names_the_clause():
    out = run("solve", "-", stdin=json.dumps(dict(ENDGAME, played=ENDGAME["played"] + ["QH/S"])))
    assert out.returncode == 2
    assert "docs/RULES.md §4.5: 7s stack" in out.stderr and "'QH/S'" in out.stderr


def test_cli_games_lists_prsi():
    out = run("games")
    assert "prsi: Prší (2/3/4/5/6 players)" in out.stdout and "option horizon (int 1..250, default 20)" in out.stdout


# ---------------------------------------------------------------- the service

@pytest.fixture(scope="module")
def client():
    from _server_helpers import running_server
    from ddcards.client import Client

    with running_server(workers=1) as server, Client(f"127.0.0.1:{server.port}", timeout=60) as c:
        yield c


def test_service_solves_as_the_library(client):
    got = client.solve(ENDGAME)
    assert (got["game"], got["value"], got["distance"], got["horizon"]) == ("prsi", 1, 11, 20)
    assert [(m["move"], m["value"], m["distance"]) for m in got["moves"]] == [("7D", 0, None), ("draw", 1, 11)]
    assert got["pv"] == ddcards.solve(ENDGAME).pv


def test_service_structured_actions_and_exact(client):
    from ddcards.server import convert
    from ddcards.v1 import ddcards_pb2 as pb

    message = convert.doc_to_position(ENDGAME)
    message.played[0].CopyFrom(pb.Action(card=pb.Card(rank=pb.RANK_QUEEN, suit=pb.SUIT_DIAMONDS),
                                         named_suit=pb.SUIT_CLUBS))     # "QD/C" as a structured action
    assert client.solve(message)["value"] == 1
    raw = client.solve(ENDGAME, as_dict=False)
    assert raw.game == pb.GAME_PRSI
    ober = next(a for a in raw.principal_variation if "/" in a.notation)
    assert ober.card.rank == pb.RANK_QUEEN and convert.SUIT_LETTERS[ober.named_suit] == ober.notation[-1]
    # horizon null travels in the JSON document (an OptionValue cannot be null) or as "none"
    got = client.solve(dict(ENDGAME, options={"horizon": None}), mode="optimal")
    assert (got["value"], got["distance"], got["horizon"]) == (1, 11, None)
    message = convert.doc_to_position(dict(ENDGAME, options={"horizon": "none"}))
    assert client.solve(message, mode="best")["distance"] == 11


def test_service_errors_and_list_games(client):
    with pytest.raises(grpc.RpcError) as err:
        client.solve(dict(ENDGAME, played=ENDGAME["played"] + ["pass"]))
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "aces skip" in err.value.details()
    games = {g["name"]: g for g in client.list_games()}
    assert games["prsi"]["seats"] == [2, 3, 4, 5, 6]
    assert [o["name"] for o in games["prsi"]["options"]] == ["horizon", "player", "play_on", "not_last", "return"]


def test_service_analysis(client):
    got = client.analyse(ENDGAME)
    assert got["mistakes"] == [11] and got["final_value"] == 1


def test_deepen_searches_ever_longer_horizons():
    from ddcards.games.prsi import deepen

    steps = deepen(FRESH, 600.0, last=14)                       # (milliseconds, in fact)
    assert [s.horizon for s in steps] == list(range(1, 15))
    for s in steps:
        want = ddcards.Solver().solve(dict(FRESH, options={"horizon": s.horizon}), mode="best")
        assert (s.value, s.distance) == (want.value, want.distance)
    assert (steps[10].value, steps[10].distance) == (1, 11) and steps[9].value == 0
    assert deepen(FRESH, 0.0) == []
    assert [s.horizon for s in deepen(FRESH, None, last=3)] == [1, 2, 3]      # no time limit: to `last`
    with pytest.raises(InvalidOptionError, match="Prší"):
        deepen(ddcards.example("marias-hra"), 1.0)


@pytest.mark.parametrize("seconds", [float("nan"), -1.0])
def test_deepen_refuses_a_time_budget_that_is_no_time(seconds):
    """A NaN budget deepened on to horizon 250 (NaN <= 0 is false): refused as a timeout is."""
    from ddcards.games.prsi import deepen

    with pytest.raises(InvalidOptionError, match="seconds is a number of seconds, at least 0") as err:
        deepen(FRESH, seconds)
    assert err.value.field == "seconds"


@pytest.mark.parametrize("kwargs, error, field, words", [
    ({"first": "a"}, "InvalidArgumentTypeError", "first", "first is a horizon, a whole number from 1 to 250"),
    ({"first": 0}, "InvalidOptionError", "first", "not 0"),              # was taken as 1
    ({"last": 0}, "InvalidOptionError", "last", "not 0"),                # was an empty list
    ({"last": 251}, "InvalidOptionError", "last", "not 251"),
    ({"first": 5, "last": 3}, "InvalidOptionError", "first", "first (5) is after last (3)"),
    ({"tt_mb": 0}, "InvalidOptionError", "tt_mb", "is too small"),      # a plain ValueError
    ({"tt_mb": "a"}, "InvalidArgumentTypeError", "tt_mb", "a whole number of MiB"),   # a plain TypeError
    ({"tt_mb": None}, "InvalidArgumentTypeError", "tt_mb", "a whole number of MiB"),
    ({"tt_mb": 10 ** 9}, "InvalidOptionError", "tt_mb", "is too large"),   # a plain MemoryError
])
def test_deepen_says_what_is_wrong_with_each_argument(kwargs, error, field, words):
    # README: a bad argument is a DdcardsError whatever is wrong with it (plain Python errors, or a silent fix)
    from ddcards.games.prsi import deepen

    with pytest.raises(getattr(ddcards, error)) as err:
        deepen(FRESH, 1.0, **kwargs)
    assert type(err.value).__name__ == error and err.value.field == field and words in str(err.value)


@pytest.mark.parametrize("tt_mb, said", [(0, "is too small"), (10 ** 9, "is too large")])
def test_deepen_tt_mb_out_of_range_advises_what_deepen_takes(tt_mb, said):
    """The message said "give None for a table sized per game", which deepen refuses (tt_mb None is
    an InvalidArgumentTypeError there): it says what leaving tt_mb out gives instead."""
    from ddcards.api import tt_mb_limit
    from ddcards.games.prsi import deepen

    with pytest.raises(ddcards.InvalidOptionError) as err:
        deepen(FRESH, 1.0, tt_mb=tt_mb)
    assert str(err.value) == (f"tt_mb {tt_mb} {said}: a table takes 1 to {tt_mb_limit():,} MiB (this machine's "
                              f"memory); leave it out for the default, 2 MiB")
    assert "None" not in str(err.value) and err.value.field == "tt_mb"
    with pytest.raises(ddcards.InvalidOptionError, match="give None for a table sized per game"):
        ddcards.Solver(tt_mb=tt_mb)          # (where None is taken, it is still the advice)


def test_deepen_takes_numpys_integers_as_every_whole_number_argument():
    # README: a whole-number argument takes any integer type; deepen said "not np.int64(2)" of them
    import numpy as np                      # (a test extra)
    from ddcards.games.prsi import deepen

    got = deepen(FRESH, None, first=np.int64(2), last=np.int32(4), tt_mb=np.int64(4))
    assert [s.horizon for s in got] == [2, 3, 4]
    assert [(s.value, s.distance) for s in got] == [(s.value, s.distance) for s in deepen(FRESH, None, first=2,
                                                                                           last=4)]
    with pytest.raises(ddcards.InvalidArgumentTypeError, match=r"^first is a horizon, a whole number from 1 to "
                                                              r"250, not True$"):
        deepen(FRESH, None, first=True)         # a bool is no horizon, numpy's or Python's


def test_deepen_takes_a_position_as_solve_does():
    from ddcards.games.prsi import deepen

    text = json.dumps(FRESH)
    assert [(s.horizon, s.value) for s in deepen(text, None, last=3)] == \
        [(s.horizon, s.value) for s in deepen(ddcards.Position.from_dict(FRESH), None, last=3)]


def test_a_history_past_a_thousand_actions_is_a_document_like_any_other():
    """RULES §4.1: played holds up to 1,748 actions; the document limits (§0.11 rule 2) leave room
    for them, so a long game's position round-trips and its best action can be played (a list of
    1,000 items was the most a document held)."""
    pos = ddcards.Position.from_dict(ddcards.example("prsi"))
    for _ in range(1200):
        pos = pos.play("draw")
    assert len(pos.played) == 1200
    assert ddcards.Position.from_dict(pos.to_dict()) == pos
    result = ddcards.solve(pos, mode="best")
    after = pos.play(result.optimal_moves[0])
    assert ddcards.Position.from_dict(after.to_dict()) == after and len(after.played) == 1201



def test_a_full_history_lists_no_legal_action_as_play_takes_none():
    """RULES §4.1: played holds at most 1,748 actions. A position holding that many listed a dozen
    legal_moves and is_legal('draw') was True, while play() refused every one of them: a bot
    playing on until is_over crashed on a move the position called legal (an audit). Now it lists
    none, is_legal says False, and play() still says why; the position is not over (the game is
    not) and one action short of it plays as any other."""
    full = ddcards.Position.from_dict(dict(FRESH, played=["draw"] * 1748))
    assert not full.is_over and full.to_move == 0
    assert full.legal_moves == ()
    assert not full.is_legal("draw") and not full.is_legal("KH")
    for move in ("draw", "KH"):
        with pytest.raises(ddcards.IllegalPlayError, match="a history holds at most 1748 actions") as info:
            full.play(move)
        assert info.value.rule == "docs/RULES.md §4.1: a history holds at most 1,748 actions"
    short = full.undo()
    assert short.legal_moves and all(short.is_legal(move) for move in short.legal_moves)
    assert all(short.play(move).ply == 1748 for move in short.legal_moves)


def test_a_solve_looks_no_further_than_the_historys_limit():
    """RULES §4.1 and §4.9: no action follows the 1,748th, so the limit ends the window as a horizon
    does. At the limit a solve listed a dozen actions the position refuses and a 20-action line past
    it; 8 actions short of it, a line of 20 that could not be recorded. Now the window ends there
    (the value and every action's value are those of an 8-ply horizon, the line can be played to
    its end), without a horizon too, and at the limit nothing is ranked.  A horizon over 20 plies,
    whose shorter ones tried first (§4.9) already reach the limit, stops at them."""
    near = ddcards.Position.from_dict(dict(FRESH, played=["draw"] * 1740))
    within_8 = ddcards.solve(dict(near.to_dict(), options={"horizon": 8}))
    for options in ({"horizon": 20}, {"horizon": 250}, {"horizon": None}):
        result = ddcards.solve(dict(near.to_dict(), options=options))
        assert result.value == within_8.value == 0
        assert [(m.move, m.value) for m in result.moves] == [(m.move, m.value) for m in within_8.moves]
        assert len(result.moves) == len(near.legal_moves) == 12
        assert 0 < len(result.pv) <= 8
        line = near
        for move in result.pv:
            line = line.play(move)          # every action of the line can be recorded
        assert len(line.played) <= 1748
    full = ddcards.Position.from_dict(dict(FRESH, played=["draw"] * 1748))
    for options in ({"horizon": 20}, {"horizon": 250}, {"horizon": None}, {"horizon": None, "play_on": True}):
        result = ddcards.solve(dict(full.to_dict(), options=options))
        assert (result.value, result.moves, result.optimal_moves, result.pv) == (0, [], [], [])
        assert result.to_move == 0


#: seat 0 holds JH on TH (seat 1 drew three cards): JH puts him out at once
def test_the_words_say_where_the_historys_limit_ends_the_window():
    """RULES §4.1 and §4.9: within H plies of the 1,748th action the window ends there. The words
    said "neither side can force the end within 20 plies" 4 plies short of the limit, and an exact
    0 there read as a draw: they now say that the play stops at the limit, and how far it is."""
    limit = "docs/RULES.md §4.1: a history holds at most 1,748 actions"
    near = json.dumps(dict(FRESH, played=["draw"] * 1744))
    out = run("solve", "-", stdin=near)
    assert out.returncode == 0, out.stderr
    assert ("Value       +0  neither side can force the end within 20 plies: the play stops at the history's "
            f"limit, 1,748 actions, 4 plies from here ({limit})\n") in out.stdout, out.stdout
    exact = json.dumps(dict(FRESH, played=["draw"] * 1748, options={"horizon": None}))
    out = run("solve", "-", stdin=exact)
    assert out.returncode == 0, out.stderr
    assert (f"Value       +0  neither side can force the end: no action follows the history's 1,748th, the most "
            f"a position holds ({limit})\n") in out.stdout, out.stdout
    # in an analysis, each step's words: the window of the last ones reaches the limit
    analysis = ddcards.analyse(dict(FRESH, played=["draw"] * 1748, options={"horizon": 4}), from_ply=1743)
    assert [step.outcome for step in analysis.steps] == ["neither side can force the end within 4 plies"] + [
        f"neither side can force the end within 4 plies: the play stops at the history's limit, 1,748 actions, "
        f"{left} {'ply' if left == 1 else 'plies'} from here ({limit})" for left in (3, 2, 1)] + [
        f"neither side can force the end within 4 plies: no action follows the history's 1,748th, the most a "
        f"position holds ({limit})"]
    # a window short of the limit, or that ends at it anyway, says nothing of it
    assert ddcards.analyse(dict(FRESH, played=["draw"] * 1744, options={"horizon": 4}),
                           from_ply=1744).final_outcome == "neither side can force the end within 4 plies"
    far = ddcards.analyse(dict(FRESH, played=["draw"] * 30, options={"horizon": 4}), from_ply=30)
    assert far.final_outcome == "neither side can force the end within 4 plies"


NEAR_END = {"game": "prsi", "hands": ["8H 9H TH JH", "KS KD 9D KC"], "upcard": "KH",
            "stock": "7S 8S 9S TS JS QS AS 7H QH AH 7D 8D TD JD QD AD 7C 8C 9C TC JC QC AC",
            "played": ["8H", "draw", "9H", "draw", "TH", "draw"]}


def test_report_of_an_exact_analysis_falls_back_to_the_optimal_actions():
    """`ddcards report` asks every action's value (mode all); without a horizon an action whose
    value cannot be proven used to fail the whole page though `ddcards analyse` (mode optimal)
    answers the same document: the report now shows the optimal actions' proven values."""
    from ddcards.games.prsi import unproven_action
    from ddcards.report import report_html
    exact = dict(NEAR_END, options={"horizon": None})        # seat 0 plays JH and is out; 'draw' unproven
    with pytest.raises(InvalidOptionError, match="after 'draw'") as err:
        ddcards.analyse(exact, mode="all")
    assert unproven_action(err.value)
    assert ddcards.analyse(exact).final_value == 1
    page = report_html(exact)
    assert page.startswith("<!DOCTYPE html>") and '"final_value": 1' in page
    # a position itself unproven is still refused, naming the limits
    with pytest.raises(InvalidOptionError, match="no side can force the end within 30 plies") as err:
        report_html(dict(FRESH, played=["QS/S"], options={"horizon": None}), timeout=120)
    assert not unproven_action(err.value)


def test_board_solves_an_exact_position_with_an_unproven_action():
    """The board's /api/solve (mode all, no mode to choose) falls back to the optimal actions'
    values where an action's value cannot be proven without a horizon; the others show "?"."""
    try:
        from tests._browser import call, running_board
    except ImportError:
        from _browser import call, running_board
    exact = dict(NEAR_END, options={"horizon": None})
    with running_board() as (url, _):
        status, got = call(url + "/api/solve", {"position": exact})
    assert status == 200, got
    assert (got["value"], got["distance"], got["optimal_moves"]) == (1, 1, ["JH"])
    assert {m["move"]: m["value"] for m in got["moves"]} == {"JH": 1, "draw": None}


def test_cli_words_one_ply_and_an_exact_legend():
    """'the end in 1 plies' read wrong, and an exact analysis's legend said 'within the horizon'."""
    out = run("solve", "-", stdin=json.dumps(dict(NEAR_END, options={"horizon": 20})))
    assert "seat 0 can force being out first within 20 plies, the end in 1 ply\n" in out.stdout, out.stdout
    out = run("analyse", "-", stdin=json.dumps(dict(NEAR_END, options={"horizon": None})))
    assert out.returncode == 0, out.stderr
    assert "-1 a loss, exactly)" in out.stdout and "within the horizon" not in out.stdout, out.stdout
    out = run("analyse", "-", stdin=json.dumps(dict(NEAR_END, options={"horizon": 20})))
    assert "-1 a loss, within the horizon)" in out.stdout, out.stdout


@pytest.mark.parametrize("variants,goal", [({}, "being out first"), ({"play_on": True}, "being out first"),
                                            ({"play_on": True, "not_last": True}, "getting out (not being the one left)")])
def test_cli_legend_of_more_players_is_paranoid(variants, goal):
    # With three or more players -1 is not a loss but "cannot force it" against the others
    # together (docs/RULES.md §4.9); an action is an action, not a card.
    doc = dict(ddcards.example("prsi-4players"), options={**variants, "horizon": 8}, played=["draw"])
    out = run("analyse", "-", stdin=json.dumps(doc))
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if not line.startswith("#")]
    assert lines[0].endswith(f"(seat 0's view: +1 forces {goal} against all the others together, -1 cannot, "
                             "within the horizon)"), lines[0]
    assert lines[1].split() == ["ply", "seat", "action", "before", "after", "cost", "best"]


def test_cli_the_one_left_under_return_holds_no_cards():
    """play_on with return: the last card of the only other player still in puts the waiting
    player out and leaves its player alone, the loser *with no cards* (docs/RULES.md §4.8);
    the verdict said 'the one left with cards'."""
    doc = {"game": "prsi", "hands": ["8H 9S TD JC", "8S 9D TC JH"], "upcard": "8C",
           "stock": "7S TS JS QS KS AS 7H 9H TH QH KH AH 7D 8D JD QD KD AD 7C 9C QC KC AC",
           "played": ["8H", "8S", "9S", "9D", "TD", "TC", "JC", "JH"], "options": {"return": True, "play_on": True}}
    pos = ddcards.Position.from_dict(doc)
    assert pos.is_over and [len(h) for h in pos.hands] == [0, 0]
    res = ddcards.solve(pos)
    assert (res.value, res.distance, res.settlement) == (1, 0, [1, -1])
    out = run("solve", "-", stdin=json.dumps(doc))
    assert "the game is over: seat 1 is the one left, the loser\n" in out.stdout, out.stdout


@pytest.mark.parametrize("horizon", ["default", None])
def test_a_steps_distances_are_the_action_and_the_best_ones_in_every_mode(horizon):
    """RULES §0.10: a Prší step's distance is the action's own (its MoveValue.distance in mode all)
    and best_distance the best actions' (the value before's), in mode optimal too, within a horizon
    and in the exact analysis; the command line says them where an action kept the value slowly."""
    doc = ddcards.example("prsi-4players")
    doc = dict(doc, played=ddcards.solve(doc, mode="best").pv[:8])
    if horizon is None:
        doc["options"] = dict(doc.get("options") or {}, horizon=None)
    every = ddcards.analyse(doc, mode="all")
    optimal = ddcards.analyse(doc, mode="optimal")
    for a, o in zip(every.steps, optimal.steps, strict=True):
        soon = {m.move: m.distance for m in a.moves}
        assert o.distance == a.distance == soon[a.move]
        assert {soon[m] for m in a.best_moves} == {o.best_distance} == {a.best_distance}
    # the loser's QC/D at ply 4 ends it a ply sooner than the best (19), within the horizon or not
    slow = [(s.ply, s.move, s.cost, s.distance, s.best_distance) for s in optimal.steps if s.move not in s.best_moves]
    assert slow == [(4, "QC/D", 0, 18, 19)]
    if horizon is None:
        out = subprocess.run([sys.executable, "-m", "ddcards", "analyse", "-"], input=json.dumps(doc),
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert "QC/D" in out.stdout and "<- kept the value, not the best: the end in 18 plies, the best's in 19" \
            in out.stdout
