"""The Python API (ddcards.solve / analyse / Solver / CancelToken / results).

Properties that tie the answers together: the three modes agree, the principal
variation is legal and reaches the solved value, solving after a PV move keeps the
value, equivalent cards get equal values, play analysis chains its values; plus
cancellation, timeouts, threads and the JSON form of the results.
"""
from __future__ import annotations

import copy
import dataclasses
import doctest
import importlib
import json
import pickle
import re
import random
import html
import subprocess
import sys
import threading
import time

import pytest

import ddcards
from ddcards.games.base import OptionInfo
from ddcards.notation import format_hand, parse_cards

try:
    from tests._long_search import ENDLESS
except ImportError:  # pytest put tests/ itself on sys.path
    from _long_search import ENDLESS

SEED = ddcards.example("marias-seed")
START = ddcards.example("marias-hra")
DECK = [r + s for s in "SHDC" for r in "AKQJT987"]
HRA_ORDER = "789JQKTA"          # lowest first
BETL_ORDER = "789TJQKA"


# --------------------------------------------------------------------------- positions

def random_deal(seed: int, contract: str = "hra") -> dict:
    """A random deal (Hra: no ace or ten in the talon; a random trump)."""
    rng = random.Random(seed)
    while True:
        cards = DECK[:]
        rng.shuffle(cards)
        talon = cards[30:]
        if contract != "hra" or not any(c[0] in "AT" for c in talon):
            break
    doc = {"game": "marias", "contract": contract,
           "hands": [format_hand(parse_cards(cards[i:i + 10])) for i in (0, 10, 20)],
           "talon": " ".join(talon)}
    if contract == "hra":
        doc["trump"] = "SHDC"[rng.randrange(4)]
    return doc


def random_position(seed: int, contract: str, plies: int) -> ddcards.Position:
    """A random deal with `plies` random legal cards played."""
    rng = random.Random(seed * 7919 + plies)
    p = ddcards.Position.from_dict(random_deal(seed, contract))
    for _ in range(plies):
        if p.to_move is None:
            break
        p = p.play(rng.choice(sorted(p.legal_moves)))
    return p


# Full deals that solve in a few milliseconds, and endgames of every contract, mid-trick too.
# The last Betl: its root split learns a losing lead's value (-1) before the winning one's, which
# modes best and optimal must not report (an audit found 7C listed with -1 in both).
FULL_DEALS = [START, random_deal(1), random_deal(4), random_deal(16), random_deal(3, "betl"),
              random_deal(5, "durch"),
              {"game": "marias", "contract": "betl", "hands": ["87.T7.987.T97", "QT9.Q98.K.AK8", "AKJ.AKJ.AQ.QJ"],
               "talon": "JD TD"}]
ENDGAMES = [random_position(s, c, n) for s, c, n in [
    (11, "hra", 21), (12, "hra", 22), (13, "hra", 23), (14, "hra", 24), (15, "hra", 26),
    (16, "hra", 18), (17, "hra", 19), (21, "betl", 21), (22, "betl", 22), (23, "betl", 25),
    (31, "durch", 21), (32, "durch", 23), (33, "durch", 24),
]] + [ddcards.Position.from_dict(dict(SEED, played=SEED["played"][:n])) for n in (12, 19, 24, 25, 27)]
POSITIONS = [ddcards.Position.from_dict(d) for d in FULL_DEALS] + ENDGAMES


def pid(p: ddcards.Position) -> str:
    d = p.to_dict()
    return f"{d['contract']}{d.get('trump', '')}-{len(d['played'])}"


def is_max(seat: int) -> bool:
    return seat == 0          # Mariáš: the declarer maximises


# --------------------------------------------------------------------------- modes

@pytest.mark.parametrize("p", POSITIONS, ids=pid)
def test_modes_agree(p):
    all_ = ddcards.solve(p, mode="all")
    opt = ddcards.solve(p, mode=ddcards.Mode.OPTIMAL)
    best = ddcards.solve(p, mode="best")
    legal = set(p.legal_moves)
    assert all_.mode == "all" and opt.mode == "optimal" and best.mode == "best"
    assert all_.value == opt.value == best.value
    assert all_.to_move == opt.to_move == best.to_move == p.to_move

    # all: every legal move with its exact value; the value is the mover's best
    assert {m.move for m in all_.moves} == legal
    assert len(all_.moves) == len(legal)
    values = {m.move: m.value for m in all_.moves}
    assert all(isinstance(v, int) for v in values.values())
    pick = max if is_max(p.to_move) else min
    assert all_.value == pick(values.values())
    optimal = {m for m, v in values.items() if v == all_.value}
    assert {m.move for m in all_.moves if m.optimal} == optimal
    assert set(all_.optimal_moves) == optimal
    assert all_.best_move in optimal and all_.best_move == (all_.pv or all_.optimal_moves)[0]   # move and line agree

    # optimal: every legal move, a value only for the optimal ones
    assert {m.move for m in opt.moves} == legal
    assert set(opt.optimal_moves) == optimal
    for m in opt.moves:
        if m.optimal:
            assert m.value == opt.value
        else:
            assert m.value is None

    # best: one optimal move
    assert len(best.moves) == 1 and best.moves[0].optimal and best.moves[0].value == best.value
    assert best.optimal_moves == [best.moves[0].move]
    assert best.optimal_moves[0] in optimal


@pytest.mark.parametrize("p", POSITIONS, ids=pid)
def test_principal_variation_is_legal_and_reaches_the_value(p):
    res = ddcards.solve(p)
    contract = p.to_dict()["contract"]
    if contract == "hra":
        assert res.pv, "a position with moves left has a principal variation"
    if res.pv:
        assert res.pv[0] in res.optimal_moves
    q = p
    for move in res.pv:
        assert move in q.legal_moves
        q = q.play(move)
    end = ddcards.solve(q)
    assert end.value == res.value
    assert end.scores == res.scores and end.tricks == res.tricks
    assert end.won == res.won and end.settlement == res.settlement
    if contract == "hra":
        # to the end of the deal; the value is the final score difference
        assert q.to_move is None and end.pv == []
        assert res.value == res.scores["declarer"] - res.scores["defenders"]
        assert res.tricks["declarer"] + res.tricks["defenders"] == 10
    else:
        # Betl/Durch: the PV stops once the outcome is settled
        assert res.value in (1, -1)
        assert res.scores == res.tricks
        settled = (res.tricks["declarer"] > 0) if contract == "betl" else (res.tricks["defenders"] > 0)
        assert settled or res.tricks["declarer"] + res.tricks["defenders"] == 10
        assert (res.value == 1) == (not settled)
        if not res.pv:
            # nothing to decide: the outcome was settled before this position (a lost
            # contract), but the remaining cards are still legal moves, all worth -1
            assert res.value == -1 and p.to_move is not None
            assert {m.move for m in res.moves} == set(p.legal_moves)
            assert all(m.value == -1 and m.optimal for m in res.moves)


@pytest.mark.parametrize("p", POSITIONS, ids=pid)
def test_solving_after_an_optimal_move_keeps_the_value(p):
    res = ddcards.solve(p)
    for move in {*res.pv[:1], *res.optimal_moves[:2]}:
        assert ddcards.solve(p.play(move)).value == res.value
    # and after any move its reported value
    for m in res.moves[:4]:
        assert ddcards.solve(p.play(m.move), mode="best").value == m.value


def _live_between(p: ddcards.Position, a: str, b: str, order: str) -> bool:
    """Is some card of the suit ranked strictly between a and b still in a hand or in the trick?"""
    d = p.to_dict()
    played = d["played"]
    complete = played[:len(played) - len(played) % 3]
    out = set(complete) | set(d["talon"].split())
    lo, hi = sorted((order.index(a[0]), order.index(b[0])))
    return any(r + a[1] not in out for r in order[lo + 1:hi])


def _check_equivalent_cards(p: ddcards.Position) -> int:
    """Assert equal values for touching cards of one hand; return how many pairs were checked."""
    d = p.to_dict()
    hra = d["contract"] == "hra"
    order = HRA_ORDER if hra else BETL_ORDER
    values = ddcards.solve(p).move_values
    moves = sorted(values)
    checked = 0
    for i, a in enumerate(moves):
        for b in moves[i + 1:]:
            if a[1] != b[1]:
                continue
            if hra:
                # same card points, and no marriage card
                if (a[0] in "AT") != (b[0] in "AT") or {a[0], b[0]} & {"K", "Q"}:
                    continue
            if _live_between(p, a, b, order):
                continue
            assert values[a] == values[b], (pid(p), a, b, values)
            checked += 1
    return checked


