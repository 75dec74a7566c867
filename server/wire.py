"""What protobuf parsing forgives in a request, and the service does not: two members of a oneof.

A message on the wire may carry both members of a ``oneof`` (``position`` and ``document_json``
of a SolveRequest, ``bool_value`` and ``int_value`` of an option), or one key of a map twice (an
option given twice): the parser keeps the last one it reads and drops the other without a word.
That is a client's bug, and solving whichever came last would be a silent fix of it, so the
service reads the request's bytes once more (they are well formed: the parser took them) and
names both members (or the key).

Where the parser does refuse a request for a string field that is no UTF-8, it does not say which
field: :func:`bad_utf8_field` reads the bytes to name it.
"""
from __future__ import annotations

from functools import cache
from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message_factory import GetMessageClass


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7


#: The wire types whose values can be stepped over; the others are groups (deprecated; no field of ours).
_WIRE_TYPES = (0, 1, 2, 5)


def _fields(data: bytes) -> Iterator[tuple[int, int, bytes | None]]:
    """(number, wire type, the value's bytes if length-delimited, else None) of each field of a
    message's bytes, in order; a group is yielded (its wire type) and ends the reading, as
    nothing after it can be read safely. Bytes cut short raise IndexError."""
    i, end = 0, len(data)
    while i < end:
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        piece = None
        if wire == 0:
            _, i = _varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            length, i = _varint(data, i)
            piece, i = data[i:i + length], i + length
        yield number, wire, piece
        if wire not in _WIRE_TYPES:
            return


