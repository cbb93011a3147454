"""Names in mail headers (issue #39 item 6): cleaned by the one text policy when they
are set and again when a header is built; one bad mail never stops the others. Against
the real Postfix/Dovecot, through the command line."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest

from tests.mail.mailcamp import SEG, MailCampaign
from wdg.store.segment import load_segment, save_segment


def test_kingdom_set_and_add_clean_line_breaks_and_separators(tmp_path, mail_world):
    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=2, provinces="3x3")
    out = c("kingdom", "set", SEG, "1", "--name", "Reich\u2028der\r\nNacht\x0b\x0c",
            "--ruler", "Ulf\u2029der\x1bGroße").stdout
    assert "U+2028" in out and "U+000D" in out and "Hinweis" in out
    seg = load_segment(c.seg_dir)
    assert seg.kingdoms[1].name == "Reich der Nacht"
    assert seg.kingdoms[1].ruler == "Ulf der Große"
    out = c("kingdom", "add", SEG, "--name", "Neu\nland", "--ruler", "Ina", "--email",
            "ina@wdg.test").stdout
    assert "U+000A" in out
    number = int(re.search(r"Königreich (\d+) \(Neu land\) angelegt", out).group(1))
    assert load_segment(c.seg_dir).kingdoms[number].name == "Neu land"
    refused = c("kingdom", "set", SEG, "2", "--name", "\u2028\r\n", code=None)
    assert refused.returncode != 0 and "leer" in refused.stderr + refused.stdout


@pytest.mark.slow
def test_a_name_stored_with_a_line_break_stops_no_result_mail(tmp_path, mail_world):
    """A name with U+2028, CR/LF stored by an older wdg (or by hand): every kingdom gets
    its result mail, the names in its headers cleaned — kingdom 1 got its result and 2-3
    did not, before."""
    c = MailCampaign(tmp_path / "c", mail_world, kingdoms=3)
    seg = load_segment(c.seg_dir)
    seg.kingdoms[1].name = "Reich\u2028eins"
    seg.kingdoms[2].player.name = "Spieler\r\nBcc: opfer@wdg.test"
    seg.kingdoms[3].name = "Drei\u2029"
    save_segment(seg, c.seg_dir)
    c("turn", "run", SEG, "--force", "-q")
    c("reports", "send", SEG)
    s = mail_world.servers
    s.settled()  # every result mail is in its box: one more would be counted
    for k in (1, 2, 3):
        got = s.wait_for(c.player_of[k], 1)
        assert len(got) == 1
        msg = got[0].message
        assert "\u2028" not in msg["Subject"] and "\n" not in msg["Subject"]
    two = s.messages(c.player_of[2])[0].message
    assert two["Bcc"] is None and "Spieler Bcc: opfer@wdg.test" in str(two["To"])
    assert "Reich eins" in s.messages(c.player_of[1])[0].message["Subject"]


def test_one_mail_that_cannot_be_built_does_not_stop_the_others(mail_campaign):
    """send_mails: a mail whose building fails is reported as not sent, the rest go out."""
    from wdg.mail.config import load_mail_config
    from wdg.store.sent import Ledger
    from wdg.mail.send import Outgoing, digest, send_mails

    mc = mail_campaign
    s, p = mc.world.servers, mc.world.players
    config = load_mail_config(mc.seg_dir)

    def builder(n: int):
        def build(_correction: bool) -> EmailMessage:
            if n == 2:
                raise ValueError("Header values may not contain linefeed or carriage return")
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = config.sender, p[n - 1].address, f"M{n}"
            msg["Message-ID"] = f"<m{n}@wdg.test>"
            msg.set_content("x")
            return msg
        return build

    mails = [Outgoing(f"test/k{n}", p[n - 1].address, builder(n), digest(b"%d" % n))
             for n in (1, 2, 3)]
    res = send_mails(Ledger(mc.seg_dir), config, mails)
    assert res.sent == ["test/k1", "test/k3"] and "nicht erstellt" in res.failed["test/k2"]
    s.settled()
    assert [m.subject for m in s.wait_for(p[2], 1)] == ["M3"]
    assert [m.subject for m in s.wait_for(p[0], 1)] == ["M1"]
    assert s.messages(p[1]) == []

