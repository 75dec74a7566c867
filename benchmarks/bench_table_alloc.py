"""A fresh Solver's first large table: how long the call takes and how long it holds the GIL.

    python benchmarks/bench_table_alloc.py [--rounds 3] [--timeout 0.1] [CHECKOUT]

Each round makes a new ``ddcards.Solver`` (sized per game) and asks it for the value of a
fresh 36-card Mariasz deal (a 1 GiB table; a search of minutes) with a short timeout, while
another Python thread wakes every 5 ms.  Reported per round: the call's wall time (the timeout
should end it soon after ``--timeout``) and the longest the other thread waited between two
wake-ups (the GIL held, or the process stalled).  CHECKOUT: another checkout's in-place build
(``benchmarks/_checkout.py``), e.g. to compare with an older commit; default this one.
"""
from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path
from _args import positive, seconds  # noqa: E402
from _machine import machine_line  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def fresh_deal(seed: int) -> dict:
    deck = [r + s for s in "SHDC" for r in "6789TJQKA"]
    random.Random(seed).shuffle(deck)
    return {"game": "mariasz", "hands": [" ".join(deck[:6]), " ".join(deck[6:12])], "stock": " ".join(deck[12:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", nargs="?", default=None)
    ap.add_argument("--rounds", type=positive, default=3)
    ap.add_argument("--timeout", type=seconds, default=0.1)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    from _checkout import import_checkout
    ddcards = import_checkout(args.checkout or str(HERE.parent))
    deal = ddcards.Position.from_dict(fresh_deal(args.seed))
    gaps: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    print(f"{machine_line()}. "
          f"Command: python benchmarks/bench_table_alloc.py --rounds {args.rounds} --timeout {args.timeout:g} "
          f"--seed {args.seed}{f' {args.checkout}' if args.checkout else ''}; table {deal.table_mb} MiB\n")
    print("| round | call | longest wait of another thread |")
    print("|---|---|---|")
    try:
        for r in range(1, args.rounds + 1):
            solver = ddcards.Solver()
            gaps.clear()
            start = time.perf_counter()
            try:
                solver.value(deal, timeout=args.timeout)
            except ddcards.SearchTimeout:
                pass
            took = time.perf_counter() - start
            print(f"| {r} | {took * 1e3:.0f} ms | {max(gaps, default=0) * 1e3:.0f} ms |", flush=True)
            del solver
    finally:
        stop.set()
        ticker.join()


if __name__ == "__main__":
    main()
