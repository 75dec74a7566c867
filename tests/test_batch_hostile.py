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


class _FullDisk:
    """The os module, but every write of OUT fails as on a full disk (after the first `room` bytes)."""

    def __init__(self, room: int):
        self.room = room

    def write(self, fd: int, data: Any) -> int:
        if len(data) > self.room:
            if self.room:
                written, self.room = os.write(fd, bytes(data[:self.room])), 0
                return written
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return os.write(fd, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_a_full_disk_is_a_clear_error_and_the_next_run_goes_on(tmp_path, capsys, monkeypatch):
    """A full disk was 'internal error: OSError(28, ...) (a bug: please report it)', exit status 3."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(endgame(cut)) + "\n" for cut in range(20, 30)))
    monkeypatch.setattr(journal_module, "os", _FullDisk(room=1500))
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"cannot write the output {out}: No space left on device" in err and "internal error" not in err
    monkeypatch.setattr(journal_module, "os", os)
    assert batch(str(source), "-o", str(out), "--jobs", "1", "--no-progress") == cli.EXIT_OK
    assert "cut an unfinished last line" in capsys.readouterr().err
    assert sorted(r["line"] for r in read_records(out).values()) == list(range(1, 11))
