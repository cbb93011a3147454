"""A season left alone (issue #39, "Must show"): the unattended path against the
suite's real Dovecot and Postfix, with the failures injected in turn — each is
answered as the issue asks, the game master's box holds each alert once (and the
news that it is over), and every player's box holds exactly what the docs promise
(docs/gamemaster.md "Wenn etwas schiefgeht", docs/players.md), nothing twice.

Injected: SMTP down (the submission port closed), SMTP login refused (a wrong
password), the SMTP password variable missing, IMAP login refused (``mail run`` and
``mail watch``), a server without IDLE (``mail watch`` says so once and polls), a
sheet the provider filed into ``Junk``, an inbox that is stuck (the intake record
damaged: mail is read but cannot be taken in); and the mail guard's cases
(wdg.mail.guard): a vacation responder quoting wdg's answer without ``>`` and
without Auto-Submitted, a forged command flood, ten forged password guesses, a
kingdom name with U+2028.

Waits are on observable events only: a mail in a box (``wait_for``), Postfix's queue
empty (``flush_queue``), a line the watch printed."""

from __future__ import annotations

import email.utils
import json
import re
import signal
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest

from mailservers import DOMAIN, free_port, sheet_mail
from tests.mail.mailcamp import SEG, MailCampaign

pytestmark = pytest.mark.slow
BERLIN = ZoneInfo("Europe/Berlin")


def _at(minutes: int) -> str:
    return (datetime.now(BERLIN) + timedelta(minutes=minutes)).strftime("%d.%m.%Y %H:%M")


class Season:
    def __init__(self, c: MailCampaign) -> None:
        self.c = c
        self.sheets: Counter[int] = Counter()
        """Sheet mails each kingdom's player sent (each gets one answer)."""

    def sheet(self, k: int) -> str:
        self.c("orders", "template", SEG, str(k), "-o", f"f{k}.txt")
        form = (self.c.root / f"f{k}.txt").read_text(encoding="utf-8")
        return form.replace("Passwort: \n", f"Passwort: {self.c.passwords[k]}\n", 1)

    def mail(self, k: int) -> None:
        """Kingdom k's player mails a sheet (through Postfix)."""
        acc = self.c.player_of[k]
        self.c.servers.send(acc, sheet_mail(acc, self.c.world.gm, "Spielzug", self.sheet(k)))
        self.sheets[k] += 1

    def put(self, k: int, folder: str = "INBOX") -> None:
        """Kingdom k's sheet put straight into the game master's ``folder`` (IMAP APPEND:
        what the provider does when Postfix is not involved, or its spam filter)."""
        acc = self.c.player_of[k]
        raw = bytes(sheet_mail(acc, self.c.world.gm, "Spielzug", self.sheet(k)))
        self.c.servers.append(self.c.world.gm, raw, folder)
        self.sheets[k] += 1

    def run(self, *, code: int, env: dict | None = None) -> tuple[dict, str]:
        self.c.servers.flush_queue()
        out = self.c("mail", "run", SEG, "--json", "--no-pdf", code=code, env=env)
        return json.loads(out.stdout), out.stderr

    def status(self) -> dict:
        return json.loads(self.c("mail", "status", SEG, "--json").stdout)

    def answered(self, k: int) -> list:
        return [m for m in self.c.inbox(k) if m.subject.startswith("Spielzug Königreich")]


def _alerts(c: MailCampaign) -> list:
    return [m for m in c.servers.messages(c.world.gm) if m.message.get("X-Wdg-Alarm")]


def _wait_alerts(c: MailCampaign, n: int) -> list:
    c.servers.flush_queue()
    got = _alerts(c)
    assert len(got) == n, [m.subject for m in got]
    return got


def _text(msg) -> str:
    return "\n".join(p.get_content() for p in msg.walk()
                     if p.get_content_type() == "text/plain")


