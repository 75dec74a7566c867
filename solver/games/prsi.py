"""Prší (Czech Mau-Mau, 2–6 players) — docs/RULES.md §4.

A shedding game: players shed cards onto a pile by suit or rank, 7s stack,
aces skip, an Ober names a suit, anyone may draw instead of playing, and
the pile is turned over (unshuffled) when the stock runs out.  Play can go
on for ever, so a position is solved within a horizon of H plies
(``options.horizon``, default :data:`DEFAULT_HORIZON`), or exactly where that
can be proven (``horizon: null``; docs/RULES.md §4.9).

Values are those of one player P (``options.player``, default the one to
move): with two players +1 if P can force being out first within the
horizon, -1 if the opponent can, 0 if neither; with more players +1 if P
can force it against all the others together (paranoid), else -1.  The
result's ``distance`` is the number of plies to the end that value forces
(the winner hurries, the loser delays), and every action is listed with its
value and distance.

The rules run in C (``_prsi.pyx``); this module validates the position
document, names actions, explains illegal ones, drives the search (to a
horizon, shorter ones tried first; exactly, by ``prsi_exact``; ``deepen``:
ever longer horizons within a time budget) and reads the end of a line.
"""
from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ddcards.errors import (IllegalPlayError, InvalidArgumentTypeError, InvalidCardError, InvalidDealError,
                            InvalidOptionError, NotationError, SearchTimeout)
from ddcards.games import _prsi, _search_budget, prsi_exact
from ddcards.games.prsi_exact import EXACT_WIN, Unproven, decode, exact_solve
from ddcards._jsonio import argument_shown, argument_token, shown, token_text
from ddcards.games._document import (OPTION_RANGE_RULE, cards_field, check_deal, check_fields, check_hand_sizes, hand_field,
                                     history_tokens, in_field, options_field, options_object, other_games_action)
from ddcards.games.base import Game, GameInfo, LineSummary, OptionInfo, Score, Session
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand
from ddcards.result import SearchProgress, ValueKind

#: Plies searched when a request does not say (any number of players).
DEFAULT_HORIZON = 20
#: The largest horizon a request may ask for, in plies.
MAX_HORIZON = _prsi.MAX_HORIZON
#: From this horizon on a search is named long before it starts (Prsi.long_search): where no end is
#: forced sooner (shorter_horizons), its cost can grow tenfold or more with every five plies past 30
#: (the bundled example, every first move: 0.12 s within 30 plies, 2.5 s within 35, 14.5 s within
#: 40, its actions that force no end searched within the whole horizon; its optimal ones at once).
LONG_SEARCH_HORIZON = 40
#: A search within more than DEFAULT_HORIZON plies first tries the shorter horizons DEEPEN_FIRST,
#: DEEPEN_FIRST + DEEPEN_STEP, ... (each at least DEEPEN_STEP short of its own) and stops at the
#: first that shows a forced end: that end is the one within any longer horizon (docs/RULES.md §4.9).
DEEPEN_FIRST = 12
DEEPEN_STEP = 4
HAND_SIZE = 4
SEATS = (2, 3, 4, 5, 6)
RANKS = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)
DECK = tuple(Card.of(rank, suit) for suit in Suit for rank in RANKS)
CODE = {card: int(card.suit) * 8 + i for card in DECK for i, rank in enumerate(RANKS) if rank == card.rank}
# The actions parse_action gives back as they are: every card, each Ober naming each suit, the words.
CANONICAL_ACTIONS = frozenset([str(card) for card in DECK] + ["draw", "pass"] +
                              [f"{card}/{suit}" for card in DECK if card.rank == Rank.QUEEN for suit in Suit])
CARD = {c: card for card, c in CODE.items()}
DRAW, PASS, OBER = _prsi.MOVE_DRAW, _prsi.MOVE_PASS, _prsi.MOVE_OBER
FIELDS = ("game", "hands", "stock", "upcard", "options", "played", "leader")
# The clauses a bad document or action breaks (DdcardsError.rule), as every game cites docs/RULES.md.
T = TypeVar("T")

_SPACE_AT_SLASH = re.compile(r"\s/|/\s")       # white space of any kind beside an Ober's '/'
_WHAT_AN_ACTION_IS = "an action is a card (TH), an Ober naming a suit (QH/S), draw or pass"
ACTION_RULE = f"docs/RULES.md §4.1: {_WHAT_AN_ACTION_IS}"
PLAYERS_RULE = "docs/RULES.md §4.1: 2 to 6 players"
UPCARD_RULE = "docs/RULES.md §4.1: one upcard starts the pile"
STOCK_RULE = "docs/RULES.md §4.1: the stock holds the cards left after the deal, in draw order"
DECK_RULE = "docs/RULES.md §4.1: 32 cards, 7 to A, between the hands, the upcard and the stock"
LEADER_RULE = "docs/RULES.md §4.1: leader is a seat"
HISTORY_RULE = "docs/RULES.md §4.1: played is a list of actions"
HISTORY_LENGTH_RULE = "docs/RULES.md §4.1: a history holds at most 1,748 actions"
OBER_RULE = "docs/RULES.md §4.4: the Ober names a suit"
HORIZON_RULE = "docs/RULES.md §4.9: what is solved, within a horizon or exactly"
NOT_LAST_RULE = "docs/RULES.md §4.9: not_last is P's goal under play_on"
# The clauses an illegal action can break, by their short names.
# (A card not in the mover's hand breaks §0.7 rule 2, as in every game: _cards.OWN_CARD_RULE.)
OWN_CARD = "the seat to move plays a card from its own hand"
CLAUSES = {OWN_CARD: "§0.7 rule 2", "matching by suit or rank": "§4.3", "the Ober names a suit": "§4.4",
           "7s stack": "§4.5", "aces skip": "§4.6", "the end": "§4.8"}

