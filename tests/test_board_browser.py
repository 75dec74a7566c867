"""The analysis board in a real headless Chromium against a real board server.

The page loads a deal (pasted, picked from the examples, or given at start), shows every
legal card's value, plays a card, steps back and forward, plays a best card, shows errors with
their token and rule, and stops a search; every value shown is compared with ddcards.solve on
the same position.
"""
from __future__ import annotations

import json

import pytest

import ddcards

try:
    from tests import _report_deals as deals
    from tests._browser import chromium, running_board
except ImportError:  # pytest put tests/ itself on sys.path
    import _report_deals as deals
    from _browser import chromium, running_board

SEED = deals.seed_deal()
START = dict(SEED, played=[])

SHOWN = """() => ({
  values: Object.fromEntries([...document.querySelectorAll('#table button.card')].map(
    b => [b.dataset.card, b.dataset.value === undefined ? null : +b.dataset.value])),
  best: [...document.querySelectorAll('#table button.card.best')].map(b => b.dataset.card),
  toMove: document.querySelector('.hand.to-move') && +document.querySelector('.hand.to-move').dataset.seat,
  onTable: [...document.querySelectorAll('#centre .played-card')].map(c => c.dataset.card),
  line: [...document.querySelectorAll('#line button[data-ply]')].map(b => b.textContent),
  current: (document.querySelector('#line button.current') || {}).textContent,
  status: document.getElementById('status').textContent,
  value: document.getElementById('status').dataset.value,
})"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def board_url():
    with running_board() as (url, _):
        yield url


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert errors == [], errors


def wait_for_values(page, played: list[str]) -> dict:
    """Wait until the page shows the solved position after `played`, and read it."""
    page.wait_for_function(
        """(n) => document.querySelectorAll('#line button[data-ply]:not(.ahead)').length === n
                  && document.getElementById('status').dataset.value !== undefined
                  && !document.getElementById('status').textContent.startsWith('Searching')
                  && [...document.querySelectorAll('#table button.card')].every(b => b.dataset.value !== undefined)""",
        arg=len(played))
    return page.evaluate(SHOWN)


def check_against_solve(shown: dict, doc: dict) -> None:
    res = ddcards.solve(doc)
    assert shown["values"] == res.move_values
    assert sorted(shown["best"]) == sorted(res.optimal_moves)
    assert shown["toMove"] == res.to_move
    assert int(shown["value"]) == res.value


def open_start(page, board_url) -> dict:
    """The page at board_url with START loaded and solved; what it shows."""
    page.goto(board_url)
    page.fill("#doc", json.dumps(START))
    page.click("#load-btn")
    return wait_for_values(page, [])


def slow_positions(page, ms: int, body_holds: str = "") -> None:
    """The page's position requests (those whose body holds `body_holds`) wait `ms` ms first: a slow network."""
    page.evaluate("""([ms, holds]) => {
        const fetch0 = window.fetch;
        window.fetch = (url, opts) => String(url).endsWith('/api/position') && opts.body.includes(holds)
            ? new Promise(done => setTimeout(done, ms)).then(() => fetch0(url, opts)) : fetch0(url, opts);
    }""", [ms, body_holds])


def reset_value(page) -> None:
    # Forget the last value shown, so that the next wait sees the new one.
    page.evaluate("() => { delete document.getElementById('status').dataset.value; }")


def play_from_start(page, card: str) -> dict:
    """Click `card` on the start position shown: the position after it, its line that card alone,
    checked against a solve."""
    reset_value(page)
    page.click(f"#table button.card[data-card='{card}']")
    shown = wait_for_values(page, [card])
    assert shown["line"] == [card]
    check_against_solve(shown, dict(START, played=[card]))
    return shown


