"""Card notation (docs/RULES.md §0): suits, ranks, cards, card lists and hands.

Suits are ``S H D C`` and ranks ``6 7 8 9 T J Q K A``; a card is a rank then
a suit. Parsing is forgiving about aliases and case, formatting is canonical:

>>> card = Card.parse("10♥")
>>> card
Card.parse('TH')
>>> card.rank, card.suit
(<Rank.TEN: 10>, <Suit.H: 1>)
>>> parse_hand("AKT.987..QJ")[:3]
(Card.parse('AS'), Card.parse('KS'), Card.parse('TS'))
>>> format_hand(parse_cards("9h, ah 10S uc"))
'T.A9..J'

Bad text raises :class:`~ddcards.errors.InvalidCardError` (a token that names
no card, rank or suit) or :class:`~ddcards.errors.NotationError` (a badly
shaped hand, a card twice, text that is not a string); the message names the
offending token and the rule, which are also on ``.token`` and ``.rule``.
"""
from __future__ import annotations

import functools
import reprlib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from ddcards.errors import InvalidCardError, NotationError

__all__ = [
    "Suit", "Rank", "Card", "DECK",
    "parse_cards", "format_cards", "parse_hand", "format_hand",
]

# The clauses of docs/RULES.md §0 that notation errors cite (as `.rule`, and in the message).
RANK_RULE = "docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A, aliases 10 X U O"
SUIT_RULE = ("docs/RULES.md §0.1 rule 2: suits S H D C or ♠ ♥ ♦ ♣, or a native name such as hearts, Herz, "
             "červené, wino")
CARD_SUIT_RULE = "docs/RULES.md §0.1 rule 1: suits S H D C or ♠ ♥ ♦ ♣"
CARD_RULE = "docs/RULES.md §0.3 rule 1: a card is a rank then a suit, e.g. 'TH' or '10♥'"
HAND_RULE = "docs/RULES.md §0.4 rule 1: a hand lists 4 suits S.H.D.C separated by 3 dots"
DUPLICATE_RULE = "docs/RULES.md §0.4 rule 2: a hand holds each card once"


class Suit(IntEnum):
    """A suit; German-suited decks map leaves/hearts/bells/acorns to S/H/D/C.

    >>> Suit.parse("♥"), Suit.parse("Herz"), Suit.parse("cervene")
    (<Suit.H: 1>, <Suit.H: 1>, <Suit.H: 1>)
    >>> str(Suit.H), Suit.H.symbol
    ('H', '♥')
    """

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def symbol(self) -> str:
        """The suit's symbol: ``♠ ♥ ♦ ♣``."""
        return "♠♥♦♣"[self]

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a letter, a symbol or a native name (any case, diacritics optional).

        >>> Suit.parse("d"), Suit.parse("Schellen"), Suit.parse("żołądź"), Suit.parse("zoladz")
        (<Suit.D: 2>, <Suit.D: 2>, <Suit.C: 3>, <Suit.C: 3>)
        """
        _require_text(text, "suit", "'H'")
        try:
            return _SUITS[_fold(text)]
        except KeyError:
            raise InvalidCardError(f"unknown suit {text!r} ({SUIT_RULE})",
                                   token=text, rule=SUIT_RULE) from None


class Rank(IntEnum):
    """A rank, valued 6 to 14 so that the natural order is ``6 < … < T < J < Q < K < A``.

    >>> Rank.parse("10"), Rank.parse("x"), Rank.parse("U"), Rank.parse("o")
    (<Rank.TEN: 10>, <Rank.TEN: 10>, <Rank.JACK: 11>, <Rank.QUEEN: 12>)
    >>> str(Rank.TEN)
    'T'
    """

    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    def __str__(self) -> str:
        return "6789TJQKA"[self - 6]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``6 7 8 9 T J Q K A`` or an alias: ``10 X`` ten, ``U`` (Unter) jack, ``O`` (Ober) queen."""
        _require_text(text, "rank", "'T'")
        try:
            return _RANKS[text.strip().upper()]
        except KeyError:
            raise InvalidCardError(f"unknown rank {text!r} ({RANK_RULE})",
                                   token=text, rule=RANK_RULE) from None


