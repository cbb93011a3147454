"""Players' mail commands answered by ``wdg mail fetch`` (issue #34, Deliver 4;
docs/players.md): my order form, a password reset request (to the game master, never
a password in clear), my last result again; only for the address the segment has."""

from __future__ import annotations

import json

import pytest

from mailservers import sheet_mail
from wdg.mail.fetch import fetch


def _text(msg) -> str:
    return "\n".join(p.get_content() for p in msg.walk()
                     if p.get_content_type() == "text/plain")


def test_form_password_and_result_requests(mail_campaign):
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    stranger = s.new_world(players=1).players[0]
    ask_form = sheet_mail(p[0], gm, "Formular", "Bitte das Formular.")
    s.send(p[0], ask_form)
    s.send(p[1], sheet_mail(p[1], gm, "AW: Passwort vergessen", "Königreich: 2\nBitte ein neues."))
    s.send(p[2], sheet_mail(p[2], gm, "Ergebnis erneut", ""))
    s.send(stranger, sheet_mail(stranger, gm, "formular", "Ich will auch mitspielen."))
    s.wait_for(gm, 4)
    rep = fetch(mc.camp, "test")
    assert sorted(c["command"] for c in rep.commands) == ["ergebnis", "formular", "formular",
                                                          "passwort"]
    assert rep.results == [] and rep.moved == 4
    # the order form, as an attachment, answering the request
    form = s.wait_for(p[0], 1)[0].message
    assert form["Subject"].startswith("Formular Königreich 1")
    assert form["In-Reply-To"] == ask_form["Message-ID"]
    assert form["Auto-Submitted"] == "auto-replied"
    att = [a for a in form.iter_attachments()]
    assert [a.get_filename() for a in att] == ["spielzug-k1.txt"]
    assert "Königreich: 1" in att[0].get_content()
    # the password request: the game master is told (it stays in his inbox), the
    # player gets a note; no password anywhere
    s.settled()
    note = s.wait_for(p[1], 1)[0].message
    assert "weitergeleitet" in note["Subject"]
    to_gm = [m.message for m in s.wait_for(gm, 1)]
    assert [m["Subject"] for m in to_gm] == ["Passwortanfrage Königreich 2 (test)"]
    assert "wdg kingdom set-password test 2" in _text(to_gm[0])
    for m in (note, to_gm[0]):
        assert "geheim-2" not in m.as_string() and "Passwort:" not in _text(m)
    # no month run yet: no result to send, said so
    assert "noch keines" in s.wait_for(p[2], 1)[0].message["Subject"]
    # someone who plays no kingdom gets nothing at all (issue #39: no backscatter to
    # whoever a forged From: names); the fetch says so
    strange = next(c for c in rep.commands if c["sender"] == stranger.address)
    assert "kein Königreich" in strange["text"] and strange["answers"] == []
    # fetched again: the game master's note stays, nothing is answered twice
    rep2 = fetch(mc.camp, "test")
    assert rep2.commands == [] and rep2.ignored == 1 and rep2.sent == []
    s.settled()
    assert [len(s.messages(a)) for a in (p[0], p[1], p[2], stranger)] == [1, 1, 1, 0]


@pytest.mark.slow
def test_result_again_after_a_month_and_the_cli(tmp_path, mail_world):
    """``Ergebnis erneut`` after a month was run and sent: the same result mail (its
    attachments) once more, marked in the subject, answering the request; through the
    real command line (``wdg mail fetch --json``)."""
    from tests.mail.mailcamp import SEG, MailCampaign

    c = MailCampaign(tmp_path / "c", mail_world)
    c("turn", "run", SEG, "--force", "-q")
    c("reports", "send", SEG)
    k = min(c.player_of)
    acc, gm, s = c.player_of[k], mail_world.gm, mail_world.servers
    first = s.wait_for(acc, 1)[0].message
    ask = sheet_mail(acc, gm, "Re: Ergebnis nochmal", "")
    s.send(acc, ask)
    s.wait_for(gm, 1)
    out = json.loads(c("mail", "fetch", SEG, "--json").stdout)
    assert out["status"] == "done"
    assert [x["command"] for x in out["commands"]] == ["ergebnis"]
    assert out["answers"]["sent"] and out["moved"] == 1
    got = [m.message for m in s.wait_for(acc, 2)]
    again = next(m for m in got if m["Message-ID"] != first["Message-ID"])
    assert again["Subject"].startswith(f"Erneut gesendet: Ergebnis Königreich {k}")
    assert again["In-Reply-To"] == ask["Message-ID"]
    names = sorted(a.get_filename() for a in again.iter_attachments())
    assert names == sorted(a.get_filename() for a in first.iter_attachments())
    assert any(n.endswith(".html") for n in names)
    # fetched again: not sent a third time
    again = json.loads(c("mail", "fetch", SEG, "--json", code=3).stdout)
    assert again["status"] == "nothing" and again["answers"]["sent"] == []
    s.settled()
    assert len(s.messages(acc)) == 2
