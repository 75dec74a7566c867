"""Pure conversions between ddcards.v1 messages and the solver's Python values.

Nothing here talks to a network or runs a search, so every function can be
tested on its own. The request side builds the *position document* of
docs/RULES.md §0 (a plain dict) from a ``Position`` message; the solver validates
it (``ddcards.Position.from_dict``), so this module only rejects what it cannot
express as a document (a structured card without a suit, an option without a
value, ...). The response side reads the documented attributes of
``ddcards.Result``, ``ddcards.Analysis`` and ``ddcards.GameInfo``.

No function knows a game's rules: games, contracts and enums are converted by
name (``GAME_MARIAS`` <-> ``"marias"``), options are passed through by name,
so a game the solver adds appears here without code changes.
"""
from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from google.protobuf import json_format
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.struct_pb2 import Struct

from ddcards.v1 import ddcards_pb2 as pb
from ddcards._jsonio import (JSON_STRING, LIMITS_CLAUSE, LIMITS_RULE, MAX_ALL_ITEMS, MAX_ITEMS, MAX_TEXT,
                             POSITION_RULE, json_kind, loads, whole_number)
from ddcards.api import ANALYSIS_MODE_RULE, MODE_RULE, check_from_ply
from ddcards.errors import DdcardsError
from ddcards.games._document import history_tokens
from ddcards.notation import Card, Rank, Suit, parse_cards, parse_hand
from ddcards.server.status import RequestCardError, RequestError, ValueOutOfRange, shorten

__all__ = [
    "RequestError",
    "load_document",
    "step_message",
    "step_dict",
    "SUIT_LETTERS",
    "RANK_LETTERS",
    "MODE_NAMES",
    "enum_to_name",
    "name_to_enum",
    "card_to_str",
    "card_message",
    "action_to_str",
    "action_message",
    "cards_to_hand",
    "cards_to_sequence",
    "option_to_python",
    "python_to_option",
    "position_to_doc",
    "request_to_doc",
    "doc_to_position",
    "mode_to_name",
    "name_to_mode",
    "name_to_analysis_mode",
    "from_ply_field",
    "analysis_from_ply",
    "result_to_response",
    "analysis_to_response",
    "game_info_to_message",
    "games_to_response",
    "int32",
    "response_to_dict",
    "analysis_response_to_dict",
    "games_response_to_list",
]


# ---------------------------------------------------------------- enums <-> names

SUIT_LETTERS: dict[pb.Suit, str] = {
    pb.SUIT_SPADES: "S",
    pb.SUIT_HEARTS: "H",
    pb.SUIT_DIAMONDS: "D",
    pb.SUIT_CLUBS: "C",
}
_SUIT_BY_LETTER = {v: k for k, v in SUIT_LETTERS.items()}

# An enum number outside the enum (a client may send any): named with the enum's range and the rule.
SUIT_ENUM_RULE = "docs/RULES.md §0.1 rule 1: suits S H D C; a Suit is SUIT_SPADES (1) to SUIT_CLUBS (4)"
RANK_ENUM_RULE = "docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A; a Rank is RANK_SIX (6) to RANK_ACE (14)"

RANK_LETTERS: dict[pb.Rank, str] = {
    pb.RANK_SIX: "6",
    pb.RANK_SEVEN: "7",
    pb.RANK_EIGHT: "8",
    pb.RANK_NINE: "9",
    pb.RANK_TEN: "T",
    pb.RANK_JACK: "J",
    pb.RANK_QUEEN: "Q",
    pb.RANK_KING: "K",
    pb.RANK_ACE: "A",
}
_RANK_BY_LETTER = {v: k for k, v in RANK_LETTERS.items()}
# Order of ranks inside a PBN hand ("AKT.987..QJ"), highest first.
_HAND_RANK_ORDER = "AKQJT9876"
_HAND_SUIT_ORDER = "SHDC"

MODE_NAMES: dict[int, str] = {
    pb.SOLVE_MODE_UNSPECIFIED: "all",
    pb.SOLVE_MODE_BEST: "best",
    pb.SOLVE_MODE_OPTIMAL: "optimal",
    pb.SOLVE_MODE_ALL: "all",
}
_MODE_BY_NAME = {"best": pb.SOLVE_MODE_BEST, "optimal": pb.SOLVE_MODE_OPTIMAL, "all": pb.SOLVE_MODE_ALL}


def enum_to_name(enum_type: EnumTypeWrapper, value: int) -> str:
    """``(pb.Game, GAME_MARIAS)`` -> ``"marias"``; ``""`` for the UNSPECIFIED value or an unknown number."""
    if value == 0:
        return ""
    try:
        full = enum_type.Name(value)
    except ValueError:
        return ""
    prefix = _enum_prefix(enum_type)
    return full[len(prefix):].lower() if full.startswith(prefix) else full.lower()


_Enum = TypeVar("_Enum", bound=int)


def name_to_enum(enum_type: type[_Enum], name: str) -> _Enum:
    """``(pb.Game, "marias")`` -> ``GAME_MARIAS``; 0 (UNSPECIFIED) for a name the enum lacks."""
    # protoc's stubs make an enum (pb.Game) a class of its values; the object is the class's
    # metaclass, EnumTypeWrapper, whose Value() is typed as a plain int: that number is the enum's.
    return cast(_Enum, _enum_number(cast(EnumTypeWrapper, enum_type), name))


def _enum_number(enum_type: EnumTypeWrapper, name: str) -> int:
    if not name:
        return 0
    key = _enum_prefix(enum_type) + name.upper()
    try:
        return enum_type.Value(key)
    except ValueError:
        return 0


