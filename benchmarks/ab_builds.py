"""Two builds side by side on the same positions, each position's least time over R rounds.

    python benchmarks/ab_builds.py OLD NEW SET [SET ...] [--rounds R] [--mode all] [--tt-mb MIB]
                                   [--threads N] [--table THREADS]

OLD and NEW are checkouts with an in-place build (``python setup.py build_ext --inplace``), each
served by a worker process of its own. A SET is ``CORPUS:N``, the first N documents of
``benchmarks/corpus/CORPUS.jsonl`` (e.g. ``marias-hra:200``, ``mariasz-szlifowany:20``), or
``klaverjas-random:SEED:N``, N random Klaverjas layouts drawn as ``bench_dds.py`` draws them.

Each round goes over every position, the two workers taking turns on each (which goes first
alternates); each solve is cold (the table cleared) and follows another position's.  With
``--table THREADS`` each position is a deal whose DD table (``dd_table``) is timed instead, on
that many threads. For every
position and build the least search time of the R rounds counts: what the search itself costs,
without the host's hiccups, which move single runs on a shared VM by 10-30% and hide the few per
cent a change to the search is worth (benchmarks/RESULTS.md, "The table's bucket fetched early in
Mariáš ..."). Printed per set: the nodes of each build (the same search on one thread gives the
same sum; on several, the threads' timing moves it a little),
whether the answers agree, the median of the least times, and NEW / OLD as the median of the
per-position ratios, the ratio of the sums and, for the spread, each round's ratio of sums.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _args import count, positive, table_mb, thread_count

HERE = Path(__file__).resolve()
CORPUS = HERE.parent / "corpus"
BAD_SET = "a set is CORPUS:N or klaverjas-random:SEED:N (whole numbers, N at least 1), not {!r}"


def documents(spec: str) -> list[dict]:
    """The positions of a SET (see the module's docstring); ValueError names a bad one."""
    parts = spec.split(":")
    if parts[0] == "klaverjas-random" and len(parts) == 3:
        if not (parts[1].lstrip("-").isdigit() and parts[2].isdigit() and int(parts[2]) > 0):
            raise ValueError(BAD_SET.format(spec))
        sys.path.insert(0, str(HERE.parent))
        from bench_dds import random_layout
        rng = random.Random(int(parts[1]))
        return [random_layout(rng) for _ in range(int(parts[2]))]
    if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) == 0:
        raise ValueError(BAD_SET.format(spec))
    path = CORPUS / f"{parts[0]}.jsonl"
    if not path.exists():
        raise ValueError(f"no corpus {path.name} in {CORPUS}")
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [json.loads(line) for line in lines[:int(parts[1])]]


def table_threads(text: str) -> int:
    """--table's THREADS: 0 (each position solved, no table) or a thread count the library takes."""
    return count(text) and thread_count(text)


def check_tables(sets: dict[str, list[dict]]) -> str | None:
    """Why a set's position has no DD table (a Prší or Mariasz one, a deal with cards played), or None."""
    from ddcards.ddtable import table_job
    from ddcards.errors import DdcardsError

    for spec, docs in sets.items():
        for i, doc in enumerate(docs, 1):
            try:
                table_job(doc)                      # validated only: no search
            except DdcardsError as exc:
                return f"{spec}: position {i} has no DD table: {exc}"
    return None


