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


def write_maildir(path, mails, start: int = 1714550400) -> None:
    """A Maildir whose files were delivered one minute apart from ``start``
    (2024-05-01 10:00 +02:00): the delivery time is the file name's stamp."""
    mailbox.Maildir(str(path)).close()
    for i, msg in enumerate(mails):
        (path / "new" / f"{start + 60 * i}.M{i:06d}P1Q{i}.sl").write_bytes(bytes(msg))


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


def test_the_confirmation_of_an_accepted_sheet_ends_with_its_forecast(world, tmp_path):
    """Issue #24: the import's confirmation has a section "Vorschau" — the forecast
    of the sheet on the kingdom's view (wdg.orders.forecast), with the treasury
    before and after, the sheet's first K order among the costs and the second
    refused ("Pro Palast und Mond ... einen Befehl")."""
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails())
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE,
                            outbox=tmp_path / "outbox")
    ok = next(r for r in report.results if r.message_id == "<2@x>")
    text = body(ok.confirmation)
    preview = text[text.index("Vorschau:"):]
    assert "zu Beginn des Mondes:" in preview and "für 100\u00a0GS" in preview \
        and "Volksfeste in" in preview  # the engine's own booking text
    assert "F+ 200 – zu viele Königreichbefehle" in preview  # one palace: one K order
    assert "voraussichtlich" in preview
    wrong = next(r for r in report.results if r.message_id == "<3@x>")
    assert "Vorschau:" not in body(wrong.confirmation)


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


def test_the_sheet_arriving_last_is_in_force_whatever_its_date_says(world, tmp_path):
    """Arrival decides, not the sender's clock: a correction from a clock one day
    behind, imported after the first sheet, is in force."""
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "a.mbox", [standard_mails()[1]])
    write_mbox(tmp_path / "b.mbox", [standard_mails()[0]])
    import_mailbox(camp, world, tmp_path / "a.mbox", deadline=DEADLINE)
    r = import_mailbox(camp, world, tmp_path / "b.mbox", deadline=DEADLINE).results[0]
    folder = camp.orders_dir("test", world.date)
    assert r.status == "angenommen"
    assert "F+ 200" not in (folder / "k1.txt").read_text(encoding="utf-8")
    assert "F+ 200" in (folder / "replaced" / "k1.1.txt").read_text(encoding="utf-8")


def test_a_mail_that_arrived_earlier_imported_later_does_not_count(world, tmp_path):
    """With the server's arrival stamp (``Received:``) a mail that arrived before
    the stored one is kept but not in force."""
    camp = Campaign(tmp_path)
    late, early = standard_mails()[1], standard_mails()[0]
    late["Received"] = "from mx by sl; Wed, 01 May 2024 11:00:05 +0200"
    early["Received"] = "from mx by sl; Wed, 01 May 2024 10:00:05 +0200"
    write_mbox(tmp_path / "a.mbox", [late])
    write_mbox(tmp_path / "b.mbox", [early])
    import_mailbox(camp, world, tmp_path / "a.mbox", deadline=DEADLINE)
    r = import_mailbox(camp, world, tmp_path / "b.mbox", deadline=DEADLINE).results[0]
    folder = camp.orders_dir("test", world.date)
    assert r.status == "älter"
    assert "F+ 200" in (folder / "k1.txt").read_text(encoding="utf-8")
    assert (folder / "replaced" / "k1.1.txt").is_file()


def test_maildir_import_works_like_mbox(world, tmp_path):
    camp = Campaign(tmp_path)
    write_maildir(tmp_path / "Maildir", standard_mails()[:3])
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


