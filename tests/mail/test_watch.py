"""``wdg mail watch`` against the real Dovecot/Postfix (issue #34, Deliver 5): answers
at once (IMAP IDLE), reconnects after the server went away, stops cleanly on SIGTERM
(exit 0, no traceback), Ctrl-C exits 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mailservers import sheet_mail

ROOT = Path(__file__).resolve().parents[2]


def _watch(mc) -> subprocess.Popen:
    """The watch, started and idling (its first fetch done: it said so)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "wdg", "mail", "watch", "test", "--idle", "30",
         "-C", str(mc.camp.root)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    first = proc.stdout.readline()  # the greeting, printed after the first fetch
    assert "warte auf Mail" in first, (first, proc.poll())
    return proc


def _answered(s, account, n: int, within: float) -> float:
    start = time.monotonic()
    s.wait_for(account, n, timeout=within)
    return time.monotonic() - start


@pytest.mark.slow
def test_watch_answers_at_once_reconnects_and_stops_on_sigterm(mail_campaign):
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    proc = _watch(mc)
    try:
        time.sleep(0.5)  # into IDLE
        s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
        assert _answered(s, p[0], 1, within=10) < 10
        assert "angenommen" in s.messages(p[0])[0].subject
        # the server goes away (a crash: every connection dropped) and comes back
        s.restart_dovecot(signal.SIGKILL)
        s.send(p[1], sheet_mail(p[1], gm, "Spielzug", mc.sheet(2)))
        _answered(s, p[1], 1, within=60)
        assert "angenommen" in s.messages(p[1])[0].subject
        assert s.messages(gm) == []
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "Verbindung" in err  # the lost connection was reported, in German
    assert "beendet" in out
    # nothing answered twice
    assert [len(s.messages(a)) for a in p[:2]] == [1, 1]


def test_watch_ctrl_c_exits_130(mail_campaign):
    proc = _watch(mail_campaign)
    try:
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Strg-C" in err, err
