"""What the report and the board show of cards, hands and a position's extras.

Both front ends render a game from ``Session.view()`` alone (title, hands,
trick, roles, score, side names, suit names), so a new game shows up in them
with no code of its own.  This module turns the notation in a view into
display pieces: a hand split by suit with the suit's symbol and, for a
German-suited deck, its native name; a card's rank and suit; the extra keys a
game's ``describe()`` adds (Mariáš's talon, Klaverjas's points and roem) as
label and text.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ddcards.errors import NotationError
from ddcards.notation import Card, Suit, parse_cards, parse_hand
from ddcards.result import spoken

ENGLISH_SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")

# The keys of Session.view() that every front end lays out itself; any other
# key is a game's extra ("talon", "points", ...) shown as a label and a text.
LAID_OUT = frozenset({"title", "hands", "trick", "roles", "to_move", "score", "trick_size", "sides",
                      "value_owner", "value_meaning", "suit_names", "position"})


def step_unit(game: Any) -> str:
    """What one recorded action of `game` is called: a card, or in Prší, whose draws and passes
    are steps of the line as much as its cards, an action."""
    return "action" if game == "prsi" else "card"


def plies_shown(game: Any, first: int, last: int, left: int) -> str:
    """What a page of an analysis stopped on the way shows: plies `first` to `last`, and the `left`
    recorded actions after them, not analysed."""
    unit = step_unit(game)
    return (f"this page shows plies {first} to {last}; the {left} recorded {unit}{'s' if left != 1 else ''} after "
            f"{'them' if last != first else 'it'} {'are' if left != 1 else 'is'} not analysed")


def count_label(game: Any) -> str:
    """What a view's ``score`` counts: a score (points, tricks), or in Prší, which scores nothing,
    the hand sizes (the cards each seat holds: the winner's 0, not a score to read as points)."""
    return "hand sizes" if game == "prsi" else "score"


def suit_name(suit: Suit, suit_names: Sequence[str] = ()) -> str:
    """The suit's name for people: the deck's own (German-suited: "červené") or the English one."""
    return suit_names[suit] if suit_names else ENGLISH_SUIT_NAMES[suit]


def suit_piece(text: str, suit_names: Sequence[str] = ()) -> dict[str, str]:
    """A suit (letter, symbol or name) as display pieces: letter, symbol, name."""
    suit = Suit.parse(text)
    return {"suit": str(suit), "symbol": suit.symbol, "name": suit_name(suit, suit_names)}


def card_piece(token: str, suit_names: Sequence[str] = ()) -> dict[str, str]:
    """A card token as display pieces: rank, suit letter, symbol and a spoken name."""
    card = Card.parse(token)
    name = suit_name(card.suit, suit_names)
    return {"card": str(card), "rank": str(card.rank), "suit": str(card.suit), "symbol": card.suit.symbol,
            "suit_name": name, "name": f"{card.rank} of {name}"}


def hand_suits(hand: str, suit_names: Sequence[str] = ()) -> list[dict[str, Any]]:
    """A hand in notation ("AT.AKQ9.AT.87") as one row per suit, strongest rank first as written."""
    by_suit: dict[Suit, list[str]] = {suit: [] for suit in Suit}
    for card in parse_hand(hand):
        by_suit[card.suit].append(str(card.rank))
    return [{"suit": str(suit), "symbol": suit.symbol, "name": suit_name(suit, suit_names), "ranks": ranks}
            for suit, ranks in by_suit.items()]


def ober_action(token: Any, suit_names: Sequence[str] = ()) -> tuple[dict[str, str], dict[str, str]] | None:
    """A Prší Ober that names a suit ("QD/C") as the card's pieces and the named suit's, else None."""
    if not isinstance(token, str) or token.count("/") != 1:
        return None
    card_text, named = token.split("/")
    try:
        return card_piece(card_text, suit_names), suit_piece(named, suit_names)
    except NotationError:
        return None


def as_cards(value: Any) -> list[str] | None:
    """The card tokens in `value` if it is a card list (text or a list of tokens), else None."""
    if isinstance(value, str) or (isinstance(value, Sequence) and all(isinstance(v, str) for v in value)):
        try:
            return [str(c) for c in parse_cards(value)]
        except (NotationError, TypeError):
            return None
    return None


def extras(view: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The keys a game's describe() adds beyond the common ones, in its order, with something to show.

    Empty values and scores that are all nought (nothing scored before the first card) are
    left out.
    """
    return [(key, value) for key, value in view.items() if key not in LAID_OUT
            and value not in (None, "", [], {}) and not (isinstance(value, Mapping) and not any(value.values()))]


def plain(value: Any) -> str:
    """A scalar, a list or a mapping of scores as a short text ("playing 20, other 0"; keys as
    words: "playing roem 20", not "playing_roem 20")."""
    if isinstance(value, Mapping):
        return ", ".join(f"{spoken(str(k))} {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(plain(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def tricks_before(doc: Mapping[str, Any]) -> int:
    """The tricks played out before an analysis's first step (from_ply: its recorded actions
    before it that are cards, by the trick's size); 0 from the deal's start or without tricks."""
    deal = doc.get("deal") or {}
    start: int = doc.get("from_ply") or 0
    size: int = deal.get("trick_size") or 0
    if not start or not size:
        return 0
    played = (deal.get("position") or {}).get("played") or []
    return sum(as_cards(token) is not None for token in played[:start]) // size


def signed(value: int | None) -> str:
    """+70, −20, 0 (a true minus sign: it reads and prints better than a hyphen)."""
    if value is None:
        return "?"
    return f"+{value}" if value > 0 else ("0" if value == 0 else f"\u2212{-value}")
