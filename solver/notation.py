"""Card notation (docs/RULES.md §0): suits, ranks, cards, card lists and hands.

Suits are ``S H D C`` and ranks ``6 7 8 9 T J Q K A``; a card is a rank then
a suit. Parsing is forgiving about aliases, native names and case; formatting
is canonical:

>>> card = Card.parse("10♥")
>>> card
Card.parse('TH')
>>> card.rank, card.suit
(<Rank.TEN: 10>, <Suit.H: 1>)
>>> parse_hand("AKT.987..QJ")[:3]
(Card.parse('AS'), Card.parse('KS'), Card.parse('TS'))
>>> format_hand(parse_cards("9h, ah 10S uc"))
'T.A9..J'
>>> Suit.parse("klaveren"), Rank.parse("boer"), Rank.parse("svršek")
(<Suit.C: 3>, <Rank.JACK: 11>, <Rank.QUEEN: 12>)

A hand is written ``S.H.D.C`` (``AKT.987..QJ``), in the display form ddcards
prints (``S: AKT  H: 987  D: -  C: QJ``) or as a list of cards; all three
parse alike:

>>> parse_hand("S: AKT  H: 987  D: -  C: QJ") == parse_hand("AKT.987..QJ") == parse_hand("AS KS TS 9H 8H 7H QC JC")
True
>>> format_hand(parse_hand("AKT.987..QJ"), style="display")
'S: AKT  H: 987  D: -  C: QJ'

Bad text raises :class:`~ddcards.errors.InvalidCardError` (a token that names
no card, rank or suit) or :class:`~ddcards.errors.NotationError` (a badly
shaped hand, a card twice, text that is not a string); the message names the
offending token and the rule, which are also on ``.token`` and ``.rule``.
"""
from __future__ import annotations

import functools
import re
import reprlib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Literal

from ddcards._jsonio import shown as _shown
from ddcards.errors import (InvalidArgumentTypeError, InvalidCardError, InvalidOptionError, NotationError,
                            NotationTypeError)

__all__ = [
    "Suit", "Rank", "Card", "DECK",
    "parse_cards", "format_cards", "parse_hand", "format_hand",
]

# The clauses of docs/RULES.md §0 that notation errors cite (as `.rule`, and in the message).
RANK_RULE = "docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A, aliases 10 X U O"
RANK_NAME_RULE = ("docs/RULES.md §0.2 rules 1 and 3: ranks 6 7 8 9 T J Q K A, aliases 10 X U O, or a name "
                  "such as ten, boer, Unter, spodek, niżnik")
SUIT_RULE = ("docs/RULES.md §0.1 rule 2: suits S H D C or ♠ ♥ ♦ ♣, or a name such as hearts, harten, Herz, "
             "červené, wino")
CARD_SUIT_RULE = "docs/RULES.md §0.1 rule 1: suits S H D C or ♠ ♥ ♦ ♣"
CARD_RULE = "docs/RULES.md §0.3 rule 1: a card is a rank then a suit, e.g. 'TH' or '10♥'"
NAMED_SUIT_RULE = "docs/RULES.md §4.4: only Prší's Ober names a suit (QH/S), in a Prší history"
HAND_RULE = "docs/RULES.md §0.4 rule 1: a hand lists 4 suits S.H.D.C separated by 3 dots"
DISPLAY_RULE = ("docs/RULES.md §0.4 rule 4: the display form names each suit once, e.g. "
                "'S: AKT  H: 987  D: -  C: QJ' ('-' for a void)")
HAND_FORMS = ("docs/RULES.md §0.4: a hand is 'AKT.987..QJ' (suits S.H.D.C), 'S: AKT  H: 987  D: -  C: QJ' "
              "or a list of cards such as 'AS KS TS'")
DUPLICATE_RULE = "docs/RULES.md §0.4 rule 2: a hand holds each card once"

#: How format_hand writes a hand: ``pbn`` ``AKT.987..QJ``; ``display`` ``S: AKT  H: 987  D: -  C: QJ``.
HandStyle = Literal["pbn", "display"]