def _enum_prefix(enum_type: EnumTypeWrapper) -> str:
    # Every enum's zero value is <PREFIX>UNSPECIFIED (buf's style rule).
    zero = enum_type.Name(0)
    return zero[: -len("UNSPECIFIED")]


def mode_to_name(mode: int) -> str:
    try:
        return MODE_NAMES[mode]
    except KeyError:
        raise RequestError(f"unknown solve mode {mode}: use BEST, OPTIMAL or ALL ({MODE_RULE})", token=str(mode),
                           rule=MODE_RULE, field="mode") from None


def analysis_mode_name(mode: int) -> str:
    """An AnalysePlayRequest's mode: unset is "optimal" (a solve's unset is "all"), BEST is refused."""
    if mode == pb.SOLVE_MODE_UNSPECIFIED:
        return "optimal"
    if mode == pb.SOLVE_MODE_BEST:
        raise RequestError(f"an analysis takes mode OPTIMAL or ALL, not BEST: each step lists every optimal move "
                           f"(best_moves) and whether the move played was one of them ({ANALYSIS_MODE_RULE})",
                           token="SOLVE_MODE_BEST", rule=ANALYSIS_MODE_RULE, field="mode")
    if mode not in MODE_NAMES:
        raise RequestError(f"unknown analysis mode {mode}: use OPTIMAL or ALL ({ANALYSIS_MODE_RULE})", token=str(mode),
                           rule=ANALYSIS_MODE_RULE, field="mode")
    return mode_to_name(mode)


def name_to_analysis_mode(name: str | int) -> pb.SolveMode:
    """An analysis's mode for its request, as name_to_mode takes it, checked as the server checks
    it: "optimal" or "all" (a number outside the enum goes as it is); "best" or an unknown name
    is a RequestError before anything is sent (name_to_mode's would suggest "best")."""
    try:
        number = name_to_mode(name)
    except RequestError:
        raise RequestError(f"unknown analysis mode {name!r}: use optimal or all ({ANALYSIS_MODE_RULE})",
                           token=str(name), rule=ANALYSIS_MODE_RULE, field="mode") from None
    if number == pb.SOLVE_MODE_BEST:
        analysis_mode_name(number)          # refused, in the server's words
    return number


FROM_PLY_RULE = "AnalysePlayRequest.from_ply: a whole number from 0 to the number of recorded actions"


def from_ply_field(value: Any) -> int:
    """An analysis's from_ply for its request: a whole number that an int32 field holds (the
    server checks it against the record); a RequestError otherwise, before anything is sent."""
    if isinstance(value, bool) or not isinstance(value, int) or not _INT32_MIN <= value <= _INT32_MAX:
        raise RequestError(f"from_ply is a whole number from 0 to the number of recorded actions, not {value!r} "
                           f"({FROM_PLY_RULE})", token=repr(value), rule=FROM_PLY_RULE, field="from_ply")
    return value


def analysis_from_ply(from_ply: int, actions: int) -> int:
    """An AnalysePlayRequest's from_ply checked against the record's `actions` as the library
    checks it, refused as a request field (``from_ply``, not a place in the position)."""
    try:
        return check_from_ply(from_ply, actions)
    except DdcardsError as exc:
        raise RequestError(str(exc), token=exc.token, rule=exc.rule, field="from_ply") from None


def name_to_mode(name: str | int) -> pb.SolveMode:
    if isinstance(name, int):
        if not _INT32_MIN <= name <= _INT32_MAX:      # no enum field holds it
            raise RequestError(f"unknown solve mode {name}: use best, optimal or all ({MODE_RULE})", token=str(name),
                               rule=MODE_RULE, field="mode")
        return cast(pb.SolveMode, name)   # a number goes as it is: the receiver checks it
    key = str(getattr(name, "value", name)).strip().lower()
    if key.startswith("solve_mode_"):
        key = key[len("solve_mode_"):]
    try:
        return _MODE_BY_NAME[key]
    except KeyError:
        raise RequestError(f"unknown solve mode {name!r}: use best, optimal or all ({MODE_RULE})", token=str(name),
                           rule=MODE_RULE, field="mode") from None


TIMEOUT_RULE = "timeout_seconds: a number of seconds, at least 0 (0 = no limit of its own)"


def timeout_limit(seconds: float, where: str = "timeout_seconds") -> float:
    """A request's ``timeout_seconds``: 0 (unset) or infinity for no limit of its own (the
    call's deadline applies all the same), else the seconds; NaN or a negative number is a
    RequestError naming ``where``, never a search without a limit."""
    if math.isnan(seconds) or seconds < 0:
        raise RequestError(f"{where} must be a number of seconds, at least 0 (0: no limit but the call's "
                           f"deadline), not {seconds!r}", token=repr(seconds), rule=TIMEOUT_RULE, field=where)
    return seconds


# ---------------------------------------------------------------- cards and actions
#
# ``where`` is the path of the message being read in the request
# ("position.hands[0].cards[3]"): errors name it and carry it as their field.

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
    if len(text) == 2 and text[0] in _RANK_BY_LETTER and text[1] in _SUIT_BY_LETTER:
        msg.rank = _RANK_BY_LETTER[text[0]]
        msg.suit = _SUIT_BY_LETTER[text[1]]
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


