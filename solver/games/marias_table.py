"""The Mariáš contract table (docs/RULES.md §1.13): every discard with every contract.

Before the first card forehand makes the deal's decisive choice: which two of his 12 cards
he discards and what he declares — Hra in a suit with Sedma and/or Kilo on top, Betl or
Durch.  The table answers "what could he have made?" as a bridge player's double-dummy
table does: one row per legal discard × contract with its exact value and money, best first.

How the work is shared (the rows are many: about 60 discards × 6 contracts):

- A *job* is one contract (Hra in one suit, Betl, Durch) over all its discards, run in
  order on one Searcher whose table is kept between the searches: the keys hold only the
  live cards by relative rank (and the objective's parameters in their salt), so positions
  reached from different discards share their entries.
- Discards whose positions have the same table key are the same game (the key is exact:
  who holds each live card by relative rank, and the cards that score): the first is
  searched, the others take its answer.  No other discard is skipped, as every row's value
  is reported.
- Each Hra value is searched with the previous discard's value as its first guess.
- The best announcements: the plain Hra's money follows from its margin; a set of
  announcements is searched only if it could pay more (all its parts won) and if each part
  that every better outcome needs can be made on its own (the Hra by its margin, Sedma and
  Kilo by their own quick threshold searches: if the defenders can stop one part, they can
  stop every outcome that needs it); then first with one threshold test "more than the best
  so far?", its exact money only if it does.
- The jobs run on ``threads`` Searchers at once (the searches release the GIL).

The core takes the deal as cards of any equal hand size, so the tests can check it
against the plain reference on reduced deals; ``parse_table_deal`` holds the document to
the full deal of §1.13.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ddcards._jsonio import shown, token_text
from ddcards.errors import InvalidDealError, InvalidOptionError
from ddcards.games import _search_budget
from ddcards.games._document import (cards_field, check_deal, check_fields, in_field, options_field, played_field,
                                     unset)
from ddcards.games.marias import (ANNOUNCEMENTS, CONTRACT_RULE, DECK_RULE, FIELDS, INFO, TRUMP_RULE, _TABLES,
                                  active_hands, can_announce, card_mask, money_scale, new_board, table_fields)
from ddcards.notation import Card, Rank, Suit, format_cards, format_hand

__all__ = ["TableDeal", "Job", "parse_table_deal", "plan", "run_job", "best_first", "describe_deal", "run_table",
           "hand_order"]

TABLE_DEAL_RULE = ("docs/RULES.md §1.13 rule 1: the table takes forehand's 12 cards and the defenders' 10, "
                   "or three hands of 10 and the talon")
TABLE_HISTORY_RULE = "docs/RULES.md §1.13 rule 1: the table is of a deal before its first card"
TABLE_FIELD_RULE = ("docs/RULES.md §1.13 rule 1: contract, trump, objective and announcements are the table's "
                    "to choose")

CONTRACT_ORDER = {"hra": 0, "betl": 1, "durch": 2}
# Cards in the order a hand is written (§0.4: suits S H D C, each from the ace down).
_NATURAL = (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE, Rank.EIGHT, Rank.SEVEN)


def hand_order(card: Card) -> tuple[int, int]:
    return int(card.suit), _NATURAL.index(card.rank)


@dataclass(frozen=True)
class TableDeal:
    """A deal to tabulate: forehand's cards before his discard (``talon`` None) or after it
    (``talon`` the fixed discard), the defenders' hands, and what applies to every row."""

    forehand: tuple[Card, ...]
    defenders: tuple[tuple[Card, ...], tuple[Card, ...]]
    talon: tuple[Card, ...] | None
    options: Mapping[str, Any]
    flek: int = 0
    players: int = 3

    def discards(self) -> list[tuple[Card, Card]]:
        """Every discard, in the table's order: pairs of forehand's cards in hand order."""
        if self.talon is not None:
            first, second = sorted(self.talon, key=hand_order)
            return [(first, second)]
        cards = sorted(self.forehand, key=hand_order)
        return [(a, b) for a, b in itertools.combinations(cards, 2)]

    def kept(self, discard: Sequence[Card]) -> tuple[Card, ...]:
        if self.talon is not None:
            return self.forehand
        return tuple(c for c in self.forehand if c not in discard)