class Suit(IntEnum):
    """A suit; German-suited decks map leaves/hearts/bells/acorns to S/H/D/C.

    >>> Suit.parse("♥"), Suit.parse("Herz"), Suit.parse("cervene"), Suit.parse("harten")
    (<Suit.H: 1>, <Suit.H: 1>, <Suit.H: 1>, <Suit.H: 1>)
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
    def parse(cls, text: str | Suit) -> Suit:
        """Parse a letter, a symbol or a name (any case, diacritics optional).

        Names: English, Dutch (schoppen harten ruiten klaveren), German, Czech and
        Polish, of both the French- and the German-suited decks (docs/RULES.md §0).

        >>> Suit.parse("d"), Suit.parse("Schellen"), Suit.parse("żołądź"), Suit.parse("zoladz")
        (<Suit.D: 2>, <Suit.D: 2>, <Suit.C: 3>, <Suit.C: 3>)
        >>> Suit.parse("schoppen"), Suit.parse("Kreuz"), Suit.parse("kier")
        (<Suit.S: 0>, <Suit.C: 3>, <Suit.H: 1>)
        """
        if isinstance(text, Suit):
            return text                 # what the API hands out reads back (Position.trump)
        _require_text(text, "suit", "'H'")
        try:
            return _SUITS[_fold(text)]
        except KeyError:
            raise InvalidCardError(f"unknown suit {_shown(text)} ({SUIT_RULE})",
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
    def parse(cls, text: str | Rank) -> Rank:
        """Parse ``6 7 8 9 T J Q K A``, an alias or a name (any case, diacritics optional).

        Aliases: ``10 X`` ten, ``U`` (Unter) jack, ``O`` (Ober) queen.  Names:
        English, Dutch (boer vrouw heer aas), German (Unter Ober König Daus),
        Czech (spodek svršek král eso) and Polish (walet dama król as, niżnik
        wyżnik), the pips too (tien, Zehn, desítka...).  Card and hand notation
        take only the letters and aliases.

        >>> Rank.parse("boer"), Rank.parse("vrouw"), Rank.parse("Ober"), Rank.parse("wyżnik")
        (<Rank.JACK: 11>, <Rank.QUEEN: 12>, <Rank.QUEEN: 12>, <Rank.QUEEN: 12>)
        """
        if isinstance(text, Rank):
            return text
        _require_text(text, "rank", "'T'")
        rank = _RANKS.get(text.strip().upper()) or _RANK_NAMES.get(_fold(text))
        if rank is None:
            raise InvalidCardError(f"unknown rank {_shown(text)} ({RANK_NAME_RULE})",
                                   token=text, rule=RANK_NAME_RULE)
        return rank


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
    # _code (suit * 16 + rank, not a field): the hash and the order, worked out once; _text: str().
    __slots__ = ("rank", "suit", "_code", "_text")
    rank: Rank
    suit: Suit
    if TYPE_CHECKING:   # for the type checker only: a slot may not have a class-level default
        _code: int = field(init=False, repr=False, compare=False)
        _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            if isinstance(self.rank, (float, bool)) or isinstance(self.suit, (float, bool)):
                # Rank(10.0) would take it (10.0 == 10), Suit(True) the hearts (True == 1)
                raise TypeError("whole numbers only")
            object.__setattr__(self, "rank", Rank(self.rank))
            object.__setattr__(self, "suit", Suit(self.suit))
            object.__setattr__(self, "_code", int(self.suit) * 16 + int(self.rank))
            object.__setattr__(self, "_text", f"{self.rank}{self.suit}")
        except (TypeError, ValueError):
            token = f"Card({self.rank!r}, {self.suit!r})"
            rule = "a card is Card(rank, suit) with a Rank (6..14) and a Suit (0..3)"
            raise InvalidCardError(f"{token} is no card: {rule}", token=token, rule=rule) from None

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Parse a rank then a suit letter or symbol, e.g. ``TH``, ``10H``, ``Q♥``.

        >>> Card.parse("AZ")
        Traceback (most recent call last):
        ...
        ddcards.errors.InvalidCardError: unknown card 'AZ': 'Z' is not a suit (docs/RULES.md §0.1 rule 1: suits S H D C or ♠ ♥ ♦ ♣)
        """
        card = _BY_TEXT.get(text) if type(text) is str else None
        if card is not None:
            return card                 # "TH", "th": a history's every card is read this way
        if not isinstance(text, str):
            if isinstance(text, Card):
                return text             # what the API hands out reads back
            raise _not_text(text, "card", "'TH'")
        token = text.strip()
        body = token.replace("\ufe0f", "").replace("\ufe0e", "")  # emoji presentation: "♥️"
        if not body:
            raise InvalidCardError(f"empty card {_shown(text)} ({CARD_RULE})", token=text, rule=CARD_RULE)
        parts = body.replace(",", " ").split()
        if len(parts) > 1 and all(_is_card(part) for part in parts):
            raise InvalidCardError(f"one card expected, got {len(parts)}: {_shown(token)} ({CARD_RULE})", token=token,
                                   rule=CARD_RULE)
        if len(body.split()) > 1:
            # "ten of hearts", "T H": a card is one token, its rank then its suit
            raise InvalidCardError(f"unknown card {_shown(token)}: a card is one word, no spaces ({CARD_RULE})",
                                   token=token, rule=CARD_RULE)
        split = 2 if body.startswith("10") else 1
        rank_text, suit_text = body[:split], body[split:]
        rank = _RANKS.get(rank_text.upper())
        if rank is None:
            raise InvalidCardError(f"unknown card {_shown(token)}: {_shown(rank_text)} is not a rank ({RANK_RULE})",
                                   token=token, rule=RANK_RULE)
        suit = _CARD_SUITS.get(suit_text.casefold())
        if suit is None:
            if not suit_text:
                raise InvalidCardError(f"unknown card {_shown(token)}: no suit ({CARD_RULE})",
                                       token=token, rule=CARD_RULE)
            if "/" in suit_text:
                # 'QH/S' is a Prší Ober naming a suit: an action of that game, not a card
                raise InvalidCardError(f"unknown card {_shown(token)}: a suit after '/' is named only by Prší's "
                                       f"Ober, an action of that game, not a card ({NAMED_SUIT_RULE})",
                                       token=token, rule=NAMED_SUIT_RULE)
            # (a suit's name, 'herz', 'hearts', is notation of its own: Suit.parse; a card spells its suit short)
            named = len(suit_text) > 1 and _fold(suit_text) in _SUITS
            # (shown: 999 characters of junk are named by their first 40 and their length, not twice whole)
            why = (f"{_shown(suit_text)} is a suit's name, and a card writes its suit as one letter or symbol"
                   if named else f"{_shown(suit_text)} is not a suit")
            raise InvalidCardError(f"unknown card {_shown(token)}: {why} ({CARD_SUIT_RULE})",
                                   token=token, rule=CARD_SUIT_RULE)
        return _CANONICAL[suit * 16 + rank]

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        """The card of `rank` and `suit`, equal to ``Card(rank, suit)`` but the very object
        parsing hands out, so that sets and dicts of cards find it by identity.

        >>> Card.of(Rank.TEN, Suit.H) is Card.parse("TH")
        True
        """
        if (type(rank) in _WHOLE and type(suit) in _WHOLE) and 6 <= rank <= 14 and 0 <= suit <= 3:
            return _CANONICAL[suit * 16 + rank]
        return Card(rank, suit)             # raises the constructor's InvalidCardError

    def __hash__(self) -> int:
        return self._code

    def __eq__(self, other: object) -> bool:
        # By the code worked out once (the dataclass's would compare (rank, suit) tuples).
        if other.__class__ is self.__class__:
            return self._code == other._code
        return NotImplemented

    def __str__(self) -> str:
        return self._text

    def __format__(self, spec: str) -> str:
        # As Suit and Rank: f"{card:>3}" pads the card's text (object.__format__ refuses a spec)
        return format(self._text, spec)

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return Card, (self.rank, self.suit)  # pickle/copy through __init__, frozen-safe

    def __repr__(self) -> str:
        return f"Card.parse('{self}')"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._code < other._code


