"""The archive of months: commit, lock, replay, undo (docs/turns.md).

``worlds/<segment>/turns/<YYYY-MM>/`` holds

- ``state-before/``  the segment's files as they stood before the month (text
  files gzip-compressed as ``name.gz``, see :func:`store_state`),
- ``orders/``        every sheet read (``k<n>.txt``, the game master's ``sl.txt``),
- ``rules/``         the rules files the month was resolved with,
- ``seed.yaml``      the generator's seed and the kingdoms' drawn order,
- ``events.jsonl.xz`` the event log (JSON Lines, xz; months archived earlier:
  ``events.yaml.gz`` or ``events.yaml``),
- ``state/``         the segment's files as they stood after the month (the
  live segment may change afterwards through the game master's tools),
- ``outputs/<name>/`` files of the month's outputs (the writers passed to
  :func:`commit`, e.g. the result sheets; or those of :func:`register_output`),
- ``manifest.yaml``  SHA-256 of every output: ``state/*`` (the state after the
  month), ``events.jsonl.xz`` and ``outputs/...`` — of each file's content,
  whether it is stored as it is, as ``name.gz`` or in a pack (:data:`PACK`),
- ``summary.yaml``   the month's index entry (seed, order, sheets, event counts,
  every stored file's size) read by ``wdg turn list``.

Commit: the month's folder is prepared under ``turns/.staging-<YYYY-MM>``;
then :func:`wdg.world.storage.save_segment` writes the new state beside the
old one and commits both with one journal — the rename of the staging folder
to ``turns/<YYYY-MM>`` is part of that commit. An archived month is never
moved, renamed or deleted afterwards (``wdg turn undo`` moves the last one to
``turns/.undone/`` under its own commit). The lock ``worlds/<segment>/.lock``
(an ``flock``, naming its holder) keeps two commands apart; taking it
completes or cleans up whatever a crash interrupted (docs/storage.md).
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import io
import json
import lzma
import os
import shutil
import stat
import socket
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from wdg.campaign import Campaign
from wdg.engine.turn import InjectedFailure, MonthResult
from wdg.errors import DataError, LockedError, StateError, WdgError
from wdg.fsio import fsync_dir, fsync_tree, restrict_private_files
from wdg import integrity
from wdg.integrity import IntegrityError
from wdg.rules import safe_load_file
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment
from wdg.world.storage import (FILES, JOURNAL, leftovers, recover_store, refuse_symlinks,
                               save_segment, write_segment_files)

LOCK_FILE = ".lock"
TURNS = "turns"
UNDONE = ".undone"
"""``turns/.undone/<M>.<n>/``: months taken back by ``wdg turn undo`` (kept, not deleted)."""
ABANDONED = ".abandoned"
"""``turns/.abandoned/``: month folders an older wdg left behind an interrupted commit."""

OutputWriter = Callable[[MonthResult, Path], None]
"""``writer(result, directory)`` writes an output's files into ``directory``. A
writer with the attribute ``works_beside`` (true) is called with ``beside=``, a
function it calls once while its worker processes are busy (the archive's own
writing of the state and the event log, done in that time)."""
_OUTPUTS: dict[str, OutputWriter] = {}

try:
    _Dumper: type = yaml.CSafeDumper  # type: ignore[attr-defined]
    _Loader: type = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover
    _Dumper = yaml.SafeDumper
    _Loader = yaml.SafeLoader


def register_output(name: str, writer: OutputWriter) -> None:
    """Add an output of every month (e.g. the result sheets): its files are
    written into ``outputs/<name>/`` of the archived month, listed in the
    manifest and checked by replay."""
    if not name or "/" in name or name.startswith("."):
        raise StateError(f"invalid output name {name!r}")
    _OUTPUTS[name] = writer


def registered_outputs() -> dict[str, OutputWriter]:
    """The registered outputs by name."""
    return dict(sorted(_OUTPUTS.items()))


# --- lock ------------------------------------------------------------------------------

def _notice(message: str) -> None:
    """A one-line notice to the game master (stderr), e.g. a lock taken over."""
    sys.stderr.write(f"Hinweis: {message}\n")
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
    (:func:`wdg.world.storage.recover_store`, :func:`recover_archive`). Then
    the segment's format is checked (:func:`wdg.world.storage.check_live_format`:
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
        _notice(f"Sperre {path} von Prozess {pid if pid is not None else '?'} übernommen "
                "(der Prozess läuft nicht mehr)")
    from wdg.procs import LOCK_FDS

    LOCK_FDS.add(fd)  # forked workers close their copy (the lock stays ours alone)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {host}\n".encode(), 0)
        for note in recover_store(segment_dir) + recover_archive(segment_dir):
            _notice(note)
        if not any_format and (segment_dir / "segment.yaml").is_file():
            from wdg.world.storage import check_live_format

            check_live_format(segment_dir)
        yield path
    finally:
        try:
            path.unlink(missing_ok=True)
        finally:
            LOCK_FDS.discard(fd)
            os.close(fd)  # releases the flock


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
    found = [f for f in leftovers(segment_dir) if not busy or "älteren wdg-Version" in f]
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

def plain(value: Any, seg: Segment) -> Any:
    """YAML-safe plain data (numpy scalars, hexes as addresses, enums by value)."""
    if isinstance(value, Hex):
        return seg.label(value) if seg.grid.contains(value) else [value.q, value.r]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): plain(v, seg) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [plain(v, seg) for v in items]
    return value


def dump_yaml(data: Any, path: Path) -> None:
    """Write YAML deterministically (UTF-8, keys in the given order)."""
    text = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100)
    path.write_text(text, encoding="utf-8")


def events_data(result: MonthResult) -> list[dict[str, Any]]:
    """The event log as plain data."""
    seg = result.state
    return [plain(e.to_dict(label=lambda h: plain(h, seg)), seg) for e in result.log]


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hash_tree(root: Path) -> dict[str, str]:
    """``relative/posix/path -> sha256`` of every file under ``root``, sorted;
    a pack's members are listed as files of its folder."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root)
        if p.name == PACK:
            for name, data in read_pack(p).items():
                out[(rel.parent / name).as_posix()] = hashlib.sha256(data).hexdigest()
        else:
            out[rel.as_posix()] = sha256(p)
    return dict(sorted(out.items()))


EVENTS = "events.jsonl.xz"
"""The month's event log: one JSON object a line (JSON Lines), xz-compressed."""
YAML_EVENTS = "events.yaml.gz"
"""The event log of months archived before it was JSON Lines: YAML, gzip-compressed."""
LEGACY_EVENTS = "events.yaml"
"""The event log of months archived before it was compressed."""
EVENT_FILES = (EVENTS, YAML_EVENTS, LEGACY_EVENTS)
SUMMARY = "summary.yaml"
"""The month's index entry: seed, order, sheets, event counts and every manifest
file's size, so ``wdg turn list`` reads a few hundred bytes per month."""


