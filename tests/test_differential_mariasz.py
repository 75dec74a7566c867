"""Differential tests: the fast Mariasz solver against the plain-Python reference.

Random legal positions of every variant, objective and option are solved by both; the value,
the exact value of every legal action (cards and ``exchange``), the side to move, the legal
actions and the optimal ones must agree.  The reference is a memoised plain minimax, so the
positions are kept small enough for it: phase 2 (and Kiks, three players) a few tricks from the
end, phase 1 through races that a claim ends early, the last trick of phase 1 with the points
objective.  Random playouts of whole deals check the rules themselves action by action.

A failure prints the position document: replay it with
``ddcards.solve(ddcards.Position.from_dict(doc))`` and ``reference_solve(doc)``.
"""
import json
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import ddcards
from ddcards.games import get_game

try:
    from tests.reference import mariasz as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import mariasz as m

seeds = st.integers(0, 2**32 - 1)
GAME = get_game("mariasz")


def check(doc):
    m.clear_memo()
    expected = m.reference_solve(doc)
    text = json.dumps(doc, ensure_ascii=False)
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == expected["to_move"], text
    assert sorted(pos.legal_moves) == sorted(expected["moves"]), text
    res = ddcards.solve(pos, mode="all")
    assert res.to_move == expected["to_move"], text
    assert res.value == expected["value"], text
    assert {mv.move: mv.value for mv in res.moves} == expected["moves"], text
    optimal = {a for a, v in expected["moves"].items() if v == expected["value"]}
    assert set(res.optimal_moves) == optimal, text
    return expected


def options(rng, variant="standard"):
    out = {}
    for name in ("must_beat", "marriage_on_second"):
        if rng.random() < 0.4:
            out[name] = True
    if variant == "three":
        out["player"] = rng.randrange(3)
    return out


def deal(rng, variant="standard", *, szlifowany=None, race=None, start=(0, 131)):
    """A random deal with random options, objective and (for a race) start scores."""
    if szlifowany is None:
        szlifowany = variant != "kiks" and rng.random() < 0.4
    doc = m.random_deal(rng, variant=variant, szlifowany=szlifowany, slepy=rng.random() < 0.2)
    doc["options"].update(options(rng, variant))
    if race is None:
        race = rng.random() < 0.4
    if race:
        doc["objective"] = "race"
        doc["start_scores"] = [rng.randrange(*start) for _ in range(3 if variant == "three" else 2)]
    return doc


def not_over(rng, doc, plies):
    """`doc` with a random history of `plies` actions, or fewer if the deal would end first."""
    full = m.random_history(rng, doc, plies)
    for cut in range(len(full["played"]), -1, -1):
        trial = dict(doc, played=full["played"][:cut])
        if not m.from_doc(trial).over:
            return trial
    return dict(doc, played=[])


# ---------------------------------------------------------------- two players, phase 2

@settings(deadline=None, max_examples=1000)
@given(seeds, st.integers(1, 3), st.integers(0, 1))
def test_phase2(seed, tricks_left, in_trick):
    rng = random.Random(seed)
    doc = deal(rng, start=(60, 131))
    stock = len(doc["stock"].split())
    check(m.random_history(rng, doc, stock + 2 * (6 - tricks_left) + in_trick))


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(0, 1))
def test_phase2_four_tricks_left(seed, in_trick):
    rng = random.Random(seed)
    doc = deal(rng, race=False)
    stock = len(doc["stock"].split())
    check(m.random_history(rng, doc, stock + 4 + in_trick))


# ---------------------------------------------------------------- two players, phase 1

@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_phase1_races(seed):
    """Anywhere in phase 1, the exchange included: near 131 a claim ends the deal soon."""
    rng = random.Random(seed)
    doc = deal(rng, race=True, start=(123, 131))
    stock = len(doc["stock"].split())
    full = m.random_history(rng, doc, rng.randrange(0, stock + 1), exchange_bias=rng.choice([0.0, 0.5]))
    check(not_over(rng, doc, len(full["played"])) if m.from_doc(full).over else full)


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_late_phase1_races(seed):
    """The last two tricks of phase 1 from lower scores: races decided by the draws."""
    rng = random.Random(seed)
    doc = deal(rng, race=True, start=(116, 131))
    stock = len(doc["stock"].split())
    full = m.random_history(rng, doc, rng.randrange(stock - 4, stock), exchange_bias=0.0)
    check(not_over(rng, doc, len(full["played"])) if m.from_doc(full).over else full)