def test_load_play_back_and_forward(page, board_url):
    shown = open_start(page, board_url)
    check_against_solve(shown, START)
    assert shown["values"] == {"AS": 70, "TS": 70, "AH": 70, "KH": 50, "QH": 50, "9H": 50, "AD": 70, "TD": 70,
                               "8C": 50, "7C": 50}
    assert "declarer wins" in shown["status"]
    assert shown["status"].startswith("Value +70 (declarer's view): declarer wins")      # whose value it is

    # Play KH (worth 50, not the best): seat 1 must follow in hearts and beat it.
    shown = play_from_start(page, "KH")
    assert shown["onTable"] == ["KH"] and shown["toMove"] == 1 and set(shown["values"]) == {"TH"}

    # Back to the start with the keyboard, and forward again.
    reset_value(page)
    page.keyboard.press("ArrowLeft")
    shown = wait_for_values(page, [])
    check_against_solve(shown, START)
    assert shown["line"] == ["KH"] and shown["current"] == "start"     # KH stays ahead in the line
    reset_value(page)
    page.click("#forward")
    shown = wait_for_values(page, ["KH"])
    assert shown["current"] == "KH"

    # A best card, then another line from the start: the line is replaced from there on.
    reset_value(page)
    page.click("#best")
    best = ddcards.solve(dict(START, played=["KH"])).optimal_moves[0]
    shown = wait_for_values(page, ["KH", best])
    check_against_solve(shown, dict(START, played=["KH", best]))
    reset_value(page)
    page.click("#first")
    wait_for_values(page, [])
    play_from_start(page, "AS")


def test_the_page_runs_under_its_policy_and_an_injected_script_does_not(page, board_url):
    """The board's Content-Security-Policy lets its own script run (the whole page works, no
    violation reported) and no script that reached the page: an <img onerror> put into it runs
    nothing (with the old policy, frame-ancestors only, it ran)."""
    violations: list[str] = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    shown = open_start(page, board_url)
    assert shown["values"]["AS"] == 70 and violations == []
    page.evaluate("""() => { document.getElementById('title').innerHTML =
        '<img src="data:," onerror="window.injected = 1">'; }""")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.injected") is None
    assert any("Content Security Policy" in v for v in violations), violations


def test_klaverjas_from_the_examples(page, board_url):
    page.goto(board_url)
    page.select_option("#example", "klaverjas")
    doc = ddcards.example("klaverjas")
    shown = wait_for_values(page, [])
    check_against_solve(shown, doc)
    assert page.text_content("#title").startswith("Klaverjas (Amsterdam), trumps S")
    assert page.text_content("#meaning") == ("Values are the playing team's: the playing team's final score - the other "
                                             "team's (roem, last trick, pit and nat included).")
    first = sorted(shown["values"])[0]
    reset_value(page)
    page.click(f"#table button.card[data-card='{first}']")
    shown = wait_for_values(page, [first])
    check_against_solve(shown, dict(doc, played=[first]))
    assert shown["onTable"] == [first]


def test_a_whole_recorded_deal_opened_at_start(browser):
    doc = deals.klaverjas_deals()[2]
    with running_board(position=doc) as (url, _):
        page = browser.new_page()
        page.goto(url)
        # a finished deal says so first (the solve's line used to replace the note at once)
        page.wait_for_function("() => document.getElementById('status').textContent.includes('Value')")
        assert page.text_content("#status").startswith("The deal is over. Value ")
        assert page.evaluate("() => document.querySelectorAll('#line button[data-ply]').length") == 32
        assert page.evaluate("() => document.querySelectorAll('#table button.card').length") == 0
        final = ddcards.solve(doc)
        assert page.evaluate("() => document.getElementById('status').dataset.value") == str(final.value)
        # eight trick ends marked in the line
        assert page.evaluate("() => document.querySelectorAll('#line li.trick-end').length") == 8
        page.keyboard.press("Home")
        shown = wait_for_values(page, [])
        check_against_solve(shown, dict(doc, played=[]))
        page.close()


def test_a_second_click_before_the_next_position_arrives_plays_nothing(page, board_url):
    # On a slow network the last position's cards stay on screen until the next one arrives: a
    # double click on "Play a best card" played the same card again in the new position, where
    # it is no longer legal (an audit: "played[1] 'AS' ... already been played").
    open_start(page, board_url)
    slow_positions(page, 300)
    reset_value(page)
    page.click("#best")
    page.click("#best")
    page.click("#table button.card[data-card='AS']")
    shown = wait_for_values(page, ["AS"])
    assert page.evaluate("() => document.querySelectorAll('#line button[data-ply]').length") == 1
    assert page.is_hidden("#error")
    check_against_solve(shown, dict(START, played=["AS"]))


def test_errors_name_the_token_and_the_rule(page, board_url):
    page.goto(board_url)
    page.fill("#doc", json.dumps(dict(START, played=["QH", "JH"])))
    page.click("#load-btn")
    page.wait_for_selector("#error:not([hidden])")
    text = page.text_content("#error")
    assert "must beat QH" in text and "token: JH" in text and "rule: docs/RULES.md §1.4 rule 2" in text
    assert page.get_attribute("#error", "role") == "alert"
    page.fill("#doc", '{"game": "marias", "hands": ')
    page.click("#load-btn")
    page.wait_for_function("() => document.getElementById('error').textContent.includes('not valid JSON')")
    assert "rule: docs/RULES.md §0.11 rule 1" in page.text_content("#error")


