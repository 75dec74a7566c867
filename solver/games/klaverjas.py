"""Klaverjas (4 players in 2 teams, Amsterdam or Rotterdam rules) — docs/RULES.md §2.

Teams are seats {0, 2} and {1, 3}; the document names the *playing team*
(``playing_team``: 0 for seats 0 and 2, 1 for seats 1 and 3), the team that
chose trumps.  There is a single contract, ``"play"``: the deal is played
out with the given trump suit.  Values are the playing team's: its final
score minus the other team's, exactly, with roem, the last trick, pit and
nat applied (docs/RULES.md §2.7, §2.8):

- made (the playing team's cards + roem strictly more than the other's):
  each team scores its own cards + roem, + 100 for a team taking all 8
  tricks (pit);
- nat: the playing team scores 0, the other team 162 + the roem of both
  teams, + 100 if it took all 8 tricks (pit counts for whichever team takes
  every trick; the playing team taking them all can never be nat).

Results report ``scores`` {"playing", "other"} (final), {"playing_roem",
"other_roem"} (roem each team won in its tricks, before a nat hands it
over), ``tricks`` {"playing", "other"}, ``outcomes`` {"nat", "pit",
"pit_other"}, ``won`` (not nat) and a ``settlement`` per seat: each member
of a team gets his team's final score minus the other team's (sums to 0).

The card play runs in C (``_klaverjas.pyx`` and its ``.pxd`` files); this
module validates the position document, names cards and explains illegal
plays.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ddcards.errors import IllegalPlayError, InvalidOptionError
from ddcards.games import _klaverjas
from ddcards._jsonio import shown, token_text
from ddcards.games._document import (check_deal, check_fields, check_hand_sizes, hands_field, in_field,
                                    options_field, played_field, unset)
from ddcards.games._cards import DEAL_OVER_RULE, CardSession
from ddcards.games.base import Game, GameInfo, LineSummary, Score
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand

DECK = tuple(Card.of(rank, suit) for suit in Suit for rank in Rank if rank != Rank.SIX)
HAND_SIZE = 8
RULESETS = ("amsterdam", "rotterdam")
CONTRACT = "play"
FIELDS = ("game", "hands", "trump", "playing_team", "rules", "contract", "objective", "options", "played", "leader")

# The clauses of docs/RULES.md that errors cite (as `.rule`, and in the message).
DECK_RULE = "docs/RULES.md §2.1 rule 2: 32 cards, 7 8 9 T J Q K A in each suit"
CONTRACT_RULE = "docs/RULES.md §2.2 rule 1: the only contract is 'play'"
OBJECTIVE_RULE = "docs/RULES.md §2.8: Klaverjas is solved for points, its one objective"
TRUMP_RULE = "docs/RULES.md §2.2 rule 2: Klaverjas is played with a trump suit"
PLAYING_TEAM_RULE = "docs/RULES.md §2.2 rule 3: the team that chose trumps, 0 (seats 0 and 2) or 1 (seats 1 and 3)"
LEADER_RULE = "docs/RULES.md §2.2 rule 4: the seat that leads the first trick, 0 to 3"
RULESET_RULE = "docs/RULES.md §2.2 rule 5: the rules are amsterdam (the default) or rotterdam"
FOLLOW_RULE = "docs/RULES.md §2.4 rule 2: holding the led suit you must play it"
TRUMPS_LED_RULE = "docs/RULES.md §2.4 rule 2: on a trump lead, beat every trump in the trick if you can"
PARTNER_RULE = "docs/RULES.md §2.4 rule 3: partner winning, no undertrump while you hold another card"
MUST_TRUMP_RULE = "docs/RULES.md §2.4 rule 4: opponent winning, you must trump"
OVERTRUMP_RULE = "docs/RULES.md §2.4 rule 4: opponent winning, you must overtrump if you can"
NO_UNDERTRUMP_RULE = "docs/RULES.md §2.4 rule 4: opponent winning, play another suit rather than undertrump"
ROTTERDAM_TRUMP_RULE = "docs/RULES.md §2.5 rule 1: Rotterdam, void: you must trump, even when your partner is winning"
ROTTERDAM_OVERTRUMP_RULE = "docs/RULES.md §2.5 rule 2: Rotterdam, void: you must overtrump if you can"

# Rank order (power 0 = lowest) in a plain suit and in the trump suit; the C
# module compares powers.
PLAIN_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE)
TRUMP_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE, Rank.NINE, Rank.JACK)

INFO = GameInfo(
    name="klaverjas",
    title="Klaverjas",
    seats=(4,),
    contracts=(CONTRACT,),
    objectives={CONTRACT: ("points",)},
    options=(),
    # Not "klaverjas rotterdam": a name must not seem to choose the rules, which `rules` alone does.
    aliases=("klaverjassen", "jassen"),
    sides=("playing", "other"),
    value_doc="playing team's final score - other team's (roem, last trick, pit and nat included)",
)


@dataclass(frozen=True)
class KlaverjasSetup:
    hands: tuple[tuple[Card, ...], ...]
    trump: Suit
    playing_team: int
    rules: str
    leader: int
    played: tuple[str, ...]


def _int_field(doc: Mapping[str, Any], name: str, choices: tuple[int, ...], rule: str,
               default: int | None = None) -> int:
    value = doc.get(name)
    if value is None:               # absent or null: the default, as other games' optional fields
        value = default
    if value is None:
        raise InvalidOptionError(f"Klaverjas needs field '{name}' ({rule})", token=name, rule=rule, field=name)
    if isinstance(value, bool) or not isinstance(value, int) or value not in choices:
        raise InvalidOptionError(f"{name} must be one of {', '.join(map(str, choices))}, not {shown(value)} ({rule})",
                                 token=token_text(value), rule=rule, field=name)
    return value


def parse_setup(doc: Mapping[str, Any]) -> KlaverjasSetup:
    """Validate a Klaverjas position document (everything but the history's legality)."""
    doc = check_fields(doc, FIELDS, "klaverjas")
    if doc.get("hands") is None:
        # a document without its hands: that first (a newcomer's first question), as Mariasz and Prší do
        hands_field(doc, 4, "Klaverjas")

    contract = doc.get("contract", CONTRACT)
    if not isinstance(contract, str) or contract.strip().lower() != CONTRACT:
        raise InvalidOptionError(f"unknown contract {shown(contract)}: the trump suit and the playing team say "
                                 f"what is played ({CONTRACT_RULE})", token=token_text(contract), rule=CONTRACT_RULE,
                                 field="contract")
    objective = doc.get("objective", "points")
    if not isinstance(objective, str) or objective.strip().lower() != "points":
        # (the one objective `ddcards games` lists: given, it is accepted; another one is not)
        raise InvalidOptionError(f"unknown objective {shown(objective)}: Klaverjas is solved for points, the "
                                 f"playing team's final score minus the other's ({OBJECTIVE_RULE})",
                                 token=token_text(objective), rule=OBJECTIVE_RULE, field="objective")

    trump_text = doc.get("trump")
    if unset(trump_text):
        raise InvalidOptionError(f"Klaverjas needs a trump suit (field 'trump', e.g. \"H\"; {TRUMP_RULE})",
                                 token="trump", rule=TRUMP_RULE, field="trump")
    if not isinstance(trump_text, (str, Suit)):
        raise InvalidOptionError(f"trump must be a suit such as \"H\", not {shown(trump_text)} ({TRUMP_RULE})",
                                 token=token_text(trump_text), rule=TRUMP_RULE, field="trump")
    with in_field("trump"):
        trump = Suit.parse(trump_text)

    playing_team = _int_field(doc, "playing_team", (0, 1), PLAYING_TEAM_RULE)
    leader = _int_field(doc, "leader", (0, 1, 2, 3), LEADER_RULE, default=0)

    rules = doc.get("rules", "amsterdam")
    if not isinstance(rules, str) or rules.strip().lower() not in RULESETS:
        raise InvalidOptionError(f"unknown rules {shown(rules)} ({RULESET_RULE})",
                                 token=token_text(rules), rule=RULESET_RULE, field="rules")
    rules = rules.strip().lower()

    options_field(doc, INFO)          # it has none: any option is an error
    hands = hands_field(doc, 4, "Klaverjas")
    check_deal([(f"hand {seat}", hand) for seat, hand in enumerate(hands)], "Klaverjas", deck_rule=DECK_RULE)
    check_hand_sizes(hands, HAND_SIZE, "Klaverjas", deck=4 * HAND_SIZE)
    played = played_field(doc)
    return KlaverjasSetup(hands, trump, playing_team, rules, leader, played)


def card_codes(trump: Suit) -> dict[Card, int]:
    """Card -> C code (suit * 8 + power in its suit's order) for this trump suit."""
    codes = {}
    for card in DECK:
        order = TRUMP_ORDER if card.suit == trump else PLAIN_ORDER
        codes[card] = int(card.suit) * 8 + order.index(card.rank)
    return codes


def _card_tables(trump: Suit) -> tuple[dict[Card, int], dict[int, Card], dict[int, str]]:
    """card -> code, code -> card, code -> name for one trump suit (built once)."""
    code = card_codes(trump)
    return code, {c: card for card, c in code.items()}, {c: str(card) for card, c in code.items()}


_TABLES = {suit: _card_tables(suit) for suit in Suit}


class KlaverjasSession(CardSession):
    deck_title = "Klaverjas"
    deck_rule = DECK_RULE
    all_tricks = "all eight tricks"
    trick_size = 4
    side_names = ("playing", "other")
    value_owner = "playing team"
    margin_meaning = "the playing team's final score - the other team's (roem, last trick, pit and nat included)"

    def verdict(self, value: int, won: bool, value_kind: str) -> str:
        return "the playing team makes it" if won else "nat: the playing team scores nothing"

    def value_detail(self, res: Any) -> str:
        """Each team's final score and the roem in it (the scores include the roem; with nat the
        other team scores both teams' roem), and a pit."""
        sc = res.scores
        text = f"playing {sc['playing']}, other {sc['other']}"
        if res.outcomes.get("nat"):
            text += f"; roem playing {sc['playing_roem']} + other {sc['other_roem']}, all to the other team (nat)"
        else:
            text += f"; roem in them: playing {sc['playing_roem']}, other {sc['other_roem']}"
        for key, team in (("pit", "playing"), ("pit_other", "other")):
            if res.outcomes.get(key):
                text += f"; pit: the {team} team took every trick (+100)"
        return text

    def __init__(self, setup: KlaverjasSetup, flags: int = 0):
        self.setup = setup
        self._code, self._card, self._name = _TABLES[setup.trump]
        masks = [sum(1 << self._code[c] for c in hand) for hand in setup.hands]
        self.board = _klaverjas.KlaverjasBoard(masks, int(setup.trump), setup.playing_team,
                                               setup.rules == "rotterdam", setup.leader, flags)
        self.history: list[str] = []

    def team(self, seat: int) -> int:
        """0 for the playing team, 1 for the other team."""
        return (seat ^ self.setup.playing_team) & 1

    def is_max(self, seat: int) -> bool:
        return self.team(seat) == 0

    def describe(self) -> dict[str, Any]:
        s = self.setup
        seats = "seats 0 and 2" if s.playing_team == 0 else "seats 1 and 3"
        title = f"Klaverjas ({s.rules.capitalize()}), trumps {s.trump}, playing team {s.playing_team} ({seats})"
        st = self.board.state
        return {"title": title, "hands": [format_hand(h) for h in self.hands()],
                "trick": [str(c) for c in self.trick()],
                "points": {"playing": st["points"][0], "other": st["points"][1]},
                "roem": {"playing": st["roem"][0], "other": st["roem"][1]}}

    def seat_role(self, seat: int) -> str:
        return "playing team" if self.team(seat) == 0 else "other team"

    def score(self) -> Score:
        """Points (cards, last trick, roem: before nat or pit), roem and tricks by team."""
        st = self.board.state
        teams = self.side_names
        return Score(points=dict(zip(teams, st["points"])), tricks=dict(zip(teams, st["tricks"])),
                     parts={"roem": dict(zip(teams, st["roem"]))})

    # -- play
    def _illegal_in_hand(self, card: Card, where: str) -> IllegalPlayError:
        return IllegalPlayError(f"{where}: {self.explain(card)}", token=str(card), rule=self.broken_rule(card))

    def _rule_check(self, card: Card) -> tuple[str, str]:
        """(rule, explanation) for an illegal `card` of the player to move (it is in his hand)."""
        st = self.board.state
        seat = st["turn"]
        hand = self._cards(st["hands"][seat])
        trick = [self._card[c] for c in st["trick"]]
        legal = format_cards(self._cards(self.board.legal_mask()))
        trump = self.setup.trump
        power = self._code
        led = trick[0].suit
        trumps_in_trick = [c for c in trick if c.suit == trump]
        top = max(trumps_in_trick, key=lambda c: power[c]) if trumps_in_trick else None
        tail = f"; legal: {legal}"
        if led == trump:
            if card.suit != trump:
                return (FOLLOW_RULE,
                        f"trumps were led and you hold trumps: you must play one ({FOLLOW_RULE}{tail})")
            return (TRUMPS_LED_RULE,
                    f"trumps were led: you must play a trump higher than {top} if you can, even over "
                    f"your partner ({TRUMPS_LED_RULE}{tail})")
        if any(c.suit == led for c in hand):
            return (FOLLOW_RULE,
                    f"you hold {led}: you must follow suit, with any card of it ({FOLLOW_RULE}{tail})")
        winner = (st["leader"] + self._winning_index(trick)) % 4
        partner = winner == (seat + 2) % 4
        if self.setup.rules == "rotterdam":
            if card.suit != trump:
                whoever = "even when your partner is winning the trick" if partner else "an opponent winning the trick"
                return (ROTTERDAM_TRUMP_RULE,
                        f"void in {led}: Rotterdam rules oblige you to trump if you can, {whoever} "
                        f"({ROTTERDAM_TRUMP_RULE}{tail})")
            return (ROTTERDAM_OVERTRUMP_RULE,
                    f"void in {led}: you must overtrump {top} if you can ({ROTTERDAM_OVERTRUMP_RULE}{tail})")
        if partner:
            return (PARTNER_RULE,
                    f"your partner is winning: you may play any card but no trump lower than {top} "
                    f"while you hold something else ({PARTNER_RULE}{tail})")
        if top is None:
            return (MUST_TRUMP_RULE,
                    f"void in {led} with an opponent winning: you must trump ({MUST_TRUMP_RULE}{tail})")
        if card.suit == trump and any(c.suit == trump and power[c] > power[top] for c in hand):
            return (OVERTRUMP_RULE,
                    f"an opponent is winning with {top}: you must overtrump it if you can ({OVERTRUMP_RULE}{tail})")
        if card.suit != trump:
            return (OVERTRUMP_RULE,
                    f"an opponent is winning with {top}: you must overtrump it if you can ({OVERTRUMP_RULE}{tail})")
        return (NO_UNDERTRUMP_RULE,
                f"you cannot overtrump {top}: play another suit rather than undertrump ({NO_UNDERTRUMP_RULE}{tail})")

    def _winning_index(self, trick: list[Card]) -> int:
        best = 0
        for i in range(1, len(trick)):
            c, b = trick[i], trick[best]
            if (c.suit == b.suit and self._code[c] > self._code[b]) or \
                    (c.suit == self.setup.trump and b.suit != self.setup.trump):
                best = i
        return best

    def explain(self, card: Card) -> str:
        return self._rule_check(card)[1]

    def broken_rule(self, card: Card) -> str:
        """The clause `card` breaks, e.g. 'docs/RULES.md §2.4 rule 4: ... you must trump'."""
        return self._rule_check(card)[0]

    # -- results
    def summary(self, line: Sequence[int], value: int) -> LineSummary:
        for move in line:
            self.board.play(move)
        st = self.board.state
        finished = self.board.finished
        for _ in line:
            self.board.undo()
        pts, roem, tricks = st["points"], st["roem"], st["tricks"]
        if finished:
            scores = final_scores(pts, tricks)
        else:                                   # a line cut short: the points so far
            scores = {"playing": pts[0], "other": pts[1]}
        nat = finished and pts[0] <= pts[1]
        out_scores = dict(scores, playing_roem=roem[0], other_roem=roem[1])
        outcomes = {"nat": nat, "pit": finished and tricks[1] == 0, "pit_other": finished and tricks[0] == 0}
        return LineSummary(scores=out_scores, tricks={"playing": tricks[0], "other": tricks[1]},
                           won=pts[0] > pts[1] if finished else value > 0,
                           settlement=self.settlement(value), outcomes=outcomes)

    def settlement(self, value: int) -> list[int]:
        """Each member of a team gets his team's final score minus the other's."""
        return [value if self.team(seat) == 0 else -value for seat in range(4)]


def final_scores(points: Sequence[int], tricks: Sequence[int]) -> dict[str, int]:
    """Final scores of a finished deal from the raw points (cards + last trick + roem) and tricks."""
    p, o = points
    if p > o:
        return {"playing": p + (100 if tricks[1] == 0 else 0), "other": o}
    return {"playing": 0, "other": p + o + (100 if tricks[0] == 0 else 0)}


class Klaverjas(Game):
    info = INFO

    def parse(self, doc: Mapping[str, Any]) -> KlaverjasSetup:
        return parse_setup(doc)

    def replay(self, setup: KlaverjasSetup, flags: int = 0) -> KlaverjasSession:
        session = KlaverjasSession(setup, flags)
        if len(setup.played) > 32:
            raise IllegalPlayError(f"played[32] '{setup.played[32]}': the deal is over after 32 cards "
                                   f"(played has {len(setup.played)}; {DEAL_OVER_RULE})", token=setup.played[32],
                                   rule=DEAL_OVER_RULE)
        for token in setup.played:
            session.play(token)
        return session

    def normalise(self, s: KlaverjasSetup) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": "klaverjas",
            "hands": [format_hand(h) for h in s.hands],
            "trump": str(s.trump),
            "playing_team": s.playing_team,
            "rules": s.rules,
        }
        if s.leader:
            out["leader"] = s.leader
        out["played"] = list(s.played)
        return out


GAME = Klaverjas()