@settings(deadline=None, max_examples=8, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_last_trick_of_phase1(seed):
    """The points objective across the last draws: the follower's reply to the last lead of
    phase 1 (the winner takes the last face-down card, the loser the turned trump), then every
    position of one optimal line, out of the reference's memo."""
    rng = random.Random(seed)
    doc = deal(rng, race=False)
    stock = len(doc["stock"].split())
    doc = m.random_history(rng, doc, stock - 1)
    check(doc)
    st_ = m.from_doc(doc)
    line = []
    while not st_.over:
        target = m.minimax(st_)
        action = next(a for a in st_.legal() if m.minimax(st_._play(a)) == target)
        st_ = st_._play(action)
        line.append(action)
        pos = ddcards.Position.from_dict(dict(doc, played=doc["played"] + line))
        if not pos.is_over:
            assert ddcards.solve(pos, mode="best").value == target, json.dumps(doc) + " " + " ".join(line)


@pytest.mark.parametrize("seed, back, want_exchange", [(3, 2, False), (17, 2, False), (42, 2, True), (5, 3, False)])
def test_last_leads_of_phase1(seed, back, want_exchange):
    """The last lead of phase 1 (an exchange among the options when he can), and the reply to
    the lead before it: the draws and the points objective over two tricks of phase 1."""
    rng = random.Random(seed)
    for _ in range(500):
        doc = deal(rng, race=False, szlifowany=seed % 2 == 1)
        doc = m.random_history(rng, doc, len(doc["stock"].split()) - back, exchange_bias=0.0)
        if not want_exchange or m.EXCHANGE in m.from_doc(doc).legal():
            break
    else:
        pytest.fail("no deal with an exchange at the last lead of phase 1")
    check(doc)


# ---------------------------------------------------------------- one table across lines

@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(seeds)
def test_one_table_across_lines_of_a_deal(seed):
    """Lines of one 36-card deal solved with one table kept between them (keep_tt).  The key
    gives a suit's live 6-9 relative ranks (_mariasz_key.pxd), so positions that differ only in
    which low cards were played share entries; a suit with a low card still in the stock, or the
    trumps while the six may still be exchanged, must not: positions late in phase 1 (a race
    near 131, so that the reference can solve them; exchanges taken at random) and in phase 2,
    and every answer must be the reference's."""
    rng = random.Random(seed)
    doc = deal(rng, szlifowany=False, race=True, start=(116, 131))
    stock = len(doc["stock"].split())
    solver = ddcards.Solver(tt_mb=1)
    for _ in range(6):
        plies = rng.choice([rng.randrange(stock - 4, stock), stock + 2 * (6 - rng.randrange(1, 4)) + rng.randrange(2)])
        full = m.random_history(rng, doc, plies, exchange_bias=rng.choice([0.0, 0.5]))
        line = not_over(rng, doc, len(full["played"])) if m.from_doc(full).over else full
        m.clear_memo()
        expected = m.reference_solve(line)
        res = solver.solve(ddcards.Position.from_dict(line), mode="all", keep_tt=True)
        text = json.dumps(line, ensure_ascii=False)
        assert res.value == expected["value"], text
        assert {mv.move: mv.value for mv in res.moves} == expected["moves"], text


# Two positions of one deal, two tricks before the stock runs out, that differ only in the low
# club the leader kept: the 8 (he led the 6) or the 6 (he led the 8).  The 9 is gone and the 7
# is still in the stock, to be drawn after the next trick but one: so the two are not alike
# (the 8 beats the 7, the 6 does not), and neither are the positions a trick later, which the
# search looks up in its table; the key must not give the clubs relative ranks while a low
# club is in the stock (_mariasz_key.pxd).
TWIN_DEAL = {"game": "mariasz", "options": {}, "hands": ["QJ.6.97.K", "T.KQ.AK.Q"],
             "stock": "9H AS AC JH AH TD QD 9C 6D 8H 8D TH 7H JC 9S 8C 6C KS 8S JD TC 7S 7C 6S"}
TWIN_LINE = "QS QC 6H KD JS AD 7D JH QD AS 9C AC 8H TH QH 9H 6D 8D".split()


@pytest.mark.parametrize("first, second", [("6C", "8C"), ("8C", "6C")])
def test_low_cards_with_one_in_the_stock_keep_their_ranks(first, second):
    """The twins solved one after the other with one table kept between them (keep_tt): each
    answer is the reference's, although the first's entries are in the table."""
    docs = [dict(TWIN_DEAL, played=TWIN_LINE + [lead, "7H"]) for lead in (first, second)]
    expected = []
    for doc in docs:
        m.clear_memo()
        expected.append(m.reference_solve(doc))
    assert expected[0]["value"] != expected[1]["value"]     # the pair is a trap worth setting
    solver = ddcards.Solver(tt_mb=1)
    for doc, want in zip(docs, expected):
        res = solver.solve(ddcards.Position.from_dict(doc), mode="all", keep_tt=True)
        assert res.value == want["value"], json.dumps(doc)
        assert {mv.move: mv.value for mv in res.moves} == want["moves"], json.dumps(doc)


# ---------------------------------------------------------------- Kiks and three players

@settings(deadline=None, max_examples=600)
@given(seeds, st.integers(1, 3), st.integers(0, 3))
def test_kiks(seed, tricks_left, in_trick):
    rng = random.Random(seed)
    doc = deal(rng, "kiks", start=(40, 131))
    check(m.random_history(rng, doc, (9 - tricks_left) * 4 + in_trick))


@settings(deadline=None, max_examples=600)
@given(seeds, st.integers(1, 3), st.integers(0, 2))
def test_three_players(seed, tricks_left, in_trick):
    rng = random.Random(seed)
    doc = deal(rng, "three", start=(40, 131))
    per = 8 if doc["options"].get("szlifowany") else 12
    check(m.random_history(rng, doc, (per - tricks_left) * 3 + in_trick))


# ---------------------------------------------------------------- the rules, action by action

@settings(deadline=None, max_examples=300)
@given(seeds, st.sampled_from(["standard", "standard", "kiks", "three"]))
def test_playouts(seed, variant):
    """A whole random deal: the legal actions agree at every step, and so do the points, the
    tricks, the marriages and the claim at the end."""
    rng = random.Random(seed)
    doc = deal(rng, variant, start=(0, 131))
    doc = m.random_history(rng, doc, 200)
    ref = m.from_doc(dict(doc, played=[]))
    session = GAME.session(dict(doc, played=[]))
    text = json.dumps(doc)
    for ply, action in enumerate(doc["played"]):
        assert sorted(session.legal_moves()) == sorted(ref.legal()), f"ply {ply}: {text}"
        assert session.to_move == ref.to_move, f"ply {ply}: {text}"
        session.play(action)
        ref = ref.play(action)
    assert session.over and ref.over, text
    summary = session.summary([], 0)
    expected = m.scores(ref)
    assert {k: v for k, v in summary.scores.items() if k in expected} == expected, text
    assert list(summary.tricks.values()) == list(ref.tricks), text
    claimed = [name for name in session.side_names if summary.outcomes.get(f"{name}_claims")]
    assert claimed == ([] if ref.claimed is None else [session.side_names[ref.claimed]]), text


# ---------------------------------------------------------------- the endgame search against the core

@settings(deadline=None, max_examples=300)
@given(seeds, st.integers(0, 1))
def test_endgame_search_agrees_with_the_core(seed, in_trick):
    """Whole phase-2 endgames (six tricks, too many for the reference) solved twice: by the
    two-player endgame search (GameOps.leaf) and by the core alone, every option and objective."""
    from ddcards.games import _mariasz

    rng = random.Random(seed)
    doc = deal(rng, start=(30, 131))
    doc = m.random_history(rng, doc, len(doc["stock"].split()) + in_trick)
    pos = ddcards.Position.from_dict(doc)
    solver = ddcards.Solver()
    old = _mariasz.use_endgame(False)
    try:
        plain = solver.solve(pos, mode="all")
    finally:
        _mariasz.use_endgame(old)
    fast = solver.solve(pos, mode="all")
    text = json.dumps(doc)
    assert fast.value == plain.value and fast.move_values == plain.move_values, text
    assert fast.scores == plain.scores and fast.pv == plain.pv, text


# ---------------------------------------------------------------- races: the cache of dominated needs

def shifted(doc, d0, d1):
    return dict(doc, start_scores=[doc["start_scores"][0] + d0, doc["start_scores"][1] + d1])


@settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.booleans())
def test_race_values_are_monotone_in_the_start_scores(seed, late_phase1):
    """What the race cache rests on (_mariasz_endgame.pxd), by the reference alone: seat 0 starting
    with more points, or seat 1 with fewer, can only raise the value (of the position and of every
    action), in phase 2 and across the last draws of phase 1."""
    rng = random.Random(seed)
    doc = deal(rng, race=True, start=(0, 1))
    stock = len(doc["stock"].split())
    # the last two tricks of phase 1, or phase 2 with two or three tricks to go
    plies = stock - 1 - rng.randrange(4) if late_phase1 else stock + 2 * (6 - rng.randrange(2, 4)) + rng.randrange(2)
    line = m.random_history(rng, doc, plies, exchange_bias=0.0)
    # Start scores of 5 or more that leave each side 6-44 points to go from here: no claim yet,
    # and the race alive, with starts of 0 or more, after the shifts below.  (Starts near 131 from
    # the first card instead end the race at once, and the reference then solves whole deals:
    # minutes, for fewer decided races.)
    points = m.from_doc(line).points
    assume(max(points) <= 131 - 6 - 5)
    line["start_scores"] = [max(5, 131 - points[side] - rng.randrange(6, 45)) for side in range(2)]
    answers = {}
    for d0 in (0, -5):                              # lower starts: the history claims no sooner
        for d1 in (0, -5):
            m.clear_memo()
            answers[d0, d1] = m.reference_solve(shifted(line, d0, d1))
    text = json.dumps(line)
    for (a0, a1), low in answers.items():
        for (b0, b1), high in answers.items():
            if b0 >= a0 and b1 <= a1:               # seat 0 at least as near 131, seat 1 no nearer
                assert high["value"] >= low["value"], (text, (a0, a1), (b0, b1))
                assert all(high["moves"][mv] >= v for mv, v in low["moves"].items()), (text, (a0, a1), (b0, b1))


