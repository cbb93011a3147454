"""Mailbox intake: turn a pile of mails into one stored sheet per kingdom.

``import_mailbox`` reads an mbox file or a Maildir, finds the sheet in each
mail (the body or a ``text/plain`` attachment, any charset), identifies the
kingdom and checks the password against the stored salted hash
(:func:`wdg.world.passwords.verify_password`, constant time). A valid sheet is
stored as ``orders/<segment>/<YYYY-MM>/k<n>.txt`` with a receipt
``k<n>.receipt.yaml`` (sender, Date, Message-ID, sha256). File names come only
from the kingdom number and the month, never from mail text.

"Der Spielzug muß den Segmentleiter bis zu dem von ihm angegebenen Datum
(EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben": mails dated after
the deadline are rejected. The newest valid sheet before the deadline wins;
earlier ones move to ``replaced/k<n>.<i>.txt`` and are never deleted.
Rejected mails (wrong or missing password, unknown kingdom, wrong segment,
a ``Mond:`` other than the segment's month, late, no sheet, HTML only, too
large) overwrite nothing. Every mail gets a
German confirmation ``.eml`` in the outbox. Importing the same mailbox twice
stores nothing twice (mails are recognised by Message-ID and sha256).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import mailbox
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import parseaddr, parsedate_to_datetime
from pathlib import Path

import yaml

from wdg.campaign import Campaign
from wdg.errors import InvalidInputError
from wdg.orders.checker import check_sheet
from wdg.orders.confirm import confirmation
from wdg.orders.model import Sheet
from wdg.orders.parser import decode, parse_sheet, redact_passwords
from wdg.orders.render import echo
from wdg.orders.view import build_view
from wdg.world.passwords import verify_password
from wdg.world.state import Segment

MAX_BYTES = 512_000
"""Default size limit of one mail (bytes); a setting of the import."""

ACCEPTED, REPLACED_OLDER, DUPLICATE, REJECTED = "angenommen", "älter", "bereits erfasst", \
    "abgelehnt"


@dataclass(slots=True)
class MailResult:
    """What happened to one mail."""

    status: str
    reason: str
    sender: str
    message_id: str
    date: datetime | None
    kingdom: int | None = None
    stored: Path | None = None
    confirmation: Path | None = None


@dataclass(slots=True)
class IntakeReport:
    """All mails of one import and the kingdoms' state afterwards."""

    segment: str
    month: str
    results: list[MailResult] = field(default_factory=list)
    valid: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)

    def table(self) -> str:
        """The summary table in German."""
        lines = [f"Posteingang Segment {self.segment}, Mond {self.month}",
                 f"{'Absender':32} {'Reich':>5}  {'Ergebnis':16} Grund"]
        for r in self.results:
            k = str(r.kingdom) if r.kingdom else "-"
            lines.append(f"{r.sender[:32]:32} {k:>5}  {r.status:16} {r.reason}")
        rejected = sorted({r.kingdom for r in self.results if r.status == REJECTED and r.kingdom})
        lines.append("")
        lines.append("Gültige Spielzüge: " + (", ".join(map(str, self.valid)) or "keine"))
        lines.append("Fehlende Spielzüge: " + (", ".join(map(str, self.missing)) or "keine"))
        lines.append("Abgelehnte Mails für Königreich: " + (", ".join(map(str, rejected))
                                                           or "keine"))
        return "\n".join(lines) + "\n"


def parse_deadline(text: str, tz: str = "Europe/Berlin") -> datetime:
    """``YYYY-MM-DD HH:MM`` on the game master's clock (time zone ``tz``)."""
    from zoneinfo import ZoneInfo

    try:
        naive = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise InvalidInputError(f"not a deadline: {text!r}; expected 'YYYY-MM-DD HH:MM'") from None
    return naive.replace(tzinfo=ZoneInfo(tz))


def read_mailbox(path: Path) -> list[bytes]:
    """The raw mails of an mbox file or a Maildir directory."""
    if path.is_dir():
        box: mailbox.Mailbox = mailbox.Maildir(str(path), factory=None, create=False)
    elif path.is_file():
        box = mailbox.mbox(str(path), create=False)
    else:
        raise InvalidInputError(f"no mailbox at {str(path)!r}; expected an mbox file or a Maildir")
    try:
        return [box.get_bytes(key) for key in sorted(box.keys())]
    finally:
        box.close()


