"""The HTML report: `ddcards report`, the page's pieces, self-containment and colours.

What the page shows, read back from the DOM of a real browser and compared with
``ddcards.analyse``, is in test_report_browser.py.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import ddcards
from ddcards.report import render, report_html, write_report
from ddcards.report.chart import _ticks, step_kind
from ddcards.report.display import as_cards, card_piece, extras, hand_suits, plain, signed
from ddcards.report.render import template

try:
    from tests import _report_deals as deals
except ImportError:  # pytest put tests/ itself on sys.path
    import _report_deals as deals


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ddcards", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, input=stdin)


class Links(HTMLParser):
    """Every URL a page would load or link to, and its ids."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.ids: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name in ("src", "href", "action", "data", "poster") and value is not None:
                self.urls.append(value)
            if name == "id" and value:
                self.ids.append(value)


@pytest.fixture(scope="module")
def seed_page() -> str:
    return report_html(deals.seed_deal())


def test_the_page_is_self_contained(seed_page):
    links = Links()
    links.feed(seed_page)
    # nothing to fetch: in-page anchors and the empty data: icon only
    assert links.urls and all(u.startswith("#") or u == "data:," for u in links.urls), links.urls
    assert not {"img", "iframe", "object", "embed"} & links.tags
    assert "@import" not in seed_page and "url(" not in seed_page
    assert len(links.ids) == len(set(links.ids)), "ids are unique"
    for anchor in (u[1:] for u in links.urls if u.startswith("#")):
        assert anchor in links.ids, anchor


def test_the_page_carries_its_analysis(seed_page):
    data = re.search(r'<script type="application/json" id="analysis">(.*?)</script>', seed_page, re.S).group(1)
    doc = json.loads(data)
    want = json.loads(json.dumps(ddcards.analyse(deals.seed_deal(), mode="all").to_dict()))
    for timed in (doc, want, doc["final"], want["final"]):
        del timed["elapsed_ms"]
    assert doc == want


def test_render_needs_only_the_document():
    doc = json.loads(json.dumps(ddcards.analyse(deals.klaverjas_deals()[2], mode="all").to_dict()))
    page = render(doc)
    assert page.count('<tr id="ply-') == 32 and page.count('data-kind="mistake"') == 2
    assert "nat: the playing team scores nothing" in page


def test_german_suit_names_where_the_game_uses_them(seed_page):
    for name in ("zelené", "červené", "kule", "žaludy"):
        assert name in seed_page
    assert 'class="report deck-german"' in seed_page
    page = report_html(deals.klaverjas_deals()[0])
    assert "červené" not in page and "hearts" in page and 'class="report"' in page


def test_a_record_with_no_card_yet():
    page = report_html(dict(deals.seed_deal(), played=[]))
    assert "No card has been played" in page
    assert "the rest is the optimal continuation" in page       # the whole line comes from the solver
    assert 'data-score="declarer">100<' in page                 # 70 = 100 - 30 (README's worked example)


def test_an_unfinished_record_shows_the_continuation():
    doc = deals.seed_deal()
    page = report_html(dict(doc, played=doc["played"][:8]))
    res = ddcards.solve(dict(doc, played=doc["played"][:8]))
    assert "Trick 3, unfinished" in page
    line = re.search(r'<span class="line">(.*?)</span>\.</p>', page).group(1)
    assert re.findall(r'data-card="(\w+)"', line) == res.pv


def test_the_continuation_is_split_into_its_tricks():
    # The optimal continuation was one run of cards (22 of them here): now split where each trick
    # ends, as `ddcards solve` prints a line, the trick left unfinished by the record first.
    doc = deals.seed_deal()
    page = report_html(dict(doc, played=doc["played"][:8]))
    pv = ddcards.solve(dict(doc, played=doc["played"][:8])).pv
    line = re.search(r'<span class="line">(.*?)</span>\.</p>', page).group(1)
    tricks = [re.findall(r'data-card="(\w+)"', trick) for trick in line.split('<span class="trick-end"')]
    assert tricks == [pv[:1]] + [pv[i:i + 3] for i in range(1, len(pv), 3)] and len(tricks) == 8
    # Mariasz's exchange is no card of a trick: it stays with the lead after it
    race = ddcards.example("mariasz-race")
    res = ddcards.solve(race)
    page = report_html(dict(race, played=[]))
    line = re.search(r'<span class="line">(.*?)</span>\.</p>', page).group(1)
    tricks = [re.findall(r'data-card="(\w+)"', trick) for trick in line.split('<span class="trick-end"')]
    assert [m for trick in tricks for m in trick] == res.pv and res.pv[0] == "exchange"
    assert tricks[0] == res.pv[:3] and all(len(trick) == 2 for trick in tricks[1:-1])


def test_a_race_claimed_in_mid_trick_ends_its_last_trick_without_calling_it_unfinished():
    # Seat 1 leads KH with QH in hand: the trump marriage takes him from 103 to 137, past 131, and
    # the race ends at the claim, its trick not played out (docs/RULES.md §3.8).
    doc = {"game": "mariasz", "hands": ["AQ.T.QJT.", "J.Q.A.AKQ"], "stock": "KH KS JC TC TS AH JH 6C 6S 6H KD 6D",
           "options": {"szlifowany": True}, "objective": "race", "start_scores": [64, 103],
           "played": ["QS", "AD", "KH"]}
    assert ddcards.Position.from_dict(doc).is_over
    page = report_html(doc)
    assert "Trick 2, not played out: the deal ended at the claim" in page and "unfinished" not in page
    assert "Trick 1, won by seat 1" in page


# ------------------------------------------------------------------ colours

