"""Every document of an input answered in turn: a bad one reported (a line on standard error or an
error record) while the rest go on, and the batch's headers and records."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import ddcards
from ddcards._jsonio import POSITION_RULE, printable, read_position
from ddcards.batch.reader import Entry, Outcome, answer_each
from ddcards.cli.status import EXIT_ABORTED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK
from ddcards.cli.streams import Input, OutputFailure, open_input
from ddcards.errors import NotationError, SearchAborted, TableMemoryError


@dataclasses.dataclass
class Unanswered:
    """The documents of an input that got no answer: all of them, and the searches stopped (a
    time limit, a cancel) among them; the others were bad input."""

    failed: int = 0
    stopped: int = 0


def for_each_document(args: argparse.Namespace, work: Callable[[Any], Any],
                      show: Callable[[Any, Entry, Input], None], unanswered: Unanswered | None = None,
                      done: Callable[[Input], None] | None = None,
                      show_failed: Callable[[Outcome, Input], None] | None = None,
                      begin: Callable[[Entry, Input], None] | None = None) -> int:
    """Run `work` on every document of the input as it is read, and `show` each answer.

    A bad document is reported (an error record with --json, else a line on stderr) and
    the rest go on; the exit status is the worst seen.  `unanswered`: counts them;
    `done` is called after each document, answered or not (a progress bar); `show_failed`
    before a failed document's report (what it finished, under the document's header);
    `begin` before each document's `work` (which may print as it goes: an analysis's rows).
    A failure to write the output ends the command, even where `work` met it.
    """
    source = open_input(args)
    status, seen = EXIT_OK, 0

    def begun(entries: Iterator[Entry]) -> Iterator[Entry]:
        for entry in entries:
            if begin is not None:
                begin(entry, source)
            yield entry

    try:
        for outcome in answer_each(begun(source.entries), work):
            seen += 1
            if isinstance(outcome.error, (BrokenPipeError, OutputFailure)):
                raise outcome.error     # the output's, not the document's: the command ends (main says it)
            if outcome.error is None:
                show(outcome.answer, outcome.entry, source)
            else:
                if show_failed is not None:
                    show_failed(outcome, source)
                status = max(status, report_error(outcome, source, args.json))
                if unanswered is not None:
                    unanswered.failed += 1
                    unanswered.stopped += isinstance(outcome.error, SearchAborted)
            if done is not None:
                done(source)
            sys.stdout.flush()
    finally:
        source.close()
    if not seen:
        print(f"ddcards: error: {source.name} holds no position document (it is empty, or only blank lines "
              "and comments)", file=sys.stderr)
        return EXIT_BAD_INPUT
    return status


def report_error(outcome: Outcome, source: Input, as_json: bool) -> int:
    """Print one failed entry (a JSON record or a line on stderr); its exit status."""
    if isinstance(outcome.error, TableMemoryError):     # the API's tt_mb is this command's --tt-mb
        outcome = dataclasses.replace(outcome, error=outcome.error.for_option("--tt-mb"))
    exc = outcome.error
    if as_json:
        print(json_line(outcome.record(dict)))
    else:
        where = located(outcome.entry, source)
        kind = "internal error" if outcome.internal else "stopped" if isinstance(exc, SearchAborted) else "error"
        # (printable: a message may quote a file name, which may hold what a terminal would act on)
        print(printable(f"ddcards: {kind}: {where}{exc if not outcome.internal else repr(exc)}"), file=sys.stderr,
              flush=True)
    if outcome.internal:
        return EXIT_INTERNAL
    return EXIT_ABORTED if isinstance(exc, SearchAborted) else EXIT_BAD_INPUT      # bad input, or no memory


def located(entry: Entry, source: Input) -> str:
    """What a message about one document of several starts with: "FILE, line 7, id x: "; "" for
    the only document of a file."""
    if source.single:
        return ""
    return f"{source.name}, {where_in(entry)}{'' if entry.id is None else f', id {entry.id}'}: "


def where_in(entry: Entry) -> str:
    """'line 7', 'line 7 [2]' for the third document of an array, 'line 7 column 40' for a second
    document begun on one line of a JSON text."""
    return (f"line {entry.line}" + (f" [{entry.index}]" if entry.index is not None else "")
            + (f" column {entry.column}" if entry.column is not None else ""))


def header(entry: Entry, source: Input) -> None:
    """Before each readable answer of a batch: which document it answers."""
    if not source.single:
        label = f"# {source.name}, {where_in(entry)}"
        print(label + (f", id {printable(str(entry.id))}" if entry.id is not None else ""))


def record(answer: dict[str, Any], entry: Entry) -> str:
    """A result document as one JSON line, led by the entry's line (and index, id)."""
    return json_line({**entry.label(), **answer})


def json_line(doc: dict[str, Any]) -> str:
    """`doc` as one line of JSON Lines: UTF-8 kept readable, but U+2028 and U+2029 escaped
    (str.splitlines() and JavaScript readers would break a line at them)."""
    return json.dumps(doc, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def is_analysis(doc: Any) -> bool:
    """Whether `doc` is an analysis document (docs/RULES.md §0.10), with its steps or not: what a
    position is read from cannot be one, and the report says so when it lost its steps."""
    return isinstance(doc, Mapping) and "value_kind" in doc and "initial_value" in doc


def as_position(doc: Any) -> ddcards.Position:
    if is_analysis(doc):
        # an analysis document where a position is wanted: say so, not "field 'value_kind' (or
        # 'line') does not apply" of the position document it never was
        raise NotationError("the input is an analysis document (ddcards analyse --json), not a position document "
                            "(docs/RULES.md §0.6); the position it analysed is its deal.position "
                            "(jq .deal.position)", token="value_kind", rule=POSITION_RULE)
    return ddcards.Position.from_dict(read_position(doc))
