"""Mariáš (Volený mariáš, 3 players, or 4 with the dealer sitting out) — docs/RULES.md §1.

Seat 0 is forehand and the declarer; seats 1 and 2 defend together (seat 3,
in the four-player form, is the dealer, who sits the deal out).  Values are
the declarer's: Hra — his final points minus the defenders'; Betl, Durch,
and the Sedma and Kilo objectives — +1 if he makes it, -1 if not; the money
objective — his settlement over the parts of the game announced (a Hra with
Sedma and/or Kilo on top, §1.8 rule 5).
The card play itself runs in C (``_marias.pyx``); this module validates the
position document, names cards, explains illegal plays and settles.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ddcards._core.search import MODE_BEST
from ddcards.errors import IllegalPlayError, InvalidDealError, InvalidOptionError
from ddcards.games import _marias
from ddcards.games._document import (cards_field, check_deal, check_fields, check_hand_sizes, hands_field, in_field,
                                    options_field, played_field, unset)
from ddcards.games._cards import CardSession
from ddcards._jsonio import shown, token_text
from ddcards.games.base import Game, GameInfo, LineSummary, OptionInfo, Score
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand
from ddcards.result import ValueKind

DECK = tuple(Card.of(rank, suit) for suit in Suit for rank in Rank if rank != Rank.SIX)
HAND_SIZE = 10
TALON_SIZE = 2
DECK_SIZE = 32              # every card of the deck is in a hand or the talon, played or not

# Rank order (power 0 = lowest) per contract; the C module compares powers.
HRA_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE)
BETL_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)

OBJECTIVES = {"hra": _marias.OBJ_HRA, "sedma": _marias.OBJ_SEDMA, "kilo": _marias.OBJ_KILO,
              "betl": _marias.OBJ_BETL, "durch": _marias.OBJ_DURCH, "money": _marias.OBJ_MONEY}
BASE_VALUE = {"hra": 1, "betl": 5, "durch": 10}
HRA_ONLY_OPTIONS = ("marriage_on_follow", "talon_points", "sedma_value", "kilo_value")
FIELDS = ("game", "hands", "talon", "contract", "trump", "objective", "announcements", "flek", "players",
          "options", "played", "leader")
# The parts a Hra can carry on top (docs/RULES.md §1.2 rule 7), in their canonical order.
ANNOUNCEMENTS = ("sedma", "kilo")
ANNOUNCE_BITS = {"sedma": _marias.ANN_SEDMA, "kilo": _marias.ANN_KILO}
PLAYERS = (3, 4)
KILO_TARGET = 100

# The clauses of docs/RULES.md that errors cite (as `.rule`, and in the message).
DECK_RULE = "docs/RULES.md §1.1 rule 2: 32 cards, 7 8 9 T J Q K A in each suit"
PLAYERS_RULE = "docs/RULES.md §1.1 rule 5: players is 3, or 4 with the dealer (seat 3) sitting out"
CONTRACT_RULE = "docs/RULES.md §1.2 rule 1: the contract is hra, betl or durch"
TRUMP_RULE = "docs/RULES.md §1.2 rule 2: Hra is played with a trump suit"
NO_TRUMP_RULE = "docs/RULES.md §1.2 rule 3: Betl and Durch are played without trumps"
OBJECTIVE_RULE = ("docs/RULES.md §1.2 rule 4: the objective of hra is hra, sedma, kilo or money; "
                  "of betl and durch, itself or money")
FLEK_RULE = "docs/RULES.md §1.2 rule 5: flek is 0 (none), 1 (flek) or 2 (re)"
LEADER_RULE = "docs/RULES.md §1.2 rule 6: forehand (seat 0) declares and leads the first trick"
ANNOUNCE_RULE = "docs/RULES.md §1.2 rule 7: announcements are sedma and kilo, each at most once, on top of a Hra"
SEDMA_CARD_RULE = "docs/RULES.md §1.2 rule 8: Sedma is announced only by a declarer holding the 7 of trumps"
KILO_CARD_RULE = ("docs/RULES.md §1.2 rule 8: Kilo is announced only by a declarer holding the King and Ober "
                  "of trumps")
TALON_RULE = "docs/RULES.md §1.3 rule 2: the talon holds the 2 cards forehand discarded"
HRA_TALON_RULE = "docs/RULES.md §1.3 rule 3: no ace or ten may be discarded in Hra"
FOLLOW_RULE = "docs/RULES.md §1.4 rule 2: holding the led suit you must play it"
BEAT_RULE = "docs/RULES.md §1.4 rule 2: you must beat the best card of the led suit in the trick if you can"
TRUMP_IN_RULE = "docs/RULES.md §1.4 rule 3: void in the led suit you must play a trump"
OVERTRUMP_RULE = "docs/RULES.md §1.4 rule 3: you must beat the highest trump in the trick if you can"

INFO = GameInfo(
    name="marias",
    title="Mariáš (Volený mariáš)",
    seats=PLAYERS,
    contracts=("hra", "betl", "durch"),
    objectives={"hra": ("hra", "sedma", "kilo", "money"), "betl": ("betl", "money"), "durch": ("durch", "money")},
    options=(
        OptionInfo("marriage_on_follow", "bool", False,
                   "a marriage also scores when its K or O is played as a follower"),
        OptionInfo("talon_points", "str", "defenders",
                   "who scores the card points in the talon", ("defenders", "nobody")),
        OptionInfo("sedma_value", "int", 1, "stake of Sedma, announced or the objective (doubled in hearts)"),
        OptionInfo("kilo_value", "int", 2, "stake of Kilo, announced or the objective (doubled in hearts)"),
    ),
    aliases=("mariáš", "mariash", "voleny", "volený mariáš", "voleny marias"),
    sides=("declarer", "defenders"),
    value_doc="hra: declarer's final points - defenders'; betl/durch/sedma/kilo: +1 made, -1 not; "
              "money: the declarer's settlement over the announced parts",
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
    announcements: tuple[str, ...] = ()     # parts announced on top of a Hra, canonical order
    players: int = 3

    @property
    def default_objective(self) -> str:
        """What is solved when the document names no objective: a combined game's money."""
        return "money" if self.announcements else self.contract


