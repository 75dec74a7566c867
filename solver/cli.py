"""The ``ddcards`` command line.

    ddcards solve FILE|-          solve a position document, JSON Lines (one a line) or an array
    ddcards solve --example       solve a bundled example
    ddcards batch IN -o OUT       solve a batch on every core (or a Dask cluster), resumable
    ddcards analyse FILE|-        value before/after every recorded card, mistakes
    ddcards table FILE|-          a deal's DD table: Klaverjas, every trump suit and playing team;
                                  Mariáš, every discard and contract with its value and money
    ddcards games                 games, contracts, objectives, options
    ddcards examples              list (or print) the bundled examples
    ddcards serve                 run the gRPC service

Batches are answered as they are read: each JSON Lines line is solved and its answer printed
(and flushed) before the next line is read; a bad line gets an error record and the rest go
on (ddcards.batch.reader describes the input formats).

Exit status: 0 success, 1 a search was stopped (--timeout), 2 bad input (some document or the
usage, or a --tt-mb table too large for the memory free) or an input that cannot be read or
an output that cannot be written (standard input or output closed, a full disk), 3 an internal
error (a bug: please report it); a batch exits with the worst it saw.  A reader that goes away
(`| head`) ends the command quietly, with status 0.
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO, TextIO

import ddcards
from ddcards._foreground import Foreground
from ddcards._jsonio import POSITION_RULE, printable, read_position
from ddcards.batch.progress import ProgressBar, document_count, wanted
from ddcards.batch.reader import Entry, Outcome, answer_each, read_documents
from ddcards.batch.summary import SearchTimes
from ddcards.errors import DdcardsError, NotationError, SearchAborted, TableMemoryError
from ddcards.games.base import Session
from ddcards.result import spoken, step_distances, value_jumps

EXIT_OK, EXIT_ABORTED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


# ----------------------------------------------------------------- input

class Input:
    """Where the documents come from: their entries, as they are read, and a name for messages."""

    def __init__(self, name: str, entries: Iterator[Entry], stream: BinaryIO | None = None):
        self.name = printable(name)        # a file name may hold what a terminal would act on
        self._stream = stream
        # A regular file (or the bundled example) can be looked ahead in without waiting:
        # one document alone is shown without batch headers.  A pipe is a stream: never wait.
        seekable = stream is None or _seekable(stream)
        head = list(itertools.islice(entries, 2)) if seekable else []
        self.single = seekable and len(head) == 1
        self.entries: Iterator[Entry] = itertools.chain(head, entries)

    def close(self) -> None:
        if self._stream is not None and self._stream is not _stdin_bytes():
            self._stream.close()


def _seekable(stream: BinaryIO) -> bool:
    try:
        return stream.seekable()
    except (AttributeError, OSError, ValueError):
        return False


def _stdin_bytes() -> BinaryIO:
    stdin: Any = sys.stdin
    stream: BinaryIO = stdin.buffer if hasattr(stdin, "buffer") else stdin
    return stream


def open_input(args: argparse.Namespace) -> Input:
    if getattr(args, "example", None):
        if args.file is not None:
            raise NotationError(f"give a position file or --example, not both ({args.file!r} and --example "
                                f"{args.example})", token=args.file, rule="usage: FILE or --example")
        return Input(f"example {args.example}", iter([Entry(1, document=ddcards.example(args.example))]))
    if args.file is None:
        raise NotationError("give a position file, '-' for standard input, or --example",
                            token="FILE", rule="usage")
    if args.file == "-":
        stream = _stdin_bytes()
        if stream is None:                  # started with standard input closed (<&-)
            raise NotationError("cannot read standard input: it is closed", token="-", rule="readable file")
        return Input("standard input", _reading("standard input", "-", read_documents(stream)), stream)
    try:
        stream = open(args.file, "rb")
    except OSError as exc:
        raise NotationError(f"cannot read {args.file}: {exc.strerror}", token=args.file,
                            rule="readable file") from None
    return Input(args.file, _reading(args.file, args.file, read_documents(stream)), stream)


def _reading(name: str, token: str, entries: Iterator[Entry]) -> Iterator[Entry]:
    """`entries`, a failure to read on (a directory as standard input, a disk error) said as such."""
    try:
        yield from entries
    except OSError as exc:
        raise NotationError(f"cannot read {name}: {exc.strerror or exc}", token=token,
                            rule="readable file") from None


def one_document(args: argparse.Namespace, purpose: str, give: str) -> tuple[Any, str]:
    """The one document of the input, and where it came from (a report shows one deal, the
    board opens one position); a bad document raises its error, an input with none says
    what to `give`, one with several to split it."""
    source = open_input(args)
    try:
        entries = list(itertools.islice(source.entries, 2))
    finally:
        source.close()
    if entries and entries[0].error is not None:
        raise entries[0].error          # its own error first (a line too long to read says so, not "two documents")
    if not entries:
        raise NotationError(f"{source.name} holds no document (it is empty, or only blank lines and comments): "
                            f"give {give}", token=source.name, rule=f"{purpose}: one document")
    if len(entries) != 1:
        raise NotationError(f"{source.name} holds more than one document: {purpose} (split the file)",
                            token=source.name, rule=f"{purpose}: one document")
    return entries[0].document, source.name


# ----------------------------------------------------------------- output

class _OutputFailure(NotationError):
    """Standard output cannot be written (closed, a full disk): the command's failure, told by its
    class (a document's own bad token may read "standard output" too)."""


class Output:
    """Standard output, a failure to write it (closed, a full disk) raised as a NotationError that
    says so (exit status 2) rather than an OSError; a broken pipe stays a BrokenPipeError (quiet)."""

    def __init__(self, stream: TextIO | None):
        self.stream = stream

    def _failed(self, exc: BaseException | None) -> NotationError:
        why = "standard output is closed" if exc is None else getattr(exc, "strerror", None) or str(exc)
        return _OutputFailure(f"cannot write the output: {why}", token="standard output",
                              rule="a writable output")

    def write(self, text: str) -> int:
        if self.stream is None:            # started with standard output closed (>&-)
            raise self._failed(None)
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        if self.stream is None:
            raise self._failed(None)
        return getattr(self.stream, name)


class Diagnostics:
    """Standard error, whose failure to take a message (a full disk, a closed pipe) is dropped:
    the message cannot reach anyone, and the exit status must stay the command's (it became 1,
    "a search was stopped", when the internal-error message failed on the same stream)."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (OSError, ValueError):           # ValueError: a closed file
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def signed(v: int | None) -> str:
    return "?" if v is None else f"{v:+d}"


def describe_value(res: ddcards.Result, session: Any) -> str:
    ended = getattr(session, "ended", None)             # a game that says how it ended (Prší: who is out)
    verdict = (ended() if ended is not None else None) or session.verdict(res.value, res.won, res.value_kind)
    if res.distance:                         # 0: the game is over, which the line above says
        verdict += f", the end in {res.distance} {'ply' if res.distance == 1 else 'plies'}"
    parts = ", ".join(f"{name} {'won' if part['won'] else 'lost'} {signed(part['money'])}"
                      for name, part in res.parts.items())
    if res.value_kind == "money":
        return f"{signed(res.value)}  {verdict} ({parts})"
    detail = getattr(session, "value_detail", None)      # a game that words its own scores
    if detail is not None:
        return f"{signed(res.value)}  {verdict} ({detail(res)})"
    if res.value_kind == "points":
        scores = ", ".join(f"{spoken(k)} {v}" for k, v in res.scores.items())
        # a Hra with announcements played for the margin: each part's money, which the settlement sums
        return f"{signed(res.value)}  {verdict} ({scores}" + (f"; money {parts})" if parts else ")")
    if not res.tricks:                       # not a trick game (Prší)
        return f"{signed(res.value)}  {verdict}"
    detail = ", ".join(f"{k} {v}" for k, v in res.tricks.items())
    return f"{signed(res.value)}  {verdict} (tricks: {detail})"


def move_value(m: ddcards.MoveValue) -> str:
    if m.value is None:
        return f"{m.move} (worse)"
    return f"{m.move} {signed(m.value)}" + (f" in {m.distance}" if m.distance is not None else "")


def format_line(moves: list[str], size: int | None, offset: int) -> str:
    if not size:
        return " ".join(moves)
    out, i, first = [], 0, (size - offset) % size or size
    chunk = moves[:first]
    out.append(" ".join(chunk))
    i = first
    while i < len(moves):
        out.append(" ".join(moves[i:i + size]))
        i += size
    return " | ".join(x for x in out if x)


def print_result(res: ddcards.Result, pos: ddcards.Position, out: TextIO) -> None:
    session = pos.session()
    info = session.describe()
    seat = res.to_move
    head = info.get("title", pos.game)
    if seat is not None:
        role = session.seat_role(seat)       # Prší names only the player whose value it is
        head += f" - seat {seat}" + (f" ({role})" if role else "") + " to move"
    else:
        head += " - the deal is over"      # every card played, a race claimed, a Prší game won
    print(head, file=out)
    hands = info.get("hands", [])
    width = max([len(session.seat_role(i)) for i in range(len(hands))] + [5])
    for i, hand in enumerate(hands):
        suits = hand.split(".")
        shown = "  ".join(f"{s}: {h or '-'}" for s, h in zip("SHDC", suits))
        print(f"  seat {i}  {session.seat_role(i):<{width}} {shown}", file=out)
    for label in ("talon", "stock", "trick", "top", "pile"):
        if info.get(label):
            shown = info[label] if isinstance(info[label], str) else " ".join(info[label])
            if label == "trick":            # who played each card, as print(Position) says it
                shown = "  ".join(f"{card} (seat {seat})" for seat, card in session.current_trick())
            print(f"  {label:<{width + 8}} {shown}", file=out)
    print(file=out)
    print(f"Value       {describe_value(res, session)}", file=out)
    if res.optimal_moves:
        label = "Best move" if res.mode == "best" else "Best moves"
        print(f"{label:<11} {' '.join(res.optimal_moves)}", file=out)
    if res.mode != "best" and res.moves:
        print("Moves       " + "  ".join(move_value(m) for m in res.moves), file=out)
    if res.pv:
        offset = len(info.get("trick", []))
        own = getattr(session, "format_line", None)      # a game with non-card actions groups its own line
        line = own(res.pv) if own is not None else format_line(res.pv, session.trick_size, offset)
        print(f"Line        {line}", file=out)
    achieved = [spoken(k) for k, v in res.outcomes.items() if v]
    if res.outcomes:
        missed = ", ".join(f"no {spoken(k)}" for k, v in res.outcomes.items() if not v)
        print(f"On the line {', '.join(achieved) if achieved else missed}", file=out)
    print("Settlement  " + ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(res.settlement)), file=out)
    rate = res.nodes / res.elapsed / 1e6 if res.elapsed > 0 else 0.0
    print(f"Searched    {res.nodes:,} nodes in {res.elapsed * 1000:.1f} ms ({rate:.1f} M nodes/s)", file=out)


def print_analysis(an: ddcards.Analysis, pos: ddcards.Position, out: TextIO) -> None:
    """The analysis as a table, one row per recorded action; plies count from 0, as
    ``played[i]``, the JSON and the error messages count them."""
    start = pos.start().session()
    print(analysis_title(start, pos.game, an.from_ply, an.initial_value), file=out)
    if not an.steps and an.from_ply:
        print(f"Nothing to analyse from ply {an.from_ply}: the record ends there; the value above is the "
              "position's after its last action", file=out)
    elif not an.steps:
        print("Nothing to analyse: the position records no play (its 'played' is empty); the value above is "
              "the deal's as dealt (`ddcards solve` gives its best moves)", file=out)
    else:
        print_steps(an.steps, pos.game, out)
    print_analysis_end(an, pos, start, out)


def print_analysis_end(an: ddcards.Analysis, pos: ddcards.Position, start: Session, out: TextIO) -> None:
    """What the analysis table ends with, after its rows: the mistakes, the final value, the
    settlement, the nodes (`start`: a session at the deal's start)."""
    if an.mistakes:
        print(f"Mistakes    {len(an.mistakes)}: " + ", ".join(
            f"ply {s.ply} {s.move} (seat {s.seat}, cost {s.cost})" for s in an.mistakes), file=out)
    else:
        print("Mistakes    none", file=out)
    # Prší: a search bounded by its horizon may see further from the next position (RULES §4.9)
    edges = [f"after ply {ply} {signed(after)}, "
             + (f"before ply {following} {signed(there)}" if following is not None else f"at the end {signed(there)}")
             for ply, after, following, there in value_jumps([(s.ply, s.value_before, s.value_after)
                                                              for s in an.steps], an.final_value)]
    if edges:
        print("Horizon     the value moved between actions, where the next search, bounded by the horizon, "
              "sees further: " + "; ".join(edges), file=out)
    if an.final is None and an.steps and an.steps[-1].ply + 1 < len(pos.played):
        # an analysis stopped on the way (SearchAborted.analysis): its value is that after its last step
        print(f"Value after ply {an.steps[-1].ply} {signed(an.final_value)} (the analysis stopped there; the "
              f"record goes on to ply {len(pos.played) - 1})", file=out)
    elif an.final is None:
        print(f"Final value {signed(an.final_value)}", file=out)
    else:
        # the final solve's own words (scores, parts, who is out), from the analysis's owner's view
        final = pos._owned_by(start.owner_options())
        print(f"Final value {describe_value(an.final, final.session())}", file=out)
        if an.final.settlement:
            print("Settlement  " + ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(an.final.settlement)), file=out)
    print(f"Searched    {an.nodes:,} nodes in {an.elapsed * 1000:.1f} ms", file=out)


def analysis_title(start: Session, game: str, from_ply: int, initial_value: int) -> str:
    """The analysis table's first line: the game, and the value where the analysis starts
    (`start`: a session at the deal's start, whose owner's view the analysis takes)."""
    view = f"{start.value_owner}'s view" + (f": {start.value_meaning}" if start.value_meaning else "")
    where = "at the start" if from_ply == 0 else f"before ply {from_ply}"
    return f"{start.describe().get('title', game)} - value {where} {signed(initial_value)} ({view})"


def print_steps(steps: list[ddcards.AnalysisStep], game: str, out: TextIO) -> None:
    """The analysis table's rows, under their header: one per step (mode all: with every move's value)."""
    width = print_steps_header([s.move for s in steps], game, out)
    for s in steps:
        print_step(s, width, out)


def print_steps_header(moves: Sequence[str], game: str, out: TextIO) -> int:
    """The header of the rows of the steps that play `moves`; the width of their move column."""
    # Prší's draws and passes, an Ober with its suit, Mariasz's exchange: actions, not cards
    unit = "card" if game != "prsi" and "exchange" not in moves else "action"
    width = max([4, len(unit)] + [len(move) for move in moves]) + 1     # Mariasz's "exchange" is a move too
    print(f"{'ply':>4} {'seat':>4}  {unit:<{width}}{'before':>7}{'after':>7}{'cost':>6}  best", file=out)
    return width


def print_step(s: ddcards.AnalysisStep, width: int, out: TextIO) -> None:
    """One row of the analysis table (mode all: and every move's value under it)."""
    print(f"{s.ply:>4} {s.seat:>4}  {s.move:<{width}}{signed(s.value_before):>7}{signed(s.value_after):>7}"
          f"{s.cost:>6}  {' '.join(s.best_moves)}{step_mark(s)}", file=out)
    if s.moves:                        # mode all: every legal move's value at that point
        print(f"{'':>11}moves  " + "  ".join(move_value(m) for m in s.moves), file=out)


def step_mark(s: ddcards.AnalysisStep) -> str:
    """What the analysis table says after a step: a mistake, or (Prší, where the best action is
    also the fastest forced end or the longest held out) an action that kept the value but was not
    best; with every move's value (mode all), how soon each ends."""
    if s.mistake:
        return "  <- mistake, outcome turned" if s.changes_outcome else "  <- mistake"
    if not s.best_moves or s.move in s.best_moves:
        return ""
    # (without distances say no more: with three or more players -1 also covers "nothing forced")
    soon = step_distances(s.to_dict())
    best = sorted({d for m in s.best_moves if (d := soon.get(m)) is not None})
    if best:
        played = "no end within the horizon" if s.move not in soon else f"the end in {soon[s.move]} plies"
        return f"  <- kept the value, not the best: {played}, the best's in {' or '.join(map(str, best))}"
    return "  <- kept the value, not the best"


# ----------------------------------------------------------------- commands

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
            if isinstance(outcome.error, (BrokenPipeError, _OutputFailure)):
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


def new_solver(args: argparse.Namespace) -> ddcards.Solver:
    """The command's Solver, its table as --tt-mb says; a table that cannot be had raises a
    TableMemoryError, which _run reports naming --tt-mb (exit status 2)."""
    return ddcards.Solver(tt_mb=args.tt_mb)


def foreground(args: argparse.Namespace, engine: ddcards.Solver, bounds: bool = True) -> Foreground:
    """The command's searches: Ctrl-C stops one at once, a long one shows a ticker (with the
    value's bound so far where the search is the answer's: `bounds`)."""
    return Foreground(engine, ticker=wanted(getattr(args, "progress", None)), bounds=bounds)


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
    later = "; --from-ply N analyses the play from played[N] on" if start + 1 < len(pos.played) else ""
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
        print(analysis_title(self.pos.start().session(), self.pos.game, from_ply, value))
        self.width = print_steps_header(self.pos.played[from_ply:], self.pos.game, sys.stdout)
        self.headed = True
        sys.stdout.flush()

    def print_row(self, step: ddcards.AnalysisStep, from_ply: int) -> None:
        """The next step's row, the first under the document's header, title and column header."""
        self.print_heading(step.value_before, from_ply)
        print_step(step, self.width, sys.stdout)
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


def cmd_table(args: argparse.Namespace) -> int:
    from ddcards._jsonio import shown
    from ddcards.ddtable import available_threads, chosen_fields, dd_table

    engine = new_solver(args)
    threads = min(8, available_threads()) if args.threads is None else args.threads

    def show(answer: tuple[dict[str, Any], dict[str, Any]], entry: Entry, source: Input) -> None:
        table, given = answer
        if given:                   # not an error (a position's document serves), but not silently dropped either
            fields = ", ".join(f"{name} {shown(value)}" for name, value in given.items())
            print(printable(f"ddcards: note: {located(entry, source)}the table chooses "
                            f"{'this' if len(given) == 1 else 'these'} itself, row by row: the document's {fields} "
                            f"{'is' if len(given) == 1 else 'are'} not used"), file=sys.stderr, flush=True)
        if args.json:
            print(record(table, entry))
            return
        header(entry, source)
        if table["game"] == "marias":
            print_marias_table(table, sys.stdout, every_row=args.all)
        else:
            print(f"Klaverjas DD table - rules {table['rules']}, seat {table['leader']} leads; "
                  "values for the team that chooses trumps")
            for seat, hand in enumerate(table["hands"]):
                print(f"  seat {seat}  {display_hand(hand)}")
            print(f"\n{'trump':<7}{'seats 0+2':>10}{'seats 1+3':>11}")
            for suit, (v0, v1) in table["values"].items():
                print(f"{suit:<7}{signed(v0):>10}{signed(v1):>11}")
        print(f"Searched    {table['nodes']:,} nodes in {table['elapsed_ms']:.1f} ms "
              f"({threads} thread{'s' if threads > 1 else ''})")
        if not source.single:
            print()

    def table(doc: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The table, and the document's fields it chooses itself (a bundled example: none)."""
        read_position(doc)       # a document is the JSON value itself: a string is text, never JSON to read again
        answer = searches.run(
            lambda cancel: dd_table(doc, solver=engine, timeout=args.timeout, cancel=cancel, threads=threads))
        return answer, chosen_fields(doc) if isinstance(doc, dict) and not args.example else {}

    with foreground(args, engine, bounds=False) as searches:     # each search is one row's
        return for_each_document(args, table, show)


def display_hand(hand: str) -> str:
    return "  ".join(f"{s}: {h or '-'}" for s, h in zip("SHDC", hand.split(".")))


def print_marias_table(table: dict[str, Any], out: TextIO, *, every_row: bool = False) -> None:
    """The Mariáš contract table (docs/RULES.md §1.13): the best row of each contract, best
    first, or with `every_row` every discard × contract."""
    rows = table["entries"]
    fixed = table.get("talon")
    what = f"discard {fixed} fixed" if fixed else "every discard of forehand's 12 cards"
    extras = [f"{'flek' if table['flek'] == 1 else 're'}"] if table.get("flek") else []
    extras += [f"{table['players']} players"] if table.get("players", 3) != 3 else []
    extras += [f"{name} {value}" for name, value in (table.get("options") or {}).items()]
    print(f"Mariáš contract table - {what}; money is the declarer's settlement"
          + (f" ({', '.join(extras)})" if extras else ""), file=out)
    for seat, hand in enumerate(table["hands"]):
        print(f"  seat {seat}  {display_hand(hand)}", file=out)

    def label(row: dict[str, Any]) -> str:
        name = row["contract"] + (f" {row['trump']}" if row["trump"] else "")
        return " + ".join([name, *row["announcements"]])

    if rows:
        best = rows[0]
        print(f"\nBest: {label(best)}, discard {best['discard']}: value {signed(best['value'])}, "
              f"money {signed(best['money'])}", file=out)
    if every_row:
        shown = rows
        print(f"\n{'discard':<9}{'contract':<22}{'value':>6}{'money':>7}   (every row, best first)", file=out)
    else:
        # the best row of each contract, and how many of its discards are worth as much
        seen: dict[tuple[str, str | None], dict[str, Any]] = {}
        ties: dict[tuple[str, str | None], int] = {}
        for row in rows:
            key = (row["contract"], row["trump"])
            first = seen.setdefault(key, row)
            if row["money"] == first["money"] and row["value"] == first["value"]:
                ties[key] = ties.get(key, 0) + 1
        shown = list(seen.values())
        print(f"\n{'discard':<9}{'contract':<22}{'value':>6}{'money':>7}   (the best discard of each contract)",
              file=out)
    for row in shown:
        more = ties.get((row["contract"], row["trump"]), 1) - 1 if not every_row else 0
        also = f"   and {more} other discard{'s' if more > 1 else ''}" if more else ""
        print(f"{row['discard']:<9}{label(row):<22}{signed(row['value']):>6}{signed(row['money']):>7}{also}", file=out)


def cmd_games(args: argparse.Namespace) -> int:
    games = ddcards.list_games()
    if args.json:
        print(json.dumps([{
            "name": g.name, "title": g.title, "seats": list(g.seats), "contracts": list(g.contracts),
            "objectives": {k: list(v) for k, v in g.objectives.items()}, "aliases": list(g.aliases),
            "sides": list(g.sides), "value_doc": g.value_doc,
            "options": [{"name": o.name, "type": o.type, "default": o.default, "description": o.description,
                         "choices": list(o.choices),
                         **({"minimum": o.minimum, "maximum": o.maximum} if o.type == "int" else {})}
                        for o in g.options],
        } for g in games], ensure_ascii=False, indent=2))
        return EXIT_OK
    for g in games:
        print(f"{g.name}: {g.title} ({'/'.join(map(str, g.seats))} players)")
        for contract in g.contracts:
            aims = g.objectives[contract]
            # one objective: nothing to choose (Klaverjas's documents take no 'objective' field)
            what = f"objectives: {', '.join(aims)}" if len(aims) > 1 else f"solved for {aims[0]}"
            print(f"  contract {contract:<6} {what}")
        for o in g.options:
            choices = f" [{'|'.join(o.choices)}]" if o.choices else ""
            kind = f"{o.type} {o.minimum}..{o.maximum}" if o.type == "int" else o.type
            # as a document writes the value (true, null, "defenders")
            print(f"  option {o.name} ({kind}, default {json.dumps(o.default, ensure_ascii=False)}){choices}: "
                  f"{o.description}")
        if g.value_doc:
            print(f"  value: {g.value_doc}")
    return EXIT_OK


def cmd_examples(args: argparse.Namespace) -> int:
    if args.name:
        print(json.dumps(ddcards.example(args.name), ensure_ascii=False))
    else:
        for name in ddcards.example_names():
            print(name)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from ddcards.bench import GROUPS, run_bench

    if args.repeat < 1:
        raise ddcards.InvalidOptionError(f"--repeat is a whole number of at least 1 (got {args.repeat})",
                                         token=str(args.repeat), rule="ddcards bench --repeat")
    engine = new_solver(args)
    bar = ProgressBar(wanted(args.progress), total=None)

    def progress(done: int, total: int) -> None:
        bar.set_total(total)
        bar.update()

    try:
        report = run_bench(engine, groups=args.group, repeat=args.repeat, threads=args.threads, progress=progress)
    finally:
        bar.close()
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
        return EXIT_OK
    titles = {name: title for name, title, _ in GROUPS}
    runs = f", each position's least time of {report.repeat}" if report.repeat > 1 else ""
    table = "a table sized per game" if report.tt_mb is None else f"a table of {report.tt_mb} MiB"
    print(f"ddcards bench: {report.positions} positions, each solved in mode all in {table}, cleared first "
          f"({report.threads} thread{'s' if report.threads > 1 else ''}{runs}; ddcards {report.version}, "
          f"{report.kernels} kernels)")
    print(f"{'group':<11}{'positions':>10}{'nodes':>15}{'seconds':>10}{'nodes/s':>10}  what")
    for g in report.groups:
        print(f"{g.name:<11}{g.positions:>10}{g.nodes:>15,}{g.seconds:>10.3f}{g.nodes_per_second / 1e6:>8.1f} M  "
              f"{titles[g.name]}")
    print(f"{'total':<11}{report.positions:>10}{report.nodes:>15,}{report.seconds:>10.3f}"
          f"{report.nodes_per_second / 1e6:>8.1f} M")
    same = ("the search's signature: the same on every machine for this version of the search" if report.signature
            else "on several threads the count varies from run to run" if report.threads > 1
            else "with this table size: the signature is the count in tables sized per game, without --tt-mb")
    print(f"Nodes searched  {report.nodes:,} ({same})")
    print(f"Nodes/second    {report.nodes_per_second:,.0f} (search time only; the machine and its load move it)")
    print(f"Answers         {report.answers} (a hash of every position's value and each move's value: the same "
          "for any search that answers right, on any number of threads)")
    return EXIT_OK


def cmd_serve(argv: list[str]) -> int:
    from ddcards.server.main import main as serve_main
    return serve_main(argv) or EXIT_OK


def version_text() -> str:
    """The version and the build of the search kernels this process runs."""
    from ddcards import _kernels
    from ddcards._core.search import BUILD_FEATURES

    return f"ddcards {ddcards.__version__} ({_kernels.loaded()} kernels: {BUILD_FEATURES})"


def bench_groups() -> tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...]:
    from ddcards.bench import GROUPS

    return GROUPS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ddcards", description="Double-dummy solver for Mariáš, Klaverjas, Mariasz "
                                     "and Prší (Central-European card games).",
                                     epilog="Exit status of solve, analyse, table, report and batch: 0 every document answered, 1 a search stopped (--timeout), "
                                            "2 bad input or a usage error, 3 an internal error, 130 Ctrl-C; "
                                            "a batch exits with the highest of its documents'. "
                                            "Positions, values and errors: docs/RULES.md.")
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    table_sizes = ddcards.api.table_sizes_text()

    def common(p: argparse.ArgumentParser, example: str = "marias-hra", answers: str = "result documents",
               bounded: str = "a search") -> None:
        p.add_argument("file", nargs="?", help="position document (JSON), JSON Lines, or - for stdin")
        p.add_argument("--example", nargs="?", const=example, metavar="NAME",
                       help=f"use a bundled example (default {example}; see `ddcards examples`)")
        p.add_argument("--json", action="store_true", help=f"print {answers} (one JSON per line)")
        p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help=f"stop {bounded} after this long, at least 0 ('inf': no limit, the default; exit status 1; "
                            "the first search in a fresh large table may overrun it by up to a second)")
        p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                       help=f"transposition table size in MiB, 1 to the machine's memory "
                            f"(default: per game, {table_sizes})")
        batch = " (and a bar over a batch of several documents)" if p.prog.endswith(" solve") else ""
        p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help=f"show progress on stderr: a ticker for a search that runs a second or more{batch}; "
                            "default: when stderr is a terminal")

    p = sub.add_parser("solve", help="solve positions",
                       description="Solve each position of the file (one document, JSON Lines or one JSON "
                                   "text) and print its value, every legal move's value and the principal "
                                   "variation; every value is the maximising side's (Mariáš: the declarer; "
                                   "docs/RULES.md §0.8).")
    common(p)
    p.add_argument("--mode", choices=["best", "optimal", "all"], default="all",
                   help="best: one optimal move; optimal: all optimal moves; all: every move's value (default)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each position's search, 1 to 64 (default 1; the same values and moves: in mode "
                        "best the move reported may be another optimal one)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("batch", help="solve a batch on every core or a Dask cluster; resumable (docs/BATCH.md)",
                       description="Solve every position of IN into OUT (JSON Lines, one record per document, in "
                                   "the order they finish, each with its input line and id). Run the same command "
                                   "again after a kill and it goes on where it stopped.")
    p.add_argument("input", metavar="IN", help="JSON Lines of position documents (or an array, or - for stdin)")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the results (JSON Lines); OUT.job beside it lets a killed run resume")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="searches at once: threads (default: every CPU), or with --dask local its worker processes; "
                        "each holds a table, and together they must fit in the machine's memory")
    p.add_argument("--dask", metavar="SCHEDULER", default=None,
                   help="run on a Dask cluster: a scheduler's address (tcp://HOST:8786), or 'local' to start "
                        "one on this machine (pip install 'ddcards[dask]')")
    p.add_argument("--mode", choices=["best", "optimal", "all"], default="all",
                   help="best: one optimal move; optimal: all optimal moves; all: every move's value (default)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop a position's search after this long, at least 0 ('inf': no limit, the default; "
                        "its record is an error; exit status 1; the first search in a fresh large table may "
                        "overrun it by up to a second)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table of each search thread in MiB, 1 to the machine's memory "
                        f"(default: per game, {table_sizes})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="the progress bar (default: when stderr is a terminal)")
    p.add_argument("--restart", action="store_true",
                   help="replace OUT instead of resuming it")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("analyse", aliases=["analyze"], help="analyse the recorded play of a deal",
                       description="Go through the recorded play of each deal (its 'played' history) action by "
                                   "action: the value before and after each, what it cost against the best "
                                   "play (a mistake is marked) and the optimal actions at that point; every "
                                   "value is the maximising side's (Mariáš: the declarer; docs/RULES.md §0.8).")
    common(p, example="marias-seed", answers="analysis documents", bounded="the analysis of a deal (all its searches)")
    p.add_argument("--mode", choices=["optimal", "all"], default="optimal",
                   help="optimal: the best cards at each step (default); all: every legal card's value too")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search of the analysis, 1 to 64 (default 1; the answers are the same)")
    p.add_argument("--from-ply", type=int, default=0, metavar="N",
                   help="analyse the recorded actions from played[N] on (default 0, the deal's start): those "
                        "before are replayed, not searched, so the late play of a long deal (a 36-card "
                        "Mariasz deal, whose first tricks take minutes) is analysed in seconds")
    p.set_defaults(func=cmd_analyse)

    p = sub.add_parser("table", help="a deal's DD table: Klaverjas, every trump suit and playing team; Mariáš, "
                                     "every discard and contract with its value and money",
                       description="The double-dummy table of each deal (nothing played yet): Klaverjas, the "
                                   "value for every trump suit and either playing team; Mariáš, every legal "
                                   "discard and contract with its value and the declarer's money.")
    common(p, example="klaverjas", answers="table documents", bounded="the table of a deal (all its searches)")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="searches run at once, 1 to 64 (default: the CPUs available, at most 8)")
    p.add_argument("--all", action="store_true",
                   help="Mariáš: print every discard x contract, not only the best discard of each contract")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("games", help="list games, contracts, objectives and options",
                       description="List each game the solver knows: its names, players, contracts, the "
                                   "objectives of each contract, and its options with their types, defaults and "
                                   "ranges (what a position document's 'options' may hold; docs/RULES.md).")
    p.add_argument("--json", action="store_true", help="print them as one JSON document")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("examples", help="list bundled examples, or print one",
                       description="List the bundled examples (one name a line), or print one. Every example "
                                   "solves at once; mariasz and mariasz-phase2 are late in fresh 36-card deals, "
                                   "so analysing them (analyse, report: every search from the deal's start) takes "
                                   "many minutes; mariasz-recorded is the Mariasz deal to analyse.")
    p.add_argument("name", nargs="?", help="the example to print (a position document); none: list them")
    p.set_defaults(func=cmd_examples)

    p = sub.add_parser("bench", help="solve a fixed set of positions of every game: speed and the search's "
                                     "node signature",
                       description="Solve a fixed set of positions of every game (full Mariáš and Klaverjas deals of "
                                   "every contract, trump and rule set, Mariasz from the first trick and late, Prší "
                                   "of 2 to 6 players), each in mode all in a cleared table sized per game, and "
                                   "print the nodes and the search time of each group. On one thread the node count "
                                   "is the same on every machine: a signature of the search.")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    p.add_argument("--group", action="append", choices=[name for name, _, _ in bench_groups()], default=None,
                   help="only this group (repeat for several; default: all)")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="solve each position R times and keep its least time (default 1)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search, 1 to 64 (default 1; the node count is a signature only on one)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table size in MiB, 1 to the machine's memory "
                        f"(default: per game, {table_sizes})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_bench)

    sub.add_parser("serve", help="run the gRPC service (see `ddcards serve --help`)", add_help=False)

    from ddcards.board.cli import add_arguments as board_arguments
    from ddcards.report.cli import add_arguments as report_arguments
    report_arguments(sub.add_parser(
        "report", help="write an HTML report of a recorded deal",
        description="Analyse a recorded deal (as `ddcards analyse` does) and write one self-contained HTML page: "
                    "the hands, every card or action with the value after it, the mistakes and what each cost, "
                    "the value chart and the optimal continuation. An analysis document (`ddcards analyse "
                    "--json`) is rendered as it is, without searching again."))
    board_arguments(sub.add_parser(
        "board", help="run the local analysis board (a web page)",
        description="Run the analysis board on http://127.0.0.1:8765/ (needs pip install 'ddcards[board]'): "
                    "a local web page to paste, load or pick a position, see every legal card's exact value, "
                    "play a card by clicking it and step back and forward. It listens on this machine only "
                    "unless --host says otherwise."))
    return parser


