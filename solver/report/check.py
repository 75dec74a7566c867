"""The checks ``render()`` makes on an analysis document before it lays out a page.

The report is rendered from the document alone, and the README invites other programs
to render their own, so the document is input like any other: every field the page
reads is checked for its type and range here, and a field that fails gives a
NotationError naming it (``steps[3].ply``), never a TypeError from deep in the page.
The page also carries the whole document as JSON (render.py's ``script_json``), so every
value in it, the fields the page does not read and keys it does not know included, must
be one JSON can write: a number of more than 30 digits (which the strict reader keeps as a
``LongNumber`` marker), NaN, or a Python object that is no JSON value is an error naming
its place (``final.note``), as the reader names it in a position document.
Escaping everything on its way into HTML (render.py) is the second line of defence.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ddcards._jsonio import (JSON_RULE, LIMITS_CLAUSE, LIMITS_RULE, MAX_DIGITS, HugeNumber, LongNumber,
                             check_unicode, printable, shown, token_text, whole_number)
from ddcards.errors import DdcardsError, NotationError
from ddcards.notation import Suit, parse_hand

ANALYSIS_RULE = "docs/RULES.md §0.10: the analysis document"
VALUE_KINDS = ("points", "outcome", "money")
# Far beyond any game's values and plies, and small enough to print (str() of a huge int is refused).
MAX_NUMBER = 10 ** 15
MAX_SEATS = 64


def _fail(field: str, value: Any, wanted: str) -> NotationError:
    # (a field may end in a document's own key, steps[2].score.<key>: said printably, as _where says it)
    return NotationError(f"{_where(field)}{wanted}, not {shown(value)} ({ANALYSIS_RULE})", token=token_text(value),
                         rule=ANALYSIS_RULE, field=field)


def _int(doc: Mapping[str, Any], key: str, field: str, *, low: int = -MAX_NUMBER, high: int = MAX_NUMBER,
         optional: bool = False, wanted: str = "a whole number") -> None:
    value = doc.get(key)
    if value is None and optional:
        return
    if not whole_number(value) or not low <= value < high:
        raise _fail(field, value, wanted)


def _text(doc: Mapping[str, Any], key: str, field: str, *, optional: bool = True) -> None:
    value = doc.get(key)
    if (value is None and optional) or isinstance(value, str):
        return
    raise _fail(field, value, "text")


def _mapping(doc: Mapping[str, Any], key: str, field: str) -> Mapping[str, Any]:
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise _fail(field, value, "an object")
    return value


def _list(doc: Mapping[str, Any], key: str, field: str, *, required: bool = False) -> Sequence[Any]:
    value = doc.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, (list, tuple)):
        raise _fail(field, value, "an array")
    return value


def _whole_numbers(doc: Mapping[str, Any], key: str, field: str) -> Mapping[str, Any]:
    """An object of whole numbers (a score by side): each value an int, not false or 112.0,
    which Python's == would take for 0 and 112 when it is held to the record."""
    items = _mapping(doc, key, field)
    for name in items:
        _int(items, name, f"{field}.{name}")
    return items


def _texts(doc: Mapping[str, Any], key: str, field: str, *, required: bool = False) -> Sequence[str]:
    items = _list(doc, key, field, required=required)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise _fail(f"{field}[{i}]", item, "text")
    return items


