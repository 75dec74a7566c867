"""ddcards analyse: the value before and after every recorded action, printed as it comes."""
from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from typing import Any

import ddcards
from ddcards.batch.reader import Entry, Outcome
from ddcards.cli.display import (COLUMNS, analysis_title, print_analysis, print_analysis_end, print_step,
                                 print_steps_header, value_columns)
from ddcards.cli.documents import as_position, for_each_document, header, record
from ddcards.cli.searches import foreground, new_solver, note_long_analysis
from ddcards.cli.streams import Input
from ddcards.errors import SearchAborted


@dataclasses.dataclass
class _Table:
    """The readable analysis of the document under way, printed as it comes: in a file of several
    the document's header line at once, the table's title and column header as soon as the first
    search has found the value they start with, then a row as each step is analysed (each of a
    fresh 36-card Mariasz deal's searches takes a minute or more)."""

    entry: Entry
    source: Input
    pos: ddcards.Position | None = None
    width: int = 0              # of the move column, from the recorded actions analysed
    columns: tuple[int, int] = COLUMNS      # of the value and cost columns, from the deal's widest value
    labelled: bool = False      # the document's header line ("# FILE, line N" in a file of several) is out
    headed: bool = False        # the title and the column header are out
    printed: int = 0            # the steps printed so far

    def print_label(self) -> None:
        """The document's header line, once (nothing for the only document of a file)."""
        if not self.labelled:
            header(self.entry, self.source)
            self.labelled = True
            sys.stdout.flush()

    def print_heading(self, value: int, from_ply: int) -> None:
        """The title (with `value`, where the analysis starts) and the column header, once; the
        document's header line before them if it is not out yet."""
        assert self.pos is not None
        if self.headed:
            return
        self.print_label()
        start = self.pos.start().session()
        print(analysis_title(start, self.pos.game, from_ply, value))
        self.columns = value_columns(start)
        self.width = print_steps_header(self.pos.played[from_ply:], self.pos.game, sys.stdout, self.columns)
        self.headed = True
        sys.stdout.flush()

    def print_row(self, step: ddcards.AnalysisStep, from_ply: int) -> None:
        """The next step's row, the first under the document's header, title and column header."""
        self.print_heading(step.value_before, from_ply)
        print_step(step, self.width, sys.stdout, self.columns)
        self.printed += 1
        sys.stdout.flush()

    def print_rows(self, steps: Sequence[ddcards.AnalysisStep], from_ply: int) -> None:
        """The rows of `steps` not printed yet (an analysis's, once it has ended)."""
        for step in steps[self.printed:]:
            self.print_row(step, from_ply)


def cmd_analyse(args: argparse.Namespace) -> int:
    engine = new_solver(args)
    searches = foreground(args, engine, bounds=False)      # each search is one position's of many
    noted = False
    table: _Table | None = None

    def begin(entry: Entry, source: Input) -> None:
        nonlocal table
        table = _Table(entry, source)

    def work(doc: Any) -> tuple[ddcards.Analysis, ddcards.Position]:
        nonlocal noted
        assert table is not None
        pos = table.pos = as_position(doc)
        noted = noted or note_long_analysis(args, pos)
        # readable: the document's header line now, the title and the column header as soon as
        # the value they start with is found (a fresh long deal: a search, a minute or more,
        # before the first row), each row as soon as its step is analysed (--json: one record at the end)
        shown = table
        if not args.json:
            shown.print_label()

        def on_step(step: ddcards.AnalysisStep) -> None:
            searches.emit(lambda: shown.print_row(step, args.from_ply))

        def heading() -> None:
            # (the main thread, each time it wakes) The first search has found the value before the
            # first action analysed, and the first step, a search later, is not out yet: the title
            # and the column header now, under emit as a row is (were the row out first, it printed them).
            now = engine.analysis_now
            if now is not None and now.analysed == 0 and now.actions and now.value is not None and not shown.headed:
                value = now.value
                searches.emit(lambda: shown.print_heading(value, args.from_ply))

        def analysed(cancel: ddcards.CancelToken) -> ddcards.Analysis:
            # (on the search's thread: a stop's message is told here, for --timeout and Ctrl-C alike)
            try:
                return engine.analyse(pos, timeout=args.timeout, cancel=cancel, mode=args.mode, threads=args.threads,
                                      from_ply=args.from_ply, on_step=None if args.json else on_step)
            except SearchAborted as exc:
                if exc.steps:
                    # A long deal's work is not lost to a stop: the rows finished (shown as they came;
                    # with --json the record's steps), and where to go on.
                    go_on = exc.steps[-1].ply + 1
                    rest = f"--from-ply {go_on} analyses the rest" if go_on < len(pos.played) else \
                        "every recorded action is analysed"
                    rows = "the record's steps" if args.json else "shown above"
                    exc.args = (f"{exc.args[0]} ({rows}; {rest})",) + exc.args[1:]
                raise

        return searches.run(analysed, watch=None if args.json else heading), pos

    def show_stopped(outcome: Outcome, source: Input) -> None:
        """The rows a stopped analysis finished, under its document's header as an answer's (those
        not shown as they came), and after what was printed of a failed document, the blank line
        an answer's has in a file of several."""
        exc = outcome.error
        if args.json or table is None or table.pos is None:
            return
        if isinstance(exc, SearchAborted) and exc.steps:
            table.print_rows(exc.steps, args.from_ply)
        if table.labelled and not source.single:
            print()
        sys.stdout.flush()

    def show(answer: tuple[ddcards.Analysis, ddcards.Position], entry: Entry, source: Input) -> None:
        an, pos = answer
        if args.json:
            print(record(an.to_dict(), entry))
            return
        assert table is not None
        if table.headed:            # the title and the rows are out: what comes after them
            table.print_rows(an.steps, args.from_ply)
            print_analysis_end(an, pos, pos.start().session(), sys.stdout)
        else:
            table.print_label()
            print_analysis(an, pos, sys.stdout)
        if not source.single:
            print()

    try:
        return for_each_document(args, work, show, show_failed=show_stopped, begin=begin)
    finally:
        searches.close()