def test_a_hand_placed_sheet_and_two_mails_keep_three_numbered_files(world, tmp_path):
    """"Nothing is deleted": a sheet placed by hand is replaced like a received
    one; each replaced sheet keeps its own numbered file."""
    camp = Campaign(tmp_path)
    folder = camp.orders_dir("test", world.date)
    folder.mkdir(parents=True)
    (folder / "k1.txt").write_text(sheet(1, "geheim-1", "F+ 7\n"), encoding="utf-8")
    write_mbox(tmp_path / "in.mbox", standard_mails()[:2])
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE)
    assert [r.status for r in report.results if r.kingdom == 1] == ["angenommen"] * 2
    texts = sorted(p.read_text(encoding="utf-8") for p in folder.rglob("k1*.txt"))
    assert len(texts) == 3
    assert any("F+ 7" in t for t in texts) and any("F+ 200" in t for t in texts)
    assert "F+ 200" in (folder / "k1.txt").read_text(encoding="utf-8")
    assert sorted(p.name for p in (folder / "replaced").iterdir()) == \
        ["k1.1.txt", "k1.2.receipt.yaml", "k1.2.txt"]


def test_a_hostile_from_header_does_not_stop_a_valid_sheet_in_the_same_mailbox(world, tmp_path):
    """A ``From:`` encoded-word decoding to CR LF is a refusal with a reason (and
    the raw mail kept), never an exception; the next mail is stored and confirmed."""
    camp = Campaign(tmp_path)
    evil = (b"From: =?utf-8?b?WA0KQmNjOiBldmlsQHg=?=\nMessage-ID: =?utf-8?b?"
            b"PGFAYj4NCkJjYzogZXZpbEB4?=\nDate: Wed, 01 May 2024 10:00:00 +0200\n\n"
            + sheet(2, "geheim-2").encode())
    good = standard_mails()[0]
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    box.add(evil)
    box.add(good)
    box.flush()
    box.close()
    out = tmp_path / "out"
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE, outbox=out)
    bad, ok = report.results
    assert bad.status == "abgelehnt" and "Absender" in bad.reason and bad.confirmation is None
    assert bad.quarantined is not None and bad.quarantined.read_bytes().startswith(b"From: =?")
    assert ok.status == "angenommen" and ok.confirmation.is_file()
    for p in out.glob("*.eml"):
        assert b"evil" not in p.read_bytes()


def test_a_mail_whose_reading_fails_is_quarantined_and_the_rest_go_on(world, tmp_path,
                                                                       monkeypatch):
    """"One bad mail never stops the others": whatever a mail's content raises,
    the mail is kept in quarantine and named; the next mail is stored."""
    import wdg.orders.intake as intake

    real = intake.part_texts

    def explode(msg):
        if "a@x.org" in str(msg["From"]):
            raise ValueError("year 0 is out of range")
        return real(msg)

    monkeypatch.setattr(intake, "part_texts", explode)
    camp = Campaign(tmp_path)
    write_mbox(tmp_path / "in.mbox", standard_mails()[:5])
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE)
    statuses = [r.status for r in report.results]
    assert statuses[:2] == ["Quarantäne", "Quarantäne"] and "angenommen" in statuses[2:]
    assert "Mail nicht lesbar (ValueError)" in report.table()
    assert report.refused and report.valid == [4]


def test_the_mbox_delivery_line_gives_the_arrival_in_the_game_master_s_zone(world, tmp_path):
    """An mbox ``From_`` line (written by the delivering host, local time)
    decides lateness when no ``Received:`` header says more: 12:59 is in time,
    13:01 is late ("bis 13:00 Uhr"), whatever the sender's ``Date:`` claims."""
    camp = Campaign(tmp_path)
    early = bytes(standard_mails()[0]).replace(b"Wed, 01 May 2024 10:00:00", b"Wed, 01 May 2024 "
                                                                               b"09:00:00")
    late = bytes(standard_mails()[1]).replace(b"11:00:00", b"09:30:00")
    (tmp_path / "in.mbox").write_bytes(
        b"From a@x.org Wed May  1 12:59:00 2024\n" + early + b"\n"
        b"From a@x.org Wed May  1 13:01:00 2024\n" + late + b"\n")
    report = import_mailbox(camp, world, tmp_path / "in.mbox", deadline=DEADLINE)
    assert [r.status for r in report.results] == ["angenommen", "abgelehnt"]
    assert "Eintreffschluß" in report.results[1].reason