def check_analysis(doc: Any) -> None:
    """Raise NotationError naming the first field of `doc` the report cannot show."""
    if not isinstance(doc, Mapping):
        raise _fail("analysis", doc, "an object (Analysis.to_dict())")
    check_json(doc)
    _text(doc, "game", "game", optional=False)
    if doc.get("value_kind") not in VALUE_KINDS:
        raise _fail("value_kind", doc.get("value_kind"), "one of " + ", ".join(VALUE_KINDS))
    for key in ("initial_value", "final_value"):
        _int(doc, key, key)
    for key in ("initial_outcome", "final_outcome", "value_owner", "value_meaning"):
        _text(doc, key, key)
    if doc.get("mode") not in (None, "optimal", "all"):
        # (never "best": each step lists all the optimal moves, docs/RULES.md §0.10)
        raise _fail("mode", doc.get("mode"), "optimal or all")
    _int(doc, "nodes", "nodes", low=0, optional=True, wanted="a whole number from 0")
    elapsed = doc.get("elapsed_ms")
    if elapsed is not None and (isinstance(elapsed, bool) or not isinstance(elapsed, (int, float))
                                or not 0 <= elapsed < MAX_NUMBER):
        raise _fail("elapsed_ms", elapsed, "a number of milliseconds from 0")
    deal = _mapping(doc, "deal", "deal")
    position = _mapping(deal, "position", "deal.position")
    # The record is deal.position whenever the document gives one: a position document without
    # `played` (or with `played` null) has nothing played (§0.6, §0.7), so its steps are held to
    # an empty record, not let off every check against it.  Only a document without
    # deal.position is held to its game's actions alone.
    record = deal.get("position") is not None
    game = _check_game(doc, position)
    seats = _check_deal(deal)
    played = _texts(position, "played", "deal.position.played")
    if doc.get("from_ply") is not None:      # (whenever given: false or 0.0 is no ply 0)
        # an analysis from a later ply: its tricks are numbered on from those of the record before it
        _int(doc, "from_ply", "from_ply", low=0, high=len(played) + 1,
             wanted=f"a whole number from 0 to {len(played)}, the actions of deal.position.played")
    steps = _list(doc, "steps", "steps", required=True)
    for i, step in enumerate(steps):
        _check_step(step, f"steps[{i}]", seats)
        if record:
            _check_recorded(step, f"steps[{i}]", played, (doc.get("from_ply") or 0) + i)
        else:
            _check_action(game, step["move"], f"steps[{i}].move")
            for j, move in enumerate(step["best_moves"]):
                _check_action(game, move, f"steps[{i}].best_moves[{j}]")
            for j, move in enumerate(step.get("moves") or ()):
                _check_action(game, move["move"], f"steps[{i}].moves[{j}].move")
    _check_values(doc, steps, game)
    for i, step in enumerate(steps):
        _check_moves(step, f"steps[{i}]", game)
    _check_final(doc.get("final"))
    _check_complete(doc, steps, record, played)
    if record:
        _check_deal_from_record(doc, position)
    for i, step in enumerate(steps):
        _check_best_moves(step, f"steps[{i}]", game)


def _check_game(doc: Mapping[str, Any], position: Mapping[str, Any]) -> str:
    """The game is one ddcards knows (the page lays its cards and words out by it) and the one
    the deal's position is of: a page of one game's values over another's cards would be false.
    Its name (``marias``, whatever alias the document used)."""
    from ddcards.games import find_game, list_games     # (the games' modules load only for a report)

    def unknown(field: str, value: Any) -> NotationError:
        return _fail(field, value, "one of the games " + ", ".join(info.name for info in list_games()))

    try:
        game = find_game(doc["game"])
    except DdcardsError:
        raise unknown("game", doc["game"]) from None
    own = position.get("game")
    try:
        same = own is None or find_game(own).name == game.name
    except DdcardsError:
        raise unknown("deal.position.game", own) from None
    if not same:
        raise _fail("game", doc["game"], f"the game of deal.position ({shown(own)})")
    return game.name


def _same_action(a: str, b: str) -> bool:
    """One action written two ways (case, spaces: 'qs / h' and 'QS/H')."""
    return "".join(a.split()).upper() == "".join(b.split()).upper()


def _check_recorded(step: Mapping[str, Any], field: str, played: Sequence[str], ply: int) -> None:
    """A step is the analysis of the record's action at its ply: steps follow the record one by
    one from from_ply, each playing what deal.position.played holds there."""
    if step["ply"] != ply:
        raise _fail(f"{field}.ply", step["ply"], f"{ply}, the steps following deal.position.played one by one")
    if ply >= len(played):
        raise _fail(f"{field}.ply", step["ply"], f"a ply of deal.position.played, which holds {len(played)} actions"
                                                 + ("" if played else " (a position without played has nothing "
                                                                       "played)"))
    if not _same_action(step["move"], played[ply]):
        raise _fail(f"{field}.move", step["move"], f"{shown(played[ply])}, the action deal.position.played holds "
                                                   f"at ply {ply}")


