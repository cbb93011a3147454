"""Watching a process's children through Linux /proc (the orphan tests, issue #21)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


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
