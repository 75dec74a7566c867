"""Batches of position documents: read each as it arrives, answer it, go on after a bad one.

Input (bytes, split only at ``\\n``; a ``\\r`` before it is dropped, so ``\\r\\n`` works;
form feed, U+2028 or a lone ``\\r`` are characters *inside* a line):

- **JSON Lines** (the usual case): one document a line, answered as soon as its line is
  read, in memory bounded by one line (at most :data:`MAX_LINE_BYTES`).  A line holding a
  JSON array stands for its documents.  Blank lines and lines starting with ``#`` are
  skipped.  A bad line of any kind (not UTF-8, not JSON, too long, a bad document) gives
  an error for that line and the next line is read as usual; only a line that runs on past
  :data:`MAX_RUNAWAY_BYTES` without a newline (``/dev/zero``) ends the input, with a second
  error, since nothing after it can be read.
- **One JSON text over several lines**: when the first line that is not blank or a comment
  does not hold a complete JSON value (``{`` or ``[`` alone, a pretty-printed document),
  the input is read to its end (at most :data:`MAX_DOCUMENT_BYTES`) as a document, an array
  of documents, or documents one after another (as ``jq`` prints them).  So a JSON Lines
  file is never read twice: the first line decides.  Should that first document be broken
  while the next line is a complete object or array by itself, the input is taken as JSON
  Lines after all (a broken first line costs only itself).

Each document is an :class:`Entry` with the line it starts on, its place in an array, and
the ``id`` it carried (taken out of the document and echoed in its answer).
:func:`answer_each` runs a function on every entry and yields an :class:`Outcome` for
each, bad ones included; :func:`records` is the whole loop, lines in, dicts out.
"""
from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ddcards._jsonio import (BOM_BYTES, JSON_RULE, MAX_ID_CHARS, bom_note, check_depth, check_id, decode_utf8,
                             decode_value, json_reason, loads, nesting_end, shown, token_text)
from ddcards.errors import DdcardsError, NotationError, SearchAborted

__all__ = ["Entry", "Outcome", "read_documents", "input_pieces", "answer_each", "records", "MAX_LINE_BYTES",
           "MAX_DOCUMENT_BYTES", "MAX_RUNAWAY_BYTES", "MAX_ID_CHARS"]

MAX_LINE_BYTES = 16 << 20           # one JSON Lines line; a position document is under 1 KiB
MAX_DOCUMENT_BYTES = 64 << 20       # one JSON text spread over several lines, read whole
MAX_RUNAWAY_BYTES = 64 << 20        # a longer line without an end ends the input: nothing after it is read
_JSON_SPACE = " \t\r\n"
_EMPTY = "an empty array holds no position document"
BATCH_RULE = "docs/RULES.md §0.11 rule 3: a batch is JSON Lines, or one JSON text of documents"


@dataclass(frozen=True)
class Entry:
    """One document of the input, or the error that stood in its place."""

    line: int                          # the line it starts on (1-based)
    index: int | None = None           # its place in a JSON array (0-based); None outside arrays
    id: str | int | None = None        # the "id" it carried, echoed in its answer
    document: Any = None               # the document without its "id"
    error: DdcardsError | None = None  # why there is no document
    # The column it starts at (1-based), given only where an earlier entry of the input has the
    # same line and index (two documents, or two arrays, begun on one line of a JSON text):
    # every entry's place is its own, so that a record answers one document.
    column: int | None = None
    ends_input: bool = False           # the second word on a line that runs on for ever: no entry follows

    @property
    def place(self) -> tuple[int, int | None, int | None]:
        """Where it is in the input, unique to it: (line, index, column)."""
        return self.line, self.index, self.column

    def label(self) -> dict[str, Any]:
        """The fields that tie an answer to its input: line, index (in an array), column (where
        needed), id."""
        out: dict[str, Any] = {"line": self.line}
        if self.index is not None:
            out["index"] = self.index
        if self.column is not None:
            out["column"] = self.column
        if self.id is not None:
            out["id"] = self.id
        return out


