"""Hypothesis strategies for hostile position documents (issue 10), shared by the fuzz tests.

Valid documents (the bundled examples) are mutated the way a hostile user or a broken
client would: wrong types, huge numbers, deep nesting, unicode edge cases, bad cards,
histories that break a rule, fields that do not exist, and at the text level JSON that
is cut, corrupted or not UTF-8.  ``FUZZ_EXAMPLES`` (env ``DDCARDS_FUZZ_EXAMPLES``) is the
budget of each fuzz test: small by default so that the suite stays quick, large on demand
(docs/FUZZING.md).
"""
from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import ddcards

FUZZ_EXAMPLES = int(os.environ.get("DDCARDS_FUZZ_EXAMPLES", "60"))
# No deadline (native searches), no shrinking budget worries, and no health check for the
# slow data generation: the aim is many hostile inputs, each checked.
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                derandomize=os.environ.get("DDCARDS_FUZZ_RANDOM", "0") in ("", "0"))

BASES = {name: ddcards.example(name) for name in ddcards.example_names()}
HISTORIES = {name: doc.get("played", []) for name, doc in BASES.items()}
FIELDS = ["game", "hands", "talon", "contract", "trump", "objective", "flek", "options", "played", "leader",
          "playing_team", "rules", "id", "stock", "upcard", ""]
CARDS = [r + s for s in "SHDC" for r in "6789TJQKA"] + ["10H", "OH", "UH", "XS", "T♥", "a♠", "Q♥️", "1C", "ZZ"]

# Text a hostile user types: controls, separators, surrogates, combining marks, RTL, emoji,
# characters that str.splitlines() treats as line ends, and very long runs.
EDGE_TEXT = ["", " ", "\x00", "\x0c", "\r", "\u2028", "\u2029", "\x85", "\x1b[31mred\x1b[0m", "\ud800",
             "\udfff", "\ud83c\udca1", "\u202e", "e\u0301", "Mariáš", "H\u0308", "♥", "\ufeff", "x" * 1001,
             "\n", "hra\nINFO forged log line"]
HUGE_NUMBERS = [10 ** 30, -10 ** 30, 2 ** 31, 2 ** 62, 2 ** 63, 2 ** 64, 10 ** 5000, -(10 ** 5000)]
# drawn by index: hypothesis shows a strategy's elements with repr(), which refuses 5,000 digits
def _huge(i: int) -> int:
    return HUGE_NUMBERS[i]


huge_numbers = st.sampled_from(range(len(HUGE_NUMBERS))).map(_huge)

leaf = (st.none() | st.booleans() | st.integers(-5, 40) | huge_numbers
        | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
        | st.sampled_from(EDGE_TEXT + CARDS + ["hra", "betl", "durch", "sedma", "kilo", "marias", "klaverjas",
                                                "H", "S", "amsterdam", "rotterdam", "play"]))
json_value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8) | st.sampled_from(FIELDS), inner, max_size=4),
                          max_leaves=10)


@st.composite
def deep(draw, inner=leaf) -> object:
    """A value nested 1 to 1,200 levels deep (lists and objects)."""
    value = draw(inner)
    for _ in range(draw(st.sampled_from([1, 5, 15, 16, 17, 40, 990, 1200]))):
        value = [value] if draw(st.booleans()) else {"k": value}
    return value


@st.composite
def mutated_documents(draw, names: tuple[str, ...] = tuple(sorted(BASES))) -> dict:
    """A bundled example (one of `names`) with 1 to 4 hostile changes."""
    name = draw(st.sampled_from(names))
    doc = json.loads(json.dumps(BASES[name]))
    for _ in range(draw(st.integers(0, 2))):
        _rewrite(draw, doc, name)                           # same position, other notation
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from(FIELDS))
        kind = draw(st.integers(0, 9))
        if kind == 0:
            doc.pop(key, None)
        elif kind == 1:
            doc[key] = draw(json_value)
        elif kind == 2:
            doc[key] = draw(deep())
        elif kind == 3:
            doc[key] = draw(huge_numbers | st.sampled_from(EDGE_TEXT))
        elif kind == 4 and isinstance(doc.get("hands"), list) and doc["hands"]:
            hands = list(doc["hands"])
            seat = draw(st.integers(0, len(hands) - 1))
            hands[seat] = draw(st.text(alphabet="AKQJT98761024XUO.SHDC♠♥ ,-", max_size=20)
                               | st.lists(st.sampled_from(CARDS), max_size=11) | leaf)
            doc["hands"] = hands
        elif kind == 5:
            history = HISTORIES.get(name) or HISTORIES["marias-seed"]
            doc["played"] = history[:draw(st.integers(0, len(history)))] + draw(
                st.lists(st.sampled_from(CARDS) | leaf, max_size=3))
        elif kind == 6:
            doc["options"] = draw(st.dictionaries(
                st.sampled_from(["marriage_on_follow", "talon_points", "sedma_value", "kilo_value", "x", "\ud800"]),
                leaf, max_size=3))
        elif kind == 7:
            doc["talon"] = draw(st.lists(st.sampled_from(CARDS), max_size=3) | st.text(max_size=8))
        elif kind == 8:
            doc[draw(st.sampled_from(EDGE_TEXT[:12]))] = draw(leaf)
        else:
            doc["game"] = draw(st.sampled_from(["marias", "klaverjas", "Mariáš", "KLAVERJAS", "bridge", "\ud800",
                                                 "marias\x00", "prší", ""]))
    return doc


