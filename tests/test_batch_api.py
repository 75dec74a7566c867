"""``ddcards.solve_many`` and the pipeline under it (also under the gRPC SolveStream): answers as
they finish, equal to plain solves, on threads or any executor (a process pool here; Dask in
test_batch_dask.py); bad positions, timeouts and a lost executor per position; options checked
at the call; bounded work ahead of a slow consumer (back-pressure); stopping early."""
from __future__ import annotations

import itertools
import json
import multiprocessing
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import ddcards
from ddcards.batch.pipeline import END, Pipeline, Work
from _batch_data import corpus, endgame, expected_answer  # tests/ is on sys.path
from test_typing import installed, mypy_config, run_mypy  # noqa: F401 - installed is a fixture

MIXED = corpus("marias-hra", 12) + corpus("marias-durch", 4) + [endgame(c) for c in (18, 24, 29)] + [
    ddcards.example("klaverjas"), dict(endgame(24), played=["ZZ"]), "not a document"]


def _check(answers: list[ddcards.Solved], docs: list[Any], mode: str = "all") -> None:
    assert sorted(a.index for a in answers) == list(range(len(docs)))
    for done in answers:
        doc = docs[done.index]
        if isinstance(doc, dict) and doc.get("played") == ["ZZ"]:
            assert isinstance(done.error, ddcards.InvalidCardError) and done.error.token == "ZZ" and not done.ok
        elif isinstance(doc, str):
            assert isinstance(done.error, ddcards.NotationError) and done.result is None
        else:
            assert done.ok, done.error
            got = done.result.to_dict()
            got.pop("elapsed_ms")
            assert got == expected_answer(doc, mode), done.index


def test_solve_many_on_threads_answers_what_a_plain_solve_answers():
    answers = list(ddcards.solve_many(MIXED, jobs=2))
    _check(answers, MIXED)


def test_solve_many_on_a_callers_thread_pool_leaves_it_running():
    with ThreadPoolExecutor(2, thread_name_prefix="mine") as pool:
        _check(list(ddcards.solve_many(MIXED, executor=pool, mode="best")), MIXED, "best")
        assert pool.submit(lambda: 6 * 7).result() == 42


def test_solve_many_on_a_process_pool_sends_chunks_and_gets_errors_home():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        _check(list(ddcards.solve_many(MIXED, executor=pool, mode="optimal", chunk_size=3)), MIXED, "optimal")


def test_a_timeout_stops_each_search_on_its_own():
    docs = corpus("marias-hra", 6) + [endgame(29)]
    answers = {a.index: a for a in ddcards.solve_many(docs, jobs=2, timeout=0.0)}
    assert any(isinstance(a.error, ddcards.SearchTimeout) for a in answers.values())
    assert all(a.ok or isinstance(a.error, ddcards.SearchTimeout) for a in answers.values())


def test_an_executor_that_cannot_run_the_work_is_an_executor_failure_per_position():
    pool = ThreadPoolExecutor(1)
    pool.shutdown()
    answers = list(ddcards.solve_many([endgame(27), endgame(28)], executor=pool, chunk_size=1))
    assert sorted(a.index for a in answers) == [0, 1]
    assert all(isinstance(a.error, ddcards.ExecutorFailure) and "RuntimeError" in str(a.error) for a in answers)


class _CancellingExecutor(ThreadPoolExecutor):
    """An executor whose every task is cancelled before it runs, as a Dask cluster's are when it
    loses its scheduler or the task's worker (their CancelledError carries no words)."""

    def submit(self, fn, /, *args, **kwargs):
        future = Future()
        future.cancel()
        return future


def test_a_cancelled_task_says_why_a_cancelled_error_has_no_words():
    with _CancellingExecutor(1) as pool:
        answers = list(ddcards.solve_many([endgame(27), endgame(28)], executor=pool, chunk_size=1))
    assert sorted(a.index for a in answers) == [0, 1]
    for answer in answers:
        assert isinstance(answer.error, ddcards.ExecutorFailure)
        assert str(answer.error) == ("the executor did not run this position's task: CancelledError: the executor "
                                     "cancelled it (a Dask cluster does when its scheduler or the task's worker is "
                                     "lost)")