def solve_without_race_cache(solver, pos):
    from ddcards.games import _mariasz

    old = _mariasz.use_race_cache(False)
    try:
        return solver.solve(pos, mode="all")
    finally:
        _mariasz.use_race_cache(old)


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.booleans())
def test_the_race_cache_never_changes_an_answer(seed, phase2):
    """Two-player races too large for the reference (whole phase-2 endgames, up to seven tricks of
    phase 1), each side 10-60 points from 131, solved with the race cache and without: every value,
    move value and line agree."""
    rng = random.Random(seed)
    doc = deal(rng, race=True, start=(0, 1))
    stock = len(doc["stock"].split())
    plies = stock + rng.randrange(2) if phase2 else rng.randrange(max(0, stock - 14), stock)
    line = m.random_history(rng, doc, plies, exchange_bias=rng.choice([0.0, 0.5]))
    # start scores that leave each side 10-60 points to go from here: the race is alive
    points = m.from_doc(line).points
    line["start_scores"] = [max(0, 131 - points[side] - rng.randrange(10, 61)) for side in range(2)]
    pos = ddcards.Position.from_dict(line)
    solver = ddcards.Solver()
    plain = solve_without_race_cache(solver, pos)
    cached = solver.solve(pos, mode="all")
    text = json.dumps(line)
    assert cached.value == plain.value and cached.move_values == plain.move_values, text
    assert cached.pv == plain.pv, text


# Positions of one 36-card race where a first version of the cache answered wrongly (its key was
# read before it was worked out): each move's value must not depend on the cache.
RACE_DEAL = {"game": "mariasz", "hands": ["KT.6.7.A6", ".KJ7.9.98"], "objective": "race",
             "stock": "9H TC JS 8S AH 6D KD KC TH 7S 9S TD QC JD 6S AS 8H 8D QH JC 7C QS AD QD",
             "options": {"marriage_on_second": True}, "start_scores": [95, 92]}


@pytest.mark.parametrize("played", ["7D JH KS KH JS", "6C 9D 8C TS JH KS 7H", "6C 9D 9C KS JS 7D TS"])
def test_race_cache_regressions(played):
    pos = ddcards.Position.from_dict(dict(RACE_DEAL, played=played.split()))
    solver = ddcards.Solver()
    plain = solve_without_race_cache(solver, pos)
    cached = solver.solve(pos, mode="all")
    assert cached.value == plain.value and cached.move_values == plain.move_values
