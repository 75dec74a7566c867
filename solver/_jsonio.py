"""The project's one safe JSON reader, and safe formatting of values in messages.

Python's ``json`` module and ``repr()`` have edges that turn hostile input into a crash
instead of a clear error: an integer literal of more than 4,300 digits raises ValueError,
deep nesting raises RecursionError (also in ``repr()`` of a deep value inside a message),
a ``\\ud800`` escape yields a string that cannot be printed as UTF-8, ``NaN`` is accepted
although it is not JSON, and a key given twice silently keeps the last value.  Everything
that reads JSON or a position document goes through here instead:

- :func:`loads` / :func:`decode_value` parse strict JSON (RFC 8259): no ``NaN``/
  ``Infinity``, no key twice in an object, numbers longer than :data:`MAX_DIGITS` digits
  kept as a :class:`LongNumber` marker (never converted, so never slow and never a crash);
- :func:`decode_utf8` decodes bytes, naming the first bad byte by its offset and value
  (never echoing raw bytes);
- :func:`check_limits` is the gate every position document passes (``from_dict`` and
  ``from_json`` alike): nesting, number size, text length, list length, valid Unicode;
- :func:`shown` formats any value for a message: short, one line, never raising.

Every failure is a :class:`~ddcards.errors.NotationError` with ``token`` and ``rule``.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Mapping
from typing import Any, TypeGuard

from ddcards.errors import NotationError, NotationTypeError

__all__ = ["BOM", "BOM_BYTES", "without_bom", "MAX_DEPTH", "MAX_DIGITS", "MAX_TEXT", "MAX_ITEMS", "MAX_ALL_ITEMS",
           "MAX_ID_CHARS", "ID_RULE", "check_id", "LongNumber", "loads", "decode_value", "check_depth", "decode_utf8",
           "check_limits", "shown", "token_text", "not_a_position", "read_position", "json_reason", "json_error",
           "whole_number", "loads_given", "path_advice", "read_the_file", "plain_values"]

# A position document nests 3 levels (document -> hands -> a hand's cards); these limits
# leave room for any game while keeping every walk, message and answer small.
MAX_DEPTH = 16            # levels of arrays/objects
MAX_DIGITS = 30           # digits of an integer (every field's range is far smaller)
MAX_TEXT = 1000           # characters of one string (a whole history as text is ~100)
MAX_ITEMS = 2000          # items of one array or object (a Prší history holds up to 1,748 actions)
MAX_ALL_ITEMS = 10000     # items of all arrays and objects of a document together (a few hundred in use)

MAX_ID_CHARS = 256        # characters of a document's id (RULES §0.11 rule 4)

# The clauses of docs/RULES.md these errors cite.
JSON_RULE = "docs/RULES.md §0.11 rule 1: a document is one JSON value (RFC 8259) in UTF-8"
POSITION_RULE = "docs/RULES.md §0.6: a position is a JSON object of its game's fields"
ID_RULE = "docs/RULES.md §0.11 rule 4: an id is a text of at most 256 characters or a whole number"
LIMITS_CLAUSE = "docs/RULES.md §0.11 rule 2"      # cited in a message, which says the limit itself
LIMITS_RULE = ("docs/RULES.md §0.11 rule 2: at most 16 levels of nesting,"
               " 30 digits a number, 1,000 characters a text, 2,000 items a list, 10,000 in all")

#: A UTF-8 byte-order mark: RFC 8259 (section 8.1) lets a reader ignore one at the start of a text
#: (Windows editors and PowerShell write it), so every reader here does.
BOM = "\ufeff"
BOM_BYTES = BOM.encode("utf-8")


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Are `a` and `b` one file (a hard link or a symlink to it too)?  False if either is missing:
    an output that does not exist yet is no input.  (The batch and report commands' check that
    their output is not their input.)"""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def is_input(name: str | None, path: str | os.PathLike[str]) -> bool:
    """Is `path` the command's input `name` (a link to it too), for - the file standard input was
    redirected from (`ddcards batch - -o deals.jsonl < deals.jsonl` replaced its input by the
    answers)?  False for no input, or an output that does not exist yet."""
    if not name:
        return False
    if name != "-":
        return same_file(name, path)
    try:
        return os.path.samestat(os.fstat(sys.stdin.fileno()), os.stat(path))
    except (OSError, ValueError, AttributeError):   # no such file (yet), or no real standard input
        return False