# What Card.of looks up at once (a bool, an int to Python, goes through Card() and is refused).
_WHOLE = (int, Rank, Suit)

#: The 36 cards 6S 7S … AS 6H … AC, in (suit, rank) order.
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
# Parsing hands out these very objects, so set and dict look-ups of parsed
# cards match by identity, without calling Card.__eq__.
_CANONICAL: dict[int, Card] = {card.suit * 16 + card.rank: card for card in DECK}
# Card.parse's look-up before its full reading: the canonical text and its lower case.
_BY_TEXT: dict[str, Card] = {str(card): card for card in DECK} | {str(card).lower(): card for card in DECK}


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
    if not isinstance(cards, Iterable) or isinstance(cards, _BYTES):   # (bytes iterate as numbers)
        _require_text(cards, "cards", "'7S 8D' or a list of cards")
    return tuple(card if isinstance(card, Card) else Card.parse(card) for card in cards)


def format_cards(cards: str | Iterable[str | Card]) -> str:
    """Format cards space separated, in the given order (card text is read as parse_cards
    reads it, so the output is always notation, or a NotationError names what is no card).

    >>> format_cards(parse_cards("xs,7d")), format_cards(["10h", "oc"])
    ('TS 7D', 'TH QC')
    """
    return " ".join(map(str, parse_cards(cards)))


