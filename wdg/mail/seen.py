"""The intake record: every mail imported, across months
(``worlds/<segment>/mail/seen.yaml``).

One line per mail event, each a YAML list item in flow form (JSON, which YAML
reads too), appended and flushed to the disk (``fsync``) before wdg goes on:
an event is recorded whole or — a line cut off by a crash while being written,
the very last one, without its line end — not at all (such a line is dropped
on reading and cut off before the next append). Only wdg writes it, under the
segment's lock (the lock ``wdg turn run`` takes).

A mail is known by its **key**: its Message-ID, else ``sha256:<hash of its
bytes>``. An IMAP mail is also known by its place in the mailbox: the account,
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

from wdg.errors import DataError
from wdg.fsio import append_durable

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

    def __init__(self, segment_dir: Path) -> None:
        self.dir = segment_dir / MAIL_DIR
        self.path = self.dir / SEEN_FILE
        self.entries: list[dict[str, Any]] = []
        self.mails: dict[str, SeenMail] = {}
        self.by_place: dict[str, str] = {}
        self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        lines = data.split(b"\n")
        for lineno, line in enumerate(lines, 1):
            text = line.decode("utf-8", "replace").strip()
            if not text or text.startswith("#"):
                continue
            try:
                if not text.startswith("- "):
                    raise ValueError
                entry = json.loads(text[2:])
                if not isinstance(entry, dict) or entry.get("event") not in EVENTS \
                        or not isinstance(entry.get("key"), str):
                    raise ValueError
            except ValueError:
                if lineno == len(lines):
                    break  # cut off by a crash while being written: never acted on
                raise DataError(str(self.path), None, text[:80],
                                "eine von wdg geschriebene Zeile '- {\"key\": ..., \"event\": "
                                "...}'; das Eingangsbuch ist beschädigt — aus der Sicherung "
                                "zurückholen (docs/gamemaster.md)", line=lineno) from None
            self._apply(entry)

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
        append_durable(self.path, line, HEADER.encode("utf-8"))
        self._apply(entry)


def seen_path(segment_dir: Path) -> Path:
    """``worlds/<segment>/mail/seen.yaml``."""
    return segment_dir / MAIL_DIR / SEEN_FILE