def test_equivalent_cards_get_equal_values():
    # Two legal cards of one suit with no live card ranked between them (played cards
    # of finished tricks and the talon do not count; cards of the current trick do) are
    # interchangeable — in Hra when they also carry the same points and neither is a
    # marriage card.
    checked = sum(_check_equivalent_cards(p) for p in POSITIONS)
    assert checked >= 10


def test_equivalent_cards_example():
    # Seed deal, after QH TH: seat 2 (J987..J987.QJ, no trumps) may discard anything.
    # 9S 8S 7S are touching, as are 9D 8D 7D: each group must share one value.
    res = ddcards.solve(dict(START, played=["QH", "TH"]))
    v = res.move_values
    assert v["9S"] == v["8S"] == v["7S"]
    assert v["9D"] == v["8D"] == v["7D"]


# --------------------------------------------------------------------------- analysis

@pytest.fixture(scope="module")
def seed_analysis():
    return ddcards.analyse(SEED)


def test_analyse_chains_values(seed_analysis):
    an = seed_analysis
    assert an.game == "marias" and an.value_kind == "points"
    assert len(an.steps) == 30
    assert an.initial_value == ddcards.solve(START).value
    assert an.final_value == ddcards.solve(SEED).value == 50
    assert an.steps[0].value_before == an.initial_value
    assert an.steps[-1].value_after == an.final_value
    for prev, nxt in zip(an.steps, an.steps[1:]):
        assert prev.value_after == nxt.value_before
    for i, step in enumerate(an.steps):
        assert step.ply == i
        assert step.move == SEED["played"][i]


@pytest.mark.parametrize("ply", [0, 1, 9, 13, 24, 29])
def test_analyse_matches_solve(seed_analysis, ply):
    step = seed_analysis.steps[ply]
    before = ddcards.Position.from_dict(dict(SEED, played=SEED["played"][:ply]))
    after = before.play(step.move)
    res = ddcards.solve(before)
    assert step.seat == before.to_move
    assert step.value_before == res.value
    assert sorted(step.best_moves) == sorted(res.optimal_moves)
    assert step.value_after == ddcards.solve(after).value
    assert step.value_after == res.move_values[step.move]


def test_analyse_costs_and_mistakes(seed_analysis):
    for step in seed_analysis.steps:
        if step.seat == 0:
            assert step.cost == step.value_before - step.value_after
        else:
            assert step.cost == step.value_after - step.value_before
        assert step.cost >= 0                  # nobody can do better than optimal
        assert step.mistake == (step.cost > 0)
        assert step.mistake == (step.move not in step.best_moves)
    assert seed_analysis.mistakes == [s for s in seed_analysis.steps if s.cost > 0]


def test_analyse_hand_checked_mistake(seed_analysis):
    # After 8 tricks (ply 24) seat 0 holds AH 9H, seat 1 JH 8H, seat 2 JD 9D.
    # 9H: seat 1 must beat it with JH (no points), leads 8H, AH takes the last trick:
    #     declarer +10 (AH) +10 (last trick).
    # AH (played): seat 1 keeps JH by playing 8H, and JH beats 9H in the last trick:
    #     declarer +10, defenders +10 (last trick).  A swing of 20 points.
    step = seed_analysis.steps[24]
    assert step.move == "AH" and step.seat == 0
    assert step.best_moves == ["9H"]
    assert step.value_before - step.value_after == 20
    assert step.cost == 20 and step.mistake
    assert step in seed_analysis.mistakes


# Recorded deals of every game (Prší with a history that keeps the analysis quick).
FROM_PLY_DEALS = ["marias-seed", "mariasz-recorded", "klaverjas", "prsi-endgame"]


def _recorded(name: str) -> dict:
    doc = ddcards.example(name)
    if not doc.get("played"):                  # a deal without a record: its optimal line is one
        doc = dict(doc, played=ddcards.solve(doc, mode="best").pv)
    return doc


@pytest.mark.parametrize("name", FROM_PLY_DEALS)
@pytest.mark.parametrize("mode", ["optimal", "all"])
def test_an_analysis_from_a_later_ply_is_the_whole_one_from_there(name, mode):
    """RULES §0.10: from_ply k gives the whole analysis's steps from ply k, the value before
    played[k] as its initial value, and the same end; its deal is the position before played[k]
    as a viewer lays it out (as the record cut there shows it at its end)."""
    doc = _recorded(name)
    whole = ddcards.analyse(doc, mode=mode).to_dict()
    n = len(doc["played"])
    # RULES §0.10: a step's moves are every legal move's value in mode all, none in mode optimal
    assert all((len(s["moves"]) > 0) == (mode == "all") for s in whole["steps"])
    for k in sorted({1, n // 2, n - 1, n}):
        part = ddcards.analyse(doc, mode=mode, from_ply=k).to_dict()
        assert part["from_ply"] == k and whole["from_ply"] == 0
        assert [s["ply"] for s in part["steps"]] == list(range(k, n))
        for got, want in zip(part["steps"], whole["steps"][k:], strict=True):
            assert got == dict(want, best_moves=got["best_moves"]) and set(got["best_moves"]) == set(want["best_moves"])
        before = whole["steps"][k]["value_before"] if k < n else whole["final_value"]
        assert part["initial_value"] == before and part["final_value"] == whole["final_value"]
        assert part["mistakes"] == [ply for ply in whole["mistakes"] if ply >= k]
        assert part["final"]["value"] == whole["final"]["value"]
        cut = ddcards.analyse(dict(doc, played=doc["played"][:k]), mode=mode, from_ply=k).to_dict()
        assert {key: v for key, v in part["deal"].items() if key != "position"} == \
            {key: v for key, v in cut["deal"].items() if key != "position"}
        assert part["deal"]["position"] == whole["deal"]["position"]     # the whole record
        assert (part["deal"] == whole["deal"]) == (k == 0)


@pytest.mark.parametrize("bad, error", [(-1, ddcards.InvalidOptionError), (31, ddcards.InvalidOptionError),
                                        ("3", ddcards.InvalidArgumentTypeError),
                                        (True, ddcards.InvalidArgumentTypeError),
                                        (2.0, ddcards.InvalidArgumentTypeError)])
def test_an_analysis_from_a_ply_outside_the_record_is_refused(bad, error):
    with pytest.raises(error, match=r"from_ply is a whole number from 0 to 30, the recorded actions") as info:
        ddcards.analyse(SEED, from_ply=bad)
    assert info.value.field == "from_ply" and info.value.token == repr(bad) and "§0.10" in info.value.rule


def test_a_stopped_analysis_carries_the_analysis_of_its_finished_steps(monkeypatch):
    """SearchTimeout.analysis: the Analysis of the steps finished (the report draws it as a page),
    up to the value before the next recorded action; None where the first value was not found."""
    from ddcards.games.base import Session
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])
    whole = ddcards.Solver().analyse(doc)
    search, calls = Session.search, []

    def stopped_at(call):
        def counted(self, *args, **kwargs):
            calls.append(1)
            if len(calls) == call:
                raise ddcards.SearchTimeout("stand-in")
            return search(self, *args, **kwargs)
        calls.clear()
        monkeypatch.setattr(Session, "search", counted)

    stopped_at(5)                           # the start, the positions after 3 actions, then the 4th
    with pytest.raises(ddcards.SearchTimeout) as info:
        ddcards.Solver().analyse(doc)
    part = info.value.analysis
    assert part.steps == info.value.steps == whole.steps[:3] and part.final is None and part.from_ply == 0
    assert (part.initial_value, part.final_value) == (whole.initial_value, whole.steps[2].value_after)
    assert (part.initial_outcome, part.final_outcome) == (whole.initial_outcome, whole.steps[2].outcome)
    assert part.deal == whole.deal and part.nodes == info.value.nodes > 0 and part.game == "klaverjas"
    # printed, its value is the one after its last step (it said "Final value")
    assert (f"Value after ply 2 {whole.steps[2].value_after:+d} (the analysis stopped there; the record goes on "
            "to ply 9)") in str(part).splitlines()
    stopped_at(1)                           # the value at the start
    with pytest.raises(ddcards.SearchTimeout) as info:
        ddcards.Solver().analyse(doc)
    assert info.value.analysis is None and info.value.steps == []
    stopped_at(10)                          # from ply 2: 1 + 8 searches, then the final solve
    with pytest.raises(ddcards.SearchTimeout) as info:
        ddcards.Solver().analyse(doc, from_ply=2)
    assert info.value.analysis.steps == whole.steps[2:] and info.value.analysis.from_ply == 2
    assert info.value.analysis.final_value == whole.final_value
    assert ddcards.SearchTimeout("not an analysis").analysis is None


