"""Mailbox intake: turn a pile of mails into one stored sheet per kingdom.

``import_mailbox`` reads an mbox file or a Maildir and takes the mails **in
the order they arrived**: their order in the mbox file, the delivery time of
Maildir files (the time stamp at the start of the file name, else the file's
modification time). The time a mail arrived — for the deadline — is the
topmost ``Received:`` header's date, else the mbox ``From_`` line or the
Maildir delivery time, else (nothing recorded) the ``Date:`` header; a
``Date:`` more than a day away from the arrival only adds a warning.

Each mail is handled on its own: one that cannot be read is kept in
``quarantine/<segment>/<YYYY-MM>/`` (raw bytes, named by their hash) and named
in the summary with its reason; nothing raised by a mail's content reaches the
caller. The sheet is found in the mail's text parts and ``.txt`` attachments
(:mod:`wdg.orders.mailtext`); several sheets for different kingdoms in one
mail are each handled. Whether a sheet is taken is decided by
:func:`wdg.orders.acceptance.refusals` — the same function ``wdg orders
check`` uses — and by the deadline ("Der Spielzug muß den Segmentleiter bis zu
dem von ihm angegebenen Datum (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags)
erreicht haben"): mails arriving after it are refused.

A taken sheet is stored as ``orders/<segment>/<YYYY-MM>/k<n>.txt`` (UTF-8,
text policy applied) with ``k<n>.receipt.yaml``. The last sheet to arrive is
in force; the one it replaces — a received or a hand-placed one — moves to
the next free ``replaced/k<n>.<i>.txt``. Nothing is deleted or overwritten.
File names come only from the kingdom number, the month and hashes, never
from mail text. Every mail with a usable sender gets a German confirmation
``.eml`` in the outbox. Importing the same mailbox twice stores nothing twice
(mails are recognised by Message-ID, else by the hash of their bytes); a
sheet re-sent in a new mail is a new arrival and is in force again.
"""

from __future__ import annotations

import email
import email.policy
import errno
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, parseaddr
from pathlib import Path

import yaml

from wdg.campaign import Campaign
from wdg.errors import InvalidInputError, StateError, WdgError
from wdg.fsio import german_strerror
from wdg.store import intake as store_intake
from wdg.orders.acceptance import refusals
from wdg.orders.confirm import confirmation, status_word
from wdg.orders.forecast import forecast, forecast_text
from wdg.orders.mailbox import Incoming, iter_mailbox
from wdg.orders.model import Sheet
from wdg.orders.outcome import REFUSED_STATUSES, IntakeReason, IntakeStatus
from wdg.orders.mailtext import header_date, message_id, part_texts, received_date, \
    sender_address
from wdg.orders.parser import code_of, header_match, parse_sheet, redact_passwords, split_lines
from wdg.orders.sheetfile import sheet_verdict
from wdg.orders.verdict import echo, format_diagnostic, ignored_note, summary
from wdg.orders.view import build_view
from wdg.rules import Rules
from wdg.textpolicy import clean_text, german_number, visible
from wdg.world.calendar import MonthDate
from wdg.world.deadline import ZONE_ERRORS, deadline_for, zone_or_utc
from wdg.world.state import Segment

MAX_BYTES = 512_000
"""Default size limit of one mail (bytes); a setting of the import."""
MAX_SHEETS = 10
"""Most sheets read from one mail (a player rarely rules more than two
kingdoms); bounds the work one mail can cause."""


class SheetNotStored(StateError):
    """A sheet the intake accepted could not be stored (a full disk, an I/O
    error): the import stops; the mail is neither answered nor marked as taken."""


ACCEPTED, REPLACED_OLDER, DUPLICATE, REJECTED, QUARANTINED = (
    IntakeStatus.ACCEPTED, IntakeStatus.REPLACED_OLDER, IntakeStatus.DUPLICATE,
    IntakeStatus.REJECTED, IntakeStatus.QUARANTINED)
"""Short names of the :class:`~wdg.orders.outcome.IntakeStatus` members."""


def stored_status(code: object, default: IntakeStatus) -> IntakeStatus:
    """The outcome a receipt or record stored as ``code`` (its value); ``default``
    for a code no version of wdg wrote."""
    try:
        return IntakeStatus(str(code))
    except ValueError:
        return default


