"""``wdg mail fetch`` against the real Dovecot/Postfix (issue #34, Deliver 1 and 2):
IMAP over verified TLS, the arrival time from the server (INTERNALDATE), each mail
imported once across months, processed mail filed away, other mail untouched,
answers in the players' boxes."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import yaml

from mailservers import sheet_mail
from wdg.errors import StateError
from wdg.mail.fetch import fetch
from wdg.store.segment import save_segment


def test_fetch_imports_answers_and_files_away(mail_campaign):
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
    s.send(p[1], sheet_mail(p[1], gm, "Spielzug Königreich 2", mc.sheet(2, password="falsch")))
    s.send(p[2], sheet_mail(p[2], gm, "Urlaubsfotos", "Hallo, anbei die Bilder."))
    s.wait_for(gm, 3)
    rep = fetch(mc.camp, "test")
    assert sorted((r.kingdom, r.status) for r in rep.results) == [(1, "angenommen"),
                                                                   (2, "abgelehnt")]
    assert rep.ignored == 1 and rep.moved == 2
    assert (mc.camp.root / "orders/test/0412-04/k1.txt").is_file() or \
        list((mc.camp.root / "orders/test").glob("*/k1.txt"))
    # the mail not for the game was judged once and moved out of the inbox (issue #39:
    # a later call does not judge it again), unread, to imap.foreign_folder
    assert s.messages(gm) == [] and rep.foreign_moved == 1
    left = s.messages(gm, "wdg/fremd")
    assert [m.subject for m in left] == ["Urlaubsfotos"]
    assert "\\Seen" not in left[0].flags
    assert sorted(m.subject for m in s.messages(gm, "wdg/erledigt")) == \
        ["Spielzug", "Spielzug Königreich 2"]
    # "wdg/erledigt" in mail.yaml is the folder erledigt under wdg in the server's own
    # hierarchy (Dovecot's Maildir default separates with dots)
    conn = s.imap_client(gm)
    try:
        listed = b" ".join(x for x in conn.list()[1] if x)
    finally:
        conn.logout()
    assert b'"." wdg.erledigt' in listed and b"wdg/erledigt" not in listed
    # answers arrived, with the right headers
    a1 = s.wait_for(p[0], 1)[0].message
    sent1 = s.messages(gm, "wdg/erledigt")
    assert a1["From"] == f"Segmentleiter Test <{gm.address}>"
    assert a1["Date"] and a1["Message-ID"]
    orig = next(m.message for m in sent1 if m.subject == "Spielzug")
    assert a1["In-Reply-To"] == orig["Message-ID"] and a1["References"] == orig["Message-ID"]
    assert "angenommen" in a1["Subject"]
    a2 = s.wait_for(p[1], 1)[0].message
    assert "abgelehnt" in a2["Subject"] and "falsches Passwort" in a2.get_body().get_content()
    assert s.messages(p[2]) == []  # the holiday mail got no answer
    # a second fetch finds nothing new and sends nothing again
    rep2 = fetch(mc.camp, "test")
    assert rep2.results == [] and rep2.sent == [] and rep2.ignored == 0
    s.settled()
    assert len(s.messages(p[0])) == 1 and len(s.messages(p[1])) == 1


def test_certificate_for_another_name_is_refused_before_the_password(mail_campaign):
    mc = mail_campaign
    s = mc.world.servers
    s.start_wrong_dovecot()
    s.append(mc.world.gm, sheet_mail(mc.world.players[0], mc.world.gm, "Spielzug",
                                     mc.sheet(1)).as_bytes())
    for security, port in (("ssl", s.imaps_wrong), ("starttls", s.imap_wrong)):
        mc.write_mail_yaml(port=port, security=security)
        log_before = (s.dovecot_dir / "dovecot-wrong.log").read_text()
        with pytest.raises(StateError, match="Zertifikat"):
            fetch(mc.camp, "test")
        log = (s.dovecot_dir / "dovecot-wrong.log").read_text()[len(log_before):]
        assert "Login:" not in log and "auth failed" not in log
    # nothing was imported, nothing moved
    assert not (mc.seg_dir / "mail" / "seen.yaml").exists()
    assert len(s.messages(mc.world.gm)) == 1


def test_starttls_port_works_with_the_right_certificate(mail_campaign):
    mc = mail_campaign
    s = mc.world.servers
    mc.write_mail_yaml(port=s.imap, security="starttls")
    s.send(mc.world.players[0], sheet_mail(mc.world.players[0], mc.world.gm, "Spielzug",
                                           mc.sheet(1)))
    s.wait_for(mc.world.gm, 1)
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["angenommen"]


def test_arrival_time_is_the_servers_not_the_senders(mail_campaign):
    """"Der Spielzug muß den Segmentleiter bis zu dem von ihm angegebenen Datum
    (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben": what counts is when the
    mail reached the game master's server (IMAP INTERNALDATE), not the sender's Date:
    nor any Received: header the sender wrote."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    seg = mc.seg()
    # a deadline in the past: Dovecot keeps no INTERNALDATE in the future
    seg.settings.deadline, seg.settings.deadline_month = "2025-05-01 13:00", seg.date.key
    seg.settings.timezone = "Europe/Berlin"
    save_segment(seg, mc.seg_dir)
    deadline = datetime(2025, 5, 1, 11, 0, tzinfo=timezone.utc).timestamp()  # 13:00 CEST
    # on time at the server, though its Date: and a forged Received: say "late"
    early = sheet_mail(p[0], gm, "Spielzug", mc.sheet(1), date="Wed, 01 May 2025 18:00:00 +0200")
    early["Received"] = "from evil by evil; Wed, 01 May 2025 19:00:00 +0200"
    s.append(gm, early.as_bytes(), when=deadline - 60)
    # late at the server, though its Date: and a forged Received: say "early"
    late = sheet_mail(p[1], gm, "Spielzug", mc.sheet(2), date="Wed, 01 May 2025 09:00:00 +0200")
    late["Received"] = "from evil by evil; Wed, 01 May 2025 09:00:00 +0200"
    s.append(gm, late.as_bytes(), when=deadline + 60)
    rep = fetch(mc.camp, "test")
    got = {r.kingdom: r for r in rep.results}
    assert got[1].status == "angenommen"
    assert got[2].status == "abgelehnt" and "Eintreffschluß" in got[2].reason
    assert got[1].arrival.timestamp() == deadline - 60
    assert got[2].arrival.timestamp() == deadline + 60


def test_same_mailbox_in_two_months_imports_each_mail_once(mail_campaign):
    """A mail fetched in one month is never taken again: not when it comes back into the
    inbox (moved back by hand), not in the next month (a sheet without ``Mond:``), not
    after the server renumbered the mailbox (new UIDVALIDITY: the Message-ID still
    knows it)."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
    s.send(p[2], sheet_mail(p[2], gm, "Spielzug", "Hallo, nur eine Frage."))
    s.wait_for(gm, 2)
    rep = fetch(mc.camp, "test")
    assert sorted(r.status for r in rep.results) == ["abgelehnt", "angenommen"]
    s.wait_for(p[0], 1)
    # next month: the game master's client put the mails back into the inbox
    seg = mc.seg()
    first = seg.date
    seg.date = seg.date.next()
    save_segment(seg, mc.seg_dir)
    for m in s.messages(gm, "wdg/erledigt"):
        s.append(gm, m.raw)
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["bereits erfasst", "bereits erfasst"]
    assert all(f"schon im Mond {first.short()}" in r.reason for r in rep.results)
    assert rep.sent == [] and rep.moved == 2
    assert not (mc.camp.root / "orders" / "test" / seg.date.key / "k1.txt").exists()
    s.settled()
    # the sheet was answered once; the mail without any sheet not at all (#30: no
    # confirmations to senders who sent no sheet)
    assert len(s.messages(p[0])) == 1 and len(s.messages(p[2])) == 0
    assert s.messages(gm) == []


def test_what_is_not_a_sheet_or_not_for_this_segment(mail_campaign):
    """Mail for another segment of the campaign stays in the inbox for that segment's
    fetch; a sheet for a month already run is refused with a clear answer; a mail with
    no sheet at all is filed away without an answer (issue #30) — or, with
    ``answers: {no_sheet: true}``, answered. Nothing is ever answered twice."""
    from tests.mail.segments import make_segment

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    save_segment(make_segment(mc.world, name="zwei"), mc.camp.segment_dir("zwei"))
    (mc.camp.segment_dir("zwei") / "mail.yaml").write_text(
        (mc.seg_dir / "mail.yaml").read_text())
    seg = mc.seg()
    old = seg.date.previous().short()
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1).replace("Segment: test",
                                                                      "Segment: zwei")))
    s.send(p[1], sheet_mail(p[1], gm, "Spielzug", mc.sheet(2, month=old)))
    s.send(p[2], sheet_mail(p[2], gm, "Spielzug", "Lieber Spielleiter, wann ist Schluß?"))
    s.wait_for(gm, 3)
    rep = fetch(mc.camp, "test")
    assert rep.other_segment == {"zwei": 1}
    got = {r.sender: r for r in rep.results}
    assert got[p[1].address].status == "abgelehnt" and old in got[p[1].address].reason
    assert got[p[2].address].reason == "keine Königreichnummer im Spielzug"
    assert [m.subject for m in s.messages(gm)] == ["Spielzug"]  # zwei's
    assert "Mond" in s.wait_for(p[1], 1)[0].message.get_body().get_content()
    rep2 = fetch(mc.camp, "zwei")
    assert [(r.kingdom, r.status) for r in rep2.results] == [(1, "angenommen")]
    assert s.messages(gm) == []
    # with answers for non-sheets
    data = yaml.safe_load((mc.seg_dir / "mail.yaml").read_text())
    data["answers"] = {"no_sheet": True}
    (mc.seg_dir / "mail.yaml").write_text(yaml.safe_dump(data))
    s.send(p[3], sheet_mail(p[3], gm, "Spielzug", "Nur ein Gruß."))
    s.wait_for(gm, 1)
    rep3 = fetch(mc.camp, "test")
    assert [r.reason for r in rep3.results] == ["keine Königreichnummer im Spielzug"]
    assert rep3.moved == 1
    assert "keine Königreichnummer" in s.wait_for(p[3], 1)[0].message.get_body().get_content()
    s.settled()
    assert len(s.messages(p[1])) == 1 and len(s.messages(p[2])) == 0


def test_fetch_while_the_segment_is_locked_takes_nothing(mail_campaign):
    """A month being run holds the segment's lock: the fetch is refused (exit 6, as
    ``wdg mail run``) and the mail stays in the inbox for the next fetch."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from wdg.store.lock import segment_lock

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
    s.wait_for(gm, 1)
    root = Path(__file__).resolve().parents[2]
    with segment_lock(mc.seg_dir):
        res = subprocess.run([sys.executable, "-m", "wdg", "mail", "fetch", "test", "-C",
                              str(mc.camp.root)], capture_output=True, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert res.returncode == 6, res.stderr
    assert "gesperrt von Prozess" in res.stderr and "Traceback" not in res.stderr
    assert len(s.messages(gm)) == 1
    assert [r.status for r in fetch(mc.camp, "test").results] == ["angenommen"]
    # nothing new and every answer sent: a fetch during a run does not even need the lock
    with segment_lock(mc.seg_dir):
        res = subprocess.run([sys.executable, "-m", "wdg", "mail", "fetch", "test", "-C",
                              str(mc.camp.root)], capture_output=True, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert res.returncode == 3, res.stderr


@pytest.mark.slow
def test_a_big_fetch_answers_every_ten_mails(mail_campaign, monkeypatch):
    """The rush before the deadline: one fetch finds 13 sheets. The first ten are
    answered and filed away before the last three are taken (the first players do not
    wait for the last sheet's check), and every sheet is answered exactly once."""
    import wdg.mail.fetch as fetch_module

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    for n in range(13):
        k = n % 5 + 1
        s.append(gm, bytes(sheet_mail(p[k - 1], gm, "Spielzug", mc.sheet(k, f"# Fassung {n}\n"))))
    seen = mc.seg_dir / "mail" / "seen.yaml"
    taken_when_answering = []
    real = fetch_module.answer_pending

    def answering(*args, **kw):  # how many mails were taken when the answers went out
        taken_when_answering.append(seen.read_text(encoding="utf-8").count('"taken"'))
        return real(*args, **kw)

    monkeypatch.setattr(fetch_module, "answer_pending", answering)
    rep = fetch(mc.camp, "test")
    assert taken_when_answering == [10, 13]
    assert rep.moved == 13 and len(rep.results) == 13 and len(rep.sent) == 13
    assert s.messages(gm) == [] and len(s.messages(gm, "wdg/erledigt")) == 13
    for k in range(1, 6):
        s.wait_for(p[k - 1], 3 if k <= 3 else 2)
    s.settled()
    assert [len(s.messages(a)) for a in p] == [3, 3, 3, 2, 2]


def test_a_full_disk_while_storing_a_sheet_reaches_the_game_master_not_the_player(
        mail_campaign, monkeypatch):
    """Issue #44 ("a failure on the write path named, never swallowed"): the
    sheet cannot be stored (no space left): ``wdg mail run`` fails (exit code
    1) naming the file and the error, raises the alert ``abruf`` (and mails it:
    SMTP works), answers nothing and leaves the mail in the inbox. With room
    again, the next run takes it once, answers it once and ends the alert.
    (Before, the player was told "Ihre Mail konnte nicht gelesen werden".)"""
    import errno
    import json
    import os
    from pathlib import Path

    from typer.testing import CliRunner

    import wdg.store.intake as store_intake
    from wdg import exitcodes
    from wdg.cli import app
    from wdg.mail import alerts

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
    s.wait_for(gm, 1)
    real = store_intake.write_durable
    full = {"on": True}

    def write(path, data, mode=0o644):
        if full["on"] and Path(path).name == ".k1.txt.new":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, data, mode)

    monkeypatch.setattr(store_intake, "write_durable", write)
    args = ["mail", "run", "test", "--json", "--no-pdf", "-C", str(mc.camp.root)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == exitcodes.FAILED, res.output
    doc = json.loads(res.stdout)
    said = " ".join(doc["messages"])
    assert doc["status"] == "failed" and ".k1.txt.new" in said and "ENOSPC" in said
    assert "kein Platz mehr auf dem Datenträger" in said and "nicht gespeichert" in said
    active = alerts.read(mc.seg_dir).active
    assert "abruf" in active and ".k1.txt.new" in active["abruf"].text
    alarm = [m for m in s.wait_for(gm, 2) if m.message.get("X-Wdg-Alarm")]
    assert [m.message["X-Wdg-Alarm"] for m in alarm] == ["abruf"]
    assert ".k1.txt.new" in alarm[0].message.get_content()
    assert [m.subject for m in s.messages(gm) if not m.message.get("X-Wdg-Alarm")] == \
        ["Spielzug"]  # still in the inbox
    s.settled()
    assert s.messages(p[0]) == []  # the player was told nothing
    assert not list(mc.camp.root.glob("orders/test/*/k1.txt"))

    full["on"] = False  # room again
    res = CliRunner().invoke(app, args)
    assert res.exit_code != exitcodes.FAILED, res.output
    assert len(list(mc.camp.root.glob("orders/test/*/k1.txt"))) == 1
    assert "abruf" not in alerts.read(mc.seg_dir).active
    (answer,) = s.wait_for(p[0], 1)
    assert "angenommen" in answer.subject
    assert [m.subject for m in s.messages(gm, "wdg/erledigt")] == ["Spielzug"]
    CliRunner().invoke(app, args)
    s.settled()
    assert len(s.messages(p[0])) == 1
