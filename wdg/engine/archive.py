"""The archive of months: commit, lock, replay, undo (docs/turns.md).

``worlds/<segment>/turns/<YYYY-MM>/`` holds

- ``state-before/``  the segment's files as they stood before the month,
- ``orders/``        every sheet read (``k<n>.txt``, the game master's ``sl.txt``),
- ``rules/``         the rules files the month was resolved with,
- ``seed.yaml``      the generator's seed and the kingdoms' drawn order,
- ``events.yaml.gz`` the event log (gzip; months archived earlier: ``events.yaml``),
- ``state/``         the segment's files as they stood after the month (the
  live segment may change afterwards through the game master's tools),
- ``outputs/<name>/`` files of the month's outputs (the writers passed to
  :func:`commit`, e.g. the result sheets; or those of :func:`register_output`),
- ``manifest.yaml``  SHA-256 of every output: ``state/*`` (the state after the
  month), ``events.yaml.gz`` and ``outputs/...``,
- ``summary.yaml``   the month's index entry (seed, order, sheets, event counts,
  every manifest file's size) read by ``wdg turn list``.

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
from wdg.errors import StateError
from wdg.fsio import fsync_dir, fsync_tree
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
"""``writer(result, directory)`` writes an output's files into ``directory``."""
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
            raise StateError(f"segment {segment_dir.name!r} is locked by process {holder} "
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
            raise StateError(refusal)
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
    """``relative/posix/path -> sha256`` of every file under ``root``, sorted."""
    return {p.relative_to(root).as_posix(): sha256(p)
            for p in sorted(root.rglob("*")) if p.is_file()}


EVENTS = "events.yaml.gz"
"""The month's event log: YAML, gzip-compressed (deterministic: no time, no name)."""
LEGACY_EVENTS = "events.yaml"
"""The event log of months archived before it was compressed."""
SUMMARY = "summary.yaml"
"""The month's index entry: seed, order, sheets, event counts and every manifest
file's size, so ``wdg turn list`` reads a few hundred bytes per month."""


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip (no timestamp, no file name, level 9)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def read_archived(path: Path) -> bytes:
    """The bytes of an archived file, stored as ``path`` or compressed as ``path.gz``."""
    if path.is_file():
        return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    gz = path.with_name(path.name + ".gz")
    if gz.is_file():
        return gzip.decompress(gz.read_bytes())
    raise FileNotFoundError(path)


def events_file(month_dir: Path) -> Path:
    """The event log file of an archived month (compressed or, older, plain)."""
    return month_dir / (EVENTS if (month_dir / EVENTS).is_file() else LEGACY_EVENTS)


def read_events_data(month_dir: Path) -> list[dict[str, Any]]:
    """The plain event log of an archived month."""
    data = yaml.load(read_archived(events_file(month_dir)), Loader=_Loader) or []
    if not isinstance(data, list):
        raise StateError(f"{events_file(month_dir)}: expected a list of events")
    return data


def write_outputs(result: MonthResult, directory: Path,
                  writers: dict[str, OutputWriter] | None = None, *,
                  events_name: str = EVENTS) -> dict[str, str]:
    """Write every output of the month into ``directory`` (``state/``, the
    event log ``events.yaml.gz``, ``outputs/<name>/`` of ``writers``, default
    the registered ones) and return their hashes."""
    write_segment_files(result.state, directory / "state")
    text = yaml.dump(events_data(result), Dumper=_Dumper, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100).encode("utf-8")
    (directory / events_name).write_bytes(gzip_bytes(text) if events_name.endswith(".gz")
                                          else text)
    chosen = registered_outputs() if writers is None else dict(sorted(writers.items()))
    for name, writer in chosen.items():
        d = directory / "outputs" / name
        d.mkdir(parents=True, exist_ok=True)
        writer(result, d)
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
        manifest = _stage(seg_dir, staging, result, rules_dir, writers)
        if fail_at == "staged":
            raise InjectedFailure("injected failure after staging the archive")
        fsync_tree(staging)  # on disk before the commit that renames it
        fsync_dir(turns)
        if fail_at == "archived":
            raise InjectedFailure("injected failure before saving the new state")
        save_segment(result.state, seg_dir,
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


def _stage(seg_dir: Path, staging: Path, result: MonthResult, rules_dir: Path,
           writers: dict[str, OutputWriter] | None) -> dict[str, str]:
    before = staging / "state-before"
    before.mkdir()
    # Stored once: a file equal to the previous month's archived one (the state
    # after last month is this month's state before; the rules rarely change)
    # is a hard link to it, not a second copy.
    previous = seg_dir / TURNS / result.date.previous().key
    for name in FILES:
        if (seg_dir / name).is_file():
            _store_once(seg_dir / name, before / name, previous / "state" / name)
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
    os.replace(out / "state", staging / "state")
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
               "sizes": {name: (staging / name).stat().st_size for name in manifest}},
              staging / SUMMARY)
    return manifest


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
    events_name = LEGACY_EVENTS if LEGACY_EVENTS in manifest else EVENTS
    with tempfile.TemporaryDirectory(prefix="wdg-replay-") as tmp:
        got = write_outputs(result, Path(tmp), {n: available[n] for n in archived},
                            events_name=events_name)
    for name in sorted(set(manifest) | set(got)):
        if manifest.get(name) != got.get(name):
            return ReplayReport(date, len(manifest), name)
    # The replay reproduced the manifest; the archived copies must match it too
    # (a hand-edited or damaged file in the archive is named, not silently passed).
    for name, digest in sorted(manifest.items()):
        stored = mdir / name
        if not stored.is_file() or hashlib.sha256(stored.read_bytes()).hexdigest() != digest:
            return ReplayReport(date, len(manifest), f"{name} (archivierte Datei weicht vom Manifest ab)")
    return ReplayReport(date, len(manifest), None)
