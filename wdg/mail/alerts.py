"""Alerts to the game master: every failure of the mail service reaches him.

A failure that a player cannot see and that does not heal by itself — sending
fails, a login is refused, the inbox cannot be read, someone guesses passwords,
a sheet lies in a folder that is not read — is *raised* here. It then reaches
the game master three ways:

1. the call that met it says so (its exit code, ``--json`` status, stderr);
2. the **alert record** ``worlds/<segment>/mail/alerts.yaml`` keeps it (``wdg mail
   status SEG`` shows it): which kinds are active since when, how often, the last
   text, and the last failures;
3. a **mail to the game master** (to the ``from`` address of ``mail.yaml``), at
   most one per kind and calendar day (the send record key ``alarm/<kind>/<day>``
   makes it exactly once), and one when the failure is over (``behoben/<kind>/<day>``).
   When SMTP itself is down the mail cannot go: it stays owed in the record and
   goes out once on the first call whose SMTP works; a failure that is already
   over by then is told in that one mail ("… und ist inzwischen behoben").

The API (also for the intake's guards)::

    from wdg.mail import alerts
    alerts.raise_alert(seg_dir, "passwort", "10 Versuche mit falschem Passwort für Königreich 4 …")
    alerts.recovered(seg_dir, "smtp")          # the failure of that kind is over
    alerts.deliver(seg_dir, config)            # send owed alert mails (fetch and run do it)

:func:`raise_alert` and :func:`recovered` only write the record (cheap, never
talk to a server, never raise for a mail problem); :func:`deliver` sends what is
owed. :func:`wdg.mail.fetch.fetch` and ``wdg mail run`` call :func:`deliver` at
their end, so a caller inside a fetch need not. The kinds and their German titles
are :data:`KINDS` (docs/gamemaster.md, "Wenn etwas schiefgeht", explains each);
a kind not listed there is refused (a typo must not invent a new alert).

The record also keeps the last successful fetch and send (:func:`note_ok`) for
``wdg mail status``. It is a small mail record of the store
(:mod:`wdg.store.mailrecords`, kind ``alerts``, format row ``mail-alerts``:
sealed, written whole and atomically), read and written under its own small
``flock`` (``mail/alerts.lock``) rather than the segment's lock: ``wdg mail
watch`` raises alerts while it does not hold the segment, and a timer's ``wdg
mail run`` may write it at the same moment — the record's lock makes each
read-change-write whole.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any

from wdg.errors import DataError, LockedError, StateError
from wdg.mail.imap import ImapLoginRefused
from wdg.mail.send import Outgoing, digest, send_mails
from wdg.mail.smtp import SmtpLoginRefused
from wdg.store import mailrecords
from wdg.store.sent import Ledger

ALERTS = mailrecords.define(
    "alerts", 1, "alerts to the game master (wdg.mail.alerts): active failures, alert mails "
    "owed, the last failures, the last successful fetch and send, spam folders looked at")
RECORD = Path(mailrecords.MAIL_DIR) / ALERTS.file
LOCK = Path(mailrecords.MAIL_DIR) / "alerts.lock"
HISTORY = 30
"""Failures and recoveries kept in the record (the newest)."""

KINDS: dict[str, str] = {
    "smtp": "Mails können nicht gesendet werden (SMTP-Server nicht erreichbar oder "
            "verweigert die Annahme)",
    "smtp-anmeldung": "Anmeldung beim SMTP-Server abgelehnt (oder Passwort fehlt)",
    "imap": "Posteingang kann nicht gelesen werden (IMAP-Server nicht erreichbar oder "
            "ein Befehl abgelehnt)",
    "imap-anmeldung": "Anmeldung beim IMAP-Server abgelehnt (oder Passwort fehlt)",
    "abruf": "Posteingang steckt fest: Mails werden abgeholt, aber nicht aufgenommen",
    "ordner": "Spielzug-Mails in einem Ordner, der nicht gelesen wird",
    "passwort": "Versuche mit falschem Passwort",
    "flut": "Zu viele Mails oder Befehle von einem Absender (nicht beantwortet)",
}
"""Every alert kind and what it means (German; the mail's subject)."""

EVENTS = frozenset({"ordner", "passwort", "flut"})
"""Kinds that are events, not states: told (once a day), kept in the history, but
never "active" — nothing ends them, so no recovery mail follows."""


@dataclass(slots=True)
class Alert:
    """An active failure of one kind."""

    kind: str
    since: str
    last: str
    count: int
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": KINDS.get(self.kind, self.kind),
                "since": self.since, "last": self.last, "count": self.count, "text": self.text}


