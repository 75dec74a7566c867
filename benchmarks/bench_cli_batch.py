"""A long JSON Lines batch with bad lines mixed in, through the real `ddcards solve` (issue 10).

Writes N lines (every 10th a bad one, of 10 kinds: not JSON, not UTF-8, a 5,000-digit
number, deep nesting, a lone surrogate, an illegal card, a stake out of range, ...; the
others small Mariáš endgames so that the run takes minutes), runs
``ddcards solve FILE --json --mode best`` under ``/usr/bin/time -v`` and checks that every
good line got its value under its own line number and every bad one an error record.
Prints the peak RSS and the wall time: the memory must not grow with N.

    python benchmarks/bench_cli_batch.py 10000 100000
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import ddcards
from _args import positive
from _machine import machine_line

SEED = ddcards.example("marias-seed")
BAD = [b"{not json", b'{"game": "mari\xe1s"}', b'{"game": "marias", "flek": ' + b"1" * 5000 + b"}",
       b"[" * 2000, b'{"game": "\\ud800"}', json.dumps(dict(SEED, played=SEED["played"][:24] + ["ZZ"])).encode(),
       json.dumps(dict(SEED, objective="kilo", played=[], options={"kilo_value": 2 ** 62})).encode(),
       b'{"game": "marias", "flek": NaN}', b"\x0c", b"[]"]


def endgames() -> list[tuple[bytes, int]]:
    """Small positions: the seed deal with 24 to 29 cards played (1 to 2 tricks left)."""
    out = []
    for cut in range(24, 30):
        doc = dict(SEED, played=SEED["played"][:cut])
        out.append((json.dumps(doc).encode(), ddcards.solve(doc, mode="best").value))
    return out


def main(sizes: list[int]) -> None:
    print(f"{machine_line()}. Command: python benchmarks/bench_cli_batch.py {' '.join(map(str, sizes))}\n", flush=True)
    good = endgames()
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "batch.jsonl")
            expected = {}
            with open(path, "wb") as fh:
                for i in range(1, n + 1):
                    if i % 10 == 0:
                        fh.write(BAD[(i // 10) % len(BAD)] + b"\n")
                        expected[i] = None
                    else:
                        line, value = good[i % len(good)]
                        fh.write(line + b"\n")
                        expected[i] = value
            out_path = os.path.join(tmp, "out.jsonl")
            with open(out_path, "wb") as out:
                proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "ddcards", "solve", path,
                                       "--json", "--mode", "best"], stdout=out, stderr=subprocess.PIPE)
            err = proc.stderr.decode()
            rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
            wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err).group(1)
            answered = errors = 0
            with open(out_path, "rb") as fh:
                for raw in fh:
                    rec = json.loads(raw.decode("utf-8"))
                    want = expected.pop(rec["line"])
                    if want is None:
                        assert "error" in rec and rec["error_type"] != "InternalError", rec
                        errors += 1
                    else:
                        assert rec["value"] == want, rec
                        answered += 1
            assert not expected, f"lines without an answer: {sorted(expected)[:10]}"
            # exit status 2 when some line was bad (every 10th: none below 10 lines), else 0
            assert proc.returncode == (2 if n >= 10 else 0), f"exit status {proc.returncode}: {err[-2000:]}"
            print(f"{n:>7} lines: {answered} answered, {errors} error records, exit {proc.returncode}, "
                  f"peak RSS {rss / 1024:.1f} MiB, wall {wall}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("lines", nargs="*", type=positive, default=[10_000, 100_000],
                        help="batch sizes to run, in lines (default 10000 100000)")
    main(parser.parse_args().lines)
