"""``wdg mail watch`` against the real Dovecot/Postfix (issue #34, Deliver 5): answers
at once (IMAP IDLE), reconnects after the server went away, stops cleanly on SIGTERM
(exit 0, no traceback), Ctrl-C exits 130."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mailservers import sheet_mail
from procwatch import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _watch(mc) -> subprocess.Popen:
    """The watch, started and idling (its first fetch done: it said so)."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "wdg", "mail", "watch", "test", "--idle", "30",
         "-C", str(mc.camp.root)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    first = proc.stdout.readline()  # the greeting, printed after the first fetch
    assert "warte auf Mail" in first, (first, proc.poll())
    return proc


@contextlib.contextmanager
def _watching(mc):
    """The watch (see :func:`_watch`) for a ``with`` block; killed if still running
    at its end (a failed test)."""
    proc = _watch(mc)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _stop(proc, sig: int = signal.SIGTERM) -> tuple[str, str]:
    """Signal the watch and wait for its end: its stdout and stderr. A watch that
    does not stop within 60 s fails the test with where it hangs (faulthandler
    dumps every thread on SIGABRT)."""
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        out, err = proc.communicate(timeout=30)
        pytest.fail(f"the watch did not stop on signal {sig} within 60 s:\n{err[-4000:]}")


def _answered(s, account, n: int, within: float) -> float:
    start = time.monotonic()
    s.wait_for(account, n, timeout=within)
    return time.monotonic() - start


@pytest.mark.slow
def test_watch_answers_at_once_reconnects_and_stops_on_sigterm(mail_campaign):
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    with _watching(mc) as proc:
        s.wait_idling(gm)
        s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
        assert _answered(s, p[0], 1, within=10) < 10
        assert "angenommen" in s.messages(p[0])[0].subject
        # the server goes away (a crash: every connection dropped) and comes back
        s.restart_dovecot(signal.SIGKILL)
        s.send(p[1], sheet_mail(p[1], gm, "Spielzug", mc.sheet(2)))
        _answered(s, p[1], 1, within=60)
        assert "angenommen" in s.messages(p[1])[0].subject
        assert s.messages(gm) == []
        out, err = _stop(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "Verbindung" in err  # the lost connection was reported, in German
    assert "beendet" in out
    # nothing answered twice
    assert [len(s.messages(a)) for a in p[:2]] == [1, 1]


def test_watch_ctrl_c_exits_130(mail_campaign):
    with _watching(mail_campaign) as proc:
        mail_campaign.world.servers.wait_idling(mail_campaign.world.gm)
        out, err = _stop(proc, signal.SIGINT)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Strg-C" in err, err


def test_idle_sees_mail_the_server_reported_before_it(mail_campaign):
    """A mail that arrives while the watch is busy (between its scan of the inbox and
    its IDLE) is reported by Dovecot with the reply to whatever command comes next
    (RFC 3501 7.3.1: EXISTS is sent with any command's reply), not again in IDLE:
    the IDLE that follows must count it as a change, not wait for the next mail."""
    from wdg.mail.config import load_mail_config
    from wdg.mail.imap import ImapSession

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    config = load_mail_config(mc.seg_dir)
    with ImapSession(config.imap) as box:
        box.select("INBOX")
        assert box.uids() == []  # the scan: nothing there
        s.append(gm, bytes(sheet_mail(p[0], gm, "Spielzug", mc.sheet(1))))
        assert box.fetch(4711) is None  # some command: its reply carries "* 1 EXISTS"
        start = time.monotonic()
        assert box.idle(8) is True
        assert time.monotonic() - start < 2
        box.select("INBOX")
        assert len(box.uids()) == 1


def _takings(mc) -> int:
    """How many mails the intake record shows as being taken (``taking`` events)."""
    seen = mc.seg_dir / "mail" / "seen.yaml"
    return seen.read_text(encoding="utf-8").count('"taking"') if seen.is_file() else 0


@pytest.mark.slow
def test_watch_answers_every_sheet_of_a_rush(mail_campaign):
    """Sheets that arrive while the watch is busy with another one (the last minute
    before the deadline) are answered too, at once — not only when the next mail
    wakes the watch. Three rounds: player 1's sheet arrives, and the moment the
    watch starts taking it players 2 and 3 send theirs; every answer of a round must
    arrive before the next round starts. Player 3 sends his second sheet twice,
    unchanged: each mail gets its answer."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    with _watching(mc) as proc:
        s.wait_idling(gm)
        for version in (1, 2, 3):
            def send(k: int, version: int = version) -> None:
                note = f"# Fassung {min(version, 2) if k == 3 else version}\n"
                s.send(p[k - 1], sheet_mail(p[k - 1], gm, "Spielzug", mc.sheet(k, note)))

            before = _takings(mc)
            send(1)
            wait_until(lambda before=before: _takings(mc) != before,
                       f"round {version}: the watch taking player 1's sheet (seen.yaml)", 20,
                       proc)
            both = [threading.Thread(target=send, args=(k,)) for k in (2, 3)]
            for t in both:
                t.start()
            for t in both:
                t.join()
            for k in (1, 2, 3):
                s.wait_for(p[k - 1], version, timeout=20)
        s.wait_for(gm, 9, mailbox="wdg/erledigt", timeout=10)
        assert s.messages(gm) == []
        s.settled()
        assert [len(s.messages(a)) for a in p[:3]] == [3, 3, 3]
        subjects = [m.subject for m in s.messages(p[2])]
        assert all("Königreich 3" in x for x in subjects), subjects
        _, err = _stop(proc)
    assert proc.returncode == 0, err
