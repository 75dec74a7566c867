"""Position: a fully known deal and the actions played so far (docs/RULES.md §0.6).

A Position is an immutable value, like a row of a game record: it holds the
deal and the history, validated, and answers what is on the table.  Moving
makes a new Position (``play``, ``undo``), so positions can be kept, compared,
hashed and shared between threads.

>>> import ddcards
>>> pos = ddcards.Position.from_dict(ddcards.example("marias-hra")).play("QH")
>>> pos.to_move, pos.legal_moves, pos.trick
(1, ('TH',), (TrickCard(seat=0, card=Card.parse('QH')),))
>>> pos.score.points, pos.score.parts["marriages"]
({'declarer': 40, 'defenders': 0}, {'declarer': 40, 'defenders': 0})
>>> print(pos)
Mariáš hra, trumps H - seat 1 (defender) to move
  seat 0  declarer  S: AT  H: AK9  D: AT  C: 87
  seat 1  defender  S: KQ  H: JT87  D: KQ  C: AT
  seat 2  defender  S: J987  H: -  D: J987  C: QJ
  talon             9C KC
  trick             QH (seat 0)
  points            declarer 40, defenders 0 (marriages: declarer 40, defenders 0)
  tricks            declarer 0, defenders 0
>>> pos.undo() == ddcards.Position.from_dict(ddcards.example("marias-hra"))
True
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ddcards._jsonio import (POSITION_RULE, argument_shown, argument_token, decode_utf8, loads_given, not_a_position,
                             path_advice, read_position, shown, token_text)
from ddcards.errors import DdcardsError, IllegalPlayError, NotationError, NotationTypeError, NothingToUndoError
from ddcards.games import get_game
from ddcards.games.base import Game, GameInfo, Score, Session, TrickCard
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand
from ddcards.result import preformatted

__all__ = ["Position", "TrickCard", "Score"]


class _View(NamedTuple):
    """What a position shows, read from a session once, when first asked."""

    hands: tuple[tuple[Card, ...], ...]
    trick: tuple[TrickCard, ...]
    table: dict[str, Any]
    score: Score
    title: str
    roles: tuple[str, ...]


class Position:
    """A deal, the actions played so far and what follows from them: an immutable, validated value.

    Build one from a position document (docs/RULES.md §0) with :meth:`from_dict`
    or :meth:`from_json`; every action of the history is checked against the
    rules, and bad input raises a :class:`ddcards.DdcardsError` naming the
    token and the rule.

    What it shows: :attr:`hands` (the cards each seat holds), :attr:`trick`
    (the cards on the table, with their seats), :attr:`table` (whatever else
    is in view, e.g. the Mariáš talon, the Mariasz stock, Prší's top card and
    pile), :attr:`to_move`, :attr:`score` (what the history has scored, by
    side), :attr:`legal_moves`, :attr:`is_over`.
    Moves are action notation: a card ``"TH"`` (games with other actions use
    their own tokens, docs/RULES.md §0).

    :meth:`play` and :meth:`undo` return new Positions; equal positions (same
    deal, options and history) compare and hash equal.  ``str()`` draws the
    table; ``repr()`` evaluates back to an equal Position.

    >>> import ddcards
    >>> pos = Position.from_dict({"game": "marias", "contract": "hra", "trump": "H",
    ...     "hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC",
    ...     "played": ["QH"]})
    >>> pos.to_move, pos.legal_moves
    (1, ('TH',))
    >>> pos.play("TH").trick
    (TrickCard(seat=0, card=Card.parse('QH')), TrickCard(seat=1, card=Card.parse('TH')))
    """

    # (__weakref__: a cache of answers by position may hold them weakly, a WeakKeyDictionary)
    __slots__ = ("_game", "_setup", "_doc", "_to_move", "_legal", "_over", "_spare", "_view", "__weakref__")

    def __init__(self, doc: Mapping[str, Any] | Position):
        if isinstance(doc, Position):
            doc = doc.to_dict()             # Position(pos), Position.from_dict(pos): an equal Position
        if not isinstance(doc, Mapping):
            error = not_a_position(doc, given=True)
            if isinstance(doc, (str, bytes, bytearray)):          # JSON text, as solve() takes it
                error = type(error)(f"{error} (Position.from_json reads a position from its JSON text)",
                                    token=error.token, rule=error.rule, field=error.field)
            raise error
        game: Game = get_game(doc.get("game"))
        self._build(game, game.parse(doc))

    def _build(self, game: Game, setup: Any) -> None:
        """Be the position of `setup`, a document `game` has validated but for its history."""
        session = game.replay(setup)          # checks every action of the history
        self._game = game
        self._setup = setup
        self._doc = game.normalise(setup)
        self._over = session.over
        self._to_move = None if self._over else session.to_move
        # (none either where the history holds the most actions a position may: Prší's 1,748)
        self._legal: tuple[str, ...] = () if self._over or session.history_full else tuple(
            session.move_name(m) for m in sorted(session.board.legal_moves(), key=session.move_order))
        self._view: _View | None = None
        # The first session() hands out the one validation built (a replay
        # less per solve); list.pop() makes that safe across threads.
        self._spare = [session]

    @classmethod
    def _of_setup(cls, game: Game, setup: Any) -> Position:
        """The position of `setup`, already validated as game.parse(doc) does: a Klaverjas DD
        table's eight rows are one parsed deal with eight trumps and playing teams."""
        pos = cls.__new__(cls)
        pos._build(game, setup)
        return pos

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Position:
        """The position a position document (docs/RULES.md §0) describes."""
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
            advice = (" (Position.from_dict takes a position document as a dict)" if isinstance(text, Mapping) else
                      path_advice(text))
            raise NotationTypeError(f"a position document is JSON text, not {type(text).__name__} "
                                    f"{argument_shown(text)}{advice}", token=argument_token(text), rule=POSITION_RULE)
        # JSON of another kind is bad notation, not a wrong type
        return cls(read_position(loads_given(text, "a position document")))

    def to_dict(self) -> dict[str, Any]:
        """The position document in canonical notation (a deep copy)."""
        doc: dict[str, Any] = json.loads(json.dumps(self._doc))
        return doc

    def to_json(self) -> str:
        """The position document as JSON text (canonical notation)."""
        return json.dumps(self._doc, ensure_ascii=False)

    # ------------------------------------------------------------ the game and the deal

    @property
    def game(self) -> str:
        """The game's name, e.g. ``"marias"``."""
        return self._game.info.name

    @property
    def game_info(self) -> GameInfo:
        """What the game offers: contracts, objectives, options, sides."""
        return self._game.info

    @property
    def table_mb(self) -> int:
        """The transposition table (MiB) a Solver sized per game searches this position in: its
        game's, or more where the game knows the search to be long (Mariasz early in the stock)."""
        return self._game.table_mb(self._setup)

    @property
    def long_search(self) -> str | None:
        """Why a search of this position is known to take long (tens of seconds to minutes, e.g. a
        fresh 36-card Mariasz deal), in words for people; None when the game knows no such reason."""
        return self._game.long_search(self._setup)

    @property
    def contract(self) -> str | None:
        """The contract played (Mariáš ``hra`` ``betl`` ``durch``; a game with one contract: that one)."""
        contract = self._doc.get("contract")
        if contract is None and len(self._game.info.contracts) == 1:
            return self._game.info.contracts[0]
        return contract

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or None when the game or contract has none."""
        trump = self._doc.get("trump")
        return None if trump is None else Suit.parse(trump)

    @property
    def played(self) -> tuple[str, ...]:
        """The actions played so far, in canonical notation; ``played[i]`` is ply ``i`` (0-based)."""
        return tuple(self._doc.get("played", ()))

    @property
    def ply(self) -> int:
        """How many actions have been played: the next one is ply ``ply`` (plies count from 0)."""
        return len(self._doc.get("played", ()))

    # ------------------------------------------------------------ the state

    @property
    def to_move(self) -> int | None:
        """The seat to move (None once the deal is over)."""
        return self._to_move

    @property
    def is_over(self) -> bool:
        """True when the deal is over: every card played, a Mariasz race claimed, a Prší game
        won (cards may still be in hand); then ``to_move`` is None and there are no legal moves."""
        return self._over

    @property
    def legal_moves(self) -> tuple[str, ...]:
        """The moves the seat to move may make, in the game's order (suits S H D C, strongest
        first); empty once the deal is over, and in Prší once the history holds the most actions
        a position may, 1,748 (docs/RULES.md §4.1: ``play`` refuses any more)."""
        return self._legal

    def is_legal(self, move: str | Card) -> bool:
        """Is `move` a legal move here? It may be spelt as ``play`` takes it: a Card, or action
        notation in any accepted form (``"10H"``, ``"th"``, ``"OH"``, ``"QH/S"``), where
        ``legal_moves`` lists canonical text only (``Card.parse("TH") in legal_moves`` is False).
        An action of the notation that this game has no use for (``"6H"`` in Mariáš, ``"draw"``
        in Klaverjas) is not legal: False. Text that is no action at all raises NotationError,
        whether or not the deal is over."""
        _check_move_type(move)
        self._check_one_action(move, "is_legal")     # 'QS / H' is no one action here either
        text = str(move).strip()
        try:
            name = self._move_name(text)
        except NotationError:
            if _is_action(text):            # an action of the notation this game has no use for ('6H' in Mariáš)
                return False
            raise
        return name is not None and name in self._legal

    def _move_name(self, text: str) -> str | None:
        """The canonical name of the game's action `text`; None for one of its actions that is
        never legal in that form (Prší: an Ober without its suit, or a suit on another card).
        NotationError where the game has no such action."""
        session = self.session()
        try:
            return session.move_name(session.move_code(text))
        except IllegalPlayError:
            return None
        finally:
            self._spare.append(session)     # move_code reads it, never changes it

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """The cards each seat holds now, by seat (suits S H D C, strongest first in the game's order)."""
        return self._shown().hands

    @property
    def trick(self) -> tuple[TrickCard, ...]:
        """The trick on the table, in the order played: ``(seat, card)`` pairs; empty between
        tricks and in games without tricks."""
        return self._shown().trick

    @property
    def table(self) -> dict[str, Any]:
        """Whatever else is in view, by name (a new dict), as ``print(position)`` shows it:
        ``{"talon": (Card, Card)}`` in Mariáš; ``{"stock": (Card, ...)}`` (draw order, the turned
        trump last) in two-player Mariasz, and in a race ``"race"`` (each side's total, in words)
        and, once made, ``"claimed"``; in Prší ``"top"`` (a Card), what it asks of the mover
        (``"suit to play"``: a Suit after an Ober; ``"7s active"``, ``"ace active"``: in words),
        ``"stock"`` and ``"pile"`` (Cards in order).  The words are for people: a program reads a
        race's totals from ``score.points`` and the document's ``start_scores``, and a claim or a
        pending 7 from the solver's ``Result`` (``outcomes``) or the legal moves."""
        return dict(self._shown().table)

    @property
    def score(self) -> Score:
        """What the history has scored so far, by side: ``points`` (all that counts, e.g. Mariáš
        cards + last trick + marriages), ``tricks``, and ``parts`` (e.g. ``marriages``, ``roem``),
        as played: before what only the deal's end decides (Klaverjas's nat and pit, which a
        Result's ``scores`` include)."""
        score = self._shown().score        # a copy: the cached one's dicts must not change
        return Score(dict(score.points), dict(score.tricks),
                     {name: dict(by_side) for name, by_side in score.parts.items()})

    # ------------------------------------------------------------ moving

    def play(self, move: str | Card) -> Position:
        """The position after `move` (action notation such as ``"TH"``, or a Card), validated:
        an illegal move raises :class:`ddcards.IllegalPlayError` naming the rule."""
        _check_move_type(move)
        self._check_one_action(move, "play")
        return self._with_played([*self.played, str(move)])

    def _check_one_action(self, move: str | Card, method: str) -> None:
        """NotationError if `move` holds several actions ('QS / H', 'TH AH'), saying how to write it."""
        actions = str(move).replace(",", " ").split()
        if len(actions) > 1:
            prsi = self.game == "prsi"      # the game whose actions name a suit or draw cards
            if prsi and any(action.startswith("/") or action.endswith("/") for action in actions):
                advice = f"an Ober names its suit without spaces: .play({''.join(actions)!r:.20})"
            elif prsi and actions[0].lower() == "draw" and all(action.isdigit() for action in actions[1:]):
                advice = "a draw is one action, 'draw', however many cards it takes"
            elif len(actions) == 2 and _is_rank_and_suit(*actions):
                advice = f"a card is one token: .play({''.join(actions)!r:.20})"
            else:
                # the two the advice would name (a huge text's every token is not worth reading)
                strange = next((action for action in actions[:2] if not self._has_action(action)), None)
                if strange is None:
                    advice = f"play them one at a time: .play({actions[0]!r:.20}).play({actions[1]!r:.20})"
                else:           # advice to play a token the game refuses would be no help
                    advice = f"{shown(strange, 20)} is no action of {self._game.info.title}"
            raise NotationError(f"{method}() takes one action, got {len(actions)}: {shown(str(move))} ({advice})",
                                token=token_text(move), rule=f"{method}(): one action", field=f"played[{self.ply}]")

    def _has_action(self, text: str) -> bool:
        """Is `text` an action of this game (legal here or not)?"""
        try:
            self._move_name(text)
        except NotationError:
            return False
        return True

    def undo(self) -> Position:
        """The position before the last action (:class:`ddcards.errors.NothingToUndoError`, an
        IllegalPlayError and an IndexError, if nothing has been played)."""
        if not self.ply:
            raise NothingToUndoError("undo(): nothing has been played in this position (played is empty)",
                                     token="undo", field="played",
                                     rule="docs/RULES.md §0.7 rule 1: played lists the actions so far; undo() takes "
                                          "back the last")
        return self._with_played(list(self.played[:-1]))

    def start(self) -> Position:
        """The same deal with nothing played."""
        return self._with_played([])

    def _owned_by(self, owner: Mapping[str, Any]) -> Position:
        """This position with `owner` over its options (``Session.owner_options()`` of the deal's
        start: a later position solved from the same view, Prší's P); itself when it is empty."""
        if not owner:
            return self
        return Position(dict(self._doc, options={**(self._doc.get("options") or {}), **owner}))

    def _with_played(self, played: list[str]) -> Position:
        doc = dict(self._doc)
        doc["played"] = played
        return Position(doc)

    def session(self) -> Session:
        """A fresh mutable session at this position (for the solver)."""
        try:
            return self._spare.pop()
        except IndexError:
            return self._game.replay(self._setup)

    def _shown(self) -> _View:
        view = self._view
        if view is None:
            session = self.session()
            info = session.describe()
            hands = tuple(tuple(hand) for hand in session.hands())
            view = self._view = _View(
                hands=hands, trick=tuple(session.current_trick()), table=session.table(),
                score=session.score(), title=str(info.get("title") or self._game.info.title),
                roles=tuple(session.seat_role(seat) for seat in range(len(hands))))
            self._spare.append(session)        # unchanged: the next solve may have it
        return view

    # ------------------------------------------------------------ values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and other._doc == self._doc

    def __hash__(self) -> int:
        return hash(json.dumps(self._doc, sort_keys=True))

    def __repr__(self) -> str:
        return f"Position.from_json({self.to_json()!r})"

    def __reduce__(self) -> tuple[type[Position], tuple[dict[str, Any]]]:
        # pickle and copy go through the document (the search state is rebuilt on load)
        return Position, (self.to_dict(),)

    def _repr_html_(self) -> str:
        """A notebook's view (Jupyter, IPython): the table ``str()`` prints, not the document."""
        return preformatted(str(self))

    def __str__(self) -> str:
        """The table: who is to move, every hand, the trick, what else is in view, the score."""
        view = self._shown()
        if self._to_move is not None:
            role = view.roles[self._to_move] if self._to_move < len(view.roles) else ""
            head = f"{view.title} - seat {self._to_move}" + (f" ({role})" if role else "") + " to move"
        else:
            head = f"{view.title} - the deal is over"
        rows = seat_rows(view.roles, [format_hand(hand, style="display") for hand in view.hands])
        for name, value in view.table.items():
            rows.append((name, _shown_value(value)))
        if view.trick:
            rows.append(("trick", "  ".join(f"{card} (seat {seat})" for seat, card in view.trick)))
        score = view.score
        if score.points:
            parts = "; ".join(f"{name}: {_by_side(by_side)}" for name, by_side in score.parts.items())
            rows.append(("points", _by_side(score.points) + (f" ({parts})" if parts else "")))
        if score.tricks:
            rows.append(("tricks", _by_side(score.tricks)))
        return "\n".join([head] + aligned(rows))


def seat_rows(roles: Sequence[str], hands: Sequence[str]) -> list[tuple[str, str]]:
    """(label, hand) of each seat as print(Position) shows them: "seat 1  defender", the roles
    in one column; ``ddcards solve`` shows its hands so too."""
    width = max([len(role) for role in roles] + [0])
    return [(f"seat {seat}  {roles[seat]:<{width}}".rstrip(), hand) for seat, hand in enumerate(hands)]


def aligned(rows: Sequence[tuple[str, str]]) -> list[str]:
    """(label, text) rows as print(Position) lays them out: the labels in one column, two
    spaces before the text."""
    width = max([len(label) for label, _ in rows] + [0])
    return [f"  {label:<{width}}  {text}" for label, text in rows]


def _by_side(values: Mapping[str, int]) -> str:
    return ", ".join(f"{side} {value}" for side, value in values.items())


def _shown_value(value: Any) -> str:
    """A table entry for people: cards as notation, the rest as text."""
    if isinstance(value, (tuple, list)) and all(isinstance(v, Card) for v in value):
        return format_cards(value) or "-"
    return str(value)


def _check_move_type(move: object) -> None:
    """A move is text or a Card: anything else is a NotationTypeError (play, is_legal)."""
    if not isinstance(move, (str, Card)):
        raise NotationTypeError(f"a move is action notation such as 'TH' or a Card, not {type(move).__name__} "
                                f"{move!r:.40}", token=repr(move)[:40], rule="actions (docs/RULES.md §0)")


def _is_action(text: str) -> bool:
    """Is `text` an action of the common notation (RULES §0: a card of any deck, an Ober with
    its named suit, draw, pass, exchange), whether or not this game has it?"""
    if text.lower() in ("draw", "pass", "exchange"):
        return True
    card, slash, named = text.partition("/")
    try:
        Card.parse(card)
        if slash:
            Suit.parse(named)
    except DdcardsError:
        return False
    return True


def _is_rank_and_suit(rank: str, suit: str) -> bool:
    """Are these a rank and a suit letter apart ("10", "H"): a card written with a space?"""
    if len(suit) != 1:
        return False
    try:
        Rank.parse(rank)
        Suit.parse(suit)
    except DdcardsError:
        return False
    return True
