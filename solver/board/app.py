"""The analysis board's web app: a small Starlette app over the Python API.

The page (``GET /``) keeps only the line being looked at — the deal and the
cards played so far — and asks the server about every position it shows:

- ``POST /api/position`` ``{"position": {...}}`` or ``{"text": "..."}``: the
  position validated by ``ddcards.Position`` and laid out for display
  (``Session.view()``: hands, trick, roles, score; the legal cards; the
  history with who played what).  Bad input answers 400 with the message,
  the offending token and the rule.
- ``POST /api/solve`` ``{"position": {...}, "search": "ID"}``: every legal
  card's exact value (``Solver.solve`` in mode "all"), run in a worker thread
  without the GIL; ``POST /api/stop`` ``{"search": "ID"}`` cancels it.
- ``GET /api/examples``: the bundled example positions.

No rule of any game lives here or in the page: legality, values, names and
the layout all come from ddcards, so a new game shows up with no web code.
"""
from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from string import Template
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

import ddcards
from ddcards.api import DEFAULT_TT_MB, CancelToken, Solver, _threads, check_tables_fit, check_timeout, check_tt_mb
from ddcards.errors import DdcardsError, InvalidOptionError, NotationError, SearchCancelled, SearchTimeout
from ddcards.report.display import as_cards, card_piece, extras, hand_suits, plain, suit_piece
from ddcards.report.render import template

MAX_BODY = 1 << 20          # a position document is a few hundred bytes
MAX_SEARCH_ID = 64
MAX_STOPPED_EARLY = 256


def error_response(exc: DdcardsError, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(exc), "error_type": type(exc).__name__, "token": exc.token,
                         "rule": exc.rule}, status_code=status)


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
        "suit_names": list(names),
        "score": plain(view.get("score") or {}),
        "hands": [[{"suit": row["suit"], "symbol": row["symbol"], "name": row["name"],
                    "cards": [card_piece(rank + row["suit"], names) for rank in row["ranks"]]}
                   for row in hand_suits(hand, names)] for hand in view.get("hands") or ()],
        "trick": [dict(card_piece(h["move"], names), seat=h["seat"]) for h in on_table],
        "extras": [{"label": key, "cards": [card_piece(c, names) for c in cards] if cards else None,
                    "text": None if cards else plain(value)}
                   for key, value in extras(view) for cards in [as_cards(value)]],
        "trump": suit_piece(doc["trump"], names) if doc.get("trump") else None,
        "legal": list(pos.legal_moves),
        "history": [dict(h, **card_piece(h["move"], names)) if as_cards(h["move"]) else h for h in history],
    }


#: The most searches the board runs at once (each holds a table of its own).
MAX_WORKERS = 256


