"""``ddcards batch IN -o OUT``: a batch of positions as a job that survives being killed.

The input is read with :func:`ddcards.batch.reader.read_documents` (the batch formats of
docs/RULES.md §0.11: JSON Lines, arrays, one JSON text), each document is validated once,
here, and then:

- a document OUT answers already (an earlier, interrupted run) is skipped;
- a bad document gets its error record (with its line number and the precise message);
- a position equal to one met before (the same canonical document: its *position key*)
  is not searched again: it waits for that search, or copies its record from OUT;
- the rest are searched on every core (threads) or on a Dask cluster, the positions with
  the fewest actions played (the biggest searches) first among the next
  :data:`LOOKAHEAD` positions (more with many searches at once), so that a batch does not
  end on one long search.

Records go to OUT (:class:`~ddcards.batch.journal.Journal`) in the order they finish,
each led by the input's ``line`` (``index`` inside an array, the ``id`` it carried) and,
for a valid position, its ``position_key``; a duplicate also names the document whose
search answered it (``duplicate_of``).  A progress bar runs on a terminal; a summary
closes the run on standard error.  Exit status: the worst of the records (0 all answered,
1 a search stopped by --timeout, 2 a bad document, 3 an internal error or work the
executor lost, which the next run retries).
"""
from __future__ import annotations

import argparse
import hashlib
import heapq
import math
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

import ddcards
from ddcards import errors
from ddcards._jsonio import is_input, printable, read_position, shown
from ddcards.batch.journal import JOB_FORMAT, JOB_SUFFIX, Journal, key_bits
from ddcards.batch.many import ExecutorFailure, Task, solve_tasks
from ddcards.batch.progress import DocumentCounter, ProgressBar, wanted
from ddcards.batch.reader import Entry, Outcome, input_pieces, read_documents
from ddcards.batch.summary import SearchTimes, milliseconds
from ddcards.cli.documents import json_line
from ddcards.cli.status import EXIT_ABORTED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK
from ddcards.cli.streams import unreadable_hint
from ddcards.errors import InvalidOptionError, NotationError, TableMemoryError

__all__ = ["run", "position_key", "LOOKAHEAD"]

#: Positions read ahead of the searches, to start the biggest first: at least this many,
#: and 8 per search running at once.  Each is held as a validated Position (about 6 KiB);
#: far more would only grow the memory and let them go cold in the cache before their search.
LOOKAHEAD = 256
_LABEL_FIELDS = ("line", "index", "column", "id")
MAX_LOST_SHOWN = 10


