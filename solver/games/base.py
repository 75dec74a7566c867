"""What every game module provides to the generic API.

A game module is thin: it validates a position document into a *setup*,
builds the C board the search core runs on, names moves, explains why a move
is illegal, and turns the end of a line of play into scores and a settlement.
The search, the table and the bookkeeping are shared (ddcards._core).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

from ddcards.notation import Card
from ddcards.result import SearchProgress, ValueKind

#: The table (MiB) of a game that asks for no other (GameInfo.table_mb), where a Solver sized
#: per game starts.
DEFAULT_TABLE_MB = 2

#: The type of an option's value.
OptionType = Literal["bool", "int", "str"]
#: What a whole-number option is by default (OptionInfo.meaning): a stake, 0 to 1,000,000.
STAKE = "a stake"


@dataclass(frozen=True)
class OptionInfo:
    """A variant a request may switch on (docs/RULES.md §0.6 rule 4; Mariáš's in §1.9).

    ``type``: "bool", "int" or "str" (one of ``choices``): ``OptionType``; ``default``: its value when
    left out (None: the option has a default of its own, which ``description`` says, such as
    Prší's ``player``, the player to move). ``minimum``, ``maximum`` (inclusive) and ``meaning``
    say what a whole-number option takes: a stake, 0 to 1,000,000, unless given. Other options
    have none (None).
    """

    name: str
    type: OptionType
    default: bool | int | str | None
    description: str
    choices: tuple[str, ...] = ()
    # The range of a whole-number option (a stake by default: docs/RULES.md §0.6 rule 5).
    minimum: int | None = None
    maximum: int | None = None
    # What a whole-number option's value is, for messages ("the plies searched"): a stake by default.
    meaning: str | None = None

    def __post_init__(self) -> None:
        if self.type != "int":
            if (self.minimum, self.maximum, self.meaning) != (None, None, None):
                raise ValueError(f"option {self.name}: only a whole-number option has a range and a meaning")
            return
        for name, value in (("minimum", 0), ("maximum", 1_000_000), ("meaning", STAKE)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)     # (frozen: set once, as it is made)


class ReadOnlyDict(dict[str, tuple[str, ...]]):
    """A dict that refuses every change (TypeError), as a mappingproxy does, but is still a dict:
    ``dataclasses.asdict`` and ``json`` take it as one (a mappingproxy is deep-copied by asdict,
    and cannot be).  Copies and pickles are read-only dicts too."""

    def __new__(cls, *args: Any, **kwargs: Any) -> ReadOnlyDict:
        made = super().__new__(cls)
        dict.__init__(made, *args, **kwargs)     # filled here, once: __init__ changes nothing
        return made

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass                                      # (read.__init__({...}) would refill a dict's)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"'{type(self).__name__}' object does not support item assignment")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> ReadOnlyDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ReadOnlyDict:
        return self      # (its values are tuples of texts: nothing in it can change)


@dataclass(frozen=True)
class GameInfo:
    """What a game offers: contracts, objectives per contract, options.

    ``seats``: the player counts it is played with; ``sides``: the names of the
    sides that scores and results are given for (the first is the side whose
    value is maximised) in the game's standard form (a variant with other sides,
    as Mariasz's Kiks or three players, names its own in its results: ``value_owner``
    says whose the value is); ``value_doc``: what a value means, in a line;
    ``table_mb``: the transposition table its searches get by default (MiB);
    ``table_mb_max``: the most a position of it asks for (``Game.table_mb``).
    """

    name: str
    title: str
    seats: tuple[int, ...]
    contracts: tuple[str, ...]
    objectives: Mapping[str, tuple[str, ...]]
    options: tuple[OptionInfo, ...]
    aliases: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()
    value_doc: str = ""
    # The transposition table (MiB) a Solver sized per game gives this game's searches.  2 MiB
    # stays in a core's L2 cache: fastest for searches of 10^4-10^5 nodes, where a larger table
    # only adds cache misses (benchmarks/RESULTS.md); a game of longer searches asks for more.
    table_mb: int = DEFAULT_TABLE_MB
    # The most any position of the game asks for (Game.table_mb): a game whose searches grow
    # with the position (Mariasz's with the stock) asks for more early in a deal.  0: table_mb.
    table_mb_max: int = 0

    def __post_init__(self) -> None:
        # Frozen means frozen: every module shares this one object (find_game, Position.game_info)
        # and validation reads `objectives` from it, so a caller's edit must not reach it.
        object.__setattr__(self, "objectives", ReadOnlyDict(
            {contract: tuple(names) for contract, names in self.objectives.items()}))

    def _fields(self, objectives: Any) -> tuple[Any, ...]:
        """Every field's value in order, `objectives` standing for the mapping (which does not
        hash, being a dict)."""
        return tuple(objectives if f.name == "objectives" else getattr(self, f.name) for f in fields(self))

    def __hash__(self) -> int:
        return hash(self._fields(tuple(self.objectives.items())))

    def __reduce__(self) -> tuple[type[GameInfo], tuple[Any, ...]]:
        return (GameInfo, self._fields(dict(self.objectives)))

    @property
    def largest_table_mb(self) -> int:
        """The largest table (MiB) a position of this game gets, sized per game."""
        return max(self.table_mb, self.table_mb_max)

    def option(self, name: str) -> OptionInfo | None:
        """The option called `name` (exactly, as ``options`` lists it), or None if the game has none such."""
        for opt in self.options:
            if opt.name == name:
                return opt
        return None

    def changed_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options whose values are not the game's defaults (what a canonical document keeps)."""
        defaults = {opt.name: opt.default for opt in self.options}
        return {name: value for name, value in options.items() if name not in defaults or value != defaults[name]}


