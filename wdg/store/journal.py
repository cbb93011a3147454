"""The segment's commit protocol: generations, the journal, recovery
(docs/storage.md, "Saving: the commit protocol", "Recovery on start").

A save writes the new files completely into a generation directory
``.gen-<token>/`` inside the segment directory and flushes them; the small
journal ``.commit`` appears with one atomic ``os.replace`` (the commit point);
then the files are moved into place and the journal removed. A process that
dies anywhere leaves the old state (no journal) or the new one (journal:
:func:`recover_store` or the next load completes it). The ``turns/`` archive
and anything else in the directory is never touched, and the segment
directory itself is never renamed (it may be a mount point).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wdg.errors import DataError, StateError
from wdg.fsio import fsync_dir, fsync_tree, restrict_private_files, write_durable
from wdg.store.integrity import LIST, live_list, precheck

SEGMENT_FILE = "segment.yaml"
MAP_FILE = "map.txt"
KINGDOMS_FILE = "kingdoms.yaml"
ARMIES_FILE = "armies.yaml"
WORLD_FILE = "world.yaml"
LAYERS_FILE = "layers.npz"
FILES = (SEGMENT_FILE, MAP_FILE, KINGDOMS_FILE, ARMIES_FILE, WORLD_FILE, LAYERS_FILE)
"""The files storage owns; everything else in a segment directory is kept."""
JOURNAL = ".commit"
"""The commit journal: its atomic appearance commits a save (docs/storage.md)."""
JOURNAL_TMP = ".commit.tmp"
GENERATION_PREFIX = ".gen-"
"""A save's new files are written into ``.gen-<token>/`` beside the live ones."""
GENERATION_MARK = ".wdg-generation"
"""Written first into a generation: the device and inode of the directory this
save created, so recovery deletes only inside a directory it can prove is its
own (docs/storage.md, "What recovery may delete")."""
STORED = FILES + (LIST,)
MOVED = STORED
"""Every file a save's journal may move into place."""
"""Every file a save writes into its generation and moves into place."""
TURNS_DIR = "turns"
JOURNAL_HEAD = ("# wdg commit journal: this save is committed; the next wdg command that locks\n"
                "# the segment moves its files into place (docs/storage.md). Do not edit.\n")

# Segment fields written by hand below; any other field (appended later) is
# stored generically: arrays in layers.npz, the rest under ``extra:`` in segment.yaml.