def without_bom(text: str) -> str:
    """`text` without the byte-order mark it may start with."""
    return text[1:] if text.startswith(BOM) else text



class LongNumber:
    """A JSON integer of more than MAX_DIGITS digits, kept as its length and first digits.

    Converting such a literal costs time quadratic in its length and Python refuses past
    4,300 digits; no field takes one, so it is only ever reported.
    """

    __slots__ = ("digits", "head", "negative")

    def __init__(self, literal: str):
        self.negative = literal.startswith("-")
        body = literal.lstrip("-")
        self.digits = len(body)
        self.head = body[:12]

    def __repr__(self) -> str:
        return f"{'-' if self.negative else ''}{self.head}… ({self.digits:,} digits)"


def _parse_int(literal: str) -> int | LongNumber:
    if len(literal) - literal.startswith("-") > MAX_DIGITS:
        return LongNumber(literal)
    return int(literal)


class HugeNumber(LongNumber):
    """A JSON number whose value no float holds (``1e400``): kept as written, to be reported
    as such, never as the ``inf`` Python would read."""

    __slots__ = ("literal",)

    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal if len(self.literal) <= 24 else f"{self.literal[:20]}… ({len(self.literal):,} characters)"


def _parse_float(literal: str) -> float | HugeNumber:
    value = float(literal)
    return HugeNumber(literal) if math.isinf(value) else value


def _reject_constant(name: str) -> Any:
    raise NotationError(f"{name} is not a JSON number (RFC 8259 has no NaN or Infinity)",
                        token=name, rule=JSON_RULE)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise NotationError(f"key {shown(key)} appears twice in one object (which would win is "
                                "not defined)", token=token_text(key), rule=JSON_RULE)
        out[key] = value
    return out


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_reject_constant,
                            object_pairs_hook=_object, strict=True)


def decode_value(text: str, start: int = 0) -> tuple[Any, int]:
    """Parse one JSON value of `text` from index `start` (after any whitespace): (value, end).

    Raises json.JSONDecodeError for text that is not JSON (the caller knows whether a value
    cut off at the end means "read more"), NotationError for JSON past the limits above.
    """
    end = len(text)
    while start < end and text[start] in " \t\r\n":
        start += 1
    try:
        return _DECODER.raw_decode(text, start)
    except RecursionError:
        raise NotationError(f"JSON nested too deeply to read (a position document nests at most {MAX_DEPTH} "
                            "levels)", token=token_text(text[start:start + 20]), rule=LIMITS_RULE) from None


# A JSON string, or its unterminated rest up to the end of the text: every match that starts at a
# quote runs to the string's end (possessively), so a text is scanned once.  (Matching only closed
# strings made an unterminated one with many escaped quotes inside, '"\\"\\"\\"...', quadratic:
# each inner quote started another scan to the end, the GIL held throughout.)
JSON_STRING = r'"(?:[^"\\]|\\.|\\\Z)*+(?:"|\Z)'
_TOKENS = re.compile(JSON_STRING + r'|[\[\]{}]', re.DOTALL)


def check_depth(text: str) -> None:
    """NotationError if the JSON `text` nests more than MAX_DEPTH levels, before it is parsed.

    Checked ahead so that the answer does not depend on how much stack the caller has
    left (json raises RecursionError somewhere near 1,000 levels); linear in the text.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for match in _TOKENS.finditer(text):
        ch = match.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(text, match.start())
        elif ch in "]}":
            depth -= 1


def _too_deep(text: str, at: int, first_line: int = 1) -> NotationError:
    """check_depth's error for the bracket at index `at` of `text` (its line counted from `first_line`)."""
    line = first_line + text.count("\n", 0, at)
    column = at - text.rfind("\n", 0, at)
    return NotationError(f"JSON nested more than {MAX_DEPTH} levels deep at line {line} column {column}; "
                         "a position document nests a few levels", token=token_text(text[at:][:20]),
                         rule=LIMITS_RULE)


