"""The mail guard routes a refused sheet by its code (issue #44): a wrong
password is :attr:`IntakeReason.WRONG_PASSWORD` whatever the German words of
the reason, so rewording them in the text layer's one table
(:data:`wdg.orders.confirm.REASON_WORDS`) changes what the player reads, not
whom the guard answers. Against the real Dovecot/Postfix, as tests/mail/test_guard.py."""

from __future__ import annotations

from mailservers import sheet_mail
from wdg.mail.fetch import fetch
from wdg.orders import confirm
from wdg.orders.outcome import IntakeReason, IntakeStatus


def _text(msg) -> str:
    return "\n".join(p.get_content() for p in msg.walk()
                     if p.get_content_type() == "text/plain")


def test_a_reworded_wrong_password_is_still_told_to_the_player_once(mail_campaign, monkeypatch):
    """Three guesses in the player's name and three from a stranger, with the
    reason reworded to "das Kennwort stimmt nicht" (before #44 the guard knew a
    wrong password only as the words "falsches Passwort"): none is taken, the
    stranger hears nothing, the player on record is told once, in the new words."""
    monkeypatch.setitem(confirm.REASON_WORDS, IntakeReason.WRONG_PASSWORD,
                        "das Kennwort stimmt nicht")
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    stranger = s.new_world(players=1).players[0]
    for i in range(3):
        s.append(gm, bytes(sheet_mail(p[3], gm, "Spielzug", mc.sheet(4, password=f"rate{i}"))))
        s.append(gm, bytes(sheet_mail(stranger, gm, "Spielzug",
                                      mc.sheet(4, password=f"versuch{i}"))))
    rep = fetch(mc.camp, "test")
    assert [(r.status, r.cause, r.reason) for r in rep.results] == [
        (IntakeStatus.REJECTED, IntakeReason.WRONG_PASSWORD, "das Kennwort stimmt nicht")] * 6
    s.flush_queue()
    assert s.messages(stranger) == []
    told = s.messages(p[3])
    assert len(told) == 1 and "das Kennwort stimmt nicht" in _text(told[0].message)
    assert "falsches Passwort" not in _text(told[0].message)
