"""Result mails through real Postfix into the players' Dovecot boxes (issue #34,
outbound): headers, attachments, exactly once, corrections, kingdoms added,
retired or handed to a bot, the lock, a damaged record."""

from __future__ import annotations

import email.utils
from datetime import datetime, timedelta, timezone

import pytest

from tests.mail.mailcamp import SEG, MailCampaign

pytestmark = pytest.mark.slow


@pytest.fixture
def camp(tmp_path, mail_world):
    c = MailCampaign(tmp_path / "c", mail_world)
    c("turn", "run", SEG, "--force", "-q")
    return c


def _wait(c: MailCampaign, k: int, n: int) -> list:
    c.servers.wait_for(c.player_of[k], n, timeout=30)
    c.servers.settled()
    return c.inbox(k)


def test_every_player_gets_the_result_once_with_real_headers_and_every_attachment(camp):
    c = camp
    out = c("reports", "send", SEG).stdout
    assert "versandt 3" in out
    month = "0412-04"
    for k in (1, 2, 3):
        got = _wait(c, k, 1)
        assert len(got) == 1
        msg = got[0].message
        assert msg["From"] == f"Spielleitung Brief <{c.world.gm.address}>"
        assert "Dormit 412" in msg["Subject"] and "Berichtigung" not in msg["Subject"]
        sent = email.utils.parsedate_to_datetime(msg["Date"])
        assert abs(sent - datetime.now(timezone.utc)) < timedelta(minutes=5)  # real time
        assert sent.utcoffset() in (timedelta(hours=1), timedelta(hours=2))  # Europe/Berlin
        assert msg["Message-ID"].endswith(f"@{c.servers.domain}>")
        names = sorted(p.get_filename() for p in msg.iter_attachments())
        assert names == [f"ansicht-k{k}-{month}.yaml", f"ergebnis-k{k}-{month}.html",
                         f"ergebnis-k{k}-{month}.pdf", f"goetterbotschaft-{month}.pdf",
                         f"spielzug-k{k}-0412-05.txt"]
        html = next(p for p in msg.iter_attachments() if p.get_filename().endswith(".html"))
        assert b"<script" in html.get_content().encode() or "<script" in html.get_content()
        body = msg.get_body(("plain",)).get_content()
        assert "ERGEBNISBLATT" in body and f"ergebnis-k{k}-{month}.html" in body
    again = c("reports", "send", SEG, code=3)
    assert "alle schon früher versandt" in again.stdout
    c("reports", "send", SEG, month, code=3)
    c.servers.settled()
    assert all(len(c.inbox(k)) == 1 for k in (1, 2, 3))


def test_undo_and_a_new_run_send_a_marked_correction_only_to_changed_sheets(camp):
    """Since 0.3.0 every sheet prints the month's digest: a re-run with a changed
    input (kingdom 2's new sheet) changes every kingdom's sheet, so all three get
    one correction each, and nobody gets a sheet twice (docs/reports.md)."""
    c = camp
    c("reports", "send", SEG)
    for k in (1, 2, 3):
        _wait(c, k, 1)
    c("turn", "undo", SEG)
    # after the undo the month is no longer archived: nothing to send, and it says why
    gone = c("reports", "send", SEG, "0412-04", code=1)
    assert "nicht ausgewertet" in gone.stderr and "turn undo" in gone.stderr
    # kingdom 2's player sends a sheet now: its result changes, the others' do not
    c("orders", "template", SEG, "2", "-o", "f2.txt")
    form = (c.root / "f2.txt").read_text(encoding="utf-8")
    sheet = form.replace("Passwort: \n", f"Passwort: {c.passwords[2]}\n", 1)
    d = c.root / "orders" / SEG / "0412-04"
    d.mkdir(parents=True, exist_ok=True)
    (d / "k2.txt").write_text(sheet, encoding="utf-8")
    c("turn", "run", SEG, "--force", "-q")
    out = c("reports", "send", SEG).stdout
    assert "berichtigt 3" in out and "schon früher versandt 0" in out, out
    got = _wait(c, 2, 2)
    first, fix = got[0].message, got[1].message
    assert fix["Subject"] == "Berichtigung: " + first["Subject"]
    assert fix["References"] == first["Message-ID"]
    assert fix.get_body(("plain",)).get_content().startswith("BERICHTIGUNG")
    c.servers.settled()
    for k in (1, 3):  # one result and one correction each, never a third mail
        box = c.inbox(k)
        subjects = sorted(m.message["Subject"] for m in box)
        assert len(box) == 2 and subjects[0].startswith("Berichtigung: "), subjects


