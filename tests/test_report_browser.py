"""The HTML report in a real headless Chromium: what the page shows against ddcards.analyse.

For several recorded deals of each game the report is written to a file, opened in Chromium,
and read back from the DOM: every card's row (seat, card, value after, cost, whether it is a
mistake or lost value, the better cards with their values), the tricks and their winners, the
chart's marks and text alternative, the final scores and the settlement; then the keyboard
navigation and the print layout.
"""
from __future__ import annotations

import pytest

import ddcards
from ddcards.result import spoken
from ddcards.report import write_report

try:
    from tests import _report_deals as deals
    from tests._browser import chromium
except ImportError:  # pytest put tests/ itself on sys.path
    import _report_deals as deals
    from _browser import chromium

DEALS = [pytest.param(d, id=f"marias-{i}") for i, d in enumerate(deals.marias_deals())] + \
        [pytest.param(d, id=f"klaverjas-{i}") for i, d in enumerate(deals.klaverjas_deals())]

READ_PAGE = """() => {
  const rows = [...document.querySelectorAll("tr.step")].map(tr => ({
    ply: +tr.dataset.ply, move: tr.dataset.move, seat: +tr.dataset.seat, kind: tr.dataset.kind,
    cost: +tr.dataset.cost, after: +tr.dataset.valueAfter,
    card: tr.querySelector("td.played .card").dataset.card,
    valueText: tr.querySelector("td.value").textContent,
    verdict: tr.querySelector("td.verdict").textContent.trim(),
    better: [...tr.querySelectorAll("td.better .card")].map(c => c.dataset.card),
    betterValues: [...tr.querySelectorAll("td.better .v")].map(v => v.textContent),
    trick: +tr.closest("tbody").dataset.trick,
  }));
  const tricks = [...document.querySelectorAll("tbody.trick")].map(tb => ({
    trick: +tb.dataset.trick, winner: tb.dataset.winner === undefined ? null : +tb.dataset.winner,
    head: tb.querySelector("tr.trick-head").textContent }));
  const svg = document.querySelector("svg.chart");
  const marks = [...svg.querySelectorAll("a.point")].map(a => ({
    ply: +a.dataset.ply, href: a.getAttribute("href"), label: a.getAttribute("aria-label"),
    kind: a.querySelector(".mark").classList.contains("mistake") ? "mistake" : "lost" }));
  const scores = Object.fromEntries([...document.querySelectorAll("table.scores td")].map(
    td => [td.dataset.score, +td.textContent]));
  const settlement = [...document.querySelectorAll("table.settlement td")].map(td => td.textContent);
  return {rows, tricks, marks, scores, settlement,
          title: document.querySelector("h1").textContent,
          hands: [...document.querySelectorAll("section.hand")].map(h => h.querySelector("h3").textContent),
          svgRole: svg.getAttribute("role"),
          svgTitle: document.getElementById(svg.getAttribute("aria-labelledby")).textContent,
          svgDesc: document.getElementById(svg.getAttribute("aria-describedby")).textContent,
          caption: document.getElementById("chart-caption").textContent};
}"""


def signed(v: int) -> str:
    return f"+{v}" if v > 0 else ("0" if v == 0 else f"\u2212{-v}")


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert errors == [], errors