def _search_held(page, url, doc=START):
    """The board at `url` loaded with `doc`, its search request held in the browser (the routes
    returned, to continue), Stop enabled."""
    page.goto(url)
    held = held_routes(page, "**/api/solve")
    page.fill("#doc", json.dumps(doc))
    page.click("#load-btn")
    page.wait_for_function("() => !document.getElementById('stop').disabled")
    return held


def _searched_again(page, held, doc=START):
    """Search again clicked: the button goes, the page searches, and once its held request
    (held[1]) is let through, the values come as a solve gives them."""
    page.click("#again")
    assert page.is_hidden("#again") and not page.is_disabled("#stop")
    assert page.text_content("#status").startswith("Searching")
    held[1].continue_()
    check_against_solve(wait_for_values(page, []), doc)
    assert page.is_hidden("#again")


def test_a_search_is_stopped(page, board_url):
    held = _search_held(page, board_url)
    assert page.text_content("#status").startswith("Searching")
    page.click("#stop")
    assert page.text_content("#status") == "Search stopped."
    assert page.is_disabled("#stop")
    with page.expect_response("**/api/solve") as answer:
        held[0].continue_()
    assert answer.value.json() == {"stopped": "cancelled", "search": answer.value.json()["search"]}
    page.wait_for_timeout(100)
    assert page.evaluate("() => document.getElementById('status').dataset.value") is None
    assert page.text_content("#status") == "Search stopped."
    # ... and offered again (it took stepping away and back): the same position's values come
    assert page.is_visible("#again") and page.evaluate("() => document.activeElement.id") == "again"
    _searched_again(page, held)
    # the focus, on Stop (disabled now the search has ended: it fell to the page), goes to the values
    assert page.evaluate("() => document.activeElement.dataset.card") == "AS"


def test_a_search_over_the_servers_time_is_offered_again(page):
    """A search the board's server stopped on its own time limit (--timeout) said so and offered
    nothing but stepping away and back; it is offered again as a search stopped by Stop is (a
    search again runs under the server's limit of then: here lifted, and the values come)."""
    doc = deals.klaverjas_deal(4)
    with running_board(tt_mb=1, timeout=0.001) as (url, app):
        held = _search_held(page, url, doc)
        page.focus("#stop")
        with page.expect_response("**/api/solve") as answer:
            held[0].continue_()
        assert answer.value.json() == {"stopped": "timeout", "search": answer.value.json()["search"],
                                       "timeout": 0.001}
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('The search ran')")
        assert page.text_content("#status") == "The search ran out of time (0.001 s)."
        assert page.is_disabled("#stop") and page.evaluate("() => document.getElementById('status').dataset.value") is None
        # ... and offered again, the focus moved there from Stop (disabled now: it would fall to the page)
        assert page.is_visible("#again") and page.evaluate("() => document.activeElement.id") == "again"
        app.timeout = None
        _searched_again(page, held, doc)


def test_a_stopped_searchs_late_answer_leaves_the_search_again_alone(page, board_url):
    # Stop, then Search again before the stopped search's answer came: that answer said "Search
    # stopped." over the search running (and, offered again, would have shown the button beside it).
    held = _search_held(page, board_url)
    page.click("#stop")
    page.click("#again")
    page.evaluate("""() => { window.said = [];        // every status from now on (the counter redraws it)
        new MutationObserver(() => window.said.push(document.getElementById('status').textContent))
            .observe(document.getElementById('status'), { childList: true, characterData: true, subtree: true }); }""")
    with page.expect_response("**/api/solve") as answer:
        held[0].continue_()
    assert answer.value.json()["stopped"] == "cancelled"
    page.wait_for_timeout(100)
    assert page.is_hidden("#again") and not page.is_disabled("#stop")
    assert all(text.startswith("Searching") for text in page.evaluate("() => window.said"))
    held[1].continue_()
    check_against_solve(wait_for_values(page, []), START)
    assert page.is_hidden("#again")


class HeldRoutes(list):
    """The page's requests to a pattern, each held on its way until continued. Asking for the
    n-th waits (up to 5 s) until the page has sent it: the browser's request may still be on its
    way when the test goes on (a clean-clone CI run asked for held[1] before it had come)."""

    def __init__(self, page):
        super().__init__()
        self.page = page

    def __getitem__(self, index):
        wait_for_held(self.page, self, index + 1)
        return super().__getitem__(index)


