"""The local analysis board: ``ddcards board`` (needs the extra ``ddcards[board]``).

A small Starlette app on uvicorn, bound to 127.0.0.1 unless told otherwise:
paste or load a position, see every legal card's exact value, play cards
forward and back and try other lines; a long search can be stopped.  The web
layer calls the Python API only (``ddcards.Position``, ``Solver.solve``,
``Session.view()``): see :mod:`ddcards.board.app`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ddcards.board.app import BoardApp

__all__ = ["MAX_WORKERS", "create_app"]

#: The most searches the board runs at once (each holds a table of its own).
MAX_WORKERS = 256


def create_app(**kwargs: Any) -> BoardApp:
    """The board as an ASGI app; keywords: tt_mb, timeout, workers, position, threads (see BoardApp).

    The web stack (Starlette) is imported only here, so ``import ddcards.board`` works
    without the extra.
    """
    from ddcards.board.app import create_app as create
    return create(**kwargs)