@pytest.mark.parametrize("doc", DEALS)
def test_the_report_shows_the_analysis(page, tmp_path, doc):
    path = write_report(doc, tmp_path / "deal.html")
    page.goto(path.as_uri())
    got = page.evaluate(READ_PAGE)
    an = ddcards.analyse(doc, mode="all")
    view = an.deal

    assert got["title"] == view["title"]
    assert got["hands"][0].startswith(f"seat 0 ({view['roles'][0]})")
    assert len(got["rows"]) == len(an.steps) == len(doc["played"])
    trick = 1
    for row, step in zip(got["rows"], an.steps):
        assert (row["ply"], row["move"], row["card"], row["seat"]) == (step.ply, step.move, step.move, step.seat)
        assert (row["after"], row["cost"], row["valueText"]) == (step.value_after, step.cost, signed(step.value_after))
        want_kind = "mistake" if step.changes_outcome else ("lost" if step.cost > 0 else "best")
        assert row["kind"] == want_kind, row
        if want_kind == "mistake":
            assert row["verdict"].endswith(f"mistake, outcome turned: now {step.outcome}")
        elif want_kind == "lost":
            assert row["verdict"].endswith(f"mistake: lost {step.cost}")
        # The better cards: exactly those that keep more for the mover, best first, with their values.
        mover = 1 if step.value_before >= step.value_after else -1
        better = sorted((m for m in step.moves if mover * (m.value - step.value_after) > 0),
                        key=lambda m: -mover * m.value)
        assert row["better"] == ([m.move for m in better] if step.cost > 0 else [])
        assert row["betterValues"] == ([signed(m.value) for m in better] if step.cost > 0 else [])
        if step.cost > 0:
            assert set(step.best_moves) <= set(row["better"])
        assert row["trick"] == trick
        if step.trick_winner is not None:
            trick += 1
    winners = [s.trick_winner for s in an.steps if s.trick_winner is not None]
    assert [t["winner"] for t in got["tricks"] if t["winner"] is not None] == winners
    for t, winner in zip(got["tricks"], winners):
        assert t["head"].startswith(f"Trick {t['trick']}, won by seat {winner} ({view['roles'][winner]})")
    last = [s for s in an.steps if s.trick_winner is not None][-1]
    # the score's keys as words ("playing roem 20", not "playing_roem 20")
    assert f"score {', '.join(f'{spoken(k)} {v}' for k, v in last.score.items())}" in \
        got["tricks"][len(winners) - 1]["head"]

    # The chart: one mark per costly card, linked to its row, each with a text label.
    costly = [s for s in an.steps if s.cost > 0]
    assert [(m["ply"], m["kind"]) for m in got["marks"]] == [
        (s.ply, "mistake" if s.changes_outcome else "lost") for s in costly]
    assert all(m["href"] == f"#ply-{m['ply']}" and m["label"].startswith(f"ply {m['ply']}:") for m in got["marks"])
    assert got["svgRole"] == "img" and got["svgTitle"].startswith("Value after every card")
    assert got["svgDesc"] == got["caption"]
    assert got["caption"].startswith(f"The value starts at {signed(an.initial_value)} and ends at "
                                     f"{signed(an.final_value)}")
    for s in costly:
        assert f"ply {s.ply} ({s.move} by seat {s.seat}:" in got["caption"]

    # The result: final scores and the settlement per seat.
    assert got["scores"] == an.final.scores
    assert got["settlement"] == [signed(v) for v in an.final.settlement]


def test_keyboard_navigation(page, tmp_path):
    doc = deals.seed_deal()
    page.goto(write_report(doc, tmp_path / "seed.html").as_uri())
    active = "() => document.activeElement.id || document.activeElement.className"
    page.keyboard.press("Tab")
    assert page.evaluate(active) == "skip"                      # the skip link comes first
    page.keyboard.press("Enter")
    assert page.evaluate("() => location.hash") == "#play"
    page.focus("tr#ply-0")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(active) == "ply-1"
    assert page.evaluate("() => document.querySelector('.chart .point.current').dataset.ply") == "1"
    page.keyboard.press("n")                                    # the next card that cost something: 7H
    assert page.evaluate(active) == "ply-9"
    page.keyboard.press("n")
    assert page.evaluate(active) == "ply-24"
    page.keyboard.press("p")
    assert page.evaluate(active) == "ply-9"
    page.keyboard.press("End")
    assert page.evaluate(active) == "ply-29"
    page.keyboard.press("Home")
    assert page.evaluate(active) == "ply-0"
    # only one row is in the tab order (a roving tabindex)
    assert page.evaluate("() => document.querySelectorAll('tr.step[tabindex=\"0\"]').length") == 1
    # a chart mark reached with the keyboard leads to its row
    page.focus("a.point[data-ply='24']")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'ply-24'")


def test_the_browsers_own_keys_are_left_to_it(page, tmp_path):
    # Ctrl+P in the play table jumped to the previous costly card and printed nothing (the page
    # took it for p, and kept the browser from it); Ctrl+End and Alt+arrows were taken too.
    page.goto(write_report(deals.seed_deal(), tmp_path / "seed.html").as_uri())
    page.evaluate("() => { window.taken = []; document.addEventListener('keydown', "
                  "e => { if (e.defaultPrevented) window.taken.push(e.key); }); }")
    page.focus("tr#ply-9")
    for key in ("Control+p", "Control+n", "Meta+n", "Control+k", "Control+End", "Alt+ArrowDown", "Alt+ArrowUp"):
        page.keyboard.press(key)
    assert page.evaluate("() => [document.activeElement.id, window.taken]") == ["ply-9", []]
    page.keyboard.press("n")                                    # the page's own key still works
    assert page.evaluate("() => [document.activeElement.id, window.taken]") == ["ply-24", ["n"]]


def test_print_layout(page, tmp_path):
    page.goto(write_report(deals.klaverjas_deals()[2], tmp_path / "k.html").as_uri())
    page.emulate_media(media="print")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.keys')).display") == "none"
    assert page.evaluate("() => getComputedStyle(document.querySelector('tbody.trick')).breakInside") == "avoid"
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") + \
        pdf.count(b"/Type/Page") >= 2


def test_works_offline(browser, tmp_path):
    # No request leaves the page: every request the page makes is recorded.
    context = browser.new_context(offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    path = write_report(deals.marias_deals()[1], tmp_path / "m.html")
    page.goto(path.as_uri())
    assert page.evaluate("() => document.querySelectorAll('tr.step').length") == 30
    assert requests == [path.as_uri()]
    context.close()
