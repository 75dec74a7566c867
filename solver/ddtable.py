"""Double-dummy tables: what a deal is worth for every choice made before the first card.

The same entry point, ``dd_table``, serves each game that has such a choice:

**Klaverjas** (docs/RULES.md §2.8 rule 5): the same 32 cards are worth something different for
each of the 4 trump suits and for each of the 2 teams choosing them, so the table holds 8 exact
values, each from the view of that playing team (its final score minus the other team's, roem,
last trick, pit and nat included):

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

**Mariáš** (docs/RULES.md §1.13): forehand's discard and contract.  Given the deal as dealt
(his 12 cards, the defenders' 10) or with the discard fixed (10 + 10 + 10 and the talon), the
table lists every legal discard × contract — Hra in each suit with its best announcements,
Betl, Durch — with its exact value and money, best first (``ddcards.games.marias_table``):

>>> table = dd_table(ddcards.example("marias-hra"))     # the discard 9C KC, fixed
>>> [(e["contract"], e["trump"], e["announcements"], e["money"]) for e in table["entries"][:2]]
[('hra', 'H', ['kilo'], 12), ('hra', 'C', [], 2)]

``row_position`` gives the position a row answers, to solve or analyse (its line of play):

>>> ddcards.solve(row_position(table, table["entries"][0])).value      # the row's money
12
"""
from __future__ import annotations

import dataclasses
import os
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from collections.abc import Callable, Mapping
from typing import Any

from ddcards.api import CancelToken, Solver
from ddcards._jsonio import argument_shown, argument_token, decode_utf8, loads_given, not_a_position, read_position
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError, SearchAborted, SearchTimeout
from ddcards.games import _search_budget, get_game, klaverjas, marias_table
from ddcards.games._document import check_fields, played_field, unset
from ddcards.games.klaverjas import FIELDS as KLAVERJAS_FIELDS
from ddcards.games.marias import HRA_ONLY_OPTIONS
from ddcards.notation import Suit, format_cards, parse_cards, parse_hand
from ddcards.position import Position

__all__ = ["dd_table", "table_job", "row_position", "available_threads", "chosen_fields", "TABLE_SUITS",
           "TABLE_GAMES"]

TABLE_SUITS = ("S", "H", "D", "C")
TABLE_GAMES = ("klaverjas", "marias")
_SET_BY_THE_TABLE = ("trump", "playing_team", "played")
NO_HISTORY_RULE = "docs/RULES.md §2.8 rule 5: the table is of a whole deal, nothing played"
TABLE_GAMES_RULE = "docs/RULES.md §2.8 rule 5 and §1.13: a DD table is of a Klaverjas or a Mariáš deal"


def _document(position_or_doc: Position | Mapping[str, Any] | str | bytes) -> dict[str, Any]:
    """The position document of what dd_table was given."""
    if isinstance(position_or_doc, (bytes, bytearray)):        # UTF-8 JSON, as solve() takes it
        position_or_doc = decode_utf8(bytes(position_or_doc), "the position document")
    if isinstance(position_or_doc, Position):
        doc = position_or_doc.to_dict()
    elif isinstance(position_or_doc, str):
        doc = read_position(loads_given(position_or_doc, "the position document"))
    elif isinstance(position_or_doc, Mapping):
        doc = dict(position_or_doc)
    else:
        raise not_a_position(position_or_doc, given=True)       # as Position and solve say it
    return doc


def _klaverjas_deal(doc: dict[str, Any]) -> klaverjas.KlaverjasSetup:
    """The deal of a Klaverjas document, validated as far as the table does not set it itself:
    its setup with the trump and playing team given (or spades and team 0), nothing played."""
    doc = check_fields(doc, KLAVERJAS_FIELDS, "klaverjas")
    played = played_field(doc)           # a history of the wrong type or with a bad card says so
    if played:
        raise InvalidOptionError(f"a DD table solves whole deals, but {len(played)} card(s) are already played, "
                                 f"from played[0] '{played[0]}' (a history may be illegal under another trump "
                                 f"suit; leave 'played' out for the table of the deal as dealt; {NO_HISTORY_RULE})",
                                 token=played[0], rule=NO_HISTORY_RULE, field="played[0]")
    deal = {k: v for k, v in doc.items() if k not in _SET_BY_THE_TABLE}
    deal["game"] = "klaverjas"
    # A trump suit or playing team given is the table's to choose, but must still be valid
    # (RULES §2.8 rule 5): the game reads them as in any position.
    trump = doc.get("trump")
    return klaverjas.parse_setup(dict(deal, trump="S" if unset(trump) else trump,   # "": none given, as Mariáš's
                                      playing_team=doc.get("playing_team", 0)))


