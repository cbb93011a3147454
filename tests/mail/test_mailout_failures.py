"""Sending mail to servers that fail (issues #21, #34): a clear German message,
what was sent stays recorded, a retry sends exactly the rest, nothing twice.
Every server here listens on 127.0.0.1 and is stopped by the test (aiosmtpd:
servers that misbehave on purpose, which Postfix cannot be made to do)."""

from __future__ import annotations

import socket
import threading
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from wdg.errors import StateError
from wdg.mail.config import load_mail_config
from wdg.store.sent import Ledger
from wdg.mail.send import Outgoing, digest, send_mails


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mails(n: int = 4) -> list[Outgoing]:
    def build(k: int):
        def make(correction: bool) -> EmailMessage:
            msg = EmailMessage()
            msg["From"] = "sl@example.org"
            msg["To"] = f"spieler{k}@example.org"
            msg["Subject"] = f"Ergebnisblatt {k}"
            msg["Message-ID"] = f"<t.0412-04.k{k}@example.org>"
            msg.set_content(f"Ergebnis {k}\n")
            return msg
        return make
    return [Outgoing(f"bericht/0412-04/k{k}", f"spieler{k}@example.org", build(k),
                     digest(f"Ergebnis {k}".encode())) for k in range(1, n + 1)]


def _config(seg: Path, port: int, timeout: float = 5) -> object:
    seg.mkdir(parents=True, exist_ok=True)
    (seg / "mail.yaml").write_text(f"from: sl@example.org\nsmtp: {{host: 127.0.0.1, port: "
                                   f"{port}, security: plain, timeout: {timeout}}}\n")
    return load_mail_config(seg)


class _Flaky:
    """Accepts ``accept`` mails, then answers 421 and closes (a server going down);
    refuses the recipient ``refuse`` for good (550)."""

    def __init__(self, accept: int = 99, refuse: str = "") -> None:
        self.accept, self.refuse = accept, refuse
        self.got: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address == self.refuse:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
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


def test_a_server_that_stops_halfway_loses_nothing_and_a_retry_sends_exactly_the_rest(
        tmp_path, server):
    flaky = _Flaky(accept=2)
    cfg = _config(tmp_path, server(flaky))
    rep = send_mails(Ledger(tmp_path), cfg, _mails())
    assert rep.sent == ["bericht/0412-04/k1", "bericht/0412-04/k2"]
    assert sorted(rep.failed) == ["bericht/0412-04/k3", "bericht/0412-04/k4"]
    assert "421" in rep.failed["bericht/0412-04/k3"]
    good = _Flaky()
    cfg = _config(tmp_path, server(good))
    rep = send_mails(Ledger(tmp_path), cfg, _mails())
    assert rep.sent == ["bericht/0412-04/k3", "bericht/0412-04/k4"]
    assert rep.already == ["bericht/0412-04/k1", "bericht/0412-04/k2"]
    assert good.got == ["spieler3@example.org", "spieler4@example.org"]
    assert flaky.got == ["spieler1@example.org", "spieler2@example.org"]


def test_a_silent_server_times_out_with_a_clear_message(tmp_path):
    """A server that accepts the connection and then says nothing."""
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
        cfg = _config(tmp_path, listener.getsockname()[1], timeout=1)
        with pytest.raises(StateError) as exc:
            send_mails(Ledger(tmp_path), cfg, _mails(2))
        assert "keine Antwort in der gesetzten Zeit" in str(exc.value)
        assert "127.0.0.1" in str(exc.value) and "nichts gesendet" in str(exc.value)
        assert Ledger(tmp_path).records == {}
    finally:
        stop.set()
        for c in held:
            c.close()
        listener.close()
        t.join(5)


def test_a_server_that_refuses_the_connection_is_a_clear_message(tmp_path):
    cfg = _config(tmp_path, _free_port(), timeout=2)
    with pytest.raises(StateError, match="Verbindung zu dem SMTP-Server 127.0.0.1.*abgelehnt"):
        send_mails(Ledger(tmp_path), cfg, _mails(1))


def test_a_refused_recipient_is_reported_and_not_retried_on_its_own(tmp_path, server):
    handler = _Flaky(refuse="spieler2@example.org")
    cfg = _config(tmp_path, server(handler))
    rep = send_mails(Ledger(tmp_path), cfg, _mails(3))
    assert rep.sent == ["bericht/0412-04/k1", "bericht/0412-04/k3"]
    assert "550" in rep.refused["bericht/0412-04/k2"]
    again = send_mails(Ledger(tmp_path), cfg, _mails(3))
    assert again.sent == [] and "550" in again.refused["bericht/0412-04/k2"]
    assert handler.got == ["spieler1@example.org", "spieler3@example.org"]
