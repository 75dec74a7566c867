"""How limits hold under hostile or unlucky conditions: python benchmarks/bench_limits.py [--rounds N]

1. A short timeout on the first search in a fresh Solver's large table (a fresh 36-card Mariasz
   deal: 1 GiB, whose pages the kernel hands over, zeroed, as the search first touches them):
   how long the call takes to raise SearchTimeout, against the timeout asked for.
   And a CancelToken cancelled from another thread during such a search (no timeout, so the
   table is the whole 1 GiB): how long after the cancel the call raises SearchCancelled,
   alone and with --parallel searches at once (a loaded machine).
2. The service's reading of an oversized Position message (hundreds of thousands of items fit
   in a request's 4 MB): how long until it is refused, with the lists counted before any item is
   converted (as the service does) and without (converting first, as it used to).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from _args import positive
from _machine import machine_line


def fresh_table_timeouts(ddcards: ModuleType, rounds: int) -> None:
    deal = dict(ddcards.example("mariasz"), played=[])
    print("| timeout asked | call took (median) | max | nodes searched (median) |")
    print("|---|---|---|---|")
    for timeout in (0.01, 0.1, 0.5):
        took, nodes = [], []
        for _ in range(rounds):
            solver = ddcards.Solver()            # a fresh table each round
            start = time.perf_counter()
            try:
                solver.solve(deal, timeout=timeout)
            except ddcards.SearchTimeout as stopped:
                nodes.append(stopped.nodes)
            took.append(time.perf_counter() - start)
            del solver
        print(f"| {timeout:g} s | {statistics.median(took):.3f} s | {max(took):.3f} s | "
              f"{statistics.median(nodes) if nodes else 0:,.0f} |")


def _cancel_latency(checkout: str | None, after: float) -> float:
    """In a process of its own (a fresh table each time): seconds from a cancel, `after` seconds
    into the first search of a fresh Solver, to its SearchCancelled."""
    import subprocess
    code = f"""
import sys, threading, time
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
if {checkout!r} is not None:
    from _checkout import import_checkout
    ddcards = import_checkout({checkout!r})
else:
    import ddcards
deal = dict(ddcards.example("mariasz"), played=[])
token = ddcards.CancelToken()
cancelled = []
def cancel():
    cancelled.append(time.perf_counter())
    token.cancel()
threading.Timer({after!r}, cancel).start()
try:
    ddcards.Solver().solve(deal, cancel=token)
except ddcards.SearchCancelled:
    print(time.perf_counter() - cancelled[0])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    return float(out.stdout)


def fresh_table_cancels(checkout: str | None, rounds: int, parallel: int) -> None:
    from concurrent.futures import ThreadPoolExecutor
    print("| cancelled after | searches at once | cancel to SearchCancelled (median) | max |")
    print("|---|---|---|---|")
    for after in (0.1, 0.5):
        for at_once in sorted({1, parallel}):
            with ThreadPoolExecutor(at_once) as pool:
                took = [t for _ in range(rounds)
                        for t in pool.map(lambda _: _cancel_latency(checkout, after), range(at_once))]
            print(f"| {after:g} s | {at_once} | {statistics.median(took) * 1e3:,.1f} ms | {max(took) * 1e3:,.1f} ms |")


def _refused_after(read: Any, ddcards: ModuleType) -> float:
    """The median of three times `read()` takes to read a request to its error (or its position)."""
    took = []
    for _ in range(3):
        start = time.perf_counter()
        try:
            ddcards.Position.from_dict(read())
        except ddcards.DdcardsError:
            pass
        took.append(time.perf_counter() - start)
    return statistics.median(took)


def oversized_messages() -> None:
    import ddcards
    from ddcards.server import convert
    from ddcards.v1 import ddcards_pb2 as pb

    ace = pb.Card(rank=pb.RANK_ACE, suit=pb.SUIT_SPADES)
    cases = {"200,000 options": dict(options={f"k{i}": pb.OptionValue(bool_value=True) for i in range(200_000)}),
             "300,000 played cards": dict(played=[pb.Action(card=ace)] * 300_000),
             "500,000 cards in a hand": dict(hands=[pb.Cards(cards=[ace] * 500_000)]),
             # every list within the 2,000 items, 600,000 cards in all (8 KB of gzip on the wire)
             "1,999 hands of 300 cards": dict(hands=[pb.Cards(cards=[ace] * 300)] * 1999)}
    counted = convert.requests.check_message_size     # (what position_to_doc calls)
    print("| message | lists counted first | refused after (median of 3) |")
    print("|---|---|---|")
    try:
        for name, fields in cases.items():
            msg = pb.Position(game_name="marias", **fields)
            for label, check in (("no (converted first)", lambda message, where: None), ("yes", counted)):
                convert.requests.check_message_size = check
                took = _refused_after(lambda: convert.position_to_doc(msg), ddcards)
                print(f"| {name} | {label} | {took * 1e3:,.1f} ms |")
    finally:
        convert.requests.check_message_size = counted
    # The same as one JSON text (document_json): 1,990 lists of 1,000 zeros, 4 MB.
    text = json.dumps({"game": "marias", "hands": [[0] * 1000] * 1990})
    separators = convert.requests._separators
    print()
    print("| document_json | items counted first | refused after (median of 3) |")
    print("|---|---|---|")
    try:
        for label, count in (("no (parsed first)", lambda text: 0), ("yes", separators)):
            convert.requests._separators = count
            took = _refused_after(lambda: convert.load_document(text), ddcards)
            print(f"| 1,990 lists of 1,000 zeros (4 MB) | {label} | {took * 1e3:,.1f} ms |")
    finally:
        convert.requests._separators = separators


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=positive, default=5, help="fresh Solvers per timeout")
    parser.add_argument("--parallel", type=positive, default=3,
                        help="searches at once for the loaded cancels (default 3, on any number of cores)")
    parser.add_argument("--checkout", help="time the timeouts and cancels of this checkout's in-place build "
                        "instead (benchmarks/_checkout.py); the messages part is then left out")
    args = parser.parse_args()
    print(f"{machine_line()}. Command: python benchmarks/bench_limits.py --rounds {args.rounds} "
          f"--parallel {args.parallel}{f' --checkout {args.checkout}' if args.checkout else ''}\n")
    if args.checkout:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _checkout import import_checkout
        fresh_table_timeouts(import_checkout(args.checkout), args.rounds)
        print()
        fresh_table_cancels(args.checkout, args.rounds, args.parallel)
        return
    import ddcards
    fresh_table_timeouts(ddcards, args.rounds)
    print()
    fresh_table_cancels(None, args.rounds, args.parallel)
    print()
    oversized_messages()


if __name__ == "__main__":
    main()
