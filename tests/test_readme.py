"""Every ```python block of the README and of docs/*.md runs as a test (docs/SERVICE.md's
blocks are run by the service's tests).

A block with ``>>>`` prompts is a doctest: its outputs must match.  Any other block runs
as a program.  Each block runs on its own, in a fresh namespace, as a reader would paste it;
a block that talks to the service gets a server started for it, and its address
(``127.0.0.1:50051`` in the text) is replaced by the test server's.
"""
from __future__ import annotations

import doctest
import re
import runpy
from pathlib import Path

import pytest

from _server_helpers import running_server  # tests/ is on sys.path (rootdir insertion)

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md"] + sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "SERVICE.md")
SERVICE_ADDRESS = "127.0.0.1:50051"
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def python_blocks() -> list[tuple[str, int, str]]:
    """(document, line, code) for every ```python block."""
    blocks = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            blocks.append((path.relative_to(REPO).as_posix(), line, match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_the_readme_shows_the_api_in_python():
    readme = [code for doc, _, code in BLOCKS if doc == "README.md"]
    assert len(readme) >= 5
    assert any("Client(" in code for code in readme)
    assert any(">>> print(pos)" in code for code in readme)


def run_block(name: str, code: str) -> None:
    if re.search(r"^>>> ", code, re.M):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(code, {"__name__": "__readme__"}, name, name, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        failures = []
        runner.run(test, out=failures.append)
        assert runner.failures == 0 and test.examples, "".join(failures)
    else:
        exec(compile(code, name, "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("document, line, code", BLOCKS, ids=[f"{d}:{n}" for d, n, _ in BLOCKS])
def test_python_block_runs(document: str, line: int, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    name = f"{document}, line {line}"
    if SERVICE_ADDRESS in code:
        with running_server(workers=1) as server:
            run_block(name, code.replace(SERVICE_ADDRESS, f"127.0.0.1:{server.port}"))
    else:
        run_block(name, code)
    capsys.readouterr()


def test_the_client_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # README: "examples/client_example.py is a small program using the client".
    namespace = runpy.run_path(str(REPO / "examples" / "client_example.py"), run_name="client_example")
    with running_server(workers=1) as server:
        assert namespace["main"](["--target", f"127.0.0.1:{server.port}"]) == 0
    out = capsys.readouterr().out
    assert "game marias: contracts hra, betl, durch" in out
    assert "[all] value 70 scores {'declarer': 80, 'defenders': 10}" in out
    assert "ply 5 seat 2 7H: 70 -> 70" in out
    assert "streamed ply 3: 70\nstreamed analysis: final value 70" in out
    assert "stream item 2: INVALID_ARGUMENT: unknown rank 'Z'" in out
    assert "contract table: 5 rows; best hra H: value 70, money 4" in out     # as dd_table of the deal
    assert "bad request -> INVALID_ARGUMENT: played[1] 'QH' by seat 1: must follow suit S" in out
