"""Mariáš (Volený mariáš, 3 players) — docs/RULES.md §1.

Seat 0 is forehand and the declarer; seats 1 and 2 defend together.  Values
are the declarer's: Hra — his final points minus the defenders'; Betl, Durch,
and the Sedma and Kilo objectives — +1 if he makes it, -1 if not.
The card play itself runs in C (``_marias.pyx``); this module validates the
position document, names cards and explains illegal plays.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ddcards.errors import IllegalPlayError, InvalidDealError, InvalidOptionError
from ddcards.games import _marias
from ddcards.games._document import (cards_field, check_deal, check_fields, check_hand_sizes, hands_field,
                                    options_field, played_field)
from ddcards.games._cards import CardSession
from ddcards.games.base import Game, GameInfo, LineSummary, OptionInfo, Score
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand

DECK = tuple(Card(rank, suit) for suit in Suit for rank in Rank if rank != Rank.SIX)
HAND_SIZE = 10
TALON_SIZE = 2

# Rank order (power 0 = lowest) per contract; the C module compares powers.
HRA_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE)
BETL_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)

OBJECTIVES = {"hra": _marias.OBJ_HRA, "sedma": _marias.OBJ_SEDMA, "kilo": _marias.OBJ_KILO,
              "betl": _marias.OBJ_BETL, "durch": _marias.OBJ_DURCH}
BASE_VALUE = {"hra": 1, "betl": 5, "durch": 10}
HRA_ONLY_OPTIONS = ("marriage_on_follow", "talon_points", "sedma_value", "kilo_value")
FIELDS = ("game", "hands", "talon", "contract", "trump", "objective", "flek", "options", "played", "leader")

# The clauses of docs/RULES.md that errors cite (as `.rule`, and in the message).
DECK_RULE = "docs/RULES.md §1.1 rule 2: 32 cards, 7 8 9 T J Q K A in each suit"
CONTRACT_RULE = "docs/RULES.md §1.2 rule 1: the contract is hra, betl or durch"
TRUMP_RULE = "docs/RULES.md §1.2 rule 2: Hra is played with a trump suit"
NO_TRUMP_RULE = "docs/RULES.md §1.2 rule 3: Betl and Durch are played without trumps"
OBJECTIVE_RULE = "docs/RULES.md §1.2 rule 4: the objective of hra is hra, sedma or kilo; of betl and durch, itself"
FLEK_RULE = "docs/RULES.md §1.2 rule 5: flek is 0 (none), 1 (flek) or 2 (re)"
LEADER_RULE = "docs/RULES.md §1.2 rule 6: forehand (seat 0) declares and leads the first trick"
TALON_RULE = "docs/RULES.md §1.3 rule 2: the talon holds the 2 cards forehand discarded"
HRA_TALON_RULE = "docs/RULES.md §1.3 rule 3: no ace or ten may be discarded in Hra"
FOLLOW_RULE = "docs/RULES.md §1.4 rule 2: holding the led suit you must play it"
BEAT_RULE = "docs/RULES.md §1.4 rule 2: you must beat the best card of the led suit in the trick if you can"
TRUMP_IN_RULE = "docs/RULES.md §1.4 rule 3: void in the led suit you must play a trump"
OVERTRUMP_RULE = "docs/RULES.md §1.4 rule 3: you must beat the highest trump in the trick if you can"

INFO = GameInfo(
    name="marias",
    title="Mariáš (Volený mariáš)",
    seats=(3,),
    contracts=("hra", "betl", "durch"),
    objectives={"hra": ("hra", "sedma", "kilo"), "betl": ("betl",), "durch": ("durch",)},
    options=(
        OptionInfo("marriage_on_follow", "bool", False,
                   "a marriage also scores when its K or O is played as a follower"),
        OptionInfo("talon_points", "str", "defenders",
                   "who scores the card points in the talon", ("defenders", "nobody")),
        OptionInfo("sedma_value", "int", 1, "stake of the Sedma objective (doubled in hearts)"),
        OptionInfo("kilo_value", "int", 2, "stake of the Kilo objective (doubled in hearts)"),
    ),
    aliases=("mariáš", "mariash", "voleny", "volený mariáš", "voleny marias"),
    sides=("declarer", "defenders"),
    value_doc="hra: declarer's final points - defenders'; betl/durch/sedma/kilo: +1 made, -1 not",
)


@dataclass(frozen=True)
class MariasSetup:
    hands: tuple[tuple[Card, ...], ...]
    talon: tuple[Card, ...]
    contract: str
    trump: Suit | None
    objective: str
    flek: int
    options: Mapping[str, Any]
    played: tuple[str, ...]


def parse_setup(doc: Mapping[str, Any]) -> MariasSetup:
    """Validate a Mariáš position document (everything but the history's legality)."""
    check_fields(doc, FIELDS, "marias")

    contract = doc.get("contract", "hra")
    if not isinstance(contract, str) or contract.lower() not in INFO.contracts:
        raise InvalidOptionError(f"unknown contract {contract!r} ({CONTRACT_RULE})",
                                 token=str(contract), rule=CONTRACT_RULE, field="contract")
    contract = contract.lower()

    trump_text = doc.get("trump")
    trump: Suit | None = None
    if contract == "hra":
        if trump_text in (None, ""):
            raise InvalidOptionError(f"contract 'hra' needs a trump suit (field 'trump', e.g. \"H\"; {TRUMP_RULE})",
                                     token="trump", rule=TRUMP_RULE, field="trump")
        if not isinstance(trump_text, str):
            raise InvalidOptionError(f"trump must be a suit such as \"H\", not {trump_text!r} ({TRUMP_RULE})",
                                     token=repr(trump_text), rule=TRUMP_RULE, field="trump")
        trump = Suit.parse(trump_text)
    elif trump_text not in (None, ""):
        raise InvalidOptionError(f"trump {trump_text!r} given for {contract} ({NO_TRUMP_RULE})",
                                 token=str(trump_text), rule=NO_TRUMP_RULE, field="trump")

    objective = doc.get("objective")
    if objective is None:
        objective = contract
    if not isinstance(objective, str) or objective.lower() not in INFO.objectives[contract]:
        raise InvalidOptionError(f"objective {objective!r} does not apply to {contract} ({OBJECTIVE_RULE})",
                                 token=str(objective), rule=OBJECTIVE_RULE, field="objective")
    objective = objective.lower()

    flek = doc.get("flek", 0)
    if not isinstance(flek, int) or isinstance(flek, bool) or flek not in (0, 1, 2):
        raise InvalidOptionError(f"flek {flek!r} is not 0, 1 or 2 ({FLEK_RULE})",
                                 token=str(flek), rule=FLEK_RULE, field="flek")

    leader = doc.get("leader", 0)
    if not isinstance(leader, int) or isinstance(leader, bool) or leader != 0:
        raise InvalidOptionError(f"leader {leader!r}: only seat 0 leads in Mariáš ({LEADER_RULE})",
                                 token=str(leader), rule=LEADER_RULE, field="leader")

    why = f"{contract} has no points, marriages or trumps"
    options = options_field(doc, INFO, not_here={name: why for name in HRA_ONLY_OPTIONS} if contract != "hra"
                            else None)
    hands = hands_field(doc, 3, HAND_SIZE, "Mariáš")
    if "talon" not in doc:
        raise InvalidDealError(f"Mariáš needs the talon (field 'talon'; {TALON_RULE})",
                               token="talon", rule=TALON_RULE, field="talon")
    talon = cards_field(doc["talon"], "talon")

    check_deal([(f"hand {seat}", hand) for seat, hand in enumerate(hands)] + [("talon", talon)], "Mariáš",
               deck_rule=DECK_RULE)
    check_hand_sizes(hands, HAND_SIZE, "Mariáš", " for card play, forehand's 12 less the 2 discarded")
    if len(talon) != TALON_SIZE:
        shown = f" ({format_cards(talon)})" if talon else ""
        raise InvalidDealError(f"the talon holds {TALON_SIZE} cards, not {len(talon)}{shown} ({TALON_RULE})",
                               token=format_cards(talon) or "talon", rule=TALON_RULE, field="talon")
    if contract == "hra":
        for card in talon:
            if card.rank in (Rank.ACE, Rank.TEN):
                raise InvalidDealError(f"talon card '{card}' may not be discarded ({HRA_TALON_RULE})",
                                       token=str(card), rule=HRA_TALON_RULE, field="talon")

    played = played_field(doc)
    return MariasSetup(hands, talon, contract, trump, objective, flek, options, played)


def _salt(setup: MariasSetup) -> tuple[int, int]:
    """Table keys carry the parameters that change a position's future value."""
    text = f"marias|{setup.objective}|{setup.trump}|{setup.options['marriage_on_follow']}"
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


def _card_tables(order: tuple[Rank, ...]) -> tuple[dict[Card, int], dict[int, Card], dict[int, str]]:
    """card -> code, code -> card, code -> name for one rank order (built once)."""
    power = {rank: i for i, rank in enumerate(order)}
    code = {card: int(card.suit) * 8 + power[card.rank] for card in DECK}
    return code, {c: card for card, c in code.items()}, {c: str(card) for card, c in code.items()}


_TABLES = {"hra": _card_tables(HRA_ORDER), "betl": _card_tables(BETL_ORDER)}


class MariasSession(CardSession):
    deck_title = "Mariáš"
    deck_rule = DECK_RULE
    all_tricks = "all ten tricks"
    trick_size = 3
    side_names = ("declarer", "defenders")
    value_owner = "declarer"
    suit_names = ("zelené", "červené", "kule", "žaludy")      # the German-suited Czech deck

    def __init__(self, setup: MariasSetup):
        self.setup = setup
        self._code, self._card, self._name = _TABLES["hra" if setup.contract == "hra" else "betl"]
        masks = [sum(1 << self._code[c] for c in hand) for hand in setup.hands]
        talon_points = 0
        if setup.contract == "hra" and setup.options["talon_points"] == "defenders":
            talon_points = 10 * sum(1 for c in setup.talon if c.rank in (Rank.ACE, Rank.TEN))
        salt0, salt1 = _salt(setup)
        self.board = _marias.MariasBoard(
            masks, -1 if setup.trump is None else int(setup.trump), OBJECTIVES[setup.objective],
            setup.options["marriage_on_follow"], talon_points, salt0, salt1)
        self.history: list[str] = []

    def is_max(self, seat: int) -> bool:
        return seat == 0

    def describe(self) -> dict[str, Any]:
        s = self.setup
        title = f"Mariáš {s.contract}"
        if s.trump is not None:
            title += f", trumps {s.trump}"
        if s.objective != s.contract:
            title += f", objective {s.objective}"
        if s.flek:
            title += ", " + ("flek", "re")[s.flek - 1]
        return {"title": title, "hands": [format_hand(h) for h in self.hands()],
                "talon": format_cards(s.talon), "trick": [str(c) for c in self.trick()]}

    def seat_role(self, seat: int) -> str:
        return "declarer" if seat == 0 else "defender"

    def table(self) -> dict[str, Any]:
        return {"talon": self.setup.talon}

    def score(self) -> Score:
        """Hra: points (cards, last trick, marriages) and tricks by side; Betl/Durch: tricks."""
        st = self.board.state
        tricks = dict(zip(self.side_names, st["tricks"]))
        if self.setup.contract != "hra":
            return Score(tricks=tricks)
        # The board knows the marriage each card scored: step back to the deal's
        # start and forward again, reading it after every card.
        codes = [self.move_code(token) for token in self.history]
        for _ in codes:
            self.board.undo()
        marriages = [0, 0]
        for code in codes:
            side = 0 if self.is_max(self.board.to_move) else 1
            self.board.play(code)
            marriages[side] += self.board.state["marriage"]
        return Score(points=dict(zip(self.side_names, st["points"])), tricks=tricks,
                     parts={"marriages": dict(zip(self.side_names, marriages))})

    # -- illegal plays
    def _where_else(self, card: Card) -> str | None:
        return "that card is in the talon" if card in self.setup.talon else None

    def _illegal_in_hand(self, card: Card, where: str) -> IllegalPlayError:
        st = self.board.state
        hand = self._cards(st["hands"][st["turn"]])
        trick = [self._card[c] for c in st["trick"]]
        legal = format_cards(self._cards(self.board.legal_mask()))
        led = trick[0].suit
        trump = self.setup.trump
        if card.suit != led and any(c.suit == led for c in hand):
            return IllegalPlayError(
                f"{where}: must follow suit {led} ({FOLLOW_RULE}; legal: {legal})",
                token=str(card), rule=FOLLOW_RULE)
        if card.suit == led:
            best = max((c for c in trick if c.suit == led), key=lambda c: self._code[c])
            return IllegalPlayError(
                f"{where}: must beat {best} with a higher {led} ({BEAT_RULE}; legal: {legal})",
                token=str(card), rule=BEAT_RULE)
        if trump is not None and card.suit != trump:
            return IllegalPlayError(
                f"{where}: void in {led}, must trump ({TRUMP_IN_RULE}; legal: {legal})",
                token=str(card), rule=TRUMP_IN_RULE)
        best = max((c for c in trick if c.suit == trump), key=lambda c: self._code[c])
        return IllegalPlayError(
            f"{where}: must overtrump {best} ({OVERTRUMP_RULE}; legal: {legal})",
            token=str(card), rule=OVERTRUMP_RULE)

    # -- results
    def summary(self, line: Sequence[int], value: int) -> LineSummary:
        for move in line:
            self.board.play(move)
        st = self.board.state
        for _ in line:
            self.board.undo()
        setup = self.setup
        if setup.contract == "hra":
            scores = {"declarer": st["points"][0], "defenders": st["points"][1]}
            outcomes = {"sedma": st["sedma"], "kilo": st["kilo"] >= 100}
        else:
            scores = {"declarer": st["tricks"][0], "defenders": st["tricks"][1]}
            outcomes = {}
        won = value > 0
        return LineSummary(scores=scores, tricks={"declarer": st["tricks"][0], "defenders": st["tricks"][1]},
                           won=won, settlement=settlement(setup, won), outcomes=outcomes)


def stake(setup: MariasSetup) -> int:
    """Money per defender for the game asked (docs/RULES.md §1.8)."""
    hearts = setup.trump == Suit.H
    if setup.objective == "sedma":
        base = setup.options["sedma_value"] * (2 if hearts else 1)
    elif setup.objective == "kilo":
        base = setup.options["kilo_value"] * (2 if hearts else 1)
    else:
        base = BASE_VALUE[setup.contract] * (2 if hearts and setup.contract == "hra" else 1)
    return base * (2 ** setup.flek)


def settlement(setup: MariasSetup, won: bool) -> list[int]:
    """Each defender pays the declarer the stake, or receives it if he loses (docs/RULES.md §1.8 rule 3)."""
    v = stake(setup) if won else -stake(setup)
    return [2 * v, -v, -v]


class Marias(Game):
    info = INFO

    def parse(self, doc: Mapping[str, Any]) -> MariasSetup:
        return parse_setup(doc)

    def replay(self, setup: MariasSetup) -> MariasSession:
        session = MariasSession(setup)
        for token in setup.played:
            session.play(token)
        return session

    def normalise(self, s: MariasSetup) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": "marias",
            "hands": [format_hand(h) for h in s.hands],
            "talon": format_cards(s.talon),
            "contract": s.contract,
        }
        if s.trump is not None:
            out["trump"] = str(s.trump)
        if s.objective != s.contract:
            out["objective"] = s.objective
        if s.flek:
            out["flek"] = s.flek
        changed = {k: v for k, v in s.options.items() if v != INFO.option(k).default}
        if changed:
            out["options"] = changed
        out["played"] = list(s.played)
        return out


GAME = Marias()
