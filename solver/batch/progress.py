"""The progress bar of long batches (``ddcards batch``, ``ddcards solve`` over many documents).

tqdm on standard error: count, rate and, when the total is known, percentage and ETA.  Shown
only on a terminal unless asked for (``--progress``); ``--no-progress`` or a pipe, a file or
a CI log get nothing, so the output of a batch never carries carriage returns.
"""
from __future__ import annotations

import os
import stat
import sys
from typing import Any, TextIO

from tqdm import tqdm  # type: ignore[import-untyped]

from ddcards.batch.reader import _skipped, _starts_a_longer_text, input_pieces

__all__ = ["ProgressBar", "wanted", "DocumentCounter", "document_count"]


def wanted(asked: bool | None, stream: TextIO | None = None) -> bool:
    """Show progress? As asked (--progress / --no-progress), else only on a terminal."""
    if asked is not None:
        return asked
    stream = sys.stderr if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0


class ProgressBar:
    """Positions answered so far, of `total` if known; nothing at all when not `enabled`."""

    def __init__(self, enabled: bool, *, total: int | None = None, initial: int = 0, unit: str = " pos",
                 stream: TextIO | None = None):
        self.enabled = enabled
        self._bar: Any = None
        if enabled:
            stream = sys.stderr if stream is None else stream
            sized = _columns(stream) > 0         # a terminal that tells its width (a bare pty may say 0)
            self._bar = tqdm(total=total, initial=initial, unit=unit, smoothing=0.05, mininterval=0.25,
                             dynamic_ncols=sized, ncols=None if sized else 80, nrows=None if sized else 20,
                             file=stream,
                             bar_format=None if total else "{n_fmt}{unit} [{elapsed}, {rate_fmt}]")

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def set_total(self, total: int) -> None:
        """The total, once it is known exactly (the input was read to its end)."""
        if self._bar is not None and self._bar.total != total:
            self._bar.total = total
            self._bar.refresh()

    def note(self, text: str) -> None:
        """A short status after the figures (e.g. failures so far)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

    def message(self, text: str) -> None:
        """A line on standard error that does not tear the bar."""
        if self._bar is not None:
            self._bar.write(text, file=self._bar.fp)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class DocumentCounter:
    """How many documents an input holds, from its lines (the bar's total before the input is read).

    Exact for JSON Lines (a line with an array counts once, until the reading finds out);
    unknown for one JSON text over several lines, whose documents are not its lines.
    """

    def __init__(self) -> None:
        self.lines = 0
        self._first: bytes | None = None

    def feed(self, raw: bytes) -> None:
        if not _skipped(raw):
            self.lines += 1
            if self._first is None:
                self._first = raw.rstrip(b"\r\n")

    def total(self) -> int | None:
        if self._first is not None and _starts_a_longer_text(self._first):
            return None
        return self.lines


def document_count(path: str) -> int | None:
    """The documents of the file at `path` (see DocumentCounter); None if it cannot be read, or is
    not a regular file: a pipe named by a path (`<(zcat deals.gz)`, a FIFO) read a second time here
    took documents from the command's own reader (lost, exit status 0), or waited for ever for a
    writer that had gone."""
    counter = DocumentCounter()
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as fh:
            for piece, starts in input_pieces(fh):       # a line may be endless (/dev/zero)
                if starts:
                    counter.feed(piece)
    except OSError:
        return None
    return counter.total()
