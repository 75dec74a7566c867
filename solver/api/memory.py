"""The transposition table's size: what a ``tt_mb`` may be on this machine, what a Solver's
tables take, and how far a table sized per game grows."""
from __future__ import annotations

import os

from ddcards._core.search import side_area_bytes
from ddcards._jsonio import argument_shown, token_text
from ddcards.api.arguments import whole_argument
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError
from ddcards.games.base import DEFAULT_TABLE_MB

#: The default of every ``tt_mb`` (Solver, solve_many, the CLI's and the server's ``--tt-mb``):
#: None, a table sized per game (``Position.table_mb``: 2 MiB, 32 for Mariasz, up to 1024 early in a deal).
DEFAULT_TT_MB: int | None = None

#: The largest table any ``tt_mb`` may ask for where this machine's memory is not known (MiB).
TT_MB_LIMIT = 1 << 24
TT_MB_RULE = "tt_mb: None (sized per game) or a whole number of MiB, from 1 to this machine's memory"


def physical_memory_mb() -> int | None:
    """This machine's physical memory in MiB, or None where the system does not say."""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return pages * page_size // (1024 * 1024)


def tt_mb_limit() -> int:
    """The largest ``tt_mb`` (MiB): this machine's physical memory (TT_MB_LIMIT if unknown)."""
    memory = physical_memory_mb()
    return TT_MB_LIMIT if memory is None else min(memory, TT_MB_LIMIT)


def check_tt_mb(tt_mb: int | None, name: str = "tt_mb", *, here: bool = True, unset: str | None = None
                ) -> int | None:
    """`tt_mb` if it is a table size: None (sized per game) or a whole number of MiB from 1 to
    this machine's physical memory (``tt_mb_limit()``; `here` False: the tables are another
    machine's, TT_MB_LIMIT); else InvalidOptionError naming the value and the range (`name`:
    the option as the caller knows it, e.g. "--tt-mb"; `unset`: what the message says leaving it
    unset gives, where that is not a table sized per game)."""
    if tt_mb is None:
        return None
    limit = tt_mb_limit() if here else TT_MB_LIMIT
    whole = whole_argument(tt_mb)
    if whole is None:
        why = "is not a whole number"
    elif whole < 1:
        why = "is too small"
    elif whole > limit:
        why = "is too large"
    else:
        return whole
    memory = "this machine's memory" if here and physical_memory_mb() is not None else "the most a table may take"
    if unset is None:
        unset = ("leave it out" if name.startswith("-") else "give None") + " for a table sized per game"
    given = argument_shown(tt_mb)           # a Python argument: True, as passed
    error = InvalidArgumentTypeError if why == "is not a whole number" else InvalidOptionError
    raise error(f"{name} {given} {why}: a table takes 1 to {limit:,} MiB ({memory}); "
                f"{unset}", token=token_text(tt_mb), rule=TT_MB_RULE, field=name)


def first_table_mb(tt_mb: int | None) -> int:
    """The table (MiB) a Solver of `tt_mb` allocates when it is made: `tt_mb`, or sized per game
    (None) the smallest, which grows at the first search that wants more."""
    return DEFAULT_TABLE_MB if tt_mb is None else tt_mb


def largest_table_mb() -> int:
    """The most a table sized per game grows to (MiB): the largest any position asks for."""
    from ddcards.games import list_games
    return max(info.largest_table_mb for info in list_games())


def table_memory_mb(tt_mb: int) -> int:
    """The memory (MiB, rounded up) a table of `tt_mb` MiB takes with its side area (an eighth of
    the table, 256 KiB to 16 MiB): what a worker's or thread's Solver may hold at most."""
    return tt_mb + -(-side_area_bytes(tt_mb) // (1024 * 1024))


def first_tables_memory_mb(count: int, tt_mb: int | None) -> int:
    """The memory (MiB) `count` Solvers of `tt_mb` take when they are made: each its first table
    (``first_table_mb``) and its side area."""
    return count * table_memory_mb(first_table_mb(tt_mb))


def check_tables_fit(count: int, tt_mb: int | None, count_name: str, tt_name: str, *, what: str,
                     fewer: str) -> None:
    """InvalidOptionError (naming `count_name`) unless `count` tables of `tt_mb` (as a Solver
    allocates first: ``first_table_mb``), each with its side area, fit in this machine's
    memory. For the message: `what` says where the tables are, `fewer` what to give fewer of."""
    memory = physical_memory_mb()
    needed = first_tables_memory_mb(count, tt_mb)
    if memory is None or needed <= memory:
        return
    table = f"{tt_name} {tt_mb}" if tt_mb is not None else "a table sized per game"
    each = table_memory_mb(first_table_mb(tt_mb))
    raise InvalidOptionError(
        f"{count_name} {count} x {table}: the tables take {needed:,} MiB ({what}; each {each:,} MiB "
        f"with its side area), more than this machine's memory, {memory:,} MiB: give {fewer} or a smaller "
        f"table", token=str(count), rule=f"{count_name} x the table fit in the machine's memory",
        field=count_name.lstrip("-").replace("-", "_"))


def table_sizes_text() -> str:
    """The tables sized per game, for people: "2 MiB, 32 for mariasz (up to 1024 early in a deal)"."""
    from ddcards.games import list_games
    larger = [f"{info.table_mb} for {info.name}"
              + (f" (up to {info.table_mb_max} early in a deal)" if info.table_mb_max > info.table_mb else "")
              for info in list_games() if info.largest_table_mb != DEFAULT_TABLE_MB]
    return ", ".join([f"{DEFAULT_TABLE_MB} MiB"] + larger)


#: A table sized per game grows past its game's own size for a search with a time limit only as
#: far as this many MiB a second of the limit. The kernel backs a new table as the search first
#: touches it, 2 MiB huge pages zeroed at a time, and a search's first stores fall all over it: a
#: fresh 36-card Mariasz deal's 1 GiB took 2.9 s of system time in its first 10,000 nodes, which a
#: 3-second timeout spent before the search had begun (2026-12-05). 64 MiB a second: 192 MiB for 3.
GROWTH_MB_PER_SECOND = 64
