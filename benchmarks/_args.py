"""Argument types the benchmark scripts share: a bad count is a usage error (exit status 2), not
a traceback or an empty table after the run.

``type=positive`` for a count that must be at least 1 (deals, rounds), ``type=thread_count`` for a
search's threads (1 to the library's MAX_THREADS), ``type=table_mb`` for a table's MiB (1 to this
machine's memory), ``type=count`` where 0 is documented to skip a part, ``type=seconds`` for a time
limit.
"""
from __future__ import annotations

import argparse
import sys
from typing import NoReturn


def positive(text: str) -> int:
    """A whole number of at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def thread_count(text: str) -> int:
    """A thread count the library takes: 1 to ddcards.api.MAX_THREADS (more was a traceback from the
    first search, after the work before it: bench_klaverjas.py's DD tables come last)."""
    from ddcards.api import MAX_THREADS      # here: make_corpus*.py use this module without ddcards
    value = _whole(text)
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a thread count from 1 to {MAX_THREADS}")
    return value


def table_mb(text: str) -> int:
    """A table size the library takes: 1 MiB to this machine's memory (ddcards.api.tt_mb_limit; more
    was a traceback from the first Solver or Searcher, after the work before it)."""
    from ddcards.api import tt_mb_limit     # here: make_corpus*.py use this module without ddcards
    value = _whole(text)
    if not 1 <= value <= tt_mb_limit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a table size from 1 to {tt_mb_limit():,} MiB "
                                         "(this machine's memory)")
    return value


def count(text: str) -> int:
    """A whole number of at least 0 (0: that part is skipped)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 0")
    return value


def seconds(text: str) -> float:
    """A time in seconds, above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def usage_error(prog: str, message: str) -> NoReturn:
    """Exit as argparse does on a bad argument: the message on standard error, exit status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)
