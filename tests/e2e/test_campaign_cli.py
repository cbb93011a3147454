"""One game master's campaign from nothing, through the real command line only.

Every step runs ``python -m wdg ...`` in a subprocess against one campaign
directory (module-scoped, the steps build on each other in file order) and
checks what a game master would check: exit codes, the lines printed, the files
on disk, and that no command ever prints a traceback.

Segment ``myworld``: 2x2 provinces, kingdoms 1-3 from the generator (seed 11;
4 and 5 are city states), kingdom 6 registered by hand. Month 1 is Dormit 412
(``0412-04``), month 2 Endex 412 (``0412-05``).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import json
import mailbox
import os
import re
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from aiosmtpd.controller import Controller

from wdg.store.files import PACK, read_archived, read_pack, write_pack
from wdg.store.lock import segment_lock

ROOT = Path(__file__).resolve().parents[2]
SEG = "myworld"
M1, M2 = "0412-04", "0412-05"
# The generator's map for seed 11: a land neighbour of each capital (the capitals are
# 201.32, 102.22, 101.27 and, for the kingdom added by hand, 202.30).
MOVES = {1: "O", 2: "SO", 3: "NW", 6: "W"}
MESSAGE_TO = {1: 2, 2: 3, 3: 1}  # a neighbour on each kingdom's diplomacy list


# --- helpers ------------------------------------------------------------------------------

class Wdg:
    """The campaign and the command line."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.passwords: dict[int, str] = {}
        self.old_passwords: dict[int, str] = {}
        self.capitals: dict[int, str] = {}
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "WDG_CAMPAIGN": ""}

    def __call__(self, *args: str, code: int = 0, cwd: Path | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "wdg", *args], capture_output=True, text=True,
                              cwd=cwd or self.root, env=self.env, timeout=120)
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        assert proc.returncode == code, (args, proc.returncode, proc.stdout, proc.stderr)
        return proc

    def fails(self, *args: str) -> str:
        """A refused request: exit 1, one clear ``Fehler:`` line, nothing changed on disk."""
        before = tree(self.root)
        proc = self(*args, code=1)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Fehler: "), proc.stderr
        assert tree(self.root) == before, f"{args} changed the campaign"
        return lines[0]

    def month(self, month: str = M1) -> Path:
        return self.root / "orders" / SEG / month

    def reports(self, month: str = M1) -> Path:
        return self.root / "reports" / SEG / month

    def archive(self, month: str = M1) -> Path:
        return self.root / "worlds" / SEG / "turns" / month


