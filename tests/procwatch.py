"""Watching a process's children through Linux /proc (the orphan tests, issue #21),
and waiting on what can be observed (a process, a file, CPU time spent) instead of a
fixed sleep (issue #44, docs/testing.md)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import Popen
from typing import TypeVar

T = TypeVar("T")

HERTZ = os.sysconf("SC_CLK_TCK")


def children(pid: int) -> set[int]:
    """The pids of ``pid``'s children (all its threads')."""
    out: set[int] = set()
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out |= {int(x) for x in (task / "children").read_text().split()}
    except OSError:
        pass
    return out


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def needs_proc() -> None:
    """Fail (never skip) where Linux /proc is missing: these tests watch processes there."""
    if not Path("/proc/self/task").is_dir():
        raise AssertionError("Linux /proc is missing: this test watches the workers there "
                             "(wdg's pools die with their parent through Linux prctl)")


def pool(pid: int, size: int) -> set[int]:
    """``pid``'s running children once there are at least ``size``, else nothing."""
    live = {c for c in children(pid) if alive(c)}
    return live if len(live) >= size else set()


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used so far (user + system; 0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / HERTZ


def in_session(sid: int) -> list[int]:
    """The running processes (zombies excluded) of session ``sid``: a process
    started with ``start_new_session=True`` and everything it started."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(")")[-1].split()
        except OSError:  # ended meanwhile
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            out.append(int(stat.parent.name))
    return out


def wait_until(check: Callable[[], T], what: str, timeout: float = 60.0,
               proc: Popen | None = None) -> T:
    """Poll ``check`` until it returns something true and return that; fail after
    ``timeout`` seconds, or when ``proc`` ends first, naming ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            got = check()  # what it did last
            if got:
                return got
            raise AssertionError(f"the process ended (exit {proc.returncode}) while "
                                 f"waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}: not seen")
        time.sleep(0.02)


def survivors(workers: set[int], wait: float = 10.0) -> list[int]:
    """The workers still running ``wait`` seconds after their parent died;
    they are killed so that a failing test leaves nothing behind."""
    end = time.monotonic() + wait
    while time.monotonic() < end and any(alive(w) for w in workers):
        time.sleep(0.05)
    left = [w for w in workers if alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    return left
