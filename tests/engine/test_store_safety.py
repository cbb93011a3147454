"""The segment store never loses the archive (issue #21, docs/storage.md).

A save writes a new generation beside the live files and commits it with one
journal; it never moves, renames or deletes the segment directory or its
``turns/`` archive, so a segment directory that is a mount point works, and
nothing a failed save cleans up can hold anything but what it just wrote.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.skips import cannot_run
from wdg.cli import app, main
from wdg.commands.demo import copy_demo
from wdg.store.lock import LOCK_FILE
from wdg.store.lock import segment_lock, store_findings
from wdg.errors import StateError
from wdg.store import journal as store_journal
from wdg.store import segment as store_segment
from wdg.store.journal import JOURNAL, recover_store
from wdg.store.segment import load_segment, save_segment

SEG = "canura"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The demo campaign after its first month (archived, not rendered)."""
    camp = tmp_path_factory.mktemp("store") / "camp"
    copy_demo(camp)
    r = CliRunner().invoke(app, ["turn", "run", SEG, "--no-render", "-q", "-C", str(camp)])
    assert r.exit_code == 0, r.output
    return camp


@pytest.fixture
def camp(played, tmp_path) -> Path:
    c = tmp_path / "camp"
    shutil.copytree(played, c)
    return c


def _archive(camp: Path) -> dict[str, bytes]:
    return _tree(camp / "worlds" / SEG / "turns")


def test_saving_never_renames_the_segment_directory_so_a_busy_mount_point_loses_nothing(
        camp, monkeypatch):
    """Issue #21: when the segment directory is a mount point its rename fails
    with EBUSY. The old store then deleted the whole archive on every save; the
    new one never renames it: every save works and no file of the archive is lost."""
    seg_dir = camp / "worlds" / SEG
    archive = _archive(camp)
    real_replace, real_rename = os.replace, os.rename

    def busy(fn):
        def wrapped(src, dst, *a, **k):
            if Path(src).resolve() == seg_dir.resolve() or Path(dst).resolve() == seg_dir.resolve():
                raise OSError(errno.EBUSY, "Device or resource busy", str(src))
            return fn(src, dst, *a, **k)
        return wrapped
    monkeypatch.setattr(os, "replace", busy(real_replace))
    monkeypatch.setattr(os, "rename", busy(real_rename))
    runner = CliRunner()
    r = runner.invoke(app, ["kingdom", "set", SEG, "3", "--ruler", "Hagen", "-C", str(camp)])
    assert r.exit_code == 0, r.output
    assert load_segment(seg_dir).kingdoms[3].ruler == "Hagen"
    assert _archive(camp) == archive
    r = runner.invoke(app, ["turn", "run", SEG, "--no-render", "-q", "--force", "-C", str(camp)])
    assert r.exit_code == 0, r.output
    after = _archive(camp)
    assert {k: v for k, v in after.items() if k in archive} == archive
    r = runner.invoke(app, ["turn", "undo", SEG, "-C", str(camp)])
    assert r.exit_code == 0, r.output
    assert {k: v for k, v in _archive(camp).items() if k in archive} == archive


def test_a_real_bind_mounted_segment_directory_works(camp):
    """Issue #21: the segment directory as a bind mount (a container volume, a
    share): saves, a month and its undo work and the archive stays whole.
    Where this machine does not allow mounting it fails, unless WDG_SKIP_MOUNTS=1."""
    seg_dir = camp / "worlds" / SEG
    try:
        mounted = subprocess.run(["mount", "--bind", str(seg_dir), str(seg_dir)],
                                 capture_output=True, text=True)
    except FileNotFoundError:
        cannot_run("WDG_SKIP_MOUNTS", "cannot bind-mount here: no 'mount' program on PATH")
    if mounted.returncode != 0:
        cannot_run("WDG_SKIP_MOUNTS", "cannot bind-mount here (needs root): "
                   f"{mounted.stderr.strip() or f'mount exit {mounted.returncode}'}")
    try:
        archive = _archive(camp)
        exe = [sys.executable, "-m", "wdg"]
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        for args in (["kingdom", "set", SEG, "3", "--ruler", "Hagen"],
                     ["turn", "run", SEG, "--no-render", "-q", "--force"],
                     ["turn", "undo", SEG]):
            r = subprocess.run([*exe, *args, "-C", str(camp)], capture_output=True, text=True,
                               env=env)
            assert r.returncode == 0, r.stderr
            assert {k: v for k, v in _archive(camp).items() if k in archive} == archive
        assert load_segment(seg_dir).kingdoms[3].ruler == "Hagen"
    finally:
        subprocess.run(["umount", str(seg_dir)], capture_output=True)


def test_a_save_interrupted_before_its_commit_point_leaves_the_old_state_and_cleans_up(camp,
                                                                                    monkeypatch):
    """A failure while the new generation is written: the live files are the old
    ones, the generation's files are removed, the archive is untouched."""
    seg_dir = camp / "worlds" / SEG
    before = _tree(seg_dir)
    seg = load_segment(seg_dir)
    seg.kingdoms[3].ruler = "Hagen"
    calls = {"n": 0}
    real = store_segment._dump

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data)
    monkeypatch.setattr(store_segment, "_dump", failing)
    with pytest.raises(OSError):
        save_segment(seg, seg_dir)
    assert _tree(seg_dir) == before
    assert not list(seg_dir.glob(".gen-*")) and not (seg_dir / JOURNAL).exists()


