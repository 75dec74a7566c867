"""Long searches from the command line: Ctrl-C stops them at once, a ticker shows them.

A search runs without the GIL, so on the main thread it would hold Ctrl-C back until it ended
(ddcards/cli/foreground.py); these run a search that takes minutes (a fresh 36-card Mariasz deal)
and interrupt it.
"""
from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import ddcards
from ddcards.cli.foreground import Foreground
from ddcards.result import SearchProgress

try:
    from tests._long_search import ENDLESS
    from tests._signals import sigint_default
except ImportError:  # pytest put tests/ itself on sys.path
    from _long_search import ENDLESS
    from _signals import sigint_default

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"



def wait_for(proc: subprocess.Popen, text: bytes, limit: float = 60) -> bytes:
    """Standard error up to `text`, as bytes (the ticker redraws its line with carriage returns)."""
    seen, end = b"", time.monotonic() + limit
    while text not in seen:
        assert time.monotonic() < end and proc.poll() is None, seen
        seen += proc.stderr.read(1)
    return seen


@pytest.mark.parametrize("command", ["solve", "analyse"])
def test_ctrl_c_stops_a_long_search_at_once(tmp_path, command):
    path = tmp_path / "fresh.json"
    path.write_text(json.dumps(ENDLESS))
    proc = subprocess.Popen([sys.executable, "-m", "ddcards", command, str(path), "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, preexec_fn=sigint_default)
    try:
        ticker = wait_for(proc, b"Ctrl-C stops")
        assert b"\rddcards: searching 0:0" in ticker and b" M nodes (" in ticker
        if command == "solve":          # the first moves shared out: none answered in seconds
            assert b"; 0 of 6 distinct first moves answered; Ctrl-C stops" in ticker, ticker
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and time.monotonic() - sent < 5
        whole = ticker + err      # the ticker's line cleared, how far the search got (as a --timeout says)
        what = b"search" if command == "solve" else b"analysis"
        stopped = re.search(rb"\x1b\[K\r\x1b\[Kddcards: stopped: the " + what + rb" was cancelled after [\d,]+ nodes"
                            rb"([^\n]*)\nddcards: interrupted\n$", whole)
        assert out == b"" and stopped, whole[-300:]
        if command == "solve":
            assert stopped.group(1) == b"; by then 0 of 6 distinct first moves answered"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_stops_a_reports_analysis_at_once(tmp_path):
    # The report's analysis runs as `analyse`'s does, on a worker thread: it ran on the main
    # thread, where Ctrl-C waited for the search to end (minutes).
    path = tmp_path / "fresh.json"
    path.write_text(json.dumps(ENDLESS))
    proc = subprocess.Popen([sys.executable, "-m", "ddcards", "report", str(path), "-o", str(tmp_path / "x.html"),
                             "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, preexec_fn=sigint_default)
    try:
        wait_for(proc, b"Ctrl-C interrupts it; the ticker shows how far it got)")    # the long-analysis note
        assert b"\rddcards: searching 0:0" in wait_for(proc, b"Ctrl-C stops")     # --progress: its ticker
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and time.monotonic() - sent < 5
        assert err.endswith(b"ddcards: interrupted\n") and not (tmp_path / "x.html").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# Prší within a horizon of 30 with 50 actions recorded, the hands growing with the draws: the first
# actions are analysed in a fraction of a second, the later ones take seconds each (some 18 s in all
# on one core), so a Ctrl-C sent once the ticker counts an action analysed lands mid-analysis.
GROWING = dict(ddcards.example("prsi"), options={"horizon": 30}, played=[
    "QS/C", "draw", "draw", "KC", "QD/C", "8C", "draw", "draw", "draw", "7C", "7H", "draw", "draw", "draw", "draw",
    "8H", "draw", "QC/D", "AD", "pass", "7D", "draw", "7S", "draw", "TS", "8S", "draw", "9S", "draw", "9D", "KD",
    "JD", "draw", "draw", "JS", "JH", "draw", "AH", "pass", "AS", "pass", "draw", "KS", "KH", "draw", "9H", "TH",
    "draw", "TD", "draw"])


def test_ctrl_c_in_a_reports_analysis_writes_the_play_analysed(tmp_path):
    """Ctrl-C part-way through a report's analysis wrote no page, where a --timeout wrote the page
    of the actions analysed: the work was lost. It now writes that page too, marked incomplete,
    says where it is and what reports the rest, and ends as an interrupt does (status 130)."""
    path = tmp_path / "growing.json"
    path.write_text(json.dumps(GROWING))
    out = tmp_path / "growing.html"
    proc = subprocess.Popen([sys.executable, "-m", "ddcards", "report", str(path), "-o", str(out), "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, preexec_fn=sigint_default)
    try:
        seen = wait_for(proc, b" of the 50 recorded actions analysed")
        while not re.search(rb"[1-9]\d* of the 50 recorded actions analysed", seen):
            seen += wait_for(proc, b" of the 50 recorded actions analysed")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    told = re.search(rb"\x1b\[Kddcards: wrote (.*)\nddcards: stopped: the analysis was cancelled after [\d,]+ nodes, "
                     rb"with (\d+) of the 50 recorded actions analysed \(the page shows the play analysed before it "
                     rb"stopped; --from-ply (\d+) reports the rest\)\nddcards: interrupted\n$", seen + err)
    assert told, (seen + err)[-400:]
    analysed = int(told[2])
    assert told[1] == str(out).encode() and 0 < analysed < 50 and int(told[3]) == analysed
    page = out.read_text(encoding="utf-8")
    last = analysed - 1
    assert page.count('<tr id="ply-') == analysed
    left = 50 - analysed
    assert ('<p class="stopped" role="status"><strong>Incomplete:</strong> the analysis was cancelled after '
            f"ply {last}: this page shows plies 0 to {last}; the {left} recorded action{'s' if left != 1 else ''} "
            f"after them {'are' if left != 1 else 'is'} not analysed (ddcards report --from-ply {analysed} "
            f"reports {'them' if left != 1 else 'it'}).</p>") in page
    # the steps shown are the analysis's own, as an analysis stopped there finds them
    steps: list[ddcards.AnalysisStep] = []

    def enough(step: ddcards.AnalysisStep) -> None:
        steps.append(step)
        if len(steps) == analysed:
            raise LookupError("enough")
    with pytest.raises(LookupError):
        ddcards.Solver().analyse(GROWING, mode="all", on_step=enough)
    data = json.loads(re.search(r'<script type="application/json" id="analysis">(.*?)</script>', page, re.S)[1])
    assert data["steps"] == [s.to_dict() for s in steps] and data["final"] is None


def test_no_ticker_into_a_pipe_by_default_and_short_searches_print_none(tmp_path):
    out = subprocess.run([sys.executable, "-m", "ddcards", "solve", "--example", "mariasz"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "searching" not in out.stderr and "\r" not in out.stderr
    assert "Value       -20" in out.stdout


def test_nodes_now_counts_a_search_under_way_from_another_thread():
    solver = ddcards.Solver(tt_mb=4)
    cancel = ddcards.CancelToken()
    outcome: list[BaseException] = []

    def search() -> None:
        try:
            solver.solve(ENDLESS, cancel=cancel)
        except ddcards.SearchCancelled as exc:
            outcome.append(exc)

    worker = threading.Thread(target=search)
    worker.start()
    # The first search of a process may take ~50 ms to start (the game's first use): wait for it.
    deadline = time.monotonic() + 30
    while solver.nodes_now == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    readings = [solver.nodes_now]
    deadline = time.monotonic() + 30       # a search that died would count no further: fail, not hang
    while (len(readings) < 3 or readings[-1] == readings[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
        readings.append(solver.nodes_now)
    cancel.cancel()
    worker.join(30)
    assert not worker.is_alive() and len(outcome) == 1
    assert readings == sorted(readings) and readings[-1] > readings[0] > 0
    assert solver.nodes_now == solver.last_nodes >= readings[-1]     # between searches: the last one's


def test_foreground_returns_the_answer_and_raises_the_searchs_error():
    solver = ddcards.Solver(tt_mb=1)
    stream = io.StringIO()
    with Foreground(solver, ticker=True, stream=stream, delay=0.0) as searches:
        res = searches.run(lambda cancel: solver.solve(ddcards.example("mariasz"), cancel=cancel))
        assert res.value == -20 and res.optimal_moves == ["6C"]
        with pytest.raises(ddcards.SearchTimeout):
            searches.run(lambda cancel: solver.solve(ENDLESS, cancel=cancel, timeout=0.6))
    # delay 0: the timed-out search was shown, then its line cleared
    assert "ddcards: searching 0:00, " in stream.getvalue() and stream.getvalue().endswith("\r\x1b[K")


def test_progress_now_shows_the_first_moves_answered_and_a_bound_on_the_value():
    # A szlifowany deal from the first trick: its six leads take some 50 ms each.
    doc = json.loads(next(iter(open(CORPUS / "mariasz-szlifowany.jsonl"))))
    solver = ddcards.Solver()
    assert solver.progress_now is None
    answer: list[ddcards.Result] = []
    worker = threading.Thread(target=lambda: answer.append(solver.solve(doc)))
    worker.start()
    readings = []
    while worker.is_alive():
        reading = solver.progress_now
        if reading is not None and (not readings or readings[-1] != reading):
            readings.append(reading)
        time.sleep(0.001)
    worker.join()
    res = answer[0]
    values = {mv.move: mv.value for mv in res.moves}
    assert solver.progress_now is None                  # between searches
    assert [r.answered for r in readings] == sorted(r.answered for r in readings)
    assert all(r.moves == len(values) and r.at_least and r.answered <= r.moves for r in readings)
    bounded = [r for r in readings if r.value is not None]
    assert bounded and readings[0].value is None
    # Each bound is reached by its move (whose exact value may be higher: before it is known,
    # the bound comes from the tests its search has passed) and the value is at least it; the
    # bounds only rise.  This deal's first lead (6D) is bounded before it is answered.
    assert all(r.value <= values[r.move] <= res.value for r in bounded)
    assert [r.value for r in bounded] == sorted(r.value for r in bounded)
    assert bounded[0].answered == 0
    assert str(bounded[-1]) == (f"{bounded[-1].answered} of {len(values)} distinct first moves answered, "
                                f"value >= {bounded[-1].value:+d} ({bounded[-1].move})")


def watched_solve(solver: ddcards.Solver, doc: Any, cancel_at_bound: bool = False
                  ) -> tuple[ddcards.Result | BaseException, list[SearchProgress]]:
    """Solve `doc` on another thread, reading progress_now every millisecond: the answer (or the
    search's exception) and the distinct readings with a bound; cancel_at_bound: cancel the
    search at the first bound."""
    token = ddcards.CancelToken()
    out: list[ddcards.Result | BaseException] = []

    def run() -> None:
        try:
            out.append(solver.solve(doc, cancel=token))
        except ddcards.SearchAborted as exc:
            out.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    readings: list[SearchProgress] = []
    while worker.is_alive():
        reading = solver.progress_now
        if reading is not None and reading.value is not None and (not readings or readings[-1] != reading):
            readings.append(reading)
            if cancel_at_bound:
                token.cancel()
        time.sleep(0.001)
    worker.join()
    return out[0], readings


def test_progress_now_bounds_the_value_from_above_when_the_minimising_side_moves():
    # Kiks: seat 1 (the other team) leads; its leads' tests bound the value from above first.
    # The search takes some 10 ms: on a loaded machine the watcher may see no reading while it
    # runs, so it is solved again (a fresh table each time) until one is seen.
    for _ in range(30):
        res, bounded = watched_solve(ddcards.Solver(), ddcards.example("mariasz-kiks"))
        assert isinstance(res, ddcards.Result) and res.value == -102
        if bounded:
            break
    values = {mv.move: mv.value for mv in res.moves}
    assert bounded and all(not r.at_least and res.value <= values[r.move] <= r.value for r in bounded)
    assert [r.value for r in bounded] == sorted((r.value for r in bounded), reverse=True)
    assert str(bounded[0]).endswith(f"value <= {bounded[0].value:+d} ({bounded[0].move})")


def test_a_stopped_search_says_how_far_it_got():
    # Cancelled at its first bound (some 150 ms into a 400 ms search): the exception carries the
    # progress as it stopped, and its message says it after "by then".
    doc = ddcards.example("mariasz-szlifowany")
    full = ddcards.Solver().solve(doc)
    values = {mv.move: mv.value for mv in full.moves}
    for _ in range(3):                       # the search may end before the cancel lands: again
        stopped, bounded = watched_solve(ddcards.Solver(), doc, cancel_at_bound=True)
        if isinstance(stopped, ddcards.SearchCancelled):
            break
    assert isinstance(stopped, ddcards.SearchCancelled), stopped
    progress = stopped.progress
    assert progress is not None and progress.moves == len(values) and progress.at_least
    assert progress.value is not None and progress.value <= values[progress.move] <= full.value
    assert str(stopped) == f"the search was cancelled after {stopped.nodes:,} nodes; by then {progress}"


def test_progress_now_follows_the_first_moves_on_one_thread_and_two():
    # Every game shares out the first moves (the root split), on one thread too: Mariáš's
    # searches report how far they got as Klaverjas's do, and nothing between searches.  A
    # search takes milliseconds: 60 deals in a row are watched.
    docs = [json.loads(line) for line in open(CORPUS / "marias-hra.jsonl")][:60]
    solver = ddcards.Solver()
    for threads in (1, 2):
        worker = threading.Thread(target=lambda: [solver.solve(doc, threads=threads) for doc in docs])
        worker.start()
        readings, nodes = [], set()
        while worker.is_alive():
            readings.append(solver.progress_now)
            nodes.add(solver.nodes_now)
        worker.join()
        assert len(nodes) > 10                       # the readings fell inside searches
        seen = [r for r in readings if r is not None]
        assert seen and all(0 <= r.answered <= r.moves <= 10 for r in seen)
        assert solver.progress_now is None


def test_prsi_exact_analysis_shows_no_progress_of_its_inner_searches():
    # Without a horizon the exact analysis searches within ever longer horizons, also after a
    # move: the root progress of those searches named moves of another position (9H, "3 first
    # moves" where this position has 2) and bounds on horizon values, not this position's.
    doc = {"game": "prsi", "hands": [".Q.JT.Q", "AJ.J.A.", "7.T9.K.", "98.87.."], "upcard": "8C",
           "stock": "TS QD AH AC QS KS 9D 7D 9C KH 7C KC 8D TC JC", "options": {"horizon": None, "player": 0},
           "played": ["QH/H"]}
    solver = ddcards.Solver()
    seen = []
    for _ in range(20):
        worker = threading.Thread(target=lambda: solver.solve(doc))
        worker.start()
        while worker.is_alive():
            seen.append(solver.progress_now)
        worker.join()
    assert seen and all(r is None for r in seen)
    session = ddcards.Position.from_dict(doc).session()
    assert not session.root_progress
    assert ddcards.Position.from_dict(dict(doc, options={"horizon": 20})).session().root_progress


def test_the_ticker_shows_the_bound_only_where_the_search_is_the_answers():
    # A DD table or an analysis runs a search per row or position: its bound is not the answer's.
    for bounds in (True, False):
        solver = ddcards.Solver(tt_mb=1)
        stream = io.StringIO()
        with Foreground(solver, ticker=True, stream=stream, delay=0.0, bounds=bounds) as searches:
            with pytest.raises(ddcards.SearchTimeout):
                searches.run(lambda cancel: solver.solve(ENDLESS, cancel=cancel, timeout=0.6))
        assert "ddcards: searching 0:00, " in stream.getvalue()
        assert ("first moves answered" in stream.getvalue()) is bounds


def test_analysis_now_says_how_many_actions_are_analysed_and_the_ticker_shows_it():
    """Solver.analysis_now, read from another thread while an analysis runs: its actions analysed
    so far (the first search is the deal's start: none yet); None before and after.  The ticker
    shows it after the search's figures."""
    solver = ddcards.Solver(tt_mb=4)
    record = ddcards.Position.from_dict(ENDLESS)
    record = record.play(record.legal_moves[0])
    record = record.play(record.legal_moves[0])
    assert solver.analysis_now is None
    stream = io.StringIO()
    with Foreground(solver, ticker=True, stream=stream, delay=0.0) as searches:
        with pytest.raises(ddcards.SearchTimeout) as stopped:
            searches.run(lambda cancel: solver.analyse(record, cancel=cancel, timeout=0.8))
        with pytest.raises(ddcards.SearchTimeout):
            searches.run(lambda cancel: solver.analyse(record, cancel=cancel, timeout=0.8, from_ply=1))
    assert solver.analysis_now is None
    assert str(stopped.value).endswith(", with 0 of the 2 recorded actions analysed")
    shown = stream.getvalue()
    assert "; 0 of the 2 recorded actions analysed; Ctrl-C stops" in shown
    assert "; 0 of the 1 recorded action from played[1] analysed; Ctrl-C stops" in shown
    assert ddcards.AnalysisProgress(analysed=3, actions=12, from_ply=6).__str__() == \
        "3 of the 12 recorded actions from played[6] analysed"


def test_the_ticker_shows_an_analysis_s_value_as_soon_as_it_is_found(monkeypatch):
    """A long deal's value at the start is found a search before its first step: analysis_now
    carries it (value, value_where), and the ticker shows it, then the value before each next action."""
    from ddcards.games.base import Session
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:10])
    whole = ddcards.analyse(doc)
    search, calls, seen = Session.search, [], []
    solver = ddcards.Solver()

    def slow(self, *args, **kwargs):
        calls.append(1)
        if len(calls) in (2, 4):            # the searches after the start, and after ply 1
            seen.append(solver.analysis_now)
            time.sleep(0.6)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Session, "search", slow)
    stream = io.StringIO()
    with Foreground(solver, ticker=True, stream=stream, delay=0.0) as searches:
        searches.run(lambda cancel: solver.analyse(doc, cancel=cancel))
    assert seen == [ddcards.AnalysisProgress(analysed=0, actions=10, value=whole.initial_value),
                    ddcards.AnalysisProgress(analysed=2, actions=10, value=whole.steps[1].value_after)]
    assert seen[1].value_where == "before played[2]"
    assert ddcards.AnalysisProgress(analysed=4, actions=4, from_ply=3, value=5).value_where == "after the record"
    shown = stream.getvalue()
    assert f"; 0 of the 10 recorded actions analysed, value {whole.initial_value:+d} before played[0]; Ctrl-C" in shown
    assert f"; 2 of the 10 recorded actions analysed, value {whole.steps[1].value_after:+d} before played[2]; " in shown
