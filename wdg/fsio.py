"""Durable file operations and clear messages for the file system's failures.

The store (:mod:`wdg.store.segment`) and the archive (:mod:`wdg.store.months`)
make everything they write durable before the one ``os.replace`` that commits
it: files are fsynced, then their directory (so the new names survive a power
loss too). :func:`describe_os_error` turns an ``OSError`` (disk full,
permission denied, read-only file system, a missing directory ...) into the
one-line message the command line prints instead of a traceback.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path


def fsync_file(path: Path) -> None:
    """Flush one file's data to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush a directory's entries (new names, renames, removals) to the disk."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - directories cannot be opened here (not POSIX)
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems refuse fsync on directories
        if exc.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _syncfs_function() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.syncfs
    except (OSError, AttributeError):  # pragma: no cover
        return None


_SYNCFS = _syncfs_function()


def fsync_tree(root: Path) -> None:
    """Flush every file and directory under ``root`` (and ``root`` itself).

    On Linux one ``syncfs`` of ``root``'s file system does it at once (an
    fsync per file costs a journal commit each: hundreds for a big month);
    elsewhere, or if it fails, every file and directory is fsynced."""
    if _SYNCFS is not None:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            if _SYNCFS(fd) == 0:
                return
        finally:
            os.close(fd)
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            fsync_file(Path(dirpath) / name)
        fsync_dir(Path(dirpath))


PRIVATE_MODE = 0o600
"""Mode of every file holding password hashes or mail credentials (and the
segment's seed): readable by the game master's user only (issue #30)."""
PRIVATE_NAMES = frozenset({"kingdoms.yaml", "segment.yaml", "kingdoms.yaml.gz",
                           "segment.yaml.gz"})
"""Segment files (live and archived) that hold password hashes or the seed."""
CLI_UMASK = 0o077
"""The command line's umask: whatever it creates in a campaign (archives,
quarantined mails, the outbox) is the game master's alone."""


def make_private(path: Path) -> None:
    """Set ``path`` to :data:`PRIVATE_MODE` (owner read/write only)."""
    os.chmod(path, PRIVATE_MODE)