INFO = GameInfo(
    name="prsi",
    title="Prší",
    seats=SEATS,
    contracts=(),
    objectives={},
    options=(
        OptionInfo("horizon", "int", DEFAULT_HORIZON,
                   f"plies searched (1..{MAX_HORIZON}); null (or \"none\", \"exact\"): exact values, where a forced end "
                   f"within {prsi_exact.EXACT_PROOF_HORIZON} plies or a reachable game of at most "
                   f"{prsi_exact.EXACT_STATE_CAP:,} states proves them",
                   minimum=1, maximum=MAX_HORIZON, meaning="the plies searched"),
        OptionInfo("player", "int", None, "the seat whose value is reported (default: the player to move)",
                   maximum=5, meaning="the seat whose value is reported"),
        OptionInfo("play_on", "bool", False,
                   "play on until one player is left, the loser (the value is still about being out first)"),
        OptionInfo("not_last", "bool", False,
                   "with play_on: the value is +1 for getting out at all (not being the one left), "
                   "not for being out first"),
        OptionInfo("return", "bool", False,
                   "a player who went out is back in if the next player plays a 7 on his last card"),
    ),
    aliases=("prší",),
    sides=(),
    value_doc="+1 / 0 / -1 for the player to move (options.player): he can force being out first within "
              "the horizon / neither side can / the opponent can; 3+ players: +1 / -1 against all the "
              "others; distance: plies to that end",
)


@dataclass(frozen=True)
class PrsiSetup:
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    upcard: Card
    leader: int
    horizon: int | None
    player: int | None
    play_on: bool
    comeback: bool
    played: tuple[str, ...]
    not_last: bool = False       # P's goal under play_on: getting out at all (docs/RULES.md §4.9)

    @property
    def seats(self) -> int:
        return len(self.hands)


# ---------------------------------------------------------------- the document

def parse_action(token: Any, ply: int | None = None) -> str:
    """An action in canonical notation: "TH", "QH/S", "draw", "pass" (or a Card)."""
    if type(token) is str and token in CANONICAL_ACTIONS:
        return token                    # already canonical (a history is read twice: here and in play)
    where = f"played[{ply}]: " if ply is not None else ""
    field = f"played[{ply}]" if ply is not None else None
    if isinstance(token, Card):
        token = str(token)
    if not isinstance(token, str):
        raise NotationError(f"{where}an action is text, not {shown(token)} ({ACTION_RULE})",
                            token=token_text(token), rule=ACTION_RULE, field=field)
    text = token.strip()
    if text.lower() in ("draw", "pass"):
        return text.lower()
    # Any white space counts, as a history given as text splits at any (a tab, a no-break space):
    # 'QS/\u00a0D' in a list was read as QS/D, where the same text as a history is refused.
    spaced = any(ch.isspace() for ch in text)
    if text.startswith("/") or text.endswith("/") or _SPACE_AT_SLASH.search(text):
        # 'QS / H' splits into 'QS', '/', 'H' in a history given as text; in a list, one item
        # ('QH/' alone names no suit: "no space around" sent its writer looking for a space)
        what = ("names no suit after its '/'" if text.endswith("/") and not spaced and len(text) > 1
                else "has a space around its '/'" if spaced else "names no card before its '/'")
        raise NotationError(f"{where}{shown(text)} {what}: an Ober names its suit with no space around the '/', "
                            f"as in 'QS/H' ({ACTION_RULE})", token=text, rule=ACTION_RULE, field=field)
    card_text, slash, named = text.partition("/")
    try:
        card = Card.parse(card_text)
    except NotationError as exc:
        other = None if slash else other_games_action(card_text)
        if other is not None:
            # (not "'e' is not a rank": the word is an action, of another game)
            raise InvalidCardError(f"{where}'{card_text.strip()}' is no action of this game (it is {other}; "
                                   f"{_WHAT_AN_ACTION_IS}) ({ACTION_RULE})", token=card_text.strip(),
                                   rule=ACTION_RULE, field=field) from None
        if not slash:
            # neither a card nor a word: say what an action is (the card's own rule comes first)
            raise type(exc)(f"{where}{exc}; {_WHAT_AN_ACTION_IS}", token=exc.token, rule=exc.rule,
                            field=field) from None
        raise type(exc)(f"{where}{exc}", token=exc.token, rule=exc.rule, field=field) from None
    suit = None
    if slash:
        try:
            suit = Suit.parse(named)
        except NotationError as exc:
            raise type(exc)(f"{where}{shown(text)}: the suit the Ober names: {exc}", token=exc.token, rule=exc.rule,
                            field=field) from None
    return f"{card}/{suit}" if suit is not None else str(card)


def _options(doc: Mapping[str, Any], seats: int) -> tuple[int | None, int | None, bool, bool, bool]:
    raw = options_object(doc)
    # horizon and player may be null, which the generic reader does not take.
    rest = {k: v for k, v in raw.items() if not (k in ("horizon", "player") and v is None)}
    horizon_raw = raw.get("horizon", DEFAULT_HORIZON)
    if isinstance(horizon_raw, str) and horizon_raw.strip().lower() in ("none", "exact"):
        horizon_raw = None
        rest.pop("horizon")
    # A seat outside this deal's players is named with their count before the option's range (0..5,
    # for six players) is checked: "from 0 to 5" for player 6 of two players was wrong, and so for -1.
    player = raw.get("player")
    if isinstance(player, int) and not isinstance(player, bool) and not 0 <= player < seats:
        why = "is too small" if player < 0 else "is too large"
        raise InvalidOptionError(f"option 'player' {why}: it is the seat whose value is reported, a whole "
                                 f"number from 0 to {seats - 1} with {seats} players, not {player} "
                                 f"({OPTION_RANGE_RULE})", token=str(player), rule=OPTION_RANGE_RULE,
                                 field="options.player")
    options = options_field({"options": rest}, INFO)
    horizon = None if horizon_raw is None else options["horizon"]     # 1..MAX_HORIZON: OptionInfo's range
    player = options["player"]
    if options["not_last"] and not options["play_on"]:
        raise InvalidOptionError("option 'not_last' is a goal of the play_on variant: without play_on the game "
                                 f"ends at the first player out, so nobody is left last (give play_on too; "
                                 f"{NOT_LAST_RULE})", token="not_last", rule=NOT_LAST_RULE,
                                 field="options.not_last")
    return horizon, player, options["play_on"], options["return"], options["not_last"]


