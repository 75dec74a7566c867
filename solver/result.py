"""Results of a solve and of a play analysis (RULES.md §0 result document)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MoveValue:
    """A legal move and its value (None when the mode only asked whether it is optimal)."""

    move: str
    value: int | None
    optimal: bool
    distance: int | None = None        # Prší: plies to the end the move forces (None: none forced)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "value": self.value, "optimal": self.optimal, "distance": self.distance}


@dataclass(frozen=True)
class Result:
    """The solved value of a position and how to get it.

    ``value`` is from the point of view of the maximising side (Mariáš: the
    declarer).  ``scores``, ``tricks``, ``won``, ``settlement`` and
    ``outcomes`` describe the end of the principal variation ``pv``.
    """

    game: str
    mode: str
    value: int
    value_kind: str                    # "points" or "outcome" (+1/-1)
    to_move: int | None
    optimal_moves: list[str]
    moves: list[MoveValue]
    pv: list[str]
    scores: dict[str, int]
    tricks: dict[str, int]
    won: bool
    settlement: list[int]
    outcomes: dict[str, bool] = field(default_factory=dict)
    nodes: int = 0
    elapsed: float = 0.0
    position: dict[str, Any] = field(default_factory=dict)
    # Prší: plies from here to the end the value forces (None: none within the horizon) and the
    # horizon searched, in plies (None: the game is searched to its end, or Prší's exact analysis).
    distance: int | None = None
    horizon: int | None = None

    @property
    def best_move(self) -> str | None:
        return self.optimal_moves[0] if self.optimal_moves else None

    @property
    def move_values(self) -> dict[str, int | None]:
        return {m.move: m.value for m in self.moves}

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "mode": self.mode,
            "value": self.value,
            "value_kind": self.value_kind,
            "to_move": self.to_move,
            "optimal_moves": list(self.optimal_moves),
            "moves": [m.to_dict() for m in self.moves],
            "pv": list(self.pv),
            "scores": dict(self.scores),
            "tricks": dict(self.tricks),
            "won": self.won,
            "settlement": list(self.settlement),
            "outcomes": dict(self.outcomes),
            "nodes": self.nodes,
            "elapsed_ms": round(self.elapsed * 1000, 3),
            "distance": self.distance,
            "horizon": self.horizon,
        }


@dataclass(frozen=True)
class AnalysisStep:
    """One recorded action: the value before and after it, and what it cost the mover."""

    ply: int
    seat: int
    move: str
    value_before: int
    value_after: int
    best_moves: list[str]
    cost: int
    mistake: bool

    def to_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "seat": self.seat, "move": self.move,
                "value_before": self.value_before, "value_after": self.value_after,
                "best_moves": list(self.best_moves), "cost": self.cost, "mistake": self.mistake}


@dataclass(frozen=True)
class Analysis:
    """A recorded deal, card by card."""

    game: str
    value_kind: str
    initial_value: int
    final_value: int
    steps: list[AnalysisStep]
    nodes: int = 0
    elapsed: float = 0.0

    @property
    def mistakes(self) -> list[AnalysisStep]:
        return [s for s in self.steps if s.mistake]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "value_kind": self.value_kind,
            "initial_value": self.initial_value,
            "final_value": self.final_value,
            "steps": [s.to_dict() for s in self.steps],
            "mistakes": [s.ply for s in self.mistakes],
            "nodes": self.nodes,
            "elapsed_ms": round(self.elapsed * 1000, 3),
        }
