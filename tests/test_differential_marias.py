"""Differential test: the fast solver against the plain-Python Mariáš reference.

Random legal endgames (2-6 tricks left, also mid-trick) are solved by both; the value, the
exact value of every legal move, the side to move, the legal moves and the optimal moves
must agree.  The solver's principal variation is replayed in the reference: every card legal
and keeping the value, to the end of the deal, with the scores, tricks, outcomes and
settlement the solver reports.

Most random endgames are decided already (every move has the same value), so about half of
each test's examples are *decisive*: the first position on a random line of play from the
endgame (two tricks left or more) where the moves' values differ; where none is found in a few
lines the example is rejected (``assume``), not passed.  A failure prints the position
document, so it can be replayed with ``ddcards.solve(ddcards.Position.from_dict(doc))`` and
``reference_solve(doc)``.
"""
import json
import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st


try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m
from _differential import assert_answers  # noqa: E402 - tests/ is on sys.path
from _marias_line import check_line  # noqa: E402

SEED_DOC, SEED_LINE = m.SEED_DOC, m.SEED_LINE    # hand-checked deal (test_reference_marias)

seeds = st.integers(0, 2**32 - 1)
short = st.integers(2, 4)                 # tricks left (with one left every card is forced)
in_trick = st.integers(0, 2)              # cards of the current trick already played
trumps = st.sampled_from("SHDC")
decisive = st.booleans()                  # look for a position whose moves' values differ
hra_options = st.fixed_dictionaries({}, optional={
    "marriage_on_follow": st.booleans(),
    "talon_points": st.sampled_from(["defenders", "nobody"]),
})
DRAWS = 6                                 # endgames drawn for a usable or decisive one


def alive(state):
    """Betl/Durch not lost yet (Hra: always)."""
    if state.contract == "betl":
        return state.declarer_tricks == 0
    if state.contract == "durch":
        return state.declarer_tricks == state.tricks_done
    return True


def differ(expected):
    return len(set(expected["moves"].values())) > 1


def check(doc, expected=None):
    expected = expected or m.reference_solve(doc)
    text = json.dumps(doc, ensure_ascii=False)
    res = assert_answers(doc, expected, text)
    check_line(doc, res, text)
    return res


def endgame(seed, contract, tricks_left, cards, decisive=False, usable=alive, floor=2, **kw):
    """A random endgame that is ``usable`` (by default: not lost by the history already) and
    the reference's answer.  ``decisive``: instead, the first position where the moves' values
    differ on a random line of play from it, ``floor`` tricks left or more (the declarer
    playing his lowest card in Betl, his highest in Durch, as the reference's bias does).
    Neither found in DRAWS endgames, the example is rejected."""
    rng = random.Random(seed)
    for _draw in range(DRAWS):
        doc = m.random_endgame(rng, contract, tricks_left, cards_in_trick=cards, **kw)
        state, played = m.from_doc(doc), list(doc["played"])
        if not usable(state):
            continue
        if not decisive:
            return doc, m.solve_state(state)
        while 10 - state.tricks_done >= floor and alive(state):
            moves = state.legal_moves()
            if len(moves) > 1:
                expected = m.solve_state(state)
                if differ(expected):
                    return dict(doc, played=played), expected
            if state.to_move == 0 and contract != "hra":
                card = (min if contract == "betl" else max)(moves, key=lambda c: m.strength(c, contract))
            else:
                card = rng.choice(moves)
            state = state.play(card)
            played.append(card)
    assume(False)


def test_seed_example_endgames():
    for n in range(18, 31):                  # the seed's worked example, last 4 tricks
        check(dict(SEED_DOC, played=SEED_LINE[:n]))
        check(dict(SEED_DOC, played=SEED_LINE[:n], options={"marriage_on_follow": True}))


@settings(deadline=None, max_examples=300)
@given(seeds, short, in_trick, trumps, hra_options, decisive)
def test_hra(seed, tricks_left, cards, trump, options, want_decisive):
    check(*endgame(seed, "hra", tricks_left, cards, want_decisive, trump=trump, options=options))


