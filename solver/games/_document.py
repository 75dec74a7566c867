"""Reading the fields every game's position document shares (docs/RULES.md §0).

Each reader checks one field and raises a DdcardsError naming the token and
the rule; a game module strings them together with its own rules.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ddcards._jsonio import check_id, check_limits, plain_values, shown, token_text
from ddcards.errors import DdcardsError, InvalidCardError, InvalidDealError, InvalidOptionError, NotationError
from ddcards.games.base import STAKE, GameInfo, OptionInfo
from ddcards.notation import Card, Rank, format_hand, parse_cards, parse_hand

# The clauses of docs/RULES.md that errors about the shared fields cite.
FIELDS_RULE = "docs/RULES.md §0.6 rule 2: a position holds only its game's fields"
HANDS_RULE = "docs/RULES.md §0.6 rule 3: one hand per seat"
OPTIONS_RULE = ("docs/RULES.md §0.6 rule 4: options are the game's own, of the option's type, "
                "and apply to the contract")
CARD_LIST_RULE = "docs/RULES.md §0.3 rule 2: a list of cards is text such as '7S 8D', or a list of cards"
HAND_RULE = "docs/RULES.md §0.4 rules 1 and 3: a hand is written like 'AKT.987..QJ', or is a list of cards"
DEALT_ONCE_RULE = "docs/RULES.md §0.5 rule 3: each card is dealt once"
HAND_SIZE_RULE = ("docs/RULES.md §0.5 rule 4: every hand holds the game's number of cards as dealt for card play, "
                  "whatever has been played since")
HISTORY_RULE = "docs/RULES.md §0.7 rule 1: played is a list of cards, or one string of cards"

# A whole-number option lies in its own range.  Most are stakes: with the hearts and re
# multipliers (x8) and a declarer paid by two defenders, a settlement stays far inside the
# 32-bit fields of a result.
OPTION_RANGE_RULE = "docs/RULES.md §0.6 rule 5: a whole-number option lies in its range"
STAKE_RANGE_RULE = f"{OPTION_RANGE_RULE} (a stake: 0 to 1,000,000)"
# An option's type in words, for messages.
_TYPE_WORDS = {"bool": "true or false", "int": "a whole number", "str": "text"}


def unset(value: Any, *, empty_list: bool = False) -> bool:
    """Whether a field's value leaves it unset: null or "" (or [] where `empty_list`). Tested by
    type, not with ``in (None, "")``: a program's foreign object there (a numpy array) may refuse
    ``==``, which would escape as its own error rather than the field's."""
    if value is None or (isinstance(value, str) and value == ""):
        return True
    return empty_list and isinstance(value, (list, tuple)) and len(value) == 0


def check_fields(doc: Mapping[str, Any], fields: Sequence[str], game: str) -> dict[str, Any]:
    """The gate of every game's document: plain data within the limits of ddcards._jsonio
    (nesting, number size, text length, valid Unicode), and every key one of the game's `fields`.
    Returns the document with its null fields left out (RULES §0.6 rule 6: null reads as absent,
    as JSON writers send an unset field) and numpy's values as the plain ones they hold
    (``plain_values``), which the game then reads.

    Each game calls this first, so the readers after it never see a value whose message
    could not be built.
    """
    doc = plain_values(doc)             # numpy's np.int64(1) is the 1 it holds, as in the API's arguments
    check_limits(doc)
    for key in doc:
        if key not in fields and key != "id":
            # A misspelt or foreign field is an error even when null (rule 2: never ignored).
            raise InvalidOptionError(f"field {shown(key)} does not apply to {game} (fields: {', '.join(fields)}; "
                                     f"{FIELDS_RULE})", token=token_text(key), rule=FIELDS_RULE, field=str(key))
        if key == "id" and doc[key] is not None:
            check_id(doc[key])          # RULES §0.11 rule 4: a label of the document, not of the position
    return {key: value for key, value in doc.items() if value is not None}