def gzip_bytes(data: bytes, level: int = 9) -> bytes:
    """Deterministic gzip (no timestamp, no file name, level 9 unless given)."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def xz_bytes(data: bytes) -> bytes:
    """xz (preset :data:`PACK_PRESET`): a third smaller than gzip -9 on our text, faster."""
    return lzma.compress(data, format=lzma.FORMAT_XZ, preset=PACK_PRESET)


def _decompress(path: Path, data: bytes) -> bytes:
    """The content of a stored file by its name: ``.gz`` and ``.xz`` decompressed."""
    try:
        if path.suffix == ".gz":
            return gzip.decompress(data)
        if path.suffix == ".xz":
            return lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        raise StateError(f"{path}: beschädigte komprimierte Datei ({e})") from None
    return data


PACK = "pack.tar.xz"
"""An output folder's text files stored together: one tar archive, xz-compressed
(solid: the sixty kingdoms' sheets share most of their words, so the month's
text, HTML, JSON and YAML take half of what each file compressed alone takes,
at less CPU than gzip -9 per file). ``tar xJf pack.tar.xz`` unpacks it. Its
members are listed in the manifest as files of the folder it lies in, with
the SHA-256 of their own bytes."""
PACK_PRESET = 1
"""xz preset of a pack: 0.4 s of CPU for a stress month's 15 MB of text; higher
presets save a sixth more at three times the time."""
PACK_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": PACK_PRESET, "dict_size": 8 << 20}]
"""The pack's compression: the preset with an 8 MiB window, so that each PDF
finds the ones before it (a stress month's 61 PDFs, 3.2 MB, interleaved with
the text: 1 MiB windows leave them at 2.8 MB, 8 MiB take them to about 2.5 MB,
at the same CPU; decompressing needs 8 MiB of memory)."""
GZ_LEVEL = 6
"""gzip level of the archived state files (``state/*.yaml.gz``)."""
_PACK_CACHE: dict[str, Any] = {}


class PackWriter:
    """A pack written as its files come (``add`` in a fixed order; no time,
    owner or mode of their own: the same files in the same order give the same
    pack), compressed as it grows, so that the compression runs while the
    files' producers still work."""

    def __init__(self, directory: Path) -> None:
        import tarfile

        self.directory = directory
        self.path = directory / PACK
        self.members: dict[str, bytes] = {}
        self._xz = lzma.LZMAFile(self.path, "wb", format=lzma.FORMAT_XZ, filters=PACK_FILTERS)
        self._tar = tarfile.open(fileobj=self._xz, mode="w", format=tarfile.PAX_FORMAT)

    def add(self, name: str, data: bytes) -> None:
        """Append one member."""
        import tarfile

        if name in self.members:
            raise StateError(f"{self.path}: member {name!r} added twice")
        self.members[name] = data
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        self._tar.addfile(info, io.BytesIO(data))

    def add_file(self, path: Path) -> None:
        """Append the file ``path`` (under the pack's folder) and remove it."""
        self.add(path.relative_to(self.directory).as_posix(), path.read_bytes())
        path.unlink()

    def close(self) -> Path:
        """Finish the pack; empty folders left by :meth:`add_file` are removed."""
        self._tar.close()
        self._xz.close()
        for d in sorted((p for p in self.directory.rglob("*") if p.is_dir()), reverse=True):
            if not any(d.iterdir()):
                d.rmdir()
        _remember_pack(self.path, self.members)
        return self.path

    def abort(self) -> None:
        """Give up: close and remove the partial pack."""
        try:
            self._tar.close()
            self._xz.close()
        finally:
            self.path.unlink(missing_ok=True)


def write_pack(directory: Path, keep: Callable[[Path], bool] = lambda p: False) -> Path | None:
    """Store every file under ``directory`` that ``keep`` does not select in one
    pack ``directory/pack.tar.xz`` (members in name order) and remove them;
    returns the pack (``None`` when there is nothing to pack)."""
    files = sorted(p for p in directory.rglob("*") if p.is_file() and p.name != PACK
                   and not keep(p))
    if not files:
        return None
    writer = PackWriter(directory)
    try:
        for p in files:
            writer.add_file(p)
    except BaseException:
        writer.abort()
        raise
    return writer.close()


def _pack_key(pack: Path) -> tuple:
    """The pack's identity on disk (kept when its folder is renamed by the commit)."""
    st = pack.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember_pack(pack: Path, members: dict[str, bytes]) -> None:
    _PACK_CACHE.clear()  # one pack at a time: a month's reports are 15 MB
    _PACK_CACHE[repr(_pack_key(pack))] = members


def read_pack(pack: Path) -> dict[str, bytes]:
    """``{member name: bytes}`` of a pack (the last one read is kept in memory).
    A damaged pack raises :class:`StateError` naming it."""
    import tarfile

    key = repr(_pack_key(pack))
    if key in _PACK_CACHE:
        return _PACK_CACHE[key]
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(pack.read_bytes()))) as tar:
            for m in tar.getmembers():
                f = tar.extractfile(m) if m.isfile() else None
                if f is not None:
                    members[m.name] = f.read()
    except (lzma.LZMAError, tarfile.TarError, EOFError, zlib.error) as e:
        raise StateError(f"{pack}: beschädigtes Paket archivierter Dateien ({e})") from None
    _remember_pack(pack, members)
    return members


def _pack_of(path: Path, root: Path | None) -> tuple[Path, str] | None:
    """The pack (in ``path``'s folder or a folder above it, up to ``root``) that
    should hold ``path``, and the member name there."""
    for d in path.parents:
        if (d / PACK).is_file():
            return d / PACK, path.relative_to(d).as_posix()
        if root is None or d == root or root not in d.parents:
            return None
    return None


def read_archived(path: Path, root: Path | None = None) -> bytes:
    """The content of an archived file: stored as ``path``, compressed as
    ``path.gz`` or ``path.xz`` (decompressed), or a member of a pack in its folder or
    one above it (up to ``root``)."""
    if path.is_file():
        return _decompress(path, path.read_bytes())
    return _stored_elsewhere(path, root)


def _stored_elsewhere(path: Path, root: Path | None) -> bytes:
    for suffix in (".gz", ".xz"):
        packed = path.with_name(path.name + suffix)
        if packed.is_file():
            return _decompress(packed, packed.read_bytes())
    found = _pack_of(path, root)
    if found is not None:
        members = read_pack(found[0])
        if found[1] in members:
            return members[found[1]]
    raise FileNotFoundError(path)


def stored_bytes(month_dir: Path, name: str) -> bytes:
    """The bytes the manifest's SHA-256 of ``name`` is taken of: the file
    ``name`` itself as stored (months archived before: ``...gz`` names hash the
    compressed bytes), else its content stored compressed or in a pack."""
    path = month_dir / name
    if path.is_file():
        return path.read_bytes()
    return _stored_elsewhere(path, month_dir)


def stored_file(month_dir: Path, name: str) -> str:
    """The stored file holding the manifest's ``name`` (itself, ``name.gz`` or
    a pack), relative to the month's folder."""
    path = month_dir / name
    if path.is_file():
        return name
    for suffix in (".gz", ".xz"):
        if path.with_name(path.name + suffix).is_file():
            return name + suffix
    found = _pack_of(path, month_dir)
    return found[0].relative_to(month_dir).as_posix() if found else name


def events_file(month_dir: Path) -> Path:
    """The event log file of an archived month (JSON Lines, or from older
    months YAML, compressed or plain)."""
    for name in EVENT_FILES:
        if (month_dir / name).is_file():
            return month_dir / name
    return month_dir / EVENTS


def read_events_data(month_dir: Path) -> list[dict[str, Any]]:
    """The plain event log of an archived month."""
    path = events_file(month_dir)
    raw = read_archived(path)
    if path.name == EVENTS:
        try:
            data: Any = [json.loads(line) for line in raw.decode("utf-8").split("\n") if line]
        except ValueError as e:
            raise StateError(f"{path}: kein Ereignisprotokoll in JSON Lines ({e})") from None
    else:
        data = yaml.load(raw, Loader=_Loader) or []
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise StateError(f"{path}: erwartet eine Liste von Ereignissen")
    return data


def events_bytes(events: list[dict[str, Any]], name: str = EVENTS) -> bytes:
    """The archived bytes of an event log under the file name ``name``: JSON
    Lines (gzip), or the YAML of months archived before (for their replay)."""
    if name == EVENTS:
        text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events).encode("utf-8")
        return xz_bytes(text)
    text = yaml.dump(events, Dumper=_Dumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100).encode("utf-8")
    return gzip_bytes(text) if name.endswith(".gz") else text


def write_outputs(result: MonthResult, directory: Path,
                  writers: dict[str, OutputWriter] | None = None, *,
                  events_name: str = EVENTS) -> dict[str, str]:
    """Write every output of the month into ``directory`` (``state/``, the
    event log ``events.jsonl.xz``, ``outputs/<name>/`` of ``writers``, default
    the registered ones) and return their hashes."""
    done = []

    def own() -> None:
        """The state after the month and the event log (once)."""
        if not done:
            done.append(True)
            write_segment_files(result.state, directory / "state")
            (directory / events_name).write_bytes(events_bytes(events_data(result), events_name))

    chosen = registered_outputs() if writers is None else dict(sorted(writers.items()))
    for name, writer in chosen.items():
        d = directory / "outputs" / name
        d.mkdir(parents=True, exist_ok=True)
        if getattr(writer, "works_beside", False):
            # the writer's workers render while this process writes the state
            writer(result, d, beside=own)
        else:
            writer(result, d)
    own()
    return hash_tree(directory)


# --- reading a month's inputs -------------------------------------------------------------

def read_order_files(directory: Path) -> dict[str, bytes]:
    """``{file name: bytes}`` of the ``*.txt`` files of an orders folder."""
    if not directory.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.txt")) if p.is_file()}


def month_dir(camp: Campaign, segment: str, month: MonthDate) -> Path:
    """``worlds/<segment>/turns/<YYYY-MM>/``."""
    return camp.archive_dir(segment) / month.key


# --- commit and recovery --------------------------------------------------------------------

def recover_archive(segment_dir: Path) -> list[str]:
    """Leftovers of an interrupted month in ``turns/`` (call after
    :func:`wdg.world.storage.recover_store`, holding the lock): a staging
    folder ``.staging-<M>`` was never committed and only holds files that run
    wrote, so it is removed. A month folder of the segment's current month
    cannot come from this version's commit (its rename is part of the commit);
    one left by an older version is moved to ``turns/.abandoned/`` — never
    deleted. Returns one notice per action."""
    turns = segment_dir / TURNS
    notices: list[str] = []
    refuse_symlinks(segment_dir, (TURNS,))
    if not turns.is_dir() or (segment_dir / JOURNAL).exists():
        return notices
    refuse_symlinks(turns, [p.name for p in turns.glob(".*")])
    for p in sorted(turns.glob(".staging-*")):
        if p.name.endswith(STAGING_MARK_SUFFIX):
            continue
        if p.name.endswith(".blobs"):
            notices += _remove_staged_blobs(p)
            continue
        mark = p.with_name(p.name + STAGING_MARK_SUFFIX)
        if p.is_dir() and (_own_staging(p, mark) or not any(p.iterdir())):
            shutil.rmtree(p)  # (rmtree never follows a link inside)
            mark.unlink(missing_ok=True)
            fsync_dir(turns)
            notices.append(f"{p}: removed the staged archive of a month that was not committed")
        elif p.is_dir():
            notices.append(f"{p}: nicht von dieser wdg angelegt (keine passende Kennung "
                           f"{mark.name}) — nicht gelöscht; prüfen und von Hand entfernen")
    for mark in sorted(turns.glob(f".staging-*{STAGING_MARK_SUFFIX}")):
        staged = mark.with_name(mark.name[:-len(STAGING_MARK_SUFFIX)])
        if not staged.exists() and mark.is_file() and mark.stat().st_size < 200:
            mark.unlink()  # the commit renamed its folder (or it was removed above)
    # A month folder of the month not yet run is NOT moved away: a date set back
    # in segment.yaml looks the same (issue #30); integrity.check_chain names it
    # and the commands that would re-run the month refuse.
    return notices


def _remove_staged_blobs(folder: Path) -> list[str]:
    """An uncommitted month's staged template blobs (``.staging-<M>.blobs/``):
    only files whose name is the SHA-256 of their content (what
    :func:`stage_blob` writes) are removed; anything else is kept and named."""
    kept = []
    for entry in sorted(folder.iterdir()):
        st = os.lstat(entry)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and \
                hashlib.sha256(entry.read_bytes()).hexdigest() == entry.name:
            entry.unlink()
        else:
            kept.append(entry.name)
    if kept:
        return [f"{folder}: nicht von wdg angelegt: {', '.join(kept)} — nicht gelöscht; prüfen "
                "und von Hand entfernen"]
    folder.rmdir()
    return [f"{folder}: removed the staged templates of a month that was not committed"]


STAGING_MARK_SUFFIX = ".wdg"
"""``turns/.staging-<M>.wdg`` beside a staged month: device and inode of the
folder this run created; recovery removes a staging folder only when it
matches (or the folder is empty)."""


def _mark_staging(staging: Path) -> Path:
    st = os.lstat(staging)
    mark = staging.with_name(staging.name + STAGING_MARK_SUFFIX)
    mark.unlink(missing_ok=True) if mark.is_file() and not mark.is_symlink() else None
    fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, f"{st.st_dev} {st.st_ino} {staging.name}\n".encode())
    except BaseException:  # a full disk: no empty mark is left behind (we made it)
        os.close(fd)
        mark.unlink(missing_ok=True)
        raise
    os.close(fd)
    return mark


def _own_staging(staging: Path, mark: Path) -> bool:
    if staging.is_symlink() or not staging.is_dir() or mark.is_symlink() or not mark.is_file():
        return False
    st = os.lstat(staging)
    return mark.read_bytes()[:200] == f"{st.st_dev} {st.st_ino} {staging.name}\n".encode()


def _free_name(directory: Path, stem: str) -> Path:
    n = 1
    while (directory / f"{stem}.{n}").exists():
        n += 1
    return directory / f"{stem}.{n}"


def can_commit(seg_dir: Path, month: MonthDate, *, deliver_to: Path | None = None,
               state: dict[str, bytes] | None = None, staging: Path | None = None) -> None:
    """Refuse a month's commit before anything is committed unless it can finish
    (issue #30; :func:`wdg.integrity.precheck`, German message naming the path):
    the segment folder (the save's generation), ``turns/`` (the staged month's
    rename to ``turns/<M>``) and the template store ``turns/.blobs/sha256/``
    take new files and lie on one file system with the staging folder, and
    ``deliver_to`` (``reports/<segment>/<M>/``, delivered after the commit)
    takes files in every folder it already has; and the file systems have
    room (docs/storage.md, "Checks before a commit"). Called twice:
    before the month is resolved (an estimate: three times the live state for
    the archived state before and after and the new state, plus what the last
    archived month's folder and its delivered reports take), and at the commit
    point with ``state`` (the new state files) and ``staging`` (the month's
    folder, rendered): the state plus 64 KiB (hash list, journal, folder
    entries) in the segment folder, and the reports' unpacked size, counted
    from the staged pack, where they are delivered."""
    turns = seg_dir / TURNS
    store = turns / BLOBS / "sha256"
    writable = [seg_dir, turns, store]
    if deliver_to is not None:
        writable.append(deliver_to)
        if deliver_to.is_dir() and not deliver_to.is_symlink():
            writable += sorted(d for d in deliver_to.rglob("*") if d.is_dir())
    space: dict[Path, int] = {}
    if state is not None:
        space[seg_dir] = sum(len(b) for b in state.values()) + (64 << 10)
        if deliver_to is not None and staging is not None:
            from wdg.reports.archived import archived_reports, delivered_size

            space[deliver_to] = delivered_size(archived_reports(staging))
    else:  # before the month is resolved: what the last month took, and the state thrice
        live = sum(integrity.tree_size(seg_dir / n) for n in FILES)
        space[seg_dir] = 3 * live + integrity.tree_size(turns / month.previous().key)
        if deliver_to is not None:
            space[deliver_to] = integrity.tree_size(deliver_to.parent / month.previous().key)
    what = (f"Speichern von Mond {month.key}" if state is not None
            else f"Auswertung von Mond {month.key}")
    integrity.precheck(what, writable, same_fs=(turns, turns / BLOBS, store,
                                                *((staging,) if staging else ())),
                       space=space)


def commit(camp: Campaign, result: MonthResult, rules_dir: Path,
           fail_at: str | None = None,
           writers: dict[str, OutputWriter] | None = None,
           deliver_to: Path | None = None) -> dict[str, str]:
    """Archive the month and install the new state: one commit.

    The month's folder is written completely into ``turns/.staging-<M>/`` and
    flushed; then :func:`wdg.world.storage.save_segment` writes the new state
    and commits both with one journal (the rename of the staging folder to
    ``turns/<M>`` is part of it). Before the journal exists nothing visible has
    changed; after it, the next start completes the commit.

    ``fail_at`` (test hook): ``"staged"`` and ``"archived"`` fail after the
    month's folder is prepared, right before the save that commits it.
    ``deliver_to``: where the caller delivers the reports after the commit
    (checked with the rest by :func:`can_commit` before the commit point).
    """
    seg_dir = camp.segment_dir(result.state.name)
    turns = seg_dir / TURNS
    refuse_symlinks(seg_dir, (TURNS,))
    turns.mkdir(exist_ok=True)
    key = result.date.key
    if (turns / key).exists() or (turns / key).is_symlink():
        raise StateError(f"das Archiv enthält schon {key} ({turns / key}); erst rückgängig machen "
                         "('wdg turn undo') oder das Datum des Segments prüfen")
    staging = turns / f".staging-{key}"
    blobs = staged_blobs(staging)
    refuse_symlinks(turns, (staging.name, staging.name + STAGING_MARK_SUFFIX, blobs.name))
    if staging.exists() or blobs.exists():  # uncommitted leftovers: removed when provably ours
        for note in recover_archive(seg_dir):
            _notice(note)
        if staging.exists() or blobs.exists():
            raise StateError(f"{staging} ist nicht von dieser wdg angelegt; nicht gelöscht — "
                             "prüfen und von Hand entfernen, dann erneut auswerten")
    staging.mkdir()
    try:
        mark = _mark_staging(staging)
    except BaseException:
        staging.rmdir()  # made empty a moment ago by this run
        raise
    try:
        manifest, state = _stage(seg_dir, staging, result, rules_dir, writers)
        if fail_at == "staged":
            raise InjectedFailure("injected failure after staging the archive")
        fsync_tree(staging)  # on disk before the commit that renames it
        new_blobs = sorted(p.name for p in blobs.iterdir()) if blobs.is_dir() else []
        if new_blobs:
            fsync_tree(blobs)
        fsync_dir(turns)
        # can the commit, its roll forward and the delivery finish? (else: refused,
        # the staged month is removed below, nothing was changed)
        can_commit(seg_dir, result.date, deliver_to=deliver_to, state=state, staging=staging)
        if fail_at == "archived":
            raise InjectedFailure("injected failure before saving the new state")
        # the new template blobs enter the shared store under the same commit
        renames = tuple((f"{TURNS}/{blobs.name}/{d}", f"{TURNS}/{BLOBS}/sha256/{d}")
                        for d in new_blobs) + ((f"{TURNS}/{staging.name}", f"{TURNS}/{key}"),)
        save_segment(result.state, seg_dir, files=state, renames=renames)
    except BaseException:
        if not (seg_dir / JOURNAL).exists() and not (turns / key).exists():
            shutil.rmtree(staging, ignore_errors=True)  # not committed: our own fresh files
            mark.unlink(missing_ok=True)
            if blobs.is_dir() and not blobs.is_symlink():
                _remove_staged_blobs(blobs)
        raise
    try:
        blobs.rmdir()  # emptied by the commit's renames (else removed with the lock's recovery)
    except OSError:
        pass
    result.committed, result.manifest = True, manifest
    mark.unlink(missing_ok=True)
    return manifest


COMPRESSED_STATE = (".yaml", ".txt")
"""State files archived gzip-compressed (``state/armies.yaml.gz``); the layers
(``.npz``) are compressed already."""


def store_state(files: dict[str, bytes], directory: Path, previous: Path | None = None) -> None:
    """Archive a segment's files (``{name: bytes}``) into ``directory``: text
    files gzip-compressed as ``name.gz``. Every month holds its own copies —
    never a hard link shared with another month, which one in-place edit would
    change for all of them (issue #30); a file equal to the one ``previous``
    (an archived state folder) holds is copied from there (no second
    compression)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):
        stored = name + ".gz" if name.endswith(COMPRESSED_STATE) else name
        if previous is not None:
            src = previous / stored
            try:
                if not src.is_symlink() and src.is_file():
                    raw = src.read_bytes()
                    if _decompress(src, raw) == data:
                        (directory / stored).write_bytes(raw)
                        continue
            except (OSError, StateError):  # none there or damaged: write it afresh
                pass
        (directory / stored).write_bytes(gzip_bytes(data, GZ_LEVEL) if stored != name else data)
    restrict_private_files(directory)  # hashes and seed: 0600 (issue #30)


def _stage(seg_dir: Path, staging: Path, result: MonthResult, rules_dir: Path,
           writers: dict[str, OutputWriter] | None) -> tuple[dict[str, str], dict[str, bytes]]:
    # Every month holds its own copies (no hard links shared between months).
    previous = seg_dir / TURNS / result.date.previous().key
    before = {name: (seg_dir / name).read_bytes() for name in FILES if (seg_dir / name).is_file()}
    store_state(before, staging / "state-before", previous / "state")
    # the provenance's input hashes, of the bytes in hand (the content of every stored form)
    inputs = {f"state-before/{name}": _sha(data) for name, data in before.items()}
    orders = staging / "orders"
    orders.mkdir()
    for name, data in sorted(result.inputs.items()):
        (orders / name).write_bytes(data)
        inputs[f"orders/{name}"] = _sha(data)
    rules = staging / "rules"
    rules.mkdir()
    for p in sorted(rules_dir.glob("*.yaml")):
        (rules / p.name).write_bytes(p.read_bytes())  # a copy: no hard link between months
        inputs[f"rules/{p.name}"] = sha256(rules / p.name)
    dump_yaml(result.seed_record(), staging / "seed.yaml")
    inputs["seed.yaml"] = sha256(staging / "seed.yaml")
    out = staging / ".out"
    manifest = write_outputs(result, out, writers)
    os.replace(out / EVENTS, staging / EVENTS)
    # the state after the month: archived compressed, and installed as the live
    # segment from the same bytes (serialised once)
    state = {p.name: p.read_bytes() for p in sorted((out / "state").iterdir()) if p.is_file()}
    store_state(state, staging / "state")
    if (out / "outputs").exists():
        os.replace(out / "outputs", staging / "outputs")
    shutil.rmtree(out)
    dump_yaml({"segment": result.state.name, "month": result.date.key, "files": manifest},
              staging / "manifest.yaml")
    _store_inputs(staging, result)
    inputs.update({f"{INPUTS}/{name}": _sha(data) for name, data in result.archived_inputs.items()})
    dump_yaml(provenance_record(seg_dir, result, inputs), staging / PROVENANCE)
    by_kingdom: dict[int, int] = {}
    for e in result.log:
        if e.kingdom is not None:
            by_kingdom[int(e.kingdom)] = by_kingdom.get(int(e.kingdom), 0) + 1
    from wdg.provenance import build_info, describe

    dump_yaml({**result.seed_record(), "wdg": describe(build_info()),
               "sheets": sorted(result.inputs),
               "events": len(result.log), "events_by_kingdom": dict(sorted(by_kingdom.items())),
               "sizes": {name: (staging / name).stat().st_size
                         for name in sorted({stored_file(staging, n) for n in manifest})}},
              staging / SUMMARY)
    # Last: the month's hash list over every file above (inputs, state before and
    # after, events, outputs, index) with the link to the previous month's list.
    integrity.seal_month(staging, previous if previous.is_dir() else None)
    return manifest, state


# --- provenance, archived inputs and templates ------------------------------------------

PROVENANCE = "provenance.yaml"
"""What made the month (docs/turns.md, "Provenance"): wdg version, commit, dirty
flag, Python, every installed distribution, the hash of every input, the
templates (by hash, stored in :data:`BLOBS`)."""
PROVENANCE_FORMAT = 1
INPUTS = "inputs"
"""``inputs/``: further files the month's outputs read (``MonthResult.archived_inputs``),
xz-compressed (``previous-reports.json.xz``)."""
BLOBS = ".blobs"
"""``turns/.blobs/sha256/<hex>``: content-addressed, read-only copies of the
templates months were rendered with — one copy of each content for every month
that used it, no hard link an edit could change for all (a blob's name is its
hash, checked on every read)."""


def blob_path(turns: Path, digest: str) -> Path:
    """Where the blob of SHA-256 ``digest`` lives under ``turns/``."""
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise StateError(f"kein SHA-256-Hexwert: {digest!r}")
    return turns / BLOBS / "sha256" / digest


def staged_blobs(staging: Path) -> Path:
    """``turns/.staging-<M>.blobs/``: the month's new blobs until its commit moves
    them into :data:`BLOBS` (one of the commit's journal renames)."""
    return staging.with_name(staging.name + ".blobs")


def stage_blob(turns: Path, staging: Path, data: bytes) -> str:
    """Stage ``data`` as a read-only blob of the month being committed unless
    the store holds it already; returns its SHA-256."""
    digest = hashlib.sha256(data).hexdigest()
    if blob_path(turns, digest).is_file():
        read_blob(turns, digest)  # a damaged copy is named, never referenced again
        return digest
    folder = staged_blobs(staging)
    folder.mkdir(exist_ok=True)
    path = folder / digest
    path.write_bytes(data)
    os.chmod(path, 0o444)
    return digest


def read_blob(turns: Path, digest: str, name: str = "") -> bytes:
    """A blob's bytes, checked against its hash (:class:`StateError` naming it otherwise)."""
    path = blob_path(turns, digest)
    what = f" {name}" if name else ""
    try:
        data = path.read_bytes()
    except OSError:
        raise StateError(f"{path}: die archivierte Vorlage{what} fehlt") from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise StateError(f"{path}: die archivierte Vorlage{what} ist beschädigt (ihr Inhalt "
                         "hat nicht den SHA-256, nach dem sie benannt ist)")
    return data


def _store_inputs(staging: Path, result: MonthResult) -> None:
    """The further inputs (``inputs/<name>.xz``) and the templates (blobs)."""
    if result.archived_inputs:
        d = staging / INPUTS
        d.mkdir()
        for name, data in sorted(result.archived_inputs.items()):
            (d / f"{name}.xz").write_bytes(xz_bytes(data))
    for data in result.templates.values():
        stage_blob(staging.parent, staging, data)


def _content_hashes(month: Path, folder: str) -> dict[str, str]:
    """``folder/name -> sha256`` of the content of every file under ``folder``
    (compressed files by their decompressed content, under their plain name)."""
    out: dict[str, str] = {}
    root = month / folder
    if not root.is_dir():
        return out
    for p in sorted(root.rglob("*")):
        if p.is_file():
            rel = p.relative_to(month).as_posix()
            if p.suffix in (".gz", ".xz"):
                rel = rel[:-3]
            out[rel] = hashlib.sha256(_decompress(p, p.read_bytes())).hexdigest()
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def provenance_record(seg_dir: Path, result: MonthResult, inputs: dict[str, str]) -> dict[str, Any]:
    """The month's ``provenance.yaml`` (written before the commit point); ``inputs``:
    path in the month folder -> SHA-256 of the content of every input."""
    from wdg.provenance import environment
    from wdg.world.storage import FORMAT

    env = environment()
    record: dict[str, Any] = {
        "format": PROVENANCE_FORMAT,
        "segment": result.state.name,
        "month": result.date.key,
        "segment_format": FORMAT,
        "wdg": env["wdg"],
        "python": env["python"],
        "dependencies": env["dependencies"],
        "inputs": dict(sorted(inputs.items())),
        "templates": {name: hashlib.sha256(data).hexdigest()
                      for name, data in sorted(result.templates.items())},
    }
    prev = seg_dir / TURNS / result.date.previous().key / "manifest.yaml"
    if prev.is_file():
        record["previous_month"] = {"month": result.date.previous().key,
                                    "manifest_sha256": sha256(prev)}
    return record


def read_provenance(mdir: Path) -> dict[str, Any] | None:
    """An archived month's provenance record (``None``: archived before 0.2.0)."""
    path = mdir / PROVENANCE
    if not path.is_file():
        return None
    data = safe_load_file(path)
    if not isinstance(data, dict):
        raise StateError(f"{path}: erwartet eine Zuordnung (den Herkunftsnachweis des Monds)")
    return data


def archived_templates(mdir: Path, target: Path) -> dict[str, str] | None:
    """Write the templates the month ``mdir`` was rendered with into ``target``
    (each checked against its hash); returns ``{name: sha256}``, ``None`` when
    the month did not archive them (before 0.2.0)."""
    prov = read_provenance(mdir)
    if not prov or not isinstance(prov.get("templates"), dict) or not prov["templates"]:
        return None
    turns = mdir.parent
    for name, digest in sorted(prov["templates"].items()):
        rel = Path(str(name))
        if rel.is_absolute() or ".." in rel.parts:
            raise StateError(f"{mdir / PROVENANCE}: der Vorlagenname {name!r} ist kein einfacher Pfad")
        dst = target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(read_blob(turns, str(digest), str(name)))
    return dict(prov["templates"])


# --- undo --------------------------------------------------------------------------------

def undo_month(camp: Campaign, segment: str) -> MonthDate:
    """Restore the state before the last committed month; its archive folder
    moves to ``turns/.undone/<YYYY-MM>.<n>/`` under the same commit (nothing is
    deleted) and the month's sheets stay in ``orders/`` for a corrected re-run.
    Returns the month undone."""
    from wdg.world.storage import load_segment

    seg_dir = camp.segment_dir(segment)
    with segment_lock(seg_dir):
        seg = load_segment(seg_dir)
        last = seg.date.previous()
        mdir = month_dir(camp, segment, last)
        turns = seg_dir / TURNS
        refuse_symlinks(seg_dir, (TURNS, f"{TURNS}/{UNDONE}", f"{TURNS}/{last.key}"))
        if not (mdir / "state-before").is_dir():
            raise StateError(f"Segment {segment!r}: kein archivierter Mond {last.key}, der rückgängig zu machen wäre")
        chain = [f for f in integrity.check_chain(seg_dir, seg.date.key) if not f.uncovered]
        # what undo reads (the state before) must be intact; other damage in the
        # month it takes back does not stop it (the folder is kept in .undone/)
        damage = [f for f in integrity.verify_month(mdir) if not f.uncovered
                  and f.path.startswith((str(mdir / "state-before"), str(mdir / integrity.LIST)))]
        if chain or damage:
            raise IntegrityError(chain + damage, f". Rückgängig machen nicht begonnen; nichts "
                                 "wurde geändert.")
        before = load_segment(mdir / "state-before")
        # Before the commit: can it finish? (.undone exists, both renames stay on one
        # file system, the segment folder takes new files and has room for them.)
        need = sum(len(integrity_read(mdir / "state-before", n)) for n in FILES)
        (turns / UNDONE).mkdir(exist_ok=True)
        integrity.precheck("Rückgängig machen", (seg_dir, turns, turns / UNDONE),
                           same_fs=(seg_dir, turns, turns / UNDONE, mdir), need=need,
                           space_at=seg_dir)
        keep = _free_name(turns / UNDONE, last.key)
        s = seg.settings
        nxt = f"{s.deadline} {s.timezone}\n" if s.deadline and s.deadline_month == seg.date.key \
            else ""
        save_segment(before, seg_dir,
                     renames=((f"{TURNS}/{last.key}", keep.relative_to(seg_dir).as_posix()),))
        if nxt:  # the deadline the next month had, for the month's re-run
            (keep / NEXT_DEADLINE).write_text(nxt, encoding="utf-8")
    return last


def integrity_read(folder: Path, name: str) -> bytes:
    """An archived state file's content (``name`` or ``name.gz``)."""
    return read_archived(folder / name)


NEXT_DEADLINE = "next-deadline.txt"
"""In an undone month's folder (``turns/.undone/<YYYY-MM>.<n>/``): the deadline
the month after had when the month was undone (``YYYY-MM-DD HH:MM Zone``)."""


def kept_next_deadline(seg_dir: Path, month: MonthDate, tz: str = "UTC") -> str | None:
    """The deadline for the month after ``month`` that the last undone run of
    ``month`` had (set by its ``--next-deadline`` or later with ``wdg turn
    deadline``), if it has not passed; ``None`` otherwise."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    undone = seg_dir / TURNS / UNDONE
    runs = sorted((p for p in undone.glob(f"{month.key}.*") if p.suffix[1:].isdigit()),
                  key=lambda p: int(p.suffix[1:])) if undone.is_dir() else []
    if not runs:
        return None
    text = ""
    if (runs[-1] / NEXT_DEADLINE).is_file():
        text = (runs[-1] / NEXT_DEADLINE).read_text(encoding="utf-8").strip()
    elif (runs[-1] / "seed.yaml").is_file():
        from wdg.rules import safe_load_file

        rec = safe_load_file(runs[-1] / "seed.yaml") or {}
        text = str(rec.get("next_deadline") or "") if isinstance(rec, dict) else ""
    if not text:
        return None
    when, zone = (text.rpartition(" ")[0], text.rpartition(" ")[2]) if text.count(" ") >= 2 \
        else (text, tz)
    try:
        at = datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(zone))
    except (ValueError, KeyError):
        return None
    return when if at > datetime.now(at.tzinfo) else None


# --- replay ---------------------------------------------------------------------------

@dataclass(slots=True)
class Layer:
    """One layer of a replay's comparison: ``ok``, what differs (``detail``)
    and, where the replay can tell, why (``why``)."""

    name: str
    ok: bool
    detail: str = ""
    why: str = ""


@dataclass(slots=True)
class ReplayReport:
    """The outcome of a replay: ``first_difference`` is ``None`` when every
    output matched the manifest byte for byte. ``layers`` compare in order:
    inputs, rules, state, events, each rendered output, the archived copies;
    ``made_by`` names the software that resolved the month, ``this_version``
    the one replaying it."""

    month: MonthDate
    checked: int
    first_difference: str | None
    layers: list[Layer] = field(default_factory=list)
    made_by: str = ""
    this_version: str = ""
    same_software: bool | None = None

    @property
    def ok(self) -> bool:
        """True if the replay reproduced every output."""
        return self.first_difference is None

    def lines(self) -> list[str]:
        """The explanation, one line per layer (German, for the game master)."""
        out = [f"ausgewertet mit {self.made_by}; dies ist {self.this_version}"]
        for layer in self.layers:
            text = f"  {layer.name}: {'gleich' if layer.ok else 'ABWEICHUNG'}"
            if layer.detail:
                text += f" — {layer.detail}"
            out.append(text)
            if layer.why:
                out.append(f"    Grund: {layer.why}")
        return out


def _rules_with_defaults(month_rules: Path, missing: list[str]) -> Any:
    """The month's rules with every key they lack taken from the shipped rules
    (for a replay of a month resolved before those keys existed)."""
    from wdg.campaign import PACKAGE_ROOT
    from wdg.rules import Rules

    archived = Rules.load(month_rules)
    shipped = Rules.load(PACKAGE_ROOT / "worlds" / "rules")

    def merge(base: Any, over: Any) -> Any:
        if isinstance(base, dict) and isinstance(over, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in over.items()}}
        return over if over is not None or base is None else base

    from wdg.engine.upgrade import RULE_KEYS_ADDED, RULES_OFF_WHEN_ABSENT

    data = {area: merge(shipped._data.get(area), archived._data.get(area))
            for area in sorted(set(shipped._data) | set(archived._data))}
    for file, key in RULES_OFF_WHEN_ABSENT:  # absent then = off then: not completed
        area = file.removesuffix(".yaml")
        if area not in archived._data:
            if key is None or area not in data:
                data.pop(area, None)
                continue
        if key is not None and isinstance(data.get(area), dict):
            parts, node = key.split("."), archived._data.get(area)
            for part in parts:
                node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                target = data[area]
                for part in parts[:-1]:
                    target = target.get(part) if isinstance(target, dict) else None
                if isinstance(target, dict):
                    target.pop(parts[-1], None)

    for k in RULE_KEYS_ADDED:  # the value that gives the old behaviour, where it is known
        area, parts = k.file.removesuffix(".yaml"), k.key.split(".")
        node = archived._data.get(area)
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node is None and isinstance(data.get(area), dict):
            target = data[area]
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = k.old_value
    return Rules(data, {**shipped._paths, **archived._paths})


def fill_month_rules(mdir: Path, target: Path) -> list[str]:
    """The month's rules with every key this version's shipped rules have and
    they lack (the key did not exist then) — the value of the old behaviour
    where known (:data:`wdg.engine.upgrade.RULE_KEYS_ADDED`), else the shipped
    one — written into ``target``; returns what was added (``[]``: nothing was
    missing, ``target`` is not written). For a replay by a newer version."""
    from wdg.campaign import PACKAGE_ROOT
    from wdg.engine.upgrade import _has, _scalar, _walk, off_when_absent, old_value

    shipped_dir = PACKAGE_ROOT / "worlds" / "rules"
    files: dict[str, Any] = {}
    added: list[str] = []
    for shipped in sorted(shipped_dir.glob("*.yaml")):
        want = safe_load_file(shipped) or {}
        mine = mdir / "rules" / shipped.name
        if not mine.is_file():
            if off_when_absent(shipped.name, None):
                continue  # a rule that is off without its file: off then, off now
            files[shipped.name] = want
            added.append(f"{shipped.name} (die ganze Datei)")
            continue
        have = safe_load_file(mine) or {}
        for path, value in _walk(want):
            if _has(have, path):
                continue
            key = ".".join(map(str, path))
            if off_when_absent(shipped.name, key):
                continue
            known, old = old_value(shipped.name, key)
            node = have
            for part in path[:-1]:
                node = node.setdefault(part, {}) if isinstance(node, dict) else node
            if isinstance(node, dict):
                node[path[-1]] = old if known else value
                added.append(f"{shipped.name}: {key} = {_scalar(old if known else value)}"
                             + (" (altes Verhalten)" if known else " (mitgeliefert)"))
        files[shipped.name] = have
    if not added:
        return []
    target.mkdir(parents=True, exist_ok=True)
    for p in sorted((mdir / "rules").glob("*.yaml")):
        if p.name not in files:
            shutil.copyfile(p, target / p.name)
    for name, data in files.items():
        dump_yaml(data, target / name)
    return added


def _first_line_difference(a: bytes, b: bytes) -> str:
    """``Zeile N: 'archived' → 'now'`` for two texts."""
    la = a.decode("utf-8", "replace").split("\n")
    lb = b.decode("utf-8", "replace").split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<Ende>"
        y = lb[i] if i < len(lb) else "<Ende>"
        if x != y:
            return f"Zeile {i + 1}: archiviert {x[:100]!r}, jetzt {y[:100]!r}"
    return "gleicher Text, andere Bytes"


def _explain_state(name: str, old: bytes | None, new: bytes | None) -> str:
    if old is None or new is None:
        return f"{name}: {'fehlt im Archiv' if old is None else 'entsteht nicht mehr'}"
    if name.endswith(".yaml"):
        try:
            a, b = yaml.load(old, Loader=_Loader), yaml.load(new, Loader=_Loader)
        except yaml.YAMLError:
            a = b = None
        if isinstance(a, dict) and isinstance(b, dict) and a.get("format") != b.get("format") \
                and {**a, "format": 0} == {**b, "format": 0}:
            return (f"{name}: nur das Segmentformat (format: {a.get('format')} → "
                    f"{b.get('format')}); derselbe Spielstand")
    if name.endswith(".npz"):
        return f"{name}: andere Karten-Ebenen"
    return f"{name}: {_first_line_difference(old, new)}"


def _event_rows(data: bytes, name: str) -> list[dict[str, Any]] | None:
    try:
        raw = _decompress(Path(name), data)
        if name.startswith(EVENTS.split(".")[0]) and ".jsonl" in name:
            return [json.loads(line) for line in raw.decode("utf-8").split("\n") if line]
        loaded = yaml.load(raw, Loader=_Loader)
        return loaded if isinstance(loaded, list) else None
    except (StateError, ValueError, yaml.YAMLError, UnicodeDecodeError):
        return None


def _explain_events(old: bytes | None, new: bytes, name: str) -> tuple[str, str]:
    """What differs between two event logs and whether only the wording does."""
    a = _event_rows(old, name) if old is not None else None
    b = _event_rows(new, name)
    if a is None or b is None:
        return "das archivierte Ereignisprotokoll ist nicht lesbar", ""
    if len(a) != len(b):
        kinds = lambda rows: {r.get("kind") for r in rows}  # noqa: E731
        extra = sorted(kinds(b) - kinds(a)) or sorted(kinds(a) - kinds(b))
        return (f"{len(a)} Ereignisse archiviert, jetzt {len(b)}"
                + (f" (Arten nur auf einer Seite: {', '.join(map(str, extra[:5]))})" if extra else ""),
                "anderer Spielverlauf oder andere Ereignisarten dieser Version")
    texts = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    wording = [i for i in texts if {**a[i], "why": ""} == {**b[i], "why": ""}]
    if texts and len(wording) == len(texts):
        i = wording[0]
        return (f"{len(texts)} von {len(a)} Ereignissen nur im Wortlaut, z. B. Nr. {i + 1} "
                f"({a[i].get('kind')}): archiviert {str(a[i].get('why'))[:80]!r}, jetzt "
                f"{str(b[i].get('why'))[:80]!r}",
                "gleicher Spielverlauf, andere Formulierung der Ereignistexte")
    other = [i for i in texts if i not in wording]
    i = other[0] if other else 0
    keys = sorted(k for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k)) if other else []
    detail = (f"{len(texts)} von {len(a)} Ereignissen weichen ab, {len(wording)} davon nur im "
              f"Wortlaut; das erste mit anderem Inhalt: Nr. {i + 1} ({a[i].get('kind')}) in "
              f"{', '.join(keys) or '?'}")
    if keys and set(keys) <= {"why", "data"}:
        return detail + f": archiviert {a[i].get('data')!r}, jetzt {b[i].get('data')!r}"[:200], \
            "dieselben Ereignisse mit anderen Zusatzangaben oder Texten"
    return detail, ""


def _pdf_producer(data: bytes | None) -> str | None:
    import re

    if not data:
        return None
    m = re.search(rb"/Producer\s*\(([^)]*)\)", data)
    return m.group(1).decode("latin-1") if m else None


def _output_group(name: str) -> str:
    """``outputs/reports/k3/ergebnis.txt`` -> ``reports: ergebnis.txt`` (by file kind)."""
    parts = name.split("/")
    return f"{parts[1]}: {parts[-1]}" if len(parts) > 2 else name


def replay_month(camp: Campaign, segment: str, month: MonthDate | str,
                 writers: dict[str, OutputWriter] | None = None, *,
                 templates: Path | None = None, rules_dir: Path | None = None,
                 rules_added: list[str] | None = None) -> ReplayReport:
    """Re-run an archived month from its own archive — state before, sheets,
    rules, further inputs, templates, seed — in a temporary directory and
    compare every output with the manifest, in layers (docs/turns.md,
    "Replay"): the provenance first (which software resolved it), then the
    inputs against their recorded hashes, the rules, the state and events,
    each rendered output, and the archived copies. Never raises for a
    difference; it names the layer and, where it can, why.

    The outputs regenerated are exactly those the manifest lists
    (``outputs/<name>/...``), taken from ``writers`` or the registered ones; an
    archived output with no writer available is reported as the difference.
    ``templates``: where :func:`archived_templates` wrote the month's templates
    (``None``: the month archived none, or the caller did not ask). ``rules_dir``,
    ``rules_added``: the month's rules completed by :func:`fill_month_rules` and
    what it added (the writers must be given the same folder)."""
    from wdg.engine.turn import resolve_from_inputs
    from wdg.provenance import build_info, describe
    from wdg.rules import Rules
    from wdg.world.storage import load_segment

    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} ({mdir})")
    manifest = safe_load_file(mdir / "manifest.yaml")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise StateError(f"{mdir / 'manifest.yaml'}: kein Manifest eines Monds (keine Zuordnung 'files')")
    manifest = {str(k): str(v) for k, v in manifest["files"].items()}
    prov = read_provenance(mdir)
    ours = build_info()
    made = prov.get("wdg") if prov else None
    report = ReplayReport(date, len(manifest), None, made_by=describe(made),
                          this_version=describe(ours))
    if isinstance(made, dict):
        report.same_software = made.get("version") == ours["version"] and (
            not made.get("commit") or not ours["commit"] or made.get("commit") == ours["commit"])

    def stop(layer: Layer, first: str) -> ReplayReport:
        report.layers.append(layer)
        report.first_difference = first
        return report

    # 1. inputs against the provenance's hashes
    if prov and isinstance(prov.get("inputs"), dict):
        now: dict[str, str] = {}
        try:
            for folder in ("state-before", "orders", "rules", INPUTS):
                now.update(_content_hashes(mdir, folder))
            now["seed.yaml"] = sha256(mdir / "seed.yaml")
        except (OSError, StateError) as e:
            return stop(Layer("Eingaben", False, str(e)), "Eingaben")
        for name in sorted(set(prov["inputs"]) | set(now)):
            if prov["inputs"].get(name) != now.get(name):
                what = "fehlt" if name not in now else \
                    "ist neu" if name not in prov["inputs"] else "wurde verändert"
                return stop(Layer("Eingaben", False, f"{name} {what} (SHA-256 laut "
                                  f"{PROVENANCE})", "eine archivierte Eingabe ist nicht mehr "
                                  "die, mit der der Mond ausgewertet wurde"),
                            f"{name} (Eingabe weicht von {PROVENANCE} ab)")
        report.layers.append(Layer("Eingaben", True, f"{len(now)} Dateien wie in {PROVENANCE}"))
    else:
        report.layers.append(Layer("Eingaben", True, "keine Herkunftsangaben (vor wdg 0.2.0): "
                                   "Eingaben nicht einzeln geprüft"))
    seed = safe_load_file(mdir / "seed.yaml")
    try:
        seg = load_segment(mdir / "state-before")
    except (OSError, WdgError, ValueError, EOFError) as e:
        return stop(Layer("Eingaben", False, f"state-before/: {e}"), "state-before")
    except Exception as e:  # noqa: BLE001 — a damaged archive file must not end in a traceback
        return stop(Layer("Eingaben", False, f"state-before/ nicht lesbar: {type(e).__name__}: {e}"),
                    "state-before")

    # 2. rules: a key this version needs that did not exist then is taken from the shipped rules
    orders = read_order_files(mdir / "orders")
    rules = Rules.load(rules_dir or mdir / "rules")
    added: list[str] = list(rules_added or [])
    result = None
    for _ in range(50):
        try:
            # a month resolved before wdg 0.2.0 (no provenance) kept its PBKDF2 hashes
            result = resolve_from_inputs(load_segment(mdir / "state-before") if added else seg,
                                         orders, rules,
                                         upgrade_passwords=(mdir / PROVENANCE).is_file())
            break
        except DataError as e:
            if e.found != "missing key" or not e.path:
                return stop(Layer("Auswertung", False, str(e)), "Auswertung")
            key = f"{Path(str(e.path)).name}: {e.where}"
            if key in added or rules_added:  # (completed already: the shipped rules lack it too)
                return stop(Layer("Auswertung", False, str(e)), "Auswertung")
            added.append(key)
            rules = _rules_with_defaults(mdir / "rules", added)
        except Exception as e:  # noqa: BLE001 — explained, never a traceback
            return stop(Layer("Auswertung", False, f"{type(e).__name__}: {e}",
                              "diese Version kann den Mond nicht erneut auswerten"), "Auswertung")
    if result is None:
        return stop(Layer("Regeln", False, "zu viele fehlende Schlüssel"), "Regeln")
    if added:
        report.layers.append(Layer(
            "Regeln", False, "fehlende Schlüssel ergänzt: " + "; ".join(added),
            "diese Schlüssel gab es nicht, als der Mond ausgewertet wurde; für den Vergleich "
            "ergänzt mit dem Wert des alten Verhaltens, wo er bekannt ist "
            "(wdg.engine.upgrade.RULE_KEYS_ADDED), sonst mit dem der mitgelieferten Regeln"))
    else:
        report.layers.append(Layer("Regeln", True))
    if result.entropy != list(seed["entropy"]):
        return stop(Layer("Seed", False, f"{result.entropy} statt {seed['entropy']}"), "seed.yaml")
    if seed.get("next_deadline"):  # set by the run before the month was archived
        result.set_next_deadline(str(seed["next_deadline"]))
    available = {**registered_outputs(), **(writers or {})}
    archived = sorted({k.split("/")[1] for k in manifest if k.startswith("outputs/")})
    for name in archived:
        if name not in available:
            return stop(Layer("Ausgaben", False, f"outputs/{name}/: kein Schreiber"),
                        f"outputs/{name}/ (no writer to regenerate it)")
    events_name = next((n for n in EVENT_FILES if n in manifest), EVENTS)

    def archived_content(name: str) -> bytes | None:
        try:
            return stored_bytes(mdir, name)
        except (OSError, StateError):
            return None

    got: dict[str, str] = {}
    new_bytes: dict[str, bytes] = {}
    failure: Layer | None = None
    with tempfile.TemporaryDirectory(prefix="wdg-replay-") as tmp:
        own = Path(tmp) / "own"
        got.update(write_outputs(result, own, {}, events_name=events_name))
        for name in got:
            if not name.startswith("outputs/"):
                new_bytes[name] = (own / name).read_bytes()
        for name in archived:
            d = Path(tmp) / "out" / "outputs" / name
            d.mkdir(parents=True)
            writer = available[name]
            try:
                if getattr(writer, "works_beside", False):
                    writer(result, d, beside=lambda: None)
                else:
                    writer(result, d)
            except Exception as e:  # noqa: BLE001 — e.g. a template that does not fit
                why = "die Vorlagen dieses Monats sind nicht archiviert (vor wdg 0.2.0); " \
                      "gerendert mit den Vorlagen der Kampagne bzw. den mitgelieferten, die " \
                      "nicht zu dieser Version passen" if templates is None else \
                      "die archivierten Vorlagen passen nicht zu dieser Version"
                failure = Layer(f"Ausgaben {name}", False,
                                f"Rendern fehlgeschlagen: {type(e).__name__}: {str(e)[:200]}", why)
                continue
            for rel, digest in hash_tree(d).items():
                got[f"outputs/{name}/{rel}"] = digest
        groups: dict[str, list[str]] = {}
        for name in sorted(set(manifest) | set(got)):
            if name.startswith("outputs/"):
                groups.setdefault(_output_group(name), []).append(name)
        differing = [n for n in sorted(set(manifest) | set(got)) if manifest.get(n) != got.get(n)]
        if failure is not None:
            differing = [n for n in differing if not n.startswith("outputs/")] or \
                [f"outputs/{archived[0]}/"]

        def output_bytes(name: str) -> bytes | None:
            p = Path(tmp) / "out" / name
            if p.is_file():
                return p.read_bytes()
            try:
                return read_archived(p, root=Path(tmp) / "out" / "outputs" / name.split("/")[1])
            except (OSError, StateError):
                return None

        # 3. state, then events
        state_diff = [n for n in differing if n.startswith("state/")]
        if state_diff:
            n = state_diff[0]
            detail = _explain_state(n, archived_content(n), new_bytes.get(n))
            only_format = all("nur das Segmentformat" in _explain_state(
                m, archived_content(m), new_bytes.get(m)) for m in state_diff)
            report.layers.append(Layer("Zustand", False, detail + (
                f" (und {len(state_diff) - 1} weitere Dateien)" if len(state_diff) > 1 else ""),
                "derselbe Spielstand, nur im neueren Segmentformat geschrieben" if only_format
                else ("anderer Spielstand" + (" — mit den ergänzten Regel-Schlüsseln" if added
                                              else ""))))
        else:
            report.layers.append(Layer("Zustand", True))
        if events_name in differing:
            detail, why = _explain_events(archived_content(events_name),
                                          new_bytes.get(events_name, b""), events_name)
            report.layers.append(Layer("Ereignisse", False, detail, why))
        else:
            report.layers.append(Layer("Ereignisse", True))
        # 4. each rendered output, by kind
        if failure is not None:
            report.layers.append(failure)
        else:
            for group, names in sorted(groups.items()):
                bad = [n for n in names if n in differing]
                if not bad:
                    report.layers.append(Layer(f"Ausgabe {group}", True, f"{len(names)} Dateien"))
                    continue
                n = bad[0]
                old, new = archived_content(n), output_bytes(n)
                why = ""
                if old is None or new is None:
                    detail = f"{n} {'ist neu' if old is None else 'entsteht nicht mehr'}"
                    why = "diese Version schreibt andere Dateien"
                elif n.endswith(".pdf"):
                    po, pn = _pdf_producer(old), _pdf_producer(new)
                    detail = f"{n}"
                    why = (f"PDF-Erzeuger: archiviert {po!r}, jetzt {pn!r}" if po != pn else
                           f"gleicher PDF-Erzeuger ({po}); anderer Inhalt oder Aufbau")
                else:
                    detail = f"{n}: {_first_line_difference(old, new)}"
                if not why:
                    reasons = []
                    if state_diff or events_name in differing:
                        reasons.append("folgt aus den abweichenden Ereignissen bzw. dem Zustand")
                    if report.same_software is not True:
                        reasons.append("andere wdg-Version (anderer Programmcode der Berichte)")
                    if templates is None:
                        reasons.append("die Vorlagen dieses Monats sind nicht archiviert (vor "
                                       "wdg 0.2.0): gerendert mit den heutigen Vorlagen")
                    if added:
                        reasons.append("ergänzte Regel-Schlüssel")
                    why = "; ".join(reasons)
                report.layers.append(Layer(f"Ausgabe {group}", False,
                                           detail + (f" (und {len(bad) - 1} weitere)"
                                                     if len(bad) > 1 else ""), why))
    if differing:
        report.first_difference = differing[0]
        return report
    for layer in report.layers:  # completed keys that made no difference: not a finding
        if layer.name == "Regeln" and not layer.ok:
            layer.ok, layer.why = True, "ergänzte Schlüssel ohne Einfluß auf das Ergebnis"
    # The replay reproduced the manifest; the archived copies must match it too
    # (a hand-edited or damaged file in the archive is named, not silently passed).
    for name, digest in sorted(manifest.items()):
        data = archived_content(name)
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            report.layers.append(Layer("Archiv", False, f"{name} weicht vom Manifest ab"))
            report.first_difference = f"{name} (archivierte Datei weicht vom Manifest ab)"
            return report
    report.layers.append(Layer("Archiv", True, f"{len(manifest)} Dateien wie im Manifest"))
    # Every stored file against the month's hash list (the index, the list itself
    # and its link included: what neither the provenance nor the manifest covers).
    damage = [f for f in integrity.verify_month(mdir) if not f.uncovered]
    if damage:
        report.layers.append(Layer("Hashliste", False, str(damage[0])))
        report.first_difference = str(damage[0])
    return report