def parse_setup(doc: Mapping[str, Any]) -> MariasSetup:
    """Validate a Mariáš position document (everything but the history's legality)."""
    doc = check_fields(doc, FIELDS, "marias")
    if doc.get("hands") is None:
        # a document without its hands: that first (a newcomer's first question), as Mariasz and Prší do
        hands_field(doc, 3, "Mariáš")

    contract = doc.get("contract", "hra")
    # spaces around a word are ignored, as in every other game's contract and objective
    if not isinstance(contract, str) or contract.strip().lower() not in INFO.contracts:
        raise InvalidOptionError(f"unknown contract {shown(contract)} ({CONTRACT_RULE})",
                                 token=token_text(contract), rule=CONTRACT_RULE, field="contract")
    contract = contract.strip().lower()

    trump_text = doc.get("trump")
    trump: Suit | None = None
    if contract == "hra":
        if unset(trump_text):
            raise InvalidOptionError(f"contract 'hra' needs a trump suit (field 'trump', e.g. \"H\"; {TRUMP_RULE})",
                                     token="trump", rule=TRUMP_RULE, field="trump")
        if not isinstance(trump_text, (str, Suit)):
            raise InvalidOptionError(f"trump must be a suit such as \"H\", not {shown(trump_text)} ({TRUMP_RULE})",
                                     token=token_text(trump_text), rule=TRUMP_RULE, field="trump")
        with in_field("trump"):
            trump = Suit.parse(trump_text)
    elif not unset(trump_text):
        raise InvalidOptionError(f"trump {shown(trump_text)} given for {contract} ({NO_TRUMP_RULE})",
                                 token=token_text(trump_text), rule=NO_TRUMP_RULE, field="trump")

    objective = doc.get("objective")
    if objective is not None and (not isinstance(objective, str)
                                  or objective.strip().lower() not in INFO.objectives[contract]):
        raise InvalidOptionError(f"objective {shown(objective)} does not apply to {contract} ({OBJECTIVE_RULE})",
                                 token=token_text(objective), rule=OBJECTIVE_RULE, field="objective")

    flek, players = table_fields(doc)

    why = f"{contract} has no points, marriages or trumps"
    options = options_field(doc, INFO, not_here={name: why for name in HRA_ONLY_OPTIONS} if contract != "hra"
                            else None)
    hands = active_hands(doc, players)
    if "talon" not in doc:
        # forehand's 12 cards and no talon is a deal as dealt, the contract table's input: say what to do
        dealt = (f": forehand (hand 0) holds {len(hands[0])} cards, the deal as dealt; put his 2 discards in "
                 f"'talon' to solve the play, or ask the contract table (`ddcards table`, dd_table) for every "
                 f"discard and contract" if len(hands[0]) == HAND_SIZE + TALON_SIZE else "")
        raise InvalidDealError(f"Mariáš needs the talon (field 'talon'{dealt}; {TALON_RULE})",
                               token="talon", rule=TALON_RULE, field="talon")
    talon = cards_field(doc["talon"], "talon")

    check_deal([(f"hand {seat}", hand) for seat, hand in enumerate(hands)] + [("talon", talon)], "Mariáš",
               deck_rule=DECK_RULE)
    check_hand_sizes(hands, HAND_SIZE, "Mariáš", " for card play, forehand's 12 less the 2 discarded",
                     deck=DECK_SIZE, elsewhere=[("the talon", len(talon))])
    if len(talon) != TALON_SIZE:
        listed = f" ({format_cards(talon)})" if talon else ""
        held = f"{len(talon)} card{'' if len(talon) == 1 else 's'}{listed}" if talon else "none"
        raise InvalidDealError(f"the talon must hold {TALON_SIZE} cards; it holds {held} ({TALON_RULE})",
                               token=format_cards(talon) or "talon", rule=TALON_RULE, field="talon")
    if contract == "hra":
        for card in talon:
            if card.rank in (Rank.ACE, Rank.TEN):
                raise InvalidDealError(f"talon card '{card}' may not be discarded ({HRA_TALON_RULE})",
                                       token=str(card), rule=HRA_TALON_RULE, field="talon")

    with in_field("announcements"):
        announcements = announcements_field(doc.get("announcements"), contract, trump, hands[0])
    if objective is None:
        objective = "money" if announcements else contract
    played = played_field(doc)
    # The talon is a set of two discards: one order (the cards' own, by suit then rank), so that
    # positions differing only in how it was written are one position.
    talon = tuple(sorted(talon))
    return MariasSetup(hands, talon, contract, trump, objective.strip().lower(), flek, options, played,
                       announcements, players)


