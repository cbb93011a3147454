"""Mail the month's reports to the players: an ``.eml`` outbox and SMTP sending.

For every kingdom with a result sheet, :func:`write_outbox` writes
``reports/<segment>/<YYYY-MM>/outbox/k<n>.eml``: German text body (the text
sheet), attachments: the sheet's PDF, the pre-filled order form, the kingdom
view and the Götterbotschaft PDF. The mails are deterministic (Date is the
month's document date, the Message-ID is derived from segment, month and
kingdom), so writing them twice gives the same bytes.

:func:`send_outbox` sends them over SMTP when the campaign configures a
server: ``worlds/<segment>/mail.yaml`` with ``host``, ``port``, ``starttls``
(true/false), ``user``, ``password_env`` (the *name* of an environment
variable holding the password — never the password itself) and ``from``.
Every sent mail is recorded in ``outbox/sent.yaml`` (message id, recipient,
sha256 of the file) right after the server accepted it, so a second call
sends nothing twice; a changed ``.eml`` (new sha256) is reported, not resent
silently.
"""

from __future__ import annotations

import hashlib
import os
import smtplib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from email.policy import SMTP
from pathlib import Path
from typing import Any

import yaml

from wdg.errors import DataError, StateError
from wdg.rules import safe_load_file
from wdg.world.state import Segment

OUTBOX = "outbox"
SENT = "sent.yaml"
MAIL_FILE = "mail.yaml"


@dataclass(frozen=True, slots=True)
class MailConfig:
    """An SMTP server from ``mail.yaml``."""

    host: str
    port: int = 587
    starttls: bool = True
    user: str = ""
    password_env: str = ""
    sender: str = "segmentleiter@localhost"
    timeout: float = 30.0
    """Seconds to wait for the server at connect and at every reply."""


def load_mail_config(path: Path) -> MailConfig | None:
    """The SMTP configuration in ``path``, or ``None`` when there is no such file."""
    if not path.is_file():
        return None
    data = safe_load_file(path) or {}
    if not isinstance(data, dict) or not isinstance(data.get("host"), str):
        raise DataError(str(path), "host", data.get("host") if isinstance(data, dict) else data,
                        "the SMTP server's host name")
    port = data.get("port", 587)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise DataError(str(path), "port", port, "a port number 1..65535")
    starttls = data.get("starttls", True)
    if not isinstance(starttls, bool):
        raise DataError(str(path), "starttls", starttls, "true or false")
    if "password" in data:
        raise DataError(str(path), "password", "(a password)",
                        "password_env: the name of an environment variable holding it")
    timeout = data.get("timeout", 30)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 600:
        raise DataError(str(path), "timeout", timeout, "seconds to wait for the server, 1..600")
    return MailConfig(data["host"], port, starttls, str(data.get("user", "")),
                      str(data.get("password_env", "")),
                      str(data.get("from", "segmentleiter@localhost")), float(timeout))


def message_id(segment: str, month_key: str, kingdom: int) -> str:
    """The mail's Message-ID, from ids only."""
    return f"<wdg.{segment}.{month_key}.k{kingdom}@wdg.invalid>"


def build_mail(seg: Segment, kingdom: int, month_key: str, month_dir: Path,
               sender: str) -> EmailMessage:
    """One kingdom's mail from the rendered files of its month."""
    kd = seg.kingdoms[kingdom]
    if kd.player is None:
        raise StateError(f"kingdom {kingdom} has no player to mail")
    kdir = month_dir / f"k{kingdom}"
    body = (kdir / "ergebnis.txt").read_text(encoding="utf-8")
    msg = EmailMessage(policy=SMTP)
    msg["From"] = sender
    msg["To"] = kd.player.email
    msg["Subject"] = f"WdG {seg.title or seg.name}: Ergebnisblatt {kd.name} ({month_key})"
    year, month = (int(x) for x in month_key.split("-"))
    # The month's own date (not the clock): the same mail twice is the same bytes.
    msg["Date"] = format_datetime(datetime(max(year, 1), month, 1, tzinfo=timezone.utc))
    msg["Message-ID"] = message_id(seg.name, month_key, kingdom)
    msg.set_content(body, charset="utf-8")
    attach = [(kdir / "ergebnis.pdf", "application", "pdf", f"ergebnis-k{kingdom}-{month_key}.pdf"),
              (kdir / "spielzug.txt", "text", "plain", f"spielzug-k{kingdom}.txt"),
              (kdir / "ansicht.yaml", "application", "yaml", f"ansicht-k{kingdom}.yaml"),
              (month_dir / "goetterbotschaft.pdf", "application", "pdf",
               f"goetterbotschaft-{month_key}.pdf")]
    for path, main, sub, name in attach:
        if not path.is_file():
            raise StateError(f"missing {path}; render the month first with 'wdg reports render'")
        if main == "text":
            msg.add_attachment(path.read_text(encoding="utf-8"), subtype=sub, filename=name,
                               charset="utf-8")
        else:
            msg.add_attachment(path.read_bytes(), maintype=main, subtype=sub, filename=name)
    # The generator's default boundary is random: derive it from the content instead,
    # so the same month writes the same bytes (and a second 'send' sees no change).
    # '=_' cannot occur in base64 or quoted-printable parts, nor in this plain header text.
    digest = hashlib.sha256(b"".join(part.as_bytes() for part in msg.iter_parts())).hexdigest()
    msg.set_boundary(f"=_wdg_{digest[:32]}")
    return msg