def test_options_are_checked_at_the_call():
    with pytest.raises(ddcards.InvalidOptionError, match="jobs is a whole number, at least 1"):
        ddcards.solve_many(MIXED, jobs=0)
    with pytest.raises(ddcards.InvalidOptionError, match="unknown mode 'fast'"):
        ddcards.solve_many(MIXED, mode="fast")
    # Arguments of the wrong type: InvalidArgumentTypeError, a DdcardsError and a TypeError (plain TypeErrors before)
    with pytest.raises(ddcards.InvalidArgumentTypeError,
                       match="executor must be a concurrent.futures.Executor or a dask"):
        ddcards.solve_many(MIXED, executor="tcp://127.0.0.1:8786")
    for positions in (None, 5):
        with pytest.raises(ddcards.InvalidArgumentTypeError, match="solve_many takes an iterable of positions"):
            ddcards.solve_many(positions)

    class Indexed:          # iterable through __getitem__ alone, as Python allows
        def __getitem__(self, i: int) -> dict:
            if i >= 2:
                raise IndexError(i)
            return MIXED[i]

    assert sorted(done.index for done in ddcards.solve_many(Indexed(), jobs=1)) == [0, 1]
    with pytest.raises(ddcards.InvalidOptionError, match="chunk_size"):
        ddcards.solve_many(MIXED, chunk_size=0)


