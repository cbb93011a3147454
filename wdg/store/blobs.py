"""The template store: content-addressed blobs under ``turns/.blobs/sha256/``
(docs/turns.md, "Provenance").

A blob's name is the SHA-256 of its content, checked on every read. A
month's new blobs are staged beside its staging folder and enter the store
by one of the month commit's journal renames.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from wdg.errors import StateError

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


def remove_staged_blobs(folder: Path) -> list[str]:
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
    return [f"{folder}: die vorbereiteten Vorlagen eines nicht festgeschriebenen Mondes entfernt"]