@contextmanager
def in_field(name: str) -> Iterator[None]:
    """Errors raised inside concern the document's field `name` (a path: "trump", "hands[2]",
    "options.player"), unless they name a field already: the service's ErrorInfo carries it."""
    try:
        yield
    except DdcardsError as exc:
        if exc.field is None:
            exc.field = name
        raise


def cards_field(value: Any, what: str, field: str | None = None) -> tuple[Card, ...]:
    """A card list: "7S 8D" or ["7S", "8D"]; `what` names it in messages, `field` (default: `what`)
    is the document field its errors name."""
    field = field or what
    with in_field(field):
        if isinstance(value, Card):
            return (value,)             # one Card, as the API hands one out (a Prší table's top)
        if isinstance(value, str):
            return parse_cards(value)
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if not isinstance(item, (str, Card)):
                    raise InvalidCardError(f"{what}[{i}] must be a card such as 'TH', not {shown(item)} "
                                           f"({CARD_LIST_RULE})", token=token_text(item), rule=CARD_LIST_RULE,
                                           field=f"{field}[{i}]")
            return parse_cards(value)
        raise NotationError(f"{what} is not a list of cards: {shown(value)} ({CARD_LIST_RULE})",
                            token=token_text(value), rule=CARD_LIST_RULE)


def hand_field(value: Any, seat: int) -> tuple[Card, ...]:
    """A hand: "AKT.987..QJ" (suits S.H.D.C) or a list of cards."""
    with in_field(f"hands[{seat}]"):
        if isinstance(value, str):
            return parse_hand(value)
        if isinstance(value, (list, tuple)):
            cards = cards_field(value, f"hand {seat}", f"hands[{seat}]")
            format_hand(cards)          # rejects a card given twice
            return cards
        raise NotationError(f"hand {seat} is not a hand: {shown(value)} ({HAND_RULE})",
                            token=token_text(value), rule=HAND_RULE)


def hands_field(doc: Mapping[str, Any], count: int, title: str) -> tuple[tuple[Card, ...], ...]:
    """`count` hands, each read as a hand (their sizes are the game's to check: check_hand_sizes)."""
    raw = doc.get("hands")
    if raw is None:                     # left out, or null (RULES §0.6 rule 6)
        raise InvalidDealError(f"{title} needs its {count} hands (field 'hands', missing; {HANDS_RULE})",
                               token="hands", rule=HANDS_RULE, field="hands")
    if not isinstance(raw, (list, tuple)):
        raise InvalidDealError(f"{title} needs a list of {count} hands (field 'hands'), got {shown(raw)} "
                               f"({HANDS_RULE})", token=token_text(raw), rule=HANDS_RULE, field="hands")
    if len(raw) != count:
        raise InvalidDealError(f"{title} needs {count} hands (field 'hands'), got {len(raw)} ({HANDS_RULE})",
                               token="hands", rule=HANDS_RULE, field="hands")
    return tuple(hand_field(h, seat) for seat, h in enumerate(raw))


def place_field(where: str) -> str:
    """The document field of a place a deal's check names: "hand 2" is hands[2], "the stock" stock."""
    if where.startswith("hand "):
        return f"hands[{where[5:]}]"
    return where.removeprefix("the ")


def dealt_twice(card: Card, first: str, where: str) -> str:
    """How a card dealt twice reads: in two places, or twice in one (`first` and `where` as
    check_deal names places)."""
    if first == where:
        return f"card '{card}' is in {where} twice"
    return f"card '{card}' is dealt twice, in {first} and {where}"


def check_deal(places: Iterable[tuple[str, Sequence[Card]]], title: str, *,
               deck_rule: str = "docs/RULES.md §0.5 rule 2: the game's deck", lowest: Rank = Rank.SEVEN) -> None:
    """No card below `lowest` (not in the deck) and no card twice across `places` (where, cards).
    A card dealt twice names as its field (DdcardsError.field) the later place, where it repeats."""
    seen: dict[int, str] = {}          # by the card's code: an int hashes without a Python call
    for where, cards in places:
        for card in cards:
            if card.rank < lowest:
                raise InvalidCardError(f"card '{card}' in {where} is not in the {title} deck ({deck_rule})",
                                       token=str(card), rule=deck_rule, field=place_field(where))
            if card._code in seen:
                raise InvalidDealError(f"{dealt_twice(card, seen[card._code], where)} ({DEALT_ONCE_RULE})",
                                       token=str(card), rule=DEALT_ONCE_RULE, field=place_field(where))
            seen[card._code] = where