def parse_table_deal(doc: Mapping[str, Any]) -> TableDeal:
    """Validate a Mariáš table document (docs/RULES.md §1.13 rule 1)."""
    doc = check_fields(doc, FIELDS, "marias")
    played = played_field(doc)
    if played:
        raise InvalidOptionError(f"the contract table is of a whole deal, but {len(played)} card(s) are already "
                                 f"played, from played[0] '{played[0]}' (leave 'played' out for the table of the deal as dealt; "
                                 f"{TABLE_HISTORY_RULE})",
                                 token=played[0], rule=TABLE_HISTORY_RULE, field="played[0]")
    _check_chosen_fields(doc)
    flek, players = table_fields(doc)
    options = options_field(doc, INFO)
    hands = active_hands(doc, players)
    talon = cards_field(doc["talon"], "talon") if not unset(doc.get("talon"), empty_list=True) else None
    sizes = [len(h) for h in hands] + ([len(talon)] if talon is not None else [])
    if sizes not in ([12, 10, 10], [10, 10, 10, 2]):
        given = " + ".join(map(str, sizes[:3])) + (f" and a talon of {sizes[3]}" if talon is not None else
                                                   ", no talon")
        # the field to blame: the first hand of the wrong size for the form the talon chose, else the talon
        wanted = (12, 10, 10) if talon is None else (10, 10, 10)
        where = next((f"hands[{seat}]" for seat, (n, want) in enumerate(zip(sizes, wanted)) if n != want), "talon")
        raise InvalidDealError(f"the table needs forehand's 12 cards and the defenders' 10 (no talon), or 10 + 10 + 10 "
                               f"and the 2-card talon; got {given} ({TABLE_DEAL_RULE})",
                               token=format_cards(talon) if where == "talon" and talon else where,
                               rule=TABLE_DEAL_RULE, field=where)
    places = [(f"hand {seat}", hand) for seat, hand in enumerate(hands)]
    check_deal(places + ([("talon", talon)] if talon is not None else []), "Mariáš", deck_rule=DECK_RULE)
    return TableDeal(hands[0], (hands[1], hands[2]), talon, options, flek, players)


def _check_chosen_fields(doc: Mapping[str, Any]) -> None:
    """The fields the table chooses itself may be given (a position's document serves), but
    not misspelt: a wrong name is still an error (§1.13 rule 1)."""
    contract = doc.get("contract")
    if contract is not None and (not isinstance(contract, str) or contract.strip().lower() not in INFO.contracts):
        raise InvalidOptionError(f"unknown contract {shown(contract)} ({CONTRACT_RULE})", token=token_text(contract),
                                 rule=CONTRACT_RULE, field="contract")
    trump = doc.get("trump")
    if not unset(trump):
        if not isinstance(trump, (str, Suit)):
            raise InvalidOptionError(f"trump must be a suit such as \"H\", not {shown(trump)} ({TRUMP_RULE})",
                                     token=token_text(trump), rule=TRUMP_RULE, field="trump")
        with in_field("trump"):         # as a position's trump does: the error names its field
            Suit.parse(trump)
    objective = doc.get("objective")
    known = {o for names in INFO.objectives.values() for o in names}
    if objective is not None and (not isinstance(objective, str) or objective.strip().lower() not in known):
        raise InvalidOptionError(f"unknown objective {shown(objective)} ({TABLE_FIELD_RULE})",
                                 token=token_text(objective), rule=TABLE_FIELD_RULE, field="objective")
    raw = doc.get("announcements")
    items = raw.replace(",", " ").split() if isinstance(raw, str) else raw
    if items is None:
        return
    if not isinstance(items, (list, tuple)):
        raise InvalidOptionError(f"announcements must be a list of sedma and kilo, not {shown(raw)} "
                                 f"({TABLE_FIELD_RULE})", token=token_text(raw), rule=TABLE_FIELD_RULE,
                                 field="announcements")
    for i, item in enumerate(items):
        if not isinstance(item, str) or item.strip().lower() not in ANNOUNCEMENTS:
            where = f"announcements[{i}]"
            raise InvalidOptionError(f"{where}: {shown(item)} is not an announcement (sedma, kilo; "
                                     f"{TABLE_FIELD_RULE})", token=token_text(item), rule=TABLE_FIELD_RULE,
                                     field=where)


# ----------------------------------------------------------------- the work

@dataclass(frozen=True)
class Job:
    """One contract over its discards, solved in order on one Searcher."""

    contract: str
    trump: Suit | None
    discards: tuple[tuple[int, tuple[Card, Card]], ...]     # (place in the enumeration, cards)


def plan(deal: TableDeal) -> list[Job]:
    """The jobs of a table: Hra in each suit, Betl, Durch, each with its legal discards
    (§1.13 rules 2 and 3).  The Hra jobs come first: they are the long ones."""
    numbered = list(enumerate(deal.discards()))
    jobs = []
    for trump in Suit:
        legal = tuple((i, d) for i, d in numbered
                      if not any(c.rank in (Rank.ACE, Rank.TEN) for c in d)
                      and any(c.suit == trump for c in deal.kept(d)))
        if legal:
            jobs.append(Job("hra", trump, legal))
    jobs += [Job("betl", None, tuple(numbered)), Job("durch", None, tuple(numbered))]
    return jobs


Row = dict[str, Any]


