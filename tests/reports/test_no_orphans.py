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
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from procwatch import in_session, needs_proc, pool, survivors, wait_until

from wdg.commands.demo import copy_demo

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(d: Path) -> dict[str, tuple[int, int]]:
    if not d.exists():
        return {}
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in d.rglob("*") if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_killing_turn_run_while_it_renders_leaves_no_worker_writing(tmp_path, sig):
    """Killed once the pool has rendered a kingdom's sheet into the month's staging
    folder (the others are being rendered): no worker outlives the run, and nothing
    in the campaign changes after the run died (every process of its session is
    seen to end before the second look)."""
    needs_proc()
    camp = tmp_path / "camp"
    copy_demo(camp)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "turn", "run", "canura", "-q",
                             "--jobs", "2", "-C", str(camp)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        workers = wait_until(lambda: pool(proc.pid, 2), "the run's render pool (two workers)",
                             120, proc)
        staging = camp / "worlds" / "canura" / "turns"
        wait_until(lambda: any(staging.glob(".staging-*/.out/outputs/reports/k*/ergebnis.*")),
                   "a kingdom's sheet rendered into the staging folder", 120, proc)
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {proc.stderr.read().decode(errors='replace')[-500:]}") \
            from None
    proc.send_signal(sig)
    proc.wait(timeout=60)
    proc.stderr.close()
    assert proc.returncode != 0, "the kill must land in the render, not after the run"
    first = _snapshot(camp)
    left = survivors(workers)
    assert not left, f"workers still running after the parent died ({sig.name})"
    wait_until(lambda: not in_session(proc.pid),
               f"the end of every process of the run's session {proc.pid}", 10)
    assert _snapshot(camp) == first, "files changed after the run was killed"
