"""The live files against the last archived month (docs/storage.md, "The live
files and the archive"; issue #40 item 7).

After a month is committed, the live segment files are exactly the month's
archived ``state/`` (its manifest holds their SHA-256). Between months they
change only through wdg's own commands (a kingdom added, a deadline set,
``wdg segment accept`` after a hand edit, an upgrade); every such save
records the hashes it wrote in ``worlds/<segment>/edits.yaml`` (sealed,
:func:`record`) before its commit point, with the month it follows (its
base). Entries are kept for every base, so after ``wdg turn undo`` (not
recorded itself: it restores the state before the month, which is the
month before's state and the changes recorded since) they still count. :func:`check_live` — run by ``wdg
segment check`` and before every ``wdg turn run`` — finds a live file whose
hash is neither the archived one nor one a wdg command wrote: a file changed
by hand *together with its line in the live* ``SHA256SUMS`` passed every
check before.

What this cannot see: someone who also rewrites ``edits.yaml`` with its seal
(a checksum, not a signature). Against that, the chain's digest leaves the
disk (docs/turns.md).
"""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wdg.errors import InvalidInputError
from wdg.store import formats
from wdg.store.integrity import (IntegrityError, Finding, TURNS, file_digest, is_sealed,
                                 month_dirs, read_manifest, sealed_bytes, unseal)

EDITS = "edits.yaml"
_WORD = re.compile(r"^[a-z][a-z-]{0,30}$")


def _command() -> str:
    """The wdg command that saves (its command words only: never an argument,
    which might be a password)."""
    words = [w for w in sys.argv[1:3] if _WORD.match(w)]
    return " ".join(["wdg", *words])


def _load(seg_dir: Path) -> dict[str, Any]:
    path = seg_dir / EDITS
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {"format": formats.current("segment-edits"), "entries": []}
    if not is_sealed(raw):
        raise IntegrityError([Finding(str(path), "nicht versiegelt (nicht von wdg geschrieben)")])
    body = unseal(raw, path)
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list) \
            or not isinstance(doc.get("format"), int):
        raise IntegrityError([Finding(str(path), "keine Aufzeichnung der Änderungen von wdg")])
    if doc["format"] > formats.current("segment-edits"):
        raise IntegrityError([Finding(str(path), f"Format {doc['format']} ist neuer als diese "
                                      "wdg-Version")])
    return doc


def record(seg_dir: Path, date_key: str, hashes: dict[str, str], into: Path, *,
           accept: bool = False) -> bool:
    """Record that a wdg command writes the segment files with ``hashes``
    (name -> SHA-256) while the segment's month is ``date_key`` (its base: the
    month before, the last archived one). Called by a save before its commit
    point: the new record is written into the save's generation ``into``
    and moved into place by the save's own journal (all or nothing with the
    files). Returns whether it wrote one (not when these very hashes are
    recorded already).

    A save must not launder a hand edit: unless ``accept`` (``wdg segment
    accept`` after the game master checked the files, ``wdg segment
    upgrade``), live files that :func:`check_live` does not explain refuse
    the save (:class:`~wdg.store.integrity.IntegrityError`, nothing saved).
    ``accept`` also replaces a damaged record."""
    try:
        base = _base(date_key)
    except InvalidInputError:
        return False  # no month: the save's hash list refuses it (ListWriteError)
    path = seg_dir / EDITS
    if path.is_symlink():
        from wdg.store.edges import refused_link

        raise refused_link(path, "speichert")
    if not accept:
        found = check_live(seg_dir)
        if found:
            raise IntegrityError(found, ". Nichts wurde gespeichert: das Speichern übernähme "
                                 "die Änderung ungeprüft. Erst prüfen ('wdg segment check "
                                 f"{seg_dir.name}'), dann 'wdg segment accept {seg_dir.name}'")
    try:
        doc = _load(seg_dir) if path.exists() else {"entries": []}
    except IntegrityError:
        if not accept:
            raise
        doc = {"entries": []}  # checked by the game master: the record starts again
    files = dict(sorted(hashes.items()))
    if any(isinstance(e, dict) and e.get("base") == base and e.get("files") == files
           for e in doc["entries"]):
        return False  # these very files are recorded already (a save that changed nothing)
    doc["format"] = formats.current("segment-edits")
    entry = {"base": base, "by": _command(),
             "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "files": files}
    doc["entries"] = [*doc["entries"], entry]
    body = json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=0) + "\n"
    target = into / EDITS
    target.write_bytes(sealed_bytes(body.encode("utf-8")))
    os.chmod(target, 0o600)
    return True


def _base(date_key: str) -> str:
    from wdg.world.calendar import MonthDate

    return MonthDate.parse(date_key).previous().key


def check_live(seg_dir: Path, files: tuple[str, ...] | None = None) -> list[Finding]:
    """Each live segment file against the last archived month's ``state/``
    (its manifest's SHA-256) and the hashes wdg's own saves recorded since
    (findings, never raises)."""
    from wdg.store.journal import FILES

    months = [m for m in month_dirs(seg_dir / TURNS) if m.is_dir() and not m.is_symlink()]
    if not months:
        return []
    last = months[-1]
    try:
        manifest = read_manifest(last)
    except (IntegrityError, OSError, ValueError):
        return []  # a damaged manifest is named by the month's own check
    try:
        doc = _load(seg_dir)
    except IntegrityError as e:
        return [Finding(f.path, f.what + ". Die Änderungen zwischen den Monden sind so nicht "
                        "nachzuvollziehen; nach Prüfung 'wdg segment accept "
                        f"{seg_dir.name}'") for f in e.findings]
    found: list[Finding] = []
    for name in files or FILES:
        archived = manifest.get(f"state/{name}")
        live = seg_dir / name
        if archived is None or not live.is_file() or live.is_symlink():
            continue  # a month of an older wdg (hashed as stored), or a file the list check names
        allowed = {archived} | {str(e["files"].get(name)) for e in doc["entries"]
                                if isinstance(e, dict) and e.get("base") == last.name
                                and isinstance(e.get("files"), dict)}
        if file_digest(live) not in allowed:
            found.append(Finding(str(live), f"weicht vom archivierten Stand nach Mond {last.name} "
                                 f"ab ({TURNS}/{last.name}/state/{name}) und wurde von keinem "
                                 f"wdg-Befehl so geschrieben ({EDITS}): von Hand geändert, samt "
                                 "seiner Zeile in SHA256SUMS? Prüfen; ist die Änderung gewollt: "
                                 f"'wdg segment accept {seg_dir.name}'"))
    return found