def write_outbox(seg: Segment, kingdoms: list[int], month_key: str, month_dir: Path,
                 sender: str) -> list[Path]:
    """Write ``outbox/k<n>.eml`` for every kingdom; returns the files."""
    box = month_dir / OUTBOX
    box.mkdir(parents=True, exist_ok=True)
    out = []
    for k in kingdoms:
        path = box / f"k{k}.eml"
        path.write_bytes(build_mail(seg, k, month_key, month_dir, sender).as_bytes())
        out.append(path)
    return out


@dataclass(slots=True)
class SendReport:
    """What a send did."""

    sent: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    """Mails already sent whose file has changed since (not resent)."""
    refused: dict[str, str] = field(default_factory=dict)
    """Mails the server refused for good (bad recipient ...): file -> its answer."""


def _load_sent(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    data = safe_load_file(path) or {}
    return dict(data.get("sent", {})) if isinstance(data, dict) else {}


def _save_sent(path: Path, sent: dict[str, dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump({"sent": dict(sorted(sent.items()))}, allow_unicode=True,
                                  sort_keys=False), encoding="utf-8")
    os.replace(tmp, path)


def send_outbox(box: Path, config: MailConfig, *, timeout: float | None = None,
                resend_changed: bool = False) -> SendReport:
    """Send every ``k<n>.eml`` of ``box`` not yet recorded in ``sent.yaml``.

    Each mail is recorded right after the server accepted it, so a failure
    part-way (a server that drops the connection or goes silent: ``timeout``
    seconds, default the configuration's, at connect and at every reply) loses
    nothing: the error says how many were sent, and the next call sends exactly
    the rest. A mail the server refuses for good (its recipient, 5xx) is
    reported in ``refused`` and the others go on.

    A mail recorded as sent whose file has changed since (the month was undone
    and run again) is reported in ``changed``; with ``resend_changed`` it is sent
    again under a new Message-ID (the old one plus the new content's hash, so
    the player's mail program does not discard it as a duplicate)."""
    import email

    wait = config.timeout if timeout is None else timeout
    record_path = box / SENT
    sent = _load_sent(record_path)
    report = SendReport()
    todo = []
    for path in sorted(box.glob("k*.eml"), key=lambda p: int(p.stem[1:]) if p.stem[1:].isdigit() else 0):
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if path.name in sent:
            if sent[path.name].get("sha256") == digest:
                report.skipped.append(path.name)
                continue
            if not resend_changed:
                report.changed.append(path.name)
                continue
        todo.append((path, raw, digest))
    if not todo:
        return report
    password = ""
    if config.password_env:
        password = os.environ.get(config.password_env, "")
        if not password:
            raise StateError(f"the SMTP password is expected in the environment variable "
                             f"{config.password_env!r}, which is empty or not set")
    server = f"{config.host}:{config.port}"
    stage = "connecting to"
    try:
        with smtplib.SMTP(config.host, config.port, timeout=wait) as smtp:
            if config.starttls:
                stage = "starting TLS with"
                smtp.starttls()
            if config.user:
                stage = "logging in to"
                smtp.login(config.user, password)
            for path, raw, digest in todo:
                msg = email.message_from_bytes(raw, policy=SMTP)
                if path.name in sent:  # a changed mail sent again: a new Message-ID
                    msg.replace_header("Message-ID", str(msg["Message-ID"]).replace("@", f".{digest[:12]}@", 1))
                    raw = msg.as_bytes()
                to = str(msg["To"])
                stage = f"sending {path.name} to"
                try:
                    smtp.sendmail(config.sender, [to], raw)
                except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError,
                        smtplib.SMTPSenderRefused) as exc:
                    code = getattr(exc, "smtp_code", None)
                    if isinstance(exc, smtplib.SMTPRecipientsRefused):
                        code, answer = next(iter(exc.recipients.values()), (None, b""))
                        text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else str(answer)
                    else:
                        text = str(getattr(exc, "smtp_error", exc))
                    if code is not None and 500 <= int(code) < 600:
                        report.refused[path.name] = f"{code} {text}".strip()
                        continue  # refused for good: the others go on
                    raise
                sent[path.name] = {"message_id": str(msg["Message-ID"]), "to": to, "sha256": digest}
                _save_sent(record_path, sent)
                report.sent.append(path.name)
    except (OSError, smtplib.SMTPException) as exc:
        left = len(todo) - len(report.sent) - len(report.refused)
        # smtplib reports a read timeout as "Connection unexpectedly closed: timed out"
        silent = isinstance(exc, TimeoutError) or "timed out" in str(exc)
        why = (f"did not answer within {wait:g} s" if silent
               else f"failed: {type(exc).__name__}: {exc}".rstrip(": "))
        raise StateError(
            f"{stage} the SMTP server {server}: {why}. {len(report.sent)} mail(s) were sent in "
            f"this call and are recorded in {record_path}; {left} not yet sent. Run "
            "'wdg reports send' again later: it sends exactly the rest") from None
    return report
