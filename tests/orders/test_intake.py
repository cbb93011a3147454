"""Mailbox intake on real mbox and Maildir files built here ("Der Spielzug":
EINTREFFSCHLUSS 13:00; passwords as salted hashes; file names from ids)."""

from __future__ import annotations

import email
import email.policy
import mailbox
from email.message import EmailMessage

import yaml

from wdg.campaign import Campaign
from wdg.orders.intake import import_mailbox, parse_deadline

DEADLINE = parse_deadline("2024-05-01 13:00")


def sheet(n: int, password: str, extra: str = "") -> str:
    return f"Segment: test\nKönigreich: {n}\nPasswort: {password}\nK\nF+ 100\n{extra}"


def mail(sender: str, date: str, body: str | None = None, *, msgid: str,
         attachment: bytes | None = None, charset: str = "latin-1",
         html: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "sl@example.org"
    msg["Subject"] = "Spielzug"
    msg["Date"] = date
    msg["Message-ID"] = msgid
    if html is not None:
        msg.set_content(html, subtype="html")
        return msg
    msg.set_content(body or "Anbei mein Zug.")
    if attachment is not None:
        msg.add_attachment(attachment, maintype="text", subtype="plain",
                           filename="../../etc/zug.txt", params={"charset": charset})
    return msg


def body(path) -> str:
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    return msg.get_content()


def standard_mails() -> list[EmailMessage]:
    return [
        mail("a@x.org", "Wed, 01 May 2024 10:00:00 +0200", sheet(1, "geheim-1"), msgid="<1@x>"),
        mail("a@x.org", "Wed, 01 May 2024 11:00:00 +0200",
             sheet(1, "geheim-1", "F+ 200\n"), msgid="<2@x>"),
        mail("b@x.org", "Wed, 01 May 2024 09:00:00 +0200", sheet(2, "falsch"), msgid="<3@x>"),
        mail("c@x.org", "Wed, 01 May 2024 13:05:00 +0200", sheet(3, "geheim-3"), msgid="<4@x>"),
        mail("d@x.org", "Wed, 01 May 2024 08:00:00 +0200", None, msgid="<5@x>",
             attachment=sheet(4, "geheim-4", "BOTSCHAFT 1\nGrüße aus dem Süden\nENDE\n")
             .encode("latin-1")),
        mail("e@x.org", "Wed, 01 May 2024 08:30:00 +0200", msgid="<6@x>",
             html="<p>Segment: test Königreich: 2</p>"),
    ]


def write_mbox(path, mails) -> None:
    box = mailbox.mbox(str(path))
    for msg in mails:
        box.add(msg)
    box.flush()
    box.close()


def test_mbox_import_stores_valid_sheets_and_rejects_the_rest(world, tmp_path):
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE)
    folder = camp.orders_dir("test", world.date)
    by_id = {r.message_id: r for r in report.results}
    assert by_id["<3@x>"].reason == "falsches Passwort"
    assert by_id["<4@x>"].reason.startswith("nach dem Eintreffschluß")
    assert by_id["<6@x>"].reason.startswith("nur HTML")
    assert report.valid == [1, 4] and report.missing == [2, 3]
    # the later sheet of kingdom 1 replaced the earlier, which is kept
    assert "F+ 200" in (folder / "k1.txt").read_text(encoding="utf-8")
    assert "F+ 200" not in (folder / "replaced" / "k1.1.txt").read_text(encoding="utf-8")
    receipt = yaml.safe_load((folder / "k1.receipt.yaml").read_text(encoding="utf-8"))
    assert receipt["message_id"] == "<2@x>" and receipt["sender"] == "a@x.org"
    assert len(receipt["sha256"]) == 64
    # the Latin-1 attachment is stored as UTF-8 with its umlauts intact
    assert "Grüße aus dem Süden" in (folder / "k4.txt").read_text(encoding="utf-8")
    # nothing named after mail text; nothing for rejected kingdoms
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["k1.receipt.yaml", "k1.txt", "k4.receipt.yaml", "k4.txt", "replaced"]
    assert "Gültige Spielzüge: 1, 4" in report.table()


