"""Results of a solve and of a play analysis (docs/RULES.md §0.9, §0.10).

Every result is a frozen dataclass with typed fields, and ``to_dict()``
gives its JSON document (what ``ddcards solve --json`` prints).  Values are
from the maximising side's view (Mariáš: the declarer; Klaverjas: the playing
team): ``value_kind`` ``"points"`` for a margin in points, ``"outcome"`` for
+1 (made) / -1 (not made), or 0 where no side achieves it (a Mariasz race
without a claim, Prší with no end forced within the horizon), ``"money"`` for
the declarer's settlement.  Plies count from 0, as ``Position.played`` does.
"""
from __future__ import annotations

import copy
import html
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

__all__ = ["Mode", "ValueKind", "MoveValue", "Result", "AnalysisStep", "Analysis", "SearchProgress",
           "AnalysisProgress", "spoken", "value_jumps", "step_distances"]


def step_distances(step: Mapping[str, Any]) -> dict[str, int]:
    """Prší: how soon each action of an analysis step (``AnalysisStep.to_dict()``) forces the end,
    by action, where known: every legal action's in mode all (its ``moves``), else the action
    played and the best ones (``distance``, ``best_distance``)."""
    moves = step.get("moves") or []
    if moves:
        return {m["move"]: m["distance"] for m in moves if m.get("distance") is not None}
    known = {}
    if step.get("best_distance") is not None:
        known = {move: step["best_distance"] for move in step.get("best_moves") or []}
    if step.get("distance") is not None:
        known[step["move"]] = step["distance"]
    return known


def value_jumps(steps: list[tuple[int, int, int]], final_value: int) -> list[tuple[int, int, int | None, int]]:
    """Where an analysis's value moves with no action's cost: a search bounded by its horizon
    (Prší, docs/RULES.md §4.9) sees further from the next position.  From each step's (ply,
    value_before, value_after): (the ply, its value after, the next ply, the value before that),
    and (the last ply, its value after, None, the final value) where those differ."""
    jumps: list[tuple[int, int, int | None, int]] = [
        (ply, after, following, before_next)
        for (ply, _, after), (following, before_next, _) in zip(steps, steps[1:]) if before_next != after]
    if steps and steps[-1][2] != final_value:
        jumps.append((steps[-1][0], steps[-1][2], None, final_value))
    return jumps


def spoken(key: str) -> str:
    """A key of ``scores``, ``tricks`` or ``outcomes`` as words, for people to read: the keys
    are identifiers ('seat0_out', 'pit_other'), the words 'seat 0 out', 'pit other'."""
    return re.sub(r"\b(seat|team)(\d)", r"\1 \2", key).replace("_", " ")

#: How a value is measured: a margin in points, +1/-1 for made/not made, or money (a settlement).
ValueKind = Literal["points", "outcome", "money"]


class Mode(str, Enum):
    """Which moves a solve reports, as in DDS."""

    BEST = "best"        # the value and one optimal move
    OPTIMAL = "optimal"  # the value and every optimal move
    ALL = "all"          # the value of every legal move

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SearchProgress:
    """How far a search under way got (``Solver.progress_now``), or a stopped one
    (``SearchAborted.progress``), while it shares out the moves of the player to move (the root
    split: every search of a position with two or more distinct moves, Prší's exact analysis
    aside).

    ``answered`` of ``moves`` first moves are answered (equivalent moves count once).  Once a
    move is known to reach a value, ``value`` is the best such value so far and ``move`` the
    move: the position's value is at least ``value`` when the maximising side is to move
    (``at_least``), at most ``value`` otherwise.  The move's own value may be better still: it
    comes from the move's exact value or, before that is known, from the tests its search has
    passed (a fresh 36-card Mariasz deal's first move takes minutes, its first bound seconds).
    """

    answered: int
    moves: int
    value: int | None
    move: str | None
    at_least: bool

    def __str__(self) -> str:
        # "distinct": equivalent cards are one move here (7 of a hand of 10, say)
        text = f"{self.answered} of {self.moves} distinct first moves answered"
        if self.value is not None:
            text += f", value {'>=' if self.at_least else '<='} {self.value:+d} ({self.move})"
        return text


