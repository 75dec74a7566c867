"""The portable kernels: a baseline build any x86-64 CPU runs, a faster one chosen by the CPU.

setup.py compiles the search's modules for the x86-64 baseline (in each package's folder) and
for x86-64-v3 (in ``_x86_64_v3/``); ``ddcards._kernels`` picks one at import.  These tests read
the installed build: the baseline files hold no instruction beyond the baseline, both builds
give the same answers, and ``DDCARDS_KERNEL`` chooses between them.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ddcards
import ddcards._core
import ddcards.games
from ddcards import _kernels

X86_64 = platform.machine().lower() in ("x86_64", "amd64")
PACKAGES = (ddcards._core, ddcards.games)

# Mnemonics beyond the x86-64 baseline (SSE2): every VEX/EVEX-encoded instruction starts with
# "v" (AVX, AVX2, AVX-512), and the BMI1/BMI2/LZCNT/POPCNT integer instructions.  (Not tzcnt:
# GCC's generic tuning writes `rep bsf`, which objdump shows as tzcnt and an older CPU runs as
# bsf, with the same result for the non-zero inputs the code gives it.)
BEYOND_BASELINE = re.compile(r"^(v\w+|pext|pdep|shlx|shrx|sarx|rorx|mulx|bzhi|andn|blsr|blsi|blsmsk|"
                             r"lzcnt|popcnt)$")


def kernel_files(folder: str) -> list[Path]:
    """The compiled kernel modules of one build: ``""`` the baseline, else a variant's folder."""
    files: list[Path] = []
    for package in PACKAGES:
        base = Path(package.__path__[-1])      # the package's own folder (last: variants go first)
        files += sorted((base / folder).glob("*.so")) if folder else sorted(base.glob("*.so"))
    return files


def mnemonics(path: Path) -> set[str]:
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True,
                         check=True).stdout
    found = set()
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip().endswith(":"):
            found.add(parts[1].split()[0] if parts[1].split() else "")
    return found


def run_with_kernel(kernel: str, code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DDCARDS_KERNEL=kernel)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


pytestmark = pytest.mark.skipif(not X86_64, reason="the kernel variants are built on x86-64 only")


def test_the_baseline_build_holds_no_instruction_beyond_x86_64() -> None:
    assert shutil.which("objdump"), "objdump (binutils) is needed to read the compiled kernels"
    files = kernel_files("")
    assert {f.name.split(".")[0] for f in files} >= {"search", "_marias", "_klaverjas"}
    for path in files:
        beyond = sorted(m for m in mnemonics(path) if BEYOND_BASELINE.match(m))
        assert not beyond, (f"{path.name} (baseline build) uses {beyond[:12]}: a native build "
                            "(DDCARDS_NATIVE=1) is not portable; the default build is")


def test_the_v3_build_exists_and_uses_its_instructions() -> None:
    files = kernel_files(_kernels.KERNELS["x86-64-v3"])
    assert {f.name.split(".")[0] for f in files} == {f.name.split(".")[0] for f in kernel_files("")}
    search = next(f for f in files if f.name.startswith("search."))
    used = mnemonics(search)
    assert used & {"pext", "shlx", "tzcnt", "popcnt"}, "the x86-64-v3 build uses no BMI/POPCNT instruction"


def test_the_cpu_probe_is_built_for_the_baseline_only() -> None:
    from ddcards import _cpuid

    probe = Path(_cpuid.__file__)
    assert not any(BEYOND_BASELINE.match(m) for m in mnemonics(probe))
    assert not list(probe.parent.glob(f"{_kernels.KERNELS['x86-64-v3']}/_cpuid*"))


