"""Ctrl-C during a search on Python's main thread (the Python API, not the command line).

Python runs its SIGINT handler on the main thread between bytecodes, and a search runs in C
without the GIL: a KeyboardInterrupt used to come only when the search ended (minutes for a
fresh 36-card Mariasz deal).  While a search runs on the main thread the core now takes SIGINT
itself, stops within milliseconds and hands the signal to Python's handler (sigint.h).  Each
case runs in a child process of its own (SIGINT at its default there, whatever the runner did),
which sends itself SIGINT half a second into a search that would outlast the test.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

try:
    from tests._long_search import ENDLESS
    from tests._signals import sigint_default
except ImportError:  # pytest put tests/ itself on sys.path
    from _long_search import ENDLESS
    from _signals import sigint_default

CHILD = r"""
import json, os, signal, sys, threading, time
import ddcards

handler, call, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
doc = json.loads(sys.argv[4])
caught = []
if handler == "own":
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
elif handler == "ignored":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
solver = ddcards.Solver()
solver.solve(ddcards.example("klaverjas"))          # a search before: SIGINT is Python's again after it
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    if call == "solve":
        solver.solve(doc, timeout=limit)
    elif call == "threads":
        solver.solve(doc, timeout=limit, threads=2)
    else:                                            # several positions at once (a DD table's way)
        solver._values([ddcards.Position.from_dict(doc)] * 2, timeout=limit)
    print(json.dumps({"ended": "finished"}))
except BaseException as exc:
    seconds = time.monotonic() - start
    after = None
    if handler == "default":                         # Python's own handler is back in place
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
            after = "nothing"
        except KeyboardInterrupt:
            after = "KeyboardInterrupt"
    print(json.dumps({"ended": type(exc).__name__, "message": str(exc), "seconds": seconds,
                      "caught": caught, "after": after}))
"""


def run_child(handler: str, call: str, limit: float) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, handler, call, str(limit), json.dumps(ENDLESS)],
                          capture_output=True, text=True, timeout=limit + 60, preexec_fn=sigint_default)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("call", ["solve", "threads", "values"])
def test_ctrl_c_stops_a_search_on_the_main_thread_at_once(call):
    """KeyboardInterrupt within a second of Ctrl-C (it came only when the search ended, here
    after the 60 s timeout), on one thread or two, and for several positions at once."""
    got = run_child("default", call, 60)
    assert got["ended"] == "KeyboardInterrupt"
    assert got["seconds"] < 0.5 + 5         # half a second in, and stopped within ms (5 s: a loaded runner)
    assert got["after"] == "KeyboardInterrupt"


def test_a_programs_own_sigint_handler_runs_and_the_search_says_what_stopped_it():
    """A handler of the program's own that does not raise: it still gets the signal, once, and
    the search, stopped, says SIGINT stopped it (not a cancel the program never asked for)."""
    got = run_child("own", "solve", 60)
    assert got["ended"] == "SearchCancelled"
    assert got["message"].startswith("the search was stopped by SIGINT (Ctrl-C) after ")
    assert got["caught"] == [2]


def test_an_ignored_sigint_leaves_the_search_alone():
    """SIGINT ignored (a background job, nohup): the search goes on to its own end, here its
    timeout."""
    got = run_child("ignored", "solve", 1.5)
    assert got["ended"] == "SearchTimeout"
    assert got["seconds"] >= 1.5