@dataclass(slots=True)
class Record:
    """``mail/alerts.yaml`` as read."""

    active: dict[str, Alert] = field(default_factory=dict)
    owed: list[dict[str, str]] = field(default_factory=list)
    """Alert mails not sent yet: ``key``, ``kind``, ``subject``, ``body``."""
    history: list[dict[str, str]] = field(default_factory=list)
    ok: dict[str, str] = field(default_factory=dict)
    """The last success of ``fetch`` and ``send`` (ISO time)."""
    day_mails: dict[str, str] = field(default_factory=dict)
    """kind -> the last day an alert mail for it was made (once per kind and day)."""
    cursors: dict[str, int] = field(default_factory=dict)
    """Folder -> the highest UID already looked at (:mod:`wdg.mail.folders`)."""
    streak: dict[str, int] = field(default_factory=dict)
    """Kind -> failed calls in a row (for alerts raised only after some)."""

    def as_data(self) -> dict[str, Any]:
        return {"active": {k: {"since": a.since, "last": a.last, "count": a.count,
                               "text": a.text} for k, a in sorted(self.active.items())},
                "owed": list(self.owed), "history": self.history[-HISTORY:],
                "ok": dict(self.ok), "day_mails": dict(self.day_mails),
                "cursors": dict(self.cursors), "streak": dict(self.streak)}


def _now() -> datetime:
    return datetime.now().astimezone()


def _path(seg_dir: Path) -> Path:
    return mailrecords.record_path(seg_dir, ALERTS)


def read(seg_dir: Path) -> Record:
    """The record (empty when there is none). A damaged record is refused with
    its name (:mod:`wdg.store.mailrecords`): it holds no game state — set aside,
    only the alert history is lost."""
    data = mailrecords.load(seg_dir, ALERTS)
    if not data:
        return Record()
    try:
        rec = Record()
        for kind, a in (data.get("active") or {}).items():
            rec.active[str(kind)] = Alert(str(kind), str(a["since"]), str(a["last"]),
                                          int(a["count"]), str(a["text"]))
        rec.owed = [{str(k): str(v) for k, v in m.items()} for m in data.get("owed") or []]
        rec.history = [{str(k): str(v) for k, v in h.items()} for h in data.get("history") or []]
        rec.ok = {str(k): str(v) for k, v in (data.get("ok") or {}).items()}
        rec.day_mails = {str(k): str(v) for k, v in (data.get("day_mails") or {}).items()}
        rec.cursors = {str(k): int(v) for k, v in (data.get("cursors") or {}).items()}
        rec.streak = {str(k): int(v) for k, v in (data.get("streak") or {}).items()}
        return rec
    except (ValueError, KeyError, TypeError, AttributeError):
        path = _path(seg_dir)
        raise DataError(str(path), None, "(unlesbare Einträge)",
                        f"das Alarmbuch im Format {ALERTS.format}; es enthält keinen Spielstand "
                        f"— beiseitegelegt ('mv {path} {path}.alt') beginnt es leer") from None


def _write(seg_dir: Path, rec: Record) -> None:
    mailrecords.save(seg_dir, ALERTS, rec.as_data())


@contextmanager
def _changing(seg_dir: Path) -> Iterator[Record]:
    """Read, let the caller change, write — under the record's own lock."""
    lock = seg_dir / LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        rec = read(seg_dir)
        yield rec
        _write(seg_dir, rec)
    finally:
        os.close(fd)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise StateError(f"unbekannte Alarmart {kind!r}; bekannt sind {', '.join(KINDS)}")


def _segment_name(seg_dir: Path) -> str:
    return seg_dir.name


def raise_alert(seg_dir: Path, kind: str, text: str, *, now: datetime | None = None) -> bool:
    """Record a failure of ``kind`` (one of :data:`KINDS`) with a German ``text``
    saying what happened and what it costs. The game master gets a mail for it
    unless one for this kind went out (or is owed) today already. Returns True
    when this call made a new alert mail owed (:func:`deliver` sends it)."""
    _check_kind(kind)
    now = now or _now()
    stamp = now.isoformat(timespec="seconds")
    day = now.date().isoformat()
    text = " ".join(str(text).split())[:2000]
    with _changing(seg_dir) as rec:
        a = rec.active.get(kind)
        if a is None:
            a = Alert(kind, stamp, stamp, 1, text)
            if kind not in EVENTS:
                rec.active[kind] = a
        else:
            a.last, a.count, a.text = stamp, a.count + 1, text
        if not rec.history or rec.history[-1].get("kind") != kind or \
                rec.history[-1].get("text") != text:
            rec.history.append({"at": stamp, "kind": kind, "event": "Störung", "text": text})
        if rec.day_mails.get(kind) == day:
            return False
        rec.day_mails[kind] = day
        seg = _segment_name(seg_dir)
        rec.owed.append({
            "key": f"alarm/{kind}/{day}", "kind": kind,
            "subject": f"wdg Segment {seg}: Störung — {KINDS[kind]}",
            "body": _alarm_body(seg, kind, text, a)})
        return True


