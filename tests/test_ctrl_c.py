"""Ctrl-C during a search on Python's main thread (the Python API, not the command line).

Python runs its SIGINT handler on the main thread between bytecodes, and a search runs in C
without the GIL: a KeyboardInterrupt used to come only when the search ended (minutes for a
fresh 36-card Mariasz deal).  While a search runs on the main thread the core now takes SIGINT
itself, stops within milliseconds and hands the signal to Python's handler (sigint.h); a handler
that does not raise lets the search go on.  Each
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
start = time.monotonic()
if handler == "own":                                 # a handler that does not raise
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append((signum, time.monotonic() - start)))
elif handler == "raises":
    def stop(signum, frame):
        raise RuntimeError("stop")
    signal.signal(signal.SIGINT, stop)
elif handler == "ignored":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
# 16 MiB, not the 1 GiB the deal is given: on a loaded machine a fresh table's first pages take
# seconds to back, which is the overrun the README states, not what these tests are about
solver = ddcards.Solver(tt_mb=16)
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


@pytest.mark.parametrize("call", ["solve", "values"])
def test_a_programs_own_sigint_handler_runs_at_once_and_the_search_goes_on(call):
    """A handler of the program's own that does not raise runs within milliseconds, once, and
    the search goes on to its own end (here its 3 s timeout), as Python code goes on after such
    a handler; before, the handler ran only when the search ended."""
    got = run_child("own", call, 3)
    assert got["ended"] == "SearchTimeout"
    assert got["seconds"] >= 3
    [(signum, when)] = got["caught"]
    assert signum == 2 and when < 0.5 + 2


def test_a_programs_own_handler_that_raises_stops_the_search_with_its_exception():
    got = run_child("raises", "solve", 60)
    assert got["ended"] == "RuntimeError" and got["message"] == "stop"
    assert got["seconds"] < 0.5 + 5


GOES_ON = r"""
import json, os, signal, sys, threading
import ddcards
doc = json.loads(sys.argv[2])
calls = []
signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
whole = ddcards.Solver().solve(doc, mode="all")
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
went_on = ddcards.Solver().solve(doc, mode="all")
print(json.dumps([calls, whole.value, went_on.value, [(m.move, m.value) for m in whole.moves],
                  [(m.move, m.value) for m in went_on.moves], went_on.nodes > 0]))
"""

# A Mariasz position 16 cards from the end of the stock: about 1.5 s of search (mariasz-ladder line 22).
MEDIUM = {"game": "mariasz", "hands": ["KJ.6.JT.K", ".T9.87.A6"],
          "stock": "8S 9C KH AH JC 9D JH 7H QH 9S QS AS QC TC 8C 6D TS 6S AD 7S 8H QD 7C KD",
          "played": ["KS", "9H", "TD", "8D", "KH", "9C", "8S", "AH"]}


def test_a_search_that_goes_on_after_a_handler_answers_as_one_never_stopped():
    """The search stopped by the SIGINT and gone on from its table answers every move as the
    same search run through."""
    [calls, value, went_on_value, moves, went_on_moves, counted] = json.loads(
        run_script(GOES_ON, json.dumps(MEDIUM))[-1])
    assert calls == [2]
    assert went_on_value == value and went_on_moves == moves and counted


def test_an_ignored_sigint_leaves_the_search_alone():
    """SIGINT ignored (a background job, nohup): the search goes on to its own end, here its
    timeout."""
    got = run_child("ignored", "solve", 1.5)
    assert got["ended"] == "SearchTimeout"
    assert got["seconds"] >= 1.5


def run_script(script: str, *args: str, timeout: float = 120) -> list[str]:
    """`script` run in a child (SIGINT at its default there); its standard output's lines."""
    done = subprocess.run([sys.executable, "-c", script, json.dumps(ENDLESS), *args], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=sigint_default)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


FORK = r"""
import json, os, signal, sys, threading, time
import ddcards
doc = json.loads(sys.argv[1])
def fork():
    time.sleep(0.5)
    pid = os.fork()
    if pid == 0:                            # the child: the main thread's search is not here
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
            os._exit(1)
        except KeyboardInterrupt:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), flush=True)
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=fork).start()
try:
    ddcards.Solver().solve(doc, timeout=60)
except KeyboardInterrupt:
    print("parent KeyboardInterrupt", flush=True)
"""


def test_a_child_forked_during_a_search_takes_ctrl_c():
    """A thread forks while the main thread searches: the child has no search, and SIGINT must
    be Python's there again (the core's handler only raised its flag, so the child's Ctrl-C was
    lost for good)."""
    assert run_script(FORK) == ["child 0", "parent KeyboardInterrupt"]