def parse_setup(doc: Mapping[str, Any]) -> PrsiSetup:
    """Validate a Prší position document (everything but the history's legality)."""
    doc = check_fields(doc, FIELDS, "prsi")
    raw = doc.get("hands")
    if raw is None:                     # left out, or null (RULES §0.6 rule 6)
        raise InvalidDealError(f"Prší needs the hands (field 'hands', missing: 2 to 6 of them, one per player; "
                               f"{PLAYERS_RULE})", token="hands", rule=PLAYERS_RULE, field="hands")
    if not isinstance(raw, (list, tuple)) or not 2 <= len(raw) <= 6:
        count = f"{len(raw)}" if isinstance(raw, (list, tuple)) else shown(raw)
        raise InvalidDealError(f"Prší is played by 2 to 6 players: give 2 to 6 hands (field 'hands'), not "
                               f"{count} ({PLAYERS_RULE})", token="hands", rule=PLAYERS_RULE, field="hands")
    hands = tuple(hand_field(h, seat) for seat, h in enumerate(raw))
    seats = len(hands)
    if "upcard" not in doc:
        raise InvalidDealError(f"Prší needs the upcard (field 'upcard', the card turned up to start the pile; "
                               f"{UPCARD_RULE})", token="upcard", rule=UPCARD_RULE, field="upcard")
    upcard = cards_field(doc["upcard"], "upcard")
    if len(upcard) != 1:
        raise InvalidDealError(f"the upcard is one card, not {len(upcard)} ({format_cards(upcard) or 'none'}; "
                               f"{UPCARD_RULE})",
                               token=format_cards(upcard) or "upcard", rule=UPCARD_RULE, field="upcard")
    if "stock" not in doc:
        raise InvalidDealError(f"Prší needs the stock (field 'stock'; {STOCK_RULE}, first drawn first)",
                               token="stock", rule=STOCK_RULE, field="stock")
    stock = cards_field(doc["stock"], "stock")
    places = [(f"hand {seat}", hand) for seat, hand in enumerate(hands)] + [("upcard", upcard), ("stock", stock)]
    check_deal(places, "Prší")
    # every card is placed (DECK_RULE): a short hand is a card put in the stock or another hand, not
    # a hand given as it is now (the upcard, one card, is checked above and set aside)
    check_hand_sizes(hands, HAND_SIZE, "Prší", " as dealt", deck=len(DECK) - len(upcard),
                     elsewhere=[("the stock", len(stock))])
    held = {card for _, cards in places for card in cards}
    missing = [card for card in DECK if card not in held]
    if missing:
        raise InvalidDealError(f"the deal must place all 32 cards; missing {format_cards(missing)} (the stock "
                               f"holds every card not dealt or turned up: {32 - HAND_SIZE * seats - 1} here; "
                               f"{DECK_RULE})",
                               token=str(missing[0]), rule=DECK_RULE, field="stock")
    leader = doc.get("leader", 0)
    if isinstance(leader, bool) or not isinstance(leader, int) or not 0 <= leader < seats:
        raise InvalidOptionError(f"leader is the seat who starts, 0..{seats - 1}, not {shown(leader)} ({LEADER_RULE})",
                                 token=token_text(leader), rule=LEADER_RULE, field="leader")
    horizon, player, play_on, comeback, not_last = _options(doc, seats)
    played = tuple(parse_action(t, i) for i, t in enumerate(history_tokens(doc, HISTORY_RULE, "actions")))
    return PrsiSetup(hands, stock, upcard[0], leader, horizon, player, play_on, comeback, played, not_last)


def _salt(setup: PrsiSetup) -> tuple[int, int]:
    """Table keys hold the queue relative to the deal's stock: salt them with it and the rules."""
    text = f"prsi|{setup.seats}|{setup.play_on}|{setup.comeback}|{setup.not_last}|{format_cards(setup.stock)}"
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


def _mask(cards: Sequence[Card]) -> int:
    return sum(1 << CODE[c] for c in cards)


def _cards(mask: int) -> list[Card]:
    """The cards of a mask, suits S H D C, the highest first within each (as hands are shown)."""
    return [CARD[c] for suit in range(4) for c in range(8 * suit + 7, 8 * suit - 1, -1) if mask >> c & 1]


def _suit_name(suit: int) -> str:
    return str(Suit(suit))


def _cited(rule: str) -> str:
    """An illegal action's rule as errors cite it: "docs/RULES.md §4.5: 7s stack"."""
    return f"docs/RULES.md {CLAUSES[rule]}: {rule}"


# ---------------------------------------------------------------- the session

