"""What the report and board tests share: a real board server and a real headless Chromium.

The board runs on uvicorn on an ephemeral loopback port in a thread of the test process.
The browser is Debian's Chromium (``/usr/bin/chromium``, or ``$DDCARDS_CHROMIUM``) driven by
Playwright through ``executable_path`` (Playwright's own browser downloads are not used);
``.ci/run`` installs Chromium when it is missing, and a missing browser fails the tests
with the command that installs it.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# As root on a machine with no network: no sandbox, no GPU, none of Chromium's own traffic.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    given = os.environ.get("DDCARDS_CHROMIUM")
    if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
        raise RuntimeError(f"DDCARDS_CHROMIUM={given} is no executable file: point it at a Chromium binary, or "
                           "unset it to use the chromium on the PATH")
    path = given or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        raise RuntimeError("the browser tests need Chromium: `sh tools/ensure_chromium.sh` installs Debian's, or "
                           "set DDCARDS_CHROMIUM to a Chromium executable (README, the test command)")
    return path


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (a Playwright Browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def running_board(*, port: int = 0, **kwargs: Any) -> Iterator[tuple[str, Any]]:
    """(base URL, BoardApp) of a board served by uvicorn on 127.0.0.1, stopped on exit; on an
    ephemeral port, or on `port` (a board started again where a page left it)."""
    import uvicorn

    from ddcards.board.app import create_app

    app = create_app(**kwargs)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # (the last board's connections linger)
    sock.bind(("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the board did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def call(url: str, body: Any = None, *, raw: bytes | None = None) -> tuple[int, Any]:
    """(status, JSON answer) of a GET (no body) or a POST to the board."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            text = answer.read().decode()
            status = answer.status
            kind = answer.headers.get("content-type", "")
    except urllib.error.HTTPError as err:
        text, status, kind = err.read().decode(), err.code, err.headers.get("content-type", "")
    return status, (json.loads(text) if kind.startswith("application/json") else text)
