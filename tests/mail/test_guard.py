"""The mail guard against the real Dovecot/Postfix (issue #39, items 4 and 7): no loops,
no amplification, no backscatter. Every "nothing more arrived" is checked after the
Postfix queue is empty (every mail wdg handed over was delivered), never after a
fixed sleep."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import yaml

from mailservers import DOMAIN, sheet_mail
from wdg.mail.fetch import fetch


def _text(msg) -> str:
    return "\n".join(p.get_content() for p in msg.walk()
                     if p.get_content_type() == "text/plain")


def _settled(s) -> None:
    """Every mail handed to Postfix is delivered (or bounced), and Postfix reports
    an empty queue: a mailbox counted now holds all it will get."""
    s.settled()


def _limits(mc, **values) -> None:
    data = yaml.safe_load((mc.seg_dir / "mail.yaml").read_text())
    data["limits"] = values
    (mc.seg_dir / "mail.yaml").write_text(yaml.safe_dump(data))


def _raw(sender: str, to: str, subject: str, body: str, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(domain=DOMAIN)
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return bytes(msg)


def _alerts(s, gm, kind: str):
    return [m.message for m in s.messages(gm) if m.message["X-Wdg-Alarm"] == kind]


AUTOMATIC = [
    {"Auto_Submitted": "auto-replied"},
    {"Auto_Submitted": "auto-generated"},
    {"Precedence": "bulk"},
    {"Precedence": "junk"},
    {"Precedence": "list"},
    {"X_Autoreply": "yes"},
    {"X_Autorespond": "Abwesenheit"},
    {"X_Auto_Response_Suppress": "All"},
    {"Auto_Response_Suppress": "OOF"},
    {"List_Id": "<spieler.wdg.test>"},
    {"List_Unsubscribe": "<mailto:leave@wdg.test>"},
    {"Return_Path": "<>"},
]


def test_automatic_mail_is_imported_but_never_answered(mail_campaign):
    """RFC 3834 and every common header marking a mail automatic: the sheet in it is
    judged (a valid one is even taken), but no answer goes out — an answer to an
    auto-reply is how loops start. A bounce from MAILER-DAEMON is not answered either."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    for i, headers in enumerate(AUTOMATIC):
        s.append(gm, _raw(p[0].address, gm.address, "Spielzug",
                          mc.sheet(1, f"# Fassung {i}\n"), **headers))
    s.append(gm, _raw(f"MAILER-DAEMON@{DOMAIN}", gm.address, "Spielzug: Unzustellbar",
                      mc.sheet(2)))
    rep = fetch(mc.camp, "test")
    assert len(rep.results) == len(AUTOMATIC) + 1
    assert all(any("nicht beantwortet" in n for n in r.notes) for r in rep.results), \
        [(r.status, r.notes) for r in rep.results]
    assert rep.sent == [] and rep.moved == len(AUTOMATIC) + 1
    _settled(s)
    assert s.messages(p[0]) == [] and s.messages(p[1]) == []


def _answer_of(s, acc, count: int):
    return s.wait_for(acc, count)[count - 1].message


