"""Result mails killed in mid-transfer are not held as uncertain (issue #39 item 6):
the send record's intent is written only when the whole message is with the server
and just the final "." is missing, so a SIGKILL while a mail is on its way leaves no
intent, the server (whose DATA was never ended) accepted nothing, and the next send
sends it — the player does not wait for the game master's manual release."""

from __future__ import annotations

import subprocess
import sys

from tests.mail.mailcamp import SEG, MailCampaign
from wdg.store.sent import Ledger

KILL_IN_TRANSFER = """
import os, runpy, signal, smtplib, sys
bodies = []
real = smtplib.SMTP.send

def send(self, data):
    if len(data) > 1000:  # a message's text (not a command, not the final '.')
        bodies.append(1)
        if len(bodies) == int(os.environ["KILL_AT"]):
            real(self, data[:len(data) // 2])  # half of it on the wire
            os.kill(os.getpid(), signal.SIGKILL)
    return real(self, data)

smtplib.SMTP.send = send
sys.argv = ["wdg", *sys.argv[1:]]
runpy.run_module("wdg", run_name="__main__")
"""


def test_a_send_killed_in_mid_transfer_leaves_nothing_uncertain(tmp_path, mail_world):
    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=3)
    c("turn", "run", SEG, "--force", "-q", "--no-pdf")
    for kill_at in (1, 2):
        proc = subprocess.run([sys.executable, "-c", KILL_IN_TRANSFER, "reports", "send", SEG,
                               "-C", str(c.root)], cwd=c.root, capture_output=True, text=True,
                              env={**c.env, "KILL_AT": str(kill_at)}, timeout=300)
        assert proc.returncode == -9, proc.stderr
        assert Ledger(c.seg_dir).uncertain() == []
    out = c("reports", "send", SEG, code=None)
    assert out.returncode == 0, out.stdout + out.stderr
    assert Ledger(c.seg_dir).uncertain() == []
    c.servers.settled()
    for k in range(1, 4):
        assert len(c.servers.wait_for(c.player_of[k], 1)) == 1
    assert [len(c.inbox(k)) for k in range(1, 4)] == [1, 1, 1]
    assert c("reports", "send", SEG, code=3)
