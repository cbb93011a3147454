"""No password in clear in any output (issue #30, item 3): one test over every
output kind of a month — the checker's echo, the import's summary and every
confirmation mail, the result sheets (text, HTML, JSON, form), the
Götterbotschaft and the game master's overview, the archive (events, summary
index, manifest, state), `wdg export`, `turn list`, `turn show`, `segment
check`. Only the sheets themselves keep the player's bytes (the stored sheet,
its archived copy) — and the quarantined raw mail.

The player of kingdom 5 (a fresh password) writes it in every spelling a redaction
must catch: the header, a second header in capitals, a quoted reply
(``> Passwort: canura-5``), ``Kennwort =``, ``Paßwort`` and a line without a
colon that the parser cannot read (its message quotes the line).
"""

from __future__ import annotations

import email
import email.policy
import gzip
import io
import lzma
import mailbox
import shutil
import tarfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import copy_demo

runner = CliRunner()
WRONG = "geheim-falsch-44"
SHEET = """Hallo Spielleiter,
> Am 1. Dormit schriebt Ihr:
> Passwort: canura-5
> PASSWORT: canura-5

Segment: canura
Königreich: 5
Passwort: canura-5
PASSWORT: canura-5
Mond: Dormit 412
Kennwort = canura-5
Paßwort canura-5

H
Heer 0501 301.04
A: Neue Rüstgüter anwerben 150
Heer 0502 000.00
Heer 0503 000.00
Heer 0504 000.00
K
Diplomatiestatus ändern 2 -
"""


def _mail(box: mailbox.mbox, body: str, mid: str) -> None:
    msg = EmailMessage()
    msg["From"] = "elotal@example.org"
    msg["To"] = "sl@example.org"
    msg["Subject"] = "Spielzug"
    msg["Message-ID"] = f"<{mid}@example.org>"
    msg["Date"] = "Wed, 01 May 2024 10:00:00 +0200"
    msg.set_content(body)
    box.add(msg)


def _texts(path: Path, data: bytes) -> list[str]:
    """The readable contents of one file: decompressed, unpacked, decoded mails."""
    name = path.name
    if name.endswith(".gz"):
        return _texts(path.with_name(name[:-3]), gzip.decompress(data))
    if name.endswith(".tar.xz"):
        out = []
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:xz") as tar:
            for member in tar.getmembers():
                f = tar.extractfile(member)
                if f is not None:
                    out += _texts(Path(member.name), f.read())
        return out
    if name.endswith(".xz"):
        return _texts(path.with_name(name[:-3]), lzma.decompress(data))
    if name.endswith(".eml"):
        msg = email.message_from_bytes(data, policy=email.policy.default)
        parts = [str(msg)]
        for part in msg.walk():
            if part.get_content_maintype() == "text":
                parts.append(part.get_content())
        return parts
    return [data.decode("utf-8", errors="replace")]


@pytest.mark.slow
def test_no_password_in_clear_in_any_output(tmp_path: Path) -> None:
    camp = copy_demo(tmp_path / "c")
    root = camp.root
    month = root / "orders" / "canura" / "0412-04"
    (month / "k5.txt").unlink()
    printed = []

    def run(*args: str, codes: tuple[int, ...] = (0,)) -> None:
        res = runner.invoke(app, [*args, "-C", str(root)])
        assert res.exit_code in codes, (args, res.output)
        printed.append((" ".join(args), res.output))

    run("kingdom", "set-password", "canura", "5")  # a fresh one, in no file of the checkout
    secret = printed[-1][1].split(":")[-1].strip()
    printed.pop()
    secrets = (secret, WRONG)
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    _mail(box, SHEET.replace("canura-5", secret), "k5")
    _mail(box, SHEET.replace("canura-5", WRONG).replace("reich: 5", "reich: 4"), "k4-falsch")
    box.flush()
    box.close()
    run("orders", "import", "canura", str(tmp_path / "in.mbox"), codes=(0, 3))
    run("orders", "check", str(month / "k5.txt"), codes=(0, 1))
    run("orders", "check", str(month / "k5.txt"), "--format", "json", codes=(0, 1))
    run("turn", "status", "canura")
    run("turn", "run", "canura", "--no-pdf", "--jobs", "1", "--force")
    run("turn", "list", "canura")
    run("turn", "show", "canura", "0412-04", "--kingdom", "5")
    run("turn", "show", "canura", "0412-04", "--kingdom", "5", "--format", "json")
    run("segment", "check", "canura")
    run("export", "canura")
    stored = month / "k5.txt"
    assert secret in stored.read_text(encoding="utf-8")  # the player's bytes are kept
    kept = {stored, root / "worlds" / "canura" / "turns" / "0412-04" / "orders" / "k5.txt"}
    kept |= set((root / "quarantine").rglob("*.eml")) if (root / "quarantine").is_dir() else set()
    kept |= set((root / "orders" / "canura" / "examples").rglob("*"))  # the demo's inputs
    looked = 0
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path in kept or path.suffix in (".npz", ".pdf", ".png"):
            continue
        looked += 1
        for text in _texts(path, path.read_bytes()):
            for s in secrets:
                assert s not in text, (path, s)
    for what, out in printed:
        for s in secrets:
            assert s not in out, (what, s)
    outbox = list((root / "outbox").rglob("*.eml"))
    assert len(outbox) == 2 and looked > 50
    body = "\n".join(t for p in outbox for t in _texts(p, p.read_bytes()))
    assert "> Passwort: ******" in body and "Kennwort = ******" in body
    shutil.rmtree(tmp_path / "c")