def test_a_vacation_responder_quoting_the_answer_is_not_answered(mail_campaign):
    """A vacation responder that sets no Auto-Submitted and quotes wdg's answer without
    ``>``: its quoted "Königreich: 3" is read and refused, and not answered — neither
    when it carries In-Reply-To/References of wdg's answer, nor when it carries none
    (the quoted sheet's password is the ``******`` of wdg's echo). Three rounds: no
    mail goes back, the sheet in force stays the player's."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[2], sheet_mail(p[2], gm, "Spielzug", mc.sheet(3)))
    s.wait_for(gm, 1)
    assert [r.status for r in fetch(mc.camp, "test").results] == ["angenommen"]
    answer = _answer_of(s, p[2], 1)
    stored = next(mc.camp.root.glob("orders/test/*/k3.txt")).read_text()
    for _round in range(3):
        for with_ids in (True, False):
            reply = sheet_mail(p[2], gm, f"Abwesend: {answer['Subject']}",
                               "Ich bin bis Montag nicht da.\n\n" + _text(answer))
            if with_ids:
                reply["In-Reply-To"] = answer["Message-ID"]
                reply["References"] = answer["Message-ID"]
            s.send(p[2], reply)
        s.wait_for(gm, 2)
        rep = fetch(mc.camp, "test")
        assert len(rep.results) == 2 and rep.sent == [], rep.table()
        assert all(r.status != "angenommen" for r in rep.results)
        assert all(any("keine Mail-Schleife" in n for n in r.notes) for r in rep.results), \
            rep.table()
    _settled(s)
    assert len(s.messages(p[2])) == 1
    assert next(mc.camp.root.glob("orders/test/*/k3.txt")).read_text() == stored
    # a reply to wdg's answer WITH new orders is taken and answered
    fix = sheet_mail(p[2], gm, f"Re: {answer['Subject']}", mc.sheet(3, "# neu\n"))
    fix["In-Reply-To"] = answer["Message-ID"]
    s.send(p[2], fix)
    s.wait_for(gm, 1)
    assert [r.status for r in fetch(mc.camp, "test").results] == ["angenommen"]
    _settled(s)
    assert len(s.wait_for(p[2], 2)) == 2


def test_a_forged_command_flood_is_answered_once(mail_campaign):
    """Fifteen forged "Ergebnis erneut" and fifteen "Formular" in the victim's name: the
    victim gets one answer to each command, the rest are counted and the game master is
    told once (alert ``flut``); commands from an address that plays nothing are not
    answered at all (no backscatter)."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    stranger = s.new_world(players=1).players[0]
    for i in range(15):
        s.append(gm, _raw(p[0].address, gm.address, "Ergebnis erneut", ""))
        s.append(gm, _raw(p[0].address, gm.address, "Formular", f"{i}"))
    for _ in range(3):
        s.append(gm, _raw(stranger.address, gm.address, "Formular", ""))
    rep = fetch(mc.camp, "test")
    assert len(rep.commands) == 33 and rep.moved == 33
    answered = [c for c in rep.commands if c["answers"]]
    assert sorted(c["command"] for c in answered) == ["ergebnis", "formular"]
    assert sum("schon beantwortet" in c["text"] for c in rep.commands) == 28
    assert sum("kein Königreich" in c["text"] for c in rep.commands) == 3
    _settled(s)
    assert len(s.messages(p[0])) == 2 and s.messages(stranger) == []
    flood = _alerts(s, gm, "flut")
    assert len(flood) == 1 and p[0].address in _text(flood[0])
    # the next hour's flood in the same day: counted again, no second alert mail
    s.append(gm, _raw(p[0].address, gm.address, "Formular", "noch einmal"))
    rep = fetch(mc.camp, "test")
    assert rep.commands[0]["answers"] == []
    _settled(s)
    assert len(_alerts(s, gm, "flut")) == 1 and len(s.messages(p[0])) == 2


def test_answers_per_sender_are_limited(mail_campaign):
    """A player correcting his sheet is answered each time — up to ``limits.
    answers_per_sender`` an hour; further sheets are taken (the last one counts) but
    not answered, and the game master is told."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    _limits(mc, answers_per_sender=3)
    for i in range(5):
        s.append(gm, bytes(sheet_mail(p[1], gm, "Spielzug", mc.sheet(2, f"# Fassung {i}\n"))))
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["angenommen"] * 5
    assert len(rep.sent) == 3
    assert "Fassung 4" in next(mc.camp.root.glob("orders/test/*/k2.txt")).read_text()
    _settled(s)
    assert len(s.messages(p[1])) == 3
    assert len(_alerts(s, gm, "flut")) == 1


def test_password_guesses_are_counted_the_player_told_once_the_gm_alerted(mail_campaign):
    """Ten sheets with a wrong password for kingdom 4 — five forged in the player's name,
    five from a stranger: none is taken; the stranger hears nothing (no backscatter),
    the player on record is told once (not ten times), and the game master gets one
    alert "10 Versuche mit falschem Passwort für Königreich 4"."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    stranger = s.new_world(players=1).players[0]
    for i in range(5):
        s.append(gm, bytes(sheet_mail(p[3], gm, "Spielzug", mc.sheet(4, password=f"rate{i}"))))
        s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug",
                                      mc.sheet(4, password=f"versuch{i}"))))
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["abgelehnt"] * 10
    _settled(s)
    assert s.messages(stranger) == []
    told = s.messages(p[3])
    assert len(told) == 1 and "falsches Passwort" in _text(told[0].message)
    alert = _alerts(s, gm, "passwort")
    assert len(alert) == 1
    assert "10 Versuche mit falschem Passwort für Königreich 4" in _text(alert[0])
    assert stranger.address in _text(alert[0])
    # the counters are stored: an eleventh guess next call is counted, not answered
    s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug", mc.sheet(4, password="elf"))))
    rep = fetch(mc.camp, "test")
    assert rep.sent == []
    assert "11 Versuche" in (mc.seg_dir / "mail" / "alerts.yaml").read_text()
    # the real player with the right password is still answered
    s.append(gm, bytes(sheet_mail(p[3], gm, "Spielzug", mc.sheet(4))))
    assert [r.status for r in fetch(mc.camp, "test").results] == ["angenommen"]
    _settled(s)
    assert len(s.wait_for(p[3], 2)) == 2