def _check_no_named_suit(played: Any, game: str, where: str) -> None:
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
        if named in _SUIT_BY_LETTER:
            msg.named_suit = _SUIT_BY_LETTER[named]
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
    by_suit: dict[str, list[str]] = {s: [] for s in _HAND_SUIT_ORDER}
    for i, card in enumerate(cards.cards):
        at = f"{where}.cards[{i}]"
        text = str(_parsed(card_to_str(card, at), at))  # aliases ("10H") -> "TH"
        by_suit[text[1]].append(text[0])
    return ".".join(
        "".join(sorted(ranks, key=_HAND_RANK_ORDER.index)) for ranks in by_suit.values()
    )


def cards_to_sequence(cards: pb.Cards, where: str = "cards", *, ordered: bool = True) -> str:
    """A card sequence ("7S 8D"): ``notation`` as given, or the structured cards in order
    (`ordered`: whether the order matters when both are given: a stock's does, a talon's not)."""
    notation = _given_notation(cards, where, ordered=ordered)
    if notation is not None:
        return notation
    return " ".join(card_to_str(c, f"{where}.cards[{i}]") for i, c in enumerate(cards.cards))


# ---------------------------------------------------------------- options

def option_to_python(name: str, value: pb.OptionValue, where: str = "options") -> bool | int | float | str:
    kind = value.WhichOneof("kind")
    if kind is None:
        raise RequestError(f"option {shorten(name)!r} has no value", token=name, rule="option value",
                           field=f"{where}.{name}")
    python: bool | int | float | str = getattr(value, kind)   # the oneof's one field set
    return python


def python_to_option(value: Any) -> pb.OptionValue:
    if value is None:
        return pb.OptionValue()
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    if isinstance(value, float):
        return pb.OptionValue(double_value=value)
    return pb.OptionValue(string_value=str(value))


# ---------------------------------------------------------------- request -> document

def _pick_name(name: str, enum_type: EnumTypeWrapper, enum_value: int, field: str,
               canonical: Callable[[str], str], where: str) -> str:
    if len(name) > MAX_TEXT:
        # As it is, not stripped or looked up: the library refuses it by the text limit (docs/RULES.md
        # §0.11 rule 2) before anything else. (3 million spaces before "marias" were stripped away,
        # and a 3 MB name was folded in full, 0.3 s, before it was refused as unknown.)
        return name
    from_enum = enum_to_name(enum_type, enum_value)
    if enum_value and not from_enum:
        raise RequestError(f"unknown {field} enum value {enum_value}", token=str(enum_value), rule=field,
                           field=f"{where}.{field}")
    if name and from_enum and canonical(name.strip()) != canonical(from_enum):
        raise RequestError(
            f"{field}_name {name!r} and {field} {enum_type.Name(enum_value)} disagree",
            token=name, rule=f"{field}: one name", field=f"{where}.{field}_name")
    return name.strip() or from_enum


def _identity(name: str) -> str:
    return name.lower()


def check_message_size(msg: Any, where: str) -> None:
    """The document limit on lists (docs/RULES.md §0.11 rule 2) on a message's repeated and map
    fields, before any of it is converted: a request just under the transport's 4 MB holds
    hundreds of thousands of items, and converting them first took seconds and hundreds of MB
    on a handler thread.  A field's count is read before its items are visited.  (A long text
    costs no conversion: the library's own reading reports it, by its field.)  The items of all
    lists together are counted as well (MAX_ALL_ITEMS): lists nested in lists, each within the
    limit, held a million cards in 8 KB of gzip."""
    stack: list[tuple[Any, str]] = [(msg, where)]
    total = 0
    while stack:
        message, path = stack.pop()
        for field, value in message.ListFields():
            name = f"{path}.{field.name}"
            if not field.is_repeated:
                if field.message_type is not None:
                    stack.append((value, name))
                continue
            if len(value) > MAX_ITEMS:
                what = "a map" if field.message_type is not None and field.message_type.GetOptions().map_entry \
                    else "a list"     # (options is a map: "a list" named it wrongly)
                raise RequestError(f"{name}: {len(value):,} items; {what} in a position holds at most "
                                   f"{MAX_ITEMS:,}", token=field.name, rule=LIMITS_RULE, field=name)
            total += len(value)
            if total > MAX_ALL_ITEMS:
                raise RequestError(f"{name}: over {MAX_ALL_ITEMS:,} items in the lists of {where} together; a "
                                   f"position holds a few hundred (at most {MAX_ALL_ITEMS:,})", token=field.name,
                                   rule=LIMITS_RULE, field=name)
            if field.message_type is None:
                continue
            if field.message_type.GetOptions().map_entry:
                if field.message_type.fields_by_name["value"].message_type is not None:
                    stack.extend((item, f"{name}.{shorten(key, 40)}") for key, item in value.items())
            else:
                stack.extend((item, f"{name}[{i}]") for i, item in enumerate(value))