ALIASES = {"T": ["10", "X", "t"], "J": ["U", "j"], "Q": ["O", "q"]}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _card_alias(draw, card: str) -> str:
    if len(card) != 2 or card[-1] not in SUIT_SYMBOLS:
        return card                                     # a non-card action (Prší's draw, QH/S...)
    rank, suit = card[:-1], card[-1]
    rank = draw(st.sampled_from([rank] + ALIASES.get(rank, [])))
    suit = draw(st.sampled_from([suit, suit.lower(), SUIT_SYMBOLS[suit]]))
    return rank + suit


def _rewrite(draw, doc: dict, name: str) -> None:
    """Change the notation but not the position: card aliases, lists for strings, game aliases,
    a played prefix, defaults written out (so that many fuzzed documents are valid and solved)."""
    kind = draw(st.integers(0, 4))
    if kind == 0 and isinstance(doc.get("played"), list):
        history = HISTORIES.get(name) or []
        doc["played"] = [_card_alias(draw, c) for c in history[:draw(st.integers(0, len(history)))]]
    elif kind == 1 and isinstance(doc.get("played"), list) and all(isinstance(c, str) for c in doc["played"]):
        doc["played"] = draw(st.sampled_from([" ", ", ", ","])).join(doc["played"])
    elif kind == 2:
        doc["game"] = draw(st.sampled_from({"marias": ["Mariáš", "MARIAS", "mariash", "voleny"],
                                            "klaverjas": ["Klaverjas", "klaverjassen", "jassen"],
                                            "mariasz": ["Mariasz", "MARIASZ", "polish mariasz"],
                                            "prsi": ["Prší", "PRSI", "prší"]}[BASES[name]["game"]]))
    elif kind == 3 and isinstance(doc.get("talon"), str):
        doc["talon"] = [_card_alias(draw, c) for c in doc["talon"].split()]
    elif kind == 4:
        doc.setdefault("leader", 0)


def to_text(doc: object) -> str:
    """JSON text of a document that json.dumps may refuse (numbers past 4,300 digits, deep nesting)."""
    try:
        return json.dumps(doc, ensure_ascii=bool(hash(str(type(doc))) & 1))
    except (ValueError, RecursionError):
        return json.dumps({"game": "marias", "flek": 0}).replace("0}", "1" * 5000 + "}")


@st.composite
def document_texts(draw) -> bytes:
    """JSON text (UTF-8 bytes) of a mutated document, often damaged at the text level."""
    text = to_text(draw(mutated_documents())).encode("utf-8", "surrogatepass")
    kind = draw(st.integers(0, 9))
    if kind == 0 and text:                                  # cut short
        text = text[:draw(st.integers(0, len(text) - 1))]
    elif kind == 1:                                         # a byte flipped
        i = draw(st.integers(0, max(0, len(text) - 1)))
        text = text[:i] + bytes([draw(st.integers(0, 255))]) + text[i + 1:]
    elif kind == 2:                                         # a hostile literal spliced in
        i = draw(st.integers(0, len(text)))
        piece = draw(st.sampled_from([b"NaN", b"-Infinity", b"1" * 5000, b"[" * 1000, b"\\ud800", b'"\\u0000"',
                                      b"\xff\xfe", b"\xc3", b"\x0c", b"\xe2\x80\xa8", b"\r", b"\n", b",", b"}",
                                      b'"game":"klaverjas",', b"{" * 17 + b"}" * 17]))
        text = text[:i] + piece + text[i:]
    elif kind == 3:                                         # a key twice
        text = text.replace(b"{", b'{"game": "marias", ', 1)
    return text