def test_analyse_of_a_position_without_history():
    an = ddcards.analyse(START)
    assert an.steps == [] and an.mistakes == []
    assert an.initial_value == an.final_value == ddcards.solve(START).value


def test_analyse_betl():
    p = random_position(41, "betl", 12)
    an = ddcards.analyse(p)
    assert an.value_kind == "outcome"
    assert an.final_value == ddcards.solve(p).value
    for prev, nxt in zip(an.steps, an.steps[1:]):
        assert prev.value_after == nxt.value_before
    for s in an.steps:
        assert s.value_before in (1, -1) and s.value_after in (1, -1)
        assert s.mistake == (s.cost > 0)


# --------------------------------------------------------------------------- cancel, timeout, threads

def test_cancel_from_another_thread():
    s = ddcards.Solver(tt_mb=1)
    token = ddcards.CancelToken()
    assert token.cancelled is False
    timer = threading.Timer(0.005, token.cancel)
    timer.start()
    start = time.perf_counter()
    with pytest.raises(ddcards.SearchCancelled):
        s.solve(ENDLESS, mode="all", cancel=token)
    timer.join()
    assert token.cancelled is True
    assert time.perf_counter() - start < 5
    # the solver still works, and gives the right answers
    assert s.solve(START).value == ddcards.Solver().solve(START).value
    assert s.solve(SEED).value == 50


def test_cancelled_before_start():
    token = ddcards.CancelToken()
    token.cancel()
    with pytest.raises(ddcards.SearchCancelled):
        ddcards.solve(START, cancel=token)
    with pytest.raises(ddcards.SearchCancelled):
        ddcards.analyse(SEED, cancel=token)
    # the thread's default solver is fine afterwards
    assert ddcards.solve(SEED).value == 50


def test_a_token_cancelled_before_the_call_is_named_as_the_reason():
    # A token stays cancelled: one reused after an earlier search's cancel stopped every later
    # call at once with "the search was cancelled", which did not say why.
    from ddcards.ddtable import dd_table

    token = ddcards.CancelToken()
    token.cancel()
    why = ("(its CancelToken was cancelled before this call began, and a token stays cancelled: "
           "give each search a new one)")
    calls = [("the search was cancelled", lambda: ddcards.solve(START, cancel=token)),
             ("the search was cancelled", lambda: ddcards.Solver().value(SEED, cancel=token)),
             ("the analysis was cancelled after 0 nodes, with 0 of the 30 recorded actions analysed",
              lambda: ddcards.analyse(SEED, cancel=token)),
             ("the search was cancelled", lambda: dd_table(ddcards.example("klaverjas"), cancel=token)),
             ("the contract table was cancelled", lambda: dd_table(ddcards.example("marias-hra"), cancel=token))]
    for stopped, call in calls:
        with pytest.raises(ddcards.SearchCancelled) as info:
            call()
        assert str(info.value) == f"{stopped} {why}" and info.value.nodes == 0
    # a token cancelled while its search runs says how far the search got, not that
    fresh = ddcards.CancelToken()
    timer = threading.Timer(0.05, fresh.cancel)
    timer.start()
    with pytest.raises(ddcards.SearchCancelled) as info:
        ddcards.Solver(tt_mb=1).solve(ENDLESS, cancel=fresh)
    timer.join()
    assert str(info.value).startswith("the search was cancelled after ") and "CancelToken" not in str(info.value)


def test_cancel_is_not_a_bad_input_error():
    assert not issubclass(ddcards.SearchCancelled, ddcards.DdcardsError)
    assert not issubclass(ddcards.SearchTimeout, ddcards.DdcardsError)


def test_timeout():
    s = ddcards.Solver(tt_mb=1)
    start = time.perf_counter()
    with pytest.raises(ddcards.SearchTimeout):
        s.solve(ENDLESS, mode="all", timeout=0.001)
    assert time.perf_counter() - start < 5
    with pytest.raises(ddcards.SearchTimeout):
        s.analyse(dict(ENDLESS, played=[]), timeout=0.001)
    # still works; a generous timeout does not get in the way
    assert s.solve(SEED, timeout=30).value == 50


@pytest.mark.parametrize("bad", [float("nan"), -1, -0.001, float("-inf")])
def test_a_nan_or_negative_timeout_is_an_invalid_option_everywhere(bad):
    from ddcards.ddtable import dd_table

    s = ddcards.Solver()
    for call in (lambda: s.solve(SEED, timeout=bad), lambda: s.value(SEED, timeout=bad),
                 lambda: s.analyse(SEED, timeout=bad), lambda: ddcards.solve(SEED, timeout=bad),
                 lambda: ddcards.solve_many([SEED], timeout=bad, jobs=1),
                 lambda: dd_table(ddcards.example("klaverjas"), timeout=bad)):
        with pytest.raises(ddcards.InvalidOptionError) as info:
            call()
        assert str(info.value) == (f"timeout is a number of seconds, at least 0 (None or math.inf: no limit), "
                                   f"not {bad!r}")
        assert info.value.token == repr(bad) and info.value.field == "timeout"
        assert info.value.rule == ddcards.api.TIMEOUT_RULE


def test_an_infinite_timeout_is_no_limit_and_zero_stops_at_once():
    s = ddcards.Solver()
    assert s.solve(SEED, timeout=float("inf")).value == 50
    assert s.analyse(SEED, timeout=float("inf")).final_value == 50
    with pytest.raises(ddcards.SearchTimeout, match="before the search started") as info:
        s.solve(SEED, timeout=0)
    assert info.value.nodes == 0                  # stopped before a search began
    with pytest.raises(TypeError, match="timeout must be a number of seconds or None"):
        s.solve(SEED, timeout="5")
    # an integer beyond any float is no limit too (it was a bare OverflowError)
    assert s.solve(SEED, timeout=10 ** 400).value == 50
    assert s.value(SEED, timeout=10 ** 400) == 50


def test_a_negative_integer_beyond_any_float_is_a_negative_timeout():
    # -10**400 < 0 as well: it was a bare OverflowError (int too large to convert to float), where
    # 10**400 was already no limit
    s = ddcards.Solver()
    for call in (lambda: s.solve(SEED, timeout=-10 ** 400), lambda: s.value(SEED, timeout=-10 ** 400),
                 lambda: s.analyse(SEED, timeout=-10 ** 400), lambda: ddcards.solve_many([SEED], timeout=-10 ** 400)):
        with pytest.raises(ddcards.InvalidOptionError, match=r"timeout is a number of seconds, at least 0 .*, "
                                                             r"not -100000000000… \(401 digits\)$") as info:
            call()
        assert info.value.field == "timeout" and info.value.token == "-100000000000… (401 digits)"


@pytest.mark.parametrize("keep", ["no", None, 2])
def test_keep_tt_is_true_or_false(keep):
    """It was never checked: keep_tt="no" kept the table."""
    s = ddcards.Solver()
    for ask in (s.solve, s.value):
        with pytest.raises(TypeError, match="keep_tt must be True or False"):
            ask(SEED, keep_tt=keep)


@pytest.mark.parametrize("kwargs,field", [({"timeout": "5"}, "timeout"), ({"timeout": True}, "timeout"),
                                          ({"cancel": "x"}, "cancel"), ({"keep_tt": "yes"}, "keep_tt")])
def test_an_argument_of_the_wrong_type_is_bad_input_and_a_type_error(kwargs, field):
    # `except ddcards.DdcardsError` catches every bad argument, as `except TypeError` does a wrong type.
    with pytest.raises(ddcards.InvalidArgumentTypeError) as info:
        ddcards.Solver().solve(SEED, **kwargs)
    assert isinstance(info.value, ddcards.DdcardsError) and isinstance(info.value, TypeError)
    assert info.value.field == field and info.value.token == str(kwargs[field]) and info.value.rule
    with pytest.raises(ddcards.InvalidArgumentTypeError, match="solver is a ddcards.Solver or None, not 'x'"):
        ddcards.dd_table(ddcards.example("klaverjas"), solver="x")
    with pytest.raises(ddcards.InvalidOptionError, match="style is 'pbn' or 'display', not 'bogus'"):
        ddcards.format_hand([], style="bogus")