@functools.total_ordering
@dataclass(frozen=True, repr=False)
class Card:
    """A card: an immutable, hashable value ordered by (suit, rank).

    >>> Card.parse("th") == Card(Rank.TEN, Suit.H) == Card(10, 1)
    True
    >>> str(Card.parse("OH")), str(Card.parse("U♠")), str(Card.parse("XC"))
    ('QH', 'JS', 'TC')
    >>> sorted(parse_cards("AH 7S TH"))
    [Card.parse('7S'), Card.parse('TH'), Card.parse('AH')]
    """

    # Slots by hand: 3.11's ``slots=True`` breaks the frozen ``__setattr__`` for unknown names.
    __slots__ = ("rank", "suit")
    rank: Rank
    suit: Suit

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "rank", Rank(self.rank))
            object.__setattr__(self, "suit", Suit(self.suit))
        except (TypeError, ValueError):
            token = f"Card({self.rank!r}, {self.suit!r})"
            rule = "a card is Card(rank, suit) with a Rank (6..14) and a Suit (0..3)"
            raise InvalidCardError(f"{token} is no card: {rule}", token=token, rule=rule) from None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a rank then a suit letter or symbol, e.g. ``TH``, ``10H``, ``Q♥``.

        >>> Card.parse("AZ")
        Traceback (most recent call last):
        ...
        ddcards.errors.InvalidCardError: unknown card 'AZ': 'Z' is not a suit (docs/RULES.md §0.1 rule 1: suits S H D C or ♠ ♥ ♦ ♣)
        """
        _require_text(text, "card", "'TH'")
        token = text.strip()
        body = token.replace("\ufe0f", "").replace("\ufe0e", "")  # emoji presentation: "♥️"
        if not body:
            raise InvalidCardError(f"empty card {text!r} ({CARD_RULE})", token=text, rule=CARD_RULE)
        split = 2 if body.startswith("10") else 1
        rank_text, suit_text = body[:split], body[split:]
        rank = _RANKS.get(rank_text.upper())
        if rank is None:
            raise InvalidCardError(f"unknown card {token!r}: {rank_text!r} is not a rank ({RANK_RULE})",
                                   token=token, rule=RANK_RULE)
        suit = _CARD_SUITS.get(suit_text.casefold())
        if suit is None:
            if not suit_text:
                raise InvalidCardError(f"unknown card {token!r}: no suit ({CARD_RULE})",
                                       token=token, rule=CARD_RULE)
            raise InvalidCardError(f"unknown card {token!r}: {suit_text!r} is not a suit ({CARD_SUIT_RULE})",
                                   token=token, rule=CARD_SUIT_RULE)
        return _CANONICAL[suit * 16 + rank]

    def __hash__(self) -> int:
        return self.suit * 16 + self.rank

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return Card, (self.rank, self.suit)  # pickle/copy through __init__, frozen-safe

    def __repr__(self) -> str:
        return f"Card.parse('{self}')"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return (self.suit, self.rank) < (other.suit, other.rank)


#: The 36 cards 6S 7S … AS 6H … AC, in (suit, rank) order.
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
# Parsing hands out these very objects, so set and dict look-ups of parsed
# cards match by identity, without calling the dataclass's __eq__.
_CANONICAL: dict[int, Card] = {card.suit * 16 + card.rank: card for card in DECK}


def parse_cards(cards: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse cards separated by whitespace and/or commas, or an iterable of card strings.

    Duplicates are kept (whether they are allowed is up to the caller).

    >>> parse_cards("7S, 8d 10♥")
    (Card.parse('7S'), Card.parse('8D'), Card.parse('TH'))
    >>> parse_cards(["OH", "UC"]), parse_cards("")
    ((Card.parse('QH'), Card.parse('JC')), ())
    """
    if isinstance(cards, str):
        return tuple(Card.parse(token) for token in cards.replace(",", " ").split())
    if not isinstance(cards, Iterable):
        _require_text(cards, "cards", "'7S 8D' or a list of cards")
    return tuple(card if isinstance(card, Card) else Card.parse(card) for card in cards)