def _not_one_of(field: str, value: Any, choices: str, rule: str) -> InvalidOptionError:
    """The error of a field that takes one of a few whole numbers: a number out of range said as
    such, anything else (a number in text, '1') as no whole number."""
    what = (f"{field} {shown(value)} is not {choices}" if isinstance(value, int) and not isinstance(value, bool)
            else f"{field} takes a whole number, {choices}, not {shown(value)}")
    return InvalidOptionError(f"{what} ({rule})", token=token_text(value), rule=rule, field=field)


def table_fields(doc: Mapping[str, Any]) -> tuple[int, int]:
    """`flek` and `players` (a position's and a contract table's), and `leader`, which can only
    be forehand (docs/RULES.md §1.2 rules 5 and 6, §1.1 rule 5)."""
    flek = doc.get("flek", 0)
    if not isinstance(flek, int) or isinstance(flek, bool) or flek not in (0, 1, 2):
        raise _not_one_of("flek", flek, "0, 1 or 2", FLEK_RULE)
    players = doc.get("players", 3)
    if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYERS:
        raise _not_one_of("players", players, "3 or 4", PLAYERS_RULE)
    leader = doc.get("leader", 0)
    if not isinstance(leader, int) or isinstance(leader, bool):     # "0", 0.0, true: the type is wrong
        raise _not_one_of("leader", leader, "0 (only seat 0 leads in Mariáš)", LEADER_RULE)
    if leader != 0:
        raise InvalidOptionError(f"leader {shown(leader)}: only seat 0 leads in Mariáš ({LEADER_RULE})",
                                 token=token_text(leader), rule=LEADER_RULE, field="leader")
    return flek, players


def active_hands(doc: Mapping[str, Any], players: int) -> tuple[tuple[Card, ...], ...]:
    """The three hands that play (docs/RULES.md §1.1 rule 5).  Four hands are refused by that rule,
    not by "one hand per seat": at a table of four the dealer has a seat but no cards."""
    raw = doc.get("hands")
    if isinstance(raw, (list, tuple)) and len(raw) == 4:
        why = ("the dealer (seat 3) sits out and holds no cards: give the three hands that play, forehand's first"
               if players == 4 else
               "three play; at a table of four give \"players\": 4 and the three hands that play, the dealer "
               "(seat 3) sitting out")
        raise InvalidDealError(f"Mariáš needs 3 hands (field 'hands'), got 4: {why} ({PLAYERS_RULE})",
                               token="hands", rule=PLAYERS_RULE, field="hands")
    return hands_field(doc, 3, "Mariáš")


