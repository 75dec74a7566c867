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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # A copy of the sources, as a clean checkout has them: no build folder, no generated files.
    source = tmp_path_factory.mktemp("source") / "ddcards"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.c", "*_pb2*", "*.binpb",
        ".hypothesis", ".pytest_cache", ".mypy_cache", ".benchmarks"))
    env = dict(os.environ, DDCARDS_ONLY="_cpuid", DDCARDS_PGO="0")
    build = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(source)],
                           capture_output=True, text=True, env=env, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (path,) = out.glob("ddcards-*.whl")
    return zipfile.ZipFile(path)


def test_ddcards_is_the_only_top_level_name(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert tops == {"ddcards", f"ddcards-{ddcards.__version__}.dist-info"}


def test_the_wheel_holds_the_proto_its_stubs_and_the_descriptor_with_comments(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for name in ("ddcards/v1/ddcards.proto", "ddcards/v1/ddcards_pb2.py", "ddcards/v1/ddcards_pb2_grpc.py",
                 "ddcards/v1/ddcards_pb2.pyi", "ddcards/v1/ddcards.binpb", "ddcards/server/main.py",
                 "ddcards/client.py", "ddcards/py.typed", "ddcards/examples/marias-hra.json"):
        assert name in names, name
    assert wheel.read("ddcards/v1/ddcards.proto") == (ROOT / "proto/ddcards/v1/ddcards.proto").read_bytes()
    from google.protobuf import descriptor_pb2

    descriptors = descriptor_pb2.FileDescriptorSet.FromString(wheel.read("ddcards/v1/ddcards.binpb"))
    (ours,) = [f for f in descriptors.file if f.package == "ddcards.v1"]
    assert ours.name == "ddcards/v1/ddcards.proto"
    assert ours.source_code_info.location, "the descriptor set carries the .proto's comments"
    generated = wheel.read("ddcards/v1/ddcards_pb2_grpc.py").decode()
    assert "from ddcards.v1 import ddcards_pb2" in generated
    # Sources and build leftovers stay out of the wheel.
    assert not [n for n in names if n.endswith((".pyx", ".pxd", ".c", ".h"))]


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
