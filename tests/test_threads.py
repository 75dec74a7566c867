"""One search on several threads (``Solver.solve(..., threads=)``, the core's root split).

The root's moves are shared out among threads that share one lockless table; whatever the
count, every answer must be the one thread's: the value, every move's value (mode all), the
optimal moves, and a principal variation that reaches the value.  The one-thread root split
is checked against the driver it replaced (the value first, then each move against it), and
both against the plain-Python references on endgames.
"""
from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import pytest

import ddcards
from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL, Searcher
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError, SearchCancelled, SearchTimeout

try:
    from tests.reference import klaverjas as kref
    from tests.reference import marias as mref
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as kref  # type: ignore[no-redef]
    from reference import marias as mref  # type: ignore[no-redef]

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"


def corpus(name: str, n: int, start: int = 0) -> list[dict]:
    lines = (CORPUS / f"{name}.jsonl").read_text().splitlines()[start:start + n]
    return [json.loads(line) for line in lines]


def random_klaverjas(seed: int) -> dict:
    """A fresh full deal with a random trump, playing team, rule set and leader."""
    rng = random.Random(seed)
    deck = [r + s for s in "SHDC" for r in "789TJQKA"]
    rng.shuffle(deck)
    hands = [".".join("".join(r for r in "AKQJT987" if r + s in deck[8 * i: 8 * i + 8]) for s in "SHDC")
             for i in range(4)]
    return {"game": "klaverjas", "hands": hands, "trump": rng.choice("SHDC"),
            "playing_team": rng.randrange(2), "rules": rng.choice(("amsterdam", "rotterdam")),
            "leader": rng.randrange(4)}


def mid_deal(doc: dict, cards: int) -> dict:
    """`doc` with the first `cards` cards of its principal variation played."""
    line = ddcards.Solver().solve(doc, mode="best").pv
    return dict(doc, played=line[:cards])


DEALS = (corpus("klaverjas-amsterdam", 6) + corpus("klaverjas-rotterdam", 6)
         + [random_klaverjas(seed) for seed in range(8)]
         + corpus("marias-hra", 10) + corpus("marias-betl", 5) + corpus("marias-durch", 3))


def answer(res: ddcards.Result) -> tuple:
    return res.value, tuple(sorted((m.move, m.value, m.optimal) for m in res.moves))


def assert_line_reaches(doc: dict, res: ddcards.Result) -> None:
    pos = ddcards.Position.from_dict(doc)
    for move in res.pv:                              # every card of the line is legal
        pos = pos.play(move)
    assert pos.is_over                               # the line goes to the end of the deal
    assert ddcards.Solver().solve(pos).value == res.value


@pytest.mark.parametrize("mode", ["all", "optimal"])
@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_answers_of_one(mode, threads):
    one, many = ddcards.Solver(), ddcards.Solver()
    for doc in DEALS:
        expected = one.solve(doc, mode=mode)
        got = many.solve(doc, mode=mode, threads=threads)
        assert answer(got) == answer(expected), json.dumps(doc)
        assert got.nodes > 0


def test_threads_in_mode_best_report_an_optimal_move_and_a_line_to_the_value():
    engine = ddcards.Solver()
    for doc in DEALS[::2]:
        every = engine.solve(doc, mode="all")
        best = engine.solve(doc, mode="best", threads=2)
        assert best.value == every.value
        assert len(best.optimal_moves) == 1 and best.optimal_moves[0] in every.optimal_moves
        assert best.pv[0] == best.optimal_moves[0]
        assert_line_reaches(doc, best)


def test_threads_line_reaches_the_value():
    engine = ddcards.Solver()
    for doc in DEALS[::3]:
        res = engine.solve(doc, mode="optimal", threads=2)
        assert res.pv and res.pv[0] in res.optimal_moves
        assert_line_reaches(doc, res)