def format_cards(cards: Iterable[Card]) -> str:
    """Format cards space separated, in the given order.

    >>> format_cards(parse_cards("xs,7d"))
    'TS 7D'
    """
    return " ".join(map(str, cards))


def parse_hand(text: str) -> tuple[Card, ...]:
    """Parse a PBN-like hand ``S.H.D.C``; cards come back in the order written.

    Within a suit ranks are single characters (aliases ``X U O`` too) or ``10``;
    a suit may be empty or ``-``.

    >>> format_cards(parse_hand("A10.-.ou.6"))
    'AS TS QD JD 6C'
    >>> parse_hand("AK.Q")
    Traceback (most recent call last):
    ...
    ddcards.errors.NotationError: hand 'AK.Q' has 2 suits (docs/RULES.md §0.4 rule 1: a hand lists 4 suits S.H.D.C separated by 3 dots)
    """
    _require_text(text, "hand", "'AKT.987..QJ'")
    hand = text.strip()
    parts = hand.split(".")
    if len(parts) != 4:
        count = f"{len(parts)} suit" + ("s" if len(parts) != 1 else "")
        raise NotationError(f"hand {hand!r} has {count} ({HAND_RULE})", token=hand, rule=HAND_RULE)
    cards: list[Card] = []
    for suit, part in zip(Suit, parts):
        if part == "-":
            continue
        i = 0
        while i < len(part):
            token = part[i:i + 2] if part.startswith("10", i) else part[i]
            i += len(token)
            rank = _RANKS.get(token.upper())
            if rank is None:
                raise InvalidCardError(
                    f"unknown rank {token!r} in suit {suit} of hand {hand!r} ({RANK_RULE})",
                    token=token, rule=RANK_RULE)
            card = _CANONICAL[suit * 16 + rank]
            if card in cards:
                raise NotationError(f"card '{card}' appears twice in hand {hand!r} ({DUPLICATE_RULE})",
                                    token=str(card), rule=DUPLICATE_RULE)
            cards.append(card)
    return tuple(cards)


def format_hand(cards: Iterable[Card]) -> str:
    """Format a hand as ``S.H.D.C``, ranks from ace down within each suit.

    >>> format_hand(parse_cards("QC 9H AS JC 8H TS 7H KS"))
    'AKT.987..QJ'
    >>> format_hand([])
    '...'
    """
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise NotationError(f"card '{card}' appears twice ({DUPLICATE_RULE})",
                                token=str(card), rule=DUPLICATE_RULE)
        seen.add(card)
    high_first = sorted(seen, reverse=True)
    return ".".join("".join(str(c.rank) for c in high_first if c.suit == suit) for suit in Suit)


def _require_text(value: object, what: str, example: str) -> None:
    if not isinstance(value, str):
        token = reprlib.repr(value)
        raise NotationError(f"{what} must be text like {example}, got {type(value).__name__} {token}",
                            token=token, rule=f"{what} must be text")


def _fold(text: str) -> str:
    """Case- and accent-insensitive form: 'Żołądź' -> 'zoladz', 'Grün' -> 'grun', '♥️' -> '♥'."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").replace("ł", "l")


_RANKS: dict[str, Rank] = {str(rank): rank for rank in Rank} | {
    "10": Rank.TEN, "X": Rank.TEN, "U": Rank.JACK, "O": Rank.QUEEN,
}

_SUIT_NAMES: dict[Suit, str] = {
    Suit.S: "s ♠ ♤ spades spade leaves leaf laub grun gruen blatt zelene zeleny zelena listy wino",
    Suit.H: "h ♥ ♡ hearts heart herz rot cervene cerveny srdce czerwien",
    Suit.D: "d ♦ ♢ diamonds diamond bells bell schellen kule dzwonek dzwonki",
    Suit.C: "c ♣ ♧ clubs club acorns acorn eichel zaludy zoladz zoledzie",
}
_SUITS: dict[str, Suit] = {name: suit for suit, names in _SUIT_NAMES.items() for name in names.split()}
_CARD_SUITS: dict[str, Suit] = {name: suit for name, suit in _SUITS.items() if len(name) == 1}
