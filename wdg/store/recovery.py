"""Recovery of the archive after a crash: uncommitted months' staging folders
(docs/storage.md, "What recovery may delete").

A month is prepared under ``turns/.staging-<M>/`` beside a mark
(``.staging-<M>.wdg``: device and inode of the folder this run created);
recovery removes a staging folder only when the mark proves it is ours (or
it is empty), and never follows a link.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from wdg.fsio import fsync_dir
from wdg.store.blobs import remove_staged_blobs
from wdg.store.journal import JOURNAL, TURNS_DIR as TURNS, refuse_symlinks

STAGING_MARK_SUFFIX = ".wdg"
"""``turns/.staging-<M>.wdg`` beside a staged month: device and inode of the
folder this run created; recovery removes a staging folder only when it
matches (or the folder is empty)."""


def mark_staging(staging: Path) -> Path:
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


def recover_archive(segment_dir: Path) -> list[str]:
    """Leftovers of an interrupted month in ``turns/`` (call after
    :func:`wdg.store.journal.recover_store`, holding the lock): a staging
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
            notices += remove_staged_blobs(p)
            continue
        mark = p.with_name(p.name + STAGING_MARK_SUFFIX)
        if p.is_dir() and (_own_staging(p, mark) or not any(p.iterdir())):
            shutil.rmtree(p)  # (rmtree never follows a link inside)
            mark.unlink(missing_ok=True)
            fsync_dir(turns)
            notices.append(f"{p}: das vorbereitete Archiv eines nicht festgeschriebenen Mondes entfernt")
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
