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
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from wdg.campaign import Campaign
from wdg.engine.turn import InjectedFailure, MonthResult
from wdg.errors import LockedError, StateError
from wdg.fsio import fsync_dir, fsync_tree, restrict_private_files
from wdg.rules import safe_load_file
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment
from wdg.world.storage import (FILES, JOURNAL, leftovers, recover_store, save_segment,
                               write_segment_files)

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
def segment_lock(segment_dir: Path) -> Iterator[Path]:
    """Hold ``worlds/<segment>/.lock`` for the block; a second holder is refused.

    The lock is an ``flock`` on that file (the kernel releases it when the
    holder dies, however it dies) and the file names the holder (``pid host``)
    for the message. A lock file left by a process that is gone (same host) is
    taken over with a one-line notice; a lock of a process on another host is
    refused (we cannot see whether it still runs). On taking the lock, a save
    or a month's commit interrupted by a crash is completed or cleaned up
    (:func:`wdg.world.storage.recover_store`, :func:`recover_archive`)."""
    path = segment_dir / LOCK_FILE
    host = socket.gethostname()
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_fd(fd) or "?"
            os.close(fd)
            raise LockedError(f"segment {segment_dir.name!r} is locked by process {holder} "
                             f"({path}): another wdg command is working on it; wait for it "
                             "to finish") from None
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
            refusal = (f"segment {segment_dir.name!r} is locked by process {pid} on host {other} "
                       f"({path}); if no wdg command runs there, remove that file")
        elif pid is not None and pid != os.getpid() and _pid_alive(pid) and not other:
            # an old-format lock (no host) of a live process: respect it
            refusal = (f"segment {segment_dir.name!r} is locked by process {pid} ({path}); "
                       "if no run is going on, remove that file")
        if refusal:
            os.close(fd)  # not ours: leave the file as it is
            raise LockedError(refusal)
        _notice(f"Sperre {path} von Prozess {pid if pid is not None else '?'} übernommen "
                "(der Prozess läuft nicht mehr) / took over the lock of a process that is gone")
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {host}\n".encode(), 0)
        for note in recover_store(segment_dir) + recover_archive(segment_dir):
            _notice(note)
        yield path
    finally:
        try:
            path.unlink(missing_ok=True)
        finally:
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
    found = [f for f in leftovers(segment_dir) if not busy or "older wdg version" in f]
    turns = segment_dir / TURNS
    if turns.is_dir() and not busy:
        found += [f"{p}: the staged archive of a month that was not committed"
                  for p in sorted(turns.glob(".staging-*"))]
        try:
            head = safe_load_file(segment_dir / "segment.yaml")
            current = str(head.get("date")) if isinstance(head, dict) else None
        except Exception:
            current = None
        if current and (turns / current).is_dir():
            found.append(f"{turns / current}: an archive folder of the month not yet run")
    lock = segment_dir / LOCK_FILE
    if lock.exists() and not holding_lock and not busy:
        holder = lock.read_text(encoding="utf-8", errors="replace").strip() or "?"
        found.append(f"{lock}: a lock of process {holder}, which is gone (taken over by the next "
                     "command)")
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
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise StateError(f"{path}: damaged compressed file ({e})") from None
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
    except (lzma.LZMAError, tarfile.TarError, EOFError) as e:
        raise StateError(f"{pack}: damaged pack of archived files ({e})") from None
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
            raise StateError(f"{path}: not an event log in JSON Lines ({e})") from None
    else:
        data = yaml.load(raw, Loader=_Loader) or []
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise StateError(f"{path}: expected a list of events")
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
    if not turns.is_dir() or (segment_dir / JOURNAL).exists():
        return notices
    for p in sorted(turns.glob(".staging-*")):
        if p.is_dir():
            shutil.rmtree(p)
            notices.append(f"{p}: removed the staged archive of a month that was not committed")
    try:
        head = safe_load_file(segment_dir / "segment.yaml")
        current = str(head.get("date")) if isinstance(head, dict) else None
    except Exception:  # a broken segment.yaml is reported by the load that follows
        current = None
    if current and (turns / current).is_dir():
        target = _free_name(turns / ABANDONED, current)
        target.parent.mkdir(exist_ok=True)
        os.replace(turns / current, target)
        fsync_dir(turns)
        notices.append(f"{turns / current}: archive folder of the month not yet run (left by an "
                       f"interrupted commit of an older wdg) moved to {target}")
    return notices


