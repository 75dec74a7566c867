"""A request -> the position document of docs/RULES.md §0 (a plain dict), and a document -> a Position
message; the limits a request's message and document text are held to."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from ddcards._jsonio import (JSON_STRING, LIMITS_CLAUSE, LIMITS_RULE, MAX_ALL_ITEMS, MAX_ITEMS, MAX_TEXT, POSITION_RULE,
                             json_kind, loads, whole_number)
from ddcards.errors import DdcardsError
from ddcards.games import GAME_RULE
from ddcards.games._document import history_tokens
from ddcards.server.convert.actions import (action_to_str, card_to_str, cards_to_hand, cards_to_sequence,
                                            check_no_named_suit)
from ddcards.server.convert.scalars import (SUIT_BY_LETTER, SUIT_ENUM_RULE, SUIT_LETTERS, enum_to_name, name_to_enum,
                                            option_to_python, python_to_option)
from ddcards.server.status import RequestCardError, RequestError, shorten
from ddcards.v1 import ddcards_pb2 as pb

# The rule of a request's source, which its error cites (as the library's errors cite docs/RULES.md).
SOURCE_RULE = "source: a request carries its position, as position or as document_json"


def _pick_name(name: str, enum_type: EnumTypeWrapper, enum_value: int, field: str,
               canonical: Callable[[str], str], where: str) -> str:
    if len(name) > MAX_TEXT:
        # As it is, not stripped or looked up: the library refuses it by the text limit (docs/RULES.md
        # §0.11 rule 2) before anything else. (3 million spaces before "marias" were stripped away,
        # and a 3 MB name was folded in full, 0.3 s, before it was refused as unknown.)
        return name
    from_enum = enum_to_name(enum_type, enum_value)
    if enum_value and not from_enum:
        known = [f"{member} ({number})" for member, number in enum_type.items() if number]
        raise RequestError(f"unknown {field} enum value {enum_value}: use {', '.join(known[:-1])} or {known[-1]}",
                           token=str(enum_value),
                           rule=f"{field}: a value of the {enum_type.DESCRIPTOR.name} enum of ddcards/v1/ddcards.proto",
                           field=f"{where}.{field}")
    if name and from_enum and canonical(name.strip()) != canonical(from_enum):
        raise RequestError(
            f"{field}_name {name!r} and {field} {enum_type.Name(enum_value)} disagree",
            token=name, rule=f"{field}_name and {field}: set both, they name the same {field}",
            field=f"{where}.{field}_name")
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
        raise RequestError("position names no game: set game_name or game", token="", rule=GAME_RULE,
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
        check_no_named_suit(msg.played, game, where)
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
    raise RequestError("request carries no position: set position or document_json", token="", rule=SOURCE_RULE,
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
        if not isinstance(doc["trump"], str) or doc["trump"].strip().upper() not in SUIT_BY_LETTER:
            return None  # an alias ("♥", "hearts") or a wrong type: let the server's parser see it
        msg.trump = SUIT_BY_LETTER[doc["trump"].strip().upper()]
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