def test_sheets_from_addresses_that_play_nothing_are_not_answered(mail_campaign):
    """Backscatter: a sheet naming no kingdom, an unknown kingdom or another kingdom's
    wrong password, sent from an address that plays nothing (a forged From:), gets no
    answer; the address on record of a named kingdom is told instead."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    stranger = s.new_world(players=1).players[0]
    s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug", "Segment: test\nKönigreich: 77\n"
                                                            "Passwort: x\nF+ 1\n")))
    s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug", "Segment: test\nPasswort: x\n")))
    s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug", mc.sheet(5, password="falsch"))))
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["abgelehnt"] * 3
    _settled(s)
    assert s.messages(stranger) == []
    assert len(s.messages(p[4])) == 1


def test_a_foreign_senders_accepted_sheet_is_told_to_the_address_on_record(mail_campaign):
    """The right password from another address replaces the orders (the password is
    what counts); the sender is answered, and the player on record learns it at once:
    "Ihr Spielzug wurde von … ersetzt"."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    other = s.new_world(players=1).players[0]
    s.send(other, sheet_mail(other, gm, "Spielzug", mc.sheet(2, "# von woanders\n")))
    s.wait_for(gm, 1)
    rep = fetch(mc.camp, "test")
    assert [(r.kingdom, r.status) for r in rep.results] == [(2, "angenommen")]
    assert "angenommen" in _answer_of(s, other, 1)["Subject"]
    notice = _answer_of(s, p[1], 1)
    assert "von anderer Adresse ersetzt" in notice["Subject"]
    assert f"Ihr Spielzug wurde von {other.address} ersetzt" in _text(notice)
    assert notice["Auto-Submitted"] == "auto-generated"
    _settled(s)
    assert len(s.messages(p[1])) == 1 and len(s.messages(other)) == 1


KILL_WHILE_ANSWERING = """
import os, signal, sys
import wdg.mail.commands as commands
from wdg.campaign import Campaign
from wdg.mail.fetch import fetch

def killed(*args, **kw):
    os.kill(os.getpid(), signal.SIGKILL)

commands.answer_command = killed
fetch(Campaign.locate(sys.argv[1]), "test")
"""