def held_routes(page, pattern: str) -> HeldRoutes:
    held = HeldRoutes(page)
    page.route(pattern, lambda route: held.append(route))
    return held


def wait_for_held(page, held: list, n: int) -> None:
    for _ in range(500):
        if len(held) >= n:
            return
        page.wait_for_timeout(10)
    raise AssertionError(f"{len(held)} requests held, not {n}")


def test_a_stop_that_comes_after_its_search_ended_leaves_the_values_alone(page, board_url):
    """Stop pressed just as the search ended: the stop reached the server after the search had
    finished, whose answer came with the values; the page showed them with the Search again
    button beside them (the focus, moved there from Stop, on it). The race made certain here: the
    stop request is held on its way until the search's answer has come."""
    solves = _search_held(page, board_url)
    stops = held_routes(page, "**/api/stop")
    page.click("#stop")
    assert page.text_content("#status") == "Search stopped."
    assert page.evaluate("() => document.activeElement.id") == "again"
    wait_for_held(page, stops, 1)
    with page.expect_response("**/api/solve") as answer:
        solves[0].continue_()           # the search ends, its stop still on the way
    assert answer.value.json()["value"] == 70
    shown = wait_for_values(page, [])
    check_against_solve(shown, START)
    assert shown["status"].startswith("Value +70") and page.is_hidden("#again") and page.is_disabled("#stop")
    # the focus, on Search again (hidden now: it would fall to the page), goes to the values
    assert page.evaluate("() => document.activeElement.dataset.card") == "AS"
    with page.expect_response("**/api/stop") as late:
        stops[0].continue_()            # ... and comes too late: nothing to stop
    assert late.value.json()["stopped"] is False
    page.wait_for_timeout(300)
    assert page.evaluate(SHOWN) == shown and page.is_hidden("#again")


def test_a_stopped_searchs_values_end_its_search_again(page, board_url):
    # Stop pressed as the search ended, then Search again before its values came: they are this
    # position's, shown, and the search again, which would find them again, is stopped.
    solves = _search_held(page, board_url)
    stops = held_routes(page, "**/api/stop")
    page.click("#stop")
    page.click("#again")
    wait_for_held(page, solves, 2)
    assert page.evaluate("() => document.activeElement.id") == "stop"
    solves[0].continue_()               # the first search's values
    shown = wait_for_values(page, [])
    check_against_solve(shown, START)
    assert page.is_hidden("#again") and page.is_disabled("#stop")
    assert page.evaluate("() => document.activeElement.dataset.card") == "AS"
    wait_for_held(page, stops, 2)       # Stop's, and the search again's
    for route in stops:
        route.continue_()
    page.wait_for_timeout(200)
    with page.expect_response("**/api/solve") as answer:
        solves[1].continue_()
    assert answer.value.json()["stopped"] == "cancelled"
    page.wait_for_timeout(300)
    assert page.evaluate(SHOWN) == shown and page.is_hidden("#again") and page.is_disabled("#stop")


def test_a_search_that_could_not_reach_the_board_is_offered_again(page):
    """A search whose request got no answer (the board stopped, restarted) said so and offered
    nothing but stepping away and back; it is offered again, the message kept said, and a search
    again, the board back on its port, gets the values (the message goes)."""
    with running_board() as (url, _):
        held = _search_held(page, url)  # on its way until the board has stopped
        page.focus("#stop")
    held[0].continue_()                 # to a board that has stopped: no answer at all
    assert error_shown(page) == "The board server cannot be reached: is `ddcards board` still running?"
    assert page.text_content("#status") == "The search failed." and page.is_disabled("#stop")
    # ... and offered again, the focus moved there from Stop (disabled now: it would fall to the page)
    assert page.is_visible("#again") and page.evaluate("() => document.activeElement.id") == "again"
    with running_board(port=int(url.rsplit(":", 1)[1])) as (again_url, _):
        assert again_url == url
        page.click("#again")
        assert page.is_hidden("#again") and page.is_hidden("#error") and not page.is_disabled("#stop")
        assert page.text_content("#status").startswith("Searching")
        held[1].continue_()
        check_against_solve(wait_for_values(page, []), START)
        assert page.is_hidden("#again") and page.is_hidden("#error")


