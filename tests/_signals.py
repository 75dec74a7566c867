"""Ctrl-C in tests that send it: whatever the runner did with SIGINT.

A runner may start the suite with SIGINT ignored (a shell's background job, nohup), and a
process started so keeps ignoring it, as the CLI rightly does then. The tests that check what
Ctrl-C does restore its default first: in a child (``preexec_fn=sigint_default``) or here
(``default_sigint``).
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


def sigint_default() -> None:
    """For ``subprocess.Popen(preexec_fn=...)``: the child starts with SIGINT's default, so
    that Python installs its KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def default_sigint() -> Iterator[None]:
    """SIGINT raising KeyboardInterrupt in this process while the block runs."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