@dataclass(frozen=True)
class AnalysisProgress:
    """How far an analysis under way got (``Solver.analysis_now``): ``analysed`` of its
    ``actions`` recorded actions (those from ``played[from_ply]``) have their step; ``value`` is
    the value before the next of them (after the record once every one is analysed), None until
    the first search has found it (a fresh 36-card Mariasz deal's value comes a minute or more
    before its first step, which needs the search after the first action too)."""

    analysed: int
    actions: int
    from_ply: int = 0
    value: int | None = None

    @property
    def value_where(self) -> str:
        """Where ``value`` is the value, in words: "before played[k]", or "after the record"."""
        ply = self.from_ply + self.analysed
        return f"before played[{ply}]" if self.analysed < self.actions else "after the record"

    def __str__(self) -> str:
        actions = f"{self.actions} recorded action{'s' if self.actions != 1 else ''}"
        return f"{self.analysed} of the {actions}{f' from played[{self.from_ply}]' if self.from_ply else ''} analysed"


@dataclass(frozen=True)
class MoveValue:
    """A legal move and its value (None when the mode only asked whether it is optimal)."""

    move: str
    value: int | None
    optimal: bool
    distance: int | None = None        # Prší: plies to the end the move forces (None: none forced)

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form: ``{"move", "value", "optimal", "distance"}`` (an entry of a result's ``moves``)."""
        return {"move": self.move, "value": self.value, "optimal": self.optimal, "distance": self.distance}


@dataclass(frozen=True)
class Result:
    """The solved value of a position and how to get it.

    ``value`` is from the point of view of the maximising side (Mariáš: the
    declarer; ``value_owner`` says whose it is in words).  ``optimal_moves``
    are the moves that keep the value (Prší: the value and its ``distance``,
    the plies to the end it forces, so the winner's quickest and the loser's
    slowest); ``moves`` every legal move with its value as the mode asks
    (``move_values``: the same as a dict).  ``scores``, ``tricks``, ``won``,
    ``settlement``, ``outcomes`` and ``parts`` (Mariáš's announced parts)
    describe the end of the principal variation ``pv``; ``horizon`` is the
    plies Prší searched; ``position`` is the position solved, as a document.
    """

    # Its lists and dicts make it no dict key: say so plainly ("unhashable type: 'Result'"),
    # not through the first list field the generated hash would meet.
    __hash__ = None  # type: ignore[assignment]

    game: str
    mode: Mode
    value: int
    value_kind: ValueKind
    to_move: int | None
    optimal_moves: list[str]
    moves: list[MoveValue]
    pv: list[str]
    scores: dict[str, int]
    tricks: dict[str, int]
    won: bool
    settlement: list[int]
    outcomes: dict[str, bool] = field(default_factory=dict)
    # How the search went, not what it found: two results of one position are equal whatever
    # their counts and times.
    nodes: int = field(default=0, compare=False)
    elapsed: float = field(default=0.0, compare=False)
    position: dict[str, Any] = field(default_factory=dict)
    # Prší: plies from here to the end the value forces (None: none within the horizon) and the
    # horizon searched, in plies (None: the game is searched to its end, or Prší's exact analysis).
    distance: int | None = None
    horizon: int | None = None
    # A game of several parts (Mariáš: a Hra with Sedma and/or Kilo announced): each part's
    # outcome on the pv, {"won", "stake", "money"}; empty otherwise (and left out of to_dict).
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Whose value it is, in words: "declarer", "playing team", "seat 0" (Prší: options.player).
    value_owner: str = ""
    # What the value means, in words: an outcome's legend ("+1 made, -1 defeated"), or what a
    # margin measures ("the declarer's final points - the defenders' ..."; docs/RULES.md §0.9).
    value_meaning: str = ""

    @property
    def best_move(self) -> str | None:
        """One optimal move: the one the principal variation ``pv`` starts with, so that the move
        and the line agree (None when nothing is left to play).  Every optimal move is in
        ``optimal_moves``; mode best searches for one only, which may be another of them."""
        if self.pv and self.pv[0] in self.optimal_moves:
            return self.pv[0]
        return self.optimal_moves[0] if self.optimal_moves else None

    @property
    def move_values(self) -> dict[str, int | None]:
        """``moves`` as a dict: each listed move's value (None where the mode did not ask it)."""
        return {m.move: m.value for m in self.moves}

    def __str__(self) -> str:
        """The answer as ``ddcards solve`` prints it: the table, the value in words, every move's
        value, the line and the settlement (``repr()`` and ``to_dict()`` give the fields).  A
        Result made by hand, without the ``position`` it answers, shows its ``repr()``."""
        if not self.position:
            return repr(self)
        from ddcards.cli.display import print_result
        return _printed(print_result, self, self.position)

    def _repr_html_(self) -> str:
        """A notebook's view (Jupyter, IPython): the answer as ``str()`` prints it."""
        return preformatted(str(self))

    def to_dict(self) -> dict[str, Any]:
        """The result document (docs/RULES.md §0.9), as ``ddcards solve --json`` prints it: ``parts``
        only where there are any (a Mariáš Hra with Sedma or Kilo announced), ``elapsed`` as ``elapsed_ms``."""
        return {
            "game": self.game,
            "mode": self.mode.value,
            "value": self.value,
            "value_kind": self.value_kind,
            "value_owner": self.value_owner,
            "value_meaning": self.value_meaning,
            "to_move": self.to_move,
            "optimal_moves": list(self.optimal_moves),
            "moves": [m.to_dict() for m in self.moves],
            "pv": list(self.pv),
            "scores": dict(self.scores),
            "tricks": dict(self.tricks),
            "won": self.won,
            "settlement": list(self.settlement),
            "outcomes": dict(self.outcomes),
            **({"parts": {name: dict(part) for name, part in self.parts.items()}} if self.parts else {}),
            "nodes": self.nodes,
            "elapsed_ms": round(self.elapsed * 1000, 3),
            "distance": self.distance,
            "horizon": self.horizon,
        }


@dataclass(frozen=True)
class AnalysisStep:
    """One recorded action: the value before and after it, and what it cost the mover.

    ``ply`` is the action's index in ``played`` (0-based); ``cost`` is how much
    worse the value got for the mover's side (0 for an optimal action).
    """

    # Its lists and dicts make it no dict key: say so plainly ("unhashable type: 'AnalysisStep'"),
    # not through the first list field the generated hash would meet.
    __hash__ = None  # type: ignore[assignment]

    ply: int
    seat: int
    move: str
    value_before: int
    value_after: int
    best_moves: list[str]
    cost: int
    mistake: bool                      # it cost something (cost > 0)
    # What the report and the analysis board show of each step:
    changes_outcome: bool = False      # it turned the outcome (the game's verdict) against the mover
    outcome: str = ""                  # the game's verdict on the value after it ("declarer wins")
    moves: list[MoveValue] = field(default_factory=list)   # every legal move before it (analyse mode "all")
    trick_winner: int | None = None    # the seat that won the trick this action completed
    score: dict[str, int] = field(default_factory=dict)    # what the history has scored after it
    # Prší: the plies to the end the action forces (its MoveValue.distance) and those the best
    # actions force (the value before's); None where no end is forced, and in the other games.
    distance: int | None = None
    best_distance: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The step as an entry of the analysis document's ``steps`` (docs/RULES.md §0.10)."""
        return {"ply": self.ply, "seat": self.seat, "move": self.move,
                "value_before": self.value_before, "value_after": self.value_after,
                "best_moves": list(self.best_moves), "cost": self.cost, "mistake": self.mistake,
                "changes_outcome": self.changes_outcome, "outcome": self.outcome,
                "moves": [m.to_dict() for m in self.moves],
                "trick_winner": self.trick_winner, "score": dict(self.score),
                "distance": self.distance, "best_distance": self.best_distance}


@dataclass(frozen=True)
class Analysis:
    """A recorded deal, card by card: ``steps`` (an :class:`AnalysisStep` for each recorded
    action), the value before the first and after the last, ``mistakes`` (the steps that cost
    value) and ``outcome_mistakes`` (those that turned the outcome).  In ``to_dict()``, the
    analysis document, ``mistakes`` and ``outcome_mistakes`` are the steps' plies."""

    # Its lists and dicts make it no dict key: say so plainly ("unhashable type: 'Analysis'"),
    # not through the first list field the generated hash would meet.
    __hash__ = None  # type: ignore[assignment]

    game: str
    value_kind: ValueKind
    initial_value: int
    final_value: int
    steps: list[AnalysisStep]
    nodes: int = field(default=0, compare=False)         # (as Result's: not compared)
    elapsed: float = field(default=0.0, compare=False)
    # What the report and the analysis board lay out (the deal, the verdicts, the continuation):
    mode: Mode = Mode.OPTIMAL          # ALL: every step lists every legal move's value
    deal: dict[str, Any] = field(default_factory=dict)   # the start as Session.view() shows it + "position"
    initial_outcome: str = ""          # the game's verdict on the value at the start, and at the end
    final_outcome: str = ""
    final: Result | None = None        # the solve after the last action: continuation, scores, settlement
    from_ply: int = 0                  # the first action analysed (Solver.analyse's from_ply): steps[0].ply

    @property
    def value_owner(self) -> str:
        """Whose value every step's is (Prší: the player who started), as the deal's view says."""
        return str(self.deal.get("value_owner", ""))

    @property
    def value_meaning(self) -> str:
        """What this deal's values mean, in words (an outcome's legend, or what its margin
        measures), as the deal's view says."""
        return str(self.deal.get("value_meaning", ""))

    @property
    def mistakes(self) -> list[AnalysisStep]:
        """The actions that cost value (``to_dict()`` lists their plies)."""
        return [s for s in self.steps if s.mistake]

    @property
    def outcome_mistakes(self) -> list[AnalysisStep]:
        """The actions that changed the outcome (a subset of ``mistakes``)."""
        return [s for s in self.steps if s.changes_outcome]

    def __str__(self) -> str:
        """The analysis as ``ddcards analyse`` prints it: a row per recorded action (value before
        and after, cost, the best moves, the mistakes marked), the mistakes, the final value and
        the settlement (``repr()`` and ``to_dict()`` give the fields).  An Analysis made by hand,
        without the recorded position in ``deal``, shows its ``repr()``."""
        position = self.deal.get("position")
        if not position:
            return repr(self)
        from ddcards.cli.display import print_analysis
        return _printed(print_analysis, self, position)

    def _repr_html_(self) -> str:
        """A notebook's view (Jupyter, IPython): the analysis as ``str()`` prints it."""
        return preformatted(str(self))

    def to_dict(self) -> dict[str, Any]:
        """The analysis document (docs/RULES.md §0.10), as ``ddcards analyse --json`` prints it:
        ``mistakes`` and ``outcome_mistakes`` as the steps' plies, ``final`` as a result document."""
        return {
            "game": self.game,
            "value_kind": self.value_kind,
            "value_owner": self.value_owner,
            "value_meaning": self.value_meaning,
            "initial_value": self.initial_value,
            "final_value": self.final_value,
            "steps": [s.to_dict() for s in self.steps],
            "mistakes": [s.ply for s in self.mistakes],
            "nodes": self.nodes,
            "elapsed_ms": round(self.elapsed * 1000, 3),
            "mode": str(self.mode),
            "outcome_mistakes": [s.ply for s in self.outcome_mistakes],
            "initial_outcome": self.initial_outcome,
            "final_outcome": self.final_outcome,
            "deal": copy.deepcopy(dict(self.deal)),      # the caller's to change: every call a new one
            "final": None if self.final is None else self.final.to_dict(),
            "from_ply": self.from_ply,
        }


def _printed(printer: Any, answer: Any, position: Mapping[str, Any]) -> str:
    """`answer` (a Result or an Analysis) as the command line's `printer` writes it for the
    position document it answers."""
    from ddcards.position import Position
    out = io.StringIO()
    printer(answer, Position.from_dict(position), out)
    return out.getvalue().rstrip("\n")


def preformatted(text: str) -> str:
    """`text` as a notebook shows it: escaped, in its lines and columns (a notebook's view of a
    Position, Result or Analysis, where ``repr()`` stays what rebuilds it or lists its fields)."""
    return f"<pre>{html.escape(text)}</pre>"
