"""Cards and actions: a Card or Action message <-> notation, hands and card sequences."""
from __future__ import annotations

import functools
from typing import Any

from ddcards.errors import DdcardsError
from ddcards.notation import DUPLICATE_RULE, Card, Rank, Suit, parse_cards, parse_hand
from ddcards.server.convert.scalars import (HAND_RANK_ORDER, HAND_SUIT_ORDER, RANK_BY_LETTER, RANK_ENUM_RULE,
                                            RANK_LETTERS, SUIT_BY_LETTER, SUIT_ENUM_RULE, SUIT_LETTERS)
from ddcards.server.status import RequestCardError, RequestError, RequestNotationError, shorten
from ddcards.v1 import ddcards_pb2 as pb


def _parsed(text: str, where: str) -> Card:
    """``Card.parse(text)``, its errors naming ``where``."""
    try:
        return Card.parse(text)
    except DdcardsError as exc:
        raise RequestCardError(f"{where}: {exc}", token=exc.token, rule=exc.rule, field=where) from None


def card_to_str(card: pb.Card, where: str = "card") -> str:
    """The notation of a Card message: its ``notation`` if set, else rank + suit letters."""
    if card.notation:
        if card.rank or card.suit:  # both forms (e.g. a card echoed from a response): they must agree
            parsed = _parsed(card.notation, where)
            if (int(parsed.rank), SUIT_LETTERS.get(card.suit)) != (card.rank, str(parsed.suit)):
                raise RequestError(
                    f"{where}: notation {card.notation!r} and rank/suit "
                    f"{pb.Rank.Name(card.rank) if card.rank in RANK_LETTERS else card.rank}/"
                    f"{pb.Suit.Name(card.suit) if card.suit in SUIT_LETTERS else card.suit} disagree",
                    token=card.notation, rule="card: notation or rank+suit", field=where)
        return card.notation.strip()
    if not card.rank and not card.suit:
        raise RequestCardError(f"{where} is empty: set notation or rank and suit", token="",
                               rule="card: notation or rank+suit", field=where)
    rank = RANK_LETTERS.get(card.rank)
    suit = SUIT_LETTERS.get(card.suit)
    if rank is None:
        raise RequestCardError(f"{where} has no valid rank ({card.rank}; {RANK_ENUM_RULE})", token=str(card.rank),
                               rule=RANK_ENUM_RULE, field=where + ".rank")
    if suit is None:
        raise RequestCardError(f"{where} has no valid suit ({card.suit}; {SUIT_ENUM_RULE})", token=str(card.suit),
                               rule=SUIT_ENUM_RULE, field=where + ".suit")
    return rank + suit


def card_message(text: str) -> pb.Card:
    """A Card message for a canonical card token ("TH"); rank/suit left unset if it is not one."""
    msg = pb.Card(notation=text)
    if len(text) == 2 and text[0] in RANK_BY_LETTER and text[1] in SUIT_BY_LETTER:
        msg.rank = RANK_BY_LETTER[text[0]]
        msg.suit = SUIT_BY_LETTER[text[1]]
    return msg


ACTION_RULE = "action: notation, or card (with named_suit for an Ober naming a suit)"


def action_to_str(action: pb.Action, where: str = "action") -> str:
    """The notation of an Action message: ``notation``, or the card (+ "/" named suit).

    Both forms (an action echoed from a response) must agree; ``named_suit`` goes with
    ``card``: with ``notation`` alone the named suit is written in it ("QS/D")."""
    if action.notation:
        if action.named_suit and not action.HasField("card"):
            raise _named_suit_without_card(action, where)
        if action.HasField("card") or action.named_suit:  # both forms: they must agree
            structured = _structured_action(action, where)
            if _canonical_action(structured) != _canonical_action(action.notation):
                same_card = _canonical_action(structured.partition("/")[0]) == \
                    _canonical_action(action.notation.partition("/")[0])
                if same_card and action.named_suit:
                    raise RequestError(
                        f"{where}: notation {action.notation!r} and named_suit {_suit_name(action.named_suit)} "
                        "disagree", token=action.notation, rule=ACTION_RULE, field=where + ".named_suit")
                raise RequestError(
                    f"{where}: notation {action.notation!r} and card {structured!r} disagree",
                    token=action.notation, rule=ACTION_RULE, field=where)
            _check_named_by_an_ober(structured, where)
        return action.notation.strip()
    if not action.HasField("card"):
        what = "set notation or card" if not action.named_suit else "named_suit goes with card: set card too"
        raise RequestError(f"{where} is empty: {what}", token="", rule=ACTION_RULE, field=where)
    text = _structured_action(action, where)
    _check_named_by_an_ober(text, where)
    return text