def _same_value(a: Any, b: Any) -> bool:
    """a == b as JSON values, of one kind too: false is not 0 and 112.0 is not 112, as Python's ==
    would have them (a document's value held to the record's must be the record's)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return len(a) == len(b) and all(key in b and _same_value(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same_value, a, b))
    kinds = (bool, int, float, str)
    return next((k for k in kinds if isinstance(a, k)), None) is next((k for k in kinds if isinstance(b, k)), None) \
        and a == b


def _check_action(name: str, move: str, field: str) -> None:
    """Without the record to follow, a step's move is at least an action of game `name`: the page
    lays it out as one (a Prší 'draw' on a Mariáš page would be false), a card of the game's deck
    (no six outside Mariasz) and, in Prší, an Ober with the suit it names and no other card with
    one (docs/RULES.md §4.1: 'QC' alone or '7H/S' is no action there)."""
    from ddcards.games import klaverjas, marias, prsi
    from ddcards.notation import Card, Rank

    wanted = {"prsi": "a card, an Ober naming a suit ('QS/H'), 'draw' or 'pass'",
              "mariasz": "a card or 'exchange'"}.get(name, "a card")
    try:
        if name == "prsi":
            action = prsi.parse_action(move)
            if action in ("draw", "pass"):
                return
            card_text, slash, _ = action.partition("/")
            card = Card.parse(card_text)
            ok = card in prsi.DECK and bool(slash) == (card.rank == Rank.QUEEN)
        elif name == "mariasz" and move.strip().lower() == "exchange":
            return
        else:
            card = Card.parse(move)
            deck = {"marias": marias.DECK, "klaverjas": klaverjas.DECK}.get(name)
            ok = deck is None or card in deck
    except DdcardsError:
        ok = False
    if not ok:
        raise _fail(field, move, f"an action of {name}: {wanted}")


def _check_moves(step: Mapping[str, Any], field: str, game: str) -> None:
    """A step of mode all lists every legal move with its value: its best_moves are the moves
    marked optimal and, outside Prší (whose values within a horizon may be unproven), a move is
    optimal exactly where its value is the step's value_before, and the action played is worth
    the step's value_after."""
    moves = step.get("moves") or []
    if not moves:
        return
    for j, move in enumerate(moves):
        if not isinstance(move.get("optimal", False), bool):
            raise _fail(f"{field}.moves[{j}].optimal", move.get("optimal"), "true or false")
    marked = [move["move"] for move in moves if move.get("optimal")]
    if list(step["best_moves"]) != marked:
        raise _fail(f"{field}.best_moves", step["best_moves"],
                    f"{json.dumps(marked)}, the moves of {field}.moves marked optimal")
    if game == "prsi":
        return
    before = step["value_before"]
    for j, move in enumerate(moves):
        value = move.get("value")
        if value is not None and move.get("optimal", False) != (value == before):
            raise _fail(f"{field}.moves[{j}].optimal", move.get("optimal", False),
                        f"{json.dumps(value == before)}: whether its value ({value}) is the step's value_before "
                        f"({before})")
    # value_before is the best the side to move can do, so every other move is worth less to it:
    # all on one side of value_before (below for the maximising side), the action played's side
    # when it cost something. A move past it was listed as a better card worth more than the position.
    side = 0 if step["value_after"] == before else (1 if step["value_after"] < before else -1)
    for j, move in enumerate(moves):
        value = move.get("value")
        if value is None or value == before:
            continue
        side = side or (1 if value < before else -1)
        if side * (before - value) < 0:
            wanted = "at most" if side > 0 else "at least"
            why = "the action played says" if step["value_after"] != before else "the moves before it say"
            raise _fail(f"{field}.moves[{j}].value", value, f"{wanted} the step's value_before ({before}), the "
                                                            f"value of the best move for the side to move, as {why}")
    played = next((j for j, move in enumerate(moves) if _same_action(move["move"], step["move"])), None)
    if played is None:
        raise _fail(f"{field}.moves", f"{len(moves)} moves", f"every legal move, the action played "
                                                             f"({shown(step['move'])}) among them")
    value = moves[played].get("value")
    if value is not None and value != step["value_after"]:
        raise _fail(f"{field}.moves[{played}].value", value, f"{step['value_after']}, the step's value_after: the "
                                                              f"value of the action played")