def cards_text(count: int) -> str:
    """'1 card', '7 cards'."""
    return f"{count} card{'' if count == 1 else 's'}"


def as_dealt_hint(held: int, size: int, misplaced: str = "") -> str:
    """What a hand short of cards most often means: the cards left were given, not the deal; or,
    where every card of the deck is there (`misplaced`: where else cards lie), a card in the
    wrong place."""
    if held >= size:
        return ""
    if misplaced:
        return f"; the deal holds every card of the deck, so a card of this hand is in {misplaced}"
    return ("; a hand is the cards as dealt, whatever has been played since: give the cards played back to "
            "the hands and list them in 'played'")


def misplaced_places(hands: Sequence[Sequence[Card]], size: int, deck: int,
                     elsewhere: Sequence[tuple[str, int]] = ()) -> str:
    """Where a short hand's card lies when the hands and `elsewhere` (other places and their card
    counts) hold the whole `deck`: those places, and the hands with more than `size` ("" if they
    do not hold the whole deck, or no deck is given)."""
    if deck <= 0 or sum(len(h) for h in hands) + sum(n for _, n in elsewhere) != deck:
        return ""
    over = [place for place, n in elsewhere if n] + [f"hand {s}" for s, h in enumerate(hands) if len(h) > size]
    return " or ".join(over)


def check_hand_sizes(hands: Sequence[Sequence[Card]], size: int, title: str, why: str = "", *,
                     deck: int = 0, elsewhere: Sequence[tuple[str, int]] = ()) -> None:
    """Every hand holds `size` cards. `deck`, `elsewhere` (other places and their card counts, e.g.
    the talon): where the hands and those places hold the whole deck, a short hand is a card put in
    the wrong place, not a hand given as it is now (the usual cause, which the message names)."""
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            misplaced = misplaced_places(hands, size, deck, elsewhere)
            raise InvalidDealError(f"hand {seat} has {cards_text(len(hand))}; {title} hands hold {size}{why}"
                                   f"{as_dealt_hint(len(hand), size, misplaced)} ({HAND_SIZE_RULE})",
                                   token=f"hand {seat}", rule=HAND_SIZE_RULE, field=f"hands[{seat}]")


def option_value(info: OptionInfo, value: Any) -> Any:
    """`value` checked against the option's type and choices."""
    ok = {"bool": isinstance(value, bool), "int": isinstance(value, int) and not isinstance(value, bool),
          "str": isinstance(value, str)}[info.type]
    if not ok:
        raise InvalidOptionError(f"option '{info.name}' takes {_TYPE_WORDS[info.type]}, not {shown(value)} "
                                 f"({OPTIONS_RULE})",
                                 token=token_text(value), rule=OPTIONS_RULE, field=f"options.{info.name}")
    if info.choices and isinstance(value, str) and value.strip().lower() in info.choices:
        value = value.strip().lower()       # a word in any case, as contract, objective and rules are read
    if info.choices and value not in info.choices:
        raise InvalidOptionError(f"option '{info.name}' is one of {', '.join(info.choices)}, not {shown(value)} "
                                 f"({OPTIONS_RULE})", token=token_text(value), rule=OPTIONS_RULE, field=f"options.{info.name}")
    low, high = info.minimum, info.maximum
    if low is not None and high is not None and not low <= value <= high:
        why = "is too small" if value < low else "is too large"
        rule = STAKE_RANGE_RULE if info.meaning == STAKE else OPTION_RANGE_RULE
        raise InvalidOptionError(f"option '{info.name}' {why}: it is {info.meaning}, a whole number from {low:,} to "
                                 f"{high:,}, not {shown(value)} ({rule})", token=token_text(value),
                                 rule=rule, field=f"options.{info.name}")
    return value


