"""Interrupting the outbound side (issue #34): SIGKILL at random points of
sending sends no mail twice, against real Postfix/Dovecot; Ctrl-C in ``wdg turn
run`` and in sending prints no traceback and exits 130.

Bounded loops, seeded, so a failure can be repeated."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procwatch import wait_until

from tests.mail.mailcamp import ROOT, SEG, MailCampaign
from wdg.store.sent import Ledger

pytestmark = pytest.mark.slow


def _start(c: MailCampaign, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "wdg", *args, "-C", str(c.root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=c.root, env=c.env, start_new_session=True)


def _stamp(path: Path) -> tuple[int, int] | None:
    """Size and modification time of ``path`` (None while it does not exist)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _message_ids(c: MailCampaign, k: int) -> list[str]:
    # stripped: a long Message-ID arrives folded ("Message-ID:\r\n <...>") and the
    # parsed header keeps the blank; the send record has it without
    return [str(m.message["Message-ID"]).strip() for m in c.inbox(k)]


def test_sigkill_at_random_points_of_sending_sends_no_mail_twice(tmp_path, mail_world,
                                                                 monkeypatch):
    """Ten sends of a five-player month, each killed with SIGKILL right before a
    random one of its file operations (tests/faultinject.py: the ledger's
    intent, the server's answer being recorded, the seal, the log) — so the
    kills fall before, during and after the SMTP dialogue of some mail. Then the
    uncertain ones are settled as a game master would (did that Message-ID
    arrive? ``--arrived``, else ``--release``) and one last send runs. Every
    player has exactly one result mail: none arrived twice, none is missing."""
    from tests.faultinject import run_in_child

    rng = random.Random(34)
    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=5)
    c("turn", "run", SEG, "--force", "-q", "--no-pdf")
    monkeypatch.setenv("WDG_SMTP_PASSWORD", mail_world.gm.password)
    killed = 0
    for _ in range(10):
        code, _ops = run_in_child(["reports", "send", SEG, "-C", str(c.root)],
                                  fault_at=rng.randint(1, 24), mode="kill")
        killed += code == -signal.SIGKILL
    assert killed >= 5
    c.servers.flush_queue()
    led = Ledger(c.seg_dir)
    for rec in led.uncertain():
        k = int(rec.key.rsplit("/k", 1)[1])
        arrived = rec.message_id in _message_ids(c, k)
        c("mail", "sent", SEG, "--arrived" if arrived else "--release", rec.key)
    c("reports", "send", SEG, code=None)
    c.servers.flush_queue()
    for k in range(1, 6):
        c.servers.wait_for(c.player_of[k], 1, timeout=30)
    c.servers.settled()
    for k in range(1, 6):
        ids = _message_ids(c, k)
        assert len(ids) == 1, (k, ids)
    assert c("reports", "send", SEG, code=3)


def test_ctrl_c_while_sending_records_the_mail_in_flight_and_exits_130(tmp_path, mail_world):
    rng = random.Random(int(os.environ.get("WDG_TEST_SEED", "7")))
    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=5)
    c("turn", "run", SEG, "--force", "-q", "--no-pdf")
    codes = []
    ledger = c.seg_dir / "mail" / "sent.yaml"
    for _ in range(5):
        before = _stamp(ledger)
        p = _start(c, "reports", "send", SEG)
        # Ctrl-C at a random moment once the send has begun (its first intent is in
        # the ledger), or not at all when it ended first (nothing left to send)
        wait_until(lambda p=p, before=before: p.poll() is not None or _stamp(ledger) != before,
                   "the send's first record in mail/sent.yaml", 60)
        time.sleep(rng.uniform(0.0, 0.3))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert "Traceback" not in out + err, err
        assert p.returncode in (0, 3, 130), (p.returncode, err)
        codes.append(p.returncode)
        assert Ledger(c.seg_dir).uncertain() == []  # Ctrl-C never leaves a mail uncertain
    assert 130 in codes, f"no Ctrl-C landed in the middle of a send: {codes}"
    c("reports", "send", SEG, code=None)
    c.servers.flush_queue()
    for k in range(1, 6):
        c.servers.wait_for(c.player_of[k], 1, timeout=30)
    c.servers.settled()
    boxes = {k: [(m.subject, m.message["Message-ID"]) for m in c.inbox(k)] for k in range(1, 6)}
    assert all(len(v) == 1 for v in boxes.values()), (codes, boxes,
                                                      (c.seg_dir / "mail" / "sent.yaml").read_text())


def test_ctrl_c_during_turn_run_never_prints_a_traceback(tmp_path):
    """Ctrl-C reaches the whole process group (the run and its report workers),
    at random moments of a month's run; the state is the one before or after."""
    rng = random.Random(3)
    codes = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WDG_CAMPAIGN": ""}
    root = tmp_path / "c"
    root.mkdir()
    subprocess.run([sys.executable, "-m", "wdg", "segment", "new", "s", "--provinces", "3x2",
                    "--kingdoms", "4", "--seed", "5", "-C", str(root)], env=env, check=True,
                   capture_output=True)
    import shutil
    shutil.copytree(root / "worlds" / "s", tmp_path / "saved")
    for _ in range(5):
        shutil.rmtree(root / "worlds" / "s")
        shutil.copytree(tmp_path / "saved", root / "worlds" / "s")
        p = subprocess.Popen([sys.executable, "-m", "wdg", "turn", "run", "s", "--force",
                              "-C", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env, start_new_session=True)
        # Ctrl-C at a random moment once the month's run has begun (its staging
        # folder is there): resolving, rendering, committing
        wait_until(lambda p=p: p.poll() is not None or any(root.glob("worlds/s/turns/.staging-*")),
                   "the month's staging folder worlds/s/turns/.staging-*", 120)
        time.sleep(rng.uniform(0.0, 2.0))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert "Traceback" not in out + err, err
        assert p.returncode in (0, 130), (p.returncode, err)
        codes.append(p.returncode)
        status = subprocess.run([sys.executable, "-m", "wdg", "segment", "check", "s", "-C",
                                 str(root)], env=env, capture_output=True, text=True)
        assert status.returncode == 0, status.stdout + status.stderr
    assert 130 in codes, f"no Ctrl-C landed in the middle of a run: {codes}"