def test_threads_mid_deal_and_mid_trick():
    one, two = ddcards.Solver(), ddcards.Solver()
    for doc, cards in ((DEALS[0], 5), (DEALS[13], 9), (DEALS[20], 4), (DEALS[21], 13)):
        pos = mid_deal(doc, cards)
        assert answer(two.solve(pos, threads=2)) == answer(one.solve(pos)), json.dumps(pos)


def test_threads_value_alone():
    one, two = ddcards.Solver(), ddcards.Solver()
    for doc in DEALS[::2]:
        assert two.value(doc, threads=2) == one.value(doc) == one.solve(doc, mode="best").value


def test_a_forced_or_finished_position_needs_no_split():
    doc = mid_deal(corpus("klaverjas-amsterdam", 1)[0], 31)     # one card left: forced
    res = ddcards.Solver().solve(doc, threads=2)
    assert len(res.moves) == 1 and res.value == ddcards.Solver().solve(doc).value
    done = mid_deal(corpus("klaverjas-amsterdam", 1)[0], 32)
    assert ddcards.Solver().solve(done, threads=2).moves == []


@pytest.mark.parametrize("seed", range(40))
def test_split_drivers_match_the_klaverjas_reference(seed):
    rng = random.Random(seed)
    doc = kref.random_endgame(rng, rng.choice((2, 3)), cards_in_trick=rng.randrange(4),
                              rules=rng.choice(kref.RULESETS), close=2)
    expected = kref.reference_solve(doc)
    for threads in (1, 2):
        res = ddcards.Solver().solve(doc, mode="all", threads=threads)
        assert res.value == expected["value"], json.dumps(doc)
        assert {m.move: m.value for m in res.moves} == expected["moves"], json.dumps(doc)


@pytest.mark.parametrize("seed", range(30))
def test_split_drivers_match_the_marias_reference(seed):
    rng = random.Random(seed)
    contract = ("hra", "betl", "durch")[seed % 3]
    doc = mref.random_endgame(rng, contract, rng.choice((2, 3)), cards_in_trick=rng.randrange(3))
    expected = mref.reference_solve(doc)
    for threads in (1, 2):
        res = ddcards.Solver().solve(doc, mode="all", threads=threads)
        assert res.value == expected["value"], json.dumps(doc)
        assert {m.move: m.value for m in res.moves} == expected["moves"], json.dumps(doc)


@pytest.mark.parametrize("mode", [MODE_ALL, MODE_OPTIMAL, MODE_BEST])
def test_the_root_split_answers_as_the_driver_it_replaced(mode):
    """split=False: the value first, then each root move against it (the old driver)."""
    searcher = Searcher(2)
    for doc in DEALS:
        pos = ddcards.Position.from_dict(doc)
        searcher.clear()
        old = searcher.solve(pos.session().board, mode, split=False, want_pv=False)
        searcher.clear()
        new = searcher.solve(pos.session().board, mode, want_pv=False, split=True)
        assert new[0] == old[0], json.dumps(doc)
        if mode == MODE_BEST:
            continue       # one optimal move each, maybe not the same
        assert sorted(new[1]) == sorted(old[1]), json.dumps(doc)


@pytest.mark.parametrize("bad", [0, -1, 65, 1.5, True, "2", None])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(InvalidOptionError) as err:
        ddcards.Solver().solve(DEALS[0], threads=bad)
    assert err.value.token == repr(bad)
    assert err.value.rule == "solve: threads"
    with pytest.raises(InvalidOptionError):
        ddcards.Solver().value(DEALS[0], threads=bad)


def test_helpers_must_hold_the_same_position_on_their_own_tables():
    pos = ddcards.Position.from_dict(DEALS[0])
    searcher = Searcher(2)
    board = pos.session().board
    with pytest.raises(ValueError, match="of its own"):
        searcher.solve(board, MODE_ALL, helpers=[(searcher, pos.session().board)])
    with pytest.raises(ValueError, match="of its own"):
        searcher.solve(board, MODE_ALL, helpers=[(Searcher(1), board)])
    later = pos.play(pos.legal_moves[0]).session().board
    with pytest.raises(ValueError, match="same position"):
        searcher.solve(board, MODE_ALL, helpers=[(Searcher(1), later)])
    with pytest.raises(ValueError, match="root split"):
        searcher.solve(board, MODE_ALL, split=False, helpers=[(Searcher(1), pos.session().board)])