def test_a_stopped_searchs_failure_leaves_its_stop_said(page):
    # Stop, then the stopped search's request failed (the board gone): the failure replaced
    # "Search stopped." with nothing beside the Search again offered; it is no news.
    with running_board() as (url, _):
        held = _search_held(page, url)
        page.click("#stop")
    held[0].continue_()                 # to a board that has stopped: no answer at all
    page.wait_for_timeout(300)
    assert page.text_content("#status") == "Search stopped." and page.is_hidden("#error")
    assert page.is_visible("#again") and page.evaluate("() => document.activeElement.id") == "again"


def test_a_search_the_board_failed_on_is_offered_again(page, monkeypatch):
    """A search the board failed on (here, as when memory is short, its worker's table could not
    be allocated: a 503 that says so and what to change; it was a bare 500) is offered again, the
    message kept said; the next search gets a table."""
    from ddcards.board import app as board_app
    from ddcards.errors import TableMemoryError

    made = board_app.Solver
    failed = []

    def first_table_fails(**kwargs):
        if not failed:
            failed.append(kwargs)
            raise TableMemoryError(4096)
        return made(**kwargs)

    monkeypatch.setattr(board_app, "Solver", first_table_fails)
    with running_board(workers=1) as (url, _):
        page.goto(url)
        page.fill("#doc", json.dumps(START))
        page.focus("#load-btn")
        page.keyboard.press("Enter")
        assert error_shown(page) == ("cannot allocate a 4,096 MiB transposition table: not enough free memory "
                                     "(give a smaller --tt-mb, or leave it out for a table sized per game)"
                                     "token: 4096 MiB · rule: board: --tt-mb, a table per worker")
        assert failed and page.text_content("#status") == "The search failed." and page.is_disabled("#stop")
        # the focus was on the load button, not on Stop: it stays there
        assert page.is_visible("#again") and page.evaluate("() => document.activeElement.id") == "load-btn"
        page.click("#again")
        check_against_solve(wait_for_values(page, []), START)
        assert page.is_hidden("#again") and page.is_hidden("#error")


def test_a_search_refused_for_its_input_is_not_offered_again(page, board_url, monkeypatch):
    # A 400 for the search (Prší without a horizon whose value cannot be proven) is the same for
    # the same request: the message is said (what to give instead), and no Search again offered.
    from ddcards.games import prsi_exact

    monkeypatch.setattr(prsi_exact, "EXACT_PROOF_HORIZON", 1)
    monkeypatch.setattr(prsi_exact, "EXACT_STATE_CAP", 10)
    doc = ddcards.example("prsi")
    doc = dict(doc, options=dict(doc.get("options", {}), horizon=None))
    page.goto(board_url)
    page.fill("#doc", json.dumps(doc))
    page.click("#load-btn")
    text = error_shown(page)
    assert "more than 10 states" in text and "token: horizon" in text, text
    assert page.text_content("#status") == "The search failed." and page.is_disabled("#stop")
    assert page.is_hidden("#again")


def test_a_search_refused_while_stop_has_the_focus_leaves_it_on_the_cards(page, board_url):
    # A 4xx for the search offers nothing again: the focus on Stop (disabled now) fell to the
    # page's body; it goes to the first legal card, as when the values come.
    held = _search_held(page, board_url)
    page.focus("#stop")
    held[0].fulfill(status=400, content_type="application/json",
                    body=json.dumps({"error": "refused", "token": "horizon", "rule": "prsi: horizon"}))
    assert error_shown(page).startswith("refused")
    assert page.text_content("#status") == "The search failed." and page.is_disabled("#stop")
    assert page.is_hidden("#again")
    assert page.evaluate("() => document.activeElement === document.querySelector('#table button.card')")


def test_keyboard_reaches_every_card(page, board_url):
    open_start(page, board_url)
    page.focus("#table button.card[data-card='AS']")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "A of zelené, value +70, best"
    reset_value(page)
    page.keyboard.press("Enter")
    shown = wait_for_values(page, ["AS"])
    check_against_solve(shown, dict(START, played=["AS"]))


def error_shown(page) -> str:
    page.wait_for_selector("#error:not([hidden])")
    return page.text_content("#error")


