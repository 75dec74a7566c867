"""Coverage-guided fuzzing of the document readers with atheris (issue 10).

Each input is raw bytes, read three ways: as one position document
(``Position.from_json``), as a batch (``ddcards.batch.reader.read_documents``, every entry then
validated as a position), and through ``dd_table``.  Anything but a DdcardsError is a
crash: atheris stops and writes the input to ``crash-*``.  The Python code of ddcards is
instrumented, so inputs that reach new lines of the readers and validators are kept.

    pip install -e '.[fuzz]'
    python fuzz/atheris_documents.py fuzz/corpus -max_total_time=60        # a minute
    DDCARDS_FUZZ_SECONDS=3600 python fuzz/atheris_documents.py fuzz/corpus  # an hour

The seed corpus (fuzz/corpus, made from the bundled examples on the first run) gives the
fuzzer valid documents to mutate; without it, it rarely gets past the JSON syntax.
"""
from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["ddcards"]):
    import ddcards
    from ddcards.batch import reader
    from ddcards.ddtable import dd_table
    from ddcards.errors import DdcardsError

def one_input(data: bytes) -> None:
    try:
        ddcards.Position.from_json(data)
    except DdcardsError:
        pass
    for entry in reader.read_documents(io.BytesIO(data)):
        if entry.error is not None:
            assert isinstance(entry.error, DdcardsError), repr(entry.error)
            continue
        try:
            ddcards.Position.from_dict(entry.document)
        except DdcardsError:
            pass
    if b"klaverjas" in data:
        try:
            dd_table(data.decode("utf-8", "replace"), timeout=5)
        except (DdcardsError, ddcards.SearchAborted):
            pass


def seed_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        return
    for name in ddcards.example_names():
        doc = ddcards.example(name)
        (folder / f"{name}.json").write_text(json.dumps(doc))
        (folder / f"{name}.pretty.json").write_text(json.dumps(doc, indent=2))
    (folder / "batch.jsonl").write_text("\n".join(json.dumps(ddcards.example(n)) for n in ddcards.example_names()))


def fuzz_seconds() -> int:
    """DDCARDS_FUZZ_SECONDS (default 10): a whole number of at least 1 (libFuzzer reads 0 as no limit)."""
    text = os.environ.get("DDCARDS_FUZZ_SECONDS", "10")
    if not text.strip().isdigit() or int(text) < 1:
        sys.exit(f"atheris_documents.py: DDCARDS_FUZZ_SECONDS={text!r}: a whole number of seconds, at least 1 "
                 "(for no limit pass -max_total_time=0 yourself)")
    return int(text)


def main() -> None:
    args = list(sys.argv)
    # libFuzzer's arguments: corpus folders (seeded when empty), or files to replay once (a
    # crash-<hash> it wrote), which are left as they are.
    folders = [a for a in args[1:] if not a.startswith("-") and not Path(a).is_file()]
    for folder in folders:
        seed_corpus(Path(folder))
    if not any(a.startswith(("-max_total_time", "-runs", "-atheris_runs")) for a in args):
        args.append(f"-max_total_time={fuzz_seconds()}")
    atheris.Setup(args, one_input)
    atheris.Fuzz()           # libFuzzer prints "Done N runs" at the end, or stops at a crash


if __name__ == "__main__":
    main()
