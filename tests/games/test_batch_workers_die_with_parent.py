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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from procwatch import alive, children, survivors

ROOT = Path(__file__).resolve().parents[2]


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
        workers = {c for c in children(proc.pid) if alive(c)}
        time.sleep(0.05)
    assert proc.poll() is None and len(workers) >= 2, "the batch's pool was not seen"
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    left = survivors(workers)
    assert not left, f"batch workers still running after the parent died ({sig.name})"