def commit_save(path: Path, fill: Callable[[Path], None], date_key: str, *,
                renames: tuple[tuple[str, str], ...] = ()) -> None:
    """Write a segment's files into the directory ``path`` (created if missing),
    crash-safe (docs/storage.md, "Saving: the commit protocol").

    ``fill(generation)`` writes the six segment files into a fresh generation
    directory ``path/.gen-<token>/``; their hash list follows, everything is
    flushed, and one atomic ``os.replace`` of the small journal ``path/.commit``
    commits them; the files are moved into place and the journal removed
    (:func:`roll_forward`, which the next start repeats if we die in between).
    ``renames`` (pairs of paths relative to ``path``, e.g. the archive's staged
    month folder to its final name, flushed by the caller) are carried out
    under the same commit. Nothing else in ``path`` is touched: the ``turns/``
    archive is never moved, renamed or deleted by a save, and ``path`` itself
    is never renamed (it may be a mount point). ``date_key``: the segment's
    month (``YYYY-MM``), for the link of the hash list to the last archived
    month."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    if (path / JOURNAL).exists():
        roll_forward(path)
    refuse_symlinks(path, (JOURNAL, JOURNAL_TMP, *MOVED))
    if renames:
        _can_rename(path, renames)
    gen = path / f"{GENERATION_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    gen.mkdir()
    journal_tmp = path / JOURNAL_TMP
    try:
        _mark(gen)
        fill(gen)
        restrict_private_files(gen)  # hashes and seed: 0600 (issue #30)
        # the hash list of the files just written (and of the last archived
        # month's list): committed with them, checked by every load
        (gen / LIST).write_bytes(live_list({n: gen / n for n in FILES}, path, date_key,
                                           renames))
        moved = list(STORED)
        fsync_tree(gen)  # (what ``renames`` moves, the caller has flushed)
        journal = {"generation": gen.name, "files": moved,
                   "renames": [[src, dst] for src, dst in renames]}
        write_durable(journal_tmp,
                      (JOURNAL_HEAD + json.dumps(journal, indent=1) + "\n").encode("utf-8"))
        os.replace(journal_tmp, path / JOURNAL)  # the commit point
    except BaseException:
        if not (path / JOURNAL).exists():
            # Not committed: remove exactly what this call wrote (never anything else).
            _remove_generation(gen)
            journal_tmp.unlink(missing_ok=True)
        raise
    # Committed: the rest only finishes what the journal says (repeatable; if we
    # die in it, the next command that takes the lock finishes it).
    with _signals_held():
        fsync_dir(path)
        roll_forward(path)


def _can_rename(path: Path, renames: tuple[tuple[str, str], ...]) -> None:
    """Before a save's commit point: the renames it commits can be carried out
    by the roll forward (issue #30 item 5) — no link on their way, the target
    folders made now (a ``mkdir`` after the commit could fail), every folder
    involved takes a new entry and all lie on one file system (a rename across
    file systems fails). Refused otherwise, nothing changed."""
    refuse_symlinks(path, [p for pair in renames for p in pair], parents=True)
    folders: list[Path] = []
    for src, dst in renames:
        (path / dst).parent.mkdir(parents=True, exist_ok=True)
        folders += [(path / src).parent, (path / dst).parent]
    precheck("Speichern", dict.fromkeys([path, *folders]), same_fs=folders)


def roll_forward(path: Path) -> bool:
    """Complete a committed save whose journal ``path/.commit`` is still there
    (idempotent: every step checks whether it is already done). Returns True
    if there was a journal."""
    journal = read_journal(path)
    if journal is None:
        return False
    gen = path / journal["generation"]
    refuse_symlinks(path, (journal["generation"], *journal["files"],
                           *(p for pair in journal["renames"] for p in pair)), parents=True)
    for src, dst in journal["renames"]:
        s, d = path / src, path / dst
        if s.exists() and not d.exists():
            d.parent.mkdir(parents=True, exist_ok=True)
            refuse_symlinks(path, (dst,), parents=True)
            os.replace(s, d)
            fsync_dir(d.parent)
            fsync_dir(s.parent)
    for name in journal["files"]:
        if (gen / name).exists():
            os.replace(gen / name, path / name)
    fsync_dir(path)
    (path / JOURNAL).unlink()
    fsync_dir(path)
    _remove_generation(gen)
    return True


def recover_store(path: Path) -> list[str]:
    """Bring a segment directory into a clean state after a crash (call it
    holding the segment's lock): complete a committed save (journal present),
    remove the leftovers of uncommitted ones (``.gen-*`` directories with only
    segment files in them, ``.commit.tmp``). Returns one notice per action."""
    path = Path(path)
    notices: list[str] = []
    if not path.is_dir():
        return notices
    refuse_symlinks(path, (JOURNAL, JOURNAL_TMP, *MOVED,
                           *(g.name for g in path.glob(f"{GENERATION_PREFIX}*"))))
    if roll_forward(path):
        notices.append(f"{path}: eine nach ihrem Festschreibepunkt unterbrochene Speicherung vollendet")
    if (path / JOURNAL_TMP).exists():
        (path / JOURNAL_TMP).unlink()
        notices.append(f"{path}: {JOURNAL_TMP} einer nicht festgeschriebenen Speicherung entfernt")
    for gen in sorted(path.glob(f"{GENERATION_PREFIX}*")):
        if gen.is_dir():
            if not _own_generation(gen):
                notices.append(f"{gen}: nicht von wdg angelegt (keine passende Kennung "
                               f"{GENERATION_MARK}) — nicht gelöscht; prüfen und von Hand "
                               "entfernen")
                continue
            left = _remove_generation(gen)
            notices.append(f"{path}: {gen.name} einer nicht festgeschriebenen Speicherung entfernt"
                           + (f" (unbekannte Dateien darin behalten: {', '.join(left)})" if left else ""))
    return notices


def refuse_symlinks(root: Path, names: Any, *, parents: bool = False) -> None:
    """Refuse (StateError) if one of ``names`` (paths relative to the segment
    directory ``root``) is a symbolic link — or, with ``parents``, passes
    through one: recovery and saves never follow a link out of the segment
    (issue #30: a planted ``.gen-x`` link made recovery delete another
    campaign's files)."""
    for name in names:
        parts = Path(name).parts
        steps = range(1, len(parts) + 1) if parents else (len(parts),)
        for n in steps:
            p = root.joinpath(*parts[:n])
            if p.is_symlink():
                raise StateError(
                    f"{p} ist ein symbolischer Link (auf {os.readlink(p)}); wdg folgt Links im "
                    "Segment nie und ändert nichts, solange er da ist. Entfernen Sie den Link "
                    f"von Hand ('rm {p}', nicht 'rm -r') und rufen Sie den Befehl erneut auf.")


def _mark(gen: Path) -> None:
    """Record in a fresh generation the identity of the directory (its proof of origin)."""
    st = os.lstat(gen)
    fd = os.open(gen / GENERATION_MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, f"{st.st_dev} {st.st_ino} {gen.name}\n".encode())
    finally:
        os.close(fd)


def _own_generation(gen: Path) -> bool:
    """True if ``gen`` is a real directory this wdg created: its mark names its
    own device and inode; or it is empty, or holds nothing but a mark cut off
    by a crash."""
    if gen.is_symlink() or not gen.is_dir():
        return False
    entries = list(gen.iterdir())
    mark = gen / GENERATION_MARK
    if not entries:
        return True
    if mark.is_symlink() or not mark.is_file():
        return False
    st = os.lstat(gen)
    text = mark.read_bytes()[:200].decode("ascii", "replace")
    if text == f"{st.st_dev} {st.st_ino} {gen.name}\n":
        return True
    return len(entries) == 1 and len(text) < len(f"{st.st_dev} {st.st_ino} {gen.name}\n")


def leftovers(path: Path) -> list[str]:
    """What in and beside a segment directory looks like the rest of an
    interrupted save (for ``wdg segment check``): a journal, generation
    directories, and hidden ``.<segment>.new-*``/``.old-*`` siblings left by
    wdg versions before the commit protocol."""
    path = Path(path)
    found = []
    if (path / JOURNAL).exists():
        found.append(f"{path / JOURNAL}: eine festgeschriebene, noch nicht vollendete Speicherung "
                     "(der nächste Befehl, der das Segment sperrt, vollendet sie)")
    if (path / JOURNAL_TMP).exists():
        found.append(f"{path / JOURNAL_TMP}: das Journal einer nicht festgeschriebenen Speicherung")
    found += [f"{g}: Dateien einer nicht festgeschriebenen Speicherung" + (
        f" — ein symbolischer Link (auf {os.readlink(g)}): wdg folgt ihm nicht; von Hand "
        "entfernen (rm, nicht rm -r)" if g.is_symlink() else "")
        for g in sorted(path.glob(f"{GENERATION_PREFIX}*"))]
    return found + old_version_leftovers(path)


def old_version_leftovers(path: Path) -> list[str]:
    """The part of :func:`leftovers` that wdg versions before the commit
    protocol left: hidden ``.<segment>.*`` siblings (never work in progress of
    a running command)."""
    path = Path(path)
    found = []
    if path.parent.is_dir():
        for p in sorted(path.parent.glob(f".{path.name}.*")):
            holds = " (enthält ein Archiv turns/)" if (p / TURNS_DIR).is_dir() else ""
            found.append(f"{p}: Rest einer unterbrochenen Speicherung einer älteren wdg-Version{holds}; "
                         "mit dem Segment vergleichen und von Hand entfernen, wenn nichts darin "
                         "gebraucht wird")
    return found


def _remove_generation(gen: Path) -> list[str]:
    """Delete the segment files an uncommitted save wrote into ``gen`` and the
    directory if it is then empty; anything else in it is kept and returned."""
    if gen.is_symlink() or not gen.is_dir():
        return []
    kept = []
    for entry in sorted(gen.iterdir()):
        st = os.lstat(entry)
        if entry.name in (*MOVED, GENERATION_MARK) and stat.S_ISREG(st.st_mode) \
                and st.st_nlink == 1:
            entry.unlink(missing_ok=True)
        else:
            kept.append(entry.name)
    if not kept:
        try:
            gen.rmdir()
        except OSError:
            pass
    return kept


def read_journal(path: Path) -> dict[str, Any] | None:
    """The pending save's journal ``path/.commit``: its generation folder, the
    files it holds and the renames still to do; ``None`` without a journal.
    A journal that is unreadable or names paths outside the segment raises
    :class:`wdg.errors.DataError`."""
    jpath = path / JOURNAL
    try:
        text = jpath.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    try:
        data = json.loads(body)
        gen = data["generation"]
        files = [str(f) for f in data["files"]]
        renames = [(str(a), str(b)) for a, b in data.get("renames", [])]
    except (ValueError, KeyError, TypeError) as exc:
        raise DataError(str(jpath), None, f"ein unlesbares Journal ({exc})",
                        "das Journal einer abgeschlossenen Speicherung; bitte nicht bearbeiten — "
                        "aus der Sicherung zurückholen oder um Hilfe bitten") from None
    ok_name = isinstance(gen, str) and gen.startswith(GENERATION_PREFIX) and "/" not in gen
    safe = all(n in MOVED for n in files) and all(
        not Path(p).is_absolute() and ".." not in Path(p).parts for pair in renames for p in pair)
    if not ok_name or not safe:
        raise DataError(str(jpath), None, "ein Journal, das Pfade außerhalb des Segments nennt",
                        "ein von wdg geschriebenes Journal")
    return {"generation": gen, "files": files, "renames": renames}


class _signals_held:
    """Hold SIGINT/SIGTERM/SIGHUP for the few renames after the commit point
    (they are delivered right after), so Ctrl-C does not leave the journal
    for the next start to finish. Only in the main thread."""

    _SIGS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP"))
                  if s is not None)

    def __enter__(self) -> None:
        self.active = (threading.current_thread() is threading.main_thread()
                       and hasattr(signal, "pthread_sigmask"))
        if self.active:
            self.old = signal.pthread_sigmask(signal.SIG_BLOCK, self._SIGS)

    def __exit__(self, *exc: Any) -> None:
        if self.active:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.old)