def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_ratios_reach_wcag_aa():
    css = template("cards.css")
    colours = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", css))
    german = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", css[css.index(".deck-german"):]))
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    backgrounds = [colours["paper"], colours["mistake-bg"], colours["lost-bg"], "#f3f3f3", "#e9f5ea"]
    for name in ("ink", "muted", "suit-S", "suit-H", "suit-D", "suit-C", "mistake", "lost", "best", "focus"):
        for bg in backgrounds:
            assert contrast(colours[name], bg) >= 4.5, (name, colours[name], bg)
    for name, colour in german.items():
        for bg in backgrounds:
            assert contrast(colour, bg) >= 4.5, (name, colour, bg)


# ------------------------------------------------------------------ pieces

def test_display_pieces():
    assert signed(70) == "+70" and signed(-20) == "\u221220" and signed(0) == "0" and signed(None) == "?"
    assert card_piece("10♥", ("zelené", "červené", "kule", "žaludy")) == {
        "card": "TH", "rank": "T", "suit": "H", "symbol": "♥", "suit_name": "červené", "name": "T of červené"}
    rows = hand_suits("AT.AKQ9..87")
    assert [(r["symbol"], r["name"], r["ranks"]) for r in rows] == [
        ("♠", "spades", ["A", "T"]), ("♥", "hearts", ["A", "K", "Q", "9"]), ("♦", "diamonds", []),
        ("♣", "clubs", ["8", "7"])]
    assert as_cards("9C KC") == ["9C", "KC"] and as_cards(["QH"]) == ["QH"] and as_cards("draw") is None
    assert as_cards({"a": 1}) is None
    assert plain({"playing": 20, "other": 0}) == "playing 20, other 0" and plain(True) == "yes"


def test_chart_pieces():
    assert _ticks(0, 70) == [0, 20, 40, 60] and _ticks(-162, 0) == [-150, -100, -50, 0]
    assert _ticks(-1, 1) == [-1, 0, 1]
    assert step_kind({"cost": 0}) == "best" and step_kind({"cost": 20, "changes_outcome": False}) == "lost"
    assert step_kind({"cost": 2, "changes_outcome": True}) == "mistake"


def test_the_chart_takes_every_value_the_document_allows(seed_doc):
    # Values up to 10**15 pass the check; past 5 * 10**9 the ticks' steps ran out (StopIteration
    # out of render()), and a step of 10**9 over such a span would have drawn a million ticks.
    assert _ticks(-10 ** 15, 10 ** 15 - 1) == [-10 ** 15, -5 * 10 ** 14, 0, 5 * 10 ** 14]
    assert _ticks(0, 4_000) == [0, 1_000, 2_000, 3_000, 4_000]
    # Two steps from just above -10**15 to 0 and on to just below 10**15, each costing the most
    # a cost may be; the values follow on as an analysis writes them (check.py's _check_values),
    # and with no final solve, as an analysis stopped after them.
    low, high = -(10 ** 15 - 1), 10 ** 15 - 1
    doc = json.loads(json.dumps(seed_doc))
    doc.update(steps=doc["steps"][:2], initial_value=low, final_value=high, final=None, mistakes=[0, 1],
               outcome_mistakes=[s["ply"] for s in doc["steps"][:2] if s["changes_outcome"]])
    for step, (before, after) in zip(doc["steps"], ((low, 0), (0, high))):
        # (an action that cost something is none of the optimal ones, its best_moves)
        step.update(value_before=before, value_after=after, cost=high, mistake=True, moves=[],
                    best_moves=[m for m in step["best_moves"] if m != step["move"]])
    # (the words on the values, as check.py works them out: the declarer wins above 0)
    doc["initial_outcome"] = "declarer loses"
    doc["steps"][0].update(outcome="declarer loses", changes_outcome=False)
    doc["steps"][1].update(outcome="declarer wins", changes_outcome=True)
    doc["outcome_mistakes"] = [doc["steps"][1]["ply"]]
    labels = re.findall(r'class="ylabel"[^>]*>([^<]*)<', render(doc))
    assert labels == ["\u2212500000000000000", "0", "+500000000000000"]


# ------------------------------------------------------------------ command line

def test_cli_report_writes_the_page(tmp_path):
    deal = tmp_path / "seed.json"
    deal.write_text(json.dumps(deals.seed_deal()))
    out = run("report", str(deal), "-o", str(tmp_path / "deal.html"))
    assert out.returncode == 0, out.stderr
    assert f"wrote {tmp_path / 'deal.html'}" in out.stderr
    page = (tmp_path / "deal.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count('data-kind="lost"') == 3
    out = run("report", str(deal))                                # default: beside the input
    assert out.returncode == 0 and (tmp_path / "seed.html").exists()
    out = run("report", "--example", "klaverjas", cwd=tmp_path)
    assert out.returncode == 0 and (tmp_path / "klaverjas.html").exists()


def test_cli_report_to_stdout_from_stdin():
    out = run("report", "-", "-o", "-", stdin=json.dumps(deals.klaverjas_deals()[1]))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("<!DOCTYPE html>") and out.stdout.count('<tr id="ply-') == 32


@pytest.mark.parametrize("content, token, message", [
    (json.dumps(dict(deals.seed_deal(), played=["QH", "JH"])), "JH", "must beat QH"),
    ('{"game": "marias", ', None, "not valid JSON"),
    (json.dumps(deals.seed_deal()) + "\n" + json.dumps(deals.seed_deal()), None, "a report shows one deal"),
    (json.dumps(dict(deals.seed_deal(), trump="Z")), None, "unknown suit 'Z'"),
])
def test_cli_report_bad_input(tmp_path, content, token, message):
    deal = tmp_path / "bad.json"
    deal.write_text(content)
    out = run("report", str(deal), "-o", str(tmp_path / "bad.html"))
    assert out.returncode == 2 and message in out.stderr and out.stderr.startswith("ddcards: error:")
    assert not (tmp_path / "bad.html").exists()


def test_cli_report_renders_an_analysis_document(tmp_path):
    # `ddcards analyse --json` output (a long Mariasz analysis, say) is rendered as it is, the same
    # page as from the deal; it was refused with "field 'line' does not apply to marias".
    analysed = run("analyse", "--example", "marias-seed", "--json", "--mode", "all")
    assert analysed.returncode == 0, analysed.stderr
    (tmp_path / "an.json").write_text(analysed.stdout)
    out = run("report", str(tmp_path / "an.json"), "-o", "-")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count('data-kind="lost"') == 3 and out.stdout.count('<tr id="ply-') == 30
    # a bad analysis document: the field named, exit status 2
    doc = json.loads(analysed.stdout)
    doc["steps"][3]["seat"] = "x"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    out = run("report", str(tmp_path / "bad.json"), "-o", str(tmp_path / "bad.html"))
    assert out.returncode == 2 and "steps[3].seat: a seat" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "bad.html").exists()
    # an error record of `analyse --json` says what it is and the error it carries
    record = run("analyse", "-", "--json", stdin=json.dumps(dict(deals.seed_deal(), played=["QH", "JH"])))
    out = run("report", "-", "-o", "-", stdin=record.stdout)
    assert out.returncode == 2 and "is an error record, not a deal to report" in out.stderr
    assert "must beat QH" in out.stderr and "field 'line'" not in out.stderr


