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
    value_legend: str = "+1 made, -1 defeated"  # what outcome values mean, for people

    def describe(self) -> dict[str, Any]:
        """What is left, for display: {"hands": [...], "trick": [...], ...}."""
        return {}

    def seat_role(self, seat: int) -> str:
        return ""

    def score(self) -> dict[str, int]:
        """What the history has scored so far, by side name (card points, tricks, ...)."""
        return {}

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        """A few words on the outcome for people, e.g. "declarer wins"."""
        if value_kind == "outcome":
            return "made" if won else "defeated"
        return f"{self.value_owner} wins" if won else f"{self.value_owner} loses"

    # -- searching: the API asks these; the defaults search the C board with
    # the core's drivers and report the core's values as they are.  A game
    # whose search needs its own driver (Prší: the horizon set for each
    # search, an exact analysis without one) or whose values are coded for
    # the search (Prší: the distance inside the value) overrides them.

    @property
    def value_kind(self) -> str:
        """"points" (a margin) or "outcome" (+1 / -1, Prší also 0)."""
        return "points" if self.board.exact else "outcome"

    horizon: int | None = None       # plies the values look ahead (None: to the end)

    def search(self, searcher: Any, mode: int, cancel: Any, timeout: float | None,
               want_pv: bool = True) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """Search this position: (value, [(move, value or None)], pv, nodes), in search units."""
        return searcher.solve(self.board, mode, cancel, timeout, want_pv=want_pv)

    def search_value(self, searcher: Any, cancel: Any, timeout: float | None) -> int:
        """The value alone, in search units."""
        return searcher.value(self.board, cancel, timeout)

    def action_value(self, searcher: Any, before: int, optimal: bool, after: int, cancel: Any,
                     timeout: float | None) -> tuple[int, int]:
        """(value, nodes): the value, in the search of the position before it, of the action just
        played, given the value `before` it, whether it was optimal and the value `after` it
        (searched from the new position).  The same as `after` wherever a position's value does
        not depend on where the search started."""
        return after, 0

    def reported(self, value: int) -> int:
        """A value in search units as the result reports it."""
        return value

    def distance(self, value: int) -> int | None:
        """Plies to the end the value forces (None: the game has no such measure, or none is forced)."""
        return None

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
