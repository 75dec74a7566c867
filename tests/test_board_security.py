"""The analysis board under a hostile page or client (a security audit's findings, each a regression
test): requests for another host name (DNS rebinding) or from another site's page are refused, a
body over the limit is refused before it is read, a client that goes away stops its search, every
search under one id is stopped, an early stop expires, the request is read as strict JSON, and the
command line says why it cannot listen.  The real app on uvicorn on loopback, the real solver.
"""
from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

import ddcards
import ddcards.board.app as board_app
from ddcards.board.app import IP_LITERALS
from ddcards.board.cli import board_hosts, check_listen

try:
    from tests._browser import call, running_board
    from tests._long_search import ENDLESS
except ImportError:  # pytest put tests/ itself on sys.path
    from _browser import call, running_board
    from _long_search import ENDLESS

START = dict(ddcards.example("marias-seed"), played=[])


def request(url: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, dict, dict]:
    """(status, JSON answer, response headers) of a request with these headers."""
    req = urllib.request.Request(url, data=body, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            status, text, got = answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as err:
        status, text, got = err.code, err.read().decode(), dict(err.headers)
    return status, (json.loads(text) if got.get("content-type", "").startswith("application/json") else {}), got


def test_a_request_for_another_host_name_is_refused():
    """DNS rebinding: a page of evil.example whose name points at 127.0.0.1 was the board's own
    origin, free to start and read searches (it answered 200)."""
    body = json.dumps({"position": START}).encode()
    with running_board() as (url, _):
        status, err, _ = request(url + "/api/solve", body, {"Host": "evil.example:8765"})
        assert status == 421 and err["token"] == "evil.example" and "DNS rebinding" in err["error"]
        assert request(url + "/api/examples", None, {"Host": "evil.example"})[0] == 421
        for name in ("localhost", "127.0.0.1", "[::1]"):
            status, answer, _ = request(url + "/api/solve", body, {"Host": f"{name}:8765"})
            assert status == 200 and answer["value"] == 70
    # Every address: any IP address and this machine's names, but not any name at all (it answered a
    # page whose name points at this machine: DNS rebinding, found by a security review) ...
    with running_board(hosts=board_hosts("0.0.0.0")) as (url, _):
        port = url.rsplit(":", 1)[1]
        for name in ("192.0.2.7", "[2001:db8::7]", socket.gethostname()):
            status, answer, _ = request(url + "/api/solve", body, {"Host": f"{name}:{port}"})
            assert status == 200 and answer["value"] == 70, name
        status, err, _ = request(url + "/api/solve", body, {"Host": f"evil.example:{port}",
                                                             "Origin": f"http://evil.example:{port}"})
        assert status == 421 and "any IP address" in err["error"] and "--allow-host" in err["error"]
    # ... nor the name the board keeps for "any address" itself
        assert request(url + "/api/solve", body, {"Host": IP_LITERALS})[0] == 421
    # ... but a name given with --allow-host
    with running_board(hosts=board_hosts("0.0.0.0", ["MyBox.example"])) as (url, _):
        assert request(url + "/api/solve", body, {"Host": "mybox.example"})[1]["value"] == 70
        assert request(url + "/api/solve", body, {"Host": "evil.example"})[0] == 421


def test_a_request_from_another_sites_page_is_refused():
    body = json.dumps({"position": START}).encode()
    with running_board() as (url, _):
        status, err, _ = request(url + "/api/solve", body, {"Origin": "http://evil.example"})
        assert status == 403 and "http://evil.example" in err["error"]
        assert request(url + "/api/solve", body, {"Origin": "null"})[0] == 403
        assert request(url + "/api/solve", body, {"Origin": url})[1]["value"] == 70     # its own page
        # Another port or scheme of the same host is another site (a dev server on :3000, say).
        host, port = url.removeprefix("http://").rsplit(":", 1)
        for other in (f"http://{host}:3000", f"https://{host}:{port}", f"http://localhost:{int(port) + 1}"):
            assert request(url + "/api/solve", body, {"Origin": other})[0] == 403, other
        assert request(url + "/api/solve", body, {"Origin": f"http://localhost:{port}"})[1]["value"] == 70


def test_a_search_id_or_a_text_that_is_not_text_is_refused():
    # They were made text with str(): ["x"] came back as the id "['x']".
    body = {"position": START}
    with running_board() as (url, _):
        for path, bad in (("/api/solve", dict(body, search=["x"])), ("/api/stop", {"search": {"a": 1}}),
                          ("/api/position", {"text": 5})):
            status, err, _ = request(url + path, json.dumps(bad).encode(), {})
            assert status == 400 and ("'search' is a search's id as text" in err["error"]
                                      or "'text' is a position document as JSON text, not 5" in err["error"]), err
        assert request(url + "/api/solve", json.dumps(dict(body, search="s1")).encode(), {})[1]["search"] == "s1"
        for raw in (b"[]", b"1e99999"):          # the token is what was sent (it named a Python type: 'list')
            status, err, _ = request(url + "/api/solve", raw, {})
            assert status == 400 and err["token"] == raw.decode() and "is not a JSON object" in err["error"], err
        # a lone surrogate: the answer echoing it could not be written (a 500, after the whole search)
        for path in ("/api/solve", "/api/stop"):
            status, err, _ = request(url + path, json.dumps(dict(body, search="\ud800")).encode(), {})
            assert status == 400 and err["error"].startswith("'search': lone surrogate \\ud800 in text"), err


def test_no_site_may_frame_the_board():
    with running_board() as (url, _):
        _, _, headers = request(url + "/", None, {})
        _, _, refused = request(url + "/", None, {"Host": "evil.example"})     # a refusal carries them too
    for got in ({k.lower(): v for k, v in h.items()} for h in (headers, refused)):
        assert got["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in got["content-security-policy"]
        assert got["x-content-type-options"] == "nosniff"


def test_only_the_boards_own_script_runs():
    """The policy was only "frame-ancestors 'none'": any script that reached the page (an inline
    <script>, an onerror attribute) would have run, and could have sent what it read anywhere.
    Now only the page's own inline script runs (by its hash), it connects only to the board."""
    with running_board() as (url, _):
        _, _, headers = request(url + "/", None, {})
        page = urllib.request.urlopen(url + "/", timeout=30).read().decode()
    policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
    script = page.split("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert policy["default-src"] == "'none'" and policy["script-src"] == f"'sha256-{digest}'"
    assert policy["connect-src"] == "'self'" and policy["base-uri"] == "'none'"
    assert policy["form-action"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert page.count("<script>") == 1          # the one hashed (the data element has a type and does not run)


def test_a_body_over_the_limit_is_refused_before_it_is_read():
    """A 200 MB POST raised the server's memory to 425 MB before its 400."""
    with running_board() as (url, _):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:     # declares 100 GB, sends none
            sock.sendall(b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000000000\r\n\r\n")
            answer = b""
            while b"bytes" not in answer:           # the head, then the body
                piece = sock.recv(4096)
                if not piece:
                    break
                answer += piece
        assert answer.startswith(b"HTTP/1.1 413") and b"100,000,000,000 bytes" in answer
        # no length declared (chunked): read up to the limit only, then refused
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b" " * (256 << 10)
            try:
                for _ in range(12):                 # 3 MiB, unless the server has answered and closed
                    sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            except OSError:
                pass
            answer = b""
            try:
                while b"bytes" not in answer:
                    piece = sock.recv(4096)
                    if not piece:
                        break
                    answer += piece
            except OSError:
                pass
        assert answer.startswith(b"HTTP/1.1 413") and b"the request is over " in answer, answer[:300]
        assert call(url + "/api/position", {"position": START})[0] == 200


def test_a_client_that_goes_away_stops_its_search():
    """A closed tab or a curl that gave up left its search running, holding the only worker."""
    with running_board(workers=1, tt_mb=16) as (url, app):
        host, port = url.removeprefix("http://").split(":")
        body = json.dumps({"position": ENDLESS}).encode()
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"POST /api/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            deadline = time.monotonic() + 10
            while not app._anonymous and time.monotonic() < deadline:
                time.sleep(0.01)
            assert app._anonymous                      # the search runs
        started = time.monotonic()
        assert call(url + "/api/solve", {"position": START})[1]["value"] == 70    # the worker is free again
        assert time.monotonic() - started < 10
        assert not app._anonymous


def test_stop_stops_every_search_under_its_id():
    """Of two searches sent with one id, a stop cancelled only the second."""
    with running_board(workers=2, tt_mb=16) as (url, app):
        answers: list = []
        workers = [threading.Thread(target=lambda: answers.append(
            call(url + "/api/solve", {"position": ENDLESS, "search": "DUP"})[1])) for _ in range(2)]
        for w in workers:
            w.start()
        deadline = time.monotonic() + 10
        while len(app._searches.get("DUP", ())) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert call(url + "/api/stop", {"search": "DUP"})[1] == {"search": "DUP", "stopped": True}
        for w in workers:
            w.join(30)
        assert answers == [{"stopped": "cancelled", "search": "DUP"}] * 2


def test_a_search_id_over_its_limit_is_refused_not_cut():
    """An id over MAX_SEARCH_ID characters was cut to them: two ids alike in their first 64 were
    one search (a stop of either stopped both) and the answer named an id never sent."""
    longest = "s" * board_app.MAX_SEARCH_ID
    with running_board(workers=1) as (url, app):
        assert call(url + "/api/solve", {"position": START, "search": longest})[1]["search"] == longest
        for suffix in ("-1", "-2"):
            for path, body in (("/api/solve", {"position": START, "search": longest + suffix}),
                               ("/api/stop", {"search": longest + suffix})):
                status, err = call(url + path, body)
                assert status == 400 and err["error"] == (f"'search' is an id of at most {board_app.MAX_SEARCH_ID} "
                                                          f"characters, not {board_app.MAX_SEARCH_ID + 2}"), err
        assert not app._searches and not app._stopped_early


def test_an_early_stop_expires(monkeypatch):
    """A stop for an id with no search cancelled any later search under that id, for ever."""
    monkeypatch.setattr(board_app, "STOPPED_EARLY_SECONDS", 0.2)
    with running_board() as (url, _):
        assert call(url + "/api/stop", {"search": "late"})[1] == {"search": "late", "stopped": False}
        time.sleep(0.3)
        assert call(url + "/api/solve", {"position": START, "search": "late"})[1]["value"] == 70


@pytest.mark.parametrize("raw, words", [
    (b'{"position": {"game": "marias", "game": "prsi"}}', "appears twice"),
    (b'{"position": {"game": "marias", "flek": NaN}}', "NaN is not a JSON number"),
    (b'{"position": {"game": "marias", "flek": 1e400}}', "1e400"),
])
def test_the_request_is_read_as_strict_json(raw, words):
    """It was read by Python's json: NaN and 1e400 became 'flek inf', a key twice last-wins."""
    with running_board() as (url, _):
        status, err = call(url + "/api/position", raw=raw)
    assert status == 400 and words in err["error"], err


def test_the_command_line_says_why_it_cannot_listen():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ddcards.NotationError, match=f"cannot listen on 127.0.0.1:{port}: Address already in use"):
            check_listen("127.0.0.1", port)
    with pytest.raises(ddcards.NotationError, match="cannot listen on 'nosuch.invalid'") as info:
        check_listen("nosuch.invalid", 0)
    assert info.value.token == "nosuch.invalid"
    assert board_hosts("127.0.0.1") == ("127.0.0.1", "localhost", "::1", "127.0.0.1")
    hosts = board_hosts("::", ["box.example"])
    assert hosts[:4] == ("127.0.0.1", "localhost", "::1", IP_LITERALS) and hosts[-1] == "box.example"
    assert socket.gethostname().lower() in hosts and "*" not in hosts
    assert board_hosts("127.0.0.1", ["box.example"])[-1] == "box.example"
    assert board_hosts("::", ["[::1]"])[-1] == "::1"
    for name in ("mybox.lan:8765", "http://mybox.lan", "mybox.lan.", ""):
        with pytest.raises(ddcards.NotationError, match="is not a host name"):
            board_hosts("::", [name])