class TrickCard(NamedTuple):
    """A card of the trick on the table and the seat that played it."""

    seat: int
    card: Card


@dataclass(frozen=True)
class Score:
    """What the actions played so far have scored, by side (``Session.side_names``).

    ``points``: each side's points so far, everything that counts included
    (Mariáš Hra: cards, last trick, marriages; Klaverjas: cards, last trick,
    roem, before nat or pit); empty where the contract counts no points
    (Betl, Durch).  ``tricks``: tricks taken by side (empty for a game
    without tricks).  ``parts``: what ``points`` include besides the cards,
    by name, e.g. ``{"marriages": {"declarer": 0, "defenders": 20}}``.
    """

    # Its lists and dicts make it no dict key: say so plainly ("unhashable type: 'Score'"),
    # not through the first list field the generated hash would meet.
    __hash__ = None  # type: ignore[assignment]

    points: dict[str, int] = field(default_factory=dict)
    tricks: dict[str, int] = field(default_factory=dict)
    parts: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"points", "tricks", "parts"}``, each a new dict (parts: a dict by side for each name)."""
        return {"points": dict(self.points), "tricks": dict(self.tricks),
                "parts": {name: dict(by_side) for name, by_side in self.parts.items()}}


@dataclass
class LineSummary:
    """Scores and outcome at the end of a line of play."""

    scores: dict[str, int]
    tricks: dict[str, int]
    won: bool
    settlement: list[int]
    outcomes: dict[str, bool] = field(default_factory=dict)
    # A game of several parts, each won or lost and paid on its own (Mariáš: a Hra with Sedma
    # and/or Kilo announced): by part, {"won": bool, "stake": int, "money": int}.
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)


class Session(ABC):
    """A deal replayed to a position, on a C board the core can search.

    Sessions are mutable and cheap; the immutable Position makes a fresh one
    whenever it needs to search or look ahead.

    Besides the play (the abstract methods), a session answers what a
    :class:`ddcards.Position` shows to people and programs.  Each of these
    *view hooks* has a default, so a game implements what applies to it
    (Mariáš and Klaverjas implement all of them):

    - ``hands()``: the cards each seat holds now (default: none shown);
    - ``current_trick()``: the trick on the table, with the seat of each card
      (default: none, as in a game without tricks such as Prší);
    - ``table()``: anything else in view, by name: the Mariáš talon; a game
      without tricks its top card, named suit, stock or pile there
      (default: nothing);
    - ``score()``: what the history has scored, by side (default: nothing);
    - ``describe()["title"]``: the game for people, "Mariáš hra, trumps H"
      (default: the game's title); the CLI reads the rest of ``describe()``;
    - ``seat_role(seat)``: a seat's part, "declarer" (default: none).

    A Position asks these once, the first time it is shown, on a session at
    its position; a hook may move the board to find its answer (Mariáš's
    ``score`` steps back through the history) if it leaves it as it was.
    """

    board: Any            # a ddcards._core.search.Board subclass
    history: list[str]
    trick_size: int | None = None      # cards per trick (None: not a trick game)
    side_names: tuple[str, ...] = ()
    value_owner: str = "the maximising side"   # whose view values are from, for people
    suit_names: tuple[str, ...] = ()   # native names of S H D C where the deck is German-suited
    value_legend: str = "+1 made, -1 defeated"  # what outcome values mean, for people
    margin_meaning: str = ""           # what a points or money value measures, for people

    def describe(self) -> dict[str, Any]:
        """What is left, for display: {"title": ..., "hands": [...], "trick": [...], ...}."""
        return {}

    @property
    def value_meaning(self) -> str:
        """What this deal's values mean, for people: an outcome's legend, or what its margin
        measures (the game's ``value_doc`` says it for every objective and variant at once)."""
        return self.value_legend if self.value_kind == "outcome" else self.margin_meaning

    @property
    def history_full(self) -> bool:
        """Does the history hold the most actions a position may, so that no action can follow
        although the deal is not over (Prší's 1,748, docs/RULES.md §4.1)?  False in the games
        whose deals end first."""
        return False

    def trick_done(self) -> bool:
        """Did the last action end a trick (its winner leads next)?  A trick game's trick ends
        when the table is cleared; False in a game without tricks and before any action."""
        return self.trick_size is not None and bool(self.history) and not self.describe().get("trick")

    def trick_ends(self, moves: Sequence[str]) -> list[bool]:
        """Which moves of a line played from here end a trick (the trick in progress is finished
        first); none in a game without tricks. A game with actions that are no card of a trick
        (Mariasz's exchange) counts its own."""
        size = self.trick_size
        if not size:
            return [False] * len(moves)
        held = len(self.describe().get("trick") or ())
        return [(held + i + 1) % size == 0 for i in range(len(moves))]

    def line_tricks(self, moves: Sequence[str]) -> list[list[str]]:
        """A line played from here split where its tricks end (`trick_ends`), as ``ddcards solve``
        prints it; one piece in a game without tricks."""
        tricks: list[list[str]] = [[]]
        for move, ends in zip(moves, self.trick_ends(moves)):
            tricks[-1].append(move)
            if ends:
                tricks.append([])
        return [trick for trick in tricks if trick]

    def seat_role(self, seat: int) -> str:
        """A seat's part for people: "declarer", "playing team"..."""
        return ""

    def hands(self) -> Sequence[Sequence[Card]]:
        """The cards each seat holds now, seat by seat, in the game's order within each suit."""
        return ()

    def current_trick(self) -> list[TrickCard]:
        """The cards of the trick in progress, in the order played, with their seats."""
        return []

    def table(self) -> dict[str, Any]:
        """What else is in view, by name, e.g. ``{"talon": (Card, Card)}`` (values: cards,
        tuples of cards, suits, numbers or text)."""
        return {}

    def view(self) -> dict[str, Any]:
        """Everything a viewer shows of this position, from the hooks above.

        describe() plus each seat's role, the seat to move, the score so far
        and what a viewer needs to lay the game out; the HTML report and the
        analysis board render a game from this alone.
        """
        shown = self.describe()
        seats = len(shown.get("hands", ()))
        return dict(shown, roles=[self.seat_role(seat) for seat in range(seats)],
                    to_move=None if self.over else self.to_move, score=self.scores_now(),
                    trick_size=self.trick_size, sides=list(self.side_names), value_owner=self.value_owner,
                    value_meaning=self.value_meaning, suit_names=list(self.suit_names))

    def scores_now(self) -> dict[str, int]:
        """The result document's ``scores`` as they stand after the history (what ``summary``
        reads at the end of the empty line): the score a report shows after each action."""
        return self.summary((), 0).scores

    def score(self) -> Score:
        """What the history has scored so far, by side (see :class:`Score`)."""
        return Score()

    def value_range(self) -> Sequence[int]:
        """The values a search of this deal can report, where they can be wider than a few digits
        (Mariáš's money: stakes up to 1,000,000); () where they are short (points, outcomes)."""
        return ()

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
    def value_kind(self) -> ValueKind:
        """How the values are measured (docs/RULES.md §0.8 rule 4): "points" (a margin),
        "outcome" (+1 / -1, Prší also 0) or "money" (Mariáš's settlement)."""
        return "points" if self.board.exact else "outcome"

    horizon: int | None = None       # plies the values look ahead (None: to the end)

    @property
    def root_progress(self) -> bool:
        """Does the core's root progress (Searcher.root_progress, last_progress) describe this
        position's search?  Yes where `search` is one root search of this position; no where it
        runs several (Prší's exact analysis: searches within horizons, of positions after a move too)."""
        return True

    #: The progress of a search this session makes of several, kept by the session itself where
    #: it knows more than the search under way (Prší: the first moves answered within a shorter
    #: horizon while the others are searched on); read before the core's.  None: the core's.
    own_progress: SearchProgress | None = None

    def search(self, searcher: Any, mode: int, cancel: Any, timeout: float | None,
               want_pv: bool = True, helpers: Sequence[tuple[Any, Any]] = ()
               ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """Search this position: (value, [(move, value or None)], pv, nodes), in search units.
        helpers: (Searcher, board at this position) for each further thread of the search."""
        found: tuple[int, list[tuple[int, int | None]], list[int], int] = searcher.solve(
            self.board, mode, cancel, timeout, want_pv=want_pv, helpers=helpers)
        return found

    def search_value(self, searcher: Any, cancel: Any, timeout: float | None,
                     helpers: Sequence[tuple[Any, Any]] = ()) -> int:
        """The value alone, in search units (helpers: as for `search`)."""
        value: int = searcher.value(self.board, cancel, timeout, helpers=helpers)
        return value

    def action_value(self, searcher: Any, before: int, optimal: bool, after: int, cancel: Any,
                     timeout: float | None) -> tuple[int, int]:
        """(value, nodes): the value, in the search of the position before it, of the action just
        played, given the value `before` it, whether it was optimal and the value `after` it
        (searched from the new position).  The same as `after` wherever a position's value does
        not depend on where the search started."""
        return after, 0

    def reported(self, value: int) -> int:
        """A value in search units as the result reports it (default: itself; a game whose
        search codes its measure decodes it: Prší's distance inside the value, Mariáš's money
        searched as the rank of its outcome)."""
        return value

    def unreported(self, value: int) -> int | None:
        """A value in search units that reports as `value` (its sign and what the lines' summaries
        read of it are the same as any other's that does); None if no value reports so. Used to
        check a document's claims against a replay (``ddcards report``)."""
        return value

    def distance(self, value: int) -> int | None:
        """Plies to the end the value forces (None: the game has no such measure, or none is forced)."""
        return None

    def owner_options(self) -> dict[str, Any]:
        """The options that make a later position's solve give its values from this session's
        owner's view (default: none, the owner is fixed by the deal; Prší: the player P)."""
        return {}

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
        """Play `line` (move codes) from here, read the end, undo; `value` is the solved value,
        in search units (as `search` returned it)."""

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

    def table_mb(self, setup: Any) -> int:
        """The table (MiB) a Solver sized per game gives the search of this position: the game's
        ``GameInfo.table_mb``, unless the game knows the position's search to be larger."""
        return self.info.table_mb

    def long_search(self, setup: Any) -> str | None:
        """Why a search of this position is known to take long (tens of seconds to minutes), in
        words for people; None when the game knows no such reason (the default)."""
        return None

    @abstractmethod
    def normalise(self, setup: Any) -> dict[str, Any]:
        """The setup as a position document in canonical notation."""
