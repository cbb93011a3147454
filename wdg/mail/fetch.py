"""``wdg mail fetch``: the game master's mailbox in, every sheet answered at once.

:func:`fetch` connects to the IMAP server of ``mail.yaml`` (TLS, certificate
verified), looks at every mail in the inbox and

1. judges each mail by at most :data:`HEADER_BYTES` of its header fields (a
   partial fetch, each field cut before parsing: :func:`capped_headers`) and the
   size the server reports; moves a mail that is **not for the game** (the rule of
   ``imap.accept``, :func:`for_the_game`) to ``imap.foreign_folder`` once judged
   (not marked read; ``""`` leaves it) unless another segment reading the same
   mailbox would take it; leaves the game master's own mail, and a sheet naming
   another segment of the campaign (for that segment's fetch);
2. **imports** each new mail exactly once, across months, with the arrival time
   the server recorded (``INTERNALDATE``): :class:`wdg.orders.intake.Intake`, the
   same import as ``wdg orders import``, records it in the segment's intake record
   ``worlds/<segment>/mail/seen.yaml`` (by Message-ID and by UIDVALIDITY/UID);
   a player's **mail command** (:mod:`wdg.mail.commands`) is answered instead;
   a mail over the size limit is read in pieces, its first bytes kept;
   who is answered at all is the mail guard's decision (:mod:`wdg.mail.guard`:
   no automatic mail, no loops, no mail to strangers, rate limits);
3. **answers** each at once through SMTP, exactly once (the send record
   ``sent.yaml``, :func:`wdg.mail.send.send_mails`): From of ``mail.yaml``, a real
   Date, a Message-ID, In-Reply-To/References of the player's mail;
4. **moves** the mail to ``imap.done_folder`` (``wdg/erledigt``, created if missing).

Steps 3 and 4 follow every :data:`ANSWER_EVERY` mails, so that in a rush the first
players need not wait until the last sheet is checked.

Why a kill at any moment loses nothing and imports nothing twice: the order is
record → store → record → answer → move. The intake record gets ``taking``
before the sheet is stored and ``taken`` after; a mail is moved out of the inbox
only after it is recorded as taken and its answer went through the send record.
Killed before the move, the mail is still in the inbox: the next fetch finds it
recorded (by its place and Message-ID) and only completes what is missing — the
answer (the send record knows whether it went out) and the move. Killed while
storing, the import of the same mail finds its own receipt (the intake is
idempotent by the mail's id). Killed after ``taking`` and before the month was
run and the fetch repeated, the intake looks into that month's folder for the
mail's receipt before taking it into a later month. The send record never sends
a mail twice; a mail whose sending was cut by a kill between the server's "250"
and its record stays *uncertain* and is not sent again on its own (``wdg mail
sent``).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, getaddresses, make_msgid, parseaddr
from typing import Any

from wdg.campaign import Campaign
from wdg.errors import LockedError, StateError, WdgError
from wdg.mail import alerts
from wdg.mail import commands as mail_commands  # called as mail_commands.answer_command: tests replace it
from wdg.mail.commands import command_of
from wdg.mail.config import MailConfig, load_mail_config
from wdg.mail.folders import look_elsewhere
from wdg.mail.guard import Guard, automatic as automatic_why
from wdg.mail.imap import ConnectionLost, ImapError, ImapSession
from wdg.mail.send import Outgoing, digest, plan, send_mails
from wdg.orders.confirm import status_word
from wdg.orders.intake import Intake, MAX_BYTES, MailResult
from wdg.orders.mailbox import Incoming, KEEP_BYTES
from wdg.orders.mailtext import part_texts
from wdg.orders.outcome import IntakeReason, IntakeStatus, REFUSED_STATUSES
from wdg.store.lock import segment_lock
from wdg.store.seen import SeenRecord, mail_key, place
from wdg.store.segment import load_segment
from wdg.store.sent import Ledger
from wdg.textpolicy import visible
from wdg.world.deadline import deadline_for

DEFAULT_SUBJECT = (r"(?i)\b(spielzug|spielzüge|zugblatt|befehle?|befehlsbogen|wdg|"
                   r"welt\s+der\s+g(ö|oe)tter|segment\s*\w*|königreich|koenigreich)\b")
"""Subjects of mail for the game when ``imap.accept`` sets no rule (German)."""

HEADER_FIELDS = ("SUBJECT", "TO", "CC", "DELIVERED-TO", "X-ORIGINAL-TO", "MESSAGE-ID", "FROM",
                 "AUTO-SUBMITTED", "PRECEDENCE", "X-AUTOREPLY", "X-AUTO-RESPONSE-SUPPRESS",
                 "IN-REPLY-TO", "REFERENCES", "LIST-ID", "LIST-UNSUBSCRIBE", "RETURN-PATH",
                 "X-AUTORESPOND", "AUTO-RESPONSE-SUPPRESS", "CONTENT-TYPE")
HEADER_BYTES = 65_536
"""Bytes of a mail's header fields read to judge it (a partial IMAP fetch): the fields
above of a real mail take a few hundred bytes; a Subject folded 200,000 times is cut
here, before anything parses it (issue #39 item 5)."""
FIELD_BYTES = 4_096
"""Bytes of one header field (with its folded lines) kept for the parser: the
fields are read for addresses (a long To: list) and ids (a long References:)."""
SUBJECT_BYTES = 1_024
"""Bytes of the Subject kept: the rules and the commands look at its first words
(a command subject is some 40 characters; :data:`wdg.mail.commands.SUBJECT_CAP`)."""


@dataclass(slots=True)
class FetchReport:
    """What one fetch did."""

    segment: str
    month: str = ""
    results: list[MailResult] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    """Mail commands answered (:mod:`wdg.mail.commands`)."""
    ignored: int = 0
    """Mails left in the inbox: not for the game (or for another segment)."""
    other_segment: dict[str, int] = field(default_factory=dict)
    already: int = 0
    """Mails found recorded by an earlier fetch (a fetch stopped before moving them)."""
    moved: int = 0
    sent: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    uncertain: list[str] = field(default_factory=list)
    refused_answers: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    foreign_moved: int = 0
    """Mails not for the game moved to ``imap.foreign_folder``."""
    alerts: list[str] = field(default_factory=list)
    """Alerts to the game master this fetch raised (:mod:`wdg.mail.guard`)."""
    send_error: BaseException | None = None
    """Why no answer could be sent at all (the SMTP connection or login failed)."""

    @property
    def new(self) -> int:
        """Mails imported (or commands answered) by this fetch."""
        return len({r.position for r in self.results}) + len(self.commands)

    @property
    def refused(self) -> bool:
        """True if some sheet was refused or quarantined."""
        return any(r.status in REFUSED_STATUSES for r in self.results)

    def table(self) -> str:
        """The summary in German."""
        lines = [f"Postfach abgeholt: Segment {self.segment}, Mond {self.month}"]
        if self.results:
            lines.append(f"{'Absender':32} {'Reich':>5}  {'Ergebnis':16} Grund")
            for r in self.results:
                k = str(r.kingdom) if r.kingdom else "-"
                reason = "; ".join(x for x in (r.reason, *r.notes) if x)
                lines.append(f"{visible(r.sender or '(unbrauchbar)')[:32]:32} {k:>5}  "
                             f"{status_word(r.status):16} {visible(reason)}")
        for c in self.commands:
            lines.append(f"{visible(c['sender'])[:32]:32} {c.get('kingdom') or '-':>5}  "
                         f"{'Befehl':16} {visible(c['text'])}")
        lines.append(f"Neue Mails: {self.new}; nicht für das Spiel: {self.ignored}"
                     + (f" (davon in den Ordner für Fremdes verschoben: {self.foreign_moved})"
                        if self.foreign_moved else "")
                     + f"; in den Ordner für Erledigtes verschoben: {self.moved}")
        for name, n in sorted(self.other_segment.items()):
            lines.append(f"Für Segment {name} (dort abholen): {n}")
        if self.already:
            lines.append(f"Schon früher erfaßt (nur noch verschoben/beantwortet): {self.already}")
        lines.append(self.answers_line())
        lines += [f"Hinweis: {n}" for n in self.notes]
        lines += [f"Meldung an den Segmentleiter: {visible(a)}" for a in self.alerts]
        return "\n".join(lines) + "\n"

    def answers_line(self) -> str:
        """One German line on the answers sent."""
        return (f"Antworten gesendet: {len(self.sent)}"
                + (f"; nicht gesendet (der nächste Abruf versucht es wieder): "
                   f"{len(self.failed)}" if self.failed else "")
                + (f"; ungewiss (nicht erneut gesendet, 'wdg mail sent'): "
                   f"{len(self.uncertain)}" if self.uncertain else "")
                + (f"; vom Server abgelehnt: {len(self.refused_answers)}"
                   if self.refused_answers else ""))

    def as_dict(self) -> dict[str, Any]:
        """For ``--json``."""
        return {
            "segment": self.segment, "month": self.month, "new": self.new,
            "ignored": self.ignored, "other_segment": dict(self.other_segment),
            "already": self.already, "moved": self.moved,
            "mails": [{"sender": r.sender, "message_id": r.message_id, "kingdom": r.kingdom,
                       "status": r.status.value, "reason": r.reason, "notes": list(r.notes),
                       "arrival": r.arrival.isoformat() if r.arrival else None}
                      for r in self.results],
            "commands": list(self.commands),
            "answers": {"sent": list(self.sent), "failed": dict(self.failed),
                        "uncertain": list(self.uncertain), "refused": dict(self.refused_answers)},
            "notes": list(self.notes), "foreign_moved": self.foreign_moved,
            "alerts": list(self.alerts),
            "send_error": str(self.send_error) if self.send_error is not None else None,
        }


# --- the rule for "mail for the game" -------------------------------------------------

def for_the_game(head: EmailMessage, accept: dict[str, Any]) -> bool:
    """Whether a mail (its headers) is for the game, by ``imap.accept``:

    - ``to``: an address or a list; the mail is for the game when one of them is
      among To, Cc, Delivered-To, X-Original-To (a plus-address like
      ``sl+wdg@example.org`` makes a clean rule);
    - ``subject``: a regular expression searched in the Subject (case-insensitive);
    - neither: the subject rule :data:`DEFAULT_SUBJECT` (Spielzug, Befehle, WdG,
      Königreich, Segment …) or a mail command's subject.
    A mail command's subject (:mod:`wdg.mail.commands`) counts wherever the
    subject rule applies."""

    subject = header_str(head, "Subject")
    to_rule = accept.get("to")
    subject_rule = accept.get("subject")
    if to_rule:
        wanted = {a.strip().lower() for a in ([to_rule] if isinstance(to_rule, str) else to_rule)
                  if isinstance(a, str)}
        got = {addr.lower() for _, addr in getaddresses(
            [header_str(head, h) for h in ("To", "Cc", "Delivered-To", "X-Original-To")])}
        if wanted & got:
            return True
        if not subject_rule:
            return False
    pattern = subject_rule if isinstance(subject_rule, str) and subject_rule else DEFAULT_SUBJECT
    try:
        if re.search(pattern, subject, re.IGNORECASE):
            return True
    except re.error:
        raise StateError(f"imap.accept.subject: {pattern!r} ist kein gültiger regulärer "
                         "Ausdruck") from None
    return command_of(subject) is not None


def own_mail(head: EmailMessage, config: MailConfig) -> bool:
    """A mail from the game master's own address (``from`` of mail.yaml): his copies,
    the password requests wdg forwards to him — never for the intake (they stay in the
    inbox for him to read), and never answered (no mail loops)."""
    own = parseaddr(config.sender)[1].lower()
    return bool(own) and parseaddr(header_str(head, "From"))[1].lower() == own


def automatic(head: EmailMessage) -> bool:
    """An automatic mail (RFC 3834 ``Auto-Submitted``, a vacation reply, a list's bulk
    mail, a delivery report: :func:`wdg.mail.guard.automatic`): imported like any
    other, but never answered — an answer to an auto-reply is how mail loops start."""

    return bool(automatic_why(head))


_FIELD = re.compile(rb"[^ \t\r\n][^\n]*(?:\n[ \t][^\n]*)*")
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def capped_headers(raw: bytes) -> EmailMessage:
    """Header fields parsed with each field cut at :data:`FIELD_BYTES` (its folded
    lines included), read from the first :data:`HEADER_BYTES` only: parsing costs at
    most the size of the cut fields, whatever the mail holds (one pass of a linear
    pattern: every repetition starts at a line end followed by a blank)."""
    head = raw[:HEADER_BYTES]
    end = _BLANK_LINE.search(head)
    if end is not None:
        head = head[:end.start()]
    fields = b"\n".join(m.group()[:SUBJECT_BYTES if m.group()[:8].lower() == b"subject:"
                                   else FIELD_BYTES] for m in _FIELD.finditer(head))
    return BytesHeaderParser(policy=email.policy.default).parsebytes(fields + b"\n\n")


def check_accept(accept: dict[str, Any], source: str) -> None:
    """Refuse a bad ``imap.accept`` before anything is fetched."""
    unknown = set(accept) - {"to", "subject"}
    if unknown:
        raise StateError(f"{source}: imap.accept kennt {', '.join(sorted(unknown))} nicht; "
                         "erlaubt sind 'to' (Adresse oder Liste) und 'subject' (regulärer "
                         "Ausdruck)")
    if "subject" in accept:
        try:
            re.compile(str(accept["subject"]))
        except re.error as exc:
            raise StateError(f"{source}: imap.accept.subject {accept['subject']!r} ist kein "
                             f"gültiger regulärer Ausdruck ({exc})") from None


def header_str(msg: EmailMessage, name: str) -> str:
    """A header field's text as :mod:`email` decodes it, ``""`` when it is absent
    or unreadable (a broken header is no header). Unlike
    :func:`wdg.orders.mailtext.header_text` it keeps control characters: for
    matching and keys, never for display."""
    try:
        value = msg.get(name)
        return str(value) if value is not None else ""
    except Exception:  # noqa: BLE001 - a broken header is no header
        return ""


_SEGMENT_LINE = re.compile(r"(?im)^[ \t>]*segment[ \t]*:[ \t]*([A-Za-z][A-Za-z0-9_-]{0,39})[ \t]*$")


def named_segment(raw: bytes) -> str | None:
    """The segment a mail's sheet names in its ``Segment:`` line, if any."""

    try:
        texts, _ = part_texts(email.message_from_bytes(raw, policy=email.policy.default))
    except Exception:  # noqa: BLE001 - unreadable: the import quarantines it
        return None
    for text in texts:
        m = _SEGMENT_LINE.search(text)
        if m:
            return m.group(1).lower()
    return None


# --- fetch ------------------------------------------------------------------------------

def mail_config(camp: Campaign, segment: str) -> MailConfig:
    """``mail.yaml`` of the segment with an ``imap`` section, or a clear refusal."""
    seg_dir = camp.segment_dir(segment)
    config = load_mail_config(seg_dir)
    if config is None or config.imap is None:
        raise StateError(f"{seg_dir / 'mail.yaml'}: kein IMAP-Postfach eingerichtet (Abschnitt "
                         "imap: mit host, user, password_env oder password_file; "
                         "docs/gamemaster.md, Mail abholen)")
    check_accept(config.imap.accept, str(config.path))
    answer_policy(config)
    return config


def fetch(camp: Campaign, segment: str, *, config: MailConfig | None = None,
          answer: bool = True, holding_lock: bool = False,
          session: ImapSession | None = None) -> FetchReport:
    """Fetch, import, answer and file away the new mail of ``segment`` (see the module).

    ``holding_lock``: the caller holds the segment's lock (``wdg mail run``); else
    the lock is taken for the import of the new mails only (not while talking to a
    server with nothing to do). ``session``: an open IMAP session to reuse
    (``wdg mail watch``). Raises :class:`StateError` (German) when the server cannot
    be reached or refuses the login or the certificate — nothing was imported then."""
    config = config or mail_config(camp, segment)
    assert config.imap is not None
    report = FetchReport(segment)
    seg_dir = camp.segment_dir(segment)
    try:
        _fetch(camp, segment, config, report, answer=answer, holding_lock=holding_lock,
               session=session)
    except ImapError as exc:
        if session is None:  # wdg mail watch judges its own connection's failures
            alerts.imap_failed(seg_dir, exc, after=IMAP_ALERT_AFTER)
        raise
    except LockedError:
        raise
    except (WdgError, OSError) as exc:
        alerts.stuck(seg_dir, exc)
        raise
    alerts.fetched(seg_dir)
    if report.sent or report.failed or report.send_error is not None:
        alerts.sending(seg_dir, sent=len(report.sent), failed=report.failed,
                       error=report.send_error)
    if not report.failed and report.send_error is None:
        alerts.deliver(seg_dir, config, holding_lock=holding_lock)
    return report


IMAP_ALERT_AFTER = 2
"""Calls of ``wdg mail fetch``/``mail run`` in a row that could not reach the IMAP
server before the game master gets an alert (one failed call may be a restart of
the provider's server; a refused login is told at once)."""


def _fetch(camp: Campaign, segment: str, config: MailConfig, report: FetchReport, *,
           answer: bool, holding_lock: bool, session: ImapSession | None) -> None:
    imap = config.imap
    assert imap is not None
    own = session is None
    box = session or ImapSession(imap)
    if own:
        box.__enter__()
    try:
        # first: the inbox is selected last (below), for the watch's IDLE
        look_elsewhere(box, config, camp.segment_dir(segment), report)
        took = False
        folders = imap.read_folders
        # the inbox last: ``wdg mail watch`` waits (IDLE) on the folder selected last
        for folder in (*folders[1:], folders[0]):
            try:
                took = _fetch_folder(camp, segment, config, box, folder, report, answer,
                                     holding_lock) or took
            except ConnectionLost:
                raise
            except ImapError as exc:
                if folder == imap.mailbox:
                    raise
                report.notes.append(f"Ordner {folder!r} (imap.folders) nicht gelesen: {exc}")
                box.select(imap.mailbox)
        if not took and answer and answers_due(camp, segment, config):
            # answers a stopped fetch left unsent (the mails are filed already)
            if holding_lock:
                answer_pending(camp, segment, config, report)
            else:
                with segment_lock(camp.segment_dir(segment)):
                    answer_pending(camp, segment, config, report)
    finally:
        if own:
            box.__exit__(None, None, None)


def _fetch_folder(camp: Campaign, segment: str, config: MailConfig, box: ImapSession,
                  folder: str, report: FetchReport, answer: bool, holding_lock: bool) -> bool:
    """One folder of ``imap.folders``: its mail for the game taken; True if there was some."""
    imap = config.imap
    assert imap is not None
    uidvalidity = box.select(folder)
    uids = box.uids()
    # each mail judged by a bounded piece of its header fields and its size (issue #39)
    heads = box.summaries(uids, HEADER_FIELDS, HEADER_BYTES) if uids else {}
    rules = _accept_rules(camp, segment, config) if folder == imap.mailbox else []
    candidates = []
    foreign: list[int] = []
    for uid in uids:
        raw_head, size = heads.get(uid, (b"", -1))
        head = capped_headers(raw_head)
        if own_mail(head, config):
            report.ignored += 1  # the game master's own (alerts, copies): for him to read
        elif for_the_game(head, imap.accept):
            candidates.append((uid, head, size))
        else:
            report.ignored += 1
            if folder == imap.mailbox and rules is not None and \
                    not any(for_the_game(head, other) for other in rules):
                foreign.append(uid)
    if foreign and imap.foreign_folder and imap.foreign_folder not in imap.read_folders:
        # judged once: moved out of the inbox, never judged again by a later call
        box.ensure_folder(imap.foreign_folder)
        box.move(foreign, imap.foreign_folder)
        report.foreign_moved += len(foreign)
    if not candidates:
        return False
    if holding_lock:
        _take(camp, segment, config, box, uidvalidity, candidates, report, answer, folder)
    else:
        with segment_lock(camp.segment_dir(segment)):
            _take(camp, segment, config, box, uidvalidity, candidates, report, answer, folder)
    return True


ANSWER_EVERY = 10
"""Mails taken (checked, forecast, recorded) before their answers go out and they are
moved to the done folder. In the rush before the deadline (60 sheets within a minute,
one fetch finds dozens) the first players get their answers after ten sheets' work,
not after all of them; each group keeps the order record → store → record → answer →
move that makes a kill harmless (see the module)."""


def _accept_rules(camp: Campaign, segment: str,
                  config: MailConfig) -> list[dict[str, Any]] | None:
    """The ``imap.accept`` rules of the other segments of the campaign that read the
    same mailbox: a mail one of them takes is not foreign and is not moved away.
    ``None`` when another segment's mail.yaml cannot be read (then nothing is moved:
    its rule is unknown)."""
    imap = config.imap
    assert imap is not None
    out: list[dict[str, Any]] = []
    worlds = camp.segment_dir(segment).parent
    for yaml_path in sorted(worlds.glob("*/mail.yaml")):
        if yaml_path.parent.name == segment:
            continue
        try:
            other = load_mail_config(yaml_path.parent)
        except (WdgError, OSError):  # a broken config there (its own fetch says so):
            return None                 # keep every mail for it
        if other is not None and other.imap is not None and \
                (other.imap.host, other.imap.user, other.imap.mailbox) == \
                (imap.host, imap.user, imap.mailbox):
            out.append(other.imap.accept)
    return out


def _take(camp: Campaign, segment: str, config: MailConfig, box: ImapSession, uidvalidity: int,
          candidates: list[tuple[int, EmailMessage, int]], report: FetchReport, answer: bool,
          folder: str | None = None) -> None:
    imap = config.imap
    assert imap is not None
    seg_dir = camp.segment_dir(segment)
    seg = load_segment(seg_dir)
    report.month = seg.date.key
    record = SeenRecord(seg_dir)
    guard = Guard(seg_dir, seg, config)
    current: dict[str, Any] = {}  # the headers and bytes of the mail being taken
    intake = Intake(camp, seg, deadline=deadline_for(seg, seg.date), sender_address=config.sender,
                    record=record, answer_without_sheet=answer_policy(config)["no_sheet"],
                    decide=lambda key, r, _mail: guard.sheet(key, current["head"], r, "",
                                                             current["raw"]))
    done: list[int] = []

    def settle() -> None:
        """Answer what was taken so far and file it away (see ANSWER_EVERY)."""
        if answer:
            answer_pending(camp, segment, config, report, record=record, month=seg.date.key)
        if done:
            box.ensure_folder(imap.done_folder)
            box.move(done, imap.done_folder)
            report.moved += len(done)
            done.clear()

    for pos, (uid, head, size) in enumerate(candidates, start=1):
        if len(done) >= ANSWER_EVERY:
            settle()
        where = place(imap.user, imap.host, folder or imap.mailbox, uidvalidity, uid)
        known = record.at_place(where)
        if known is not None and known.taken:
            report.already += 1  # recorded by a fetch that stopped before moving it
            done.append(uid)
            continue
        digest = ""
        if size > MAX_BYTES:
            # judged by its size: only its first bytes are read into memory, its hash
            # taken chunk by chunk (a 51 MB mail costs about a megabyte)
            bounded = box.fetch_bounded(uid, size, KEEP_BYTES)
            got, digest = bounded if bounded is not None else (None, "")
        else:
            got = box.fetch(uid)
        if got is None:
            continue  # gone meanwhile (another client moved it)
        other = named_segment(got.raw)
        if other and other != segment and (camp.segment_dir(other) / "segment.yaml").is_file():
            report.other_segment[other] = report.other_segment.get(other, 0) + 1
            report.ignored += 1
            continue
        auto = automatic_why(head)
        command = command_of(header_str(head, "Subject"))
        if command is not None and not digest:
            # a command mail: answered (or refused by the guard) and recorded; a fetch
            # killed while answering finds it recorded as "taking" with its command and
            # answers it now (the intake record keeps "command, not answered")
            key = mail_key(header_str(head, "Message-ID").strip(), got.raw)
            seen = record.get(key)
            if seen is None or not seen.taken:
                record.record(key, "taking", seg.date.key, place=where, command=command)
                try:
                    outcome = mail_commands.answer_command(camp, seg, config, command, got.raw,
                                                           guard=guard, key=key, auto=auto)
                except Exception as exc:  # noqa: BLE001 - one mail never stops the others
                    report.notes.append(
                        f"Befehl »{command}« von {visible(header_str(head, 'From'))[:80]} nicht "
                        f"beantwortet ({type(exc).__name__}: {visible(str(exc))[:200]}); die "
                        "Mail bleibt im Posteingang, der nächste Abruf versucht es wieder")
                    continue
                record.record(key, "taken", seg.date.key, place=where, command=command,
                              results=[{"status": "Befehl", "kingdom": outcome.get("kingdom"),
                                        "sender": outcome.get("sender", ""),
                                        "answers": outcome.get("answers", [])}])
                report.commands.append({**outcome, "command": command})
            else:
                report.already += 1
            done.append(uid)
            continue
        incoming = Incoming(got.raw, pos, server_time=got.internaldate, place=where)
        if digest:
            incoming.size, incoming.sha256, incoming.truncated = size, digest, True
        current["head"], current["raw"] = head, got.raw
        results = intake.take(incoming, answer=not auto)
        if len(results) == 1 and results[0].status is IntakeStatus.DUPLICATE \
                and results[0].confirmation is None \
                and results[0].cause is IntakeReason.EARLIER_MONTH:
            report.already += 1
        report.results.extend(results)
        done.append(uid)
    intake.finish()
    settle()
    report.notes += guard.summary()
    report.alerts += guard.raise_alerts()  # delivered at the end of the fetch (fetch())


# --- answers ---------------------------------------------------------------------------

def answer_pending(camp: Campaign, segment: str, config: MailConfig, report: FetchReport, *,
                    record: Any = None, month: str | None = None) -> None:
    """Send every answer of this month's recorded mails that the send record has not
    seen go out (new ones, and those a stopped fetch or an import without SMTP left):
    each exactly once. The caller holds the segment's lock. Used by :func:`fetch` and
    by ``wdg orders import``."""

    seg_dir = camp.segment_dir(segment)
    if record is None:
        record = SeenRecord(seg_dir)
    if month is None:
        month = load_segment(seg_dir).date.key
    mails = _answers(camp, config, record, month)
    if not mails or config.smtp is None:
        if mails:
            why = (f"{config.path}: kein SMTP-Server eingerichtet (smtp:); die Antwort liegt "
                   "im Ausgang und geht nicht hinaus")
            report.notes.append(f"{config.path}: kein SMTP-Server eingerichtet (smtp:); "
                                f"{len(mails)} Antwort(en) liegen im Ausgang und gehen nicht raus")
            ledger = Ledger(seg_dir)
            report.failed.update({m.key: why for m in mails
                                  if plan(ledger, m, False) in ("send", "correct")})
        return
    ledger = Ledger(seg_dir)
    try:
        res = send_mails(ledger, config, mails)
    except StateError as exc:
        report.notes.append(str(exc))
        report.send_error = exc
        report.failed.update({m.key: str(exc) for m in mails if not ledger.was_sent(m.key)})
        return
    report.sent += res.sent + res.corrected
    report.failed.update(res.failed)
    report.uncertain += res.uncertain
    report.refused_answers.update(res.refused)


def _answers(camp: Campaign, config: MailConfig, record: Any, month: str) -> list[Any]:
    """The answers (outbox files) of the month's recorded mails, as mails to send."""

    policy = answer_policy(config)
    mails: list[Outgoing] = []
    for m in record.taken():
        if m.month != month:
            continue
        for res in m.info.get("results", []):
            if res.get("no_sheet") and not policy["no_sheet"]:
                continue
            for rel in ([res["answer"]] if res.get("answer") else []) + list(res.get("answers", [])):
                path = camp.root / rel
                if not path.is_file():
                    continue
                raw = path.read_bytes()
                head = BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
                to = parseaddr(header_str(head, "To"))[1]
                if not to:
                    continue

                def build(correction: bool, raw: bytes = raw) -> EmailMessage:
                    return _ready(raw, config)

                mails.append(Outgoing(key=f"antwort/{month}/{path.name}", to=to, build=build,
                                      sha256=digest(raw), info={"kind": "antwort"}))
    return mails


def answer_mails(camp: Campaign, config: MailConfig, record: Any, month: str) -> list[Any]:
    """The answers of the month's recorded mails, as mails to send (``wdg mail
    status`` lists those the send record would send)."""
    return _answers(camp, config, record, month)


def answers_due(camp: Campaign, segment: str, config: MailConfig) -> bool:
    """Whether some answer of this month waits to be sent (read without the lock: a
    fetch with no new mail and nothing to send never waits for a running month)."""

    if config.smtp is None:
        return False
    seg_dir = camp.segment_dir(segment)
    record = SeenRecord(seg_dir)
    if not record.mails:
        return False
    mails = _answers(camp, config, record, load_segment(seg_dir).date.key)
    if not mails:
        return False
    ledger = Ledger(seg_dir)
    return any(plan(ledger, m, False) in ("send", "correct") for m in mails)


ANSWER_DEFAULTS = {"no_sheet": False}
"""Issue #30: no confirmation to a sender who sent no sheet at all (spam), unless asked."""


def answer_policy(config: MailConfig) -> dict[str, bool]:
    """``answers:`` of mail.yaml: which mails get an answer. ``no_sheet`` (default
    false): a mail for the game that holds no sheet at all (no header line in any
    text, nor in an HTML-only mail) is filed away unanswered; true: it is answered
    with the reason (``keine Königreichnummer``, ``nur HTML`` …).
    Refused sheets (wrong password, late, another month, unknown segment) are always
    answered — the player must learn that his sheet does not count."""
    data = config.raw.get("answers") or {}
    if not isinstance(data, dict) or set(data) - set(ANSWER_DEFAULTS) or \
            not all(isinstance(v, bool) for v in data.values()):
        raise StateError(f"{config.path}: answers: erwartet z.B. 'answers: {{no_sheet: false}}' "
                         f"(erlaubt: {', '.join(ANSWER_DEFAULTS)}; Werte true/false), gefunden "
                         f"{data!r}")
    return {**ANSWER_DEFAULTS, **data}


def _ready(raw: bytes, config: MailConfig) -> EmailMessage:
    """An answer from the outbox made ready to go: From of mail.yaml, Date = now, a
    Message-ID (kept if the file has one: the same on every try)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    del msg["From"]
    msg["From"] = config.sender
    del msg["Date"]
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    if msg.get("Message-ID") is None:
        domain = parseaddr(config.sender)[1].rpartition("@")[2] or "localhost"
        msg["Message-ID"] = make_msgid("wdg.antwort." + hashlib.sha256(raw).hexdigest()[:16],
                                       domain=domain)
    return msg