FLAGS = r"""
import ctypes, os, signal, sys, threading, time
import ddcards
class Action(ctypes.Structure):
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]
def restarts():
    action = Action()
    assert ctypes.CDLL(None).sigaction(signal.SIGINT, None, ctypes.byref(action)) == 0
    return bool(action.flags & 0x10000000)          # SA_RESTART (Linux)
signal.siginterrupt(signal.SIGINT, False)
seen = []
def look():
    time.sleep(0.5)
    seen.append(restarts())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=look).start()
try:
    ddcards.Solver().solve(__import__("json").loads(sys.argv[1]), timeout=60)
except KeyboardInterrupt:
    pass
print(restarts(), seen[0])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SA_RESTART's value is Linux's")
def test_signal_siginterrupt_false_holds_while_a_search_has_sigint():
    """signal.siginterrupt(SIGINT, False): system calls SIGINT interrupts restart, during a
    search too (its handler dropped SA_RESTART)."""
    assert run_script(FLAGS) == ["True True"]


FAULTHANDLER = r"""
import faulthandler, json, os, signal, sys, threading
import ddcards
faulthandler.register(signal.SIGINT, file=sys.stdout, all_threads=False, chain=False)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    ddcards.Solver().solve(json.loads(sys.argv[1]), timeout=3)
except BaseException as exc:
    sys.stdout.flush()
    print(type(exc).__name__, flush=True)
"""


def test_ctrl_c_goes_to_the_handler_the_search_displaced():
    """faulthandler.register(SIGINT) (a traceback at Ctrl-C, no KeyboardInterrupt): the search
    hands the signal to that handler, not to Python's KeyboardInterrupt behind it."""
    lines = run_script(FAULTHANDLER)
    assert lines[0].startswith("Stack (most recent call first)")
    assert lines[-1] == "SearchTimeout"                 # faulthandler's does not raise: the search went on
    assert "KeyboardInterrupt" not in lines


NESTED = r"""
import os, signal, sys, time
import ddcards
from ddcards._core.search import Searcher
board = ddcards.Position.from_dict(ddcards.example("klaverjas")).session().board
inner = Searcher(16)
class Timeout(float):
    def __le__(self, other):                # Python code while the search is set up
        inner.solve(board, 0)               # runs a search of its own
        return float(self) <= other
Searcher(16).solve(board, 0, None, Timeout(5.0))
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    print("nothing")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""


def test_a_search_within_a_search_leaves_python_its_sigint():
    """A search begun while another is set up (Python code there: a timeout's comparison; a
    finalizer) saved the core's own handler as the one to put back: Ctrl-C was lost for good."""
    assert run_script(NESTED) == ["KeyboardInterrupt"]


PENDING = r"""
import ctypes, json, signal, sys, time
import ddcards
from ddcards._core.search import Searcher
board = ddcards.Position.from_dict(json.loads(sys.argv[1])).session().board
trip = ctypes.pythonapi.PyErr_SetInterruptEx     # SIGINT as Python's C handler takes it
trip.argtypes = [ctypes.c_int]
start = time.monotonic()
try:
    # the helpers' iterator (C, no bytecode) trips SIGINT just before the search takes it
    Searcher(64).solve(board, 0, None, 20.0, helpers=filter(trip, [signal.SIGINT]))
except BaseException as exc:
    print(type(exc).__name__, time.monotonic() - start < 5)
"""


def test_a_sigint_just_before_the_search_takes_it_stops_the_search():
    """A SIGINT Python's handler took just before the search took SIGINT over (no bytecode ran
    between, so its KeyboardInterrupt waited): it stops the search as one during it does."""
    assert run_script(PENDING) == ["KeyboardInterrupt True"]


LATE = r"""
import json, os, signal, sys, threading, time
import ddcards
doc = json.loads(sys.argv[1])
signal.signal(signal.SIGINT, lambda signum, frame: time.sleep(1.0))    # does not raise; outlasts the timeout
solver = ddcards.Solver()
for call in ("solve", "values"):
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        if call == "solve":
            solver.solve(doc, timeout=0.8)
        else:
            solver._values([ddcards.Position.from_dict(doc)] * 2, timeout=0.8)
    except ddcards.SearchTimeout as exc:
        print(call, exc.nodes > 0 and exc.nodes == solver.last_nodes and f"after {exc.nodes:,} nodes" in str(exc))
"""


def test_a_search_whose_time_ran_out_in_the_handler_counts_its_nodes():
    """A handler that does not raise but takes the rest of the time: the search does not go on, and
    its SearchTimeout counts the nodes searched before the SIGINT (a DD table's rows said 0)."""
    assert run_script(LATE) == ["solve True", "values True"]


ROWS_ONCE = r"""
import json, os, signal, sys, threading
import ddcards
from ddcards._core.search import Searcher
doc = json.loads(sys.argv[2])
calls = []
signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
table = Searcher(32)
sessions = [ddcards.Position.from_dict(doc).session() for _ in range(2)]
whole = Searcher(32).values([(Searcher(32), s.board) for s in sessions])
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
went_on = table.values(((table, s.board) for s in sessions), timeout=60)      # rows as an iterable, once
print(json.dumps([calls, [v for v, _ in whole], [v for v, _ in went_on]]))
"""


