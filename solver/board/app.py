"""The analysis board's web app: a small Starlette app over the Python API.

The page (``GET /``) keeps only the line being looked at — the deal and the
cards played so far — and asks the server about every position it shows:

- ``POST /api/position`` ``{"position": {...}}`` or ``{"text": "..."}``: the
  position validated by ``ddcards.Position`` and laid out for display
  (``Session.view()``: hands, trick, roles, score; the legal cards; the
  history with who played what).  Bad input answers 400 with the message,
  the offending token and the rule.
- ``POST /api/solve`` ``{"position": {...}, "search": "ID"}``: every legal
  card's exact value (``Solver.solve`` in mode "all"; ``pv_trick_ends`` says
  which cards of its line end a trick), run in a worker thread without the GIL; ``POST /api/stop`` ``{"search": "ID"}`` cancels it.
- ``GET /api/examples``: the bundled example positions.

Requests are JSON in UTF-8 (``Content-Type: application/json``; a declared
charset other than UTF-8 is refused, as any other content type is).

No rule of any game lives here or in the page: legality, values, names and
the layout all come from ddcards, so a new game shows up with no web code.
"""
from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import queue
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from string import Template
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

import ddcards
from ddcards.api import DEFAULT_TT_MB, CancelToken, Solver, check_tables_fit, check_timeout, check_tt_mb
from ddcards.api.arguments import check_threads, check_whole
from ddcards._jsonio import check_unicode, decode_utf8, loads, read_position, shown, token_text
from ddcards.board import MAX_WORKERS
from ddcards.ddtable import available_threads
from ddcards.errors import DdcardsError, NotationError, SearchCancelled, SearchTimeout, TableMemoryError
from ddcards.games.prsi import every_value_or_optimal
from ddcards.report.display import (as_cards, card_piece, count_label, extras, hand_suits, ober_action, plain,
                                    step_unit, suit_piece)
from ddcards.report.render import template

