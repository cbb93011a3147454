"""The guard record: what the mail guard (:mod:`wdg.mail.guard`) counted
(``worlds/<segment>/mail/guard.yaml``), a small mail record of the store
(:mod:`wdg.store.mailrecords`, kind ``guard``, row ``mail-guard`` of the format
registry): sealed, written whole and atomically, mode 0600 (it holds players'
addresses). Only wdg writes it, under the segment's lock.

Its data is ``{"events": [...]}``, one event per counted mail: ``{"at": ISO time
(UTC), "mail": key of the mail (its Message-ID or sha256:...), "kind": ...,
"sender": address, "kingdom": n or null, "month": YYYY-MM}`` with ``kind`` one of
:data:`KINDS`. The counters of the guard are counts of events in a time window,
never a number stored on its own: deciding a mail a second time (a fetch killed
after deciding, before filing the mail away) finds its own event by ``mail`` and
decides the same.

Events older than ``limits.keep_days`` (mail.yaml) are dropped when the record
is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any

from wdg.errors import DataError
from wdg.store import mailrecords

GUARD = mailrecords.define("guard", 1, "the mail guard's counts (wdg.mail.guard): one event "
                           "per counted mail — answered, throttled, wrong password, foreign "
                           "sender, loop")
"""The record kind (format 1: ``{"events": [event, ...]}``)."""

class GuardKind(StrEnum):
    """What the guard recorded for one counted mail. The values are storage
    codes (the guard record's ``kind``) and never change; their German meaning
    is :data:`KINDS`."""

    ANSWERED = "antwort"
    COMMAND = "befehl"
    REPLACED_NOTICE = "ersetzt-hinweis"
    WRONG_PASSWORD = "passwort-falsch"
    PASSWORD_NOTICE = "passwort-hinweis"
    THROTTLED = "gedrosselt"
    FOREIGN = "fremd"
    LOOP = "schleife"


KINDS = {
    GuardKind.ANSWERED: "beantwortet (Spielzug)",
    GuardKind.COMMAND: "beantwortet (Mail-Befehl)",
    GuardKind.REPLACED_NOTICE: "Hinweis an die hinterlegte Adresse: Spielzug von anderer Adresse",
    GuardKind.WRONG_PASSWORD: "Spielzug mit falschem Passwort",
    GuardKind.PASSWORD_NOTICE: "Hinweis an die hinterlegte Adresse: falsches Passwort",
    GuardKind.THROTTLED: "nicht beantwortet: zu viele Antworten",
    GuardKind.FOREIGN: "nicht beantwortet: Absender spielt kein Königreich",
    GuardKind.LOOP: "nicht beantwortet: automatische Mail oder Antwort auf wdg",
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
    kind: GuardKind
    sender: str = ""
    kingdom: int | None = None
    month: str = ""
    command: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.at.isoformat(timespec="seconds"), "mail": self.mail,
                               "kind": self.kind.value, "sender": self.sender,
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
    return Event(at, entry["mail"], GuardKind(entry["kind"]), str(entry.get("sender") or ""), k,
                 str(entry.get("month") or ""), str(entry.get("command") or ""))


class GuardBook:
    """The guard record of one segment, loaded. Change it only under the
    segment's lock; :meth:`add` writes at once (a decision is recorded before
    its answer is written)."""

    def __init__(self, segment_dir: Path) -> None:
        self.segment_dir = segment_dir
        self.path = mailrecords.record_path(segment_dir, GUARD)
        data = mailrecords.load(segment_dir, GUARD)
        events = data.get("events", [])
        self.events: list[Event] = []
        try:
            if not isinstance(events, list):
                raise ValueError
            self.events = [_event(e) for e in events]
        except (ValueError, TypeError):
            raise DataError(str(self.path), "events", str(events)[:80],
                            "Ereignisse, wie wdg sie schreibt ({\"at\": ..., \"mail\": ..., "
                            "\"kind\": ...}); das Wachbuch ist beschädigt — aus der Sicherung "
                            "zurückholen oder die Datei beiseite legen (dann beginnen die "
                            "Zähler von vorn)") from None

    def of_mail(self, mail: str, kingdom: int | None = None) -> list[Event]:
        """The events already recorded for ``mail`` (and ``kingdom``, if given)."""
        return [e for e in self.events if e.mail == mail
                and (kingdom is None or e.kingdom == kingdom)]

    def count(self, kinds: Iterable[GuardKind], *, since: datetime, sender: str | None = None,
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
        mailrecords.save(self.segment_dir, GUARD, {"events": [e.as_dict() for e in self.events]})