def position_to_doc(msg: pb.Position, *, canonical_game: Callable[[str], str] = _identity,
                    where: str = "position") -> dict[str, Any]:
    """The position document (docs/RULES.md §0) for a Position message.

    Only fields the message sets are written, so the game's defaults apply to
    the rest. ``canonical_game`` maps a game name or alias to the game's name;
    it is used only to check that ``game_name`` and ``game`` agree when both
    are set (the server passes ``ddcards.find_game``). ``where`` is the
    message's path in the request, for the errors' field paths.
    """
    check_message_size(msg, where)
    doc: dict[str, Any] = {}
    game = _pick_name(msg.game_name, pb.Game, msg.game, "game", canonical_game, where)
    if not game:
        raise RequestError("position names no game: set game_name or game", token="", rule="game",
                           field=f"{where}.game_name")
    doc["game"] = game
    if len(msg.hands):
        doc["hands"] = [cards_to_hand(h, f"{where}.hands[{i}]") for i, h in enumerate(msg.hands)]
    if msg.HasField("talon"):
        doc["talon"] = cards_to_sequence(msg.talon, f"{where}.talon", ordered=False)
    if msg.HasField("stock"):
        doc["stock"] = cards_to_sequence(msg.stock, f"{where}.stock")
    if msg.HasField("upcard"):
        doc["upcard"] = card_to_str(msg.upcard, f"{where}.upcard")
    contract = _pick_name(msg.contract_name, pb.Contract, msg.contract, "contract", _identity, where)
    if contract:
        doc["contract"] = contract
    if msg.trump:
        if msg.trump not in SUIT_LETTERS:
            raise RequestCardError(f"trump names no valid suit ({msg.trump}; {SUIT_ENUM_RULE})", token=str(msg.trump),
                                   rule=SUIT_ENUM_RULE, field=f"{where}.trump")
        doc["trump"] = SUIT_LETTERS[msg.trump]
    if msg.HasField("playing_team"):
        doc["playing_team"] = msg.playing_team
    if msg.rules:
        doc["rules"] = msg.rules
    if msg.objective:
        doc["objective"] = msg.objective
    if len(msg.start_scores):
        doc["start_scores"] = list(msg.start_scores)
    if msg.HasField("first_deal"):
        doc["first_deal"] = msg.first_deal
    if msg.HasField("flek"):
        doc["flek"] = msg.flek
    if len(msg.options):
        doc["options"] = {name: option_to_python(name, value, f"{where}.options")
                          for name, value in sorted(msg.options.items())}
    if len(msg.played):
        doc["played"] = [action_to_str(a, f"{where}.played[{i}]") for i, a in enumerate(msg.played)]
        _check_no_named_suit(msg.played, game, where)
    if msg.HasField("leader"):
        doc["leader"] = msg.leader
    if len(msg.announcements):
        doc["announcements"] = list(msg.announcements)
    if msg.HasField("players"):
        doc["players"] = msg.players
    return doc


# A position document nests 3 levels (document -> options -> value); anything
# much deeper is not one, and rejecting it here keeps deep recursion out of the
# solver's validation and error messages.
MAX_DOCUMENT_DEPTH = 16


def load_document(text: str, where: str = "document_json") -> dict[str, Any]:
    """The position document of a JSON text, read exactly as the CLI reads a document
    (docs/RULES.md §0.11 rule 1: a leading byte-order mark ignored; no key twice in an object,
    no NaN or Infinity), or an error naming ``where``."""
    if len(text) > 4 * MAX_ALL_ITEMS and _separators(text) > MAX_ALL_ITEMS:
        # Over MAX_ALL_ITEMS items for certain (each comma outside a string parts two items of
        # one list or object): refused before a parse of megabytes (0.7 s for 4 MB of zeros).
        raise RequestError(f"{where}: over {MAX_ALL_ITEMS:,} items in the lists and objects of the document "
                           f"together; a position holds a few hundred ({LIMITS_CLAUSE})", token=text[:20],
                           rule=LIMITS_RULE, field=where)
    try:
        doc = loads(text, where)
    except DdcardsError as exc:
        exc.field = where
        raise
    if not isinstance(doc, dict):
        raise RequestError(f"{where} must be a JSON object (the position document), not {json_kind(doc)} "
                           f"({POSITION_RULE})", token=json_kind(doc), rule=POSITION_RULE, field=where)
    if _depth(doc) > MAX_DOCUMENT_DEPTH:
        raise RequestError(f"{where} nests more than {MAX_DOCUMENT_DEPTH} levels deep: not a position document",
                           token=text[:20], rule="JSON position document", field=where)
    return doc


_JSON_STRING = re.compile(JSON_STRING, re.DOTALL)      # linear: see _jsonio.JSON_STRING


def _separators(text: str) -> int:
    """The commas of a JSON text outside its strings."""
    return _JSON_STRING.sub("", text).count(",")


