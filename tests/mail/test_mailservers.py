"""The test mail servers themselves (tests/mailservers.py): they must behave like a
provider's mailbox, or every mail test built on them proves nothing.  Real Dovecot and
Postfix on 127.0.0.1 with a test CA (issue #34, "Must show": real servers on loopback)."""

from __future__ import annotations

import imaplib
import shutil
import signal
import smtplib
import ssl
import threading
import time

import pytest

import mailservers
from mailservers import SERVER_NAME, sheet_mail


def test_a_missing_local_fetcher_is_reported_with_the_servers_programs(tmp_path, monkeypatch):
    """README: ``WDG_SKIP_MAILSERVERS`` covers a missing getmail or fetchmail too —
    so they are among the programs whose absence the session's mail fixture reports
    through ``cannot_run`` (tests/conftest.py), not a bare FileNotFoundError in
    tests/mail/test_fetchers.py. A PATH with only ``openssl`` on it lacks exactly
    the three fetcher programs."""
    real = shutil.which("openssl")
    assert real is not None
    (tmp_path / "openssl").symlink_to(real)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert [m for m in mailservers.missing_binaries() if not m.startswith("/")] == [
        "getmail", "getmail_maildir", "fetchmail"]


def test_imaps_and_starttls_login_with_verified_certificate(mail_world):
    s = mail_world.servers
    for starttls in (False, True):
        conn = s.imap_client(mail_world.gm, starttls=starttls)
        try:
            cert = conn.sock.getpeercert()
            names = [v for k, v in cert["subjectAltName"] if k == "DNS"]
            assert names == [SERVER_NAME]
            assert conn.select("INBOX")[0] == "OK"
        finally:
            conn.logout()


def test_wrong_password_is_refused(mail_world):
    s = mail_world.servers
    bad = type(mail_world.gm)(mail_world.gm.address, "nicht-das-passwort")
    with pytest.raises(imaplib.IMAP4.error):
        s.imap_client(bad)


@pytest.mark.parametrize("starttls", [False, True])
def test_certificate_for_another_name_is_refused_by_imap_clients(mail_world, starttls):
    with pytest.raises(ssl.SSLCertVerificationError, match="Hostname mismatch|doesn't match"):
        mail_world.servers.imap_client(mail_world.gm, wrong=True, starttls=starttls)


def test_certificate_for_another_name_is_refused_by_smtp_clients(mail_world):
    s = mail_world.servers
    with pytest.raises(ssl.SSLCertVerificationError):
        s.smtp_client(mail_world.gm, port=s.submission_wrong)
    with pytest.raises(ssl.SSLCertVerificationError, match="Hostname mismatch|doesn't match"):
        s.smtps_client(mail_world.gm, port=s.smtps_wrong)
    # the same CA, the right name: accepted (so the refusal above is the name's)
    s.smtp_client(mail_world.gm).quit()
    s.smtps_client(mail_world.gm).quit()


def test_submission_needs_login_and_delivers_to_the_imap_box(mail_world):
    s = mail_world.servers
    p1, gm = mail_world.players[0], mail_world.gm
    conn = smtplib.SMTP(s.host, s.submission, timeout=10)
    conn._host = SERVER_NAME
    conn.starttls(context=s.client_context())
    with pytest.raises(smtplib.SMTPException):
        conn.sendmail(p1.address, [gm.address], b"Subject: x\r\n\r\nohne Anmeldung\r\n")
    conn.close()
    before = time.time()
    msg = sheet_mail(p1, gm, "Spielzug", "Reich: 1\n")
    s.send(p1, msg)
    s.settled()
    arrived = s.wait_for(gm, 1)
    assert len(arrived) == 1
    got = arrived[0].message
    assert got["Message-ID"] == msg["Message-ID"]
    assert got["Subject"] == "Spielzug"
    assert "Reich: 1" in got.get_content()
    # the server's arrival time, not the mail's Date
    when = imaplib.Internaldate2tuple(f'1 (INTERNALDATE "{arrived[0].internaldate}")'.encode())
    assert abs(time.mktime(when) - before) < 60
    assert s.messages(p1) == []


def test_smtps_port_delivers(mail_world):
    s = mail_world.servers
    p2, gm = mail_world.players[1], mail_world.gm
    conn = s.smtps_client(p2)
    conn.send_message(sheet_mail(p2, gm, "SMTPS", "hallo"))
    conn.quit()
    s.settled()
    assert [m.subject for m in s.wait_for(gm, 1)] == ["SMTPS"]


def test_append_sets_internaldate_and_mailboxes_survive_a_dovecot_crash(mail_world):
    s = mail_world.servers
    gm = mail_world.gm
    s.append(gm, b"From: x@wdg.test\r\nSubject: alt\r\n\r\n.\r\n", when=1700000000)
    assert s.messages(gm)[0].internaldate == "14-Nov-2023 22:13:20 +0000"
    s.restart_dovecot(signal.SIGKILL)
    assert [m.subject for m in s.messages(gm)] == ["alt"]


def test_every_world_starts_empty(mail_servers):
    a = mail_servers.new_world(players=1)
    b = mail_servers.new_world(players=1)
    assert a.gm.address != b.gm.address
    mail_servers.append(a.gm, b"Subject: nur a\r\n\r\n.\r\n")
    assert mail_servers.messages(b.gm) == []
    assert len(mail_servers.messages(a.gm)) == 1


def test_settled_means_every_mail_sent_before_is_in_its_box(mail_world):
    """The "nothing more arrives" helper (docs/testing.md, "Waiting for mail"):
    Dovecot's LMTP socket is out of Postfix's reach while six copies of one mail
    are sent, so Postfix defers them, and is back a second later; right after the
    sends, with no wait for a count, ``settled()`` returns only once Postfix
    reports an empty queue — all six are in the box (a late duplicate is seen)."""
    s = mail_world.servers
    p1, gm = mail_world.players[0], mail_world.gm
    msg = sheet_mail(p1, gm, "Spielzug", "Reich: 1\n")
    aside = s.lmtp_socket.with_name("lmtp-aside")
    s.lmtp_socket.rename(aside)
    back = threading.Timer(1.0, aside.rename, (s.lmtp_socket,))
    try:
        for _ in range(6):
            s.send(p1, msg)
        back.start()
        s.settled()
    finally:
        back.join()
        if aside.exists():
            aside.rename(s.lmtp_socket)
    assert [m.message["Message-ID"] for m in s.messages(gm)] == [msg["Message-ID"]] * 6


def test_wait_idling_sees_an_imap_session_enter_idle(mail_world):
    """``wait_idling`` reads Dovecot's process titles: it fails, naming the
    account, while the session only exists, and returns once the session has
    sent IDLE and been told "+ idling"."""
    s = mail_world.servers
    gm = mail_world.gm
    conn = s.imap_client(gm)
    try:
        conn.select("INBOX")
        with pytest.raises(AssertionError, match=f"{gm.address}: no IMAP session in IDLE"):
            s.wait_idling(gm, timeout=0.5)
        conn.send(b"a1 IDLE\r\n")
        assert conn.readline().startswith(b"+ ")
        s.wait_idling(gm, timeout=10)
        conn.send(b"DONE\r\n")
        assert conn.readline().startswith(b"a1 OK")
    finally:
        conn.logout()
