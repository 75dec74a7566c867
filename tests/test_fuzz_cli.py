"""Fuzzing the command line with hostile batches (issue 10).

A batch is JSON Lines with good documents and hostile lines mixed in (mutated documents,
damaged JSON, bytes that are not UTF-8, separators that str.splitlines() would break at).
Whatever comes in: the exit status is 0, 1 or 2; stdout is valid UTF-8 of one JSON record
a line; every line that is not blank or a comment is answered under its own line number
(an array line once per element); every good document gets its value; errors are the
project's own, with token and rule.  In-process through cli.main (the budget is
DDCARDS_FUZZ_EXAMPLES) and a few times through a real ``python -m ddcards`` process.
"""
from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from _fuzz_strategies import BASES, FUZZ, document_texts, mutated_documents, to_text
from hypothesis import event, given
from hypothesis import strategies as st

import ddcards
from ddcards import cli

PROJECT_ERRORS = {"NotationError", "InvalidCardError", "InvalidDealError", "IllegalPlayError", "InvalidOptionError",
                  "SearchTimeout"}
GOOD = [BASES["marias-hra"], BASES["marias-betl"], dict(BASES["marias-seed"], played=BASES["marias-seed"]["played"][:27])]
GOOD_VALUES = [ddcards.solve(doc, mode="best").value for doc in GOOD]

good_lines = st.integers(0, len(GOOD) - 1).map(lambda i: (json.dumps(GOOD[i]).encode(), GOOD_VALUES[i]))
hostile_lines = (mutated_documents().map(lambda d: (to_text(d).encode("utf-8", "surrogatepass"), None))
                 | document_texts().map(lambda b: (b.replace(b"\n", b" "), None))
                 | st.binary(max_size=40).map(lambda b: (b.replace(b"\n", b""), None))
                 | st.sampled_from([b"", b"# a comment", b"   ", b"[]", b"\x0c", b"\r", b"\xe2\x80\xa8",
                                    b"[" * 2000, b"{", b"null", b"1" * 5000]).map(lambda b: (b, None)))


def significant(line: bytes) -> bool:
    body = line.strip(b" \t\r\n")
    return bool(body) and not body.startswith(b"#")


def expected_records(line: bytes) -> int | None:
    """How many records a line gives: its array's length, else 1 (None: at least 1)."""
    try:
        value = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return 1
    return max(1, len(value)) if isinstance(value, list) else 1


def check_output(lines: list[tuple[bytes, int | None]], status: int, out: bytes, err: str) -> list[dict]:
    assert status in (cli.EXIT_OK, cli.EXIT_ABORTED, cli.EXIT_BAD_INPUT), (status, err[-500:])
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    text = out.decode("utf-8")                                  # valid UTF-8, never raw input bytes
    records = [json.loads(line) for line in text.split("\n") if line]
    by_line: dict[int, list[dict]] = {}
    for rec in records:
        by_line.setdefault(rec["line"], []).append(rec)
        if "error" in rec:
            assert rec["error_type"] in PROJECT_ERRORS, rec
            if rec["error_type"] == "SearchTimeout":   # a search stopped on time: nothing in the input at fault
                assert "token" not in rec and "rule" not in rec and status != cli.EXIT_OK, rec
            else:
                assert rec["token"] is not None and rec["rule"], rec
    wanted = {n: expected_records(raw) for n, (raw, _) in enumerate(lines, 1) if significant(raw)}
    assert set(by_line) == set(wanted), (sorted(by_line), sorted(wanted))
    for n, count in wanted.items():
        got = by_line[n]
        # an array line: one record a document, or one error when the line as a whole is bad
        assert len(got) == count or (len(got) == 1 and "error" in got[0]), (n, got[:2])
    for n, (raw, value) in enumerate(lines, 1):
        if value is not None:
            assert by_line[n][0]["value"] == value, by_line[n][0]
    assert (status == cli.EXIT_OK) == all("error" not in rec for rec in records)
    return records


def batch_bytes(lines: list[tuple[bytes, int | None]], crlf: bool) -> bytes:
    return b"".join(raw + (b"\r\n" if crlf else b"\n") for raw, _ in lines)


@st.composite
def batches(draw) -> list[tuple[bytes, int | None]]:
    # The first line is a good document: the input is JSON Lines (a first line that opens
    # a longer JSON text would make it one document; test_cli covers that mode).
    first = draw(good_lines)
    rest = draw(st.lists(good_lines | hostile_lines, min_size=1, max_size=8))
    return [first] + rest


@FUZZ
@given(batches(), st.booleans())
def test_in_process_batches(capsysbinary, lines, crlf):
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(batch_bytes(lines, crlf)), encoding="utf-8")
    try:
        status = cli.main(["solve", "-", "--json", "--mode", "best", "--timeout", "20"])
    finally:
        sys.stdin = old
    out, err = capsysbinary.readouterr()
    event(f"lines in the batch: {len(lines)}")
    for rec in check_output(lines, status, out, err.decode("utf-8")):
        event(f"record: {rec.get('error_type', 'answer')}")     # --hypothesis-show-statistics counts them


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_real_processes(seed):
    # A few hundred lines, good ones and hostile ones, drawn with a plain seeded RNG.
    rng = random.Random(seed)
    lines = [(json.dumps(GOOD[0]).encode(), GOOD_VALUES[0])]
    samples = [b"{bad", b"\xff\xfe", b'{"game": "\\ud800"}', b"[" * 5000, b"1" * 5000, b"[]", b"\x0c",
               b'{"game": "marias", "flek": NaN}', b'{"game": "marias", "game": "x"}', b"\xe2\x80\xa8", b"\r",
               json.dumps(dict(GOOD[0], hands=None)).encode().replace(b"null", b"[" * 990 + b"]" * 990),
               json.dumps(dict(GOOD[0], options={"kilo_value": 2 ** 62})).encode(), b"# comment", b""]
    for _ in range(300):
        if rng.random() < 0.5:
            i = rng.randrange(len(GOOD))
            lines.append((json.dumps(dict(GOOD[i], id=rng.randrange(10 ** 6))).encode(), GOOD_VALUES[i]))
        else:
            lines.append((rng.choice(samples), None))
    proc = subprocess.run([sys.executable, "-m", "ddcards", "solve", "-", "--json", "--mode", "best"],
                          input=batch_bytes(lines, crlf=seed == 2), capture_output=True, timeout=300)
    check_output(lines, proc.returncode, proc.stdout, proc.stderr.decode("utf-8"))


def test_the_documents_fuzz_target_replays_a_crash_file_as_the_docs_say(tmp_path):
    """docs/FUZZING.md: a crash atheris wrote is replayed with `python fuzz/atheris_documents.py
    crash-<hash>`; a file argument is an input to run once, a folder a corpus to seed."""
    crash = tmp_path / "crash-deadbeef"
    crash.write_text('{"game": "marias"}')
    script = Path(__file__).resolve().parents[1] / "fuzz" / "atheris_documents.py"
    run = subprocess.run([sys.executable, str(script), str(crash)], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"Running: {crash}" in run.stderr and "Executed" in run.stderr, run.stderr[-2000:]
    assert crash.read_text() == '{"game": "marias"}'
    corpus = tmp_path / "corpus"
    run = subprocess.run([sys.executable, str(script), str(corpus), "-runs=50"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (corpus / "marias-hra.json").is_file()        # an empty folder is seeded with the examples