class BoardApp:
    """The app's state: one Solver per worker thread and the searches that may be stopped."""

    def __init__(self, *, tt_mb: int | None = DEFAULT_TT_MB, timeout: float | None = None,
                 workers: int | None = None, position: Mapping[str, Any] | None = None, threads: int = 1):
        # Bad options and bad input fail at start, not at the first search.
        if position is not None:
            position = ddcards.Position.from_dict(position).to_dict()
        self.tt_mb = check_tt_mb(tt_mb)
        self.timeout = check_timeout(timeout)
        self.threads = _threads(threads, "board: threads")       # each search's
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                    or not 1 <= workers <= MAX_WORKERS):
            raise InvalidOptionError(f"workers is a whole number from 1 to {MAX_WORKERS} (searches at once, each "
                                     f"with its own table), not {workers!r}", token=repr(workers),
                                     rule=f"board: workers 1..{MAX_WORKERS}", field="workers")
        workers = workers or os.cpu_count() or 1
        check_tables_fit(workers, tt_mb, "workers", "tt_mb", what="one per worker", fewer="fewer workers")
        self.initial = position
        self.limiter = anyio.CapacityLimiter(workers)
        self._local = threading.local()
        self._searches: dict[str, CancelToken] = {}
        # Ids stopped before their search arrived (the page may stop a search whose request
        # is still on its way): the search then ends at once.  The most recent few are kept.
        self._stopped_early: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self.app = Starlette(routes=[
            Route("/", self.page),
            Route("/api/examples", self.examples),
            Route("/api/position", self.view, methods=["POST"]),
            Route("/api/solve", self.solve, methods=["POST"]),
            Route("/api/stop", self.stop, methods=["POST"]),
        ])

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)

    # -- helpers
    def solver(self) -> Solver:
        """This worker thread's Solver (a Solver is not shared between threads)."""
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = Solver(tt_mb=self.tt_mb)
        return solver

    @staticmethod
    async def body(request: Request) -> dict[str, Any]:
        # JSON only: a page of another site cannot send that to the board without the
        # browser asking first (a CORS preflight, which the board does not answer).
        kind = request.headers.get("content-type", "")
        if kind.split(";")[0].strip().lower() != "application/json":
            raise NotationError(f"the request's Content-Type is {kind or 'missing'!r}, not application/json",
                                token=kind or "Content-Type", rule="board requests are JSON")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise NotationError(f"the request is {len(raw)} bytes; a position is far smaller",
                                token=f"{len(raw)} bytes", rule=f"requests up to {MAX_BODY} bytes")
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            raise NotationError("the request is not a JSON object", token=raw[:20].decode("utf-8", "replace"),
                                rule="board requests are JSON") from None
        if not isinstance(body, dict):
            raise NotationError("the request is not a JSON object", token=type(body).__name__,
                                rule="board requests are JSON")
        return body

    @staticmethod
    def read_position(body: Mapping[str, Any]) -> ddcards.Position:
        if isinstance(body.get("text"), str):
            return ddcards.Position.from_json(body["text"])
        if "position" not in body:
            raise NotationError("the request names no position (field 'position' or 'text')",
                                token="position", rule="board requests")
        return ddcards.Position(body["position"])

    # -- routes
    async def page(self, request: Request) -> HTMLResponse:
        data = {"position": self.initial, "examples": ddcards.example_names()}
        return HTMLResponse(Template(template("board.html.tmpl", "ddcards.board")).substitute(
            css=template("cards.css") + template("board.css", "ddcards.board"),
            script=template("board.js", "ddcards.board"), version=ddcards.__version__,
            data=json.dumps(data, ensure_ascii=False).replace("</", "<\\/")))

    async def examples(self, request: Request) -> JSONResponse:
        return JSONResponse({name: ddcards.example(name) for name in ddcards.example_names()})

    async def view(self, request: Request) -> Response:
        try:
            body = await self.body(request)
            return JSONResponse(position_view(self.read_position(body)))
        except DdcardsError as exc:
            return error_response(exc)

    async def solve(self, request: Request) -> Response:
        try:
            body = await self.body(request)
            pos = self.read_position(body)
        except DdcardsError as exc:
            return error_response(exc)
        search = str(body.get("search") or "")[:MAX_SEARCH_ID]
        token = CancelToken()
        if search:
            with self._lock:
                self._searches[search] = token
                if search in self._stopped_early:
                    del self._stopped_early[search]
                    token.cancel()

        def work() -> dict[str, Any]:
            res = self.solver().solve(pos, mode="all", timeout=self.timeout, cancel=token, threads=self.threads)
            session = pos.session()
            return dict(res.to_dict(), verdict=session.verdict(res.value, res.won, res.value_kind))

        try:
            out = await anyio.to_thread.run_sync(work, limiter=self.limiter)
        except SearchCancelled:
            return JSONResponse({"stopped": "cancelled", "search": search})
        except SearchTimeout:
            return JSONResponse({"stopped": "timeout", "search": search, "timeout": self.timeout})
        except DdcardsError as exc:
            # what only the search finds wrong (Prší's horizon too large for its state space)
            return error_response(exc)
        finally:
            if search:
                with self._lock:
                    if self._searches.get(search) is token:
                        del self._searches[search]
        return JSONResponse(dict(out, search=search))

    async def stop(self, request: Request) -> Response:
        try:
            body = await self.body(request)
        except DdcardsError as exc:
            return error_response(exc)
        search = str(body.get("search") or "")[:MAX_SEARCH_ID]
        with self._lock:
            token = self._searches.get(search)
            if token is None and search:
                self._stopped_early[search] = None
                while len(self._stopped_early) > MAX_STOPPED_EARLY:
                    self._stopped_early.popitem(last=False)
        if token is not None:
            token.cancel()
        return JSONResponse({"search": search, "stopped": token is not None})


def create_app(**kwargs: Any) -> BoardApp:
    """The board as an ASGI app; keywords: tt_mb, timeout (seconds per search), workers, position,
    threads (each search's)."""
    return BoardApp(**kwargs)