@pytest.mark.parametrize("call,field", [
    (lambda: ddcards.solve(SEED, threads="2"), "threads"),
    (lambda: ddcards.solve(SEED, threads=None), "threads"),
    (lambda: ddcards.solve(SEED, mode=5), "mode"),
    (lambda: ddcards.solve(SEED, mode=None), "mode"),
    (lambda: ddcards.analyse(SEED, mode=3), "mode"),
    (lambda: ddcards.Solver(tt_mb="32"), "tt_mb"),
    (lambda: ddcards.Solver(tt_mb=32.0), "tt_mb"),
    (lambda: list(ddcards.solve_many([SEED], jobs="2")), "jobs"),
    (lambda: ddcards.dd_table(ddcards.example("klaverjas"), threads="2"), "threads"),
    (lambda: ddcards.example(None), "name"),
    (lambda: ddcards.example(b"marias-hra"), "name"),
    (lambda: ddcards.games.find_game(5), "name"),                       # 'a position names its game'
    (lambda: ddcards.format_hand("AS", style=None), "style"),
    (lambda: list(ddcards.solve_many("abc")), "positions"),            # one position, not an iterable of them
    (lambda: list(ddcards.solve_many(bytearray(b"{}"))), "positions"),  # iterated byte by byte
])
def test_every_argument_of_the_wrong_type_is_a_type_error(call, field):
    # as the README says of any argument (an audit found threads, mode, tt_mb and jobs plain InvalidOptionErrors)
    with pytest.raises(ddcards.InvalidArgumentTypeError) as info:
        call()
    assert isinstance(info.value, TypeError) and info.value.field == field


@pytest.mark.parametrize("call", [lambda: ddcards.solve(SEED, threads=0), lambda: ddcards.solve(SEED, mode="x"),
                                  lambda: ddcards.Solver(tt_mb=0), lambda: list(ddcards.solve_many([SEED], jobs=0)),
                                  lambda: ddcards.example("marias")])
def test_a_value_out_of_range_is_bad_input_but_no_type_error(call):
    with pytest.raises(ddcards.InvalidOptionError) as info:
        call()
    assert not isinstance(info.value, TypeError)


def test_modes_are_named_in_any_case():
    assert ddcards.solve(SEED, mode="BEST").mode is ddcards.Mode.BEST
    assert ddcards.analyse(SEED, mode=" All ").mode == "all"
    with pytest.raises(ddcards.InvalidOptionError, match="unknown mode 'bests'"):
        ddcards.solve(SEED, mode="bests")


def test_results_holding_lists_say_plainly_that_they_are_not_hashable():
    res = ddcards.solve(SEED)
    analysis = ddcards.analyse(SEED)
    for value, name in ((res, "Result"), (analysis, "Analysis"), (analysis.steps[0], "AnalysisStep"),
                        (ddcards.Position.from_dict(SEED).score, "Score")):
        with pytest.raises(TypeError, match=f"^unhashable type: '{name}'$"):
            hash(value)
    assert hash(ddcards.solve(START).moves[0]) == hash(ddcards.solve(START).moves[0])      # a MoveValue is a value


def test_two_results_of_one_position_are_equal_whatever_the_search_took():
    first, second = ddcards.Solver().solve(SEED), ddcards.Solver(tt_mb=4).solve(SEED)
    assert first == second                              # (their elapsed times differ)
    assert dataclasses.replace(first, nodes=first.nodes + 1, elapsed=9.0) == first
    assert dataclasses.replace(first, value=first.value + 10) != first
    assert ddcards.analyse(SEED) == ddcards.analyse(SEED)


def test_game_info_cannot_be_changed_by_a_caller():
    """find_game's GameInfo is the one validation reads: an edit would change what every
    position accepts (it did: objectives was a plain dict)."""
    info = ddcards.find_game("marias")
    with pytest.raises(TypeError):
        info.objectives["hra"] = ("hra",)              # type: ignore[index]
    for change in (lambda o: o.update(hra=("hra",)), lambda o: o.__ior__({"hra": ("hra",)}), lambda o: o.pop("hra"),
                   lambda o: o.setdefault("x", ()), lambda o: o.clear(), lambda o: o.popitem()):
        with pytest.raises(TypeError):
            change(info.objectives)
    info.objectives.__init__({"hra": ("hra",)})        # type: ignore[misc]  # (a dict's would refill it)
    assert "sedma" in ddcards.Position.from_dict(SEED).game_info.objectives["hra"]
    assert pickle.loads(pickle.dumps(info)) == info and hash(copy.deepcopy(info)) == hash(info)


def test_a_solver_shows_its_table_and_is_neither_copied_nor_pickled():
    solver = ddcards.Solver()
    assert repr(solver) == "<ddcards.Solver: table 2 MiB, sized per game; 2 MiB held>"
    assert repr(ddcards.Solver(tt_mb=8)) == "<ddcards.Solver: table 8 MiB, fixed; 8 MiB held>"
    for make_another in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="a Solver is not"):
            make_another(solver)


def test_a_position_is_made_from_a_position_too():
    pos = ddcards.Position.from_dict(SEED)
    assert ddcards.Position(pos) == pos == ddcards.Position.from_dict(pos)


def test_a_cancel_token_takes_no_arguments():
    with pytest.raises(TypeError):
        ddcards.CancelToken(True)           # it was an uncancelled token
    assert not ddcards.CancelToken().cancelled


def test_a_positions_score_cannot_be_changed_from_outside():
    """Its dicts were the cached Score's: editing them changed what the position showed."""
    p = ddcards.Position.from_dict(ddcards.example("marias-hra")).play("QH")
    before = p.score
    p.score.points["declarer"] = 999
    p.score.parts.setdefault("marriages", {})["declarer"] = 999
    assert p.score == before and p.score.points["declarer"] == before.points["declarer"] != 999
    assert "999" not in str(p)


def test_a_stopped_search_counts_its_nodes_as_its_message_does():
    s = ddcards.Solver(tt_mb=16)
    for _ in range(3):          # the same search stopped again often stops at the same count: still counted
        with pytest.raises(ddcards.SearchTimeout) as info:
            s.solve(ENDLESS, mode="best", timeout=0.1)
        assert info.value.nodes > 0
        # ... and says how far it got: none of its six leads answered, none bounded yet
        progress = info.value.progress
        assert progress is not None and (progress.answered, progress.moves, progress.value) == (0, 6, None)
        assert str(info.value) == (f"the search ran out of time after {info.value.nodes:,} nodes; "
                                   "by then 0 of 6 distinct first moves answered")
    token = ddcards.CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    with pytest.raises(ddcards.SearchCancelled) as info:
        s.value(ENDLESS, cancel=token)
    timer.join()
    assert info.value.nodes > 0 and f"after {info.value.nodes:,} nodes" in str(info.value)
    # One that never began counts none, whatever the search before it counted, nor says progress.
    with pytest.raises(ddcards.SearchCancelled) as info:
        s.solve(ENDLESS, cancel=token)
    assert info.value.nodes == 0 and info.value.progress is None


def test_last_nodes_is_the_last_searchs_as_its_docstring_says():
    s = ddcards.Solver()
    value = s.value(ddcards.example("marias-hra"))
    res = s.solve(ddcards.example("marias-hra"))
    assert value == res.value == 70 and s.last_nodes == res.nodes > 0
    s.value(ddcards.example("marias-hra"))
    assert 0 < s.last_nodes < res.nodes         # value()'s own count: the value alone, no move's
    an = s.analyse(ddcards.example("marias-seed"))
    # an analysis's last search is its final solve; Analysis.nodes counts every one
    assert an.final is not None and s.last_nodes == an.final.nodes < an.nodes


def test_a_stopped_analysis_says_how_far_it_got_and_counts_every_search():
    s = ddcards.Solver(tt_mb=16)
    doc = ddcards.example("mariasz")               # late in a fresh deal: the analysis starts with it
    with pytest.raises(ddcards.SearchTimeout) as info:
        s.analyse(doc, timeout=0.3)
    assert info.value.nodes > 0
    assert str(info.value) == (f"the analysis ran out of time after {info.value.nodes:,} nodes, with 0 of the "
                               f"{len(doc['played'])} recorded actions analysed")


@pytest.mark.parametrize("bad,why", [(0, "is too small"), (-5, "is too small"), (2 ** 70, "is too large"),
                                     (1.5, "is not a whole number"), (True, "is not a whole number"),
                                     ("16", "is not a whole number")])
def test_a_bad_table_size_is_an_invalid_option_naming_the_value_and_the_range(bad, why):
    limit = ddcards.api.tt_mb_limit()
    for call in (lambda: ddcards.Solver(tt_mb=bad), lambda: ddcards.solve_many([SEED], tt_mb=bad)):
        with pytest.raises(ddcards.InvalidOptionError) as info:
            call()
        assert str(info.value).startswith(f"tt_mb {bad!r} {why}: a table takes 1 to {limit:,} MiB (")
        assert str(info.value).endswith("); give None for a table sized per game")
        assert info.value.field == "tt_mb" and info.value.rule == ddcards.api.TT_MB_RULE


