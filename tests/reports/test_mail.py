"""Mail to the players: the .eml outbox and SMTP sending to a real local server."""

from __future__ import annotations

import email
import socket
from email.policy import default

import pytest
from aiosmtpd.controller import Controller

from wdg.reports.batch import render_reports
from wdg.reports.mail import MailConfig, send_outbox, write_outbox


class _Sink:
    def __init__(self) -> None:
        self.mails: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        self.mails.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp():
    sink = _Sink()
    ctl = Controller(sink, hostname="127.0.0.1", port=_free_port())
    ctl.start()
    yield sink, ctl.port
    ctl.stop()


def test_the_sender_delivers_each_kingdoms_mail_once_to_a_real_smtp_server(tmp_path, month, settings,
                                                                           smtp):
    sink, port = smtp
    before, after, events, sheets = month
    render_reports(before, after, events, sheets, None, tmp_path, settings=settings)
    files = write_outbox(after, [1, 2], "0412-04", tmp_path, "sl@example.org")
    assert [f.name for f in files] == ["k1.eml", "k2.eml"]
    first_bytes = files[0].read_bytes()
    again = write_outbox(after, [1], "0412-04", tmp_path, "sl@example.org")
    assert again[0].read_bytes() == first_bytes  # deterministic mails (MIME boundary too)

    cfg = MailConfig("127.0.0.1", port, starttls=False, sender="sl@example.org")
    first = send_outbox(tmp_path / "outbox", cfg)
    assert first.sent == ["k1.eml", "k2.eml"] and len(sink.mails) == 2
    frm, to, raw = sink.mails[0]
    msg = email.message_from_bytes(raw, policy=default)
    assert to == [after.kingdoms[1].player.email]
    assert "ERGEBNISBLATT" in msg.get_body(("plain",)).get_content()
    names = sorted(p.get_filename() for p in msg.iter_attachments())
    assert names == ["ansicht-k1.yaml", "ergebnis-k1-0412-04.pdf", "goetterbotschaft-0412-04.pdf",
                     "spielzug-k1.txt"]

    second = send_outbox(tmp_path / "outbox", cfg)
    assert second.sent == [] and second.skipped == ["k1.eml", "k2.eml"]
    assert len(sink.mails) == 2
    assert "sha256" in (tmp_path / "outbox" / "sent.yaml").read_text(encoding="utf-8")


def test_a_changed_mail_is_reported_and_resent_only_when_asked(tmp_path, month, settings, smtp):
    """After 'wdg turn undo' and a new run a kingdom's mail changes: a plain send
    reports it; --resend-changed sends it again under a new Message-ID, once."""
    sink, port = smtp
    before, after, events, sheets = month
    render_reports(before, after, events, sheets, None, tmp_path, settings=settings)
    write_outbox(after, [1, 2], "0412-04", tmp_path, "sl@example.org")
    cfg = MailConfig("127.0.0.1", port, starttls=False, sender="sl@example.org")
    send_outbox(tmp_path / "outbox", cfg)
    sheet = tmp_path / "k2" / "ergebnis.txt"
    sheet.write_text(sheet.read_text(encoding="utf-8") + "Berichtigt.\n", encoding="utf-8")
    write_outbox(after, [1, 2], "0412-04", tmp_path, "sl@example.org")

    plain = send_outbox(tmp_path / "outbox", cfg)
    assert plain.sent == [] and plain.changed == ["k2.eml"] and len(sink.mails) == 2
    again = send_outbox(tmp_path / "outbox", cfg, resend_changed=True)
    assert again.sent == ["k2.eml"] and again.skipped == ["k1.eml"] and len(sink.mails) == 3
    first_id = email.message_from_bytes(sink.mails[1][2], policy=default)["Message-ID"]
    resent = email.message_from_bytes(sink.mails[2][2], policy=default)
    assert resent["Message-ID"] != first_id and "Berichtigt." in resent.get_body(("plain",)).get_content()
    assert send_outbox(tmp_path / "outbox", cfg, resend_changed=True).sent == []
