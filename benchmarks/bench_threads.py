"""One deal on several threads: ``Solver.solve(..., threads=N)`` against one thread.

    python benchmarks/bench_threads.py [--deals N] [--threads 2] [--seed S] [--repeat R]

Full deals, cold (table cleared per solve), each solved on one thread and on N threads one
after the other (so both see the same host): fresh random Klaverjas layouts (random trump,
playing team and rule set, as benchmarks/bench_dds.py draws them), the first deals of the
Klaverjas corpora and of the Mariáš Hra corpus, and (``--mariasz N``) the first Mariasz
szlifowany deals and 36-card deals with 12 cards left in the stock, in modes ``optimal`` and
``all``; each Mariasz solve in a Solver of its own (the table sized per game).
Reported per set and mode: the median search time on 1 and on N threads, the ratio of the
medians and the median of the per-deal ratios; and the DD table of the Klaverjas deals
(dd_table, 8 value searches) on N threads.

``--repeat R`` goes over each set R times (each deal on one thread, then on N) and keeps each
side's least time for the deal (each DD table likewise): a search's own cost without the host's hiccups,
which on a shared VM move single runs by 10-30% (benchmarks/RESULTS.md, "The table's bucket
fetched early in Mariáš ..."). The default, 1, is one run each, as the earlier figures were taken.

A speed-up needs N free cores: on a shared machine run it as
``chrt -f 10 python benchmarks/bench_threads.py`` (real-time priority, root), or the other
processes take the second core from the threads.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import ddcards  # noqa: E402
from bench_dds import random_layout  # noqa: E402
from ddcards.ddtable import dd_table  # noqa: E402
from _args import count, positive, thread_count  # noqa: E402
from _machine import machine_line, warn_if_fewer_cpus  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"


def load(name: str, n: int) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / f"{name}.jsonl").read_text().splitlines()[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=40, help="deals per set")
    ap.add_argument("--threads", type=thread_count, default=2)
    ap.add_argument("--seed", type=int, default=None, help="of the random Klaverjas layouts (default: fresh)")
    ap.add_argument("--tables", type=count, default=10, help="Klaverjas deals for the DD table (0: none)")
    ap.add_argument("--mariasz", type=count, default=10, help="deals per Mariasz set (0: none)")
    ap.add_argument("--repeat", type=positive, default=1, metavar="R",
                    help="runs of each solve, taking turns; each side's least time counts (default 1)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    sets = {
        "klaverjas, random layouts": [random_layout(rng) for _ in range(args.deals)],
        "klaverjas-amsterdam corpus": load("klaverjas-amsterdam", args.deals),
        "klaverjas-rotterdam corpus": load("klaverjas-rotterdam", args.deals),
        "marias-hra corpus": load("marias-hra", args.deals),
    }
    if args.mariasz:
        sets["mariasz-szlifowany corpus"] = load("mariasz-szlifowany", args.mariasz)
        sets["mariasz-ladder, 12 left in the stock"] = [
            doc for doc in load("mariasz-ladder", 10**6)
            if len(doc["stock"].split()) - sum(a != "exchange" for a in doc["played"]) == 12][:args.mariasz]
    n = args.threads
    one, many = ddcards.Solver(), ddcards.Solver()
    warn_if_fewer_cpus(n, f"a search on {n} threads")
    print(f"{machine_line()}. Command: python benchmarks/bench_threads.py --deals {args.deals} --threads {n} "
          f"--seed {seed} --tables {args.tables} --mariasz {args.mariasz}"
          f"{f' --repeat {args.repeat}' if args.repeat > 1 else ''}\n")
    print(f"| deals | mode | 1 thread median | {n} threads median | ratio of medians | median of ratios | sums |")
    print("|---|---|---|---|---|---|---|")
    for name, docs in sets.items():
        for mode in ("optimal", "all"):
            t1 = [float("inf")] * len(docs)
            tn = [float("inf")] * len(docs)
            # Rounds over the whole set, so that no solve follows one of the same deal (whose
            # data would still be in the caches: ~7% faster).
            for _ in range(args.repeat):
                for i, doc in enumerate(docs):
                    if doc["game"] == "mariasz":        # a table of the deal's own size, cold
                        one, many = ddcards.Solver(), ddcards.Solver()
                    a = one.solve(doc, mode=mode)
                    b = many.solve(doc, mode=mode, threads=n)
                    assert (a.value, sorted((m.move, m.value) for m in a.moves)) == \
                        (b.value, sorted((m.move, m.value) for m in b.moves)), json.dumps(doc)
                    t1[i], tn[i] = min(t1[i], a.elapsed), min(tn[i], b.elapsed)
            print(f"| {name} ({len(docs)}) | {mode} | {statistics.median(t1) * 1e3:.2f} ms | "
                  f"{statistics.median(tn) * 1e3:.2f} ms | {statistics.median(t1) / statistics.median(tn):.2f}x | "
                  f"{statistics.median(x / y for x, y in zip(t1, tn)):.2f}x | {sum(t1) / sum(tn):.2f}x |")
    if args.tables:
        docs = sets["klaverjas, random layouts"][:args.tables]
        for threads in (1, n):
            times = [float("inf")] * len(docs)
            for _ in range(args.repeat):
                for i, doc in enumerate(docs):
                    t = time.perf_counter()
                    dd_table(doc, solver=one, threads=threads)
                    times[i] = min(times[i], time.perf_counter() - t)
            print(f"\nDD table, random layouts ({len(docs)}), {threads} thread(s): median "
                  f"{statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