def test_every_mail_gets_a_german_confirmation(world, tmp_path):
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    out = tmp_path / "outbox"
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE, outbox=out)
    assert len(list(out.glob("*.eml"))) == 6
    wrong = next(r for r in report.results if r.message_id == "<3@x>")
    text = body(wrong.confirmation)
    assert "NICHT" in text and "falsches Passwort" in text
    ok = next(r for r in report.results if r.message_id == "<2@x>")
    msg = email.message_from_bytes(ok.confirmation.read_bytes(), policy=email.policy.default)
    assert msg["To"] == "a@x.org" and msg["In-Reply-To"] == "<2@x>"
    text = body(ok.confirmation)
    assert "angenommen" in text and "F+ 200" in text and "Heer 0101 fehlt" in text


def test_importing_the_same_mailbox_twice_stores_nothing_twice(world, tmp_path):
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    out = tmp_path / "outbox"
    import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE, outbox=out)
    folder = camp.orders_dir("test", world.date)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    again = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE, outbox=out)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert {r.status for r in again.results if r.kingdom in (1, 4)} == {"bereits erfasst"}
    assert "F+ 200" in (folder / "k1.txt").read_text(encoding="utf-8")


def test_an_older_sheet_arriving_later_does_not_replace_the_newer(world, tmp_path):
    """"the newest valid sheet before the deadline replaces earlier ones"."""
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "a.mbox", [standard_mails()[1]])
    write_mbox(tmp_path / "b.mbox", [standard_mails()[0]])
    import_mailbox(camp, world, tmp_path / "a.mbox", deadline=DEADLINE)
    r = import_mailbox(camp, world, tmp_path / "b.mbox", deadline=DEADLINE).results[0]
    folder = camp.orders_dir("test", world.date)
    assert r.status == "älter"
    assert "F+ 200" in (folder / "k1.txt").read_text(encoding="utf-8")
    assert (folder / "replaced" / "k1.1.txt").is_file()


def test_maildir_import_works_like_mbox(world, tmp_path):
    camp = Campaign(tmp_path)
    md = mailbox.Maildir(str(tmp_path / "Maildir"))
    for msg in standard_mails()[:3]:
        md.add(msg)
    md.close()
    report = import_mailbox(camp, world, tmp_path / "Maildir", deadline=DEADLINE)
    assert report.valid == [1]
    assert sorted(r.status for r in report.results) == ["abgelehnt", "angenommen", "angenommen"]


def test_unknown_kingdom_missing_password_and_oversized_mails_are_rejected(world, tmp_path):
    camp = Campaign(tmp_path)
    mails = [
        mail("x@x.org", "Wed, 01 May 2024 10:00:00 +0200", sheet(9, "geheim-9"), msgid="<7@x>"),
        mail("y@x.org", "Wed, 01 May 2024 10:00:00 +0200", sheet(2, ""), msgid="<8@x>"),
        mail("z@x.org", "Wed, 01 May 2024 10:00:00 +0200",
             sheet(2, "geheim-2", "# " + "x" * 3000 + "\n"), msgid="<9@x>"),
    ]
    write_mbox(tmp_path / "in.mbox", mails)
    report = import_mailbox(camp, world, tmp_path / "in.mbox", max_bytes=2000)
    reasons = {r.message_id: r.reason for r in report.results}
    assert reasons["<7@x>"] == "unbekanntes Königreich 9"
    assert reasons["<8@x>"] == "Passwort fehlt"
    assert reasons["<9@x>"].startswith("Mail zu groß")
    assert report.valid == []


def test_a_sheet_for_another_month_is_rejected_not_accepted(world, tmp_path):
    """The month's run refuses a sheet whose ``Mond:`` is not the segment's month;
    the intake must not tell the player "angenommen" for it."""
    camp = Campaign(tmp_path)
    other = world.date.next()
    mails = [mail("a@x.org", "Wed, 01 May 2024 10:00:00 +0200",
                  sheet(1, "geheim-1", f"Mond: {other.key}\n"), msgid="<10@x>"),
             mail("b@x.org", "Wed, 01 May 2024 10:00:00 +0200",
                  sheet(2, "geheim-2", f"Mond: {world.date.key}\n"), msgid="<11@x>")]
    write_mbox(tmp_path / "in.mbox", mails)
    report = import_mailbox(camp, world, tmp_path / "in.mbox")
    reasons = {r.message_id: (r.status, r.reason) for r in report.results}
    assert reasons["<10@x>"] == ("abgelehnt", f"Spielzug für den Mond {other.short()}, "
                                              f"angenommen wird {world.date.short()}")
    assert reasons["<11@x>"][0] == "angenommen"
    assert report.valid == [2]