def _check_best_moves(step: Mapping[str, Any], field: str, game: str) -> None:
    """A step's best_moves (the optimal actions at it, in either mode) agree with its cost: an
    optimal action keeps the value, so the action played is among them only if it cost nothing,
    and, outside Prší, an action that cost nothing kept the value and so was optimal (Prší's
    optimal actions are the fastest: one may keep the value more slowly, 'not the best')."""
    move, cost = step["move"], step["cost"]
    listed = any(_same_action(best, move) for best in step["best_moves"])
    if listed and cost > 0:
        raise _fail(f"{field}.best_moves", step["best_moves"],
                    f"the optimal actions, not the action played ({shown(move)}): it cost {cost}, and an optimal "
                    f"action costs nothing")
    if not listed and cost == 0 and game != "prsi":
        raise _fail(f"{field}.best_moves", step["best_moves"],
                    f"the optimal actions, the action played ({shown(move)}) among them: it cost nothing, so it "
                    f"was optimal")


def _check_values(doc: Mapping[str, Any], steps: Sequence[Mapping[str, Any]], game: str) -> None:
    """The values and the verdicts the page draws agree with one another, as an analysis writes
    them: each step's cost is what its action lost (no action gains on the best, so the
    difference of its values), `mistake` says whether it cost anything, `mistakes` and
    `outcome_mistakes` list those plies, and the values follow on from step to step, from the
    initial value to the final one.  (Prší's values within a horizon need not follow on: the
    value after an action is measured in the window before it, the next step's in its own.)"""
    if doc["value_kind"] == "outcome":
        # won or lost (Prší: or neither): +1, -1 or 0, never a margin
        for field, value in (("initial_value", doc["initial_value"]), ("final_value", doc["final_value"]),
                             *((f"steps[{i}].{key}", s[key]) for i, s in enumerate(steps)
                               for key in ("value_before", "value_after"))):
            if value not in (-1, 0, 1):
                raise _fail(field, value, "+1, -1 or 0, an outcome (value_kind outcome)")
    for i, step in enumerate(steps):
        field = f"steps[{i}]"
        lost = abs(step["value_before"] - step["value_after"])
        if step["cost"] != lost:
            raise _fail(f"{field}.cost", step["cost"], f"{lost}, what the action lost: the difference of "
                                                       f"value_before and value_after")
        if "mistake" in step and step["mistake"] is not (lost > 0):
            raise _fail(f"{field}.mistake", step["mistake"], f"{str(lost > 0).lower()}, whether the action "
                                                             f"cost anything")
        if step.get("changes_outcome") and not lost:
            raise _fail(f"{field}.changes_outcome", True, "false for an action that cost nothing")
    for key, which, wanted in (("mistakes", "the plies of the steps that cost something",
                                [s["ply"] for s in steps if s["cost"] > 0]),
                               ("outcome_mistakes", "the plies of the steps that turned the outcome",
                                [s["ply"] for s in steps if s.get("changes_outcome")])):
        plies = _list(doc, key, key)
        for i, ply in enumerate(plies):
            if not whole_number(ply) or not 0 <= ply < MAX_NUMBER:     # (false is no ply 0, 9.0 no ply 9)
                raise _fail(f"{key}[{i}]", ply, "a ply: a whole number from 0")
        if key in doc and list(plies) != wanted:
            raise _fail(key, doc[key], f"{wanted}, {which}")
    if not steps:
        return
    if steps[0]["value_before"] != doc["initial_value"]:
        raise _fail("initial_value", doc["initial_value"], f"{steps[0]['value_before']}, steps[0].value_before")
    if game == "prsi":
        return
    for i in range(1, len(steps)):
        if steps[i]["value_before"] != steps[i - 1]["value_after"]:
            raise _fail(f"steps[{i}].value_before", steps[i]["value_before"],
                        f"{steps[i - 1]['value_after']}, the value after the step before it")
    if steps[-1]["value_after"] != doc["final_value"]:
        raise _fail("final_value", doc["final_value"], f"{steps[-1]['value_after']}, the last step's value_after")
    last = steps[-1].get("outcome")
    if last and doc.get("final_outcome") and doc["final_outcome"] != last:
        # the words on one value at one position (Prší aside: a finished game says how it ended)
        raise _fail("final_outcome", doc["final_outcome"], f"{shown(last)}, the last step's outcome: the words "
                                                           f"on the same value")


