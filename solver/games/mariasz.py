"""Mariasz (Polish, the stock game) — docs/RULES.md §3.

Two players with six cards each and a stock whose order is known, solved
exactly from the first trick; the variants szlifowany (24 cards), ślepy
(trumps drawn before the deal), Kiks (four players in pairs) and three
players.  Values (docs/RULES.md §3.8):

- ``points``: two players, seat 0's deal points − seat 1's (cards, last trick,
  marriages); Kiks, team {0, 2}'s − team {1, 3}'s; three players, the deal
  points of seat ``options.player``;
- ``race`` to 131 from ``start_scores``: +1 if seat 0's side (three players:
  ``player``) reaches 131 first, −1 if another side does, 0 if no one does.

The card play runs in C (``_mariasz.pyx`` and its ``.pxd`` files); this module
validates the position document, maps notation to card codes, explains
illegal actions and reads the end of a line (scores, claims, the stake).

>>> import ddcards
>>> pos = ddcards.Position.from_dict(ddcards.example("mariasz-phase2"))   # the stock is used up
>>> pos.table["stock"], pos.to_move, pos.legal_moves                      # phase 2: seat 0 leads
((), 0, ('AS', '8S', '9H', '6H', 'AD', 'KD'))
>>> res = ddcards.solve(pos)
>>> res.value, res.optimal_moves, res.scores["seat0"], res.scores["seat1"]
(64, ['AD', 'KD'], 101, 37)
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ddcards.errors import (DdcardsError, IllegalPlayError, InvalidCardError, InvalidDealError, InvalidOptionError,
                            NotationError)
from ddcards.games import _mariasz
from ddcards._jsonio import shown, token_text
from ddcards.games._document import (HANDS_RULE, as_dealt_hint, cards_field, cards_text, check_fields, dealt_twice,
                                     hands_field, in_field, misplaced_places, options_field, place_field,
                                     played_field, unset)
from ddcards.games.base import Game, GameInfo, LineSummary, OptionInfo, Score, Session, TrickCard
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand
from ddcards.result import ValueKind, spoken

E = TypeVar("E", bound=DdcardsError)

TARGET = 131
EXCHANGE = "exchange"
EXCHANGE_CODE = _mariasz.EXCHANGE
VARIANTS = ("standard", "kiks", "three")
SEATS = {"standard": 2, "kiks": 4, "three": 3}
# the game as its messages name it, by variant
VARIANT_TITLES = {"standard": "Mariasz", "kiks": "Kiks", "three": "Mariasz for three"}
CONTRACT = "play"
FIELDS = ("game", "hands", "stock", "trump", "objective", "start_scores", "first_deal", "options", "played",
          "leader", "contract")

FULL_RANKS = tuple(Rank)                                                  # 6 .. A
SZLIFOWANY_RANKS = (Rank.SIX, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)
FULL_DECK = tuple(Card.of(rank, suit) for suit in Suit for rank in FULL_RANKS)
SZLIFOWANY_DECK = tuple(Card.of(rank, suit) for suit in Suit for rank in SZLIFOWANY_RANKS)
# Strength order (power 0 = lowest) in a plain suit and in the trump suit (§3.1).
PLAIN_ORDER = (Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE)
TRUMP_ORDER = (Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.JACK, Rank.KING, Rank.TEN, Rank.ACE, Rank.QUEEN)
POINTS = {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2}
PAMFIL_POINTS = 11

INFO = GameInfo(
    name="mariasz",
    title="Mariasz (Polish)",
    seats=(2, 3, 4),
    contracts=(CONTRACT,),
    objectives={CONTRACT: ("points", "race")},
    options=(
        OptionInfo("variant", "str", "standard",
                   "standard: two players and a stock; kiks: four players in pairs, 9 cards each; "
                   "three: three players, each for himself", VARIANTS),
        OptionInfo("szlifowany", "bool", False, "the 24-card deck (6 T J Q K A): 6 each and 12 in the stock "
                   "(three players: 8 each)"),
        OptionInfo("slepy", "bool", False, "ślepy: the trump suit is drawn before the deal and given by 'trump', "
                   "whatever the turned card"),
        OptionInfo("must_beat", "bool", False, "phase 2: beat the trick if you can (as in modern 66)"),
        OptionInfo("marriage_on_second", "bool", False,
                   "a marriage also scores when its K or Q is played as a follower and wins the trick"),
        OptionInfo("player", "int", 0, "three players: the seat solved for, against the other two", maximum=2,
                   meaning="the seat solved for (three players)"),
    ),
    aliases=("mariasz polski", "polish mariasz"),
    sides=("seat0", "seat1"),
    value_doc="points: seat 0's deal points - seat 1's (Kiks: team 0's - team 1's; three players: the points "
              "of the seat options.player); race: +1 if seat 0 (three players: options.player) reaches 131 first, "
              "-1 if another side does, 0 if no one does in this deal",
    # searches of 10^6-10^8 nodes from the first trick or mid-stock: against 2 MiB, 32 MiB saves
    # 29-53% of their nodes, 16 MiB 26-47%, 64 no more CPU (benchmarks/RESULTS.md, Mariasz, table size)
    table_mb=32,
    table_mb_max=1024,          # a fresh 36-card deal (TABLE_BY_STOCK)
)

# The table by the cards still in a two-player stock (points): the search grows about 3x a
# trick and the table that serves it best grows with it; a larger one only adds cache misses
# before that (benchmarks/RESULTS.md, Mariasz, "the table by the position"): (at least this
# many cards, MiB).
TABLE_BY_STOCK = ((24, 1024), (22, 512), (16, 128))
# Three players with 36 cards, by the cards left in the hands: a deal's first tricks are the
# long searches (up to minutes; 128 MiB halves them, a smaller search gives up nothing measurable).
TABLE_THREE = ((27, 128),)
# Points with this many cards or more left in a two-player stock: a search of tens of seconds
# to minutes (Mariasz.long_search); a race too where each side starts this far from 131.
LONG_SEARCH_STOCK = 20
LONG_RACE_NEED = 60


@dataclass(frozen=True)
class MariaszSetup:
    variant: str
    szlifowany: bool
    slepy: bool
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    trump: Suit
    objective: str
    start_scores: tuple[int, ...]
    first_deal: bool
    options: Mapping[str, Any]
    played: tuple[str, ...]
    leader: int

    @property
    def nseats(self) -> int:
        return SEATS[self.variant]

    @property
    def nsides(self) -> int:
        return 2 if self.variant == "kiks" else self.nseats

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.variant == "kiks" else seat

    @property
    def maxside(self) -> int:
        return self.options["player"] if self.variant == "three" else 0

    @property
    def side_names(self) -> tuple[str, ...]:
        word = "team" if self.variant == "kiks" else "seat"
        return tuple(f"{word}{i}" for i in range(self.nsides))

    @property
    def dealer(self) -> int:
        return (self.leader - 1) % self.nseats

    @property
    def deck(self) -> tuple[Card, ...]:
        return SZLIFOWANY_DECK if self.szlifowany else FULL_DECK


# ---------------------------------------------------------------- reading a document

# The clauses a bad document breaks (DdcardsError.rule), as every game cites docs/RULES.md.
KIKS_DECK_RULE = "docs/RULES.md §3.10: Kiks is played with the 36-card deck"
PLAYER_RULE = "docs/RULES.md §3.10: option player is a seat of the three-player game"
OBJECTIVE_RULE = "docs/RULES.md §3.8: the objectives are points and race"
LEADER_RULE = "docs/RULES.md §3.2: leader is a seat"
STOCK_RULE = "docs/RULES.md §3.2: the stock holds the undealt cards in draw order, the turned trump last"
ALL_DEALT_RULE = "docs/RULES.md §3.10: Kiks and three players deal every card; trumps are the dealer's last card's"
SLEPY_RULE = "docs/RULES.md §3.10: ślepy, trumps are drawn before the deal and given by trump"
TURNED_TRUMP_RULE = "docs/RULES.md §3.2: the turned trump fixes trumps"
DEALER_TRUMP_RULE = "docs/RULES.md §3.10: the dealer's last card fixes trumps"
RACE_RULE = "docs/RULES.md §3.8: race to 131, with start_scores and first_deal"
EXCHANGE_RULE = "docs/RULES.md §3.7: the trump six exchange"


def _clause(n: str, what: str) -> str:
    """A citation of docs/RULES.md §3: "4.2" is §3.4 rule 2, "10" the clause §3.10."""
    section, _, number = n.partition(".")
    return f"docs/RULES.md §3.{section}{f' rule {number}' if number else ''}: {what}"


def _error(cls: type[E], message: str, *, token: str, rule: str, field: str | None = None) -> E:
    """The error with its clause in the message, as every error of the project reads; `field`:
    the document field at fault (see DdcardsError.field)."""
    return cls(message if rule in message else f"{message} ({rule})", token=token, rule=rule, field=field)


def _int(value: Any, name: str, rule: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _error(InvalidOptionError, f"{name} must be a whole number, not {shown(value)}", token=token_text(value),
                     rule=rule, field=field)
    return value


def deck_rule(szlifowany: bool) -> str:
    if szlifowany:
        return _clause("10", "szlifowany is played with 24 cards, 6 T J Q K A in each suit")
    return _clause("1", "36 cards, 6 to A in each suit")


def _check_cards(places: Sequence[tuple[str, Sequence[Card]]], szlifowany: bool) -> None:
    """Each card once, every card of the variant's deck."""
    seen: dict[Card, str] = {}
    deck = deck_rule(szlifowany)
    for where, cards in places:
        for card in cards:
            if szlifowany and card.rank not in SZLIFOWANY_RANKS:
                raise InvalidCardError(f"card '{card}' in {where} is not in the szlifowany deck ({deck})",
                                       token=str(card), rule=deck, field=place_field(where))
            if card in seen:
                rule = _clause("2", "hands and stock hold each card of the deck once")
                raise _error(InvalidDealError, dealt_twice(card, seen[card], where),
                             token=str(card), rule=rule, field=place_field(where))
            seen[card] = where


