"""Render workers die with their parent (issue #21, wdg/procs.py).

``wdg turn run`` renders the result sheets in a process pool. Killing the run
while it renders — SIGKILL (no cleanup can run), SIGTERM or SIGINT — must not
leave workers that go on writing report files after the parent is gone.
"""

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

from wdg.commands.demo import copy_demo

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(d: Path) -> dict[str, tuple[int, int]]:
    if not d.exists():
        return {}
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in d.rglob("*") if p.is_file()}


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_killing_turn_run_while_it_renders_leaves_no_worker_writing(tmp_path, sig):
    camp = tmp_path / "camp"
    copy_demo(camp)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "turn", "run", "canura", "-q",
                             "--jobs", "2", "-C", str(camp)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        workers = {c for c in children(proc.pid) if alive(c)}
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.fail("the run ended before its render pool was seen: "
                    + proc.stderr.read().decode(errors="replace")[-500:])
    time.sleep(0.3)  # the workers are rendering now
    proc.send_signal(sig)
    proc.wait(timeout=60)
    proc.stderr.close()
    left = survivors(workers)
    assert not left, f"workers still running after the parent died ({sig.name})"
    reports = camp / "reports"
    first = _snapshot(reports)
    time.sleep(1.5)
    assert _snapshot(reports) == first, "report files changed after the run was killed"

