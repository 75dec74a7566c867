"""Mariasz solver benchmark over seeded corpora (prints a Markdown report).

    python benchmarks/bench_mariasz.py corpus          # (re)write benchmarks/corpus/mariasz-*.jsonl
    python benchmarks/bench_mariasz.py side-by-side [MIB]   # ideas measured side by side
    python benchmarks/bench_mariasz.py etc-split [MIB]      # the mid-trick ETC and the root split, off / on
    python benchmarks/bench_mariasz.py reply-first [MIB]    # mid-trick: the last refuting reply first, off / on
    python benchmarks/bench_mariasz.py builds OLD NEW [MIB [SET ...]]  # two builds taking turns on the same
                                                        # positions; SET: CORPUS:N or CORPUS:LEFT:N
    python benchmarks/bench_mariasz.py table-sizes 32,128,512 ladder:16 three [--deals N]
                                                        # fixed table sizes side by side
    python benchmarks/bench_mariasz.py fresh [--deals N] [--mode best|all] [--jobs J] [--tt-mb MIB (0: as the CLI)]
                                                        # fresh 36-card deals from the first trick, to the end
    python benchmarks/bench_mariasz.py [--deals N] [--limit S] [--ladder-deals N] [--ladder-limit S] [--tt-mb MIB]

Every solve is cold (the table cleared per position), one core, and answers what
the CLI answers by default: the value and the exact value of every legal first
action, plus the principal variation.  "search" is the time in the C search
(the Result's elapsed); nodes are the core's plus the phase-2 endgame search's
(the core does not count the latter).

The corpora sample the whole space from fixed seeds: random deals (so random
trumps: the turned card's suit), every variant, both objectives, the options
(must_beat, marriage_on_second, ślepy) switched on at random.

- mariasz-szlifowany: szlifowany deals from the first trick, points.
- mariasz-race: 36-card and szlifowany deals from the first trick, a race from
  random carried scores (60..130 each, so that a claim is in reach).
- mariasz-race-early: the races mariasz-race leaves out, where the claim is far: szlifowany
  deals from the first trick at 0:0 (the first deal of a game, or half the time a later one)
  or carried scores of 0..60 each, and 36-card deals with 10 or fewer cards left in the stock
  (a 36-card race from the first trick at 0:0 takes 9 s to minutes) at carried scores of 0..60
  each, never past what a side could bank and still not have claimed.
- mariasz-phase2: two-player positions with the stock used up (random play, an
  exchange taken half the time), 30% of them a race nobody has won by the cut.
- mariasz-kiks, mariasz-three: Kiks and three-player deals from the first trick.
- mariasz-mixed: every variant and deck, any leader, ślepy, both objectives (a race
  nobody has won by the cut), cut by random play: two players in phase 1 (the full
  deck from 10 cards left in the stock on, where a search takes seconds at most),
  Kiks and three players in the first half of the deal.
- mariasz-ladder: 36-card deals, points, each cut by random play at every stock
  size 0, 2, ..., 24 cards left: how the work grows with the stock.  A 36-card
  deal from the first trick is the ladder's top rung.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL, Searcher  # noqa: E402
from ddcards._core import search as core  # noqa: E402
from ddcards.errors import SearchTimeout  # noqa: E402
from _args import count, positive, seconds, table_mb, usage_error  # noqa: E402
from _machine import machine_line  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
SUITS = "SHDC"
FULL = "6789TJQKA"
SZLIFOWANY = "6TJQKA"


# ---------------------------------------------------------------- corpora

def hand(cards: list[str]) -> str:
    return ".".join("".join(r for r in reversed(FULL) if r + s in cards) for s in SUITS)


def deal(rng: random.Random, variant: str = "standard", szlifowany: bool = False) -> dict:
    deck = [r + s for s in SUITS for r in (SZLIFOWANY if szlifowany else FULL)]
    rng.shuffle(deck)
    options: dict = {}
    if variant != "standard":
        options["variant"] = variant
    if szlifowany:
        options["szlifowany"] = True
    for name in ("must_beat", "marriage_on_second"):
        if rng.random() < 0.25:
            options[name] = True
    doc: dict = {"game": "mariasz"}
    if variant == "standard":
        doc["hands"] = [hand(deck[:6]), hand(deck[6:12])]
        doc["stock"] = " ".join(deck[12:])
        if rng.random() < 0.15:
            options["slepy"] = True
            doc["trump"] = rng.choice(SUITS)
    else:
        n = 4 if variant == "kiks" else 3
        size = len(deck) // n
        hands = [deck[i * size:(i + 1) * size] for i in range(n)]
        doc["hands"] = [hand(h) for h in hands]
        doc["trump"] = hands[n - 1][-1][1]          # the dealer's last card
        if variant == "three":
            options["player"] = rng.randrange(3)
    if options:
        doc["options"] = options
    return doc


def random_play(rng: random.Random, doc: dict, plies: int) -> dict:
    """`doc` with `plies` random legal actions (an exchange taken when it is offered).  The ladder
    is drawn with it; random_cards below draws differently, so the ladder keeps this one."""
    pos = ddcards.Position.from_dict(doc)
    played: list[str] = []
    while len(played) < plies and not pos.is_over:
        moves = list(pos.legal_moves)
        move = "exchange" if "exchange" in moves else rng.choice(moves)
        pos = pos.play(move)
        played.append(move)
    return dict(doc, played=played)


def random_cards(rng: random.Random, doc: dict, cards: int, exchange: float) -> dict:
    """`doc` with random legal actions until `cards` cards are played or the deal ends; an exchange,
    when offered, is taken with probability `exchange` (it is an action, not a card)."""
    pos = ddcards.Position.from_dict(doc)
    played: list[str] = []
    while sum(a != "exchange" for a in played) < cards and not pos.is_over:
        moves = list(pos.legal_moves)
        if "exchange" in moves and rng.random() < exchange:
            move = "exchange"
        else:
            move = rng.choice([m for m in moves if m != "exchange"])
        pos = pos.play(move)
        played.append(move)
    return dict(doc, played=played)


def live_race(rng: random.Random, doc: dict) -> dict:
    """`doc` (its history already played) as a race that nobody has won by the cut, with a claim
    within reach: each side's carried score is 131 less what it has banked in the history (its
    deal points: cards, last trick, marriages) and less a random need of 1 up to the points still
    out, or 0. With every score 0 the deal is the first of the game or, half the time, a later
    one (`first_deal: false`). A side that has banked 131 already would have claimed whatever it
    carried: such a position stays a points one."""
    banked = list(ddcards.Position.from_dict(doc).score.points.values())
    if max(banked) > 130:
        return doc
    out = max(1, 138 - sum(banked))
    scores = [min(130, max(0, 131 - b - rng.randint(1, out))) for b in banked]
    race = dict(doc, objective="race", start_scores=scores)
    if not any(scores) and rng.random() < 0.5:
        race["first_deal"] = False
    return race


def mixed_position(rng: random.Random) -> dict:
    """A position from the whole space a user may ask about: any variant (two players with either
    deck, Kiks, three players), any leader, ślepy and the rule options at random, points or a live
    race, cut by random play where a search has work to do: two players in phase 1 (the full deck
    from 10 cards left in the stock on, where a search takes seconds at most; phase 2 is the
    phase2 corpus's), Kiks and three players in the first half of the deal, the first trick
    included."""
    variant, szlifowany = rng.choice([("standard", False), ("standard", True), ("kiks", False),
                                      ("three", False), ("three", True)])
    doc = deal(rng, variant, szlifowany)
    seats = len(doc["hands"])
    leader = rng.randrange(seats)
    if leader:
        doc["leader"] = leader
    options = doc.setdefault("options", {})
    if variant != "standard":
        dealer = (leader - 1) % seats          # the dealer's last card fixes trumps (RULES §3.10)
        doc["trump"] = rng.choice([s for s, part in zip(SUITS, doc["hands"][dealer].split(".")) if part])
        if rng.random() < 0.15:
            options["slepy"] = True
            doc["trump"] = rng.choice(SUITS)
    if variant == "standard":
        stock = len(doc["stock"].split())
        low = 0 if szlifowany else stock - 10   # the full deck: at most 10 left in the stock
        cards = 2 * rng.randint(low // 2, stock // 2 - 1) + rng.randrange(2)    # in phase 1
    else:
        cards = rng.randrange(0, 18 if variant == "kiks" else 18 if not szlifowany else 12)   # the first half
    doc = random_cards(rng, doc, cards, exchange=0.5)
    if rng.random() < 0.35:
        doc = live_race(rng, doc)
    if not options:
        doc.pop("options")
    return doc


def early_race(rng: random.Random) -> dict:
    """A race whose claim is far (mariasz-race-early): see the module's docstring."""
    if rng.random() < 0.5:
        doc = dict(deal(rng, szlifowany=True), played=[])
        scores = [0, 0] if rng.random() < 0.5 else [rng.randint(0, 60), rng.randint(0, 60)]
    else:
        doc = deal(rng)
        doc = random_cards(rng, doc, 14 + 2 * rng.randint(0, 5) + rng.randrange(2), exchange=0.5)
        banked = list(ddcards.Position.from_dict(doc).score.points.values())
        scores = [rng.randint(0, max(0, min(60, 130 - b))) for b in banked]
    race = dict(doc, objective="race", start_scores=scores)
    if not any(scores) and rng.random() < 0.5:
        race["first_deal"] = False
    return race


def make_corpora(n: int = 40) -> None:
    CORPUS.mkdir(exist_ok=True)
    out: dict[str, list[dict]] = {}
    rng = random.Random(20261201)
    out["szlifowany"] = [dict(deal(rng, szlifowany=True), played=[]) for _ in range(n)]
    rng = random.Random(20261202)
    out["race"] = []
    for _ in range(n):
        doc = deal(rng, szlifowany=rng.random() < 0.5)
        doc.update(objective="race", start_scores=[rng.randrange(60, 131), rng.randrange(60, 131)], played=[])
        out["race"].append(doc)
    rng = random.Random(20261203)
    out["phase2"] = []
    for _ in range(4 * n):
        doc = deal(rng, szlifowany=rng.random() < 0.5)
        stock = len(doc["stock"].split())
        doc = random_cards(rng, doc, stock + 2 * rng.randrange(0, 3) + rng.randrange(2), exchange=0.5)
        out["phase2"].append(live_race(rng, doc) if rng.random() < 0.3 else doc)
    rng = random.Random(20261204)
    out["kiks"] = [dict(deal(rng, "kiks"), played=[]) for _ in range(n)]
    rng = random.Random(20261205)
    out["three"] = [dict(deal(rng, "three", szlifowany=rng.random() < 0.5), played=[]) for _ in range(n)]
    rng = random.Random(20261207)
    out["mixed"] = [mixed_position(rng) for _ in range(2 * n)]
    rng = random.Random(20261209)
    out["race-early"] = [early_race(rng) for _ in range(n)]
    rng = random.Random(20261206)
    out["ladder"] = []
    for _ in range(n):
        doc = deal(rng)
        line = random_play(rng, doc, 25)["played"]      # 24 cards: phase 1 (25 actions with an exchange)
        if "exchange" not in line:
            line = line[:24]
        for stock in range(0, 26, 2):
            cards = 0
            cut = 0
            while cut < len(line) and cards < 24 - stock:
                cards += line[cut] != "exchange"
                cut += 1
            out["ladder"].append(dict(doc, played=line[:cut]))
    for name, docs in out.items():
        path = CORPUS / f"mariasz-{name}.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        print(f"wrote {len(docs)} positions to {path}")


def load(name: str, n: int | None = None) -> list[dict]:
    path = CORPUS / f"mariasz-{name}.jsonl"
    if not path.is_file():
        known = sorted(p.stem.removeprefix("mariasz-") for p in CORPUS.glob("mariasz-*.jsonl"))
        usage_error("bench_mariasz.py", f"no corpus {name!r} (benchmarks/corpus has {', '.join(known)})")
    docs = [json.loads(line) for line in path.read_text().splitlines()]
    return docs if n is None else docs[:n]


# ---------------------------------------------------------------- measuring

def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def stock_left(doc: dict) -> int:
    return len(doc["stock"].split()) - sum(action != "exchange" for action in doc["played"])


def nodes_of(engine: Searcher, board: object) -> int:
    """A search's nodes, the core's and the endgame's: a build before the core counted the game's
    own nodes (GameOps.own_nodes; benchmarks/_checkout.py runs such builds) adds them here."""
    if getattr(core, "COUNTS_OWN_NODES", False):
        return engine.nodes
    return engine.nodes + board.endgame_nodes  # type: ignore[attr-defined]


def solve(engine: Searcher, doc: dict, timeout: float | None = None) -> tuple[float, int] | None:
    """(search seconds, nodes: the core's + the endgame's) of a cold 'all' solve; None if it timed out."""
    session = ddcards.Position.from_dict(doc).session()
    engine.clear()
    start = time.perf_counter()
    try:
        session.search(engine, MODE_ALL, None, timeout)       # as the CLI and the API search it
    except SearchTimeout:
        return None
    return time.perf_counter() - start, nodes_of(engine, session.board)


def corpus_rows(engine: Searcher, deals: int, limit: float) -> None:
    """One row per corpus, printed as it is measured."""
    print("| corpus | positions | finished (limit) | search median | p90 | max | nodes median | nodes/s |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for name, n in (("phase2", 4 * deals), ("race", deals), ("race-early", deals), ("szlifowany", deals),
                    ("kiks", deals), ("three", deals), ("mixed", 2 * deals)):
        times, nodes, docs = [], [], load(name, n)
        for doc in docs:
            got = solve(engine, doc, timeout=limit)
            if got is not None:
                times.append(got[0])
                nodes.append(got[1])
        # a position stopped at the limit counts as the limit in the median and the p90 (it took longer)
        padded = times + [limit] * (len(docs) - len(times))
        note = "" if len(times) == len(docs) else " (unfinished: > limit)"
        # nodes of the finished positions only (a stopped search's are not counted)
        node_cells = (f"{statistics.median(nodes):,.0f} | {sum(nodes) / sum(times) / 1e6:.1f} M" if times
                      else "- | -")
        print(f"| mariasz-{name} | {len(docs)} | {len(times)} ({limit:g} s) | {statistics.median(padded) * 1e3:.2f} ms | "
              f"{pct(padded, 0.9) * 1e3:.2f} ms | {max(padded) * 1e3:.2f} ms{note} | {node_cells} |", flush=True)


def ladder_rows(engine: Searcher, deals: int, limit: float) -> None:
    """Median work by stock size on the ladder deals, up the ladder while every deal finishes."""
    if deals <= 0:
        return                          # --ladder-deals 0: no ladder
    by_stock: dict[int, list[dict]] = {}
    for doc in load("ladder"):
        by_stock.setdefault(stock_left(doc), []).append(doc)
    print("| stock left | positions | finished | search median | p90 | max | nodes median | growth per trick |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    previous = None
    for stock in sorted(by_stock):
        docs = by_stock[stock][:deals]
        times, nodes = [], []
        for doc in docs:
            got = solve(engine, doc, timeout=limit)
            if got is not None:
                times.append(got[0])
                nodes.append(got[1])
        if len(nodes) < len(docs):
            print(f"| {stock} | {len(docs)} | {len(nodes)} (limit {limit:g} s) | | | | | |", flush=True)
            return
        med = statistics.median(nodes)
        growth = f"{med / previous:.1f}x" if previous else ""
        print(f"| {stock} | {len(docs)} | {len(nodes)} | {statistics.median(times) * 1e3:.1f} ms | "
              f"{pct(times, 0.9) * 1e3:.1f} ms | {max(times) * 1e3:.1f} ms | {med:,.0f} | {growth} |", flush=True)
        previous = med


def side_by_side(tt_mb: int) -> None:
    """Ideas measured on the same positions in one run (CPU seconds, exact node counts)."""
    from ddcards.games import _mariasz

    ladder = load("ladder")
    sets = {"36 cards, 10 left in the stock": [d for d in ladder if stock_left(d) == 10][:6],
            "36 cards, 6 left in the stock": [d for d in ladder if stock_left(d) == 6][:12],
            "szlifowany, from the first trick": load("szlifowany", 3)}
    engine = Searcher(tt_mb)
    print("The phase-2 endgame search off and on (the value alone):\n")
    print("| positions | endgame search | core nodes | endgame nodes | CPU time | values |")
    print("|---|---|---|---|---|---|", flush=True)
    for name, docs in sets.items():
        for on in (False, True):
            old = _mariasz.use_endgame(on)
            core = endgame = 0
            values = []
            start = time.process_time()
            for doc in docs:
                board = ddcards.Position.from_dict(doc).session().board
                engine.clear()
                values.append(engine.value(board))
                endgame += board.endgame_nodes
                core += nodes_of(engine, board) - board.endgame_nodes
            spent = time.process_time() - start
            _mariasz.use_endgame(old)
            print(f"| {name} ({len(docs)}) | {'on' if on else 'off'} | {core:,} | {endgame:,} | {spent:.2f} s | "
                  f"sum {sum(values)} |", flush=True)
    print("\nThe first null-window test at 0 or at the heuristic guess (szlifowany deals 21-32 of the corpus):\n")
    print("| first test | value: nodes | CPU | every first card: nodes | CPU |")
    print("|---|---|---|---|---|", flush=True)
    docs = load("szlifowany")[20:32]
    for label, zero in (("at 0", True), ("at the guess", False)):
        row = [0, 0.0, 0, 0.0]
        for doc in docs:
            for k, mode in ((0, None), (2, MODE_ALL)):
                board = ddcards.Position.from_dict(doc).session().board
                guess = 0 if zero else None
                engine.clear()
                start = time.process_time()
                if mode is None:
                    engine.value(board, guess=guess)
                else:
                    engine.solve(board, mode, guess=guess, want_pv=False)
                row[k + 1] += time.process_time() - start
                row[k] += nodes_of(engine, board)
        print(f"| {label} | {row[0]:,} | {row[1]:.2f} s | {row[2]:,} | {row[3]:.2f} s |", flush=True)


NO_ETC = 30000      # Board.etc_from that never looks children up (the core's VALUE_INF)


def compare_setups(tt_mb: int, sets: dict[str, list[dict]], setups: tuple) -> None:
    """Set-ups (label, prepare(board) or None, root split on one thread), or (label, a Searcher of
    its own table) with tt_mb 0, taking turns on each position of each set, every first card's
    value as the CLI asks it: CPU seconds, exact node counts (the core's and the endgame's), and
    whether the answers agree with the first set-up's."""
    shared = Searcher(tt_mb) if tt_mb else None
    print("| positions | set-up | nodes median | nodes total | CPU median | CPU total | answers |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for name, docs in sets.items():
        cpu: list[list[float]] = [[] for _ in setups]
        nodes: list[list[int]] = [[] for _ in setups]
        answers: list[list[object]] = [[] for _ in setups]
        for i, doc in enumerate(docs):
            order = list(range(len(setups)))
            for k in order[i % len(setups):] + order[:i % len(setups)]:
                _, prepare, *rest = setups[k]
                board = ddcards.Position.from_dict(doc).session().board
                if isinstance(prepare, Searcher):       # a set-up of its own table (table-sizes)
                    engine, split = prepare, True
                else:
                    engine, split = shared, rest[0]
                    if prepare is not None:
                        prepare(board)
                engine.clear()
                start = time.process_time()
                value, moves, _, _ = engine.solve(board, MODE_ALL, split=split)
                cpu[k].append(time.process_time() - start)
                nodes[k].append(nodes_of(engine, board))
                answers[k].append((value, sorted(moves)))
        for k, (label, *_) in enumerate(setups):
            same = "the same" if answers[k] == answers[0] else "DIFFER"
            print(f"| {name} ({len(docs)}) | {label} | {statistics.median(nodes[k]):,.0f} | {sum(nodes[k]):,} | "
                  f"{statistics.median(cpu[k]) * 1e3:.0f} ms | {sum(cpu[k]):.2f} s | {same} |", flush=True)


def etc_split(tt_mb: int) -> None:
    """The mid-trick enhanced transposition cutoff (Board.etc_from) and the root split on one
    thread (MariaszSession.search), each off and on."""
    ladder = load("ladder")
    sets = {"szlifowany, from the first trick (1-20)": load("szlifowany", 20),
            "36 cards, 12 left in the stock": [d for d in ladder if stock_left(d) == 12][:10],
            "36 cards, 14 left in the stock": [d for d in ladder if stock_left(d) == 14][:10]}

    def no_etc(board: object) -> None:
        board.etc_from = NO_ETC  # type: ignore[attr-defined]

    compare_setups(tt_mb, sets, (("neither (as before)", no_etc, False), ("ETC", None, False),
                                 ("ETC + root split", None, True)))


def reply_first(tt_mb: int) -> None:
    """Mid-trick replies: the game's first choice first and the last refuting reply second, or
    the last refuting reply first (Board.reply_first), on every variant."""
    ladder = load("ladder")
    sets = {"szlifowany, from the first trick (1-20)": load("szlifowany", 20)}
    for left in (10, 12, 14):
        sets[f"36 cards, {left} left in the stock"] = [d for d in ladder if stock_left(d) == left][:10]
    sets["Kiks, from the first trick (1-20)"] = load("kiks", 20)
    sets["three players, from the first trick (1-10)"] = load("three", 10)

    def setting(on: bool):  # noqa: ANN202
        def prepare(board: object) -> None:
            board.reply_first = on  # type: ignore[attr-defined]
        return prepare

    compare_setups(tt_mb, sets, (("the game's reply first", setting(False), True),
                                 ("the last refuting reply first", setting(True), True)))


BUILD_SETS = (("phase 2, the stock used up (1-160)", "phase2", None, 160),
              ("szlifowany, from the first trick (1-20)", "szlifowany", None, 20),
              ("36 cards, 10 left in the stock", "ladder", 10, 10),
              ("36 cards, 12 left in the stock", "ladder", 12, 10),
              ("36 cards, 14 left in the stock", "ladder", 14, 10),
              ("race, szlifowany, from the first trick (25)", "race", 12, 25),
              ("Kiks, from the first trick (1-20)", "kiks", None, 20),
              ("three players, from the first trick (1-5)", "three", None, 5))


def build_worker(tt_mb: int) -> None:
    """One side of `builds`: solves the documents it reads, one JSON line each (CPU s, nodes, answer)."""
    engine = Searcher(tt_mb)
    for line in sys.stdin:
        session = ddcards.Position.from_dict(json.loads(line)).session()
        engine.clear()
        start = time.process_time()
        value, moves, _, _ = session.search(engine, MODE_ALL, None, None)
        spent = time.process_time() - start
        print(json.dumps([spent, nodes_of(engine, session.board), [value, sorted(moves)]]), flush=True)


def build_sets(names: list[str]) -> tuple:
    """BUILD_SETS's rows for sets named CORPUS:N (its first N positions) or CORPUS:LEFT:N (its
    first N positions with LEFT cards in the stock, e.g. ladder:14:10, race:24:15)."""
    rows = []
    for name in names:
        parts = name.split(":")
        if not 2 <= len(parts) <= 3 or not all(x.isdigit() for x in parts[1:]) or int(parts[-1]) < 1:
            usage_error("bench_mariasz.py", f"a set is CORPUS:N or CORPUS:LEFT:N (whole numbers, N at least 1), "
                                            f"not {name!r}")
        load(parts[0], 0)                                   # a corpus that exists
        if parts[0] == "ladder" and len(parts) == 3:
            rows.append((f"36 cards, {parts[1]} left in the stock", "ladder", int(parts[1]), int(parts[2])))
        elif len(parts) == 3:
            rows.append((f"{parts[0]}, {parts[1]} in the stock (1-{parts[2]})", parts[0], int(parts[1]), int(parts[2])))
        elif len(parts) == 2:
            rows.append((f"{parts[0]} (1-{parts[1]})", parts[0], None, int(parts[1])))
        else:
            raise SystemExit(f"bench_mariasz.py: a set is CORPUS:N or CORPUS:LEFT:N, not {name!r}")
        if len(parts) == 3:
            # a stock size no position has was an empty set: a StatisticsError after the sets before
            # it had run (Kiks and three players, without a stock: a KeyError)
            lefts = sorted({stock_left(d) for d in load(parts[0]) if "stock" in d})
            if int(parts[1]) not in lefts:
                have = ", ".join(map(str, lefts)) or "none"
                usage_error("bench_mariasz.py", f"{name!r}: mariasz-{parts[0]} has no position with {int(parts[1])} "
                                                f"cards left in the stock (it has {have})")
    return tuple(rows)


def set_docs(corpus: str, stock: int | None, n: int) -> list[dict]:
    """The positions of a row of BUILD_SETS: the first n of the corpus (with `stock` cards left in
    the stock, unless None)."""
    docs = load(corpus) if stock is None else [d for d in load(corpus) if stock_left(d) == stock]
    return docs[:n]


def builds(old: str, new: str, tt_mb: int, sets: tuple = BUILD_SETS) -> None:
    """Two builds of the package side by side: OLD and NEW are folders holding a `ddcards`
    package each (e.g. a copy of `solver/` as built at each commit, renamed), or `.` for the
    installed one.  One worker process per build; they take turns on each position (every
    first card's value, as the CLI asks it).  sets: BUILD_SETS, or those named (build_sets)."""
    import subprocess

    workers = []
    for path in (old, new):
        env = dict(os.environ)
        if path != ".":
            env["PYTHONPATH"] = os.path.abspath(path)
        workers.append(subprocess.Popen([sys.executable, __file__, "build-worker", str(tt_mb)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env, cwd="/"))
    print("| positions | build | nodes median | nodes total | CPU median | CPU total | answers |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for label, corpus, stock, n in sets:
        docs = set_docs(corpus, stock, n)
        got: list[list[list]] = [[], []]
        for i, doc in enumerate(docs):
            for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                try:
                    workers[k].stdin.write(json.dumps(doc) + "\n")
                    workers[k].stdin.flush()
                    line = workers[k].stdout.readline()
                except BrokenPipeError:
                    line = ""
                if not line:        # (a BrokenPipeError or JSONDecodeError traceback, the other worker left)
                    for w in workers:
                        w.kill()
                        w.wait()
                    raise SystemExit(f"bench_mariasz.py builds: the worker of {(old, new)[k]} stopped "
                                     "(its error is above)")
                got[k].append(json.loads(line))
        for k, path in enumerate((old, new)):
            same = "the same" if [r[2] for r in got[k]] == [r[2] for r in got[0]] else "DIFFER"
            cpu = [r[0] for r in got[k]]
            nodes = [r[1] for r in got[k]]
            print(f"| {label} ({len(docs)}) | {path} | {statistics.median(nodes):,.0f} | {sum(nodes):,} | "
                  f"{statistics.median(cpu) * 1e3:.0f} ms | {sum(cpu):.2f} s | {same} |", flush=True)
    for w in workers:
        w.stdin.close()
        w.wait()


# ---------------------------------------------------------------- table sizes

def table_sizes(argv: list[str]) -> None:
    """Fixed table sizes taking turns on each position (every first card's value, as the CLI asks
    it, cold): which size serves which search best.  A set is a corpus name (its first --deals
    positions) or ladder:N (the first --deals ladder positions with N cards left in the stock)."""
    ap = argparse.ArgumentParser(prog="bench_mariasz.py table-sizes", description=table_sizes.__doc__)
    ap.add_argument("sizes", help="MiB, comma-separated, e.g. 32,128,512")
    ap.add_argument("sets", nargs="+", help="e.g. ladder:16 ladder:20 three")
    ap.add_argument("--deals", type=positive, default=4, help="deals of each set (default 4)")
    args = ap.parse_args(argv)
    try:
        sizes = [table_mb(mb) for mb in args.sizes.split(",")]
    except argparse.ArgumentTypeError as exc:
        ap.error(f"argument sizes: {exc}")
    print(f"{machine_line()}; "
          f"one search thread. Command: python benchmarks/bench_mariasz.py table-sizes {args.sizes} "
          f"{' '.join(args.sets)} --deals {args.deals}\n")
    rows = build_sets([f"{name}:{args.deals}" for name in args.sets])
    sets = {label: set_docs(corpus, stock, n) for label, corpus, stock, n in rows}
    engines = [Searcher(mb) for mb in sizes]
    setups = tuple((f"{mb} MiB", engine) for mb, engine in zip(sizes, engines))
    compare_setups(0, sets, setups)


# ---------------------------------------------------------------- fresh deals

def fresh_one(index: int, mode: str, tt_mb: int) -> None:
    """Solve the ladder's index-th fresh 36-card deal (24 cards in the stock) cold, as `ddcards solve
    --mode MODE --tt-mb MIB` does (tt_mb 0: the table `ddcards solve` gives it); print one JSON
    line: CPU seconds, nodes (the core's and the endgame's), the value, the optimal first actions."""
    doc = [d for d in load("ladder") if stock_left(d) == 24][index]
    position = ddcards.Position.from_dict(doc)
    session = position.session()
    engine = Searcher(tt_mb or position.table_mb)
    code = {"best": MODE_BEST, "optimal": MODE_OPTIMAL, "all": MODE_ALL}[mode]
    start = time.process_time()
    value, moves, _, _ = session.search(engine, code, None, None, want_pv=False)
    cpu = time.process_time() - start
    print(json.dumps({"deal": index, "cpu": cpu, "nodes": nodes_of(engine, session.board),
                      "value": session.reported(value),
                      "optimal": [session.move_name(m) for m, v in moves if v == value or mode == "best"],
                      "moves": {session.move_name(m): v for m, v in moves if v is not None}}), flush=True)


def fresh(argv: list[str]) -> None:
    """Fresh deals from the first trick, each searched to the end in a process of its own, --jobs at
    a time (one per core); a line per deal as it finishes, then the distribution."""
    import subprocess
    ap = argparse.ArgumentParser(prog="bench_mariasz.py fresh", description=fresh.__doc__)
    ap.add_argument("--deals", type=positive, default=4, help="the first N fresh deals of the ladder corpus")
    ap.add_argument("--mode", choices=("best", "optimal", "all"), default="best")
    ap.add_argument("--jobs", type=positive, default=2)
    ap.add_argument("--tt-mb", type=lambda text: count(text) and table_mb(text), default=0,
                    help="MiB; 0 (default): as the CLI sizes it (Position.table_mb)")
    args = ap.parse_args(argv)
    # fresh-one takes the index-th one: past the last, its worker raised IndexError and this loop a
    # JSONDecodeError, only after the deals before it had run (minutes each)
    available = sum(stock_left(d) == 24 for d in load("ladder"))
    if args.deals > available:
        ap.error(f"argument --deals: {args.deals} is more than the {available} fresh deals of the ladder corpus")
    table = f"{args.tt_mb} MiB" if args.tt_mb else "sized as the CLI does (Position.table_mb)"
    print(f"{machine_line()}; "
          f"one search thread per deal, {args.jobs} deals at a time; table {table}. Command: python "
          f"benchmarks/bench_mariasz.py fresh --deals {args.deals} --mode {args.mode} --jobs {args.jobs} "
          f"--tt-mb {args.tt_mb}\n", flush=True)
    print("| deal | CPU | nodes | value | optimal first actions |")
    print("|---|---|---|---|---|", flush=True)
    pending, running, done = list(range(args.deals)), [], []
    while pending or running:
        while pending and len(running) < args.jobs:
            i = pending.pop(0)
            running.append(subprocess.Popen([sys.executable, __file__, "fresh-one", str(i), args.mode, str(args.tt_mb)],
                                            stdout=subprocess.PIPE, text=True))
        time.sleep(0.5)
        for proc in [p for p in running if p.poll() is not None]:
            running.remove(proc)
            if proc.returncode:
                # (its error is above, on stderr; reading its empty output was a JSONDecodeError
                # traceback, and the deals still running went on for minutes without a reader)
                for other in running:
                    other.kill()
                    other.wait()
                raise SystemExit(f"bench_mariasz.py fresh: deal {int(proc.args[3]) + 1} failed (exit status "
                                 f"{proc.returncode}); the deals running beside it were stopped")
            got = json.loads(proc.stdout.read())
            done.append(got)
            print(f"| {got['deal'] + 1} | {got['cpu']:.0f} s | {got['nodes']:,} | {got['value']:+d} | "
                  f"{' '.join(got['optimal'])} |", flush=True)
    cpu = [d["cpu"] for d in done]
    print(f"\n{len(done)} fresh deals, mode {args.mode}: CPU median {statistics.median(cpu):.0f} s, "
          f"max {max(cpu):.0f} s; nodes median {statistics.median(d['nodes'] for d in done):,.0f}")


# Subcommands read by position: (least, most) arguments after the name, and the place of the
# table size in MiB among them (None: none) (fresh and table-sizes parse their own options);
# build-worker and fresh-one are this script's own workers.
_POSITIONAL = {"side-by-side": (0, 1, 0), "etc-split": (0, 1, 0), "reply-first": (0, 1, 0), "builds": (2, None, 2),
               "corpus": (0, 0, None), "build-worker": (1, 1, None), "fresh-one": (3, 3, None)}


def _check_positional(argv: list[str]) -> None:
    """A subcommand's arguments by count, a table size a whole number: else the usage and exit status 2."""
    least, most, size_at = _POSITIONAL[argv[0]]
    rest = argv[1:]
    if "-h" in rest or "--help" in rest:
        print(__doc__)
        sys.exit(0)
    sizes = rest[size_at:size_at + 1] if size_at is not None else []
    if len(rest) < least or (most is not None and len(rest) > most) or \
            not all(x.isdigit() and int(x) > 0 for x in sizes):
        usage_error(f"bench_mariasz.py {argv[0]}", f"wrong arguments {rest} (the module docstring lists each "
                                                    "subcommand's; --help prints it)")
    for size in sizes:                  # (past the machine's memory: a MemoryError traceback)
        try:
            table_mb(size)
        except argparse.ArgumentTypeError as exc:
            usage_error(f"bench_mariasz.py {argv[0]}", f"MIB: {exc}")
    if argv[0] == "builds":
        for folder in rest[:2]:
            if folder != "." and not (Path(folder) / "ddcards" / "__init__.py").is_file():
                usage_error("bench_mariasz.py builds", f"{folder!r} holds no ddcards package (a folder with a "
                                                       "ddcards/ built in place, or . for the installed one)")


def main() -> None:
    if sys.argv[1:2] and sys.argv[1] in _POSITIONAL:
        _check_positional(sys.argv[1:])
    sets = build_sets(sys.argv[5:]) if sys.argv[1:2] == ["builds"] and len(sys.argv) > 5 else BUILD_SETS
    if sys.argv[1:2] and sys.argv[1] in ("side-by-side", "etc-split", "reply-first", "builds"):
        print(f"{machine_line()}. Command: python benchmarks/bench_mariasz.py {' '.join(sys.argv[1:])}\n", flush=True)
    if sys.argv[1:2] == ["fresh"]:
        fresh(sys.argv[2:])
        return
    if sys.argv[1:2] == ["table-sizes"]:
        table_sizes(sys.argv[2:])
        return
    if sys.argv[1:2] == ["fresh-one"]:
        fresh_one(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
        return
    if sys.argv[1:2] == ["corpus"]:
        make_corpora()
        return
    if sys.argv[1:2] == ["side-by-side"]:
        side_by_side(int(sys.argv[2]) if len(sys.argv) > 2 else 16)
        return
    if sys.argv[1:2] == ["builds"]:
        builds(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 16, sets)
        return
    if sys.argv[1:2] == ["build-worker"]:
        build_worker(int(sys.argv[2]))
        return
    if sys.argv[1:2] == ["reply-first"]:
        reply_first(int(sys.argv[2]) if len(sys.argv) > 2 else 32)
        return
    if sys.argv[1:2] == ["etc-split"]:
        etc_split(int(sys.argv[2]) if len(sys.argv) > 2 else 16)
        return
    # the whole docstring: its first lines list the subcommands (corpus, fresh, ...), which this parser does not see
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=positive, default=40, help="positions per corpus (phase 2: four times as many)")
    ap.add_argument("--ladder-deals", type=count, default=12, help="deals per rung of the stock ladder")
    ap.add_argument("--ladder-limit", type=seconds, default=20.0, help="seconds per ladder position")
    ap.add_argument("--limit", type=seconds, default=30.0, help="seconds per corpus position")
    ap.add_argument("--tt-mb", type=table_mb, default=16, help="the table of every search, MiB (default 16)")
    args = ap.parse_args()
    engine = Searcher(args.tt_mb)
    # The first searches of a process pay for the table's pages (the kernel zeroes and may first
    # gather huge pages: 40-110 ms, RESULTS "A fresh Solver's first large table"): not timed.
    for doc in load("szlifowany", 2):
        solve(engine, doc)
    print(f"{machine_line()}; one search thread; table {args.tt_mb} MiB (warmed up by two untimed szlifowany "
          f"solves). Command: python benchmarks/bench_mariasz.py "
          f"--deals {args.deals} --limit {args.limit:g} --ladder-deals {args.ladder_deals} "
          f"--ladder-limit {args.ladder_limit:g} --tt-mb {args.tt_mb}\n", flush=True)
    corpus_rows(engine, args.deals, args.limit)
    print()
    ladder_rows(engine, args.ladder_deals, args.ladder_limit)


if __name__ == "__main__":
    main()