def worker(repo: str, mode: str, tt_mb: int | None, table: int, threads: int) -> None:
    """One build's side: solves each document it reads (or its DD table, `table` threads); one
    JSON line each (seconds, nodes, answer)."""
    sys.path.insert(0, str(HERE.parent))
    from _checkout import import_checkout
    ddcards = import_checkout(repo)
    solver = ddcards.Solver() if tt_mb is None else ddcards.Solver(tt_mb=tt_mb)
    for line in sys.stdin:
        if table:
            from ddcards.ddtable import dd_table
            start = time.perf_counter()
            got = dd_table(json.loads(line), solver=solver, threads=table)
            # Klaverjas's table holds "values", the Mariáš contract table "entries"
            seconds, nodes = time.perf_counter() - start, got["nodes"]
            answer = repr(got["values"] if "values" in got else got["entries"])
        else:
            result = solver.solve(json.loads(line), mode=mode, threads=threads)
            seconds, nodes = result.elapsed, result.nodes
            answer = repr((result.value, sorted((m.move, m.value) for m in result.moves)))
        print(json.dumps([seconds, nodes, hashlib.sha256(answer.encode()).hexdigest()[:16]]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("old", metavar="OLD")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("sets", nargs="+", metavar="SET")
    parser.add_argument("--rounds", type=positive, default=10, metavar="R", help="rounds over the positions (default 10)")
    parser.add_argument("--mode", default="all", choices=("best", "optimal", "all"))
    parser.add_argument("--tt-mb", type=table_mb, default=None, metavar="MIB",
                        help="a fixed table size (default: sized per game, as the Solver sizes it)")
    # (past the library's range, or a table of a game without one, each worker stopped with a traceback)
    parser.add_argument("--threads", type=thread_count, default=1, metavar="N",
                        help="threads for each solve (default 1)")
    parser.add_argument("--table", type=table_threads, default=0, metavar="THREADS",
                        help="time each deal's DD table on THREADS threads instead of a solve")
    parser.add_argument("--worker", metavar="REPO", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.mode, args.tt_mb, args.table, args.threads)
        return
    try:
        sets = {spec: documents(spec) for spec in args.sets}        # every set read before any is run
    except ValueError as exc:
        parser.error(str(exc))
    if args.table and (why := check_tables(sets)) is not None:
        parser.error(f"argument --table: {why}")
    sys.path.insert(0, str(HERE.parent))
    from _machine import machine_line

    repos = [str(Path(r).resolve()) for r in (args.old, args.new)]
    command = (f"python benchmarks/ab_builds.py {args.old} {args.new} {' '.join(args.sets)} --rounds {args.rounds} "
               f"--mode {args.mode}" + (f" --tt-mb {args.tt_mb}" if args.tt_mb else "")
               + (f" --threads {args.threads}" if args.threads != 1 else "")
               + (f" --table {args.table}" if args.table else ""))
    print(f"{machine_line()}. Command: {command}\n")
    extra = ["--mode", args.mode, "--table", str(args.table), "--threads", str(args.threads)] + (["--tt-mb", str(args.tt_mb)] if args.tt_mb else [])
    workers = [subprocess.Popen([sys.executable, str(HERE), "x", "y", "z", "--worker", repo, *extra],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for repo in repos]
    print("| set | nodes OLD | nodes NEW | answers | OLD median | NEW median | NEW / OLD, median of ratios | "
          "ratio of sums | each round's ratio of sums |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    try:
        for spec, docs in sets.items():
            best = [[float("inf")] * len(docs) for _ in workers]
            rounds: list[list[float]] = [[0.0, 0.0] for _ in range(args.rounds)]
            nodes, answers = [[0] * len(docs) for _ in workers], [[""] * len(docs) for _ in workers]
            for r in range(args.rounds):
                for i, doc in enumerate(docs):
                    line = json.dumps(doc) + "\n"
                    for k in ((0, 1) if (i + r) % 2 == 0 else (1, 0)):
                        workers[k].stdin.write(line)
                        workers[k].stdin.flush()
                        got = workers[k].stdout.readline()
                        if not got:
                            raise SystemExit(f"ab_builds.py: the worker of {repos[k]} stopped")
                        seconds, nodes[k][i], answers[k][i] = json.loads(got)
                        best[k][i] = min(best[k][i], seconds)
                        rounds[r][k] += seconds
            same = "the same" if answers[0] == answers[1] else \
                f"DIFFER at {sum(a != b for a, b in zip(*answers))} position(s)"
            ratios = [b / a for a, b in zip(*best) if a > 0]
            spread = ", ".join(f"{new / old:.3f}" for old, new in rounds)
            print(f"| {spec} ({len(docs)}) | {sum(nodes[0]):,} | {sum(nodes[1]):,} | {same} | "
                  f"{statistics.median(best[0]) * 1e3:.3f} ms | {statistics.median(best[1]) * 1e3:.3f} ms | "
                  f"{statistics.median(ratios):.3f} | {sum(best[1]) / sum(best[0]):.3f} | {spread} |", flush=True)
    finally:
        for w in workers:
            w.stdin.close()
            w.wait()


if __name__ == "__main__":
    main()