def test_a_command_whose_answer_failed_is_answered_on_the_retry(mail_campaign, monkeypatch):
    """A crash while answering "Ergebnis erneut" leaves the mail in the inbox and the
    intake record saying "command, not answered"; the next fetch answers it (once). The
    same after a SIGKILL at that point."""
    import subprocess
    import sys
    from pathlib import Path

    import wdg.mail.commands as commands
    from wdg.store.seen import SeenRecord

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    ask = sheet_mail(p[2], gm, "Ergebnis erneut", "")
    s.send(p[2], ask)
    s.wait_for(gm, 1)
    real = commands._result_mail

    def crash(*args, **kw):
        raise RuntimeError("Absturz beim Bauen der Antwort")

    monkeypatch.setattr(commands, "_result_mail", crash)
    rep = fetch(mc.camp, "test")
    assert rep.commands == [] and rep.moved == 0
    assert any("nicht beantwortet (RuntimeError" in n for n in rep.notes), rep.notes
    assert len(s.messages(gm)) == 1
    rec = SeenRecord(mc.seg_dir).get(ask["Message-ID"])
    assert rec.event == "taking" and rec.info["command"] == "ergebnis"
    monkeypatch.setattr(commands, "_result_mail", real)
    rep = fetch(mc.camp, "test")
    assert [c["command"] for c in rep.commands] == ["ergebnis"] and rep.moved == 1
    assert "noch keines" in s.wait_for(p[2], 1)[0].message["Subject"]
    # killed (SIGKILL) while answering: the retry answers it
    ask2 = sheet_mail(p[3], gm, "Ergebnis erneut", "")
    s.send(p[3], ask2)
    s.wait_for(gm, 1)
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", KILL_WHILE_ANSWERING, str(mc.camp.root)],
                          cwd=root, capture_output=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    assert SeenRecord(mc.seg_dir).get(ask2["Message-ID"]).event == "taking"
    rep = fetch(mc.camp, "test")
    assert [(c["command"], c["kingdom"]) for c in rep.commands] == [("ergebnis", 4)]
    assert rep.results == []  # not filed as a sheet mail without a kingdom
    s.wait_for(p[3], 1)
    _settled(s)
    assert len(s.messages(p[3])) == 1 and len(s.messages(p[2])) == 1


def test_orders_import_with_mail_yaml_is_guarded_too(tmp_path, mail_world):
    """``wdg orders import`` of a mailbox (the getmail/fetchmail recipes) sends its
    answers when mail.yaml names an SMTP server: the same guard decides — no answer to
    a stranger's wrong-password sheets, the player on record told once, no answer to
    an automatic mail."""
    import mailbox

    from tests.mail.mailcamp import SEG, MailCampaign

    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=2)
    s = mail_world.servers
    stranger = s.new_world(players=1).players[0]
    k = min(c.player_of)
    box = mailbox.mbox(str(tmp_path / "eingang.mbox"))
    for i in range(4):
        box.add(sheet_mail(stranger, mail_world.gm, "Spielzug",
                           f"Segment: {SEG}\nKönigreich: {k}\nPasswort: rate{i}\n"))
    auto = sheet_mail(c.player_of[k], mail_world.gm, "Spielzug",
                      f"Segment: {SEG}\nKönigreich: {k}\nPasswort: {c.passwords[k]}\n")
    auto["Auto-Submitted"] = "auto-replied"
    box.add(auto)
    box.flush()
    out = c("orders", "import", SEG, str(tmp_path / "eingang.mbox"), code=None)
    assert out.returncode in (0, 3), out.stderr
    assert "nicht beantwortet" in out.stderr
    s.flush_queue()
    assert s.messages(stranger) == []
    told = s.messages(c.player_of[k])
    assert len(told) == 1 and "falsches Passwort" in told[0].message.get_body().get_content()


def test_limits_in_mail_yaml_are_checked(tmp_path):
    """``limits:`` of mail.yaml: unknown keys and values below 1 are refused with the
    key's name before anything is fetched; the defaults hold otherwise."""
    import pytest

    from wdg.errors import DataError
    from wdg.mail.config import load_mail_config
    from wdg.mail.guard import Limits, limits

    (tmp_path / "mail.yaml").write_text('from: "SL <sl@example.org>"\n')
    assert limits(load_mail_config(tmp_path)) == Limits()
    (tmp_path / "mail.yaml").write_text('from: "SL <sl@example.org>"\n'
                                        "limits: {answers_per_sender: 2, same_command: 1}\n")
    got = limits(load_mail_config(tmp_path))
    assert got.answers_per_sender == 2 and got.window_minutes == 60
    for bad, key in (("{answers_per_sendr: 2}", "limits.answers_per_sendr"),
                     ("{same_command: 0}", "limits.same_command"),
                     ("{window_minutes: '60'}", "limits.window_minutes"), ("[1]", "limits")):
        (tmp_path / "mail.yaml").write_text(f'from: "SL <sl@example.org>"\nlimits: {bad}\n')
        with pytest.raises(DataError, match=key.replace(".", r"\.")):
            load_mail_config(tmp_path)
