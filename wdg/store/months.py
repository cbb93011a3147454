"""The archive of months: commit and undo (docs/turns.md).

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
  whether it is stored as it is, as ``name.gz`` or in a pack (:data:`wdg.store.files.PACK`),
- ``summary.yaml``   the month's index entry (seed, order, sheets, event counts,
  every stored file's size) read by ``wdg turn list``.

Commit: the month's folder is prepared under ``turns/.staging-<YYYY-MM>``;
then :func:`wdg.store.segment.save_segment` writes the new state beside the
old one and commits both with one journal — the rename of the staging folder
to ``turns/<YYYY-MM>`` is part of that commit. An archived month is never
moved, renamed or deleted afterwards (``wdg turn undo`` moves the last one to
``turns/.undone/`` under its own commit). The lock ``worlds/<segment>/.lock``
(an ``flock``, naming its holder) keeps two commands apart; taking it
completes or cleans up whatever a crash interrupted (docs/storage.md; :mod:`wdg.store.lock`).
Replay lives above the store (:mod:`wdg.engine.replay`).
"""


from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.errors import InjectedFailure, StateError
from wdg.fsio import fsync_dir, fsync_tree, restrict_private_files
from wdg.rules import safe_load_file
from wdg.store import formats, integrity
from wdg.store.blobs import BLOBS, read_blob, remove_staged_blobs, stage_blob, staged_blobs
from wdg.store.edges import refuse_links, refuse_links_below, refused_link
from wdg.store.delivery import archived_reports, delivered_size
from wdg.store.files import (EVENTS, GZ_LEVEL, SUMMARY, decompress, dump_yaml, events_bytes,
                             events_data, gzip_bytes, hash_tree, read_archived, sha256,
                             stored_file, xz_bytes)
from wdg.store.integrity import IntegrityError
from wdg.store.journal import FILES, JOURNAL, refuse_symlinks
from wdg.store.lock import notice as _notice
from wdg.store.lock import segment_lock
from wdg.store.recovery import STAGING_MARK_SUFFIX, mark_staging, recover_archive
from wdg.store.segment import load_segment, save_segment, write_segment_files
from wdg.world.calendar import MonthDate
from wdg.world.deadline import ZONE_ERRORS


TURNS = "turns"
UNDONE = ".undone"
"""``turns/.undone/<M>.<n>/``: months taken back by ``wdg turn undo`` (kept, not deleted)."""
ABANDONED = ".abandoned"
"""``turns/.abandoned/``: month folders an older wdg left behind an interrupted commit."""

OutputWriter = Callable[..., None]
"""``writer(result, directory)`` writes an output's files into ``directory``. A
writer with the attribute ``works_beside`` (true) is called with ``beside=``, a
function it calls once while its worker processes are busy (the archive's own
writing of the state and the event log, done in that time)."""
_OUTPUTS: dict[str, OutputWriter] = {}


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



def write_outputs(result: Any, directory: Path,
                  writers: dict[str, OutputWriter] | None = None, *,
                  events_name: str = EVENTS) -> dict[str, str]:
    """Write every output of the month into ``directory`` (``state/``, the
    event log ``events.jsonl.xz``, ``outputs/<name>/`` of ``writers``, default
    the registered ones) and return their hashes."""
    done: list[bool] = []

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
    """``{file name: bytes}`` of the ``*.txt`` files of an orders folder; a
    link there (the folder or a sheet) is refused, never followed
    (:class:`wdg.store.edges.LinkRefused`: any readable file could be archived
    as a sheet)."""
    if directory.is_symlink():
        raise refused_link(directory, "liest Spielzüge")
    if not directory.is_dir():
        return {}
    out = {}
    for p in sorted(directory.glob("*.txt")):
        if p.is_symlink():
            raise refused_link(p, "liest Spielzüge")
        if p.is_file():
            out[p.name] = p.read_bytes()
    return out


def month_dir(camp: Campaign, segment: str, month: MonthDate) -> Path:
    """``worlds/<segment>/turns/<YYYY-MM>/``."""
    return camp.archive_dir(segment) / month.key


# --- commit and recovery --------------------------------------------------------------------





def _free_name(directory: Path, stem: str) -> Path:
    n = 1
    while (directory / f"{stem}.{n}").exists():
        n += 1
    return directory / f"{stem}.{n}"


