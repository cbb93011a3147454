"""``wdg world status`` and ``wdg world run`` on a world of four segments
(tests/office/worldkit.py): the status of every segment, the run of those
whose deadline has passed equal to a local ``wdg turn run`` of each, a
damaged segment named with its reason while the others run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner
from worldkit import DUE, MONTH, SEGMENTS, tree_bytes, world_copy

from wdg import exitcodes
from wdg.cli import app

runner = CliRunner()


def _wdg(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_status_names_every_segment_with_its_deadline_and_sheets(world_template: Path,
                                                                 tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    code, out, err = _wdg("world", "status", "--json", "-C", str(camp.root))
    assert code == 0, err
    rows = {r["segment"]: r for r in json.loads(out)["segments"]}
    assert sorted(rows) == list(SEGMENTS)
    for name, r in rows.items():
        assert r["month"] == "0412-04" and r["missing"] == []
        assert r["valid"] == ([1, 2, 3] if name == "nord" else [1, 2])
        assert r["due"] is (name in DUE)
        assert r["blockers"] == [] and r["error"] is None and r["last_run"] is None
        assert r["mail"]["configured"] is False
    code, again, _ = _wdg("world", "status", "--json", "--jobs", "2", "-C", str(camp.root))

    def timeless(doc: str) -> list:  # the seconds left to a deadline go on running
        rows = json.loads(doc)["segments"]
        for r in rows:
            r["deadline"].pop("seconds_left")
        return rows
    assert code == 0 and timeless(again) == timeless(out)  # read in two processes: the same
    code, out, _ = _wdg("world", "status", "-C", str(camp.root))
    assert code == 0
    lines = out.splitlines()
    assert all(any(line.startswith(name) for line in lines) for name in SEGMENTS)
    assert "Eintreffschluß" in lines[0]


def test_world_run_equals_a_turn_run_of_each_due_segment(world_template: Path,
                                                          tmp_path: Path) -> None:
    """The archive, the state and the delivered reports of every segment are
    byte for byte those of ``wdg turn run SEG``; the segment not due is untouched."""
    local = world_copy(world_template, tmp_path / "local")
    world = world_copy(world_template, tmp_path / "world")
    for name in DUE:
        code, _, err = _wdg("turn", "run", name, "--no-pdf", "-q", "-C", str(local.root))
        assert code == 0, err
    code, out, err = _wdg("world", "run", "--no-pdf", "--jobs", "2", "--json",
                          "-C", str(world.root))
    assert code == exitcodes.OK, err
    doc = json.loads(out)
    by = {s["segment"]: s for s in doc["segments"]}
    assert [by[n]["ran"] for n in DUE] == ["0412-04"] * 3
    assert by["west"]["status"] == "waiting" and by["west"]["ran"] is None
    assert doc["workers"] == 2
    assert tree_bytes(world.root) == tree_bytes(local.root)
    # a second run: nothing is due any more (no deadline for the next month)
    code, out, _ = _wdg("world", "run", "--no-pdf", "--jobs", "1", "-C", str(world.root))
    assert code == exitcodes.WAITING
    assert "wartet auf den Eintreffschluß" in out
    assert tree_bytes(world.root) == tree_bytes(local.root)


def test_a_damaged_segment_is_named_and_the_others_run(world_template: Path,
                                                       tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    damaged = camp.segment_dir("sued") / "kingdoms.yaml"
    damaged.write_text("kingdoms: [[[\n", encoding="utf-8")
    before = tree_bytes(camp.root / "worlds" / "sued")
    code, out, err = _wdg("world", "status", "-C", str(camp.root))
    assert code == 1
    assert "sued         FEHLER:" in out and "kingdoms.yaml" in out
    code, out, err = _wdg("world", "run", "--no-pdf", "--jobs", "2", "-C", str(camp.root))
    assert code == exitcodes.FAILED
    assert "sued: Fehler:" in err and "kingdoms.yaml" in err
    assert "nord: Dormit 412 (0412-04) ausgewertet" in out
    assert "ost: Dormit 412 (0412-04) ausgewertet" in out
    assert "1 fehlgeschlagen" in out
    assert tree_bytes(camp.root / "worlds" / "sued") == before
    assert not (camp.root / "reports" / "sued").exists()


def test_a_blocked_segment_is_refused_and_a_locked_one_is_named(world_template: Path,
                                                                tmp_path: Path) -> None:
    """Too many sheets missing: *refused* (as ``wdg mail run``) unless --force;
    a segment whose lock another command holds: *locked*."""
    from wdg.store.lock import segment_lock

    camp = world_copy(world_template, tmp_path / "w")
    for k in (1, 2):
        (camp.orders_dir("ost", MONTH) / f"k{k}.txt").unlink()
    with segment_lock(camp.segment_dir("nord")):
        code, out, err = _wdg("world", "run", "--no-pdf", "--jobs", "1", "--json",
                              "-C", str(camp.root))
    by = {s["segment"]: s for s in json.loads(out)["segments"]}
    assert by["ost"]["status"] == "refused" and "keinen gültigen Spielzug" in by["ost"]["messages"][0]
    assert by["nord"]["status"] == "locked" and "gesperrt" in by["nord"]["messages"][0]
    assert by["sued"]["status"] == "done"
    assert code == exitcodes.REFUSED
    code, out, _ = _wdg("world", "run", "--no-pdf", "--force", "--jobs", "1", "--json",
                        "-C", str(camp.root))
    by = {s["segment"]: s for s in json.loads(out)["segments"]}
    assert code == exitcodes.OK
    assert by["ost"]["ran"] == by["nord"]["ran"] == by["west"]["ran"] == "0412-04"


def test_jobs_and_scheduler_exclude_each_other(tmp_path: Path) -> None:
    """A usage mistake is one German line, no traceback (the real entry point)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "wdg", "world", "run", "--jobs", "2",
                           "--scheduler", "tcp://127.0.0.1:1", "-C", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == exitcodes.FAILED and "Traceback" not in proc.stderr
    assert "--jobs und --scheduler schließen sich aus" in proc.stderr


def test_a_lock_left_by_a_worker_on_another_machine_is_named_not_taken_over(
        world_template: Path, tmp_path: Path) -> None:
    """docs/world.md: a worker that died on another machine leaves its lock file;
    wdg cannot see whether that process still runs, so the segment is *locked*,
    naming the machine; the others run."""
    camp = world_copy(world_template, tmp_path / "w")
    (camp.segment_dir("ost") / ".lock").write_text("4242 rechner-b\n", encoding="utf-8")
    code, out, _ = _wdg("world", "run", "--no-pdf", "--jobs", "1", "--json", "-C", str(camp.root))
    by = {s["segment"]: s for s in json.loads(out)["segments"]}
    assert by["ost"]["status"] == "locked" and "rechner-b" in by["ost"]["messages"][0]
    assert by["nord"]["ran"] == by["sued"]["ran"] == "0412-04"
    assert code == exitcodes.LOCKED
