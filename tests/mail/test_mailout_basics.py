"""mail.yaml, secrets, TLS and the exactly-once send record (issue #34, outbound).

The SMTP tests run against aiosmtpd (a real SMTP server in Python) with TLS
from a test CA made by openssl; the end-to-end tests against Postfix and
Dovecot are in test_mailout_servers.py."""

from __future__ import annotations

import os
import ssl
import subprocess
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from wdg.errors import DataError, StateError
from wdg.mail.config import load_mail_config, tls_context
from wdg.store.sent import Ledger
from wdg.mail.send import Outgoing, digest, send_mails
from wdg.mail.smtp import SmtpSession

NAME = "mail.wdg.test"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A test CA and server certificates for NAME and for another name."""
    d = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "2", "-subj", "/CN=wdg test CA", cwd=d)
    for stem, name in (("good", NAME), ("wrong", "wrong.wdg.test")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{stem}.key", "-out",
                 f"{stem}.csr", "-subj", f"/CN={name}", cwd=d)
        (d / f"{stem}.ext").write_text(f"subjectAltName=DNS:{name}\n")
        _openssl("x509", "-req", "-in", f"{stem}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{stem}.pem", "-days", "2", "-extfile",
                 f"{stem}.ext", cwd=d)
    return d


class _Sink:
    def __init__(self) -> None:
        self.mails: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd's name
        self.mails.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 2.0.0 Ok: queued"


def _server_ctx(pki: Path, stem: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(pki / f"{stem}.pem", pki / f"{stem}.key")
    return ctx


@pytest.fixture(params=["starttls", "ssl"])
def server(request, pki):
    """aiosmtpd with STARTTLS (required) or implicit TLS, good certificate."""
    from tests.mail.test_mailout_failures import _free_port

    sink = _Sink()
    port = _free_port()
    if request.param == "ssl":
        ctl = Controller(sink, hostname="127.0.0.1", port=port,
                         ssl_context=_server_ctx(pki, "good"))
    else:
        ctl = Controller(sink, hostname="127.0.0.1", port=port,
                         tls_context=_server_ctx(pki, "good"), require_starttls=True)
    ctl.start()
    yield request.param, port, sink
    ctl.stop()


def _write_config(seg: Path, security: str, port: int, pki: Path, name: str = NAME) -> None:
    seg.mkdir(parents=True, exist_ok=True)
    (seg / "mail.yaml").write_text(
        'from: "Segmentleiter Test <sl@wdg.test>"\n'
        f"smtp:\n  host: 127.0.0.1\n  port: {port}\n  security: {security}\n"
        f"  cafile: {pki / 'ca.pem'}\n  server_name: {name}\n  timeout: 5\n", encoding="utf-8")


def _mail(to: str, text: str):
    def build(correction: bool) -> EmailMessage:
        m = EmailMessage()
        m["From"], m["To"] = "Segmentleiter Test <sl@wdg.test>", to
        m["Subject"] = ("Berichtigung: " if correction else "") + "Test"
        m["Message-ID"] = f"<{digest(text.encode(), str(correction).encode())[:20]}@wdg.test>"
        m.set_content(text)
        return m
    return build


def test_mails_go_out_over_tls_once_and_a_second_send_sends_nothing(tmp_path, server, pki):
    security, port, sink = server
    seg = tmp_path / "seg"
    _write_config(seg, security, port, pki)
    cfg = load_mail_config(seg)
    assert cfg.sender == "Segmentleiter Test <sl@wdg.test>"  # 'from' is honoured
    mails = [Outgoing(f"test/k{k}", f"p{k}@wdg.test", _mail(f"p{k}@wdg.test", f"Blatt {k}"),
                      digest(f"Blatt {k}".encode())) for k in (1, 2, 3)]
    got = send_mails(Ledger(seg), cfg, mails)
    assert got.sent == ["test/k1", "test/k2", "test/k3"] and len(sink.mails) == 3, got
    assert sink.mails[0][0] == "sl@wdg.test" and sink.mails[0][1] == ["p1@wdg.test"]
    again = send_mails(Ledger(seg), cfg, mails)  # reloaded from the disk
    assert again.sent == [] and again.already == ["test/k1", "test/k2", "test/k3"]
    assert len(sink.mails) == 3


def test_a_changed_mail_is_reported_and_sent_as_a_correction_only_when_asked(tmp_path, server, pki):
    security, port, sink = server
    seg = tmp_path / "seg"
    _write_config(seg, security, port, pki)
    cfg = load_mail_config(seg)
    send_mails(Ledger(seg), cfg, [Outgoing("r/k1", "p@wdg.test", _mail("p@wdg.test", "alt"),
                                           digest(b"alt"))])
    new = [Outgoing("r/k1", "p@wdg.test", _mail("p@wdg.test", "neu"), digest(b"neu"))]
    assert send_mails(Ledger(seg), cfg, new).changed == ["r/k1"] and len(sink.mails) == 1
    got = send_mails(Ledger(seg), cfg, new, corrections=True)
    assert got.corrected == ["r/k1"] and len(sink.mails) == 2
    assert b"Subject: Berichtigung: Test" in sink.mails[1][2]
    assert send_mails(Ledger(seg), cfg, new, corrections=True).already == ["r/k1"]


@pytest.mark.parametrize("security", ["starttls", "ssl"])
def test_a_server_whose_certificate_names_another_host_is_refused(tmp_path, pki, security):
    """The certificate is for wrong.wdg.test: nothing is sent, no password goes out."""
    from tests.mail.test_mailout_failures import _free_port

    sink = _Sink()
    port = _free_port()
    kw = ({"ssl_context": _server_ctx(pki, "wrong")} if security == "ssl"
          else {"tls_context": _server_ctx(pki, "wrong"), "require_starttls": True})
    ctl = Controller(sink, hostname="127.0.0.1", port=port, **kw)
    ctl.start()
    try:
        seg = tmp_path / "seg"
        _write_config(seg, security, port, pki)
        cfg = load_mail_config(seg)
        mails = [Outgoing("t/k1", "p@wdg.test", _mail("p@wdg.test", "x"), digest(b"x"))]
        with pytest.raises(StateError, match="Zertifikat des Servers ist nicht gültig"):
            send_mails(Ledger(seg), cfg, mails)
        assert sink.mails == []
        assert Ledger(seg).latest("t/k1") is None  # nothing recorded as tried
    finally:
        ctl.stop()


def test_a_server_without_starttls_is_refused_not_used_in_clear(tmp_path, pki):
    from tests.mail.test_mailout_failures import _free_port

    sink = _Sink()
    port = _free_port()
    ctl = Controller(sink, hostname="127.0.0.1", port=port)
    ctl.start()
    try:
        seg = tmp_path / "seg"
        _write_config(seg, "starttls", port, pki)
        with pytest.raises(StateError, match="kein STARTTLS"):
            with SmtpSession(load_mail_config(seg).smtp):
                pass
    finally:
        ctl.stop()


def test_the_tls_context_always_verifies(pki):
    ctx = tls_context(pki / "ca.pem")
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname


# --- mail.yaml ----------------------------------------------------------------------------

def test_the_old_flat_form_is_read_as_the_smtp_section(tmp_path):
    (tmp_path / "mail.yaml").write_text("host: 127.0.0.1\nport: 2525\nstarttls: false\n"
                                        "from: sl@example.org\npassword_env: X\n")
    cfg = load_mail_config(tmp_path)
    assert (cfg.smtp.host, cfg.smtp.port, cfg.smtp.security) == ("127.0.0.1", 2525, "plain")
    assert cfg.sender == "sl@example.org" and cfg.smtp.password_env == "X"


def test_a_password_in_the_yaml_and_plain_text_to_a_remote_server_are_refused(tmp_path):
    (tmp_path / "mail.yaml").write_text("smtp: {host: mail.example.org, password: geheim}\n")
    with pytest.raises(DataError, match="kein Passwort in der YAML-Datei"):
        load_mail_config(tmp_path)
    (tmp_path / "mail.yaml").write_text("smtp: {host: mail.example.org, security: plain}\n")
    with pytest.raises(DataError, match="nur zu einem Server auf"):
        load_mail_config(tmp_path)


def test_the_password_file_must_be_the_users_own_and_private(tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("s3cret\n")
    (tmp_path / "mail.yaml").write_text(f"smtp: {{host: mail.example.org, user: sl, "
                                        f"password_file: {pw}}}\n")
    os.chmod(pw, 0o644)
    cfg = load_mail_config(tmp_path)
    with pytest.raises(StateError, match="chmod 600"):
        cfg.smtp.password()
    os.chmod(pw, 0o600)
    assert cfg.smtp.password() == "s3cret"
    if os.getuid() == 0:
        os.chown(pw, 65534, 65534)
        with pytest.raises(StateError, match="gehört nicht dem Benutzer"):
            cfg.smtp.password()
    link = tmp_path / "link"
    link.symlink_to(pw)
    (tmp_path / "mail.yaml").write_text(f"smtp: {{host: mail.example.org, user: sl, "
                                        f"password_file: {link}}}\n")
    with pytest.raises(StateError, match="symbolischer Link"):
        load_mail_config(tmp_path).smtp.password()


def test_a_missing_password_variable_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("WDG_TEST_PW", raising=False)
    (tmp_path / "mail.yaml").write_text("smtp: {host: h.example.org, user: u, "
                                        "password_env: WDG_TEST_PW}\n")
    with pytest.raises(StateError, match="WDG_TEST_PW"):
        load_mail_config(tmp_path).smtp.password()


# --- the record ---------------------------------------------------------------------------

def _sent(seg: Path, keys: list[str]) -> Ledger:
    led = Ledger(seg)
    for k in keys:
        led.intend(k, message_id=f"<{k}@x>", to="p@x", sha256="ab")
        led.settle(k, "sent", "250 ok")
    return led


def test_an_emptied_or_shortened_or_deleted_record_is_refused_not_read_as_nothing_sent(tmp_path):
    _sent(tmp_path, ["a", "b", "c"])
    path = tmp_path / "mail" / "sent.yaml"
    whole = path.read_bytes()
    path.write_bytes(b"")
    with pytest.raises(StateError, match="leer"):
        Ledger(tmp_path)
    path.write_bytes(b"".join(whole.splitlines(keepends=True)[:3]))
    with pytest.raises(StateError, match="gekürzt"):
        Ledger(tmp_path)
    path.unlink()
    with pytest.raises(StateError, match="fehlt"):
        Ledger(tmp_path)
    path.write_bytes(whole.replace(b'"n": 2', b'"n": 7'))
    with pytest.raises(StateError, match="Nummer 7"):
        Ledger(tmp_path)
    path.write_bytes(whole.replace(b'- {"n": 3', b'- {kaputt'))
    with pytest.raises(DataError, match="beschädigt"):
        Ledger(tmp_path)
    path.write_bytes(whole)
    assert Ledger(tmp_path).was_sent("c")


def test_an_intent_without_outcome_is_uncertain_and_sent_again_only_when_released(tmp_path):
    led = _sent(tmp_path, ["a"])
    led.intend("b", message_id="<b@x>", to="p@x", sha256="cd")
    # the process dies here (SIGKILL): the server may have accepted "b"
    led = Ledger(tmp_path)
    assert [r.key for r in led.uncertain()] == ["b"]
    from wdg.mail.send import plan
    mail = Outgoing("b", "p@x", _mail("p@x", "b"), "cd")
    assert plan(led, mail, corrections=True) == "uncertain"
    led.release("b")
    assert plan(Ledger(tmp_path), mail, corrections=False) == "send"


def test_a_line_cut_off_by_a_crash_is_dropped_and_the_record_goes_on(tmp_path):
    _sent(tmp_path, ["a"])
    path = tmp_path / "mail" / "sent.yaml"
    with open(path, "ab") as f:
        f.write(b'- {"n": 3, "key": "b", "ev')
    led = Ledger(tmp_path)
    assert led.n == 2 and led.latest("b") is None
    led.intend("b", message_id="<b@x>", to="p@x", sha256="cd")
    assert Ledger(tmp_path).latest("b").state == "pending"