def test_a_failed_search_is_shown_and_the_counter_stops(page, board_url):
    # A plain-text 500 (no JSON to read): the error says so, the counter and the Stop button stop.
    page.goto(board_url)
    page.route("**/api/solve", lambda route: route.fulfill(status=500, content_type="text/plain",
                                                           body="the solver fell over"))
    page.fill("#doc", json.dumps(START))
    page.click("#load-btn")
    assert error_shown(page) == "The board server answered HTTP 500 Internal Server Error: the solver fell over."
    assert page.is_disabled("#stop") and page.is_disabled("#best")
    assert page.text_content("#status") == "The search failed." and page.is_visible("#again")
    page.wait_for_timeout(600)                          # the counter ticks every 250 ms: it has stopped
    assert page.text_content("#status") == "The search failed."


@pytest.mark.parametrize("status, body, shown", [
    (413, "document too large", ": document too large."),
    (405, '{"detail": "Method Not Allowed"}', ': {"detail": "Method Not Allowed"}.'),     # JSON, but no "error"
    (421, "unknown host", ": unknown host."),
    (500, "", "."),
])
def test_a_load_answered_with_no_json_is_shown(page, board_url, status, body, shown):
    page.goto(board_url)
    page.route("**/api/position", lambda route: route.fulfill(status=status, content_type="text/plain", body=body))
    page.fill("#doc", json.dumps(START))
    page.click("#load-btn")
    text = error_shown(page)
    # The reason phrase after the status is the browser's ("Payload Too Large"), the rest the answer's.
    assert text.startswith(f"The board server answered HTTP {status} ") and text.endswith(shown), text
    assert page.is_hidden("#position")


def test_a_board_that_has_stopped_is_shown(browser):
    page = browser.new_page()
    with running_board() as (url, _):
        page.goto(url)
        page.fill("#doc", json.dumps(START))
        page.click("#load-btn")
        wait_for_values(page, [])
    # The server is gone: the next card's request cannot reach it.
    page.click("#table button.card[data-card='AS']")
    assert error_shown(page) == "The board server cannot be reached: is `ddcards board` still running?"
    assert page.is_disabled("#stop") and not page.text_content("#status").startswith("Searching")
    page.close()


def test_a_bidi_control_in_a_token_is_isolated(page, board_url):
    page.goto(board_url)
    page.fill("#doc", json.dumps(dict(START, played=["\u202eQH"])))
    page.click("#load-btn")
    text = error_shown(page)
    assert "\u202e" not in text and "unknown card '\\u202eQH'" in text
    assert page.text_content("#error bdi.token") == "\\u202eQH"
    assert "token: \\u202eQH · rule: docs/RULES.md §0.2 rule 1" in text


def test_a_prsi_ober_shows_its_card_and_the_suit_it_names(page, board_url):
    # Prší's QS/H was a bare "QS/H" on its button: now the card's face, then "names ♥ hearts",
    # and a label that says it; its value is the solve's, and a click plays it.
    page.goto(board_url)
    page.select_option("#example", "prsi")
    doc = ddcards.example("prsi")
    shown = wait_for_values(page, [])
    check_against_solve(shown, doc)
    button = page.locator("#table button.card.ober[data-card='QS/H']")
    assert button.get_attribute("aria-label").startswith("Q of spades naming hearts, value ")
    assert "names" in button.text_content() and "hearts" in button.text_content()
    reset_value(page)
    button.click()
    shown = wait_for_values(page, ["QS/H"])
    check_against_solve(shown, dict(doc, played=["QS/H"]))


def test_a_load_that_overtakes_a_card_leaves_the_new_position_playable(page, board_url):
    # A card played, then an example picked before the card's position arrived: the card's answer
    # was dropped as stale before it cleared the page's "loading" mark, and the loaded position's
    # cards then played nothing at all (every click ignored until an arrow key was pressed).
    open_start(page, board_url)
    slow_positions(page, 400, '"played":["AS"]')
    page.click("#table button.card[data-card='AS']")
    reset_value(page)
    page.select_option("#example", "klaverjas")
    doc = ddcards.example("klaverjas")
    wait_for_values(page, [])
    page.wait_for_timeout(600)              # the card's answer has come, and was dropped
    assert page.text_content("#title").startswith("Klaverjas")
    first = sorted(ddcards.Position.from_dict(doc).legal_moves)[0]
    reset_value(page)
    page.click(f"#table button.card[data-card='{first}']")
    shown = wait_for_values(page, [first])
    check_against_solve(shown, dict(doc, played=[first]))


def test_escape_with_no_search_running_keeps_the_value_said(page, board_url):
    # Esc stops a search; pressed when none runs it replaced the position's value line with
    # "Search stopped.", which no search had been.
    shown = open_start(page, board_url)
    page.keyboard.press("Escape")
    assert page.text_content("#status") == shown["status"]
    assert shown["status"].startswith("Value +70")


