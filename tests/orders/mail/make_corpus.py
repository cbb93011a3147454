"""Writes the mail corpus of ``test_mail_corpus.py``: ``NN-name.eml`` (raw
bytes, exactly as a mail client or server would deliver them) and
``expected.yaml`` (what the import must make of each). Run it to rebuild
the files after changing a case: ``python tests/orders/mail/make_corpus.py``.

The segment is the order tests' small world (``tests/orders/conftest.py``):
kingdoms 1-4 with passwords ``geheim-<n>`` (kingdom 4: ``gemüse-4`` for the
NFD case), segment ``test``, month 0412-07, deadline 2024-05-01 13:00
Europe/Berlin. Mails arrive in file order, one minute apart from 10:00; each
sheet orders ``F+ <marker>`` so the sheet in force can be recognised.
"""

from __future__ import annotations

import base64
import quopri
from pathlib import Path

import yaml

HERE = Path(__file__).parent
CASES: list[tuple[str, bytes, dict]] = []


def sheet(k: int, marker: int, *, pw: str | None = None, extra: str = "", head: str = "",
          month: str = "") -> str:
    password = f"geheim-{k}" if pw is None else pw
    mon = f"Mond: {month}\n" if month else ""
    return (f"{head}Segment: test\nKönigreich: {k}\nPasswort: {password}\n{mon}"
            f"K\nF+ {marker}\n{extra}")


def headers(i: int, *, sender: str = "spieler@example.org", date: str | None = "",
            received: bool = True, msgid: str | None = "", subject: str = "Spielzug",
            extra: str = "") -> str:
    minute = 10 * 60 + i
    hh, mm = divmod(minute, 60)
    out = []
    if received:
        out.append(f"Received: from mx.example.org by sl.example.org; "
                   f"Wed, 01 May 2024 {hh:02d}:{mm:02d}:30 +0200")
    if sender is not None:
        out.append(f"From: {sender}")
    out.append("To: sl@example.org")
    out.append(f"Subject: {subject}")
    if date is not None:
        out.append(f"Date: {date or f'Wed, 01 May 2024 {hh:02d}:{mm:02d}:00 +0200'}")
    if msgid is not None:
        out.append(f"Message-ID: {msgid or f'<m{i}@example.org>'}")
    out.append("MIME-Version: 1.0")
    if extra:
        out.append(extra.rstrip("\n"))
    return "\n".join(out) + "\n"


def plain(i: int, body: str, *, charset: str = "utf-8", cte: str = "8bit", encoding: str = "",
          flowed: str = "", **kw) -> bytes:
    ctype = f'Content-Type: text/plain; charset="{charset}"{flowed}\n'
    data = body.encode(encoding or charset) if cte == "8bit" else body.encode(encoding or charset)
    if cte == "quoted-printable":
        data = quopri.encodestring(data)
    elif cte == "base64":
        data = base64.encodebytes(data)
    return (headers(i, **kw) + ctype + f"Content-Transfer-Encoding: {cte}\n\n").encode("ascii") \
        + data


def multipart(i: int, parts: list[tuple[str, bytes]], *, sub: str = "mixed", **kw) -> bytes:
    b = f"=-=b{i}=-="
    out = (headers(i, **kw) + f'Content-Type: multipart/{sub}; boundary="{b}"\n\n'
           "This is a multi-part message in MIME format.\n").encode("ascii")
    for head, data in parts:
        out += f"--{b}\n{head}\n".encode("ascii") + data + b"\n"
    return out + f"--{b}--\n".encode("ascii")


def case(name: str, raw: bytes, **expect) -> None:
    CASES.append((name, raw, expect))