def command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of `command` (its usage is the one to show with an error in its arguments)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "serve":
        return cmd_serve(argv[1:])
    for stream in (sys.stdout, sys.stderr):
        # Whatever a message quotes (a lone surrogate, a suit symbol on an ASCII terminal)
        # is escaped rather than failing the write: the output stays valid text.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    if sys.stderr is None:        # started with it closed (2>&-): print(file=None) would write on stdout
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:       # Ctrl-C before the command runs (its handling is _run's)
        print("ddcards: interrupted", file=sys.stderr)
        return 130
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = Output(stdout)     # a failed write says so (exit status 2)
    sys.stderr = Diagnostics(stderr)
    try:
        return _run(args, parser)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        try:                        # what could not be written stays unwritten, not a failure at exit
            stderr.flush()
        except (OSError, ValueError):
            _discard(stderr)


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    usage_error = command_parser(parser, args.command).error    # the command's usage with the message
    try:   # a table of this machine's memory at most (a remote Dask cluster's workers: their own)
        ddcards.api.check_tt_mb(getattr(args, "tt_mb", None), "--tt-mb",
                                here=getattr(args, "dask", None) in (None, "local"))
    except DdcardsError as exc:
        usage_error(str(exc))
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        usage_error(f"--jobs must be at least 1 (got {args.jobs})")
    threads = getattr(args, "threads", None)
    if threads is not None and not 1 <= threads <= ddcards.api.MAX_THREADS:
        usage_error(f"--threads must be a whole number from 1 to {ddcards.api.MAX_THREADS} (got {threads})")
    if args.command == "batch" and args.dask in (None, "local"):   # each job's table is in this machine
        from ddcards.ddtable import available_threads
        try:
            ddcards.api.check_tables_fit(args.jobs or available_threads(), args.tt_mb, "--jobs", "--tt-mb",
                                         what="one per job", fewer="fewer jobs")
        except DdcardsError as exc:
            usage_error(str(exc))
    if args.command == "board":     # its workers' tables too, named by the flags as batch's are
        from ddcards.board import MAX_WORKERS
        from ddcards.ddtable import available_threads

        if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
            usage_error(f"--workers must be a whole number from 1 to {MAX_WORKERS} (got {args.workers})")
        if not 0 <= args.port <= 65535:
            usage_error(f"--port must be a TCP port, 0 to 65535 (0 picks a free one; got {args.port})")
        try:
            ddcards.api.check_tables_fit(args.workers or available_threads(), args.tt_mb, "--workers", "--tt-mb",
                                         what="one per worker", fewer="fewer workers")
        except DdcardsError as exc:
            usage_error(str(exc))
    timeout = getattr(args, "timeout", None)
    if timeout is not None and not timeout >= 0:          # also NaN
        usage_error(f"--timeout must be a number of seconds, at least 0 (got {timeout:g})")
    try:
        status: int = args.func(args)
        sys.stdout.flush()      # what is still buffered: a failure to write it is this command's
        return status
    except DdcardsError as exc:
        if isinstance(exc, _OutputFailure):         # cannot write it: what is left unwritten is dropped
            _discard_stdout()
        print(printable(f"ddcards: error: {exc}"), file=sys.stderr)     # (a file name quoted: escaped)
        return EXIT_BAD_INPUT
    except SearchAborted as exc:
        print(printable(f"ddcards: stopped: {exc}"), file=sys.stderr)
        return EXIT_ABORTED
    except MemoryError as exc:          # a table too large for the memory free now: the usage's to change
        # (a batch's workers make their Solvers through the API, whose argument is tt_mb: here it is --tt-mb)
        text = str(exc.for_option("--tt-mb") if isinstance(exc, TableMemoryError) else exc)
        print(printable(f"ddcards: error: {text or 'out of memory (MemoryError)'}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        from ddcards.batch.job import Terminated

        if isinstance(exc, Terminated):                 # ddcards batch stopped by SIGTERM
            return 128 + 15
        print("ddcards: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly
        _discard_stdout()
        return EXIT_OK
    except Exception as exc:          # noqa: BLE001 - a bug: one line, not a traceback, and its own status
        print(f"ddcards: internal error: {exc!r:.500} (a bug: please report it with the input)", file=sys.stderr)
        return EXIT_INTERNAL


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so that the flush at exit of what could not be written
    neither fails again nor prints a second message."""
    _discard(getattr(sys.stdout, "stream", sys.stdout))


def _discard(stream: Any) -> None:
    """Point `stream`'s file descriptor at /dev/null (see _discard_stdout)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):      # closed, or not a file (a test's capture)
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)


if __name__ == "__main__":
    sys.exit(main())