def _structured_action(action: pb.Action, where: str) -> str:
    """The card (+ "/" named suit) of an Action's structured form, each part read and checked."""
    text = card_to_str(action.card, where + ".card")
    if not action.named_suit:
        return text
    suit = SUIT_LETTERS.get(action.named_suit)
    if suit is None:
        raise RequestCardError(f"{where} names no valid suit ({action.named_suit}; {SUIT_ENUM_RULE})",
                               token=str(action.named_suit), rule=SUIT_ENUM_RULE, field=where + ".named_suit")
    return text + "/" + suit


def _check_named_by_an_ober(structured: str, where: str) -> None:
    """Only an Ober (a Prší Queen) names a suit: a named suit on another card is refused on its field."""
    card, slash, _ = structured.partition("/")
    if slash and not _is_ober(card):
        raise RequestError(f"{where}.named_suit: named_suit is the suit an Ober names (a Prší Queen), and card "
                           f"{card} is no Ober: leave named_suit unset", token=card, rule=ACTION_RULE,
                           field=where + ".named_suit")


def check_no_named_suit(played: Any, game: str, where: str) -> None:
    """Only Prší's Ober names a suit: a named suit in another game's history is refused on its
    field, before the game reads 'QH/S' as a card it does not know."""
    from ddcards import find_game

    try:
        if find_game(game).name == "prsi":
            return
    except DdcardsError:
        return                          # an unknown game: that error comes first
    for i, action in enumerate(played):
        # (a suit in the notation, 'QH/S', is the game's to refuse, as in a document: it names the token)
        if action.named_suit:
            field = f"{where}.played[{i}].named_suit"
            raise RequestError(f"{field}: only Prší's Ober names a suit (docs/RULES.md §4.4); a {game} action is "
                               "a card alone: leave named_suit unset", token=action.notation or card_to_str(action.card),
                               rule=ACTION_RULE, field=field)


def _suit_name(suit: int) -> str:
    return pb.Suit.Name(suit) if suit in SUIT_LETTERS else str(suit)


def _named_suit_without_card(action: pb.Action, where: str) -> RequestError:
    """The error for an Action with ``notation`` and ``named_suit`` but no ``card``."""
    notation = action.notation.strip()
    card, slash, named = notation.partition("/")
    letter = SUIT_LETTERS.get(action.named_suit)
    if letter is None:
        why = f"named_suit {action.named_suit} is no suit, and it goes with card, not with notation"
    elif slash and _canonical_action(notation) != _canonical_action(f"{card}/{letter}"):
        why = (f"notation {action.notation!r} and named_suit {_suit_name(action.named_suit)} disagree (and "
               "named_suit goes with card: with notation alone, the suit is written in it)")
    elif slash:
        why = (f"named_suit goes with card, and notation {action.notation!r} names the suit already: leave "
               "named_suit unset, or give card and named_suit")
    elif not _is_ober(card):
        why = (f"named_suit is the suit an Ober names (a Prší Queen, 'QH/S'), and {action.notation!r} is no "
               "Ober: leave named_suit unset")
    else:
        why = ("named_suit (the suit an Ober names, in Prší) goes with card, not with notation: give card and "
               f"named_suit, or write the named suit in notation ({card.strip() + '/' + letter!r})")
    return RequestError(f"{where}: {why}", token=action.notation, rule=ACTION_RULE, field=where + ".named_suit")


