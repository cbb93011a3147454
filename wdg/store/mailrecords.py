"""Small mail records: one sealed file per kind in the segment's ``mail/``
folder (docs/storage.md, "Small mail records").

The home for the mail's own small state between commands — rate-limit
counters, alert records, anything that is a little data per segment and must
not be lost or silently changed. A record kind is defined once, at import
time of the module that owns it::

    from wdg.store import mailrecords

    COUNTERS = mailrecords.define("rate", 1, "mails sent per hour and recipient")

    data = mailrecords.load(seg_dir, COUNTERS)        # {} when there is none yet
    data["k3"] = data.get("k3", 0) + 1
    mailrecords.save(seg_dir, COUNTERS, data)         # atomic, flushed, sealed

The file is ``worlds/<segment>/mail/<name>.yaml``: a first line marking it
sealed, one JSON line ``{"format": N, "kind": NAME, "data": {...}}`` (YAML
reads JSON too) and a last line with the SHA-256 of everything before
(:func:`wdg.store.integrity.write_sealed`). A save writes it whole beside
the old one and renames it into place; a kill leaves the old record or the
new one. A record cut short, changed by hand or bit-flipped is an
:class:`~wdg.store.integrity.IntegrityError` naming it, never read as empty;
``wdg segment check`` lists it (:func:`check_records`). A record of a newer
format than this wdg knows is refused with both numbers. Every kind has its
row in the format registry (:mod:`wdg.store.formats`, ``mail-<name>``);
raise its number when the data's shape changes.

Write a record only under the segment's lock (the callers of ``wdg mail``
commands hold it); reading needs no lock.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wdg.errors import StateError
from wdg.store import formats
from wdg.store.integrity import Finding, IntegrityError, is_sealed, unseal, write_sealed

MAIL_DIR = "mail"
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
RESERVED = ("sent", "seen", "sent.seal", "legacy-sent")
"""Names taken by the send and intake records (:mod:`wdg.store.sent`, :mod:`wdg.store.seen`)."""

_DAMAGED = (". Der Datensatz wird so nicht gelesen (als leer würde er Zähler oder Meldungen "
            "verlieren); nichts wurde verändert. Aus der Sicherung zurückholen "
            "(docs/gamemaster.md, Sicherung)")
"""What the game master does about a damaged record (German)."""


@dataclass(frozen=True, slots=True)
class RecordKind:
    """A kind of small mail record: its file name stem and current format."""

    name: str
    format: int
    description: str

    @property
    def file(self) -> str:
        return f"{self.name}.yaml"


_KINDS: dict[str, RecordKind] = {}


def define(name: str, format: int, description: str) -> RecordKind:
    """Define a record kind (once per name; the same definition twice is
    fine) and add its row ``mail-<name>`` to the format registry."""
    if not _NAME.match(name) or name in RESERVED:
        raise ValueError(f"invalid mail record name {name!r} (lower case, digits, '-'; not "
                         f"one of {', '.join(RESERVED)})")
    if not isinstance(format, int) or isinstance(format, bool) or format < 1:
        raise ValueError(f"invalid format number {format!r} for mail record {name!r}")
    kind = RecordKind(name, format, description)
    old = _KINDS.get(name)
    if old is not None and old != kind:
        raise ValueError(f"mail record {name!r} is defined already: {old}")
    formats.register(formats.Kind(f"mail-{name}", format, f"worlds/<segment>/mail/{kind.file}",
                                  description))
    _KINDS[name] = kind
    return kind


def kinds() -> dict[str, RecordKind]:
    """The defined record kinds by name."""
    return dict(sorted(_KINDS.items()))


def record_path(segment_dir: Path, kind: RecordKind) -> Path:
    """``worlds/<segment>/mail/<name>.yaml``."""
    return segment_dir / MAIL_DIR / kind.file


def _refuse_links(segment_dir: Path, path: Path) -> None:
    for p in (segment_dir / MAIL_DIR, path):
        if p.is_symlink():
            raise StateError(f"{p} ist ein symbolischer Link; wdg folgt Links im Segment nie "
                             "und ändert nichts, solange er da ist. Entfernen Sie den Link von "
                             f"Hand ('rm {p}') und rufen Sie den Befehl erneut auf.")


def load(segment_dir: Path, kind: RecordKind) -> dict[str, Any]:
    """The record's data (``{}`` when the segment has none yet). A damaged,
    unsealed, foreign or newer record raises, naming the file."""
    path = record_path(segment_dir, kind)
    _refuse_links(segment_dir, path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    if not is_sealed(raw):
        raise IntegrityError([Finding(str(path), "nicht versiegelt (nicht von wdg geschrieben "
                                      "oder von Hand ersetzt)")], _DAMAGED)
    try:
        body = unseal(raw, path)
    except IntegrityError as e:
        raise IntegrityError(e.findings, _DAMAGED) from None
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        doc = None
    if not isinstance(doc, dict) or doc.get("kind") != kind.name \
            or not isinstance(doc.get("format"), int) or not isinstance(doc.get("data"), dict):
        raise IntegrityError([Finding(str(path), f"kein Datensatz '{kind.name}' von wdg (erwartet "
                                      "eine JSON-Zeile mit format, kind und data)")],
                             _DAMAGED)
    if doc["format"] > kind.format:
        raise StateError(f"{path}: Format {doc['format']} ist neuer als diese wdg-Version (liest "
                         f"'{kind.name}' bis Format {kind.format}) — bitte die wdg-Version "
                         "verwenden, die es geschrieben hat, oder eine neuere; nichts wurde "
                         "verändert")
    return doc["data"]


def save(segment_dir: Path, kind: RecordKind, data: dict[str, Any]) -> Path:
    """Write the record whole, sealed and flushed (the old one stays until the
    new one is complete). ``data``: JSON-able plain data."""
    path = record_path(segment_dir, kind)
    _refuse_links(segment_dir, path)
    line = json.dumps({"format": kind.format, "kind": kind.name, "data": data},
                      ensure_ascii=False, sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_sealed(path, (line + "\n").encode("utf-8"))
    return path


def check_records(segment_dir: Path) -> list[Finding]:
    """``wdg segment check``: every small record in the segment's ``mail/``
    folder is sealed, intact and a record of its kind (findings, never
    raises). Files of kinds this process has not defined are checked as well
    (seal and shape; any format)."""
    found: list[Finding] = []
    folder = segment_dir / MAIL_DIR
    if not folder.is_dir() or folder.is_symlink():
        return found
    for p in sorted(folder.glob("*.yaml")):
        stem = p.name[:-len(".yaml")]
        if stem in RESERVED or not _NAME.match(stem):
            continue
        kind = _KINDS.get(stem) or RecordKind(stem, 1 << 30, "")
        try:
            load(segment_dir, kind)
        except IntegrityError as e:
            found += e.findings
        except StateError as e:
            found.append(Finding(str(p), str(e)))
    return found