@cache
def _has_oneof(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Does a message of this type hold a oneof of two members or more, itself or in a message
    field (at any depth)?"""
    if any(len(group.fields) > 1 for group in descriptor.oneofs):
        return True
    seen = seen | {descriptor.full_name}
    return any(field.message_type is not None and field.message_type.full_name not in seen
               and _has_oneof(field.message_type, seen) for field in descriptor.fields)


@cache
def _shape(descriptor: Descriptor) -> tuple[dict[int, tuple[str, str, int]],
                                           dict[int, tuple[FieldDescriptor, Descriptor, bool]],
                                           tuple[tuple[FieldDescriptor, Descriptor, bool], ...]]:
    """What a check needs of a message type, worked out once (a descriptor's lists are slow to
    build): its oneofs' members by number (oneof, member, wire type), its message fields that
    may hold a oneof by number (the field, its type, whether it is a map's entry), and those
    fields in order."""
    # (a proto3 `optional` field is a oneof of its own: one member, nothing to clash with)
    members = {member.number: (group.name, member.name, _wire_type(member))
               for group in descriptor.oneofs if len(group.fields) > 1 for member in group.fields}
    nested = tuple((field, field.message_type, field.message_type.GetOptions().map_entry)
                   for field in descriptor.fields
                   if field.message_type is not None and _has_oneof(field.message_type))
    return members, {field.number: (field, kind, is_map) for field, kind, is_map in nested}, nested


def _may_hide_one(descriptor: Descriptor, message: Any) -> bool:
    """Could the bytes of `message` (parsed, of this type) hold two members of a oneof? Only if
    its type has a oneof, or a message field it holds may (a map or a repeated field with
    elements, a singular one set): a Position without options holds none, and need not be read."""
    members, _, nested = _shape(descriptor)
    if members:
        return True
    for field, kind, _ in nested:
        if field.is_repeated:
            if len(getattr(message, field.name)):
                return True
        elif message.HasField(field.name) and _may_hide_one(kind, getattr(message, field.name)):
            return True
    return False


#: The most fields a check reads (nested ones too). A real request holds a few dozen, a history
#: of 1,748 actions about 1,800; a crafted one may repeat a field millions of times (4 MB of
#: two-byte fields: 0.8 s of Python holding the GIL), and its sender chose what it sent: past
#: this many the check stops, silent, in a few milliseconds.
FIELD_BUDGET = 20_000


_FIXED64 = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
_FIXED32 = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32}
_DELIMITED = {FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE}


def _wire_type(field: FieldDescriptor) -> int:
    """The wire type a field's value travels as (another one is an unknown field, not the member)."""
    if field.type in _DELIMITED:
        return 2
    if field.type in _FIXED64:
        return 1
    if field.type in _FIXED32:
        return 5
    return 0                    # the varints: ints, bool, enum


# The rules a conflict breaks (RequestError.rule): protobuf's parser keeps the last of the two.
ONEOF_RULE = "a oneof's members are one field: a message gives one of them"
MAP_KEY_RULE = "a map holds a key once: a message gives each key one entry"


def oneof_conflict(descriptor: Descriptor, data: bytes, path: str = "", budget: list[int] | None = None,
                   message: Any = None) -> tuple[str, str, str] | None:
    """Where `data` (a message of `descriptor`, well formed) sends two members of one oneof (or one
    key of a map twice): ("position and document_json (oneof source)", "position", ONEOF_RULE),
    the members named by their path from the request ("solve.position and solve.document_json ..."
    in a nested message), the first one's path and the rule; ("options['x'] twice (one key of the
    map options)", "options['x']", MAP_KEY_RULE); None if it does not, or if it holds more than
    FIELD_BUDGET fields (`budget`: what is left of it, shared with the nested messages).

    The copies of a singular message field are read as the parser merges them, together (a
    `solve` with a position, then another `solve` with a document_json: a conflict); each
    element of a repeated one (a map's entries) alone.  `message`: what the parser made of
    `data`, if known: a nested message that cannot hide a conflict (``_may_hide_one``) is not read.
    """
    if budget is None:
        budget = [FIELD_BUDGET]
    members, nested, _ = _shape(descriptor)
    sent: dict[str, list[str]] = {}
    merged: dict[int, list[bytes]] = {}               # a singular message field's copies
    keys: set[tuple[int, Any]] = set()                # the map entries' keys read so far
    for number, wire, piece in _fields(data):
        budget[0] -= 1
        if budget[0] < 0 or wire not in _WIRE_TYPES:    # a group: nothing more to read safely
            return None
        member = members.get(number)
        if member is not None and wire == member[2]:
            oneof, name, _ = member
            names = sent.setdefault(oneof, [])
            if name not in names:
                names.append(name)
                if len(names) > 1:
                    return f"{' and '.join(path + n for n in names)} (oneof {oneof})", path + names[0], ONEOF_RULE
        holder = nested.get(number)
        if holder is not None and piece is not None:
            field, kind, is_map = holder
            if field.is_repeated:
                label = field.name
                if is_map:                      # an entry of a map: named by its key, options['x']
                    entry_key = getattr(GetMessageClass(kind).FromString(piece), "key")
                    label += f"[{entry_key!r}]"
                    if (number, entry_key) in keys:     # the parser keeps the last entry of a key
                        return f"{path}{label} twice (one key of the map {field.name})", path + label, MAP_KEY_RULE
                    keys.add((number, entry_key))
                inner = oneof_conflict(kind, piece, f"{path}{label}.", budget)
                if inner is not None:
                    return inner
            elif message is None or _may_hide_one(kind, getattr(message, field.name)):
                merged.setdefault(number, []).append(piece)
    for number, copies in merged.items():
        field, kind, _ = nested[number]
        sub = None if message is None else getattr(message, field.name)
        inner = oneof_conflict(kind, b"".join(copies), f"{path}{field.name}.", budget, sub)
        if inner is not None:
            return inner
    return None


def bad_utf8_field(descriptor: Descriptor, data: bytes, path: str = "", budget: list[int] | None = None) -> str | None:
    """The path of the first string field in `data` (a message of `descriptor`) whose bytes are
    no UTF-8 ("position.game_name", "position.hands[2].notation"), None if none is found (or past
    FIELD_BUDGET fields, or where the bytes are malformed otherwise). Protobuf's parser says only
    that some string field had bad UTF-8; a client needs to know which."""
    if budget is None:
        budget = [FIELD_BUDGET]
    by_number = {field.number: field for field in descriptor.fields}
    counts: dict[int, int] = {}
    try:
        for number, wire, piece in _fields(data):
            budget[0] -= 1
            if budget[0] < 0 or wire not in _WIRE_TYPES:
                return None
            field = by_number.get(number)
            if piece is None or field is None:
                continue
            index = counts.get(number, 0)
            counts[number] = index + 1
            label = f"{path}{field.name}" + (f"[{index}]" if field.is_repeated else "")
            if field.type == FieldDescriptor.TYPE_STRING:
                try:
                    piece.decode("utf-8")
                except UnicodeDecodeError:
                    return label
            elif field.message_type is not None:
                if field.message_type.GetOptions().map_entry:      # named by its key: options['x']
                    entry_key = _string_key(piece)
                    label = f"{path}{field.name}" + ("" if entry_key is None else f"[{entry_key!r}]")
                inner = bad_utf8_field(field.message_type, piece, label + ".", budget)
                if inner is not None:
                    return inner
    except IndexError:          # bytes cut short: some other fault than the UTF-8
        return None
    return None


def _string_key(entry: bytes) -> str | None:
    """A map entry's string key (field 1), if it is there and is UTF-8."""
    for number, _, piece in _fields(entry):
        if number == 1 and piece is not None:
            try:
                return piece.decode("utf-8")
            except UnicodeDecodeError:
                return None
    return None
