"""The ``ddcards`` command line.

    ddcards solve FILE|-          solve a position document, JSON Lines (one a line) or an array
    ddcards solve --example       solve a bundled example
    ddcards batch IN -o OUT       solve a batch on every core (or a Dask cluster), resumable
    ddcards analyse FILE|-        value before/after every recorded card, mistakes
    ddcards table FILE|-          a deal's DD table: Klaverjas, every trump suit and playing team;
                                  Mariáš, every discard and contract with its value and money
    ddcards report FILE|-         the analysis of a recorded deal as one HTML page
    ddcards board                 the analysis board, a local web page
    ddcards games                 games, contracts, objectives, options
    ddcards examples              list (or print) the bundled examples
    ddcards bench                 fixed positions of every game: speed and the node signature
    ddcards serve                 run the gRPC service

Batches are answered as they are read: each JSON Lines line is solved and its answer printed
(and flushed) before the next line is read; a bad line gets an error record and the rest go
on (ddcards.batch.reader describes the input formats).

Exit status: 0 success, 1 a search was stopped (--timeout), 2 bad input (some document or the
usage, or a --tt-mb table too large for the memory free) or an input that cannot be read or
an output that cannot be written (standard input or output closed, a full disk), 3 an internal
error (a bug: please report it); a batch exits with the worst it saw.  A reader that goes away
(`| head`) ends the command quietly, with status 0.

This module reads the arguments and runs the command, turning its failures into a message and an
exit status (`status`). The parts: `parser` (the arguments of every command), a module a command
(`solve` with batch, `analyse`, `table`, `games` with examples, `bench`; report and board live in
their own packages), `streams` (the input read and the output written), `documents` (every
document of an input answered in turn), `searches` (the Solver and its searches in the
foreground, which `foreground` runs on a worker thread so that Ctrl-C stops them) and `display`
(the readable answers).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import ddcards
from ddcards._jsonio import printable
from ddcards.cli.display import describe_value, print_analysis, print_result
from ddcards.cli.documents import json_line
from ddcards.cli.parser import build_parser, command_parser
from ddcards.cli.status import EXIT_ABORTED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK
from ddcards.cli.streams import Diagnostics, Output, OutputFailure
from ddcards.errors import DdcardsError, SearchAborted, TableMemoryError

__all__ = ["EXIT_ABORTED", "EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_OK", "build_parser", "describe_value",
           "json_line", "main", "print_analysis", "print_result"]


def cmd_serve(argv: list[str]) -> int:
    from ddcards.server.main import main as serve_main
    return serve_main(argv) or EXIT_OK


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
        if isinstance(exc, OutputFailure):         # cannot write it: what is left unwritten is dropped
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