def test_a_failed_load_during_a_search_does_not_leave_it_counting(page, board_url):
    # A document with a typo loaded while the shown position was searching: the search was
    # stopped for the load, the load failed, and the page kept "Searching… 0.5 s" for ever on
    # a position with no values and no Stop. The shown position now gets its values.
    open_start(page, board_url)
    held = []
    page.route("**/api/solve", lambda route: held.append(route))
    page.click("#table button.card[data-card='AS']")
    page.wait_for_function("() => !document.getElementById('stop').disabled")
    page.fill("#doc", '{"game": "marias"')
    page.click("#load-btn")
    assert "not valid JSON" in error_shown(page)
    page.wait_for_timeout(200)
    for route in held:
        route.continue_()
    page.unroute("**/api/solve")
    shown = wait_for_values(page, ["AS"])
    check_against_solve(shown, dict(START, played=["AS"]))
    assert "not valid JSON" in page.text_content("#error")      # the error stays said


def test_a_failed_step_keeps_the_line_at_the_position_shown(page, board_url):
    # A card whose position could not be fetched (a failed request) moved the line on anyway:
    # the line marked the card played while the table still showed the position before it, and
    # the next card clicked there was recorded after the one that never showed.
    open_start(page, board_url)
    page.route("**/api/position", lambda route: route.fulfill(status=503, content_type="text/plain", body="busy"))
    page.click("#table button.card[data-card='AS']")
    assert "HTTP 503" in error_shown(page)
    page.unroute("**/api/position")
    shown = wait_for_values(page, [])
    assert shown["line"] == [] and shown["current"] == "start"
    check_against_solve(shown, START)
    play_from_start(page, "KH")


def test_focus_stays_on_the_board_after_a_card_or_a_step(page, board_url):
    # A card played from the keyboard (Enter) or a step picked in the line was redrawn away with
    # the focus in it: the focus fell to the page's body, and the next Enter did nothing.
    open_start(page, board_url)
    page.focus("#table button.card[data-card='KH']")
    reset_value(page)
    page.keyboard.press("Enter")
    wait_for_values(page, ["KH"])
    assert page.evaluate("() => document.activeElement.dataset.card") == "TH"      # the only legal card
    reset_value(page)
    page.keyboard.press("Enter")
    shown = wait_for_values(page, ["KH", "TH"])
    check_against_solve(shown, dict(START, played=["KH", "TH"]))
    page.focus("#line button[data-ply='0']")
    reset_value(page)
    page.keyboard.press("Enter")
    wait_for_values(page, ["KH"])
    assert page.evaluate("() => document.activeElement.dataset.ply") == "0"       # the step just picked


def test_a_card_on_the_table_or_the_talon_is_named_with_its_suit(page, board_url):
    # The suit of a card on the table, in the talon or the stock is its symbol, hidden from a
    # screen reader (the row's suit name says it in a hand): they read "on the table Q seat 0",
    # "talon 9 K".
    page.goto(board_url)
    page.fill("#doc", json.dumps(dict(START, played=["QH"])))
    page.click("#load-btn")
    wait_for_values(page, ["QH"])
    centre = page.locator("#centre").aria_snapshot()
    assert "Q of červené, seat 0" in centre, centre
    assert "9 of žaludy" in centre and "K of žaludy" in centre, centre


def test_the_status_says_what_its_numbers_count(page, board_url):
    # After the verdict the status listed the sides' numbers at the end of the best line with no
    # word on what they are: in Prší, which scores nothing, they are the cards each seat holds
    # ("seat0 0, seat1 4" read as a score the winner lost), as the view's "hand sizes so far" says.
    page.goto(board_url)
    page.select_option("#example", "prsi")
    shown = wait_for_values(page, [])
    res = ddcards.solve(ddcards.example("prsi"))
    sizes = ", ".join(f"{k.replace('seat', 'seat ')} {v}" for k, v in res.scores.items())
    assert sizes.startswith("seat 0 ")          # a seat as the report writes it, not the key's "seat0"
    assert shown["status"].startswith("Value +1 (seat 0's view): ")
    assert f" (hand sizes at the end of the best line: {sizes}) · " in shown["status"], shown["status"]
    reset_value(page)
    page.fill("#doc", json.dumps(START))
    page.click("#load-btn")
    shown = wait_for_values(page, [])
    assert shown["status"].startswith("Value +70 (declarer's view): declarer wins "
                                      "(score at the end of the best line: declarer 100, defenders 30) · ")