def dd_table(position_or_doc: Position | Mapping[str, Any] | str | bytes, *, solver: Solver | None = None,
             timeout: float | None = None, cancel: CancelToken | None = None, threads: int = 1) -> dict[str, Any]:
    """The double-dummy table of a deal: its exact value for every choice made before play.

    ``position_or_doc``: a Position or a position document (a dict, JSON text or its UTF-8
    bytes), nothing played yet.
    ``solver``: a :class:`ddcards.Solver` to reuse (default: this thread's); ``timeout``
    (seconds, as for ``Solver.solve``) bounds the whole table (SearchTimeout); ``cancel``: a CancelToken
    (SearchCancelled).  ``threads``: how many threads search (the searches release the GIL).
    Klaverjas's eight rows are searched together in the Solver's table, their first moves
    shared out among the threads, each further thread with a side area of its own; Mariáš's
    contracts run as searches at once, each further thread with a Solver of its own, its
    table sized as the caller's (per game, or the same fixed size).
    ``ddcards.ddtable.available_threads()`` is what this machine offers.

    **Klaverjas**: the table sets ``trump`` and ``playing_team`` itself (a position may give
    them, but they must still be valid: docs/RULES.md §2.8 rule 5); ``hands``, ``rules`` and
    ``leader`` are used.  Returns ``{"game", "hands", "rules",
    "leader", "values", "nodes", "elapsed_ms"}`` where ``values[suit] == [v0, v1]`` for suit
    in S H D C: ``v0`` with seats 0 and 2 as the playing team, ``v1`` with seats 1 and 3 (each
    from its playing team's view; positive means the contract is made, negative means nat).

    **Mariáš** (docs/RULES.md §1.13): ``hands`` as dealt — forehand's 12 cards and the
    defenders' 10, no ``talon`` — or 10 + 10 + 10 with the ``talon`` (the discard fixed);
    ``flek``, ``players`` and ``options`` apply to every row; ``contract``, ``trump``,
    ``objective`` and ``announcements`` are the table's to choose.  Returns ``{"game",
    "hands", "talon", "flek", "players", "options", "entries", "nodes", "elapsed_ms"}``:
    ``entries`` holds one row per legal discard × contract, best first, each ``{"discard",
    "contract", "trump", "announcements", "value", "value_kind", "won", "money"}`` (value:
    the Hra margin, or +1/-1 in Betl and Durch; money: the declarer's settlement, with the
    best announcements in Hra).
    """
    from ddcards.api import default_solver
    from ddcards.api.arguments import check_limits, check_threads
    from ddcards.api.turns import stale_token_told

    timeout = check_limits(timeout, cancel)          # cancel="x": said here, as solve says it
    threads = check_threads(threads, "dd_table: threads")      # (an int: numpy's int64 as its value)
    job = table_job(position_or_doc)
    if solver is not None and not callable(getattr(solver, "_values", None)):     # (a Solver, or a subclass)
        raise InvalidArgumentTypeError(f"dd_table's solver is a ddcards.Solver or None, not {argument_shown(solver)}",
                                       token=argument_token(solver), field="solver",
                                       rule="dd_table: solver is None or a ddcards.Solver")
    with stale_token_told(cancel):
        return job(solver if solver is not None else default_solver(), timeout, cancel, threads)


# A validated table waiting for its search: (solver, timeout, cancel token, threads) -> the table.
TableJob = Callable[[Any, float | None, Any, int], dict[str, Any]]


def table_job(position_or_doc: Position | Mapping[str, Any] | str | bytes) -> TableJob:
    """The DD table of a deal, validated now and searched later: ``job(solver, timeout,
    cancel, threads)`` answers as `dd_table`.  Bad input raises here, before any search or
    wait for a solver (the service checks a request before it queues for a worker)."""
    from ddcards.api import Solver

    doc = _document(position_or_doc)
    game = get_game(doc.get("game"))
    if game.info.name == "marias":
        dealt = marias_table.parse_table_deal(doc)
        return lambda engine, timeout, cancel, threads: _marias_table(dealt, engine, timeout, cancel, threads, Solver)
    if game.info.name != "klaverjas":
        raise InvalidOptionError(f"a DD table covers {' and '.join(TABLE_GAMES)} deals; '{game.info.name}' has no "
                                 f"such table ({TABLE_GAMES_RULE})", token=game.info.name, rule=TABLE_GAMES_RULE,
                                 field="game")
    validated = time.perf_counter()
    # The deal is read and validated once; each row is its setup with the row's trump and
    # playing team (not 8 parses of the same hands: a tenth of a millisecond each).
    deal = _klaverjas_deal(doc)
    jobs = [(suit, team, Position._of_setup(game, dataclasses.replace(deal, trump=Suit.parse(suit),
                                                                     playing_team=team)))
            for suit in TABLE_SUITS for team in (0, 1)]
    checking_ms = (time.perf_counter() - validated) * 1000
    return lambda engine, timeout, cancel, threads: _klaverjas_table(jobs, checking_ms, engine, timeout, cancel,
                                                                     threads)


