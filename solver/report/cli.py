"""``ddcards report``: the command-line side of the HTML report."""
from __future__ import annotations

import argparse
import sys
import webbrowser
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

import ddcards
from ddcards._jsonio import is_input, printable, shown, token_text
from ddcards.errors import NotationError, SearchAborted, SearchTimeout
from ddcards.report.display import plies_shown

REPORT_INPUT_RULE = "ddcards report: a position document with the recorded play, or an analysis document"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="a position document with the recorded play (JSON), or an analysis "
                   "document (`ddcards analyse --json`, rendered as it is), or - for stdin")
    p.add_argument("--example", nargs="?", const="marias-seed", metavar="NAME",
                   help="report a bundled example (default marias-seed; see `ddcards examples`)")
    p.add_argument("-o", "--output", metavar="FILE.html",
                   help="where to write the page (default: the input's name with .html, NAME.html for --example "
                        "NAME, ddcards-report.html for standard input; - for stdout)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop the analysis after this long, at least 0 ('inf': no limit, the default; exit status 1; "
                        "then the page shows the play analysed, if any; the first search in a fresh large table may overrun "
                        "it by up to a second)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table size in MiB, 1 to the machine's memory (default: per game, "
                        f"{ddcards.api.table_sizes_text()})")
    p.add_argument("--from-ply", type=int, default=0, metavar="N",
                   help="report the play from played[N] on (default 0, the deal's start), as `ddcards analyse "
                        "--from-ply` analyses it: the page shows the hands before played[N]")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search of the analysis, 1 to 64 (default 1; the answers are the same)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a ticker on stderr for a search that runs a second or more (default: when stderr "
                        "is a terminal)")
    p.set_defaults(func=cmd_report)


def default_output(args: argparse.Namespace) -> Path:
    if args.example:
        return Path(f"{args.example}.html")
    if args.file in (None, "-"):
        return Path("ddcards-report.html")
    return Path(args.file).with_suffix(".html")


def cmd_report(args: argparse.Namespace) -> int:
    from ddcards.cli.documents import as_position, is_analysis
    from ddcards.cli.searches import foreground, new_solver, note_long_analysis
    from ddcards.cli.streams import one_document
    from ddcards.report import render, report_html

    stopped: SearchAborted | None = None
    interrupted = False             # stopped by Ctrl-C: the command ends as an interrupt, once the page is out
    doc, _ = one_document(args, "a report shows one deal", "an analysis document (`ddcards analyse --json`) or a "
                          "position document with the recorded play")
    if isinstance(doc, Mapping) and "error" in doc and "error_type" in doc:
        # what `ddcards analyse --json` answered a bad document with: its error, not "field 'line'"
        raise NotationError(f"the input is an error record, not a deal to report: {shown(doc['error'], 300)}",
                            token=token_text(doc.get("error_type")), rule=REPORT_INPUT_RULE)
    if is_analysis(doc) and "steps" not in doc:
        # an analysis document that lost its steps: say so, not "field 'value_kind' does not apply"
        # of a position document it was never meant to be
        raise NotationError("the input is an analysis document without its 'steps' (docs/RULES.md §0.10): the "
                            "report shows an analysis's steps; give the whole document, or the position document "
                            "to analyse", token="steps", rule=REPORT_INPUT_RULE)
    path = None if args.output == "-" else check_output(args)      # said before minutes of search
    if isinstance(doc, Mapping) and "steps" in doc:
        # an analysis document (ddcards analyse --json, perhaps minutes of searching): rendered as
        # it is, checked field by field (docs/RULES.md §0.10), without searching again
        analysed_from = doc.get("from_ply", 0)
        if args.from_ply and args.from_ply != analysed_from:
            # the page shows the analysis it is given: another starting ply needs a new analysis
            # (it was ignored, and the page showed the play from the analysis's own ply)
            raise NotationError(f"--from-ply {args.from_ply}: the input is an analysis document, rendered as it "
                                f"is, and it analyses the play from played[{shown(analysed_from, 40)}] on: give "
                                f"the position document to report from played[{args.from_ply}], or leave "
                                "--from-ply out", token=str(args.from_ply), rule=REPORT_INPUT_RULE)
        page = render({k: v for k, v in doc.items() if k not in ("line", "index", "column")})
    else:
        position = as_position(doc)
        note_long_analysis(args, position)
        engine = new_solver(args)
        # On a worker thread, as `ddcards analyse`'s: Ctrl-C stops the analysis at once (a search
        # in C on the main thread would take the interrupt only when it ends: minutes).
        with foreground(args, engine, bounds=False) as searches:
            try:
                page = searches.run(lambda cancel: report_html(position, solver=engine, timeout=args.timeout,
                                                               cancel=cancel, threads=args.threads,
                                                               from_ply=args.from_ply), tell_stop=False)
            except SearchAborted as exc:
                stopped = exc
            except KeyboardInterrupt:
                if searches.interrupted is None:        # (not in the search: nothing of it to keep)
                    raise
                stopped, interrupted = searches.interrupted, True
        if stopped is not None:
            if stopped.analysis is None or not stopped.analysis.steps:
                stopped.args = (f"{stopped.args[0]} (no page is written: no action was analysed)",) + stopped.args[1:]
                end(stopped, interrupted)
            # A long deal's work is not lost to --timeout or Ctrl-C: the page of the actions analysed,
            # marked incomplete, and the command still says it stopped (exit status 1, or 130 for Ctrl-C).
            page = render(stopped.analysis.to_dict(), stopped=stopped_note(stopped, stopped.analysis, position))
    if path is None:
        sys.stdout.write(page)
    else:
        write_page(args, path, page)
    if stopped is not None:
        assert stopped.analysis is not None
        steps = stopped.analysis.steps
        rest = (f"; --from-ply {steps[-1].ply + 1} reports the rest" if steps[-1].ply + 1 < len(position.played)
                else "")
        stopped.args = (f"{stopped.args[0]} (the page shows the play analysed before it stopped{rest})",) \
            + stopped.args[1:]
        end(stopped, interrupted)
    return 0


