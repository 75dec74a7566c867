"""Mariáš contract table benchmark (docs/RULES.md §1.13; prints a Markdown report).

    python benchmarks/bench_marias_table.py [--deals N] [--threads N ...] [--tt-mb MIB] [--unshared N]

The deals are the Hra corpus's (benchmarks/corpus/marias-hra.jsonl), each taken two ways:

- **as dealt**: forehand's 12 cards (his 10 and the talon he discarded) and the defenders' 10,
  every legal discard × contract (about 60 discards × 6 contracts): the issue's target is a
  median of at most 1 s on 2 threads;
- **discard fixed**: the corpus document itself (10 + 10 + 10 and the talon), every contract
  of that discard: target at most 30 ms on 2 threads.

Each table is one ``dd_table`` call, as the API, the CLI and the service make it (the
validation and the answer included), its Solvers cleared first.  On one thread the report
also gives the CPU time the calling thread spent (``time.thread_time``): on a machine shared
with other work it stays close to what the table costs on a quiet one, where the wall time
does not.  ``--unshared N`` also times
the first N dealt tables with nothing shared between discards (``run_job(share=False)``: a cold
table for every search, no answers shared between equivalent discards, no guesses), on one
thread, to show what the sharing saves.
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
from ddcards._core.search import Searcher  # noqa: E402
from ddcards.ddtable import available_threads, dd_table  # noqa: E402
from ddcards.games import marias_table  # noqa: E402
from ddcards.notation import format_hand, parse_cards, parse_hand  # noqa: E402
from _args import count, positive, table_mb, thread_count  # noqa: E402
from _machine import machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus" / "marias-hra.jsonl"


def load(n: int) -> list[tuple[dict, dict]]:
    """(as dealt, discard fixed) documents of the first `n` corpus deals."""
    out = []
    for line in CORPUS.read_text().splitlines()[:n]:
        doc = json.loads(line)
        forehand = [*parse_hand(doc["hands"][0]), *parse_cards(doc["talon"])]
        dealt = {"game": "marias", "hands": [format_hand(forehand), doc["hands"][1], doc["hands"][2]]}
        fixed = {k: doc[k] for k in ("game", "hands", "talon")}
        out.append((dealt, fixed))
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def timed(docs: list[dict], threads: int, tt_mb: int) -> tuple[list[float], list[int], list[int], list[float]]:
    """Wall times, nodes, rows and the calling thread's CPU times of the tables of `docs`."""
    engine = ddcards.Solver(tt_mb=tt_mb)
    times, nodes, rows, cpu = [], [], [], []
    for doc in docs:
        c = time.thread_time()
        t = time.perf_counter()
        table = dd_table(doc, solver=engine, threads=threads)
        times.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
        nodes.append(table["nodes"])
        rows.append(len(table["entries"]))
    return times, nodes, rows, cpu


def unshared(docs: list[dict], tt_mb: int | None) -> tuple[list[float], list[int]]:
    times, nodes = [], []
    # None: the size a Solver gives a Mariáš position (the library's per-game default)
    searcher = Searcher(tt_mb if tt_mb is not None else ddcards.Position.from_dict(ddcards.example("marias-hra")).table_mb)
    for doc in docs:
        deal = marias_table.parse_table_deal(doc)
        t = time.perf_counter()
        table = marias_table.run_table(deal, lambda jobs: [marias_table.run_job(job, deal, searcher, share=False)
                                                           for job in jobs])
        times.append(time.perf_counter() - t)
        nodes.append(table["nodes"])
    return times, nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=50, help="deals (default 50)")
    ap.add_argument("--threads", type=thread_count, nargs="+", default=None, metavar="N",
                    help="threads per table (default: 1 and every CPU available)")
    ap.add_argument("--tt-mb", type=table_mb, default=ddcards.api.DEFAULT_TT_MB,
                    help="transposition table per Solver in MiB (default: sized per game, as the library does)")
    ap.add_argument("--unshared", type=count, default=0, metavar="N",
                    help="also time the first N dealt tables with nothing shared between discards")
    args = ap.parse_args()
    threads = args.threads or sorted({1, available_threads()})
    deals = load(args.deals)
    table = "sized per game" if args.tt_mb is None else f"{args.tt_mb} MiB"
    print(f"{machine_line()}; table {table} per Solver. Command: python "
          f"benchmarks/bench_marias_table.py --deals {args.deals} --threads {' '.join(map(str, threads))}"
          + ("" if args.tt_mb is None else f" --tt-mb {args.tt_mb}")
          + (f" --unshared {args.unshared}" if args.unshared else "") + "\n")
    print("| table | threads | deals | rows median | median | p90 | max | CPU median (1 thread) | nodes median |")
    print("|---|---|---|---|---|---|---|---|---|")
    medians = {}
    for kind, index in (("as dealt", 0), ("discard fixed", 1)):
        docs = [pair[index] for pair in deals]
        for n in threads:
            times, nodes, rows, cpu = timed(docs, n, args.tt_mb)
            medians[kind, n] = statistics.median(times)
            cpu_text = f"{statistics.median(cpu) * 1e3:.1f} ms" if n == 1 else "–"
            print(f"| {kind} | {n} | {len(docs)} | {statistics.median(rows):.0f} | "
                  f"{statistics.median(times) * 1e3:.1f} ms | {pct(times, 0.9) * 1e3:.1f} ms | "
                  f"{max(times) * 1e3:.1f} ms | {cpu_text} | {statistics.median(nodes):,.0f} |")
    if args.unshared:
        docs = [pair[0] for pair in deals[:args.unshared]]
        shared_times, shared_nodes, _, _ = timed(docs, 1, args.tt_mb)
        times, nodes = unshared(docs, args.tt_mb)
        print(f"\n| as dealt, 1 thread, {len(docs)} deals | median | p90 | max | nodes median |")
        print("|---|---|---|---|---|")
        for label, t, ns in (("shared (the table's way)", shared_times, shared_nodes),
                             ("nothing shared", times, nodes)):
            print(f"| {label} | {statistics.median(t) * 1e3:.1f} ms | {pct(t, 0.9) * 1e3:.1f} ms | "
                  f"{max(t) * 1e3:.1f} ms | {statistics.median(ns):,.0f} |")
    if 2 in threads:
        dealt, fixed = medians["as dealt", 2], medians["discard fixed", 2]
        print(f"\nTargets on 2 threads: as dealt median {dealt * 1e3:.0f} ms (≤ 1 s: "
              f"{'met' if dealt <= 1 else 'NOT met'}), discard fixed median {fixed * 1e3:.1f} ms (≤ 30 ms: "
              f"{'met' if fixed <= 0.030 else 'NOT met'}).")


if __name__ == "__main__":
    main()
