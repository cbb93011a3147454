"""Intake robustness (issue #30, item 6, intake part): the quarantine is written
atomically with its reason, a sheet and its receipt (with the reason
"ersetzt den früheren Spielzug") are stored under one journal, the import
streams the mailbox, an oversize mail keeps a bounded prefix and its hash, a
mail nested 1,000 levels deep gets a clear answer, and a mail holding no
sheet at all gets no confirmation unless asked for."""

from __future__ import annotations

import email
import email.policy
import hashlib
import mailbox
import os
import signal
import subprocess
import sys
import textwrap
from email.message import EmailMessage
from pathlib import Path

import yaml

from wdg.campaign import Campaign
from wdg.orders.intake import MAX_NESTING, import_mailbox
from wdg.orders.mailbox import KEEP_BYTES, iter_mailbox
from wdg.store.intake import recover_intake

SHEET = "Segment: test\nKönigreich: 1\nPasswort: geheim-1\nK\nF+ {}\n"


def _mail(body: str | bytes, mid: str, sender: str = "spieler@example.org") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["Message-ID"] = f"<{mid}@example.org>"
    msg["Subject"] = "Spielzug"
    msg["Date"] = "Wed, 01 May 2024 10:00:00 +0200"
    if isinstance(body, bytes):
        msg.set_content(body, maintype="text", subtype="plain")
    else:
        msg.set_content(body)
    return bytes(msg)


def _mbox(path: Path, *mails: bytes) -> Path:
    box = mailbox.mbox(str(path))
    for raw in mails:
        box.add(raw)
    box.flush()
    box.close()
    return path


