"""Reports delivered from the archive: ``reports/<segment>/<YYYY-MM>/``
(docs/reports.md, docs/turns.md).

A month's reports are archived under ``outputs/reports/`` of its folder (in
its pack, or as files); :func:`deliver` builds the delivered folder from
there (hard links where the file system allows, else copies), and
:func:`check_delivered` compares delivered copies with the archive. Rendering
lives above the store (:mod:`wdg.reports.archived`).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from pathlib import Path

from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.store.edges import refuse_links, refuse_links_below, refused_link
from wdg.store.files import PACK, gzip_bytes, read_archived, read_pack
from wdg.world.calendar import MonthDate

OUTPUT_NAME = "reports"
"""The month's output of the reports: ``outputs/reports/`` of the archived month."""


OUTPUTS_DIR = "outputs"


def _no_link(dst: Path) -> None:
    """A delivered file and its folder are never links (checked as written;
    :func:`deliver` checks the whole folder before it starts)."""
    for p in (dst, dst.parent):
        if p.is_symlink():
            raise refused_link(p, "liefert Berichte aus")


def archived_reports(mdir: Path) -> Path:
    """The folder of an archived month's reports (``outputs/reports/``)."""
    return mdir / OUTPUTS_DIR / OUTPUT_NAME


def _link_or_copy(src: Path, dst: Path) -> None:
    """Put ``src``'s bytes at ``dst`` (a hard link when possible, then made
    read-only), replacing ``dst`` atomically; ``src``'s bytes are never touched."""
    _no_link(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        if dst.exists() and os.path.samefile(src, dst):
            return
    except OSError:
        pass
    tmp = dst.with_name(f".{dst.name}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
        # One file under two names: read-only, so that editing the delivered copy
        # in place cannot change the archive (a program that saves by writing a
        # new file and renaming it breaks the link and leaves the archive alone).
        os.chmod(tmp, 0o444)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


COMPRESSED = ".gz"
STORED_AS_IS = (".pdf",)
"""Reports that months archived with gzip-compressed reports stored as they
are. Since the pack, every report of a month, PDFs included, is stored in the
month's pack (:data:`wdg.store.files.PACK`, one xz-compressed tar: the
PDFs repeat each other's streams, which the solid compression stores once) and
delivered unpacked."""
PACKED, GZIP, PLAIN = "pack", "gzip", "plain"
"""How an archived month stores its text reports: in one pack (since issue 16's
archive work), each as ``name.gz`` (months archived before), as they are (older)."""


def storage_of(mdir: Path, manifest: dict[str, str]) -> str:
    """How the archived month ``mdir`` stores its reports (to replay it the same way)."""
    if (archived_reports(mdir) / PACK).is_file():
        return PACKED
    prefix = f"{OUTPUTS_DIR}/{OUTPUT_NAME}/"
    if any(n.startswith(prefix) and n.endswith(COMPRESSED) for n in manifest):
        return GZIP
    return PLAIN if any(n.startswith(prefix) for n in manifest) else PACKED


def compress_tree(directory: Path) -> None:
    """Store every report under ``directory`` but the PDFs as ``name.gz``
    (deterministic gzip), so a month's text and HTML take a seventh of the space."""
    for p in sorted(directory.rglob("*")):
        if p.is_file() and p.suffix not in STORED_AS_IS and p.suffix != COMPRESSED:
            p.with_name(p.name + COMPRESSED).write_bytes(gzip_bytes(p.read_bytes()))
            p.unlink()


def logical(rel: Path) -> Path:
    """The delivered name of an archived report (without ``.gz``)."""
    return rel.with_name(rel.name[:-len(COMPRESSED)]) if rel.name.endswith(COMPRESSED) else rel


def put(src: Path, dst: Path) -> None:
    """Deliver one archived report: a hard link for a file stored as it is,
    the decompressed bytes for a compressed one (atomically replacing ``dst``)."""
    if not src.name.endswith(COMPRESSED):
        _link_or_copy(src, dst)
        return
    put_bytes(gzip.decompress(src.read_bytes()), dst)


def put_bytes(data: bytes, dst: Path) -> None:
    """Deliver ``data`` as ``dst`` (atomically; left alone when it holds them already)."""
    _no_link(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.is_file() and dst.stat().st_size == len(data) and dst.read_bytes() == data:
        return
    tmp = dst.with_name(f".{dst.name}.tmp")
    tmp.unlink(missing_ok=True)  # (a read-only hard link of an earlier delivery)
    tmp.write_bytes(data)
    os.replace(tmp, dst)


def _member_path(name: str) -> Path:
    """A pack member's relative path, refused if it could leave its folder."""
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise StateError(f"das archivierte Paketmitglied {name!r} ist kein einfacher relativer Pfad")
    return rel


def archived_names(archived: Path) -> list[Path]:
    """Every report of an archived month's ``outputs/reports/`` folder as
    delivered (relative paths, sorted): files, compressed files, pack members."""
    out: set[Path] = set()
    if archived.is_dir():
        for p in archived.rglob("*"):
            if not p.is_file():
                continue
            rel = p.relative_to(archived)
            if p.name == PACK:
                out.update(rel.parent / _member_path(n) for n in read_pack(p))
            else:
                out.add(logical(rel))
    return sorted(out)


def archived_bytes(archived: Path, rel: Path | str) -> bytes | None:
    """The content of the archived report ``rel`` (as delivered), or ``None``."""
    try:
        return read_archived(archived / rel, root=archived)
    except FileNotFoundError:
        return None


def deliver(camp: Campaign, segment: str, month: MonthDate) -> list[Path]:
    """Build ``reports/<segment>/<YYYY-MM>/`` from the archived month's
    ``outputs/reports/``; returns the delivered files, sorted. Files there that
    are not reports of the archive (the mail outbox) are left alone."""
    src = archived_reports(camp.archive_dir(segment) / month.key)
    if not src.is_dir():
        raise StateError(f"Segment {segment!r}: der archivierte Mond {month.key} enthält keine "
                         f"Berichte ({src}); 'wdg reports render {segment} {month.key}' erzeugt sie")
    out = camp.reports_dir(segment, month)
    refuse_links(out.parents[1], out, "liefert Berichte aus")
    refuse_links_below(out, "liefert Berichte aus")
    files = []
    for p in sorted(src.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(src)
        if p.name == PACK:
            for name, data in sorted(read_pack(p).items()):
                dst = out / rel.parent / _member_path(name)
                put_bytes(data, dst)
                files.append(dst)
        else:
            dst = out / logical(rel)
            put(p, dst)
            files.append(dst)
    return sorted(files)


def delivered_size(archived: Path) -> int:
    """The bytes :func:`deliver` writes from the reports folder ``archived``
    (unpacked: pack members, decompressed ``.gz`` files by their gzip size
    field, other files as they are), for the space check before a commit."""
    total = 0
    if not archived.is_dir() or archived.is_symlink():
        return 0
    for p in archived.rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        if p.name == PACK:
            total += sum(len(data) for data in read_pack(p).values())  # (cached when just made)
        elif p.name.endswith(COMPRESSED):
            with p.open("rb") as f:
                f.seek(-4, os.SEEK_END)
                total += int.from_bytes(f.read(4), "little")
        else:
            total += p.stat().st_size
    return total


def check_delivered(camp: Campaign, segment: str, month: MonthDate,
                    manifest: dict[str, str]) -> str | None:
    """The first delivered report (``reports/<segment>/<YYYY-MM>/...``) whose
    bytes differ from the archive's manifest, or ``None``. A report that was
    never delivered (or removed) is not a difference."""
    out = camp.reports_dir(segment, month)
    archived = archived_reports(camp.archive_dir(segment) / month.key)
    prefix = f"{OUTPUTS_DIR}/{OUTPUT_NAME}/"
    for name in sorted(manifest):
        if not name.startswith(prefix):
            continue
        rel = logical(Path(name[len(prefix):]))
        p = out / rel
        if not p.is_file():
            continue
        want = archived_bytes(archived, rel)
        if want is None or hashlib.sha256(p.read_bytes()).digest() != hashlib.sha256(want).digest():
            return p.relative_to(camp.root).as_posix()
    return None
