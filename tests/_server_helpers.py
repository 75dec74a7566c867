"""Shared helpers of the server tests: seeded Mariáš positions and a server fixture factory."""
from __future__ import annotations

import random
import time
from contextlib import contextmanager
from typing import Any

RANKS = "AKQJT987"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]


def _hand(cards: list[str]) -> str:
    return ".".join("".join(c[0] for c in sorted((c for c in cards if c[1] == s), key=lambda c: RANKS.index(c[0])))
                    for s in SUITS)


def marias_deal(seed: int, contract: str = "hra", trump: str = "H") -> dict[str, Any]:
    """A seeded Mariáš deal after the discard (10/10/10 + a talon of 2; no A or T in a hra talon)."""
    rng = random.Random(seed)
    deck = DECK[:]
    while True:
        rng.shuffle(deck)
        talon = deck[30:]
        if contract != "hra" or all(c[0] not in "AT" for c in talon):
            break
    doc: dict[str, Any] = {
        "game": "marias",
        "hands": [_hand(deck[0:10]), _hand(deck[10:20]), _hand(deck[20:30])],
        "talon": " ".join(talon),
        "contract": contract,
    }
    if contract == "hra":
        doc["trump"] = trump
    return doc


def marias_position(seed: int, tricks_played: int, contract: str = "hra") -> dict[str, Any]:
    """A deal with ``tricks_played`` tricks of seeded random legal play (uses the solver's rules)."""
    import ddcards

    doc = marias_deal(seed, contract)
    rng = random.Random(seed * 7919 + tricks_played)
    position = ddcards.Position.from_dict(doc)
    played: list[str] = []
    for _ in range(3 * tricks_played):
        move = rng.choice(list(position.legal_moves))
        played.append(str(move))
        position = position.play(move)
    return dict(doc, played=played)


@contextmanager
def running_server(**kwargs: Any):
    """A server on an ephemeral loopback port; stopped (no grace) on exit."""
    from ddcards.server.main import start_server

    kwargs.setdefault("host", "127.0.0.1")
    kwargs.setdefault("port", 0)
    kwargs.setdefault("tt_mb", 16)
    server = start_server(**kwargs)
    try:
        yield server
    finally:
        server.stop(0)


def wait_until(predicate: Any, timeout: float = 30.0, step: float = 0.005) -> bool:
    """Poll `predicate` until it holds or `timeout` seconds pass; its last answer.  (The default is
    long: it returns as soon as the predicate holds, and a loaded CI machine once took over 5 s.)"""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())