def nesting_end(text: str, start: int, first_line: int = 1) -> tuple[int | None, NotationError | None]:
    """Where the JSON array or object at `start` ends (the index after its closing bracket; None
    if the text ends first), and the NotationError check_depth would give if it nests more than
    MAX_DEPTH levels (its line counted from `first_line`), without parsing it: a batch's JSON text
    goes on after such a document."""
    depth, error = 0, None
    for match in _TOKENS.finditer(text, start):
        ch = match.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH and error is None:
                error = _too_deep(text, match.start(), first_line)
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return match.end(), error
    return None, error


def json_reason(exc: json.JSONDecodeError) -> str:
    """Why the text is not JSON, in words that a place (" at line 1 column 5") can follow:
    json's message without its own trailing "at" ("Unterminated string starting at"), and
    saying so where the input ends first."""
    reason = exc.msg.removesuffix(" at")
    if exc.pos >= len(exc.doc.rstrip(" \t\n\r")):
        reason += " (the input ends first)"
    return reason


def json_error(exc: json.JSONDecodeError, what: str = "JSON") -> NotationError:
    """A NotationError for text that is not JSON, naming the place and the text there."""
    near = exc.doc[max(0, exc.pos - 10):exc.pos + 10]
    return NotationError(f"{what} is not valid JSON: {json_reason(exc)} at line {exc.lineno} column {exc.colno} "
                         f"(near {shown(near)}){bom_note(exc)}", token=token_text(near), rule=JSON_RULE)


def bom_note(exc: json.JSONDecodeError) -> str:
    """What to add to the message of a JSON error at a byte-order mark (one that is not the
    first character of the input: only that one is ignored)."""
    if exc.doc[exc.pos:exc.pos + 1] != BOM:
        return ""
    return "; a byte-order mark (U+FEFF) is ignored only at the very start of the input"


def loads(text: str, what: str = "the text") -> Any:
    """Parse `text` as exactly one strict JSON value (a leading byte-order mark ignored);
    NotationError if it is not one."""
    text = without_bom(text)
    check_depth(text)
    try:
        value, end = decode_value(text)
    except json.JSONDecodeError as exc:
        raise json_error(exc, what) from None
    rest = text[end:].strip(" \t\r\n")
    if rest:
        raise NotationError(f"{what} holds more than one JSON value: {shown(rest[:20])} follows the first",
                            token=token_text(rest[:20]), rule=JSON_RULE)
    return value


