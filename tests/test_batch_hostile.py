"""``ddcards batch`` against a hostile world: a second run started while the first has not written
its first answer, a disk that fills up, a line that runs on past the reader's limit."""
from __future__ import annotations

import errno
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from ddcards import cli
from ddcards.batch import reader
from ddcards.batch import journal as journal_module
from ddcards.batch.journal import JOB_FORMAT, JOB_SUFFIX, Journal
from ddcards.errors import InvalidOptionError
from _batch_data import endgame, read_records  # tests/ is on sys.path


def batch(*argv: str) -> int:
    return cli.main(["batch", *argv])


def _job(mode: str) -> dict[str, Any]:
    return {"format": JOB_FORMAT, "input": {"bytes": 1, "sha256": "00"}, "options": {"mode": mode, "timeout": None}}


def test_a_refused_second_run_leaves_the_job_file_of_the_run_that_holds_the_output(tmp_path):
    """A run holding OUT before its first answer (a long first search): a second run with other
    options was refused, but had rewritten OUT.job first, so OUT's answers (mode all) stood under a
    job file saying mode best, and a resumed --mode best run mixed the two jobs."""
    out = tmp_path / "out.jsonl"
    first = Journal(str(out), _job("all"))
    try:
        with pytest.raises(InvalidOptionError, match="is being written by another ddcards batch"):
            Journal(str(out), _job("best"))
        assert json.loads((tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_text())["options"]["mode"] == "all"
        first.append(['{"line": 1, "value": 0}'])
    finally:
        first.close()
    with pytest.raises(InvalidOptionError, match='options.mode was "all", now "best"'):
        Journal(str(out), _job("best"))
    assert out.read_text() == '{"line": 1, "value": 0}\n'


def test_a_run_that_answered_nothing_removes_its_output_while_it_still_holds_the_lock(tmp_path, monkeypatch):
    """OUT and OUT.job of a run that wrote no record were removed after the lock was let go: a run
    that took the lock in between answered into a file then removed, and its answers were lost."""
    out = tmp_path / "out.jsonl"
    journal = Journal(str(out), _job("all"))
    removed = []
    real_unlink = os.unlink
    other = os.open(str(out), os.O_RDONLY)     # what a second run opens

    def unlink(path: str) -> None:
        with pytest.raises(BlockingIOError):    # it could not take OUT now
            journal_module.fcntl.flock(other, journal_module.fcntl.LOCK_EX | journal_module.fcntl.LOCK_NB)
        removed.append(os.path.basename(path))
        real_unlink(path)

    monkeypatch.setattr(journal_module.os, "unlink", unlink)
    try:
        journal.close(remove_if_empty=True)
    finally:
        os.close(other)
    assert removed == ["out.jsonl", "out.jsonl" + JOB_SUFFIX] and not out.exists()
    # one that wrote a record keeps it
    journal = Journal(str(out), _job("all"))
    journal.append(['{"line": 1, "value": 0}'])
    journal.close(remove_if_empty=True)
    assert out.read_text() == '{"line": 1, "value": 0}\n' and len(removed) == 2


class _FullDisk:
    """The os module, but every write of OUT fails as on a full disk (after the first `room` bytes)."""

    def __init__(self, room: int):
        self.room = room

    def write(self, fd: int, data: Any) -> int:
        if len(data) > self.room:
            if self.room:
                written, self.room = os.write(fd, bytes(data[:self.room])), 0
                return written
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return os.write(fd, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


@pytest.mark.parametrize("room,kept", [(1500, "the answers written before are kept"),
                                       (40, "no answer was written whole yet")])
def test_a_full_disk_is_a_clear_error_and_the_next_run_goes_on(tmp_path, capsys, monkeypatch, room, kept):
    """A full disk was 'internal error: OSError(28, ...) (a bug: please report it)', exit status 3;
    then, with no record whole, it still said the answers written before were kept."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(20, 30)))
    monkeypatch.setattr(journal_module, "os", _FullDisk(room=room))
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"cannot write the output {out}: No space left on device; {kept}:" in err
    assert "internal error" not in err
    assert out.exists() == (room == 1500)          # an OUT this run made and wrote nothing whole into is removed
    monkeypatch.setattr(journal_module, "os", os)
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_OK
    assert ("cut an unfinished last line" in capsys.readouterr().err) == (room == 1500)
    assert sorted(r["line"] for r in read_records(out).values()) == list(range(1, 11))


def test_a_line_that_runs_on_gets_one_record_and_the_job_resumes(tmp_path, capsys, monkeypatch):
    """A line past the reader's limit got two records (too long; runs on), so OUT answered line 2
    twice, the summary counted a document too many and the next run refused OUT as hand-edited."""
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(reader, "MAX_RUNAWAY_BYTES", 4000)
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n" + "x" * (2 << 20) + "\n" + json.dumps(endgame(28)) + "\n")
    for _ in range(2):
        assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "line 2: the line runs on past" in err and "nothing after it is read" in err
        assert "2 documents" in err and "1 failed" in err and "another" not in err
        lines = [json.loads(line)["line"] for line in out.read_text().splitlines()]
        assert sorted(lines) == [1, 2]


class _LostClient:
    """A Dask client as the batch sees it, whose scheduler goes away after `answered` tasks: the
    futures of the tasks after them stay pending for ever (as distributed's do once the client
    closes) and its status turns 'closed'."""

    def __init__(self, answered: int):
        from concurrent.futures import ThreadPoolExecutor

        self.answered, self.status = answered, "running"
        self.pool = ThreadPoolExecutor(1)

    def nthreads(self) -> dict[str, int]:
        return {"tcp://worker": 1}

    def get_executor(self, **kwargs: Any) -> _LostClient:
        return self

    def submit(self, fn: Any) -> Any:
        from concurrent.futures import Future

        if self.answered > 0:
            self.answered -= 1
            return self.pool.submit(fn)
        self.status = "closed"
        return Future()


def test_a_dask_cluster_that_goes_away_ends_the_batch_and_the_next_run_goes_on(tmp_path, capsys, monkeypatch):
    """The scheduler killed mid-batch: the client closed, the futures it had out never finished and
    ddcards batch waited for them for ever, idle."""
    import argparse
    import contextlib
    import threading

    from ddcards.batch import job, many
    from ddcards.batch.progress import ProgressBar

    monkeypatch.setattr(many, "CLIENT_CHECK_SECONDS", 0.05)
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(18, 30)))
    args = argparse.Namespace(input=str(source), output=str(out), mode="all", timeout=None, tt_mb=2)
    client = _LostClient(answered=1)      # one task (a chunk of 4 positions) answered
    outcome: dict[str, Any] = {}

    def run() -> None:
        with contextlib.ExitStack() as stack:
            found = job._open_input(str(source), stack)
            journal = Journal(str(out), job._job(found, args))
            tally = job._Tally()
            outcome["lost"] = job._run(args, found, journal, tally, ProgressBar(False), client, None)
            outcome["gone"] = tally.gone
            journal.close()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=60)
    client.pool.shutdown()
    assert not worker.is_alive(), "the batch waits for ever on a Dask client that is gone"
    assert "the Dask client is closed" in str(outcome["gone"])
    answered = len(read_records(out))
    assert 1 <= answered < 12
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_OK
    assert f"resuming: {answered} documents answered already" in capsys.readouterr().err
    assert len(read_records(out)) == 12


def test_a_scheduler_lost_while_waiting_for_workers_is_named_not_an_internal_error(monkeypatch):
    """The scheduler killed before a worker joined: 'internal error: OSError(Timed out trying to
    connect ...) (a bug: please report it)', exit status 3."""
    import distributed                       # a test dependency (ddcards[dask])

    from ddcards.batch import cluster
    from ddcards.batch.cluster import dask_client

    class Client:
        def __init__(self, address: str, timeout: float):
            self.closed = False

        def wait_for_workers(self, n: int, timeout: float) -> None:
            raise OSError("Timed out trying to connect to tcp://127.0.0.1:8799 after 20 s")

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(distributed, "Client", Client)
    monkeypatch.setattr(cluster, "_check_reachable", lambda address: None)   # it was there a moment before
    with pytest.raises(InvalidOptionError, match="lost the Dask scheduler at tcp://127.0.0.1:8799 while waiting"):
        with dask_client("tcp://127.0.0.1:8799", None):
            pass


def test_a_lost_cluster_s_summary_counts_what_was_never_handed_out(capsys):
    """A scheduler killed mid-batch (an audit: 740 documents, 436 answered): the summary said
    "53 not answered", the tasks in flight, where 304 were left."""
    import argparse

    from ddcards.batch import job
    from ddcards.batch.many import ExecutorFailure

    tally = job._Tally()
    for line in range(1, 437):
        tally.add({"line": line, "value": 0, "elapsed_ms": 1.0, "nodes": 10})
    tally.gone = ExecutorFailure("the Dask client is closed")
    args = argparse.Namespace(output="out.jsonl")
    source = job._Input("big.jsonl", None, 0, "", 740)          # type: ignore[arg-type]
    job._summary(args, source, tally, 53, 10.0, "a Dask cluster")
    assert "; about 304 not answered: the executor was lost (run the same command again)" in capsys.readouterr().err
    job._summary(args, job._Input("-", None, 0, "", None), tally, 53, 10.0, "a Dask cluster")   # type: ignore[arg-type]
    assert "; the rest not answered: the executor was lost" in capsys.readouterr().err
    tally.gone = None                           # the executor stays: only its lost tasks are unanswered
    job._summary(args, source, tally, 53, 10.0, "a Dask cluster")
    assert "; 53 not answered: the executor lost their tasks (run the same command again)" in capsys.readouterr().err


def test_an_output_that_is_no_regular_file_is_refused_and_left_alone(tmp_path, capsys):
    """-o /dev/full (or a FIFO, /dev/null on an empty input): the run failed or answered nothing,
    and the clean-up of an 'empty OUT it made' unlinked the device node itself."""
    source, fifo = tmp_path / "in.jsonl", tmp_path / "pipe"
    source.write_text(json.dumps(endgame(27)) + "\n")
    os.mkfifo(fifo)
    assert batch(str(source), "-o", str(fifo), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    assert "is not a regular file" in capsys.readouterr().err
    assert fifo.is_fifo() and not (tmp_path / ("pipe" + JOB_SUFFIX)).exists()


def test_an_output_of_dash_is_refused_not_made_a_file_named_dash(tmp_path, capsys, monkeypatch):
    """The input's "-" is standard input, so a user tries -o - for standard output: it wrote the
    answers to a file named "-" (and "-.job") in the working folder (an audit)."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    monkeypatch.chdir(tmp_path)
    assert batch(str(source), "-o", "-", "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        "ddcards: error: -o -: the output of ddcards batch is a file, which it reads back to resume the job, not "
        "standard output (give a file name; `ddcards solve --json` writes to standard output)\n")
    assert not (tmp_path / "-").exists() and not (tmp_path / ("-" + JOB_SUFFIX)).exists()


def test_a_refused_or_impossible_scheduler_address_is_said_at_once(tmp_path, capsys):
    """Connection refused and a port past 65535 each waited Dask's 20 s connect timeout."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    for address, said in (("tcp://127.0.0.1:1", "nothing listens on port 1 of 127.0.0.1 (connection refused)"),
                          ("127.0.0.1:99999", "its port is not a number from 0 to 65535")):
        start = time.monotonic()
        assert batch(str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", address) == cli.EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err == f"ddcards: error: cannot reach the Dask scheduler at {address}: {said}" + (
            "; start one (dask scheduler) or check the address\n" if "refused" in said else "\n")
        assert time.monotonic() - start < 10
    assert not (tmp_path / "o.jsonl").exists()


def test_the_job_file_is_as_readable_as_the_output_and_timeout_inf_is_no_limit(tmp_path, capsys):
    """OUT.job was 0600 (mkstemp's) beside a 0644 OUT, so another user who may read OUT could not
    resume it; --timeout inf was written as Infinity (not JSON) and was another job than none."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in (26, 27)))
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--timeout", "inf") == cli.EXIT_OK
    job = tmp_path / ("out.jsonl" + JOB_SUFFIX)
    assert job.stat().st_mode & 0o777 == out.stat().st_mode & 0o777
    assert json.loads(job.read_text())["options"]["timeout"] is None          # strict JSON: null
    # the same job with no timeout given: resumed, not refused as another job
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    assert "2 documents (2 answered by earlier runs)" in capsys.readouterr().err
    # a job file written as Infinity by an older run is the same job too
    job.write_text(job.read_text().replace('"timeout": null', '"timeout": Infinity'))
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK


def test_counts_of_one_read_as_one(tmp_path, capsys):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n" + json.dumps(endgame(27)) + "\n")
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    err = capsys.readouterr().err
    assert "2 documents;" in err and "1 duplicate answered by the search of its first copy" in err, err


def test_an_input_that_grows_during_the_run_is_answered_as_it_was_hashed(tmp_path, monkeypatch):
    """OUT.job names the input by its bytes and hash when the run began: lines appended while the
    run reads it were answered too, under a job that does not cover them.  The run now reads
    only the bytes it hashed (the next run then sees another input, and says so)."""
    from ddcards.batch import job as job_module

    source = tmp_path / "in.jsonl"
    first = [endgame(seed) for seed in range(6)]
    source.write_text("".join(json.dumps(d) + "\n" for d in first))
    reading = job_module._UpTo

    class Growing(reading):                     # the input grows as soon as the run starts to read it
        def __init__(self, stream: Any, size: int):
            with open(source, "a") as more:
                more.write("".join(json.dumps(endgame(seed)) + "\n" for seed in range(6, 10)))
            super().__init__(stream, size)

    monkeypatch.setattr(job_module, "_UpTo", Growing)
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 0
    records = read_records(out)
    assert sorted(line for line, _ in records) == list(range(1, 7))
    job = json.loads(Path(f"{out}{JOB_SUFFIX}").read_text())
    assert job["input"]["bytes"] == len("".join(json.dumps(d) + "\n" for d in first).encode())
    monkeypatch.setattr(job_module, "_UpTo", reading)
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 2       # another input now


def test_a_record_whose_line_is_true_is_not_taken_for_line_1(tmp_path, capsys):
    # A record's "line" is a whole number: true (Python's bool is an int) was read as line 1.
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(seed)) + "\n" for seed in range(3)))
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 0
    lines = out.read_text().splitlines()
    first = json.loads(lines[0])
    first["line"] = True
    out.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 2
    assert "is not a record of ddcards batch" in capsys.readouterr().err


@pytest.mark.parametrize("data", [b"[", b" [ ", b"\n [", b"[1,", b'[{"game": "prsi"}, '])
def test_an_array_that_the_input_ends_inside_is_a_json_error_not_a_crash(data):
    """The coverage-guided fuzz run found '\\n [' raising IndexError from the reader (an array whose
    next element the input ends before): a batch died on it with an internal error."""
    entries = list(reader.read_documents(io.BytesIO(data)))
    error = entries[-1].error
    assert error is not None and str(error).startswith("not valid JSON: Expecting value (the input ends first) at line ")


def _three_answered(tmp_path):
    """(input, output, the output's lines, its first record) of a batch of three endgames run whole."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(seed)) + "\n" for seed in (24, 25, 26)))
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 0
    lines = out.read_text().splitlines()
    return source, out, lines, json.loads(lines[0])


@pytest.mark.parametrize("field, value", [("position_key", "zz"), ("position_key", ""), ("position_key", "-1"),
                                          ("elapsed_ms", "x"), ("elapsed_ms", None), ("nodes", "x"),
                                          ("nodes", -5)])
def test_a_record_with_a_field_no_run_writes_is_a_corrupt_line_not_an_internal_error(tmp_path, capsys, field,
                                                                                     value):
    """A hand-edited record whose position_key is no key (int('zz', 16) raised ValueError) or whose
    elapsed_ms or nodes is no count (the summary's sum raised TypeError) ended the resumed run with
    "internal error ... (a bug)", exit status 3; it is a line that is no record, as any other."""
    source, out, lines, first = _three_answered(tmp_path)
    assert isinstance(first[field], (int, float, str)) and not isinstance(first[field], bool)
    first[field] = value
    edited = "\n".join([json.dumps(first), *lines[1:]]) + "\n"
    out.write_text(edited)
    capsys.readouterr()
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{out} line 1 is not a record of ddcards batch (was the file changed by hand?)" in err, err
    assert "internal error" not in err
    assert out.read_text() == edited


def test_a_record_of_a_line_far_past_the_input_takes_no_memory_for_it(tmp_path, capsys):
    """A hand-edited record of line 10**15 made the resumed run ask for 125 TB (a bit per line up to
    it): MemoryError, said as "ddcards: error: " and nothing more.  Such a record answers no line
    of the input, which the run says, and the input's line is answered again."""
    source, out, lines, first = _three_answered(tmp_path)
    line = first["line"]
    first["line"] = 10 ** 15
    out.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_OK
    err = capsys.readouterr().err
    assert "1 record of an earlier run answers no document of the input" in err, err
    assert "3 documents (2 answered by earlier runs); 1 answered in" in err, err
    records = [json.loads(text) for text in out.read_text().splitlines()]
    assert sorted(r["line"] for r in records) == [1, 2, 3, 10 ** 15]
    assert records[-1]["line"] == line and records[-1]["value"] == first["value"]


@pytest.mark.parametrize("kind", ["fifo", "device", "input list", "input text", "options list", "huge"])
def test_a_job_file_that_is_no_job_file_is_refused_at_once(tmp_path, capsys, kind):
    """On resuming, OUT.job was read without the care its rewriting takes: a FIFO in its place
    hung the run for ever (open waits for a writer), a file of gigabytes was read whole, and an
    "input" or "options" that is no object ended the run with an internal error (exit 3)."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(seed)) + "\n" for seed in (25, 26)))
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == 0
    job = Path(f"{out}{JOB_SUFFIX}")
    earlier = json.loads(job.read_text())
    job.unlink()
    if kind == "fifo":
        os.mkfifo(job)
    elif kind == "device":                      # (/dev/zero was read until the memory ran out)
        job.symlink_to("/dev/null")
    elif kind == "huge":
        job.write_text(json.dumps(dict(earlier, padding="x" * 200_000)))
    else:
        field, what = kind.split()
        job.write_text(json.dumps(dict(earlier, **{field: [1, 2] if what == "list" else "abc"})))
    capsys.readouterr()
    start = time.monotonic()
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err
    assert f"ddcards: error: {job} is not a ddcards batch job file (format {JOB_FORMAT})" in err, err
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_local_cluster_starts_stops_it_in_order(monkeypatch, tmp_path, capsys, signum):
    """Ctrl-C while `--dask local` started its LocalCluster (the first seconds of the run): the
    cluster was no object yet, so nobody closed it, and Dask's exit hook printed a traceback
    (AssertionError: Status.init) after "ddcards: interrupted"; SIGTERM there killed the batch
    at once (status -15, the workers' semaphores leaked).  Now the signal waits for the cluster,
    which is closed, and the batch stops as it does mid-run."""
    import signal

    import distributed                       # a test dependency (ddcards[dask])

    events: list[str] = []

    class LocalCluster:
        def __init__(self, **kwargs: Any):
            signal.raise_signal(getattr(signal, signum))     # the signal arrives while it starts
            events.append("started")

        def close(self) -> None:
            events.append("closed")

    class Client:
        def __init__(self, cluster: Any):
            events.append("client")

    monkeypatch.setattr(distributed, "LocalCluster", LocalCluster)
    monkeypatch.setattr(distributed, "Client", Client)
    before = signal.getsignal(signal.SIGTERM)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    status = batch(str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", "local", "--jobs", "1")
    assert status == (130 if signum == "SIGINT" else 143)
    assert events == ["started", "closed"]            # the cluster whole, then closed; no client made
    how = "interrupted" if signum == "SIGINT" else "stopped by SIGTERM"
    assert f"ddcards batch: {how} after 0 answers; run the same command again to go on" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) is before and not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("address, said", [
    # `--dask "$SCHEDULER"` with the variable unset: the batch ran on this machine's threads and
    # said so only in its summary's last words, as if --dask had been left out
    ("", "give a Dask scheduler's address (tcp://HOST:8786) or 'local'"),
    ("  ", "give a Dask scheduler's address (tcp://HOST:8786) or 'local'"),
    # taken for a scheduler's address: "cannot reach ...: missing port number"
    ("LOCAL", "the local cluster is written 'local', in lower case"),
    (" Local ", "the local cluster is written 'local', in lower case"),
])
def test_a_dask_address_that_names_no_scheduler_is_refused(tmp_path, capsys, address, said):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", address) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"ddcards: error: --dask {address!r}: {said}" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_a_tls_scheduler_without_certificates_is_a_clear_error(tmp_path, capsys):
    """`--dask tls://HOST:8786` with no TLS configured for Dask: Dask's TypeError ("TLS expects a
    `ssl_context` argument ...") was taken for a bug, 'ddcards: internal error', exit status 3."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", "tls://127.0.0.1:9") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "ddcards: error: cannot reach the Dask scheduler at tls://127.0.0.1:9: TLS expects" in err, err
    assert "internal error" not in err and not (tmp_path / "o.jsonl").exists()


def test_the_summary_s_rate_of_a_batch_of_long_searches_is_not_zero(capsys):
    """64 documents answered in 433 s (an audit's batch of fresh Mariasz deals): the summary said
    "(0/s)", a rate rounded to whole documents a second."""
    import argparse

    from ddcards.batch import job

    tally = job._Tally()
    for line in range(1, 65):
        tally.add({"line": line, "value": 0, "elapsed_ms": 6000.0, "nodes": 10})
    args = argparse.Namespace(output="out.jsonl")
    source = job._Input("in.jsonl", None, 0, "", 64)          # type: ignore[arg-type]
    job._summary(args, source, tally, 0, 432.92, "2 threads")
    assert "64 answered in 432.92 s (0.15/s) on 2 threads" in capsys.readouterr().err
    job._summary(args, source, tally, 0, 17.3, "2 threads")
    assert "64 answered in 17.30 s (3.7/s) on 2 threads" in capsys.readouterr().err
    job._summary(args, source, tally, 0, 0.1, "2 threads")
    assert "64 answered in 0.10 s (640/s) on 2 threads" in capsys.readouterr().err


def test_restart_replaces_the_output_at_its_first_answer_not_before(tmp_path, capsys):
    """`--restart` cut OUT to nothing as it opened it: a run that then answered nothing (an empty
    input, a Dask scheduler it could not reach) had thrown the earlier answers away and left an
    empty OUT and a job file behind, where docs/BATCH.md says such a run leaves no trace."""
    source, empty, out = tmp_path / "in.jsonl", tmp_path / "empty.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n" + json.dumps(endgame(26)) + "\n")
    empty.write_text("\n# nothing yet\n")
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_OK
    answers, job = out.read_bytes(), (tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_bytes()
    assert len(read_records(out)) == 2
    assert batch(str(empty), "-o", str(out), "--restart", "--no-progress") == cli.EXIT_BAD_INPUT
    assert "holds no position document" in capsys.readouterr().err
    assert out.read_bytes() == answers and (tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_bytes() == job
    assert batch(str(source), "-o", str(out), "--restart", "--dask", "tcp://127.0.0.1:9") == cli.EXIT_BAD_INPUT
    assert out.read_bytes() == answers and (tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_bytes() == job
    # a file of the user's, which --restart may replace: untouched by a run that answers nothing
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert batch(str(empty), "-o", str(notes), "--restart", "--no-progress") == cli.EXIT_BAD_INPUT
    assert notes.read_text() == "my notes\n" and not (tmp_path / ("notes.txt" + JOB_SUFFIX)).exists()
    # with an answer, the output is replaced: its records and its job are the new run's alone
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(one), "-o", str(out), "--restart", "--jobs", "1", "--no-progress") == cli.EXIT_OK
    assert list(read_records(out)) == [(1, None)]
    assert json.loads((tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_text())["input"]["bytes"] == one.stat().st_size


def test_jobs_with_a_remote_dask_cluster_is_refused_not_dropped(tmp_path, capsys):
    """`--jobs 7 --dask tcp://HOST:8786`: the cluster's workers run what they run, and --jobs was
    dropped without a word (the summary said "2 workers, 2 threads")."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(source), "-o", str(tmp_path / "o.jsonl"), "--jobs", "7",
                 "--dask", "tcp://127.0.0.1:9") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "ddcards: error: --jobs 7 does not apply to the Dask cluster at tcp://127.0.0.1:9" in err, err
    assert not (tmp_path / "o.jsonl").exists()


def test_an_empty_output_name_is_said_to_be_empty(tmp_path, capsys):
    """-o "$OUT" with the variable unset said "cannot write : No such file or directory"."""
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(source), "-o", "") == cli.EXIT_BAD_INPUT
    assert ("ddcards: error: -o '': the output's file name is empty: give the file the answers go to"
            in capsys.readouterr().err)