def _free_name(directory: Path, stem: str) -> Path:
    n = 1
    while (directory / f"{stem}.{n}").exists():
        n += 1
    return directory / f"{stem}.{n}"


def commit(camp: Campaign, result: MonthResult, rules_dir: Path,
           fail_at: str | None = None,
           writers: dict[str, OutputWriter] | None = None) -> dict[str, str]:
    """Archive the month and install the new state: one commit.

    The month's folder is written completely into ``turns/.staging-<M>/`` and
    flushed; then :func:`wdg.world.storage.save_segment` writes the new state
    and commits both with one journal (the rename of the staging folder to
    ``turns/<M>`` is part of it). Before the journal exists nothing visible has
    changed; after it, the next start completes the commit.

    ``fail_at`` (test hook): ``"staged"`` and ``"archived"`` fail after the
    month's folder is prepared, right before the save that commits it.
    """
    seg_dir = camp.segment_dir(result.state.name)
    turns = seg_dir / TURNS
    turns.mkdir(exist_ok=True)
    key = result.date.key
    if (turns / key).exists():
        raise StateError(f"the archive already holds {key} ({turns / key}); undo it first "
                         "('wdg turn undo') or check the segment's date")
    staging = turns / f".staging-{key}"
    if staging.exists():  # an uncommitted leftover (we hold the lock): only fresh files
        shutil.rmtree(staging)
    staging.mkdir()
    try:
        manifest, state = _stage(seg_dir, staging, result, rules_dir, writers)
        if fail_at == "staged":
            raise InjectedFailure("injected failure after staging the archive")
        fsync_tree(staging)  # on disk before the commit that renames it
        fsync_dir(turns)
        if fail_at == "archived":
            raise InjectedFailure("injected failure before saving the new state")
        save_segment(result.state, seg_dir, files=state,
                     renames=((f"{TURNS}/{staging.name}", f"{TURNS}/{key}"),))
    except BaseException:
        if not (seg_dir / JOURNAL).exists() and not (turns / key).exists():
            shutil.rmtree(staging, ignore_errors=True)  # not committed: our own fresh files
        raise
    result.committed, result.manifest = True, manifest
    return manifest


def _store_once(src: Path, dst: Path, same_as: Path) -> None:
    """Copy ``src`` to ``dst``, or hard-link ``dst`` to the archived ``same_as``
    when it holds the same bytes (archived files are never changed)."""
    try:
        if same_as.is_file() and same_as.stat().st_size == src.stat().st_size \
                and same_as.read_bytes() == src.read_bytes():
            os.link(same_as, dst)
            return
    except OSError:
        pass
    shutil.copy2(src, dst)


COMPRESSED_STATE = (".yaml", ".txt")
"""State files archived gzip-compressed (``state/armies.yaml.gz``); the layers
(``.npz``) are compressed already."""


