"""Prší solver benchmark (prints a Markdown report).

    python benchmarks/bench_prsi.py [--deals N] [--horizons 10,20,30] [--reach N] [--budgets 1,10]
    python benchmarks/bench_prsi.py --make-corpus        # (re)write the seeded corpora
    python benchmarks/bench_prsi.py --nodes              # the fixed node count (a search signature)
    python benchmarks/bench_prsi.py --long [--deals N] [--horizons 24,30,40] [--timeout S]

Corpora (``benchmarks/corpus/prsi-*.jsonl``, fixed seeds): ``prsi-fresh-{2..6}.jsonl``, fresh
deals for 2 to 6 players; ``prsi-midgame.jsonl``, positions reached by seeded random play, 2 to
6 players, both variants, with a 7 chain or an ace pending or the stock about to run out;
``prsi-mixed.jsonl``, the whole space a user asks about: 2 to 6 players, any seat leading, the
value for any seat (``player``) or the default, each variant (and play_on's ``not_last`` goal),
fresh or after random play, and a horizon of its own.

Reported, one core, every solve cold (the table cleared per position) and as the CLI answers
by default (mode ``all``: the value, every legal action's value and distance, the line):
- fresh deals, 2, 3 and 4 players (5 and 6 too), at horizons 10/20/30: search time (median,
  p90, max) and nodes (median); the issue's targets (two players at 20 plies, three and four
  at 12: median <= 1 s);
- the mid-game corpus at the default horizon, the mixed corpus at each position's own;
- how far the horizon reaches: per deal, the longest horizon whose value search (value only,
  cold table) finishes within each budget (1 s and 10 s), found by trying horizons 2 apart;
  the median over the deals.

``--long``: a horizon over 20 plies is searched shorter first (12, 16, ...: docs/RULES.md §4.9,
``prsi.shorter_horizons``); side by side, per corpus, horizon and mode (optimal, all), that search
and the search within the whole horizon alone (shorter_horizons replaced by an empty list for
it): the median time and nodes of each, the ratio of their summed times, how many positions show
an end forced within the horizon, and how many did not finish within ``--timeout`` seconds
(counted at the timeout in the sums and the median time; the median nodes count finished solves only).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from contextlib import AbstractContextManager
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards.errors import SearchTimeout  # noqa: E402
from ddcards.games import prsi  # noqa: E402
from ddcards.games.prsi import MAX_HORIZON  # noqa: E402
from _args import count, positive  # noqa: E402
from _machine import command_line, machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
DECK = [r + s for s in "SHDC" for r in "789TJQKA"]
FRESH = {2: 100, 3: 100, 4: 100, 5: 50, 6: 50}       # deals per corpus


def hand(cards: list[str]) -> str:
    return ".".join("".join(r for r in "AKQJT987" if r + s in cards) for s in "SHDC")


def fresh_deal(rng: random.Random, seats: int) -> dict:
    deck = DECK[:]
    rng.shuffle(deck)
    return {"game": "prsi", "hands": [hand(deck[4 * i:4 * i + 4]) for i in range(seats)],
            "upcard": deck[4 * seats], "stock": " ".join(deck[4 * seats + 1:])}


def midgame(rng: random.Random) -> dict:
    """Random legal play from a fresh deal until a 7 chain or an ace is pending, or the stock
    has run low, or a variant's player is out (whichever the draw of the dice asked for)."""
    while True:
        seats = rng.choice([2, 2, 3, 4, 5, 6])
        options = {"play_on": rng.random() < 0.25, "return": rng.random() < 0.25}
        want = rng.choice(["special", "low stock", "low stock", "any"])
        doc = dict(fresh_deal(rng, seats), options=options)
        pos = ddcards.Position.from_dict(doc)
        played: list[str] = []
        bias = 0.85 if want == "low stock" else 0.3
        for _ in range(150):
            moves = list(pos.legal_moves)
            if not moves:
                break
            move = "draw" if "draw" in moves and rng.random() < bias else rng.choice(moves)
            nxt = pos.play(move)
            if nxt.is_over:
                break
            pos, played = nxt, played + [move]
            info = pos.session().describe()
            stock = 0 if info["stock"] == "(empty)" else len(info["stock"].split())
            if want == "special" and "active" in info["top"] and rng.random() < 0.5:
                return dict(doc, played=played)
            if want == "low stock" and stock <= 3 and rng.random() < 0.3:
                return dict(doc, played=played)
            if want == "any" and len(played) > 20 and rng.random() < 0.1:
                return dict(doc, played=played)