def decode_utf8(data: bytes, what: str = "the input") -> str:
    """`data` as UTF-8 text; NotationError naming the first bad byte (its offset and value)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start:exc.start + 1].hex()
        why = _UTF8_REASONS.get(exc.reason, exc.reason)
        # a file saved as "Unicode" on Windows: UTF-16, whose byte order mark no UTF-8 text starts with
        utf16 = ("; it starts as UTF-16 text does (its byte order mark): save it as UTF-8"
                 if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "")
        raise NotationError(f"{what} is not UTF-8 text: byte {exc.start + 1} (0x{bad}) {why}{utf16}",
                            token=f"0x{bad}", rule=JSON_RULE) from None


_UTF8_REASONS = {
    "invalid start byte": "starts no character",
    "invalid continuation byte": "starts a character that the next byte does not continue",
    "unexpected end of data": "starts a character that the text cuts off",
}


def check_limits(document: Any, what: str = "a position document") -> None:
    """The gate every document passes before its fields are read: NotationError naming the
    place (e.g. ``hands[0]``) when it nests too deep, holds a number, a text or a list over
    the limits, or text that is not valid Unicode (a lone surrogate)."""
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    total = 0
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT or not value.isascii():       # (the common text passes at once)
                _check_text(value, _where(path), what, path or None)
        elif isinstance(value, LongNumber) or (isinstance(value, int) and not isinstance(value, bool)
                                               and abs(value) >= 10 ** MAX_DIGITS):
            where = _where(path)
            why = "beyond what any number holds" if isinstance(value, HugeNumber) else \
                f"numbers have at most {MAX_DIGITS} digits"
            raise NotationError(f"{where}{shown(value)} is far out of the range of any field "
                                f"({why}; {LIMITS_CLAUSE})", token=token_text(value),
                                rule=LIMITS_RULE, field=path or None)
        elif isinstance(value, (Mapping, list, tuple)):
            where = _where(path)
            if depth >= MAX_DEPTH:
                raise NotationError(f"{where}nested more than {MAX_DEPTH} levels deep; {what} nests a few "
                                    f"levels ({LIMITS_CLAUSE})", token=token_text(path or "document"),
                                    rule=LIMITS_RULE, field=path or None)
            if len(value) > MAX_ITEMS:
                raise NotationError(f"{where}{len(value):,} items; an array or object of {what} holds at most "
                                    f"{MAX_ITEMS:,} ({LIMITS_CLAUSE})", token=token_text(path or "document"),
                                    rule=LIMITS_RULE, field=path or None)
            total += len(value)
            if total > MAX_ALL_ITEMS:
                raise NotationError(f"{where}over {MAX_ALL_ITEMS:,} items in the arrays and objects of {what} "
                                    f"together; it holds a few hundred ({LIMITS_CLAUSE})",
                                    token=token_text(path or "document"), rule=LIMITS_RULE, field=path or None)
            if isinstance(value, Mapping):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise NotationError(f"{where}key {shown(key)} is not text (JSON object keys are strings)",
                                            token=token_text(key), rule=JSON_RULE)
                    # a bad key's field is the object it is in
                    if len(key) > MAX_TEXT or not key.isascii():
                        _check_text(key, f"{where}key {shown(key, 20)}: ", what, path or None)
                    if not (type(item) is str and len(item) <= MAX_TEXT and item.isascii()):
                        stack.append((item, f"{path}.{key}" if path else key, depth + 1))
            else:
                for i, item in enumerate(value):
                    if not (type(item) is str and len(item) <= MAX_TEXT and item.isascii()):
                        stack.append((item, f"{path}[{i}]", depth + 1))


def _where(path: str) -> str:
    """The prefix naming a document path in check_limits' messages ("hands[0]: ")."""
    return f"{path if len(path) <= 60 else path[:60] + '…'}: " if path else ""


def _check_text(text: str, where: str, what: str, field: str | None) -> None:
    """`where` prefixes the message; `field` is the document path the error carries."""
    if len(text) > MAX_TEXT:
        raise NotationError(f"{where}text of {len(text):,} characters; a text of {what} holds at most "
                            f"{MAX_TEXT:,} ({LIMITS_CLAUSE})", token=token_text(text), rule=LIMITS_RULE, field=field)
    check_unicode(text, where, LIMITS_RULE, field)


def check_unicode(text: str, where: str, rule: str, field: str | None, clause: str = "") -> None:
    """NotationError naming the first lone surrogate of `text` (as its escape, '\\ud800') if it is
    no valid Unicode (it cannot be written as UTF-8): the position reader's, the report's and the
    board's one message, `where` (e.g. "hands[0]: ") before it and `clause` cited in it."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = f"\\u{ord(text[exc.start]):04x}"
        cited = f"; {clause}" if clause else ""
        raise NotationError(f"{where}lone surrogate {bad} in text: text must be valid Unicode (a surrogate "
                            f"escape needs its pair{cited})", token=bad, rule=rule, field=field) from None


def token_text(value: Any, limit: int = 40) -> str:
    """`value` as the ``.token`` of an error: text as it is (cut at `limit` characters, lone
    surrogates escaped so that it prints), anything else as :func:`shown` gives it."""
    if isinstance(value, str):
        text = value if len(value) <= limit else value[:limit] + "…"
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown(value, limit)


def printable(text: str) -> str:
    """`text` safe to print on a terminal line: control characters, line and paragraph
    separators, format characters (bidirectional overrides) and lone surrogates escaped as
    Python writes them (``\\x1b``, ``\\n``, ``\\u202e``), everything else as it is.  For text a
    document or a command line gave (an ``id``, a file name) that readable output repeats: an
    escape sequence in it must not reach the terminal, nor a newline forge a line of output."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


