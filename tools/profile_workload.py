"""A representative workload for a profile-guided build.

setup.py compiles the extensions with profiling, runs this file against the freshly
built package, and compiles them again with what it recorded, so that the compiler lays
out the search's branches as real solves take them.  It is part of the build, not of the
package: it ships in the sdist (tools/), not in the wheel.
Every game, every search mode, nat deals, DD tables (a Mariáš contract table too) and analyses,
Mariasz's phase 1 and endgame search; a few seconds in all.  Deterministic (fixed seeds).
"""
from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

RANKS = "AKQJT987"


def klaverjas_deals(n: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    deck = [r + s for s in "SHDC" for r in RANKS]
    for i in range(n):
        rng.shuffle(deck)
        hands = []
        for seat in range(4):
            held = set(deck[8 * seat:8 * seat + 8])
            hands.append(".".join("".join(r for r in RANKS if r + s in held) for s in "SHDC"))
        yield {"game": "klaverjas", "hands": hands, "trump": rng.choice("SHDC"),
               "playing_team": rng.randrange(2), "rules": ("amsterdam", "rotterdam")[i % 2],
               "leader": rng.randrange(4)}


def prsi_deals(n: int, seats: int, seed: int, horizon: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    deck = [r + s for s in "SHDC" for r in RANKS]
    for _ in range(n):
        rng.shuffle(deck)
        hands = [" ".join(deck[4 * i:4 * i + 4]) for i in range(seats)]
        yield {"game": "prsi", "hands": [h.split() for h in hands], "upcard": deck[4 * seats],
               "stock": " ".join(deck[4 * seats + 1:]), "options": {"horizon": horizon}}


def mariasz_positions(n: int, seed: int) -> Iterator[dict[str, Any]]:
    """Two-player deals (either deck) after random play down to 4-8 cards left in the stock."""
    from ddcards import Position

    rng = random.Random(seed)
    for i in range(n):
        ranks = "6TJQKA" if i % 2 else "6789TJQKA"
        deck = [r + s for s in "SHDC" for r in ranks]
        rng.shuffle(deck)
        hands = [".".join("".join(r for r in reversed(ranks) if r + s in deck[6 * k:6 * k + 6]) for s in "SHDC")
                 for k in range(2)]
        doc: dict[str, Any] = {"game": "mariasz", "hands": hands, "stock": " ".join(deck[12:]),
                               "options": {"szlifowany": bool(i % 2), "must_beat": i % 3 == 0}}
        pos = Position.from_dict(doc)
        played: list[str] = []
        while len(deck) - 12 - sum(a != "exchange" for a in played) > 4 + 2 * (i % 3) and not pos.is_over:
            move = rng.choice(pos.legal_moves)
            pos = pos.play(move)
            played.append(move)
        yield dict(doc, played=played)


def main() -> None:
    from ddcards import Solver, example
    from ddcards.ddtable import dd_table

    start = time.perf_counter()
    engine = Solver()
    for doc in klaverjas_deals(60, 1):
        engine.solve(doc, mode="optimal")
    for doc in klaverjas_deals(4, 2):
        engine.solve(doc, mode="all")
    for doc in klaverjas_deals(2, 3):
        dd_table(doc, solver=engine)
    for name in ("marias-hra", "marias-seed", "marias-betl", "marias-durch", "klaverjas"):
        engine.analyse(example(name))
    # Prší: every node probes the table; fresh deals, 2 to 4 players, and an analysis.
    for seats, horizon in ((2, 26), (3, 24), (4, 30)):
        for doc in prsi_deals(6, seats, 4, horizon):
            engine.solve(doc)
    engine.analyse(example("prsi-endgame"))
    # a Mariáš contract table: Hra margins, money with announcements, Betl and Durch
    dd_table({"game": "marias", "hands": ["AT.AKQ9.AT.K987", "KQ.TJ87.KQ.AT", "J987..J987.QJ"]}, solver=engine)
    # Mariasz: phase 1 and the endgame search (mid-stock deals), a race, Kiks, three players
    for doc in mariasz_positions(12, 4):
        engine.solve(doc, mode="all")
    for name in ("mariasz", "mariasz-race", "mariasz-kiks", "mariasz-three", "mariasz-phase2"):
        engine.solve(example(name), mode="all")
    print(f"profile workload: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    import sys

    if sys.argv[1:]:
        # setup.py runs it with no arguments; anything else is a mistake (or --help): say what it is.
        print(__doc__, file=sys.stderr)
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    main()
