"""Send mails exactly once: the send record (:mod:`wdg.store.sent`) around the
SMTP client (:mod:`wdg.mail.smtp`).

:func:`send_mails` takes a list of :class:`Outgoing` mails, each with a key
naming *which* mail it is (``bericht/0412-04/k3``, ``formular/k3`` ...) and the
digest of *what* it says, and for each decides from the record:

- never sent (or a failed try, or released by the game master): send it;
- accepted before with the same content: skip (``already``);
- accepted before with other content (the month was undone and run again):
  skip and report (``changed``) — unless the caller asks for corrections
  (``corrections=True``), then it goes out as a correction (:attr:`Outgoing.build`
  is called with ``True`` and marks the mail it builds as one);
- outcome unknown (``uncertain``) or refused for good (``refused``): never sent
  on its own; reported.

The intent of a mail is recorded when the whole message is with the server and
only the final ``.`` of DATA is missing (:meth:`wdg.mail.smtp.SmtpSession.send`,
``before_end``): a send killed while connecting or in mid-transfer leaves no
intent — the server accepted nothing — and the next send sends the mail; only a
kill between that record and the server's answer leaves a mail uncertain.

The caller holds the segment's lock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from wdg.errors import StateError
from wdg.mail.config import MailConfig
from wdg.mail.smtp import Accepted, NotSent, SmtpSession, Uncertain, held_signals
from wdg.store.sent import Ledger, OPEN
from wdg.textpolicy import visible


@dataclass(slots=True)
class Outgoing:
    """One mail to send."""

    key: str
    to: str
    build: Callable[[bool], EmailMessage]
    """Builds the message; the flag says whether it goes out as a correction.
    Called only when the mail is actually sent (its Date is the sending time)."""
    sha256: str
    """Digest of the content that makes the mail what it is (not its Date)."""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SendResult:
    """What :func:`send_mails` did, by key."""

    sent: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    """Not sent this time (4xx, connection lost before the end): the next call
    sends them."""

    @property
    def todo_left(self) -> int:
        """Mails that still wait for a later call."""
        return len(self.failed)


def plan(ledger: Ledger, mail: Outgoing, corrections: bool) -> str:
    """What to do with one mail: ``send``, ``correct``, ``already``, ``changed``,
    ``uncertain`` or ``refused``."""
    rec = ledger.latest(mail.key)
    if rec is None:
        return "send"
    if rec.state == OPEN:
        return "uncertain"
    if rec.state == "refused":
        return "refused"
    accepted = [r for r in ledger.records[mail.key] if r.state == "sent"]
    if not accepted:
        return "send"  # failed tries, or released by the game master
    if rec.state == "released":
        return "correct" if accepted[-1].sha256 != mail.sha256 else "send"
    if accepted[-1].sha256 in ("", mail.sha256):  # "": taken over from an old record
        return "already"
    return "correct" if corrections else "changed"


def digest(*parts: bytes) -> str:
    """sha256 over the parts (each length-prefixed)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "big"))
        h.update(p)
    return h.hexdigest()


RECORD_BYTES = 4096
"""What the send record may take per mail (its lines ``intend`` and
``sent``/``failed``: a few hundred bytes each), for the space check."""


def send_mails(ledger: Ledger, config: MailConfig, mails: list[Outgoing], *,
               corrections: bool = False, session: SmtpSession | None = None,
               progress: Callable[[str, str], None] | None = None) -> SendResult:
    """Send what the record says is due, each exactly once (see the module).

    The connection is opened only when something is due. A lost connection
    ends the batch: the mails not yet tried are listed in ``failed`` and the
    next call sends them. Ctrl-C ends it too (after the mail in flight is
    recorded), by raising ``KeyboardInterrupt`` after the record is written."""
    result = SendResult()
    due: list[tuple[Outgoing, bool]] = []
    for m in mails:
        what = plan(ledger, m, corrections)
        if what in ("send", "correct"):
            due.append((m, what == "correct"))
        elif what == "already":
            result.already.append(m.key)
        elif what == "changed":
            result.changed.append(m.key)
        elif what == "uncertain":
            result.uncertain.append(m.key)
        else:
            rec = ledger.latest(m.key)
            result.refused[m.key] = rec.answer if rec else ""
    if not due:
        return result
    if config.smtp is None:
        raise StateError(f"{config.path}: kein SMTP-Server eingerichtet (Abschnitt smtp:); "
                         f"{len(due)} Mail(s) nicht gesendet")
    # the record of every mail handed over must be written: room and a writable
    # folder for it, checked before the first mail leaves (issue #30 item 5)
    from wdg.store.integrity import precheck

    precheck("Versand", (ledger.dir,), space={ledger.dir: RECORD_BYTES * len(due)})
    own = session is None
    sess = session or SmtpSession(config.smtp)
    if own:
        sess.__enter__()
    try:
        for i, (m, correction) in enumerate(due):
            if sess.broken:
                for rest, _ in due[i:]:
                    result.failed[rest.key] = "Verbindung abgebrochen; beim nächsten Aufruf"
                break
            try:
                msg = m.build(correction)
                raw = msg.as_bytes()
            except Exception as exc:  # noqa: BLE001 - one bad mail never stops the others

                result.failed[m.key] = (f"Mail nicht erstellt ({type(exc).__name__}: "
                                        f"{visible(str(exc))[:200]}); die übrigen gehen raus")
                continue

            def record(outcome: Accepted | NotSent | Uncertain, key: str = m.key) -> None:
                if isinstance(outcome, Accepted):
                    ledger.settle(key, "sent", outcome.answer)
                elif isinstance(outcome, NotSent):
                    ledger.settle(key, "refused" if outcome.permanent else "failed",
                                  outcome.answer)
                # Uncertain: the intent stays open — never sent again on its own

            intended: list[bool] = []

            def intend(m: Outgoing = m, msg: EmailMessage = msg, correction: bool = correction,
                       intended: list[bool] = intended) -> None:
                # written when the message is with the server and only its final '.'
                # is missing (the SMTP client holds Ctrl-C/SIGTERM back meanwhile):
                # killed before, no intent stands and the mail is simply sent again
                ledger.intend(m.key, message_id=str(msg["Message-ID"]), to=m.to,
                              sha256=m.sha256, subject=str(msg["Subject"]),
                              correction=correction, **m.info)
                intended.append(True)

            try:
                sess.send(config.sender, m.to, raw, record=record, before_end=intend)
            except NotSent as exc:
                with held_signals():  # refused or failed before the final '.': recorded
                    if not intended:
                        intend()
                    last = ledger.latest(m.key)
                    if last is not None and last.state == OPEN:
                        ledger.settle(m.key, "refused" if exc.permanent else "failed",
                                      exc.answer)
                (result.refused if exc.permanent else result.failed)[m.key] = exc.answer
            except Uncertain:
                result.uncertain.append(m.key)
            except BaseException:
                # Ctrl-C/SIGTERM before the final '.': the server has not accepted it
                # (after it, the outcome is recorded before the interrupt is raised)
                last = ledger.latest(m.key)
                if intended and last is not None and last.state == OPEN and not sess.handed_over:
                    ledger.settle(m.key, "failed", "abgebrochen vor dem Ende der Übertragung")
                raise
            else:
                (result.corrected if correction else result.sent).append(m.key)
                if progress is not None:
                    progress(m.key, m.to)
    finally:
        if own:
            sess.__exit__(None, None, None)
    return result