def _raw(sender: str, to: str, subject: str, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = email.utils.make_msgid(domain=DOMAIN)
    msg.set_content(body)
    return bytes(msg)


def doc_month_name(c: MailCampaign) -> str:
    """The current month's short name (``Dormit 412``)."""
    return json.loads(c("turn", "deadline", SEG, "--json").stdout)["month_name"]


def test_a_season_left_alone(tmp_path, mail_servers):
    world = mail_servers.new_world(players=4)
    c = MailCampaign(tmp_path / "c", world, kingdoms=4, provinces="3x3")
    s = Season(c)
    c("mail", "forms", SEG)
    c("turn", "deadline", SEG, _at(180))

    # --- 1. SMTP down: the sheet is taken, its answer is owed, the call fails (7) ----
    c.write_mail_yaml(port=free_port())  # nothing listens there: connection refused
    s.put(1)
    doc, err = s.run(code=7)
    assert doc["status"] == "unsent" and doc["fetched"]["new"] == 1
    assert [k for k in doc["owed"] if k.startswith("antwort/")], doc["owed"]
    assert "Fehler: 1 Antwort(en) an Spieler nicht gesendet" in err  # stderr: the journal
    st = s.status()
    assert [a["kind"] for a in st["alerts"]] == ["smtp"]
    assert [o["state"] for o in st["owed"]] == ["fällig"]
    assert st["owed_alerts"] and st["last_fetch"] > st["last_send"]  # the forms' send
    s.run(code=7)  # still down: still a failure, no second alert
    assert len(s.status()["owed_alerts"]) == 1
    c.write_mail_yaml()  # SMTP back
    doc, _ = s.run(code=4)  # answered; waiting for the deadline (docs: exit 4)
    assert doc["status"] == "waiting" and not doc["owed"]
    got = _wait_alerts(c, 1)
    assert got[0].message["X-Wdg-Alarm"] == "smtp" and "inzwischen behoben" in got[0].subject
    assert len(s.answered(1)) == 1
    st = s.status()
    assert st["alerts"] == [] and st["owed"] == [] and st["last_send"] >= st["last_fetch"]

    # --- 2. SMTP login refused, then the password variable missing -----------------
    s.put(2)
    doc, err = s.run(code=7, env={"WDG_SMTP_PASSWORD": "falsch-falsch"})
    assert "Anmeldung abgelehnt" in json.dumps(doc, ensure_ascii=False)
    assert [a["kind"] for a in s.status()["alerts"]] == ["smtp-anmeldung"]
    doc, err = s.run(code=7, env={"WDG_SMTP_PASSWORD": ""})
    text = " ".join(doc["messages"])
    assert "WDG_SMTP_PASSWORD" in text and "nichts gesendet" in text
    assert "nichts abgeholt" not in text and "nichts wurde gesendet oder abgeholt" not in text
    s.put(3)
    doc, _ = s.run(code=7, env={"WDG_SMTP_PASSWORD": ""})  # fetched all the same
    assert doc["fetched"]["new"] == 1 and len(doc["owed"]) == 2
    doc, _ = s.run(code=4)
    assert len(doc["fetched"]["answers"]["sent"]) == 2
    got = _wait_alerts(c, 2)
    assert got[1].message["X-Wdg-Alarm"] == "smtp-anmeldung"
    assert len(s.answered(2)) == 1 and len(s.answered(3)) == 1

    # --- 3. IMAP login refused: mail run fails (1) and tells at once; watch ends -----
    doc, err = s.run(code=1, env={"WDG_IMAP_PASSWORD": "falsch-falsch"})
    assert doc["status"] == "failed" and "Anmeldung" in " ".join(doc["messages"])
    got = _wait_alerts(c, 3)
    assert got[2].message["X-Wdg-Alarm"] == "imap-anmeldung"
    watch = c("mail", "watch", SEG, code=1, env={"WDG_IMAP_PASSWORD": "falsch-falsch"},
              timeout=120)
    assert "wdg mail watch beendet" in watch.stderr and "nicht von selbst" in watch.stderr
    assert len(_alerts(c)) == 3  # once a day for that kind
    s.run(code=4)  # the password is right again: nothing new
    got = _wait_alerts(c, 4)
    assert got[3].message["X-Wdg-Alarm"] == "imap-anmeldung" and "behoben" in got[3].subject

    # --- 4. a server without IDLE: the watch says so once and polls every 2 s --------
    port = c.servers.start_noidle_dovecot()
    yaml_text = (c.seg_dir / "mail.yaml").read_text(encoding="utf-8")
    (c.seg_dir / "mail.yaml").write_text(
        yaml_text.replace(f"port: {c.servers.imaps}\n", f"port: {port}\n")
        + "  poll_seconds: 2\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "wdg", "mail", "watch", SEG, "-C",
                             str(c.root)], cwd=c.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=c.env)
    try:
        warn = proc.stderr.readline()
        assert "bietet kein IDLE" in warn and "alle 2 s" in warn, warn
        assert "warte auf Mail" in proc.stdout.readline()
        s.mail(4)
        c.servers.wait_for(c.player_of[4], 2, timeout=60)  # the form and the answer
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert (warn + err).count("bietet kein IDLE") == 1
    assert len(s.answered(4)) == 1
    (c.seg_dir / "mail.yaml").write_text(yaml_text, encoding="utf-8")

    # --- 5. a sheet in Junk: reported, not answered; read once the folder is listed --
    gm = c.servers.imap_client(c.world.gm)
    try:
        gm.create("Junk")
    finally:
        gm.logout()
    s.put(1, "Junk")
    doc, _ = s.run(code=4)
    assert any("Junk" in n and "nicht liest" in n for n in doc["fetched"]["notes"])
    got = _wait_alerts(c, 5)
    assert got[4].message["X-Wdg-Alarm"] == "ordner" and "Junk" in got[4].message.get_content()
    assert len(s.answered(1)) == 1  # not answered from Junk
    s.run(code=4)  # looked at once: no second report
    assert len(_alerts(c)) == 5
    c.write_mail_yaml(extra="  folders: [INBOX, Junk]\n")
    doc, _ = s.run(code=4)
    assert doc["fetched"]["new"] == 1
    c.servers.flush_queue()
    assert len(s.answered(1)) == 2

    # --- 6. an inbox that is stuck: the intake record damaged, the mail stays ---------
    seen = c.seg_dir / "mail" / "seen.yaml"
    good = seen.read_bytes()
    seen.write_bytes(good + b"- kaputt\n")
    s.put(2)
    doc, err = s.run(code=1)
    assert doc["status"] == "failed" and "Eingangsbuch" in " ".join(doc["messages"])
    got = _wait_alerts(c, 6)
    assert got[5].message["X-Wdg-Alarm"] == "abruf"
    s.run(code=1)  # the same failure: no second alert mail
    seen.write_bytes(good)  # restored from the backup
    doc, _ = s.run(code=4)
    assert doc["fetched"]["new"] == 1
    got = _wait_alerts(c, 7)
    assert got[6].message["X-Wdg-Alarm"] == "abruf" and "behoben" in got[6].subject

    # --- 7. a vacation responder that quotes wdg's answer without '>' and sets no
    #        Auto-Submitted: its quoted "Königreich: 2" is not answered, three rounds ---
    answer = s.answered(2)[-1].message
    in_force = next(c.root.glob(f"orders/{SEG}/*/k2.txt")).read_bytes()
    before = len(c.inbox(2))
    for _ in range(3):
        for with_ids in (True, False):
            reply = sheet_mail(c.player_of[2], c.world.gm, f"Abwesend: {answer['Subject']}",
                               "Ich bin bis Montag nicht da.\n\n" + _text(answer))
            if with_ids:
                reply["In-Reply-To"] = reply["References"] = answer["Message-ID"]
            c.servers.send(c.player_of[2], reply)
        doc, _ = s.run(code=4)
        assert doc["fetched"]["answers"]["sent"] == [], doc["fetched"]
        c.servers.flush_queue()
        assert len(c.inbox(2)) == before  # nothing went back: no loop
    assert next(c.root.glob(f"orders/{SEG}/*/k2.txt")).read_bytes() == in_force

    # --- 8. a forged command flood in kingdom 1's name, and commands from a stranger --
    stranger = c.servers.new_world(players=1).players[0]
    for i in range(15):
        c.servers.append(c.world.gm, _raw(c.player_of[1].address, c.world.gm.address,
                                          "Ergebnis erneut", ""))
        c.servers.append(c.world.gm, _raw(c.player_of[1].address, c.world.gm.address,
                                          "Formular", f"{i}"))
    for _ in range(3):
        c.servers.append(c.world.gm, _raw(stranger.address, c.world.gm.address, "Formular", ""))
    s.run(code=4)
    c.servers.flush_queue()
    commands = [m.subject for m in c.inbox(1) if re.match(r"(Formular|Ergebnis) Königreich 1",
                                                           m.subject)]
    assert sorted(commands) == ["Ergebnis Königreich 1: noch keines",
                                f"Formular Königreich 1, {doc_month_name(c)}"], commands
    assert c.servers.messages(stranger) == []  # no backscatter
    flood = [m for m in _alerts(c) if m.message["X-Wdg-Alarm"] == "flut"]
    assert len(flood) == 1 and c.player_of[1].address in _text(flood[0].message)

    # --- 9. ten forged password guesses for kingdom 3 (five in its player's name) -----
    before = len(c.inbox(3))
    for i in range(5):
        for acc in (c.player_of[3], stranger):
            form = s.sheet(3).replace(f"Passwort: {c.passwords[3]}\n", f"Passwort: rate{i}\n")
            c.servers.append(c.world.gm, bytes(sheet_mail(acc, c.world.gm, "Spielzug", form)))
    s.run(code=4)
    c.servers.flush_queue()
    told = c.inbox(3)[before:]
    assert len(told) == 1 and "falsches Passwort" in _text(told[0].message)  # once, not 10
    s.sheets[3] += 1  # that one answer
    assert c.servers.messages(stranger) == []
    guess = [m for m in _alerts(c) if m.message["X-Wdg-Alarm"] == "passwort"]
    assert len(guess) == 1
    assert "10 Versuche mit falschem Passwort für Königreich 3" in _text(guess[0].message)

    # --- 10. a kingdom name with U+2028: cleaned when set, every result goes out -------
    out = c("kingdom", "set", SEG, "4", "--name", "Nord\u2028mark").stdout
    assert "U+2028" in out

    # --- the month: deadline passes, the results go out once -----------------------
    c("turn", "deadline", SEG, _at(-1), "--force")
    doc, _ = s.run(code=0)
    assert doc["ran"] and len(doc["sent"][-1]["sent"]) == 4
    s.run(code=3)  # no deadline for the next month: nothing to do, nothing twice

    # --- every box ---------------------------------------------------------------------
    c.servers.flush_queue()
    month = re.escape(doc["ran"])
    for k in (1, 2, 3, 4):
        box = c.inbox(k)
        subjects = [m.subject for m in box]
        ids = [m.message["Message-ID"] for m in box]
        assert len(ids) == len(set(ids)), (k, subjects)  # nothing twice
        forms = [x for x in subjects if x.startswith("WdG ") and "Spielzug für" in x]
        results = [x for x in subjects if x.startswith("WdG ") and ": Ergebnis " in x]
        assert len(forms) == 1 and len(results) == 1, (k, subjects)
        assert len(s.answered(k)) == s.sheets[k], (k, subjects)
        assert len(box) == 2 + s.sheets[k] + (2 if k == 1 else 0), (k, subjects)
        assert all("\u2028" not in x for x in subjects)
    assert "Nord mark" in [x for x in (m.subject for m in c.inbox(4)) if ": Ergebnis " in x][0]
    st = s.status()  # every failure over, nothing owed, the history kept
    assert st["alerts"] == [] and st["owed"] == [] and st["owed_alerts"] == [], st
    assert {h["kind"] for h in st["failures"]} >= {"abruf", "passwort", "flut"}
    kinds = Counter(m.message["X-Wdg-Alarm"] for m in _alerts(c))
    assert kinds == Counter({"smtp": 1, "smtp-anmeldung": 1, "imap-anmeldung": 2, "ordner": 1,
                             "abruf": 2, "flut": 1, "passwort": 1})
    assert doc  # (month key checked above)
    assert re.match(r"\d{4}-\d\d", month.replace("\\", ""))