def tree(d: Path) -> dict[str, str]:
    """Every archived file by its content: compressed files (``.gz``, ``.xz``)
    under their name without the suffix, a pack's members as files of its folder."""
    out = {}
    for p in sorted(d.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(d)
        if p.name == PACK:
            for name, data in read_pack(p).items():
                out[(rel.parent / name).as_posix()] = hashlib.sha256(data).hexdigest()
        elif p.suffix in (".gz", ".xz"):
            out[rel.with_suffix("").as_posix()] = \
                hashlib.sha256(read_archived(p)).hexdigest()
        else:
            out[rel.as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def repack(folder: Path, name: str, change) -> None:
    """Change one member of the pack in ``folder`` (as a hand edit would)."""
    members = dict(read_pack(folder / PACK))
    members[name] = change(members[name])
    with tempfile.TemporaryDirectory() as tmp:
        for member, data in members.items():
            (Path(tmp) / member).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / member).write_bytes(data)
        write_pack(Path(tmp))
        (folder / PACK).write_bytes((Path(tmp) / PACK).read_bytes())


def fill(form: str, password: str, army_orders: str, k_order: str, extra: str = "") -> str:
    """A player's sheet from the pre-filled form: password, the first army's
    orders, one kingdom order, messages at the end."""
    assert "Passwort: \n" in form and "A: \nB: \n" in form
    sheet = form.replace("Passwort: \n", f"Passwort: {password}\n", 1)
    sheet = sheet.replace("A: \nB: \n", army_orders, 1)
    sheet = re.sub(r"(# Diplomatische Beziehungen.*\n)", lambda m: m.group(1) + k_order + "\n", sheet)
    return sheet + extra


def mail(sender: str, date: str, *, body: str | None = None, attachment: bytes | None = None,
         charset: str = "utf-8", html: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "sl@example.org", "Spielzug"
    msg["Date"] = date
    msg["Message-ID"] = f"<{hashlib.sha1((sender + date).encode()).hexdigest()}@example.org>"
    if html is not None:
        msg.set_content(html, subtype="html")
        return msg
    msg.set_content(body or "Anbei mein Spielzug.")
    if attachment is not None:
        msg.add_attachment(attachment, maintype="text", subtype="plain", filename="zug.txt",
                           params={"charset": charset})
    return msg


@pytest.fixture(scope="module")
def wdg(tmp_path_factory) -> Wdg:
    return Wdg(tmp_path_factory.mktemp("campaign"))


# --- 1. a new segment ---------------------------------------------------------------------

def test_1_a_new_segment_with_passwords_status_check_and_map(wdg):
    out = wdg("segment", "new", SEG, "--provinces", "2x2", "--kingdoms", "3", "--seed", "11",
              "-C", str(wdg.root)).stdout
    wdg.passwords = {int(k): pw for k, pw in re.findall(r"^\s+(\d)\s+Reich .*?\s(\S+)$", out, re.M)}
    assert sorted(wdg.passwords) == [1, 2, 3]
    stored = (wdg.root / "worlds" / SEG / "kingdoms.yaml").read_text(encoding="utf-8")
    assert not any(pw in stored for pw in wdg.passwords.values())  # only hashes are stored

    status = wdg("segment", "status", SEG).stdout
    assert "2x2 Provinzen" in status and "Mond Dormit" in status
    assert "keine Befunde" in wdg("segment", "check", SEG).stdout

    wdg("map", SEG, "-o", "karte.svg")
    svg = ET.parse(wdg.root / "karte.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"


# --- 2. a fourth kingdom and a new password -----------------------------------------------

def test_2_register_a_kingdom_and_change_a_password(wdg):
    out = wdg("kingdom", "add", SEG, "--name", "Nordmark", "--ruler", "Ulf",
              "--email", "ulf@example.org").stdout
    number = int(re.search(r"Königreich (\d+) \(Nordmark\) angelegt", out).group(1))
    assert number == 6  # after the city states 4 and 5
    wdg.passwords[6] = re.search(r"Passwort .*: (\S+)$", out, re.M).group(1)

    listing = wdg("kingdom", "list", SEG).stdout.splitlines()
    assert [ln.split()[0] for ln in listing] == ["1", "2", "3", "4", "5", "6"]
    assert "Nordmark" in listing[5] and "ulf@example.org" in listing[5]
    assert "Stadtstaat" in listing[3]

    wdg.old_passwords[1] = wdg.passwords[1]
    out = wdg("kingdom", "set-password", SEG, "1").stdout
    wdg.passwords[1] = re.search(r"Königreich 1: (\S+)$", out, re.M).group(1)
    assert wdg.passwords[1] != wdg.old_passwords[1]


# --- 3. the players' forms and sheets -----------------------------------------------------

def test_3_forms_filled_in_by_the_players_pass_the_checker(wdg):
    for k in (1, 2, 3, 6):
        wdg("orders", "template", SEG, str(k), "-o", f"form{k}.txt")
        form = (wdg.root / f"form{k}.txt").read_text(encoding="utf-8")
        assert f"Königreich: {k}" in form and "Mond: Dormit 412" in form
        extra = ""
        if k in MESSAGE_TO:
            extra = (f"BOTSCHAFT {MESSAGE_TO[k]}\nGruß von Königreich {k} an {MESSAGE_TO[k]}.\nENDE\n"
                     f"BEKANNTMACHUNG\nKönigreich {k} grüßt alle Reiche.\nENDE\n")
        capital = wdg.capitals[k] = re.search(r"^Heer \d{4} (\d{3}\.\d{2})", form, re.M).group(1)
        sheet = fill(form, wdg.passwords[k], f"A: nr 200\nB: b {MOVES[k]}\n", f"SS {capital} 50", extra)
        (wdg.root / f"k{k}.txt").write_text(sheet, encoding="utf-8")
        out = wdg("orders", "check", f"k{k}.txt", "-C", str(wdg.root)).stdout
        assert out.rstrip().endswith("0 Fehler, 0 Warnungen"), out

    broken = (wdg.root / "k1.txt").read_text(encoding="utf-8").replace(f"B: b {MOVES[1]}", "B: b QQ")
    (wdg.root / "kaputt.txt").write_text(broken, encoding="utf-8")
    out = wdg("orders", "check", "kaputt.txt", code=1).stdout.splitlines()
    i = next(i for i, ln in enumerate(out) if ln.endswith("B: b QQ"))
    line_no = int(out[i].split()[0])
    assert out[i + 1].strip() == "^"  # the message stands right under its line
    assert out[i + 2].strip().startswith(f">>> Fehler (Zeile {line_no}, Spalte 6): unbekannte Himmelsrichtung")
    assert out[-1] == "1 Fehler, 0 Warnungen"


# --- 4. the mailbox -----------------------------------------------------------------------

def test_4_the_mailbox_import_keeps_exactly_the_right_sheets(wdg):
    sheet = {k: (wdg.root / f"k{k}.txt").read_text(encoding="utf-8") for k in (1, 2, 3, 6)}
    corrected3 = sheet[3].replace("A: nr 200", "A: nr 300")
    box = mailbox.mbox(str(wdg.root / "eingang.mbox"))
    for msg in [
        mail("eins@example.org", "Mon, 30 Nov 2026 10:00:00 +0100", body=sheet[1]),
        # an old editor: the sheet as a Latin-1 attachment
        mail("zwei@example.org", "Mon, 30 Nov 2026 11:00:00 +0100",
             attachment=sheet[2].replace("–", "-").encode("latin-1"), charset="latin-1"),
        mail("drei@example.org", "Tue, 01 Dec 2026 09:00:00 +0100", body=sheet[3]),
        mail("drei@example.org", "Wed, 02 Dec 2026 18:00:00 +0100", body=corrected3),  # replaces
        mail("ulf@example.org", "Thu, 03 Dec 2026 13:30:00 +0100", body=sheet[6]),  # too late
        mail("dieb@example.org", "Tue, 01 Dec 2026 12:00:00 +0100",  # the old password
             body=sheet[1].replace(wdg.passwords[1], wdg.old_passwords[1])),
        mail("html@example.org", "Tue, 01 Dec 2026 12:30:00 +0100", html=f"<pre>{sheet[6]}</pre>"),
    ]:
        box.add(msg)
    box.flush()
    box.close()

    args = ("orders", "import", SEG, "eingang.mbox", "--deadline", "2026-12-03 13:00",
            "--outbox", "bestaetigungen")
    table = wdg(*args, code=3).stdout  # 3: some mails refused
    rows = {ln.split()[0]: ln for ln in table.splitlines() if "@example.org" in ln}
    assert "angenommen" in rows["eins@example.org"] and "angenommen" in rows["zwei@example.org"]
    assert "ersetzt den früheren Spielzug" in table
    assert "Eintreffschluß" in rows["ulf@example.org"]
    assert "falsches Passwort" in rows["dieb@example.org"]
    assert "nur HTML" in rows["html@example.org"]
    assert "Gültige Spielzüge: 1, 2, 3" in table and "Fehlende Spielzüge: 6" in table

    folder = wdg.month()
    assert sorted(tree(folder)) == ["k1.receipt.yaml", "k1.txt", "k2.receipt.yaml", "k2.txt",
                                    "k3.receipt.yaml", "k3.txt",
                                    "replaced/k3.1.receipt.yaml", "replaced/k3.1.txt"]
    assert (folder / "k1.txt").read_text(encoding="utf-8") == sheet[1]
    assert "Blütenmond" in (folder / "k2.txt").read_text(encoding="utf-8")  # Latin-1 decoded
    assert "A: nr 300" in (folder / "k3.txt").read_text(encoding="utf-8")
    assert "A: nr 200" in (folder / "replaced" / "k3.1.txt").read_text(encoding="utf-8")
    receipt = yaml.safe_load((folder / "k3.receipt.yaml").read_text(encoding="utf-8"))
    assert receipt["sender"] == "drei@example.org" and receipt["kingdom"] == 3

    confirmations = sorted((wdg.root / "bestaetigungen").glob("*.eml"))
    assert len(confirmations) == 7  # every mail is answered
    answer = {}
    for path in confirmations:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        answer[msg["To"]] = msg
    assert "angenommen" in answer["eins@example.org"]["Subject"]
    assert "abgelehnt" in answer["ulf@example.org"]["Subject"]

    before = tree(wdg.root)
    again = wdg(*args, code=3).stdout
    assert again.count("bereits erfasst") == 4
    assert tree(wdg.root) == before  # importing twice changes nothing


# --- 5. the game master's sheet and the month ---------------------------------------------

GM_SHEET = """SEGMENTLEITER
# Dormit 412
FABELWESEN SETZEN troll 102.20 ANZAHL 2 GOLD 800
GOLD 2 +1000 Ersatz für einen verlorenen Brief
NOTIZ 2
Dein Brief vom Vormonat ist leider verloren gegangen; die Gutschrift gleicht es aus.
ENDE
ANKUENDIGUNG
Im Westen wurden Trolle gesichtet.
ENDE
"""


def test_5_status_then_the_month_runs_and_renders_every_report(wdg):
    (wdg.month() / "sl.txt").write_text(GM_SHEET, encoding="utf-8")
    # Ulf's late sheet, typed in by the game master from his letter with a typo in the password
    typed = (wdg.root / "k6.txt").read_text(encoding="utf-8").replace(wdg.passwords[6], "vertippt")
    (wdg.month() / "k6.txt").write_text(typed, encoding="utf-8")

    status = wdg("turn", "status", SEG).stdout
    assert "(0412-04)" in status
    assert "Gültige Spielzüge:  1, 2, 3" in status and "Fehlende Spielzüge: 6" in status
    assert re.search(r"Abgelehnt: Königreich 6: .*Pa(ss|ß)wort ist falsch", status)
    assert "sl.txt): vorhanden" in status
    (wdg.month() / "k6.txt").unlink()  # he will play next month

    out = wdg("turn", "run", SEG, "-q").stdout
    assert f"{SEG} {M1} (Dormit 412) ausgewertet und gespeichert" in out
    assert "Mond Endex" in wdg("segment", "status", SEG).stdout

    rep = wdg.reports()
    for k in (1, 2, 3, 6):
        for name in ("ergebnis.txt", "ergebnis.html", "ansicht.yaml", "spielzug.txt"):
            assert (rep / f"k{k}" / name).is_file()
        assert (rep / f"k{k}" / "ergebnis.pdf").read_bytes().startswith(b"%PDF")
    assert (rep / "goetterbotschaft.pdf").read_bytes().startswith(b"%PDF")
    assert not (rep / "k4").exists()  # city states get no sheet
    text = {k: (rep / f"k{k}" / "ergebnis.txt").read_text(encoding="utf-8") for k in (1, 2, 3, 6)}
    gazette = (rep / "goetterbotschaft.txt").read_text(encoding="utf-8")
    overview = (rep / "overview.txt").read_text(encoding="utf-8")

    note = "Dein Brief vom Vormonat ist leider verloren gegangen"
    assert note in text[2] and "Ersatz für einen verlorenen Brief" in text[2]
    assert all(note not in text[k] for k in (1, 3, 6)) and note not in gazette
    assert "Im Westen wurden Trolle gesichtet." in gazette
    assert "Königreich 1 grüßt alle Reiche." in gazette  # the players' announcements
    assert "Gruß von Königreich 1 an 2." in text[2] and "Gruß von Königreich 1 an 2." not in text[3]
    assert "Heer 0101" in overview
    view1 = yaml.safe_load((rep / "k1" / "ansicht.yaml").read_text(encoding="utf-8"))
    assert view1["month"] == M2
    assert {a["number"]: a["position"] for a in view1["armies"]}[101] != wdg.capitals[1]  # it moved


# --- 6. mail to the players ---------------------------------------------------------------

class _Sink:
    def __init__(self) -> None:
        self.mails: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd's name
        self.mails.append((list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def smtp():
    """A real SMTP server on 127.0.0.1 (aiosmtpd), on a free port."""
    sink = _Sink()
    ctl = Controller(sink, hostname="127.0.0.1", port=_free_port())
    ctl.start()
    yield sink, ctl.port
    ctl.stop()


def test_6_reports_are_mailed_once_to_every_player(wdg, smtp):
    sink, port = smtp
    (wdg.root / "worlds" / SEG / "mail.yaml").write_text(
        f"host: 127.0.0.1\nport: {port}\nstarttls: false\nfrom: sl@example.org\n", encoding="utf-8")
    out = wdg("reports", "send", SEG, M1).stdout
    assert "versandt 4, berichtigt 0, schon früher versandt 0" in out
    again = wdg("reports", "send", SEG, M1, code=3)  # 3: nothing to do (docs/gamemaster.md)
    assert "versandt 0, berichtigt 0, schon früher versandt 4" in again.stdout
    assert "alle schon früher versandt" in again.stdout and again.stderr == ""
    assert len(sink.mails) == 4
    by_rcpt = {tuple(to): email.message_from_bytes(raw, policy=email.policy.default)
               for to, raw in sink.mails}
    assert sorted(by_rcpt) == [("reich1@example.org",), ("reich2@example.org",),
                               ("reich3@example.org",), ("ulf@example.org",)]
    msg = by_rcpt[("ulf@example.org",)]
    assert "Nordmark" in msg.get_body(("plain",)).get_content()
    assert sorted(p.get_filename() for p in msg.iter_attachments()) == [
        "ansicht-k6-0412-04.yaml", "ergebnis-k6-0412-04.html", "ergebnis-k6-0412-04.pdf",
        "goetterbotschaft-0412-04.pdf", "spielzug-k6-0412-05.txt"]


# --- 7. the archive -----------------------------------------------------------------------

def test_7_replay_detects_a_tampered_archive_and_the_history_is_readable(wdg):
    assert "Dateien identisch" in wdg("turn", "replay", SEG, M1).stdout
    stored = wdg.archive() / "outputs" / "reports" / PACK
    original = stored.read_bytes()
    repack(stored.parent, "k2/ergebnis.txt", lambda b: b.replace(b"Ersatz", b"Betrug"))
    bad = wdg("turn", "replay", SEG, M1, code=1)
    assert "outputs/reports/k2/ergebnis.txt (archivierte Datei weicht" in bad.stderr
    assert "outputs/reports/k2/ergebnis.txt" in wdg("turn", "list", SEG, "--verify",
                                                    code=1).stdout
    stored.write_bytes(original)
    wdg("turn", "replay", SEG, M1)

    listing = wdg("turn", "list", SEG).stdout
    assert listing.startswith(M1) and "Dateien vollständig" in listing and "sl.txt" in listing
    assert "Hashes ok" in wdg("turn", "list", SEG, "--verify").stdout
    shown = wdg("turn", "show", SEG, M1, "--kingdom", "2").stdout.splitlines()
    assert shown and all(ln.startswith("K2") for ln in shown)
    assert any("gm.note" in ln for ln in shown)
    history = json.loads(wdg("export", SEG, "--format", "json").stdout)
    assert [m["month"] for m in history["months"]] == [M1]
    assert history["segment"] == SEG


# --- 8. undo, a corrected sheet, the month again, and the next month ----------------------

def test_8_undo_and_rerun_with_a_corrected_sheet_then_a_second_month(wdg, smtp):
    first = tree(wdg.archive())
    assert M1 in wdg("turn", "undo", SEG).stdout
    assert not wdg.archive().exists() and "(0412-04)" in wdg("turn", "status", SEG).stdout
    sheet = wdg.month() / "k3.txt"
    capital = wdg.capitals[3]
    sheet.write_text(sheet.read_text(encoding="utf-8").replace(f"SS {capital} 50", f"SS {capital} 20"),
                     encoding="utf-8")
    wdg("turn", "run", SEG, "-q")  # renders into the archive and delivers, PDFs included
    wdg("reports", "render", SEG, M1, "--no-pdf")  # the month again from its own archive
    second = tree(wdg.archive())
    changed = sorted(name for name in first.keys() | second.keys() if first.get(name) != second.get(name))
    def printed(names):  # the files that print the month's digest
        return {n for n in names if n.startswith("outputs/reports/")
                and n.rsplit("/", 1)[-1].split(".")[0] in ("ergebnis", "goetterbotschaft")}

    # an input changed, so the month's digest did: every result sheet and the
    # Götterbotschaft print the new one — every player learns that the month was
    # run again (issue #40 item 7, docs/storage.md "The month's digest")
    assert printed(changed) == printed(first) and len(printed(first)) >= 3 * 4
    assert [n for n in changed if not n.startswith("state/") and n not in printed(changed)] == [
        "SHA256SUMS", "events.jsonl", "manifest.yaml", "orders/k3.txt",
        "outputs/reports/k3/ansicht.yaml", "outputs/reports/k3/bericht.json",
        "outputs/reports/overview.html", "outputs/reports/overview.txt",
        "provenance.yaml",  # the hash of the corrected sheet among the month's inputs
        "summary.yaml"]
    # the state after differs where a smaller settlement project shows: kingdom 3's
    # treasury, its settlement and project, and the militia (its cap grows with
    # the settlement); the map file, the armies and the segment header do not
    assert [n for n in changed if n.startswith("state/")] == [
        "state/kingdoms.yaml", "state/layers.npz", "state/world.yaml"]
    assert "20 Baueinheiten" in (wdg.reports() / "k3" / "ergebnis.txt").read_text(encoding="utf-8")
    # every sheet goes out again as a correction: kingdom 3's with its corrected
    # orders, the others with the month's new digest (the month was run again)
    sink, _ = smtp
    told = wdg("reports", "send", SEG, M1, "--no-corrections", code=3)
    assert "bericht/0412-04/k3 hat sich seit dem Versand geändert" in told.stderr
    assert len(sink.mails) == 4
    assert "berichtigt 4," in wdg("reports", "send", SEG, M1).stdout
    assert len(sink.mails) == 8
    fixed = next(email.message_from_bytes(raw, policy=email.policy.default)
                 for to, raw in sink.mails[4:] if to == ["reich3@example.org"])
    assert fixed["Subject"].startswith("Berichtigung: ")

    # month 2: the pre-filled forms of the result sheets, sent back with the passwords
    wdg.month(M2).mkdir(parents=True)
    for k in (1, 2, 3, 6):
        form = (wdg.reports() / f"k{k}" / "spielzug.txt").read_text(encoding="utf-8")
        assert "Mond: Endex 412" in form
        (wdg.month(M2) / f"k{k}.txt").write_text(
            fill(form, wdg.passwords[k], "A: \nB: t\n", ""), encoding="utf-8")
    status = wdg("turn", "status", SEG).stdout
    assert "Gültige Spielzüge:  1, 2, 3, 6" in status  # the new password works, month after month
    wdg("turn", "run", SEG, "-q", "--no-render")
    listing = wdg("turn", "list", SEG).stdout.splitlines()
    assert [ln.split()[0] for ln in listing] == [M1, M2]
    wdg("turn", "replay", SEG, M2)


# --- 9. bad input -------------------------------------------------------------------------

def test_9_bad_input_is_one_clear_line_and_changes_nothing(wdg):
    assert "nirgendwo" in wdg.fails("turn", "run", "nirgendwo")
    assert "nirgendwo" in wdg.fails("orders", "template", "nirgendwo", "1")
    assert "Reich 9" in wdg.fails("orders", "template", SEG, "9")
    assert "Reich 9" in wdg.fails("kingdom", "set-password", SEG, "9")
    assert "Reich 9" in wdg.fails("turn", "show", SEG, M1, "--kingdom", "9")

    gm = wdg.month("0412-06") / "sl.txt"
    gm.parent.mkdir(parents=True)
    gm.write_text("SEGMENTLEITER\nGOLD 1 +500 Bonus\nFABELWESEN SETZEN troll 305.20\n", encoding="utf-8")
    msg = wdg.fails("turn", "run", SEG, "--force")
    assert "sl.txt" in msg and "line 3" in msg and "305.20" in msg
    assert "line 3" in wdg("turn", "status", SEG).stdout  # the status names it before the run
    gm.unlink()

    armies = wdg.root / "worlds" / SEG / "armies.yaml"
    good = armies.read_text(encoding="utf-8")
    armies.write_text(re.sub(r"units: \d+", "units: viele", good, count=1), encoding="utf-8")
    for args in (("turn", "run", SEG, "--force"), ("segment", "status", SEG),
                 ("kingdom", "set-password", SEG, "1")):
        msg = wdg.fails(*args)
        assert "armies.yaml" in msg and "units" in msg and "viele" in msg
    armies.write_text(good, encoding="utf-8")

    with segment_lock(wdg.root / "worlds" / SEG):  # another command is working on it
        for args in (("turn", "run", SEG, "--force"), ("turn", "undo", SEG),
                     ("kingdom", "set-password", SEG, "1"),
                     ("orders", "import", SEG, "eingang.mbox")):
            assert f"gesperrt von Prozess {os.getpid()}" in wdg.fails(*args)
    assert "keine Befunde" in wdg("segment", "check", SEG).stdout