def parse_hand(hand: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse a hand in any of its forms; cards come back in the order written.

    - ``S.H.D.C`` (PBN-like): ``AKT.987..QJ``; within a suit ranks are single
      characters (aliases ``X U O`` too) or ``10``; a suit may be empty or ``-``;
    - the display form ddcards prints: ``S: AKT  H: 987  D: -  C: QJ``, each
      suit named once (a letter, a symbol or a name such as ``hearts``), in any
      order, ``-`` for a void;
    - a list of cards: ``AS KS TS 9H`` (spaces and/or commas), or an iterable
      of card strings and Cards.

    A card may appear only once.

    >>> format_cards(parse_hand("A10.-.ou.6"))
    'AS TS QD JD 6C'
    >>> format_cards(parse_hand("♠: A10  ♥: -  ♦: OU  ♣: 6"))
    'AS TS QD JD 6C'
    >>> format_hand(parse_hand(["QD", "6C", "AS", "10s", "UD"]))
    'AT..QJ.6'
    >>> parse_hand("AK.Q")
    Traceback (most recent call last):
    ...
    ddcards.errors.NotationError: hand 'AK.Q' has 2 suits (docs/RULES.md §0.4 rule 1: a hand lists 4 suits S.H.D.C separated by 3 dots)
    """
    if isinstance(hand, str):
        text = hand.strip()
        if not text:
            raise NotationError(f"hand {_shown(hand)} is empty: write '...' for a hand without cards ({HAND_FORMS})",
                                token=hand, rule=HAND_FORMS)
        if ":" in text:
            return _parse_display_hand(text)
        if "." in text:
            return _parse_pbn_hand(text)
        tokens: Iterable[str | Card] = text.replace(",", " ").split()
        shown = _shown(text)
    elif isinstance(hand, Iterable) and not isinstance(hand, _BYTES):
        tokens = list(hand)
        shown = reprlib.repr(tokens)
    else:
        raise _not_text(hand, "hand", "'AKT.987..QJ' or a list of cards")
    cards: list[Card] = []
    seen: set[int] = set()
    for token in tokens:
        try:
            card = token if isinstance(token, Card) else Card.parse(token)
        except InvalidCardError as exc:
            raise InvalidCardError(f"hand {shown}: {exc}; {HAND_FORMS}", token=exc.token, rule=exc.rule) from None
        _add_once(cards, seen, card, shown)
    return tuple(cards)


def _parse_pbn_hand(hand: str) -> tuple[Card, ...]:
    parts = hand.split(".")
    if len(parts) != 4:
        count = f"{len(parts)} suit" + ("s" if len(parts) != 1 else "")
        raise NotationError(f"hand {_shown(hand)} has {count} ({HAND_RULE})", token=hand, rule=HAND_RULE)
    cards: list[Card] = []
    seen: set[int] = set()
    for suit, part in zip(Suit, parts):
        _parse_suit_part(suit, part, part, hand, cards, seen, HAND_RULE)
    return tuple(cards)


# "S:" / "♥:" / "hearts:" before each suit's ranks.  A label starts a run of its characters (after a
# space, a comma, a colon or the start) and takes it whole: each run is tried once, so a long text is
# read in linear time (a free start and backtracking made "S: " + 40,000 "A"s take 14 s).  A comma
# ends a suit's ranks as a space does (RULES §0.4 rule 4): "S:AKT,H:987" is "S:AKT H:987".
_DISPLAY_LABEL = re.compile(r"(?<![^\s:,])([^\s:,]++)\s*+:")


def _parse_display_hand(hand: str) -> tuple[Card, ...]:
    pieces = _DISPLAY_LABEL.split(hand)      # [before, label, ranks, label, ranks, ...]
    if pieces[0].strip():
        raise NotationError(f"hand {_shown(hand)}: {_shown(pieces[0].strip())} comes before the first suit "
                            f"({DISPLAY_RULE})",
                            token=pieces[0].strip(), rule=DISPLAY_RULE)
    cards: list[Card] = []
    held: set[int] = set()
    seen: list[Suit] = []
    for label, ranks in zip(pieces[1::2], pieces[2::2]):
        try:
            suit = Suit.parse(label)
        except InvalidCardError as exc:
            raise InvalidCardError(f"hand {_shown(hand)}: {exc}", token=label, rule=exc.rule) from None
        if suit in seen:
            raise NotationError(f"hand {_shown(hand)} names suit {suit} twice (again as {_shown(label)}) "
                                f"({DISPLAY_RULE})",
                                token=label, rule=DISPLAY_RULE)
        seen.append(suit)
        written = ranks.strip()
        ranks = "".join(ranks.replace(",", " ").split())     # "A K T," as "AKT"
        _parse_suit_part(suit, ranks, written, hand, cards, held, DISPLAY_RULE)
    missing = [str(suit) for suit in Suit if suit not in seen]
    if missing:
        raise NotationError(f"hand {_shown(hand)} does not name suit {', '.join(missing)} ({DISPLAY_RULE})",
                            token=hand, rule=DISPLAY_RULE)
    return tuple(cards)


def _parse_suit_part(suit: Suit, ranks: str, written: str, hand: str, cards: list[Card], seen: set[int],
                     rule: str) -> None:
    """One suit of a hand: `ranks` (spaces and commas taken out; `written`: as the hand has it) is
    '-' for a void or the suit's ranks; a '-' beside ranks is named as such, not as a bad rank."""
    if ranks == "-":
        return
    if "-" in ranks:
        raise NotationError(f"suit {suit} of hand {_shown(hand)} is {_shown(written)}: '-' marks a void and stands "
                            f"alone ({rule})", token=written, rule=rule)
    _parse_suit_ranks(suit, ranks, hand, cards, seen)


def _parse_suit_ranks(suit: Suit, ranks: str, hand: str, cards: list[Card], seen: set[int]) -> None:
    """Append the cards of `suit` written as `ranks` ("AKT", "A10") to `cards` (`seen`: their codes)."""
    of_suit = _SUIT_CARDS[suit]
    for token in ranks if "10" not in ranks else _rank_tokens(ranks):
        card = of_suit.get(token) or of_suit.get(token.upper())
        if card is None:
            # a space is no typo of a rank: "A T.AKQ9.AT.87" mixes the dotted form with the listed one
            hint = ("; a dotted hand writes a suit's ranks together ('AKT.987..QJ'), cards apart are written with "
                    "their suits ('AS KS TS 9H')" if token.isspace() else "")
            raise InvalidCardError(
                f"unknown rank {_shown(token)} in suit {suit} of hand {_shown(hand)}{hint} ({RANK_RULE})",
                token=token, rule=RANK_RULE)
        if card._code in seen:
            raise _twice(card, _shown(hand))
        seen.add(card._code)                # (_add_once inline: this loop reads every hand)
        cards.append(card)


def _rank_tokens(ranks: str) -> list[str]:
    """A suit's ranks as tokens: one character each, but "10" as one."""
    tokens, i = [], 0
    while i < len(ranks):
        token = ranks[i:i + 2] if ranks.startswith("10", i) else ranks[i]
        i += len(token)
        tokens.append(token)
    return tokens


def _add_once(cards: list[Card], seen: set[int], card: Card, shown: str) -> None:
    """Append `card` to `cards` unless it is there already (`seen`, their codes: a look-up by
    hash, not a scan of the hand); `shown`: the hand as messages show it."""
    if card._code in seen:
        raise _twice(card, shown)
    seen.add(card._code)
    cards.append(card)


def _twice(card: Card, shown: str) -> NotationError:
    """The error of `card` given twice in the hand `shown`."""
    return NotationError(f"card '{card}' appears twice in hand {shown} ({DUPLICATE_RULE})", token=str(card),
                         rule=DUPLICATE_RULE)


def format_hand(cards: str | Iterable[str | Card], *, style: HandStyle = "pbn") -> str:
    """Format a hand, ranks from ace down within each suit.

    ``style="pbn"`` (the notation, the default): ``S.H.D.C``; ``style="display"``:
    the form ddcards prints, ``S: AKT  H: 987  D: -  C: QJ``.  Both parse back
    with :func:`parse_hand`, which also reads what this takes besides Cards: a hand
    in any of its forms, or card texts.

    >>> format_hand(parse_cards("QC 9H AS JC 8H TS 7H KS"))
    'AKT.987..QJ'
    >>> format_hand(parse_cards("QC 9H AS JC 8H TS 7H KS"), style="display")
    'S: AKT  H: 987  D: -  C: QJ'
    >>> format_hand([])
    '...'
    """
    if isinstance(cards, (str, *_BYTES)) or not isinstance(cards, Iterable):
        cards = parse_hand(cards)           # "AK.Q.." or "AS KS": its cards, each once (or the error)
    else:
        cards = tuple(cards)                # (an iterator is read once)
        if not all(isinstance(card, Card) for card in cards):
            cards = parse_cards(cards)      # "AS" or a Card each (a list of anything else: the item named)
    held: set[Any] = set()
    for card in cards:
        # By the code for a card (an int hashes in C); anything else as itself, to be named
        key = card._code if isinstance(card, Card) else (None, card)
        if key in held:
            raise NotationError(f"card '{card}' appears twice ({DUPLICATE_RULE})",
                                token=str(card), rule=DUPLICATE_RULE)
        held.add(key)
    codes = [key if isinstance(key, int) else key[1]._code for key in held]   # a non-card fails here
    by_suit: list[list[str]] = [[], [], [], []]
    for code in sorted(codes, reverse=True):   # suit * 16 + rank
        by_suit[code >> 4].append(_RANK_LETTER[code & 15])
    suits = ["".join(ranks) for ranks in by_suit]
    if style == "display":
        return "  ".join(f"{suit}: {ranks or '-'}" for suit, ranks in zip(Suit, suits))
    if style != "pbn":
        error = InvalidOptionError if isinstance(style, str) else InvalidArgumentTypeError     # style=None: a TypeError
        raise error(f"style is 'pbn' or 'display', not {style!r}", token=str(style)[:40],
                    rule="format_hand: style is 'pbn' or 'display'", field="style")
    return ".".join(suits)


#: Binary data, which iterates as numbers: never cards, named as what it is.
_BYTES = (bytes, bytearray, memoryview)


def _is_card(text: str) -> bool:
    try:
        Card.parse(text)
    except InvalidCardError:
        return False
    return True


def _require_text(value: object, what: str, example: str) -> None:
    if not isinstance(value, str):
        raise _not_text(value, what, example)


def _not_text(value: object, what: str, example: str) -> NotationError:
    token = reprlib.repr(value)
    return NotationTypeError(f"{what} must be text like {example}, got {type(value).__name__} {token}",
                             token=token, rule=f"{what} must be text")


def _fold(text: str) -> str:
    """Case- and accent-insensitive form: 'Żołądź' -> 'zoladz', 'Grün' -> 'grun', '♥️' -> '♥'
    (suit and rank names, and game names).  Canonical decomposition (NFD), not compatibility:
    a fullwidth 'Ｈ' or a circled 'Ⓗ' stays unknown, as it is in a card."""
    decomposed = unicodedata.normalize("NFD", text.strip().casefold())
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").replace("ł", "l")


_RANKS: dict[str, Rank] = {str(rank): rank for rank in Rank} | {
    "10": Rank.TEN, "X": Rank.TEN, "U": Rank.JACK, "O": Rank.QUEEN,
}
_RANK_LETTER: dict[int, str] = {rank.value: str(rank) for rank in Rank}     # by the rank's value
# A suit's cards by every way a hand may write their rank ("T", "t", "10", "X", "U"...): the
# hand reader's look-up, as the parsed cards are the canonical objects.
_SUIT_CARDS: dict[Suit, dict[str, Card]] = {
    suit: {token: _CANONICAL[suit * 16 + rank] for token, rank in _RANKS.items()} for suit in Suit}

# Rank names Rank.parse accepts, folded (see _fold): English, Dutch, German, Czech, Polish.
_RANK_WORDS: dict[Rank, str] = {
    Rank.SIX: "six zes sechs sestka szostka",
    Rank.SEVEN: "seven zeven sieben sedma sedmicka siodemka",
    Rank.EIGHT: "eight acht osma osmicka osemka",
    Rank.NINE: "nine negen neun devitka dziewiatka",
    Rank.TEN: "ten tien zehn desitka dziesiatka",
    Rank.JACK: "jack knave boer bube unter spodek walet niznik",
    Rank.QUEEN: "queen vrouw dame ober svrsek dama wyznik",
    Rank.KING: "king heer konig koenig kral krol",
    Rank.ACE: "ace aas ass daus eso as",
}
_RANK_NAMES: dict[str, Rank] = {name: rank for rank, names in _RANK_WORDS.items() for name in names.split()}

# Suit names, folded: English; Dutch; German, Czech, Polish and French of the
# French-suited deck (pik/piky, kier...); the German-suited deck's names.
_SUIT_NAMES: dict[Suit, str] = {
    Suit.S: "s ♠ ♤ spades spade schoppen schop pik piky pique "
            "leaves leaf laub grun gruen blatt zelene zeleny zelena listy wino",
    Suit.H: "h ♥ ♡ hearts heart harten hart herz srdce kier coeur cœur "
            "rot cervene cerveny czerwien",
    Suit.D: "d ♦ ♢ diamonds diamond ruiten ruit karo kary kara caro carreau "
            "bells bell schellen kule dzwonek dzwonki",
    Suit.C: "c ♣ ♧ clubs club klaveren klaver kreuz krize trefl trefle "
            "acorns acorn eichel zaludy zoladz zoledzie",
}
_SUITS: dict[str, Suit] = {name: suit for suit, names in _SUIT_NAMES.items() for name in names.split()}
_CARD_SUITS: dict[str, Suit] = {name: suit for name, suit in _SUITS.items() if len(name) == 1}
