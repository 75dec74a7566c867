"""Reading the fields every game's position document shares (RULES.md §0).

Each reader checks one field and raises a DdcardsError naming the token and
the rule; a game module strings them together with its own rules.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ddcards.errors import InvalidCardError, InvalidDealError, InvalidOptionError, NotationError
from ddcards.games.base import GameInfo, OptionInfo
from ddcards.notation import Card, Rank, format_hand, parse_cards, parse_hand


def check_fields(doc: Mapping[str, Any], fields: Sequence[str], game: str) -> None:
    """Every key of `doc` is one of the game's `fields`."""
    for key in doc:
        if key not in fields:
            raise InvalidOptionError(f"field '{key}' does not apply to {game} (fields: {', '.join(fields)})",
                                     token=str(key), rule=f"fields of a {game} position", field=str(key))


def cards_field(value: Any, what: str) -> tuple[Card, ...]:
    """A card list: "7S 8D" or ["7S", "8D"]."""
    if isinstance(value, str):
        return parse_cards(value)
    if isinstance(value, (list, tuple)):
        return parse_cards([v if isinstance(v, Card) else str(v) for v in value])
    raise NotationError(f"{what} must be a string of cards such as '7S 8D' or a list of cards, "
                        f"not {value!r:.40}", token=repr(value), rule="card list")


def hand_field(value: Any, seat: int) -> tuple[Card, ...]:
    """A hand: "AKT.987..QJ" (suits S.H.D.C) or a list of cards."""
    if isinstance(value, str):
        return parse_hand(value)
    if isinstance(value, (list, tuple)):
        cards = cards_field(value, f"hand {seat}")
        format_hand(cards)          # rejects a card given twice
        return cards
    raise NotationError(f"hand {seat} must be a string such as 'AKT.987..QJ', not {value!r:.40}",
                        token=repr(value), rule="hand notation", field=f"hands[{seat}]")


def hands_field(doc: Mapping[str, Any], count: int, size: int, title: str) -> tuple[tuple[Card, ...], ...]:
    """`count` hands of `size` cards each (sizes checked after the deck, see check_deal)."""
    raw = doc.get("hands")
    if not isinstance(raw, (list, tuple)):
        raise InvalidDealError(f"{title} needs a list of {count} hands (field 'hands'), got {raw!r:.60}",
                               token="hands", rule=f"{count} players", field="hands")
    if len(raw) != count:
        raise InvalidDealError(f"{title} needs {count} hands (field 'hands'), got {len(raw)}", token="hands",
                               rule=f"{count} players", field="hands")
    return tuple(hand_field(h, seat) for seat, h in enumerate(raw))


def check_deal(places: Iterable[tuple[str, Sequence[Card]]], title: str, *, deck_rule: str = "32 cards, 7 to A",
               lowest: Rank = Rank.SEVEN) -> None:
    """No card below `lowest` (not in the deck) and no card twice across `places` (where, cards)."""
    seen: dict[Card, str] = {}
    for where, cards in places:
        for card in cards:
            if card.rank < lowest:
                raise InvalidCardError(f"card '{card}' in {where} is not in the {title} deck ({deck_rule})",
                                       token=str(card), rule=deck_rule)
            if card in seen:
                raise InvalidDealError(f"card '{card}' is dealt twice ({seen[card]} and {where})",
                                       token=str(card), rule="each card once")
            seen[card] = where


def check_hand_sizes(hands: Sequence[Sequence[Card]], size: int, title: str, why: str = "") -> None:
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise InvalidDealError(f"hand {seat} has {len(hand)} cards; {title} hands hold {size}{why}",
                                   token=f"hand {seat}", rule=f"{size} cards a hand", field=f"hands[{seat}]")


def option_value(info: OptionInfo, value: Any) -> Any:
    """`value` checked against the option's type and choices."""
    ok = {"bool": isinstance(value, bool), "int": isinstance(value, int) and not isinstance(value, bool),
          "str": isinstance(value, str)}[info.type]
    if not ok:
        raise InvalidOptionError(f"option '{info.name}' takes a {info.type}, not {value!r}",
                                 token=info.name, rule="option type", field=f"options.{info.name}")
    if info.choices and value not in info.choices:
        raise InvalidOptionError(f"option '{info.name}' is one of {', '.join(info.choices)}, not {value!r}",
                                 token=str(value), rule="option choices", field=f"options.{info.name}")
    if info.type == "int" and value < 0:
        raise InvalidOptionError(f"option '{info.name}' must not be negative ({value})",
                                 token=str(value), rule="option range", field=f"options.{info.name}")
    return value


def options_field(doc: Mapping[str, Any], info: GameInfo, *,
                  not_here: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The game's options with the document's values over the defaults.

    not_here: options that exist but do not apply to this position, with why.
    """
    raw = doc.get("options")
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InvalidOptionError(f"options must be an object of variant names to values, not {raw!r:.40}",
                                 token=repr(raw), rule="options", field="options")
    options = {opt.name: opt.default for opt in info.options}
    for name, value in raw.items():
        opt = info.option(name)
        if opt is None:
            known = ", ".join(o.name for o in info.options) or "none"
            raise InvalidOptionError(f"unknown option '{name}' for {info.name} (options: {known})",
                                     token=str(name), rule=f"options of {info.name}", field=f"options.{name}")
        if not_here and name in not_here:
            raise InvalidOptionError(f"option '{name}' does not apply here: {not_here[name]}",
                                     token=str(name), rule="options that apply", field=f"options.{name}")
        options[name] = option_value(opt, value)
    return options


def played_field(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The history in canonical notation (a list, or one string of tokens)."""
    raw = doc.get("played", ())
    if isinstance(raw, str):
        tokens = raw.replace(",", " ").split()
    elif isinstance(raw, (list, tuple)):
        tokens = [str(p) for p in raw]
    else:
        raise NotationError(f"played must be a list of cards, not {raw!r:.40}", token=repr(raw), rule="history", field="played")
    played = []
    for ply, token in enumerate(tokens):
        try:
            played.append(str(Card.parse(token)))
        except NotationError as exc:
            raise type(exc)(f"played[{ply}]: {exc}", token=exc.token, rule=exc.rule, field=f"played[{ply}]") from None
    return tuple(played)
