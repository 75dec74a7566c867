"""``ddcards batch``: every document answered once under its line and id, duplicates searched
once, the biggest searches first, bad lines as error records, the journal resumed after an
interruption (a torn last line cut), the job file guarding OUT, standard input, the exit status,
the progress bar on a real terminal and the summary."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

import ddcards
from ddcards import cli
from ddcards.batch.journal import JOB_SUFFIX, KeyIndex, _Done
from _batch_data import (corpus, endgame, expected_answer, read_records, without_times,  # tests/ is on sys.path
                         write_batch)

DDCARDS = [sys.executable, "-m", "ddcards"]


def batch(*argv: str) -> int:
    return cli.main(["batch", *argv])


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict, str]:
    """One batch over every kind of line, on 2 threads: (input, expected, records, stderr)."""
    folder = tmp_path_factory.mktemp("batch")
    source = folder / "in.jsonl"
    expect = write_batch(source)
    out = folder / "out.jsonl"
    proc = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out), "--jobs", "2"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr      # some lines are bad
    return source, expect, read_records(out), proc.stderr


def test_every_document_is_answered_once_under_its_line_index_and_id(answered):
    _, expect, records, _ = answered
    assert set(records) == set(expect)
    for (line, index), want in expect.items():
        record = records[(line, index)]
        assert record["line"] == line and record.get("index") == index
        if "error" in want:
            continue
        assert record.get("id") == want.get("id")
        doc = {k: v for k, v in want.items() if k != "id"}
        got = {k: v for k, v in record.items() if k not in ("line", "index", "id", "position_key", "duplicate_of",
                                                           "elapsed_ms")}
        assert got == expected_answer(doc), (line, index)


def test_the_worked_example_and_a_full_deal_have_their_hand_checked_values(answered):
    _, _, records, _ = answered
    assert records[(7, None)]["id"] == "hra-0"
    assert records[(20, 0)]["value"] == ddcards.solve(endgame(29)).value
    # docs/RULES.md's worked Hra example, solved alone: +70 (README); its endgame after 24 cards
    assert ddcards.solve(ddcards.example("marias-hra")).value == 70
    assert records[(4, None)]["value"] == records[(19, None)]["value"] == ddcards.solve(endgame(24)).value


def test_bad_lines_get_error_records_with_the_token_and_the_rule(answered):
    _, expect, records, _ = answered
    for label, want in expect.items():
        if "error" not in want:
            continue
        record = records[label]
        assert record["error_type"] == want["error"], record
        assert record["rule"].startswith("docs/RULES.md §"), record
        if "token" in want:
            assert record["token"] == want["token"]
        assert "position_key" not in record and "value" not in record
    assert "line 1" not in json.dumps(records[(21, None)])     # the message is about its own line only
    assert "'ZZ'" in records[(22, None)]["error"]


def test_duplicates_are_searched_once_and_name_the_search_that_answered_them(answered):
    _, _, records, _ = answered
    duplicates = {label: r["duplicate_of"] for label, r in records.items() if "duplicate_of" in r}
    # the same position in other notation, the same document again, and a copy inside an array
    assert duplicates == {(18, None): {"line": 7, "id": "hra-0"}, (19, None): {"line": 4}, (20, 1): {"line": 3}}
    for label, first in duplicates.items():
        original = records[(first["line"], first.get("index"))]
        assert records[label]["position_key"] == original["position_key"]
        assert records[label]["nodes"] == original["nodes"]
    searched = [r["position_key"] for r in records.values() if "position_key" in r and "duplicate_of" not in r]
    assert len(searched) == len(set(searched))


def test_the_summary_counts_documents_failures_duplicates_and_times(answered):
    _, expect, records, stderr = answered
    assert f"{len(expect)} documents" in stderr
    assert "4 failed (4 bad input)" in stderr
    assert "3 duplicates answered by the search of their first copy" in stderr
    match = re.search(r"median ([\d,.]+) ms, p90 ([\d,.]+) ms, max ([\d,.]+) ms; ([\d.]+ M|[\d,]+) nodes/s", stderr)
    assert match, stderr     # under 1 M nodes/s (a loaded machine) the rate is written out: 523,000 nodes/s
    median, p90, longest = (float(match.group(i).replace(",", "")) for i in (1, 2, 3))
    times = sorted(r["elapsed_ms"] for r in records.values() if "value" in r and "duplicate_of" not in r)
    assert longest == pytest.approx(times[-1], rel=0.01, abs=0.01)
    assert median <= p90 <= longest


def test_the_biggest_searches_go_first(tmp_path):
    # Endgames first in the file, full deals after: on one thread the full deals (no card
    # played) are searched before the endgames read ahead of them.
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    docs = [endgame(cut) for cut in (27, 24, 21, 26, 28, 23)] + corpus("marias-hra", 6, start=20)
    source.write_text("".join(json.dumps(d) + "\n" for d in docs))
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    order = [json.loads(raw)["line"] for raw in out.read_bytes().splitlines()]
    assert sorted(order) == list(range(1, 13))
    assert set(order[:6]) == set(range(7, 13)), order
    plies = [len(docs[line - 1].get("played", [])) for line in order]
    assert plies[6:] == sorted(plies[6:])


def test_an_interrupted_journal_resumes_and_its_torn_last_line_is_cut(answered, tmp_path, capsys):
    source, _, records, _ = answered
    done = sorted(records.values(), key=lambda r: r["line"])[:9]
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"".join(cli.json_line(r).encode() + b"\n" for r in done) + b'{"line": 30, "posi')
    job = json.loads((Path(str(source).replace("in.jsonl", "out.jsonl") + JOB_SUFFIX)).read_text())
    (tmp_path / ("out.jsonl" + JOB_SUFFIX)).write_text(json.dumps(job))
    assert batch(str(source), "-o", str(out), "--jobs", "2") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "cut an unfinished last line (18 bytes)" in err and "resuming: 9 documents answered already" in err
    assert "(9 answered by earlier runs)" in err
    assert without_times(read_records(out)) == without_times(records)


def test_a_finished_batch_run_again_does_nothing_and_keeps_its_status(answered, tmp_path, capsys):
    source, _, records, _ = answered
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out), "--mode", "all") == cli.EXIT_BAD_INPUT
    before = out.read_bytes()
    capsys.readouterr()
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert out.read_bytes() == before
    assert "0 answered" in capsys.readouterr().err


def test_the_job_file_guards_the_output(answered, tmp_path, capsys):
    source, _, _, _ = answered
    out = tmp_path / "out.jsonl"
    out.write_text("my notes\n")
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "is not the output of a ddcards batch" in capsys.readouterr().err
    assert out.read_text() == "my notes\n"
    assert batch(str(source), "-o", str(out), "--restart") == cli.EXIT_BAD_INPUT
    assert len(read_records(out)) > 10
    # other options, or another input, do not resume this output
    assert batch(str(source), "-o", str(out), "--mode", "best") == cli.EXIT_BAD_INPUT
    assert 'options.mode was "all", now "best"' in capsys.readouterr().err
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(other), "-o", str(out)) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "holds answers to another job (input.bytes was" in err and "input.sha256" in err
    assert batch(str(source), "-o", str(source)) == cli.EXIT_BAD_INPUT
    assert "is the input" in capsys.readouterr().err


def _changed_after_hashing(monkeypatch, change) -> None:
    """Run `change()` on the input right after the batch hashed it and before it reads a document
    (the documents are read lazily, while the searches run)."""
    from ddcards.batch import job

    opened = job._open_input

    def open_then_change(name, stack):
        source = opened(name, stack)
        change()
        return source

    monkeypatch.setattr(job, "_open_input", open_then_change)


@pytest.mark.parametrize("how", ["swapped", "truncated"])
def test_an_input_written_while_the_batch_reads_it_is_said_and_never_mixed(tmp_path, capsys, monkeypatch, how):
    """The input hashed at the start no longer what the documents are read from (two lines swapped
    in place, or the file cut): the run says so (exit status 2), its answers are those of the
    bytes it read, and OUT.job names those, so that a run on the input as it was is refused rather
    than resumed over answers to other lines (a batch audit: lines 290 and 291 swapped mid-run kept
    each other's answers, and a resume on the restored file accepted them)."""
    docs = [endgame(cut) for cut in (20, 24, 26, 28)]
    lines = [json.dumps(d) for d in docs]
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    original = "\n".join(lines) + "\n"
    source.write_text(original)
    if how == "swapped":
        changed = "\n".join([lines[0], lines[3], lines[2], lines[1]]) + "\n"    # the same bytes in all
    else:
        changed = "\n".join(lines[:2]) + "\n"

    def change():
        with open(source, "r+") as fh:              # in place: the batch's open file sees it
            fh.write(changed)
            fh.truncate()

    _changed_after_hashing(monkeypatch, change)
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"in.jsonl changed while the batch read it ({len(original):,} bytes when the run began, " \
           f"{len(changed):,} as read)" in err and "run again with --restart" in err
    monkeypatch.undo()
    records = read_records(out)
    # the answers are those of the lines as read
    got = {line: r["value"] for (line, *_), r in records.items()}
    want = {n + 1: ddcards.solve(json.loads(text)).value for n, text in enumerate(changed.splitlines())}
    assert got == want
    job = json.loads((tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_text())
    assert job["input"]["sha256"] == hashlib.sha256(changed.encode()).hexdigest()
    # the input as it was: another job, refused; as it was read: resumed, nothing left to do
    source.write_text(original)
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert f"holds answers to another job (input.{'sha256' if how == 'swapped' else 'bytes'} was" in \
        capsys.readouterr().err
    source.write_text(changed)
    assert batch(str(source), "-o", str(out)) == cli.EXIT_OK
    assert read_records(out) == records


def test_the_job_file_is_never_written_over_the_input_or_a_foreign_file(tmp_path, capsys):
    """`ddcards batch deals.job -o deals` replaced the input by the job file (written atomically,
    unchecked), and a fresh OUT replaced any file called OUT.job: a security review's find."""
    docs = "".join(json.dumps(endgame(n)) + "\n" for n in (27, 28))
    source = tmp_path / "deals.jsonl.job"
    source.write_text(docs)
    out = tmp_path / "deals.jsonl"
    assert batch(str(source), "-o", str(out), "-j", "1") == cli.EXIT_BAD_INPUT
    assert f"the output's job file {source} is the input" in capsys.readouterr().err
    assert source.read_text() == docs and not out.exists()
    # a file of another kind under OUT.job is left alone, and no empty OUT is left behind
    source = tmp_path / "in.jsonl"
    source.write_text(docs)
    foreign = tmp_path / ("out.jsonl" + JOB_SUFFIX)
    foreign.write_text("my notes\n")
    for extra in ((), ("--restart",)):
        assert batch(str(source), "-o", str(tmp_path / "out.jsonl"), "-j", "1", *extra) == cli.EXIT_BAD_INPUT
        assert f"{foreign} exists and is not a ddcards batch job file" in capsys.readouterr().err
        assert foreign.read_text() == "my notes\n" and not (tmp_path / "out.jsonl").exists()
    # nor a FIFO (opening it would wait for ever), and --restart of an answered OUT refused so
    # leaves that OUT as it was
    foreign.unlink()
    os.mkfifo(foreign)
    assert batch(str(source), "-o", str(tmp_path / "out.jsonl"), "-j", "1") == cli.EXIT_BAD_INPUT
    assert "is not a ddcards batch job file" in capsys.readouterr().err
    foreign.unlink()
    assert batch(str(source), "-o", str(tmp_path / "out.jsonl"), "-j", "1") == 0
    answered = (tmp_path / "out.jsonl").read_bytes()
    foreign.write_text("my notes\n")
    assert batch(str(source), "-o", str(tmp_path / "out.jsonl"), "-j", "1", "--restart") == cli.EXIT_BAD_INPUT
    assert (tmp_path / "out.jsonl").read_bytes() == answered and foreign.read_text() == "my notes\n"
    (tmp_path / "out.jsonl").unlink()
    # a job file of an earlier run there is fine: a new OUT takes its name
    foreign.unlink()
    assert batch(str(source), "-o", str(tmp_path / "old.jsonl"), "-j", "1") == 0
    (tmp_path / ("old.jsonl" + JOB_SUFFIX)).rename(foreign)
    assert batch(str(source), "-o", str(tmp_path / "out.jsonl"), "-j", "1") == 0
    assert len(read_records(tmp_path / "out.jsonl")) == 2


def test_standard_input_redirected_from_the_output_is_the_input_too(tmp_path):
    """`ddcards batch - -o deals.jsonl --restart < deals.jsonl` replaced the input by the answers
    (exit 0), where `ddcards batch deals.jsonl -o deals.jsonl` is refused: now refused alike."""
    docs = "".join(json.dumps(endgame(n)) + "\n" for n in (27, 28))
    source = tmp_path / "deals.jsonl"
    source.write_text(docs)
    for out, extra in ((source, ("--restart",)), (source, ()), (tmp_path / "deals", ())):
        if out != source:
            os.rename(source, tmp_path / ("deals" + JOB_SUFFIX))
            source = tmp_path / ("deals" + JOB_SUFFIX)
        with open(source, "rb") as stdin:
            proc = subprocess.run([*DDCARDS, "batch", "-", "-o", str(out), "-j", "1", *extra], stdin=stdin,
                                  capture_output=True, text=True, timeout=120)
        assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr
        assert "is the input" in proc.stderr
        assert source.read_text() == docs
    assert not (tmp_path / "deals").exists()


def test_a_run_that_answers_nothing_leaves_no_output_to_block_the_next(tmp_path, capsys):
    """An empty input left an empty OUT and its job file, and the next run with another input
    was refused: 'holds answers to another job', though it held none."""
    empty, out = tmp_path / "empty.jsonl", tmp_path / "out.jsonl"
    empty.write_text("# nothing yet\n")
    assert batch(str(empty), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "holds no position document" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / ("out.jsonl" + JOB_SUFFIX)).exists()
    # an empty OUT beside another job's file holds no answers either: it is written anew
    out.write_text("")
    (tmp_path / ("out.jsonl" + JOB_SUFFIX)).write_text('{"format": 1, "input": {"bytes": 0}}\n')
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(endgame(27)) + "\n")
    assert batch(str(one), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    assert len(read_records(out)) == 1


def test_a_hand_edited_journal_is_refused_not_overwritten(answered, tmp_path, capsys):
    source, _, records, _ = answered
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:3] + [b"garbage\n"] + lines[3:]))
    capsys.readouterr()
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "line 4 is not a record of ddcards batch" in capsys.readouterr().err
    out.write_bytes(b"".join(lines + lines[:1]))
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "answers a document that an earlier line answers" in capsys.readouterr().err


