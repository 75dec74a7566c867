"""What every game module provides to the generic API.

A game module is thin: it validates a position document into a *setup*,
builds the C board the search core runs on, names moves, explains why a move
is illegal, and turns the end of a line of play into scores and a settlement.
The search, the table and the bookkeeping are shared (ddcards._core).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class OptionInfo:
    """A variant a request may switch on (RULES.md: "Variant" items)."""

    name: str
    type: str            # "bool" | "int" | "str"
    default: Any
    description: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    """What a game offers: contracts, objectives per contract, options."""

    name: str
    title: str
    seats: tuple[int, ...]
    contracts: tuple[str, ...]
    objectives: Mapping[str, tuple[str, ...]]
    options: tuple[OptionInfo, ...]
    aliases: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()
    value_doc: str = ""

    def option(self, name: str) -> OptionInfo | None:
        for opt in self.options:
            if opt.name == name:
                return opt
        return None


@dataclass
class LineSummary:
    """Scores and outcome at the end of a line of play."""

    scores: dict[str, int]
    tricks: dict[str, int]
    won: bool
    settlement: list[int]
    outcomes: dict[str, bool] = field(default_factory=dict)


class Session(ABC):
    """A deal replayed to a position, on a C board the core can search.

    Sessions are mutable and cheap; the immutable Position makes a fresh one
    whenever it needs to search or look ahead.
    """

    board: Any            # a ddcards._core.search.Board subclass
    history: list[str]
    trick_size: int | None = None      # cards per trick (None: not a trick game)
    side_names: tuple[str, ...] = ()
    value_owner: str = "the maximising side"   # whose view values are from, for people
    suit_names: tuple[str, ...] = ()   # native names of S H D C where the deck is German-suited

    def describe(self) -> dict[str, Any]:
        """What is left, for display: {"hands": [...], "trick": [...], ...}."""
        return {}

    def seat_role(self, seat: int) -> str:
        return ""

    def score(self) -> dict[str, int]:
        """What the history has scored so far, by side name (card points, tricks, ...)."""
        return self.summary((), 0).scores      # the end of the empty line is here (a game may say more)

    def view(self) -> dict[str, Any]:
        """Everything a viewer shows of this position, from the hooks above.

        describe() plus each seat's role, the seat to move, the score so far
        and what a viewer needs to lay the game out; the HTML report and the
        analysis board render a game from this alone.
        """
        shown = self.describe()
        seats = len(shown.get("hands", ()))
        return dict(shown, roles=[self.seat_role(seat) for seat in range(seats)],
                    to_move=None if self.over else self.to_move, score=self.score(),
                    trick_size=self.trick_size, sides=list(self.side_names), value_owner=self.value_owner,
                    suit_names=list(self.suit_names))

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        """A few words on the outcome for people, e.g. "declarer wins"."""
        if value_kind == "outcome":
            return "made" if won else "defeated"
        return f"{self.value_owner} wins" if won else f"{self.value_owner} loses"

    @property
    @abstractmethod
    def to_move(self) -> int: ...

    @abstractmethod
    def legal_moves(self) -> list[str]: ...

    @abstractmethod
    def play(self, token: str) -> None:
        """Play one action given as notation; raise IllegalPlayError if it is not legal."""

    @abstractmethod
    def move_name(self, move: int) -> str: ...

    @abstractmethod
    def move_code(self, token: str) -> int: ...

    def move_order(self, move: int) -> tuple[int, ...]:
        """Sort key for listing moves to people (the game's natural order)."""
        return (move,)

    @abstractmethod
    def is_max(self, seat: int) -> bool:
        """Does `seat` play for the side whose value is maximised?"""

    @abstractmethod
    def summary(self, line: Sequence[int], value: int) -> LineSummary:
        """Play `line` (move codes) from here, read the end, undo; `value` is the solved value."""

    @property
    @abstractmethod
    def over(self) -> bool: ...


class Game(ABC):
    info: GameInfo

    @abstractmethod
    def parse(self, doc: Mapping[str, Any]) -> Any:
        """Validate `doc` (all but the history's legality) into a setup; raise DdcardsError."""

    @abstractmethod
    def replay(self, setup: Any) -> Session:
        """A session at the position the setup's history reaches; IllegalPlayError if it breaks a rule."""

    def session(self, doc: Mapping[str, Any]) -> Session:
        return self.replay(self.parse(doc))

    @abstractmethod
    def normalise(self, setup: Any) -> dict[str, Any]:
        """The setup as a position document in canonical notation."""