def _check_deal(deal: Mapping[str, Any]) -> int:
    """Check the deal's fields; the number of seats a step's seat must be below."""
    for key in ("title", "value_owner", "value_meaning"):
        _text(deal, key, f"deal.{key}")
    hands = _texts(deal, "hands", "deal.hands")
    for i, hand in enumerate(hands):
        _notation(parse_hand, hand, f"deal.hands[{i}]")
    _texts(deal, "roles", "deal.roles")
    names = _texts(deal, "suit_names", "deal.suit_names")
    if names and len(names) != len(Suit):
        raise _fail("deal.suit_names", names, f"the {len(Suit)} suits' names, or none")
    _int(deal, "to_move", "deal.to_move", optional=True)
    _whole_numbers(deal, "score", "deal.score")
    _int(deal, "trick_size", "deal.trick_size", low=1, optional=True, wanted="a whole number from 1")
    position = _mapping(deal, "position", "deal.position")
    trump = position.get("trump")
    if trump:
        if not isinstance(trump, str):
            raise _fail("deal.position.trump", trump, "a suit")
        _notation(Suit.parse, trump, "deal.position.trump")
    return len(hands) or MAX_SEATS


def _notation(parse: Any, text: str, field: str) -> None:
    """Parse `text`; a notation error is raised again with the field it sits in."""
    try:
        parse(text)
    except DdcardsError as exc:
        raise type(exc)(f"{field}: {exc}", token=exc.token, rule=exc.rule, field=field) from None


def _check_step(step: Any, field: str, seats: int) -> None:
    if not isinstance(step, Mapping):
        raise _fail(field, step, "an object")
    _int(step, "ply", f"{field}.ply", low=0, wanted="a whole number from 0")
    seat_range = f"a seat: a whole number from 0 to {seats - 1}"
    _int(step, "seat", f"{field}.seat", low=0, high=seats, wanted=seat_range)
    _text(step, "move", f"{field}.move", optional=False)
    for key in ("value_before", "value_after"):
        _int(step, key, f"{field}.{key}")
    _int(step, "cost", f"{field}.cost", low=0, wanted="a whole number from 0")
    _text(step, "outcome", f"{field}.outcome")
    if not isinstance(step.get("changes_outcome", False), bool):
        raise _fail(f"{field}.changes_outcome", step.get("changes_outcome"), "true or false")
    _int(step, "trick_winner", f"{field}.trick_winner", low=0, high=seats, optional=True, wanted=seat_range)
    _texts(step, "best_moves", f"{field}.best_moves", required=True)     # the verdict reads it
    for j, move in enumerate(_list(step, "moves", f"{field}.moves")):
        where = f"{field}.moves[{j}]"
        if not isinstance(move, Mapping):
            raise _fail(where, move, "an object")
        _text(move, "move", f"{where}.move", optional=False)
        _int(move, "value", f"{where}.value", optional=True)
        _int(move, "distance", f"{where}.distance", low=0, optional=True, wanted="a whole number from 0")  # Prší
    for key in ("distance", "best_distance"):                                                             # Prší
        _int(step, key, f"{field}.{key}", low=0, optional=True, wanted="a whole number from 0")
    _whole_numbers(step, "score", f"{field}.score")