def test_a_save_interrupted_after_its_commit_point_is_completed_by_the_next_command(camp,
                                                                                  monkeypatch):
    """Dying between the journal and the last rename: a load already reads the
    new state, and the next command that takes the lock completes the save."""
    seg_dir = camp / "worlds" / SEG
    seg = load_segment(seg_dir)
    seg.kingdoms[3].ruler = "Hagen"

    def dies(path):
        raise KeyboardInterrupt
    monkeypatch.setattr(store_journal, "roll_forward", dies)
    with pytest.raises(KeyboardInterrupt):
        save_segment(seg, seg_dir)
    monkeypatch.undo()
    assert (seg_dir / JOURNAL).exists()
    assert load_segment(seg_dir).kingdoms[3].ruler == "Hagen"  # read through the journal
    assert any("vollendet" in f or "festgeschrieben" in f for f in store_findings(seg_dir))
    notes = recover_store(seg_dir)
    assert notes and not (seg_dir / JOURNAL).exists() and not list(seg_dir.glob(".gen-*"))
    assert load_segment(seg_dir).kingdoms[3].ruler == "Hagen"
    assert "kingdoms.yaml" in "".join(p.name for p in seg_dir.iterdir())


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_lock_left_by_a_killed_process_is_taken_over_with_a_notice(camp, capsys):
    """Issue #21: SIGKILL leaves the lock file; the game master must not delete it
    by hand — the next command sees its process is gone and takes it over."""
    lock = camp / "worlds" / SEG / LOCK_FILE
    pid = _dead_pid()
    lock.write_text(f"{pid} {socket.gethostname()}\n", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        main(["kingdom", "set", SEG, "3", "--ruler", "Hagen", "-C", str(camp)])
    assert done.value.code in (0, None)
    err = capsys.readouterr().err
    assert f"Prozess {pid} übernommen" in err and len(err.strip().splitlines()) == 1
    assert not lock.exists()
    assert load_segment(camp / "worlds" / SEG).kingdoms[3].ruler == "Hagen"


def test_a_lock_of_a_process_on_another_host_is_respected(camp):
    """A lock naming another host (a network share): we cannot see that process,
    so the command is refused with a message saying what to do."""
    lock = camp / "worlds" / SEG / LOCK_FILE
    lock.write_text("4242 other-host.example\n", encoding="utf-8")
    with pytest.raises(StateError, match="other-host.example"):
        with segment_lock(camp / "worlds" / SEG):
            pass
    assert lock.read_text(encoding="utf-8").startswith("4242 other-host")


def test_a_lock_held_by_a_running_command_is_refused(camp):
    """The lock is an flock: while a command holds it, another is refused."""
    seg_dir = camp / "worlds" / SEG
    with segment_lock(seg_dir):
        with pytest.raises(StateError, match=f"gesperrt von Prozess {os.getpid()}"):
            with segment_lock(seg_dir):
                pass
    with segment_lock(seg_dir):  # released: free again
        pass


def test_segment_check_reports_and_recovers_leftovers(camp):
    """Issue #21: 'wdg segment check' cleans what a crash left (taking the lock)
    and says so; a leftover of an older version's save is reported, not deleted."""
    from wdg.store.journal import _mark

    seg_dir = camp / "worlds" / SEG
    gen = seg_dir / ".gen-999-dead"
    gen.mkdir()
    _mark(gen)  # what a save writes first into its generation: proof that it made it
    (gen / "armies.yaml").write_text("armies: []\n", encoding="utf-8")
    foreign = seg_dir / ".gen-1-foreign"  # no proof of origin (issue #30): kept and named
    foreign.mkdir()
    (foreign / "armies.yaml").write_text("armies: []\n", encoding="utf-8")
    old = camp / "worlds" / f".{SEG}.new-abc"
    (old / "turns").mkdir(parents=True)
    runner = CliRunner()
    r = runner.invoke(app, ["segment", "check", SEG, "-C", str(camp)])
    assert not gen.exists()
    assert (foreign / "armies.yaml").is_file() and ".gen-1-foreign" in r.output
    assert r.exit_code == 1 and f".{SEG}.new-abc" in r.output and "älteren wdg-Version" in r.output
    assert old.is_dir()  # reported, never deleted
    shutil.rmtree(old)
    shutil.rmtree(foreign)
    r = runner.invoke(app, ["segment", "check", SEG, "-C", str(camp)])
    assert r.exit_code == 0 and "keine Befunde" in r.output


@pytest.mark.parametrize(("code", "text"), [
    (errno.ENOSPC, "kein Platz mehr auf dem Datenträger"),
    (errno.EACCES, "keine Berechtigung"),
    (errno.EROFS, "schreibgeschütztes Dateisystem"),
])
def test_a_file_system_failure_is_one_clear_line_naming_the_path_and_nothing_changes(
        camp, monkeypatch, capsys, code, text):
    """Issue #21: disk full, permission denied, a read-only file system give a
    one-line message naming the path and what to do, not a traceback; the
    segment is as before."""
    seg_dir = camp / "worlds" / SEG
    before = _tree(camp / "worlds")
    real_open = os.open

    def full(path, flags, *a, **k):
        if flags & os.O_CREAT and ".gen-" in str(path):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *a, **k)
    real_write_text = Path.write_text

    def full_text(self, *a, **k):
        if ".gen-" in str(self):
            raise OSError(code, os.strerror(code), str(self))
        return real_write_text(self, *a, **k)
    monkeypatch.setattr(os, "open", full)
    monkeypatch.setattr(Path, "write_text", full_text)
    with pytest.raises(SystemExit) as done:
        main(["kingdom", "set", SEG, "3", "--ruler", "Hagen", "-C", str(camp)])
    monkeypatch.undo()
    assert done.value.code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert text in err and str(seg_dir) in err
    assert _tree(camp / "worlds") == before
    assert not list(seg_dir.glob(".gen-*"))
