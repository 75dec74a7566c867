"""How limits hold under hostile or unlucky conditions: python benchmarks/bench_limits.py [--rounds N]

1. A short timeout on the first search in a fresh Solver's large table (a fresh 36-card Mariasz
   deal: 1 GiB, whose pages the kernel hands over, zeroed, as the search first touches them):
   how long the call takes to raise SearchTimeout, against the timeout asked for.
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
    parser.add_argument("--checkout", help="time the timeouts of this checkout's in-place build instead "
                        "(benchmarks/_checkout.py); the messages part is then left out")
    args = parser.parse_args()
    print(f"{machine_line()}. Command: python benchmarks/bench_limits.py --rounds {args.rounds}"
          f"{f' --checkout {args.checkout}' if args.checkout else ''}\n")
    if args.checkout:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _checkout import import_checkout
        fresh_table_timeouts(import_checkout(args.checkout), args.rounds)
        return
    import ddcards
    fresh_table_timeouts(ddcards, args.rounds)
    print()
    oversized_messages()


if __name__ == "__main__":
    main()
