"""A season by mail (issue #34, "Must show"): three months of five players, run
through the one unattended command ``wdg mail run`` against real Postfix and
Dovecot on loopback — a late sheet, a wrong password, a corrected sheet, a
missing player, a player who joins, undo and re-run — and at the end every
player's IMAP box is checked: each result exactly once, the corrected one
marked "Berichtigung", the joining player's form and results, the answers.

Rule ("Der Spielzug"): "Der Spielzug muß den Segmentleiter bis zu dem von ihm
angegebenen Datum (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben!"

The clock: rather than wait for real deadlines, the test moves a month's
deadline to a minute ago (``wdg turn deadline --force``) once the on-time
sheets have arrived — exactly what the passing of time does; a sheet mailed
after that arrives (by the server's clock, IMAP INTERNALDATE) after the
deadline and is late."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mailservers import sheet_mail
from tests.mail.mailcamp import SEG, MailCampaign
from wdg.world.calendar import MonthDate

pytestmark = pytest.mark.slow
BERLIN = ZoneInfo("Europe/Berlin")
MONTHS = ["0412-04", "0412-05", "0412-06"]
SHORT = {m: MonthDate.parse(m).short() for m in MONTHS}


def _at(minutes: int) -> str:
    return (datetime.now(BERLIN) + timedelta(minutes=minutes)).strftime("%d.%m.%Y %H:%M")


class Season:
    def __init__(self, c: MailCampaign, extra) -> None:
        self.c = c
        self.extra = extra  # the sixth account: the player who joins

    def form(self, k: int) -> str:
        self.c("orders", "template", SEG, str(k), "-o", f"f{k}.txt")
        return (self.c.root / f"f{k}.txt").read_text(encoding="utf-8")

    def sheet(self, k: int, password: str | None = None, settle: int | None = None) -> str:
        form = self.form(k)
        text = form.replace("Passwort: \n", f"Passwort: {password or self.c.passwords[k]}\n", 1)
        if settle is not None:
            capital = re.search(r"^Heer \d{4} (\d{3}\.\d{2})", form, re.M).group(1)
            text = re.sub(r"(# Diplomatische Beziehungen.*\n)",
                          lambda m: m.group(1) + f"SS {capital} {settle}\n", text)
        return text

    def mail(self, k: int, body: str) -> None:
        acc = self.c.player_of[k]
        self.c.servers.send(acc, sheet_mail(acc, self.c.world.gm, "Spielzug", body))

    def run(self, *args: str, code: int) -> dict:
        self.c.servers.flush_queue()
        out = self.c("mail", "run", SEG, "--json", "--no-pdf", *args, code=code)
        return json.loads(out.stdout)


def _results(c: MailCampaign, k: int) -> list[str]:
    return [m.subject for m in c.inbox(k) if "Ergebnis" in m.subject]


def test_a_season_by_mail_through_the_unattended_command(tmp_path, mail_servers):
    world = mail_servers.new_world(players=6)
    extra = world.players.pop()  # joins in the second month
    c = MailCampaign(tmp_path / "c", world, kingdoms=5, provinces="3x3")
    s = Season(c, extra)
    c("mail", "forms", SEG)

    # --- month 1: p1..p3 on time, p2 corrects its sheet, p4 a wrong password,
    #     p5 sends nothing, p3 a late second sheet ---------------------------
    c("turn", "deadline", SEG, _at(120))
    for k in (1, 2, 3):
        s.mail(k, s.sheet(k))
    s.mail(2, s.sheet(2, settle=30))  # the correction replaces the first sheet
    s.mail(4, s.sheet(4, password="falsch-falsch-1"))
    c.servers.wait_for(c.world.gm, 5)
    doc = s.run(code=4)  # fetched and answered; waiting for the deadline
    assert doc["status"] == "waiting" and doc["fetched"]["new"] == 5
    status = json.loads(c("turn", "status", SEG, "--json").stdout)
    assert status["valid"] == [1, 2, 3] and status["missing"] == [4, 5]
    wrong = [m for m in doc["fetched"]["mails"] if m["sender"] == c.player_of[4].address]
    assert wrong and (wrong[0]["status"] == "abgelehnt" or "4" in status["refused"]), wrong
    assert "asswort" in (wrong[0]["reason"] + str(status["refused"]))  # the wrong password
    c("turn", "deadline", SEG, _at(-1), "--force")  # the deadline passes
    s.mail(3, s.sheet(3, settle=40))  # too late: must not replace the on-time sheet
    c.servers.wait_for(c.world.gm, 1)
    doc = s.run("--next-deadline", _at(240), code=0)
    assert doc["ran"] == "0412-04"
    late = [m for m in doc["fetched"]["mails"] if m["status"] != "angenommen"]
    assert len(late) == 1 and late[0]["kingdom"] == 3, doc["fetched"]["mails"]
    assert doc["sent"][-1]["sent"] == [f"bericht/0412-04/k{k}" for k in range(1, 6)]
    archived = c.root / "worlds" / SEG / "turns" / "0412-04" / "orders"
    assert not re.search(r"^SS \S+ 40$", (archived / "k3.txt").read_text(encoding="utf-8"),
                         re.M)  # the on-time sheet was used, not the late one

    # --- month 2: a sixth player joins; everyone sends; then undo + re-run -----
    out = c("kingdom", "add", SEG, "--name", "Nordmark", "--ruler", "Ulf", "--email",
            extra.address).stdout
    k6 = int(re.search(r"Königreich (\d+) \(Nordmark\) angelegt", out).group(1))
    c.passwords[k6] = re.search(r"Passwort .*: (\S+)$", out, re.M).group(1)
    c.player_of[k6] = extra
    forms = c("mail", "forms", SEG).stdout
    assert "versandt 1" in forms  # only the new player; the others have their forms
    players = [1, 2, 3, 4, 5, k6]
    for k in players:
        s.mail(k, s.sheet(k, settle=50 if k == 1 else None))
    c.servers.wait_for(c.world.gm, 6)
    s.run(code=4)
    c("turn", "deadline", SEG, _at(-1), "--force")
    doc = s.run("--next-deadline", _at(300), code=0)
    assert doc["ran"] == "0412-05" and len(doc["sent"][-1]["sent"]) == 6
    nxt = json.loads(c("turn", "deadline", SEG, "--json").stdout)
    assert nxt["month"] == "0412-06" and nxt["deadline"] is not None
    # the game master finds a mistake: undo, fix kingdom 1's sheet, the next call runs again
    c("turn", "undo", SEG)
    k1 = c.root / "orders" / SEG / "0412-05" / "k1.txt"
    k1.write_text(k1.read_text(encoding="utf-8").replace(" 50\n", " 20\n"), encoding="utf-8")
    doc = s.run(code=0)
    assert doc["ran"] == "0412-05"
    kept = json.loads(c("turn", "deadline", SEG, "--json").stdout)
    assert kept["deadline"] == nxt["deadline"]  # the re-run kept the next deadline
    # every sheet names the month's digest, which the corrected input changed:
    # every player gets one correction (docs/reports.md, "Corrections")
    assert sorted(doc["sent"][-1]["corrected"]) == sorted(f"bericht/0412-05/k{k}"
                                                          for k in players)
    assert doc["sent"][-1]["already"] == []

    # --- month 3: everyone but kingdom 5 ---------------------------------------
    for k in players:
        if k != 5:
            s.mail(k, s.sheet(k))
    c.servers.wait_for(c.world.gm, 5)
    assert s.run(code=4)["fetched"]["new"] == 5
    c("turn", "deadline", SEG, _at(-1), "--force")
    doc = s.run(code=0)
    assert doc["ran"] == "0412-06"
    assert s.run(code=3)["status"] == "nothing"  # no deadline for the fourth month yet

    # --- every player's box -------------------------------------------------------
    c.servers.flush_queue()
    for k in players:
        c.servers.wait_for(c.player_of[k], 1)
    c.servers.settled()
    for k in players:
        subjects = _results(c, k)
        counts = Counter((m, "Berichtigung" in subj) for subj in subjects
                         for m in MONTHS if SHORT[m] in subj)
        months = MONTHS if k != k6 else MONTHS[1:]
        expected = Counter({(m, False): 1 for m in months})
        expected[("0412-05", True)] = 1  # the correction, marked: the re-run's new digest
        assert counts == expected, (k, subjects)
        assert len(subjects) == sum(expected.values())
    # the answers: every sheet mail got one (p2 two, p3 two, p4 the refusal)
    answers = {k: [m for m in c.inbox(k) if "Ergebnis" not in m.subject
                   and "Spielzug für" not in m.subject] for k in players}
    assert len(answers[2]) == 1 + 2 + 1 and len(answers[3]) == 2 + 1 + 1
    assert len(answers[5]) == 1 and len(answers[k6]) == 2
    forms = {k: [m for m in c.inbox(k) if "Spielzug für" in m.subject] for k in players}
    assert all(len(v) == 1 for v in forms.values())