def _check_deal_from_record(doc: Mapping[str, Any], position: Mapping[str, Any]) -> None:
    """The deal as the page lays it out (hands, talon or stock, roles, who is to move, the score
    so far ...) is the record's at from_ply: worked out again from deal.position, so that a page
    never shows hands, roles or a contract the record does not hold."""
    import ddcards

    deal, ply = doc["deal"], doc.get("from_ply") or 0
    try:
        pos = ddcards.Position.from_dict(dict(position))
        session = pos.start().session()
        for move in pos.played[:ply]:
            session.play(move)
        view = json.loads(json.dumps(session.view()))
    except DdcardsError as exc:
        raise _fail("deal.position", "the position", f"a position document that can be read ({exc})") from None

    def differs(field: str, given: Any, want: Any, where: str = f"as deal.position lays it out at ply {ply}",
                ) -> NotationError:
        if isinstance(given, list) and isinstance(want, list) and len(given) == len(want):
            i = next(i for i, (a, b) in enumerate(zip(given, want)) if not _same_value(a, b))   # the first to differ
            field, given, want = f"{field}[{i}]", given[i], want[i]
        text = json.dumps(want, ensure_ascii=False)          # (the record's, of a bounded size)
        return _fail(field, given, f"{text if len(text) <= 200 else text[:200] + '…'}, {where}")

    for key, want in view.items():
        if key in deal and not _same_value(deal[key], want):
            raise differs(f"deal.{key}", deal[key], want)
    for key in ("value_owner", "value_meaning"):
        if key in doc and key in view and not _same_value(doc[key], view[key]):
            raise differs(key, doc[key], view[key])
    words = _Words(session, doc.get("value_kind"))
    words.check(doc, "initial_outcome", "initial_value", here=True)
    # Each step's trick winner, score so far and words on its value are the record's too (the
    # steps follow it).
    for i, step in enumerate(doc["steps"]):
        before = words.said(step.get("value_before"), f"steps[{i}].value_before")
        if "seat" in step and step["seat"] != session.to_move:
            raise _fail(f"steps[{i}].seat", step["seat"], f"{session.to_move}, the seat to move at ply {ply + i} "
                                                          "of the record")
        listed = [move["move"] for move in step.get("moves") or ()]
        if listed and sorted(listed) != sorted(legal := session.legal_moves()):
            missing = [move for move in legal if move not in listed]
            extra = [move for move in listed if move not in legal or listed.count(move) > 1]
            what = "; ".join(part for part in (missing and f"{' '.join(missing)} missing",
                                               extra and f"{' '.join(dict.fromkeys(extra))} not legal or listed "
                                                         "twice") if part)
            raise _fail(f"steps[{i}].moves", " ".join(listed), f"every legal action at ply {ply + i} of the record "
                                                               f"once ({what})")
        legal = session.legal_moves()
        for j, best in enumerate(step["best_moves"]):
            if best not in legal:
                raise _fail(f"steps[{i}].best_moves[{j}]", best, f"one of the legal actions at ply {ply + i} of the "
                                                                  f"record ({' '.join(legal)})")
            if best in step["best_moves"][:j]:
                raise _fail(f"steps[{i}].best_moves[{j}]", best, f"an action not listed before it in "
                                                                  f"steps[{i}].best_moves: each optimal action once")
        session.play(pos.played[ply + i])
        winner = session.to_move if session.trick_done() else None
        if "trick_winner" in step and step["trick_winner"] != winner:
            raise _fail(f"steps[{i}].trick_winner", step["trick_winner"],
                        f"{json.dumps(winner)}, the seat the record has take the trick this action ends"
                        if winner is not None else "null: this action ends no trick")
        score = json.loads(json.dumps(session.scores_now()))
        if "score" in step and not _same_value(step["score"], score):
            raise differs(f"steps[{i}].score", step["score"], score, f"the record's after ply {ply + i}")
        after = words.check(step, "outcome", "value_after", f"steps[{i}].")
        # an action turns the outcome where it costs and the words on the values differ
        if "changes_outcome" in step and before is not None and after is not None:
            turned = step.get("cost", 0) > 0 and before != after
            if step["changes_outcome"] != turned:
                raise _fail(f"steps[{i}].changes_outcome", step["changes_outcome"],
                            f"{json.dumps(turned)}: the words on the value before it are {before!r}, after it "
                            f"{after!r}")
    final = doc.get("final")
    if final is not None and ply + len(doc["steps"]) == len(pos.played):     # a whole analysis
        words.check(doc, "final_outcome", "final_value", here=True)
        _check_final_line(final, session, words.raw(doc["final_value"], "final_value"), differs)


