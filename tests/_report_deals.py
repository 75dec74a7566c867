"""Recorded deals for the report and board tests: whole deals with seeded play.

The play is drawn by the plain-Python reference rules (tests/reference), not by the solver:
at each card the recorded player picks a random legal card with probability ``slip``, else a
card the reference's own ordering puts first, so the deals hold some mistakes and some good
play.  Mariáš deals come from the server tests' seeded dealer; Klaverjas deals are seeded
shuffles.  ``replay`` gives the reference state after every card, to check the analysis's
trick winners and scores against.
"""
from __future__ import annotations

import random
from typing import Any

try:
    from tests._server_helpers import marias_deal
    from tests.reference import klaverjas as ref_klaverjas
    from tests.reference import marias as ref_marias
except ImportError:  # pytest put tests/ itself on sys.path
    from _server_helpers import marias_deal
    from reference import klaverjas as ref_klaverjas
    from reference import marias as ref_marias

import ddcards

KLAVERJAS_RANKS = "AKQJT987"


def reference_state(doc: dict[str, Any]):
    """The reference state of `doc` with nothing played."""
    start = dict(doc, played=[])
    return (ref_marias if doc["game"] == "marias" else ref_klaverjas).from_doc(start)


def play_out(doc: dict[str, Any], seed: int, slip: float = 0.3) -> dict[str, Any]:
    """`doc` with a whole deal of seeded play recorded (reference rules)."""
    rng = random.Random(seed)
    state = reference_state(doc)
    played = []
    while not state.over:
        legal = sorted(state.legal_moves())
        card = rng.choice(legal) if rng.random() < slip else legal[0]
        played.append(card)
        state = state.play(card)
    return dict(doc, played=played)


def klaverjas_deal(seed: int, rules: str = "amsterdam") -> dict[str, Any]:
    rng = random.Random(seed)
    deck = [r + s for s in "SHDC" for r in KLAVERJAS_RANKS]
    rng.shuffle(deck)
    hands = [".".join("".join(sorted((c[0] for c in deck[8 * i:8 * i + 8] if c[1] == s), key=KLAVERJAS_RANKS.index))
                      for s in "SHDC") for i in range(4)]
    return {"game": "klaverjas", "rules": rules, "trump": "SHDC"[seed % 4], "playing_team": seed % 2,
            "hands": hands}


def seed_deal() -> dict[str, Any]:
    """The bundled hand-checked Mariáš deal (three cards that lose 20, none that turn the result)."""
    return ddcards.example("marias-seed")


def marias_deals() -> list[dict[str, Any]]:
    return [
        seed_deal(),
        play_out(marias_deal(3, "hra", "S"), 3),
        play_out(dict(marias_deal(25, "hra", "C"), objective="sedma"), 25, slip=0.5),   # lost at the first card
        play_out(marias_deal(11, "betl"), 11, slip=0.5),
    ]


def klaverjas_deals() -> list[dict[str, Any]]:
    return [
        play_out(dict(ddcards.example("klaverjas")), 1),
        play_out(klaverjas_deal(2, "amsterdam"), 2),
        play_out(klaverjas_deal(7, "rotterdam"), 7, slip=0.5),
    ]


def replay(doc: dict[str, Any]) -> list[Any]:
    """The reference state after every recorded card."""
    state = reference_state(doc)
    states = []
    for card in doc["played"]:
        state = state.play(ref_marias.parse_card(card) if doc["game"] == "marias" else card)
        states.append(state)
    return states