def test_a_table_is_at_most_the_machines_memory(monkeypatch):
    monkeypatch.setattr(ddcards.api.memory, "physical_memory_mb", lambda: 6)
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.Solver(tt_mb=7)
    assert str(info.value) == ("tt_mb 7 is too large: a table takes 1 to 6 MiB (this machine's memory); give None "
                               "for a table sized per game")
    assert ddcards.Solver(tt_mb=6).tt_mb == 6
    monkeypatch.setattr(ddcards.api.memory, "physical_memory_mb", lambda: None)     # unknown: a fixed bound
    assert ddcards.api.tt_mb_limit() == ddcards.api.TT_MB_LIMIT
    with pytest.raises(ddcards.InvalidOptionError, match=r"1 to 16,777,216 MiB \(the most a table may take\)"):
        ddcards.Solver(tt_mb=2 ** 70)


def test_a_table_that_cannot_be_had_is_a_memory_error_saying_what_to_do(monkeypatch):
    def no_memory(tt_mb):
        raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")

    monkeypatch.setattr(ddcards.api.solver, "Searcher", no_memory)
    with pytest.raises(MemoryError) as info:
        ddcards.Solver(tt_mb=8)
    assert str(info.value) == ("cannot allocate a 8 MiB transposition table: not enough free memory (give a "
                               "smaller tt_mb, or leave it out for a table sized per game)")
    assert isinstance(info.value, ddcards.TableMemoryError) and info.value.table_mb == 8


def test_a_table_memory_error_names_the_option_of_its_caller_and_survives_pickling():
    import pickle

    error = ddcards.TableMemoryError(1024, game="mariasz")
    assert str(error) == ("cannot allocate the 1,024 MiB transposition table mariasz searches need: not enough "
                          "free memory (give a smaller table of a fixed size: tt_mb)")
    command = error.for_option("--tt-mb")
    assert str(command).endswith("(give a smaller table of a fixed size: --tt-mb)") and command.game == "mariasz"
    back = pickle.loads(pickle.dumps(command))          # as a batch's worker process sends it
    assert type(back) is ddcards.TableMemoryError and str(back) == str(command)
    assert (back.table_mb, back.game, back.option) == (1024, "mariasz", "--tt-mb")
    assert isinstance(back, MemoryError)


def test_a_position_document_may_start_with_a_byte_order_mark():
    text = json.dumps(SEED)
    for given in ("\ufeff" + text, ("\ufeff" + text).encode("utf-8")):
        assert ddcards.Position.from_json(given) == ddcards.Position.from_dict(SEED)
    assert ddcards.solve("\ufeff" + text).value == 50
    with pytest.raises(ddcards.NotationError, match="byte-order mark .* only at the very start"):
        ddcards.Position.from_json("\ufeff\ufeff" + text)


def _solve_all(positions, results, key):
    s = ddcards.Solver(tt_mb=8)
    results[key] = [(r.value, r.move_values, r.pv) for r in (s.solve(p) for p in positions)]


