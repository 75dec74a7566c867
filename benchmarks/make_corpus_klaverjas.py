"""Write the fixed, seeded Klaverjas benchmark corpora (JSON Lines of position documents).

    python benchmarks/make_corpus_klaverjas.py [N]   # rewrites benchmarks/corpus/klaverjas-*.jsonl

Deals are random. In klaverjas-amsterdam and klaverjas-rotterdam trumps are bid as the seed's
advice says a player should: starting with seat 0 (left of the dealer), the first player
holding the jack, or the nine and the ace, of a suit with at least three cards of it names
that suit (his strongest such suit); if nobody does, seat 0 must choose and takes his
strongest suit.  The bidder's team is the playing team.  klaverjas-mixed samples the whole
space instead, as benchmarks/bench_dds.py draws its layouts: a random trump suit, playing team
and rule set, whoever holds what.  Seat 0 leads the first trick (RULES §2) in these three.
klaverjas-midgame covers the rest of what users solve (an analysis solves every position of a
deal): klaverjas-mixed's kind of deal with any seat leading the first trick, cut after 0 to 24
random legal cards, a trick in progress or not.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from _args import positive

RANKS = "789TJQKA"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
FORMAT_ORDER = "AKQJT987"
OUT = Path(__file__).parent / "corpus"


def hand_string(cards: list[str]) -> str:
    return ".".join("".join(r for r in FORMAT_ORDER if r + s in cards) for s in SUITS)


def strength(hand: list[str], suit: str) -> int:
    trumps = [c for c in hand if c[1] == suit]
    side_aces = sum(1 for c in hand if c[0] == "A" and c[1] != suit)
    return sum(TRUMP_POINTS[c[0]] for c in trumps) + 8 * len(trumps) + 5 * side_aces


def qualifies(hand: list[str], suit: str) -> bool:
    ranks = {c[0] for c in hand if c[1] == suit}
    return sum(c[1] == suit for c in hand) >= 3 and ("J" in ranks or {"9", "A"} <= ranks)


def bid(hands: list[list[str]]) -> tuple[int, str]:
    """(bidding seat, trump suit)."""
    for seat in range(4):
        suits = [s for s in SUITS if qualifies(hands[seat], s)]
        if suits:
            return seat, max(suits, key=lambda s: strength(hands[seat], s))
    return 0, max(SUITS, key=lambda s: strength(hands[0], s))


def deal(rng: random.Random, rules: str) -> dict:
    deck = list(DECK)
    rng.shuffle(deck)
    hands = [deck[8 * i: 8 * i + 8] for i in range(4)]
    seat, trump = bid(hands)
    return {"game": "klaverjas", "rules": rules, "trump": trump, "playing_team": seat % 2,
            "hands": [hand_string(h) for h in hands]}


def random_deal(rng: random.Random) -> dict:
    deck = list(DECK)
    rng.shuffle(deck)
    hands = [deck[8 * i: 8 * i + 8] for i in range(4)]
    return {"game": "klaverjas", "rules": rng.choice(("amsterdam", "rotterdam")), "trump": rng.choice(SUITS),
            "playing_team": rng.randrange(2), "hands": [hand_string(h) for h in hands]}


def midgame_position(rng: random.Random) -> dict:
    """klaverjas-mixed's kind of deal, any seat leading, after 0 to 24 random legal cards (the
    library plays them: an installed ddcards)."""
    import ddcards
    doc = random_deal(rng)
    leader = rng.randrange(4)
    if leader:
        doc["leader"] = leader
    pos = ddcards.Position.from_dict(doc)
    played: list[str] = []
    for _ in range(rng.randint(0, 24)):
        move = rng.choice(list(pos.legal_moves))
        pos = pos.play(move)
        played.append(str(move))
    return dict(doc, played=played)


def main(n: int = 200) -> None:
    OUT.mkdir(exist_ok=True)
    for name, seed in (("amsterdam", 20261201), ("rotterdam", 20261202), ("mixed", 20261205)):
        rng = random.Random(seed)
        docs = [random_deal(rng) if name == "mixed" else deal(rng, name) for _ in range(n)]
        path = OUT / f"klaverjas-{name}.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        print(f"wrote {len(docs)} deals to {path}")
    rng = random.Random(20261206)
    docs = [midgame_position(rng) for _ in range((n + 1) // 2)]
    path = OUT / "klaverjas-midgame.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    print(f"wrote {len(docs)} positions to {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("deals", nargs="?", type=positive, default=200, help="deals per corpus (default 200)")
    main(parser.parse_args().deals)
