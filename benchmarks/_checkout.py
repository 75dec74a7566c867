"""Import the ddcards package of a given checkout (its in-place build), for side-by-side runs.

The package lives in the checkout's folder ``solver/`` under the name ``ddcards`` (see
setup.py), so it is loaded from there by name rather than through ``sys.path``.
Checkouts from before the rename (package ``solver``) are imported as they were.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def import_checkout(repo: str | Path) -> ModuleType:
    """The ddcards package built in place in `repo` (``python setup.py build_ext --inplace``)."""
    folder = Path(repo).resolve() / "solver"
    if not (folder / "_kernels.py").exists():       # the layout before the ddcards namespace
        sys.path.insert(0, str(Path(repo).resolve()))
        import solver as old  # type: ignore[import-not-found]
        sys.modules["ddcards"] = old
        for name in ("position", "api", "errors"):
            sys.modules[f"ddcards.{name}"] = importlib.import_module(f"solver.{name}")
        return old
    if not any(folder.glob("_cpuid*.so")) or not any((folder / "_core").glob("**/search*.so")):
        # Its missing modules would be found in the installed ddcards (an editable install's
        # finder comes last), or not at all: a ModuleNotFoundError deep in an import.
        raise SystemExit(f"{repo}: the checkout is not built: cd {repo} && python setup.py build_ext --inplace")
    spec = importlib.util.spec_from_file_location("ddcards", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ddcards"] = module
    spec.loader.exec_module(module)
    return module
