"""The package as a user installs it: one top-level name, the proto and the stubs inside,
complete metadata.  Builds a wheel of this checkout (only the small CPU probe compiled, so it
takes seconds; the kernels' instructions are checked in test_kernels.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import ddcards

ROOT = Path(__file__).resolve().parents[1]


def _build(tmp_path_factory: pytest.TempPathFactory, kind: str) -> Path:
    """`python -m build --KIND` of a copy of the sources as a clean checkout has them (no build
    folder, no generated files); the file it made."""
    out = tmp_path_factory.mktemp(kind)
    source = tmp_path_factory.mktemp(f"{kind}-source") / "ddcards"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.c", "*_pb2*", "*.binpb",
        ".hypothesis", ".pytest_cache", ".mypy_cache", ".benchmarks"))
    env = dict(os.environ, DDCARDS_ONLY="_cpuid", DDCARDS_PGO="0")
    build = subprocess.run([sys.executable, "-m", "build", f"--{kind}", "--no-isolation", "--outdir", str(out), str(source)],
                           capture_output=True, text=True, env=env, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (path,) = out.glob("ddcards-*.whl" if kind == "wheel" else "ddcards-*.tar.gz")
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    return zipfile.ZipFile(_build(tmp_path_factory, "wheel"))


def test_ddcards_is_the_only_top_level_name(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert tops == {"ddcards", f"ddcards-{ddcards.__version__}.dist-info"}


def test_the_wheel_holds_the_proto_its_stubs_and_the_descriptor_with_comments(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for name in ("ddcards/v1/ddcards.proto", "ddcards/v1/ddcards_pb2.py", "ddcards/v1/ddcards_pb2_grpc.py",
                 "ddcards/v1/ddcards_pb2.pyi", "ddcards/v1/ddcards_pb2_grpc.pyi", "ddcards/v1/ddcards.binpb", "ddcards/server/main.py",
                 "ddcards/client.py", "ddcards/py.typed", "ddcards/examples/marias-hra.json",
                 "ddcards/bench/__init__.py", "ddcards/bench/positions.jsonl"):
        assert name in names, name
    assert wheel.read("ddcards/v1/ddcards.proto") == (ROOT / "proto/ddcards/v1/ddcards.proto").read_bytes()
    from google.protobuf import descriptor_pb2

    descriptors = descriptor_pb2.FileDescriptorSet.FromString(wheel.read("ddcards/v1/ddcards.binpb"))
    (ours,) = [f for f in descriptors.file if f.package == "ddcards.v1"]
    assert ours.name == "ddcards/v1/ddcards.proto"
    assert ours.source_code_info.location, "the descriptor set carries the .proto's comments"
    generated = wheel.read("ddcards/v1/ddcards_pb2_grpc.py").decode()
    assert "from ddcards.v1 import ddcards_pb2" in generated
    assert "class SolverServiceStub:" in wheel.read("ddcards/v1/ddcards_pb2_grpc.pyi").decode()
    # Sources, build leftovers and the build's own tools stay out of the wheel.
    assert not [n for n in names if n.endswith((".pyx", ".pxd", ".c", ".h"))]
    assert not [n for n in names if "profile_workload" in n or n.startswith("tools/")]


def test_the_compiled_modules_carry_no_debug_info(wheel: zipfile.ZipFile) -> None:
    # -g0: DWARF took four fifths of a module's size; the symbols a profiler names stay.
    modules = [n for n in wheel.namelist() if n.endswith(".so")]
    assert modules
    for name in modules:
        data = wheel.read(name)
        assert b".debug_info" not in data, name
        assert b"PyInit__cpuid" in data, name


def test_the_metadata_is_complete(wheel: zipfile.ZipFile) -> None:
    meta_name = f"ddcards-{ddcards.__version__}.dist-info/METADATA"
    meta = Parser().parsestr(wheel.read(meta_name).decode())
    assert meta["Name"] == "ddcards"
    assert meta["Version"] == ddcards.__version__
    assert meta["License-Expression"] == "MIT"
    assert f"ddcards-{ddcards.__version__}.dist-info/licenses/LICENSE" in wheel.namelist()
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in meta.get_all("Classifier"))
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Issues", "Rules"} <= set(urls)
    assert "grpcio-status" in " ".join(meta.get_all("Requires-Dist"))
    entry_points = wheel.read(f"ddcards-{ddcards.__version__}.dist-info/entry_points.txt").decode()
    assert "ddcards = ddcards.cli:main" in entry_points


def test_the_long_description_links_into_the_repository(wheel: zipfile.ZipFile) -> None:
    """A package index resolves no relative link: the README's point into the repository."""
    meta = Parser().parsestr(wheel.read(f"ddcards-{ddcards.__version__}.dist-info/METADATA").decode())
    body = meta.get_payload()
    assert meta["Description-Content-Type"] == "text/markdown"
    assert body.startswith("# ddcards")
    assert "[docs/RULES.md](https://github.com/ddcards/ddcards/blob/main/docs/RULES.md)" in body
    assert "](https://github.com/ddcards/ddcards/raw/main/docs/board.png)" in body
    assert "](docs/" not in body and "](benchmarks/" not in body and "](examples/" not in body
    # everything else as written
    assert body.count("```") == (ROOT / "README.md").read_text().count("```")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The source distribution of a clean copy of the checkout, unpacked."""
    import tarfile

    path = _build(tmp_path_factory, "sdist")
    with tarfile.open(path) as tar:
        tar.extractall(path.parent / "unpacked", filter="data")
    (root,) = (path.parent / "unpacked").iterdir()
    return root


def test_the_sdist_holds_what_its_tests_and_docs_need(sdist: Path) -> None:
    for name in ("tests/_server_helpers.py", "tests/reference/marias.py", "tests/stubtest_allowlist.txt",
                 "examples/api_example.py", "examples/client_example.py", "benchmarks/corpus/marias-hra.jsonl",
                 "fuzz/atheris_documents.py", "tools/profile_workload.py", "tools/grpc_pyi.py", "tools/ensure_chromium.sh",
                 ".ci/run", ".ci/portable-wheel",
                 "solver/_core/search.pyx", "proto/ddcards/v1/ddcards.proto", "docs/RULES.md", "buf.yaml",
                 "solver/bench/positions.jsonl"):
        assert (sdist / name).is_file(), name
    # every source the extension modules compile from (a missing one fails the sdist's build)
    sources = [p.relative_to(ROOT) for p in (ROOT / "solver").rglob("*") if p.suffix in (".pyx", ".pxd", ".pxi", ".h")]
    assert any(p.suffix == ".pxi" for p in sources)
    assert [str(p) for p in sources if not (sdist / p).is_file()] == []
    leftovers = [p for p in sdist.rglob("*") if p.suffix in (".so", ".pyc") or p.name.endswith("_pb2.py")]
    assert not leftovers


def test_the_sdist_test_suite_collects(sdist: Path) -> None:
    # Every test module's helpers are there: collecting the suite imports them all.
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
                         cwd=sdist, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1]
    assert "error" not in last, out.stdout[-500:]
    assert int(last.split()[0]) > 2000, last             # "2431 tests collected in 3.2s"


@pytest.mark.parametrize(("env", "named"), [({"DDCARDS_PGO": "maybe"}, "DDCARDS_PGO='maybe'"),
                                            ({"DDCARDS_NATIVE": "2"}, "DDCARDS_NATIVE='2'"),
                                            ({"DDCARDS_ONLY": "serch"}, "DDCARDS_ONLY names no module 'serch'")])
def test_a_build_switch_of_no_meaning_stops_the_build(env: dict[str, str], named: str) -> None:
    # (a value that reads as neither on nor off used to mean a default silently; an unknown
    # module name built nothing and said nothing, even into a wheel)
    out = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, **env))
    assert out.returncode != 0
    assert named in out.stderr, out.stderr[-1000:]


def test_the_usual_spellings_of_a_build_switch_are_accepted() -> None:
    out = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, DDCARDS_PGO="off", DDCARDS_NATIVE="no", DDCARDS_DEBUG=""))
    assert out.returncode == 0, out.stderr[-1000:]
    assert out.stdout.strip().splitlines()[-1] == "ddcards"


def test_the_test_commands_chromium_step_does_nothing_where_one_is_and_says_what_to_do_elsewhere(tmp_path: Path) -> None:
    script = ROOT / "tools" / "ensure_chromium.sh"
    chromium = tmp_path / "some-chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    given = subprocess.run(["sh", str(script)], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "DDCARDS_CHROMIUM": str(chromium)})
    assert (given.returncode, given.stderr) == (0, "")
    # a DDCARDS_CHROMIUM that names nothing is refused, by name (not taken, to fail in the tests later)
    wrong = subprocess.run(["sh", str(script)], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "DDCARDS_CHROMIUM": "/opt/no/chromium"})
    assert wrong.returncode == 1
    assert "DDCARDS_CHROMIUM=/opt/no/chromium is no executable file" in wrong.stderr
    # printed as given (dash's echo would read the backslash as an escape and cut the line at \c)
    odd = subprocess.run(["sh", str(script)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "DDCARDS_CHROMIUM": "/opt/a\\cb/chromium"})
    assert odd.returncode == 1
    assert "DDCARDS_CHROMIUM=/opt/a\\cb/chromium is no executable file: point it at" in odd.stderr
    # no chromium and no apt-get on the PATH (only the shell's own tools): a clear error, no install
    (tmp_path / "id").symlink_to(shutil.which("id"))
    bare = subprocess.run(["/bin/sh", str(script)], capture_output=True, text=True, timeout=60,
                          env={"PATH": str(tmp_path)})
    assert bare.returncode == 1
    assert "no chromium on the PATH and no apt-get here: install Chromium, or set DDCARDS_CHROMIUM" in bare.stderr


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run is the README's second command (with -q): what CI passes is what a user runs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```sh\n")[1:]]
    command = next(b for b in blocks if b.startswith("sh tools/ensure_chromium.sh"))
    assert command.endswith(".venv/bin/python -m pytest -n auto")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    # CI adds -q to pip and pytest, and stops there if any step of the command fails (set -e alone
    # does not stop at a failure inside an && list)
    quiet = [line.replace(" -q", "") for line in ci]
    assert command + " || exit" in quiet


def test_the_browser_tests_name_a_wrong_ddcards_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        from tests._browser import chromium_path
    except ImportError:  # pytest put tests/ itself on sys.path
        from _browser import chromium_path

    monkeypatch.setenv("DDCARDS_CHROMIUM", "/opt/no/chromium")
    with pytest.raises(RuntimeError, match="DDCARDS_CHROMIUM=/opt/no/chromium is no executable file"):
        chromium_path()