def announcements_field(raw: Any, contract: str, trump: Suit | None,
                        forehand: Sequence[Card]) -> tuple[str, ...]:
    """The parts announced on top of a Hra, in canonical order (docs/RULES.md §1.2 rules 7 and 8):
    a list of names or one text ("sedma kilo"), any case; each must be possible from forehand's
    cards for card play."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        items: list[Any] = raw.replace(",", " ").split()
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise InvalidOptionError(f"announcements is a list such as [\"sedma\", \"kilo\"], not {shown(raw)} "
                                 f"({ANNOUNCE_RULE})", token=token_text(raw), rule=ANNOUNCE_RULE,
                                 field="announcements")
    names: list[str] = []
    for i, item in enumerate(items):
        where = f"announcements[{i}]"
        name = item.strip().lower() if isinstance(item, str) else None
        if name not in ANNOUNCEMENTS:
            raise InvalidOptionError(f"{where}: {shown(item)} is not an announcement (sedma, kilo; {ANNOUNCE_RULE})",
                                     token=token_text(item), rule=ANNOUNCE_RULE, field=where)
        if contract != "hra":
            raise InvalidOptionError(f"{where}: '{name}' is announced on top of a Hra, not in {contract} "
                                     f"({ANNOUNCE_RULE})", token=name, rule=ANNOUNCE_RULE, field=where)
        if name in names:
            raise InvalidOptionError(f"{where}: '{name}' is announced twice ({ANNOUNCE_RULE})",
                                     token=name, rule=ANNOUNCE_RULE, field=where)
        assert trump is not None                      # a Hra has one (checked before)
        missing = [card for card in required_cards(name, trump) if card not in forehand]
        if missing:
            rule = SEDMA_CARD_RULE if name == "sedma" else KILO_CARD_RULE
            raise InvalidOptionError(f"{where}: '{name}' cannot be announced: forehand (seat 0) does not hold "
                                     f"{' '.join(map(str, missing))} ({rule})", token=name, rule=rule, field=where)
        names.append(name)
    return tuple(sorted(names, key=ANNOUNCEMENTS.index))


def required_cards(announcement: str, trump: Suit) -> tuple[Card, ...]:
    """The cards forehand must hold to announce it: the trump 7 for Sedma, the trump King and
    Ober (the trump marriage) for Kilo (docs/RULES.md §1.2 rule 8)."""
    if announcement == "sedma":
        return (Card.of(Rank.SEVEN, trump),)
    return (Card.of(Rank.KING, trump), Card.of(Rank.QUEEN, trump))


def can_announce(announcement: str, trump: Suit, forehand: Sequence[Card]) -> bool:
    return all(card in forehand for card in required_cards(announcement, trump))


# ----------------------------------------------------------------- stakes and money

def part_stakes(contract: str, trump: Suit | None, options: Mapping[str, Any], flek: int) -> dict[str, int]:
    """What each defender pays per part (docs/RULES.md §1.8 rules 1 and 2): Hra 1, Sedma and Kilo
    their options' values, all doubled in hearts; Betl 5, Durch 10; everything x 2^flek."""
    factor = 2 ** flek
    if contract != "hra":
        return {contract: BASE_VALUE[contract] * factor}
    factor *= 2 if trump == Suit.H else 1
    return {"hra": BASE_VALUE["hra"] * factor, "sedma": options["sedma_value"] * factor,
            "kilo": options["kilo_value"] * factor}