@dataclass(slots=True)
class MailResult:
    """What happened to one sheet of one mail (a mail without a usable sheet
    has one result)."""

    status: IntakeStatus
    reason: str
    """German, for the player and the game master (display text)."""
    sender: str
    message_id: str
    date: datetime | None
    kingdom: int | None = None
    stored: Path | None = None
    confirmation: Path | None = None
    arrival: datetime | None = None
    position: int = 0
    notes: list[str] = field(default_factory=list)
    outside: int = 0
    in_force: str = ""
    original: dict | None = None
    """For a mail already stored: its receipt (what the first import decided),
    so that an import interrupted before the confirmation answers as it would have."""
    quarantined: Path | None = None
    received_text: str = field(default="", repr=False)
    """The sheet as received (before the text policy), for the confirmation."""
    parsed: Sheet | None = field(default=None, repr=False)
    """That sheet parsed (a :class:`wdg.orders.model.Sheet`)."""
    no_sheet: bool = False
    """The mail holds no sheet at all (no header line anywhere): not answered
    unless the import is told to (spam, a greeting)."""
    notices: list[Path] = field(default_factory=list)
    """Further mails about this sheet (the address on record told: issue #39)."""
    cause: IntakeReason | None = None
    """The code of ``reason`` where a program acts on it (a late sheet, a
    password problem, a mail of an earlier month); run time only."""


@dataclass(slots=True)
class IntakeReport:
    """All mails of one import and the kingdoms' state afterwards."""

    segment: str
    month: str
    results: list[MailResult] = field(default_factory=list)
    valid: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        """True if any mail was refused or quarantined."""
        return any(r.status in REFUSED_STATUSES for r in self.results)

    def table(self) -> str:
        """The summary table in German; mail text shown with control
        characters escaped."""
        lines = [f"Posteingang Segment {self.segment}, Mond {self.month}",
                 f"{'Absender':32} {'Reich':>5}  {'Ergebnis':16} Grund"]
        for r in self.results:
            k = str(r.kingdom) if r.kingdom else "-"
            sender = visible(r.sender or "(unbrauchbar)")[:32]
            reason = "; ".join(x for x in (r.reason, *r.notes) if x)
            lines.append(f"{sender:32} {k:>5}  {status_word(r.status):16} {visible(reason)}")
        rejected = sorted({r.kingdom for r in self.results if r.status == REJECTED and r.kingdom})
        quarantined = [r for r in self.results if r.quarantined is not None]
        lines.append("")
        lines.append("Gültige Spielzüge: " + (", ".join(map(str, self.valid)) or "keine"))
        lines.append("Fehlende Spielzüge: " + (", ".join(map(str, self.missing)) or "keine"))
        lines.append("Abgelehnte Mails für Königreich: " + (", ".join(map(str, rejected))
                                                           or "keine"))
        lines.append(f"In Quarantäne: {len(quarantined)}"
                     + "".join(f"\n  Mail {r.position}: {r.quarantined}" for r in quarantined))
        return "\n".join(lines) + "\n"


MAX_NESTING = 30
"""Most nested multipart levels a mail may have (a mail client writes 3 or 4);
a deeper mail is answered with a clear reason and kept in quarantine."""


def parse_deadline(text: str, tz: str = "Europe/Berlin") -> datetime:
    """``YYYY-MM-DD HH:MM`` on the game master's clock (time zone ``tz``)."""
    from zoneinfo import ZoneInfo

    try:
        naive = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise InvalidInputError(f"kein Eintreffschluß: {text!r}; erwartet 'JJJJ-MM-TT HH:MM'") from None
    return naive.replace(tzinfo=ZoneInfo(tz))


def import_mailbox(camp: Campaign, seg: Segment, path: Path, *,
                   deadline: datetime | None = None, outbox: Path | None = None,
                   max_bytes: int = MAX_BYTES,
                   sender_address: str = "Segmentleiter <segmentleiter@localhost>",
                   answer_without_sheet: bool = False, decide: Any = None) -> IntakeReport:
    """Import every mail of the mailbox at ``path`` into the segment's month
    folder, in arrival order, one mail in memory at a time (:func:`iter_mailbox`);
    never raises for a mail's content. A sheet the store cannot write (a full
    disk, an I/O error) raises :class:`SheetNotStored`; a link in ``orders/``
    :class:`~wdg.store.edges.LinkRefused`: the import stops there, that mail
    untaken and unanswered. A mail holding no sheet at all (no
    header line: spam, a greeting) gets no confirmation unless
    ``answer_without_sheet``; ``decide``: whom to answer (the mail guard, see
    :class:`Intake`). The caller holds the segment's lock (the intake record is
    written)."""
    intake = Intake(camp, seg, deadline=deadline, outbox=outbox, max_bytes=max_bytes,
                    sender_address=sender_address, answer_without_sheet=answer_without_sheet,
                    decide=decide)
    for mail in iter_mailbox(path, max_bytes):
        intake.take(mail)
    return intake.finish()


