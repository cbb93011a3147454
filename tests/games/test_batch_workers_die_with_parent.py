"""Batch workers die with their parent (issue #21, wdg/procs.py): a
``wdg games batch --jobs 2`` killed while its pool plays leaves no worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from procwatch import cpu_seconds, needs_proc, pool, survivors, wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_a_batch_leaves_no_worker(tmp_path, sig):
    """Killed once both workers are seen playing (each has used a tenth of a second
    of CPU since it started: past its start-up, inside a chunk of games)."""
    needs_proc()
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "games", "batch", "four_gods",
                             "--games", "100000", "--players", "4", "--jobs", "2", "--seed", "1",
                             "--json", str(tmp_path / "stats.json")],
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        workers = wait_until(lambda: pool(proc.pid, 2), "the batch's pool (two workers)", 60, proc)
        wait_until(lambda: all(cpu_seconds(w) >= 0.1 for w in workers),
                   "both workers playing (0.1 s of CPU each)", 60, proc)
    finally:
        if proc.poll() is None:
            proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode != 0, "the kill must land while the pool plays"
    left = survivors(workers)
    assert not left, f"batch workers still running after the parent died ({sig.name})"
