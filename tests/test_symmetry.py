"""The solver answers alike when only the suits' names change, and Klaverjas when the seats turn.

Nothing in any game's rules tells one plain suit from another (docs/RULES.md): only trumps are
special, and in Mariáš's Betl and Durch and in Prší no suit is. A search that keys positions by
relative ranks, merges equivalent cards and orders moves by suit masks must therefore give the
same value, distance and move values when the suits are renamed (each move renamed back), and a
Klaverjas deal the same when every hand moves round the table with the lead and the playing
team. Positions come from the corpora of every game and rule set (the mixed corpora: every
contract, objective and variant), played on at random to where each solve is quick.
"""
from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards

try:
    from tests._batch_data import corpus
except ImportError:  # pytest put tests/ itself on sys.path
    from _batch_data import corpus

SUITS = "SHDC"
TOKEN = re.compile(r"([6789TJQKA])([SHDC])(?:/([SHDC]))?")

seeds = st.integers(0, 2**32 - 1)


def lines(*names: str) -> list[dict]:
    return [doc for name in names for doc in corpus(name)]


POSITIONS = {
    "klaverjas": lines("klaverjas-mixed", "klaverjas-amsterdam", "klaverjas-rotterdam"),
    "marias": lines("marias-mixed", "marias-announced", "marias-betl", "marias-durch", "marias-midgame"),
    "mariasz": lines("mariasz-mixed", "mariasz-kiks", "mariasz-three", "mariasz-phase2", "mariasz-race"),
    "prsi": lines("prsi-mixed", "prsi-midgame", "prsi-fresh-2", "prsi-fresh-3", "prsi-fresh-4"),
}


def renamed(token: str, names: dict[str, str]) -> str:
    """A card or an action with its suits renamed (an Ober's named suit too)."""
    found = TOKEN.fullmatch(token)
    if found is None:
        return token                            # draw, pass, exchange
    rank, suit, named = found.groups()
    return rank + names[suit] + ("/" + names[named] if named else "")


def relabelled(doc: dict, names: dict[str, str]) -> dict:
    """The position document with every suit renamed by `names`."""
    cards = lambda text: " ".join(renamed(str(card), names) for card in ddcards.parse_cards(text))  # noqa: E731
    out = dict(doc, hands=[" ".join(renamed(str(c), names) for c in ddcards.parse_hand(hand)) for hand in doc["hands"]],
               played=[renamed(token, names) for token in doc.get("played") or ()])
    for field in ("talon", "stock"):
        if doc.get(field):
            out[field] = cards(doc[field])
    if doc.get("upcard"):
        out["upcard"] = renamed(doc["upcard"], names)
    if doc.get("trump"):
        out["trump"] = names[doc["trump"]]
    return out


def played_on(rng: random.Random, doc: dict) -> ddcards.Position:
    """`doc` played on at random to where a solve is quick: a Mariasz stock used up, Kiks and
    three players a few tricks in, a Klaverjas deal half played, a Mariáš deal a trick or two in."""
    pos = ddcards.Position.from_dict(doc)
    game = pos.game
    if game == "mariasz":
        stock = len(str(doc.get("stock") or "").split())
        plies = stock + 2 if stock else len(pos.hands[0]) * len(pos.hands) // 2
    elif game == "klaverjas":
        plies = rng.randrange(12, 25)
    elif game == "marias":
        plies = rng.randrange(0, 7)
    else:
        plies = rng.randrange(0, 6)
    plies = max(0, plies - len(pos.played))
    for _ in range(plies):
        if pos.is_over:
            break
        pos = pos.play(rng.choice(pos.legal_moves))
    return pos


def answers(doc: dict, back: dict[str, str] | None = None) -> tuple:
    res = ddcards.Solver(tt_mb=4).solve(doc, mode="all")
    moves = {renamed(m.move, back) if back else m.move: (m.value, m.distance) for m in res.moves}
    return res.value, res.distance, moves


def check_renamed_suits(game: str, seed: int) -> None:
    rng = random.Random(seed)
    pos = played_on(rng, rng.choice(POSITIONS[game]))
    doc = pos.to_dict()
    fixed = doc.get("trump") if not (game == "marias" and doc.get("contract") in ("betl", "durch")) else None
    free = [s for s in SUITS if s != fixed]
    names = dict(zip(free, rng.sample(free, len(free))), **({fixed: fixed} if fixed else {}))
    back = {new: old for old, new in names.items()}
    other = relabelled(doc, names)
    assert answers(doc) == answers(other, back), (json.dumps(doc), json.dumps(other))


@settings(deadline=None, max_examples=300)
@given(seeds, st.sampled_from(["klaverjas", "marias", "mariasz", "prsi"]))
def test_renamed_suits_give_the_same_answers(seed, game):
    check_renamed_suits(game, seed)


@settings(deadline=None, max_examples=100)
@given(seeds)
def test_a_klaverjas_deal_turned_round_the_table_gives_the_same_answers(seed):
    rng = random.Random(seed)
    doc = played_on(rng, dict(rng.choice(POSITIONS["klaverjas"]), played=[])).to_dict()
    turn = rng.randrange(1, 4)
    hands = doc["hands"]
    turned = dict(doc, hands=[hands[(seat - turn) % 4] for seat in range(4)],
                  leader=(doc.get("leader", 0) + turn) % 4, playing_team=(doc.get("playing_team", 0) + turn) % 2)
    assert answers(doc) == answers(turned), (json.dumps(doc), json.dumps(turned))


def test_renaming_is_what_it_says():
    # hearts and clubs swapped in a Mariáš Hra in spades; the history's cards and the talon follow
    doc = {"game": "marias", "hands": ["AT.AKQ9.AT.87", "KQ.JT87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC",
           "contract": "hra", "trump": "S", "played": ["AH", "8H"]}
    other = relabelled(doc, {"S": "S", "H": "C", "D": "D", "C": "H"})
    assert other["hands"][0] == "AS TS AC KC QC 9C AD TD 8H 7H" and other["talon"] == "9H KH"
    assert other["played"] == ["AC", "8C"] and other["trump"] == "S"
    assert renamed("QH/S", {"H": "D", "S": "C"}) == "QD/C" and renamed("draw", {}) == "draw"
