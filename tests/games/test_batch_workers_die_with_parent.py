"""Batch workers die with their parent (issue #21, wdg/procs.py): a
``wdg games batch --jobs 2`` killed while its pool plays leaves no worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out |= {int(x) for x in (task / "children").read_text().split()}
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_a_batch_leaves_no_worker(tmp_path, sig):
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "games", "batch", "four_gods",
                             "--games", "100000", "--players", "4", "--jobs", "2", "--seed", "1",
                             "--json", str(tmp_path / "stats.json")],
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
        workers = {c for c in _children(proc.pid) if _alive(c)}
        time.sleep(0.05)
    assert proc.poll() is None and len(workers) >= 2, "the batch's pool was not seen"
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    end = time.monotonic() + 10
    while time.monotonic() < end and any(_alive(w) for w in workers):
        time.sleep(0.05)
    survivors = [w for w in workers if _alive(w)]
    for w in survivors:
        os.kill(w, signal.SIGKILL)
    assert not survivors, f"batch workers still running after the parent died ({sig.name})"
