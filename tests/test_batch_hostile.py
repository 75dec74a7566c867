"""``ddcards batch`` against a hostile world: a second run started while the first has not written
its first answer, a disk that fills up, a line that runs on past the reader's limit."""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ddcards import _batch, cli
from ddcards.batch import journal as journal_module
from ddcards.batch.journal import JOB_FORMAT, JOB_SUFFIX, Journal
from ddcards.errors import InvalidOptionError
from _batch_data import endgame, read_records  # tests/ is on sys.path


def batch(*argv: str) -> int:
    return cli.main(["batch", *argv])


def _job(mode: str) -> dict[str, Any]:
    return {"format": JOB_FORMAT, "input": {"bytes": 1, "sha256": "00"}, "options": {"mode": mode, "timeout": None}}


def test_a_refused_second_run_leaves_the_job_file_of_the_run_that_holds_the_output(tmp_path):
    """A run holding OUT before its first answer (a long first search): a second run with other
    options was refused, but had rewritten OUT.job first, so OUT's answers (mode all) stood under a
    job file saying mode best, and a resumed --mode best run mixed the two jobs."""
    out = tmp_path / "out.jsonl"
    first = Journal(str(out), _job("all"))
    try:
        with pytest.raises(InvalidOptionError, match="is being written by another ddcards batch"):
            Journal(str(out), _job("best"))
        assert json.loads((tmp_path / ("out.jsonl" + JOB_SUFFIX)).read_text())["options"]["mode"] == "all"
        first.append(['{"line": 1, "value": 0}'])
    finally:
        first.close()
    with pytest.raises(InvalidOptionError, match='options.mode was "all", now "best"'):
        Journal(str(out), _job("best"))
    assert out.read_text() == '{"line": 1, "value": 0}\n'