class PrsiSession(Session):
    trick_size = None

    @property
    def value_legend(self) -> str:            # type: ignore[override]
        if len(self.setup.hands) > 2:         # paranoid: the others together (docs/RULES.md §4.9)
            goal = "getting out (not being the one left)" if self.setup.not_last else "being out first"
            return (f"+1 forces {goal} against all the others together, -1 cannot, "
                    + ("exactly" if self.horizon is None else "within the horizon"))
        if self.horizon is None:              # exact: no window
            return "+1 forces a win, 0 no side can ever force the end, -1 a loss, exactly"
        return "+1 forces a win, 0 neither side can force the end, -1 a loss, within the horizon"

    def __init__(self, setup: PrsiSetup):
        self.setup = setup
        salt0, salt1 = _salt(setup)
        self.board = _prsi.PrsiBoard([_mask(h) for h in setup.hands], [CODE[c] for c in setup.stock],
                                     CODE[setup.upcard], setup.leader, setup.play_on, setup.comeback, salt0, salt1,
                                     setup.not_last)
        self.history: list[str] = []
        self.player = setup.leader       # set once the history is replayed (Prsi.replay)
        self.horizon = setup.horizon
        # Whether the search under way is this position's within its own horizon (root_progress).
        self._searching_root = True

    @property
    def root_progress(self) -> bool:
        # The exact analysis (no horizon) and a search trying shorter horizons first run searches
        # within other horizons, some after a move: their bounds are not on this position's value.
        return self.horizon is not None and self._searching_root

    # -- naming
    def move_name(self, move: int) -> str:
        if move == DRAW:
            return "draw"
        if move == PASS:
            return "pass"
        if move >= OBER:
            return f"Q{_suit_name((move - OBER) >> 2)}/{_suit_name((move - OBER) & 3)}"
        return str(CARD[move])

    def move_code(self, token: str) -> int:
        text = parse_action(token)
        if text == "draw":
            return DRAW
        if text == "pass":
            return PASS
        card_text, slash, named = text.partition("/")
        card = Card.parse(card_text)
        if card not in CODE:
            raise InvalidCardError(f"card '{card}' is not in the Prší deck ({DECK_RULE})", token=str(card),
                                   rule=DECK_RULE)
        if card.rank == Rank.QUEEN:
            if not slash:
                st = self.board.state
                if st["done"]:              # the first thing wrong with it, as for any action: a suit would not help
                    cited = _cited("the end")
                    raise IllegalPlayError(f"'{card}': {self._game_over(st)} ({cited})", token=text, rule=cited)
                why = self._not_held(card, st)
                if why is not None:         # the first thing wrong with it: naming a suit would not help
                    cited = _cited(OWN_CARD)
                    raise IllegalPlayError(f"'{card}' by seat {st['turn']}: {why} ({cited})", token=text, rule=cited)
                raise IllegalPlayError(f"an Ober names the suit to play next: '{card}/S', '{card}/H', '{card}/D' "
                                       f"or '{card}/C', not '{card}' alone ({OBER_RULE})", token=text,
                                       rule=OBER_RULE)
            return OBER + int(card.suit) * 4 + int(Suit.parse(named))
        if slash:
            raise IllegalPlayError(f"only an Ober names a suit; '{text}' is not one (play '{card}'; {OBER_RULE})",
                                   token=text, rule=OBER_RULE)
        return CODE[card]

    def move_order(self, move: int) -> tuple[int, ...]:
        if move >= DRAW:
            return (1, move)
        if move >= OBER:
            return (0, (move - OBER) >> 2, 5, (move - OBER) & 3)
        return (0, move >> 3, move & 7, 0)

    # -- state
    @property
    def to_move(self) -> int:
        return int(self.board.to_move)

    @property
    def over(self) -> bool:
        return bool(self.board.done)

    @property
    def value_kind(self) -> ValueKind:
        return "outcome"

    @property
    def value_owner(self) -> str:          # type: ignore[override]
        return f"seat {self.player}"

    def owner_options(self) -> dict[str, Any]:
        return {"player": self.player}

    @property
    def history_full(self) -> bool:
        return bool(self.board.ply >= _prsi.MAX_HISTORY)

    def legal_moves(self) -> list[str]:
        if self.over or self.history_full:
            return []
        return [self.move_name(m) for m in sorted(self.board.legal_moves(), key=self.move_order)]

    def hands(self) -> list[list[Card]]:
        return [_cards(m) for m in self.board.state["hands"]]

    def describe(self) -> dict[str, Any]:
        st = self.board.state
        s = self.setup
        top = CARD[st["top"]]
        title = f"Prší, {s.seats} players"
        variants = [v for v, on in (("play on", s.play_on and not s.not_last), ("play on, not the one left", s.not_last),
                                    ("return", s.comeback)) if on]
        if variants:
            title += " (" + ", ".join(variants) + ")"
        title += f", {'exact' if self.horizon is None else f'horizon {self.horizon} plies'}"
        top_text = str(top)
        if top.rank == Rank.QUEEN and st["suit"] != int(top.suit):
            top_text += f", {_suit_name(st['suit'])} named"
        if st["sevens"] and not st["done"]:          # a finished game asks nothing more of anyone
            top_text += f", 7s active: draw {2 * st['sevens']}"
        if st["ace"] and not st["done"]:
            top_text += ", ace active"
        out = {"title": title, "hands": [format_hand(h) for h in self.hands()], "top": top_text,
               "stock": format_cards(CARD[c] for c in st["stock"]) or "(empty)"}
        if st["pile"]:
            out["pile"] = format_cards(CARD[c] for c in st["pile"])
        return out

    def seat_role(self, seat: int) -> str:
        st = self.board.state
        if st["out"][seat]:
            # `return` (§4.8): a hand emptied is out only once the next player has acted, as the
            # result's seatN_out says; till then a 7 on his last card brings him back
            return "out" if st["places"][seat] else "out unless a 7 answers"
        return "player" if seat == self.player else "opponent"

    def table(self) -> dict[str, Any]:
        """The top card and what it asks of the mover (the suit an Ober named, the cards an
        active 7 chain draws, an active ace), then the stock in draw order and the pile below
        the top card, oldest first."""
        st = self.board.state
        top = CARD[st["top"]]
        out: dict[str, Any] = {"top": top}
        pending = not st["done"]                      # a finished game asks nothing more of anyone
        if top.rank == Rank.QUEEN and pending:
            out["suit to play"] = Suit(st["suit"])
        if st["sevens"] and pending:
            out["7s active"] = f"draw {2 * st['sevens']} or play a 7"
        if st["ace"] and pending:
            out["ace active"] = "pass or play an ace"
        out["stock"] = tuple(CARD[c] for c in st["stock"])
        out["pile"] = tuple(CARD[c] for c in st["pile"])
        return out

    def score(self) -> Score:
        """Nothing: Prší scores no points and takes no tricks (who is out shows in the seats' roles)."""
        return Score()

    def ended(self) -> str | None:
        """How the game ended, once it has (nothing is left to force, so the CLI says this
        rather than the verdict); None while it goes on."""
        st = self.board.state
        if not st["done"]:
            return None
        if self.setup.play_on:
            left = next(seat for seat, out in enumerate(st["out"]) if not out)
            return f"the game is over: seat {left} is the one left, the loser"
        return f"the game is over: seat {st['first_out']} went out first"

    def settled(self) -> str | None:
        """The words for P's outcome once the history has settled it while the game goes on
        (``play_on``: another seat, or P, already out first; with ``not_last``, P out for good):
        its value is then that outcome at distance 0 (docs/RULES.md §4.9), and "within H plies"
        would misread it.  None while it is open."""
        st = self.board.state
        if not self.setup.play_on or st["done"]:
            return None                 # without play_on the first out ends the game: ended() says it
        if self.setup.not_last:
            return (f"seat {self.player} is out: settled, he is not the one left"
                    if st["places"][self.player] else None)
        first = st["first_out"]
        if first is None:
            return None
        return (f"seat {first} went out first: settled" if first == self.player else
                f"seat {first} went out first: settled, seat {self.player} cannot be first")

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        if (settled := self.settled()) is not None:
            return settled
        me = f"seat {self.player}"
        window = "" if self.horizon is None else f" within {self.horizon} plies"     # exact: no window to say
        goal = "getting out" if self.setup.not_last else "being out first"
        if value > 0:
            return f"{me} can force {goal}{window}"
        if value < 0 and self.setup.seats == 2:
            return f"the opponent can force {goal}{window}"
        if value < 0:
            return f"{me} cannot force {goal}{window}{self._history_limit()}"
        return f"neither side can force the end{window}{self._history_limit()}"

    def _history_limit(self) -> str:
        """Where the window reaches the history's limit (docs/RULES.md §4.1, §4.9): the words that say
        so, as nothing forced within it may be only that the play stops there ("within 20 plies"
        at 1,744 actions was 4 plies, the answer of any horizon, and an exact 0 no draw); else ""."""
        ply = int(self.board.ply)
        left = _prsi.MAX_HISTORY - ply
        # (a window that ends at the limit ends there anyway; the exact analysis stops at the limit
        # where it falls within the plies searched to prove an end, else it solves the whole game)
        if (left > prsi_exact.EXACT_PROOF_HORIZON) if self.horizon is None else (left >= self.horizon):
            return ""
        if left <= 0:
            return (f": no action follows the history's {_prsi.MAX_HISTORY:,}th, the most a position holds "
                    f"({HISTORY_LENGTH_RULE})")
        return (f": the play stops at the history's limit, {_prsi.MAX_HISTORY:,} actions, "
                f"{left} {'ply' if left == 1 else 'plies'} from here ({HISTORY_LENGTH_RULE})")

    def is_max(self, seat: int) -> bool:
        return seat == self.player

    # -- play
    def play(self, token: str) -> None:
        ply = len(self.history)
        try:
            code = self.move_code(token)
        except (NotationError, IllegalPlayError) as exc:
            raise type(exc)(f"played[{ply}]: {exc}", token=exc.token, rule=exc.rule,
                            field=f"played[{ply}]") from None
        if self.history_full and not self.over:     # (once the game is over, that is what an action is told)
            raise IllegalPlayError(f"played[{ply}]: a history holds at most {_prsi.MAX_HISTORY} actions "
                                   f"({HISTORY_LENGTH_RULE})", token=self.move_name(code), rule=HISTORY_LENGTH_RULE,
                                   field=f"played[{ply}]")
        if not self.board.is_legal(code):
            with in_field(f"played[{ply}]"):
                raise self._illegal(code, ply)
        self.board.play(code)
        self.history.append(self.move_name(code))

    @staticmethod
    def _not_held(card: Card, st: dict[str, Any]) -> str | None:
        """Where `card` is if the mover does not hold it ("QC is in the stock"); None if he does."""
        hands, seat = st["hands"], st["turn"]
        if hands[seat] >> CODE[card] & 1:
            return None
        owner = next((s for s, m in enumerate(hands) if m >> CODE[card] & 1), None)
        if owner is not None:
            return f"{card} is in seat {owner}'s hand, not seat {seat}'s"
        if card == CARD[st["top"]]:
            return f"{card} is the top card of the pile"
        if CODE[card] in st["stock"]:
            return f"{card} is in the stock"
        return f"{card} is in the pile"

    def _game_over(self, st: dict[str, Any]) -> str:
        """Why no action follows a finished game (docs/RULES.md §4.8)."""
        if self.setup.play_on:
            return "the game is over: one player is left"
        return f"the game is over: seat {st['first_out']} went out first"

    def _illegal(self, move: int, ply: int) -> IllegalPlayError:
        """Why the mover may not take this action: the clause of docs/RULES.md §4 it breaks."""
        st = self.board.state
        seat = st["turn"]
        name = self.move_name(move)
        where = f"played[{ply}] '{name}' by seat {seat}"

        def error(why: str, rule: str) -> IllegalPlayError:
            cited = _cited(rule)
            return IllegalPlayError(f"{where}: {why} ({cited})", token=name, rule=cited)

        if st["done"]:
            where = f"played[{ply}] '{name}'"      # nobody is to move: no seat to name
            return error(self._game_over(st), "the end")
        top = CARD[st["top"]]
        legal = " ".join(self.legal_moves())
        if move == PASS:
            return error(f"pass only answers an active ace, and {top} is not one (to let the turn go, draw; "
                         f"legal: {legal})", "aces skip")
        if move == DRAW:
            return error(f"an active ace ({top}): play an ace or pass, not draw (legal: {legal})", "aces skip")
        card = CARD[move if move < OBER else ((move - OBER) >> 2) * 8 + 5]
        why = self._not_held(card, st)
        if why is not None:
            return error(why, OWN_CARD)
        if st["sevens"]:
            n = st["sevens"]
            return error(f"an active 7 ({n} in the chain): play a 7 or draw {2 * n} (legal: {legal})", "7s stack")
        if st["ace"]:
            return error(f"an active ace ({top}): play an ace or pass (legal: {legal})", "aces skip")
        suit = _suit_name(st["suit"])
        if top.rank == Rank.QUEEN and st["suit"] != int(top.suit):
            return error(f"{card} does not follow the named suit {suit} (after {top} naming {suit}: a {suit} card "
                         f"or an Ober; legal: {legal})", "matching by suit or rank")
        return error(f"{card} matches neither the suit {suit} nor the rank {top.rank} of {top} (an Ober fits "
                     f"anything; legal: {legal})", "matching by suit or rank")

    # -- searching
    def _decode(self, value: int) -> tuple[int, int | None]:
        outcome, plies = decode(value, EXACT_WIN if self.horizon is None else self.horizon + 1)
        # nothing forced: a draw between two players; with more, P is not out first (§4.9)
        return (outcome if outcome or self.setup.seats == 2 else -1), plies

    def reported(self, value: int) -> int:
        return self._decode(value)[0]

    def distance(self, value: int) -> int | None:
        return self._decode(value)[1]

    def unreported(self, value: int) -> int | None:
        # a win or a loss at any distance (a summary reads only the outcome)
        raw = (value > 0) - (value < 0)
        return raw if self.reported(raw) == value else None

    def search(self, searcher: Any, mode: int, cancel: Any, timeout: float | None,
               want_pv: bool = True, helpers: Sequence[tuple[Any, Any]] = ()
               ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        with _search_budget.tallied(searcher) as tally:
            return self._search(tally, mode, cancel, timeout, want_pv, helpers)

    def _search(self, searcher: _search_budget.Tally, mode: int, cancel: Any, timeout: float | None,
                want_pv: bool, helpers: Sequence[tuple[Any, Any]]
                ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        if self.history_full:
            # No action can follow the history's last (docs/RULES.md §4.1): the value is what the
            # history has settled, with no action to rank (the search would list the actions the
            # position refuses).
            value = self._search_value(searcher, cancel, timeout, helpers)
            return value, [], [], searcher.spent
        if self.horizon is None:                  # the exact analysis runs on one thread
            return self._exact(searcher, mode, cancel, timeout, want_pv)
        deadline = _search_budget.deadline(timeout)
        self.own_progress = None
        shorter, _ = self._forced_sooner(searcher, self.horizon, 0, cancel, deadline, helpers)
        if shorter is not None:
            # An end forced within the shorter horizon: the same end within this one, and the same
            # optimal moves. A move that forces none within it may force one later: look on, and
            # where one forces none sooner, search within this horizon after all.
            value, moves, pv, _ = self._solve_within(searcher, shorter, mode, cancel, deadline, want_pv, helpers)
            known = within(value, shorter, self.horizon)
            found: list[tuple[int, int | None]] = []
            final = self._window_ends_history(shorter)       # nothing follows the window: 0 stays 0
            for move, v in moves:
                if v == 0 and not final:
                    self._show_answered(moves, len(found), value, known)
                    later, v = self._forced_after(searcher, move, self.horizon, shorter, cancel, deadline, helpers)
                    if later is None:
                        break
                    v = within(v, later, self.horizon - 1)
                elif v is not None:
                    v = within(v, shorter, self.horizon)
                found.append((move, v))
            else:
                self.own_progress = None
                return known, found, pv, searcher.spent
            # (what is known stays the progress until the search within the horizon knows more)
            self._show_answered(moves, len(found), value, known)
        value, moves, pv, _ = self._solve_within(searcher, self.horizon, mode, cancel, deadline, want_pv, helpers)
        self.own_progress = None
        return value, moves, pv, searcher.spent

    def _show_answered(self, moves: list[tuple[int, int | None]], done: int, value: int, known: int) -> None:
        """own_progress while the moves after the first `done` of `moves` (their values within the
        shorter horizon, the position's `value` there and `known` within this one) that force no
        end within it are searched on: those that do are answered, the best of them known (the
        searches after a move are not of this position: the core's progress says nothing of it)."""
        answered = done + sum(1 for _, v in moves[done:] if v != 0)
        best = next((move for move, v in moves if v == value), None)
        self.own_progress = SearchProgress(answered=answered, moves=len(moves), value=self.reported(known),
                                           move=None if best is None else self.move_name(best),
                                           at_least=self.is_max(self.to_move))

    def _exact(self, searcher: Any, mode: int, cancel: Any, timeout: float | None, want_pv: bool,
               value_only: bool = False) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """exact_solve, its refusal said in words: which position or action, and what to do instead."""
        try:
            return exact_solve(self, searcher, mode, cancel, timeout, want_pv, value_only)
        except Unproven as exc:
            where, hint = "", ""
            if exc.action is not None:
                where = f" after '{exc.action}'"
                hint = " or ask for the optimal actions only (mode optimal: the value itself is proven)"
            raise InvalidOptionError(
                f"options.horizon null: no side can force the end within {prsi_exact.EXACT_PROOF_HORIZON} plies"
                f"{where} and the game reachable from this position has more than {prsi_exact.EXACT_STATE_CAP:,} "
                f"states, too many to prove a draw; give a horizon (plies, e.g. {DEFAULT_HORIZON}){hint} "
                f"({HORIZON_RULE})",
                token=exc.action or "horizon", rule=HORIZON_RULE, field="options.horizon") from None

    def _solve_within(self, searcher: _search_budget.Tally, horizon: int, mode: int, cancel: Any, deadline: float | None,
                      want_pv: bool, helpers: Sequence[tuple[Any, Any]]
                      ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """Searcher.solve of the board's position within `horizon` plies."""
        self._searching_root = horizon == self.horizon
        self._set_search(helpers, horizon)
        found: tuple[int, list[tuple[int, int | None]], list[int], int] = searcher.solve(
            self.board, mode, cancel, _search_budget.time_left(deadline), want_pv=want_pv, helpers=helpers)
        return found

    def _forced_after(self, searcher: _search_budget.Tally, move: int, horizon: int, shorter: int, cancel: Any,
                      deadline: float | None, helpers: Sequence[tuple[Any, Any]]) -> tuple[int | None, int]:
        """_forced_sooner after `move`, within `horizon` from the board's position (one ply less
        after `move`), nothing forced within `shorter` (the window before `move`) already."""
        boards = (self.board, *(board for _, board in helpers))
        for board in boards:
            board.play(move)
        try:
            return self._forced_sooner(searcher, horizon - 1, shorter - 1, cancel, deadline, helpers)
        finally:
            for board in boards:
                board.undo()

    def search_value(self, searcher: Any, cancel: Any, timeout: float | None,
                     helpers: Sequence[tuple[Any, Any]] = ()) -> int:
        with _search_budget.tallied(searcher) as tally:
            return self._search_value(tally, cancel, timeout, helpers)

    def _search_value(self, searcher: _search_budget.Tally, cancel: Any, timeout: float | None,
                      helpers: Sequence[tuple[Any, Any]]) -> int:
        self.own_progress = None
        if self.horizon is None:
            return self._exact(searcher, 0, cancel, timeout, False, value_only=True)[0]
        deadline = _search_budget.deadline(timeout)
        return self._deepened_value(searcher, self.horizon, cancel, deadline, helpers)

    def _deepened_value(self, searcher: _search_budget.Tally, horizon: int, cancel: Any, deadline: float | None,
                        helpers: Sequence[tuple[Any, Any]] = ()) -> int:
        """The value of the board's position within `horizon` plies, coded for it, the shorter
        horizons tried first (shorter_horizons)."""
        shorter, raw = self._forced_sooner(searcher, horizon, 0, cancel, deadline, helpers)
        if shorter is not None:
            return within(raw, shorter, horizon)
        return self._value_within(searcher, horizon, cancel, deadline, helpers, True)

    def _forced_sooner(self, searcher: _search_budget.Tally, horizon: int, after: int, cancel: Any,
                       deadline: float | None, helpers: Sequence[tuple[Any, Any]]) -> tuple[int | None, int]:
        """(shorter, value): the first of shorter_horizons(horizon, after) within which an end is
        forced from the board's position (or whose window reaches the history's limit), and the
        value within it; shorter None (value 0) where none is."""
        for shorter in shorter_horizons(horizon, after):
            raw = self._value_within(searcher, shorter, cancel, deadline, helpers, False)
            if raw or self._window_ends_history(shorter):
                return shorter, raw
        return None, 0

    def _value_within(self, searcher: _search_budget.Tally, horizon: int, cancel: Any, deadline: float | None,
                      helpers: Sequence[tuple[Any, Any]], root: bool) -> int:
        """The value of one search of the board's position within `horizon` plies (root: the
        position asked within its own horizon, whose progress is shown)."""
        self._searching_root = root
        self._set_search(helpers, horizon)
        raw: int = searcher.value(self.board, cancel, _search_budget.time_left(deadline), helpers=helpers)
        return raw

    def _window_ends_history(self, horizon: int) -> bool:
        """Whether a window of `horizon` plies from the board reaches the history's limit, after
        which no action follows (§4.1): nothing forced within it is nothing forced within more."""
        return bool(self.board.ply + horizon >= _prsi.MAX_HISTORY)

    def _set_search(self, helpers: Sequence[tuple[Any, Any]], horizon: int) -> None:
        """The search's player and `horizon`, on this board and every helper thread's."""
        for board in (self.board, *(board for _, board in helpers)):
            board.set_search(self.player, horizon)

    def action_value(self, searcher: Any, before: int, optimal: bool, after: int, cancel: Any,
                     timeout: float | None) -> tuple[int, int]:
        if optimal:
            return before, 0
        if self.horizon is None:
            # The exact analysis codes a forced end by its plies from the position searched: from
            # the one before the action, one ply more (so that distance() reads the action's).
            return after - (after > 0) + (after < 0), 0
        # One ply in, the window ends where the search before the action ended.
        deadline = _search_budget.deadline(timeout)
        self.own_progress = None
        with _search_budget.tallied(searcher) as tally:
            return self._deepened_value(tally, self.horizon - 1, cancel, deadline), tally.spent

    # -- results
    def summary(self, line: Sequence[int], value: int) -> LineSummary:
        for move in line:
            self.board.play(move)
        st = self.board.state
        for _ in line:
            self.board.undo()
        seats = self.setup.seats
        # Keys as the other games name sides: identifiers (seat0, seat0_out), not phrases.
        scores = {f"seat{i}": bin(m).count("1") for i, m in enumerate(st["hands"])}
        places = st["places"]
        outcomes = {f"seat{i}_out": bool(places[i]) for i in range(seats)}
        settlement = [0] * seats
        if self.setup.play_on:
            if st["done"]:
                loser = next(i for i in range(seats) if not places[i])
                settlement = [1] * seats
                settlement[loser] = -(seats - 1)
        elif st["first_out"] is not None:
            settlement = [-1] * seats
            settlement[st["first_out"]] = seats - 1
        return LineSummary(scores=scores, tricks={}, won=self.reported(value) > 0, settlement=settlement,
                           outcomes=outcomes)


# ---------------------------------------------------------------- searching ever longer horizons

def shorter_horizons(horizon: int, after: int = 0) -> list[int]:
    """The horizons over `after` that a search within `horizon` plies tries first, shortest first:
    every DEEPEN_STEP-th from DEEPEN_FIRST, each at least DEEPEN_STEP plies short of `horizon` (one
    closer costs nearly what the search within `horizon` does); none within DEFAULT_HORIZON or less.

    A forced end within a shorter horizon is the end within `horizon` (the winner can force it no
    sooner, the loser delay it no longer); nothing forced within one says nothing of a longer.  It
    pays where an end is forced well inside the horizon, as it often is (the bundled example's
    optimal first move within 40 plies: under 1 ms, where the search within 40 alone takes 0.9 s);
    where none is, the shorter searches cost a little more (``bench_prsi.py --long``,
    benchmarks/RESULTS.md)."""
    if horizon <= DEFAULT_HORIZON:
        return []
    return [h for h in range(DEEPEN_FIRST, horizon - DEEPEN_STEP + 1, DEEPEN_STEP) if h > after]


def within(value: int, shorter: int, horizon: int) -> int:
    """A search value within `shorter` plies (a forced end at ply d coded ±(shorter + 1 - d)) coded
    for `horizon` plies instead, the window where that end is forced too."""
    if value > 0:
        return value + horizon - shorter
    if value < 0:
        return value - horizon + shorter
    return 0


@dataclass(frozen=True)
class Deepening:
    """The value of a position within one horizon, as ``deepen`` found it."""

    horizon: int
    value: int
    distance: int | None
    nodes: int
    elapsed: float               # seconds since deepen started


def deepen(position: Any, seconds: float | None, *, first: int = 1, last: int = MAX_HORIZON,
           tt_mb: int = 2) -> list[Deepening]:
    """Search `position` (a Prší Position, its document or JSON text) within horizons first, first + 1, ...
    until `seconds` have passed (None or math.inf: to `last`); one entry per horizon finished, the
    longest last.

    The anytime way to ask Prší "how far can you see in this time": each search keeps the
    table of the shorter ones (its entries hold for any horizon: they are keyed on the plies
    left).  A search cut off by the time is not reported.  For one horizon known in advance a
    solve is cheaper: it tries shorter horizons too, but every fourth only (shorter_horizons),
    where deepening ply by ply took about 2.4x the nodes of the search within the horizon alone on
    fresh two-player deals (the entries of the shorter searches are rarely met again at the same
    plies left).
    """
    from ddcards._core.search import Searcher
    from ddcards.api import TT_MB_RULE, check_timeout, check_tt_mb, whole_argument
    from ddcards.api.arguments import as_position

    # as a timeout: NaN or negative refused (NaN deepened on and on), None or math.inf no limit
    budget = check_timeout(seconds, "seconds")
    horizons = []
    for name, value in (("first", first), ("last", last)):
        whole = whole_argument(value)       # any integer type (numpy's too), as every whole-number argument
        if whole is None:
            raise InvalidArgumentTypeError(f"{name} is a horizon, a whole number from 1 to {MAX_HORIZON}, not "
                                           f"{argument_shown(value)}", token=argument_token(value),
                                           rule=HORIZON_RULE, field=name)
        if not 1 <= whole <= MAX_HORIZON:
            raise InvalidOptionError(f"{name} is a horizon, a whole number from 1 to {MAX_HORIZON}, not {whole!r} "
                                     f"({HORIZON_RULE})", token=token_text(whole), rule=HORIZON_RULE, field=name)
        horizons.append(whole)
    first, last = horizons
    if first > last:
        raise InvalidOptionError(f"first ({first}) is after last ({last}): no horizon to search", token=str(first),
                                 rule=HORIZON_RULE, field="first")
    if tt_mb is None or whole_argument(tt_mb) is None:      # (no table sized per game here)
        raise InvalidArgumentTypeError(f"tt_mb is the table's size, a whole number of MiB, not "
                                       f"{argument_shown(tt_mb)}", token=argument_token(tt_mb), rule=TT_MB_RULE,
                                       field="tt_mb")
    # 1 to this machine's memory (not None: "give None" was no advice here, where None is refused)
    size = check_tt_mb(tt_mb, unset="leave it out for the default, 2 MiB")
    assert size is not None
    pos = as_position(position)          # a Position, its document or JSON text, as solve takes
    if pos.game != "prsi":
        raise InvalidOptionError(f"deepen searches Prší positions, not {pos.game} ({HORIZON_RULE})", token=pos.game,
                                 rule=HORIZON_RULE)
    session = pos.session()
    assert isinstance(session, PrsiSession)
    searcher = Searcher(size)
    start = time.perf_counter()
    out: list[Deepening] = []
    for horizon in range(first, last + 1):
        left = None if budget is None else budget - (time.perf_counter() - start)
        if left is not None and left <= 0:
            break
        session.horizon = horizon
        session.board.set_search(session.player, horizon)
        try:
            raw = searcher.value(session.board, None, left)
        except SearchTimeout:
            break
        out.append(Deepening(horizon, session.reported(raw), session.distance(raw), searcher.nodes,
                             time.perf_counter() - start))
    return out


# ---------------------------------------------------------------- the exact analysis

def unproven_action(exc: BaseException) -> bool:
    """Whether `exc` is the exact analysis's refusal to value one action (not the position itself): the
    search of every action's value (mode "all") failed where mode "optimal" proves the value.
    The report and the board, which ask every action's value and have no mode to choose, fall
    back to mode "optimal" on it (docs/RULES.md §4.9)."""
    return (isinstance(exc, InvalidOptionError) and getattr(exc, "field", None) == "options.horizon"
            and getattr(exc, "rule", None) == HORIZON_RULE and getattr(exc, "token", "horizon") != "horizon")


def every_value_or_optimal(search: Callable[[str], T]) -> T:
    """``search("all")``, or ``search("optimal")`` where mode "all" fails only because one action's
    value cannot be proven without a horizon (unproven_action): what the report and the board,
    which ask every action's value and offer no mode, show then (docs/RULES.md §4.9)."""
    try:
        return search("all")
    except InvalidOptionError as exc:
        if not unproven_action(exc):
            raise
        return search("optimal")



# ---------------------------------------------------------------- the game

class Prsi(Game):
    info = INFO

    def parse(self, doc: Mapping[str, Any]) -> PrsiSetup:
        return parse_setup(doc)

    def replay(self, setup: PrsiSetup) -> PrsiSession:
        session = PrsiSession(setup)
        for token in setup.played:
            session.play(token)
        session.player = setup.player if setup.player is not None else \
            (session.to_move if not session.over else setup.leader)
        return session

    def long_search(self, setup: PrsiSetup) -> str | None:
        """A horizon of LONG_SEARCH_HORIZON plies or more: where no end is forced sooner, the
        search's cost grows steeply with it (mode optimal, where the position's end is forced
        sooner, and the exact analysis, ``horizon: null``, often answer at once)."""
        if setup.horizon is None or setup.horizon < LONG_SEARCH_HORIZON:
            return None
        return (f"a Prší search within {setup.horizon} plies: where no end is forced sooner (from the position "
                "or, in mode all, after one of its actions) its cost can grow tenfold or more with every five "
                "plies past 30 (seconds to hours); mode optimal, or the exact analysis (\"horizon\": null), "
                "often answers at once")

    def normalise(self, s: PrsiSetup) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": "prsi",
            "hands": [format_hand(h) for h in s.hands],
            "upcard": str(s.upcard),
            "stock": format_cards(s.stock),
        }
        if s.leader:
            out["leader"] = s.leader
        options: dict[str, Any] = {}
        if s.horizon != DEFAULT_HORIZON:
            options["horizon"] = s.horizon
        if s.player is not None:
            options["player"] = s.player
        if s.play_on:
            options["play_on"] = True
        if s.not_last:
            options["not_last"] = True
        if s.comeback:
            options["return"] = True
        if options:
            out["options"] = options
        out["played"] = list(s.played)
        return out


GAME = Prsi()