def build() -> None:  # one case after the other
    n = lambda: len(CASES) + 1  # the number of the next mail
    # --- everyday mails -------------------------------------------------------------
    i = n(); case("utf8-plain", plain(i, sheet(1, 1000 + i, extra="# Grüße aus Nordmark\n")),
                  status="angenommen", kingdom=1, marker=1000 + i)
    i = n(); case("latin1-plain", plain(i, sheet(2, 1000 + i, extra="BOTSCHAFT 1\nGrüße aus dem "
                                                                    "Süden\nENDE\n"),
                                        charset="iso-8859-1"),
                  status="angenommen", kingdom=2, marker=1000 + i, stored="Grüße aus dem Süden")
    i = n(); case("cp1252-euro", plain(i, sheet(3, 1000 + i, extra="# kostet 5 € – „viel“\n"),
                                       charset="windows-1252"),
                  status="angenommen", kingdom=3, marker=1000 + i, stored="5 € – „viel“")
    i = n(); case("quoted-printable", plain(i, sheet(4, 1000 + i, pw="gemüse-4",
                                                     extra="# Größe\n"),
                                            cte="quoted-printable"),
                  status="angenommen", kingdom=4, marker=1000 + i, stored="Größe")
    i = n(); case("base64", plain(i, sheet(1, 1000 + i), cte="base64"),
                  status="angenommen", kingdom=1, marker=1000 + i)
    i = n(); case("alternative", multipart(i, [
        ('Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: 8bit\n',
         sheet(2, 1000 + i).encode()),
        ('Content-Type: text/html; charset="utf-8"\n',
         f"<html><body><pre>{sheet(2, 1)}</pre></body></html>".encode())], sub="alternative"),
        status="angenommen", kingdom=2, marker=1000 + i)
    i = n(); case("attachment-latin1", multipart(i, [
        ('Content-Type: text/plain; charset="utf-8"\n', "Anbei mein Zug.\nGruß, Erna\n".encode()),
        ('Content-Type: text/plain; charset="iso-8859-1"; name="zug.txt"\n'
         'Content-Disposition: attachment; filename="zug.txt"\n',
         sheet(3, 1000 + i, extra="# Blütenmond\n").encode("latin-1"))]),
        status="angenommen", kingdom=3, marker=1000 + i, stored="Blütenmond")
    i = n(); case("attachment-octet-stream", multipart(i, [
        ('Content-Type: text/plain; charset="utf-8"\n', b"Zug im Anhang\n"),
        ('Content-Type: application/octet-stream; name="Spielzug.TXT"\n'
         'Content-Transfer-Encoding: base64\n'
         'Content-Disposition: attachment; filename="Spielzug.TXT"\n',
         base64.encodebytes(sheet(4, 1000 + i, pw="gemüse-4").encode("utf-8")))]),
        status="angenommen", kingdom=4, marker=1000 + i)
    i = n(); case("attachment-utf16-notepad", multipart(i, [
        ('Content-Type: text/plain; charset="utf-8"\n', b"Zug im Anhang (Editor)\n"),
        ('Content-Type: application/octet-stream; name="zug.txt"\n'
         'Content-Transfer-Encoding: base64\n'
         'Content-Disposition: attachment; filename="zug.txt"\n',
         base64.encodebytes(b"\xff\xfe" + sheet(1, 1000 + i, extra="# Übung\n")
                            .replace("\n", "\r\n").encode("utf-16-le")))]),
        status="angenommen", kingdom=1, marker=1000 + i, stored="Übung")
    i = n(); case("utf8-bom", headers(i).encode() + b'Content-Type: text/plain; charset="utf-8"\n'
                  b"\n\xef\xbb\xbf" + sheet(2, 1000 + i).encode(),
                  status="angenommen", kingdom=2, marker=1000 + i)
    # --- replies, forwards, boundaries ----------------------------------------------
    old = sheet(3, 1, pw="geheim-alt", month="0412-03")
    i = n(); case("reply-top-posted", plain(i, sheet(3, 1000 + i) + "\nViele Grüße\nHans\n\n"
                                           "Am 30.04.2024 um 18:00 schrieb Segmentleiter:\n"
                                           + "".join(f"> {ln}\n" for ln in old.splitlines()),
                                           subject="Re: Spielzug"),
                  status="angenommen", kingdom=3, marker=1000 + i,
                  confirmation="außerhalb des Spielzugs ignoriert",
                  confirmation_lacks="unbekannter Befehl")
    i = n(); case("outlook-original-below", plain(i, sheet(4, 1000 + i, pw="gemüse-4") +
                                                 "\n-----Ursprüngliche Nachricht-----\n"
                                                 "Von: Segmentleiter\nGesendet: Dienstag\n\n"
                                                 + sheet(4, 2, pw="falsch", month="0412-01"),
                                                 subject="AW: Spielzug"),
                  status="angenommen", kingdom=4, marker=1000 + i)
    i = n(); case("forwarded", plain(i, "Ich leite meinen Zug weiter:\n\n"
                                     "---------- Forwarded message ---------\n"
                                     "From: Hans <hans@example.org>\nDate: Tue, 30 Apr 2024\n"
                                     "Subject: Zug\nTo: sl@example.org\n\n"
                                     + sheet(1, 1000 + i), subject="Fwd: Zug"),
                  status="angenommen", kingdom=1, marker=1000 + i)
    i = n(); case("signature-after-end", plain(i, "Hallo Spielleiter,\nhier mein Zug:\n\n"
                                               + sheet(2, 1000 + i) + "NÄCHSTER\n\n-- \n"
                                               "Suche noch Mitspieler für Runde 3\nHans\n"),
                  status="angenommen", kingdom=2, marker=1000 + i, orders=1,
                  confirmation="außerhalb des Spielzugs ignoriert",
                  confirmation_lacks="Fehler (")
    i = n(); case("list-footer", plain(i, sheet(3, 1000 + i) + "\n" + "_" * 47 +
                                       "\nWdG-Liste mailing list\nwdg@lists.example.org\n"),
                  status="angenommen", kingdom=3, marker=1000 + i, orders=1)
    i = n(); case("flowed", plain(i, sheet(4, 1000 + i, pw="gemüse-4",
                                            extra="F+ 5 # ein Fest fuer alle Buerger, und \n"
                                                  "B: s\n"),
                                  flowed="; format=flowed"),
                  status="angenommen", kingdom=4, marker=1000 + i, orders=2)
    i = n(); case("flowed-delsp", plain(i, sheet(1, 1000 + i, extra="# ein lang \ner Kommentar\n"),
                                        flowed="; format=flowed; delsp=yes"),
                  status="angenommen", kingdom=1, marker=1000 + i, orders=1,
                  stored="# ein langer Kommentar")
    # --- what a sheet may hold ------------------------------------------------------
    army = "H\nHeer 0101 101.10 Hafenburg\nB: s\nHeer 0102 101.09 ; im Wald\nB: t\n" \
           "Heer 0106 101.10 - Reiter\nB: r // Ruhe\n"
    i = n(); case("text-after-heer-position", plain(i, sheet(1, 1000 + i, extra=army)),
                  status="angenommen", kingdom=1, marker=1000 + i, armies_with_b=[101, 102, 106])
    i = n(); case("one-line-botschaft", plain(i, sheet(2, 1000 + i, head="",
                                                        extra="Botschaft an 1: Frieden!\nF+ 7\n")),
                  status="angenommen", kingdom=2, marker=1000 + i, orders=2, messages=1)
    i = n(); case("botschaft-without-ende", plain(i, sheet(3, 1, extra="").replace(
        "K\nF+ 1\n", f"BOTSCHAFT 1\nWir grüßen euch.\nK\nF+ {1000 + i}\nF+ 8\n")),
        status="angenommen", kingdom=3, marker=1000 + i, orders=2, messages=1)
    i = n(); case("botschaft-an-alle", plain(i, sheet(4, 1000 + i, pw="gemüse-4").replace(
        "K\n", "Botschaft an alle: Heil euch!\nK\n")),
        status="angenommen", kingdom=4, marker=1000 + i, orders=1, announcements=1)
    i = n(); case("quoted-password", plain(i, sheet(1, 1000 + i, pw='"geheim-1"')),
                  status="angenommen", kingdom=1, marker=1000 + i)
    i = n(); case("nfd-password-macos", plain(i, sheet(4, 1000 + i, pw="gemu\u0308se-4")),
                  status="angenommen", kingdom=4, marker=1000 + i)
    i = n(); case("password-above-empty-line", plain(i, "Passwort: geheim-2\n" + sheet(
        2, 1000 + i, pw="")), status="angenommen", kingdom=2, marker=1000 + i)
    # --- refusals -------------------------------------------------------------------
    i = n(); case("wrong-password", plain(i, sheet(3, 1000 + i, pw="geheim-2")),
                  status="abgelehnt", kingdom=3, reason="falsches Passwort")
    i = n(); case("missing-password", plain(i, sheet(3, 1000 + i).replace(
        "Passwort: geheim-3\n", "")), status="abgelehnt", kingdom=3, reason="Passwort fehlt")
    i = n(); case("unknown-kingdom", plain(i, sheet(9, 1000 + i)),
                  status="abgelehnt", kingdom=9, reason="unbekanntes Königreich 9")
    i = n(); case("wrong-segment", plain(i, sheet(1, 1000 + i).replace("test", "canura")),
                  status="abgelehnt", kingdom=1, reason="falsches Segment")
    i = n(); case("wrong-month", plain(i, sheet(1, 1000 + i, month="0412-03")),
                  status="abgelehnt", kingdom=1, reason="Spielzug für den Mond")
    # no sheet at all (no header line): listed, not answered (issue #30: no
    # confirmations to spam senders); `--answer-without-sheet` answers them
    i = n(); case("no-kingdom", plain(i, "Hallo, wann geht es weiter?\nGruß Hans\n"),
                  status="abgelehnt", reason="keine Königreichnummer", confirmation=None,
                  note="nicht beantwortet")
    i = n(); case("html-only", headers(i).encode() + b'Content-Type: text/html; charset="utf-8"'
                  b"\n\n<p>" + sheet(2, 1).encode() + b"</p>\n",
                  status="abgelehnt", reason="nur HTML")
    i = n(); case("empty-body", plain(i, ""), status="abgelehnt", reason="kein Spielzug",
                  confirmation=None, note="nicht beantwortet")
    i = n(); case("too-large", plain(i, sheet(1, 1000 + i, extra="# " + "x" * 300_000 + "\n")),
                  status="Quarantäne", reason="Mail zu groß", quarantined=True)
    i = n(); case("late", plain(i, sheet(2, 1000 + i)).replace(
        b"Wed, 01 May 2024 10:", b"Wed, 01 May 2024 14:"),
        status="abgelehnt", kingdom=2, reason="nach dem Eintreffschluß")
    # --- broken and hostile headers -------------------------------------------------
    i = n(); case("no-date-header", plain(i, sheet(3, 1000 + i), date=None),
                  status="angenommen", kingdom=3, marker=1000 + i)
    i = n(); case("date-year-zero", plain(i, sheet(4, 1000 + i, pw="gemüse-4"),
                                          date="Mon, 00 Jan 0000 00:00:00 +0000"),
                  status="angenommen", kingdom=4, marker=1000 + i)
    i = n(); case("control-char-in-message-id",
                  plain(i, sheet(1, 1000 + i), msgid=f"<m{i}\x01evil@example.org>"),
                  status="angenommen", kingdom=1, marker=1000 + i, in_reply_to=False)
    i = n(); case("crlf-encoded-message-id",
                  plain(i, sheet(2, 1000 + i),
                        msgid="=?utf-8?b?" + base64.b64encode(b"<a@b>\r\nBcc: evil@x").decode()
                        + "?="),
                  status="angenommen", kingdom=2, marker=1000 + i, in_reply_to=False)
    i = n(); case("crlf-encoded-from", plain(i, sheet(3, 1000 + i),
                                             sender="=?utf-8?b?WA0KQmNjOiBldmlsQHg=?="),
                  status="abgelehnt", reason="Absender", quarantined=True, confirmation=None)
    i = n(); case("escape-in-from", plain(i, sheet(3, 1000 + i),
                                          sender="Evil\x1b[2J <evil@example.org>"),
                  status="abgelehnt", reason="Absender", quarantined=True, confirmation=None)
    i = n(); case("no-from", plain(i, sheet(3, 1000 + i), sender=None),
                  status="abgelehnt", reason="Absender", quarantined=True, confirmation=None)
    i = n(); case("charset-undefined", plain(i, sheet(4, 1000 + i, pw="gemüse-4",
                                                      extra="# Größe\n"),
                                             charset="undefined", encoding="utf-8"),
                  status="angenommen", kingdom=4, marker=1000 + i, stored="Größe")
    i = n(); case("nul-in-charset", plain(i, sheet(1, 1000 + i, extra="# Übermut\n"),
                                          charset="utf\x00-8", encoding="utf-8"),
                  status="angenommen", kingdom=1, marker=1000 + i, stored="Übermut")
    i = n(); case("lying-charset", plain(i, sheet(2, 1000 + i, extra="# Grüße\n"),
                                         charset="iso-8859-1", encoding="utf-8"),
                  status="angenommen", kingdom=2, marker=1000 + i, stored="# Grüße\n")
    i = n(); case("garbage", bytes(range(256)) * 4, status="abgelehnt", reason="Absender",
                  quarantined=True, confirmation=None)
    # --- arrival order -------------------------------------------------------------
    a = n(); case("sheet-a", plain(a, sheet(1, 1000 + a)),
                  status="angenommen", kingdom=1, marker=1000 + a)
    i = n(); case("sheet-b", plain(i, sheet(1, 1000 + i)),
                  status="angenommen", kingdom=1, marker=1000 + i)
    i = n(); case("sheet-a-resent", plain(i, sheet(1, 1000 + a)),
                  status="angenommen", kingdom=1, marker=1000 + a,
                  confirmation="Es gilt jetzt")
    i = n(); case("date-2030", plain(i, sheet(3, 1000 + i),
                                     date="Tue, 01 May 2030 10:00:00 +0200"),
                  status="angenommen", kingdom=3, marker=1000 + i,
                  note="weicht um mehr als einen Tag")
    i = n(); case("correction-clock-behind", plain(i, sheet(3, 1000 + i),
                                                   date="Tue, 30 Apr 2024 10:00:00 +0200"),
                  status="angenommen", kingdom=3, marker=1000 + i)
    i = n(); case("two-kingdoms-in-one-mail", plain(i, sheet(2, 1000 + i) + "NÄCHSTER\n\n"
                                                   + sheet(4, 2000 + i, pw="gemüse-4")),
                  status="angenommen", kingdom=2, marker=1000 + i,
                  second={"status": "angenommen", "kingdom": 4, "marker": 2000 + i})
    i = n(); raw = plain(i, sheet(1, 1000 + i), msgid="<same@example.org>")
    case("first-of-a-duplicate", raw, status="angenommen", kingdom=1, marker=1000 + i)
    case("same-mail-again", raw.replace(b"10:", b"11:", 1), status="bereits erfasst",
         kingdom=1, marker=1000 + i)
    i = n(); case("blank-run", plain(i, sheet(3, 1000 + i, extra="F+ 9" + " " * 100_000 + "x\n"
                                                                  "F+ 11\n")),
                  status="angenommen", kingdom=3, marker=1000 + i, orders=2)
    i = n(); case("hostile-message-text", plain(i, sheet(4, 1000 + i, pw="gemüse-4",
                                                          extra="BOTSCHAFT 1\nabc\u202egnp.exe"
                                                                "\x1b[2J\x07\u200b\nENDE\n")),
                  status="angenommen", kingdom=4, marker=1000 + i, messages=1,
                  confirmation="U+202E")
    i = n(); case("heer-line-with-order", plain(i, sheet(2, 1000 + i,
                                                          extra="H\nHeer 0201 101.20 B: s\n")),
                  status="angenommen", kingdom=2, marker=1000 + i, armies_with_b=[201])
    i = n(); case("last-for-kingdom-1", plain(i, sheet(1, 1000 + i) + "ENDE\nDanke!\n"),
                  status="angenommen", kingdom=1, marker=1000 + i, orders=1)