def test_adding_retiring_and_a_bot_never_break_sending_an_earlier_month(camp):
    c = camp
    c("kingdom", "add", SEG, "--name", "Nordmark", "--ruler", "Ulf", "--email",
      "ulf-neu@wdg.test")
    c("kingdom", "retire", SEG, "1")
    c("kingdom", "set", SEG, "3", "--bot", "Baumeister")
    out = c("reports", "send", SEG, "0412-04").stdout
    assert "versandt 2" in out and "Königreich 3: keine Mail — wird vom Bot" in out, out
    assert len(_wait(c, 1, 1)) == 1  # the retired player's last sheet still goes out
    assert len(_wait(c, 2, 1)) == 1
    c.servers.settled()
    assert c.inbox(3) == []  # the dropped player gets nothing


def test_rebuilding_reports_sends_nothing_again_and_a_damaged_record_is_refused(camp):
    import shutil

    c = camp
    c("reports", "send", SEG)
    shutil.rmtree(c.root / "reports")
    c("reports", "send", SEG, code=3)
    (c.seg_dir / "mail" / "sent.yaml").write_text("")
    bad = c("reports", "send", SEG, code=1)
    assert "Versandbuch" in bad.stderr and "leer" in bad.stderr
    c.servers.settled()
    assert all(len(c.inbox(k)) == 1 for k in (1, 2, 3))


def test_sending_waits_for_no_one_while_another_command_holds_the_lock(camp):
    from wdg.store.lock import segment_lock

    c = camp
    with segment_lock(c.seg_dir):
        busy = c("reports", "send", SEG, code=6)
    assert "locked" in busy.stderr or "gesperrt" in busy.stderr
    c.servers.settled()
    assert all(c.inbox(k) == [] for k in (1, 2, 3))


def test_first_forms_and_the_starting_map_reach_every_player_once_and_a_new_kingdom_later(
        tmp_path, mail_world):
    c = MailCampaign(tmp_path / "c", mail_world)
    out = c("mail", "forms", SEG).stdout
    assert "versandt 3" in out
    for k in (1, 2, 3):
        got = _wait(c, k, 1)
        msg = got[0].message
        assert "Spielzug für" in msg["Subject"] and "Dormit 412" in msg["Subject"]
        names = sorted(p.get_filename() for p in msg.iter_attachments())
        assert names == [f"ansicht-k{k}-0412-04.yaml", f"karte-k{k}.svg",
                         f"spielzug-k{k}-0412-04.txt"]
        form = next(p for p in msg.iter_attachments() if p.get_filename().endswith(".txt"))
        assert f"Königreich: {k}" in form.get_content()
        assert c.passwords[k] not in msg.as_string()  # never a password by mail
    c("mail", "forms", SEG, code=3)
    c("kingdom", "add", SEG, "--name", "Nordmark", "--ruler", "Ulf", "--email",
      c.world.players[3].address)
    out = c("mail", "forms", SEG).stdout
    assert "versandt 1" in out and "schon früher versandt 3" in out
    c.servers.wait_for(c.world.players[3], 1, timeout=30)
    c.servers.settled()
    assert all(len(c.inbox(k)) == 1 for k in (1, 2, 3))
