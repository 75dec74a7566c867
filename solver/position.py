"""Position: a fully known deal and the actions played so far (RULES.md §0)."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ddcards._jsonio import decode_utf8, loads, shown, token_text
from ddcards.errors import NotationError
from ddcards.games import get_game
from ddcards.games.base import Game, Session


class Position:
    """An immutable, validated position.

    >>> pos = Position.from_dict({"game": "marias", "contract": "hra", "trump": "H",
    ...     "hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC",
    ...     "played": ["QH"]})
    >>> pos.to_move, pos.legal_moves()
    (1, ['TH'])
    """

    __slots__ = ("_game", "_setup", "_doc", "_to_move", "_legal", "_over", "_spare")

    def __init__(self, doc: Mapping[str, Any]):
        if not isinstance(doc, Mapping):
            raise NotationError(f"a position is a JSON object, not {type(doc).__name__}",
                                token=token_text(doc), rule="position document")
        game: Game = get_game(doc.get("game"))
        setup = game.parse(doc)
        session = game.replay(setup)          # checks every action of the history
        self._game = game
        self._setup = setup
        self._doc = game.normalise(setup)
        self._to_move = None if session.over else session.to_move
        self._legal = tuple(session.legal_moves()) if not session.over else ()
        self._over = session.over
        # The first session() hands out the one validation built (a replay
        # less per solve); list.pop() makes that safe across threads.
        self._spare = [session]

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Position:
        return cls(doc)

    @classmethod
    def from_json(cls, text: str | bytes) -> Position:
        """A position from its JSON document (text, or UTF-8 bytes).

        The JSON is read strictly (ddcards._jsonio): no NaN, no key twice, limits on
        nesting and number size; every failure is a NotationError naming the place.
        """
        if isinstance(text, (bytes, bytearray)):
            text = decode_utf8(bytes(text), "a position document")
        if not isinstance(text, str):
            raise NotationError(f"a position document is JSON text, not {type(text).__name__} {shown(text)}",
                                token=token_text(text), rule="position document")
        return cls(loads(text, "a position document"))

    def to_dict(self) -> dict[str, Any]:
        """The position document in canonical notation."""
        return json.loads(json.dumps(self._doc))

    def to_json(self) -> str:
        return json.dumps(self._doc, ensure_ascii=False)

    @property
    def game(self) -> str:
        return self._game.info.name

    @property
    def played(self) -> tuple[str, ...]:
        return tuple(self._doc.get("played", ()))

    @property
    def to_move(self) -> int | None:
        """The seat to move (None once the deal is over)."""
        return self._to_move

    @property
    def over(self) -> bool:
        """True when every card has been played."""
        return self._over

    def legal_moves(self) -> list[str]:
        return list(self._legal)

    def play(self, move: str) -> Position:
        """The position after `move` (validated)."""
        doc = dict(self._doc)
        doc["played"] = list(self.played) + [move]
        return Position(doc)

    def start(self) -> Position:
        """The same deal with nothing played."""
        doc = dict(self._doc)
        doc["played"] = []
        return Position(doc)

    def session(self) -> Session:
        """A fresh mutable session at this position (for the solver)."""
        try:
            return self._spare.pop()
        except IndexError:
            return self._game.replay(self._setup)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and other._doc == self._doc

    def __hash__(self) -> int:
        return hash(json.dumps(self._doc, sort_keys=True))

    def __repr__(self) -> str:
        return f"Position.from_json({self.to_json()!r})"
