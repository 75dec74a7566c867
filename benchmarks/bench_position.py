"""What the Position API costs: building a position, moving, and reading what it shows.

    python benchmarks/bench_position.py [--deals 50] [--repeat 5]

Deals: the first ``--deals`` of benchmarks/corpus/marias-hra.jsonl and klaverjas-amsterdam.jsonl, each
played along a seeded random legal line.  For each operation the script times every deal
``--repeat`` times and prints the median per call, in microseconds:

- ``from_dict`` a position document with 0, half, all cards played (validates and replays
  the history);
- ``play`` one card and ``undo`` one (each builds a new, validated Position);
- the views of a fresh position (``hands``, ``trick``, ``score``: read once, then kept) and
  ``str()`` (the table it draws).

No search runs here: these are the costs around a solve (a full Mariáš deal solves in a few ms).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import ddcards
from _args import positive
from _machine import machine_line

CORPUS = Path(__file__).resolve().parent / "corpus"


def deals(name: str, count: int) -> list[dict]:
    with open(CORPUS / name, encoding="utf-8") as fh:
        return [json.loads(line) for line, _ in zip(fh, range(count))]


def played_out(doc: dict, seed: int) -> list[str]:
    """A seeded random legal line to the end of the deal."""
    rng = random.Random(seed)
    pos = ddcards.Position.from_dict(dict(doc, played=[]))
    while not pos.is_over:
        pos = pos.play(rng.choice(pos.legal_moves))
    return list(pos.played)


def per_call(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of one call over `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(docs: list[dict], repeat: int) -> dict[str, float]:
    lines = [played_out(doc, seed) for seed, doc in enumerate(docs)]
    samples: dict[str, list[float]] = {}

    def add(name: str, fn: Callable[[], object]) -> None:
        samples.setdefault(name, []).append(per_call(fn, repeat))

    for doc, line in zip(docs, lines):
        half = len(line) // 2
        for label, n in (("from_dict, nothing played", 0), ("from_dict, half played", half),
                         ("from_dict, all played", len(line))):
            d = dict(doc, played=line[:n])
            add(label, lambda d=d: ddcards.Position.from_dict(d))
        pos = ddcards.Position.from_dict(dict(doc, played=line[:half]))
        add("play (half played)", lambda pos=pos, card=line[half]: pos.play(card))
        add("undo (half played)", pos.undo)
        d = dict(doc, played=line[:half])
        fresh = [ddcards.Position.from_dict(d) for _ in range(repeat)]
        views = iter(fresh)
        add("hands+trick+score, first read", lambda: (lambda p: (p.hands, p.trick, p.score))(next(views)))
        add("str()", lambda pos=pos: str(pos))
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=positive, default=50, help="deals (default 50)")
    parser.add_argument("--repeat", type=positive, default=5)
    args = parser.parse_args(argv)
    print(f"{machine_line()}. Command: python benchmarks/bench_position.py --deals {args.deals} "
          f"--repeat {args.repeat}\n")
    for corpus in ("marias-hra.jsonl", "klaverjas-amsterdam.jsonl"):
        docs = deals(corpus, args.deals)
        results = measure(docs, args.repeat)
        print(f"{corpus} ({len(docs)} deals, median per call)")
        for name, seconds in results.items():
            print(f"  {name:<32} {seconds * 1e6:8.1f} us")


if __name__ == "__main__":
    main()