def test_cli_report_from_ply_with_an_analysis_document_is_refused_not_ignored(tmp_path):
    # an analysis document is rendered as it is: --from-ply 5 was ignored (exit 0, a page of the
    # play from ply 0); a --from-ply the analysis does not start at is now a usage error
    analysed = run("analyse", "--example", "marias-seed", "--json")
    (tmp_path / "an.json").write_text(analysed.stdout)
    out = run("report", str(tmp_path / "an.json"), "-o", str(tmp_path / "an.html"), "--from-ply", "5")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("ddcards: error: --from-ply 5: the input is an analysis document")
    assert "from played[0] on" in out.stderr and not (tmp_path / "an.html").exists()
    # the ply the analysis starts at (or none given) renders it
    late = run("analyse", "--example", "marias-seed", "--json", "--from-ply", "5")
    (tmp_path / "late.json").write_text(late.stdout)
    out = run("report", str(tmp_path / "late.json"), "-o", "-", "--from-ply", "5")
    assert out.returncode == 0 and out.stdout.count('<tr id="ply-') == 25
    out = run("report", str(tmp_path / "late.json"), "-o", "-", "--from-ply", "3")
    assert out.returncode == 2 and "from played[5] on" in out.stderr and out.stdout == ""


def test_cli_report_output_errors(tmp_path):
    deal = tmp_path / "seed.json"
    deal.write_text(json.dumps(deals.seed_deal()))
    out = run("report", str(deal), "-o", str(tmp_path / "missing" / "deal.html"))
    assert out.returncode == 2 and "cannot write" in out.stderr and "No such file or directory" in out.stderr
    out = run("report", str(deal), "-o", str(deal))
    assert out.returncode == 2 and "would overwrite its input" in out.stderr
    assert json.loads(deal.read_text()) == deals.seed_deal()
    # a hard link to the input is the input too (resolve() saw only symlinks: a security review's find)
    os.link(deal, tmp_path / "linked.json")
    out = run("report", str(deal), "-o", str(tmp_path / "linked.json"))
    assert out.returncode == 2 and "would overwrite its input" in out.stderr
    assert json.loads(deal.read_text()) == deals.seed_deal()
    # ... and so is the file standard input comes from (`ddcards report - -o deal.json < deal.json`)
    with open(deal) as stdin:
        out = subprocess.run([sys.executable, "-m", "ddcards", "report", "-", "-o", str(deal)], stdin=stdin,
                             capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "would overwrite its input" in out.stderr
    assert json.loads(deal.read_text()) == deals.seed_deal()
    out = run("report", str(tmp_path / "nowhere.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr
    # -o "$PAGE" with the variable unset: an error, not the page written beside its input unasked
    out = run("report", str(deal), "-o", "")
    assert out.returncode == 2 and "-o '': the page's file name is empty" in out.stderr
    assert not (tmp_path / "seed.html").exists()


def test_cli_report_timeout(tmp_path):
    slow = deals.klaverjas_deal(4)
    out = run("report", "-", "-o", str(tmp_path / "x.html"), "--timeout", "0.0001", "--tt-mb", "1",
              stdin=json.dumps(slow))
    assert out.returncode == 1 and out.stderr.startswith("ddcards: stopped:") and "ran out of time" in out.stderr
    assert out.stderr.rstrip().endswith("(no page is written: no action was analysed)")
    assert not (tmp_path / "x.html").exists()


def test_write_report(tmp_path):
    path = write_report(deals.seed_deal(), tmp_path / "r.html")
    assert path.read_text(encoding="utf-8").count("<tr id=\"ply-") == 30


def test_the_lead_says_where_the_deal_was_decided(seed_page):
    lead = re.search(r'<p class="lead">(.*?)</p>', seed_page, re.S).group(1)
    assert "No card changed the outcome. 3 cards lost value without changing it." in lead
    assert "<strong>+70</strong> (declarer wins)" in lead and "<strong>+50</strong> (declarer wins)" in lead
    page = report_html(deals.marias_deals()[1])          # -30 -> +30, turned at plies 16, 18 and 25
    lead = re.search(r'<p class="lead">(.*?)</p>', page, re.S).group(1)
    assert "The outcome was turned 3 times" in lead and "which decided it" in lead
    assert re.findall(r'href="#ply-(\d+)"', lead) == ["16", "18", "25"]
    assert "2 cards lost value without changing it." in lead
    sedma = report_html(deals.marias_deals()[2])
    lead = re.search(r'<p class="lead">(.*?)</p>', sedma, re.S).group(1)
    assert "The outcome was turned at" in lead and 'href="#ply-0">ply 0,' in lead
    assert "<strong>+1</strong> (made)" in lead and "<strong>\u22121</strong> (defeated)" in lead


def test_a_game_without_tricks_is_laid_out_by_actions():
    # Prší has no tricks (trick_size None, no trick winners): the play is one list of actions
    # (cards, an Ober naming a suit, draws), the chart counts actions.  Rendered from the document alone.
    doc = json.loads(json.dumps(ddcards.analyse(ddcards.example("prsi-endgame"), mode="all").to_dict()))
    assert doc["deal"]["trick_size"] is None and all(s["trick_winner"] is None for s in doc["steps"])
    page = render(doc)
    assert '<td class="played"><span class="action" data-card="draw">draw</span></td>' in page
    assert '<td class="played"><span class="ober" data-card="QD/C">' in page
    assert page.count('<tbody class="trick"') == 1 and 'scope="rowgroup">Play ' in page
    chart = page.split("<svg")[1].split("</svg>")[0]
    assert page.count('<tr id="ply-') == 14 and "actions played" in chart and 'class="trick"' not in chart


def test_cli_help_lists_the_report_and_the_board():
    out = run("--help")
    assert out.returncode == 0 and "report" in out.stdout and "board" in out.stdout
    out = run("report", "--help")
    # argparse 3.13+ writes "-o, --output FILE.html", earlier versions "-o FILE.html, --output FILE.html"
    assert re.search(r"-o(?: FILE\.html)?, --output FILE\.html", out.stdout) and "--open" in out.stdout


def test_extras_leave_out_what_has_nothing_to_show():
    view = {"title": "t", "hands": [], "talon": "9C KC", "points": {"playing": 0, "other": 0},
            "roem": {"playing": 20, "other": 0}, "stock": [], "note": ""}
    assert extras(view) == [("talon", "9C KC"), ("roem", {"playing": 20, "other": 0})]


# -- a document from elsewhere (render() is for other programs' analysis JSON too)

PAYLOAD = '"><img src=x onerror=alert(1)>'


class Tags(HTMLParser):
    """Every start tag of a page and its attribute names, and the text (entities decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, [name for name, _ in attrs]))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_inert(page: str, payload: str) -> None:
    """The payload is on the page as text only: no tag, no event handler came of it."""
    assert "<img" not in page and "<script>alert" not in page
    parser = Tags()
    parser.feed(page)
    assert "img" not in {tag for tag, _ in parser.tags}
    assert not [(tag, names) for tag, names in parser.tags if any(n.startswith("on") for n in names)]
    assert page.count("<script") == 2                    # the analysis data and the page's own script


@pytest.fixture(scope="module")
def seed_doc() -> dict:
    return json.loads(json.dumps(ddcards.analyse(deals.seed_deal(), mode="all").to_dict()))


def edited(doc: dict, path: str, value) -> dict:
    """A copy of `doc` with the field at `path` ("steps.0.ply") set to `value`."""
    doc = json.loads(json.dumps(doc))
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = value
    return doc


@pytest.mark.parametrize("path, field", [
    ("steps.0.ply", "steps[0].ply"), ("steps.0.seat", "steps[0].seat"),
    ("steps.0.value_before", "steps[0].value_before"), ("steps.0.value_after", "steps[0].value_after"),
    ("steps.0.cost", "steps[0].cost"), ("steps.2.trick_winner", "steps[2].trick_winner"),
    ("initial_value", "initial_value"), ("final.settlement.1", "final.settlement[1]"), ("final.value", "final.value"),
    ("deal.suit_names", "deal.suit_names"),
    ("steps.0.moves.0.value", "steps[0].moves[0].value"), ("value_kind", "value_kind"),
])
def test_render_refuses_a_payload_where_a_number_belongs(seed_doc, path, field):
    with pytest.raises(ddcards.NotationError) as err:
        render(edited(seed_doc, path, PAYLOAD))
    assert err.value.field == field and str(err.value).startswith(f"{field}: ")
    assert err.value.token == PAYLOAD and err.value.rule.startswith("docs/RULES.md §0.10")


@pytest.mark.parametrize("path, value, field, message", [
    ("steps.0.seat", "1", "steps[0].seat", "steps[0].seat: a seat: a whole number from 0 to 2, not '1'"),
    ("steps.0.seat", 3, "steps[0].seat", "a whole number from 0 to 2, not 3"),
    ("steps.0.value_before", "70", "steps[0].value_before", "steps[0].value_before: a whole number, not '70'"),
    ("steps.2.trick_winner", "1", "steps[2].trick_winner", "a seat: a whole number from 0 to 2, not '1'"),
    ("steps.0.ply", True, "steps[0].ply", "a whole number from 0, not true"),
    ("steps.0.ply", -1, "steps[0].ply", "a whole number from 0, not -1"),
    ("steps.0.cost", 1.5, "steps[0].cost", "a whole number from 0, not 1.5"),
    ("final_value", 10 ** 20, "final_value", "final_value: a whole number, not 100000000000000000000"),
    ("steps.0", "QH", "steps[0]", "steps[0]: an object, not 'QH'"),
    ("steps", None, "steps", "steps: an array, not null"),
    ("steps.0.best_moves", None, "steps[0].best_moves", "steps[0].best_moves: an array, not null"),   # a KeyError
    ("steps.0.best_moves", 5, "steps[0].best_moves", "steps[0].best_moves: an array, not 5"),
    ("deal.position.trump", "Z", "deal.position.trump", "unknown suit 'Z'"),
    ("deal.position.trump", 3, "deal.position.trump", "a suit, not 3"),
    ("deal.hands.0", PAYLOAD, "deal.hands[0]", "deal.hands[0]: hand '\"><img src=x onerror=alert(1)>': unknown card"),
    ("deal.hands.1", 7, "deal.hands[1]", "deal.hands[1]: text, not 7"),
    ("final.parts", {"hra": 5}, "final.parts.hra", "final.parts.hra: an object, not 5"),
    ("final.parts", {"hra": {"won": "yes"}}, "final.parts.hra.won", "final.parts.hra.won: true or false, not 'yes'"),
    ("final.parts", {"hra": {"money": 1.5}}, "final.parts.hra.money", "final.parts.hra.money: a whole number, not 1.5"),
    ("deal.value_meaning", 5, "deal.value_meaning", "deal.value_meaning: text, not 5"),
])
def test_render_names_the_field_it_cannot_show(seed_doc, path, value, field, message):
    # These were raw TypeErrors (or a page with a wrong value): now an error naming the field.
    with pytest.raises(ddcards.NotationError) as err:
        render(edited(seed_doc, path, value))
    assert err.value.field == field and message in str(err.value)


@pytest.mark.parametrize("path", [
    "steps.0.move", "steps.0.outcome", "steps.9.moves.0.move", "steps.0.best_moves.0", "deal.title",
    "deal.roles.1", "deal.value_owner", "deal.value_meaning", "initial_outcome", "final_outcome", "final.pv",
])
def test_text_fields_reach_the_page_escaped(seed_doc, path):
    # Step 0 turned the outcome (its outcome is shown) and lists no moves (its best_moves are).
    doc = edited(edited(seed_doc, "steps.0.changes_outcome", True), "steps.0.moves", [])
    doc["outcome_mistakes"] = [0]
    # Without the record (no deal.position: a position without `played` is a record of nothing
    # played, RULES §0.10): with it, the deal's fields, the words on the values (step 0's turn too)
    # and the final line are the record's as laid out and played (test_report_reader); without it
    # they are the document's own text
    del doc["deal"]["position"]
    if path in ("steps.0.move", "steps.0.best_moves.0", "steps.9.moves.0.move"):
        # a move the record does not hold is refused (test_report_reader), and so is one that is no
        # action of the game where the document leaves the record out: played, named optimal or
        # listed with its value
        field = path.replace(".0.", "[0].").replace("best_moves.0", "best_moves[0]").replace(".9.", "[9].") \
            .replace("moves.0.", "moves[0].")
        with pytest.raises(ddcards.NotationError, match=re.escape(f"{field}: an action of marias: a card, not")) as err:
            render(edited(doc, path, PAYLOAD))
        assert err.value.field == field
        return
    doc = edited(doc, path, [PAYLOAD] if path == "final.pv" else PAYLOAD)
    if path == "final_outcome":
        doc["steps"][-1]["outcome"] = PAYLOAD           # the words on the same value (check.py)
    page = render(doc)
    assert_inert(page, PAYLOAD)
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page       # shown, as text
    data = re.search(r'<script type="application/json" id="analysis">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data) == doc


def test_keys_and_extras_reach_the_page_escaped(seed_doc):
    doc = edited(seed_doc, "final.scores", {PAYLOAD: 1})
    doc["deal"][PAYLOAD] = PAYLOAD                       # a game's extra, label and text
    # (no record to lay the deal out from: with deal.position, a position without `played` too,
    # the deal and the scores are the record's, and a key no position has is refused)
    del doc["deal"]["position"]
    doc["steps"][2]["score"] = {PAYLOAD: 10}             # the trick's score line (a score is a whole number)
    page = render(doc)
    assert_inert(page, PAYLOAD)
    assert page.count("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;") >= 5


@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "<!--<script>", "a\u2028b\u2029c",
                                  "</SCRIPT >", "&lt;b&gt;"])
def test_the_inline_data_cannot_end_its_script(seed_doc, text):
    doc = edited(seed_doc, "deal.title", text)
    del doc["deal"]["position"]                          # (no record to lay the deal out from)
    page = render(doc)
    data = re.search(r'<script type="application/json" id="analysis">(.*?)</script>', page, re.S).group(1)
    assert not {"<", ">", "&", "\u2028", "\u2029"} & set(data)
    assert json.loads(data) == doc and json.loads(data)["deal"]["title"] == text
    assert page.count("<script") == 2 and "<script>alert" not in page


def test_a_move_without_its_value_is_shown_without_one(seed_doc):
    # A move's value is optional (the check lets it be left out, as mode optimal leaves it null): a
    # mistake's "better cards" read it with m["value"] and raised a KeyError out of render().
    doc = json.loads(json.dumps(seed_doc))
    step = doc["steps"][0]
    assert step["cost"] > 0 and step["moves"]
    for move in step["moves"]:
        if move["move"] != "AS":
            del move["value"]
    page = render(doc)
    better = re.search(r'id="ply-0".*?<td class="better">(.*?)</td>', page, re.S).group(1)
    assert "+70" in better and better.count('class="v"') == 1


def test_render_refuses_what_is_not_json(seed_doc):
    doc = dict(seed_doc, nodes=float("nan"))
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    # named by its place (it was "analysis: ... is not JSON"); test_report_reader.py has the rest
    assert err.value.field == "nodes" and str(err.value).startswith("nodes: nan is not a JSON number")
    with pytest.raises(ddcards.NotationError) as err:
        render(["steps"])
    assert err.value.field == "analysis" and "an object (Analysis.to_dict())" in str(err.value)


# -- the words on a value: the game's own, once

def lead_and_final(page: str) -> tuple[str, str]:
    lead = re.search(r'<p class="lead">(.*?)</p>', page, re.S).group(1)
    final = re.search(r'<p class="verdict-final">(.*?)</p>', page, re.S).group(1)
    return lead, final


@pytest.mark.parametrize("name", ["marias-betl", "marias-durch"])
def test_betl_and_durch_say_made_once(name):
    lead, final = lead_and_final(report_html(ddcards.example(name)))
    assert lead.startswith("At the start the value is <strong>+1</strong> (made); after the recorded play it is "
                           "<strong>+1</strong> (made).")
    assert "(made) (made)" not in lead
    assert final == "Final value <strong>+1</strong>: made."


def test_races_take_the_games_words():
    lead, final = lead_and_final(report_html(ddcards.example("prsi")))
    assert lead.startswith("At the start the value is <strong>+1</strong> (seat 0 can force being out first "
                           "within 20 plies);")
    assert final == "Final value <strong>+1</strong>: seat 0 can force being out first within 20 plies."
    page = report_html(ddcards.example("mariasz-race"))
    lead, final = lead_and_final(page)
    assert lead.startswith("At the start the value is <strong>\u22121</strong> (seat 1 reaches 131 first);")
    assert final == "Final value <strong>\u22121</strong>: seat 1 reaches 131 first."
    for page in (report_html(ddcards.example("prsi-endgame")), page):
        lead, final = lead_and_final(page)
        for word in ("(made)", "(defeated)", "(neither)"):
            assert word not in lead and word not in final


def test_a_prsi_ober_shows_its_card_and_the_suit_it_names():
    page = report_html(ddcards.example("prsi-endgame"))
    played = re.findall(r'<td class="played">(.*?)</td>', page)
    assert played[0] == (
        '<span class="ober" data-card="QD/C"><span class="card suit-D" data-card="QD" title="Q of diamonds">'
        'Q<span class="sym" aria-hidden="true">♦</span><span class="sr"> of diamonds</span></span> '
        '<span class="named">names <span class="suit suit-C"><span aria-hidden="true">♣</span> clubs</span>'
        '</span></span>')
    assert '<span class="action" data-card="QD/C">' not in page
    assert played[1] == '<span class="action" data-card="draw">draw</span>'
    assert as_cards("QD/C") is None                      # still no card list: a card and a suit


PRSI_SLOW = {"game": "prsi", "hands": ["9.Q.9.9", "J.K7.T.", "7.J.7.Q"], "upcard": "KS",
             "stock": "AD JC 8S AS AC 9H QS TH AH JD 8H QD 8C KC TS 7C TC 8D KD", "options": {"horizon": 10},
             "played": ["QH/H", "KH", "JH", "draw", "7H", "7D", "draw", "draw", "7S", "draw", "JS", "QC/S"]}


def test_an_action_that_keeps_the_value_slower_is_not_called_best():
    # Ply 4: seat 1's 7H keeps the value (-1, cost 0: no mistake) but not its distance (8 plies
    # against JS's 7): it is not among the optimal actions, and the page does not call it best.
    analysis = ddcards.analyse(PRSI_SLOW)
    step = analysis.steps[4]
    assert (step.move, step.cost, step.mistake, list(step.best_moves)) == ("7H", 0, False, ["JS"])
    row = re.search(r'<tr id="ply-4".*?</tr>', report_html(PRSI_SLOW)).group(0)
    assert '<td class="verdict">kept the value, not the best: the end in 8 plies, not 7</td>' in row
    assert 'class="better"><span class="card suit-S" data-card="JS"' in row
    assert row.endswith('&nbsp;<span class="v">−1 in 7</span></td></tr>')          # what makes JS better
    best_row = re.search(r'<tr id="ply-1".*?</tr>', report_html(PRSI_SLOW)).group(0)
    assert analysis.steps[1].move in analysis.steps[1].best_moves and '<td class="verdict">best</td>' in best_row


def test_a_value_that_moves_at_the_horizon_edge_is_explained():
    # Horizon 6: each position is searched 6 plies ahead of itself, so the position after ply 5
    # sees a loss the one before could not: the chart moves from 0 to -1 with no action's cost.
    doc = {"game": "prsi", "hands": [".8.97.J", "QJ.7..7"], "upcard": "TC", "options": {"horizon": 6},
           "stock": "8C 9C KC JH AS TD QH AH KD QD 8D 9S 8S TS AD JD KH AC TH QC KS 9H 7S",
           "played": ["draw", "QS/S", "draw", "JS", "draw", "draw", "draw", "JH", "JC", "7C", "7D", "7H"]}
    analysis = ddcards.analyse(doc)
    assert not analysis.mistakes and (analysis.steps[5].value_after, analysis.steps[6].value_before) == (0, -1)
    caption = re.search(r'id="chart-caption">([^<]*)<', report_html(doc)).group(1)
    assert caption == ("The value starts at 0 and ends at −1 after 12 actions; it ranges from −1 to 0. No action lost "
                       "value: no mistakes. Between actions the value moves where the next position&#x27;s search, "
                       "bounded by the horizon, sees further: before ply 6 (0 to −1).")

    # ... and after the last action, where the end's own search sees further (a review found the
    # page saying every action kept the value while the final value differed)
    doc = {"game": "prsi", "hands": [".T.9.T8", "J..AQJ."], "upcard": "KD", "options": {"horizon": 6},
           "stock": "9S JH KS 7D AC QS 7C QC AH AS KC 8H KH TS 8D TD 8S 9C 9H JC QH 7H 7S", "played": ["9D", "JD"]}
    analysis = ddcards.analyse(doc)
    assert not analysis.mistakes and (analysis.steps[-1].value_after, analysis.final_value) == (0, -1)
    caption = re.search(r'id="chart-caption">([^<]*)<', report_html(doc)).group(1)
    assert caption.endswith("bounded by the horizon, sees further: after the last, ply 1 (0 to −1 at the end).")


# -- --open with no browser

def test_cli_report_open_with_no_browser_says_where_the_page_is(tmp_path, monkeypatch, capsys):
    import webbrowser

    from ddcards import cli

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or False)
    out = tmp_path / "seed.html"
    assert cli.main(["report", "--example", "marias-seed", "-o", str(out), "--open"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert opened == [out.resolve().as_uri()] and out.exists()
    assert err == [f"ddcards: wrote {out}", f"ddcards: no browser could be opened; the report is at {out.resolve()}"]
    # A browser that opens: no note.
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: True)
    assert cli.main(["report", "--example", "marias-seed", "-o", str(out), "--open"]) == 0
    assert capsys.readouterr().err.splitlines() == [f"ddcards: wrote {out}"]


def test_a_prsi_report_speaks_of_actions_not_cards_and_tricks():
    # Prší has no tricks, and its actions are cards, draws and passes: the page said "0 cards lost
    # value", "after 14 cards" and "Vertical rules end the tricks".
    import re

    from ddcards.report import report_html

    def visible(html: str) -> str:
        return re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S))

    text = visible(report_html(ddcards.example("prsi-endgame")))
    assert "The value after every action" in text and "Every action, in order, with the value after it" in text
    assert "An action that cost its side value is a mistake" in text          # (it read "A action")
    assert "lost value without changing it" in text and re.search(r"\d+ actions? lost value", text)
    assert "Vertical rules" not in text and "trick by trick" not in text and not re.search(r"\bcards?\b", text)
    mariash = visible(report_html(ddcards.example("marias-seed")))
    assert "Every card, trick by trick" in mariash and "Vertical rules end the tricks." in mariash
    # the player to move is "to play", not "leads" (a trick game's word)
    assert '<span class="badge">to play</span>' in report_html(ddcards.example("prsi-endgame"))
    assert '<span class="badge">leads</span>' in report_html(ddcards.example("marias-seed"))


def test_a_prsi_report_calls_the_cards_each_seat_holds_hand_sizes_not_scores():
    # Prší scores nothing: a step's `score` and the result's `scores` are the cards each seat holds.
    # The page called them "score so far seat 0 3, seat 1 5", "Play · score ..." and "Final scores
    # seat 0 0, seat 1 11", which reads as points with the player who went out on nought.
    def visible(html: str) -> str:
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", " ", html,
                                                                  flags=re.S)))

    text = visible(report_html(ddcards.example("prsi-endgame"), from_ply=6))
    assert "score" not in text.lower()
    assert "hand sizes so far seat 0 3, seat 1 5" in text
    assert "Play · hand sizes at the end: seat 0 3, seat 1 5" in text
    assert "Hand sizes at the end of the line seat 0 0 seat 1 11" in text
    mariash = visible(report_html(ddcards.example("marias-seed"), from_ply=10))
    assert "score so far declarer 40, defenders 30" in mariash and "Final scores declarer 90" in mariash
    assert "Trick 4, won by seat 0 (declarer) · score declarer 40, defenders 30" in mariash


def test_an_unfinished_record_reported_from_a_later_ply_counts_every_recorded_card():
    # The seed deal's first 20 cards, reported from played[12]: the page said "The record stops
    # after 8 cards", the cards it analysed, of a record of 20.
    doc = dict(ddcards.example("marias-seed"))
    doc["played"] = doc["played"][:20]
    for from_ply in (0, 12, 20):
        page = report_html(doc, from_ply=from_ply)
        assert "The record stops after 20 cards; the rest is the optimal continuation:" in page, from_ply
    assert "The record stops after 1 card; the rest" in report_html(dict(doc, played=doc["played"][:1]))


def test_scores_read_as_words_in_the_trick_headers():
    # The report's trick headers and the board's score printed raw keys ("playing_roem 0").
    from ddcards.report.display import plain

    assert plain({"playing_roem": 0, "other_roem": 20, "seat0_out": True}) == \
        "playing roem 0, other roem 20, seat 0 out yes"


def test_the_report_says_what_this_deals_values_mean_and_each_parts_money():
    # An audit: the page gave the game's meanings for every objective (a Betl's listed Hra's and
    # money's too), and left out what each announced part of a money deal won or lost.
    hra = dict(ddcards.example("marias-hra"), trump="C", objective="money", announcements=["sedma"],
               played=["AS", "KS", "7S"])
    final = ddcards.solve(hra)
    assert final.parts == {"hra": {"won": True, "stake": 1, "money": 2},
                           "sedma": {"won": False, "stake": 1, "money": -2}}
    page = report_html(hra)
    assert 'money by part</span> hra won +2, sedma lost \u22122</p>' in page
    assert ("Values are the declarer&#x27;s: the declarer&#x27;s settlement: the money he wins (or pays) for the whole "
            "game as announced.") in page
    assert 'Better cards (the value each gives)' in page
    page = report_html(ddcards.example("marias-betl"))
    assert "Values are the declarer&#x27;s: +1 made, -1 defeated." in page and "money by part" not in page
    assert ddcards.analyse(ddcards.example("marias-betl")).value_meaning == "+1 made, -1 defeated"
    three = ddcards.example("mariasz-three")
    page = report_html(dict(three, played=ddcards.solve(three).pv[:3]))
    player = ddcards.Position.from_dict(ddcards.example("mariasz-three")).session().setup.maxside   # player: default 0
    assert (f"Values are seat {player}&#x27;s: seat {player}&#x27;s deal points (cards, last trick, marriages), "
            "the other two playing together against him.") in page


@pytest.mark.parametrize("name, meaning", [
    ("marias-hra", "the declarer's final points - the defenders' (cards, last trick, marriages)"),
    ({"objective": "money"}, "the declarer's settlement: the money he wins (or pays) for the whole game as announced"),
    ({"contract": "betl", "trump": None, "objective": "money"},
     "the declarer's settlement: the money he wins (or pays) for the whole game as announced"),
    ({"game": "prsi", "options": {"horizon": None}}, "+1 forces a win, 0 no side can ever force the end, -1 a loss, "
                                                     "exactly"),
    ({"game": "prsi-4players", "options": {"not_last": True, "play_on": True}},
     "+1 forces getting out (not being the one left) against all the others together, -1 cannot, within the horizon"),
    ("marias-betl", "+1 made, -1 defeated"),
    ("klaverjas", "the playing team's final score - the other team's (roem, last trick, pit and nat included)"),
    ("mariasz", "seat 0's deal points - seat 1's (cards, last trick, marriages)"),
    ("mariasz-kiks", "team 0's deal points - team 1's (cards, last trick, marriages)"),
    ("mariasz-race", "+1 reaches 131 first, -1 the other side does, 0 no one in this deal"),
    ("prsi", "+1 forces a win, 0 neither side can force the end, -1 a loss, within the horizon"),
    ("prsi-4players", "+1 forces being out first against all the others together, -1 cannot, within the horizon"),
])
def test_each_deal_says_what_its_values_mean(name, meaning):
    if isinstance(name, dict):              # an example changed: its "game" names the example
        changes = dict(name)
        doc = dict(ddcards.example(changes.pop("game", "marias-hra")), **changes)
    else:
        doc = ddcards.example(name)
    session = ddcards.Position.from_dict(doc).session()
    assert session.value_meaning == meaning and session.view()["value_meaning"] == meaning


def stop_the_search_at(monkeypatch, call: int) -> None:
    """The `call`-th search of a (Klaverjas) position from now on runs out of time, as a --timeout
    in a long analysis would there."""
    from ddcards.games.base import Session
    search, calls = Session.search, []

    def counted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            stopped = ddcards.SearchTimeout("the search ran out of time (stand-in)")
            stopped.nodes = 5
            raise stopped
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Session, "search", counted)


def test_cli_report_stopped_by_its_timeout_writes_the_play_analysed(tmp_path, monkeypatch, capsys):
    """A --timeout in a long analysis wrote no page: the minutes of analysis before it were lost. The
    page of the actions analysed is written, marked incomplete, and the command says it stopped."""
    from ddcards import cli
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv)
    whole = ddcards.Solver().analyse(doc, mode="all")
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(doc))
    stop_the_search_at(monkeypatch, 7)          # the start, the positions after 5 cards, then the 6th card
    assert cli.main(["report", str(path), "--no-progress"]) == cli.EXIT_ABORTED
    out, err = capsys.readouterr()
    wrote, stopped = err.splitlines()
    assert wrote == f"ddcards: wrote {tmp_path / 'deal.html'}"
    assert re.fullmatch(r"ddcards: stopped: the analysis ran out of time after [\d,]+ nodes, with 5 of the 32 "
                        r"recorded actions analysed \(the page shows the play analysed before it stopped; "
                        r"--from-ply 5 reports the rest\)", stopped)
    page = (tmp_path / "deal.html").read_text(encoding="utf-8")
    assert page.count('<tr id="ply-') == 5
    assert ('<p class="stopped" role="status"><strong>Incomplete:</strong> the analysis ran out of time after '
            "ply 4: this page shows plies 0 to 4; the 27 recorded cards after them are not analysed (ddcards "
            "report --from-ply 5 reports them).</p>") in page
    assert (f"At the start the value is <strong>{whole.initial_value:+d}</strong>" in page
            and f"after ply 4, where the analysis stopped, it is <strong>{whole.steps[4].value_after:+d}</strong>"
            in page)
    assert f"The value after ply 4 <strong>{whole.steps[4].value_after:+d}</strong>" in page
    data = json.loads(re.search(r'<script type="application/json" id="analysis">(.*?)</script>', page, re.S)[1])
    assert data["steps"] == [s.to_dict() for s in whole.steps[:5]] and data["final"] is None


def test_cli_report_stopped_in_its_last_search_shows_every_action(tmp_path, monkeypatch, capsys):
    from ddcards import cli
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:8])
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(doc))
    stop_the_search_at(monkeypatch, 10)         # the start, 8 positions after a card, then the final solve
    assert cli.main(["report", str(path), "--no-progress", "-o", "-"]) == cli.EXIT_ABORTED
    page, err = capsys.readouterr()
    assert re.fullmatch(r"ddcards: stopped: the analysis ran out of time after [\d,]+ nodes, with 8 of the 8 "
                        r"recorded actions analysed \(the page shows the play analysed before it stopped\)\n", err)
    assert page.count('<tr id="ply-') == 8
    assert ("<strong>Incomplete:</strong> the analysis ran out of time in its last search, after the recorded play: "
            "every recorded action is analysed, but the optimal continuation and the final scores are not shown."
            in page)


def test_a_report_that_would_overwrite_its_input_says_so_before_it_searches(tmp_path, monkeypatch, capsys):
    """(it was said after the analysis: minutes, for a long deal)"""
    from ddcards import cli
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deals.seed_deal()))
    searched = []
    monkeypatch.setattr(ddcards.Solver, "analyse", lambda *a, **k: searched.append(1))
    assert cli.main(["report", str(path), "-o", str(path)]) == cli.EXIT_BAD_INPUT
    assert "would overwrite its input" in capsys.readouterr().err and searched == []
