"""Types: a user program type-checks under ``mypy --strict`` against the package, its
modules are strict-clean themselves, and the ``.pyi`` stubs of the
Cython modules say what the compiled modules hold.

mypy cannot follow the import hook of an editable install (``solver/`` is mapped onto
``ddcards``), so the tests lay the package out as a wheel installs it, by links into the
checkout, and point mypy at that.
"""
from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "api_example.py"
# The source folders and the packages they become (setup.py's PACKAGE_DIR).
PACKAGE_DIRS = {"ddcards": REPO / "solver", "ddcards/server": REPO / "server",
                "ddcards/v1": REPO / "proto" / "ddcards" / "v1"}


def python_modules() -> list[str]:
    """Every Python module of the package (solver/ and server/), by name."""
    names = []
    for package, folder in (("ddcards", REPO / "solver"), ("ddcards.server", REPO / "server")):
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            names.append(".".join((package,) + (parts[:-1] if parts[-1] == "__init__" else parts)))
    return sorted(names)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``ddcards`` as a wheel lays it out, made of links to the checkout."""
    root = tmp_path_factory.mktemp("site")
    top = root / "ddcards"
    top.mkdir()
    for entry in PACKAGE_DIRS["ddcards"].iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, source in PACKAGE_DIRS.items():
        if name != "ddcards":
            (root / name).symlink_to(source)
    return root


def mypy_config(installed: Path, tmp_path: Path, *, strict_modules: list[str] | None = None) -> Path:
    """--strict, with the package's own errors silenced as for an installed package
    (its types are still used) except in `strict_modules`."""
    strict_modules = strict_modules or []
    lines = ["[mypy]", "strict = True", f"mypy_path = {installed}", f"cache_dir = {installed.parent / 'mypy-cache'}"]
    for module in ["ddcards.*", "ddcards", *strict_modules]:
        if module not in strict_modules:
            lines += [f"[mypy-{module}]", "ignore_errors = True"]
    for module in strict_modules:
        lines += [f"[mypy-{module}]", "ignore_errors = False"]
    path = tmp_path / "mypy.ini"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_the_example_program_passes_mypy_strict(installed: Path, tmp_path: Path) -> None:
    out = run_mypy("--config-file", str(mypy_config(installed, tmp_path)), str(EXAMPLE), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found in 1 source file" in out.stdout


WRONG = '''\
import ddcards
from ddcards.client import Client

res = ddcards.solve(ddcards.example("marias-hra"))
a: str = res.value
b = ddcards.Position.from_dict({}).legal_moves()
ddcards.CancelToken().cancel(1)
c: int = ddcards.Position.from_dict({}).score.points
d: str = ddcards.analyse({}).steps[0].ply
with Client("x") as client:
    e = client.solve({}, as_dict=False)["value"]
f: int = ddcards.Solver().solve({}).mode
g: str = ddcards.Position.from_dict({}).trick[0].card
h: ddcards.ValueKind = "margin"
'''


def test_mypy_sees_the_real_types(installed: Path, tmp_path: Path) -> None:
    # The control: were the package's types Any, a wrong program would pass too.
    program = tmp_path / "wrong.py"
    program.write_text(WRONG)
    out = run_mypy("--config-file", str(mypy_config(installed, tmp_path)), str(program), cwd=tmp_path)
    assert out.returncode == 1
    for line, message in [
        (5, 'expression has type "int", variable has type "str"'),
        (6, '"tuple[str, ...]" not callable'),
        (7, 'Too many arguments for "cancel" of "CancelToken"'),
        (8, 'expression has type "dict[str, int]", variable has type "int"'),
        (9, 'expression has type "int", variable has type "str"'),
        (11, 'Value of type "SolveResponse" is not indexable'),
        (12, 'expression has type "Mode", variable has type "int"'),
        (13, 'expression has type "Card", variable has type "str"'),
        (14, 'expression has type "Literal[\'margin\']", variable has type "Literal[\'points\', \'outcome\', \'money\']"'),
    ]:
        reported = [text for text in out.stdout.splitlines() if text.startswith(f"wrong.py:{line}: error:")]
        assert len(reported) == 1 and message in reported[0], out.stdout
    assert "Found 9 errors in 1 file" in out.stdout


STUB_PROGRAM = '''\
from collections.abc import Iterator

import grpc

from ddcards.v1 import ddcards_pb2, ddcards_pb2_grpc

stub = ddcards_pb2_grpc.SolverServiceStub(grpc.insecure_channel("localhost:50051"))
request = ddcards_pb2.SolveRequest(mode=ddcards_pb2.SOLVE_MODE_BEST)
response: ddcards_pb2.SolveResponse = stub.Solve(request, timeout=5)
games: ddcards_pb2.ListGamesResponse = stub.ListGames(ddcards_pb2.ListGamesRequest())
items: Iterator[ddcards_pb2.SolveStreamResponse] = stub.SolveStream(iter([ddcards_pb2.SolveStreamRequest()]))


class Servicer(ddcards_pb2_grpc.SolverServiceServicer):
    def ListGames(self, request: ddcards_pb2.ListGamesRequest,
                  context: grpc.ServicerContext) -> ddcards_pb2.ListGamesResponse:
        return ddcards_pb2.ListGamesResponse()


ddcards_pb2_grpc.add_SolverServiceServicer_to_server(Servicer(), grpc.server(None))  # type: ignore[arg-type]
'''


CLIENT_PROGRAM = '''\
from collections.abc import Iterator
from typing import Any

import grpc

import ddcards
from ddcards.client import Client
from ddcards.v1 import ddcards_pb2

# README, "The service", as written: the result document is indexed as it is
with Client("127.0.0.1:50051") as client:
    result = client.solve(ddcards.example("marias-hra"), mode="all")   # the result document
    print(result["value"], result["optimal_moves"])
    analysis: dict[str, Any] = client.analyse(ddcards.example("marias-seed"), from_ply=24)
    table: dict[str, Any] = client.solve_table(ddcards.example("klaverjas"))
    games: list[dict[str, Any]] = client.list_games()
    items: Iterator[dict[str, Any]] = client.solve_many([ddcards.example("marias-hra")])
    message: ddcards_pb2.SolveResponse = client.solve(ddcards.example("marias-hra"), as_dict=False)
    analysed: ddcards_pb2.AnalysePlayResponse = client.analyse({}, as_dict=False)
    table_message: ddcards_pb2.SolveTableResponse = client.solve_table({}, as_dict=False)
    listed: ddcards_pb2.ListGamesResponse = client.list_games(as_dict=False)
    streamed: Iterator[ddcards_pb2.SolveStreamResponse] = client.solve_many([{}], as_dict=False)
    future: grpc.Future[ddcards_pb2.SolveResponse] = client.solve_future({})
    either: dict[str, Any] | ddcards_pb2.SolveResponse = client.solve({}, as_dict=bool(len(games)))
'''


def mypy_good_then_wrong(installed: Path, tmp_path: Path, good: str, wrong: str) -> str:
    """mypy --strict passes the program `good` and fails `wrong`: what it said of `wrong`."""
    config = str(mypy_config(installed, tmp_path))
    for name, text, status in (("program.py", good, 0), ("wrong_program.py", wrong, 1)):
        (tmp_path / name).write_text(text)
        out = run_mypy("--config-file", config, str(tmp_path / name), cwd=tmp_path)
        assert out.returncode == status, name + ": " + out.stdout + out.stderr
    return out.stdout


def test_the_client_is_typed_by_as_dict(installed: Path, tmp_path: Path) -> None:
    """The client's answers are typed by ``as_dict``: the README's ``result["value"]`` passes
    --strict as written, and a message read as a dict is caught."""
    found = mypy_good_then_wrong(installed, tmp_path, CLIENT_PROGRAM,
                                 CLIENT_PROGRAM.replace('print(result["value"]', 'print(result.value')
                                 .replace("= client.list_games()", "= client.list_games(as_dict=False)"))
    assert 'error: "dict[str, Any]" has no attribute "value"' in found, found
    assert 'expression has type "ListGamesResponse", variable has type "list[dict[str, Any]]"' in found, found
    assert "Found 2 errors in 1 file" in found, found


def test_the_clients_annotations_resolve_at_run_time() -> None:
    import typing

    import grpc

    from ddcards.client import Client
    from ddcards.v1 import ddcards_pb2 as pb

    assert typing.get_type_hints(Client.solve_future)["return"] is grpc.Future
    assert typing.get_type_hints(Client.solve)["return"] == dict[str, typing.Any] | pb.SolveResponse
    for name in ("__init__", "solve", "solve_future", "analyse", "solve_many", "solve_table", "list_games",
                 "solve_request", "close"):
        typing.get_type_hints(getattr(Client, name))


TABLE_AND_BENCH = '''\
import ddcards
from ddcards.bench import run_bench
from ddcards.ddtable import dd_table

dd_table(ddcards.example("klaverjas"), solver=ddcards.Solver(), cancel=ddcards.CancelToken(), timeout=5.0)
run_bench(ddcards.Solver(tt_mb=8), groups=["marias"])
dd_table(ddcards.example("klaverjas"), solver=5)
dd_table(ddcards.example("klaverjas"), cancel="x")
run_bench(solver="x")
'''


def test_dd_table_and_run_bench_type_their_solver_and_token(installed: Path, tmp_path: Path) -> None:
    """dd_table's ``solver`` and ``cancel`` and run_bench's ``solver`` are a Solver and a
    CancelToken (or None) to a type checker too, not Any: a wrong one is caught."""
    import typing

    import ddcards
    from ddcards.bench import run_bench
    from ddcards.ddtable import dd_table

    hints = typing.get_type_hints(dd_table)
    assert hints["solver"] == ddcards.Solver | None and hints["cancel"] == ddcards.CancelToken | None
    assert typing.get_type_hints(run_bench)["solver"] == ddcards.Solver | None
    program = tmp_path / "table_and_bench.py"
    program.write_text(TABLE_AND_BENCH)
    out = run_mypy("--config-file", str(mypy_config(installed, tmp_path)), str(program), cwd=tmp_path)
    assert out.returncode == 1
    for line, message in [(7, 'Argument "solver" to "dd_table" has incompatible type "int"; expected "Solver | None"'),
                          (8, 'Argument "cancel" to "dd_table" has incompatible type "str"; expected "CancelToken | None"'),
                          (9, 'Argument "solver" to "run_bench" has incompatible type "str"; expected "Solver | None"')]:
        reported = [text for text in out.stdout.splitlines() if text.startswith(f"table_and_bench.py:{line}: error:")]
        assert len(reported) == 1 and message in reported[0], out.stdout
    assert "Found 3 errors in 1 file" in out.stdout, out.stdout


def test_the_generated_grpc_module_is_typed(installed: Path, tmp_path: Path) -> None:
    """protoc types the messages only; the build's ddcards_pb2_grpc.pyi types the stub, the
    servicer and their methods (tools/grpc_pyi.py): a typed client passes --strict, and a
    wrong request or response type is caught."""
    found = mypy_good_then_wrong(installed, tmp_path, STUB_PROGRAM,
                                 STUB_PROGRAM.replace("stub.Solve(request, timeout=5)",
                                                      "stub.Solve(ddcards_pb2.ListGamesRequest())")
                                 .replace("games: ddcards_pb2.ListGamesResponse", "games: ddcards_pb2.SolveResponse"))
    assert 'Argument 1 to "__call__" of "UnaryUnaryMultiCallable" has incompatible type "ListGamesRequest"' in found, found
    assert 'expression has type "ListGamesResponse", variable has type "SolveResponse"' in found, found


def test_the_package_passes_mypy_strict(installed: Path, tmp_path: Path) -> None:
    modules = python_modules()
    assert {"ddcards", "ddcards.api", "ddcards.client", "ddcards.games.mariasz", "ddcards.games.prsi", "ddcards.cli",
            "ddcards.server.service"} <= set(modules)
    config = mypy_config(installed, tmp_path, strict_modules=modules)
    out = run_mypy("--config-file", str(config), "-p", "ddcards", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def cython_modules() -> list[str]:
    """Every compiled module of the package, by name (from its .pyx source)."""
    return sorted("ddcards." + ".".join(p.relative_to(REPO / "solver").with_suffix("").parts)
                  for p in (REPO / "solver").rglob("*.pyx"))


def test_every_cython_module_has_a_stub() -> None:
    modules = cython_modules()
    assert {"ddcards._core.search", "ddcards.games._marias", "ddcards.games._klaverjas"} <= set(modules)
    for module in modules:
        stub = REPO / "solver" / Path(*module.split(".")[1:]).with_suffix(".pyi")
        assert stub.is_file(), f"{module} has no stub {stub.relative_to(REPO)}"
        assert (REPO / "solver" / "py.typed").is_file()


def test_the_stubs_match_the_compiled_modules(installed: Path, tmp_path: Path) -> None:
    # stubtest imports each compiled module and compares it, name by name and signature by
    # signature, with its stub; tests/stubtest_allowlist.txt lists what Cython does not show.
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", *cython_modules(), "--concise",
         "--mypy-config-file", str(mypy_config(installed, tmp_path)),
         "--allowlist", str(REPO / "tests" / "stubtest_allowlist.txt")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, MYPYPATH=str(installed)))
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_example_program_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from _server_helpers import running_server

    namespace = runpy.run_path(str(EXAMPLE), run_name="api_example")
    with running_server(workers=1) as server:
        assert namespace["main"](["--server", f"127.0.0.1:{server.port}"]) == 0
    out = capsys.readouterr().out
    assert "value +70 (points, the declarer's view); optimal: AS TS AH AD TD" in out
    assert "  ply 24: seat 0 played AH (+70 -> +50, cost 20); best 9H" in out
    assert "klaveren is C (♣); boer is J" in out
    assert "server: value +70" in out and "server: INVALID_ARGUMENT: played[1] '7H' by seat 1: must beat QH" in out
