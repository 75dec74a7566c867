"""The benchmark scripts refuse bad arguments as a command line should: a usage error naming the
argument, exit status 2, before any work (a benchmark user's audit found tracebacks, a hang on
``fresh --jobs 0`` and corpora overwritten empty by ``make_corpus.py -1``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

BAD = [
    (["make_corpus.py", "--", "-1"], "deals"),
    (["make_corpus_klaverjas.py", "0"], "deals"),
    (["bench_marias.py", "--deals", "0"], "--deals"),
    (["bench_dds.py", "--deals", "3", "--threads", "0"], "--threads"),
    (["bench_threads.py", "--repeat", "0"], "--repeat"),
    (["bench_klaverjas.py", "--tt-mb", "0"], "--tt-mb"),
    (["bench_mariasz.py", "fresh", "--jobs", "0"], "--jobs"),
    (["bench_mariasz.py", "fresh", "--deals", "41", "--jobs", "1"], "--deals"),
    (["bench_mariasz.py", "--limit", "0"], "--limit"),
    (["bench_mariasz.py", "builds", "/nonexistent", "."], "holds no ddcards package"),
    (["bench_mariasz.py", "builds", ".", ".", "16", "szlifowany:x"], "szlifowany:x"),
    (["bench_mariasz.py", "builds", ".", ".", "16", "nope:1"], "no corpus 'nope'"),
    (["bench_mariasz.py", "builds", ".", ".", "16", "ladder:13:2"], "no position with 13 cards left"),
    (["bench_mariasz.py", "builds", ".", ".", "16", "three:0:2"], "no position with 0 cards left"),
    (["bench_mariasz.py", "table-sizes", "32", "ladder:99"], "no position with 99 cards left"),
    (["bench_mariasz.py", "side-by-side", "0"], "wrong arguments"),
    (["bench_mariasz.py", "table-sizes", "x,32", "three"], "sizes"),
    (["bench_prsi.py", "--seats", "7"], "--seats"),
    (["bench_prsi.py", "--budgets", "x"], "--budgets"),
    # out of the library's range: a traceback from the first search, after the work before it
    (["bench_prsi.py", "--horizons", "20,300"], "--horizons"),
    (["bench_prsi.py", "--long", "--timeout", "0"], "--timeout"),
    (["bench_threads.py", "--threads", "65"], "--threads"),
    (["bench_dds.py", "--deals", "3", "--threads", "1", "100"], "--threads"),
    (["bench_klaverjas.py", "--table-threads", "1", "65"], "--table-threads"),
    (["bench_marias_table.py", "--threads", "65"], "--threads"),
    (["ab_builds.py", ".", ".", "marias-hra:0"], "marias-hra:0"),
    (["ab_builds.py", ".", ".", "nope:3"], "no corpus"),
    # each worker stopped with the library's traceback, after the sets were read
    (["ab_builds.py", ".", ".", "marias-hra:1", "--threads", "65"], "--threads"),
    (["ab_builds.py", ".", ".", "marias-hra:1", "--table", "65"], "--table"),
    (["ab_builds.py", ".", ".", "marias-hra:1", "prsi-mixed:2", "--table", "2"], "prsi-mixed:2: position 1 has no DD"),
    (["ab_builds.py", ".", ".", "marias-midgame:1", "--table", "2"], "19 card(s) are already played"),
    (["ab_marias.py", "--alternate", "-1"], "--alternate"),
    (["bench_batch.py", "large", "--positions", "5"], "--positions"),
    (["bench_table_alloc.py", "--timeout", "0"], "--timeout"),
    (["make_bench_positions.py", "--nope"], "--nope"),
    (["soak_server.py", "--clients", "0"], "--clients"),
    # waited for ever for a quiet machine (nan), or ran as if 0 (a negative)
    (["bench_server.py", "--wait-quiet", "nan"], "--wait-quiet"),
    (["bench_server.py", "--wait-quiet", "-5"], "--wait-quiet"),
    (["soak_server.py", "--seconds", "-1"], "--seconds"),
    (["bench_ctrl_c.py", "--calls", "0"], "--calls"),
    # a table past the machine's memory: the library's traceback from the first Solver or Searcher
    (["bench_klaverjas.py", "--tt-mb", "999999999"], "--tt-mb"),
    (["bench_marias_table.py", "--tt-mb", "999999999"], "--tt-mb"),
    (["bench_table_size.py", "--sizes", "16", "999999999"], "--sizes"),
    (["bench_mariasz.py", "--tt-mb", "999999999"], "--tt-mb"),
    (["bench_mariasz.py", "fresh", "--tt-mb", "999999999"], "--tt-mb"),
    (["bench_mariasz.py", "builds", ".", ".", "999999999"], "is not a table size"),
    (["bench_mariasz.py", "table-sizes", "16,999999999", "three"], "is not a table size"),
    (["ab_builds.py", ".", ".", "marias-hra:1", "--tt-mb", "999999999"], "--tt-mb"),
]


@pytest.mark.parametrize(("argv", "named"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_argument_is_a_usage_error(argv: list[str], named: str, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(BENCHMARKS / argv[0]), *argv[1:]], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.returncode == 2, out.stdout[-500:] + out.stderr[-1500:]
    assert "Traceback" not in out.stderr, out.stderr[-1500:]
    assert named in out.stderr, out.stderr[-500:]


MISSING = [
    (["bench_dds.py", "--deals", "2"], "endplay",
     "bench_dds.py needs DDS: pip install -e '.[bench]' (the endplay package)"),
    # the Dask phase imported distributed inside its run: a ModuleNotFoundError traceback
    (["bench_batch.py", "dask", "--rounds", "1"], "distributed",
     "bench_batch.py dask needs Dask's distributed: pip install -e '.[dask]'"),
]


@pytest.mark.parametrize(("argv", "module", "said"), MISSING, ids=[a[0] for a, _, _ in MISSING])
def test_a_missing_optional_dependency_is_named_with_how_to_install_it(argv: list[str], module: str, said: str,
                                                                      tmp_path: Path) -> None:
    (tmp_path / module).mkdir()          # stands in for the package an install without the extra lacks
    (tmp_path / module / "__init__.py").write_text(f'raise ModuleNotFoundError("No module named {module!r}", '
                                                   f"name={module!r})\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, str(BENCHMARKS / argv[0]), *argv[1:]], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 1, out.stdout[-500:] + out.stderr[-1500:]
    assert out.stderr.strip() == said, out.stderr[-1500:]


def test_the_corpora_are_left_alone_by_a_refused_count() -> None:
    corpus = BENCHMARKS / "corpus" / "marias-hra.jsonl"
    before = corpus.read_bytes()
    subprocess.run([sys.executable, str(BENCHMARKS / "make_corpus.py"), "--", "-1"], capture_output=True, timeout=60)
    assert corpus.read_bytes() == before


def test_the_bench_positions_are_left_alone_by_help_and_written_where_asked(tmp_path: Path) -> None:
    # it rewrote the package's positions.jsonl whatever its arguments, --help too (an audit's find)
    target = BENCHMARKS.parent / "solver" / "bench" / "positions.jsonl"
    before = target.stat().st_mtime_ns
    out = subprocess.run([sys.executable, str(BENCHMARKS / "make_bench_positions.py"), "--help"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and "--out" in out.stdout and target.stat().st_mtime_ns == before
    subprocess.run([sys.executable, str(BENCHMARKS / "make_bench_positions.py"), "--out", str(tmp_path / "p.jsonl")],
                   check=True, capture_output=True, timeout=120)
    assert (tmp_path / "p.jsonl").read_bytes() == target.read_bytes() and target.stat().st_mtime_ns == before


def test_a_checkout_not_built_is_named_with_how_to_build_it(tmp_path: Path) -> None:
    # its missing modules were looked for in the installed ddcards: a ModuleNotFoundError
    (tmp_path / "solver").mkdir()
    (tmp_path / "solver" / "_kernels.py").write_text("")
    (tmp_path / "solver" / "__init__.py").write_text("")
    out = subprocess.run([sys.executable, "-c", f"import _checkout; _checkout.import_checkout({str(tmp_path)!r})"],
                         capture_output=True, text=True, timeout=60, cwd=BENCHMARKS)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip() == f"{tmp_path}: the checkout is not built: cd {tmp_path} && python setup.py build_ext --inplace"


def test_a_short_soak_of_the_service_answers_every_call_as_its_kind_should() -> None:
    # Every kind of call of the soak's mix (hostile ones, deadlines, cancels, abandoned streams)
    # against a real server; the script fails (status 1) on any other code, an unhealthy server
    # or an unclean stop.
    out = subprocess.run([sys.executable, str(BENCHMARKS / "soak_server.py"), "--seconds", "4", "--clients", "2",
                          "--sample", "0.5"], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1500:]
    assert "SIGTERM: exit status 0" in out.stdout
    assert "result: every call answered as it should" in out.stdout
    rows = {line.split("|")[1].strip(): line for line in out.stdout.splitlines() if line.startswith("| ")}
    assert "INVALID_ARGUMENT" in rows["bad"], out.stdout


@pytest.mark.parametrize("layouts", [1, 2, 3])
def test_no_dds_call_follows_one_on_the_same_deal(layouts: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # DDS reuses its table when a call's deal is the last call's: with one layout, bench_dds.py
    # timed its every-card call warm (5-10x faster) and so the ratio to DDS high
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_dds

    calls: list[str] = []

    def solve(deal: str, solutions: int) -> tuple[float, int]:
        calls.append(deal)
        return 0.001 * len(calls), 0

    deals = [f"deal {i}" for i in range(layouts)]
    least = {2: [float("inf")] * layouts, 3: [float("inf")] * layouts}
    last = None
    for _ in range(3):                                  # --repeat 3
        last = bench_dds.dds_round(deals, least, "spare", last, solve=solve)
    assert all(a != b for a, b in zip(calls, calls[1:])), calls
    assert calls.count("spare") == (5 if layouts == 1 else 0)
    assert sorted(c for c in calls if c != "spare") == sorted(deals * 6)
    assert least[2][0] == 0.001                         # each deal's least time: its first call's


def test_bench_prsi_times_a_horizon_asked_for_once(tmp_path: Path) -> None:
    # three and four players add the target's horizon 12: asked for as well, its row came twice
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench_prsi.py"), "--deals", "1", "--seats", "3",
                          "--horizons", "12,20", "--reach", "0"], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-1500:]
    rows = [line.split("|")[1:3] for line in out.stdout.splitlines() if line.startswith("| 3, fresh |")]
    assert [horizon.strip() for _, horizon in rows] == ["12", "20"]
    assert out.stdout.count("- target: 3 players, fresh deal, horizon 12:") == 1


def test_bench_prsi_long_sets_shorter_horizons_first_beside_the_whole_horizon_alone(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench_prsi.py"), "--long", "--deals", "2",
                          "--horizons", "22", "--timeout", "20"], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-1500:]
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.stdout.splitlines()
            if line.startswith("| ") and "corpus" not in line]
    # every corpus in both modes; the fresh four-player deals' ends are all forced within 22 plies
    names = ("fresh-2", "fresh-3", "fresh-4", "midgame", "mixed")
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [(name, "22", mode, "2") for name in names
                                                        for mode in ("optimal", "all")]
    assert all(r[9] == "0 / 0" for r in rows) and ("fresh-4", "all", "2") in [(r[0], r[2], r[4]) for r in rows]


@pytest.mark.parametrize(("longest", "found"), [(11, 10), (19, 18), (20, 20), (27, 26), (1, 0), (300, 250)])
def test_bench_prsi_reach_is_the_longest_horizon_that_finishes(longest: int, found: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # a deal whose 20 plies did not finish in the budget was reported as reaching horizon 0
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_prsi
    from ddcards.errors import SearchTimeout

    class Solver:                        # a search finishes in the budget up to `longest` plies
        def clear(self) -> None:
            pass

        def value(self, doc: dict, timeout: float) -> int:
            if doc["options"]["horizon"] > longest:
                raise SearchTimeout("past the budget")
            return 0

    monkeypatch.setattr(bench_prsi.ddcards, "Solver", Solver)
    doc = {"game": "prsi", "options": {"play_on": True}}
    assert bench_prsi.reach(doc, 1.0, 20) == found


def test_bench_report_times_the_board_on_deals_its_kept_table_has_not_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    # The board keeps its table between searches; the warm-up solved the first timed deal, whose
    # search then took microseconds (0.06 ms against 2.5-5 ms for the next deals)
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_report

    sent: list[str] = []
    real = bench_report.post

    def post(url: str, body: dict) -> dict:
        if url.endswith("/api/solve"):
            sent.append(json.dumps(body["position"], sort_keys=True))
        return real(url, body)

    monkeypatch.setattr(bench_report, "post", post)
    deals = {game: bench_report.recorded_deals(game, 2) for game in bench_report.CORPORA}
    rows = bench_report.bench_board(deals)
    warm, timed = sent[0], sent[1:]
    assert len(timed) == 4 == len(set(timed)) and len(rows) == 4
    assert json.loads(warm)["hands"] not in [json.loads(doc)["hands"] for doc in timed]


def _machine_before_the_work(module: object, monkeypatch: pytest.MonkeyPatch, *work: str) -> list[str]:
    """Patch `module`'s machine_line to say whether any of its functions named in `work` ran before
    it was read, and those functions to note that they ran (each then calls the real one)."""
    ran: list[str] = []
    for name in work:
        real = getattr(module, name)

        def noted(*args: object, _real: object = real, _name: str = name, **kwargs: object) -> object:
            ran.append(_name)
            return _real(*args, **kwargs)         # type: ignore[operator]
        monkeypatch.setattr(module, name, noted)
    monkeypatch.setattr(module, "machine_line", lambda: "Machine: after the work" if ran else "Machine: before it")
    return ran


def test_bench_dds_reads_the_machine_before_its_rounds(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # It printed the machine line after every round: its load average counted the run's own core
    # (the RESULTS command works for a minute and more).
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_dds

    ran = _machine_before_the_work(bench_dds, monkeypatch, "dds_round")
    monkeypatch.setattr(sys, "argv", ["bench_dds.py", "--deals", "2", "--seed", "1"])
    bench_dds.main()
    assert ran == ["dds_round"]
    assert capsys.readouterr().out.startswith("Machine: before it; DDS via endplay (one thread). Command: python "
                                              "benchmarks/bench_dds.py --deals 2 --seed 1 --threads 1\n")


def test_bench_ctrl_c_reads_the_machine_before_its_rounds(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_ctrl_c

    ran = _machine_before_the_work(bench_ctrl_c, monkeypatch, "median_call_us")
    monkeypatch.setattr(sys, "argv", ["bench_ctrl_c.py", "--calls", "3", "--rounds", "1"])
    bench_ctrl_c.main()
    assert ran == ["median_call_us"] * 2
    assert capsys.readouterr().out.startswith("Machine: before it. Command: ")


@pytest.mark.parametrize(("flag", "phase", "heading"), [
    ("--stream-only", "bench_stream", "## Many positions: one SolveStream against separate Solve calls"),
    ("--load-only", "bench_load", "## Load: 16 clients against the default server")])
def test_bench_server_sections_read_the_machine_before_their_phase(flag: str, phase: str, heading: str,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    # Each section's machine line was read as the section was written, after its phase: the load
    # phase's "load average says how busy it was when the run began" counted its own 16 clients.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_server

    runs = {"bench_stream": {"positions": 1, "rounds": 1, "calls": [0.002], "streams": [0.001], "search": 0.0005},
            "bench_load": {"clients": 16, "idle": 0, "calls": 10, "ok_share": 1.0, "codes": {"OK": 10},
                           "ok_per_s": 5.0, "p50": 0.01, "p99": 0.02}}
    monkeypatch.setattr(bench_server, phase, lambda *args, **kwargs: dict(runs[phase], idle=kwargs.get("idle", 0))
                        if phase == "bench_load" else runs[phase])
    ran = _machine_before_the_work(bench_server, monkeypatch, phase)
    out = tmp_path / "results.md"
    assert bench_server.main([flag, "--out", str(out), "--load-deals", "2"]) == 0
    assert ran
    section = out.read_text()
    assert section.lstrip().startswith(heading) and "Machine: before it" in section and "after the work" not in section


def test_targets_passes_each_row_on_as_its_command_prints_it(tmp_path: Path) -> None:
    # Run through a pipe (targets.py | tee), a command's rows were block-buffered: none showed until it
    # ended. The stand-in command prints a row, then waits (10 s at most) for this test to have read it.
    flag = tmp_path / "row seen"
    (tmp_path / "slow.py").write_text(
        "import pathlib, sys, time\n"
        "print('| row 1 |')\n"
        "flag = pathlib.Path(sys.argv[1])\n"
        "for _ in range(200):\n"
        "    if flag.exists():\n"
        "        break\n"
        "    time.sleep(0.05)\n"
        "print('row read while the command ran' if flag.exists() else 'row not read before the end')\n")
    code = (f"import pathlib, sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import targets; "
            f"targets.HERE = pathlib.Path({str(tmp_path)!r}); "
            f"targets.TARGETS = (targets.Target(0, 'a slow command', 'slow.py', ({str(flag)!r},), 'its row'),); "
            "sys.exit(targets.main([]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}      # as a plain shell has it
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("| row 1 |"):
            flag.touch()
    assert proc.wait(timeout=60) == 0, lines
    assert "row read while the command ran\n" in lines, lines


def test_bench_mariasz_fresh_stops_at_a_failed_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # A deal's worker that failed (its 1 GiB table refused, say) left empty output: a JSONDecodeError
    # traceback, and the deal running beside it went on for minutes without a reader.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_mariasz

    started: list["Worker"] = []

    class Worker:
        def __init__(self, args: list[str], **_: object) -> None:
            self.args, self.killed, self.returncode = args, False, None
            started.append(self)

        def poll(self) -> int | None:
            if self.args[3] == "1":            # the second deal fails at once; the first runs on
                self.returncode = 1
            return self.returncode

        def kill(self) -> None:
            self.killed = True

        def wait(self) -> int:
            return -9

    monkeypatch.setattr(subprocess, "Popen", Worker)
    monkeypatch.setattr(bench_mariasz.time, "sleep", lambda seconds: None)
    with pytest.raises(SystemExit, match=r"^bench_mariasz.py fresh: deal 2 failed \(exit status 1\); the deals "
                                         r"running beside it were stopped$"):
        bench_mariasz.fresh(["--deals", "2", "--jobs", "2"])
    assert [w.args[3] for w in started] == ["0", "1"] and started[0].killed and not started[1].killed


def test_bench_mariasz_builds_names_a_worker_that_stopped(tmp_path: Path) -> None:
    # A build whose package fails to import: a BrokenPipeError traceback from writing to its worker.
    (tmp_path / "ddcards").mkdir()
    (tmp_path / "ddcards" / "__init__.py").write_text("raise RuntimeError('a broken build')\n")
    out = subprocess.run([sys.executable, str(BENCHMARKS / "bench_mariasz.py"), "builds", ".", str(tmp_path), "16",
                          "phase2:1"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 1, out.stderr[-1500:]
    assert out.stderr.rstrip().endswith(f"bench_mariasz.py builds: the worker of {tmp_path} stopped (its error is "
                                        "above)"), out.stderr[-1500:]
    assert "RuntimeError: a broken build" in out.stderr and out.stderr.count("Traceback") == 1
