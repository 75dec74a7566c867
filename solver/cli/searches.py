"""The command's Solver and its searches in the foreground (Ctrl-C, the ticker), and the note said
before a search known to be long."""
from __future__ import annotations

import argparse
import sys

import ddcards
from ddcards.cli.foreground import Foreground
from ddcards.batch.progress import wanted


def new_solver(args: argparse.Namespace) -> ddcards.Solver:
    """The command's Solver, its table as --tt-mb says; a table that cannot be had raises a
    TableMemoryError, which _run reports naming --tt-mb (exit status 2)."""
    return ddcards.Solver(tt_mb=args.tt_mb)


def foreground(args: argparse.Namespace, engine: ddcards.Solver, bounds: bool = True) -> Foreground:
    """The command's searches: Ctrl-C stops one at once, a long one shows a ticker (with the
    value's bound so far where the search is the answer's: `bounds`)."""
    return Foreground(engine, ticker=wanted(getattr(args, "progress", None)), bounds=bounds)


def _long_note(args: argparse.Namespace, what: str, why: str) -> None:
    shown = "; the ticker shows how far it got" if wanted(getattr(args, "progress", None)) else ""
    cores = "" if getattr(args, "threads", 1) > 1 else ", --threads 2 uses a second core"
    print(f"ddcards: note: {what}{why} (--timeout SECONDS bounds it{cores}, Ctrl-C interrupts it{shown})",
          file=sys.stderr, flush=True)


def note_long_analysis(args: argparse.Namespace, pos: ddcards.Position) -> bool:
    """Say on stderr, before it starts, that analysing `pos` takes minutes, if its game knows
    the searches from the first position analysed (the deal's start, or played[--from-ply]) to be
    long (a fresh 36-card Mariasz deal); True if it did."""
    start = getattr(args, "from_ply", 0)        # (the board analyses no record)
    if not 0 <= start <= len(pos.played):
        return False                       # the analysis refuses it, naming the range
    why = pos._with_played(list(pos.played[:start])).long_search
    if why is None:
        return False
    where = "the deal's start" if start == 0 else f"played[{start}]"
    later = "" if start + 1 >= len(pos.played) else "; --from-ply N analyses the play from played[N] on" if not start \
        else f"; a later --from-ply (up to {len(pos.played) - 1}) analyses less of it, sooner"
    _long_note(args, f"analysing this deal can take many minutes: an analysis searches from {where}, ", why + later)
    return True


def note_long_search(args: argparse.Namespace, pos: ddcards.Position) -> bool:
    """Say on stderr, before it starts, that solving `pos` takes long (Position.long_search: a
    36-card Mariasz deal early in its stock); True if it did."""
    why = pos.long_search
    if why is None:
        return False
    _long_note(args, "this search takes long: ", why)
    return True