def restrict_private_files(directory: Path) -> None:
    """:func:`make_private` on each of :data:`PRIVATE_NAMES` in ``directory``."""
    for name in PRIVATE_NAMES:
        p = directory / name
        if p.is_file() and not p.is_symlink():
            make_private(p)


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a scratch file in the same
    directory, flushed, renamed into place) with mode 0600 from its creation:
    for records holding secrets or personal data (mail records, quarantine)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write_durable(tmp, data, mode=PRIVATE_MODE)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_durable(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to a new file ``path`` and flush it (the caller fsyncs the
    directory once for all files it wrote). ``mode`` applies from the file's
    creation (an existing file is set to it too)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    if mode != 0o644:
        os.fchmod(fd, mode)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    finally:
        os.close(fd)


def append_durable(path: Path, line: bytes, header: bytes = b"") -> None:
    """Append one complete line (ending in ``\n``) to a journal file and flush it to
    the disk before returning (the directory too when the file is new). A last line
    without its line end — cut off by a crash while it was written, so never acted
    on — is cut off first; ``header`` starts a new (or emptied) file. Used by the
    mail records (:mod:`wdg.store.sent`, :mod:`wdg.store.seen`); the caller holds the
    segment's lock."""
    new = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            tail = os.pread(fd, min(size, 1 << 20), max(0, size - (1 << 20)))
            cut = tail.rfind(b"\n")
            size = size - len(tail) + cut + 1 if cut >= 0 else 0
            os.ftruncate(fd, size)
        data = (header if size == 0 else b"") + line
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    if new:
        fsync_dir(path.parent)


_HINTS = {
    errno.ENOSPC: ("kein Platz mehr auf dem Datenträger",
                   "Platz freimachen und den Befehl noch einmal aufrufen"),
    getattr(errno, "EDQUOT", -1): ("Speicherkontingent erschöpft",
                                   "Platz im Kontingent freimachen und den Befehl noch einmal "
                                   "aufrufen"),
    errno.EACCES: ("keine Berechtigung",
                   "Ihrem Benutzer dort Schreibrecht geben (oder als Eigentümer aufrufen)"),
    errno.EPERM: ("nicht erlaubt", "Eigentümer und Rechte dieses Pfads prüfen"),
    errno.EROFS: ("schreibgeschütztes Dateisystem",
                  "es beschreibbar einhängen oder die Kampagne an einen beschreibbaren Ort "
                  "kopieren"),
    errno.ENOENT: ("nicht gefunden",
                   "den Pfad (und --campaign) prüfen; das fehlende Verzeichnis anlegen"),
    errno.ENOTDIR: ("kein Verzeichnis",
                    "dort steht eine Datei, wo ein Verzeichnis erwartet wird; sie beiseite legen"),
    errno.EISDIR: ("ist ein Verzeichnis",
                   "dort steht ein Verzeichnis, wo eine Datei erwartet wird; es beiseite legen"),
    errno.EIO: ("Ein-/Ausgabefehler",
                "der Datenträger oder die Netzfreigabe hat versagt: erst prüfen, dann weiter"),
    errno.EBUSY: ("belegt", "ein anderes Programm hält diesen Pfad; später noch einmal versuchen"),
    errno.EMFILE: ("zu viele offene Dateien",
                   "die Grenze anheben (ulimit -n) und den Befehl noch einmal aufrufen"),
}


def german_strerror(exc: OSError) -> str:
    """The system's word for ``exc`` in German ("nicht gefunden", "keine
    Berechtigung", ...; the C library's own text is English), for a message
    that names the file itself."""
    if exc.errno in _HINTS:
        return _HINTS[exc.errno][0]
    return f"Fehler des Betriebssystems {errno.errorcode.get(exc.errno or 0, exc.errno)}"


def describe_os_error(exc: OSError, committed: bool | None = None,
                      near: Path | None = None) -> str:
    """One line for the user: what failed, where (the path, or the operation
    when the system named none), what to do. ``committed``: whether the
    command's change was committed before the error (None: not known here —
    the store then says what holds for every command). ``near``: the folder
    the command was writing into, named when the error came without a path
    (e.g. from a worker process, whose frames are gone)."""
    what, todo = _HINTS.get(exc.errno or 0, (
        f"Fehler des Betriebssystems ({errno.errorcode.get(exc.errno or 0, exc.errno)}: "
        f"{exc.strerror or exc})", "die Ursache beheben und den Befehl noch einmal aufrufen"))
    where = exc.filename if exc.filename is not None else _where(exc, near)
    if exc.filename2 is not None:
        where = f"{where} -> {exc.filename2}"
    if committed is None:
        tail = ("Gespeichertes Segment und Archiv sind unversehrt (eine unterbrochene Änderung "
                "ist nicht übernommen oder wird beim nächsten Aufruf vollendet).")
    elif committed:
        tail = "Die Änderung selbst ist gespeichert."
    else:
        tail = "Es wurde nichts gespeichert."
    return f"{what}: {where} — {todo}. {tail}"


def _where(exc: OSError, near: Path | None = None) -> str:
    """A path for an error that came without one (e.g. a write to an open
    file): the file being written, from the traceback's frames when a local
    variable names it, else the file system of ``near`` (the folder the
    command writes into) or of the working directory."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        for key in ("path", "dst", "target", "tmp", "p", "directory", "d"):
            value = tb.tb_frame.f_locals.get(key)
            if isinstance(value, Path) or (isinstance(value, str) and os.sep in value):
                found = str(value)
                break
        tb = tb.tb_next
    return found or f"(Datei nicht genannt; Dateisystem von {near or os.getcwd()})"
