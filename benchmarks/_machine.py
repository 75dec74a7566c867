"""What a benchmark's report says of the machine it ran on.

Every script prints this line above its figures, so that a figure carries the CPU, the
interpreter, how many CPUs the process may use (``taskset`` and containers lower it: a
thread or job ratio needs that many), the load when it started and the date.
"""
from __future__ import annotations

import os
import platform
import shlex
import sys
import time
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


def machine_line() -> str:
    """'Machine: x86_64 (model), CPython 3.11.7, 2 of 2 CPUs usable, load 0.4, 2026-12-03 10:00 UTC'."""
    load = f"load {os.getloadavg()[0]:.1f}, " if hasattr(os, "getloadavg") else ""
    return (f"Machine: {platform.machine()} ({cpu_model()}), {platform.python_implementation()} "
            f"{platform.python_version()}, {usable_cpus()} of {os.cpu_count()} CPUs usable, {load}"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def command_line() -> str:
    """How this script was run, as a reader would type it: 'python benchmarks/x.py --deals 5'."""
    return "python " + shlex.join([f"benchmarks/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def warn_if_fewer_cpus(needed: int, what: str) -> None:
    """Say on stderr (and so in no table) when `what` needs more CPUs than this process may use."""
    have = usable_cpus()
    if have < needed:
        print(f"warning: {what} needs {needed} CPUs and this process may use {have} (taskset, a container?): "
              "its ratios will be about 1x", file=sys.stderr)
