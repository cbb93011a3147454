"""The segment's lock and what taking it recovers (docs/storage.md, "Recovery on start").

``worlds/<segment>/.lock`` is an ``flock`` naming its holder; every command
that changes a segment holds it (:func:`segment_lock`). Taking it completes
or cleans whatever a crash interrupted (:func:`wdg.store.journal.recover_store`,
:func:`wdg.store.months.recover_archive`) and checks the segment's format.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wdg.errors import LockedError, StateError
from wdg.procs import LOCK_FDS
from wdg.store.journal import TURNS_DIR as TURNS
from wdg.store.edges import LinkRefused
from wdg.store.intake import JOURNAL_GLOB, IntakeMoveError, recover_intake
from wdg.store.journal import leftovers, old_version_leftovers, recover_store
from wdg.store.recovery import recover_archive
from wdg.store.segment import check_live_format

LOCK_FILE = ".lock"


# --- lock ------------------------------------------------------------------------------

def notice(message: str, kind: str = "Hinweis") -> None:
    """A one-line notice to the game master (stderr), e.g. a lock taken over."""
    sys.stderr.write(f"{kind}: {message}\n")
    sys.stderr.flush()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, belongs to someone else
        return True
    return True


def _holder(text: str) -> tuple[int | None, str]:
    parts = text.split()
    pid = int(parts[0]) if parts and parts[0].isdigit() else None
    host = parts[1] if len(parts) > 1 else ""
    return pid, host


@contextmanager
def segment_lock(segment_dir: Path, *, any_format: bool = False) -> Iterator[Path]:
    """Hold ``worlds/<segment>/.lock`` for the block; a second holder is refused.

    The lock is an ``flock`` on that file (the kernel releases it when the
    holder dies, however it dies) and the file names the holder (``pid host``)
    for the message. A lock file left by a process that is gone (same host) is
    taken over with a one-line notice; a lock of a process on another host is
    refused (we cannot see whether it still runs). On taking the lock, a save
    or a month's commit interrupted by a crash is completed or cleaned up
    (:func:`wdg.store.journal.recover_store`, :func:`recover_archive`), and so
    is an import of order sheets killed after a sheet's commit
    (:func:`recover_waiting_sheets`). Then
    the segment's format is checked (:func:`wdg.store.segment.check_live_format`:
    every command that changes a segment refuses one of another format, unless
    ``any_format``, for ``wdg segment upgrade`` and ``wdg segment check``)."""
    path = segment_dir / LOCK_FILE
    host = socket.gethostname()
    while True:
        try:  # never through a link planted as .lock (it would truncate its target)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            if path.is_symlink():
                raise StateError(f"{path} ist ein symbolischer Link; wdg folgt ihm nicht. "
                                 f"Entfernen Sie ihn ('rm {path}') und rufen Sie den Befehl "
                                 "erneut auf.") from None
            raise exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_fd(fd) or "?"
            os.close(fd)
            raise LockedError(f"Segment {segment_dir.name!r} ist gesperrt von Prozess {holder} "
                             f"({path}): ein anderer wdg-Befehl arbeitet daran; warten Sie, "
                             "bis er fertig ist") from None
        except OSError:  # a file system without flock: fall back to the file alone
            os.close(fd)
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the file was removed by its holder meanwhile: take the new one
    previous = _read_fd(fd)
    if previous:
        pid, other = _holder(previous)
        refusal = None
        if other and other != host:
            refusal = (f"Segment {segment_dir.name!r} ist gesperrt von Prozess {pid} auf Rechner "
                       f"{other} ({path}); läuft dort kein wdg-Befehl, löschen Sie diese Datei")
        elif pid is not None and pid != os.getpid() and _pid_alive(pid) and not other:
            # an old-format lock (no host) of a live process: respect it
            refusal = (f"Segment {segment_dir.name!r} ist gesperrt von Prozess {pid} ({path}); "
                       "läuft kein Befehl, löschen Sie diese Datei")
        if refusal:
            os.close(fd)  # not ours: leave the file as it is
            raise LockedError(refusal)
        notice(f"Sperre {path} von Prozess {pid if pid is not None else '?'} übernommen "
                "(der Prozess läuft nicht mehr)")
    LOCK_FDS.add(fd)  # forked workers close their copy (the lock stays ours alone)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {host}\n".encode(), 0)
        for note in (recover_store(segment_dir) + recover_archive(segment_dir)
                     + recover_waiting_sheets(segment_dir)):
            notice(note)
        if not any_format and (segment_dir / "segment.yaml").is_file():
            check_live_format(segment_dir)
        yield path
    finally:
        try:
            path.unlink(missing_ok=True)
        finally:
            LOCK_FDS.discard(fd)
            os.close(fd)  # releases the flock


def recover_waiting_sheets(segment_dir: Path) -> list[str]:
    """Complete the imports of order sheets a kill interrupted after a sheet's
    commit, in every month folder ``orders/<segment>/<YYYY-MM>/`` of the
    campaign (:func:`wdg.store.intake.recover_intake`); call it holding the
    lock. A journal whose move cannot be completed (a link, a missing file)
    stays where it is: ``wdg segment check`` names it and ``wdg turn run``
    refuses until it is resolved, so here it is only a notice."""
    if segment_dir.parent.name != "worlds":
        return []
    top = segment_dir.parent.parent / "orders" / segment_dir.name
    notes: list[str] = []
    for folder in sorted({j.parent for j in top.glob(f"*/{JOURNAL_GLOB}")}):
        try:
            notes += recover_intake(folder)
        except (IntakeMoveError, LinkRefused) as e:
            notes.append(f"{folder}: ein unterbrochenes Einlesen bleibt offen: {e}")
    return notes


def _read_fd(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def store_findings(segment_dir: Path, *, holding_lock: bool = False,
                   busy: bool = False) -> list[str]:
    """What on disk looks like the rest of an interruption (for ``wdg segment
    check``): a pending journal, uncommitted generations, staging folders, a
    month folder of the month not yet run, hidden siblings of older versions,
    a lock file of a process that is gone. ``holding_lock``: the caller holds
    the lock (its file is not a finding); ``busy``: another command holds it
    right now (its work in progress is not a finding either)."""
    found = old_version_leftovers(segment_dir) if busy else leftovers(segment_dir)
    turns = segment_dir / TURNS
    if turns.is_dir() and not busy:
        found += [f"{p}: das vorbereitete Archiv eines nicht festgeschriebenen Monds"
                  for p in sorted(turns.glob(".staging-*"))]
        found += [f"{p}: ein symbolischer Link im Archiv (auf {os.readlink(p)}); wdg folgt ihm "
                  "nicht — von Hand entfernen (rm, nicht rm -r)"
                  for p in sorted(turns.glob(".*")) if p.is_symlink()]
        # (a month folder of the month not yet run: integrity.check_chain names it)
    lock = segment_dir / LOCK_FILE
    if lock.exists() and not holding_lock and not busy:
        holder = lock.read_text(encoding="utf-8", errors="replace").strip() or "?"
        found.append(f"{lock}: eine Sperre des Prozesses {holder}, den es nicht mehr gibt (der "
                     "nächste Befehl übernimmt sie)")
    return found


# --- plain data and hashes ----------------------------------------------------------------