def test_standard_input_is_resumed_from_the_same_bytes(tmp_path):
    docs = [endgame(cut) for cut in range(18, 30)]
    data = "".join(json.dumps(dict(d, id=f"e{n}")) + "\n" for n, d in enumerate(docs)).encode()
    out = tmp_path / "out.jsonl"
    first = subprocess.run([*DDCARDS, "batch", "-", "-o", str(out)], input=data, capture_output=True, timeout=120)
    assert first.returncode == 0, first.stderr
    records = read_records(out)
    assert {r["id"]: r["value"] for r in records.values()} == {f"e{n}": ddcards.solve(d).value
                                                              for n, d in enumerate(docs)}
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:5]))
    again = subprocess.run([*DDCARDS, "batch", "-", "-o", str(out)], input=data, capture_output=True, timeout=120)
    assert again.returncode == 0 and b"(5 answered by earlier runs)" in again.stderr
    assert without_times(read_records(out)) == without_times(records)
    other = subprocess.run([*DDCARDS, "batch", "-", "-o", str(out)], input=data[:-40], capture_output=True,
                           timeout=120)
    assert other.returncode == 2 and b"holds answers to another job" in other.stderr


def test_a_pipe_given_by_name_is_read_as_standard_input_is(tmp_path):
    # /dev/stdin from a pipe, a FIFO, <(...): read once into a spool, as '-' (an audit found an
    # internal error: "File or stream is not seekable").
    docs = [endgame(cut) for cut in range(24, 28)]
    data = "".join(json.dumps(d) + "\n" for d in docs).encode()
    out = tmp_path / "out.jsonl"
    run = subprocess.run([*DDCARDS, "batch", "/dev/stdin", "-o", str(out)], input=data, capture_output=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(r["value"] for r in read_records(out).values()) == sorted(ddcards.solve(d).value for d in docs)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > '{fifo}'"], stdin=subprocess.PIPE)
    batch_run = subprocess.Popen([*DDCARDS, "batch", str(fifo), "-o", str(tmp_path / "f.jsonl")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer.communicate(data, timeout=60)
    _, err = batch_run.communicate(timeout=120)
    assert batch_run.returncode == 0, err
    assert len(read_records(tmp_path / "f.jsonl")) == len(docs)


def test_exit_status_says_what_failed(tmp_path, capsys):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(endgame(24)) + "\n" + json.dumps(corpus("marias-hra", 1)[0]) + "\n")
    assert batch(str(source), "-o", str(out)) == cli.EXIT_OK
    # a timeout of 0 stops every search that is not over at once: their records are errors, status 1
    assert batch(str(source), "-o", str(tmp_path / "t.jsonl"), "--timeout", "0") == cli.EXIT_ABORTED
    stopped = [r for r in read_records(tmp_path / "t.jsonl").values() if "error" in r]
    assert stopped and all(r["error_type"] == "SearchTimeout" for r in stopped)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# nothing\n\n")
    capsys.readouterr()
    assert batch(str(empty), "-o", str(tmp_path / "e.jsonl")) == cli.EXIT_BAD_INPUT
    assert "holds no position document" in capsys.readouterr().err
    assert batch(str(tmp_path / "missing.jsonl"), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        batch(str(source), "-o", str(out), "--jobs", "0")
    assert info.value.code == 2 and "--jobs must be at least 1" in capsys.readouterr().err
    limit = ddcards.api.tt_mb_limit()                  # 3 jobs' tables of half the memory each
    with pytest.raises(SystemExit) as info:
        batch(str(source), "-o", str(tmp_path / "m.jsonl"), "--jobs", "3", "--tt-mb", str(limit // 2))
    each = ddcards.api.table_memory_mb(limit // 2)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ddcards batch: error: --jobs 3 x --tt-mb {limit // 2}: the tables take {3 * each:,} MiB (one per job; each "
        f"{each:,} MiB with its side area), more than this machine's memory, {limit:,} MiB: give fewer jobs or a "
        "smaller table")
    assert not (tmp_path / "m.jsonl").exists()


def _on_a_terminal(argv: list[str], cwd: Path) -> str:
    """Run `argv` with its standard error on a pseudo-terminal; what the terminal showed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))   # 30 rows, 120 columns
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL, cwd=cwd)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:                 # the terminal's other end closed: the program ended
            break
        if not chunk:
            break
        shown += chunk
    proc.wait(timeout=120)
    os.close(master)
    return shown.decode("utf-8", "replace")


def test_a_real_progress_bar_on_a_terminal_and_none_in_a_pipe(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in corpus("marias-hra", 30)))
    shown = _on_a_terminal([*DDCARDS, "batch", str(source), "-o", str(tmp_path / "a.jsonl")], tmp_path)
    # tqdm's bar: the count of the total, the percentage, elapsed<ETA and the rate, redrawn with \r
    assert re.search(r"100%\|.*\| 30/30 \[\d\d:\d\d<\d\d:\d\d, +[\d.]+ ?pos/s\]", shown), shown
    assert "\r" in shown and "ddcards batch: " in shown
    piped = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(tmp_path / "b.jsonl")], capture_output=True,
                           text=True, timeout=120)
    assert "pos/s" not in piped.stderr and "\r" not in piped.stderr
    assert piped.stderr.startswith("ddcards batch: ")
    forced = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(tmp_path / "c.jsonl"), "--progress"],
                            capture_output=True, text=True, timeout=120)
    assert "30/30" in forced.stderr


def test_solve_shows_the_same_bar_for_its_batches(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(20, 30)))
    shown = _on_a_terminal([*DDCARDS, "solve", str(source), "--json"], tmp_path)
    assert re.search(r"100%\|.*\| 10/10 \[", shown), shown
    single = _on_a_terminal([*DDCARDS, "solve", "--example", "--json"], tmp_path)
    assert "pos/s" not in single


def test_solve_with_a_bar_reads_a_pipe_given_by_path_once(tmp_path):
    """`ddcards solve <(zcat deals.gz)` with the bar (--progress, or a terminal) opened the path again
    to count its documents: the count took most of them from the pipe (silently lost, exit status 0),
    and a FIFO whose writer had gone made it wait for ever."""
    import threading

    docs = [dict(ddcards.example("marias-hra"), id=f"d{n}") for n in range(600)]
    data = "".join(json.dumps(d) + "\n" for d in docs).encode()
    fifo = tmp_path / "deals.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    proc = subprocess.run([*DDCARDS, "solve", str(fifo), "--json", "--mode", "best", "--progress"],
                          capture_output=True, text=True, timeout=120)
    writer.join()
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [d["id"] for d in docs]
    assert "solved 600 positions" in proc.stderr and "600 pos" in proc.stderr


# ---------------------------------------------------------------- the journal's structures

def test_key_index_agrees_with_a_dict_and_keeps_the_first_offset():
    import random

    rng = random.Random(13)
    index, plain = KeyIndex(), {}
    for offset in range(30_000):
        key = rng.getrandbits(64) if rng.random() < 0.8 or not plain else rng.choice(list(plain))
        index.add(key, offset)
        plain.setdefault(key, offset)
    assert len(index) == len(plain)
    assert all(index.get(key) == offset for key, offset in plain.items())
    assert all(index.get(rng.getrandbits(64)) is None for _ in range(1000))
    assert len(index._recent) < len(plain) // 2          # most keys live in the packed arrays


def test_done_marks_lines_array_elements_and_documents_sharing_a_line():
    done = _Done()
    assert done.add(1, None) and done.add(700, None) and done.add(5, 0) and done.add(5, 1)
    assert done.add(700, None, 40) and done.add(5, 0, 9)          # begun on a line another one began on
    assert not done.add(700, None) and not done.add(5, 1) and not done.add(700, None, 40)
    assert (700, None, None) in done and (5, 1, None) in done and (5, None, None) not in done
    assert (2, None, None) not in done and (700, None, 40) in done and (700, None, 41) not in done
    assert (5, 0, 9) in done and done.count == 6


def _same_line_inputs(folder: Path) -> dict[str, tuple[str, list[dict]]]:
    """One JSON text with documents begun on one line: its text and the labels of its records."""
    a, b, k = (ddcards.example(name) for name in ("marias-hra", "marias-betl", "klaverjas"))
    pretty = json.dumps(a, indent=1)
    first = pretty.count("\n") + 2                             # the line after the pretty document
    column = len(json.dumps(b)) + 2
    return {
        "sameline": (pretty + "\n" + json.dumps(b) + " " + json.dumps(k) + "\n",
                     [{"line": 1}, {"line": first}, {"line": first, "column": column}]),
        "arrays": ("[\n" + json.dumps(a) + "]  [" + json.dumps(b) + ", " + json.dumps(k) + "]\n",
                   [{"line": 2, "index": 0}, {"line": 2, "index": 0, "column": len(json.dumps(a)) + 5},
                    {"line": 2, "index": 1}]),
    }


@pytest.mark.parametrize("name", ["sameline", "arrays"])
def test_documents_begun_on_one_line_of_a_json_text_each_get_a_place_of_their_own(tmp_path, capsys, name):
    """Two documents (or two arrays) begun on one line had one label: the finished OUT could not be
    opened again ('answers a document that an earlier line answers'), and a run killed between
    their two records resumed without the second, its status 0."""
    text, labels = _same_line_inputs(tmp_path)[name]
    source, out = tmp_path / "in.json", tmp_path / "out.jsonl"
    source.write_text(text)
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    records = read_records(out)
    assert sorted(({k: r[k] for k in ("line", "index", "column") if k in r} for r in records.values()),
                  key=lambda lab: (lab["line"], lab.get("index", -1), lab.get("column", 0))) == labels
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK      # run again: nothing to do
    assert "3 documents (3 answered by earlier runs)" in capsys.readouterr().err
    # killed after two of the three records: the third is answered on resuming
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:2]))
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_OK
    assert "3 documents (2 answered by earlier runs); 1 answered" in capsys.readouterr().err
    assert without_times(read_records(out)) == without_times(records)


def test_a_bad_document_in_a_json_text_costs_only_itself(tmp_path, capsys):
    """NaN (or nesting past the limit) in one document of a JSON text ended the reading there, the
    documents after it lost without a record (and the nesting one lost those before it too); a bad
    one after a good one on the same line was taken for a runaway line's second word, unrecorded."""
    a, b, k = (ddcards.example(name) for name in ("marias-hra", "marias-betl", "klaverjas"))
    pretty_b = json.dumps(b, indent=1)
    cases = {
        "nan": pretty_b.replace('"played": []', '"played": [], "x": NaN'),
        "deep": pretty_b.replace('"played": []', '"played": [], "x": ' + "[" * 20 + "]" * 20),
        "very-deep": pretty_b.replace('"played": []', '"played": [], "x": ' + "[" * 50_000 + "]" * 50_000),
    }
    for name, middle in cases.items():
        source, out = tmp_path / f"{name}.json", tmp_path / f"{name}.jsonl"
        source.write_text(json.dumps(a, indent=1) + "\n" + middle + "\n" + json.dumps(k, indent=1) + "\n")
        assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_BAD_INPUT, name
        records = sorted(read_records(out).values(), key=lambda r: r["line"])
        assert [r["line"] for r in records] == [1, 13, 24] and [r.get("game") for r in records] == \
            ["marias", None, "klaverjas"], name
        assert ("NaN is not a JSON number" if name == "nan" else "nested more than 16 levels deep at line 22") \
            in records[1]["error"], name
    # in an array: the element is its own error record, the others are answered
    source, out = tmp_path / "array.json", tmp_path / "array.jsonl"
    source.write_text("[\n" + json.dumps(a) + ",\n" + json.dumps(b).replace("[]", "[NaN]", 1) + ",\n"
                      + json.dumps(k) + "\n]\n")
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_BAD_INPUT
    records = sorted(read_records(out).values(), key=lambda r: r["index"])
    assert [(r["line"], r["index"], "error" in r) for r in records] == [(2, 0, False), (3, 1, True), (4, 2, False)]
    # a bad document after a good one on one line: its error record, with its column
    source, out = tmp_path / "sameline.json", tmp_path / "sameline.jsonl"
    source.write_text(json.dumps(a, indent=1) + "\n" + json.dumps(b) + " " + json.dumps(dict(b, id=[1, 2])) + "\n")
    capsys.readouterr()
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_BAD_INPUT
    records = sorted(read_records(out).values(), key=lambda r: (r["line"], r.get("column", 0)))
    assert [(r["line"], r.get("column"), "error" in r) for r in records] == \
        [(1, None, False), (13, None, False), (13, len(json.dumps(b)) + 2, True)]
    assert "id must be" in records[2]["error"] and "3 documents" in capsys.readouterr().err


def test_positions_the_executor_loses_are_left_for_the_next_run(tmp_path, capsys):
    import argparse

    from ddcards.batch import job
    from ddcards.batch.journal import Journal
    from ddcards.batch.progress import ProgressBar
    from concurrent.futures import ThreadPoolExecutor

    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    docs = [endgame(cut) for cut in range(20, 30)] + [endgame(25)]
    source.write_text("".join(json.dumps(d) + "\n" for d in docs) + "{bad\n")
    args = argparse.Namespace(input=str(source), output=str(out), mode="all", timeout=None, tt_mb=2)
    broken = ThreadPoolExecutor(1)
    broken.shutdown()                        # every task it is given fails to start
    with contextlib.ExitStack() as stack:
        found = job._open_input(str(source), stack)
        journal = Journal(str(out), job._job(found, args))
        lost = job._run(args, found, journal, job._Tally(), ProgressBar(False), broken, None)
        journal.close()
    assert lost == 11                        # 10 searches, one of them with a duplicate
    assert "the executor did not run this position's task: RuntimeError" in capsys.readouterr().err
    assert [r["line"] for r in read_records(out).values()] == [12]     # only the bad line has its record
    # the same command again answers them
    assert batch(str(source), "-o", str(out)) == cli.EXIT_BAD_INPUT
    assert "resuming: 1 document answered already" in capsys.readouterr().err
    records = read_records(out)
    assert len(records) == 12
    assert all(records[(n + 1, None)]["value"] == ddcards.solve(doc).value for n, doc in enumerate(docs))
    assert records[(11, None)]["duplicate_of"] == {"line": 6}


def test_a_table_that_cannot_grow_is_an_error_record_naming_the_commands_option(monkeypatch, tmp_path):
    import dataclasses

    from ddcards.games import mariasz

    monkeypatch.setattr(mariasz.GAME, "info", dataclasses.replace(mariasz.INFO, table_mb=1 << 40))
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(ddcards.example("mariasz")) + "\n" + json.dumps(endgame(24)) + "\n")
    assert batch(str(source), "-o", str(out), "--jobs", "1") == cli.EXIT_BAD_INPUT
    records = read_records(out)
    failed, solved = records[(1, None)], records[(2, None)]
    assert failed["error_type"] == "TableMemoryError"
    assert failed["error"] == (f"cannot allocate the {1 << 40:,} MiB transposition table mariasz searches need: "
                               "not enough free memory (give a smaller table of a fixed size: --tt-mb)")
    assert "error" not in solved and "value" in solved                 # the batch goes on


def test_a_stopped_search_s_record_says_what_it_had_done():
    """An error record of a stopped search carries its nodes, its progress, a DD table's row and an
    analysis's steps, as the exception does (the record had only the message)."""
    from ddcards.batch.reader import Entry, Outcome

    stopped = ddcards.SearchTimeout("stand-in")
    stopped.nodes, stopped.row = 1234, 3
    stopped.progress = ddcards.SearchProgress(answered=2, moves=7, value=-12, move="AS", at_least=True)
    record = Outcome(Entry(5, document={}), error=stopped).record(dict)
    assert record == {"line": 5, "error": "stand-in", "error_type": "SearchTimeout", "nodes": 1234, "row": 3,
                      "progress": {"answered": 2, "moves": 7, "value": -12, "move": "AS", "at_least": True}}
    seed = ddcards.example("marias-seed")
    steps = ddcards.analyse(seed).steps[:2]
    stopped = ddcards.SearchCancelled("stand-in")
    stopped.steps = steps
    record = Outcome(Entry(1, document={}), error=stopped).record(dict)
    assert record["steps"] == [s.to_dict() for s in steps] and record["nodes"] == 0
    assert "row" not in record and "progress" not in record
