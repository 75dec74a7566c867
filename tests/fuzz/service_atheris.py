"""Coverage-guided fuzzing of the service's request path with atheris (briefly in CI, longer on demand).

    pip install atheris
    python tests/fuzz/service_atheris.py -atheris_runs=200000        # or -max_total_time=600

Each input is a serialized ``SolveRequest`` (or, if it is none, the text of a
``document_json``) taken through what a Solve call does before its search: the
message -> document conversion, ``ddcards.Position`` validation, and on failure
the status the client would get (``status.describe`` and its encoding). A finding
is any exception that would reach a client as INTERNAL, or a status that cannot be
encoded. No search runs: one per input would starve the fuzzer (the hypothesis
suite in tests/test_grpc_fuzz.py runs searches through a real server).
A seed corpus of valid and near-valid requests is written to a temporary folder.
tests/test_grpc_fuzz.py runs the seeds and a short atheris run of this target in CI.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from typing import Any

# Imported by load(): under atheris inside instrument_imports, so that ddcards' Python code
# is instrumented (and only it: instrumenting grpc and protobuf too slows startup 4x).
ddcards: Any = None
convert: Any = None
status: Any = None
pb: Any = None


def load() -> None:
    global ddcards, convert, status, pb
    import ddcards as _ddcards
    from ddcards.server import convert as _convert, status as _status
    from ddcards.v1 import ddcards_pb2 as _pb

    ddcards, convert, status, pb = _ddcards, _convert, _status, _pb


def _canonical_game(name: str) -> str:
    return ddcards.find_game(name).name


def request_of(data: bytes) -> Any:
    try:
        return pb.SolveRequest.FromString(data)
    except Exception:  # noqa: BLE001 - not a message: use the bytes as a JSON document
        return pb.SolveRequest(document_json=data.decode("utf-8", "replace"))


def TestOneInput(data: bytes) -> None:
    request = request_of(data)
    try:
        doc = convert.request_to_doc(request, canonical_game=_canonical_game)
        ddcards.Position.from_dict(doc)
        convert.mode_to_name(request.mode)
    except Exception as exc:  # noqa: BLE001 - every failure must become a client's status
        failure = status.describe(exc, request)
        if failure.code.name == "INTERNAL":
            raise
        failure.to_status()
        failure.to_error_message().SerializeToString()


def seeds() -> list[bytes]:
    docs = [ddcards.example(name) for name in ddcards.example_names()]
    docs = [d.to_dict() if hasattr(d, "to_dict") else d for d in docs]
    found = []
    for doc in docs:
        found.append(pb.SolveRequest(document_json=json.dumps(doc)).SerializeToString())
        message = convert.doc_to_position(doc)
        if message is not None:
            found.append(pb.SolveRequest(position=message, mode=pb.SOLVE_MODE_BEST).SerializeToString())
        found.append(json.dumps(dict(doc, played=["AS", "XX"])).encode())
    return found


def main() -> None:
    import atheris  # only here: tests/test_grpc_fuzz.py also calls TestOneInput without it

    with atheris.instrument_imports(include=["ddcards"]):
        load()
    # One corpus folder for every run (atheris.Fuzz never returns, so a fresh one per run would
    # be left behind each time); the seeds are written anew.
    corpus = Path(tempfile.gettempdir()) / f"ddcards-atheris-service-{os.getuid()}"     # a user's own
    corpus.mkdir(exist_ok=True)
    for i, seed in enumerate(seeds()):
        (corpus / f"seed-{i}").write_bytes(seed)
    atheris.Setup(sys.argv + [str(corpus)], TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