def options_object(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The document's `options` as given: an object (absent or null: empty)."""
    raw = doc.get("options")
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidOptionError(f"options must be an object of variant names to values, not {shown(raw)} "
                                 f"({OPTIONS_RULE})", token=token_text(raw), rule=OPTIONS_RULE, field="options")
    return raw


def options_field(doc: Mapping[str, Any], info: GameInfo, *,
                  not_here: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The game's options with the document's values over the defaults.

    not_here: options that exist but do not apply to this position, with why.
    """
    raw = options_object(doc)
    options = {opt.name: opt.default for opt in info.options}
    for name, value in raw.items():
        opt = info.option(name)
        if opt is None:
            known = ", ".join(o.name for o in info.options) or "none"
            raise InvalidOptionError(f"unknown option {shown(name)} for {info.name} (options: {known}; {OPTIONS_RULE})",
                                     token=token_text(name), rule=OPTIONS_RULE, field=f"options.{name}")
        if not_here and name in not_here:
            raise InvalidOptionError(f"option '{name}' does not apply here: {not_here[name]} ({OPTIONS_RULE})",
                                     token=name, rule=OPTIONS_RULE, field=f"options.{name}")
        options[name] = option_value(opt, value)
    return options


def history_tokens(doc: Mapping[str, Any], rule: str = HISTORY_RULE, what: str = "cards") -> list[Any]:
    """The tokens of `played` as given: a list, or one string of them separated by spaces,
    commas or "|" (the trick separator ddcards prints in a line of play, so that a printed line
    reads back; every game's history; `what` names its actions for the message)."""
    raw = doc.get("played", ())
    if isinstance(raw, str):
        return raw.replace(",", " ").replace("|", " ").split()
    if isinstance(raw, (list, tuple)):
        return list(raw)
    raise NotationError(f"played must be a list of {what}, not {shown(raw)} ({rule})", token=token_text(raw),
                        rule=rule, field="played")


def played_field(doc: Mapping[str, Any], *, actions: Sequence[str] = (), rule: str = HISTORY_RULE,
                 what: str = "cards") -> tuple[str, ...]:
    """The history in canonical notation: cards (text or Card) and the game's other
    `actions` (lower-case words such as Mariasz's "exchange"); `what` names them for messages."""
    played = []
    for ply, token in enumerate(history_tokens(doc, rule, what)):
        field = f"played[{ply}]"
        if isinstance(token, Card):
            played.append(str(token))
            continue
        if not isinstance(token, str):
            raise InvalidCardError(f"{field} must be a card such as 'TH'{' or an action' if actions else ''}, not "
                                   f"{shown(token)} ({rule})", token=token_text(token), rule=rule, field=field)
        if actions and token.strip().lower() in actions:
            played.append(token.strip().lower())
            continue
        try:
            played.append(str(Card.parse(token)))
        except NotationError as exc:
            other = other_games_action(token)
            if other is not None:
                # (not "'e' is not a rank": the word is an action, of another game)
                whose = f"{other}; {what}" if actions else other
                cards_only = "" if actions else ", whose record plays cards only"
                raise InvalidCardError(f"{field}: '{token.strip()}' is no action of this game{cards_only} (it is "
                                       f"{whose}) ({rule})", token=token.strip(), rule=rule, field=field) from None
            also = f" ({what})" if actions else ""
            raise type(exc)(f"{field}: {exc}{also}", token=exc.token, rule=exc.rule, field=field) from None
    return tuple(played)


# The actions of the games with more than cards, named where another game's record holds one
_OTHER_GAMES_ACTIONS = {"exchange": "Mariasz's exchange of the trump six", "draw": "a Prší action",
                        "pass": "a Prší action"}


def other_games_action(token: str) -> str | None:
    """Whose action the word `token` is ("Mariasz's exchange of the trump six", "a Prší action"),
    for a record that holds it where it is no action (not "'e' is not a rank"); None for any other."""
    return _OTHER_GAMES_ACTIONS.get(token.strip().lower())
