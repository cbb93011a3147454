"""Sending mail to servers that fail (issue #21): a clear message, what was sent
stays recorded, a retry sends exactly the rest. Every server here listens on
127.0.0.1 and is stopped by the test."""

from __future__ import annotations

import socket
import threading
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from aiosmtpd.controller import Controller

from wdg.errors import StateError
from wdg.reports.mail import MailConfig, send_outbox


def _outbox(d: Path, n: int = 4) -> Path:
    box = d / "outbox"
    box.mkdir()
    for k in range(1, n + 1):
        msg = EmailMessage()
        msg["From"] = "sl@example.org"
        msg["To"] = f"spieler{k}@example.org"
        msg["Subject"] = f"Ergebnisblatt {k}"
        msg["Message-ID"] = f"<wdg.t.0412-04.k{k}@wdg.invalid>"
        msg.set_content(f"Ergebnis {k}\n")
        (box / f"k{k}.eml").write_bytes(msg.as_bytes())
    return box


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Flaky:
    """Accepts ``accept`` mails, then answers 421 and closes (a server going down);
    refuses the recipient ``refuse`` for good (550)."""

    def __init__(self, accept: int = 99, refuse: str = "") -> None:
        self.accept, self.refuse = accept, refuse
        self.got: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        if address == self.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        if len(self.got) >= self.accept:
            return "421 4.3.2 service shutting down"
        self.got.extend(envelope.rcpt_tos)
        return "250 OK"


@pytest.fixture
def server():
    started = []

    def start(handler):
        ctl = Controller(handler, hostname="127.0.0.1", port=_free_port())
        ctl.start()
        started.append(ctl)
        return ctl.port
    yield start
    for ctl in started:
        ctl.stop()


def _sent(box: Path) -> dict:
    return yaml.safe_load((box / "sent.yaml").read_text(encoding="utf-8"))["sent"]


def test_a_server_that_stops_halfway_loses_nothing_and_a_retry_sends_exactly_the_rest(
        tmp_path, server):
    box = _outbox(tmp_path)
    flaky = _Flaky(accept=2)
    cfg = MailConfig("127.0.0.1", server(flaky), starttls=False, sender="sl@example.org")
    with pytest.raises(StateError) as exc:
        send_outbox(box, cfg)
    msg = str(exc.value)
    assert "127.0.0.1" in msg and "2 mail(s) were sent" in msg and "2 not yet sent" in msg
    assert sorted(_sent(box)) == ["k1.eml", "k2.eml"]
    good = _Flaky()
    rep = send_outbox(box, MailConfig("127.0.0.1", server(good), starttls=False,
                                      sender="sl@example.org"))
    assert rep.sent == ["k3.eml", "k4.eml"] and rep.skipped == ["k1.eml", "k2.eml"]
    assert good.got == ["spieler3@example.org", "spieler4@example.org"]
    assert sorted(_sent(box)) == ["k1.eml", "k2.eml", "k3.eml", "k4.eml"]


def test_a_silent_server_times_out_with_a_clear_message(tmp_path):
    """A server that accepts the connection and then says nothing."""
    box = _outbox(tmp_path, 2)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(5)
        try:
            conn, _ = listener.accept()
            held.append(conn)
            stop.wait(10)
        except OSError:
            pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        cfg = MailConfig("127.0.0.1", listener.getsockname()[1], starttls=False, timeout=1.0)
        with pytest.raises(StateError) as exc:
            send_outbox(box, cfg)
        assert "did not answer within 1 s" in str(exc.value)
        assert "0 mail(s) were sent" in str(exc.value)
        assert not (box / "sent.yaml").exists()
    finally:
        stop.set()
        for c in held:
            c.close()
        listener.close()
        t.join(5)


def test_a_server_that_refuses_the_connection_is_a_clear_message(tmp_path):
    box = _outbox(tmp_path, 1)
    cfg = MailConfig("127.0.0.1", _free_port(), starttls=False, timeout=2.0)
    with pytest.raises(StateError, match="connecting to the SMTP server 127.0.0.1"):
        send_outbox(box, cfg)


def test_a_refused_recipient_is_reported_and_the_others_are_sent(tmp_path, server):
    box = _outbox(tmp_path, 3)
    handler = _Flaky(refuse="spieler2@example.org")
    rep = send_outbox(box, MailConfig("127.0.0.1", server(handler), starttls=False))
    assert rep.sent == ["k1.eml", "k3.eml"]
    assert "550" in rep.refused["k2.eml"]
    assert sorted(_sent(box)) == ["k1.eml", "k3.eml"]