def test_the_jobs_tables_must_fit_in_the_machines_memory():
    # Each job (thread or process here) holds a table: 3 jobs of half the memory each are refused
    # up front, naming the jobs and the sizes, rather than swapping or being killed mid-batch.
    limit = ddcards.api.tt_mb_limit()
    each = ddcards.api.table_memory_mb(limit // 2)
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.solve_many(MIXED, jobs=3, tt_mb=limit // 2)
    assert str(info.value) == (f"jobs 3 x tt_mb {limit // 2}: the tables take {3 * each:,} MiB (one per search at "
                               f"once; each {each:,} MiB with its side area), more than this machine's memory, "
                               f"{limit:,} MiB: give fewer jobs or a smaller table")
    assert info.value.field == "jobs"
    with ThreadPoolExecutor(3) as pool, pytest.raises(ddcards.InvalidOptionError, match="^jobs 3 x tt_mb"):
        ddcards.solve_many(MIXED, executor=pool, tt_mb=limit // 2)      # the pool's workers count


def test_an_error_of_the_input_iterable_comes_after_the_answers_before_it():
    def positions():
        yield endgame(27)
        yield endgame(28)
        raise OSError("the corpus disappeared")

    got = []
    with pytest.raises(OSError, match="the corpus disappeared"):
        for done in ddcards.solve_many(positions(), jobs=1):
            got.append(done.index)
    assert sorted(got) == [0, 1]


def _solver_threads() -> int:
    return sum(t.name.startswith("ddcards-solve") for t in threading.enumerate())


def test_work_stays_a_window_ahead_of_a_slow_consumer_and_stops_with_it():
    pulled = itertools.count()
    taken = [0]

    def positions():
        for doc in itertools.cycle([endgame(c) for c in range(20, 30)]):
            taken[0] = next(pulled) + 1
            yield doc

    answers = ddcards.solve_many(positions(), jobs=2, window=3, chunk_size=1)
    first = next(answers)
    assert first.ok
    # The window fills (so the check below is not met merely by a machine too slow to read on) ...
    deadline = time.monotonic() + 10
    while taken[0] < 1 + 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert taken[0] >= 1 + 3, taken[0]
    time.sleep(0.5)                      # ... and then stays: an endless input would all be read without it
    # one answer taken, 3 outstanding, one more read and waiting for room
    assert taken[0] <= 1 + 3 + 1, taken[0]
    answers.close()                      # leaving the loop stops the work and the threads
    deadline = time.monotonic() + 5
    while _solver_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _solver_threads() == 0


def test_the_pipeline_passes_answered_items_in_their_turn_and_bounds_what_is_outstanding():
    release = threading.Event()
    started = []

    def slow(n: int) -> int:
        started.append(n)
        release.wait(5)
        return n * n

    items = [Work(0, lambda: slow(0)), Work(1, error=ValueError("bad item")), Work(2, lambda: slow(2)),
             Work(3, lambda: slow(3))]
    with ThreadPoolExecutor(4) as pool, Pipeline(iter(items), pool.submit, window=2) as pipe:
        done = pipe.get(timeout=5)
        assert done is not None and done.tag == 1 and isinstance(done.error, ValueError)
        deadline = time.monotonic() + 5
        while len(started) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)                                                # room for a third, were there any
        assert sorted(started) == [0, 2] and pipe.outstanding == 2     # item 3 waits for room
        release.set()
        rest = {d.tag: d.result for d in pipe}
        assert rest == {0: 0, 2: 4, 3: 9}
        assert pipe.get(timeout=0) is END


def test_solve_stream_reads_requests_only_a_window_ahead_of_its_responses():
    from ddcards.client import Client
    from ddcards.server.service import SolverPool, SolverServicer
    from ddcards.v1 import ddcards_pb2 as pb

    class Call:
        """The parts of a gRPC call the handler asks for: no deadline, a callback at its end."""

        def add_callback(self, callback: Any) -> bool:
            self.ended = callback
            return True

        def time_remaining(self) -> None:
            return None

    read = [0]

    def requests():
        for n in itertools.count():
            read[0] = n + 1
            yield pb.SolveStreamRequest(id=str(n), solve=Client.solve_request(endgame(20 + n % 10), "best"))

    pool = SolverPool(workers=2, tt_mb=2)
    call = Call()
    responses = SolverServicer(pool, stream_window=3).SolveStream(requests(), call)
    try:
        first = next(responses)
        assert first.WhichOneof("outcome") == "result"
        assert first.result.value == ddcards.solve(endgame(20 + first.index % 10), mode="best").value
        deadline = time.monotonic() + 10           # the window fills, then reading stops
        while read[0] < 1 + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert read[0] >= 1 + 3, read[0]
        time.sleep(0.5)
        assert read[0] <= 1 + 3 + 1, read[0]
    finally:
        responses.close()
        call.ended()
        pool.shutdown()


def test_the_batch_modules_pass_mypy_strict(installed, tmp_path) -> None:
    # `installed`: the package laid out as a wheel installs it (test_typing.py's fixture)
    config = mypy_config(installed, tmp_path, strict_modules=["ddcards.batch", "ddcards.batch.*",
                                                                  "ddcards.api", "ddcards.api.*"])
    out = run_mypy("--config-file", str(config), "-p", "ddcards.batch", "-p", "ddcards.api", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_solve_many_refuses_a_none_position_as_any_other_non_object():
    answers = sorted(ddcards.solve_many([None, ddcards.example("marias-hra"), 5], jobs=1), key=lambda d: d.index)
    assert [d.ok for d in answers] == [False, True, False]
    assert isinstance(answers[0].error, ddcards.NotationError) and answers[0].result is None
    assert str(answers[0].error) == "a position is a JSON object, not null"
    assert answers[0].error.rule == "docs/RULES.md §0.6: a position is a JSON object of its game's fields"
    assert answers[1].result is not None and answers[1].result.value == 70
    assert str(answers[2].error) == "a position is a JSON object, not a number"


@pytest.mark.parametrize("one", ["marias-hra", {"game": "marias"}])
def test_solve_many_refuses_one_position_given_for_many(one):
    with pytest.raises(ddcards.InvalidOptionError, match="an iterable of positions, not one"):
        ddcards.solve_many(one)


def test_a_table_the_worker_cannot_have_answers_each_position_as_bad_input():
    """A remote Dask worker with less memory than the caller's machine (which checked tt_mb)
    refuses the table: each position gets that InvalidOptionError, not a lost task that running
    the job again could never help (an audit)."""
    from ddcards.batch.many import solve_chunk

    too_large = ddcards.api.tt_mb_limit() + 1
    out, _ = solve_chunk([ddcards.example("marias-hra"), ddcards.example("klaverjas")], "all", None, too_large)
    assert [result for result, _ in out] == [None, None]
    for _, error in out:
        assert isinstance(error, ddcards.InvalidOptionError)
        assert str(error).startswith(f"tt_mb {too_large} is too large: a table takes 1 to ")


def test_solve_many_says_that_leaving_the_loop_does_not_stop_a_chunk_running_in_another_process():
    """A ProcessPoolExecutor's running chunk cannot be reached by the token that stops the
    threads' searches: it runs to its end (minutes for a fresh Mariasz deal), and the pool's
    shutdown(wait=True) waits for it.  The docstring and docs/BATCH.md said "leaving the loop
    stops the work" without that caveat."""
    doc = " ".join(ddcards.solve_many.__doc__.split())
    assert "a chunk already running in another process runs to its end" in doc
    batch = " ".join((Path(__file__).parent.parent / "docs" / "BATCH.md").read_text(encoding="utf-8").split())
    assert "a chunk already running in another process runs to its end" in batch


def test_the_errors_handed_out_do_not_keep_the_worker_threads_solvers_alive():
    """A SearchTimeout (or a bad position's error) that solve_many hands out carried a traceback
    through the worker's frames, and with them the worker thread's Solver: its table (up to 1 GiB
    for an early Mariasz deal) stayed held as long as the program kept the answer, after the
    worker threads had ended and whatever the garbage collector ran (an audit: 300 MiB held by
    two kept SearchTimeouts of 3 seconds each). The traceback still says where the error came from."""
    import gc
    import traceback

    def solvers() -> int:
        return sum(isinstance(o, ddcards.Solver) for o in gc.get_objects())

    gc.collect()
    before = solvers()
    docs = [ddcards.example("marias-hra"), ddcards.example("klaverjas"), dict(endgame(24), played=["ZZ"])]
    answers = list(ddcards.solve_many(docs, jobs=2, timeout=0.0))
    assert all(isinstance(a.error, (ddcards.SearchTimeout, ddcards.InvalidCardError)) for a in answers)
    gc.collect()
    assert solvers() == before
    for answer in answers:
        assert traceback.format_exception(answer.error)       # still printable, with its lines


def test_a_position_that_cannot_be_pickled_costs_a_process_pool_only_itself():
    """A position that cannot travel to another process (an object that is no document, a
    mapping other than a dict) is read here: the object is refused as it is on threads, the
    mapping solved, and the positions sharing their chunk are solved, not lost with it to a
    PicklingError (an audit: every position of the chunk was an ExecutorFailure)."""
    import types

    hra = ddcards.example("marias-hra")
    docs = [ddcards.Position.from_dict(hra), object(), types.MappingProxyType(hra), lambda: hra,
            memoryview(b"{}"), ddcards.example("klaverjas")]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        answers = sorted(ddcards.solve_many(docs, executor=pool, chunk_size=len(docs)), key=lambda d: d.index)
    assert [d.index for d in answers] == list(range(len(docs)))
    assert [d.result.value if d.result is not None else None for d in answers] == [70, None, 70, None, None, 132]
    assert [type(d.error).__name__ for d in answers] == ["NoneType", "NotationTypeError", "NoneType",
                                                         "NotationTypeError", "NotationTypeError", "NoneType"]
    assert [str(d.error) for d in answers if d.error is not None] == [
        "a position is a JSON object, not object", "a position is a JSON object, not function",
        "a position is a JSON object, not memoryview"]
    assert answers[1].error.rule == "docs/RULES.md §0.6: a position is a JSON object of its game's fields"


def test_the_batch_docs_way_of_reading_a_json_lines_file_gives_only_positions(tmp_path):
    """docs/BATCH.md's SLURM example feeds solve_many a file's lines; a blank line or a `#` comment
    is no position (solve_many answers it with an error), so the example leaves them out, with
    the generator it shows (it passed the open file itself, every comment an error)."""
    import re
    text = (Path(__file__).resolve().parents[1] / "docs" / "BATCH.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"^\s*lines = (\(line for line in corpus .*\))\s*$", text, flags=re.M)
    path = tmp_path / "corpus.jsonl"
    docs = [ddcards.example("marias-hra"), ddcards.example("klaverjas")]
    path.write_text(f"# two positions\n{json.dumps(docs[0])}\n\n{json.dumps(docs[1])}\n", encoding="utf-8")
    with open(path, encoding="utf-8") as corpus:
        raw = sorted(ddcards.solve_many(corpus, jobs=1), key=lambda done: done.index)
    assert [done.ok for done in raw] == [False, True, False, True]      # why the example filters
    with open(path, encoding="utf-8") as corpus:
        lines = eval(shown, {"corpus": corpus})
        answers = sorted(ddcards.solve_many(lines, jobs=1), key=lambda done: done.index)
    assert [(done.index, done.ok) for done in answers] == [(0, True), (1, True)]
    assert [done.result.value for done in answers if done.result is not None] == [70, 132]
