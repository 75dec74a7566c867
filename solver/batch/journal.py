"""The output of ``ddcards batch`` as an append-only journal that a killed run resumes.

The output file (OUT) is JSON Lines, one record per input document, in the order the
answers finish.  It is written only by appending, each record (or the records of one
search: a position and its duplicates) in one ``write``: a run killed at any moment —
SIGKILL, a power cut — leaves every record whole except perhaps an unfinished last line,
which the next run cuts off before going on.  Beside OUT, ``OUT.job`` (written once,
atomically: a temporary file, fsync, rename) says what OUT answers: the input's size and
SHA-256 and the options that change answers (mode, timeout).  Running the same command
again finds OUT and its job file, checks that they match, and answers only the documents
OUT does not have yet — none lost, none twice.  OUT is fsynced about once a second and at
the end, so a power cut costs at most the last second's answers (which are solved again).
"""
from __future__ import annotations

import bisect
import contextlib
import fcntl
import heapq
import json
import math
import os
import re
import stat
import tempfile
import time
from array import array
from collections.abc import Callable
from typing import Any

from ddcards._jsonio import token_text, whole_number
from ddcards.errors import InvalidOptionError, NotationError

__all__ = ["Journal", "KeyIndex", "JOB_SUFFIX", "JOB_FORMAT", "RESUME_RULE"]

JOB_SUFFIX = ".job"
JOB_FORMAT = "ddcards-batch/1"
RESUME_RULE = "docs/BATCH.md: a batch resumes with the same input and options into its own output file"
WRITE_RULE = "-o: a file that can be written"
SYNC_SECONDS = 1.0
#: A record's position_key: 128 bits in hex (job.position_key).
_KEY = re.compile(r"[0-9a-f]{32}")


