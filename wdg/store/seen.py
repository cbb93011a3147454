"""The intake record: every mail imported, across months
(``worlds/<segment>/mail/seen.yaml``).

One line per mail event, each a YAML list item in flow form (JSON, which YAML
reads too). The record is **sealed** (:func:`wdg.store.integrity.write_sealed`, issue
#30): every event rewrites it whole — a temporary file, flushed to the disk,
then renamed over the old one — with a first line marking it sealed and a last
line holding the SHA-256 of everything before, so an event is recorded whole
or not at all, and a bit flip or a file cut short is found on loading and
named (:class:`wdg.store.integrity.IntegrityError`), never read as "not seen" (which
would import and answer mails twice). A record written before sealing (an
append-only journal without those lines; a line cut off by a crash, the very
last one, is dropped) is read as it is and sealed by its next event. Only wdg
writes it, under the segment's lock (the lock ``wdg turn run`` takes).

A mail is known by its **key** (:func:`mail_key`): its
Message-ID, else ``sha256:<hash of its bytes>``. An IMAP mail is also known by its place in the mailbox: the account,
the mailbox, its ``UIDVALIDITY`` and ``UID`` (a UID is never reused while the
UIDVALIDITY stays; a new UIDVALIDITY means the server renumbered the mailbox,
and the Message-ID still recognises the mails).

Events of one mail, in order (see :mod:`wdg.mail.fetch` for why this order
survives a kill at any point):

- ``taking``: about to be imported into month ``month`` (written *before* the
  sheet is stored);
- ``taken``: imported; the results (status, kingdoms) and the answers to send
  (files in the outbox, sent through the send record ``sent.yaml``).

A mail whose key has a ``taken`` event is never imported again — not next
month, not from another mailbox file, not after the server renumbered its
mailbox: this is what keeps a sheet without a ``Mond:`` line from being taken
as next month's sheet.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wdg.store import integrity
from wdg.errors import DataError

MAIL_DIR = "mail"
SEEN_FILE = "seen.yaml"
HEADER = ("# wdg: Eingangsbuch dieses Segments (docs/orders.md). Nur wdg schreibt hier, "
          "eine Zeile je Mail-Ereignis.\n")
EVENTS = ("taking", "taken")


def mail_key(message_id: str, raw: bytes) -> str:
    """The key of a mail: its Message-ID, else the hash of its bytes."""
    return message_id.strip() if message_id and message_id.strip() else \
        "sha256:" + hashlib.sha256(raw).hexdigest()


def place(account: str, host: str, mailbox: str, uidvalidity: int, uid: int) -> str:
    """Where an IMAP mail sits: ``user@host/mailbox;UIDVALIDITY=v;UID=u`` (RFC 5092 style)."""
    return f"{account}@{host}/{mailbox};UIDVALIDITY={uidvalidity};UID={uid}"


@dataclass(slots=True)
class SeenMail:
    """What the record knows of one mail (its last event wins)."""

    key: str
    event: str
    month: str
    at: str = ""
    places: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def taken(self) -> bool:
        return self.event == "taken"


class SeenRecord:
    """The intake record of one segment, loaded. Change it only under the
    segment's lock."""

    def __init__(self, segment_dir: Path, *, verify: bool = True) -> None:
        self.dir = segment_dir / MAIL_DIR
        self.path = self.dir / SEEN_FILE
        self.segment = segment_dir.name
        self.entries: list[dict[str, Any]] = []
        self.mails: dict[str, SeenMail] = {}
        self.by_place: dict[str, str] = {}
        self.body = b""
        """The record's lines as read or written (without the seal's lines)."""
        self.sealed = False
        """Whether the file on disk is sealed (False: absent, or written before sealing)."""
        self._load(verify)

    def _load(self, verify: bool) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        self.sealed = integrity.is_sealed(raw)
        try:
            data = integrity.unseal(raw, self.path) if verify else strip_seal(raw)
        except integrity.IntegrityError as e:
            raise integrity.IntegrityError(e.findings, damaged_text(self.segment)) from None
        lines = data.split(b"\n")
        offset = 1 if self.sealed else 0  # the seal's first line
        kept: list[bytes] = []
        for lineno, line in enumerate(lines, 1):
            text = line.decode("utf-8", "replace").strip()
            if not text or text.startswith("#"):
                kept.append(line)
                continue
            try:
                if not text.startswith("- "):
                    raise ValueError
                entry = json.loads(text[2:])
                if not isinstance(entry, dict) or entry.get("event") not in EVENTS \
                        or not isinstance(entry.get("key"), str):
                    raise ValueError
            except ValueError:
                if lineno == len(lines) and not self.sealed:
                    break  # cut off by a crash while being written: never acted on
                raise DataError(str(self.path), None, text[:80],
                                "eine von wdg geschriebene Zeile '- {\"key\": ..., \"event\": "
                                "...}'; das Eingangsbuch ist beschädigt — aus der Sicherung "
                                "zurückholen (docs/gamemaster.md), oder die Zeile von Hand "
                                f"richten und 'wdg segment accept {self.segment}'",
                                line=lineno + offset) from None
            kept.append(line)
            self._apply(entry)
        self.body = b"\n".join(kept).rstrip(b"\n")
        self.body = self.body + b"\n" if self.body else b""

    def _apply(self, e: dict[str, Any]) -> None:
        self.entries.append(e)
        key = e["key"]
        info = {k: v for k, v in e.items() if k not in ("key", "event", "month", "at", "place")}
        old = self.mails.get(key)
        places = list(old.places) if old else []
        if e.get("place") and e["place"] not in places:
            places.append(str(e["place"]))
            self.by_place[str(e["place"])] = key
        if old is not None and old.taken and e["event"] == "taking":
            # a taken mail stays taken (a second place of the same mail is only recorded)
            old.places = places
            return
        self.mails[key] = SeenMail(key, e["event"], str(e.get("month", "")), str(e.get("at", "")),
                                   places, {**(old.info if old else {}), **info})

    # --- reading ----------------------------------------------------------------------

    def get(self, key: str) -> SeenMail | None:
        return self.mails.get(key)

    def at_place(self, where: str) -> SeenMail | None:
        key = self.by_place.get(where)
        return self.mails.get(key) if key else None

    def taken(self) -> list[SeenMail]:
        return [m for m in self.mails.values() if m.taken]

    # --- writing ----------------------------------------------------------------------

    def record(self, key: str, event: str, month: str, *, place: str = "", **info: Any) -> None:
        """Append one event, flushed to the disk before returning."""
        if event not in EVENTS:
            raise ValueError(event)
        entry: dict[str, Any] = {"key": key, "event": event, "month": month,
                                 "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        if place:
            entry["place"] = place
        entry.update(info)
        line = ("- " + json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        self.dir.mkdir(parents=True, exist_ok=True)
        body = (self.body or HEADER.encode("utf-8")) + line
        integrity.write_sealed(self.path, body)
        self.body, self.sealed = body, True
        self._apply(entry)

    def reseal(self) -> None:
        """Seal the record as it is now (``wdg segment accept``, after the game
        master checked it; a record written before sealing gets its seal)."""
        if self.path.exists():
            integrity.write_sealed(self.path, self.body or HEADER.encode("utf-8"))
            self.sealed = True


def strip_seal(raw: bytes) -> bytes:
    """A record's bytes without a seal's first and last line (whether they fit or not)."""
    if integrity.is_sealed(raw):
        raw = raw[len(integrity.SEALED_HEAD):]
    body, sep, last = raw.rstrip(b"\n").rpartition(b"\n")
    if last.startswith(integrity.SEAL_PREFIX.encode()):
        return body + sep
    if not sep and raw.startswith(integrity.SEAL_PREFIX.encode()):
        return b""
    return raw


def damaged_text(segment: str) -> str:
    """What the game master does about a damaged intake record (German)."""
    return (". Das Eingangsbuch wird so nicht gelesen (als 'nicht gesehen' würden Mails doppelt "
            "eingelesen und beantwortet); nichts wurde verändert. Aus der Sicherung "
            "zurückholen (docs/gamemaster.md, Sicherung), oder — nach Prüfung der Datei — "
            f"'wdg segment accept {segment}' (versiegelt sie neu)")


def check_seen(segment_dir: Path) -> list[integrity.Finding]:
    """``wdg segment check``: the intake record's seal and lines (findings, never raises)."""
    try:
        SeenRecord(segment_dir)
    except integrity.IntegrityError as e:
        return [integrity.Finding(f.path, f.what + damaged_text(segment_dir.name))
                for f in e.findings]
    except DataError as e:
        return [integrity.Finding(str(seen_path(segment_dir)), str(e))]
    return []


def seen_path(segment_dir: Path) -> Path:
    """``worlds/<segment>/mail/seen.yaml``."""
    return segment_dir / MAIL_DIR / SEEN_FILE