def _depth(value: Any) -> int:
    """How deep lists and objects nest in a JSON value (iteratively: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DOCUMENT_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def request_to_doc(request: Any, *, canonical_game: Callable[[str], str] = _identity) -> dict[str, Any]:
    """The position document of a SolveRequest / AnalysePlayRequest / SolveTableRequest
    (``position`` or ``document_json``)."""
    source = request.WhichOneof("source")
    if source == "position":
        return position_to_doc(request.position, canonical_game=canonical_game)
    if source == "document_json":
        return load_document(request.document_json)
    raise RequestError("request carries no position: set position or document_json", token="", rule="position",
                       field="position")


_DOC_SCALARS = ("rules", "objective")


def _texts(value: Any) -> list[str] | None:
    """A list (or tuple) of strings as it is, else None."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def doc_to_position(doc: Mapping[str, Any]) -> pb.Position | None:
    """A Position message for a position document, or None if the document has fields the
    message cannot carry as they are (send it as ``document_json`` then, so that the server
    reads the document as the library does and any error names what was given): a field of
    another type than the message's is never converted (a hand list given as one string, a
    number as text), so nothing is silently fixed on the way."""
    known = {"game", "hands", "talon", "stock", "upcard", "contract", "trump", "playing_team", "rules",
             "objective", "start_scores", "first_deal", "flek", "options", "played", "leader", "announcements",
             "players"}
    if not isinstance(doc, Mapping) or set(doc) - known or not isinstance(doc.get("game"), str):
        return None
    # An empty list the message would simply leave out (a repeated field holds no "empty" apart
    # from "unset"): sent as it is, so that the server judges it as the library does
    # ("start_scores": [] in a race is an error there, not the default).
    if any(doc.get(field) in ([], ()) for field in ("hands", "start_scores", "announcements")):
        return None
    msg = pb.Position(game_name=doc["game"])
    try:
        msg.game = name_to_enum(pb.Game, msg.game_name)
    except (TypeError, ValueError, KeyError):
        return None
    # A null trump reads as left out (RULES §0.6 rule 6), as the message leaves it out, but in
    # a game without the field it is an error (rule 2), which the message would drop: sent as is.
    if "trump" in doc and doc["trump"] is None and msg.game == pb.GAME_PRSI:
        return None
    hands = _texts(doc.get("hands", []))
    if hands is None:
        return None
    for hand in hands:
        msg.hands.add(notation=hand)
    for field in ("talon", "stock"):
        if field in doc:
            value = doc[field]
            cards = [value] if isinstance(value, str) else _texts(value)
            if cards is None:
                return None
            getattr(msg, field).CopyFrom(pb.Cards(notation=" ".join(cards)))
    for field in ("upcard", "contract", *_DOC_SCALARS):
        if field in doc and not isinstance(doc[field], str):
            return None
    if "upcard" in doc:
        msg.upcard.CopyFrom(pb.Card(notation=doc["upcard"]))
    if "contract" in doc:
        msg.contract_name = doc["contract"]
    if doc.get("trump") is not None:
        if not isinstance(doc["trump"], str) or doc["trump"].strip().upper() not in _SUIT_BY_LETTER:
            return None  # an alias ("♥", "hearts") or a wrong type: let the server's parser see it
        msg.trump = _SUIT_BY_LETTER[doc["trump"].strip().upper()]
    for field in _DOC_SCALARS:
        if field in doc:
            setattr(msg, field, doc[field])
    if "announcements" in doc:
        announcements = _texts(doc["announcements"])
        if announcements is None:
            return None
        msg.announcements.extend(announcements)
    for field in ("playing_team", "flek", "leader", "first_deal", "players"):
        if field in doc:
            value = doc[field]
            if not (isinstance(value, bool) if field == "first_deal" else whole_number(value)):
                return None
            try:
                setattr(msg, field, value)
            except (TypeError, ValueError):
                return None     # beyond the field's 32 bits: the server's reader names it
    if "start_scores" in doc:
        scores = doc["start_scores"]
        if not isinstance(scores, (list, tuple)) or not all(whole_number(x) for x in scores):
            return None
        try:
            msg.start_scores.extend(scores)
        except (TypeError, ValueError):
            return None
    options = doc.get("options")
    if options is not None:
        if not isinstance(options, Mapping):
            return None
        for name, value in options.items():
            if not isinstance(name, str) or not isinstance(value, (bool, int, float, str)):
                return None
            try:
                msg.options[name].CopyFrom(python_to_option(value))
            except (TypeError, ValueError, OverflowError):
                return None
    if "played" in doc:
        # one text of actions (RULES §0.7 rule 1) as the library reads it, or a list of texts
        actions = history_tokens(doc) if isinstance(doc["played"], str) else _texts(doc["played"])
        if actions is None:
            return None
        for action in actions:
            msg.played.add(notation=action)
    return msg


# ---------------------------------------------------------------- results -> messages

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def int32(value: Any, field: str, key: Any = None) -> int:
    """``value`` for an int32 response field, or ValueOutOfRange naming the field
    (``field``, or ``field[key]``): a value the field cannot hold (e.g. a settlement of
    huge stakes) is the request's fault, not an internal error."""
    number = int(value)
    if _INT32_MIN <= number <= _INT32_MAX:
        return number
    where = field if key is None else f"{field}[{key!r}]" if isinstance(key, str) else f"{field}[{key}]"
    shown = str(number) if number.bit_length() <= 64 else f"an integer of {number.bit_length()} bits"
    raise ValueOutOfRange(f"the result's {where} is {shown}, which does not fit the response "
                          "(a 32-bit integer): the position's stakes are too large to report",
                          token=shown, rule="result values are 32-bit integers")


def _int_map(values: Mapping[str, Any] | None, field: str) -> dict[str, int]:
    return {str(k): int32(v, field, str(k)) for k, v in (values or {}).items()}


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _extra_struct(obj: Any, known: Iterable[str]) -> Struct | None:
    """Fields of ``obj.to_dict()`` that the typed message has no field for."""
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None:
        return None
    # (no catch: a to_dict that fails is a bug of ours, which the call reports as INTERNAL and
    # the interceptor logs, rather than an answer that silently lacks its extra fields)
    full = to_dict()
    if not isinstance(full, Mapping):
        return None
    skip = set(known)
    # A null field is an absent one (RULES §0.6 rule 6): a foreign client need not see it.
    extra = {k: v for k, v in full.items() if k not in skip and v is not None}
    if not extra:
        return None
    struct = Struct()
    struct.update(_finite(_jsonable(extra)))
    return struct


_EXACT_IN_DOUBLE = 1 << 53


def _finite(value: Any) -> Any:
    # Struct numbers are doubles: JSON has no NaN/inf, and an integer a double
    # cannot hold exactly travels as its digits.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _EXACT_IN_DOUBLE:
        return str(value) if value.bit_length() <= 1024 else f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# Keys of Result.to_dict() that SolveResponse carries in typed fields (or that
