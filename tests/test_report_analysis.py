"""What the analysis carries for the report and the board (issue 15).

``Solver.analyse(..., mode="all")`` lists every legal card's value at each step; every step
says whether the card changed the outcome, who won the trick it completed and the score after
it; ``final`` is the solve after the last card.  Checked against the plain-Python reference
(trick winners, scores, and the exact values of the last tricks), against ``ddcards.solve``
on the same positions, and on the hand-checked seed deal.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import ddcards

try:
    from tests import _report_deals as deals
    from tests.reference import klaverjas as ref_klaverjas
    from tests.reference import marias as ref_marias
    from tests.reference import mariasz as ref_mariasz
except ImportError:  # pytest put tests/ itself on sys.path
    import _report_deals as deals
    from reference import klaverjas as ref_klaverjas
    from reference import marias as ref_marias
    from reference import mariasz as ref_mariasz

ALL_DEALS = [pytest.param(d, id=f"marias-{i}") for i, d in enumerate(deals.marias_deals())] + \
            [pytest.param(d, id=f"klaverjas-{i}") for i, d in enumerate(deals.klaverjas_deals())]


@pytest.fixture(scope="module")
def seed_all():
    return ddcards.analyse(deals.seed_deal(), mode="all")


def test_seed_deal_hand_checked(seed_all):
    # The seed's line (tests/reference/marias.py): QH announces 40 but loses 20 against the
    # best leads; 7H (seat 1) and AH (seat 0) lose 20 each; the declarer wins throughout.
    an = seed_all
    assert (an.initial_value, an.final_value) == (70, 50)
    assert [(s.ply, s.move, s.cost) for s in an.mistakes] == [(0, "QH", 20), (9, "7H", 20), (24, "AH", 20)]
    assert an.outcome_mistakes == [] and all(s.outcome == "declarer wins" for s in an.steps)
    assert an.initial_outcome == an.final_outcome == "declarer wins"
    first = an.steps[0]
    assert {m.move: m.value for m in first.moves} == {
        "AS": 70, "TS": 70, "AH": 70, "KH": 50, "QH": 50, "9H": 50, "AD": 70, "TD": 70, "8C": 50, "7C": 50}
    # Tricks: seat 1 takes the first three (TH over QH; AC; TC), the declarer the next six, seat 1 the last.
    assert [s.trick_winner for s in an.steps if s.trick_winner is not None] == [1, 1, 1, 0, 0, 0, 0, 0, 0, 1]
    assert an.steps[2].score == {"declarer": 40, "defenders": 10}       # 40 for the marriage; T and 7 won by seat 1
    assert an.steps[-1].score == {"declarer": 90, "defenders": 40}
    assert an.final is not None and an.final.pv == [] and an.final.scores == {"declarer": 90, "defenders": 40}
    assert an.final.settlement == [4, -2, -2] and an.final.won


def test_seed_deal_view(seed_all):
    deal = seed_all.deal
    assert deal["roles"] == ["declarer", "defender", "defender"]
    assert deal["hands"] == ["AT.AKQ9.AT.87", "KQ.JT87.KQ.AT", "J987..J987.QJ"]
    assert deal["talon"] == "9C KC" and deal["to_move"] == 0 and deal["trick_size"] == 3
    assert deal["suit_names"] == ["zelené", "červené", "kule", "žaludy"]
    assert deal["value_owner"] == "declarer" and deal["sides"] == ["declarer", "defenders"]
    assert deal["position"] == ddcards.Position.from_dict(deals.seed_deal()).to_dict()
    assert deal["score"] == {"declarer": 0, "defenders": 0}


@pytest.mark.parametrize("doc", ALL_DEALS)
def test_trick_winners_and_scores_match_the_reference(doc):
    an = ddcards.analyse(doc)
    states = deals.replay(doc)
    assert len(an.steps) == len(states) == len(doc["played"])
    for step, state in zip(an.steps, states):
        done = not state.trick                       # the reference cleared the table: a trick ended
        assert step.trick_winner == (state.leader if done else None), step
        if doc["game"] == "marias":
            assert step.score == state.scores(), step
        elif state.over:
            assert {k: step.score[k] for k in ("playing", "other")} == state.scores()
        else:
            assert (step.score["playing"], step.score["other"]) == state.points
            assert (step.score["playing_roem"], step.score["other_roem"]) == state.roem


def _mariasz_deals():
    import random
    rng = random.Random(20261203)
    three = ref_mariasz.random_history(rng, ref_mariasz.random_deal(rng, variant="three", szlifowany=True), 9)
    return [pytest.param(ddcards.example("mariasz-recorded"), id="mariasz-recorded"),
            pytest.param(ddcards.example("mariasz-kiks"), id="mariasz-kiks"),
            pytest.param(three, id="mariasz-three")]


@pytest.mark.parametrize("doc", _mariasz_deals())
def test_mariasz_trick_winners_match_the_reference(doc):
    """Mariasz's analysis names who won each trick (it named no one: the exchange leaves the
    table empty too, so its tricks were not told apart); the exchange ends none."""
    an = ddcards.analyse(doc)
    state = ref_mariasz.from_doc(dict(doc, played=[]))
    assert len(an.steps) == len(doc["played"]) > 0
    for step, action in zip(an.steps, doc["played"]):
        state = state.play(action)
        done = action != ref_mariasz.EXCHANGE and not state.trick
        assert step.trick_winner == (state.leader if done else None), step
    assert sum(s.trick_winner is not None for s in an.steps) >= 2
    assert an.to_dict()["deal"]["trick_size"] == len(doc["hands"])


@pytest.mark.parametrize("doc", ALL_DEALS)
def test_every_card_value_matches_solve(doc):
    an = ddcards.analyse(doc, mode="all")
    assert an.mode == "all"
    pos = ddcards.Position.from_dict(dict(doc, played=[]))
    for step in an.steps:
        res = ddcards.solve(pos)
        assert [m.to_dict() for m in step.moves] == [m.to_dict() for m in res.moves]
        assert step.value_before == res.value and set(step.best_moves) == set(res.optimal_moves)
        pos = pos.play(step.move)
    assert an.final.value == an.final_value == ddcards.solve(pos).value


@pytest.mark.parametrize("doc", ALL_DEALS)
def test_last_tricks_match_the_reference_minimax(doc):
    # The reference minimax is slow: it checks the moves of the last two tricks.
    an = ddcards.analyse(doc, mode="all")
    size = 3 if doc["game"] == "marias" else 4
    ref = ref_marias if doc["game"] == "marias" else ref_klaverjas
    for step in an.steps[-2 * size:]:
        want = ref.reference_solve(dict(doc, played=doc["played"][:step.ply]))
        assert {m.move: m.value for m in step.moves} == want["moves"], step.ply


@pytest.mark.parametrize("doc", ALL_DEALS)
def test_outcome_changes_are_the_verdict_flips(doc):
    an = ddcards.analyse(doc)
    outcome = an.initial_outcome
    for step in an.steps:
        assert step.changes_outcome == (step.outcome != outcome)
        assert not step.changes_outcome or step.mistake       # only a costly card turns the outcome
        if an.value_kind == "points":
            # Mariáš hra and Klaverjas: the maximising side wins exactly when the value is positive
            assert (step.value_after > 0) == step.outcome.startswith(("declarer wins", "the playing team makes"))
        outcome = step.outcome
    assert an.final_outcome == outcome


def test_outcome_mistakes_in_the_deals():
    # Seeded deals whose turning cards are known: Mariáš hra -30 -> +30 over three turns,
    # a Sedma lost at the first card, a Rotterdam Klaverjas deal made and lost again.
    hra, sedma = deals.marias_deals()[1:3]
    an = ddcards.analyse(hra)
    assert (an.initial_value, an.final_value) == (-30, 30)
    assert [s.ply for s in an.outcome_mistakes] == [16, 18, 25]
    an = ddcards.analyse(sedma)
    assert (an.initial_value, an.final_value) == (1, -1)
    assert [(s.ply, s.cost, s.outcome) for s in an.outcome_mistakes] == [(0, 2, "defeated")]
    an = ddcards.analyse(deals.klaverjas_deals()[2])
    assert an.initial_outcome.startswith("nat") and an.final_outcome.startswith("nat")
    assert [s.ply for s in an.outcome_mistakes] == [4, 23]
    assert an.steps[4].outcome == "the playing team makes it"


def test_unfinished_record_has_the_continuation():
    doc = dict(deals.seed_deal())
    doc["played"] = doc["played"][:7]                       # two tricks and a card
    an = ddcards.analyse(doc, mode="all")
    res = ddcards.solve(doc)
    assert an.final.pv == res.pv and an.final.scores == res.scores and an.final.settlement == res.settlement
    assert an.final.to_move == 2 and [m.move for m in an.final.moves] == [m.move for m in res.moves]


def test_mode_optimal_keeps_the_steps_light():
    an = ddcards.analyse(deals.seed_deal())
    assert an.mode == "optimal" and all(s.moves == [] for s in an.steps)
    with pytest.raises(ddcards.InvalidOptionError) as err:
        ddcards.analyse(deals.seed_deal(), mode="every")
    assert err.value.token == "every"


def test_analysis_document_carries_the_report(seed_all):
    doc = json.loads(json.dumps(seed_all.to_dict(), ensure_ascii=False))
    assert doc["mode"] == "all" and doc["outcome_mistakes"] == []
    assert doc["deal"]["roles"] == ["declarer", "defender", "defender"]
    step = doc["steps"][0]
    assert step["moves"][0] == {"move": "AS", "value": 70, "optimal": True, "distance": None}
    assert step["changes_outcome"] is False and step["outcome"] == "declarer wins"
    assert doc["steps"][2]["trick_winner"] == 1 and doc["steps"][2]["score"] == {"declarer": 40, "defenders": 10}
    assert doc["final"]["scores"] == {"declarer": 90, "defenders": 40} and doc["final"]["settlement"] == [4, -2, -2]


def test_cli_analyse_mode_all():
    out = subprocess.run([sys.executable, "-m", "ddcards", "analyse", "--example", "marias-seed", "--json",
                          "--mode", "all"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["mode"] == "all" and len(doc["steps"][0]["moves"]) == 10
    assert doc["steps"][24]["moves"] == [{"move": "AH", "value": 50, "optimal": False, "distance": None},
                                         {"move": "9H", "value": 70, "optimal": True, "distance": None}]


def test_cli_analyse_mode_all_shows_every_move_s_value_in_text_too():
    out = subprocess.run([sys.executable, "-m", "ddcards", "analyse", "--example", "--mode", "all"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    row = lines.index(next(line for line in lines if line.startswith("   0    0  QH")))
    assert lines[row + 1].split() == ["moves", "AS", "+70", "TS", "+70", "AH", "+70", "KH", "+50", "QH", "+50",
                                      "9H", "+50", "AD", "+70", "TD", "+70", "8C", "+50", "7C", "+50"]
    plain = subprocess.run([sys.executable, "-m", "ddcards", "analyse", "--example"],
                           capture_output=True, text=True, timeout=120)
    assert "moves " not in plain.stdout and plain.stdout.splitlines()[2].startswith("   0    0  QH")


def test_an_analysis_in_mode_best_is_refused():
    """Mode best names one optimal move where each step lists all of them (best_moves): it gave
    best_moves ['7D'] for a 7S that cost nothing."""
    with pytest.raises(ddcards.InvalidOptionError, match="an analysis takes mode optimal or all, not best") as err:
        ddcards.analyse(deals.seed_deal(), mode="best")
    assert err.value.field == "mode" and err.value.rule.startswith("docs/RULES.md §0.10")
    with pytest.raises(ddcards.InvalidOptionError, match=r"unknown mode 'fast' \(an analysis's modes: optimal, all;") \
            as err:
        ddcards.analyse(deals.seed_deal(), mode="fast")
    assert err.value.rule.startswith("docs/RULES.md §0.10")      # not the solve's modes, best among them
