"""Which build of the search kernels this process runs.

A portable build holds the search's extension modules twice (see setup.py):
compiled for any x86-64 CPU, in each package's folder, and for x86-64-v3
(AVX2, BMI1/2: CPUs from 2013 on), in a ``_x86_64_v3`` folder beside them.
The packages that hold kernels (``ddcards._core``, ``ddcards.games``) put
that folder first on their ``__path__`` when the CPU can run it, so the same
import finds the faster file; both builds are the same module.

``DDCARDS_KERNEL=baseline`` (or ``x86-64-v3``) forces one, e.g. to compare
them; the default, ``auto``, takes the fastest the CPU runs.
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any, NoReturn

__all__ = ["KERNELS", "requested", "runnable", "selected", "kernel_path"]

#: kernel name -> the folder its modules are in, beside the baseline's
KERNELS = {"baseline": "", "x86-64-v3": "_x86_64_v3"}
ENV = "DDCARDS_KERNEL"

_selected: str | None = None


def _command_line() -> bool:
    """Is this process the ``ddcards`` command (its console script, or ``python -m ddcards...``)?"""
    if not sys.argv:
        return False
    if os.path.basename(sys.argv[0]) == "ddcards":
        return True
    # While Python imports the packages of a -m target, sys.argv[0] is "-m"; the target is then
    # in the interpreter's own options (-m NAME, -mNAME, -Im NAME ...).
    return sys.argv[0] == "-m" and (_module_option() or "").split(".")[0] == "ddcards"


def _module_option() -> str | None:
    """The module of the interpreter's -m option (None if it has none)."""
    argv = getattr(sys, "orig_argv", [])
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        flags = argv[i][1:]
        if flags.startswith("-"):               # --long options take no argument here
            i += 1
            continue
        for j, flag in enumerate(flags):
            if flag == "m":
                return flags[j + 1:] or (argv[i + 1] if i + 1 < len(argv) else None)
            if flag in "cWX":                   # the rest of the group (or the next word) is its argument
                if flag == "c":
                    return None
                if j == len(flags) - 1:
                    i += 1
                break
        i += 1
    return None


def _refuse(message: str) -> NoReturn:
    """A kernel that cannot be had: ImportError for a program, and for the command line its
    usual one-line error and exit status 2 (its console script imports the package before
    ``main`` can catch anything, so a traceback would be all a user saw)."""
    if _command_line():
        sys.stderr.write(f"ddcards: error: {message}\n")
        raise SystemExit(2)
    raise ImportError(message)


def requested() -> str:
    """The kernel asked for by ``DDCARDS_KERNEL`` (``auto`` if unset)."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value != "auto" and value not in KERNELS:
        _refuse(f"{ENV}={value!r}: choose auto, {', '.join(KERNELS)}")
    return value


def _cpu_probe() -> Any:
    """The compiled CPU probe (every build has it, whatever its kernels): its absence means
    the package is not built here."""
    try:
        probe = importlib.import_module("ddcards._cpuid")
    except ModuleNotFoundError as exc:
        if exc.name != "ddcards._cpuid":
            raise
        # A source checkout before its build, or a build that was stopped.
        _refuse(f"ddcards is not built here: its compiled modules are missing from "
                f"{os.path.dirname(os.path.abspath(__file__))}; build them with "
                "`pip install -e .` (or `python setup.py build_ext --inplace`)")
    return probe


def runnable(kernel: str) -> bool:
    """Can this CPU run `kernel`? (An unbuilt checkout says so, whichever kernel is asked for.)"""
    probe = _cpu_probe()
    if kernel in ("auto", "baseline"):
        return True
    return kernel == "x86-64-v3" and bool(probe.supports_x86_64_v3())


def selected() -> str:
    """The kernel this process loads (decided once, at the first import)."""
    global _selected
    if _selected is None:
        want = requested()
        if want == "auto":
            want = "x86-64-v3" if runnable("x86-64-v3") else "baseline"
        elif not runnable(want):
            _refuse(f"{ENV}={want}: this CPU cannot run the {want} build of the search")
        _selected = want
    return _selected


def kernel_path(path: list[str]) -> list[str]:
    """A kernel package's ``__path__`` with the selected build's folder first (if it was built)."""
    folder = KERNELS[selected()]
    if not folder or not path:
        return list(path)
    extra = os.path.join(path[0], folder)
    if os.path.isdir(extra):
        return [extra, *path]
    return list(path)


def loaded() -> str:
    """The build the search modules actually came from: the selected one, or
    ``baseline`` when this installation has no separate build for it (a
    native or non-x86 build keeps a single one)."""
    import ddcards._core.search as search

    folder = os.path.basename(os.path.dirname(search.__file__))
    for name, sub in KERNELS.items():
        if sub and folder == sub:
            return name
    return "baseline"