def _played(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The history in canonical notation: cards and `exchange`."""
    return played_field(doc, actions=(EXCHANGE,), rule=_clause("2", "played is a list of actions, cards and 'exchange'"),
                        what="actions: cards and 'exchange'")


def parse_setup(doc: Mapping[str, Any]) -> MariaszSetup:
    """Validate a Mariasz position document (everything but the history's legality)."""
    doc = check_fields(doc, FIELDS, "mariasz")
    contract = doc.get("contract", CONTRACT)
    if not isinstance(contract, str) or contract.strip().lower() != CONTRACT:
        rule = _clause("2", "the contract, if given, is 'play'")
        raise _error(InvalidOptionError, f"unknown contract {shown(contract)}: Mariasz has the single contract "
                     f"'{CONTRACT}' (the objective and the options say the rest)", token=token_text(contract),
                     rule=rule, field="contract")
    options = options_field(doc, INFO)
    variant = options["variant"]
    szlifowany, slepy = options["szlifowany"], options["slepy"]
    nseats = SEATS[variant]
    title = VARIANT_TITLES[variant]
    if variant == "kiks" and szlifowany:
        raise _error(InvalidOptionError, "Kiks is played with the 36-card deck (9 cards each): option "
                     "'szlifowany' does not apply", token="szlifowany", rule=KIKS_DECK_RULE,
                     field="options.szlifowany")
    if variant != "three" and "player" in (doc.get("options") or {}):
        raise _error(InvalidOptionError, "option 'player' applies to three players only (variant 'three'): "
                     "with two players and in Kiks the value is seat 0's side's", token="player",
                     rule=PLAYER_RULE, field="options.player")
    if variant == "three" and not 0 <= options["player"] < 3:
        raise _error(InvalidOptionError, f"option 'player' is a seat 0..2, not {options['player']}",
                     token=str(options["player"]), rule=PLAYER_RULE, field="options.player")

    objective = doc.get("objective", "points")
    if not isinstance(objective, str) or objective.strip().lower() not in ("points", "race"):
        raise _error(InvalidOptionError,
                     f"unknown objective {shown(objective)}: Mariasz objectives are points and race",
                     token=token_text(objective), rule=OBJECTIVE_RULE, field="objective")
    objective = objective.strip().lower()

    leader = doc.get("leader", 0)
    if isinstance(leader, bool) or not isinstance(leader, int) or not 0 <= leader < nseats:
        raise _error(InvalidOptionError, f"leader must be a seat 0..{nseats - 1}, not {shown(leader)}",
                     token=token_text(leader), rule=LEADER_RULE, field="leader")

    size = 6 if nseats == 2 else (24 if szlifowany else 36) // nseats
    _check_hand_count(doc, variant, title)
    hands = hands_field(doc, nseats, title)
    stock: tuple[Card, ...] = ()
    if nseats == 2:
        if "stock" not in doc:
            raise _error(InvalidDealError, "Mariasz needs the stock (field 'stock': the undealt cards in draw "
                         "order, the turned trump last)", token="stock", rule=STOCK_RULE, field="stock")
        stock = cards_field(doc["stock"], "stock")
    elif "stock" in doc:
        raise _error(InvalidOptionError, f"{title} has no stock: all cards are dealt (leave out field 'stock')",
                     token="stock", rule=ALL_DEALT_RULE, field="stock")
    _check_cards([(f"hand {seat}", hand) for seat, hand in enumerate(hands)] + [("the stock", stock)], szlifowany)
    why = {2: " (two players take 6 each)", 3: " (three players share the deck)", 4: " (Kiks deals 9 each)"}
    deck_size = 24 if szlifowany else 36
    # The 24 cards of the szlifowany deck without the option: the option left out, not cards played
    # or misplaced (Kiks has no such deck: its own error says so once the option is set).
    dealt = {card for hand in hands for card in hand} | set(stock)
    forgot = ("; these are the 24 cards of the szlifowany deck: set option 'szlifowany'"
              if not szlifowany and variant != "kiks" and dealt == set(SZLIFOWANY_DECK) else "")
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            rule = _clause("2", f"{title} hands hold {size} cards")
            # the hands and the stock holding the whole deck: a card in the wrong place, not cards played
            misplaced = misplaced_places(hands, size, deck_size, [("the stock", len(stock))])
            raise _error(InvalidDealError, f"hand {seat} has {cards_text(len(hand))}; {title} hands hold "
                         f"{size}{why[nseats]}{forgot or as_dealt_hint(len(hand), size, misplaced)}",
                         token=f"hand {seat}", rule=rule, field=f"hands[{seat}]")
    if nseats == 2 and len(stock) != deck_size - 12:
        raise _error(InvalidDealError, f"the stock holds {deck_size - 12} cards ({deck_size} in the deck, 6 in "
                     f"each hand), not {len(stock)}{forgot}", token="stock", rule=STOCK_RULE, field="stock")

    with in_field("trump"):
        trump = _trump(doc, variant, slepy, hands, stock, leader)
    nsides = 2 if variant == "kiks" else nseats
    start_scores, first_deal = _race_fields(doc, objective, nsides)
    return MariaszSetup(variant, szlifowany, slepy, hands, stock, trump, objective, start_scores, first_deal,
                        options, _played(doc), leader)


def _check_hand_count(doc: Mapping[str, Any], variant: str, title: str) -> None:
    """Hands for another variant's table (three for three players, four for Kiks) name the option
    that seats them: the count alone ("needs 2 hands, got 3") does not say how to ask for it."""
    raw = doc.get("hands")
    if not isinstance(raw, (list, tuple)) or len(raw) == SEATS[variant]:
        return
    other = next((name for name, seats in SEATS.items() if seats == len(raw)), None)
    if other is None:
        return                      # hands_field says how many are needed
    ask = {"standard": "two players with a stock are option variant 'standard' (the default)",
           "kiks": "four players in pairs (Kiks) are option variant 'kiks'",
           "three": "three players are option variant 'three'"}[other]
    raise InvalidDealError(f"{title} needs {SEATS[variant]} hands (field 'hands'), got {len(raw)}: {ask} "
                           f"({HANDS_RULE})", token="hands", rule=HANDS_RULE, field="hands")


def _trump(doc: Mapping[str, Any], variant: str, slepy: bool, hands: Sequence[Sequence[Card]],
           stock: Sequence[Card], leader: int) -> Suit:
    text = doc.get("trump")
    given: Suit | None = None
    if not unset(text):
        if not isinstance(text, (str, Suit)):
            rule = _clause("2", "trump is a suit")
            raise _error(InvalidOptionError, f"trump must be a suit such as \"H\", not {shown(text)}",
                         token=token_text(text), rule=rule)
        given = Suit.parse(text)
    if given is None and slepy:                 # drawn before the deal: no card says it
        raise _error(InvalidOptionError, f"ślepy {VARIANT_TITLES[variant]} needs the trump suit drawn before the "
                     "deal (field 'trump')", token="trump", rule=SLEPY_RULE)
    if variant == "standard":
        turned = stock[-1]
        if slepy and given is not None:         # (given: ślepy without it is refused above)
            return given
        if given is not None and given != turned.suit:
            raise _error(InvalidOptionError, f"trump {given} contradicts the turned card {turned} (the stock's "
                         "last card fixes trumps; option 'slepy' draws them apart)", token=str(given),
                         rule=TURNED_TRUMP_RULE)
        return turned.suit
    if given is None:
        raise _error(InvalidOptionError, "Kiks and three players need the trump suit (field 'trump': the suit of "
                     "the dealer's last card)", token="trump", rule=ALL_DEALT_RULE)
    dealer = (leader - 1) % len(hands)
    if not slepy and not any(card.suit == given for card in hands[dealer]):
        raise _error(InvalidDealError, f"trump {given}: the dealer (seat {dealer}) holds no {given}, so his last "
                     "card cannot have fixed trumps (option 'slepy' draws them apart)", token=str(given),
                     rule=DEALER_TRUMP_RULE)
    return given


def _race_fields(doc: Mapping[str, Any], objective: str, nsides: int) -> tuple[tuple[int, ...], bool]:
    rule = RACE_RULE
    if objective != "race":
        for name in ("start_scores", "first_deal"):
            if name in doc:
                raise _error(InvalidOptionError, f"field '{name}' applies to the race objective only (objective "
                             f"'{objective}' scores this deal alone)", token=name, rule=rule, field=name)
        return (0,) * nsides, True
    raw = doc.get("start_scores")
    if raw is None:
        scores = (0,) * nsides
    else:
        if not isinstance(raw, (list, tuple)) or len(raw) != nsides:
            raise _error(InvalidOptionError, f"start_scores needs {nsides} scores (one per side), not {shown(raw)}",
                         token=token_text(raw), rule=rule, field="start_scores")
        scores = tuple(_int(v, "a start score", rule, f"start_scores[{i}]") for i, v in enumerate(raw))
        for v in scores:
            if not 0 <= v < TARGET:
                raise _error(InvalidOptionError, f"start score {v} is outside 0..130 (reaching 131 ends the game)",
                             token=str(v), rule=rule, field="start_scores")
    carried = any(scores)
    first = doc.get("first_deal")
    if first is None:
        first = not carried
    elif not isinstance(first, bool):
        raise _error(InvalidOptionError, f"first_deal is true or false, not {shown(first)}", token=token_text(first),
                     rule=rule, field="first_deal")
    elif first and carried:
        raise _error(InvalidOptionError, f"first_deal is true but start_scores {list(scores)} carry points from "
                     "earlier deals", token="first_deal", rule=rule, field="first_deal")
    return scores, first


# ---------------------------------------------------------------- card codes

def card_codes(trump: Suit) -> dict[Card, int]:
    """Card -> C code (suit * 16 + power in its suit's order) for this trump suit."""
    codes = {}
    for suit in Suit:
        order = TRUMP_ORDER if suit == trump else PLAIN_ORDER
        for power, rank in enumerate(order):
            codes[Card.of(rank, suit)] = int(suit) * 16 + power
    return codes


def card_points(card: Card, trump: Suit) -> int:
    if card.rank == Rank.QUEEN and card.suit == trump:
        return PAMFIL_POINTS
    return POINTS.get(card.rank, 0)


def _card_tables(trump: Suit) -> tuple[dict[Card, int], list[int], list[int], list[int]]:
    """For one trump suit: card -> code, and by code the points, the marriage partner's code
    (-1 for cards other than K and Q) and the marriage's points (built once)."""
    codes = card_codes(trump)
    points, partner, marriage = [0] * 64, [-1] * 64, [0] * 64
    for card, code in codes.items():
        points[code] = card_points(card, trump)
        if card.rank in (Rank.KING, Rank.QUEEN):
            partner[code] = codes[Card.of(Rank.QUEEN if card.rank == Rank.KING else Rank.KING, card.suit)]
            marriage[code] = 40 if card.suit == trump else 20
    return codes, points, partner, marriage


_TABLES = {suit: _card_tables(suit) for suit in Suit}


def _salt(setup: MariaszSetup) -> tuple[int, int]:
    """Table keys carry everything a deal fixes that changes a position's future (the stock's order too)."""
    opts = setup.options
    text = (f"mariasz|{setup.variant}|{setup.szlifowany}|{setup.objective}|{setup.trump}|{opts['must_beat']}|"
            f"{opts['marriage_on_second']}|{setup.maxside}|{setup.start_scores}|{format_cards(setup.stock)}")
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


# ---------------------------------------------------------------- the session

class MariaszSession(Session):
    """A Mariasz deal replayed to a position."""

    def __init__(self, setup: MariaszSetup):
        self.setup = setup
        trump = setup.trump
        self._code, points, partner, marriage = _TABLES[trump]
        self._card = {c: card for card, c in self._code.items()}
        self._deck = frozenset(setup.deck)
        self.side_names = setup.side_names
        six = Card.of(Rank.SIX, trump)
        exchangeable = (setup.nseats == 2 and setup.stock[-1].suit == trump and setup.stock[-1] != six)
        salt0, salt1 = _salt(setup)
        self.board = _mariasz.MariaszBoard(
            [sum(1 << self._code[c] for c in hand) for hand in setup.hands],
            [setup.side_of(seat) for seat in range(setup.nseats)], setup.maxside, int(trump),
            _mariasz.OBJ_POINTS if setup.objective == "points" else _mariasz.OBJ_RACE,
            [self._code[c] for c in setup.stock], self._code[six] if exchangeable else -1,
            [TARGET - s for s in setup.start_scores], points, partner, marriage,
            setup.options["must_beat"], setup.options["marriage_on_second"], setup.leader, salt0, salt1)
        self.board.refresh_guess()
        self.history: list[str] = []
        self.trick_size = setup.nseats
        self.value_owner = "team 0" if setup.variant == "kiks" else f"seat {setup.maxside}"
        # What a race's values mean (RULES §3.8), and what the points margin measures.
        others = "another player" if setup.variant == "three" else "the other side"
        self.value_legend = f"+1 reaches 131 first, -1 {others} does, 0 no one in this deal"
        if setup.variant == "three":            # paranoid (RULES §3.10): the other two as one side
            self.value_legend += ", the other two playing together against him"
            self.margin_meaning = (f"seat {setup.maxside}'s deal points (cards, last trick, marriages), the other "
                                   "two playing together against him")
        else:
            names = ("team 0", "team 1") if setup.variant == "kiks" else ("seat 0", "seat 1")
            self.margin_meaning = f"{names[0]}'s deal points - {names[1]}'s (cards, last trick, marriages)"

    # -- naming
    def move_name(self, move: int) -> str:
        return EXCHANGE if move == EXCHANGE_CODE else str(self._card[move])

    def move_code(self, token: str) -> int:
        if isinstance(token, str) and token.strip().lower() == EXCHANGE:
            return EXCHANGE_CODE
        card = Card.parse(token)
        if card not in self._deck:
            rule = deck_rule(self.setup.szlifowany)
            raise InvalidCardError(f"card '{card}' is not in the {'szlifowany ' if self.setup.szlifowany else ''}"
                                   f"deck ({rule})", token=str(card), rule=rule)
        return self._code[card]

    def move_order(self, move: int) -> tuple[int, ...]:
        if move == EXCHANGE_CODE:
            return (-1, 0)
        return (move >> 4, -(move & 15))             # exchange, then suits S H D C, strongest first

    def _cards(self, mask: int) -> list[Card]:
        return sorted((self._card[c] for c in self._card if mask >> c & 1), key=lambda c: (c.suit, -self._code[c]))

    # -- state
    @property
    def to_move(self) -> int:
        return int(self.board.to_move)

    @property
    def over(self) -> bool:
        return bool(self.board.finished)

    def is_max(self, seat: int) -> bool:
        return self.setup.side_of(seat) == self.setup.maxside

    def legal_moves(self) -> list[str]:
        moves = [EXCHANGE_CODE] if self.board.can_exchange() else []
        mask = self.board.legal_mask()
        moves += [c for c in self._card if mask >> c & 1]
        return [self.move_name(m) for m in sorted(moves, key=self.move_order)]

    def hands(self) -> list[list[Card]]:
        return [self._cards(m) for m in self.board.state["hands"]]

    def current_trick(self) -> list[TrickCard]:
        st = self.board.state
        return [TrickCard((st["leader"] + i) % self.setup.nseats, self._card[c]) for i, c in enumerate(st["trick"])]

    def table(self) -> dict[str, Any]:
        """Two players: the stock left to draw, in draw order (the turned trump last).  A race:
        each side's total (start score and this deal's points) and, once made, the claim."""
        s, st = self.setup, self.board.state
        out: dict[str, Any] = {}
        if s.nseats == 2:
            out["stock"] = tuple(self._card[c] for c in st["stock"])
        if s.objective == "race":
            totals = (start + points for start, points in zip(s.start_scores, st["points"]))
            out["race"] = ", ".join(f"{spoken(side)} {total}" for side, total in zip(self.side_names, totals)) + \
                f" (first to {TARGET} wins)"
            if st["claimed"] is not None:
                out["claimed"] = f"{spoken(self.side_names[st['claimed']])} reached {TARGET}"
        return out

    def score(self) -> Score:
        """Points (cards, last trick, marriages), tricks and marriages by side."""
        st = self.board.state
        sides = self.side_names
        marriages = [0] * len(sides)
        for seat, points in enumerate(st["marriage_points"]):
            marriages[self.setup.side_of(seat)] += points
        return Score(points=dict(zip(sides, st["points"])), tricks=dict(zip(sides, st["tricks"])),
                     parts={"marriages": dict(zip(sides, marriages))})

    def trick_done(self) -> bool:
        # The exchange leaves the table empty without ending a trick.
        return bool(self.history) and self.history[-1] != EXCHANGE and not self.board.state["trick"]

    def describe(self) -> dict[str, Any]:
        s = self.setup
        st = self.board.state
        title = VARIANT_TITLES[s.variant]
        extras = [f"trumps {s.trump}"]
        if s.szlifowany:
            extras.append("szlifowany")
        if s.slepy:
            extras.append("ślepy")
        if s.objective == "race":
            extras.append(f"race from {'/'.join(map(str, s.start_scores))}"
                          + (" (first deal)" if s.first_deal else ""))
        if s.variant == "three":
            extras.append(f"solved for seat {s.maxside}")
        out: dict[str, Any] = {"title": f"{title}, " + ", ".join(extras),
                               "hands": [format_hand(self._cards(h)) for h in st["hands"]],
                               "trick": [str(self._card[c]) for c in st["trick"]]}
        if s.nseats == 2:
            out["stock"] = format_cards(self._card[c] for c in st["stock"]) or "-"
        return out

    def seat_role(self, seat: int) -> str:
        s = self.setup
        if s.variant == "kiks":
            return f"team {seat % 2}"
        if s.variant == "three":
            return "solved" if seat == s.maxside else "opponent"
        return "dealer" if seat == s.dealer else "forehand"

    @property
    def value_kind(self) -> ValueKind:
        """A points margin, or a race's outcome: +1, 0 (nobody reaches 131 this deal) or -1."""
        return "points" if self.setup.objective == "points" else "outcome"

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        s = self.setup
        if s.objective == "race":
            if value == 0:
                return "no one reaches 131 in this deal"
            if s.variant == "three":
                return f"seat {s.maxside} reaches 131 first" if value > 0 else f"seat {s.maxside} loses the race"
            names = ("team 0", "team 1") if s.variant == "kiks" else ("seat 0", "seat 1")
            return f"{names[0 if value > 0 else 1]} reaches 131 first"
        if s.variant == "three":
            return f"seat {s.maxside}'s deal points"
        names = ("team 0", "team 1") if s.variant == "kiks" else ("seat 0", "seat 1")
        if value == 0:
            return "the points are level"
        return f"{names[0 if value > 0 else 1]} scores more"

    def value_detail(self, res: Any) -> str:
        """The scores behind a value, for people: points, or race totals and the claim."""
        names = self.side_names
        sc = res.scores
        married = ", ".join(f"seat {i} {sc[f'seat{i}_marriages']}" for i in range(self.setup.nseats)
                            if sc.get(f"seat{i}_marriages"))
        if self.setup.objective == "points":
            text = ", ".join(f"{spoken(name)} {sc[name]}" for name in names)
        else:
            text = "totals " + ", ".join(f"{spoken(name)} {sc[f'{name}_total']}" for name in names)
            claimer = next((name for name in names if res.outcomes.get(f"{name}_claims")), None)
            text += f"; {spoken(claimer)} claims, stake {sc['stake']}" if claimer else "; no claim"
        return text + (f"; marriages {married}" if married else "")

    def trick_ends(self, moves: Sequence[str]) -> list[bool]:
        """As a Session's, but 'exchange' is no card of a trick: it stays with the lead it precedes."""
        cards = len(self.board.state["trick"])          # the trick in progress is finished first
        ends = []
        for move in moves:
            if move != EXCHANGE:
                cards += 1
            ends.append(move != EXCHANGE and cards % self.setup.nseats == 0)
        return ends

    # -- play
    def play(self, token: str) -> None:
        ply = len(self.history)
        try:
            code = self.move_code(token)
        except NotationError as exc:
            raise type(exc)(f"played[{ply}]: {exc}", token=exc.token, rule=exc.rule,
                            field=f"played[{ply}]") from None
        if code == EXCHANGE_CODE:
            if not self.board.can_exchange():
                with in_field(f"played[{ply}]"):
                    raise self._no_exchange(ply)
        elif self.board.finished or not self.board.legal_mask() >> code & 1:
            with in_field(f"played[{ply}]"):
                raise self._illegal(self._card[code], ply)
        self.board.play(code)
        self.board.refresh_guess()
        self.history.append(self.move_name(code))

    def _over_why(self) -> tuple[str, str]:
        """Why nothing more is played, and the one rule that says so (a claim's, or the end's)."""
        st = self.board.state
        if st["claimed"] is not None:
            name = spoken(self.side_names[st["claimed"]])          # "seat 1", "team 1", as elsewhere
            return (f"the deal is over: {name} reached {TARGET} and claimed",
                    _clause("8", "a race ends at the claim: nothing is played after it"))
        return (f"the deal is over: all {st['tricks_played']} tricks have been played",
                _clause("12", "nothing is played after the deal has ended"))

    def _no_exchange(self, ply: int) -> IllegalPlayError:
        s = self.setup
        st = self.board.state
        rule = EXCHANGE_RULE
        # by whom, as a card's error says it (none once the deal is over: nobody is to move)
        where = f"played[{ply}] 'exchange'" + ("" if self.board.finished else f" by seat {st['turn']}")
        six = Card.of(Rank.SIX, s.trump)
        if self.board.finished:
            why, rule = self._over_why()
        elif s.nseats != 2:
            why = "there is no stock to exchange with in Kiks or with three players"
        elif st["trick"]:
            why = "the exchange is made on lead, before leading, not in the middle of a trick"
        elif not st["stock"]:
            why = "the stock is empty: the turned trump has been drawn"
        elif st["exchanged"]:
            why = "the trump six has already been exchanged in this deal"
        elif s.stock[-1] == six:
            why = f"the turned card is the trump six {six} itself"
        elif s.stock[-1].suit != s.trump:
            why = f"the turned card {s.stock[-1]} is not a trump (ślepy: trumps are {s.trump})"
        else:
            seat, code = st["turn"], self._code[six]
            holder = next((i for i, m in enumerate(st["hands"]) if m >> code & 1), None)
            if holder is not None:
                held = f"seat {holder} holds it"
            elif code in st["stock"]:
                held = "it is still in the stock"
            else:
                held = "it has been played"
            why = f"seat {seat} does not hold the trump six {six} ({held})"
        return IllegalPlayError(f"{where}: {why} ({rule})", token=EXCHANGE, rule=rule)

    def _illegal(self, card: Card, ply: int) -> IllegalPlayError:
        st = self.board.state
        seat = st["turn"]
        where = f"played[{ply}] '{card}' by seat {seat}"
        if self.board.finished:
            why, rule = self._over_why()
            return _error(IllegalPlayError, f"played[{ply}] '{card}': {why}", token=str(card), rule=rule)
        code = self._code[card]
        hands = st["hands"]
        if not hands[seat] >> code & 1:
            owner = next((i for i, m in enumerate(hands) if m >> code & 1), None)
            if owner is not None:
                why = f"that card is in seat {owner}'s hand, not seat {seat}'s"
            elif code in st["stock"]:
                why = f"that card is still in the stock ({len(st['stock'])} cards left)"
            else:
                why = "that card has already been played"
            rule = _clause("12", "a card is played from the mover's hand")
            return _error(IllegalPlayError, f"{where}: {why}", token=str(card), rule=rule)
        hand = self._cards(hands[seat])
        trick = [self._card[c] for c in st["trick"]]
        legal = format_cards(self._cards(self.board.legal_mask()))
        led, trump = trick[0].suit, self.setup.trump
        order = {c: self._code[c] for c in hand + trick}
        # Kiks and three players have no stock: §3.4 holds from the first trick, not "phase 2"
        phase = "phase 2, " if self.setup.variant == "standard" else ""
        if card.suit != led and any(c.suit == led for c in hand):
            rule = _clause("4.2", f"{phase}follow suit")
            return IllegalPlayError(f"{where}: must follow suit {led} ({rule}; legal: {legal})", token=str(card),
                                    rule=rule)
        if card.suit == led:
            best = max((c for c in trick if c.suit == led), key=order.__getitem__)
            rule = _clause("4.5", "must_beat, beat the best card of the led suit")
            return IllegalPlayError(f"{where}: must beat {best} with a higher {led} ({rule}; legal: {legal})",
                                    token=str(card), rule=rule)
        if card.suit != trump:
            rule = _clause("4.3", f"{phase}trump when void")
            return IllegalPlayError(f"{where}: void in {led}, must trump ({rule}; legal: {legal})", token=str(card),
                                    rule=rule)
        best = max((c for c in trick if c.suit == trump), key=order.__getitem__)
        rule = _clause("4.5", "must_beat, overtrump")
        return IllegalPlayError(f"{where}: must overtrump {best} ({rule}; legal: {legal})", token=str(card),
                                rule=rule)

    # -- results
    def summary(self, line: Sequence[int], value: int) -> LineSummary:
        for move in line:
            self.board.play(move)
        st = self.board.state
        for _ in line:
            self.board.undo()
        return line_summary(self.setup, st, value)


def line_summary(setup: MariaszSetup, st: Mapping[str, Any], value: int) -> LineSummary:
    """Scores, tricks, claims and the settlement at the end of a line (docs/RULES.md §3.9, §3.11)."""
    names = setup.side_names
    race = setup.objective == "race"
    scores = dict(zip(names, st["points"]))
    for seat in range(setup.nseats):
        scores[f"seat{seat}_marriages"] = st["marriage_points"][seat]
    if race:
        for side, name in enumerate(names):
            scores[f"{name}_total"] = setup.start_scores[side] + st["points"][side]
        scores["stake"] = 0 if st["claimed"] is None else (2 if setup.first_deal else 1)
    outcomes = {}
    if race:                                     # what the stake depends on
        for side, name in enumerate(names):
            outcomes[f"{name}_claims"] = st["claimed"] == side
        for seat in range(setup.nseats):
            outcomes[f"seat{seat}_swatowe"] = st["marriages"][seat] == 4
    money = settlement(setup, st)
    # Three players' points: the value is his deal points, positive as soon as he takes a point;
    # he wins the deal when his settlement does (more than a third of all points, §3.9).
    won = money[setup.maxside] > 0 if setup.nsides == 3 and not race else value > 0
    return LineSummary(scores=scores, tricks=dict(zip(names, st["tricks"])), won=won,
                       settlement=money, outcomes=outcomes)


def marriage_stake(points: int, count: int) -> int:
    """What a seat's marriages pay (§3.9): 1 each, a trump marriage 2; all four (swatowe) 5."""
    trump = 1 if points - 20 * count else 0          # the trump marriage is worth 40, the others 20
    return 5 if count == 4 else (count - trump) + 2 * trump


def stock_left(setup: MariaszSetup) -> int:
    """The cards left in the stock of a deal with one: a whole trick's draws come off it per
    trick played (the exchange is no card played)."""
    cards_played = sum(action != "exchange" for action in setup.played)
    return len(setup.stock) - cards_played // setup.nseats * setup.nseats


def settlement(setup: MariaszSetup, st: Mapping[str, Any]) -> list[int]:
    """Money per seat (§3.9); sums to 0."""
    n, sides = setup.nseats, setup.nsides
    if setup.objective == "points":
        pts = st["points"]
        if sides == 2:
            margin = pts[0] - pts[1]
            return [margin if setup.side_of(seat) == 0 else -margin for seat in range(n)]
        total = sum(pts)
        return [3 * pts[seat] - total for seat in range(n)]
    # race: what each side receives from each opponent side, then pairwise balances
    due = [0] * sides
    for seat in range(n):
        due[setup.side_of(seat)] += marriage_stake(st["marriage_points"][seat], st["marriages"][seat])
    if st["claimed"] is not None:
        due[st["claimed"]] += 2 if setup.first_deal else 1
    balance = [sum(due[a] - due[b] for b in range(sides) if b != a) for a in range(sides)]
    return [balance[setup.side_of(seat)] for seat in range(n)]


class Mariasz(Game):
    info = INFO

    def parse(self, doc: Mapping[str, Any]) -> MariaszSetup:
        return parse_setup(doc)

    def replay(self, setup: MariaszSetup) -> MariaszSession:
        session = MariaszSession(setup)
        for token in setup.played:
            session.play(token)
        return session

    def table_mb(self, setup: MariaszSetup) -> int:
        """More than the game's 32 MiB early in a long deal (TABLE_BY_STOCK, TABLE_THREE), for
        points.  A race keeps 32 MiB: a long one (low start scores) searches fewer nodes in a
        larger table, but takes no less time (benchmarks/RESULTS.md, Mariasz)."""
        tiers: tuple[tuple[int, int], ...]          # (cards left at least, MiB)
        if setup.objective == "points" and setup.stock:
            tiers, left = TABLE_BY_STOCK, stock_left(setup)
        elif setup.objective == "points" and setup.variant == "three" and not setup.szlifowany:
            cards_played = sum(action != "exchange" for action in setup.played)
            tiers, left = TABLE_THREE, sum(map(len, setup.hands)) - cards_played
        else:
            return self.info.table_mb
        return next((mb for cards, mb in tiers if left >= cards), self.info.table_mb)

    def long_search(self, setup: MariaszSetup) -> str | None:
        """Points in a two-player 36-card deal with LONG_SEARCH_STOCK or more cards left in the stock:
        its search takes tens of seconds to minutes (README, Mariasz: 9 s with 18 left, a minute or
        more for a fresh deal). A race there is as long where neither side's claim is near (each
        LONG_RACE_NEED or more from 131 by its start score; README: 9 s to over 3 minutes), so
        such a race is named too."""
        if setup.variant != "standard" or not setup.stock:
            return None
        race = setup.objective == "race"
        if race and min(TARGET - score for score in setup.start_scores) < LONG_RACE_NEED:
            return None
        left = stock_left(setup)
        if left < LONG_SEARCH_STOCK:
            return None
        what = (f"race with each side {LONG_RACE_NEED} or more points from 131 at the start" if race else "deal")
        return (f"a 36-card Mariasz {what} with {left} cards left in the stock, whose searches take tens of "
                "seconds to minutes")

    def normalise(self, s: MariaszSetup) -> dict[str, Any]:
        out: dict[str, Any] = {"game": "mariasz", "hands": [format_hand(h) for h in s.hands]}
        if s.stock:
            out["stock"] = format_cards(s.stock)
        out["trump"] = str(s.trump)
        out["objective"] = s.objective
        if s.objective == "race":
            out["start_scores"] = list(s.start_scores)
            out["first_deal"] = s.first_deal
        changed = INFO.changed_options(s.options)
        if changed:
            out["options"] = changed
        if s.leader:
            out["leader"] = s.leader
        out["played"] = list(s.played)
        return out


GAME = Mariasz()