def recovered(seg_dir: Path, kind: str, text: str = "", *, now: datetime | None = None) -> bool:
    """The failure of ``kind`` is over (a send went through, a login succeeded).
    Nothing happens unless it was active; then the game master is told — in the
    alert mail itself if that is still owed, else by one mail per kind and day.
    Returns True when it was active."""
    _check_kind(kind)
    if not _path(seg_dir).is_file():
        return False
    if kind not in read(seg_dir).active:  # the common case: no lock, no write
        return False
    now = now or _now()
    stamp = now.isoformat(timespec="seconds")
    day = now.date().isoformat()
    with _changing(seg_dir) as rec:
        a = rec.active.pop(kind, None)
        if a is None:
            return False
        note = (f"Behoben am {_human(stamp)} (Störung seit {_human(a.since)}, "
                f"{a.count} Mal bemerkt)." + (f" {text}" if text else ""))
        rec.history.append({"at": stamp, "kind": kind, "event": "behoben", "text": note})
        seg = _segment_name(seg_dir)
        for m in rec.owed:
            if m["kind"] == kind and m["key"].startswith("alarm/"):
                m["subject"] = f"wdg Segment {seg}: Störung (inzwischen behoben) — {KINDS[kind]}"
                m["body"] += f"\nInzwischen behoben: {note}\n"
                return True
        key = f"behoben/{kind}/{day}"
        if any(m["key"] == key for m in rec.owed):
            return True
        rec.owed.append({"key": key, "kind": kind,
                         "subject": f"wdg Segment {seg}: behoben — {KINDS[kind]}",
                         "body": f"Guten Tag,\n\ndie Störung „{KINDS[kind]}“ in Segment {seg} ist "
                                 f"behoben.\n{note}\n\nwdg\n"})
        return True


def note_ok(seg_dir: Path, what: str, *, now: datetime | None = None) -> None:
    """A successful ``fetch`` or ``send`` (for ``wdg mail status``)."""
    stamp = (now or _now()).isoformat(timespec="seconds")
    with _changing(seg_dir) as rec:
        rec.ok[what] = stamp


def set_cursor(seg_dir: Path, folder: str, uid: int) -> None:
    """The highest UID of ``folder`` already looked at (see :mod:`wdg.mail.folders`)."""
    with _changing(seg_dir) as rec:
        rec.cursors[folder] = uid


def _human(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).strftime("%d.%m.%Y %H:%M")
    except ValueError:
        return stamp


def _alarm_body(seg: str, kind: str, text: str, a: Alert) -> str:
    return (f"Guten Tag,\n\nwdg meldet in Segment {seg} "
            + ("Folgendes" if kind in EVENTS else "eine Störung") + ":\n\n"
            f"  {KINDS[kind]}\n  seit {_human(a.since)}\n\n{text}\n\n"
            "Was sie bedeutet und was zu tun ist, steht in docs/gamemaster.md, Abschnitt "
            "„Wenn etwas schiefgeht“; den Stand zeigt 'wdg mail status "
            f"{seg}'. Diese Meldung kommt höchstens einmal am Tag je Art der Störung"
            + ("; weitere Fälle desselben Tages stehen in 'wdg mail status'.\n\nwdg\n"
               if kind in EVENTS else "; wenn sie behoben ist, kommt eine Nachricht.\n\nwdg\n"))


def owed(seg_dir: Path) -> list[dict[str, str]]:
    """The alert mails not sent yet."""
    return list(read(seg_dir).owed) if _path(seg_dir).is_file() else []


def deliver(seg_dir: Path, config: Any, *, session: Any = None,
            holding_lock: bool = False, _again: bool = True) -> list[str]:
    """Send the owed alert mails to the game master (the ``from`` address of
    ``mail.yaml``) through the send record (each key exactly once). Returns the
    keys sent. A failure to send leaves them owed and raises nothing (the call
    that failed to send has said so already); without ``smtp:`` nothing is sent.
    The send record is written under the segment's lock: ``holding_lock`` says the
    caller holds it; else it is taken if free (if not, the next call sends)."""
    if config is None or config.smtp is None:
        return []
    if not owed(seg_dir):
        return []
    if not holding_lock:
        from wdg.store.lock import segment_lock  # lazy: numpy (the store); this module imports without it

        try:
            with segment_lock(seg_dir):
                return deliver(seg_dir, config, session=session, holding_lock=True,
                               _again=_again)
        except LockedError:
            return []
    mails = owed(seg_dir)
    if not mails:
        return []

    to = parseaddr(config.sender)[1]
    if not to:
        return []
    out = []
    for m in mails:
        def build(_correction: bool, m: dict[str, str] = m) -> EmailMessage:
            return _build(config, to, m)

        out.append(Outgoing(key=m["key"], to=to, build=build,
                            sha256=digest(m["subject"].encode(), m["body"].encode()),
                            info={"kind": "alarm"}))
    try:
        ledger = Ledger(seg_dir)
        res = send_mails(ledger, config, out, session=session)
    except (StateError, OSError):
        return []
    done = set(res.sent) | set(res.already) | set(res.corrected) | set(res.changed) \
        | set(res.refused) | set(res.uncertain)
    if done:
        with _changing(seg_dir) as rec:
            rec.owed = [m for m in rec.owed if m["key"] not in done]
    sent = sorted(set(res.sent))
    if sent and not res.failed and _again:
        # the server took mail: a failure of sending is over (told in one more mail)
        ended = [recovered(seg_dir, k) for k in ("smtp", "smtp-anmeldung")]
        if any(ended):
            sent += deliver(seg_dir, config, session=session, holding_lock=True,
                            _again=False)
    return sent


