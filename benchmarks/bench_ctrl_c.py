"""What Ctrl-C's take-over costs a search: python benchmarks/bench_ctrl_c.py [--calls N] [--rounds R]

A search on Python's main thread takes SIGINT over while it runs and gives it back after
(solver/_core/sigint.h: two sigaction calls and a look at Python's handler); one on another
thread does nothing of the kind.  The same tiny search (a Klaverjas deal four cards from its
end: a few nodes, where the cost shows most) is timed on the main thread and on another, in
turn, each round the median of N calls; the difference of the medians is the take-over's cost.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ddcards  # noqa: E402
from ddcards._core.search import MODE_ALL, Searcher  # noqa: E402

from _args import positive  # noqa: E402
from _machine import command_line, machine_line  # noqa: E402


def median_call_us(searcher: Searcher, board: object, calls: int) -> float:
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        searcher.solve(board, MODE_ALL)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--calls", type=positive, default=20_000, help="searches a round, per thread (default 20,000)")
    parser.add_argument("--rounds", type=positive, default=7, help="rounds, the threads in turn (default 7)")
    args = parser.parse_args()
    deal = ddcards.example("klaverjas")
    played = ddcards.solve(deal, mode="best").pv[:28]
    board = ddcards.Position.from_dict(dict(deal, played=played)).session().board
    searcher = Searcher(2)
    # (before the rounds: the load average is then the machine's, not this run's own)
    print(f"{machine_line()}. Command: {command_line()}\n", flush=True)
    main_us, other_us = [], []
    for _ in range(args.rounds):
        main_us.append(median_call_us(searcher, board, args.calls))
        got: list[float] = []
        other = threading.Thread(target=lambda: got.append(median_call_us(searcher, board, args.calls)))
        other.start()
        other.join()
        other_us.append(got[0])
    print(f"A search of {searcher.nodes} nodes, {args.calls:,} calls a round, {args.rounds} rounds "
          "(each round's median call):\n")
    print("| thread | each round (us) | median |")
    print("|---|---|---|")
    for name, times in (("main (SIGINT taken over)", main_us), ("another", other_us)):
        print(f"| {name} | {' / '.join(f'{t:.2f}' for t in times)} | {statistics.median(times):.2f} us |")
    print(f"\nThe take-over: {statistics.median(main_us) - statistics.median(other_us):+.2f} us a search")


if __name__ == "__main__":
    main()