@dataclass(frozen=True)
class Outcome:
    """The answer to one entry, or the error that stopped it."""

    entry: Entry
    answer: Any = None
    error: BaseException | None = None

    @property
    def internal(self) -> bool:
        """Neither an answer nor an error of the project: a bug to report.  Running out of memory
        (a table that cannot be had) is none: it says so, and what to do."""
        return self.error is not None and not isinstance(self.error, (DdcardsError, SearchAborted, MemoryError))

    def record(self, answer_to_dict: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        """The outcome as one JSON-ready dict: the entry's label, then the answer or the error."""
        out = self.entry.label()
        if self.error is None:
            out.update(answer_to_dict(self.answer))
            return out
        out["error"] = str(self.error) if not self.internal else f"internal error: {self.error!r:.300}"
        out["error_type"] = type(self.error).__name__ if not self.internal else "InternalError"
        if isinstance(self.error, DdcardsError):
            out["token"], out["rule"] = self.error.token, self.error.rule
            if self.error.field:            # where in the document, as the service's errors say it
                out["field"] = self.error.field
        elif isinstance(self.error, SearchAborted):
            # what the stopped search had done, as its message says it: its nodes, how far it got,
            # and an analysis's finished steps (a long deal's work is not lost to a timeout)
            out["nodes"] = self.error.nodes
            if self.error.progress is not None:
                out["progress"] = dataclasses.asdict(self.error.progress)
            if self.error.row is not None:          # a DD table's: the row whose search stopped
                out["row"] = self.error.row
            if self.error.steps is not None:
                out["steps"] = [step.to_dict() for step in self.error.steps]
        return out


def answer_each(entries: Iterable[Entry], work: Callable[[Any], Any]) -> Iterator[Outcome]:
    """`work(document)` for every entry, one at a time, as the entries arrive.

    A DdcardsError or a stopped search (SearchAborted) is that entry's outcome; so is any
    other exception (a bug), so that one document never costs the others.
    """
    for entry in entries:
        if entry.error is not None:
            yield Outcome(entry, error=entry.error)
            continue
        try:
            answer = work(entry.document)
        except Exception as exc:          # noqa: BLE001 - reported per entry, see Outcome.internal
            yield Outcome(entry, error=exc)
        else:
            yield Outcome(entry, answer=answer)


def records(source: BinaryIO | Iterable[bytes | str], work: Callable[[Any], Any],
            answer_to_dict: Callable[[Any], dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Lines in, records out: read `source`, run `work` on each document, yield its record."""
    for outcome in answer_each(read_documents(source), work):
        yield outcome.record(answer_to_dict)


# ----------------------------------------------------------------- reading

def read_documents(source: BinaryIO | Iterable[bytes | str]) -> Iterator[Entry]:
    """The entries of `source`: a binary stream, or an iterable of lines (bytes or str).

    Lazy: an entry is yielded as soon as its line is read (JSON Lines).  A line over
    :data:`MAX_LINE_BYTES` is an error entry as soon as that much of it is read; if it runs on
    past :data:`MAX_RUNAWAY_BYTES` without ending, a second error entry for it ends the input.
    """
    try:
        yield from _documents(source)
    except _Runaway as stop:
        yield Entry(stop.line, error=NotationError(
            f"the line runs on past {MAX_RUNAWAY_BYTES >> 20} MiB with no newline in them: nothing after it is "
            "read",
            token=f"line {stop.line}", rule=BATCH_RULE), ends_input=True)


class _Runaway(Exception):
    """A line that runs on past MAX_RUNAWAY_BYTES: the input ends there."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def _documents(source: BinaryIO | Iterable[bytes | str]) -> Iterator[Entry]:
    lines = _numbered_lines(source)
    for lineno, raw in lines:
        if raw is not None and _skipped(raw):
            continue
        # The first line that counts decides between JSON Lines and one JSON text.
        if raw is not None and _starts_a_longer_text(raw):
            yield from _read_text(lineno, raw, lines)
            return
        yield from _line_entries(lineno, raw)
        break
    for lineno, raw in lines:
        if raw is None or not _skipped(raw):
            yield from _line_entries(lineno, raw)


def _numbered_lines(source: BinaryIO | Iterable[bytes | str]) -> Iterator[tuple[int, bytes | None]]:
    """(line number, the line without its end) for each line; None for a line over MAX_LINE_BYTES.
    A byte-order mark that starts the input is dropped (RFC 8259, section 8.1)."""
    lines = _raw_lines(source)
    for lineno, data in lines:
        yield lineno, (data[len(BOM_BYTES):] if data is not None and data.startswith(BOM_BYTES) else data)
        break
    yield from lines


def _raw_lines(source: BinaryIO | Iterable[bytes | str]) -> Iterator[tuple[int, bytes | None]]:
    readline = getattr(source, "readline", None)
    if readline is None or not isinstance(readline(0), bytes):
        for lineno, item in enumerate(source, 1):
            data = item.encode("utf-8", "surrogatepass") if isinstance(item, str) else bytes(item)
            yield lineno, (_strip_end(data) if len(data) <= MAX_LINE_BYTES + 2 else None)
        return
    lineno = 0
    while True:
        data = readline(MAX_LINE_BYTES + 2)
        if not data:
            return
        lineno += 1
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n") or len(_strip_end(data)) > MAX_LINE_BYTES:
            yield lineno, None              # said at once, not when (if ever) the line ends
            size = len(data)
            while data and not data.endswith(b"\n"):     # skip the rest of the line, a piece at a time
                if size > MAX_RUNAWAY_BYTES:
                    # No end in sight (/dev/zero, a stream without a newline): nothing after it can be read.
                    raise _Runaway(lineno)
                data = readline(1 << 20)
                size += len(data)
            continue
        yield lineno, _strip_end(data)


def input_pieces(stream: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """The bytes of `stream` in pieces of at most 1 MiB, each with whether it starts a line, up to
    where :func:`read_documents` stops reading: the end, or the piece that takes a line past
    :data:`MAX_RUNAWAY_BYTES` (so an endless input is read no further than the reader reads it)."""
    starts, size = True, 0
    while True:
        data = stream.readline(1 << 20)
        if not data:
            return
        size = len(data) + (0 if starts else size)
        yield data, starts
        if size > MAX_RUNAWAY_BYTES and not data.endswith(b"\n"):
            return
        starts = data.endswith(b"\n")


def _strip_end(data: bytes) -> bytes:
    if data.endswith(b"\n"):
        data = data[:-1]
        if data.endswith(b"\r"):
            data = data[:-1]
    return data


def _skipped(raw: bytes) -> bool:
    """A blank line or a comment (JSON whitespace only: a form feed is content)."""
    body = raw.strip(b" \t\r\n")
    return not body or body.startswith(b"#")


def _starts_a_longer_text(raw: bytes) -> bool:
    """Does this line begin a JSON value that it does not finish (e.g. '{' of a pretty document)?"""
    try:
        text = raw.decode("utf-8")
        decode_value(text)
    except json.JSONDecodeError as exc:
        return exc.pos >= len(text.rstrip(_JSON_SPACE))
    except (UnicodeDecodeError, DdcardsError):
        return False
    return False


def _line_entries(lineno: int, raw: bytes | None) -> Iterator[Entry]:
    """The entries of one JSON Lines line: its document, the documents of its array, or an error."""
    try:
        if raw is None:
            raise NotationError(f"the line is longer than {MAX_LINE_BYTES >> 20} MiB; a position document "
                                "takes well under 1 KiB", token=f"line {lineno}",
                                rule=BATCH_RULE)
        text = decode_utf8(raw, "the line")
        check_depth(text)
        try:
            value, end = decode_value(text)
        except json.JSONDecodeError as exc:
            near = exc.doc[max(0, exc.pos - 10):exc.pos + 10]
            raise NotationError(f"not valid JSON: {json_reason(exc)} at column {exc.colno} (near {shown(near)})"
                                f"{bom_note(exc)}", token=token_text(near), rule=JSON_RULE) from None
        rest = text[end:].strip(_JSON_SPACE)
        if rest:
            column = len(text) - len(text[end:].lstrip(_JSON_SPACE)) + 1
            if ord(rest[0]) < 0x20 or rest[0] == "\x7f":
                raise NotationError(f"a control character {shown(rest[0])} follows the JSON value (column {column}); "
                                    "a line holds one JSON value and nothing after it but spaces",
                                    token=token_text(rest[:20]), rule=BATCH_RULE)
            raise NotationError(f"more than one JSON value on the line: {shown(rest[:20])} follows the first "
                                f"(column {column})", token=token_text(rest[:20]),
                                rule=BATCH_RULE)
    except DdcardsError as exc:
        yield Entry(lineno, error=exc)
        return
    if isinstance(value, list):
        if not value:
            yield Entry(lineno, error=NotationError(_EMPTY, token="[]", rule=BATCH_RULE))
        for index, item in enumerate(value):
            yield _entry(lineno, index, item)
    else:
        yield _entry(lineno, None, value)


def _entry(lineno: int, index: int | None, value: Any) -> Entry:
    """An entry for one parsed document, its "id" taken out and checked."""
    if not isinstance(value, dict) or "id" not in value:
        return Entry(lineno, index, document=value)
    document = dict(value)
    ident = document.pop("id")
    if ident is None:                   # null reads as left out (RULES §0.6 rule 6)
        return Entry(lineno, index, document=document)
    try:
        check_id(ident)
    except DdcardsError as exc:
        return Entry(lineno, index, error=exc)
    return Entry(lineno, index, ident, document)


def _read_text(lineno: int, first: bytes, lines: Iterator[tuple[int, bytes | None]]) -> Iterator[Entry]:
    """One JSON text that starts on line `lineno` and runs to the end of the input."""
    buffered: list[bytes | None] = [first]              # every line from `lineno` on, blank ones too
    size = len(first)
    for _, raw in lines:
        buffered.append(raw)
        size += len(raw or b"") + 1
        if raw is None or size > MAX_DOCUMENT_BYTES:
            break
    as_lines = _second_line_is_a_document(buffered)
    if size <= MAX_DOCUMENT_BYTES and None not in buffered:
        data = b"\n".join(buffered)                    # type: ignore[arg-type]
        del buffered
        entries = _text_entries(lineno, data)
        head = next(entries, None)
        if head is not None and (head.error is None or not as_lines):
            yield head
            yield from entries
            return
        again: list[bytes | None] = [*data.split(b"\n")]
        buffered = again                             # a JSON Lines batch whose first line is broken
    if as_lines:
        for n, raw in enumerate(buffered, lineno):
            if raw is None or not _skipped(raw):
                yield from _line_entries(n, raw)
        for n, raw in lines:
            if raw is None or not _skipped(raw):
                yield from _line_entries(n, raw)
        return
    yield Entry(lineno, error=NotationError(
        f"a JSON document spread over several lines is read whole, up to {MAX_DOCUMENT_BYTES >> 20} MiB with "
        f"lines of at most {MAX_LINE_BYTES >> 20} MiB; this one is longer (give big batches as JSON Lines, one "
        "document a line)", token=f"line {lineno}", rule=BATCH_RULE))


def _second_line_is_a_document(lines: list[bytes | None]) -> bool:
    """Is the second line that counts a complete JSON object or array by itself (JSON Lines)?"""
    seen = 0
    for raw in lines:
        if raw is None or _skipped(raw):
            continue
        seen += 1
        if seen == 2:
            try:
                return isinstance(loads(decode_utf8(raw)), (dict, list))
            except DdcardsError:
                return False
    return False


def _text_entries(first_line: int, data: bytes) -> Iterator[Entry]:
    """The documents of one JSON text (a document, an array, or several one after another), each
    entry's place its own (see Entry.column)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data.count(b"\n", 0, exc.start)
        raw = data.split(b"\n")[bad_line]
        try:        # named by its number, as a JSON error in the text is: one document has no other label
            decode_utf8(raw, f"line {first_line + bad_line}")
        except DdcardsError as err:
            yield Entry(first_line + bad_line, error=err)
        return
    cursor = _Cursor(text, first_line)
    seen_line = 0
    seen: set[tuple[int | None, int | None]] = set()    # the (index, column) of the entries on the latest line
    for entry, pos in _text_items(cursor):
        if entry.line != seen_line:
            seen_line, seen = entry.line, set()
        if (entry.index, None) in seen:
            entry = dataclasses.replace(entry, column=pos - text.rfind("\n", 0, pos))
        seen.add((entry.index, entry.column))
        yield entry


def _text_items(cursor: _Cursor) -> Iterator[tuple[Entry, int]]:
    """Each entry of the text at the cursor, with the index in the text where it starts.  A bad
    document costs only itself: the reading goes on after it (_skip_value, else _resume)."""
    text, first_line = cursor.text, cursor.line()
    cursor.skip()
    while not cursor.at_end():
        start, pos = cursor.line(), cursor.pos
        cursor.item_line = cursor.item_index = cursor.item_pos = None
        try:
            if text[cursor.pos] == "[":
                yield from _array_entries(cursor)
            else:
                yield _value_entry(cursor, start, None), pos
        except json.JSONDecodeError as exc:
            near = exc.doc[max(0, exc.pos - 10):exc.pos + 10]
            # The record is the document's, on the line it starts on; the message says where it breaks.
            yield Entry(cursor.item_line or start, error=NotationError(
                f"not valid JSON: {json_reason(exc)} at line {first_line + exc.lineno - 1} column {exc.colno} "
                f"(near {shown(near)}){bom_note(exc)}", token=token_text(near),
                rule=JSON_RULE)), cursor.item_pos or pos
            if not _resume(cursor, exc.pos):
                return
            continue
        except _Unreadable as bad:
            # past the limits (nested too deep to read at all): its record, then the next document
            yield Entry(cursor.item_line or start, cursor.item_index, error=bad.error), cursor.item_pos or pos
            if not _resume(cursor, cursor.pos):
                return
            continue
        cursor.skip()


class _Unreadable(Exception):
    """A document past the limits whose end cannot be found by reading it."""

    def __init__(self, error: DdcardsError):
        super().__init__(error)
        self.error = error


def _value_entry(cursor: _Cursor, line: int, index: int | None) -> Entry:
    """The entry of the value at the cursor, the cursor moved past it.  A value past the limits
    (nesting deeper than a document's, NaN) is an error entry, and the cursor still moves past it
    where its end can be found (by its brackets, or a lenient reading); _Unreadable where not."""
    text, pos = cursor.text, cursor.pos
    if text.startswith(("[", "{"), pos):          # (at the text's end: decode_value says what is missing)
        end, error = nesting_end(text, pos, cursor.first_line)
        if error is not None:
            if end is None:
                raise _Unreadable(error)
            cursor.pos = end
            return Entry(line, index, error=error)
    try:
        value, cursor.pos = decode_value(text, pos)
    except DdcardsError as exc:
        end = _skip_value(text, pos)
        if end is None:
            raise _Unreadable(exc) from None
        cursor.pos = end
        return Entry(line, index, error=exc)
    return _entry(line, index, value)


_LENIENT = json.JSONDecoder()      # reads NaN and Infinity: only to find where such a value ends


def _skip_value(text: str, pos: int) -> int | None:
    """The end of the JSON value at `pos` read leniently, or None where even that fails."""
    try:
        return _LENIENT.raw_decode(text, pos)[1]
    except (ValueError, RecursionError):
        return None


def _resume(cursor: _Cursor, broken_at: int) -> bool:
    """Move past a document that is not valid JSON to the next one, if any: the next line that
    starts with '{' or '[' in its first column, as each of a run of pretty-printed documents
    does (their inner lines are indented).  False if no document follows."""
    found = re.search(r"\n[{\[]", cursor.text[broken_at:])
    if found is None:
        return False
    cursor.pos = broken_at + found.start() + 1
    return True


def _array_entries(cursor: _Cursor) -> Iterator[tuple[Entry, int]]:
    """The elements of the array at the cursor, each parsed and yielded on its own (with where it
    starts); one past the limits is its own error entry and the others go on."""
    text = cursor.text
    start_line, start_pos = cursor.line(), cursor.pos
    cursor.pos += 1
    cursor.skip(comments=False)
    if text.startswith("]", cursor.pos):
        cursor.pos += 1
        yield Entry(start_line, error=NotationError(_EMPTY, token="[]", rule=BATCH_RULE)), start_pos
        return
    index = 0
    while True:
        cursor.skip(comments=False)
        line = cursor.item_line = cursor.line()
        cursor.item_index, cursor.item_pos = index, cursor.pos
        yield _value_entry(cursor, line, index), cursor.item_pos
        cursor.skip(comments=False)
        if text.startswith(",", cursor.pos):
            cursor.pos += 1
            index += 1
        elif text.startswith("]", cursor.pos):
            cursor.pos += 1
            return
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter or ']' after an array element", text, cursor.pos)


class _Cursor:
    """A place in a JSON text, with the line it is on counted as it moves forward."""

    def __init__(self, text: str, first_line: int):
        self.text, self.pos, self.first_line = text, 0, first_line
        self._line, self._counted = first_line, 0
        self.item_line: int | None = None           # the line of the array element being read,
        self.item_index: int | None = None          # its index
        self.item_pos: int | None = None            # and where it starts

    def line(self) -> int:
        self._line += self.text.count("\n", self._counted, self.pos)
        self._counted = self.pos
        return self._line

    def skip(self, comments: bool = True) -> None:
        """Past JSON whitespace (and, between documents, a '#' comment to the end of its line)."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _JSON_SPACE:
                self.pos += 1
            elif comments and ch == "#":
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            else:
                return

    def at_end(self) -> bool:
        return self.pos >= len(self.text)
