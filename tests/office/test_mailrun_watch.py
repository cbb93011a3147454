"""``wdg mail watch --all`` against the real Dovecot/Postfix (tests/mailservers.py):
one IMAP box in the campaign's mail.yaml for two segments; every sheet is taken
by the segment its ``Segment:`` line names and answered at once; SIGTERM ends
the watch cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mailservers import sheet_mail
from tests.mail.conftest import MailCampaign
from tests.mail.segments import make_segment
from wdg.campaign import Campaign
from wdg.store.segment import save_segment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_watch_all_routes_every_sheet_by_its_segment_line(tmp_path, mail_world,
                                                          monkeypatch) -> None:
    camp = Campaign(tmp_path / "kampagne")
    for name in ("test", "zwei"):
        save_segment(make_segment(mail_world, name=name), camp.segment_dir(name))
    mc = MailCampaign(camp, mail_world)
    mc.write_mail_yaml()
    (camp.segment_dir("test") / "mail.yaml").rename(camp.root / "mail.yaml")  # one box
    monkeypatch.setenv("WDG_TEST_SMTP_PASSWORD", mail_world.gm.password)
    monkeypatch.setenv("WDG_TEST_IMAP_PASSWORD", mail_world.gm.password)
    s, gm, p = mail_world.servers, mail_world.gm, mail_world.players
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "wdg", "mail", "watch", "--all", "--idle",
         "30", "-C", str(camp.root)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        first = proc.stdout.readline()
        assert "warte auf Mail" in first, (first, proc.poll())
        s.wait_idling(gm)  # the watch's session is in IDLE: the mails below wake it
        zwei = mc.sheet(2).replace("Segment: test", "Segment: zwei")
        s.send(p[1], sheet_mail(p[1], gm, "Spielzug", zwei))
        s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
        s.wait_for(p[1], 1, timeout=60)
        s.wait_for(p[0], 1, timeout=60)
        assert "angenommen" in s.messages(p[0])[0].subject
        assert "angenommen" in s.messages(p[1])[0].subject
        orders = camp.root / "orders"
        assert [f.name for f in (orders / "test").rglob("k*.txt")] == ["k1.txt"]
        assert [f.name for f in (orders / "zwei").rglob("k*.txt")] == ["k2.txt"]
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "Traceback" not in err and "beendet (SIGTERM)" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_a_mail_command_is_answered_for_every_kingdom_of_the_sender(tmp_path, mail_world,
                                                                    monkeypatch) -> None:
    """With one box for two segments, player 1 (kingdom 1 in both) asks for his
    form once: the fetch that takes the mail answers for both kingdoms, each
    form from its own segment; a mail naming one kingdom is answered for that
    one only."""
    from wdg.mail.fetch import fetch

    camp = Campaign(tmp_path / "kampagne")
    for name in ("test", "zwei"):
        save_segment(make_segment(mail_world, name=name), camp.segment_dir(name))
    mc = MailCampaign(camp, mail_world)
    mc.write_mail_yaml()
    (camp.segment_dir("test") / "mail.yaml").rename(camp.root / "mail.yaml")
    monkeypatch.setenv("WDG_TEST_SMTP_PASSWORD", mail_world.gm.password)
    monkeypatch.setenv("WDG_TEST_IMAP_PASSWORD", mail_world.gm.password)
    s, gm, p = mail_world.servers, mail_world.gm, mail_world.players
    s.send(p[0], sheet_mail(p[0], gm, "Formular", "Bitte das Formular."))
    s.send(p[1], sheet_mail(p[1], gm, "Formular", "Königreich: 2\nNur dieses."))
    s.wait_for(gm, 2)
    rep = fetch(camp, "test")
    assert sorted(c["command"] for c in rep.commands) == ["formular", "formular"]
    s.settled()  # every answer the fetch sent is delivered: a second one would be seen
    forms = [m.message for m in s.wait_for(p[0], 2)]
    texts = sorted(a.get_content() for m in forms for a in m.iter_attachments())
    assert len(texts) == 2
    assert "Segment: test" in texts[0] and "Segment: zwei" in texts[1]
    assert all("Königreich: 1" in t for t in texts)
    assert len(s.messages(p[1])) == 1  # "Königreich: 2": that kingdom of test only
    assert fetch(camp, "zwei").commands == []  # nothing left for the other segment
