"""Batches on a real Dask cluster: a ``distributed.LocalCluster`` of 2 worker processes (no
mocks) answers exactly what the local threads answer, through ``solve_many(executor=client)``
and ``ddcards batch --dask``, resuming a journal that a local run began; ``--dask local``
starts its own cluster; a scheduler that cannot be reached is a clear error."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

import ddcards
from ddcards import cli
from ddcards.batch import cluster as dask_cluster
from ddcards.errors import InvalidOptionError
from _batch_data import (corpus, endgame, expected_answer, read_records, without_times,  # tests/ is on sys.path
                         write_batch)

DDCARDS = [sys.executable, "-m", "ddcards"]


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local, \
            Client(local) as dask:
        assert len(dask.scheduler_info()["workers"]) == 2
        yield dask


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("dask")
    source = folder / "in.jsonl"
    write_batch(source, full_deals=24)
    out = folder / "local.jsonl"
    assert cli.main(["batch", str(source), "-o", str(out), "--jobs", "2", "--no-progress"]) == cli.EXIT_BAD_INPUT
    return source, read_records(out)


def test_solve_many_on_the_cluster_answers_what_a_plain_solve_answers(client):
    docs = corpus("marias-hra", 20) + corpus("marias-betl", 10) + [endgame(c) for c in (20, 25)] + [
        ddcards.example("klaverjas"), dict(endgame(24), played=["ZZ"])]
    answers = {done.index: done for done in ddcards.solve_many(docs, executor=client, mode="optimal")}
    assert sorted(answers) == list(range(len(docs)))
    for index, doc in enumerate(docs[:-1]):
        got = answers[index].result.to_dict()
        got.pop("elapsed_ms")
        assert got == expected_answer(doc, mode="optimal"), index
    bad = answers[len(docs) - 1]
    assert isinstance(bad.error, ddcards.InvalidCardError) and bad.error.token == "ZZ"   # pickled home whole



def test_the_cluster_runs_chunks_of_positions_as_tasks(client):
    from distributed import get_task_stream

    docs = [endgame(c) for c in range(6, 30)]
    with get_task_stream(client) as stream:
        answers = list(ddcards.solve_many(docs, executor=client, chunk_size=5))
    assert sorted(a.index for a in answers) == list(range(24)) and all(a.ok for a in answers)
    tasks = [t for t in stream.data if "solve_chunk" in t["key"]]
    assert len(tasks) == 5                                      # 24 positions in chunks of 5


def test_batch_on_the_cluster_equals_the_local_run(client, local_run, tmp_path):
    source, want = local_run
    out = tmp_path / "dask.jsonl"
    proc = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out), "--dask", client.scheduler.address],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr
    assert "on the Dask cluster at tcp://" in proc.stderr and "(2 workers, 2 threads)" in proc.stderr
    assert without_times(read_records(out)) == without_times(want)


def test_a_journal_begun_locally_is_finished_on_the_cluster(client, local_run, tmp_path):
    source, want = local_run
    out = tmp_path / "out.jsonl"
    assert cli.main(["batch", str(source), "-o", str(out), "--jobs", "1", "--no-progress"]) == cli.EXIT_BAD_INPUT
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:len(lines) // 3]) + lines[len(lines) // 3][:25])     # as a kill leaves it
    proc = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out), "--dask", client.scheduler.address],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr
    assert "cut an unfinished last line (25 bytes)" in proc.stderr
    assert without_times(read_records(out)) == without_times(want)


def test_the_documented_commands_dask_scheduler_and_dask_worker(local_run, tmp_path):
    """docs/BATCH.md: `dask scheduler`, `dask worker ADDRESS --nworkers N --nthreads 1`, then --dask ADDRESS."""
    source, want = local_run
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
                                 stderr=subprocess.PIPE, text=True)
    worker = None
    try:
        address = None
        for line in scheduler.stderr:                      # "Scheduler at:   tcp://127.0.0.1:PORT"
            match = re.search(r"Scheduler at:\s+(tcp://127\.0\.0\.1:\d+)", line)
            if match:
                address = match.group(1)
                break
        assert address, "the scheduler did not say where it listens"
        threading.Thread(target=scheduler.stderr.read, daemon=True).start()   # keep its log flowing
        worker = subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                                   "--no-dashboard"], stderr=subprocess.DEVNULL)
        out = tmp_path / "out.jsonl"
        proc = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out), "--dask", address],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr
        assert f"on the Dask cluster at {address}" in proc.stderr
        assert without_times(read_records(out)) == without_times(want)
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_dask_local_starts_a_cluster_of_worker_processes(local_run, tmp_path):
    source, want = local_run
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([*DDCARDS, "batch", str(source), "-o", str(out), "--dask", "local", "--jobs", "2"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == cli.EXIT_BAD_INPUT, proc.stderr
    assert re.search(r"on a local Dask cluster of 2 worker processes \(started in [\d.]+ s\)", proc.stderr)
    assert without_times(read_records(out)) == without_times(want)


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(dask_cluster, "CONNECT_SECONDS", 1.0)
    with pytest.raises(InvalidOptionError) as info:
        with dask_cluster.dask_client("tcp://127.0.0.1:9", None):
            pass
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in str(info.value)
    assert info.value.token == "tcp://127.0.0.1:9" and info.value.rule.startswith("--dask")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert cli.main(["batch", str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", "nowhere://x"]) == 2
    assert "ddcards: error: cannot reach the Dask scheduler at nowhere://x" in capsys.readouterr().err


def test_without_dask_installed_the_option_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)        # as if the extra were not installed
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(endgame(27)) + "\n")
    assert cli.main(["batch", str(source), "-o", str(tmp_path / "o.jsonl"), "--dask", "local"]) == 2
    assert "pip install 'ddcards[dask]'" in capsys.readouterr().err


def test_the_docs_solve_many_on_a_local_cluster_runs_as_a_script(tmp_path):
    """docs/BATCH.md's Python block, saved as a file and run: it starts its own LocalCluster
    (worker processes that import the script again) and prints what its comment says."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "BATCH.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "LocalCluster" in b]
    script = tmp_path / "snippet.py"
    script.write_text(block)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["15", "50"], run.stdout
