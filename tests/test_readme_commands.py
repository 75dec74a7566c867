"""The README's commands, documents and shown outputs, checked so that they cannot drift
(its ```python blocks run in test_readme.py; docs/SERVICE.md's snippets in test_grpc_docs.py).

* Every ``ddcards ...`` line of a ```sh block in the README and docs/*.md parses with the
  command line's own parser, and every ``python some/file.py`` line names a file that exists.
* Every ```json position document of the README is read and solved; its value is that of its
  best move played (the answer agrees with itself).
* The readable solve, the error line and the JSON error record the README shows are what the
  command prints today (but the line of search figures, which vary with the machine).
* The README's grpcurl call answers as a Solve of the same position does.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import ddcards
from _server_helpers import running_server
from ddcards.cli import build_parser
from ddcards.server.main import build_parser as build_server_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCUMENTS = {"README.md": README} | {f"docs/{p.name}": p.read_text(encoding="utf-8")
                                      for p in sorted((ROOT / "docs").glob("*.md"))}
SHELL_STOPS = {"<", ">", ">>", "|", "&", "&&", ";", "2>", "2>&1"}
GRPCURL_BINARY = Path(sys.executable).parent / "grpcurl"


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}[ \t]*\n(.*?)^```[ \t]*$", text, flags=re.S | re.M)


def shell_lines() -> list[tuple[str, str]]:
    """(document, command) for every command line of a ```sh block: continuations and quotes
    over several lines joined, heredoc bodies and the output shown under a ``$`` prompt left out,
    comments and the prompt taken off."""
    found = []
    for name, text in DOCUMENTS.items():
        for block in blocks(text, "sh"):
            lines = re.sub(r"\\\n\s*", " ", block).splitlines()
            prompted = any(line.startswith("$ ") for line in lines)
            i = 0
            while i < len(lines):
                line = lines[i].strip()
                i += 1
                if prompted and not line.startswith("$ "):
                    continue            # an output line shown under a command
                line = line.removeprefix("$ ")
                while True:             # a quoted argument over several lines
                    try:
                        words = shlex.split(line, comments=True)
                        break
                    except ValueError:
                        line += "\n" + lines[i]
                        i += 1
                heredoc = re.search(r"<<-?'?(\w+)'?", line)
                if heredoc:
                    while i < len(lines) and lines[i].strip() != heredoc.group(1):
                        i += 1
                    i += 1
                if words:
                    found.append((name, line))
    return found


def ddcards_commands(line: str) -> list[list[str]]:
    """The arguments of each ``ddcards ...`` command of a line (split at ``&&``, ``|``, ``;``
    and the like; a redirection ends a command), ``serve`` first for the service's own."""
    found, words = [], []
    for word in shlex.split(line, comments=True) + [";"]:
        if word not in SHELL_STOPS:
            words.append(word)
            continue
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]               # VARIABLE=value before the command
        program = words[:1]
        if program and Path(program[0]).name == "ddcards":
            found.append(words[1:])
        elif program and Path(program[0]).name.startswith("python") and words[1:3] == ["-m", "ddcards"]:
            found.append(words[3:])
        elif program and Path(program[0]).name.startswith("python") and words[1:3] == ["-m", "ddcards.server"]:
            found.append(["serve", *words[3:]])
        words = []
        if word in ("<", ">", ">>", "2>"):
            break                           # the rest names files
    return found


COMMANDS = [(doc, line, argv) for doc, line in shell_lines() for argv in ddcards_commands(line)]
SCRIPT = re.compile(r"^(?:\S+=\S+\s+)*(?:\.venv/bin/)?python3?\s+((?:benchmarks|examples|fuzz|tools|tests)/\S+\.py)")
SCRIPTS = [(doc, line, m.group(1)) for doc, line in shell_lines() if (m := SCRIPT.match(line))]


def test_the_documents_show_commands():
    assert len(COMMANDS) >= 25 and len(SCRIPTS) >= 15
    assert {argv[0] for _, _, argv in COMMANDS if argv} >= {"solve", "analyse", "batch", "report", "table", "games",
                                                            "serve"}
    # the README's first command, after its install steps
    assert ["solve", "--example"] in [argv for doc, _, argv in COMMANDS if doc == "README.md"]


@pytest.mark.parametrize("document, line, argv", COMMANDS, ids=[f"{d}: {line[:60]}" for d, line, _ in COMMANDS])
def test_each_ddcards_command_shown_parses(document, line, argv, capsys):
    try:
        if argv[:1] == ["serve"]:       # handed whole to the service's own parser
            build_server_parser().parse_args(argv[1:])
        else:
            build_parser().parse_args(argv)
    except SystemExit as stop:          # argparse's exit: --help (0) or a usage error (2)
        assert stop.code == 0, f"{document}: `{line}`: {capsys.readouterr().err}"


@pytest.mark.parametrize("document, line, path", SCRIPTS, ids=[f"{d}: {p}" for d, _, p in SCRIPTS])
def test_each_script_shown_exists(document, line, path):
    assert (ROOT / path).is_file(), f"{document}: `{line}` names {path}, which is not in the repository"


POSITIONS = [json.loads(body) for body in blocks(README, "json")]


def test_the_readme_shows_a_document_of_each_game():
    assert sorted(doc["game"] for doc in POSITIONS) == ["klaverjas", "marias", "mariasz", "prsi"]


@pytest.mark.parametrize("doc", POSITIONS, ids=[doc["game"] for doc in POSITIONS])
def test_each_position_document_shown_is_read_and_solved(doc):
    position = ddcards.Position.from_dict(doc)
    assert position.to_dict()["game"] == doc["game"]
    result = ddcards.solve(doc, mode="all", timeout=60)
    best = result.optimal_moves[0]
    assert {m.move for m in result.moves if m.value == result.value} == set(result.optimal_moves)
    after = ddcards.solve(dict(doc, played=[*position.to_dict().get("played", []), best]), mode="best", timeout=60)
    assert after.value == result.value


def shown_block(after: str) -> str:
    """The first unlabelled ``` block after the text `after` in the README."""
    start = README.index(after)
    match = re.search(r"^```[ \t]*\n(.*?)^```[ \t]*$", README[start:], flags=re.S | re.M)
    assert match, after
    return match.group(1)


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ddcards", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def test_what_a_solve_prints_is_what_the_readme_shows():
    shown = shown_block("What a solve prints:").splitlines()
    out = run_cli("solve", "--example", "--no-progress")
    assert out.returncode == 0, out.stderr
    printed = out.stdout.splitlines()
    assert [line for line in printed if not line.startswith("Searched")] == \
        [line for line in shown if not line.startswith("Searched")]
    assert any(line.startswith("Searched ") and " nodes in " in line for line in printed)


def bad_talon_doc() -> dict:
    """The README's bad.json: the Hra example with forehand's AS discarded to the talon."""
    doc = ddcards.example("marias-hra")
    hands = list(doc["hands"])
    assert hands[0].startswith("AT.") and doc["talon"] == "9C KC"
    hands[0] = "T" + hands[0][2:] + "9"         # AS out, 9C in
    return dict(doc, hands=hands, talon="AS KC")


def test_the_error_line_and_the_error_record_are_what_the_readme_shows(tmp_path):
    shown_line = shown_block("a message that names the offending token").splitlines()
    assert shown_line[0] == "$ ddcards solve bad.json"
    (tmp_path / "bad.json").write_text(json.dumps(bad_talon_doc()))
    out = run_cli("solve", str(tmp_path / "bad.json"))
    assert out.returncode == 2 and out.stderr.splitlines() == [shown_line[1]]

    shown_record = json.loads(shown_block("gets an error record and the rest go on:"))
    lines = json.dumps(ddcards.example("marias-hra")) + "\n" + json.dumps(bad_talon_doc()) + "\n"
    out = run_cli("solve", "-", "--json", "--no-progress", stdin=lines)
    assert out.returncode == 2
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert records[0]["line"] == 1 and records[0]["value"] == 70
    assert records[1] == shown_record


def test_the_readme_grpcurl_call_answers_as_solve_does():
    (block,) = [b for b in blocks(README, "sh") if "grpcurl" in b]
    argv = shlex.split(re.sub(r"\\\n\s*", " ", block))
    assert argv[0] == "grpcurl" and "127.0.0.1:50051" in argv
    with running_server(workers=1) as server:
        argv = [str(GRPCURL_BINARY), *(a.replace("127.0.0.1:50051", f"127.0.0.1:{server.port}") for a in argv[1:])]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    request = json.loads(argv[argv.index("-d") + 1])["position"]
    doc = {"game": "marias", "contract": "hra", "trump": "H", "hands": [h["notation"] for h in request["hands"]],
           "talon": request["talon"]["notation"]}
    assert answer["value"] == ddcards.solve(doc, mode="best").value == 70
