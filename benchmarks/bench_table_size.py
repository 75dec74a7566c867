"""Table sizes side by side: the old default (2 MiB for every game), the table sized per game
(the default since issue 11) and fixed sizes, on the same positions in one run.

    python benchmarks/bench_table_size.py [--quick]
    python benchmarks/bench_table_size.py --sizes 16 32 64   # Mariasz's sets only, fixed sizes

Each set-up is a ``ddcards.Solver`` searching as ``Solver.solve`` does (its table sized by
the Solver, cleared per position, every first card's value: mode "all", one thread); the
set-ups take turns on each position, so that what else runs on the machine hits each alike.
Nodes are exact (Mariasz: the core's plus its phase-2 endgame search's); CPU is the thread's
CPU time of the search.  "per game, grown" is a Solver sized per game that has searched a
Mariasz deal before: its memory stays at Mariasz's 32 MiB, but since 2026-12-01 each search
uses only its own game's part of it (``Searcher.use``), so this row searches the same nodes as
"per game" (a check that a Solver serving several games searches each as a fresh one would).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards._core.search import MODE_ALL  # noqa: E402
from _args import table_mb  # noqa: E402
from _machine import machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def stock_left(doc: dict) -> int:
    return len(doc["stock"].split()) - sum(action != "exchange" for action in doc["played"])


def grown() -> ddcards.Solver:
    solver = ddcards.Solver()
    solver.value(ddcards.example("mariasz-phase2"))      # a Mariasz search: the table grows to 32 MiB
    return solver


SETUPS: dict[str, Callable[[], ddcards.Solver]] = {
    "2 MiB, the old default": lambda: ddcards.Solver(tt_mb=2),
    "per game, the new default": ddcards.Solver,
    "per game, grown": grown,
    "32 MiB fixed": lambda: ddcards.Solver(tt_mb=32),
}


def search(solver: ddcards.Solver, doc: dict) -> tuple[float, int, tuple]:
    """(CPU seconds, nodes, answer) of a cold 'all' search, as Solver.solve runs it."""
    pos = ddcards.Position.from_dict(doc)
    session = pos.session()
    solver._fit_table(pos)
    solver._searcher.clear()
    start = time.thread_time()
    value, moves, _, nodes = session.search(solver._searcher, MODE_ALL, None, None)
    spent = time.thread_time() - start
    return spent, nodes, (value, sorted(moves))     # the core counts Mariasz's endgame in (GameOps.own_nodes)


def measure(name: str, docs: list[dict], setups: list[str]) -> None:
    solvers = {label: SETUPS[label]() for label in setups}
    cpu: dict[str, list[float]] = {label: [] for label in setups}
    nodes: dict[str, list[int]] = {label: [] for label in setups}
    answers: dict[str, list[tuple]] = {label: [] for label in setups}
    for i, doc in enumerate(docs):
        turn = setups[i % len(setups):] + setups[:i % len(setups)]
        for label in turn:
            spent, n, answer = search(solvers[label], doc)
            cpu[label].append(spent)
            nodes[label].append(n)
            answers[label].append(answer)
    base = setups[0]
    for label in setups:
        same = "the same" if answers[label] == answers[base] else "DIFFER"
        print(f"| {name} ({len(docs)}) | {label} | {solvers[label].tt_mb} MiB | {sum(nodes[label]):,} | "
              f"{sum(nodes[label]) / sum(nodes[base]) - 1:+.1%} | {statistics.median(nodes[label]):,.0f} | "
              f"{statistics.median(cpu[label]) * 1e3:.1f} ms | {sum(cpu[label]):.2f} s | "
              f"{sum(cpu[label]) / sum(cpu[base]) - 1:+.1%} | {same} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few positions of each set (a smoke run)")
    ap.add_argument("--sizes", type=table_mb, nargs="+", metavar="MIB",
                    help="Mariasz's sets only, with these fixed table sizes (which size Mariasz wants)")
    args = ap.parse_args()
    q = 2 if args.quick else 1
    ladder = load("mariasz-ladder")
    mariasz_sets = {
        f"Mariasz szlifowany, from the first trick (1-{20 // q // q})": load("mariasz-szlifowany")[:20 // q // q],
        "Mariasz 36 cards, 12 left in the stock": [d for d in ladder if stock_left(d) == 12][:10 // q // q],
        "Mariasz 36 cards, 14 left in the stock": [d for d in ladder if stock_left(d) == 14][:6 // q // q],
        f"Mariasz Kiks, from the first trick (1-{10 // q // q})": load("mariasz-kiks")[:10 // q // q],
    }
    small_sets = {
        f"Mariáš hra, full deals (1-{100 // q})": load("marias-hra")[:100 // q],
        f"Mariáš betl, full deals (1-{100 // q})": load("marias-betl")[:100 // q],
        f"Klaverjas amsterdam, full deals (1-{20 // q})": load("klaverjas-amsterdam")[:20 // q],
    }
    print(f"{machine_line()}; "
          f"one search thread. Command: python benchmarks/bench_table_size.py{' --quick' if args.quick else ''}"
          f"{' --sizes ' + ' '.join(map(str, args.sizes)) if args.sizes else ''}\n")
    print("| positions | set-up | table | nodes total | against the first | nodes median | CPU median | CPU total | "
          "against the first | answers |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    if args.sizes:
        for mib in args.sizes:
            SETUPS[f"{mib} MiB fixed"] = lambda mib=mib: ddcards.Solver(tt_mb=mib)
        for name, docs in mariasz_sets.items():
            measure(name, docs, [f"{mib} MiB fixed" for mib in args.sizes])
        return
    for name, docs in mariasz_sets.items():
        measure(name, docs, ["2 MiB, the old default", "per game, the new default", "32 MiB fixed"])
    for name, docs in small_sets.items():
        measure(name, docs, ["2 MiB, the old default", "per game, the new default", "per game, grown"])


if __name__ == "__main__":
    main()
