"""``wdg mail fetch`` against the real Dovecot/Postfix (issue #34, Deliver 1 and 2):
IMAP over verified TLS, the arrival time from the server (INTERNALDATE), each mail
imported once across months, processed mail filed away, other mail untouched,
answers in the players' boxes."""

from __future__ import annotations

import imaplib
import time

import pytest
import yaml

from mailservers import sheet_mail
from wdg.errors import StateError
from wdg.mail.fetch import fetch
from wdg.world.deadline import set_deadline
from wdg.world.storage import save_segment


def test_fetch_imports_answers_and_files_away(mail_campaign):
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    s.send(p[0], sheet_mail(p[0], gm, "Spielzug", mc.sheet(1)))
    s.send(p[1], sheet_mail(p[1], gm, "Spielzug Königreich 2", mc.sheet(2, password="falsch")))
    s.send(p[2], sheet_mail(p[2], gm, "Urlaubsfotos", "Hallo, anbei die Bilder."))
    s.wait_for(gm, 3)
    rep = fetch(mc.camp, "test")
    assert [(r.kingdom, r.status) for r in rep.results] == [(1, "angenommen"), (2, "abgelehnt")]
    assert rep.ignored == 1 and rep.moved == 2
    assert (mc.camp.root / "orders/test/0412-04/k1.txt").is_file() or \
        list((mc.camp.root / "orders/test").glob("*/k1.txt"))
    # the inbox keeps only the mail not for the game, unread
    left = s.messages(gm)
    assert [m.subject for m in left] == ["Urlaubsfotos"]
    assert "\\Seen" not in left[0].flags
    assert sorted(m.subject for m in s.messages(gm, "wdg/erledigt")) == \
        ["Spielzug", "Spielzug Königreich 2"]
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
    assert rep2.results == [] and rep2.sent == [] and rep2.ignored == 1
    time.sleep(0.5)
    assert len(s.messages(p[0])) == 1 and len(s.messages(p[1])) == 1