def _klaverjas_table(jobs: list[tuple[str, int, Position]], checking_ms: float, engine: Any, timeout: float | None,
                     cancel: Any, threads: int) -> dict[str, Any]:
    start = time.perf_counter()
    positions = [pos for _, _, pos in jobs]
    # The rows are searched together, their first moves shared out among the threads (a thread
    # that finishes a row takes moves of another, rather than idling while the last row ends).
    try:
        answers = engine._values(positions, timeout=timeout, cancel=cancel, threads=threads)
    except SearchAborted as exc:
        # Its progress (a bound on the value) is one row's: the message names the row.
        if exc.progress is not None and exc.row is not None:
            suit, team, _ = jobs[exc.row]
            exc.tell_progress(exc.progress, f"in the row trump {suit}, playing team {team}")
        raise
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
        "elapsed_ms": round((time.perf_counter() - start) * 1000 + checking_ms, 3),
    }


ROW_RULE = ("row_position: a Mariáš row is one of the table's entries; a Klaverjas row is (suit, team), "
            "a suit of S H D C and team 0 or 1")


# The fields of dd_table's table that row_position reads, by game.
TABLE_FIELDS = {"klaverjas": ("hands", "rules", "leader"),
                "marias": ("entries", "hands", "flek", "players", "options")}


def row_position(table: Mapping[str, Any], row: Mapping[str, Any] | tuple[str, int]) -> Position:
    """The position a row of a DD table answers, at the start of play: to solve it for its line
    of play, or to look at each first card's value.

    **Mariáš**: `row` is one of ``table["entries"]``: forehand's cards after the row's discard,
    the discard as the talon, the row's contract, trump and announcements and the table's flek,
    players and options (Hra's own not in a Betl or Durch row).  Its solve's value is the row's
    ``money`` where the row announces parts (the objective is then the settlement), else its
    ``value`` (the Hra margin, or +1 / -1).
    **Klaverjas**: `row` is ``(suit, team)``, e.g. ``("H", 0)``: the deal with that trump and
    playing team; its value is ``table["values"][suit][team]``.
    """
    game = table.get("game") if isinstance(table, Mapping) else None
    needed = TABLE_FIELDS.get(game, ()) if isinstance(game, str) else ()
    missing = [name for name in needed if name not in table]
    if missing:
        # (a table a program made, or one from a server older than SolveTableResponse's hands for
        # Klaverjas and options for Mariáš) - said so, not a KeyError
        raise InvalidArgumentTypeError(f"row_position takes a table dd_table returned: this {game} table lacks "
                                       f"{', '.join(repr(name) for name in missing)} ({ROW_RULE})",
                                       token=missing[0], rule=ROW_RULE, field="table")
    if game == "klaverjas":
        if not (isinstance(row, (tuple, list)) and len(row) == 2 and row[0] in TABLE_SUITS
                and row[1] in (0, 1) and not isinstance(row[1], bool)):
            raise InvalidArgumentTypeError(f"a Klaverjas table's row is (suit, team), not {argument_shown(row)} "
                                           f"({ROW_RULE})", token=argument_token(row), rule=ROW_RULE, field="row")
        return Position.from_dict({"game": "klaverjas", "hands": table["hands"], "rules": table["rules"],
                                   "leader": table["leader"], "trump": row[0], "playing_team": row[1]})
    if game == "marias":
        if not isinstance(row, Mapping) or row not in table["entries"]:
            raise InvalidArgumentTypeError(f"a Mariáš table's row is one of its entries, not {argument_shown(row)} "
                                           f"({ROW_RULE})", token=argument_token(row), rule=ROW_RULE, field="row")
        discard = parse_cards(row["discard"])
        forehand = [card for card in parse_hand(table["hands"][0]) if card not in discard]
        # Hra's own options (talon points, marriages, the Sedma and Kilo stakes) do not apply to
        # Betl and Durch, whose rows the table searched without them (a position refuses them there).
        options = {name: value for name, value in table["options"].items()
                   if row["contract"] == "hra" or name not in HRA_ONLY_OPTIONS}
        doc: dict[str, Any] = {"game": "marias", "hands": [format_cards(forehand), *table["hands"][1:]],
                               "talon": row["discard"], "contract": row["contract"], "flek": table["flek"],
                               "players": table["players"], "options": options}
        if row["trump"] is not None:
            doc["trump"] = row["trump"]
        if row["announcements"]:
            doc["announcements"] = row["announcements"]
        return Position.from_dict(doc)
    raise InvalidArgumentTypeError(f"row_position takes a table dd_table returned, of a Klaverjas or a Mariáš deal, "
                                   f"not {argument_shown(table)} ({ROW_RULE})", token=argument_token(table),
                                   rule=ROW_RULE, field="table")


