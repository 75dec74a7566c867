"""The per-request record the logging interceptor writes as one line.

The interceptor opens a :class:`CallRecord` for each RPC and makes it the
*current* one of the thread running the handler; the servicer fills in what
only it knows (game, nodes, items) through :func:`note`. A servicer running
without the interceptor (e.g. in a unit test) just writes into a throwaway
record.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

_local = threading.local()


@dataclass
class CallRecord:
    method: str
    games: list[str] = field(default_factory=list)
    nodes: int = 0
    items: int = 0

    def game_text(self) -> str:
        if not self.games:
            return "-"
        unique = sorted(set(self.games))
        return ",".join(unique)


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
    if game:
        record.games.append(game)
    record.nodes += int(nodes or 0)
    record.items += items
