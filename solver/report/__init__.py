"""The HTML report of a recorded deal: ``ddcards report DEAL.json -o deal.html``.

>>> import ddcards
>>> from ddcards.report import report_html
>>> page = report_html(ddcards.example("marias-seed"))
>>> page.startswith("<!DOCTYPE html>") and 'data-kind="lost"' in page
True

The page is rendered from the analysis document alone (``render``), which is
what ``ddcards analyse --json --mode all`` prints; it is one self-contained
file (inline CSS, SVG and script, nothing fetched) that prints on paper.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ddcards.api import CancelToken, Solver, default_solver
from ddcards.games.prsi import every_value_or_optimal
from ddcards.position import Position
from ddcards.report.render import render

__all__ = ["report_html", "write_report", "render"]


def report_html(position: Position | Mapping[str, Any] | str, *, solver: Solver | None = None,
                timeout: float | None = None, cancel: CancelToken | None = None, threads: int = 1,
                from_ply: int = 0) -> str:
    """Analyse the recorded play of `position` (every card's value at each step) and render the page
    (threads and from_ply: as in ``Solver.analyse``; from a later ply the page shows the hands then)."""
    engine = solver or default_solver()
    # (Prší without a horizon: the optimal actions' values where another one's is unproven, as
    # `ddcards analyse` gives them)
    analysis = every_value_or_optimal(lambda mode: engine.analyse(position, timeout=timeout, cancel=cancel,
                                                                  mode=mode, threads=threads, from_ply=from_ply))
    return render(analysis.to_dict())


def write_report(position: Position | Mapping[str, Any] | str, path: str | Path, **kwargs: Any) -> Path:
    """Write the report of `position` to `path` (UTF-8); the keywords are report_html's."""
    path = Path(path)
    path.write_text(report_html(position, **kwargs), encoding="utf-8")
    return path