def plain_values(document: Any) -> Any:
    """`document`, a position document a program built, with numpy's scalars and arrays as the
    Python values they hold (``np.int64(1)`` as 1, ``np.True_`` as True, an array as a list), as
    a dict filled from numpy or pandas carries them: a field then reads them as the JSON numbers,
    booleans and lists they stand for (as the API's arguments take numpy's integers), where
    ``playing_team=np.int64(0)`` was refused as "not one of 0, 1".  Anything else stays as it is
    (and is checked as it is); without numpy imported, or without a numpy value in it, the
    document itself (every document is read through here: a copy of each cost a fifth of a
    position's reading wherever numpy was imported)."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return document
    generic, array = numpy.generic, numpy.ndarray

    def holds(value: Any, depth: int) -> bool:
        """Whether `value` holds a numpy value where `plain` would change it."""
        if isinstance(value, (generic, array)):
            return True
        if depth >= MAX_DEPTH:
            return False
        if isinstance(value, Mapping):
            for key, item in value.items():         # (loops, not any(): this runs on every document)
                if type(item) is not str and holds(item, depth + 1):
                    return True
                if type(key) is not str and holds(key, depth + 1):
                    return True
        elif isinstance(value, (list, tuple)):
            for item in value:
                if type(item) is not str and holds(item, depth + 1):
                    return True
        return False

    def plain(value: Any, depth: int) -> Any:
        if isinstance(value, generic):
            return value.item()
        if isinstance(value, array):
            # (one over the limits stays an array, which its field refuses as no list)
            return value.tolist() if value.size <= MAX_ALL_ITEMS else value
        if depth >= MAX_DEPTH:
            return value                    # check_limits names what nests too deep
        if isinstance(value, Mapping):
            return {plain(key, depth + 1): plain(item, depth + 1) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(plain(item, depth + 1) for item in value)
        return value

    return plain(document, 0) if holds(document, 0) else document


def whole_number(value: Any) -> TypeGuard[int]:
    """A JSON whole number: an int, not true or false (which Python counts as ints)."""
    return isinstance(value, int) and not isinstance(value, bool)


def json_kind(value: Any) -> str:
    """What JSON calls the kind of `value`, for a message about a document ("null", "a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, LongNumber)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def not_a_position(value: Any, *, given: bool = False) -> NotationError:
    """The error for a document that is not a JSON object (a position is one: RULES §0.6), in
    JSON's words, whatever took it: Position, solve, the tables, a batch. `given`: the value
    came from a program (``solve(5)``), not from JSON text: a TypeError too."""
    kind = NotationTypeError if given else NotationError
    advice = path_advice(value) if given else ""
    return kind(f"a position is a JSON object, not {json_kind(value)}{advice}",
                token="null" if value is None else token_text(value), rule=POSITION_RULE)


def path_advice(value: Any) -> str:
    """For a program's argument that is a path object (pathlib.Path) where a position goes, the
    message's ending that says to read the file; "" for anything else."""
    return f", which names a file: {read_the_file(os.fspath(value))}" if isinstance(value, os.PathLike) else ""


def read_the_file(name: str | bytes) -> str:
    """What a program that handed a file's name where a position goes should do instead."""
    return (f"a position is its document (a dict, or its JSON text), so read the file first: "
            f"ddcards.Position.from_json(pathlib.Path({shown(name)}).read_text())")


def _names_a_file(text: str) -> bool:
    """Does `text`, which is not JSON, look like a file's name rather than a document (a program's
    ``solve("position.json")``)?  One line, not a JSON object or array, and a file of that name
    exists or it ends as a JSON file's name does."""
    name = text.strip()
    if not name or len(name) > 4096 or "\n" in name or name[0] in "{[":
        return False
    return name.lower().endswith((".json", ".jsonl")) or os.path.isfile(name)


def loads_given(text: str, what: str) -> Any:
    """`loads` for JSON text a program handed over as a position (``solve(text)``,
    ``Position.from_json``, ``dd_table``): as loads, and where the text is no JSON but looks
    like a file's name, the error says to read the file (the API takes documents, not paths), or
    where it is a bundled example's name, to ask for the example."""
    try:
        return loads(text, what)
    except NotationError as exc:
        from ddcards.examples import example_name      # (which reads this module)
        name = example_name(text) if len(text) < 100 else None
        if name is not None:            # a newcomer's solve("prsi")
            raise NotationError(f"{exc}; it names a bundled example, whose document ddcards.example({shown(name)}) gives",
                                token=exc.token, rule=exc.rule) from None
        if not _names_a_file(text):
            raise
        raise NotationError(f"{exc}; it looks like a file's name: {read_the_file(text.strip())}",
                            token=exc.token, rule=exc.rule) from None


def read_position(value: Any) -> Any:
    """A position document read from JSON (a line of a file, a request's body) for Position:
    JSON of another kind is bad notation (not_a_position), not a program's wrong type."""
    if not isinstance(value, Mapping):
        raise not_a_position(value)
    return value


def shown(value: Any, limit: int = 40) -> str:
    """`value` for a message: like repr() but one short line that never raises, and in JSON's
    words for what a document writes as true, false and null (not Python's True, None).

    Long text is cut with its length said; huge integers give their digit count;
    nested containers show their outline only; control characters and lone
    surrogates are escaped (as repr() does), so the result always prints.
    """
    try:
        text = _shown(value, limit, 3)
    except Exception:                 # a foreign object whose repr() fails
        text = f"<{type(value).__name__}>"
    return text


def argument_shown(value: Any, limit: int = 40) -> str:
    """`value`, a program's argument, for a message: as :func:`shown`, but True, False and None
    as Python writes them (a call's ``keep_tt=None`` is no document's null)."""
    return repr(value) if isinstance(value, bool) or value is None else shown(value, limit)


def argument_token(value: Any, limit: int = 40) -> str:
    """`value`, a program's argument, as the ``.token`` of an error: as :func:`token_text`, but
    True, False and None as Python writes them."""
    return repr(value) if isinstance(value, bool) or value is None else token_text(value, limit)


CUT_SLACK = 8


def _shown(value: Any, limit: int, levels: int) -> str:
    if isinstance(value, str):
        if len(value) <= limit + CUT_SLACK:     # a cut that saves less than its note adds is none
            return repr(value)
        return repr(value[:limit]) + f"… ({len(value):,} characters)"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)             # as the document wrote it: true, false, null
    if isinstance(value, int):
        if abs(value) < 10 ** MAX_DIGITS:
            return repr(value)
        sign = "-" if value < 0 else ""
        digits = int(value.bit_length() * math.log10(2)) + 1      # within one of the true count
        if digits > 4000:                 # str() is slow (and refused past 4,300 digits)
            return f"<{sign}a number of about {digits:,} digits>"
        body = str(abs(value))
        return f"{sign}{body[:12]}… ({len(body):,} digits)"
    if isinstance(value, float) or isinstance(value, LongNumber):
        return repr(value)
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value):,} bytes>"
    if isinstance(value, Mapping):
        if levels <= 0 or not value:
            return "{…}" if value else "{}"
        items = []
        for key, item in list(value.items())[:3]:
            items.append(f"{_shown(key, 12, 0)}: {_shown(item, 12, levels - 1)}")
        more = ", …" if len(value) > 3 else ""
        return "{" + ", ".join(items) + more + "}"
    if isinstance(value, (list, tuple)):
        if levels <= 0 or not value:
            return "[…]" if value else "[]"
        items = [_shown(item, 12, levels - 1) for item in value[:4]]
        more = f", … ({len(value):,} items)" if len(value) > 4 else ""
        return "[" + ", ".join(items) + more + "]"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def check_id(ident: Any) -> None:
    """A document's ``id`` (RULES §0.11 rule 4): a text of at most MAX_ID_CHARS characters, valid
    Unicode, or a whole number; NotationError naming it otherwise."""
    ok = (isinstance(ident, int) and not isinstance(ident, bool) and abs(ident) < 10 ** MAX_DIGITS) or \
         (isinstance(ident, str) and len(ident) <= MAX_ID_CHARS)
    if not ok:
        raise NotationError(f"id must be text of at most {MAX_ID_CHARS} characters or a whole number of at most "
                            f"{MAX_DIGITS} digits, not {shown(ident)}", token=token_text(ident), rule=ID_RULE,
                            field="id")
    check_limits(ident, "an id")                      # valid Unicode