# repeat the request); everything else goes to `extra`.
_RESULT_KNOWN = {
    "game", "mode", "value", "scores", "tricks", "won", "settlement", "to_move", "optimal_moves",
    "moves", "pv", "principal_variation", "outcomes", "nodes", "elapsed", "elapsed_seconds", "elapsed_ms",
    "position", "contract", "value_kind", "distance", "horizon", "value_owner", "parts",
    "value_meaning",
}
_ANALYSIS_KNOWN = {
    "game", "initial_value", "final_value", "steps", "mistakes", "nodes", "elapsed", "elapsed_seconds",
    "elapsed_ms", "position", "contract", "played", "value_kind", "value_owner", "initial_outcome",
    "final_outcome", "outcome_mistakes", "final", "value_meaning", "from_ply",
}


def _add_moves(field: Any, moves: Iterable[Any]) -> None:
    """Append a MoveValue to the repeated `field` for each ddcards.MoveValue of `moves`."""
    for mv in moves:
        if mv.value is None:
            entry = field.add(move=action_message(str(mv.move)), optimal=bool(mv.optimal))
        else:
            entry = field.add(move=action_message(str(mv.move)), value=int32(mv.value, "moves", str(mv.move)),
                              optimal=bool(mv.optimal))
        distance = getattr(mv, "distance", None)
        if distance is not None:
            entry.distance = int(distance)


def _move_dicts(moves: Iterable[pb.MoveValue]) -> list[dict[str, Any]]:
    return [{"move": m.move.notation, "value": m.value if m.HasField("value") else None, "optimal": m.optimal,
             "distance": m.distance if m.HasField("distance") else None}
            for m in moves]


def result_to_response(result: Any, *, mode: str | int = "all", game: str = "") -> pb.SolveResponse:
    """A SolveResponse for a ``ddcards.Result``."""
    game = game or str(getattr(result, "game", "") or "")
    msg = pb.SolveResponse(
        game_name=game,
        game=name_to_enum(pb.Game, game),
        mode=name_to_mode(mode),
        value=int32(result.value, "value"),
        scores=_int_map(getattr(result, "scores", None), "scores"),
        tricks=_int_map(getattr(result, "tricks", None), "tricks"),
        won=bool(getattr(result, "won", False)),
        settlement=[int32(x, "settlement", i) for i, x in enumerate(getattr(result, "settlement", None) or ())],
        optimal_moves=[action_message(str(m)) for m in getattr(result, "optimal_moves", ())],
        principal_variation=[action_message(str(m)) for m in getattr(result, "pv", ())],
        outcomes={str(k): bool(v) for k, v in (getattr(result, "outcomes", None) or {}).items()},
        nodes=int(getattr(result, "nodes", 0) or 0),
        elapsed_seconds=float(getattr(result, "elapsed", 0.0) or 0.0),
        value_kind=str(getattr(result, "value_kind", "") or ""),
        value_owner=str(getattr(result, "value_owner", "") or ""),
        value_meaning=str(getattr(result, "value_meaning", "") or ""),
    )
    for name in ("to_move", "distance", "horizon"):
        value = getattr(result, name, None)
        if value is not None:
            setattr(msg, name, int32(value, name))
    _add_moves(msg.moves, getattr(result, "moves", ()))
    for name, part in (getattr(result, "parts", None) or {}).items():
        msg.parts[str(name)].CopyFrom(pb.PartResult(won=bool(part["won"]), stake=int32(part["stake"], "parts", name),
                                                    money=int32(part["money"], "parts", name)))
    extra = _extra_struct(result, _RESULT_KNOWN)
    if extra is not None:
        msg.extra.CopyFrom(extra)
    return msg


def table_to_response(table: Mapping[str, Any]) -> pb.SolveTableResponse:
    """A SolveTableResponse for ddcards.ddtable.dd_table's result (Klaverjas: ``values`` by suit
    and team; Mariáš: ``entries``, one per discard x contract, best first)."""
    msg = pb.SolveTableResponse(game_name=table["game"], game=name_to_enum(pb.Game, table["game"]),
                                rules=str(table.get("rules", "")), leader=int(table.get("leader", 0)),
                                nodes=int(table.get("nodes", 0)),
                                elapsed_seconds=float(table.get("elapsed_ms", 0.0)) / 1000.0)
    if "entries" in table:
        # both forms, as the proto promises of a response (and as a request takes them back)
        msg.hands.extend(pb.Cards(notation=hand, cards=[card_message(str(c)) for c in parse_hand(hand)])
                         for hand in table.get("hands", ()))
        if table.get("talon"):
            msg.talon.CopyFrom(pb.Cards(notation=table["talon"],
                                        cards=[card_message(c) for c in table["talon"].split()]))
        msg.flek = int(table.get("flek", 0))
        msg.players = int(table.get("players", 3))
        for i, row in enumerate(table["entries"]):
            entry = msg.entries.add(value=int32(row["value"], "entries.value", i),
                                    money=int32(row["money"], "entries.money", i),
                                    contract_name=row["contract"], contract=name_to_enum(pb.Contract, row["contract"]),
                                    announcements=list(row["announcements"]), value_kind=row["value_kind"],
                                    won=bool(row["won"]))
            entry.discard.CopyFrom(pb.Cards(notation=row["discard"],
                                            cards=[card_message(c) for c in row["discard"].split()]))
            if row.get("trump"):
                entry.trump = _SUIT_BY_LETTER[row["trump"]]
        return msg
    for suit, values in table["values"].items():
        for team, value in enumerate(values):
            msg.entries.add(trump=_SUIT_BY_LETTER[suit], playing_team=team, value=int32(value, "values", f"{suit}{team}"))
    return msg


