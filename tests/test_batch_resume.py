"""Kill ``ddcards batch`` (SIGKILL, a real subprocess) several times mid-run; the same command
run again each time goes on where it stopped, and the final output is the unkilled run's:
no document lost, none answered twice, no torn line."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _batch_data import corpus, endgame, read_records, without_times  # tests/ is on sys.path
from _signals import default_sigint, sigint_default

DDCARDS = [sys.executable, "-m", "ddcards"]


def _input(path: Path) -> int:
    """Full deals of three contracts, endgames, duplicates and bad lines; the number of documents."""
    docs = corpus("marias-hra", 160) + corpus("marias-betl", 80) + [endgame(cut) for cut in range(12, 30)]
    lines = [json.dumps(dict(d, id=n)) for n, d in enumerate(docs)]
    lines += [json.dumps(docs[n]) for n in range(0, 160, 16)]          # duplicates, without ids
    lines += ["{not json", json.dumps(dict(docs[3], talon="ZZ 7D"))]
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def _records_so_far(out: Path) -> int:
    try:
        return out.read_bytes().count(b"\n")
    except FileNotFoundError:
        return -1


def _run_until(argv: list[str], out: Path, records: int) -> tuple[int, bool]:
    """Start `argv`, SIGKILL it once OUT holds `records` records (0: once OUT exists);
    (the records OUT held then, whether it was killed before it ended by itself)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None:
            if _records_so_far(out) >= records:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
                return _records_so_far(out), True
            time.sleep(0.001)
        return _records_so_far(out), False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_killed_again_and_again_the_batch_resumes_to_the_unkilled_result(tmp_path):
    source = tmp_path / "in.jsonl"
    total = _input(source)
    reference = tmp_path / "reference.jsonl"
    unkilled = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(reference), "--jobs", "2"],
                              capture_output=True, text=True, timeout=600)
    assert unkilled.returncode == 2, unkilled.stderr                 # the two bad lines
    want = read_records(reference)
    assert len(want) == total

    out = tmp_path / "out.jsonl"
    argv = [*DDCARDS, "batch", str(source), "-o", str(out), "--jobs", "2"]
    kills = 0
    for threshold in (0, total // 10, total // 3, total // 2, (3 * total) // 4):
        held, killed = _run_until(argv, out, threshold)
        assert killed, f"the run ended before it held {threshold} records"
        kills += 1
        # Whatever the moment of the kill, every line but an unfinished last one is a whole record.
        lines = out.read_bytes().split(b"\n") if out.exists() else [b""]
        for raw in lines[:-1]:
            assert isinstance(json.loads(raw)["line"], int)
        assert held < total
    assert kills == 5

    before = read_records_upto_torn(out)
    final = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert final.returncode == 2, final.stderr
    assert f"{total:,} documents ({before:,} answered by earlier runs); {total - before:,} answered" in final.stderr
    got = read_records(out)                     # whole lines only, each document once
    assert len(got) == total
    assert without_times(got) == without_times(want)


def read_records_upto_torn(out: Path) -> int:
    """The whole records OUT holds (an unfinished last line does not count)."""
    return out.read_bytes().count(b"\n")


def test_the_summary_of_a_resumed_run_counts_only_its_own_searches(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(6, 30)))
    out = tmp_path / "out.jsonl"
    first = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0
    complete = read_records(out)
    out.write_bytes(b"".join(out.read_bytes().splitlines(keepends=True)[:10]))
    again = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert re.search(r"24 documents \(10 answered by earlier runs\); 14 answered in", again.stderr), again.stderr
    assert without_times(read_records(out)) == without_times(complete)


