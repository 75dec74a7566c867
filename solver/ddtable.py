"""Double-dummy tables: the value of a deal for every trump suit and playing team.

Klaverjas (docs/RULES.md §2) is the game with a table: the same 32 cards are worth something
different for each of the 4 trump suits and for each of the 2 teams choosing them, so the
table holds 8 exact values, each from the view of that playing team (its final score minus
the other team's, roem, last trick, pit and nat included):

>>> import ddcards
>>> from ddcards.ddtable import dd_table
>>> table = dd_table({"game": "klaverjas",
...     "hands": ["AKQJT987...", ".AKQJT987..", "..AKQJT987.", "...AKQJT987"]})
>>> table["values"]["S"]     # spades trumps: seat 0 takes all 8 tricks (162 + pit 100)
[262, -262]
>>> table["values"]["H"]     # hearts trumps: seat 1 ruffs the first lead and takes them all
[-262, 262]

One Solver (its transposition table) serves all 8 solves; the table keys carry the trump
suit and the playing team, so the searches never mix.
"""
from __future__ import annotations

import os
import queue
import time
from concurrent.futures import ThreadPoolExecutor, wait
from collections.abc import Mapping
from typing import Any

from ddcards._jsonio import POSITION_RULE, loads, shown, token_text
from ddcards.errors import InvalidOptionError, NotationError, SearchTimeout
from ddcards.games import get_game
from ddcards.games._document import check_fields, played_field
from ddcards.games.klaverjas import FIELDS as KLAVERJAS_FIELDS
from ddcards.position import Position

__all__ = ["dd_table", "available_threads", "TABLE_SUITS"]

TABLE_SUITS = ("S", "H", "D", "C")
_SET_BY_THE_TABLE = ("trump", "playing_team", "played")


def _deal_document(position_or_doc: Position | Mapping[str, Any] | str) -> dict[str, Any]:
    """The deal of a Klaverjas document: its fields less ``trump``, ``playing_team`` and an empty
    ``played``, validated as far as the table does not set them itself."""
    if isinstance(position_or_doc, Position):
        doc = position_or_doc.to_dict()
    elif isinstance(position_or_doc, str):
        doc = loads(position_or_doc, "the position document")
        if not isinstance(doc, Mapping):
            raise NotationError(f"a position is a JSON object, not {type(doc).__name__} {shown(doc)}",
                                token=token_text(doc), rule=POSITION_RULE)
    elif isinstance(position_or_doc, Mapping):
        doc = dict(position_or_doc)
    else:
        raise InvalidOptionError(f"dd_table takes a Position or a position document, not "
                                 f"{type(position_or_doc).__name__} {shown(position_or_doc)}",
                                 token=token_text(position_or_doc), rule=POSITION_RULE)
    game = get_game(doc.get("game"))
    if game.info.name != "klaverjas":
        raise InvalidOptionError(f"dd_table covers Klaverjas deals (every trump suit and playing team); "
                                 f"'{game.info.name}' has no such table", token=game.info.name,
                                 rule="dd_table: klaverjas", field="game")
    check_fields(doc, KLAVERJAS_FIELDS, "klaverjas")
    played = played_field(doc)           # a history of the wrong type or with a bad card says so
    if played:
        raise InvalidOptionError(f"dd_table solves whole deals, but {len(played)} card(s) are already played, "
                                 f"from played[0] '{played[0]}' (a history may be illegal under another trump "
                                 "suit)", token=played[0], rule="dd_table: no history",
                                 field="played[0]")
    deal = {k: v for k, v in doc.items() if k not in _SET_BY_THE_TABLE}
    deal["game"] = "klaverjas"
    return deal


def dd_table(position_or_doc: Position | Mapping[str, Any] | str, *, solver: Any = None,
             timeout: float | None = None, cancel: Any = None, threads: int = 1) -> dict[str, Any]:
    """The exact value of a Klaverjas deal for each trump suit and each playing team.

    ``position_or_doc``: a Position or a position document (its ``trump`` and
    ``playing_team``, if any, are ignored; ``hands``, ``rules`` and ``leader`` are used;
    nothing may be played yet).  ``solver``: a :class:`ddcards.Solver` to reuse (default:
    this thread's); ``timeout`` (seconds) bounds the whole table (SearchTimeout);
    ``cancel``: a CancelToken (SearchCancelled).  ``threads``: how many of the 8 searches
    run at once (each further thread has a Solver of its own, of the same table size;
    the searches release the GIL).  ``available_threads()`` is what this machine offers.

    Returns ``{"game", "hands", "rules", "leader", "values", "nodes", "elapsed_ms"}`` where
    ``values[suit] == [v0, v1]`` for suit in S H D C: ``v0`` with seats 0 and 2 as the
    playing team, ``v1`` with seats 1 and 3 (each from its playing team's view; positive
    means the contract is made, negative means nat).
    """
    from ddcards.api import Solver, default_solver

    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InvalidOptionError(f"threads is a whole number, at least 1 (got {threads!r})",
                                 token=repr(threads), rule="dd_table: threads")
    deal = _deal_document(position_or_doc)
    engine = solver if solver is not None else default_solver()
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    # Validate all 8 positions before searching any.
    jobs = [(suit, team, Position.from_dict(dict(deal, trump=suit, playing_team=team)))
            for suit in TABLE_SUITS for team in (0, 1)]

    def run(engine: Any, pos: Position) -> tuple[int, int]:
        left = None
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SearchTimeout("the DD table ran out of time")
        return _value(engine, pos, left, cancel)

    if threads == 1:
        answers = [run(engine, pos) for _, _, pos in jobs]
    else:
        answers = _run_threaded(jobs, run, engine, min(threads, len(jobs)), Solver)
    values: dict[str, list[int]] = {suit: [0, 0] for suit in TABLE_SUITS}
    for (suit, team, _), (value, _) in zip(jobs, answers):
        values[suit][team] = value
    doc = jobs[0][2].to_dict()
    return {
        "game": "klaverjas",
        "hands": doc["hands"],
        "rules": doc.get("rules", "amsterdam"),
        "leader": doc.get("leader", 0),
        "values": values,
        "nodes": sum(n for _, n in answers),
        "elapsed_ms": round((time.perf_counter() - start) * 1000, 3),
    }


def available_threads() -> int:
    """The CPUs this process may run on (a default for ``dd_table(threads=...)``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _run_threaded(jobs: list, run: Any, engine: Any, threads: int, solver_class: Any) -> list[tuple[int, int]]:
    """Run the jobs on `threads` threads, the caller's Solver serving the first one.

    Every search has the same deadline and cancel token, so when one stops the others
    stop with it; the first error is raised once all have returned.
    """
    engines = [engine] + [solver_class(tt_mb=engine.tt_mb) for _ in range(threads - 1)]
    free: queue.SimpleQueue = queue.SimpleQueue()
    for e in engines:
        free.put(e)

    def one(pos: Position) -> tuple[int, int]:
        e = free.get()
        try:
            return run(e, pos)
        finally:
            free.put(e)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ddtable") as pool:
        futures = [pool.submit(one, pos) for _, _, pos in jobs]
        wait(futures)
    return [f.result() for f in futures]


def _value(engine: Any, pos: Position, timeout: float | None, cancel: Any) -> tuple[int, int]:
    """The value alone (no per-move values, no principal variation)."""
    value = engine.value(pos, timeout=timeout, cancel=cancel)
    return value, engine.last_nodes