def _nested(levels: int) -> bytes:
    head = ("From: tief@example.org\nMessage-ID: <tief@example.org>\nSubject: Zug\n"
            "MIME-Version: 1.0\n")
    parts = []
    for i in range(levels):
        parts.append(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n')
    inner = "Content-Type: text/plain\n\n" + SHEET.format(1) + "\n"
    tail = "".join(f"--b{i}--\n" for i in reversed(range(levels)))
    return (head + "".join(parts) + inner + tail).encode()


def test_a_mail_nested_1000_levels_deep_gets_a_clear_answer(world, tmp_path):
    box = _mbox(tmp_path / "in.mbox", _nested(1000))
    report = import_mailbox(Campaign(tmp_path), world, box, outbox=tmp_path / "out")
    (r,) = report.results
    assert r.status == "Quarantäne" and "zu tief verschachtelt" in r.reason
    assert f"erlaubt {MAX_NESTING}" in r.reason and "RecursionError" not in r.reason
    assert r.sender == "tief@example.org" and r.confirmation is not None
    answer = email.message_from_bytes(r.confirmation.read_bytes(), policy=email.policy.default)
    assert "zu tief verschachtelt" in answer.get_content()
    assert (r.quarantined.parent / (r.quarantined.stem + ".grund.txt")).is_file()


def test_a_mail_without_any_sheet_is_not_answered_unless_asked(world, tmp_path):
    spam = _mail("Günstige Uhren! Jetzt kaufen.\n", "spam", sender="spam@example.com")
    box = _mbox(tmp_path / "in.mbox", spam)
    (r,) = import_mailbox(Campaign(tmp_path), world, box, outbox=tmp_path / "a").results
    assert r.status == "abgelehnt" and r.confirmation is None
    assert "kein Spielzug: nicht beantwortet" in r.notes and not (tmp_path / "a").exists()
    (r,) = import_mailbox(Campaign(tmp_path / "b"), world, box, outbox=tmp_path / "b" / "o",
                          answer_without_sheet=True).results
    assert r.confirmation is not None and r.confirmation.is_file()
    # a sheet without its kingdom line is a sheet: answered
    half = _mail("Segment: test\nPasswort: geheim-1\nK\nF+ 5\n", "half")
    (r,) = import_mailbox(Campaign(tmp_path / "c"), world, _mbox(tmp_path / "c.mbox", half),
                          outbox=tmp_path / "c" / "o").results
    assert r.status == "abgelehnt" and r.confirmation is not None


def test_an_oversize_mail_keeps_a_bounded_prefix_and_its_hash(world, tmp_path):
    big = _mail(SHEET.format(1) + "# " + "x" * 3_000_000 + "\n", "big")
    box = _mbox(tmp_path / "in.mbox", big, _mail(SHEET.format(7), "small"))
    mails = list(iter_mailbox(box, 512_000))
    assert mails[0].truncated and len(mails[0].raw) == KEEP_BYTES
    assert mails[0].total > 3_000_000 and not mails[1].truncated
    report = import_mailbox(Campaign(tmp_path), world, box, outbox=tmp_path / "out")
    r = report.results[0]
    assert r.status == "Quarantäne" and "Mail zu groß" in r.reason
    assert r.quarantined.stat().st_size == KEEP_BYTES
    reason = (r.quarantined.parent / (r.quarantined.stem + ".grund.txt")).read_text()
    assert mails[0].digest in reason and "die ersten 65.536" in reason
    assert report.results[1].status == "angenommen"


def test_the_mbox_is_read_one_mail_at_a_time(tmp_path):
    """iter_mailbox is a generator over the file: the first mail is there
    before the rest of the file is read (and mails equal what mailbox.mbox reads)."""
    box = _mbox(tmp_path / "in.mbox", *[_mail(SHEET.format(i), f"m{i}") for i in range(50)])
    it = iter_mailbox(box)
    first = next(it)
    assert b"F+ 0" in first.raw and first.position == 1
    ref = mailbox.mbox(str(box))
    expected = [ref.get_bytes(k, from_=False) for k in ref.keys()]
    assert [first.raw] + [m.raw for m in it] == expected


_CHILD = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    from conftest import make_world
    from wdg.campaign import Campaign
    import wdg.fsio, wdg.orders.intake as intake, wdg.store.intake as store_intake
    when = sys.argv[1]
    real_write, real_roll = wdg.fsio.write_durable, store_intake.roll_forward
    def write(path, data, mode=0o644):
        name = Path(path).name
        if when == "quarantine" and name.endswith(".eml.{{pid}}.tmp".format(pid=os.getpid())):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, mode)
            os.write(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        if when == "journal" and name.endswith(".journal.tmp"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_write(path, data, mode)
    def roll(folder, journal, *more):
        if when == "moves":
            os.kill(os.getpid(), signal.SIGKILL)
        return real_roll(folder, journal, *more)
    wdg.fsio.write_durable = write
    store_intake.write_durable = write
    store_intake.roll_forward = roll
    intake.import_mailbox(Campaign(Path(sys.argv[2])), make_world(), Path(sys.argv[3]),
                          outbox=Path(sys.argv[2]) / "out", max_bytes=100_000)
""")


def _killed(tmp_path: Path, when: str, box: Path) -> int:
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(tests=str(Path(__file__).parent)))
    proc = subprocess.run([sys.executable, str(script), when, str(tmp_path / "camp"), str(box)],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode


def test_a_kill_while_quarantining_never_leaves_a_truncated_mail_without_reason(world, tmp_path):
    big = _mail(SHEET.format(1) + "# " + "y" * 400_000 + "\n", "big")
    box = _mbox(tmp_path / "in.mbox", big)
    assert _killed(tmp_path, "quarantine", box) == -signal.SIGKILL
    q = tmp_path / "camp" / "quarantine" / "test" / world.date.key
    assert not list(q.glob("*.eml"))  # the half-written mail is only a scratch file
    assert len(list(q.glob("*.grund.txt"))) == 1  # its reason came first
    report = import_mailbox(Campaign(tmp_path / "camp"), world, box, max_bytes=100_000)
    (r,) = report.results
    assert r.quarantined.read_bytes() == list(iter_mailbox(box, 100_000))[0].raw
    assert "Mail zu groß" in (q / (r.quarantined.stem + ".grund.txt")).read_text()


def _replacing(tmp_path: Path) -> tuple[Path, Path]:
    first = _mbox(tmp_path / "first.mbox", _mail(SHEET.format(100), "first"))
    second = _mbox(tmp_path / "second.mbox", _mail(SHEET.format(200), "second"))
    return first, second


def test_sheet_and_receipt_are_stored_under_one_journal(world, tmp_path):
    """A kill after the journal's commit point: the next import (or month run)
    completes the replacement — the new sheet, its receipt with the reason
    "ersetzt den früheren Spielzug", the old sheet in replaced/. A kill before
    it: nothing changed, the scratch files are removed."""
    first, second = _replacing(tmp_path)
    camp = Campaign(tmp_path / "camp")
    import_mailbox(camp, world, first)
    folder = camp.orders_dir("test", world.date)
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert _killed(tmp_path, "journal", second) == -signal.SIGKILL
    assert {p.name for p in folder.glob(".*.new")}  # the new files, uncommitted
    assert recover_intake(folder)
    assert {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before

    assert _killed(tmp_path, "moves", second) == -signal.SIGKILL
    assert list(folder.glob(".intake-*.journal"))  # committed, not yet done
    notices = recover_intake(folder)
    assert notices and not list(folder.glob(".*"))
    assert "F+ 200" in (folder / "k1.txt").read_text()
    receipt = yaml.safe_load((folder / "k1.receipt.yaml").read_text())
    assert receipt["reason"].startswith("ersetzt den früheren Spielzug")
    assert "F+ 100" in (folder / "replaced" / "k1.1.txt").read_text()
    assert (folder / "replaced" / "k1.1.receipt.yaml").is_file()
    # the same mail once more: recognised, nothing stored twice, and answered as
    # the interrupted import would have answered (with the reason)
    (r,) = import_mailbox(camp, world, second, outbox=tmp_path / "out2").results
    assert r.status == "angenommen" and r.reason.startswith("ersetzt den früheren Spielzug")
    answer = email.message_from_bytes(r.confirmation.read_bytes(), policy=email.policy.default)
    assert "Grund: ersetzt den früheren Spielzug" in answer.get_content()
    assert hashlib.sha256((folder / "k1.txt").read_bytes()).hexdigest() == receipt["sha256"]
    assert sorted(os.listdir(folder / "replaced")) == ["k1.1.receipt.yaml", "k1.1.txt"]
