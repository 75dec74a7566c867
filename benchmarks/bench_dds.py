"""ddcards against bridge DDS on the same Klaverjas layouts, measured in one run.

    pip install -e '.[bench]'          # endplay: DDS 2.9 as a library (a benchmark-only extra)
    python benchmarks/bench_dds.py [--deals N] [--seed S] [--threads 1 2] [--repeat R]

Fresh random layouts (a new seed each run unless --seed is given; the seed is printed): four
hands of 8 cards, a random trump suit, playing team and rule set (Amsterdam or Rotterdam),
seat 0 leads.  Each layout is solved cold, one thread, by

* ddcards: mode ``optimal`` (the exact value with roem, pit and nat, and every optimal first
  card) and mode ``all`` (every legal first card's exact value);
* DDS (``endplay._dds.SolveBoard``, which takes four hands of any equal size) as a bridge
  deal: trick counts under bridge's rules (follow suit, no duty to trump or overtrump), with
  ``solutions=2`` (every optimal card) and ``solutions=3`` (every card's trick count).  Each
  card keeps its order within its suit: Klaverjas's power 0..7 becomes bridge rank 7..A, so
  the trump suit's J 9 A T K Q 8 7 are bridge's A K Q J T 9 8 7.

Reported: the medians per mode of the search time (ddcards: the C search; DDS: the
SolveBoard call), the median of the per-layout ratios (ddcards / DDS) and their quartiles.
With ``--threads 1 2`` ddcards also runs each layout on two threads (``Solver.solve(...,
threads=2)``) and the speed-up over one thread is reported.  DDS's own figure is one thread
(its one-board call does not split a board).  ``--repeat R`` goes over the layouts R times and
keeps each layout's least time on each side: the solvers' own costs without the host's hiccups.
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

import ddcards  # noqa: E402
from _args import positive, thread_count  # noqa: E402
from _machine import machine_line  # noqa: E402

RANKS = "789TJQKA"            # notation ranks
SUITS = "SHDC"
FORMAT_ORDER = "AKQJT987"
PLAIN_POWER = "789JQKTA"       # power 0..7 in a plain suit (docs/RULES.md §2)
TRUMP_POWER = "78QKTA9J"       # ... in the trump suit


def random_layout(rng: random.Random) -> dict:
    deck = [r + s for s in SUITS for r in RANKS]
    rng.shuffle(deck)
    hands = [deck[8 * i: 8 * i + 8] for i in range(4)]
    text = [".".join("".join(r for r in FORMAT_ORDER if r + s in h) for s in SUITS) for h in hands]
    return {"game": "klaverjas", "rules": rng.choice(("amsterdam", "rotterdam")),
            "trump": rng.choice(SUITS), "playing_team": rng.randrange(2), "leader": 0, "hands": text}


def dds_deal(doc: dict):
    """The layout as a DDS deal: seat i is DDS hand i (N E S W: the same order of play)."""
    from endplay import _dds

    dl = _dds.deal()
    dl.trump = SUITS.index(doc["trump"])            # DDS strains: 0 S, 1 H, 2 D, 3 C (4 NT)
    dl.first = doc.get("leader", 0)
    for i in range(3):
        dl.currentTrickSuit[i] = 0
        dl.currentTrickRank[i] = 0
    for seat, hand in enumerate(doc["hands"]):
        for s, holding in enumerate(hand.split(".")):
            order = TRUMP_POWER if SUITS[s] == doc["trump"] else PLAIN_POWER
            mask = 0
            for r in holding:
                mask |= 1 << (7 + order.index(r))       # power 0..7 -> bridge rank 7..14 (A)
            dl.remainCards[seat][s] = mask
    return dl


def dds_solve(dl, solutions: int) -> tuple[float, int]:
    """(seconds, cards listed) of one cold SolveBoard call."""
    from endplay import _dds

    fut = _dds.futureTricks()
    t = time.perf_counter()
    _dds.SolveBoard(dl, -1, solutions, 1, fut, 0)
    return time.perf_counter() - t, fut.cards


def dds_round(deals: list, least: dict[int, list[float]], spare, last: int | None = None,
              solve=dds_solve) -> int | None:
    """One round over `deals` with solutions 2 and 3, keeping each deal's least SolveBoard time in
    least[solutions][i]; `last` is the deal the call before this round solved.  Returns the last
    deal this round solved.

    DDS keeps its table for a call on the same deal as the last one: one pass per `solutions`,
    so that every call meets a new deal (cold, as ddcards' are).  With a single deal every call
    would follow itself (its every-card call then 5-10x faster, warm): `spare`, another deal, is
    solved untimed between two calls on the same one."""
    for solutions in (2, 3):
        for i, dl in enumerate(deals):
            if last == i:
                solve(spare, 2)
            least[solutions][i] = min(least[solutions][i], solve(dl, solutions)[0])
            last = i
    return last


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    if len(xs) < 2:                     # one layout: its ratio is every quartile
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=100, help="fresh random layouts (default 100)")
    ap.add_argument("--seed", type=int, default=None, help="default: a fresh one (printed)")
    ap.add_argument("--threads", type=thread_count, nargs="+", default=[1], metavar="N",
                    help="ddcards thread counts to run (default: 1)")
    ap.add_argument("--save", metavar="FILE", help="write the layouts (JSON Lines) to FILE")
    ap.add_argument("--repeat", type=positive, default=1, metavar="R",
                    help="rounds over the layouts; each layout's least time counts (default 1)")
    args = ap.parse_args()
    try:
        from endplay import _dds
    except ImportError:
        sys.exit("bench_dds.py needs DDS: pip install -e '.[bench]' (the endplay package)")
    _dds.SetMaxThreads(1)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    docs = [random_layout(rng) for _ in range(args.deals)]
    if args.save:
        Path(args.save).write_text("".join(json.dumps(d) + "\n" for d in docs))
    engine = ddcards.Solver()
    keys = ["dds2", "dds3"] + [f"{mode}/{threads}" for mode in ("optimal", "all") for threads in args.threads]
    times: dict[str, list[float]] = {key: [float("inf")] * len(docs) for key in keys}
    deals = [dds_deal(doc) for doc in docs]
    # (the spare from a stream of its own: the seeded layouts stay as they were)
    spare = dds_deal(random_layout(random.Random(seed + 1)))
    dds_least = {2: times["dds2"], 3: times["dds3"]}
    last = None
    # The machine line before the rounds, as the other scripts print it: taken after them, its load
    # average counted this run's own core (the RESULTS command works for a minute and more).
    print(f"{machine_line()}; DDS via endplay (one thread). Command: python benchmarks/bench_dds.py --deals {args.deals} "
          f"--seed {seed} --threads {' '.join(map(str, args.threads))}"
          f"{f' --repeat {args.repeat}' if args.repeat > 1 else ''}\n", flush=True)
    for _ in range(args.repeat):
        last = dds_round(deals, dds_least, spare, last)
        for i, doc in enumerate(docs):
            for mode in ("optimal", "all"):
                for threads in args.threads:
                    engine.clear()
                    res = engine.solve(doc, mode=mode, threads=threads) if threads != 1 else \
                        engine.solve(doc, mode=mode)
                    times[f"{mode}/{threads}"][i] = min(times[f"{mode}/{threads}"][i], res.elapsed)
    print("| solver | what | threads | median | p90 | ratio to DDS, median of layouts (q1-q3) |")
    print("|---|---|---|---|---|---|")
    for solutions, what in ((2, "all optimal cards"), (3, "every card")):
        d = times[f"dds{solutions}"]
        print(f"| DDS 2.9 (bridge tricks) | {what} | 1 | {statistics.median(d) * 1e3:.2f} ms | "
              f"{sorted(d)[int(0.9 * len(d))] * 1e3:.2f} ms | 1 |")
    for mode, solutions, what in (("optimal", 2, "all optimal cards"), ("all", 3, "every card")):
        d = times[f"dds{solutions}"]
        for threads in args.threads:
            x = times[f"{mode}/{threads}"]
            q1, q2, q3 = quartiles([a / b for a, b in zip(x, d)])
            print(f"| ddcards (points, roem, nat) | {what} | {threads} | {statistics.median(x) * 1e3:.2f} ms | "
                  f"{sorted(x)[int(0.9 * len(x))] * 1e3:.2f} ms | {q2:.1f}x ({q1:.1f}-{q3:.1f}) |")
    one_opt, one_all = times["optimal/1"] if 1 in args.threads else None, times.get("all/1")
    if one_opt and one_all:
        q1, q2, q3 = quartiles([a / b for a, b in zip(one_all, one_opt)])
        print(f"\nddcards every card / all optimal cards, one thread: median of layouts {q2:.2f}x ({q1:.2f}-{q3:.2f})")
    for threads in args.threads:
        if threads != 1 and one_opt:
            for mode in ("optimal", "all"):
                base, x = times[f"{mode}/1"], times[f"{mode}/{threads}"]
                print(f"ddcards {mode}, {threads} threads: {statistics.median(base) / statistics.median(x):.2f}x "
                      f"one thread (medians), {sum(base) / sum(x):.2f}x (sums)")


if __name__ == "__main__":
    main()
