"""Where a command reads its documents from and writes its answers to: the input (a file, standard
input or a bundled example), and standard output and error that say a failure to write."""
from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, TextIO

import ddcards
from ddcards._jsonio import printable
from ddcards.batch.reader import Entry, read_documents
from ddcards.errors import NotationError
from ddcards.examples import example_name


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
        hint = unreadable_hint(args.file, getattr(args, "command", None) or "solve",
                               example_option=hasattr(args, "example"))
        raise NotationError(f"cannot read {args.file}: {exc.strerror}{hint}", token=args.file,
                            rule="readable file") from None
    return Input(args.file, _reading(args.file, args.file, read_documents(stream)), stream)


def unreadable_hint(file: str, command: str, *, example_option: bool) -> str:
    """What a file argument of `command` that cannot be opened was likely meant as: a bundled
    example's name (`example_option`: the command takes --example), or a document itself written
    where its file's name goes (a newcomer's first try); else ""."""
    if os.path.exists(file):
        return ""
    name = example_name(file)
    if name is not None:            # batch has no --example: the example is written to a file first
        return (f" (the bundled example: --example {name})" if example_option else
                f" (the bundled example: ddcards examples {name} > {name}.json)")
    if file.lstrip()[:1] in ("{", "["):
        return f" (that is a document, not a file's name: give it on standard input, echo '...' | ddcards {command} -)"
    return ""


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


class OutputFailure(NotationError):
    """Standard output cannot be written (closed, a full disk): the command's failure, told by its
    class (a document's own bad token may read "standard output" too)."""


class Output:
    """Standard output, a failure to write it (closed, a full disk) raised as a NotationError that
    says so (exit status 2) rather than an OSError; a broken pipe stays a BrokenPipeError (quiet)."""

    def __init__(self, stream: TextIO | None):
        self.stream = stream

    def _failed(self, exc: BaseException | None) -> NotationError:
        why = "standard output is closed" if exc is None else getattr(exc, "strerror", None) or str(exc)
        return OutputFailure(f"cannot write the output: {why}", token="standard output",
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