def chosen_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a position document that its DD table chooses itself (each row sets its
    own): Klaverjas's ``trump`` and ``playing_team``, Mariáš's ``contract``, ``trump``,
    ``objective`` and ``announcements`` — those given, by name, for a note that they are not
    used (the command line's ``table``)."""
    names = {"klaverjas": ("trump", "playing_team"),
             "marias": ("contract", "trump", "objective", "announcements")}.get(str(doc.get("game", "")).lower(), ())
    return {name: doc[name] for name in names if not unset(doc.get(name), empty_list=True)}


def available_threads() -> int:
    """The CPUs this process may run on (a default for ``dd_table(threads=...)``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _marias_table(deal: marias_table.TableDeal, engine: Any, timeout: float | None, cancel: Any,
                  threads: int, solver_class: Any) -> dict[str, Any]:
    """The Mariáš contract table: its jobs (one contract each) on `threads` Solvers."""
    from ddcards.api import taking_turn

    start = time.monotonic()
    deadline = _search_budget.deadline(timeout)
    # The table takes the caller's Solver's turn once, for all of it, as a Solver's own call does:
    # its wait for another thread's search gives up within the table's timeout and cancel. The
    # jobs on that Solver then run on this thread or on a pool thread while this one waits for
    # them; a turn taken again there, from another thread, would wait for this one (a table asked
    # from an analysis's on_step, which holds the turn, never returned).
    with taking_turn(engine, start, timeout, cancel):
        engine._searcher.clear()        # cold, so that node counts repeat

        # The nodes of every search of the table, on every thread: a table that stops says them
        # all, in its message and `nodes` (the core's message counted only the search it stopped).
        spent = [0]
        lock = threading.Lock()

        def counted(n: int) -> None:
            with lock:
                spent[0] += n

        def run(engine: Any, job: marias_table.Job) -> tuple[list[Any], int]:
            # (the job searches on its Solver's own Searcher, keeping its table between discards)
            return marias_table.run_job(job, deal, engine._searcher, deadline=deadline, cancel=cancel,
                                        counted=counted)

        def run_jobs(jobs: list[marias_table.Job]) -> list[tuple[list[Any], int]]:
            if threads == 1:
                return [run(engine, job) for job in jobs]
            return _run_threaded(jobs, run, engine, min(threads, len(jobs)), solver_class)

        try:
            return marias_table.run_table(deal, run_jobs)
        except SearchAborted as exc:
            # (said of the table, as a stop between its searches is: not "the search" of one row)
            exc.args = (f"the contract table {'ran out of time' if isinstance(exc, SearchTimeout) else 'was cancelled'}",)
            exc.tell_nodes(spent[0])
            raise


def _run_threaded(items: list[Any], run: Any, engine: Any, threads: int, solver_class: Any) -> list[Any]:
    """``[run(solver, item) for item in items]`` on `threads` threads, each with a Solver of
    its own (the caller's serves the first), the items taken in order as threads come free.

    Every search has the same deadline and cancel token, so when one stops the others
    stop with it; the first error is raised once all have returned.
    """
    from ddcards.api import check_tables_fit

    # The caller's sizing: per game if its table is, else its size.
    tt_mb = None if engine.sized_per_game else engine.tt_mb
    check_tables_fit(threads, tt_mb, "threads", "tt_mb", what="one per thread at work, at most one per search of "
                     "the table", fewer="fewer threads")
    engines = [engine] + [solver_class(tt_mb=tt_mb) for _ in range(threads - 1)]
    free: queue.SimpleQueue[Any] = queue.SimpleQueue()
    for e in engines:
        free.put(e)

    def one(item: Any) -> Any:
        e = free.get()
        try:
            return run(e, item)
        finally:
            free.put(e)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ddtable") as pool:
        futures = [pool.submit(one, item) for item in items]
        wait(futures)
    return [f.result() for f in futures]