class Intake:
    """One import: mails taken one by one (:meth:`take`), then :meth:`finish`
    for the report. Every mail is recorded in the segment's intake record
    (:mod:`wdg.store.seen`, ``worlds/<segment>/mail/seen.yaml``) — ``taking``
    before its sheet is stored, ``taken`` after — so a mail imported once is
    never imported again, in any later month, from any mailbox."""

    def __init__(self, camp: Campaign, seg: Segment, *, deadline: datetime | None = None,
                 outbox: Path | None = None, max_bytes: int = MAX_BYTES,
                 sender_address: str = "Segmentleiter <segmentleiter@localhost>",
                 record: Any = None, answer_without_sheet: bool = False,
                 decide: Any = None) -> None:
        from wdg.store.seen import SeenRecord  # lazy: `wdg --help` and `wdg orders check` import this module

        self.camp, self.seg, self.deadline, self.max_bytes = camp, seg, deadline, max_bytes
        self.sender_address = sender_address
        self.folder = camp.orders_dir(seg.name, seg.date)
        self.outbox = outbox or camp.root / "outbox" / seg.name / seg.date.key
        self.quarantine = camp.root / "quarantine" / seg.name / seg.date.key
        self.report = IntakeReport(seg.name, seg.date.key)
        self.rules = Rules.load(camp.rules_dir)
        self.record = record if record is not None else SeenRecord(camp.segment_dir(seg.name))
        self.answer_without_sheet = answer_without_sheet
        self.decide = decide
        """``decide(key, result, mail)``: whom to answer (:class:`wdg.mail.guard.
        Decision`, :meth:`wdg.mail.guard.Guard.sheet`); ``None``: the sender, always."""
        store_intake.recover_intake(self.folder)  # a sheet's storing an earlier import left half-done

    def earlier(self, key: str) -> str | None:
        """The month (key) in which the mail ``key`` was imported before, if it was
        another month than this one; ``None`` if it is new here."""
        old = self.record.get(key)
        if old is None or old.month == self.seg.date.key:
            return None
        if old.taken:
            return old.month
        # 'taking' without 'taken': an import killed in month old.month. If its sheet was
        # stored there, that month has it (and may have run with it): not again here.
        folder = self.camp.root / "orders" / self.seg.name / old.month
        for rec_path in [*folder.glob("k*.receipt.yaml"), *folder.glob("replaced/k*.receipt.yaml")]:
            try:
                rec = yaml.safe_load(rec_path.read_text(encoding="utf-8")) or {}
            except (OSError, yaml.YAMLError, UnicodeDecodeError):
                continue
            if rec.get("mail") == key or (key.startswith("sha256:") and rec.get("raw") == key[7:]):
                return old.month
        return None

    def take(self, mail: Incoming, answer: bool = True) -> list[MailResult]:
        """Import one mail (see the module); the results are also in the report.
        ``answer=False``: write no confirmation (an automatic mail, RFC 3834)."""
        from wdg.store.seen import mail_key  # lazy: see __init__

        # (a mail over the size limit holds only its first bytes: its key is the
        # hash of the whole mail, taken while it was read)
        mid = _message_id_of(mail.raw)
        key = mail_key(mid, mail.raw) if mid.strip() or not mail.truncated \
            else "sha256:" + mail.digest
        month = self.earlier(key)
        if month is not None:
            msg = _headers_only(mail.raw)
            r = MailResult(DUPLICATE, f"schon im Mond {_month_text(month)} eingelesen; nicht "
                           "noch einmal", sender_address(msg) or "", message_id(msg) or "",
                           header_date(msg), position=mail.position,
                           cause=IntakeReason.EARLIER_MONTH)
            self.report.results.append(r)
            if mail.place:  # the same mail at another place (a copy): remember that too
                self.record.record(key, "taking", month, place=mail.place)
            return [r]
        this = self.seg.date.key
        old = self.record.get(key)
        again = old is not None and old.taken and old.month == this
        if not again:
            self.record.record(key, "taking", this, place=mail.place)
        elif mail.place and old is not None and mail.place not in old.places:
            self.record.record(key, "taking", this, place=mail.place)
        to_store: list[tuple[MailResult, int, str, int, bool]] = []
        try:  # reading and judging the mail (hostile input) — not storing it
            results, to_store = _one(self.seg, mail, self.deadline, self.max_bytes)
        except RecursionError:  # nested deeper than the pre-check saw
            results = [_too_deep(mail, 0)]
        except Exception as exc:  # noqa: BLE001 - a mail's content must never stop the others
            results = [MailResult(QUARANTINED, f"Mail nicht lesbar ({type(exc).__name__})",
                                  _sender_of(mail), "", None, position=mail.position)]
        for r, n, text, part, delivered in to_store:
            # A failure of the store (a full disk, an I/O error, a link in orders/) is
            # the game master's, never the player's: the import stops with it, this
            # mail neither answered nor marked as taken (the next run takes it again).
            try:
                _store(self.folder, n, text, r, mail.digest, part, delivered,
                       tz=self.seg.settings.timezone)
            except OSError as exc:
                raise SheetNotStored(_not_stored(self.folder, r, n, exc)) from exc
        for r in results:
            if r.status == QUARANTINED or (r.status == REJECTED and not r.sender):
                r.quarantined = _quarantine(self.quarantine, mail, r)
            if r.no_sheet and not self.answer_without_sheet:
                r.notes.append("kein Spielzug: nicht beantwortet")
                continue
            if not answer:
                r.notes.append("automatische Mail: nicht beantwortet")
                continue
            to, notices = r.sender, []
            if self.decide is not None:
                d = self.decide(key, r, mail)
                if not d.to:
                    r.notes.append(d.why)
                    continue
                to, notices = d.to, d.notices
                if d.note:
                    r.notes.append(d.note)
            try:
                r.confirmation = _confirm(self.outbox, mail, r, self.sender_address,
                                          self.seg, len(results) > 1, self.rules,
                                          deadline=self.deadline, to=to)
            except Exception as exc:  # noqa: BLE001 - the answer is a courtesy; the sheet is stored
                r.notes.append(f"Bestätigung nicht geschrieben ({_failure(exc)})")
            for i, (nto, subject, body) in enumerate(notices):
                try:
                    r.notices.append(_notice(self.outbox, mail, r, i, nto, subject, body,
                                             self.sender_address))
                except Exception as exc:  # noqa: BLE001 - the notice is a courtesy; the sheet is stored
                    r.notes.append("Hinweis an die hinterlegte Adresse nicht geschrieben "
                                   f"({_failure(exc)})")
        if not again:
            self.record.record(
                key, "taken", this, place=mail.place,
                results=[{"status": r.status.value, "kingdom": r.kingdom, "sender": r.sender,
                          "arrival": r.arrival.isoformat() if r.arrival else None,
                          "no_sheet": r.no_sheet,
                          "answer": _rel(self.camp, r.confirmation),
                          **({"answers": [_rel(self.camp, p) for p in r.notices]}
                             if r.notices else {})} for r in results])
        self.report.results.extend(results)
        return results

    def finish(self) -> IntakeReport:
        """The report, with the kingdoms' valid and missing sheets."""
        report = self.report
        report.valid.clear()
        report.missing.clear()
        for n, k in sorted(self.seg.kingdoms.items()):
            if k.player is None or k.retired:
                continue
            (report.valid if (self.folder / f"k{n}.txt").is_file() else report.missing).append(n)
        return report