def mixed(rng: random.Random) -> dict:
    """A position from the whole space: any number of players, any seat leading, the value for
    a random seat (or, as by default, the player to move), each variant on or off, a horizon of
    its own (or the default), fresh or after up to 40 random actions."""
    while True:
        seats = rng.choice([2, 3, 4, 5, 6])
        options: dict = {"play_on": rng.random() < 0.3, "return": rng.random() < 0.3}
        if options["play_on"] and rng.random() < 0.5:
            options["not_last"] = True              # P's goal: not the one left (RULES §4.9)
        if rng.random() < 0.7:
            options["player"] = rng.randrange(seats)
        if rng.random() < 0.7:
            options["horizon"] = rng.choice([8, 12, 16, 20, 24, 30])
        doc = dict(fresh_deal(rng, seats), options=options, leader=rng.randrange(seats))
        pos = ddcards.Position.from_dict(doc)
        played: list[str] = []
        for _ in range(rng.choice([0, 0, 3, 10, 25, 40])):
            moves = list(pos.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            nxt = pos.play(move)
            if nxt.is_over:
                break
            pos, played = nxt, played + [move]
        if not pos.is_over:
            return dict(doc, played=played) if played else doc


def make_corpus() -> None:
    CORPUS.mkdir(exist_ok=True)
    for seats, n in FRESH.items():
        rng = random.Random(4000 + seats)
        lines = [json.dumps(fresh_deal(rng, seats)) for _ in range(n)]
        (CORPUS / f"prsi-fresh-{seats}.jsonl").write_text("\n".join(lines) + "\n")
    rng = random.Random(4100)
    lines = [json.dumps(midgame(rng)) for _ in range(100)]
    (CORPUS / "prsi-midgame.jsonl").write_text("\n".join(lines) + "\n")
    rng = random.Random(4200)
    lines = [json.dumps(mixed(rng)) for _ in range(100)]
    (CORPUS / "prsi-mixed.jsonl").write_text("\n".join(lines) + "\n")


def load(name: str, n: int | None = None) -> list[dict]:
    lines = (CORPUS / f"prsi-{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:n]]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def with_horizon(doc: dict, horizon: int) -> dict:
    return dict(doc, options=dict(doc.get("options", {}), horizon=horizon))


def solve_rows(docs: list[dict], label: str, horizon: int | None, engine: ddcards.Solver) -> str:
    search, nodes, values = [], [], {1: 0, 0: 0, -1: 0}
    for doc in docs:
        engine.clear()
        res = engine.solve(with_horizon(doc, horizon) if horizon else doc)
        search.append(res.elapsed)
        nodes.append(res.nodes)
        values[res.value] += 1
    rate = sum(nodes) / max(sum(search), 1e-9) / 1e6
    shown = horizon if horizon else ("each its own" if any("horizon" in d.get("options", {}) for d in docs)
                                     else "default (20)")
    return (f"| {label} | {shown} | {len(docs)} | {values[1]}/{values[0]}/{values[-1]} | {ms(statistics.median(search))} | "
            f"{ms(pct(search, 0.9))} | {ms(max(search))} | {statistics.median(nodes):,.0f} | {rate:.1f} M |")


def reach(doc: dict, budget: float, start: int) -> int:
    """The longest horizon (tried 2 apart from `start`, up; below it if `start` itself does not
    finish) whose value search finishes within `budget`; 0 if none does."""
    engine = ddcards.Solver()

    def fits(horizon: int) -> bool:
        engine.clear()
        try:
            engine.value(with_horizon(doc, horizon), timeout=budget)
        except SearchTimeout:
            return False
        return True

    if not fits(start):
        # (it said 0, as if no horizon at all fitted, where one of start - 2 or less may)
        return next((horizon for horizon in range(start - 2, 0, -2) if fits(horizon)), 0)
    best = horizon = start
    while horizon + 2 <= MAX_HORIZON and fits(horizon + 2):
        horizon += 2
        best = horizon
    return best


# The fixed node count (``--nodes``): a signature of the search, as Stockfish's bench.
NODE_SET = ((2, 30, 12, "value"), (2, 30, 12, "all"), (3, 28, 24, "all"), (4, 36, 20, "all"), (5, 36, 12, "all"),
            (6, 40, 10, "all"))


def node_count() -> None:
    """Total nodes (and CPU time) of fixed searches on the first fresh deals of each corpus."""
    engine = ddcards.Solver()
    total = 0
    for seats, horizon, n, mode in NODE_SET:
        nodes, cpu = 0, 0.0
        for doc in load(f"fresh-{seats}", n):
            engine.clear()
            start = time.process_time()
            if mode == "value":
                engine.value(with_horizon(doc, horizon))
                nodes += engine.last_nodes
            else:
                nodes += engine.solve(with_horizon(doc, horizon)).nodes
            cpu += time.process_time() - start
        total += nodes
        print(f"{seats} players, horizon {horizon}, {n} deals, {mode}: {nodes:,} nodes, {cpu:.2f} s CPU", flush=True)
    print(f"total {total:,} nodes")


LONG_CORPORA = ("fresh-2", "fresh-3", "fresh-4", "midgame", "mixed")


def whole_horizon_only() -> AbstractContextManager[object]:
    """Every search within its own horizon alone: no shorter horizon tried first."""
    return mock.patch.object(prsi, "shorter_horizons", lambda horizon, after=0: [])


def timed_solve(engine: ddcards.Solver, doc: dict, mode: str, timeout: float) -> tuple[float, int, bool, object]:
    """(seconds, nodes, finished, (value, distance, moves)) of one cold solve."""
    engine.clear()
    start = time.perf_counter()
    try:
        res = engine.solve(doc, mode=mode, timeout=timeout)
    except SearchTimeout:
        return timeout, 0, False, None
    answer = (res.value, res.distance, [(m.move, m.value, m.distance) for m in res.moves] if mode == "all"
              else res.optimal_moves)
    return time.perf_counter() - start, res.nodes, True, answer


def median_time(rows: list) -> float:
    return statistics.median(r[0] for r in rows)


def median_nodes(rows: list) -> str:
    """The median nodes of the solves that finished (an unfinished one's count is not known)."""
    done = [r[1] for r in rows if r[2]]
    return f"{statistics.median(done):,.0f}" if done else "-"


def long_horizons(deals: int, horizons: list[int], timeout: float) -> None:
    """Shorter horizons first against the search within the whole horizon alone, side by side."""
    print("| corpus | horizon | mode | positions | end forced | shorter first: median | nodes | "
          "whole horizon alone: median | nodes | unfinished (first / alone) | time, first / alone (sums) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    engine = ddcards.Solver()
    for horizon in horizons:
        for name in LONG_CORPORA:
            docs = [with_horizon(doc, horizon) for doc in load(name, deals)]
            for mode in ("optimal", "all"):
                first, alone, forced = [], [], 0
                for doc in docs:
                    a = timed_solve(engine, doc, mode, timeout)
                    with whole_horizon_only():
                        b = timed_solve(engine, doc, mode, timeout)
                    if a[2] and b[2] and a[3] != b[3]:
                        raise SystemExit(f"the answers differ: {json.dumps(doc)}: {a[3]} / {b[3]}")
                    forced += a[2] and a[3][1] is not None
                    first.append(a)
                    alone.append(b)
                ratio = sum(r[0] for r in first) / max(sum(r[0] for r in alone), 1e-9)
                print(f"| {name} | {horizon} | {mode} | {len(docs)} | {forced} | {ms(median_time(first))} | "
                      f"{median_nodes(first)} | {ms(median_time(alone))} | {median_nodes(alone)} | "
                      f"{sum(not r[2] for r in first)} / {sum(not r[2] for r in alone)} | {ratio:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make-corpus", action="store_true", help="write the seeded corpora and stop")
    parser.add_argument("--nodes", action="store_true", help="print the fixed node count (a search signature) and stop")
    parser.add_argument("--deals", type=positive, default=100, help="fresh deals per player count (default 100)")
    parser.add_argument("--horizons", help="horizons to time (default 10,20,30; --long: 24,30,40)")
    parser.add_argument("--seats", default="2,3,4,5,6", help="player counts (default 2,3,4,5,6)")
    parser.add_argument("--reach", type=count, default=10, help="deals per player count for the reach (default 10; 0: skip)")
    parser.add_argument("--budgets", default="1,10", help="reach budgets in seconds (default 1,10)")
    parser.add_argument("--long", action="store_true",
                        help="shorter horizons first against the whole horizon alone, side by side, and stop "
                             "(--deals per corpus, default 100; --horizons, default 24,30,40)")
    parser.add_argument("--timeout", type=float, default=30.0, help="--long: seconds per solve (default 30)")
    args = parser.parse_args()
    if args.make_corpus:
        make_corpus()
        return
    if args.nodes:
        print(f"{machine_line()}. Command: {command_line()}\n")    # (for its CPU seconds: the count is the same anywhere)
        node_count()
        return
    def numbers(text: str, kind: type, name: str, allowed: str, ok) -> list:
        try:
            values = [kind(x) for x in text.split(",")]
        except ValueError:
            values = []
        if not values or not all(ok(v) for v in values):
            parser.error(f"argument --{name}: {text!r} is not a comma-separated list of {allowed}")
        return values

    seats_list = numbers(args.seats, int, "seats", "player counts from 2 to 6", lambda v: 2 <= v <= 6)
    # (a horizon past the game's range was a traceback from the first solve)
    default = "24,30,40" if args.long else "10,20,30"
    horizons = numbers(default if args.horizons is None else args.horizons, int, "horizons",
                       f"horizons from 1 to {MAX_HORIZON}", lambda v: 1 <= v <= MAX_HORIZON)
    if args.long:
        if not 0 < args.timeout < float("inf"):
            parser.error(f"argument --timeout: {args.timeout!r} is not seconds above 0")
        print(f"{machine_line()}. Command: {command_line()}\n")
        long_horizons(args.deals, horizons, args.timeout)
        return
    budgets = numbers(args.budgets, float, "budgets", "seconds above 0", lambda v: 0 < v < float("inf"))
    print(f"{machine_line()}. Command: {command_line()}\n")
    print("| players | horizon | positions | +1/0/−1 | search median | p90 | max | nodes median | nodes/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    engine = ddcards.Solver()
    targets = {}
    for seats in seats_list:
        docs = load(f"fresh-{seats}", args.deals)
        # (the target's horizon 12 for three and four players, unless asked already: a row twice)
        for horizon in horizons + ([12] if seats in (3, 4) and 12 not in horizons else []):
            row = solve_rows(docs, f"{seats}, fresh", horizon, engine)
            print(row, flush=True)
            if (seats, horizon) in ((2, 20), (3, 12), (4, 12)):
                targets[(seats, horizon)] = row.split("|")[5].strip()
    print(solve_rows(load("midgame"), "2-6, mid-game", None, engine), flush=True)
    print(solve_rows(load("mixed"), "2-6, mixed", None, engine), flush=True)
    print()
    for (seats, horizon), median in targets.items():
        print(f"- target: {seats} players, fresh deal, horizon {horizon}: median {median} (target <= 1 s)")
    if args.reach:
        print("\n| players | deals | " + " | ".join(f"horizon in {b:g} s (median, min-max)" for b in budgets) + " |")
        print("|---|---|" + "---|" * len(budgets))
        for seats in seats_list[:3]:
            docs = load(f"fresh-{seats}", args.reach)
            cells = []
            for budget in budgets:
                got = [reach(doc, budget, 20) for doc in docs]
                cells.append(f"{statistics.median(got):g} ({min(got)}-{max(got)})")
            print(f"| {seats} | {len(docs)} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