def store_state(files: dict[str, bytes], directory: Path, previous: Path | None = None) -> None:
    """Archive a segment's files (``{name: bytes}``) into ``directory``: text
    files gzip-compressed as ``name.gz``; a file whose content equals the one
    ``previous`` (an archived state folder) holds is a hard link to it, not a
    second copy (the state after last month is this month's state before)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):
        stored = name + ".gz" if name.endswith(COMPRESSED_STATE) else name
        if previous is not None:
            try:
                if read_archived(previous / name) == data:
                    src = previous / stored
                    if src.is_file():
                        os.link(src, directory / stored)
                        continue
            except (OSError, StateError):  # none there, damaged, or no hard links here
                pass
        (directory / stored).write_bytes(gzip_bytes(data, GZ_LEVEL) if stored != name else data)
    restrict_private_files(directory)  # hashes and seed: 0600 (issue #30)


def _stage(seg_dir: Path, staging: Path, result: MonthResult, rules_dir: Path,
           writers: dict[str, OutputWriter] | None) -> tuple[dict[str, str], dict[str, bytes]]:
    # Stored once: a file equal to the previous month's archived one (the state
    # after last month is this month's state before; the rules rarely change)
    # is a hard link to it, not a second copy.
    previous = seg_dir / TURNS / result.date.previous().key
    store_state({name: (seg_dir / name).read_bytes() for name in FILES
                 if (seg_dir / name).is_file()}, staging / "state-before", previous / "state")
    orders = staging / "orders"
    orders.mkdir()
    for name, data in sorted(result.inputs.items()):
        (orders / name).write_bytes(data)
    rules = staging / "rules"
    rules.mkdir()
    for p in sorted(rules_dir.glob("*.yaml")):
        _store_once(p, rules / p.name, previous / "rules" / p.name)
    dump_yaml(result.seed_record(), staging / "seed.yaml")
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
    by_kingdom: dict[int, int] = {}
    for e in result.log:
        if e.kingdom is not None:
            by_kingdom[int(e.kingdom)] = by_kingdom.get(int(e.kingdom), 0) + 1
    dump_yaml({**result.seed_record(), "sheets": sorted(result.inputs),
               "events": len(result.log), "events_by_kingdom": dict(sorted(by_kingdom.items())),
               "sizes": {name: (staging / name).stat().st_size
                         for name in sorted({stored_file(staging, n) for n in manifest})}},
              staging / SUMMARY)
    return manifest, state


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
        if not (mdir / "state-before").is_dir():
            raise StateError(f"segment {segment!r}: no archived month {last.key} to undo")
        keep = _free_name(seg_dir / TURNS / UNDONE, last.key)
        save_segment(load_segment(mdir / "state-before"), seg_dir,
                     renames=((f"{TURNS}/{last.key}", keep.relative_to(seg_dir).as_posix()),))
    return last


# --- replay -------------------------------------------------------------------------------

@dataclass(slots=True)
class ReplayReport:
    """The outcome of a replay: ``first_difference`` is ``None`` when every
    output matched the manifest byte for byte."""

    month: MonthDate
    checked: int
    first_difference: str | None

    @property
    def ok(self) -> bool:
        """True if the replay reproduced every output."""
        return self.first_difference is None


def replay_month(camp: Campaign, segment: str, month: MonthDate | str,
                 writers: dict[str, OutputWriter] | None = None) -> ReplayReport:
    """Re-run an archived month from its state-before, sheets, rules and seed in
    a temporary directory and compare every output with the manifest.

    The outputs regenerated are exactly those the manifest lists
    (``outputs/<name>/...``), taken from ``writers`` or the registered ones; an
    archived output with no writer available is reported as the difference."""
    from wdg.engine.turn import resolve_from_inputs
    from wdg.rules import Rules
    from wdg.world.storage import load_segment

    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    if not (camp.segment_dir(segment) / "segment.yaml").is_file():
        raise StateError(f"no segment {segment!r} in {camp.worlds}")
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"segment {segment!r}: no archived month {date.key} ({mdir})")
    manifest = safe_load_file(mdir / "manifest.yaml")["files"]
    seg = load_segment(mdir / "state-before")
    seed = safe_load_file(mdir / "seed.yaml")
    rules = Rules.load(mdir / "rules")
    result = resolve_from_inputs(seg, read_order_files(mdir / "orders"), rules)
    if result.entropy != list(seed["entropy"]):
        return ReplayReport(date, 0, "seed.yaml")
    if seed.get("next_deadline"):  # set by the run before the month was archived
        result.set_next_deadline(str(seed["next_deadline"]))
    available = {**registered_outputs(), **(writers or {})}
    archived = sorted({k.split("/")[1] for k in manifest if k.startswith("outputs/")})
    for name in archived:
        if name not in available:
            return ReplayReport(date, len(manifest), f"outputs/{name}/ (no writer to regenerate it)")
    events_name = next((n for n in EVENT_FILES if n in manifest), EVENTS)
    with tempfile.TemporaryDirectory(prefix="wdg-replay-") as tmp:
        got = write_outputs(result, Path(tmp), {n: available[n] for n in archived},
                            events_name=events_name)
    for name in sorted(set(manifest) | set(got)):
        if manifest.get(name) != got.get(name):
            return ReplayReport(date, len(manifest), name)
    # The replay reproduced the manifest; the archived copies must match it too
    # (a hand-edited or damaged file in the archive is named, not silently passed).
    for name, digest in sorted(manifest.items()):
        try:
            same = hashlib.sha256(stored_bytes(mdir, name)).hexdigest() == digest
        except (OSError, StateError):
            same = False
        if not same:
            return ReplayReport(date, len(manifest), f"{name} (archivierte Datei weicht vom Manifest ab)")
    return ReplayReport(date, len(manifest), None)
