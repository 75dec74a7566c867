"""The HTML report of an analysed deal, rendered from the analysis document alone.

``render(doc)`` takes ``Analysis.to_dict()`` (what ``ddcards analyse --json
--mode all`` prints) and returns one self-contained page: the CSS, the SVG
chart and a small script are inline, nothing is fetched, and the page reads
and prints without the script.  Everything shown comes from the document,
so anyone can render their own from the same JSON.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from string import Template
from typing import Any

import ddcards
from ddcards.errors import DdcardsError, NotationError
from ddcards.games import find_game
from ddcards.result import step_distances, value_jumps
from ddcards.report.chart import step_kind, value_chart
from ddcards.report.check import ANALYSIS_RULE, check_analysis, check_json
from ddcards.report.display import (as_cards, card_piece, count_label, extras, hand_suits, ober_action, plain, signed,
                                    plies_shown, step_unit, suit_piece, tricks_before)
from ddcards.result import spoken

# Seat -> grid area around the table, by the number of seats (clockwise from the bottom).
SEAT_AREAS = {2: ("s", "n"), 3: ("s", "w", "e"), 4: ("s", "w", "n", "e")}
# Every card that cost value is a mistake (RULES §0.10); the report sets apart the ones that
# turned the outcome ("mistake", a diamond) from those that kept it ("lost", a triangle).
KIND_LABEL = {"best": "best", "lost": "mistake", "mistake": "mistake"}


def template(name: str, package: str = "ddcards.report") -> str:
    """A file of a package's templates folder (package data)."""
    return files(package).joinpath("templates", name).read_text(encoding="utf-8")


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def script_json(doc: Mapping[str, Any]) -> str:
    """`doc` as JSON to put inside a <script> element: no '<', '>' or '&' (so no '</script>' or
    '<!--' can end or bend the element) and no U+2028/U+2029 (line ends to older JavaScript)."""
    try:
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False, default=_mapping_as_dict)
    except (TypeError, ValueError, RecursionError) as exc:
        try:
            check_json(doc)         # names the value JSON cannot write, and its place (render() checks it first)
        except NotationError as named:
            raise named from None
        raise NotationError(f"the analysis document cannot be written as JSON: {exc} ({ANALYSIS_RULE})",
                            token=str(exc)[:40], rule=ANALYSIS_RULE, field="analysis") from None
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def _mapping_as_dict(value: Any) -> dict[Any, Any]:
    """A Mapping that is not a dict (which the checks take as an object) as json.dumps writes a dict."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class Page:
    """The pieces of one report; each method returns escaped HTML."""

    def __init__(self, doc: Mapping[str, Any], stopped: str = ""):
        self.doc = doc
        # why the analysis stopped before the record's end ("" for a whole one): its steps are those
        # finished, its final_value the value after the last of them (stopped_after, its ply)
        self.stopped = stopped
        self.deal: Mapping[str, Any] = doc.get("deal") or {}
        self.position: Mapping[str, Any] = self.deal.get("position") or {}
        self.suit_names: Sequence[str] = self.deal.get("suit_names") or ()
        self.roles: Sequence[str] = self.deal.get("roles") or ()
        self.steps: Sequence[Mapping[str, Any]] = doc["steps"]
        self.stopped_after: Any = self.steps[-1]["ply"] if stopped and self.steps else None
        # An analysis from a later ply (0: the deal's start) and the cards on the table there
        self.from_ply: int = doc.get("from_ply") or 0
        self.table_cards: list[str] = (as_cards(self.deal.get("trick")) or []) if self.from_ply else []
        # What a step plays (a card, or in Prší an action), and what its `score` and the result's
        # `scores` count (a score, or in Prší the hand sizes)
        self.unit = step_unit(doc.get("game"))
        self.counted = count_label(doc.get("game"))
        try:
            self.game_title = find_game(doc["game"]).title
            # this deal's own meaning where the analysis gives it, else the game's for every objective
            self.value_doc = self.deal.get("value_meaning") or find_game(doc["game"]).value_doc
        except DdcardsError:
            self.game_title, self.value_doc = doc["game"], ""

    # -- small pieces
    def card(self, token: str, extra_class: str = "") -> str:
        ober = ober_action(token, self.suit_names)
        if ober is not None:               # Prší's "QD/C": the Ober, then the suit it names
            piece, named = ober
            return (f'<span class="ober" data-card="{_e(token)}">{self.card_face(piece, extra_class)} '
                    f'<span class="named">names <span class="suit suit-{_e(named["suit"])}">'
                    f'<span aria-hidden="true">{_e(named["symbol"])}</span> {_e(named["name"])}</span></span></span>')
        if as_cards(token) is None:        # an action that is not a card (Prší's "draw", say)
            return f'<span class="action" data-card="{_e(token)}">{_e(token)}</span>'
        return self.card_face(card_piece(token, self.suit_names), extra_class)

    @staticmethod
    def card_face(piece: Mapping[str, str], extra_class: str = "") -> str:
        cls = f"card suit-{piece['suit']}" + (f" {extra_class}" if extra_class else "")
        return (f'<span class="{_e(cls)}" data-card="{_e(piece["card"])}" title="{_e(piece["name"])}">'
                f'{_e(piece["rank"])}<span class="sym" aria-hidden="true">{_e(piece["symbol"])}</span>'
                f'<span class="sr"> of {_e(piece["suit_name"])}</span></span>')

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return ""
        role = self.roles[seat] if seat < len(self.roles) else ""
        return f"seat {seat}" + (f" ({role})" if role else "")

    @staticmethod
    def value_html(value: int, outcome: str = "") -> str:
        """The value in bold and, when the document gives them, the game's own words on it
        ("+1 (made)", "+1 (seat 0 can force being out first)"): none of the report's own, which
        fit no race and repeat a Betl's "made"."""
        return f"<strong>{_e(signed(value))}</strong>" + (f" ({_e(outcome)})" if outcome else "")

    def extra(self, value: Any) -> str:
        cards = as_cards(value)
        if cards is not None and cards:
            return " ".join(self.card(c) for c in cards)
        return _e(plain(value))

    # -- sections
    def title(self) -> str:
        return str(self.deal.get("title") or self.game_title)

    def summary(self) -> str:
        outcome_mistakes = [s for s in self.steps if s.get("changes_outcome")]
        lost = [s for s in self.steps if step_kind(s) == "lost"]
        owner = self.deal.get("value_owner") or "the maximising side"
        start = self.value_html(self.doc["initial_value"], self.doc.get("initial_outcome") or "")
        end = self.value_html(self.doc["final_value"], self.doc.get("final_outcome") or "")
        after = (f"after ply {_e(self.stopped_after)}, where the analysis stopped," if self.stopped_after is not None
                 else "after the recorded play")
        parts = [f"At the start the value is {start}; {after} it is {end}." if not self.from_ply else
                 f"This analysis starts at ply {_e(self.from_ply)}: the hands shown are those before it, where the "
                 f"value is {start}; {after} it is {end}."]
        if outcome_mistakes:
            # The last card that turned the outcome is where the deal was decided.
            links = [f'<a href="#ply-{_e(s["ply"])}">ply {_e(s["ply"])}, {self.card(s["move"])} by '
                     f'{_e(self.seat(s["seat"]))}</a>' for s in outcome_mistakes]
            if len(links) == 1:
                parts.append(f"The outcome was turned at {links[0]}.")
            else:
                parts.append(f"The outcome was turned {len(links)} times, at {', '.join(links[:-1])} and "
                             f"last at {links[-1]}, which decided it.")
        else:
            parts.append(f"No {self.unit} changed the outcome.")
        parts.append(f"{len(lost)} {self.unit}{'s' if len(lost) != 1 else ''} lost value without changing it.")
        # "the declarer's", "the playing team's"; a numbered owner takes no article ("seat 1's")
        article = "" if re.match(r"(seat|team) \d", owner) else "the "
        view = f"Values are {article}{owner}'s" + (f": {self.value_doc}." if self.value_doc else ".")
        banner = f'<p class="stopped" role="status"><strong>Incomplete:</strong> {_e(self.stopped)}</p>\n' \
            if self.stopped else ""
        return (f'{banner}<p class="lead">{" ".join(parts)}</p>\n<p class="note">{_e(view)} Every value is exact: '
                "all hands are known and every side plays its best from then on (double dummy).</p>")

    def hand(self, seat: int, hand: str) -> str:
        rows = []
        for row in hand_suits(hand, self.suit_names):
            ranks = " ".join(row["ranks"]) or "\u2014"
            rows.append(f'<li><span class="suit suit-{_e(row["suit"])}"><span aria-hidden="true">{_e(row["symbol"])}'
                        f'</span> {_e(row["name"])}</span> <span class="ranks">{_e(ranks)}</span></li>')
        # (an analysis from a later ply may start with cards on the table: the seat to move follows)
        # (Prší has no tricks to lead: its player to move plays)
        turn = "to play" if self.table_cards or self.unit == "action" else "leads"
        lead = f' <span class="badge">{turn}</span>' if self.deal.get("to_move") == seat else ""
        return (f'<section class="hand" data-seat="{_e(seat)}" aria-label="{_e(self.seat(seat))}">'
                f'<h3>{_e(self.seat(seat))}{lead}</h3><ul>{"".join(rows)}</ul></section>')

    def diagram(self) -> str:
        hands: Sequence[str] = self.deal.get("hands") or ()
        areas = SEAT_AREAS.get(len(hands))
        cells = []
        for seat, hand in enumerate(hands):
            style = f' style="grid-area:{areas[seat]}"' if areas else ""
            cells.append(f'<div class="seat-cell"{style}>{self.hand(seat, hand)}</div>')
        centre = []
        trump = self.position.get("trump")
        if trump:
            piece = suit_piece(str(trump), self.suit_names)
            centre.append(f'<p><span class="label">trumps</span> <span class="suit suit-{_e(piece["suit"])}">'
                          f'<span aria-hidden="true">{_e(piece["symbol"])}</span> {_e(piece["name"])}</span></p>')
        for key, value in extras(self.deal):
            centre.append(f'<p><span class="label">{_e(key)}</span> {self.extra(value)}</p>')
        if self.from_ply:
            # an analysis from a later ply: what its first position has on the table and has scored
            if self.table_cards:
                centre.append('<p><span class="label">on the table</span> '
                              + " ".join(self.card(c) for c in self.table_cards) + "</p>")
            score = self.deal.get("score")
            if isinstance(score, Mapping) and any(score.values()):
                # each side's score, where the view names the sides (not Mariasz's marriages apart)
                sides = [side for side in self.deal.get("sides") or () if side in score]
                shown = {side: score[side] for side in sides} if sides else score
                centre.append(f'<p><span class="label">{self.counted} so far</span> {_e(plain(shown))}</p>')
        layout = "around" if areas else "list"
        return (f'<div class="table {layout} seats-{len(hands)}">{"".join(cells)}'
                f'<div class="centre" style="grid-area:c">{"".join(centre)}</div></div>')

    def setup(self) -> str:
        rows = [("game", self.game_title)]
        for key, value in self.position.items():
            if key in ("game", "hands", "played", "trump", "talon"):
                continue
            rows.append((str(key).replace("_", " "), plain(value)))
        roles = "; ".join(self.seat(s) for s in range(len(self.roles)))
        if roles:
            rows.append(("who is who", roles))
        if self.suit_names:
            rows.append(("deck", "German-suited: " + ", ".join(
                f"{name} = {'♠♥♦♣'[i]}" for i, name in enumerate(self.suit_names))
                + "; U (spodek, Unter) is written J and O (svršek, Ober) Q"))
        return '<dl class="setup">' + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows) + "</dl>"

    def chart(self) -> str:
        desc = self.chart_text()
        svg = value_chart(self.doc, f"Value after every {self.unit} ({self.deal.get('value_owner', '')}'s view)",
                          desc, self.unit)
        return f'<figure class="chart-box">{svg}<figcaption id="chart-caption">{_e(desc)}</figcaption></figure>'

    def chart_text(self) -> str:
        values = [self.doc["initial_value"]] + [s["value_after"] for s in self.steps]
        text = (f"The value starts at {signed(values[0])} and ends at {signed(values[-1])} after "
                f"{len(self.steps)} {self.unit}s; it ranges from {signed(min(values))} to {signed(max(values))}.")
        changes = [s for s in self.steps if s["cost"] > 0]
        if changes:
            text += " It moves at " + "; ".join(
                f"ply {s['ply']} ({s['move']} by seat {s['seat']}: {signed(s['value_before'])} to "
                f"{signed(s['value_after'])}{', changing the outcome' if s.get('changes_outcome') else ''})"
                for s in changes) + "."
        # Between steps a value may move with no action's cost: a search bounded by a horizon
        # (Prší) looks that many plies ahead of each position, so the next one sees further.
        edges = [f"before ply {following} ({signed(after)} to {signed(there)})" if following is not None else
                 f"after the last, ply {ply} ({signed(after)} to {signed(there)} at the end)"
                 for ply, after, following, there in value_jumps(
                     [(s["ply"], s["value_before"], s["value_after"]) for s in self.steps], self.doc["final_value"])]
        if not changes:
            text += (f" No {self.unit} lost value: no mistakes." if edges else
                     f" Every {self.unit} kept the value: no mistakes.")
        if edges:
            text += (" Between actions the value moves where the next position's search, bounded by the horizon, "
                     "sees further: " + "; ".join(edges) + ".")
        return text

    def better(self, step: Mapping[str, Any]) -> str:
        """The cards that kept more than the one played, with the value each gives (or, for an
        action that kept the value without being optimal, the optimal ones)."""
        if step["cost"] <= 0:
            if step["move"] in step["best_moves"]:
                return ""
            # the same value sooner (Prší): how soon is what makes them better
            distance = step_distances(step)
            return ", ".join(f'{self.card(m)}&nbsp;<span class="v">{_e(signed(step["value_before"]))}'
                             f'{_e(_in_plies(distance.get(m)))}</span>' for m in step["best_moves"])
        moves = step.get("moves") or []
        if moves:
            sign = 1 if step["value_before"] >= step["value_after"] else -1    # the mover's direction
            # a move's value is optional in the document (mode optimal values only the optimal moves)
            better = [m for m in moves if m.get("value") is not None and sign * (m["value"] - step["value_after"]) > 0]
            better.sort(key=lambda m: -sign * m["value"])
        else:
            better = [{"move": m, "value": step["value_before"]} for m in step["best_moves"]]
        return ", ".join(f'{self.card(m["move"])}&nbsp;<span class="v">{_e(signed(m["value"]))}</span>'
                         for m in better)

    def line_tricks(self, line: Sequence[str]) -> list[list[str]]:
        """The continuation `line` split where its tricks end, from the record's end, as the
        game splits a line (``Session.line_tricks``); one piece in a document without its record."""
        if not self.position:
            return [list(line)]
        try:
            return ddcards.Position.from_dict(self.position).session().line_tricks(line)
        except DdcardsError:        # (check_analysis reads the record too: it is valid there)
            return [list(line)]

    def ended_mid_trick(self) -> str:
        """Why the deal ended before its last trick was played out ("" if it did not): a race's
        claim (Mariasz: a marriage led that reaches 131 ends the deal at once)."""
        final = self.doc.get("final") or {}
        if "to_move" not in final or final["to_move"] is not None:
            return ""
        claims = [side for side, made in (final.get("outcomes") or {}).items() if side.endswith("_claims") and made]
        return "the deal ended at the claim" if claims else "the deal ended here"

    def play(self) -> str:
        if not self.steps and self.from_ply:
            return f'<p>No {self.unit} is recorded from ply {_e(self.from_ply)} on: the value above is the ' \
                   "position's after the record.</p>"
        if not self.steps:
            return f'<p>No {self.unit} has been played in this record: the value above is the deal\'s.</p>'
        rows: list[str] = []
        trick_no, trick_rows = tricks_before(self.doc) + 1, []
        trick_size = self.deal.get("trick_size")
        for step in self.steps:
            kind = step_kind(step)
            ply = step["ply"]              # from 0, as played[i] and the CLI's analyse count
            verdict = KIND_LABEL[kind]
            if kind == "mistake":
                verdict = f"mistake, outcome turned: now {step.get('outcome', '')}"
            elif kind == "lost":
                verdict = f"mistake: lost {step['cost']}"
            elif step["move"] not in step["best_moves"]:
                # the value kept, but not an optimal action (Prší: a slower way to the same end)
                verdict = "kept the value, not the best"
                distance = step_distances(step)
                slow = distance.get(step["move"])
                fast = [distance[m] for m in step["best_moves"] if m in distance]
                if slow is not None and fast and len(fast) == len(step["best_moves"]):
                    verdict += f": the end in {slow} plies, not {min(fast)}"
            mark = {"best": "", "lost": '<span class="icon" aria-hidden="true">▲</span> ',
                    "mistake": '<span class="icon" aria-hidden="true">◆</span> '}[kind]
            trick_rows.append(
                f'<tr id="ply-{_e(ply)}" class="step {kind}" data-ply="{_e(ply)}" data-move="{_e(step["move"])}" '
                f'data-seat="{_e(step["seat"])}" data-value-before="{_e(step["value_before"])}" '
                f'data-value-after="{_e(step["value_after"])}" data-cost="{_e(step["cost"])}" data-kind="{kind}">'
                f'<td class="num">{_e(ply)}</td><td>{_e(self.seat(step["seat"]))}</td>'
                f'<td class="played">{self.card(step["move"])}</td>'
                f'<td class="num value">{_e(signed(step["value_after"]))}</td>'
                f'<td class="verdict">{mark}{_e(verdict)}</td><td class="better">{self.better(step)}</td></tr>')
            winner = step.get("trick_winner")
            if winner is not None or step is self.steps[-1]:
                score = plain(step.get("score") or {})
                if winner is not None:
                    head = f"Trick {trick_no}, won by {self.seat(winner)}"
                elif not trick_size:
                    head = "Play"
                else:
                    why = self.ended_mid_trick()
                    head = f"Trick {trick_no}, " + (f"not played out: {why}" if why else "unfinished")
                won = "" if winner is None else f' data-winner="{_e(winner)}"'
                # (Prší's one group of actions: the hand sizes after its last one)
                counted = self.counted + (" at the end:" if not trick_size and winner is None else "")
                shown = f' <span class="score">· {counted} {_e(score)}</span>' if score else ""
                rows.append(f'<tbody class="trick" id="trick-{trick_no}" data-trick="{trick_no}"{won}>'
                            f'<tr class="trick-head"><th colspan="6" scope="rowgroup">{_e(head)}{shown}</th></tr>'
                            f'{"".join(trick_rows)}</tbody>')
                trick_no, trick_rows = trick_no + 1, []
        unit = self.unit
        head = (f'<thead><tr><th scope="col">Ply</th><th scope="col">Played by</th><th scope="col">{unit.title()}</th>'
                '<th scope="col">Value after</th><th scope="col">Verdict</th>'
                f'<th scope="col">Better {unit}s (the value each gives)</th></tr></thead>')
        order = "in order" if self.unit == "action" else "trick by trick"
        return (f'<table class="play" aria-describedby="keys"><caption>Every {unit}, {order}, with the value '
                f'after it</caption>{head}{"".join(rows)}</table>')

    def result(self) -> str:
        final = self.doc.get("final") or {}
        out = []
        played = self.from_ply + len(self.steps)      # every recorded action, those before from_ply too
        if final.get("pv"):
            # trick by trick, as `ddcards solve` prints a line: 30 cards in a row read as none
            line = '<span class="trick-end" aria-hidden="true"> | </span>'.join(
                " ".join(self.card(c) for c in trick) for trick in self.line_tricks(final["pv"]))
            out.append(f'<p>The record stops after {played} {self.unit}{"s" if played != 1 else ""}; the rest is the '
                       'optimal continuation: '
                       f'<span class="line">{line}</span>.</p>')
        scores = final.get("scores") or {}
        if scores:
            caption = "Hand sizes at the end of the line" if self.counted == "hand sizes" else "Final scores"
            out.append(f'<table class="scores"><caption>{caption}</caption><tbody>' + "".join(
                f'<tr><th scope="row">{_e(spoken(k))}</th>'
                f'<td class="num" data-score="{_e(k)}">{_e(v)}</td></tr>'
                for k, v in scores.items()) + "</tbody></table>")
        tricks = final.get("tricks") or {}
        if tricks:
            out.append(f'<p><span class="label">tricks</span> {_e(plain(tricks))}</p>')
        outcomes = final.get("outcomes") or {}
        if outcomes:
            out.append(f'<p><span class="label">outcomes</span> {_e(plain(outcomes))}</p>')
        parts = final.get("parts") or {}
        if parts:                              # Mariáš money: what each announced part won or lost
            out.append('<p><span class="label">money by part</span> ' + _e(", ".join(
                f"{spoken(name)} {'won' if part.get('won') else 'lost'} {signed(part.get('money') or 0)}"
                for name, part in parts.items())) + "</p>")
        settlement = final.get("settlement") or []
        if settlement:
            out.append('<table class="settlement"><caption>Settlement</caption><tbody>' + "".join(
                f'<tr><th scope="row">{_e(self.seat(seat))}</th>'
                f'<td class="num" data-seat="{_e(seat)}">{_e(signed(v))}</td></tr>'
                for seat, v in enumerate(settlement)) + "</tbody></table>")
        verdict = self.doc.get("final_outcome")
        if verdict:
            what = f"The value after ply {_e(self.stopped_after)}" if self.stopped_after is not None else "Final value"
            out.insert(0, f'<p class="verdict-final">{what} <strong>{_e(signed(self.doc["final_value"]))}'
                          f'</strong>: {_e(verdict)}.</p>')
        return "\n".join(out)