def can_commit(seg_dir: Path, month: MonthDate, *, deliver_to: Path | None = None,
               state: dict[str, bytes] | None = None, staging: Path | None = None) -> None:
    """Refuse a month's commit before anything is committed unless it can finish
    (issue #30; :func:`wdg.store.integrity.precheck`, German message naming the path):
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
    if deliver_to is not None:  # no link from reports/ down (the delivery follows none)
        refuse_links(deliver_to.parents[1], deliver_to, "liefert Berichte aus")
        refuse_links_below(deliver_to, "liefert Berichte aus")
        writable.append(deliver_to)
        if deliver_to.is_dir() and not deliver_to.is_symlink():
            writable += sorted(d for d in deliver_to.rglob("*") if d.is_dir())
    space: dict[Path, int] = {}
    if state is not None:
        space[seg_dir] = sum(len(b) for b in state.values()) + (64 << 10)
        if deliver_to is not None and staging is not None:
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


def commit(camp: Campaign, result: Any, rules_dir: Path,
           fail_at: str | None = None,
           writers: dict[str, OutputWriter] | None = None,
           deliver_to: Path | None = None) -> dict[str, str]:
    """Archive the month and install the new state: one commit.

    The month's folder is written completely into ``turns/.staging-<M>/`` and
    flushed; then :func:`wdg.store.segment.save_segment` writes the new state
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
        mark = mark_staging(staging)
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
                remove_staged_blobs(blobs)
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
                    if decompress(src, raw) == data:
                        (directory / stored).write_bytes(raw)
                        continue
            except (OSError, StateError):  # none there or damaged: write it afresh
                pass
        (directory / stored).write_bytes(gzip_bytes(data, GZ_LEVEL) if stored != name else data)
    restrict_private_files(directory)  # hashes and seed: 0600 (issue #30)


def _stage(seg_dir: Path, staging: Path, result: Any, rules_dir: Path,
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
    # lazy: wdg.provenance loads importlib.metadata; `wdg --help` imports this module
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
PROVENANCE_FORMAT = formats.PROVENANCE
"""The provenance record's ``format:`` (row ``provenance`` of :mod:`wdg.store.formats`)."""
INPUTS = "inputs"
"""``inputs/``: further files the month's outputs read (``MonthResult.archived_inputs``),
xz-compressed (``previous-reports.json.xz``)."""

def _store_inputs(staging: Path, result: Any) -> None:
    """The further inputs (``inputs/<name>.xz``) and the templates (blobs)."""
    if result.archived_inputs:
        d = staging / INPUTS
        d.mkdir()
        for name, data in sorted(result.archived_inputs.items()):
            (d / f"{name}.xz").write_bytes(xz_bytes(data))
    for data in result.templates.values():
        stage_blob(staging.parent, staging, data)


def content_hashes(month: Path, folder: str) -> dict[str, str]:
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
            out[rel] = hashlib.sha256(decompress(p, p.read_bytes())).hexdigest()
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def provenance_record(seg_dir: Path, result: Any, inputs: dict[str, str]) -> dict[str, Any]:
    """The month's ``provenance.yaml`` (written before the commit point); ``inputs``:
    path in the month folder -> SHA-256 of the content of every input."""
    from wdg.provenance import environment  # lazy: see _stage

    env = environment()
    record: dict[str, Any] = {
        "format": PROVENANCE_FORMAT,
        "segment": result.state.name,
        "month": result.date.key,
        "segment_format": formats.SEGMENT,
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
            raise IntegrityError(chain + damage, ". Rückgängig machen nicht begonnen; nichts "
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
        rec = safe_load_file(runs[-1] / "seed.yaml") or {}
        text = str(rec.get("next_deadline") or "") if isinstance(rec, dict) else ""
    if not text:
        return None
    when, zone = (text.rpartition(" ")[0], text.rpartition(" ")[2]) if text.count(" ") >= 2 \
        else (text, tz)
    try:
        at = datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(zone))
    except ZONE_ERRORS:  # a date (ValueError) or zone name (also 'Europe': OSError) edited by hand
        return None
    return when if at > datetime.now(at.tzinfo) else None


# --- replay ---------------------------------------------------------------------------