def import_mailbox(camp: Campaign, seg: Segment, path: Path, *,
                   deadline: datetime | None = None, outbox: Path | None = None,
                   max_bytes: int = MAX_BYTES,
                   sender_address: str = "Segmentleiter <segmentleiter@localhost>") -> IntakeReport:
    """Import every mail of the mailbox at ``path`` into the segment's month folder."""
    folder = camp.orders_dir(seg.name, seg.date)
    outbox = outbox or camp.root / "outbox" / seg.name / seg.date.key
    report = IntakeReport(seg.name, seg.date.key)
    mails = [(raw, email.message_from_bytes(raw, policy=email.policy.default))
             for raw in read_mailbox(path)]
    mails.sort(key=lambda rm: (_date(rm[1]) or datetime.min.astimezone(), str(rm[1]["Message-ID"])))
    for raw, msg in mails:
        r = _one(seg, folder, raw, msg, deadline, max_bytes)
        r.confirmation = _confirm(outbox, raw, r, sender_address, seg)
        report.results.append(r)
    for n, k in sorted(seg.kingdoms.items()):
        if k.player is None or k.retired:
            continue
        (report.valid if (folder / f"k{n}.txt").is_file() else report.missing).append(n)
    return report


def _date(msg: EmailMessage) -> datetime | None:
    try:
        d = parsedate_to_datetime(str(msg["Date"])) if msg["Date"] else None
    except (TypeError, ValueError):
        return None
    if d is not None and d.tzinfo is None:
        d = d.astimezone()
    return d


def _one(seg: Segment, folder: Path, raw: bytes, msg: EmailMessage,
         deadline: datetime | None, max_bytes: int) -> MailResult:
    sender = parseaddr(str(msg["From"] or ""))[1]
    r = MailResult(REJECTED, "", sender, str(msg["Message-ID"] or "").strip(), _date(msg))
    if len(raw) > max_bytes:
        r.reason = f"Mail zu groß ({len(raw)} Bytes, erlaubt {max_bytes})"
        return r
    text, why = extract_sheet(msg)
    if text is None:
        r.reason = why
        return r
    sheet = parse_sheet(text)
    r.kingdom = sheet.kingdom or None
    k = seg.kingdoms.get(sheet.kingdom)
    if k is None or k.player is None:
        r.reason = f"unbekanntes Königreich {sheet.kingdom}" if sheet.kingdom \
            else "keine Königreichnummer im Spielzug"
        return r
    if sheet.segment and sheet.segment != seg.name:
        r.reason = f"falsches Segment {sheet.segment!r}"
        return r
    if sheet.month is not None and sheet.month != seg.date:
        # the month's run would refuse it (wdg.engine.intake): say so now, not "angenommen"
        r.reason = f"Spielzug für den Mond {sheet.month.short()}, angenommen wird {seg.date.short()}"
        return r
    if not sheet.password:
        r.reason = "Passwort fehlt"
        return r
    if not verify_password(sheet.password, k.player.password_hash):
        r.reason = "falsches Passwort"
        return r
    if deadline is not None and (r.date is None or r.date > deadline):
        r.reason = "nach dem Eintreffschluß " + deadline.strftime("%d.%m.%Y %H:%M") \
            if r.date else "Mail ohne Datum; Eintreffschluß nicht prüfbar"
        return r
    _store(folder, sheet.kingdom, text, r)
    return r