class KeyIndex:
    """64-bit keys to file offsets, the first offset given for a key kept.

    Sorted arrays (16 bytes a key) hold the bulk and a dict the newest keys; the dict is
    merged in when it reaches an eighth of the arrays, so memory stays near 25 bytes a key
    (a plain dict takes about 100; 100,000 keys: 2.2 MB, 4.6 MB at the peak of a merge) and
    the merges cost a few microseconds a key.
    """

    MIN_MERGE = 4096
    RATIO = 8

    def __init__(self) -> None:
        self._keys = array("Q")
        self._offsets = array("Q")
        self._recent: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._keys) + len(self._recent)

    def get(self, key: int) -> int | None:
        offset = self._recent.get(key)
        if offset is not None:
            return offset
        i = bisect.bisect_left(self._keys, key)
        if i < len(self._keys) and self._keys[i] == key:
            return self._offsets[i]
        return None

    def add(self, key: int, offset: int) -> None:
        if self.get(key) is not None:
            return
        self._recent[key] = offset
        if len(self._recent) >= max(self.MIN_MERGE, len(self._keys) // self.RATIO):
            self._merge()

    def _merge(self) -> None:
        keys, offsets = array("Q"), array("Q")
        for key, offset in heapq.merge(zip(self._keys, self._offsets), sorted(self._recent.items())):
            keys.append(key)
            offsets.append(offset)
        self._keys, self._offsets, self._recent = keys, offsets, {}


class _Done:
    """Which input documents OUT answers: a bit per line, and the places (line, index, column) of
    the documents in arrays or sharing a line."""

    def __init__(self, max_line: int | None = None) -> None:
        """max_line: the last line the input may have (its size in bytes, plus one); a record of a
        line past it (an OUT edited by hand) is kept among the places, not as a bit of a bytearray
        as long as that line number."""
        self._lines = bytearray()
        self._places: set[tuple[int, int | None, int | None]] = set()
        self._max_line = max_line
        self.count = 0

    def _bits(self, line: int, index: int | None, column: int | None) -> bool:
        return index is None and column is None and (self._max_line is None or line <= self._max_line)

    def add(self, line: int, index: int | None, column: int | None = None) -> bool:
        """Mark it; False if it was marked already."""
        if not self._bits(line, index, column):
            if (line, index, column) in self._places:
                return False
            self._places.add((line, index, column))
        else:
            byte, bit = divmod(line, 8)
            if byte >= len(self._lines):
                self._lines.extend(bytes(byte + 1 - len(self._lines) + len(self._lines) // 2))
            if self._lines[byte] >> bit & 1:
                return False
            self._lines[byte] |= 1 << bit
        self.count += 1
        return True

    def __contains__(self, place: tuple[int, int | None, int | None]) -> bool:
        line, index, column = place
        if not self._bits(line, index, column):
            return place in self._places
        byte, bit = divmod(line, 8)
        return byte < len(self._lines) and bool(self._lines[byte] >> bit & 1)


def key_bits(key: str) -> int:
    """The 64 bits of a position key that the index holds (a hit is checked on the whole key)."""
    return int(key[:16], 16)


class Journal:
    """OUT, opened to append (and resumed if it holds a run of the same job).

    `job` is what OUT answers (its ``input`` and ``options`` must match to resume);
    `on_record(record)` sees every record a resumed OUT already holds.  :attr:`notes`
    says what opening did (resumed, cut an unfinished line), for the user.
    """

    def __init__(self, path: str, job: dict[str, Any], *, restart: bool = False,
                 on_record: Callable[[dict[str, Any]], None] | None = None):
        self.path = path
        self.job_path = path + JOB_SUFFIX
        size = (job.get("input") or {}).get("bytes") if isinstance(job.get("input"), dict) else None
        self.done = _Done(size + 1 if whole_number(size) else None)
        self.index = KeyIndex()
        self.notes: list[str] = []
        self.resumed = False
        if os.path.isdir(path):
            raise InvalidOptionError(f"the output {path} is a folder: give a file", token=path, rule=WRITE_RULE)
        _check_regular(path)    # a device or a pipe cannot be a journal (and is never removed as an empty OUT)
        # An empty OUT holds no answers (a run that failed before any, or a file made for it):
        # it is written as a new one, whatever job file lies beside it.
        existed = os.path.exists(path) and os.path.getsize(path) > 0
        if existed and not restart:
            self._check_job(job)        # before anything is changed: a foreign file stays as it is
        made = not os.path.exists(path)
        try:
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise InvalidOptionError(f"cannot write {path}: {exc.strerror}", token=path, rule=WRITE_RULE) from None
        try:
            # One writer at a time: a second run of the same command (another terminal, an
            # overlapping cron job) would answer documents twice.  The kernel drops the lock
            # when the process dies, SIGKILL included.  Taken before the job file is written
            # or OUT looked at again: a run refused here must not replace the job file of
            # the run that holds OUT (whose first answer may be minutes away).
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise InvalidOptionError(f"{path} is being written by another ddcards batch: wait for it, or stop it "
                                     "and run the command again to resume", token=path, rule=RESUME_RULE) from None
        self.size = 0
        self._replacing: dict[str, Any] | None = None     # --restart: the job OUT is replaced by at its first record
        try:
            _check_regular(path, os.fstat(self._fd))
            # Under the lock: what OUT holds now (the run that held it may have written since).
            existed = os.fstat(self._fd).st_size > 0
            self.created = not existed
            self.resumed = existed and not restart
            if self.resumed:
                self._check_job(job)
            elif not existed:
                self._write_job(job)    # before any record, so that no answer is in OUT without its job file
            if existed and restart:
                self._check_job_path_is_ours()      # a refusal changes nothing
                # Replaced at the first record, not here: a run that answers nothing (an empty
                # input, a Dask scheduler it cannot reach) leaves the earlier answers as they were
                # (they were cut to nothing, and an empty OUT and a job file left behind).
                self._replacing = job
            if self.resumed:
                self._scan(on_record)
        except BaseException:
            if made:                       # refused or failed: no empty OUT of ours left behind
                with contextlib.suppress(OSError):
                    os.unlink(path)
            os.close(self._fd)             # and with it the lock
            raise
        self._synced = time.monotonic()

    # ------------------------------------------------------------ opening

    def _write_job(self, job: dict[str, Any]) -> None:
        self._check_job_path_is_ours()
        _write_atomically(self.job_path, json.dumps(job, ensure_ascii=False, indent=1) + "\n")

    def rewrite_job(self, job: dict[str, Any]) -> None:
        """Name another job in OUT.job (the input as a run read it, when it changed meanwhile)."""
        if self._replacing is not None:     # nothing written yet: OUT and its job file stay the earlier run's
            self._replacing = job
            return
        self._write_job(job)

    def _check_job_path_is_ours(self) -> None:
        """OUT.job is replaced whole: only a job file (of any earlier run) may be there already, never
        another file that happens to have that name."""
        if not os.path.lexists(self.job_path):
            return
        try:
            # a regular file only: opening a FIFO would wait for a writer for ever
            if not stat.S_ISREG(os.stat(self.job_path).st_mode):
                raise ValueError(self.job_path)
            with open(self.job_path, encoding="utf-8") as fh:
                text = fh.read(65537)           # a job file is a few hundred bytes
            earlier = json.loads(text) if len(text) <= 65536 else None
            # a job file of any run (another version's format too): an object with these fields
            ours = isinstance(earlier, dict) and {"format", "input"} <= set(earlier)
        except (OSError, ValueError):
            ours = False
        if not ours:
            raise InvalidOptionError(f"{self.job_path} exists and is not a ddcards batch job file, and {self.path} "
                                     f"needs that name for its job: move it, or choose another output file",
                                     token=self.job_path, rule=RESUME_RULE)

    def _check_job(self, job: dict[str, Any]) -> None:
        try:
            # a regular file only (opening a FIFO waits for a writer for ever), read no further than
            # a job file can be (a few hundred bytes)
            if not stat.S_ISREG(os.stat(self.job_path).st_mode):
                earlier = None
            else:
                with open(self.job_path, encoding="utf-8") as fh:
                    text = fh.read(65537)
                earlier = json.loads(text) if len(text) <= 65536 else None
        except FileNotFoundError:
            raise InvalidOptionError(
                f"{self.path} exists and is not the output of a ddcards batch (there is no {self.job_path}): "
                "choose another output file, or add --restart to replace it", token=self.path,
                rule=RESUME_RULE) from None
        except (OSError, ValueError) as exc:
            raise InvalidOptionError(f"cannot read {self.job_path}: {exc}", token=self.job_path,
                                     rule=RESUME_RULE) from None
        if not isinstance(earlier, dict) or earlier.get("format") != JOB_FORMAT or \
                not all(isinstance(earlier.get(field), (dict, type(None))) for field in ("input", "options")):
            raise InvalidOptionError(f"{self.job_path} is not a ddcards batch job file (format {JOB_FORMAT})",
                                     token=self.job_path, rule=RESUME_RULE)
        options = earlier.get("options")
        if isinstance(options, dict) and options.get("timeout") == float("inf"):
            # written as Infinity by runs before --timeout inf was kept as no limit (null)
            earlier["options"] = dict(options, timeout=None)
        for field in ("input", "options"):
            was, now = earlier.get(field), job.get(field)
            if was == now:
                continue
            changed = [k for k in sorted(set(was or {}) | set(now or {}))
                       if (was or {}).get(k) != (now or {}).get(k)]
            what = ", ".join(f"{field}.{k} was {json.dumps((was or {}).get(k))}, now {json.dumps((now or {}).get(k))}"
                             for k in changed)
            raise InvalidOptionError(
                f"{self.path} holds answers to another job ({what}): run the same input with the same options "
                "to resume it, or add --restart to start again", token=self.path, rule=RESUME_RULE)

    def _scan(self, on_record: Callable[[dict[str, Any]], None] | None) -> None:
        """Read the records OUT holds; cut an unfinished last line."""
        offset = 0
        lineno = 0
        bad: tuple[int, int, bytes] | None = None       # (line, offset, text) of a line that is no record
        with open(self.path, "rb") as fh:
            for raw in fh:
                lineno += 1
                if bad is not None:
                    raise self._corrupt(bad[0], bad[2])
                record = _parse_record(raw) if raw.endswith(b"\n") else None
                if record is None:
                    bad = (lineno, offset, raw)
                    offset += len(raw)
                    continue
                if not self.done.add(record["line"], record.get("index"), record.get("column")):
                    raise self._corrupt(lineno, raw, "answers a document that an earlier line answers")
                key = record.get("position_key")
                if isinstance(key, str) and "duplicate_of" not in record:
                    self.index.add(key_bits(key), offset)
                if on_record is not None:
                    on_record(record)
                offset += len(raw)
        if bad is not None:              # only the last line may be unfinished: a kill in mid-write
            os.truncate(self.path, bad[1])
            self.notes.append(f"cut an unfinished last line ({len(bad[2])} bytes) that the interrupted run left")
            offset = bad[1]
        self.size = offset
        self.notes.append(f"resuming: {self.done.count} document{'' if self.done.count == 1 else 's'} answered "
                          "already")

    def _corrupt(self, lineno: int, raw: bytes, why: str = "is not a record of ddcards batch"
                 ) -> NotationError:
        return NotationError(f"{self.path} line {lineno} {why} (was the file changed by hand?): "
                             "add --restart to start again", token=token_text(raw[:40].decode("utf-8", "replace")),
                             rule=RESUME_RULE)

    # ------------------------------------------------------------ reading and writing

    def has(self, place: tuple[int, int | None, int | None]) -> bool:
        """Does OUT answer the document at this place (Entry.place) already (from an earlier run)?"""
        return place in self.done

    def lookup(self, key: str) -> dict[str, Any] | None:
        """The record of the search that answered the position with this key, if OUT holds one."""
        offset = self.index.get(key_bits(key))
        if offset is None:
            return None
        record = _parse_record(self._read_line(offset))
        return record if record is not None and record.get("position_key") == key else None

    def _read_line(self, offset: int) -> bytes:
        parts = []
        while True:
            piece = os.pread(self._fd, 8192, offset)
            if not piece:
                break
            end = piece.find(b"\n")
            if end >= 0:
                parts.append(piece[:end + 1])
                break
            parts.append(piece)
            offset += len(piece)
        return b"".join(parts)

    def append(self, lines: list[str]) -> int:
        """Append records (JSON texts without their newline) in one write; the offset of the first."""
        data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
        if self._replacing is not None:     # --restart: the earlier answers go now, with the first record
            job, self._replacing = self._replacing, None
            try:
                os.ftruncate(self._fd, 0)
            except OSError as exc:
                raise self._write_failed(exc) from None
            self._write_job(job)
        start = self.size
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError as exc:          # a full disk, a quota, an I/O error: the records before stay whole
            raise self._write_failed(exc) from None
        self.size += len(data)
        now = time.monotonic()
        if now - self._synced >= SYNC_SECONDS:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise self._write_failed(exc) from None
            self._synced = now
        return start

    def _write_failed(self, exc: OSError) -> NotationError:
        """A failed write of OUT: what happened, and what OUT keeps (its whole records; a torn last
        line is cut by the next run)."""
        if self.size:
            kept = "the answers written before are kept"
        else:
            kept = "no answer was written whole yet"
        return NotationError(f"cannot write the output {self.path}: {exc.strerror or exc}; {kept}: make room "
                             "and run the same command again to go on",
                             token=self.path, rule=WRITE_RULE)

    def close(self, remove_if_empty: bool = False) -> None:
        """Sync and close OUT (which lets go of its lock).  `remove_if_empty`: if this run made OUT
        and wrote no record into it, remove OUT and its job file first, while the lock is held (a
        run that took the lock in between would have answered into a file then removed)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            if remove_if_empty and self.created and not self.size:
                for path in (self.path, self.job_path):
                    with contextlib.suppress(OSError):
                        os.unlink(path)
            try:
                os.fsync(fd)
            except OSError as exc:
                raise self._write_failed(exc) from None
            finally:
                os.close(fd)


def _check_regular(path: str, st: os.stat_result | None = None) -> None:
    """Refuse an OUT that is not a regular file: a device (/dev/null, /dev/full), a pipe, a socket.
    A journal is read back, cut and fsynced to resume, and an empty OUT of a run that answered
    nothing is removed, which for /dev/null would remove the device."""
    if st is None:
        try:
            st = os.stat(path)
        except OSError:
            return                      # not there yet (or not reachable: opening it says why)
    if not stat.S_ISREG(st.st_mode):
        raise InvalidOptionError(f"the output {path} is not a regular file (a device, a pipe or a socket): give a "
                                 "file, which ddcards batch reads back to resume the job", token=path, rule=WRITE_RULE)


def _parse_record(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    line, index, column = record.get("line"), record.get("index"), record.get("column")
    if not whole_number(line) or line < 1 or not (index is None or whole_number(index) and index >= 0):
        return None                     # (true is no line number, though Python's bool is an int)
    if not (column is None or whole_number(column) and column >= 1):
        return None
    key = record.get("position_key")
    if key is not None and not (isinstance(key, str) and _KEY.fullmatch(key)):
        return None                     # (the index takes its first 64 bits as hex digits)
    for count in ("elapsed_ms", "nodes"):       # summed by the run's summary
        value = record.get(count, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
            return None
    return record


def _umask() -> int:
    """The process's umask, read without changing it (os.umask sets it, for every thread at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _write_atomically(path: str, text: str) -> None:
    """`text` into `path` whole or not at all: a temporary file beside it, fsync, rename, fsync the folder."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".ddcards-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InvalidOptionError(f"cannot write in {folder}: {exc.strerror}", token=path, rule=WRITE_RULE) from None
    try:
        try:
            # mkstemp made it private (0600): give it the mode a new OUT gets (0644 less the umask),
            # so that whoever may read OUT may resume it
            os.fchmod(fd, 0o644 & ~_umask())
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, path)
        except OSError as exc:          # a full disk, a quota
            raise InvalidOptionError(f"cannot write {path}: {exc.strerror or exc}", token=path,
                                     rule=WRITE_RULE) from None
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