def run_job(job: Job, deal: TableDeal, searcher: Any, *, deadline: float | None = None,
            cancel: Any = None, share: bool = True, counted: Callable[[int], None] | None = None
            ) -> tuple[list[Row], int]:
    """The rows of one job and the nodes searched.  ``searcher``: a
    ``ddcards._core.search.Searcher`` (its table is kept: the keys say what differs).
    ``deadline``: when the job must have ended (``_search_budget.deadline``, shared by the jobs).
    ``share=False`` searches every discard from scratch (a cold table, no answers shared
    between equivalent discards, each search from the board's own first guess): the benchmark's
    measure of what sharing saves.  ``counted(n)`` is told the nodes of each search as it ends,
    a stopped one's too (if it began), so that a table that stops can say the nodes of all."""
    code = _TABLES["hra" if job.contract == "hra" else "betl"][0]
    defenders = [card_mask(hand, code) for hand in deal.defenders]
    known: dict[Any, int] = {}          # table key -> exact value (equivalent discards)
    refuted: set[Any] = set()           # (table key, rank): the money does not reach the rank
    tally = _search_budget.Tally(searcher, counted)
    # The previous discard's margin is the next one's first guess; the first starts from the
    # board's own (marias.hra_guess, from the hands).
    guess: int | None = None
    rows: list[Row] = []

    def search(board: Any, first_guess: int | None = None) -> int:
        left = _search_budget.time_left(deadline)
        if not share:
            searcher.clear()
            first_guess = None
        return int(tally.value(board, cancel, left, first_guess))

    def exact(board: Any, first_guess: int | None = None) -> int:
        """The board's value, or an equivalent discard's (same table key)."""
        key = board.key()
        if key not in known or not share:
            known[key] = search(board, first_guess)
        return known[key]

    for place, discard in job.discards:
        kept = deal.kept(discard)
        masks = [card_mask(kept, code), *defenders]
        text = format_cards(discard)
        if job.contract != "hra":
            outcome = exact(new_board(masks, job.contract, None, job.contract, {}))
            scale = money_scale(job.contract, None, deal.options, deal.flek, ())
            rows.append(_row(text, job, [], outcome, "outcome", scale.part_money(job.contract, outcome > 0), place))
            continue
        trump = job.trump
        assert trump is not None
        margin = exact(new_board(masks, "hra", trump, "hra", deal.options), guess)
        guess = margin
        best_parts: tuple[str, ...] = ()
        best = money_scale("hra", trump, deal.options, deal.flek, ()).money({"hra": margin > 0})
        possible = [a for a in ANNOUNCEMENTS if can_announce(a, trump, kept)]
        # Fewest parts first, Sedma before Kilo: only more money replaces the best (§1.13 rule 4).
        for parts in (p for n in range(1, len(possible) + 1) for p in itertools.combinations(possible, n)):
            scale = money_scale("hra", trump, deal.options, deal.flek, parts)
            if scale.best() <= best:
                continue                  # even with every part won it pays no more
            above = scale.rank_above(best)
            if not all(margin > 0 if part == "hra" else
                       exact(new_board(masks, "hra", trump, part, deal.options)) > 0
                       for part in scale.needed_for(above)):
                continue                  # a part every better outcome needs cannot be made
            board = new_board(masks, "hra", trump, "money", deal.options, 0, scale)
            key = board.key()
            if key not in known or not share:
                if (key, above) in refuted and share:
                    continue
                board.exact, board.threshold = False, above
                if search(board) < 0:
                    refuted.add((key, above))
                    continue
                board.exact = True
                known[key] = search(board, above)
            money = scale.values[known[key]]
            if money > best:
                best, best_parts = money, parts
        rows.append(_row(text, job, list(best_parts), margin, "points", best, place))
    return rows, tally.spent


def _row(discard: str, job: Job, parts: list[str], value: int, kind: str, money: int, place: int) -> Row:
    return {"discard": discard, "contract": job.contract, "trump": None if job.trump is None else str(job.trump),
            "announcements": parts, "value": value, "value_kind": kind, "won": value > 0, "money": money,
            "_place": place}


def best_first(rows: list[Row]) -> list[Row]:
    """The rows ordered best first (§1.13 rule 6), without their bookkeeping."""
    suits = "SHDC"
    ordered = sorted(rows, key=lambda r: (-r["money"], CONTRACT_ORDER[r["contract"]], -r["value"],
                                          suits.index(r["trump"]) if r["trump"] else 0, r["_place"]))
    return [{k: v for k, v in row.items() if k != "_place"} for row in ordered]


def describe_deal(deal: TableDeal) -> dict[str, Any]:
    """The deal as the table's answer shows it: canonical hands, the fixed talon, the stakes' settings."""
    changed = INFO.changed_options(deal.options)
    talon: list[Card] | None = None if deal.talon is None else sorted(deal.talon, key=hand_order)
    return {"hands": [format_hand(deal.forehand), *(format_hand(h) for h in deal.defenders)],
            "talon": None if talon is None else format_cards(talon),
            "flek": deal.flek, "players": deal.players, "options": changed}


def run_table(deal: TableDeal, run_jobs: Callable[[list[Job]], list[tuple[list[Row], int]]]) -> dict[str, Any]:
    """Plan the jobs, run them through `run_jobs` (one thread or several), gather the rows."""
    start = time.perf_counter()
    answers = run_jobs(plan(deal))
    rows = [row for job_rows, _ in answers for row in job_rows]
    return {"game": "marias", **describe_deal(deal), "entries": best_first(rows),
            "nodes": sum(n for _, n in answers), "elapsed_ms": round((time.perf_counter() - start) * 1000, 3)}