def position_key(position: ddcards.Position) -> str:
    """The position's fingerprint: 128 bits of BLAKE2b over its canonical document.

    ``to_json()`` is canonical to the byte (the game builds the document, fields in its own
    order, defaults left out), whatever notation and key order the input used."""
    return hashlib.blake2b(position.to_json().encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# ----------------------------------------------------------------- the work items

@dataclass(slots=True)
class _Search:
    """A position to search, and the documents that wait for its answer."""

    entry: Entry
    position: ddcards.Position
    key: str
    duplicates: list[Entry] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Failed:
    """A document answered without a search: not a position (its error)."""

    entry: Entry
    error: BaseException


@dataclass(frozen=True, slots=True)
class _Copy:
    """A duplicate of a position whose record OUT holds already."""

    entry: Entry
    record: dict[str, Any]


class _Plan:
    """Reads the input and hands out the work, biggest searches first (runs on the reader thread)."""

    def __init__(self, source: BinaryIO, journal: Journal, lock: threading.Lock, lookahead: int,
                 failed_before: dict[tuple[int, int | None, int | None], int] | None = None):
        self.source, self.journal, self.lock, self.lookahead = source, journal, lock, lookahead
        self.failed_before = {} if failed_before is None else failed_before   # claimed (popped) as read
        self.pending: dict[str, _Search] = {}   # key -> the search that will answer it (queued or running)
        self.read = 0                           # documents read (answered earlier or not)
        self.answered_before = 0                # ... of them answered by OUT already
        self.finished = False
        self.cut_short: BaseException | None = None   # why the input ended before its end (a runaway line)

    def tasks(self) -> Iterator[Task]:
        queue: list[tuple[int, int, _Search]] = []
        handed = 0
        for seq, entry in enumerate(read_documents(self.source)):
            if entry.ends_input:
                # The reader's second word on a line that runs on and on (past 64 MiB, /dev/zero):
                # nothing after it is read.  That line has its record already; one record a
                # document (a second would make OUT a journal no run can resume): said on stderr.
                self.cut_short = entry.error
                continue
            self.read += 1
            if self.journal.has(entry.place):
                self.answered_before += 1
                self.failed_before.pop(entry.place, None)
                continue
            item = self._item(entry)
            if isinstance(item, _Search):
                # fewer actions played: a bigger search (a proxy that needs no search)
                heapq.heappush(queue, (item.position.ply, seq, item))
                # Read ahead up to the look-ahead, growing from a few so that the first searches start at once.
                while len(queue) > min(self.lookahead, 8 + 2 * handed):
                    handed += 1
                    search = heapq.heappop(queue)[2]
                    yield Task(search, search.position)
            elif item is not None:
                yield Task(item, None)
        self.finished = True
        while queue:
            search = heapq.heappop(queue)[2]
            yield Task(search, search.position)

    def _item(self, entry: Entry) -> _Search | _Failed | _Copy | None:
        if entry.error is not None:
            return _Failed(entry, entry.error)
        try:
            position = ddcards.Position.from_dict(read_position(entry.document))
            key = position_key(position)
        except Exception as exc:          # noqa: BLE001 - a DdcardsError, or a bug: that document's record
            return _Failed(entry, exc)
        with self.lock:
            search = self.pending.get(key)
            if search is not None:
                search.duplicates.append(entry)
                return None
            record = self.journal.lookup(key)
            if record is not None:
                return _Copy(entry, record)
            search = self.pending[key] = _Search(entry, position, key)
            return search


# ----------------------------------------------------------------- records and figures

def _record(entry: Entry, key: str | None, result: Any, error: BaseException | None,
            duplicate_of: dict[str, Any] | None = None) -> dict[str, Any]:
    """One record: the entry's label, its position key, then the answer or the error (Outcome.record)."""
    if isinstance(error, TableMemoryError):             # the API's tt_mb is the command's --tt-mb
        error = error.for_option("--tt-mb")
    body = Outcome(entry, answer=result, error=error).record(lambda res: res.to_dict())
    out = entry.label()
    if key is not None:
        out["position_key"] = key
    if duplicate_of is not None:
        out["duplicate_of"] = duplicate_of
    out.update((k, v) for k, v in body.items() if k not in out)
    return out


def _copy(entry: Entry, record: dict[str, Any]) -> dict[str, Any]:
    """A record for `entry` that repeats the answer of `record` (an earlier search of the same position)."""
    out = entry.label()
    out["position_key"] = record["position_key"]
    out["duplicate_of"] = {k: record[k] for k in _LABEL_FIELDS if k in record}
    out.update((k, v) for k, v in record.items() if k not in out and k not in _LABEL_FIELDS)
    return out


def status_of(record: dict[str, Any]) -> int:
    """The exit status a record stands for (as ddcards solve's: 0 answered, 1 stopped, 2 bad input, 3 a bug)."""
    kind = record.get("error_type")
    if kind is None:
        return EXIT_OK
    if kind == "InternalError":
        return EXIT_INTERNAL
    cls = getattr(errors, str(kind), None)              # the error classes are named in the record
    stopped = isinstance(cls, type) and issubclass(cls, errors.SearchAborted)
    return EXIT_ABORTED if stopped else EXIT_BAD_INPUT


class _Tally:
    """What the records say: counts by outcome, search times (of the searches, not their copies)."""

    def __init__(self) -> None:
        self.records = 0
        self.earlier = 0
        self.foreign = 0        # of the earlier records, those that answer no document of the input
        self.failures = {EXIT_ABORTED: 0, EXIT_BAD_INPUT: 0, EXIT_INTERNAL: 0}
        # The failed records read back from OUT, by (line, index): those the input's documents do
        # not claim (a hand-edited OUT) come out of the failures again (_Plan.tasks claims them)
        self.failed_before: dict[tuple[int, int | None, int | None], int] = {}
        self.reading_back = True    # add() is reading OUT's earlier records (Journal's scan)
        self.duplicates = 0
        self.times = SearchTimes()
        self.cut_short: BaseException | None = None    # why the input was read only in part (a runaway line)
        self.gone: BaseException | None = None         # the executor lost (a Dask cluster gone mid-batch)
        self.changed: tuple[int, str] | None = None    # (bytes, sha256) read, where the input changed meanwhile

    def add(self, record: dict[str, Any]) -> None:
        self.records += 1
        status = status_of(record)
        if status != EXIT_OK:
            self.failures[status] += 1
            if self.reading_back:
                self.failed_before[(record["line"], record.get("index"), record.get("column"))] = status
        if "duplicate_of" in record:
            self.duplicates += 1
        elif status == EXIT_OK:
            self.times.add(record.get("elapsed_ms", 0) / 1000, record.get("nodes", 0))

    @property
    def failed(self) -> int:
        return sum(self.failures.values())


# ----------------------------------------------------------------- the input

@dataclass
class _Input:
    name: str
    stream: BinaryIO
    size: int
    sha256: str
    documents: int | None      # an estimate (lines that hold a document), None when unknown


class _UpTo:
    """`stream` read no further than its first `size` bytes (by ``readline``, as the reader reads),
    hashed as it is read: the documents are read lazily, long after the input was hashed, so what
    they were read from is checked against that hash at the end (``changed``)."""

    def __init__(self, stream: BinaryIO, size: int):
        self._stream, self._left = stream, size
        self.digest = hashlib.sha256()
        self.read = 0

    def readline(self, limit: int = -1) -> bytes:
        want = self._left if limit is None or limit < 0 else min(limit, self._left)
        if want <= 0:
            return b""
        data = self._stream.readline(want)
        self._left -= len(data)
        self.digest.update(data)
        self.read += len(data)
        return data

    def changed(self, source: _Input) -> tuple[int, str] | None:
        """(bytes, sha256) of the input as this run read it, with what it left unread (a runaway
        line ends the reading) as it is now, where that differs from the hash taken at the start:
        the file was written while the batch ran.  None where it is the same."""
        try:
            while self._left > 0:
                piece = self._stream.read(min(self._left, 1 << 20))
                if not piece:
                    break               # the file is shorter now
                self._left -= len(piece)
                self.digest.update(piece)
                self.read += len(piece)
        except OSError:
            pass                        # unreadable now: what was read decides
        sha = self.digest.hexdigest()
        return None if (self.read, sha) == (source.size, source.sha256) else (self.read, sha)


def _spooled(source: BinaryIO, shown: str, token: str, stack: ExitStack) -> BinaryIO:
    """A temporary file holding what `source` gives (as far as the reader reads it: an endless
    line, /dev/zero, ends it)."""
    spool = stack.enter_context(tempfile.TemporaryFile(prefix="ddcards-batch-"))
    try:
        for piece, _ in input_pieces(source):
            spool.write(piece)
    except OSError as exc:
        raise NotationError(f"cannot read {shown}: {exc.strerror}", token=token, rule="readable file") from None
    return spool


def _open_input(name: str, stack: ExitStack) -> _Input:
    """The input, hashed (to know it again on resume) and its documents counted (for the ETA).

    Standard input, and any input that cannot be read twice (a pipe given by name: <(...),
    /dev/stdin, a FIFO), is copied to a temporary file first: it is read twice, and a resumed
    run must see the same bytes.
    """
    stream: BinaryIO
    if name == "-":
        stdin: Any = getattr(sys.stdin, "buffer", sys.stdin)
        if stdin is None:
            raise NotationError("cannot read standard input: it is closed", token="-", rule="readable file")
        stream, shown = _spooled(stdin, "standard input", "-", stack), "standard input"
    else:
        shown = printable(name)           # a file name may hold what a terminal would act on
        try:
            stream = stack.enter_context(open(name, "rb"))
        except OSError as exc:
            hint = unreadable_hint(name, "batch", example_option=False)
            raise NotationError(f"cannot read {shown}: {exc.strerror}{hint}", token=name,
                                rule="readable file") from None
        if not stream.seekable():
            stream = _spooled(stream, shown, name, stack)
    stream.seek(0)
    digest = hashlib.sha256()
    counter = DocumentCounter()
    size = 0
    try:
        for piece, starts in input_pieces(stream):     # pieces: a line may be endless (/dev/zero)
            digest.update(piece)
            if starts:
                counter.feed(piece)
            size += len(piece)
    except OSError as exc:
        raise NotationError(f"cannot read {shown}: {exc.strerror}", token=name, rule="readable file") from None
    stream.seek(0)
    return _Input(shown, stream, size, digest.hexdigest(), counter.total())


def _job(source: _Input, args: argparse.Namespace) -> dict[str, Any]:
    """What OUT answers (OUT.job): the input, and the options that change answers."""
    return {"format": JOB_FORMAT, "ddcards": ddcards.__version__, "input_name": source.name,
            "input": {"bytes": source.size, "sha256": source.sha256},
            # --timeout inf is no limit, as none given: the same job (and strict JSON, not Infinity)
            "options": {"mode": args.mode,
                        "timeout": None if args.timeout is None or math.isinf(args.timeout) else args.timeout}}


# ----------------------------------------------------------------- the job

OUTPUT_RULE = "-o: the output is a new file"


def run(args: argparse.Namespace) -> int:
    """Run ``ddcards batch`` with parsed `args`; the exit status."""
    if not args.output:             # (an unset shell variable, -o "$OUT"): said as such, not "cannot write : ..."
        raise InvalidOptionError("-o '': the output's file name is empty: give the file the answers go to",
                                 token="", rule=OUTPUT_RULE)
    if args.output == "-":          # as the input's "-" reads standard input: it would make a file named "-"
        raise InvalidOptionError("-o -: the output of ddcards batch is a file, which it reads back to resume the "
                                 "job, not standard output (give a file name; `ddcards solve --json` writes to "
                                 "standard output)", token="-", rule=OUTPUT_RULE)
    if is_input(args.input, args.output):
        raise InvalidOptionError(f"the output {args.output} is the input: choose another file", token=args.output,
                                 rule=OUTPUT_RULE)
    if is_input(args.input, args.output + JOB_SUFFIX):
        # OUT's job file would be written over the input (replaced whole: it was lost for good)
        raise InvalidOptionError(f"the output's job file {args.output + JOB_SUFFIX} is the input: choose another "
                                 "output file", token=args.output, rule=OUTPUT_RULE)
    if args.dask is not None:
        _check_dask(args.dask, args.jobs)
    with ExitStack() as stack:
        source = _open_input(args.input, stack)
        tally = _Tally()
        journal = Journal(args.output, _job(source, args), restart=args.restart, on_record=tally.add)
        # A run that writes no record leaves no OUT it made (nor its job file) behind: an empty
        # input, or a cluster that cannot be reached.
        stack.callback(journal.close, remove_if_empty=True)
        tally.earlier = tally.records
        tally.reading_back = False
        show = wanted(args.progress)
        for note in journal.notes:
            print(f"ddcards: {printable(args.output)}: {note}", file=sys.stderr)
        jobs, executor = args.jobs, None
        if args.dask:
            from ddcards.batch.cluster import dask_client

            try:
                executor, where = stack.enter_context(dask_client(args.dask, args.jobs))
            except KeyboardInterrupt as exc:    # Ctrl-C or SIGTERM while the cluster started
                _say_stopped(exc, tally)
                raise
            jobs = None                        # the cluster's threads set the pace
        else:
            from ddcards.ddtable import available_threads

            jobs = jobs or available_threads()
            where = f"{jobs} thread{'s' if jobs != 1 else ''}"
        bar = ProgressBar(show, total=source.documents, initial=tally.records)
        stack.callback(bar.close)
        start = time.perf_counter()
        try:
            lost = _run(args, source, journal, tally, bar, executor, jobs)
        except KeyboardInterrupt as exc:
            bar.close()
            _say_stopped(exc, tally)
            raise
        wall = time.perf_counter() - start
        bar.close()
        if tally.changed is not None:
            # OUT's answers are of the bytes as read: OUT.job names those (under OUT's lock), so
            # that no later run mixes them with answers to the input as it was (or as it is, if
            # it changed again) without --restart.
            job = _job(source, args)
            job["input"] = {"bytes": tally.changed[0], "sha256": tally.changed[1]}
            journal.rewrite_job(job)
    if tally.cut_short is not None:
        line = getattr(tally.cut_short, "token", None)
        print(f"ddcards: {source.name}{' ' + line if line else ''}: {tally.cut_short}", file=sys.stderr)
    if tally.gone is not None:
        print(f"ddcards batch: {tally.gone}; {tally.records:,} answers are in {printable(args.output)}: run the same "
              "command again to go on", file=sys.stderr)
    if tally.foreign:
        print(f"ddcards: {printable(args.output)}: {counted(tally.foreign, 'record')} of an earlier run answer"
              f"{'s' if tally.foreign == 1 else ''} no document of the input (a line it does not have: was "
              f"{printable(args.output)} edited?); the counts below leave {'it' if tally.foreign == 1 else 'them'} out",
              file=sys.stderr)
    if not tally.records and not lost and tally.gone is None:
        print(f"ddcards: error: {source.name} holds no position document (it is empty, or only blank lines "
              "and comments)", file=sys.stderr)
        return EXIT_BAD_INPUT
    _summary(args, source, tally, lost, wall, where)
    status = max((k for k, n in tally.failures.items() if n), default=EXIT_OK)
    if tally.changed is not None:
        size = tally.changed[0]
        print(f"ddcards batch: error: {source.name} changed while the batch read it ({source.size:,} bytes when "
              f"the run began, {size:,} as read): the answers in {printable(args.output)} are of the file as it "
              f"was read, which its job file now names; to answer the file as it is, run again with --restart",
              file=sys.stderr)
        status = max(status, EXIT_BAD_INPUT)
    return max(status, EXIT_INTERNAL if lost or tally.gone is not None else EXIT_OK)


def _check_dask(address: str, jobs: int | None) -> None:
    """--dask's address, and --jobs beside it, before the input is read or OUT opened."""
    from ddcards.batch.cluster import DASK_RULE

    if not address.strip():
        # (an unset shell variable, --dask "$SCHEDULER"): it ran on this machine's threads, unsaid
        raise InvalidOptionError(f"--dask {shown(address)}: give a Dask scheduler's address (tcp://HOST:8786) or "
                                 "'local', or leave --dask out to run on this machine's threads",
                                 token=address, rule=DASK_RULE)
    if address != "local" and address.strip().lower() == "local":     # (taken for a scheduler's address)
        raise InvalidOptionError(f"--dask {address!r}: the local cluster is written 'local', in lower case",
                                 token=address, rule=DASK_RULE)
    if address != "local" and jobs is not None:
        # (it was dropped unsaid: the cluster's workers run what they run)
        raise InvalidOptionError(f"--jobs {jobs} does not apply to the Dask cluster at {address}: its workers "
                                 "set how many searches run at once (dask worker --nworkers N --nthreads 1); leave "
                                 "--jobs out, or give it with --dask local", token=f"--jobs {jobs}",
                                 rule=DASK_RULE)


def _say_stopped(exc: KeyboardInterrupt, tally: _Tally) -> None:
    how = "stopped by SIGTERM" if isinstance(exc, Terminated) else "interrupted"
    written = tally.records - tally.earlier
    print(f"ddcards batch: {how} after {written:,} answer{'' if written == 1 else 's'}; "
          "run the same command again to go on", file=sys.stderr)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a service manager stopping the batch, `kill`): it stops as Ctrl-C does, OUT whole
    and the count said, with exit status 143 (128 + SIGTERM)."""


class _CtrlCHold:
    """Ctrl-C (SIGINT) held back while records are written to OUT and counted, so that
    "interrupted after N answers" is what OUT holds (a Ctrl-C between the two left the count one
    write short).  One handler for the whole run, which a write only flags (swapping handlers at
    every write cost 9 us of the batch's 0.1 ms a position); a signal caught meanwhile goes to
    the handler there was once the write is done.  (Blocking SIGINT in this thread would not do:
    the kernel hands it to a search thread, and Python raises it here all the same.)  Only the
    main thread may set handlers, and it is the one that takes SIGINT: elsewhere a no-op.
    SIGTERM, where nobody else handles it, is held and taken the same way (Terminated), where
    it killed the batch at once, without the count or the summary.

    `stop` is cancelled as soon as such a signal arrives, from a thread that watches Python's
    wakeup file descriptor: a search running on the main thread (the one job's) holds the
    handler off until it returns, so it is stopped first (it went on to its end, minutes, and
    its answer was then thrown away).  That is SIGTERM's way; Ctrl-C the search core takes
    itself while it runs on the main thread, stops and hands on (the api's Solver.solve)."""

    def __init__(self, stop: ddcards.CancelToken | None = None) -> None:
        self.holding = False
        self.caught: list[int] = []
        self._previous: dict[int, Any] = {}
        self._stop = stop
        self._wakeup: tuple[int, int, int] | None = None        # (read end, write end, the fd before)

    def __enter__(self) -> _CtrlCHold:
        if threading.current_thread() is threading.main_thread():
            self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._handle)
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                self._previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._handle)
            if self._stop is not None:
                self._watch()
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous = {}
        if self._wakeup is not None:
            read, write, before = self._wakeup
            self._wakeup = None
            signal.set_wakeup_fd(before)
            os.close(write)                 # the watcher reads the end of the pipe and ends
            self._watcher.join()
            os.close(read)

    def take_signal(self) -> None:
        """`stop` was cancelled by a signal whose handler has not run yet: give it the moment it
        needs (it raises KeyboardInterrupt or Terminated); a Ctrl-C, should it not come."""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            time.sleep(0.01)
        raise KeyboardInterrupt

    def _watch(self) -> None:
        """Cancel `stop` when a signal that ends the run arrives (Python writes its number to the
        wakeup fd at once, whatever the main thread is doing)."""
        read, write = os.pipe()
        os.set_blocking(write, False)
        try:
            before = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        except ValueError:                  # not the main thread of the main interpreter
            os.close(read)
            os.close(write)
            return
        self._wakeup = (read, write, before)
        stopping = {signal.SIGTERM} if signal.SIGTERM in self._previous else set()
        if self._previous.get(signal.SIGINT) != signal.SIG_IGN:     # an ignored Ctrl-C stops nothing
            stopping.add(signal.SIGINT)
        stop = self._stop

        def watch() -> None:
            while True:
                try:
                    got = os.read(read, 64)
                except OSError:
                    return
                if not got:
                    return
                if stop is not None and any(signum in stopping for signum in got):
                    stop.cancel()

        self._watcher = threading.Thread(target=watch, name="ddcards-signals", daemon=True)
        self._watcher.start()

    def _handle(self, signum: int, frame: Any) -> None:
        if self.holding:
            self.caught.append(signum)
        else:
            self._deliver(signum, frame)

    def _deliver(self, signum: int, frame: Any) -> None:
        previous = self._previous.get(signum)
        if signum == signal.SIGTERM:
            raise Terminated
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    def release(self) -> None:
        """The write is done: a Ctrl-C (or SIGTERM) caught meanwhile takes effect now."""
        self.holding = False
        if self.caught:
            signum = signal.SIGTERM if signal.SIGTERM in self.caught else self.caught[0]
            self.caught = []
            self._deliver(signum, None)


def _run(args: argparse.Namespace, source: _Input, journal: Journal, tally: _Tally, bar: ProgressBar,
         executor: Any, jobs: int | None) -> int:
    """Answer every document OUT lacks; the number the executor lost (not written: the next run retries).
    Why the input was read only in part, if it was, goes to ``tally.cut_short``."""
    lock = threading.Lock()
    parallel = jobs if executor is None else _parallel(executor)
    # Only the bytes OUT.job describes: an input that grows while the run reads it (a log still
    # written) is answered as it was when hashed, and the next run refuses OUT as another job's.
    reading = _UpTo(source.stream, source.size)
    plan = _Plan(cast(BinaryIO, reading),      # (the reader only calls readline)
                 journal, lock, max(LOOKAHEAD, 8 * (parallel or 1)), tally.failed_before)
    lost = lost_searches = 0

    def write(records: list[dict[str, Any]]) -> int:
        hold.holding = True
        try:
            offset = journal.append([json_line(r) for r in records])
            for record in records:
                tally.add(record)
        finally:
            hold.release()
        bar.update(len(records))
        if tally.failed:
            bar.note(f"{tally.failed} failed")
        return offset

    stop = ddcards.CancelToken()
    answers = solve_tasks(plan.tasks(), jobs=jobs, executor=executor, mode=args.mode, timeout=args.timeout,
                          tt_mb=args.tt_mb, cancel=stop)
    with _CtrlCHold(stop) as hold:
        try:
            for item, result, error in _until_lost(answers, tally):
                if stop.cancelled:
                    hold.take_signal()      # a search stopped by a signal: no record of it, the signal's end
                if plan.finished:
                    bar.set_total(plan.read)
                if isinstance(item, _Failed):
                    write([_record(item.entry, None, None, item.error)])
                elif isinstance(item, _Copy):
                    write([_copy(item.entry, item.record)])
                elif isinstance(error, ExecutorFailure):
                    with lock:
                        del plan.pending[item.key]
                    lost += 1 + len(item.duplicates)
                    lost_searches += 1
                    if lost_searches <= MAX_LOST_SHOWN:      # a lost cluster loses every task: say it a few times
                        bar.message(f"ddcards: line {item.entry.line}: {error}")
                else:
                    with lock:                      # the planner sees the search pending, or its record in OUT
                        del plan.pending[item.key]
                        owner = _record(item.entry, item.key, result, error)
                        label = item.entry.label()
                        copies = [_record(e, item.key, result, error, duplicate_of=label) for e in item.duplicates]
                        offset = write([owner, *copies])
                        journal.index.add(key_bits(item.key), offset)
        finally:
            answers.close()
    bar.set_total(plan.read)
    tally.cut_short = plan.cut_short
    if tally.gone is None:
        tally.changed = reading.changed(source)
    if plan.finished and plan.cut_short is None:
        # OUT.job matched the input, so only a hand-edited OUT answers a line the input lacks.
        tally.foreign = max(0, tally.earlier - plan.answered_before)
        for status in plan.failed_before.values():      # the failed ones among them: not this input's
            tally.failures[status] -= 1
    return lost


def _until_lost(answers: Any, tally: _Tally) -> Iterator[Any]:
    """The answers, until the executor itself is lost (a Dask cluster gone): said in ``tally.gone``."""
    try:
        yield from answers
    except ExecutorFailure as exc:
        tally.gone = exc


def _parallel(executor: Any) -> int:
    """How many searches `executor` runs at once (a Dask client's threads, a pool's workers)."""
    nthreads = getattr(executor, "nthreads", None)
    if callable(nthreads):
        return max(1, sum(int(n) for n in nthreads().values()))
    return max(1, int(getattr(executor, "_max_workers", 1)))


def counted(n: int, word: str) -> str:
    """'1 document', '2 documents'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _summary(args: argparse.Namespace, source: _Input, tally: _Tally, lost: int, wall: float, where: str) -> None:
    times = tally.times
    now = tally.records - tally.earlier
    documents, earlier = tally.records - tally.foreign, tally.earlier - tally.foreign
    parts = [counted(documents, "document") + (f" ({earlier:,} answered by earlier runs)" if earlier else ""),
             f"{now:,} answered in {wall:.2f} s" + (f" ({_per_second(now / wall)}/s)" if wall > 0 and now else "")
             + f" on {where}"]
    bad, stopped, internal = (tally.failures[k] for k in (EXIT_BAD_INPUT, EXIT_ABORTED, EXIT_INTERNAL))
    failed = ", ".join(text for n, text in ((bad, f"{bad:,} bad input"), (stopped, f"{stopped:,} stopped"),
                                            (internal, counted(internal, "internal error"))) if n)
    parts.append(f"{tally.failed:,} failed" + (f" ({failed})" if failed else ""))
    if tally.duplicates:
        parts.append(f"{counted(tally.duplicates, 'duplicate')} answered by the search of "
                     f"{'its' if tally.duplicates == 1 else 'their'} first copy")
    if tally.gone is not None:
        # The executor itself is gone (a Dask scheduler killed): besides the tasks it had out, what
        # was never handed out is unanswered too; the input's count says how much (an audit: the
        # in-flight tasks alone were said, 53 of 304 left)
        # (the count is of lines that hold documents: about, where a line holds an array of them)
        left = None if source.documents is None else max(source.documents - documents, lost)
        parts.append(("the rest" if left is None else f"about {left:,}")
                     + " not answered: the executor was lost (run the same command again)")
    elif lost:
        parts.append(f"{lost:,} not answered: the executor lost their tasks (run the same command again)")
    print(f"ddcards batch: {source.name} -> {printable(args.output)}: " + "; ".join(parts), file=sys.stderr)
    if times.count:
        approx = "" if times.exact else "~"
        print(f"ddcards batch: search time per position: median {approx}{milliseconds(times.quantile(0.5))}, "
              f"p90 {approx}{milliseconds(times.quantile(0.9))}, max {milliseconds(times.max)}; "
              f"{_rate(times.nodes_per_second())} nodes/s per search thread", file=sys.stderr)


def _per_second(rate: float) -> str:
    """Documents a second: 642, 3.7, 0.15 (a batch of long searches said "(0/s)" for 64 answers)."""
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"


def _rate(per_second: float) -> str:
    return f"{per_second / 1e6:.1f} M" if per_second >= 1e6 else f"{per_second:,.0f}"