def test_the_controls_speak_of_actions_in_prsi_and_of_cards_elsewhere(page, board_url):
    # Prší's line holds draws and passes as much as cards: its controls said "Play a best card",
    # "One card back" and "card 1: draw (seat 0)".
    page.goto(board_url)
    page.select_option("#example", "prsi")
    wait_for_values(page, [])
    assert page.text_content("#best") == "Play a best action"
    assert page.get_attribute("#back", "aria-label") == "One action back"
    assert page.get_attribute("#forward", "aria-label") == "One action forward"
    reset_value(page)
    page.click("#table button.card.action[data-card='draw']")
    wait_for_values(page, ["draw"])
    assert page.get_attribute("#line button[data-ply='0']", "aria-label") == "action 1: draw (seat 0)"
    reset_value(page)
    page.select_option("#example", "klaverjas")
    wait_for_values(page, [])
    assert page.text_content("#best") == "Play a best card"
    assert page.get_attribute("#back", "aria-label") == "One card back"


def test_a_prsi_action_shows_how_soon_its_value_ends_the_game(page, board_url):
    # Two of Prší's actions of one value differ in how soon they force the end, and the sooner is
    # the best: the buttons showed "+1" on both, one marked best and the other not, with no reason
    # seen. Now each says how soon ("+1 in 9", as `ddcards solve` writes it), and so does the status.
    doc = ddcards.example("prsi-endgame")
    doc["played"] = doc["played"] + ["draw", "9H"]
    page.goto(board_url)
    page.fill("#doc", json.dumps(doc))
    page.click("#load-btn")
    shown = wait_for_values(page, doc["played"])
    check_against_solve(shown, doc)
    res = ddcards.solve(doc)
    assert (res.value, res.distance) == (1, 9)
    assert {m.move: (m.value, m.distance) for m in res.moves if m.move in ("QH/S", "draw")} == \
        {"QH/S": (1, 9), "draw": (1, 13)}
    assert page.text_content("#table button.card[data-card='QH/S'] .val") == "+1 in 9"
    assert page.text_content("#table button.card[data-card='QH/H'] .val") == "0"      # no end forced
    draw = page.locator("#table button.card[data-card='draw']")
    assert draw.locator(".val").text_content() == "+1 in 13"
    assert draw.get_attribute("aria-label") == "draw, value +1, the end in 13 plies"
    assert shown["status"].startswith("Value +1 (seat 0's view): seat 0 can force being out first within 20 plies, "
                                      "the end in 9 plies (")
    # a game solved to its end has no distance: its values stay bare
    open_start(page, board_url)
    assert page.text_content("#table button.card[data-card='AS'] .val") == "+70"


def test_the_best_line_is_split_into_its_tricks(page, board_url):
    # The line was one run of 30 cards: now split where the board says each trick ends.
    open_start(page, board_url)
    pv = ddcards.solve(START).pv
    assert page.text_content("#pv") == "Best line from here: " + " | ".join(
        " ".join(pv[i:i + 3]) for i in range(0, len(pv), 3))


def test_the_browsers_own_keys_are_left_to_it(page, board_url):
    # Alt+← (the browser's Back) stepped the line back and kept the browser from it; Ctrl+Home,
    # Ctrl+End and Alt+→ were taken too. The board's keys are the bare ones.
    doc = dict(SEED, played=SEED["played"][:2])
    page.goto(board_url)
    page.fill("#doc", json.dumps(doc))
    page.click("#load-btn")
    wait_for_values(page, doc["played"])
    page.focus("#table button.card")
    page.evaluate("() => { window.taken = []; document.addEventListener('keydown', "
                  "e => { if (e.defaultPrevented) window.taken.push(e.key); }); }")
    for key in ("Alt+ArrowLeft", "Alt+ArrowRight", "Control+Home", "Control+End", "Meta+ArrowLeft"):
        page.keyboard.press(key)
    page.wait_for_timeout(300)              # (a step would have asked for its position by now)
    shown = page.evaluate(SHOWN)
    assert page.evaluate("() => window.taken") == [] and shown["line"] == doc["played"]
    assert shown["current"] == doc["played"][-1]
    reset_value(page)
    page.keyboard.press("ArrowLeft")                            # the board's own key still steps back
    shown = wait_for_values(page, doc["played"][:1])
    assert page.evaluate("() => window.taken") == ["ArrowLeft"] and shown["current"] == doc["played"][0]