def test_each_kernel_is_loaded_when_asked_and_both_give_the_same_answers() -> None:
    """Differential: the two builds solve a sample of every corpus alike, node for node."""
    corpus = Path(__file__).resolve().parents[1] / "benchmarks" / "corpus"
    # Every game's bundled examples, and the start of the corpora whose positions solve in
    # milliseconds (a fresh Mariasz deal from the first trick takes far longer: not a test).
    docs = [ddcards.example(name) for name in ddcards.example_names()]
    for name in ("marias-hra", "marias-betl", "marias-durch", "marias-mixed", "marias-announced", "marias-midgame",
                 "klaverjas-amsterdam", "klaverjas-rotterdam", "klaverjas-mixed", "klaverjas-midgame",
                 "mariasz-phase2", "mariasz-race", "mariasz-race-early", "mariasz-mixed", "prsi-midgame",
                 "prsi-mixed"):
        docs += [json.loads(line) for line in (corpus / f"{name}.jsonl").read_text().splitlines()[:6]]
    code = ("import json, sys, ddcards, ddcards._kernels as k, ddcards._core.search as s\n"
            f"docs = json.loads({json.dumps(json.dumps(docs))})\n"
            "out = [(r.value, r.optimal_moves, r.nodes) for r in (ddcards.solve(d, mode='optimal') for d in docs)]\n"
            "print(json.dumps([k.selected(), k.loaded(), s.BUILD_FEATURES, out]))\n")
    base = run_with_kernel("baseline", code)
    assert base.returncode == 0, base.stderr
    selected, loaded, features, base_answers = json.loads(base.stdout)
    assert (selected, loaded, features) == ("baseline", "baseline", "base")
    if not _kernels.runnable("x86-64-v3"):
        pytest.skip("this CPU runs the baseline build only: the x86-64-v3 build cannot be compared with it "
                    "(the baseline's answers were checked)")
    v3 = run_with_kernel("x86-64-v3", code)
    assert v3.returncode == 0, v3.stderr
    selected, loaded, features, v3_answers = json.loads(v3.stdout)
    assert (selected, loaded) == ("x86-64-v3", "x86-64-v3")
    assert {"popcnt", "bmi2", "avx2"} <= set(features.split())
    assert v3_answers == base_answers
    assert len(base_answers) == len(docs) > 20


def test_auto_takes_the_fastest_build_the_cpu_runs() -> None:
    result = run_with_kernel("auto", "import ddcards._kernels as k; print(k.selected(), k.loaded())")
    assert result.returncode == 0, result.stderr
    expected = "x86-64-v3" if _kernels.runnable("x86-64-v3") else "baseline"
    assert result.stdout.split() == [expected, expected]


def test_an_unknown_kernel_is_a_clear_import_error() -> None:
    result = run_with_kernel("avx9000", "import ddcards; ddcards.solve(ddcards.example())")
    assert result.returncode != 0
    assert "DDCARDS_KERNEL='avx9000': choose auto, baseline, x86-64-v3" in result.stderr


@pytest.mark.parametrize("command", [["-m", "ddcards"], ["-m", "ddcards.cli"], ["-Im", "ddcards"], ["-mddcards"],
                                     ["-m", "ddcards.server"], "script"])
def test_an_unknown_kernel_is_a_one_line_error_of_the_command_line(command: list[str] | str) -> None:
    """The console script imports the package before main() can catch anything: it printed a
    traceback (exit status 1); the command's usual one-line error and usage status now."""
    script = Path(sys.executable).with_name("ddcards")
    argv = [str(script)] if command == "script" else [sys.executable, *command]
    args = ["--help"] if "ddcards.server" in argv else ["solve", "--example"]
    result = subprocess.run([*argv, *args], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DDCARDS_KERNEL": "avx9000"})
    assert result.returncode == 2
    assert result.stderr == "ddcards: error: DDCARDS_KERNEL='avx9000': choose auto, baseline, x86-64-v3\n"


def test_a_program_whose_own_arguments_name_ddcards_still_gets_the_import_error(tmp_path: Path) -> None:
    """`python prog.py -m ddcards` was taken for the command line (exit 2): a review's find."""
    prog = tmp_path / "prog.py"
    prog.write_text("try:\n    import ddcards\nexcept ImportError as exc:\n    print('caught', exc)\n")
    for argv in ([str(prog), "-m", "ddcards"], ["-c", prog.read_text(), "-m", "ddcards"]):
        result = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120,
                                env={**os.environ, "DDCARDS_KERNEL": "avx9000"})
        assert result.returncode == 0 and result.stdout.startswith("caught DDCARDS_KERNEL='avx9000'"), result


def test_the_version_says_which_kernels_run() -> None:
    result = run_with_kernel("baseline", "from ddcards.cli import main; main(['--version'])")
    assert result.stdout.strip() == f"ddcards {ddcards.__version__} (baseline kernels: base)"


def test_a_checkout_whose_modules_are_not_built_says_how_to_build_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A source checkout before its build (or a build stopped after its profiling pass, which
    removes the instrumented modules it made) raised ModuleNotFoundError: ddcards._cpuid."""
    monkeypatch.setitem(sys.modules, "ddcards._cpuid", None)    # as if the file were missing
    for kernel in ("x86-64-v3", "baseline", "auto"):
        with pytest.raises(ImportError, match=r"ddcards is not built here: its compiled modules are missing from .*; "
                                              r"build them with `pip install -e \.`"):
            _kernels.runnable(kernel)
    # ... and at the first import, whatever DDCARDS_KERNEL asks for (baseline skipped the check)
    monkeypatch.setattr(_kernels, "_selected", None)
    monkeypatch.setenv("DDCARDS_KERNEL", "baseline")
    with pytest.raises(ImportError, match="ddcards is not built here"):
        _kernels.selected()