def _is_ober(text: str) -> bool:
    try:
        return Card.parse(text).rank is Rank.QUEEN
    except ValueError:          # "draw", "pass", "exchange", or no card at all
        return False


def _canonical_action(text: str) -> str:
    card, sep, named = text.strip().partition("/")
    try:
        card = str(Card.parse(card))
        named = str(Suit.parse(named.strip())) if sep else ""    # 'QS/♦', 'QS/diamonds' are 'QS/D'
    except DdcardsError:
        return text.strip()
    return card + sep + named


def action_message(text: str) -> pb.Action:
    """An Action message for an action's notation ("TH", "QH/S", "draw")."""
    return _action_template(text)


@functools.lru_cache(maxsize=4096)
def _action_template(text: str) -> pb.Action:
    # Results repeat a few dozen distinct actions; building each message once
    # makes a response 4x cheaper. Callers must not mutate the cached message:
    # repeated fields' extend() and CopyFrom() copy it.
    msg = pb.Action(notation=text)
    card, _, named = text.partition("/")
    card_msg = card_message(card)
    if card_msg.rank:
        msg.card.CopyFrom(card_msg)
        if named in SUIT_BY_LETTER:
            msg.named_suit = SUIT_BY_LETTER[named]
    return msg


def _given_notation(cards: pb.Cards, where: str, ordered: bool) -> str | None:
    """The ``notation`` of a Cards message when it carries no structured cards, else None (the
    structured cards are read). Both set — as a response carries them, sent back — must agree:
    the same cards, and in the same order for a sequence (`ordered`)."""
    if cards.notation and len(cards.cards):
        given = [_parsed(card_to_str(c, f"{where}.cards[{i}]"), f"{where}.cards[{i}]")
                 for i, c in enumerate(cards.cards)]
        if len(set(given)) < len(given):
            return None                 # a card twice: the cards are read, and that error names it
        try:
            written = list(parse_cards(cards.notation) if ordered else parse_hand(cards.notation))
            same = given == written if ordered else sorted(given) == sorted(written)
        except ValueError:
            same = False
        if not same:
            raise RequestError(f"{where}: notation {shorten(cards.notation)!r} and cards disagree: set one, or "
                               "both naming the same cards", token=cards.notation, rule="cards: notation or list",
                               field=where)
    return None if len(cards.cards) else cards.notation.strip()


def cards_to_hand(cards: pb.Cards, where: str = "hand") -> str:
    """A hand in PBN-like notation: ``notation`` as given, or the structured cards grouped S.H.D.C."""
    notation = _given_notation(cards, where, ordered=False)
    if notation is not None:
        return notation
    by_suit: dict[str, list[str]] = {s: [] for s in HAND_SUIT_ORDER}
    seen: dict[str, int] = {}
    for i, card in enumerate(cards.cards):
        at = f"{where}.cards[{i}]"
        text = str(_parsed(card_to_str(card, at), at))  # aliases ("10H") -> "TH"
        if text in seen:  # named here: the library would quote a hand text the client never wrote
            raise RequestNotationError(f"{at}: card {text!r} appears twice in the hand (also {where}.cards[{seen[text]}]; "
                                       f"{DUPLICATE_RULE})", token=text, rule=DUPLICATE_RULE, field=at)
        seen[text] = i
        by_suit[text[1]].append(text[0])
    return ".".join(
        "".join(sorted(ranks, key=HAND_RANK_ORDER.index)) for ranks in by_suit.values()
    )


def cards_to_sequence(cards: pb.Cards, where: str = "cards", *, ordered: bool = True) -> str:
    """A card sequence ("7S 8D"): ``notation`` as given, or the structured cards in order
    (`ordered`: whether the order matters when both are given: a stock's does, a talon's not)."""
    notation = _given_notation(cards, where, ordered=ordered)
    if notation is not None:
        return notation
    return " ".join(card_to_str(c, f"{where}.cards[{i}]") for i, c in enumerate(cards.cards))