def several_values(positions: list, threads: int, shared: bool = True) -> list[tuple[int, int]]:
    """Searcher.values over `positions` on `threads` threads: one table for all (shared) or one each."""
    first = Searcher(2)
    owners = [first] * len(positions) if shared else [Searcher(2) for _ in positions]
    rows = [(owner, pos.session().board) for owner, pos in zip(owners, positions)]
    helpers = [(Searcher(1), [pos.session().board for pos in positions]) for _ in range(threads - 1)]
    return first.values(rows, helpers)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_several_positions_searched_together_have_their_own_values(threads):
    """Searcher.values (a DD table's rows at once): each position's value is value()'s, whether
    the positions share one table or not, on any number of threads; positions of several games,
    mid-trick, forced and finished ones among them."""
    docs = DEALS[::3] + [mid_deal(DEALS[1], 6), mid_deal(DEALS[13], 10),
                         mid_deal(corpus("klaverjas-amsterdam", 1)[0], 31),      # forced
                         mid_deal(corpus("klaverjas-amsterdam", 1)[0], 32)]      # finished
    positions = [ddcards.Position.from_dict(doc) for doc in docs]
    expected = [ddcards.Solver().value(pos) for pos in positions]
    for shared in (True, False):
        got = several_values(positions, threads, shared)
        assert [v for v, _ in got] == expected, (threads, shared)
        assert all(nodes > 0 for _, nodes in got)


def test_several_positions_on_one_thread_search_as_each_alone():
    """On one thread each row is the root split of value() in a table of its own: the same nodes."""
    positions = [ddcards.Position.from_dict(doc) for doc in DEALS[:12]]
    alone = []
    for pos in positions:
        searcher = Searcher(2)
        searcher.value(pos.session().board)
        alone.append(searcher.nodes)
    assert [n for _, n in several_values(positions, 1, shared=False)] == alone


def test_several_positions_stop_together_and_say_how_far_each_got():
    positions = [ddcards.Position.from_dict(dict(random_klaverjas(7), trump=s, playing_team=t))
                 for s in "SHDC" for t in (0, 1)]
    with pytest.raises(SearchTimeout) as err:
        first = Searcher(2)
        first.values([(first, pos.session().board) for pos in positions],
                     [(Searcher(1), [pos.session().board for pos in positions])], timeout=0.002)
    # (answered, moves, best, move, mover is MAX) of each row: every row's moves are counted up
    # front, and one at least was not answered
    rows = err.value.rows_progress
    assert len(rows) == 8 and all(got[1] >= 1 for got in rows) and any(got[0] < got[1] for got in rows)
    token = ddcards.CancelToken()
    token.cancel()
    searcher = Searcher(2)
    with pytest.raises(SearchCancelled):
        searcher.values([(searcher, positions[0].session().board)], cancel=token)


def test_several_positions_need_boards_of_their_own():
    pos = ddcards.Position.from_dict(DEALS[0])
    first, board = Searcher(2), pos.session().board
    with pytest.raises(ValueError, match="of its own"):
        first.values([(first, board), (first, board)])
    with pytest.raises(ValueError, match="of its own"):
        first.values([(first, board)], [(first, [pos.session().board])])
    with pytest.raises(ValueError, match="a board for every row"):
        first.values([(first, board)], [(Searcher(1), [])])
    later = pos.play(pos.legal_moves[0]).session().board
    with pytest.raises(ValueError, match="rows' positions"):
        first.values([(first, board)], [(Searcher(1), [later])])
    assert first.values([]) == []