def render(doc: Mapping[str, Any], stopped: str = "") -> str:
    """The report page of an analysis document (``Analysis.to_dict()``); NotationError naming the
    field when the document has a field the page cannot show (a step's ``ply`` that is text, say).
    `stopped`: why the analysis stopped before the record's end (the ``analysis`` of a
    SearchTimeout from ``Solver.analyse``), said at the top of the page; "" for a whole analysis."""
    check_analysis(doc)
    page = Page(doc, stopped or _stopped_on_the_way(doc))
    german = " deck-german" if page.suit_names else ""
    return Template(template("report.html.tmpl")).substitute(
        title=_e(page.title()),
        body_class=f"report{german}",
        css=template("cards.css") + template("report.css"),
        script=template("report.js"),
        summary=page.summary(),
        diagram=page.diagram(),
        setup=page.setup(),
        chart=page.chart(),
        play=page.play(),
        result=page.result(),
        unit=page.unit,
        a_unit="An action" if page.unit == "action" else "A card",
        trick_rules="" if page.unit == "action" else " Vertical rules end the tricks.",
        deal_heading=f"The position before ply {_e(page.from_ply)}" if page.from_ply else "The deal",
        version=_e(ddcards.__version__),
        data=script_json(doc),
    )


def _stopped_on_the_way(doc: Mapping[str, Any]) -> str:
    """What the top of the page says of a document with no final solve whose steps end before
    its record does (an analysis stopped on the way, saved by a program): "" for any other.
    Without it such a page read as the whole record's ("after the recorded play it is ...")."""
    played = ((doc.get("deal") or {}).get("position") or {}).get("played")
    steps = doc["steps"]
    if doc.get("final") is not None or not steps or not isinstance(played, list):
        return ""
    left = len(played) - steps[-1]["ply"] - 1
    if left <= 0:
        return ""
    return (f"the analysis stopped after ply {steps[-1]['ply']} (the document has no final solve): "
            f"{plies_shown(doc['game'], steps[0]['ply'], steps[-1]['ply'], left)}.")


def _in_plies(distance: int | None) -> str:
    return "" if distance is None else f" in {distance}"