def main() -> None:
    build()
    for p in HERE.glob("*.eml"):
        p.unlink()
    expected = []
    for number, (name, raw, expect) in enumerate(CASES, start=1):
        file = f"{number:02d}-{name}.eml"
        (HERE / file).write_bytes(raw.replace(b"\r\n", b"\n") if b"\xff\xfe" not in raw else raw)
        expected.append({"file": file, **expect})
    (HERE / "expected.yaml").write_text(
        "# What the import makes of each mail (written by make_corpus.py).\n"
        + yaml.safe_dump(expected, allow_unicode=True, sort_keys=False), encoding="utf-8")



def make_demo_mailbox(root: Path = HERE.parent.parent.parent) -> Path:
    """``orders/canura/examples/posteingang.mbox``: the small mailbox ``wdg demo``
    imports — two players re-sending their shipped sheets the way players do
    (a Latin-1 attachment as application/octet-stream; a top-posted reply
    above the quoted old sheet, with a signature), a wrong password, an
    HTML-only mail, a hostile ``From:`` and the same mail twice."""
    import mailbox

    month = root / "orders" / "canura" / "0412-04"
    k2 = (month / "k2.txt").read_text(encoding="utf-8")
    k5 = (month / "k5.txt").read_text(encoding="utf-8")
    k4 = (month / "k4.txt").read_text(encoding="utf-8")

    def hdr(n: int, sender: str, subject: str = "Spielzug") -> str:
        return (f"Received: from mx.example.org by sl.example.org; "
                f"Tue, 02 Apr 2024 1{n}:00:00 +0200\nFrom: {sender}\nTo: sl@example.org\n"
                f"Subject: {subject}\nDate: Tue, 02 Apr 2024 1{n}:00:00 +0200\n"
                f"Message-ID: <demo{n}@example.org>\nMIME-Version: 1.0\n")

    b = "=-=demo=-="
    mails = [
        (hdr(0, "Elestein <k2@example.org>") + f'Content-Type: multipart/mixed; boundary="{b}"'
         f'\n\n--{b}\nContent-Type: text/plain; charset="utf-8"\n\nAnbei mein Zug.\n'
         f'--{b}\nContent-Type: application/octet-stream; name="zug.txt"\n'
         f'Content-Transfer-Encoding: base64\nContent-Disposition: attachment; '
         f'filename="zug.txt"\n\n').encode()
        + base64.encodebytes(k2.encode("latin-1")) + f"--{b}--\n".encode(),
        (hdr(1, "Elotal <k5@example.org>", "Re: Spielzug") + 'Content-Type: text/plain; '
         'charset="utf-8"\n\n' + k5 + "\nGruß aus Elotal\n-- \nSpiele auch Atlantis\n\n"
         "Am 01.04.2024 schrieb Segmentleiter:\n" + "".join(f"> {ln}\n" for ln in
                                                           k5.splitlines())).encode(),
        (hdr(2, "Dieb <dieb@example.org>") + 'Content-Type: text/plain; charset="utf-8"\n\n'
         + k4.replace("canura-4", "geraten")).encode(),
        (hdr(3, "Bunt <html@example.org>") + 'Content-Type: text/html; charset="utf-8"\n\n'
         "<p><b>Mein Zug</b></p>\n").encode(),
        (hdr(4, "=?utf-8?b?WA0KQmNjOiBldmlsQHg=?=") + 'Content-Type: text/plain\n\n'
         + k4).encode(),
    ]
    mails.append(mails[0])
    path = root / "orders" / "canura" / "examples" / "posteingang.mbox"
    if path.exists():
        path.unlink()
    box = mailbox.mbox(str(path))
    for raw in mails:
        box.add(raw)
    box.flush()
    box.close()
    return path


if __name__ == "__main__":
    main()
    make_demo_mailbox()