def table_response_to_dict(msg: pb.SolveTableResponse) -> dict[str, Any]:
    """The dd_table-shaped dict of a SolveTableResponse."""
    common = {"game": msg.game_name, "nodes": msg.nodes, "elapsed_ms": round(msg.elapsed_seconds * 1000, 3)}
    if msg.game == pb.GAME_MARIAS or msg.game_name == "marias":
        entries = [{"discard": entry.discard.notation, "contract": entry.contract_name,
                    "trump": SUIT_LETTERS[entry.trump] if entry.trump else None,
                    "announcements": list(entry.announcements), "value": entry.value,
                    "value_kind": entry.value_kind, "won": entry.won, "money": entry.money}
                   for entry in msg.entries]
        return {**common, "hands": [h.notation for h in msg.hands],
                "talon": msg.talon.notation if msg.HasField("talon") else None, "flek": msg.flek,
                "players": msg.players, "entries": entries}
    values: dict[str, list[int]] = {}
    for entry in msg.entries:
        row = values.setdefault(SUIT_LETTERS[entry.trump], [0, 0])
        row[entry.playing_team] = entry.value
    return {**common, "rules": msg.rules, "leader": msg.leader, "values": values}


def step_message(step: Any) -> pb.AnalysisStep:
    """An AnalysisStep message for a ``ddcards.AnalysisStep``."""
    msg = pb.AnalysisStep(
        ply=int(step.ply),
        seat=int(step.seat),
        value_before=int32(step.value_before, "value_before", step.ply),
        value_after=int32(step.value_after, "value_after", step.ply),
        best_moves=[action_message(str(m)) for m in step.best_moves],
        cost=int32(step.cost, "cost", step.ply),
        mistake=bool(step.mistake),
        outcome=str(getattr(step, "outcome", "") or ""),
        changes_outcome=bool(getattr(step, "changes_outcome", False)),
        score=_int_map(getattr(step, "score", None), "score"),
    )
    msg.move.CopyFrom(action_message(str(step.move)))
    winner = getattr(step, "trick_winner", None)
    if winner is not None:
        msg.trick_winner = int32(winner, "trick_winner", step.ply)
    for name in ("distance", "best_distance"):
        value = getattr(step, name, None)
        if value is not None:
            setattr(msg, name, int32(value, name, step.ply))
    _add_moves(msg.moves, getattr(step, "moves", ()))
    return msg


def analysis_to_response(analysis: Any, *, game: str = "") -> pb.AnalysePlayResponse:
    """An AnalysePlayResponse for a ``ddcards.Analysis``."""
    game = game or str(getattr(analysis, "game", "") or "")
    steps = list(getattr(analysis, "steps", ()))
    mistakes = getattr(analysis, "mistakes", None)
    if mistakes is None:
        mistakes = [s for s in steps if s.mistake]
    msg = pb.AnalysePlayResponse(
        game_name=game,
        game=name_to_enum(pb.Game, game),
        initial_value=int32(analysis.initial_value, "initial_value"),
        final_value=int32(analysis.final_value, "final_value"),
        steps=[step_message(s) for s in steps],
        mistakes=[step_message(s) for s in mistakes],
        nodes=int(getattr(analysis, "nodes", 0) or 0),
        elapsed_seconds=float(getattr(analysis, "elapsed", 0.0) or 0.0),
        value_kind=str(getattr(analysis, "value_kind", "") or ""),
        value_owner=str(getattr(analysis, "value_owner", "") or ""),
        value_meaning=str(getattr(analysis, "value_meaning", "") or ""),
        from_ply=int(getattr(analysis, "from_ply", 0) or 0),
        initial_outcome=str(getattr(analysis, "initial_outcome", "") or ""),
        final_outcome=str(getattr(analysis, "final_outcome", "") or ""),
        outcome_mistakes=[int(s.ply) for s in getattr(analysis, "outcome_mistakes", ())],
    )
    final = getattr(analysis, "final", None)
    if final is not None:
        msg.final.CopyFrom(result_to_response(final, mode=getattr(analysis, "mode", "optimal"), game=game))
    extra = _extra_struct(analysis, _ANALYSIS_KNOWN)
    if extra is not None:
        msg.extra.CopyFrom(extra)
    return msg


def game_info_to_message(info: Any) -> pb.GameInfo:
    """A GameInfo message for a ``ddcards.GameInfo``."""
    objectives = dict(getattr(info, "objectives", None) or {})
    msg = pb.GameInfo(
        name=info.name,
        game=name_to_enum(pb.Game, info.name),
        title=str(getattr(info, "title", "") or ""),
        seats=[int(s) for s in (getattr(info, "seats", None) or ())],
        aliases=[str(a) for a in (getattr(info, "aliases", None) or ())],
        sides=[str(s) for s in (getattr(info, "sides", None) or ())],
        value_doc=str(getattr(info, "value_doc", "") or ""),
    )
    for contract in getattr(info, "contracts", None) or ():
        msg.contracts.add(
            name=str(contract),
            contract=name_to_enum(pb.Contract, str(contract)),
            objectives=[str(o) for o in objectives.get(contract, ())],
        )
    for key, names in objectives.items():
        msg.objectives[str(key)].names.extend(str(n) for n in names)
    for opt in getattr(info, "options", None) or ():
        entry = msg.options.add(
            name=str(opt.name),
            type=_type_name(getattr(opt, "type", "")),
            description=str(getattr(opt, "description", "") or ""),
        )
        default = getattr(opt, "default", None)
        if default is not None:
            entry.default_value.CopyFrom(python_to_option(default))
        # As `ddcards games --json`: the choices of every option, the range of a whole-number one.
        entry.choices.extend(str(c) for c in (getattr(opt, "choices", None) or ()))
        if entry.type == "int":
            for bound in ("minimum", "maximum"):
                value = getattr(opt, bound, None)
                if value is not None:
                    setattr(entry, bound, int(value))
    return msg


