import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_line  # noqa: E402


def pytest_report_header() -> str:
    # The benchmark's figures carry the machine they ran on, as every script's do.
    return machine_line()