def _rel(camp: Campaign, path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return str(path.relative_to(camp.root))
    except ValueError:
        return str(path)


def _failure(exc: BaseException) -> str:
    """An error as a note names it: its kind and text (a full disk:
    ``OSError: [Errno 28] No space left on device: '...'``)."""
    return f"{type(exc).__name__}: {exc}"[:200]


def _month_text(key: str) -> str:
    try:
        return MonthDate.parse(str(key)).short()
    except InvalidInputError:  # a record written by a newer wdg: show it as is
        return str(key)


def _message_id_of(raw: bytes) -> str:
    try:
        return message_id(_headers_only(raw)) or ""
    except Exception:  # noqa: BLE001 - unreadable headers: the mail is known by its bytes
        return ""


def _headers_only(raw: bytes) -> EmailMessage:
    head = raw[:65536]
    return BytesHeaderParser(policy=email.policy.default).parsebytes(head)


def _arrival(msg: EmailMessage, mail: Incoming, tz: str) -> tuple[datetime | None, str]:
    if mail.server_time is not None:
        return mail.server_time, "Server"
    got = received_date(msg)
    if got is not None:
        return got, "Received"
    if mail.delivered is not None:
        when = mail.delivered
        if when.tzinfo is None:
            when = when.replace(tzinfo=zone_or_utc(tz))  # an unknown zone name: read as UTC
        return when, "Postfach"
    return header_date(msg), "Date"


def _not_stored(folder: Path, r: MailResult, n: int, exc: OSError) -> str:
    """The game master's message for a sheet the store could not write: which
    sheet, the file and the system's error (its German word, its code and the C
    library's text), what happened to the mail, what to do."""
    where = exc.filename if exc.filename is not None else f"im Ordner {folder}"
    if exc.filename2 is not None:
        where = f"{where} -> {exc.filename2}"
    code = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    return (f"Einlesen angehalten: der Spielzug für Königreich {n} aus der Mail von "
            f"{visible(r.sender)[:80]} ({visible(r.message_id)[:120] or 'ohne Message-ID'}) "
            f"ist nicht gespeichert — {where}: {german_strerror(exc)} ({code}: "
            f"{exc.strerror or exc}). Die Mail ist weder beantwortet noch als eingelesen "
            "vermerkt; die Mails nach ihr sind nicht gelesen. Beheben Sie die Ursache (bei "
            "vollem Datenträger: Platz freimachen) und rufen Sie den Befehl erneut auf: dann "
            "wird die Mail eingelesen, als käme sie zum ersten Mal.")


def _sender_of(mail: Incoming) -> str:
    """The sender from the headers alone (never raises)."""
    try:
        return sender_address(_headers_only(mail.raw)) or ""
    except Exception:  # noqa: BLE001 - headers that cannot even be read: no sender
        return ""


_BOUNDARY = re.compile(rb"boundary\s*=", re.IGNORECASE)


def _nesting(raw: bytes) -> int:
    """An upper bound of the multipart levels of a mail: every nested
    multipart declares a boundary (counted on the bytes, before parsing)."""
    return len(_BOUNDARY.findall(raw))


def _too_deep(mail: Incoming, levels: int) -> MailResult:
    sender = _sender_of(mail)
    found = f"{german_number(levels)} Ebenen, " if levels else ""
    r = MailResult(QUARANTINED, f"Mail zu tief verschachtelt ({found}erlaubt "
                   f"{MAX_NESTING}): bitte den Spielzug als einfachen Text oder als "
                   ".txt-Anhang senden", sender, "", None, position=mail.position)
    if not sender:
        r.notes.append("keine Bestätigung möglich")
    return r


def _one(seg: Segment, mail: Incoming, deadline: datetime | None, max_bytes: int
         ) -> tuple[list[MailResult], list[tuple[MailResult, int, str, int, bool]]]:
    """Read and judge one mail: its results, and the sheets to store
    ``(result, kingdom, text, part, arrival from the mailbox)`` — stored by
    :meth:`Intake.take`, outside the catch-all for hostile mails."""
    raw = mail.raw
    big = mail.total > max_bytes
    if not big and _nesting(raw) > MAX_NESTING:
        return [_too_deep(mail, _nesting(raw))], []
    msg = _headers_only(raw) if big else email.message_from_bytes(raw, policy=email.policy.default)
    sender = sender_address(msg) or ""
    mid = message_id(msg) or ""
    arrival, source = _arrival(msg, mail, seg.settings.timezone)
    base = MailResult(REJECTED, "", sender, mid, header_date(msg), arrival=arrival,
                      position=mail.position)
    if not sender:
        base.notes.append("keine Bestätigung möglich")
    if not mid and (header_date(msg) is not None or msg.get("Message-ID") is not None):
        if msg.get("Message-ID") is not None:
            base.notes.append("Message-ID unbrauchbar; Antwort ohne In-Reply-To")
    if big:
        base.status = QUARANTINED
        base.reason = f"Mail zu groß ({german_number(mail.total)} Bytes, erlaubt " \
                      f"{german_number(max_bytes)})"
        return [base], []
    if not sender:
        base.reason = "Absender (From:) fehlt oder ist unbrauchbar"
        return [base], []
    if source == "Date":
        base.notes.append("Ankunftszeit unbekannt, Datum des Absenders verwendet")
    elif base.date is not None and arrival is not None and \
            abs(base.date - arrival) > timedelta(days=1):
        base.notes.append("Datum der Mail weicht um mehr als einen Tag von der Ankunft ab")
    texts, html = part_texts(msg)
    sheets = _sheets(texts)
    if not sheets:
        if texts and any(t.strip() for t in texts):
            base.reason = "keine Königreichnummer im Spielzug"
            base.no_sheet = not any(_has_header(t) for t in texts)
        elif html:
            base.reason = "nur HTML: bitte den Spielzug als reinen Text senden"
            base.no_sheet = not _html_has_header(msg)
        else:
            base.reason = "kein Spielzug gefunden"
            base.no_sheet = True
        return [base], []
    out = []
    to_store: list[tuple[MailResult, int, str, int, bool]] = []
    for part, (text, sheet) in enumerate(sheets):
        r = MailResult(REJECTED, "", sender, mid, base.date, arrival=arrival,
                       position=mail.position, notes=list(base.notes), outside=sheet.outside)
        r.kingdom = sheet.kingdom or None
        r.received_text, r.parsed = text, sheet
        out.append(r)
        reasons = refusals(sheet, seg)
        if reasons:
            r.reason = reasons[0].message
            code = reasons[0].code
            r.cause = code if isinstance(code, IntakeReason) else None
            continue
        if deadline is not None and (arrival is None or arrival > deadline):
            r.reason = ("nach dem Eintreffschluß " + deadline.strftime("%d.%m.%Y %H:%M")
                        + f" eingetroffen ({_local(arrival, deadline.tzinfo)})") \
                if arrival else "Ankunftszeit unbekannt; Eintreffschluß nicht prüfbar"
            r.cause = IntakeReason.LATE if arrival else IntakeReason.ARRIVAL_UNKNOWN
            continue
        to_store.append((r, sheet.kingdom, text, part, source != "Date"))
    return out, to_store


def _has_header(text: str) -> bool:
    """True if a line of ``text`` is a sheet's header line (``Königreich:``,
    ``Passwort:`` …): the mail was meant as a sheet."""
    return any(len(line) < 200 and header_match(code_of(line)) for line in split_lines(text))


_TAG = re.compile(r"<[^<>]{0,2000}>")


def _html_has_header(msg: EmailMessage) -> bool:
    """True if an HTML part's text holds a sheet's header line (a sheet sent as HTML)."""
    import html as html_mod

    for part in msg.walk():
        try:
            if part.get_content_type() != "text/html":
                continue
            text = html_mod.unescape(_TAG.sub("\n", str(part.get_content())))
        except Exception:  # noqa: BLE001 - an unreadable part holds no sheet
            continue
        if _has_header(text):
            return True
    return False


def _sheets(texts: list[str]) -> list[tuple[str, Sheet]]:
    """The sheets of a mail's texts — each text may hold several, one after
    the other — as ``(text, parsed sheet)``; only those naming a kingdom,
    the first one per kingdom, at most :data:`MAX_SHEETS` in all; else the
    first text as one sheet (so that its refusal names the reason)."""
    found: list[tuple[str, Sheet]] = []
    kingdoms: set[int] = set()
    first: tuple[str, Sheet] | None = None
    reads = 0
    for text in texts:
        lines = split_lines(text)
        while lines and reads < MAX_SHEETS:
            reads += 1
            chunk = "\n".join(lines) + "\n"
            sheet = parse_sheet(chunk)  # reads up to the next sheet's header only
            nxt = sheet.next_sheet
            if nxt:
                chunk = "\n".join(lines[:nxt - 1]) + "\n"
                sheet = parse_sheet(chunk)
            if first is None and chunk.strip():
                first = (chunk, sheet)
            if sheet.kingdom and sheet.kingdom not in kingdoms:
                kingdoms.add(sheet.kingdom)
                found.append((chunk, sheet))
            lines = lines[nxt - 1:] if nxt else []
    if not found and first is not None:
        return [first] if first[1].password else []
    return found


def _store(folder: Path, n: int, text: str, r: MailResult, mail_sha: str, part: int,
           delivered: bool, tz: str | None = None) -> None:
    text = clean_text(text)
    sha = store_intake.sha_text(text)
    mail_id = r.message_id or mail_sha
    for rpath, rec in store_intake.receipts(folder, n):
        if rec.get("mail") == mail_id and rec.get("part", 0) == part:
            r.status, r.reason = DUPLICATE, "diese Mail ist schon erfaßt"
            r.in_force = _describe(folder / f"k{n}.receipt.yaml", tz)
            r.original = rec
            r.stored = rpath.with_name(rpath.name.replace(".receipt.yaml", ".txt"))
            return
        if "mail" not in rec and (rec.get("sha256") == sha or
                                  (r.message_id and rec.get("message_id") == r.message_id)):
            r.status, r.reason = DUPLICATE, "dieser Spielzug ist schon gespeichert"
            r.in_force = _describe(folder / f"k{n}.receipt.yaml", tz)
            return
    receipt = {"kingdom": n, "sender": r.sender, "date": r.date.isoformat() if r.date else None,
               "arrival": r.arrival.isoformat() if r.arrival else None,
               "arrival_from_mailbox": delivered,
               "message_id": r.message_id, "mail": mail_id, "part": part, "sha256": sha,
               "raw": mail_sha}
    folder.mkdir(parents=True, exist_ok=True)
    current, cur_receipt = folder / f"k{n}.txt", folder / f"k{n}.receipt.yaml"
    replaced = folder / "replaced"
    if current.is_file() and not cur_receipt.is_file() and store_intake.sha_file(current) == sha:
        # This very sheet was stored by an import of an older wdg interrupted
        # before its receipt: complete it (not a hand-placed one to be replaced).
        r.status, r.stored = ACCEPTED, current
        store_intake.commit(folder, [(cur_receipt, store_intake.receipt_text({**receipt, "status": ACCEPTED.value,
                                                       "reason": r.reason}))], [])
        r.in_force = _describe(cur_receipt, tz)
        return
    moves: list[tuple[Path, Path]] = []
    if current.is_file() or cur_receipt.is_file():
        old: dict[str, Any] = {}
        if cur_receipt.is_file():
            try:
                old = yaml.safe_load(cur_receipt.read_text(encoding="utf-8")) or {}
            except (yaml.YAMLError, UnicodeDecodeError):
                old = {}
        replaced.mkdir(exist_ok=True)
        i = store_intake.next_free(replaced, n)
        old_arrival = store_intake.iso_time(old.get("arrival")) if old.get("arrival_from_mailbox") else None
        if delivered and old_arrival is not None and r.arrival is not None \
                and r.arrival < old_arrival:
            r.status, r.stored = REPLACED_OLDER, replaced / f"k{n}.{i}.txt"
            r.reason = "früher eingetroffen als der schon gespeicherte Spielzug; aufbewahrt, " \
                       "gilt nicht"
            r.in_force = _describe(cur_receipt, tz)
            store_intake.write_sheet(folder, replaced / f"k{n}.{i}.txt", replaced / f"k{n}.{i}.receipt.yaml", text,
                   {**receipt, "status": r.status.value, "reason": r.reason, "in_force": r.in_force})
            return
        if current.is_file():
            moves.append((current, replaced / f"k{n}.{i}.txt"))
        if cur_receipt.is_file():
            moves.append((cur_receipt, replaced / f"k{n}.{i}.receipt.yaml"))
        r.reason = f"ersetzt den früheren Spielzug (aufbewahrt als replaced/k{n}.{i}.txt)"
    r.status, r.stored = ACCEPTED, current
    store_intake.write_sheet(folder, current, cur_receipt, text,
           {**receipt, "status": ACCEPTED.value, "reason": r.reason}, moves)
    r.in_force = _describe(cur_receipt, tz)


def _iso(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _local(when: datetime, tz: Any) -> str:
    """A time as the player reads it: in the segment's zone (like the deadline)."""
    if tz is not None and when.tzinfo is not None:
        when = when.astimezone(tz)
    return when.strftime("%d.%m.%Y %H:%M")


def deadline_text(seg: Segment, d: datetime | None = None) -> str:
    """The EINTREFFSCHLUSS ``d`` (default: the month's stored one) as a player reads
    it (``03.12.2026 13:00 (Europe/Berlin)``), or ``""`` when there is none."""
    if d is None:
        d = deadline_for(seg, seg.date)  # None for a stored deadline it cannot read
    if d is None:
        return ""
    zone = getattr(d.tzinfo, "key", None) or seg.settings.timezone
    return f"{d.strftime('%d.%m.%Y %H:%M')} ({zone})"


def _describe(receipt: Path, tz: str | None = None) -> str:
    """Which sheet is in force, as the player reads it (arrival in the segment's
    zone ``tz``, like the deadline)."""
    try:
        rec = yaml.safe_load(receipt.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return "der von Hand abgelegte Spielzug"
    when = _iso(rec.get("arrival")) or _iso(rec.get("date"))
    what = f"der Spielzug aus der Mail {rec.get('message_id') or '(ohne Message-ID)'}"
    if when is not None:
        zone = None
        if tz:
            from zoneinfo import ZoneInfo

            try:
                zone = ZoneInfo(tz)
            except ZONE_ERRORS:  # a bad zone name is reported elsewhere (stored_problem)
                zone = None
        what += f", eingetroffen {_local(when, zone)}" + (f" ({tz})" if zone else "")
    return what + f", Prüfsumme {str(rec.get('sha256', ''))[:12]}"


def _quarantine(folder: Path, mail: Incoming, r: MailResult) -> Path:
    """Keep the raw bytes of a mail that could not be taken, with the reason
    (:func:`wdg.store.intake.keep_quarantined`). Of a mail over the size limit
    only its first :data:`wdg.orders.mailbox.KEEP_BYTES` are kept, with the size and SHA-256 of
    the whole mail in the reason file."""
    note = visible(r.reason) + "\n"
    if mail.truncated:
        note += (f"Aufbewahrt: die ersten {german_number(len(mail.raw))} von "
                 f"{german_number(mail.total)} Bytes; SHA-256 der ganzen Mail: {mail.digest}\n")
    return store_intake.keep_quarantined(folder, mail.digest[:16], note.encode("utf-8"), mail.raw)


def _notice(outbox: Path, mail: Incoming, r: MailResult, i: int, to: str, subject: str,
            body: str, gm: str) -> Path:
    """A further mail about a sheet (the address on record told, issue #39), written
    once into the outbox beside the confirmation."""
    tag = mail.digest[:12]
    path = outbox / f"k{r.kingdom}-{tag}-hinweis{i}.eml"
    if path.is_file():
        return path
    out = EmailMessage()
    out["From"] = gm
    out["To"] = to
    out["Subject"] = subject
    out["Date"] = formatdate(localtime=False, usegmt=True)
    domain = parseaddr(gm)[1].rpartition("@")[2] or "localhost"
    if not re.fullmatch(r"[A-Za-z0-9.-]{1,200}", domain):
        domain = "localhost"
    digest = hashlib.sha256(mail.raw + f"/{r.kingdom}/hinweis{i}".encode()).hexdigest()[:32]
    out["Message-ID"] = f"<wdg.hinweis.{digest}@{domain}>"
    out["Auto-Submitted"] = "auto-generated"  # RFC 3834
    out.set_content(visible(body))
    outbox.mkdir(parents=True, exist_ok=True)
    store_intake.write_new(path, bytes(out))
    return path


def _confirm(outbox: Path, mail: Incoming, r: MailResult, gm: str, seg: Segment,
             several: bool, rules: Rules | None = None,
             deadline: datetime | None = None, to: str | None = None) -> Path | None:
    """Write the confirmation unless this mail was already answered or has
    no usable sender; ``to``: its recipient (default: the sender)."""
    if not r.sender:
        return None
    tag = mail.digest[:12]
    name = f"k{r.kingdom}-{tag}.eml" if r.kingdom else f"unbekannt-{tag}.eml"
    path = outbox / name
    if path.is_file():
        return path
    if (r.status == DUPLICATE and r.original and r.original.get("status")
            and r.original.get("raw") == mail.digest):
        # These very bytes were stored by an import that stopped before answering
        # (a re-sent copy differs in its headers): answer as that import would have.
        r.status = stored_status(r.original["status"], r.status)
        r.reason = str(r.original.get("reason", ""))
        r.in_force = str(r.original.get("in_force", r.in_force))
    verdict = preview = ""
    if r.status in (ACCEPTED, DUPLICATE, REPLACED_OLDER) and r.stored is not None:
        text = r.received_text or r.stored.read_text(encoding="utf-8")
        sheet = r.parsed if r.received_text and r.parsed is not None else parse_sheet(text)
        diags = sheet_verdict(sheet, seg)
        verdict = _verdict(text, diags, sheet.outside_lines)
        if r.status != REPLACED_OLDER and rules is not None:
            preview = _preview(sheet, seg, rules, diags)
    ruler = seg.kingdoms.get(r.kingdom) if r.kingdom else None
    body = confirmation(r.status, r.reason, r.kingdom, verdict, cause=r.cause,
                        in_force=r.in_force,
                        outside=r.outside, notes=r.notes, preview=preview,
                        herrscherin=bool(ruler and ruler.herrscherin),
                        outside_lines=getattr(r.parsed, "outside_lines", None),
                        deadline=deadline_text(seg, deadline))
    out = EmailMessage()
    out["From"] = gm
    out["To"] = to or r.sender
    out["Subject"] = f"Spielzug{' Königreich ' + str(r.kingdom) if r.kingdom else ''}: " \
        f"{status_word(r.status)}"
    # A real Date (when the answer was written; the sender sets it again when it goes
    # out) and a Message-ID of the game master's domain, stable across re-sends.
    out["Date"] = formatdate(localtime=False, usegmt=True)
    out["Message-ID"] = _answer_id(mail.raw, r, gm)
    out["Auto-Submitted"] = "auto-replied"  # RFC 3834: no vacation reply to it, no loops
    if r.message_id:
        from email.errors import MessageError

        try:
            out["In-Reply-To"] = r.message_id
            out["References"] = r.message_id
        except (ValueError, MessageError):  # a reply without In-Reply-To is still a reply
            del out["In-Reply-To"]
            del out["References"]
    out.set_content(visible(body))
    outbox.mkdir(parents=True, exist_ok=True)
    store_intake.write_new(path, bytes(out))
    return path


def _answer_id(raw: bytes, r: MailResult, gm: str) -> str:
    """The confirmation's Message-ID: derived from the mail it answers (so a re-written
    answer keeps it) in the domain of the game master's address."""
    domain = parseaddr(gm)[1].rpartition("@")[2] or "localhost"
    if not re.fullmatch(r"[A-Za-z0-9.-]{1,200}", domain):
        domain = "localhost"
    tag = hashlib.sha256(raw + f"/{r.kingdom}".encode()).hexdigest()[:32]
    return f"<wdg.antwort.{tag}@{domain}>"


def _preview(sheet: Any, seg: Segment, rules: Rules, diags: list[Any]) -> str:
    """The forecast of the sheet in force (:func:`wdg.orders.forecast.forecast` on the
    kingdom's view, with the verdict's diagnostics), for the confirmation's
    "Vorschau"; one line if none can be made."""
    if sheet.kingdom not in seg.kingdoms:
        return ""
    try:
        fc = forecast(build_view(seg, sheet.kingdom), sheet, rules, diagnostics=diags)
    except WdgError as exc:
        return f"Keine Vorschau möglich: {exc}\n"
    return forecast_text(fc, limit=VERDICT_MESSAGES)


VERDICT_LINES = 1000
"""A sheet longer than this is answered with its flagged lines only."""
VERDICT_MESSAGES = 500
"""Most messages a confirmation repeats."""


def _verdict(text: str, diags: list[Any], ignored: list[int] | None = None) -> str:
    """The checker's verdict on a sheet as received (``diags``: the import's
    refusals, the checker's and the text policy's messages), as the player reads
    it: the sheet with each message under its line and the lines outside the
    sheet by number (``ignored``); for a very long sheet only the lines that
    carry a message."""
    shown = redact_passwords(text)  # the reply may reach someone else's mailbox
    lines = split_lines(shown)
    if len(lines) <= VERDICT_LINES and len(diags) <= VERDICT_MESSAGES:
        return echo(shown, diags, ignored)
    out = [f"(Ihr Spielzug hat {german_number(len(lines))} Zeilen; hier nur die Zeilen mit "
           "einer Meldung)"]
    for d in diags[:VERDICT_MESSAGES]:
        if 0 < d.line <= len(lines):
            out.append(f"{d.line:4d}  {lines[d.line - 1][:200]}")
        out.append(f"   >>> {format_diagnostic(d)}")
    if len(diags) > VERDICT_MESSAGES:
        out.append(f"… und {german_number(len(diags) - VERDICT_MESSAGES)} weitere Meldungen")
    if ignored:
        out.append(ignored_note(ignored))
    out.append(summary(diags))
    return visible("\n".join(out) + "\n")