def end(stopped: SearchAborted, interrupted: bool) -> NoReturn:
    """End the command on its stopped analysis: as the SearchAborted (a --timeout's, exit status
    1), or, for Ctrl-C, as `ddcards analyse` ends then: how far it got, then the interrupt (130)."""
    if not interrupted:
        raise stopped
    print(printable(f"ddcards: stopped: {stopped}"), file=sys.stderr, flush=True)
    raise KeyboardInterrupt


def stopped_note(exc: SearchAborted, analysis: ddcards.Analysis, position: ddcards.Position) -> str:
    """What the page of an analysis stopped before its end says at its top."""
    steps = analysis.steps
    how = "ran out of time" if isinstance(exc, SearchTimeout) else "was cancelled"
    left = len(position.played) - steps[-1].ply - 1
    if not left:        # every recorded action analysed: the final solve (continuation, scores) stopped
        return (f"the analysis {how} in its last search, after the recorded play: every recorded action is "
                "analysed, but the optimal continuation and the final scores are not shown.")
    return (f"the analysis {how} after ply {steps[-1].ply}: "
            f"{plies_shown(position.game, steps[0].ply, steps[-1].ply, left)} "
            f"(ddcards report --from-ply {steps[-1].ply + 1} reports {'them' if left != 1 else 'it'}).")


def check_output(args: argparse.Namespace) -> Path:
    """The page's file (-o, or the input's name with .html), if it is not the input."""
    if args.output == "":           # (an unset shell variable): not taken for "no -o", the page beside its input
        raise NotationError("-o '': the page's file name is empty: give one, or leave -o out for the input's name "
                            "with .html", token="", rule="-o names a new file")
    path = Path(args.output) if args.output is not None else default_output(args)
    if path.resolve() == Path(args.file or "-").resolve() or is_input(args.file, path):
        raise NotationError(f"the report would overwrite its input {path}", token=str(path),
                            rule="-o names a new file")
    return path


def write_page(args: argparse.Namespace, path: Path, page: str) -> None:
    """Write `page` to `path`, say so, and open it if asked."""
    data = page.encode("utf-8")           # before the file is opened: a page that cannot be written leaves none
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise NotationError(f"cannot write {path}: {exc.strerror}", token=str(path),
                            rule="a writable output file") from None
    print(f"ddcards: wrote {printable(str(path))}", file=sys.stderr)
    # webbrowser.open says False when no browser is found (a server, a container): say so, and
    # where the page is, rather than exit as if it had opened; the page is written all the same.
    if args.open and not webbrowser.open(path.resolve().as_uri()):
        print(f"ddcards: no browser could be opened; the report is at {printable(str(path.resolve()))}",
              file=sys.stderr)
