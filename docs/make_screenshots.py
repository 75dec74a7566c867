"""Make the README's pictures: docs/report.png and docs/board.png.

    python docs/make_screenshots.py        (needs the test extra and Chromium, as the tests do)

The report is that of docs/report-deal.json (a Mariáš hra deal lost and won again); the board
shows the bundled seed deal at the start of its second trick.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards.report import write_report  # noqa: E402
from tests._browser import chromium, running_board  # noqa: E402


def main() -> None:
    # No options: parsed so that --help (or a typo) does not overwrite the committed pictures.
    argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="Writes docs/report.png and docs/board.png "
                            "over the committed ones.").parse_args()
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 1500})
        report = write_report(ddcards.Position.from_json((ROOT / "docs/report-deal.json").read_text()),
                              Path(tmp) / "report.html")
        page.goto(report.as_uri())
        page.screenshot(path=str(ROOT / "docs/report.png"))
        seed = ddcards.example("marias-seed")
        with running_board(position=dict(seed, played=seed["played"][:3])) as (url, _):
            page = browser.new_page(viewport={"width": 1100, "height": 1000})
            page.goto(url)
            page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Value')")
            page.screenshot(path=str(ROOT / "docs/board.png"), full_page=True)
    print("wrote docs/report.png and docs/board.png")


if __name__ == "__main__":
    main()