def test_a_search_that_goes_on_reads_its_rows_once():
    """Searcher.values takes its rows (and helpers) as any iterable: the search that went on after a
    handler read a generator's rows again, found none, and answered [] for the two rows."""
    [calls, whole, went_on] = json.loads(run_script(ROWS_ONCE, json.dumps(MEDIUM))[-1])
    assert calls == [2]
    assert went_on == whole and len(whole) == 2


COUNTING = r"""
import json, os, signal, sys, threading, time
import ddcards
doc = json.loads(sys.argv[1])
signal.signal(signal.SIGINT, lambda signum, frame: None)
solver = ddcards.Solver()
seen = []
def watch():
    while len(seen) < 12:
        time.sleep(0.1)
        seen.append(solver.nodes_now)
watcher = threading.Thread(target=watch)
watcher.start()
threading.Timer(0.55, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    solver.solve(doc, timeout=1.5)
except ddcards.SearchTimeout as exc:
    watcher.join()
    print(json.dumps([seen, exc.nodes]))
"""


def test_the_nodes_of_a_search_that_goes_on_count_on():
    """Solver.nodes_now (a program's progress, read from another thread) counts the nodes of the
    search before the SIGINT too once it goes on: it fell back to 0 and counted again."""
    [seen, nodes] = json.loads(run_script(COUNTING)[-1])
    assert seen == sorted(seen) and seen[-1] <= nodes


FORKED_FROM_A_THREAD = r"""
import json, os, signal, sys, threading, time, warnings
import ddcards
warnings.simplefilter("ignore", DeprecationWarning)      # (fork() with threads running)
doc = json.loads(sys.argv[1])
def fork():
    pid = os.fork()
    if pid == 0:            # this thread is the child's main thread, where its Ctrl-C is taken
        start = time.monotonic()
        try:                # (the timer inside: on a loaded machine it may fire at once)
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
            # A table of 16 MiB, not the 1 GiB this deal is given: six such children at once
            # took 5 s to stop, backing their fresh tables' pages (README: "may overrun ...").
            ddcards.Solver(tt_mb=16).solve(doc, timeout=60)
        except BaseException as exc:
            print(type(exc).__name__, time.monotonic() - start < 0.5 + 5, flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
thread = threading.Thread(target=fork)
thread.start()
thread.join()
"""


def test_ctrl_c_stops_a_search_in_a_child_forked_from_a_thread():
    """A child forked from a thread other than the main one: that thread is the child's main thread,
    but the search took only the parent's main thread for it, so Ctrl-C waited for its end."""
    assert run_script(FORKED_FROM_A_THREAD) == ["KeyboardInterrupt True"]


SAYS = r"""
import json, os, signal, sys, threading
import ddcards
doc = json.loads(sys.argv[1])
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    ddcards.Solver().solve(doc, timeout=60)
except KeyboardInterrupt as exc:
    print(json.dumps([str(exc), exc.nodes, exc.progress is not None]))
deal = ddcards.example("mariasz")          # late in a fresh deal: the analysis starts at its first trick
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    ddcards.analyse(deal, timeout=60)
except KeyboardInterrupt as exc:
    print(json.dumps([str(exc), exc.nodes, len(exc.steps), len(deal["played"])]))
"""


def test_ctrl_c_says_how_far_the_search_got():
    """A notebook's interrupt showed a bare KeyboardInterrupt: the bound a long search had reached
    (what a timeout's message says) was lost. It says it now, and carries nodes and progress; an
    analysis's says how many actions it analysed and carries their steps."""
    solved, analysed = (json.loads(line) for line in run_script(SAYS))
    message, nodes, has_progress = solved
    assert message.startswith(f"the search was interrupted after {nodes:,} nodes; by then ") and has_progress
    assert " distinct first moves answered" in message
    message, nodes, steps, actions = analysed
    assert message == (f"the analysis was interrupted after {nodes:,} nodes, with {steps} of the {actions} recorded "
                       "actions analysed")


EVERY_THREAD = r"""
import json, os, signal, sys, threading, time
import ddcards
doc = json.loads(sys.argv[1])
solver = ddcards.Solver()
seen = []
def watch_then_interrupt():
    for _ in range(5):
        time.sleep(0.1)
        seen.append(solver.nodes_now)
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=watch_then_interrupt).start()
try:
    solver.solve(doc, timeout=60, threads=2)
except KeyboardInterrupt as exc:
    print(json.dumps([seen, exc.nodes, solver.last_nodes]))
"""


def test_ctrl_c_counts_every_threads_nodes():
    """The KeyboardInterrupt's count is the search's, both threads': it was the first thread's
    alone (a thread's own count, left by the end of its part, was taken for the search's)."""
    [seen, nodes, last] = json.loads(run_script(EVERY_THREAD)[-1])
    assert seen == sorted(seen) and 0 < seen[-1] <= nodes == last