def test_a_record_for_a_line_the_input_lacks_is_said_and_left_out_of_the_counts(tmp_path):
    """OUT.job ties OUT to its input, so only a hand-edited OUT can answer a line the input does
    not have: the resumed run says so and counts the input's documents, not OUT's lines."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(20, 26)))
    out = tmp_path / "out.jsonl"
    assert subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out)], capture_output=True,
                          timeout=300).returncode == 0
    lines = out.read_text().splitlines()
    forged = json.loads(lines[0])
    forged["line"] = 99
    out.write_text("\n".join(lines[1:] + [json.dumps(forged)]) + "\n")       # line 1's record now says 99
    again = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert "1 record of an earlier run answers no document of the input" in again.stderr, again.stderr
    assert re.search(r"6 documents \(5 answered by earlier runs\); 1 answered in", again.stderr), again.stderr
    assert sorted(line for line, _ in read_records(out)) == [1, 2, 3, 4, 5, 6, 99]
    # ... a failed one too: it is no failure of this input's (an audit: "1 failed", exit 2)
    with out.open("a") as f:
        f.write(json.dumps({"line": 100, "error_type": "InvalidCardError", "error": "x"}) + "\n")
    again = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out)], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert "2 records of an earlier run answer no document of the input" in again.stderr, again.stderr
    assert re.search(r"6 documents \(6 answered by earlier runs\); 0 answered in .*; 0 failed", again.stderr), \
        again.stderr


def test_one_writer_at_a_time_and_a_killed_one_leaves_no_lock(tmp_path):
    source = tmp_path / "in.jsonl"
    docs = corpus("marias-hra", 200) + corpus("klaverjas-amsterdam", 200)      # seconds of work on one job
    source.write_text("".join(json.dumps(d) + "\n" for d in docs))
    out = tmp_path / "out.jsonl"
    argv = [*DDCARDS, "batch", str(source), "-o", str(out), "--jobs", "1"]
    first = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while _records_so_far(out) < 1:
            assert first.poll() is None, "the first run ended before the second could start"
            time.sleep(0.001)
        second = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "the first run ended while the second started: no overlap to test"
        assert second.returncode == 2
        assert f"{out} is being written by another ddcards batch" in second.stderr
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    again = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "answered by earlier runs" in again.stderr, again.stderr
    assert len(read_records(out)) == len(docs)


def _interrupted(argv: list[str], out: Path, records: int, signum: int, status: int, settle: float = 0.0) -> str:
    """Run `argv`, send `signum` once OUT holds `records` records (and `settle` seconds more);
    its standard error, once it has stopped with `status` within 5 s of the signal."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    while _records_so_far(out) < records:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.001)
    time.sleep(settle)
    proc.send_signal(signum)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status and time.monotonic() - sent < 5, err
    return err


@pytest.mark.parametrize("signum, status, said", [(signal.SIGINT, 130, "interrupted"),
                                                   (signal.SIGTERM, 143, "stopped by SIGTERM")])
def test_ctrl_c_or_sigterm_stops_at_once_and_the_same_command_goes_on(tmp_path, signum, status, said):
    # SIGTERM (a service manager's stop) killed the run at once, saying nothing: it now stops as
    # Ctrl-C does, the count said, OUT whole.
    source = tmp_path / "in.jsonl"
    total = _input(source)
    out = tmp_path / "out.jsonl"
    argv = [*DDCARDS, "batch", str(source), "-o", str(out), "--jobs", "2"]
    err = _interrupted(argv, out, 20, signum, status)
    done = int(re.search(rf"{said} after (\d+) answers; run the same command again to go on", err).group(1))
    assert done == _records_so_far(out) < total
    again = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert again.returncode == 2 and f"({done:,} answered by earlier runs)" in again.stderr
    assert len(read_records(out)) == total


@pytest.mark.parametrize("signum, status, said", [(signal.SIGINT, 130, "interrupted"),
                                                   (signal.SIGTERM, 143, "stopped by SIGTERM")])
def test_one_job_stops_its_search_at_once_and_writes_no_answer_of_it(tmp_path, signum, status, said):
    # One job searches on the main thread, where Python takes a signal only when the search
    # returns: the run went on for as long as the search took (minutes), then threw it away.
    # A thread watching the wakeup fd now stops the search first; nothing of it is written.
    from _long_search import ENDLESS

    import ddcards

    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in (ddcards.example("klaverjas"), ENDLESS,
                                                              ddcards.example("marias-hra"))))
    out = tmp_path / "out.jsonl"
    argv = [*DDCARDS, "batch", str(source), "-o", str(out), "--jobs", "1"]
    err = _interrupted(argv, out, 1, signum, status, settle=0.5)        # the endless search under way
    assert f"{said} after 1 answer; run the same command again to go on" in err
    records = read_records(out)
    assert list(records) == [(1, None)] and "error" not in records[(1, None)]


def test_a_ctrl_c_during_a_write_takes_effect_once_the_write_is_done():
    from ddcards.batch.job import _CtrlCHold

    with default_sigint():
        before = signal.getsignal(signal.SIGINT)
        with _CtrlCHold() as hold:
            hold.holding = True
            signal.raise_signal(signal.SIGINT)       # held: the record and its count go together
            assert hold.caught
            with pytest.raises(KeyboardInterrupt):
                hold.release()
            assert not hold.caught and not hold.holding
            with pytest.raises(KeyboardInterrupt):   # between writes: at once
                signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is before