@settings(deadline=None, max_examples=150)
@given(seeds, short, in_trick, trumps, hra_options, decisive, st.booleans())
def test_sedma(seed, tricks_left, cards, trump, options, want_decisive, bias):
    # The bias keeps the trump 7 in the declarer's hand; without it he is dealt the 7 (as an
    # announcement needs) and plays at random: the 7 may be gone, or forced out by the defence.
    doc, expected = endgame(seed, "hra", tricks_left, cards, want_decisive, trump=trump, objective="sedma",
                            options=options, bias=bias, announcements=() if bias else ("sedma",))
    doc.pop("announcements", None)
    check(doc, expected)


def kilo_open(state):
    """The declarer's Kilo count (RULES §1) not yet 100 but still able to reach it."""
    count = state.cards[0] + (40 if state.declarer_trump_marriage else 0)
    marriage = {"K" + state.trump, "Q" + state.trump} <= state.hands[0] and not state.declarer_trump_marriage
    left = sum(map(m.card_points, [*state.trick, *(c for h in state.hands for c in h)])) + 10
    return count < 100 <= count + left + 40 * marriage


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.filter_too_much])
@given(seeds, st.integers(3, 5), in_trick, trumps, hra_options, decisive)
def test_kilo(seed, tricks_left, cards, trump, options, want_decisive):
    # With fewer than three tricks left the Kilo is nearly always settled already; a settled
    # one (reached, or out of reach) is drawn again: its moves all have one value.
    check(*endgame(seed, "hra", tricks_left, cards, want_decisive, kilo_open, trump=trump, objective="kilo",
                   options=options))


@settings(deadline=None, max_examples=150)
@given(seeds, short, in_trick, decisive)
def test_betl(seed, tricks_left, cards, want_decisive):
    check(*endgame(seed, "betl", tricks_left, cards, want_decisive))


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.filter_too_much])
@given(seeds, short, in_trick, decisive)
def test_durch(seed, tricks_left, cards, want_decisive):
    # a Durch the history has lost already (half of them, even with the bias) is drawn again
    check(*endgame(seed, "durch", tricks_left, cards, want_decisive))


@settings(deadline=None, max_examples=25,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seeds, in_trick, st.sampled_from([("hra", None), ("hra", "sedma"), ("hra", "kilo"), ("betl", None),
                                         ("durch", None)]), trumps, hra_options)
def test_five_tricks_left(seed, cards, kind, trump, options):
    # The reference's memo reaches the middle of the deal: positions of the sixth and seventh
    # tricks whose moves' values differ.
    contract, objective = kind
    kw = dict(trump=trump, objective=objective, options=options) if contract == "hra" else {}
    check(*endgame(seed, contract, 5, cards, True, floor=4, **kw))


def has_choice(state):
    return len(state.legal_moves()) > 1


@settings(deadline=None, max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, in_trick, trumps, hra_options)
def test_six_tricks_left_hra(seed, cards, trump, options):
    # The fifth trick, where a Hra is still open more often than not; the player to move has
    # a choice (a search of a Betl or Durch from here takes the reference seconds).
    check(*endgame(seed, "hra", 6, cards, usable=has_choice, trump=trump, options=options))


@settings(deadline=None, max_examples=150)
@given(seeds, short, in_trick, trumps, hra_options, decisive)
def test_unbiased_histories(seed, tricks_left, cards, trump, options, want_decisive):
    contract = random.Random(seed).choice(["hra", "hra", "betl", "durch"])
    kw = dict(trump=trump, options=options) if contract == "hra" else {}
    # a Durch lost by the history is tested here too
    check(*endgame(seed, contract, tricks_left, cards, want_decisive, lambda state: True, bias=False, **kw))


def test_the_midgame_corpus_late_in_the_deal():
    """The positions of benchmarks/corpus/marias-midgame.jsonl (every contract, objective and
    option, cut by random play) with 15 or more cards played, as the reference solves them: the
    corners the random endgames above draw less often (flek, 4 players, Betl and Durch mid-deal)."""
    path = __import__("pathlib").Path(__file__).resolve().parents[1] / "benchmarks" / "corpus" / "marias-midgame.jsonl"
    docs = [json.loads(line) for line in path.read_text().splitlines()]
    late = [(i, doc) for i, doc in enumerate(docs, 1) if len(doc["played"]) >= 15]
    assert len(late) >= 25
    for i, doc in late:
        assert_answers(doc, m.reference_solve(doc), f"marias-midgame.jsonl line {i}: {json.dumps(doc)}")