class _Words:
    """The game's own words on a value where the session stands ("the playing team makes it"),
    as the analysis says them: a document's words must be those of its values."""

    def __init__(self, session: Any, value_kind: Any):
        self.session, self.value_kind = session, value_kind

    def raw(self, value: int, field: str) -> int:
        raw = self.session.unreported(value)
        if raw is None:
            raise _fail(field, value, "a value this game can have here")
        return int(raw)

    def said(self, value: Any, field: str, *, here: bool = False) -> str | None:
        """The words on `value` (None if it is no whole number: another check names that).
        `here`: the words where an analysis starts or ends, which say how a game over ended."""
        if not whole_number(value):
            return None
        ended = getattr(self.session, "ended", None) if here else None
        words: str = (ended() if ended is not None else None) or self.session.verdict(
            value, self.session.summary((), self.raw(value, field)).won, self.value_kind)
        return words

    def check(self, holder: Mapping[str, Any], key: str, value_key: str, prefix: str = "", *,
              here: bool = False) -> str | None:
        """The words on holder[value_key]; holder[key], if given, must be those."""
        want = self.said(holder.get(value_key), prefix + value_key, here=here)
        if want is not None and key in holder and holder[key] != want:
            raise _fail(prefix + key, holder[key], f"{want!r}, the words on {value_key} {holder[value_key]} here")
        return want


def _check_final_line(final: Mapping[str, Any], session: Any, raw: int, differs: Any) -> None:
    """The final solve's line is legal from the record's end (where `session` stands; it is
    played on it), and its scores, tricks, outcome and settlement are where that line ends (the
    page shows them as the deal's end)."""
    for i, move in enumerate(final.get("pv") or ()):
        try:
            session.play(move)
        except DdcardsError as exc:
            raise _fail(f"final.pv[{i}]", move, f"a legal action there ({exc})") from None
    summary = session.summary((), raw)
    for key in ("scores", "tricks", "won", "settlement", "outcomes", "parts"):
        if key in final:
            want = json.loads(json.dumps(getattr(summary, key)))
            if not _same_value(final[key], want):
                raise differs(f"final.{key}", final[key], want, "where final.pv ends")


def _check_complete(doc: Mapping[str, Any], steps: Sequence[Any], record: bool, played: Sequence[str]) -> None:
    """A document with its `final` solve is a whole analysis (one stopped on the way has none):
    its steps reach the end of the record, and the final solve's value is its final value."""
    final = doc.get("final")
    if final is None:
        return
    value = final.get("value")
    if value is not None and value != doc["final_value"]:
        raise _fail("final.value", value, f"{doc['final_value']}, the final_value of the analysis")
    end = (doc.get("from_ply") or 0) + len(steps)
    if record and end != len(played):
        raise _fail("steps", f"{len(steps)} steps", f"the steps from ply {doc.get('from_ply') or 0} to the end of "
                                                    f"deal.position.played ({len(played)} actions), as a whole "
                                                    f"analysis (with its final solve) has them")


def _check_final(final: Any) -> None:
    if final is None:
        return
    if not isinstance(final, Mapping):
        raise _fail("final", final, "an object or null")
    _int(final, "value", "final.value", optional=True)
    _texts(final, "pv", "final.pv")
    for key in ("scores", "tricks"):
        _whole_numbers(final, key, f"final.{key}")
    for name, made in _mapping(final, "outcomes", "final.outcomes").items():
        if not isinstance(made, bool):
            raise _fail(f"final.outcomes.{name}", made, "true or false")
    if final.get("won") is not None and not isinstance(final["won"], bool):
        raise _fail("final.won", final["won"], "true or false")
    for i, value in enumerate(_list(final, "settlement", "final.settlement")):
        if not whole_number(value) or abs(value) >= MAX_NUMBER:
            raise _fail(f"final.settlement[{i}]", value, "a whole number")
    for name, part in _mapping(final, "parts", "final.parts").items():     # Mariáš money: each part's
        if not isinstance(part, Mapping):
            raise _fail(f"final.parts.{name}", part, "an object")
        _int(part, "money", f"final.parts.{name}.money", optional=True)
        if not isinstance(part.get("won", False), bool):
            raise _fail(f"final.parts.{name}.won", part.get("won"), "true or false")


