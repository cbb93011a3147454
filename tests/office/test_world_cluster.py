"""``wdg world run`` on a Dask ``LocalCluster`` (loopback, two worker processes)
and with workers that die: every segment is run or untouched, the next run
finishes the rest, and the end is byte for byte the local run's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner
from worldkit import DUE, MONTH, SEGMENTS, tree_bytes, world_copy

from wdg import exitcodes
from wdg.cli import app
from wdg.office.run import run_segment, run_world
from wdg.store.segment import load_segment

runner = CliRunner()


def _local_reference(template: Path, dest: Path) -> dict[str, bytes]:
    """The world after ``wdg turn run SEG --no-pdf`` of each due segment."""
    camp = world_copy(template, dest)
    for name in DUE:
        res = runner.invoke(app, ["turn", "run", name, "--no-pdf", "-q", "-C", str(camp.root)])
        assert res.exit_code == 0, res.output
    return tree_bytes(camp.root)


def _run_or_untouched(camp, before: dict[str, bytes]) -> dict[str, bool]:
    """Per segment: True when its month is committed (archive complete), False
    when it is untouched (old date, no archived month, same segment files)."""
    import time

    from wdg.store.lock import segment_lock
    from wdg.store.months import month_dir
    from wdg.errors import LockedError

    out = {}
    for name in SEGMENTS:
        # a task Dask gave up on may still run on another worker (its future
        # failed with the lost one): wait for it, as the next command would
        for _ in range(300):
            try:
                with segment_lock(camp.segment_dir(name)):  # recovers an interrupted commit
                    seg = load_segment(camp.segment_dir(name))
                break
            except LockedError:
                time.sleep(0.2)
        else:
            raise AssertionError(f"{name}: still locked after 60 s")
        archived = (month_dir(camp, name, MONTH) / "manifest.yaml").is_file()
        if seg.date == MONTH:
            assert not archived, name
            now = {k: v for k, v in tree_bytes(camp.root).items()
                   if k.startswith(f"worlds/{name}/")}
            assert now == {k: v for k, v in before.items() if k.startswith(f"worlds/{name}/")}, \
                name
            out[name] = False
        else:
            assert seg.date == MONTH.next() and archived, name
            out[name] = True
    return out


@pytest.mark.parametrize("point", ["archive", "deliver"])
def test_a_killed_local_worker_leaves_each_segment_run_or_untouched(
        world_template: Path, tmp_path: Path, point: str) -> None:
    """SIGKILL of the worker running ``ost`` (while its reports are written,
    before the commit point; or after the commit, before the delivery) breaks
    the local pool: every segment is run or untouched, the run says which
    failed, and the next ``wdg world run`` finishes the rest (and delivers a
    committed month's reports): the world equals the local run byte for byte."""
    ref = _local_reference(world_template, tmp_path / "ref")
    camp = world_copy(world_template, tmp_path / "w")
    before = tree_bytes(camp.root)
    got = run_world(camp, pdf=False, jobs=2, die_at={"ost": point})
    assert got.code == exitcodes.FAILED
    ost = next(s for s in got.segments if s.segment == "ost")
    assert ost.code == exitcodes.FAILED and "Arbeitsprozess ging verloren" in ost.lines[0]
    state = _run_or_untouched(camp, before)
    assert state["west"] is False
    assert state["ost"] is (point == "deliver")
    again = run_world(camp, pdf=False, jobs=2)
    assert again.code in (exitcodes.OK, exitcodes.WAITING, exitcodes.NOTHING)
    assert tree_bytes(camp.root) == ref


def test_a_worker_that_cannot_see_the_campaign_says_so_in_german(tmp_path: Path) -> None:
    """The task of a worker without the shared file system: a clear German
    error naming host, path and docs/world.md; nothing is touched."""
    rep = run_segment(str(tmp_path / "nicht-da"), "nord")
    assert rep.code == exitcodes.FAILED
    assert "sieht das Kampagnenverzeichnis nicht" in rep.lines[0]
    assert "gemeinsamen Dateisystem" in rep.lines[0] and "docs/world.md" in rep.lines[0]
    assert not (tmp_path / "nicht-da").exists()


@pytest.mark.slow
def test_world_run_on_a_dask_local_cluster(world_template: Path, tmp_path: Path) -> None:
    """``wdg world run --scheduler`` on a LocalCluster equals the local run byte
    for byte; a worker killed mid-run (SIGKILL while ``sued`` writes its
    reports) leaves every segment run or untouched and the next run finishes
    the rest; a worker that cannot see the campaign directory is named."""
    import dask
    import distributed  # in the test extras: make test installs it

    ref = _local_reference(world_template, tmp_path / "ref")
    camp = world_copy(world_template, tmp_path / "w")
    killed = world_copy(world_template, tmp_path / "k")
    before = tree_bytes(killed.root)
    # a task whose worker died is not retried on another worker (the default
    # retries it three times, each killing a worker again)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None) as cluster:
        res = runner.invoke(app, ["world", "run", "--no-pdf", "--scheduler",
                                  cluster.scheduler_address, "--json", "-C", str(camp.root)])
        assert res.exit_code == exitcodes.OK, res.output
        doc = json.loads(res.stdout)
        assert doc["where"] == f"Dask {cluster.scheduler_address}"
        assert {s["segment"]: s["ran"] for s in doc["segments"]} == \
            {"nord": "0412-04", "ost": "0412-04", "sued": "0412-04", "west": None}
        assert tree_bytes(camp.root) == ref

        got = run_world(killed, pdf=False, scheduler=cluster.scheduler_address,
                        die_at={"sued": "archive"})
        sued = next(s for s in got.segments if s.segment == "sued")
        assert sued.code == exitcodes.FAILED and "Arbeitsprozess ging verloren" in sued.lines[0]
        assert got.code == exitcodes.FAILED
        state = _run_or_untouched(killed, before)
        # the tasks queued on the killed worker may have failed with it (run
        # elsewhere or not at all): only sued's and west's state are certain
        assert state["sued"] is False and state["west"] is False
        again = run_world(killed, pdf=False, scheduler=cluster.scheduler_address)
        assert [s.ran for s in again.segments if s.segment == "sued"] == ["0412-04"]
        assert tree_bytes(killed.root) == ref

        blind = run_world(type(camp)(tmp_path / "nicht-geteilt"), segments=["nord"],
                          scheduler=cluster.scheduler_address)
        assert blind.code == exitcodes.FAILED
        assert "sieht das Kampagnenverzeichnis nicht" in blind.segments[0].lines[0]


def test_ctrl_c_leaves_every_segment_run_or_untouched(world_template: Path, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group, as at a terminal) while the local
    pool renders the PDFs: exit 130, every segment run or untouched, and the
    next ``wdg world run`` ends where an uninterrupted run ends."""
    import os
    import signal
    import subprocess
    import sys

    from procwatch import wait_until

    camp = world_copy(world_template, tmp_path / "w")
    ref = world_copy(world_template, tmp_path / "ref")
    assert run_world(ref, jobs=1).code == exitcodes.OK
    before = tree_bytes(camp.root)
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "world", "run", "--jobs", "2",
                             "-C", str(camp.root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    # Ctrl-C once a kingdom's PDF is in a segment's staging folder: the pool renders
    wait_until(lambda: any(camp.root.glob("worlds/*/turns/.staging-*/.out/outputs/reports/"
                                          "k*/ergebnis.pdf")),
               "a kingdom's PDF in a segment's staging folder", 120, proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err
    assert proc.returncode == 130, (proc.returncode, err)
    assert "abgebrochen" in err
    _run_or_untouched(camp, before)
    assert run_world(camp, jobs=2).code in (exitcodes.OK, exitcodes.WAITING, exitcodes.NOTHING)
    assert tree_bytes(camp.root) == tree_bytes(ref.root)
