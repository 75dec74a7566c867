"""Mariáš solver benchmark over the fixed corpora (prints a Markdown report).

    python benchmarks/bench_marias.py [--deals N] [--reference-positions N] [--repeat R]

For each corpus (Hra, Betl, Durch as bid, and the mixed one): the time of a full-deal solve as the CLI answers by default
(the value and every legal first card's exact value, plus the principal
variation), cold (table cleared per deal), one core.  "search" is the time in
the C search; "call" adds parsing the document and building the result.
``--repeat R`` goes over each corpus R times and keeps each deal's least times: the search's
own cost without the host's hiccups (benchmarks/bench_threads.py does the same).
Then the speed-up over the plain-Python reference (tests/reference) on
endgames it can finish, measured side by side on the same positions.
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from tests.reference import marias as reference  # noqa: E402
from _args import count, positive  # noqa: E402
from _machine import machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"


def load(contract: str, n: int) -> list[dict]:
    lines = (CORPUS / f"marias-{contract}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:n]]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def full_deals(n: int, repeat: int = 1) -> list[str]:
    engine = ddcards.Solver()
    rows = ["| contract | deals | made | search median | p90 | max | call median | nodes median | nodes/s |",
            "|---|---|---|---|---|---|---|---|---|"]
    # "mixed": random trumps, discards, objectives, announcements, options, stakes, flek and players
    # (benchmarks/make_corpus.py), the space users ask about beyond the bidder's choices.
    for contract in ("hra", "betl", "durch", "mixed"):
        docs = load(contract, n)
        search, call = [float("inf")] * len(docs), [float("inf")] * len(docs)
        nodes, won = [0] * len(docs), [False] * len(docs)
        for _ in range(repeat):         # rounds over the corpus: each solve follows another deal's
            for i, doc in enumerate(docs):
                t = time.perf_counter()
                res = engine.solve(doc, mode="all")
                call[i] = min(call[i], time.perf_counter() - t)
                search[i] = min(search[i], res.elapsed)
                nodes[i], won[i] = res.nodes, res.won
        made = sum(won)
        rate = sum(nodes) / sum(search) / 1e6
        rows.append(f"| {contract} | {len(docs)} | {made} | {statistics.median(search) * 1e3:.2f} ms | "
                    f"{pct(search, 0.9) * 1e3:.2f} ms | {max(search) * 1e3:.2f} ms | "
                    f"{statistics.median(call) * 1e3:.2f} ms | {statistics.median(nodes):,.0f} | {rate:.1f} M |")
    return rows


def endgames(n: int, tricks_left: int) -> list[str]:
    """Reference vs fast solver on positions `tricks_left` tricks from the end of corpus deals."""
    engine = ddcards.Solver()
    ref_t, fast_t, search_t, positions = [], [], [], 0
    for contract in ("hra", "betl", "durch"):
        for doc in load(contract, n):
            line = engine.solve(doc, mode="best").pv
            cut = 30 - 3 * tricks_left
            if len(line) < cut:
                continue               # settled early (betl/durch): no such endgame on the line
            pos = dict(doc, played=line[:cut])
            t = time.perf_counter()
            expected = reference.reference_solve(pos)
            ref_t.append(time.perf_counter() - t)
            gc.collect()            # the reference's garbage must not land in our timing
            gc.disable()
            t = time.perf_counter()
            res = engine.solve(pos, mode="all")
            fast_t.append(time.perf_counter() - t)
            gc.enable()
            search_t.append(res.elapsed)
            assert res.value == expected["value"], pos
            positions += 1
    ratio = statistics.median(r / f for r, f in zip(ref_t, fast_t))
    ratio_search = statistics.median(r / f for r, f in zip(ref_t, search_t))
    return [f"| {tricks_left} tricks left | {positions} | {statistics.median(ref_t) * 1e3:.1f} ms | "
            f"{statistics.median(fast_t) * 1e3:.3f} ms | {statistics.median(search_t) * 1e3:.3f} ms | "
            f"{ratio:,.0f}x | {ratio_search:,.0f}x |"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=200, help="deals of each contract's corpus (default 200)")
    ap.add_argument("--repeat", type=positive, default=1, metavar="R",
                    help="rounds over each corpus; each deal's least time counts (default 1)")
    ap.add_argument("--reference-positions", type=count, default=20,
                    help="corpus deals per contract to cut into endgames for the reference comparison")
    args = ap.parse_args()
    print(f"{machine_line()}; one search thread. Command: python benchmarks/bench_marias.py --deals {args.deals} "
          f"--reference-positions {args.reference_positions}"
          f"{f' --repeat {args.repeat}' if args.repeat > 1 else ''}\n")
    print("\n".join(full_deals(args.deals, args.repeat)))
    if args.reference_positions <= 0:
        return                      # no endgames for the reference comparison
    print()
    print("| endgame | positions | reference median | ddcards call median | ddcards search median "
          "| speed-up (call) | speed-up (search) |")
    print("|---|---|---|---|---|---|---|")
    for k in (3, 4, 5):
        print("\n".join(endgames(args.reference_positions, k)))


if __name__ == "__main__":
    main()
