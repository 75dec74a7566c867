"""A search's raw answers in the API's terms: each mode's search code, and the (move, value)
pairs as MoveValues."""
from __future__ import annotations

from ddcards._core.search import MODE_ALL, MODE_BEST, MODE_OPTIMAL
from ddcards.games.base import Session
from ddcards.result import Mode, MoveValue

MODE_CODE = {Mode.BEST: MODE_BEST, Mode.OPTIMAL: MODE_OPTIMAL, Mode.ALL: MODE_ALL}


def move_values(session: Session, raw: list[tuple[int, int | None]], value: int, mode: Mode) -> list[MoveValue]:
    """The search's (move, value) pairs as MoveValues in the game's order; optimal by the
    search's own values (Prší: the fastest win, the longest loss), reported in the game's terms.

    As each mode promises (docs/RULES.md §0.9), whatever else the search learnt on the way (an
    outcome's failed test is the other outcome, so a Betl's root split knows some losing moves'
    values): mode best lists the move reported alone, mode optimal values only optimal moves."""
    ordered = sorted(raw, key=lambda mv: session.move_order(mv[0]))
    if mode is Mode.BEST:
        ordered = [mv for mv in ordered if mv[1] == value][:1]
    listed: list[tuple[int, int | None]] = []
    for move, v in ordered:
        listed.append((move, None if mode is Mode.OPTIMAL and v != value else v))
    return [MoveValue(session.move_name(m), None if v is None else session.reported(v), v == value,
                      None if v is None else session.distance(v)) for m, v in listed]