def test_two_solvers_in_two_threads_agree_with_sequential():
    positions = POSITIONS[:3] + ENDGAMES[:6]
    sequential = {}
    _solve_all(positions, sequential, "a")
    results = {}
    threads = [threading.Thread(target=_solve_all, args=(positions, results, k)) for k in ("a", "b")]
    threads += [threading.Thread(target=_solve_all, args=(positions[::-1], results, "c"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["a"] == sequential["a"]
    assert results["b"] == sequential["a"]
    assert results["c"][::-1] == sequential["a"]


def test_module_level_solve_from_threads():
    positions = ENDGAMES[:8]
    expected = [ddcards.solve(p).value for p in positions]
    out = {}

    def work(k):
        out[k] = [ddcards.solve(p).value for p in positions]
        out[k + "_solver"] = ddcards.default_solver()

    threads = [threading.Thread(target=work, args=(k,)) for k in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out["x"] == out["y"] == expected
    assert out["x_solver"] is not out["y_solver"]          # one Solver per thread


def test_keep_tt_gives_the_same_answers():
    s = ddcards.Solver()
    first = [s.solve(p).value for p in ENDGAMES]
    again = [s.solve(p, keep_tt=True).value for p in ENDGAMES]
    assert first == again


# --------------------------------------------------------------------------- result documents

RESULT_KEYS = {"game", "mode", "value", "value_kind", "to_move", "optimal_moves", "moves", "pv", "scores",
               "tricks", "won", "settlement", "outcomes", "nodes", "elapsed_ms", "distance", "horizon", "value_owner",
               "value_meaning"}
ANALYSIS_KEYS = {"game", "value_kind", "value_owner", "value_meaning", "from_ply", "initial_value", "final_value", "steps", "mistakes", "nodes",
                 "elapsed_ms",
                 # issue 15 (the report): tests/test_report_analysis.py checks their values
                 "mode", "outcome_mistakes", "initial_outcome", "final_outcome", "deal", "final"}
STEP_KEYS = {"ply", "seat", "move", "value_before", "value_after", "best_moves", "cost", "mistake",
             "changes_outcome", "outcome", "moves", "trick_winner", "score", "distance", "best_distance"}


@pytest.mark.parametrize("mode", ["all", "optimal", "best"])
def test_result_to_dict(mode):
    res = ddcards.solve(dict(SEED, played=SEED["played"][:21]), mode=mode)
    d = json.loads(json.dumps(res.to_dict()))
    assert set(d) == RESULT_KEYS
    assert d["game"] == "marias" and d["mode"] == mode and d["value_kind"] == "points"
    assert d["value"] == res.value and d["pv"] == res.pv and d["to_move"] == res.to_move
    assert d["optimal_moves"] == res.optimal_moves
    assert d["moves"] == [{"move": m.move, "value": m.value, "optimal": m.optimal, "distance": None}
                          for m in res.moves]
    assert d["distance"] is None and d["horizon"] is None     # Prší's measures; Mariáš is solved to the end
    assert d["value_meaning"] == "the declarer's final points - the defenders' (cards, last trick, marriages)"
    assert set(d["scores"]) == {"declarer", "defenders"} == set(d["tricks"])
    assert set(d["outcomes"]) == {"sedma", "kilo"}
    assert len(d["settlement"]) == 3 and sum(d["settlement"]) == 0
    assert isinstance(d["nodes"], int) and isinstance(d["elapsed_ms"], (int, float))


def test_result_to_dict_betl_and_finished():
    res = ddcards.solve(random_position(22, "betl", 22))
    d = json.loads(json.dumps(res.to_dict()))
    assert set(d) == RESULT_KEYS and d["value_kind"] == "outcome" and d["outcomes"] == {}
    assert d["value_meaning"] == "+1 made, -1 defeated"
    res = ddcards.solve(SEED)
    d = json.loads(json.dumps(res.to_dict()))
    assert d["to_move"] is None and d["moves"] == [] and d["pv"] == [] and d["value"] == 50


def test_analysis_to_dict(seed_analysis):
    d = json.loads(json.dumps(seed_analysis.to_dict()))
    assert set(d) == ANALYSIS_KEYS
    assert d["value_meaning"] == d["deal"]["value_meaning"] == d["final"]["value_meaning"] != ""
    assert d["initial_value"] == seed_analysis.initial_value
    assert d["final_value"] == seed_analysis.final_value == 50
    assert len(d["steps"]) == 30 and all(set(s) == STEP_KEYS for s in d["steps"])
    assert d["mistakes"] == [s.ply for s in seed_analysis.mistakes]


def test_result_position_and_inputs():
    # solve accepts a Position, a dict or JSON text, all alike
    p = ddcards.Position.from_dict(SEED)
    a = ddcards.solve(p).to_dict()
    b = ddcards.solve(SEED).to_dict()
    c = ddcards.solve(json.dumps(SEED)).to_dict()
    for d in (a, b, c):
        d.pop("elapsed_ms")
        d.pop("nodes")
    assert a == b == c


def test_position_round_trip():
    p = ddcards.Position.from_dict(dict(START, played=["QH", "TH", "7S"]))
    assert ddcards.Position.from_json(p.to_json()) == p
    assert ddcards.Position.from_dict(p.to_dict()) == p
    assert p.start() == ddcards.Position.from_dict(START)
    assert p.played == ("QH", "TH", "7S")
    assert p.game == "marias"
    assert hash(p) == hash(ddcards.Position.from_json(p.to_json()))


def test_results_carry_typed_values():
    res = ddcards.solve(START, mode="optimal")
    assert res.mode is ddcards.Mode.OPTIMAL and res.value_kind == "points"
    assert json.loads(json.dumps(res.to_dict()))["mode"] == "optimal"
    assert all(isinstance(m, ddcards.MoveValue) for m in res.moves)
    assert res.position == ddcards.Position.from_dict(START).to_dict()
    betl = ddcards.solve(ddcards.example("marias-betl"), mode=ddcards.Mode.BEST)
    assert betl.mode is ddcards.Mode.BEST and betl.value_kind == "outcome" and betl.value in (1, -1)
    an = ddcards.analyse(dict(SEED, played=SEED["played"][:3]))
    assert an.value_kind == "points" and [s.ply for s in an.steps] == [0, 1, 2]
    assert all(isinstance(s, ddcards.AnalysisStep) for s in an.steps)
    with pytest.raises(ddcards.InvalidOptionError, match="unknown mode 'fast'"):
        ddcards.solve(START, mode="fast")


# --------------------------------------------------------------------------- games registry, docs

def test_games_registry():
    games = ddcards.list_games()
    assert "marias" in [g.name for g in games]
    info = ddcards.find_game("Mariáš")
    assert info is ddcards.find_game("marias") is ddcards.find_game("MARIAS")
    # a name of two words with more space between them, or a tab, is the same name
    assert ddcards.find_game("volený  mariáš") is ddcards.find_game("Voleny\tMarias") is info
    assert ddcards.Position.from_dict(dict(ddcards.example("marias-hra"), game="volený  mariáš")).game == "marias"
    with pytest.raises(ddcards.InvalidOptionError, match="unknown game 'vole ny'"):
        ddcards.find_game("vole ny")            # (not spaces taken out: only run together)
    for blank in ("", "  "):        # was named as a position's missing field 'game'
        with pytest.raises(ddcards.InvalidOptionError, match=f"^unknown game '{blank}' \\(supported: marias, "
                                                             "klaverjas, mariasz, prsi; docs/RULES.md §0.6 rule 1"):
            ddcards.find_game(blank)
    assert info.seats == (3, 4)                  # four players: the dealer sits out
    assert set(info.contracts) == {"hra", "betl", "durch"}
    assert set(info.objectives["hra"]) == {"hra", "sedma", "kilo", "money"}
    assert tuple(info.objectives["betl"]) == ("betl", "money") and tuple(info.objectives["durch"]) == ("durch", "money")
    assert {o.name for o in info.options} == {"marriage_on_follow", "talon_points", "sedma_value", "kilo_value"}
    assert info.option("marriage_on_follow").default is False
    assert {(o.name, o.type, o.default) for o in info.options} == {
        ("marriage_on_follow", "bool", False), ("talon_points", "str", "defenders"),
        ("sedma_value", "int", 1), ("kilo_value", "int", 2)}
    assert info.option("no such option") is None
    # A range and a meaning for whole-number options only (a stake unless the game says)
    assert (info.option("sedma_value").minimum, info.option("sedma_value").maximum,
            info.option("sedma_value").meaning) == (0, 1_000_000, "a stake")
    assert (ddcards.find_game("prsi").option("horizon").minimum,
            ddcards.find_game("prsi").option("horizon").meaning) == (1, "the plies searched")
    assert all((o.minimum, o.maximum, o.meaning) == (None, None, None)
               for g in games for o in g.options if o.type != "int")
    assert all(None not in (o.minimum, o.maximum, o.meaning) for g in games for o in g.options if o.type == "int")
    with pytest.raises(ValueError, match="only a whole-number option has a range"):
        OptionInfo("szlifowany", "bool", False, "the 24-card deck", maximum=1)
    assert info.sides == ("declarer", "defenders")
    assert ddcards.find_game("klaverjassen").sides == ("playing", "other")


@pytest.mark.parametrize("module", ["ddcards", "ddcards.api", "ddcards.position", "ddcards.notation",
                                    "ddcards.games.marias", "ddcards.games.mariasz", "ddcards.result",
                                    "ddcards.ddtable", "ddcards.client", "ddcards.errors", "ddcards.report"])
def test_docstring_examples_run(module):
    # The documented examples must run as written.
    mod = importlib.import_module(module)
    failures, _ = doctest.testmod(mod, verbose=False, report=True)
    assert failures == 0


@pytest.mark.parametrize("ident", ["deal-7", 7, ""])
def test_a_documents_id_is_a_label_not_part_of_the_position(ident):
    """RULES §0.11 rule 4: any document may carry an id; the library takes such documents as the
    CLI does (it used to refuse them: "field 'id' does not apply"), and the id is no part of
    the position."""
    plain = ddcards.example("marias-hra")
    labelled = dict(plain, id=ident)
    assert ddcards.Position.from_dict(labelled) == ddcards.Position.from_dict(plain)
    assert "id" not in ddcards.Position.from_dict(labelled).to_dict()
    assert ddcards.solve(labelled).value == 70
    (done,) = ddcards.solve_many([labelled], jobs=1)
    assert done.ok and done.result.value == 70


@pytest.mark.parametrize("ident", [True, 1.5, ["a"], "x" * 257])
def test_a_bad_id_is_refused_by_name(ident):
    with pytest.raises(ddcards.NotationError, match="id must be text of at most 256 characters") as err:
        ddcards.Position.from_dict(dict(ddcards.example("klaverjas"), id=ident))
    assert err.value.field == "id"
    assert err.value.rule == "docs/RULES.md §0.11 rule 4: an id is a text of at most 256 characters or a whole number"


# Every optional field of every game, null (RULES §0.6 rule 6): the same position as left out.
NULLABLE = {
    "marias-hra": ("objective", "announcements", "flek", "players", "options", "leader", "contract"),
    "marias-betl": ("trump", "objective", "flek", "options"),
    "klaverjas": ("rules", "contract", "options", "leader", "played"),
    "mariasz": ("objective", "start_scores", "first_deal", "options", "contract", "played"),
    "mariasz-kiks": ("objective", "contract", "start_scores"),
    "prsi": ("options", "played", "leader"),
}


@pytest.mark.parametrize("example", sorted(NULLABLE))
def test_a_null_field_reads_as_left_out(example):
    doc = ddcards.example(example)
    plain = ddcards.Position.from_dict(doc)
    asked = 0
    for name in NULLABLE[example]:
        if doc.get(name) not in (None, [], {}):
            continue                            # set by the example: null would change the position
        nulled = dict(doc, **{name: None})
        assert ddcards.Position.from_dict(nulled) == plain, name
        asked += 1
    assert asked >= 1
    labelled = dict(doc, id=None)
    assert ddcards.Position.from_dict(labelled) == plain
    (done,) = ddcards.solve_many([labelled], jobs=1, mode="best")
    assert done.ok and done.result.value == ddcards.solve(plain, mode="best").value


def test_a_games_aliases_are_its_other_names_each_found():
    # GameInfo.aliases (ListGames' "other names the server accepts", RULES §0.6 rule 1's list):
    # Prší's repeated its own name, prsi
    for info in ddcards.list_games():
        assert info.name not in info.aliases and len(set(info.aliases)) == len(info.aliases), info.aliases
        assert all(ddcards.find_game(alias) is info for alias in info.aliases)
    assert ddcards.find_game("prsi").aliases == ("prší",)


def test_a_null_field_of_another_game_is_still_refused():
    with pytest.raises(ddcards.InvalidOptionError, match="field 'flek' does not apply to klaverjas") as err:
        ddcards.Position.from_dict(dict(ddcards.example("klaverjas"), flek=None))
    assert err.value.field == "flek"


def test_a_null_required_field_is_missing():
    doc = dict(ddcards.example("klaverjas"), trump=None)
    with pytest.raises(ddcards.InvalidOptionError, match="Klaverjas needs a trump suit"):
        ddcards.Position.from_dict(doc)
    with pytest.raises(ddcards.InvalidOptionError, match="a position names its game"):
        ddcards.Position.from_dict(dict(doc, game=None))


def test_a_cancel_token_says_why_it_cannot_be_pickled_or_copied():
    import copy
    import pickle

    token = ddcards.CancelToken()
    for attempt in (lambda: pickle.dumps(token), lambda: copy.copy(token), lambda: copy.deepcopy(token)):
        with pytest.raises(TypeError, match="a CancelToken stops the searches of this process that poll it") as err:
            attempt()
        # what it advises exists (it named solve_many(cancel=...), which solve_many does not take)
        assert "closing solve_many's generator stops its work" in str(err.value)


def test_a_position_may_be_given_as_json_bytes_as_from_json_takes_it():
    position = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    assert ddcards.solve(position.to_json().encode(), mode="best").value == 70
    with pytest.raises(ddcards.NotationError, match="not UTF-8 text: byte 1") as info:
        ddcards.solve(b"\xff")
    assert "UTF-16" not in str(info.value)


def test_utf16_text_is_told_to_be_saved_as_utf8(tmp_path):
    # a file saved as "Unicode" on Windows (UTF-16 with its byte order mark) was only "byte 1 (0xff)
    # starts no character"
    text = ddcards.Position.from_dict(ddcards.example("prsi")).to_json()
    for encoding, first in (("utf-16-le", "0xff"), ("utf-16-be", "0xfe")):
        data = "\ufeff".encode(encoding) + text.encode(encoding)
        with pytest.raises(ddcards.NotationError) as info:
            ddcards.Position.from_json(data)
        assert str(info.value) == (f"a position document is not UTF-8 text: byte 1 ({first}) starts no character; "
                                   "it starts as UTF-16 text does (its byte order mark): save it as UTF-8")
        path = tmp_path / f"{encoding}.json"
        path.write_bytes(data)
        out = subprocess.run([sys.executable, "-m", "ddcards", "solve", str(path)], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 2
        assert out.stderr.startswith(f"ddcards: error: the line is not UTF-8 text: byte 1 ({first}) starts no "
                                     "character; it starts as UTF-16 text does (its byte order mark): save it as "
                                     "UTF-8\n")


def test_every_result_document_is_a_new_one_all_the_way_down():
    """Analysis.to_dict() handed out its deal's nested dicts: clearing the document's
    deal.position.played cleared the analysis's (and every later document's)."""
    def scramble(value):
        if isinstance(value, dict):
            for item in value.values():
                scramble(item)
            value["junk"] = 1
        elif isinstance(value, list):
            for item in value:
                scramble(item)
            value.append("junk")

    analysis = ddcards.analyse(ddcards.example("marias-seed"), mode="all", from_ply=24)
    result = ddcards.solve(ddcards.example("mariasz-race"))
    for made in (analysis, result):
        before = json.dumps(made.to_dict(), sort_keys=True)
        scramble(made.to_dict())
        assert json.dumps(made.to_dict(), sort_keys=True) == before
    analysis.to_dict()["deal"]["position"]["played"].clear()
    assert len(analysis.deal["position"]["played"]) == 30


def test_names_are_read_in_any_case_and_cards_from_whole_numbers():
    assert ddcards.example(" Marias-HRA ") == ddcards.example("marias-hra")
    assert ddcards.Card(10, 1) == ddcards.Card.parse("TH")
    for rank, suit in ((10.0, 1), (10, 1.0)):          # Rank(10.0) took it as a ten
        with pytest.raises(ddcards.InvalidCardError):
            ddcards.Card(rank, suit)
    with pytest.raises(ddcards.InvalidOptionError) as err:
        list(ddcards.solve_many([], jobs=0))
    assert err.value.field == "jobs"


def test_the_public_annotations_resolve_at_run_time():
    """typing.get_type_hints (sphinx-autodoc-typehints, pydantic, typer) raised NameError: names
    imported only for type checkers ('Solved', 'SearchProgress')."""
    import typing

    for obj in (ddcards.solve_many, ddcards.solve, ddcards.analyse, ddcards.Solver.solve, ddcards.dd_table,
                ddcards.SearchAborted.tell_progress, ddcards.Position.play):
        assert typing.get_type_hints(obj)["return"] is not None


def test_game_info_converts_as_the_dataclass_it_is():
    """dataclasses.asdict, the way to a dict (and JSON, a DataFrame) of any frozen dataclass
    the README lists, crashed on GameInfo: its read-only objectives were a mappingproxy, which
    asdict deep-copies and which cannot be copied ("cannot pickle 'mappingproxy' object")."""
    for info in ddcards.list_games():
        doc = dataclasses.asdict(info)
        assert doc["objectives"] == {contract: aims for contract, aims in info.objectives.items()}
        assert list(doc["options"]) == [dataclasses.asdict(option) for option in info.options]
        assert json.loads(json.dumps(doc))["name"] == info.name
    objectives = ddcards.find_game("marias").objectives
    for change in (lambda: objectives.update(hra=()), lambda: objectives.pop("hra"),
                   lambda: objectives.setdefault("x", ()), objectives.clear, objectives.popitem):
        with pytest.raises(TypeError):
            change()
    assert "sedma" in objectives["hra"]
    assert copy.deepcopy(objectives) == objectives == pickle.loads(pickle.dumps(objectives))


def test_a_result_and_an_analysis_print_as_the_command_line_does():
    """print(result) and print(analysis) in a REPL or a notebook gave the dataclass repr, one line
    of 2 KB (a solve) to 16 KB (an analysis in mode all), where print(position) draws the table:
    str() now reads as `ddcards solve` and `ddcards analyse` print them; repr() stays the fields."""
    res = ddcards.solve(ddcards.example("marias-hra"))
    text = str(res).splitlines()
    assert text[0] == "Mariáš hra, trumps H - seat 0 (declarer) to move"
    assert "Value       +70  declarer wins (declarer 100, defenders 30)" in text
    assert "Best moves  AS TS AH AD TD" in text and "Settlement  seat 0 +4, seat 1 -2, seat 2 -2" in text
    assert repr(res).startswith("Result(game='marias', ") and str(res) != repr(res)
    an = ddcards.analyse(ddcards.example("marias-seed"))
    text = str(an).splitlines()
    assert text[0].startswith("Mariáš hra, trumps H - value at the start +70")
    assert "   0    0  QH       +70    +50    20  AS TS AH AD TD  <- mistake" in text
    assert ("Mistakes    3: ply 0 QH (seat 0, cost 20), ply 9 7H (seat 1, cost 20), "
            "ply 24 AH (seat 0, cost 20)") in text
    assert str(ddcards.analyse(ddcards.example("marias-seed"), from_ply=24)).splitlines()[0].endswith(
        "value before ply 24 +70 (declarer's view: the declarer's final points - the defenders' "
        "(cards, last trick, marriages))")
    # every game prints (Prší, a Mariasz exchange), and one made by hand, with no position, shows its fields
    for name in ("klaverjas", "prsi-endgame", "mariasz-recorded", "mariasz-three"):
        assert str(ddcards.solve(ddcards.example(name))) and str(ddcards.analyse(ddcards.example(name)))
    bare = dataclasses.replace(res, position={})
    assert str(bare) == repr(bare)
    assert str(dataclasses.replace(an, deal={})) == repr(dataclasses.replace(an, deal={}))


def test_a_stopped_analysis_keeps_the_steps_it_finished():
    """A timeout or cancel in a long analysis threw away every step already analysed (the
    exception said only how many); they come with it now, as the whole analysis has them."""
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv)        # a deal played through: 32 steps
    whole = ddcards.Solver().analyse(doc)
    s = ddcards.Solver()
    token = ddcards.CancelToken()

    def cancel_after_two() -> None:
        while (s.analysis_now is None or s.analysis_now.analysed < 2) and not token.cancelled:
            time.sleep(0.0005)
        token.cancel()

    watcher = threading.Thread(target=cancel_after_two)
    watcher.start()
    try:
        with pytest.raises(ddcards.SearchCancelled) as info:
            s.analyse(doc, cancel=token)
    finally:
        token.cancel()
        watcher.join()
    steps = info.value.steps
    assert 2 <= len(steps) < len(whole.steps)
    assert steps == whole.steps[:len(steps)]
    assert str(info.value).endswith(f"with {len(steps)} of the {len(doc['played'])} recorded actions analysed")
    with pytest.raises(ddcards.SearchTimeout) as info:
        s.solve(ENDLESS, timeout=0.05)
    assert info.value.steps is None                     # not an analysis


def test_an_analysis_in_on_step_leaves_analysis_now_to_the_analysis_that_called_it():
    """on_step may use the Solver that analyses (its turn is the caller's): an analysis made there
    left analysis_now None for the rest of the step, where another thread reads the progress of
    the analysis under way (the command line's ticker); it is that analysis's progress again."""
    doc = ddcards.example("marias-seed")
    s = ddcards.Solver()
    whole = s.analyse(doc, from_ply=26)
    seen = []

    def analyse_too(step) -> None:
        inner = s.analyse(ddcards.example("mariasz-kiks"), from_ply=6)
        seen.append((step.ply, inner.from_ply, s.analysis_now))
    again = s.analyse(doc, from_ply=26, on_step=analyse_too)
    assert again == whole
    assert [(ply, inner) for ply, inner, _ in seen] == [(26, 6), (27, 6), (28, 6), (29, 6)]
    assert [now for _, _, now in seen] == [
        ddcards.AnalysisProgress(analysed=k, actions=4, from_ply=26, value=whole.steps[k].value_before if k < 4
                         else whole.final_value) for k in (1, 2, 3, 4)]
    assert s.analysis_now is None                       # no analysis under way


def test_a_timeout_in_on_step_is_told_apart_from_the_analysis_stopping():
    """A search made in on_step that runs out of time raises its SearchTimeout through the analysis,
    which read as the analysis's own stop; its note now names on_step and the step."""
    doc = ddcards.example("marias-seed")
    s = ddcards.Solver()

    def search_too(step) -> None:
        if step.ply == 1:
            ddcards.Solver().solve(ENDLESS, timeout=0.01)
    with pytest.raises(ddcards.SearchTimeout) as info:
        s.analyse(doc, on_step=search_too)
    assert info.value.steps is None                     # the callback's solve's, not the analysis's
    assert info.value.__notes__ == ["raised by on_step, called with the step of ply 1: the analysis stopped there"]
    assert s.analysis_now is None


def test_a_notebook_shows_a_position_a_result_and_an_analysis_as_their_tables():
    """Jupyter shows _repr_html_ where an object has one: the tables str() prints (escaped), where
    a cell showed Position.from_json('...') or a dataclass's fields on one line."""
    pos = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    res = ddcards.solve(pos)
    an = ddcards.analyse(ddcards.example("marias-seed"))
    for thing in (pos, res, an):
        assert thing._repr_html_() == "<pre>" + html.escape(str(thing)) + "</pre>"
    assert pos._repr_html_().startswith("<pre>Mariáš hra, trumps H - seat 0 (declarer) to move\n")
    assert "&lt;- mistake" in an._repr_html_() or not an.mistakes
    assert repr(pos).startswith("Position.from_json(")          # repr() still rebuilds it


class _Index:
    """A whole number of another integer type, as numpy's int64 is: an int through __index__."""

    def __init__(self, value: int):
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"_Index({self.value})"


def _integer_types() -> list[object]:
    """_Index, and numpy's integers (numpy is a test extra: the API claims to take them)."""
    import numpy

    return [_Index, numpy.int64, numpy.int32, numpy.uint8]


@pytest.mark.parametrize("kind", _integer_types())
def test_a_whole_number_of_another_integer_type_is_taken_as_its_value(kind):
    # numpy's int64 (a notebook's np.arange, a DataFrame's column) was "not a whole number", an
    # InvalidArgumentTypeError, for threads, tt_mb, from_ply, jobs and timeout, where numpy's
    # float64 (a float) was taken: an integer type is one with __index__, as range() reads it
    from fractions import Fraction

    two, four = kind(2), kind(4)
    solver = ddcards.Solver(tt_mb=four)
    assert solver.tt_mb == 4 and type(solver.tt_mb) is int
    assert solver.solve(SEED, threads=two, timeout=kind(30)).value == 50
    assert solver.value(SEED, threads=two, timeout=kind(30)) == 50
    assert ddcards.solve(SEED, threads=two).value == 50
    analysis = solver.analyse(SEED, from_ply=kind(26), threads=two, timeout=Fraction(30))
    assert analysis.from_ply == 26 and type(analysis.from_ply) is int and analysis.final_value == 50
    done = list(ddcards.solve_many([SEED], jobs=kind(1), window=two, chunk_size=kind(1), tt_mb=two,
                                   timeout=kind(30)))
    assert done[0].result is not None and done[0].result.value == 50
    assert ddcards.dd_table(ddcards.example("klaverjas"), threads=two, timeout=kind(30))["values"]
    # out of range: the range is said, as of an int
    with pytest.raises(ddcards.InvalidOptionError, match="threads is a whole number from 1 to 64") as info:
        solver.solve(SEED, threads=kind(0))
    assert not isinstance(info.value, TypeError)
    with pytest.raises(ddcards.InvalidOptionError, match="at least 0") as info:
        solver.solve(SEED, timeout=Fraction(-1, 2))
    assert not isinstance(info.value, TypeError) and info.value.token == "Fraction(-1, 2)"
    with pytest.raises(ddcards.SearchTimeout, match="before the search started"):
        solver.solve(SEED, timeout=kind(0))


def test_a_bool_of_another_type_is_no_whole_number():
    import numpy

    for call in (lambda: ddcards.Solver(tt_mb=numpy.bool_(True)), lambda: ddcards.solve(SEED, threads=numpy.bool_(True)),
                 lambda: ddcards.solve(SEED, timeout=numpy.bool_(True))):
        with pytest.raises(ddcards.InvalidArgumentTypeError):
            call()
    assert ddcards.solve(SEED, timeout=numpy.float32(30)).value == 50      # a real number, not a float


def test_a_document_filled_from_numpy_reads_its_values_as_the_plain_ones():
    # A dict a program fills from numpy or pandas carries np.int64, np.bool_ and arrays: they were
    # refused in words that contradicted themselves ("playing_team must be one of 0, 1, not
    # np.int64(0)", "a start score must be a whole number, not np.int64(95)"), where the API's
    # arguments take numpy's integers.  A field reads them as the JSON values they hold.
    import numpy

    from ddcards.ddtable import dd_table

    klaverjas = ddcards.example("klaverjas")
    got = ddcards.Position.from_dict(dict(klaverjas, playing_team=numpy.int64(1), leader=numpy.uint8(0)))
    assert got == ddcards.Position.from_dict(klaverjas) and got.to_dict()["playing_team"] == 1
    assert ddcards.solve(dict(klaverjas, playing_team=numpy.int64(0))).value == -182
    hra = ddcards.example("marias-hra")
    flek = ddcards.Position.from_dict(dict(hra, flek=numpy.int32(1), options={"marriage_on_follow": numpy.True_,
                                                                               "sedma_value": numpy.int64(3)}))
    assert flek.to_dict() == dict(ddcards.Position.from_dict(hra).to_dict(), flek=1,
                                  options={"marriage_on_follow": True, "sedma_value": 3})
    assert ddcards.Position.from_dict(dict(hra, hands=numpy.array(hra["hands"]))) == ddcards.Position.from_dict(hra)
    race = ddcards.Position.from_dict(dict(ddcards.example("mariasz-race"), start_scores=numpy.array([95, 102])))
    assert race.to_dict()["start_scores"] == [95, 102]
    prsi = ddcards.Position.from_dict(dict(ddcards.example("prsi"), options={"horizon": numpy.int64(10)}))
    assert ddcards.solve(prsi).horizon == 10
    assert dd_table(dict(klaverjas, leader=numpy.int64(1)))["leader"] == 1
    # out of range: named as the number it is; a numpy bool is still no whole number
    with pytest.raises(ddcards.InvalidOptionError, match=r"playing_team must be one of 0, 1, not 2 \(") as info:
        ddcards.Position.from_dict(dict(klaverjas, playing_team=numpy.int64(2)))
    assert info.value.token == "2" and info.value.field == "playing_team"
    with pytest.raises(ddcards.InvalidOptionError, match="flek takes a whole number, 0, 1 or 2, not true"):
        ddcards.Position.from_dict(dict(hra, flek=numpy.True_))


@pytest.mark.parametrize("value", [None, True, False])
def test_a_python_argument_is_named_in_python_words(value):
    # keep_tt=None was "keep_tt must be True or False, not null" (token "null"), find_game(True)
    # "not true": JSON's words for what no document wrote. A document's field keeps them.
    from ddcards.ddtable import dd_table, row_position

    calls = [lambda: ddcards.Solver().solve(SEED, keep_tt=value if value is None else 1),
             lambda: ddcards.solve(SEED, timeout=value) if value is not None else ddcards.solve(SEED, timeout=True),
             lambda: ddcards.solve(SEED, cancel=value) if value is not None else ddcards.solve(SEED, cancel=False),
             lambda: ddcards.analyse(SEED, on_step=value) if value is not None else ddcards.analyse(SEED, on_step=True),
             lambda: ddcards.find_game(value), lambda: ddcards.example(value), lambda: ddcards.solve_many(value),
             lambda: ddcards.Position.from_json(value),
             lambda: dd_table(ddcards.example("klaverjas"), solver=value) if value is not None else dd_table(
                 ddcards.example("klaverjas"), solver=True),
             lambda: row_position(value, ("H", 0))]
    for call in calls:
        with pytest.raises(ddcards.InvalidArgumentTypeError if call is not calls[7] else ddcards.NotationTypeError
                           ) as info:
            call()
        message = str(info.value)
        assert not re.search(r"\b(null|true|false)\b", message), message
        assert re.search(r"\b(None|True|False|1)\b", message), message
        assert info.value.token in ("None", "True", "False", "1"), (message, info.value.token)
    # a document's field is still named in the document's words
    with pytest.raises(ddcards.InvalidOptionError, match="not true"):
        ddcards.Position.from_dict(dict(SEED, flek=True))
