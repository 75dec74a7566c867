"""Klaverjas solver benchmark over the fixed corpora (prints a Markdown report).

    python benchmarks/bench_klaverjas.py [--deals N] [--tables N] [--tt-mb MIB]

For each corpus (klaverjas-amsterdam and klaverjas-rotterdam: the bidders' deals of each rule
set; klaverjas-mixed: a random trump, playing team and rule set): the time of a full-deal
solve, cold (table cleared per deal), one core, in mode ``optimal`` (the value and every optimal
first card: the performance target) and in mode ``all`` (the exact value of every legal first
card, as the CLI answers by default).
"search" is the time in the C search (value, moves and principal variation); "call" adds
parsing the document and building the result.  Then the DD table (ddcards.ddtable.dd_table:
8 value searches, every trump suit for each playing team) on the first deals, on one
thread and on every CPU available (``--table-threads``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards.ddtable import available_threads, dd_table  # noqa: E402
from _args import count, positive, table_mb, thread_count  # noqa: E402
from _machine import machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
# The bidders' deals of each rule set, and random deals (random trump, playing team and rule set:
# the whole space, not the bidder's corner; benchmarks/make_corpus_klaverjas.py).
CORPORA = ("amsterdam", "rotterdam", "mixed")


def load(name: str, n: int) -> list[dict]:
    lines = (CORPUS / f"klaverjas-{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:n]]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def full_deals(n: int, mode: str, tt_mb: int) -> list[str]:
    engine = ddcards.Solver(tt_mb=tt_mb)
    rows = []
    for name in CORPORA:
        docs = load(name, n)
        search, call, nodes, made = [], [], [], 0
        for doc in docs:
            engine.clear()
            t = time.perf_counter()
            res = engine.solve(doc, mode=mode)
            call.append(time.perf_counter() - t)
            search.append(res.elapsed)
            nodes.append(res.nodes)
            made += res.won
        rate = sum(nodes) / sum(search) / 1e6
        rows.append(f"| {name} | {mode} | {len(docs)} | {made} | {statistics.median(search) * 1e3:.1f} ms | "
                    f"{pct(search, 0.9) * 1e3:.1f} ms | {max(search) * 1e3:.1f} ms | "
                    f"{statistics.median(call) * 1e3:.1f} ms | {statistics.median(nodes):,.0f} | {rate:.1f} M |")
    return rows


def tables(n: int, tt_mb: int, threads: int) -> list[str]:
    engine = ddcards.Solver(tt_mb=tt_mb)
    rows = []
    for name in CORPORA:
        times, nodes = [], []
        for doc in load(name, n):
            t = time.perf_counter()
            table = dd_table(doc, solver=engine, threads=threads)
            times.append(time.perf_counter() - t)
            nodes.append(table["nodes"])
        rows.append(f"| {name} | {threads} | {len(times)} | {statistics.median(times) * 1e3:.0f} ms | "
                    f"{pct(times, 0.9) * 1e3:.0f} ms | {max(times) * 1e3:.0f} ms | "
                    f"{statistics.median(nodes):,.0f} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=200, help="deals of each corpus (default 200)")
    ap.add_argument("--tables", type=count, default=40, help="deals per corpus for the DD table (0: none)")
    ap.add_argument("--tt-mb", type=table_mb, default=ddcards.api.DEFAULT_TT_MB,
                    help="transposition table per Solver in MiB (default: sized per game, as the library does)")
    ap.add_argument("--table-threads", type=thread_count, nargs="+", default=None, metavar="N",
                    help="threads for the DD tables (default: 1 and every CPU available)")
    args = ap.parse_args()
    table_threads = args.table_threads or sorted({1, available_threads()})
    table = "sized per game" if args.tt_mb is None else f"{args.tt_mb} MiB"
    print(f"{machine_line()}; full deals on one search thread; table {table} per Solver. Command: python "
          f"benchmarks/bench_klaverjas.py --deals {args.deals} --tables {args.tables} "
          f"{'' if args.tt_mb is None else f'--tt-mb {args.tt_mb} '}"
          f"--table-threads {' '.join(map(str, table_threads))}\n")
    print("| corpus | mode | deals | made | search median | p90 | max | call median | nodes median | nodes/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode in ("optimal", "all"):
        print("\n".join(full_deals(args.deals, mode, args.tt_mb)))
    if not args.tables:
        return                          # --tables 0: no DD tables
    print()
    print("| DD table (8 value searches) | threads | deals | median | p90 | max | nodes median |")
    print("|---|---|---|---|---|---|---|")
    for threads in table_threads:
        print("\n".join(tables(args.tables, args.tt_mb, threads)))


if __name__ == "__main__":
    main()