def slowest(docs: list[dict]) -> dict:
    engine = ddcards.Solver()
    return max(docs, key=lambda d: engine.solve(d, mode="all").nodes)


def test_timeout_stops_every_thread():
    doc = slowest(corpus("klaverjas-amsterdam", 20))
    engine = ddcards.Solver()
    with pytest.raises(SearchTimeout):
        engine.solve(doc, mode="all", threads=2, timeout=0.0005)
    # the Solver is usable again, with the same answers
    assert answer(engine.solve(doc, mode="all", threads=2)) == answer(ddcards.Solver().solve(doc, mode="all"))


def test_cancel_from_another_thread_stops_every_thread():
    doc = slowest(corpus("klaverjas-amsterdam", 20))
    token = ddcards.CancelToken()
    timer = threading.Timer(0.002, token.cancel)
    timer.start()
    start = time.perf_counter()
    with pytest.raises(SearchCancelled):
        for _ in range(50):          # a search may finish before the token is set: ask again
            ddcards.Solver().solve(doc, mode="all", threads=2, cancel=token)
    assert time.perf_counter() - start < 5
    timer.cancel()


def test_module_level_solve_takes_threads():
    assert answer(ddcards.solve(DEALS[0], threads=2)) == answer(ddcards.solve(DEALS[0]))


def test_cli_solve_threads(tmp_path, capsys):
    from ddcards import cli

    path = tmp_path / "deals.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DEALS[:4]))
    outs = []
    for threads in ("1", "2"):
        assert cli.main(["solve", str(path), "--json", "--threads", threads]) == 0
        docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        outs.append([(d["value"], sorted((m["move"], m["value"]) for m in d["moves"])) for d in docs])
    assert outs[0] == outs[1] and len(outs[0]) == 4
    with pytest.raises(SystemExit) as info:            # a usage error, before any search
        cli.main(["solve", str(path), "--threads", "0"])
    assert info.value.code == cli.EXIT_BAD_INPUT
    assert "ddcards solve: error: --threads must be a whole number from 1 to 64 (got 0)" in capsys.readouterr().err


def _analysis_answer(analysis: ddcards.Analysis) -> tuple:
    """What an analysis answers, whatever the thread count: each step's values, best moves and
    every move's value, and the final position's value and moves (its line may be another
    optimal one)."""
    steps = [(s.ply, s.move, s.value_before, s.value_after, sorted(s.best_moves), s.cost,
              sorted((m.move, m.value) for m in s.moves)) for s in analysis.steps]
    return (analysis.initial_value, analysis.final_value, steps, answer(analysis.final))


@pytest.mark.parametrize("name", ["marias-seed", "mariasz-kiks", "mariasz-recorded", "prsi-endgame"])
def test_an_analysis_on_threads_answers_as_on_one(name):
    doc = ddcards.example(name)
    one = ddcards.Solver().analyse(doc, mode="all")
    assert one.steps, name                               # a recorded play, analysed step by step
    assert _analysis_answer(ddcards.Solver().analyse(doc, mode="all", threads=2)) == _analysis_answer(one)
    assert _analysis_answer(ddcards.analyse(doc, mode="all", threads=3)) == _analysis_answer(one)


def test_an_analysis_of_a_klaverjas_deal_on_threads_answers_as_on_one():
    doc = mid_deal(corpus("klaverjas-rotterdam", 1)[0], 14)
    one = ddcards.Solver().analyse(doc, mode="all")
    assert len(one.steps) == 14
    assert _analysis_answer(ddcards.Solver().analyse(doc, mode="all", threads=2)) == _analysis_answer(one)
    with pytest.raises(InvalidOptionError, match="threads"):
        ddcards.Solver().analyse(doc, threads=0)


