"""The per-request record the logging interceptor writes as one line, and log-safe text.

The interceptor opens a :class:`CallRecord` for each RPC and makes it the
*current* one of the thread running the handler; the servicer fills in what
only it knows (game, nodes, items) through :func:`note`. A servicer running
without the interceptor (e.g. in a unit test) just writes into a throwaway
record.

Whatever a client sent reaches the log only through :func:`log_field`:
control characters (newlines, ANSI escapes, ...), backslashes, spaces and
lone surrogates are escaped, and the text is cut, so one field can neither
forge a log line nor flood the log.
"""
from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field

_local = threading.local()

# Characters of a client-given value a log field keeps.
LOG_FIELD_LIMIT = 64


def log_field(value: object, limit: int = LOG_FIELD_LIMIT, *, spaces: bool = False) -> str:
    """``value`` as one log-safe token: non-printable characters, spaces (unless
    ``spaces``) and backslashes escaped (``\\n``, ``\\x1b``, ``\\x20``, ``\\ud800``), cut to about
    ``limit`` characters, ``…(+N)`` saying how many were left out."""
    text = value if isinstance(value, str) else str(value)
    out: list[str] = []
    size = 0
    for index, char in enumerate(text):
        piece = char if char.isprintable() and (char != " " or spaces) and char != "\\" else _escape(char)
        if size + len(piece) > limit:
            out.append(f"…(+{len(text) - index})")  # one token: no space
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\\":
        return "\\\\"
    if char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def exception_text(exc: BaseException) -> str:
    """An exception for the log: its class and escaped message on the first line, then
    the traceback's frames (the program's own text: no client input in them)."""
    frames = "".join(traceback.format_tb(exc.__traceback__)).rstrip("\n")
    return f"{type(exc).__name__}: {log_field(str(exc), 500, spaces=True)}\n{frames}"


@dataclass
class CallRecord:
    method: str
    games: list[str] = field(default_factory=list)
    nodes: int = 0
    items: int = 0
    stream: bool = False       # a streaming call: its line says items=N, 0 included

    def game_text(self) -> str:
        if not self.games:
            return "-"
        return ",".join(log_field(game) for game in sorted(self.games))


def current() -> CallRecord:
    record = getattr(_local, "record", None)
    if record is None:
        record = CallRecord(method="?")
    return record


def activate(record: CallRecord | None) -> CallRecord | None:
    """Make ``record`` current for this thread; returns the previous one."""
    previous = getattr(_local, "record", None)
    _local.record = record
    return previous


def note(*, game: str | None = None, nodes: int = 0, items: int = 0) -> None:
    record = current()
    # A stream's items name a few games over and over: keep each once, and a few at most
    # (references to the request's text: the line cuts them).
    if game and len(record.games) < 8 and game not in record.games:
        record.games.append(game)
    record.nodes += int(nodes or 0)
    record.items += items