def extract_sheet(msg: EmailMessage) -> tuple[str | None, str]:
    """The sheet text of a mail (first ``text/plain`` part naming a kingdom,
    else the first ``text/plain`` part) or ``None`` and the reason."""
    plains: list[str] = []
    html = False
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain":
            payload = part.get_payload(decode=True) or b""
            charset = part.get_content_charset()
            try:
                plains.append(payload.decode(charset) if charset else decode(payload))
            except (LookupError, UnicodeDecodeError):
                plains.append(decode(payload))
        elif ctype == "text/html":
            html = True
    for text in plains:
        if parse_sheet(text).kingdom:
            return text, ""
    if plains and any(t.strip() for t in plains):
        return plains[0], ""
    if html:
        return None, "nur HTML: bitte den Spielzug als reinen Text senden"
    return None, "kein Spielzug gefunden"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _receipts(folder: Path, n: int) -> list[tuple[Path, dict]]:
    paths = [folder / f"k{n}.receipt.yaml", *sorted((folder / "replaced").glob(f"k{n}.*.receipt.yaml"))]
    out = []
    for p in paths:
        if p.is_file():
            out.append((p, yaml.safe_load(p.read_text(encoding="utf-8")) or {}))
    return out


def _store(folder: Path, n: int, text: str, r: MailResult) -> None:
    sha = _sha(text)
    for _, rec in _receipts(folder, n):
        if rec.get("sha256") == sha or (r.message_id and rec.get("message_id") == r.message_id):
            r.status, r.reason = DUPLICATE, "dieser Spielzug ist schon gespeichert"
            return
    receipt = {"kingdom": n, "sender": r.sender, "date": r.date.isoformat() if r.date else None,
               "message_id": r.message_id, "sha256": sha}
    folder.mkdir(parents=True, exist_ok=True)
    current, cur_receipt = folder / f"k{n}.txt", folder / f"k{n}.receipt.yaml"
    replaced = folder / "replaced"
    if current.is_file():
        old = yaml.safe_load(cur_receipt.read_text(encoding="utf-8")) if cur_receipt.is_file() \
            else {}
        old_date = datetime.fromisoformat(old["date"]) if old and old.get("date") else None
        replaced.mkdir(exist_ok=True)
        i = 1 + len(list(replaced.glob(f"k{n}.*.receipt.yaml")))
        if old_date is not None and r.date is not None and r.date < old_date:
            _write(replaced / f"k{n}.{i}.txt", replaced / f"k{n}.{i}.receipt.yaml", text, receipt)
            r.status, r.stored = REPLACED_OLDER, replaced / f"k{n}.{i}.txt"
            r.reason = "älter als der schon gespeicherte Spielzug; aufbewahrt, gilt nicht"
            return
        current.rename(replaced / f"k{n}.{i}.txt")
        if cur_receipt.is_file():
            cur_receipt.rename(replaced / f"k{n}.{i}.receipt.yaml")
        r.reason = "ersetzt den früheren Spielzug"
    _write(current, cur_receipt, text, receipt)
    r.status, r.stored = ACCEPTED, current


def _write(sheet: Path, receipt: Path, text: str, data: dict) -> None:
    sheet.write_text(text, encoding="utf-8")
    receipt.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                       encoding="utf-8")


def _confirm(outbox: Path, raw: bytes, r: MailResult, gm: str, seg: Segment) -> Path:
    """Write the confirmation unless this mail was already answered."""
    tag = hashlib.sha256(raw).hexdigest()[:12]
    name = f"k{r.kingdom}-{tag}.eml" if r.kingdom else f"unbekannt-{tag}.eml"
    path = outbox / name
    if path.is_file():
        return path
    verdict = ""
    if r.status in (ACCEPTED, DUPLICATE, REPLACED_OLDER) and r.stored is not None:
        verdict = _verdict(r.stored, seg)
    body = confirmation(r.status, r.reason, r.kingdom, verdict)
    out = EmailMessage()
    out["From"] = gm
    out["To"] = r.sender or "unbekannt@localhost"
    out["Subject"] = f"Spielzug{' Königreich ' + str(r.kingdom) if r.kingdom else ''}: {r.status}"
    if r.message_id:
        out["In-Reply-To"] = r.message_id
    out.set_content(body)
    outbox.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def _verdict(stored: Path, seg: Segment) -> str:
    """The checker's verdict on a stored sheet, as the player reads it."""
    text = stored.read_text(encoding="utf-8")
    sheet: Sheet = parse_sheet(text)
    shown = redact_passwords(text)  # the reply may reach someone else's mailbox
    if sheet.kingdom not in seg.kingdoms:
        return echo(shown, sheet.diagnostics)
    return echo(shown, check_sheet(sheet, build_view(seg, sheet.kingdom)))