def _type_name(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    return str(value or "")


def games_to_response(games: Iterable[Any], *, version: str = "") -> pb.ListGamesResponse:
    return pb.ListGamesResponse(
        games=[game_info_to_message(g) for g in games],
        modes=[pb.SOLVE_MODE_BEST, pb.SOLVE_MODE_OPTIMAL, pb.SOLVE_MODE_ALL],
        server_version=version,
    )


# ---------------------------------------------------------------- messages -> plain dicts (client side)

def _action_text(action: pb.Action) -> str:
    return action.notation


def response_to_dict(msg: pb.SolveResponse) -> dict[str, Any]:
    """A SolveResponse as a plain dict shaped like the solver's result document."""
    out: dict[str, Any] = {
        "game": msg.game_name,
        "mode": MODE_NAMES.get(msg.mode, "all"),
        "value": msg.value,
        "value_kind": msg.value_kind,
        "value_owner": msg.value_owner,
        "value_meaning": msg.value_meaning,
        "scores": dict(sorted(msg.scores.items())),   # map order is unspecified in protobuf
        "tricks": dict(sorted(msg.tricks.items())),
        "won": msg.won,
        "settlement": list(msg.settlement),
        "to_move": msg.to_move if msg.HasField("to_move") else None,
        "distance": msg.distance if msg.HasField("distance") else None,
        "horizon": msg.horizon if msg.HasField("horizon") else None,
        "optimal_moves": [_action_text(a) for a in msg.optimal_moves],
        "moves": _move_dicts(msg.moves),
        "pv": [_action_text(a) for a in msg.principal_variation],
        "outcomes": dict(sorted(msg.outcomes.items())),
        "nodes": msg.nodes,
        "elapsed_ms": round(msg.elapsed_seconds * 1000, 3),
    }
    if msg.parts:                   # as the result document: only for a game settled by parts
        out["parts"] = {name: {"won": p.won, "stake": p.stake, "money": p.money}
                        for name, p in sorted(msg.parts.items())}
    if msg.HasField("extra"):
        out.update(_whole_numbers(json_format.MessageToDict(msg.extra)))
    return out


def _whole_numbers(value: Any) -> Any:
    """A Struct's numbers as the document has them: a Struct holds every number as a double,
    so a stake of 4 came back 4.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value


def step_dict(step: pb.AnalysisStep) -> dict[str, Any]:
    """An AnalysisStep message as the step of an analysis document (``AnalysisStep.to_dict()``)."""
    return {
        "ply": step.ply,
        "seat": step.seat,
        "move": step.move.notation,
        "value_before": step.value_before,
        "value_after": step.value_after,
        "best_moves": [_action_text(a) for a in step.best_moves],
        "cost": step.cost,
        "mistake": step.mistake,
        "changes_outcome": step.changes_outcome,
        "outcome": step.outcome,
        "moves": _move_dicts(step.moves),
        "trick_winner": step.trick_winner if step.HasField("trick_winner") else None,
        "score": dict(sorted(step.score.items())),
        "distance": step.distance if step.HasField("distance") else None,
        "best_distance": step.best_distance if step.HasField("best_distance") else None,
    }


def analysis_response_to_dict(msg: pb.AnalysePlayResponse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": msg.game_name,
        "value_kind": msg.value_kind,
        "value_owner": msg.value_owner,
        "value_meaning": msg.value_meaning,
        "initial_value": msg.initial_value,
        "final_value": msg.final_value,
        "steps": [step_dict(s) for s in msg.steps],
        "mistakes": [s.ply for s in msg.mistakes],      # their plies, as the analysis document lists them
        "nodes": msg.nodes,
        "elapsed_ms": round(msg.elapsed_seconds * 1000, 3),
        "initial_outcome": msg.initial_outcome,
        "final_outcome": msg.final_outcome,
        "outcome_mistakes": list(msg.outcome_mistakes),
        "final": response_to_dict(msg.final) if msg.HasField("final") else None,
        "from_ply": msg.from_ply,
    }
    if msg.HasField("extra"):
        out.update(_whole_numbers(json_format.MessageToDict(msg.extra)))
    return out


def _option_dict(value: pb.OptionValue) -> Any:
    kind = value.WhichOneof("kind")
    return None if kind is None else getattr(value, kind)


def _option_info_dict(o: pb.OptionInfo) -> dict[str, Any]:
    """An OptionInfo as `ddcards games --json` lists an option: ``minimum`` and ``maximum``
    only where the server set them (whole-number options; a server before them sets none)."""
    out: dict[str, Any] = {"name": o.name, "type": o.type, "default": _option_dict(o.default_value),
                           "description": o.description, "choices": list(o.choices)}
    for bound in ("minimum", "maximum"):
        if o.HasField(bound):
            out[bound] = getattr(o, bound)
    return out


def games_response_to_list(msg: pb.ListGamesResponse) -> list[dict[str, Any]]:
    return [
        {
            "name": g.name,
            "title": g.title,
            "seats": list(g.seats),
            "contracts": [c.name for c in g.contracts],
            "objectives": {k: list(v.names) for k, v in g.objectives.items()},
            "options": [_option_info_dict(o) for o in g.options],
            "aliases": list(g.aliases),
            "sides": list(g.sides),
            "value_doc": g.value_doc,
        }
        for g in msg.games
    ]
