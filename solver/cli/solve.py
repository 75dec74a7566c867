"""ddcards solve and ddcards batch."""
from __future__ import annotations

import argparse
import sys
from typing import Any

import ddcards
from ddcards.batch.progress import ProgressBar, document_count, wanted
from ddcards.batch.reader import Entry
from ddcards.batch.summary import SearchTimes
from ddcards.cli.display import print_result
from ddcards.cli.documents import Unanswered, as_position, for_each_document, header, record
from ddcards.cli.searches import foreground, new_solver, note_long_search
from ddcards.cli.streams import Input


def cmd_solve(args: argparse.Namespace) -> int:
    engine = new_solver(args)
    times = SearchTimes()
    bar: ProgressBar | None = None
    searches = foreground(args, engine)

    noted = False

    def work(doc: Any) -> tuple[ddcards.Result, ddcards.Position]:
        nonlocal noted
        pos = as_position(doc)
        noted = noted or note_long_search(args, pos)
        return searches.run(lambda cancel: engine.solve(pos, mode=args.mode, timeout=args.timeout, cancel=cancel,
                                                        threads=args.threads)), pos

    def show(answer: tuple[ddcards.Result, ddcards.Position], entry: Entry, source: Input) -> None:
        res, pos = answer
        times.add(res.elapsed, res.nodes)
        if args.json:
            print(record(res.to_dict(), entry))
        else:
            header(entry, source)
            print_result(res, pos, sys.stdout)
            if not source.single:
                print()

    def progressed(source: Input) -> None:
        nonlocal bar
        if bar is None:                  # a batch: the bar from its first document on
            visible = wanted(args.progress) and not source.single
            total = document_count(args.file) if visible and args.file not in (None, "-") else None
            bar = ProgressBar(visible, total=total)
        bar.update()                     # a failed document is done too (the bar ended short of its total)

    unanswered = Unanswered()
    try:
        status = for_each_document(args, work, show, unanswered, progressed)
    finally:
        searches.close()
        if bar is not None:
            bar.close()
    failed, stopped = unanswered.failed, unanswered.stopped
    if times.count + failed > 1:
        # A batch: how many were answered, how long their searches took, and how many did not
        # end in an answer: searches stopped (exit status 1) apart from bad input (2), each with
        # its error above.
        line = f"ddcards: solved {times.count:,} position{'' if times.count == 1 else 's'}"
        if times.count:
            median, exact = times.median()
            line += (f" in {times.total:.3f} s of search; per position median {'' if exact else '~'}"
                     f"{median * 1000:.2f} ms, max {times.max * 1000:.2f} ms")
        where = "see their error records" if args.json else "see the errors above"
        if stopped:
            limit = f" at the time limit ({args.timeout:g} s each)" if args.timeout is not None else ""
            line += f"; {stopped:,} search{'' if stopped == 1 else 'es'} stopped{limit}"
        if failed - stopped:
            line += f"; {failed - stopped:,} failed"
        if failed:
            line += f" ({where})"
        print(line, file=sys.stderr)
    return status


def cmd_batch(args: argparse.Namespace) -> int:
    from ddcards.batch import job

    return job.run(args)