def _build(config: Any, to: str, m: dict[str, str]) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = config.sender
    msg["To"] = to
    msg["Subject"] = m["subject"]
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    domain = to.rpartition("@")[2] or "localhost"
    msg["Message-ID"] = make_msgid("wdg.alarm", domain=domain)
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Wdg-Alarm"] = m["kind"]
    msg.set_content(m["body"])
    return msg


def summary(seg_dir: Path) -> dict[str, Any]:
    """For ``wdg mail status``: active alerts, owed alert mails, the last failures
    and the last successful fetch and send."""
    rec = read(seg_dir)
    return {"active": [a.as_dict() for a in rec.active.values()],
            "owed_alerts": [{"key": m["key"], "subject": m["subject"]} for m in rec.owed],
            "history": rec.history[-10:], "last_ok": dict(rec.ok)}


# --- the outcome of a call, as the mail commands report it -------------------------------

def sending(seg_dir: Path, *, sent: int, failed: dict[str, str],
            error: BaseException | None = None) -> None:
    """Record how a batch of sends went: ``failed`` (key -> why) or ``error`` (the
    connection or login failed before anything went) raise ``smtp`` or
    ``smtp-anmeldung``; a batch that sent something and failed nothing ends both
    and counts as the last successful send."""

    if error is not None or failed:
        kind = "smtp-anmeldung" if isinstance(error, SmtpLoginRefused) else "smtp"
        why = str(error) if error is not None else next(iter(failed.values()), "")
        owed_n = len(failed) or 1
        raise_alert(seg_dir, kind, f"{owed_n} Mail(s) an Spieler nicht gesendet: {why}. "
                    "Sie bleiben fällig; der nächste Aufruf mit funktionierendem Versand "
                    "sendet sie (jede genau einmal).")
        return
    if sent:
        note_ok(seg_dir, "send")
        recovered(seg_dir, "smtp")
        recovered(seg_dir, "smtp-anmeldung")


def imap_failed(seg_dir: Path, error: BaseException, *, after: int = 1) -> None:
    """A fetch that could not read the mailbox: ``imap-anmeldung`` for a refused
    login or a missing password, else ``imap`` — the latter only once ``after``
    calls in a row failed (a server restart between two calls is no alert)."""

    if isinstance(error, ImapLoginRefused):
        raise_alert(seg_dir, "imap-anmeldung", f"{error}. Bis das behoben ist, wird keine "
                    "Mail abgeholt und kein Spielzug beantwortet.")
        return
    with _changing(seg_dir) as rec:
        rec.streak["imap"] = n = rec.streak.get("imap", 0) + 1
    if n >= after:
        raise_alert(seg_dir, "imap", f"{error} ({n} Mal hintereinander). Bis das behoben "
                    "ist, wird keine Mail abgeholt und kein Spielzug beantwortet.")


def stuck(seg_dir: Path, error: BaseException) -> None:
    """A fetch that reached the mailbox but could not take its mail in (a damaged
    record, a full disk …): the mail stays in the inbox, every later call meets it
    again — alert ``abruf``."""
    raise_alert(seg_dir, "abruf", f"{error}. Die Mails bleiben im Posteingang; jeder "
                "weitere Abruf scheitert gleich, bis das behoben ist.")


def fetched(seg_dir: Path) -> None:
    """A fetch that read the mailbox and took its mail in: ends ``imap``,
    ``imap-anmeldung`` and ``abruf``."""
    rec = read(seg_dir) if _path(seg_dir).is_file() else Record()
    if rec.streak.get("imap"):
        with _changing(seg_dir) as r:
            r.streak.pop("imap", None)
    note_ok(seg_dir, "fetch")
    recovered(seg_dir, "imap")
    recovered(seg_dir, "imap-anmeldung")
    recovered(seg_dir, "abruf")
