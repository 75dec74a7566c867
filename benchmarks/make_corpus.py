"""Write the fixed, seeded benchmark corpora (JSON Lines of position documents).

    python benchmarks/make_corpus.py            # rewrites benchmarks/corpus/*.jsonl

Deals are random, then the declarer bids as a player would: for Hra he takes
the suit where his 12 cards are longest and strongest as trumps and discards
his two weakest side cards (never an A or T); Betl and Durch deals are drawn
with the declarer's cards weighted towards low (Betl) or high (Durch) ranks,
and he discards his two highest (Betl) or lowest (Durch) cards.  The mixed corpus samples the
whole space instead: random trumps, discards, objectives, announcements, options, stakes, flek
and three or four players.  Two corpora cover what the mixed one meets too rarely to measure:
marias-announced (Hra with Sedma, Kilo or both announced or asked: forehand's trumps chosen among
the suits whose seven, or king and queen, he holds) and marias-midgame (mixed deals cut after 1
to 20 random legal cards, a trick in progress or not: the positions an analysis solves).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from _args import positive

RANKS = "789TJQKA"                  # natural order
HRA_POWER = "789JQKTA"              # Hra order, low to high
BETL_POWER = "789TJQKA"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]
OUT = Path(__file__).parent / "corpus"


def hand_string(cards: list[str], power: str) -> str:
    return ".".join("".join(sorted((c[0] for c in cards if c[1] == s), key=power.index, reverse=True))
                    for s in SUITS)


def weighted_hand(rng: random.Random, deck: list[str], n: int, low: bool) -> list[str]:
    pool, hand = list(deck), []
    for _ in range(n):
        weights = [(8 - BETL_POWER.index(c[0])) ** 2 if low else (1 + BETL_POWER.index(c[0])) ** 2 for c in pool]
        card = rng.choices(pool, weights)[0]
        pool.remove(card)
        hand.append(card)
    return hand


def deal_rest(rng: random.Random, forehand12: list[str]) -> tuple[list[str], list[str]]:
    rest = [c for c in DECK if c not in forehand12]
    rng.shuffle(rest)
    return rest[:10], rest[10:]


def hra_deal(rng: random.Random) -> dict:
    deck = list(DECK)
    rng.shuffle(deck)
    fh = deck[:12]
    strength = {s: sum(1 + HRA_POWER.index(c[0]) for c in fh if c[1] == s) + 4 * sum(c[1] == s for c in fh)
                for s in SUITS}
    trump = max(SUITS, key=lambda s: strength[s])
    side = [c for c in fh if c[1] != trump and c[0] not in "AT"]
    side.sort(key=lambda c: (sum(x[1] == c[1] for x in fh), HRA_POWER.index(c[0])))
    talon = side[:2] if len(side) >= 2 else side + [c for c in fh if c[1] == trump and c[0] not in "AT"][:2 - len(side)]
    hand0 = [c for c in fh if c not in talon]
    h1, h2 = deck[12:22], deck[22:32]
    return {"game": "marias", "contract": "hra", "trump": trump,
            "hands": [hand_string(h, HRA_POWER) for h in (hand0, h1, h2)], "talon": " ".join(talon)}


def no_trump_deal(rng: random.Random, contract: str) -> dict:
    low = contract == "betl"
    fh = weighted_hand(rng, DECK, 12, low)
    fh.sort(key=lambda c: BETL_POWER.index(c[0]), reverse=low)
    talon, hand0 = fh[:2], fh[2:]
    h1, h2 = deal_rest(rng, fh)
    return {"game": "marias", "contract": contract,
            "hands": [hand_string(h, BETL_POWER) for h in (hand0, h1, h2)], "talon": " ".join(talon)}


def mixed_deal(rng: random.Random) -> dict:
    """A deal from the whole space a user may ask about, not the bidder's friendly corner: a
    uniformly random deal and discard, Hra (70%) with a random trump suit forehand holds, a random
    objective (hra, sedma, kilo or money with the announcements his cards allow), Betl or Durch
    (15% each, for the outcome or the money), random rule options (Hra's) and flek."""
    deck = list(DECK)
    rng.shuffle(deck)
    fh, h1, h2 = deck[:12], deck[12:22], deck[22:32]
    contract = rng.choices(["hra", "betl", "durch"], [70, 15, 15])[0]
    doc: dict = {"game": "marias", "contract": contract}
    if contract == "hra":
        trump = rng.choice(sorted({c[1] for c in fh}))
        talon = rng.sample([c for c in fh if c[0] not in "AT"], 2)    # RULES §1.3 rule 3
        hand0 = [c for c in fh if c not in talon]
        doc["trump"] = trump
        allowed = [a for a, cards in (("sedma", ["7"]), ("kilo", ["K", "Q"]))
                   if all(r + trump in hand0 for r in cards)]
        objective = rng.choice(["hra", "hra", "money"] + allowed)
        if objective == "money" and allowed:
            doc["announcements"] = rng.sample(allowed, rng.randint(0, len(allowed)))
        if objective != "hra":
            doc["objective"] = objective
    else:
        talon = rng.sample(fh, 2)
        hand0 = [c for c in fh if c not in talon]
        if rng.random() < 0.5:
            doc["objective"] = "money"
    power = HRA_POWER if contract == "hra" else BETL_POWER
    doc["hands"] = [hand_string(h, power) for h in (hand0, h1, h2)]
    doc["talon"] = " ".join(talon)
    if rng.random() < 0.3:
        doc["flek"] = rng.randint(1, 2)
    if contract == "hra":          # the rule options of a game with points (RULES §1.9)
        options = {"marriage_on_follow": rng.random() < 0.5, "talon_points": rng.choice(["defenders", "nobody"])}
        options = {k: v for k, v in options.items() if v not in (False, "defenders")}
        if options:
            doc["options"] = options
    return doc


def widen(rng: random.Random, docs: list[dict]) -> None:
    """The parts of the space the mixed deals above leave out, drawn from a stream of their own so
    that the deals stay as they were: four players (20%: the dealer sits out, so only the
    settlement changes), and the stakes of Sedma and Kilo wherever they count (Sedma or Kilo
    asked as the objective, or announced), half the time."""
    for doc in docs:
        if rng.random() < 0.2:
            doc["players"] = 4
        if doc["contract"] != "hra":
            continue
        if doc.get("objective") in ("sedma", "kilo") or doc.get("announcements"):
            if rng.random() < 0.5:
                options = doc.setdefault("options", {})
                options["sedma_value"], options["kilo_value"] = rng.randint(0, 5), rng.randint(0, 10)


def announced_deal(rng: random.Random) -> dict:
    """A Hra deal with Sedma, Kilo or both at stake: a uniformly random deal whose forehand holds
    the seven, or the king and queen, of some suit (for 40% of the deals both, for the other 60%
    either: redrawn until he does), that suit trumps, a random discard (no A or T, none of the
    announced cards), then the announcements he may make (70%: the money objective with one or
    both of them, both wherever both were asked for) or one of them as the objective (30%); three
    or four players, flek, stakes and rule options at random."""
    both = rng.random() < 0.4
    while True:
        deck = list(DECK)
        rng.shuffle(deck)
        fh, h1, h2 = deck[:12], deck[12:22], deck[22:32]
        can = {s: [a for a, ranks in (("sedma", "7"), ("kilo", "KQ")) if all(r + s in fh for r in ranks)]
               for s in SUITS}
        suits = [s for s in SUITS if len(can[s]) == 2 or (can[s] and not both)]
        if suits:
            break
    trump = rng.choice(suits)
    keep = {r + trump for a in can[trump] for r in ("7" if a == "sedma" else "KQ")}
    talon = rng.sample([c for c in fh if c[0] not in "AT" and c not in keep], 2)
    hand0 = [c for c in fh if c not in talon]
    doc: dict = {"game": "marias", "contract": "hra", "trump": trump}
    if rng.random() < 0.7:
        doc["objective"] = "money"
        doc["announcements"] = can[trump] if both else rng.sample(can[trump], rng.randint(1, len(can[trump])))
    else:
        doc["objective"] = rng.choice(can[trump])
    doc["hands"] = [hand_string(h, HRA_POWER) for h in (hand0, h1, h2)]
    doc["talon"] = " ".join(talon)
    if rng.random() < 0.3:
        doc["flek"] = rng.randint(1, 2)
    options: dict = {}
    if rng.random() < 0.5:
        options["sedma_value"], options["kilo_value"] = rng.randint(0, 5), rng.randint(0, 10)
    if rng.random() < 0.5:
        options["marriage_on_follow"] = True
    if rng.random() < 0.5:
        options["talon_points"] = "nobody"
    if options:
        doc["options"] = options
    if rng.random() < 0.2:
        doc["players"] = 4
    return doc


def midgame(rng: random.Random, doc: dict) -> dict:
    """`doc` after 1 to 20 random legal cards (fewer if the deal ends first: Betl and Durch may)."""
    import ddcards
    pos = ddcards.Position.from_dict(doc)
    played: list[str] = []
    for _ in range(rng.randint(1, 20)):
        if pos.is_over:
            break
        move = rng.choice(list(pos.legal_moves))
        pos = pos.play(move)
        played.append(str(move))
    return dict(doc, played=played)


def main(n: int = 200) -> None:
    OUT.mkdir(exist_ok=True)
    for contract, seed in (("hra", 20261129), ("betl", 20261130), ("durch", 20261131), ("mixed", 20261203)):
        rng = random.Random(seed)
        make = {"hra": hra_deal, "mixed": mixed_deal}.get(contract, lambda r: no_trump_deal(r, contract))
        docs = [make(rng) for _ in range(n)]
        if contract == "mixed":
            widen(random.Random(20261206), docs)
        path = OUT / f"marias-{contract}.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        print(f"wrote {len(docs)} deals to {path}")
    rng = random.Random(20261207)
    extra = {"announced": [announced_deal(rng) for _ in range((n + 1) // 2)]}
    rng = random.Random(20261208)
    mixed = [mixed_deal(rng) for _ in range((n + 1) // 2)]
    widen(random.Random(20261209), mixed)
    extra["midgame"] = [midgame(rng, doc) for doc in mixed]
    for name, docs in extra.items():
        path = OUT / f"marias-{name}.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        print(f"wrote {len(docs)} positions to {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("deals", nargs="?", type=positive, default=200, help="deals per corpus (default 200)")
    main(parser.parse_args().deals)