@dataclass(frozen=True)
class MoneyScale:
    """The money of a game of one or more parts (docs/RULES.md §1.8 rule 5) and the ranks the
    search values it by (``_marias.pyx``: the money itself may not fit the table's bounds).

    ``parts``: the contract first, then the announced parts; ``stakes``: each part's stake per
    defender.  An outcome is a combination of parts won — bit 0 the contract (Hra), bit 1
    Sedma, bit 2 Kilo — and its money is the declarer's: twice the sum over the parts of +stake
    (won) or -stake (lost).  ``values`` lists the distinct moneys from the lowest; ``ranks``
    gives each combination's index in it.
    """

    parts: tuple[str, ...]
    stakes: Mapping[str, int]
    values: tuple[int, ...] = field(init=False)
    ranks: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        moneys = [self.money(self.won_parts(combo)) for combo in range(8)]
        values = tuple(sorted(set(moneys)))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "ranks", tuple(values.index(m) for m in moneys))

    def won_parts(self, combo: int) -> dict[str, bool]:
        bits = {self.parts[0]: 1, "sedma": 2, "kilo": 4}
        return {part: bool(combo & bits[part]) for part in self.parts}

    def part_money(self, part: str, won: bool) -> int:
        """The declarer's money from one part: what the two defenders pay him, or he pays them."""
        return 2 * self.stakes[part] * (1 if won else -1)

    def money(self, won: Mapping[str, bool]) -> int:
        return sum(self.part_money(part, won[part]) for part in self.parts)

    def best(self) -> int:
        return self.values[-1]

    def rank_above(self, money: int) -> int:
        """The lowest rank worth more than `money` (len(values) if none is)."""
        return next((r for r, v in enumerate(self.values) if v > money), len(self.values))

    def needed_for(self, rank: int) -> tuple[str, ...]:
        """The parts won in every outcome of at least `rank`: to reach it the declarer must be
        able to make each of them, whatever else happens."""
        reaching = [self.won_parts(combo) for combo in range(8) if self.ranks[combo] >= rank]
        return tuple(part for part in self.parts if reaching and all(won[part] for won in reaching))


def money_scale(setup_contract: str, trump: Suit | None, options: Mapping[str, Any], flek: int,
                announcements: Sequence[str]) -> MoneyScale:
    stakes = part_stakes(setup_contract, trump, options, flek)
    return MoneyScale((setup_contract, *announcements), stakes)


