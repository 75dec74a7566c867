"""Fuzzing the Python API with hostile documents (issue 10): nothing but the project's errors.

Every input either is accepted — and then the position is usable: solved, analysed,
round-tripped — or raises a DdcardsError subclass with a token and a rule whose message
prints as UTF-8.  Never a ValueError, TypeError, KeyError, RecursionError or UnicodeError.
The budget is DDCARDS_FUZZ_EXAMPLES per test (docs/FUZZING.md).
"""
from __future__ import annotations

import json

import pytest

from _fuzz_strategies import FUZZ, document_texts, mutated_documents
from hypothesis import event, given

import ddcards
from ddcards import DdcardsError
from ddcards.ddtable import dd_table


def assert_project_error(err: BaseException) -> None:
    assert isinstance(err, DdcardsError), f"{type(err).__name__}: {err!r:.300}"
    assert err.token is not None and err.rule, repr(err)
    message = str(err)
    message.encode("utf-8")                        # printable: no lone surrogate
    str(err.token).encode("utf-8")
    assert 0 < len(message) < 2000, message[:200]


def accepted(call):
    """The value of `call()`, or None after checking that it failed with a project error, or
    that its search stopped on time (a valid position too big for the budget, such as a
    Mariasz deal with most of its stock to come: SearchTimeout, not bad input)."""
    try:
        value = call()
    except ddcards.SearchTimeout:
        event("valid, not solved within the budget")
        return None
    except Exception as err:                       # noqa: BLE001 - the property under test
        assert_project_error(err)
        event(f"rejected: {type(err).__name__}")  # --hypothesis-show-statistics counts them
        return None
    event("accepted")
    return value


def check_usable(pos: ddcards.Position) -> None:
    again = ddcards.Position.from_json(pos.to_json())
    assert again == pos
    # Every view of an accepted position works and prints (a view once crashed for two games).
    shown = str(pos)
    shown.encode("utf-8")
    assert len(pos.hands) >= 2 and all(isinstance(card, ddcards.Card) for hand in pos.hands for card in hand)
    assert isinstance(pos.score, ddcards.Score) and isinstance(pos.table, dict)
    assert all(f"seat {seat}" in shown for seat in range(len(pos.hands)))
    if pos.is_over:
        return
    try:
        res = ddcards.solve(pos, mode="best", timeout=2)
    except ddcards.SearchTimeout:
        # A valid position can be too big to solve in the budget (a Mariasz deal with most of
        # its stock to come): the search stops on time, which is what is asked of it.
        event("valid, not solved within 2 s")
        return
    assert res.best_move in pos.legal_moves
    json.dumps(res.to_dict())


@FUZZ
@given(mutated_documents())
def test_from_dict_and_solve(doc):
    pos = accepted(lambda: ddcards.Position.from_dict(doc))
    if pos is not None:
        check_usable(pos)


@FUZZ
@given(document_texts())
def test_from_json_text_and_bytes(data):
    pos = accepted(lambda: ddcards.Position.from_json(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    again = accepted(lambda: ddcards.Position.from_json(text))
    assert (pos is None) == (again is None) and pos == again
    if pos is not None:
        check_usable(pos)


@FUZZ
@given(mutated_documents() | document_texts().map(lambda b: b.decode("utf-8", "replace")))
def test_solve_and_analyse_take_documents_and_text(doc):
    res = accepted(lambda: ddcards.solve(doc, mode="optimal", timeout=5))
    if res is not None:
        assert set(res.optimal_moves) <= {m.move for m in res.moves}
        try:
            an = ddcards.analyse(doc, timeout=20)
        except ddcards.SearchTimeout:
            # An analysis searches from the deal's start, which can take far longer than the
            # position solved (a Mariasz deal with most of its stock to come): it stops on time.
            event("analysis from the deal's start: not finished within 20 s")
            return
        # The analysis and the solve value the end from the same view, except in Prší,
        # where a solve takes the view of the player to move, an analysis that of the
        # player who starts (docs/RULES.md §4.9), unless options.player names one.
        if an.final is not None and (res.game != "prsi" or an.final.to_move == res.to_move):
            assert an.final_value == res.value
        assert an.final is not None and an.final.value == an.final_value
        # From the record's end (RULES §0.10, from_ply): no step, the same final value; past it, refused.
        recorded = len(res.position.get("played", []))
        tail = ddcards.analyse(doc, timeout=20, from_ply=recorded)
        assert tail.steps == [] and tail.initial_value == tail.final_value == an.final_value
        with pytest.raises(ddcards.InvalidOptionError, match="from_ply is a whole number from 0 to"):
            ddcards.analyse(doc, from_ply=recorded + 1)


@FUZZ
@given(mutated_documents(names=("klaverjas",)) | mutated_documents())
def test_dd_table(doc):
    table = accepted(lambda: dd_table(doc, timeout=30))
    if table is not None and table["game"] == "marias":            # the contract table (§1.13)
        moneys = [row["money"] for row in table["entries"]]
        assert moneys == sorted(moneys, reverse=True) and all(isinstance(m, int) for m in moneys)
    elif table is not None:
        assert set(table["values"]) == {"S", "H", "D", "C"}
        assert all(isinstance(v, int) for pair in table["values"].values() for v in pair)