MAX_BODY = 1 << 20          # a position document is a few hundred bytes
MAX_SEARCH_ID = 64
MAX_STOPPED_EARLY = 256
STOPPED_EARLY_SECONDS = 10.0     # a stop may come before its search by this much at most
STOP_POLL_SECONDS = 0.05         # how often a search waiting for a worker looks whether it was stopped
#: The names under which a board on this machine's loopback answers (the Host header's host).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
# In BoardApp's hosts: any IP address as the Host (a board on a wildcard address, reached by one of
# the machine's addresses). DNS rebinding needs a name, which a browser sends as the Host.
IP_LITERALS = "<any address>"
#: Sent with every answer: no other site may frame the board (clickjacking), nor may a browser
#: guess another content type.
SECURITY_HEADERS = [(b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff")]
#: The page's scripts: inline <script> elements that run (not the JSON data element).
_RUNNING_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def content_security_policy(page: str) -> str:
    """The Content-Security-Policy of the board: only the page's own inline scripts run (by their
    hashes: an injected <script> or on* attribute would not), it talks only to its own origin,
    loads nothing, and no site may frame it."""
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
                      for body in _RUNNING_SCRIPT.findall(page))
    return ("default-src 'none'; script-src " + (hashes or "'none'") + "; style-src 'unsafe-inline'; "
            "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def error_response(exc: DdcardsError, status: int | None = None) -> JSONResponse:
    code = status if status is not None else int(getattr(exc, "status", 400))
    return JSONResponse({"error": str(exc), "error_type": type(exc).__name__, "token": exc.token,
                         "rule": exc.rule}, status_code=code)


class TooLarge(NotationError):
    """A request body over MAX_BODY: 413."""

    status = 413

    def __init__(self, size: int, at_least: bool = False):
        super().__init__(f"the request is {'over ' if at_least else ''}{size:,} bytes; a position is far smaller",
                         token=f"{size} bytes", rule=f"requests up to {MAX_BODY:,} bytes")


def _hostname(authority_or_url: str) -> str:
    """The host of a URL or of '//' + a Host header, lower case, without port or brackets."""
    try:
        return urlsplit(authority_or_url).hostname or ""
    except ValueError:                          # a malformed port or bracket
        return ""


def search_id(body: Mapping[str, Any]) -> str:
    """The request's search id: text of at most MAX_SEARCH_ID characters, or "" when it names none.
    A longer one is refused, not cut: two ids alike in their first MAX_SEARCH_ID characters were
    one search to the board (a stop of either stopped both, and the answer named neither)."""
    search = body.get("search")
    if search is None:
        return ""
    if not isinstance(search, str):
        raise NotationError(f"'search' is a search's id as text, not {shown(search)}", token=token_text(search),
                            rule="board requests")
    if len(search) > MAX_SEARCH_ID:
        raise NotationError(f"'search' is an id of at most {MAX_SEARCH_ID} characters, not {len(search):,}",
                            token=token_text(search), rule=f"board requests: a search id up to {MAX_SEARCH_ID} "
                            "characters")
    # echoed in the answer, which is UTF-8: checked before any search starts
    check_unicode(search, "'search': ", "board requests", "search")
    return search


def _only_fields(body: Mapping[str, Any], fields: tuple[str, ...], what: str) -> None:
    """NotationError naming a field of the request that is not one of `fields` (a misspelt
    'serach' ran a search no stop could reach), or 'text' given beside 'position'."""
    for key in body:
        if key not in fields:
            raise NotationError(f"{shown(key)} is no field of {what} request (fields: {', '.join(fields)})",
                                token=token_text(key), rule="board requests")
    if "text" in body and "position" in body:
        raise NotationError("a request gives its position once: as 'position' (a document) or as 'text' (its JSON "
                            "text), not both", token="text", rule="board requests")


def _port(authority_or_url: str) -> int | None:
    """The port of a URL or of '//' + a Host header (80 when none is written; None if malformed)."""
    try:
        return urlsplit(authority_or_url).port or 80
    except ValueError:
        return None


def position_view(pos: ddcards.Position) -> dict[str, Any]:
    """What the page shows of `pos`: Session.view() laid out for display, the legal cards, the history."""
    view = pos.session().view()
    names = view.get("suit_names") or ()
    replay = pos.start().session()
    history: list[dict[str, Any]] = []
    for move in pos.played:                 # who played each action, from the game itself
        seat = replay.to_move
        replay.play(move)
        trick_end = replay.trick_done()
        history.append({"move": replay.history[-1], "seat": seat, "trick_end": trick_end})
    trick = list(view.get("trick") or ())
    on_table = history[len(history) - len(trick):] if trick else []
    doc = pos.to_dict()
    return {
        "position": doc,
        "title": view.get("title") or pos.game,
        "roles": view.get("roles") or [],
        "to_move": view.get("to_move"),
        "over": pos.is_over,
        "trick_size": view.get("trick_size"),
        "value_owner": view.get("value_owner"),
        "value_meaning": view.get("value_meaning"),
        "suit_names": list(names),
        "score": plain(view.get("score") or {}),
        "score_label": count_label(pos.game),         # what the score counts (Prší: the hand sizes)
        "unit": step_unit(pos.game),                 # what one step of the line is (Prší: an action)
        "hands": [[{"suit": row["suit"], "symbol": row["symbol"], "name": row["name"],
                    "cards": [card_piece(rank + row["suit"], names) for rank in row["ranks"]]}
                   for row in hand_suits(hand, names)] for hand in view.get("hands") or ()],
        "trick": [dict(card_piece(h["move"], names), seat=h["seat"]) for h in on_table],
        "extras": [{"label": key, "cards": [card_piece(c, names) for c in cards] if cards else None,
                    "text": None if cards else plain(value)}
                   for key, value in extras(view) for cards in [as_cards(value)]],
        "trump": suit_piece(doc["trump"], names) if doc.get("trump") else None,
        "legal": list(pos.legal_moves),
        # Prší's Ober naming a suit ("QS/H"): its card and the suit, for a button that shows both
        "obers": {move: {"card": card, "named": named} for move in pos.legal_moves
                  for ober in [ober_action(move, names)] if ober is not None for card, named in [ober]},
        "history": [dict(h, **card_piece(h["move"], names)) if as_cards(h["move"]) else h for h in history],
    }


class BoardApp:
    """The app's state: one Solver per worker and the searches that may be stopped."""

    def __init__(self, *, tt_mb: int | None = DEFAULT_TT_MB, timeout: float | None = None,
                 workers: int | None = None, position: Mapping[str, Any] | None = None, threads: int = 1,
                 hosts: Iterable[str] | None = None):
        """hosts: the host names the board answers to (the Host header's; default this machine's
        loopback names), IP_LITERALS for any IP address, "*" for any name at all: a page of
        another site whose name it points at this machine (DNS rebinding) would otherwise be the
        board's own origin, free to run searches."""
        self.hosts = frozenset(h.strip("[]").lower() for h in (LOOPBACK_NAMES if hosts is None else hosts))
        # Bad options and bad input fail at start, not at the first search.
        if position is not None:
            position = ddcards.Position.from_dict(position).to_dict()
        self.tt_mb = check_tt_mb(tt_mb)
        self.timeout = check_timeout(timeout)
        self.threads = check_threads(threads, "board: threads")       # each search's
        if workers is not None:
            workers = check_whole(workers, 1, MAX_WORKERS, f"workers is a whole number from 1 to {MAX_WORKERS} "
                                  f"(searches at once, each with its own table), not {workers!r}",
                                  rule=f"board: workers 1..{MAX_WORKERS}", field="workers")
        workers = workers or available_threads()
        check_tables_fit(workers, tt_mb, "workers", "tt_mb", what="one per worker", fewer="fewer workers")
        self.initial = position
        self.html = self.render_page()
        self.security_headers = SECURITY_HEADERS + [
            (b"content-security-policy", content_security_policy(self.html).encode("ascii"))]
        self.limiter = anyio.CapacityLimiter(workers)
        # One Solver per worker, made at its first search and kept for the board's life: a search
        # goes on from what its table holds (the same deal's other positions, or this one's search
        # stopped on the board's time limit, which Search again then carries further), and the
        # tables are `workers` of them, as check_tables_fit counted. (Per worker thread they were
        # made again whenever an idle thread ended, and searched from an empty table each time.)
        self._solvers: queue.LifoQueue[Solver | None] = queue.LifoQueue()
        for _ in range(workers):
            self._solvers.put(None)
        self._searches: dict[str, list[CancelToken]] = {}      # by id: every search under it
        self._anonymous: set[CancelToken] = set()               # searches sent without an id
        # Ids stopped before their search arrived (the page may stop a search whose request
        # is still on its way): such a search, coming within STOPPED_EARLY_SECONDS, ends at
        # once.  The most recent few are kept, with when they were stopped.
        self._stopped_early: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        self.app = Starlette(routes=[
            Route("/", self.page),
            Route("/api/examples", self.examples),
            Route("/api/position", self.view, methods=["POST"]),
            Route("/api/solve", self.solve, methods=["POST"]),
            Route("/api/stop", self.stop, methods=["POST"]),
        ], exception_handlers={HTTPException: self._http_error})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=list(message.get("headers", [])) + self.security_headers)
            await send(message)

        refusal = self.refusal(Headers(scope=scope))
        if refusal is not None:
            await refusal(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def answers_host(self, host: str) -> bool:
        if "*" in self.hosts or (host in self.hosts and host != IP_LITERALS):
            return True
        if IP_LITERALS in self.hosts:
            try:
                ipaddress.ip_address(host)
                return True
            except ValueError:
                return False
        return False

    def refusal(self, headers: Headers) -> Response | None:
        """The answer to a request for another host (DNS rebinding) or from another site's page
        (its Origin), or None to serve it."""
        host = _hostname("//" + headers.get("host", ""))
        if not self.answers_host(host):
            names = ", ".join(sorted(h for h in self.hosts if h != IP_LITERALS)) + \
                (" and any IP address" if IP_LITERALS in self.hosts else "")
            return error_response(NotationError(
                f"the board answers requests for {names}, not for host {host or '(none)'!r} (a page under another "
                "name must not reach it: DNS rebinding); open it by one of those names, or start it with "
                "--allow-host NAME",
                token=host or "Host", rule="board: requests for its own host names"), 421)
        origin = headers.get("origin")
        if origin is not None:
            # Its own page: the same scheme (the board serves http), port and host (or another
            # name of the loopback), as browsers compare origins.
            source = _hostname(origin)
            same = (source == host or (source in LOOPBACK_NAMES and host in LOOPBACK_NAMES)) and \
                origin.lower().startswith("http://") and _port("//" + headers.get("host", "")) == _port(origin)
            if not same:
                return error_response(NotationError(
                    f"a page of {origin[:80]!r} may not use the board (only its own page may)", token=origin[:80],
                    rule="board: requests from its own page"), 403)
        return None

    def cancel_all(self) -> None:
        """Stop every search (the board is shutting down)."""
        with self._lock:
            tokens = [t for ts in self._searches.values() for t in ts] + list(self._anonymous)
        for token in tokens:
            token.cancel()

    # -- helpers
    @contextmanager
    def solver(self, token: CancelToken) -> Iterator[Solver]:
        """A Solver of the board's own for one search (see __init__).  One is free but while a
        stopped search, abandoned by its request, still ends (milliseconds): this waits for it,
        unless `token` is cancelled meanwhile."""
        while True:
            try:
                held = self._solvers.get(timeout=STOP_POLL_SECONDS)
                break
            except queue.Empty:
                if token.cancelled:
                    raise SearchCancelled("the search was stopped before it started") from None
        try:
            solver = Solver(tt_mb=self.tt_mb) if held is None else held
        except BaseException:           # (no memory for its table: the next search tries again)
            self._solvers.put(held)
            raise
        try:
            yield solver
        finally:
            self._solvers.put(solver)

    @staticmethod
    async def body(request: Request) -> dict[str, Any]:
        # JSON only: a page of another site cannot send that to the board without the
        # browser asking first (a CORS preflight, which the board does not answer).
        kind = request.headers.get("content-type", "")
        media, *params = kind.split(";")
        if media.strip().lower() != "application/json":
            raise NotationError(f"the request's Content-Type is {kind or 'missing'!r}, not application/json",
                                token=kind or "Content-Type", rule="board requests are JSON")
        for param in params:            # JSON is UTF-8 (RFC 8259 §8.1): another charset is refused, not misread
            name, _, value = param.partition("=")
            charset = value.strip().strip('"').lower()
            if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8"):
                raise NotationError(f"the request's Content-Type declares charset {value.strip()!r}; board "
                                    "requests are JSON in UTF-8", token=kind, rule="board requests are JSON")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:       # refused before it is read
            raise TooLarge(int(declared))
        raw = bytearray()
        try:
            async for chunk in request.stream():        # read no further than the limit
                raw += chunk
                if len(raw) > MAX_BODY:
                    raise TooLarge(len(raw), at_least=True)
        except ClientDisconnect:
            raise NotationError("the client went away before its request was read", token="request",
                                rule="board requests") from None
        # read as the command line reads a document: strict JSON (no NaN, no key twice)
        body = loads(decode_utf8(bytes(raw), "the request"), "the request") if raw else {}
        if not isinstance(body, dict):
            raise NotationError(f"the request is not a JSON object: {shown(body)}", token=token_text(body),
                                rule="board requests are JSON")
        return body

    @staticmethod
    def read_position(body: Mapping[str, Any]) -> ddcards.Position:
        if "text" in body:
            if not isinstance(body["text"], str):
                raise NotationError(f"'text' is a position document as JSON text, not {shown(body['text'])}",
                                    token=token_text(body["text"]), rule="board requests")
            return ddcards.Position.from_json(body["text"])
        if "position" not in body:
            raise NotationError("the request names no position (field 'position' or 'text')",
                                token="position", rule="board requests")
        return ddcards.Position(read_position(body["position"]))

    @staticmethod
    async def _http_error(request: Request, exc: Exception) -> Response:
        """A path the board has not, or a method its path does not take: JSON, as its other errors."""
        assert isinstance(exc, HTTPException)
        path = token_text(request.url.path, 80)
        if exc.status_code == 404:
            message = (f"the board has no page {path} (it serves /, /api/examples, /api/position, /api/solve and "
                       "/api/stop)")
        elif exc.status_code == 405:
            allowed = [m.strip() for m in (exc.headers or {}).get("Allow", "").split(",")
                       if m.strip() not in ("", "HEAD")]
            message = f"{path} takes {' or '.join(allowed)}, not {token_text(request.method, 20)}"
        else:
            message = f"{path}: {exc.detail}"
        answer = error_response(NotationError(message, token=path, rule="board requests"), exc.status_code)
        answer.headers.update(exc.headers or {})
        return answer

    # -- routes
    def render_page(self) -> str:
        data = {"position": self.initial, "examples": ddcards.example_names()}
        return Template(template("board.html.tmpl", "ddcards.board")).substitute(
            css=template("cards.css") + template("board.css", "ddcards.board"),
            script=template("board.js", "ddcards.board"), version=ddcards.__version__,
            data=json.dumps(data, ensure_ascii=False).replace("</", "<\\/"))

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self.html)

    async def examples(self, request: Request) -> JSONResponse:
        return JSONResponse({name: ddcards.example(name) for name in ddcards.example_names()})

    async def view(self, request: Request) -> Response:
        try:
            body = await self.body(request)
            _only_fields(body, ("position", "text"), "a position")
            return JSONResponse(position_view(self.read_position(body)))
        except DdcardsError as exc:
            return error_response(exc)

    async def solve(self, request: Request) -> Response:
        try:
            body = await self.body(request)
            _only_fields(body, ("position", "text", "search"), "a search")
            pos = self.read_position(body)
            search = search_id(body)
        except DdcardsError as exc:
            return error_response(exc)
        token = CancelToken()
        with self._lock:
            if search:
                self._searches.setdefault(search, []).append(token)
                stopped_at = self._stopped_early.pop(search, None)
                if stopped_at is not None and time.monotonic() - stopped_at <= STOPPED_EARLY_SECONDS:
                    token.cancel()
            else:
                self._anonymous.add(token)

        started = threading.Event()

        def work() -> dict[str, Any]:
            started.set()
            # (Prší without a horizon: the optimal actions' values where another one's is unproven,
            # the others shown "?")
            with self.solver(token) as solver:
                res = every_value_or_optimal(lambda mode: solver.solve(
                    pos, mode=mode, timeout=self.timeout, cancel=token, threads=self.threads, keep_tt=True))
            session = pos.session()
            # where the line's tricks end, from the game (the page knows no rules): the page splits
            # the line there, as `ddcards solve` prints it
            return dict(res.to_dict(), verdict=session.verdict(res.value, res.won, res.value_kind),
                        pv_trick_ends=session.trick_ends(res.pv))

        async def watch_the_client() -> None:
            # The body is read: the next message is the client going away (a closed tab,
            # a timed-out curl): the search stops rather than hold a worker for nothing.
            while (await request.receive())["type"] != "http.disconnect":
                pass
            token.cancel()

        async def watch_the_stop(group: anyio.abc.TaskGroup) -> None:
            # A search stopped while it still waits for a worker answers at once: its request
            # would otherwise stay open until a worker is free (a page stepping back through
            # long searches ran out of the browser's connections, its Stop button included).
            while not token.cancelled:
                await anyio.sleep(STOP_POLL_SECONDS)
            if not started.is_set():
                group.cancel_scope.cancel()

        failure: Exception | None = None
        out: dict[str, Any] | None = None
        try:
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(watch_the_client)
                    group.start_soon(watch_the_stop, group)
                    try:
                        # abandoned on cancel: the except below stops the search, which then ends by itself
                        out = await anyio.to_thread.run_sync(work, limiter=self.limiter, abandon_on_cancel=True)
                    except Exception as exc:     # noqa: BLE001 - raised below, out of the group (unwrapped)
                        failure = exc
                    finally:
                        group.cancel_scope.cancel()
            except anyio.get_cancelled_exc_class():
                token.cancel()              # the server is stopping (Ctrl-C): so does the search
                raise
            if failure is not None:
                raise failure
            if out is None:                 # stopped while it waited for a worker
                raise SearchCancelled("the search was stopped before it started")
        except SearchCancelled:
            return JSONResponse({"stopped": "cancelled", "search": search})
        except SearchTimeout:
            return JSONResponse({"stopped": "timeout", "search": search, "timeout": self.timeout})
        except DdcardsError as exc:
            # what only the search finds wrong (Prší's horizon too large for its state space)
            return error_response(exc)
        except TableMemoryError as exc:
            # No memory for the worker's table now: the board's state, not the request's (503, as
            # a search may succeed once memory is free), said with what to change (--tt-mb).
            return JSONResponse({"error": str(exc.for_option("--tt-mb")), "error_type": "TableMemoryError",
                                 "token": f"{exc.table_mb} MiB", "rule": "board: --tt-mb, a table per worker"}, status_code=503)
        finally:
            with self._lock:
                if search:
                    tokens = self._searches.get(search, [])
                    if token in tokens:
                        tokens.remove(token)
                    if not tokens:
                        self._searches.pop(search, None)
                else:
                    self._anonymous.discard(token)
        return JSONResponse(dict(out, search=search))

    async def stop(self, request: Request) -> Response:
        try:
            body = await self.body(request)
            search = search_id(body)
            _only_fields(body, ("search",), "a stop")
            if not search:
                raise NotationError("the stop names no search (field 'search', the id its search was sent with)",
                                    token="search", rule="board requests")
        except DdcardsError as exc:
            return error_response(exc)
        with self._lock:
            tokens = list(self._searches.get(search, ()))       # every search under that id
            if not tokens:
                self._stopped_early[search] = time.monotonic()
                self._stopped_early.move_to_end(search)
                while len(self._stopped_early) > MAX_STOPPED_EARLY:
                    self._stopped_early.popitem(last=False)
        for token in tokens:
            token.cancel()
        return JSONResponse({"search": search, "stopped": bool(tokens)})


def create_app(**kwargs: Any) -> BoardApp:
    """The board as an ASGI app; keywords: tt_mb, timeout (seconds per search), workers, position,
    threads (each search's), hosts (the host names it answers to: BoardApp)."""
    return BoardApp(**kwargs)