def test_cli_analyse_and_report_threads(tmp_path, capsys):
    from ddcards import cli

    outs = []
    for threads in ("1", "2"):
        assert cli.main(["analyse", "--example", "mariasz-recorded", "--json", "--mode", "all",
                         "--threads", threads]) == 0
        doc = json.loads(capsys.readouterr().out)
        outs.append([(s["ply"], s["value_before"], s["value_after"], sorted((m["move"], m["value"])
                      for m in s["moves"])) for s in doc["steps"]])
    assert outs[0] == outs[1] and len(outs[0]) == 25
    page = tmp_path / "r.html"
    assert cli.main(["report", "--example", "marias-seed", "-o", str(page), "--threads", "2"]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(SystemExit) as info:
        cli.main(["analyse", "--example", "marias-seed", "--threads", "65"])
    assert info.value.code == cli.EXIT_BAD_INPUT
    assert "ddcards analyse: error: --threads must be a whole number from 1 to 64 (got 65)" in capsys.readouterr().err


def _stock_left(doc: dict) -> int:
    return len(doc.get("stock", "").split()) - sum(a != "exchange" for a in doc.get("played", ()))


# Every Mariasz variant and objective, from the first trick and mid-stock (the helpers keep
# their endgame memo and race cache in side areas of their own), and Prší mid-game.
OTHER_GAMES = (corpus("mariasz-szlifowany", 2) + corpus("mariasz-kiks", 2) + corpus("mariasz-three", 3)
               + corpus("mariasz-race", 4) + corpus("mariasz-phase2", 3)
               + [d for d in corpus("mariasz-ladder", 520) if _stock_left(d) == 8][:3]
               + corpus("prsi-midgame", 3))


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_answers_of_one_in_mariasz_and_prsi(threads):
    for doc in OTHER_GAMES:
        expected = ddcards.Solver().solve(doc, mode="all")
        got = ddcards.Solver().solve(doc, mode="all", threads=threads)
        assert answer(got) == answer(expected), json.dumps(doc)


def test_threads_sharing_one_solver_take_turns():
    """Two threads calling one Solver (a table for one search at a time) get each position's own
    answers, as a Solver each does, across games whose tables differ in size (this crashed the
    process before calls took turns)."""
    names = ["klaverjas", "mariasz-kiks", "mariasz-three", "marias-hra"]
    expected = {name: ddcards.Solver().solve(ddcards.example(name)) for name in names}
    shared = ddcards.Solver()
    got: dict[str, list[tuple[int, list[str]]]] = {name: [] for name in names}
    failures: list[BaseException] = []

    def work(name: str, analyse: bool) -> None:
        try:
            for _ in range(6):
                result = shared.solve(ddcards.example(name))
                got[name].append((result.value, [(m.move, m.value) for m in result.moves]))
                if analyse:
                    shared.analyse(ddcards.example(name))
                shared.clear()
        except BaseException as exc:          # reported below, with the thread's answers
            failures.append(exc)

    workers = [threading.Thread(target=work, args=(name, i % 2 == 0)) for i, name in enumerate(names)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert failures == []
    for name in names:
        want = (expected[name].value, [(m.move, m.value) for m in expected[name].moves])
        assert got[name] == [want] * 6, name


class Holding(threading.Thread):
    """A thread whose endless search holds a Solver until `release` (or 120 s, should a test
    fail before it): "at once" is then "while the other search still held the Solver", which
    no wall-clock bound on a loaded machine has to stand in for."""

    def __init__(self, shared: ddcards.Solver):
        from _long_search import ENDLESS

        self._token = ddcards.CancelToken()
        super().__init__(target=lambda: pytest.raises((SearchCancelled, SearchTimeout), shared.value, ENDLESS,
                                                      cancel=self._token, timeout=120.0), daemon=True)

    def release(self) -> None:
        self._token.cancel()
        self.join()


def hold_searching(shared: ddcards.Solver) -> Holding:
    """A `Holding` of `shared`, started and its search under way when this returns."""
    holding = Holding(shared)
    holding.start()
    deadline = time.monotonic() + 30
    while shared.nodes_now == 0 and time.monotonic() < deadline:     # its search under way
        time.sleep(0.005)
    return holding


def test_a_call_waiting_for_a_shared_solver_keeps_its_timeout_and_cancel():
    """A call that finds its Solver searching for another thread waits its turn within its own
    timeout and cancel, says bad arguments at once, and gets what is left of its time."""
    shared = ddcards.Solver()
    ex = ddcards.example("marias-hra")
    holding = hold_searching(shared)
    with pytest.raises(SearchTimeout, match="ran out of time .0.2 s. while it waited for this Solver's other search") \
            as timed_out:
        shared.solve(ex, timeout=0.2)
    assert timed_out.value.nodes == 0 and holding.is_alive()
    assert timed_out.value.steps is None                # not an analysis
    # an analysis that gave up before it began finished no step: [] (it was None, as for a solve)
    with pytest.raises(SearchTimeout, match="while it waited") as timed_out:
        shared.analyse(ddcards.example("marias-seed"), timeout=0.2)
    assert timed_out.value.steps == [] and timed_out.value.nodes == 0
    token = ddcards.CancelToken()
    threading.Timer(0.1, token.cancel).start()
    with pytest.raises(SearchCancelled, match="cancelled while it waited"):
        shared.solve(ex, cancel=token)
    with pytest.raises(InvalidOptionError, match="threads is a whole number"):
        shared.solve(ex, threads=0)
    with pytest.raises(InvalidOptionError, match="timeout is a number of seconds"):
        shared.value(ex, timeout=-1)
    # the position, the mode and from_ply too (they were said only after the wait, or timed out)
    with pytest.raises(InvalidOptionError, match="unknown mode 'bogus'"):
        shared.solve(ex, mode="bogus")
    with pytest.raises(InvalidOptionError, match="unknown game 'bogus'"):
        shared.value({"game": "bogus"}, timeout=10)
    with pytest.raises(InvalidOptionError, match="from_ply is a whole number from 0 to 30"):
        shared.analyse(ddcards.example("marias-seed"), from_ply=99)
    with pytest.raises(InvalidOptionError, match="an analysis takes mode optimal or all"):
        shared.analyse(ddcards.example("marias-seed"), mode="best")
    assert holding.is_alive()                           # said at once, not after the other search
    holding.release()
    assert shared.solve(ex, timeout=60).value == 70     # its turn, then it searches


def test_a_call_waiting_for_a_shared_solver_says_arguments_its_method_does_not_take_at_once():
    """A misspelt keyword, a mode given by position or no position at all is Python's TypeError
    for the call at once, as on a free Solver: it waited for the other search first (as long
    as that one ran), and a call without its position but with a timeout said
    SearchTimeout instead."""
    shared = ddcards.Solver()
    ex = ddcards.example("marias-hra")
    holding = hold_searching(shared)
    with pytest.raises(TypeError, match="unexpected keyword argument 'timout'"):
        shared.solve(ex, timout=1)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'position'"):
        shared.solve(timeout=1)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        shared.solve(ex, "all")
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        shared.value(ex, mode="all")
    with pytest.raises(TypeError, match="unexpected keyword argument 'from_plies'"):
        shared.analyse(ddcards.example("marias-seed"), from_plies=3)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        shared.clear(1)
    assert holding.is_alive()                           # said at once, while the other search held the Solver
    holding.release()
    assert shared.solve(ex, timeout=60).value == 70     # its turn, then it searches


def test_a_marias_dd_table_waiting_for_a_shared_solver_keeps_its_timeout_and_cancel():
    """A Mariáš contract table on a Solver another thread is searching with waits within its
    own timeout and cancel, as the Solver's own calls and a Klaverjas table do (it waited for
    the other search to end, minutes, whatever its timeout)."""
    shared = ddcards.Solver()
    deal = {k: v for k, v in ddcards.example("marias-hra").items() if k not in ("contract", "trump")}
    want = ddcards.dd_table(deal)["entries"]
    holding = hold_searching(shared)
    with pytest.raises(SearchTimeout, match=r"ran out of time \(0.2 s\) while it waited for this Solver's other"):
        ddcards.dd_table(deal, solver=shared, timeout=0.2)
    assert holding.is_alive()
    token = ddcards.CancelToken()
    threading.Timer(0.1, token.cancel).start()
    with pytest.raises(SearchCancelled, match="cancelled while it waited"):
        ddcards.dd_table(deal, solver=shared, cancel=token)
    assert holding.is_alive()
    holding.release()
    assert ddcards.dd_table(deal, solver=shared, timeout=60)["entries"] == want     # its turn, then it searches


def test_dd_table_says_a_cancel_that_is_no_token_as_solve_does():
    deal = {k: v for k, v in ddcards.example("marias-hra").items() if k not in ("contract", "trump")}
    for doc in (deal, ddcards.example("klaverjas")):
        with pytest.raises(InvalidArgumentTypeError, match="cancel must be a ddcards.CancelToken or None, not 'x'") \
                as info:
            ddcards.dd_table(doc, cancel="x")
        assert isinstance(info.value, TypeError) and info.value.field == "cancel"


def test_searches_on_several_threads_at_once_each_get_their_own_helpers():
    """Several Solvers searching on 2-3 threads each at the same time: the parked threads that
    serve further threads (pool.h) are handed out one search at a time, and every answer is
    the one thread's."""
    docs = DEALS[:16]
    expected = [answer(ddcards.Solver().solve(doc)) for doc in docs]
    got: dict[int, list] = {}
    failures: list[BaseException] = []

    def work(k: int) -> None:
        try:
            engine = ddcards.Solver()
            got[k] = [answer(engine.solve(doc, threads=2 + k % 2)) for doc in docs]
        except BaseException as exc:          # reported below
            failures.append(exc)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert failures == []
    assert all(got[k] == expected for k in range(4))


# Python 3.12+ warns that a fork with threads running may deadlock: forking after searches on
# threads is what this test is about (a process pool's children), so the warning is expected.
@pytest.mark.filterwarnings(r"ignore:.*use of fork\(\) may lead to deadlocks:DeprecationWarning")
def test_a_forked_child_searches_on_threads_of_its_own():
    """After searches on several threads, a forked child (as a process pool forks) has none of
    the parent's parked threads: its own searches on two threads start theirs and answer."""
    import multiprocessing

    doc = DEALS[0]
    want = answer(ddcards.Solver().solve(doc, threads=2))
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_solve_on_two_threads, (doc,)) == want
    assert answer(ddcards.Solver().solve(doc, threads=2)) == want     # the parent's still serve


def _solve_on_two_threads(doc: dict) -> tuple:
    return answer(ddcards.Solver().solve(doc, threads=2))


# The Solver a forked child finds another thread of the parent searching with (set before the fork).
_HELD: ddcards.Solver | None = None


@pytest.mark.filterwarnings(r"ignore:.*use of fork\(\) may lead to deadlocks:DeprecationWarning")
def test_a_forked_child_can_use_a_solver_another_thread_was_searching_with():
    """A child forked while another thread searches with a shared Solver (a service's, as a
    process pool forks) uses it at once: the child has no such search, and its call waited for
    that search's end for ever (here: SearchTimeout after 10 s), its table unable to grow."""
    import multiprocessing

    global _HELD
    _HELD = ddcards.Solver()
    holding = hold_searching(_HELD)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            got, seconds, progress = pool.apply(_solve_with_the_held_solver, (ddcards.example("mariasz-kiks"),))
    finally:
        holding.release()
        _HELD = None
    assert got == ddcards.Solver().solve(ddcards.example("mariasz-kiks")).value
    assert seconds < 5.0 and progress is None


def _solve_with_the_held_solver(doc: dict) -> tuple:
    assert _HELD is not None
    start = time.monotonic()
    value = _HELD.solve(doc, timeout=10).value
    return value, time.monotonic() - start, _HELD.progress_now