def seat_settlement(money: int, players: int) -> list[int]:
    """The settlement by seat for the declarer's `money` (docs/RULES.md §1.8 rules 3 and 6): each
    of the two defenders pays half; in the four-player form seat 3, the dealer, gets 0."""
    return [money, -money // 2, -money // 2] + [0] * (players - 3)


def board_salt(objective: str, trump: Suit | None, marriage_on_follow: bool,
               scale: MoneyScale | None = None) -> tuple[int, int]:
    """Table keys carry the parameters that change a position's future value: the objective,
    the trumps, the marriage rule and, for money, the parts and the ranks of their outcomes
    (not the deal: positions of different deals or discards share entries, soundly)."""
    text = f"marias|{objective}|{trump}|{marriage_on_follow}"
    if scale is not None:
        text += f"|{','.join(scale.parts)}|{scale.ranks}"
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


def new_board(masks: Sequence[int], contract: str, trump: Suit | None, objective: str,
              options: Mapping[str, Any], talon_points: int = 0,
              scale: MoneyScale | None = None) -> _marias.MariasBoard:
    """The C board of a deal given as card masks (seat 0 first), for the objective searched.

    Money in Betl and Durch is their outcome (+1/-1) times the stake: the board searches the
    outcome.  Money in Hra searches the rank of the announced parts' outcome (``scale``).
    """
    if objective == "money" and contract != "hra":
        objective = contract
    if objective != "money":
        scale = None
    elif scale is None:
        raise ValueError("the money objective of a Hra needs its MoneyScale")
    mof = bool(options.get("marriage_on_follow", False))
    salt0, salt1 = board_salt(objective, trump, mof, scale)
    announce = sum(ANNOUNCE_BITS[part] for part in scale.parts[1:]) if scale is not None else 0
    board = _marias.MariasBoard(masks, -1 if trump is None else int(trump), OBJECTIVES[objective], mof,
                                talon_points, salt0, salt1, announce, None if scale is None else scale.ranks)
    if scale is not None:
        board.guess = scale.ranks[1]          # the contract made, the announced parts lost
    elif objective == "hra" and trump is not None:
        board.guess = hra_guess(masks, int(trump), talon_points)
    return board


_TENS = 0xC0C0C0C0              # the A and T of every suit in the Hra card codes (power 7, 6)


def _marriage_points(mask: int, trump: int) -> int:
    """Marriage points a hand holds: K and Q (powers 5, 4) of a suit, 40 in trumps, 20 else."""
    return sum((40 if suit == trump else 20) for suit in range(4) if (mask >> (8 * suit + 4)) & 3 == 3)


def hra_guess(masks: Sequence[int], trump: int, talon_points: int = 0) -> int:
    """The first target of a Hra search (``Board.guess``): an estimate of the declarer's margin
    from the hands as dealt, rounded to the game's 10 points.  It only decides where the
    null-window tests start, never the answer.  A least-squares fit of the margin on 1,418 fresh
    Hra deals from the benchmark corpora's generators (the declarer's and the defenders' A and T,
    trumps and marriages; mean error 22 points against 40 for a guess of 0), less any talon
    points counted for the defenders (banked for them before the first card; none in a valid
    Hra, whose talon holds no A or T).  The first test near the value saves about 6% of a deal's
    nodes (benchmarks/RESULTS.md, "Mariáš's replies ordered by sure tricks; a first guess from
    the hands")."""
    ours, theirs = masks[0], masks[1] | masks[2]
    trumps = 0xFF << (8 * trump)
    estimate = (7.5 * (ours & _TENS).bit_count() - 15 * (theirs & _TENS).bit_count()
                + 15 * (ours & trumps).bit_count() - 4 * (theirs & trumps).bit_count()
                + 0.9 * _marriage_points(ours, trump)
                - 0.6 * (_marriage_points(masks[1], trump) + _marriage_points(masks[2], trump))
                - talon_points)
    return 10 * round(estimate / 10)


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
        masks = [card_mask(hand, self._code) for hand in setup.hands]
        talon_points = 0
        if setup.contract == "hra" and setup.options["talon_points"] == "defenders":
            talon_points = 10 * sum(1 for c in setup.talon if c.rank in (Rank.ACE, Rank.TEN))
        # A combined game is settled as the sum of its parts whatever is solved (§1.8 rule 5).
        self.scale = None
        if setup.announcements or setup.objective == "money":
            self.scale = money_scale(setup.contract, setup.trump, setup.options, setup.flek, setup.announcements)
        self.board = new_board(masks, setup.contract, setup.trump, setup.objective, setup.options, talon_points,
                               self.scale)
        self.history: list[str] = []

    @property
    def value_kind(self) -> ValueKind:
        return "money" if self.setup.objective == "money" else super().value_kind

    @property
    def margin_meaning(self) -> str:                 # type: ignore[override]
        if self.value_kind == "money":
            return "the declarer's settlement: the money he wins (or pays) for the whole game as announced"
        return "the declarer's final points - the defenders' (cards, last trick, marriages)"

    def value_range(self) -> Sequence[int]:
        # money: every value is one of the scale's sums of the announced parts' stakes
        return self.scale.values if self.value_kind == "money" and self.scale is not None else ()

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        if value_kind == "money":
            return "declarer wins" if value > 0 else "declarer pays" if value < 0 else "even"
        return super().verdict(value, won, value_kind)

    def search(self, searcher: Any, mode: int, cancel: Any, timeout: float | None,
               want_pv: bool = True, helpers: Sequence[tuple[Any, Any]] = ()
               ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
        """As the core searches it; in Betl and Durch the line goes on to the end of the deal."""
        betl_or_durch = self.setup.contract != "hra" and not self.board.finished
        decided = betl_or_durch and self._decided()
        value, moves, pv, nodes = super().search(searcher, mode, cancel, timeout, want_pv, helpers)
        if decided:
            # Decided by the history: every card left is worth the same, here too, so the move
            # mode best reports and the whole line are each seat's lowest legal card, mid-trick
            # as at a trick boundary (the core would finish a trick in its own order).
            if mode == MODE_BEST:
                moves = [(min(self.board.legal_moves()), value)]
            if want_pv:
                pv = self.to_the_end([])
        elif want_pv and betl_or_durch:
            pv = self.to_the_end(pv)        # the core's line ends at the trick that decides it
        return value, moves, pv, nodes

    def to_the_end(self, line: Sequence[int]) -> list[int]:
        """`line` played on to the last trick (docs/RULES.md §0.8 rule 6).  The search stops a Betl
        or Durch at the trick that decides it, where every card left is worth the same; the deal
        goes on with each seat's lowest legal card (spades, hearts, diamonds, clubs; low to high),
        so that the scores and tricks at the line's end count all ten tricks.  A line that ends
        before the contract is decided is left as it is: only a decided deal's cards are all
        equally good."""
        board, out = self.board, list(line)
        for move in out:
            board.play(move)
        if self._decided():                          # once decided, it stays so
            while not board.finished:
                move = min(board.legal_moves())      # codes run S H D C, each low to high
                board.play(move)
                out.append(move)
        for _ in out:
            board.undo()
        return out

    def _decided(self) -> bool:
        """Has a trick decided the Betl (the declarer took one) or the Durch (a defender did)?"""
        tricks = self.board.state["tricks"]
        return bool(tricks[0] > 0 if self.setup.contract == "betl" else tricks[1] > 0)

    def reported(self, raw: int) -> int:
        """The search measures money by the rank of its outcome (Hra) or by the outcome (Betl, Durch)."""
        if self.setup.objective != "money" or self.scale is None:
            return raw
        if self.setup.contract == "hra":
            return self.scale.values[raw]
        return self.scale.part_money(self.setup.contract, raw > 0)

    def unreported(self, value: int) -> int | None:
        if self.setup.objective != "money" or self.scale is None:
            return value
        if self.setup.contract == "hra":
            return self.scale.values.index(value) if value in self.scale.values else None
        return next((raw for raw in (1, -1) if self.reported(raw) == value), None)

    def is_max(self, seat: int) -> bool:
        return seat == 0

    def describe(self) -> dict[str, Any]:
        s = self.setup
        title = f"Mariáš {s.contract}"
        if s.trump is not None:
            title += f", trumps {s.trump}"
        for part in s.announcements:
            title += f" + {part}"
        if s.objective != s.default_objective:
            title += f", objective {s.objective}"
        if s.flek:
            title += ", " + ("flek", "re")[s.flek - 1]
        if s.players == 4:
            title += ", 4 players (seat 3 deals and sits out)"
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
        value = self.reported(value)          # the search's value, as the result reports it
        for move in line:
            self.board.play(move)
        st = self.board.state
        for _ in line:
            self.board.undo()
        setup = self.setup
        tricks = {"declarer": st["tricks"][0], "defenders": st["tricks"][1]}
        if setup.contract == "hra":
            scores = {"declarer": st["points"][0], "defenders": st["points"][1]}
            outcomes = {"sedma": st["sedma"], "kilo": st["kilo"] >= KILO_TARGET}
        else:
            scores = {"declarer": st["tricks"][0], "defenders": st["tricks"][1]}
            outcomes = {}
        won = value > 0
        if self.scale is None:
            return LineSummary(scores=scores, tricks=tricks, won=won,
                               settlement=seat_settlement(2 * (stake(setup) if won else -stake(setup)), setup.players),
                               outcomes=outcomes)
        # A combined game (or the money objective): every part won or lost on the line, and paid.
        if setup.contract == "hra":
            part_won = {"hra": st["points"][0] > st["points"][1], **outcomes}
        else:
            part_won = {setup.contract: value > 0}        # settled by the deciding trick, not by the line's end
        parts = {part: {"won": part_won[part], "stake": self.scale.stakes[part],
                        "money": self.scale.part_money(part, part_won[part])} for part in self.scale.parts}
        money = sum(p["money"] for p in parts.values())
        return LineSummary(scores=scores, tricks=tricks, won=won, settlement=seat_settlement(money, setup.players),
                           outcomes=outcomes, parts=parts)


def card_mask(cards: Sequence[Card], code: Mapping[Card, int]) -> int:
    return sum(1 << code[c] for c in cards)


def stake(setup: MariasSetup) -> int:
    """Money per defender for the objective asked when nothing is announced (docs/RULES.md §1.8 rule 4)."""
    stakes = part_stakes(setup.contract, setup.trump, setup.options, setup.flek)
    if setup.objective in ("sedma", "kilo"):
        return stakes[setup.objective]
    return stakes[setup.contract]


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
        if s.announcements:
            out["announcements"] = list(s.announcements)
        if s.objective != s.default_objective:
            out["objective"] = s.objective
        if s.flek:
            out["flek"] = s.flek
        if s.players != 3:
            out["players"] = s.players
        changed = INFO.changed_options(s.options)
        if changed:
            out["options"] = changed
        out["played"] = list(s.played)
        return out


GAME = Marias()
