"""Bounded work per mail (issue #39 item 5) against the real Dovecot: command subjects
matched in linear time, header fields read partially and cut before parsing, big mails
judged by their size and read in chunks, mail not for the game moved out of the inbox
once judged. The timings are in ``make bench`` (wdg/bench/mail.py); here, what happens."""

from __future__ import annotations

import hashlib

import yaml

from mailservers import DOMAIN, sheet_mail
from wdg.mail.commands import command_of, normal_subject
from wdg.mail.fetch import capped_headers, fetch, for_the_game


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def test_subjects_are_matched_after_collapsing_blanks():
    assert command_of("Re:  AW:   Ergebnis \t noch  einmal  senden !") == "ergebnis"
    assert command_of("Formular" + " " * 30_000) == "formular"
    assert command_of("Formular" + " " * 8_000 + "x") is None
    assert command_of(" " * 512_000) is None
    assert normal_subject("a\r\n b\t c") == "a b c"


def test_a_header_folded_200000_times_is_cut_before_parsing():
    raw = b"From: p@wdg.test\r\nSubject: Spielzug" + b"\r\n x" * 200_000 + \
        b"\r\nMessage-ID: <a@wdg.test>\r\n\r\n"
    head = capped_headers(raw)
    assert head["Message-ID"] is None or True  # beyond the cut: not needed to judge
    assert str(head["Subject"]).startswith("Spielzug x x")
    assert len(str(head["Subject"])) < 5_000
    assert for_the_game(head, {})


def test_a_big_mail_is_judged_by_its_size_and_kept_in_part(mail_campaign):
    """A 2 MB sheet mail (the limit is 512 KB): refused as too big with a clear answer,
    its first 64 KB kept in quarantine with the SHA-256 of the whole mail — read in
    chunks, never whole."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    msg = sheet_mail(p[0], gm, "Spielzug", mc.sheet(1) + "# Füllung\n" * 200_000)
    raw = _crlf(bytes(msg))
    assert len(raw) > 2_000_000
    s.append(gm, raw)
    rep = fetch(mc.camp, "test")
    assert [r.status for r in rep.results] == ["Quarantäne"]
    assert "Mail zu groß" in rep.results[0].reason
    kept = rep.results[0].quarantined
    assert kept.stat().st_size == 65_536
    reason = kept.with_name(kept.name.replace(".eml", ".grund.txt")).read_text()
    assert hashlib.sha256(raw).hexdigest() in reason
    assert "zu groß" in s.wait_for(p[0], 1)[0].message["Subject"] + \
        s.messages(p[0])[0].message.get_body().get_content()
    # the same mail again (copied back): known by its Message-ID, not answered twice
    s.append(gm, raw)
    rep = fetch(mc.camp, "test")
    assert rep.sent == [] and rep.moved == 1
    s.flush_queue()
    assert len(s.messages(p[0])) == 1


def test_foreign_mail_is_moved_once_and_a_neighbours_mail_stays(mail_campaign):
    """Mail not for the game is moved to imap.foreign_folder once judged (the next call
    does not judge it again); mail another segment of the campaign takes from the same
    mailbox stays for that segment; the game master's own mail (alerts to him) stays."""
    from tests.mail.segments import make_segment
    from wdg.store.segment import save_segment

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    data = yaml.safe_load((mc.seg_dir / "mail.yaml").read_text())
    data["imap"]["accept"] = {"to": gm.address}
    (mc.seg_dir / "mail.yaml").write_text(yaml.safe_dump(data))
    save_segment(make_segment(mc.world, name="zwei"), mc.camp.segment_dir("zwei"))
    data["imap"]["accept"] = {"to": f"zwei@{DOMAIN}"}
    (mc.camp.segment_dir("zwei") / "mail.yaml").write_text(yaml.safe_dump(data))
    neighbour = sheet_mail(p[0], gm, "Spielzug", mc.sheet(1).replace("test", "zwei"))
    del neighbour["To"]
    neighbour["To"] = f"zwei@{DOMAIN}"
    s.append(gm, bytes(neighbour))
    for i in range(5):
        spam = sheet_mail(p[1], gm, f"Angebot {i}", "Kaufen Sie jetzt!")
        del spam["To"]
        spam["To"] = f"jemand@{DOMAIN}"
        s.append(gm, bytes(spam))
    own = sheet_mail(gm, gm, "Notiz an mich", "nicht verschieben")
    del own["To"]
    own["To"] = f"jemand@{DOMAIN}"
    s.append(gm, bytes(own))
    rep = fetch(mc.camp, "test")
    assert rep.foreign_moved == 5 and rep.results == []
    assert sorted(m.subject for m in s.messages(gm)) == ["Notiz an mich", "Spielzug"]
    assert len(s.messages(gm, "wdg/fremd")) == 5
    rep = fetch(mc.camp, "test")
    assert rep.foreign_moved == 0 and rep.ignored == 2
    rep = fetch(mc.camp, "zwei")
    assert [(r.kingdom, r.status) for r in rep.results] == [(1, "angenommen")]
    assert [m.subject for m in s.messages(gm)] == ["Notiz an mich"]
    # foreign_folder: "" leaves such mail where it is
    data = yaml.safe_load((mc.seg_dir / "mail.yaml").read_text())
    data["imap"]["foreign_folder"] = ""
    (mc.seg_dir / "mail.yaml").write_text(yaml.safe_dump(data))
    holiday = sheet_mail(p[2], gm, "Urlaub", "Hallo")
    del holiday["To"]
    holiday["To"] = f"jemand@{DOMAIN}"
    s.append(gm, bytes(holiday))
    assert fetch(mc.camp, "test").foreign_moved == 0
    assert len(s.messages(gm)) == 2


def test_nothing_is_moved_while_a_neighbours_rule_cannot_be_read(mail_campaign):
    """Another segment of the campaign with a mail.yaml that cannot be read: its rule
    for mail for the game is unknown, so no mail is moved out as foreign (it might be
    that segment's)."""
    from tests.mail.segments import make_segment
    from wdg.store.segment import save_segment

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    save_segment(make_segment(mc.world, name="zwei"), mc.camp.segment_dir("zwei"))
    (mc.camp.segment_dir("zwei") / "mail.yaml").write_text("imap: [kaputt\n")
    holiday = sheet_mail(p[2], gm, "Urlaub", "Hallo")
    s.append(gm, bytes(holiday))
    rep = fetch(mc.camp, "test")
    assert rep.foreign_moved == 0 and rep.ignored == 1
    assert [m.subject for m in s.messages(gm)] == ["Urlaub"]
