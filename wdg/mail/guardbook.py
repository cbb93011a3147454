"""The guard record: what the mail guard (:mod:`wdg.mail.guard`) counted
(``worlds/<segment>/mail/guard.yaml``).

One event a line, each a YAML list item in flow form (JSON, which YAML reads
too), the whole file rewritten atomically and sealed
(:func:`wdg.integrity.write_sealed`: a first line marking it sealed, a last
line with the SHA-256 of everything before; mode 0600, it holds players'
addresses). Only wdg writes it, under the segment's lock.

An event: ``{"at": ISO time (UTC), "mail": key of the mail (its Message-ID or
sha256:...), "kind": ..., "sender": address, "kingdom": n or null, "month":
YYYY-MM}`` with ``kind`` one of :data:`KINDS`. The counters of the guard are
counts of events in a time window, never a number stored on its own: deciding
a mail a second time (a fetch killed after deciding, before filing the mail
away) finds its own event by ``mail`` and decides the same.

Events older than ``limits.keep_days`` (mail.yaml) are dropped when the record
is written.

The interface (:class:`GuardBook`: ``events``, ``add``, ``save``) is small on
purpose: the store (``wdg/store/``) is to hold it as one of its mail records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from wdg import integrity
from wdg.errors import DataError

MAIL_DIR = "mail"
GUARD_FILE = "guard.yaml"
HEADER = ("# wdg: Wachbuch dieses Segments (docs/gamemaster.md, Wenn etwas schiefgeht). "
          "Nur wdg schreibt hier, eine Zeile je gezählter Mail.\n")

KINDS = {
    "antwort": "beantwortet (Spielzug)",
    "befehl": "beantwortet (Mail-Befehl)",
    "ersetzt-hinweis": "Hinweis an die hinterlegte Adresse: Spielzug von anderer Adresse",
    "passwort-falsch": "Spielzug mit falschem Passwort",
    "passwort-hinweis": "Hinweis an die hinterlegte Adresse: falsches Passwort",
    "gedrosselt": "nicht beantwortet: zu viele Antworten",
    "fremd": "nicht beantwortet: Absender spielt kein Königreich",
    "schleife": "nicht beantwortet: automatische Mail oder Antwort auf wdg",
}
"""Every kind of event, with its German meaning (``wdg mail status``, docs)."""


def now() -> datetime:
    """The time events are stamped with (UTC)."""
    return datetime.now(timezone.utc)


@dataclass(frozen=True, slots=True)
class Event:
    """One counted mail."""

    at: datetime
    mail: str
    kind: str
    sender: str = ""
    kingdom: int | None = None
    month: str = ""
    command: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.at.isoformat(timespec="seconds"), "mail": self.mail,
                               "kind": self.kind, "sender": self.sender,
                               "kingdom": self.kingdom, "month": self.month}
        if self.command:
            out["command"] = self.command
        return out


def _event(entry: Any) -> Event:
    if not isinstance(entry, dict) or entry.get("kind") not in KINDS \
            or not isinstance(entry.get("mail"), str):
        raise ValueError
    at = datetime.fromisoformat(str(entry["at"]))
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    k = entry.get("kingdom")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool)):
        raise ValueError
    return Event(at, entry["mail"], entry["kind"], str(entry.get("sender") or ""), k,
                 str(entry.get("month") or ""), str(entry.get("command") or ""))


class GuardBook:
    """The guard record of one segment, loaded. Change it only under the
    segment's lock; :meth:`add` writes at once (a decision is recorded before
    its answer is written)."""

    def __init__(self, segment_dir: Path) -> None:
        self.dir = segment_dir / MAIL_DIR
        self.path = self.dir / GUARD_FILE
        self.events: list[Event] = []
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        data = integrity.unseal(raw, self.path)
        for lineno, line in enumerate(data.split(b"\n"), 1):
            text = line.decode("utf-8", "replace").strip()
            if not text or text.startswith("#"):
                continue
            try:
                if not text.startswith("- "):
                    raise ValueError
                self.events.append(_event(json.loads(text[2:])))
            except (ValueError, TypeError):
                raise DataError(str(self.path), None, text[:80],
                                "eine von wdg geschriebene Zeile '- {\"at\": ..., \"mail\": ..., "
                                "\"kind\": ...}'; das Wachbuch ist beschädigt — aus der "
                                "Sicherung zurückholen oder die Datei beiseite legen (dann "
                                "beginnen die Zähler von vorn)", line=lineno + 1) from None

    def of_mail(self, mail: str, kingdom: int | None = None) -> list[Event]:
        """The events already recorded for ``mail`` (and ``kingdom``, if given)."""
        return [e for e in self.events if e.mail == mail
                and (kingdom is None or e.kingdom == kingdom)]

    def count(self, kinds: Iterable[str], *, since: datetime, sender: str | None = None,
              kingdom: int | None = None, command: str | None = None,
              month: str | None = None, exclude: str = "") -> int:
        """Distinct mails with an event of ``kinds`` since ``since`` that match the
        filters (``exclude``: the mail being decided)."""
        kinds = set(kinds)
        got = {e.mail for e in self.events
               if e.kind in kinds and e.at >= since and e.mail != exclude
               and (sender is None or e.sender.lower() == sender.lower())
               and (kingdom is None or e.kingdom == kingdom)
               and (command is None or e.command == command)
               and (month is None or e.month == month)}
        return len(got)

    def add(self, event: Event, keep_days: int) -> None:
        """Record ``event`` (once: the same mail, kind and kingdom twice is one
        event) and write the record, dropping events older than ``keep_days``."""
        if any(e.mail == event.mail and e.kind == event.kind and e.kingdom == event.kingdom
               for e in self.events):
            return
        self.events.append(event)
        cut = now() - timedelta(days=keep_days)
        self.events = [e for e in self.events if e.at >= cut]
        self.save()

    def save(self) -> None:
        body = HEADER + "".join("- " + json.dumps(e.as_dict(), ensure_ascii=False) + "\n"
                                for e in self.events)
        self.dir.mkdir(parents=True, exist_ok=True)
        integrity.write_sealed(self.path, body.encode("utf-8"))


def guard_path(segment_dir: Path) -> Path:
    """``worlds/<segment>/mail/guard.yaml``."""
    return segment_dir / MAIL_DIR / GUARD_FILE