# ------------------------------------------------------------------ every value JSON can write

_TOO_LONG: int = 10 ** MAX_DIGITS         # the smallest whole number of more than MAX_DIGITS digits
# An analysis document nests a few levels (a position's own under deal.position); the bound keeps
# the walk (and json.dumps after it) far from Python's recursion limit.
MAX_NESTING = 64


def check_json(doc: Any) -> None:
    """NotationError naming the place (``final.value``, ``steps[2].note``) of the first value
    in `doc` that JSON cannot write, before anything is read from it: a number of more than
    MAX_DIGITS digits (the strict reader's LongNumber, or such a Python int) or one no number
    holds (``1e400``), said as the reader says it of a position document (docs/RULES.md §0.11
    rule 2); NaN or an infinity; a key or a value that is no JSON value; nesting deeper than
    MAX_NESTING levels, or a container that holds itself.  Every key is looked at, so a field
    the page does not know cannot slip through to the page's inline JSON."""
    _walk(doc, "", 0, set())


def _walk(value: Any, path: str, depth: int, open_ids: set[int]) -> None:
    if isinstance(value, str):
        _check_unicode(value, path)
        return
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, LongNumber) or (isinstance(value, int) and abs(value) >= _TOO_LONG):
        why = "beyond what any number holds" if isinstance(value, HugeNumber) else \
            f"numbers have at most {MAX_DIGITS} digits"
        raise NotationError(f"{_where(path)}{shown(value)} is far out of the range of any field ({why}; "
                            f"{LIMITS_CLAUSE})", token=token_text(value), rule=LIMITS_RULE, field=path or None)
    if isinstance(value, int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotationError(f"{_where(path)}{shown(value)} is not a JSON number (RFC 8259 has no NaN or "
                                "Infinity)", token=token_text(value), rule=JSON_RULE, field=path or None)
        return
    if not isinstance(value, (Mapping, list, tuple)):
        raise NotationError(f"{_where(path)}{shown(value)} is not a JSON value (JSON has objects, arrays, text, "
                            "numbers, true, false and null)", token=token_text(value), rule=JSON_RULE,
                            field=path or None)
    if depth >= MAX_NESTING:
        raise NotationError(f"{_where(path)}nested more than {MAX_NESTING} levels deep; an analysis document "
                            f"nests a few levels ({ANALYSIS_RULE})", token=token_text(path or "analysis"),
                            rule=ANALYSIS_RULE, field=path or None)
    if id(value) in open_ids:
        raise NotationError(f"{_where(path)}holds itself (JSON cannot write a container inside itself)",
                            token=token_text(path or "analysis"), rule=JSON_RULE, field=path or None)
    open_ids.add(id(value))
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not _writable_key(key):
                raise NotationError(f"{_where(path)}key {shown(key)} is not text (JSON object keys are strings)",
                                    token=token_text(key), rule=JSON_RULE, field=path or None)
            if isinstance(key, str):
                _check_unicode(key, path)
            _walk(item, f"{path}.{key}" if path else str(key), depth + 1, open_ids)
    else:
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]", depth + 1, open_ids)
    open_ids.discard(id(value))


def _check_unicode(text: str, path: str) -> None:
    """A lone surrogate (a JSON escape such as \\ud800 without its pair) is no Unicode: the page
    could not be written as UTF-8.  Named by its place, as the position reader names it."""
    check_unicode(text, _where(path), LIMITS_RULE, path or None, LIMITS_CLAUSE)


def _writable_key(key: Any) -> bool:
    """Whether json.dumps writes `key` as an object's key: text, or (from a Python caller) a
    value it turns into text: true, false, null, a whole number or a finite number."""
    if key is None or isinstance(key, (str, bool)):
        return True
    if isinstance(key, int):
        return -_TOO_LONG < key < _TOO_LONG
    return isinstance(key, float) and math.isfinite(key)


def _where(path: str) -> str:
    """The prefix naming a document path in check_json's messages ("steps[2].note: "), short
    and printable whatever the keys hold."""
    if not path:
        return ""
    text = path if len(path) <= 60 else path[:60] + "…"
    return f"{printable(text)}: "         # a key's control characters (an escape sequence) or lone surrogates
