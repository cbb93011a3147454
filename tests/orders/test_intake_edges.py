"""The intake's edges (issue #40 item 8, docs/storage.md "The store's edges"):
a link in ``orders/<seg>/<M>/replaced/``, in the outbox or in the quarantine
is refused before anything is committed — never a correction answered
"angenommen" while the first sheet stays in force — and every move of a
committed journal is checked after it."""

from __future__ import annotations

import errno
import json
import mailbox
import os
from email.message import EmailMessage
from pathlib import Path

import pytest

from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.orders.intake import import_mailbox
from wdg.orders.outcome import IntakeStatus
from wdg.store.edges import LinkRefused
from wdg.store.intake import IntakeMoveError, check_sheets, recover_intake

SHEET = "Segment: test\nKönigreich: 1\nPasswort: geheim-1\nK\nF+ {}\n"


def _mail(body: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "spieler@example.org"
    msg["Message-ID"] = f"<{mid}@example.org>"
    msg["Subject"] = "Spielzug"
    msg["Date"] = "Wed, 01 May 2024 10:00:00 +0200"
    msg.set_content(body)
    return bytes(msg)


def _mbox(path: Path, *mails: bytes) -> Path:
    box = mailbox.mbox(str(path))
    for raw in mails:
        box.add(raw)
    box.flush()
    box.close()
    return path


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_a_linked_replaced_folder_refuses_the_correction_before_its_commit(world, tmp_path):
    camp = Campaign(tmp_path / "camp")
    first = _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "first"))
    second = _mbox(tmp_path / "b.mbox", _mail(SHEET.format(200), "second"))
    import_mailbox(camp, world, first, outbox=tmp_path / "out")
    folder = camp.orders_dir("test", world.date)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, folder / "replaced")
    before = _tree(folder)
    with pytest.raises(LinkRefused) as e:
        import_mailbox(camp, world, second, outbox=tmp_path / "out")
    assert "symbolischer Link" in str(e.value) and "nichts verändert" in str(e.value)
    assert str(folder / "replaced") in str(e.value)
    assert _tree(folder) == before  # the first sheet in force, nothing half-done
    assert "F+ 100" in (folder / "k1.txt").read_text()
    assert list(elsewhere.iterdir()) == []
    assert not list(folder.glob(".*"))
    # the link removed: the same mail is taken now (it was never marked as taken)
    (folder / "replaced").unlink()
    (r,) = import_mailbox(camp, world, second, outbox=tmp_path / "out").results
    assert r.status == "angenommen" and "F+ 200" in (folder / "k1.txt").read_text()
    assert "F+ 100" in (folder / "replaced" / "k1.1.txt").read_text()
    assert check_sheets(folder) == []


def test_a_journal_move_that_did_not_happen_is_named_and_the_journal_kept(world, tmp_path):
    """A committed journal whose move is made impossible after its commit point
    (replaced/ turned into a link meanwhile): the roll forward refuses, names
    the move, keeps the journal; nothing moves out of the campaign."""
    camp = Campaign(tmp_path / "camp")
    import_mailbox(camp, world, _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "first")),
                   outbox=tmp_path / "out")
    folder = camp.orders_dir("test", world.date)
    (folder / ".k1.txt.new").write_text(SHEET.format(300))
    journal = folder / ".intake-1-abcd.journal"
    journal.write_text(json.dumps({"moves": [["k1.txt", "replaced/k1.1.txt"],
                                             [".k1.txt.new", "k1.txt"]]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, folder / "replaced")
    with pytest.raises(IntakeMoveError) as e:
        recover_intake(folder)
    assert "nicht ausgeführt" in str(e.value) and "k1.txt → replaced/k1.1.txt" in str(e.value)
    assert journal.is_file() and list(elsewhere.iterdir()) == []
    assert "F+ 100" in (folder / "k1.txt").read_text()
    assert any("nicht abgeschlossen" in f.what for f in check_sheets(folder))
    (folder / "replaced").unlink()
    recover_intake(folder)  # the link gone: completed
    assert not journal.exists() and "F+ 300" in (folder / "k1.txt").read_text()


def test_a_linked_outbox_or_quarantine_is_never_written_through(world, tmp_path):
    camp = Campaign(tmp_path / "camp")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outbox = camp.root / "outbox" / "test" / world.date.key
    outbox.parent.mkdir(parents=True)
    os.symlink(elsewhere, outbox)
    box = _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "first"))
    (r,) = import_mailbox(camp, world, box).results
    assert r.status == "angenommen"  # the sheet is stored; the answer is not written
    (note,) = [n for n in r.notes if n.startswith("Bestätigung nicht geschrieben")]
    assert "LinkRefused" in note and list(elsewhere.iterdir()) == []  # the failure is named
    q = camp.root / "quarantine"
    q.mkdir()
    os.symlink(elsewhere, q / "test")
    big = _mail(SHEET.format(100) + "# " + "y" * 5000 + "\n", "big")
    with pytest.raises(StateError, match="symbolischer Link"):  # kept in quarantine: refused
        import_mailbox(camp, world, _mbox(tmp_path / "b.mbox", big), outbox=tmp_path / "out",
                       max_bytes=1000)
    assert list(elsewhere.iterdir()) == []


def test_taking_the_segment_lock_completes_an_import_killed_after_its_commit(world, tmp_path, capsys):
    """docs/storage.md, "Order sheets between months": a kill after a sheet's
    commit leaves its journal; the next command that takes the segment's lock
    completes it — ``wdg segment check`` included, which then has nothing to
    report (it said "der nächste Befehl, der das Segment sperrt, schließt es
    ab" but did not; found by the random SIGKILLs of orders import). A journal
    whose move cannot be completed stays, with a notice, and is a finding."""
    from wdg.store.lock import segment_lock

    camp = Campaign(tmp_path / "camp")
    import_mailbox(camp, world, _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "first")),
                   outbox=tmp_path / "out")
    folder = camp.orders_dir("test", world.date)
    seg_dir = camp.segment_dir("test")
    seg_dir.mkdir(parents=True, exist_ok=True)

    def killed_after_commit(amount: int) -> Path:
        (folder / ".k1.txt.new").write_text(SHEET.format(amount))
        journal = folder / f".intake-{amount}-abcd.journal"
        journal.write_text(json.dumps({"moves": [["k1.txt", f"replaced/k1.{amount}.txt"],
                                                 [".k1.txt.new", "k1.txt"]]}))
        return journal

    journal = killed_after_commit(300)
    assert any("nicht abgeschlossen" in f.what for f in check_sheets(folder))
    with segment_lock(seg_dir):
        pass
    assert not journal.exists() and "F+ 300" in (folder / "k1.txt").read_text()
    assert "F+ 100" in (folder / "replaced" / "k1.300.txt").read_text()
    assert "Speichern eines Spielzugs vollendet" in capsys.readouterr().err
    assert not any("nicht abgeschlossen" in f.what for f in check_sheets(folder))

    journal = killed_after_commit(400)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "replaced").rename(tmp_path / "replaced-aside")
    os.symlink(elsewhere, folder / "replaced")
    with segment_lock(seg_dir):  # the lock is taken; the journal stays, named
        pass
    assert journal.is_file() and list(elsewhere.iterdir()) == []
    assert "bleibt offen" in capsys.readouterr().err
    assert any("nicht abgeschlossen" in f.what for f in check_sheets(folder))


def test_an_unreadable_journal_is_named_never_reported_as_completed(world, tmp_path, capsys):
    """docs/storage.md, "Order sheets between months": a journal that cannot be
    read (cut short, changed by hand) is not "vollendet" — nothing of it is
    done, it stays, the lock says it stays open, ``wdg segment check`` names it
    as unreadable (it returned silently before and the lock reported
    "Speichern eines Spielzugs vollendet")."""
    from wdg.store.lock import segment_lock

    camp = Campaign(tmp_path / "camp")
    import_mailbox(camp, world, _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "first")),
                   outbox=tmp_path / "out")
    folder = camp.orders_dir("test", world.date)
    seg_dir = camp.segment_dir("test")
    seg_dir.mkdir(parents=True, exist_ok=True)
    (folder / ".k1.txt.new").write_text(SHEET.format(300))
    journal = folder / ".intake-7-abcd.journal"
    journal.write_text('{"moves": [["k1.txt", "replaced/k1.1.txt"], [".k1.txt.ne')  # cut short
    with pytest.raises(IntakeMoveError) as e:
        recover_intake(folder)
    assert str(journal) in str(e.value) and "nicht lesbar" in str(e.value)
    assert "JSONDecodeError" in str(e.value) and "bleibt stehen" in str(e.value)
    assert journal.is_file() and "F+ 100" in (folder / "k1.txt").read_text()
    assert (folder / ".k1.txt.new").is_file()
    with segment_lock(seg_dir):
        pass
    err = capsys.readouterr().err
    assert "bleibt offen" in err and "nicht lesbar" in err and "vollendet" not in err
    (finding,) = [f for f in check_sheets(folder) if f.path == str(journal)]
    assert "Journal nicht lesbar" in finding.what and "JSONDecodeError" in finding.what
    with pytest.raises(IntakeMoveError, match="nicht lesbar"):  # no import beside it
        import_mailbox(camp, world, _mbox(tmp_path / "b.mbox", _mail(SHEET.format(200), "b")),
                       outbox=tmp_path / "out")
    assert "F+ 100" in (folder / "k1.txt").read_text() and journal.is_file()
    journal.write_text(json.dumps({"moves": "k1.txt"}))  # readable, but not the intake's
    with pytest.raises(IntakeMoveError, match="keine Liste von Paaren"):
        recover_intake(folder)


def test_the_commit_does_its_moves_from_memory_not_from_the_journal_read_back(
        world, tmp_path, monkeypatch):
    """``commit`` rolls forward with the moves it holds: a read of the journal
    it just wrote that fails (an I/O error) can no more leave the sheet
    unmoved while the import answers "angenommen"."""
    real = Path.read_text

    def failing(self, *args, **kwargs):
        if self.name.startswith(".intake-") and self.name.endswith(".journal"):
            raise OSError(5, "Input/output error", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", failing)
    camp = Campaign(tmp_path / "camp")
    (r,) = import_mailbox(camp, world, _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "m")),
                          outbox=tmp_path / "out").results
    folder = camp.orders_dir("test", world.date)
    assert r.status == "angenommen" and "F+ 100" in (folder / "k1.txt").read_text()
    assert not list(folder.glob(".intake-*")) and not list(folder.glob(".*.new"))


def _outbox_files(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if p.is_file()) if out.exists() else []


def _not_taken_then_taken_once(camp, world, tmp_path, box: Path, folder: Path) -> None:
    """After a store failure: nothing answered, nothing quarantined, no scratch
    file, the mail not marked as taken; the next import takes it — once."""
    from wdg.store.seen import SeenRecord

    assert _outbox_files(tmp_path / "out") == []
    assert not (camp.root / "quarantine").exists() or not any((camp.root / "quarantine").rglob("*.eml"))
    assert not (folder / "k1.txt").exists() and not list(folder.glob(".*"))
    seen = SeenRecord(camp.segment_dir("test")).get("<stored-once@example.org>")
    assert seen is not None and not seen.taken
    (r,) = import_mailbox(camp, world, box, outbox=tmp_path / "out").results
    assert r.status == "angenommen" and "F+ 100" in (folder / "k1.txt").read_text()
    (answer,) = _outbox_files(tmp_path / "out")
    assert "nicht gelesen werden" not in answer.read_text(encoding="utf-8", errors="replace")
    (again,) = import_mailbox(camp, world, box, outbox=tmp_path / "out").results
    assert again.status is IntakeStatus.DUPLICATE and not list(folder.glob("replaced/*"))
    assert SeenRecord(camp.segment_dir("test")).get("<stored-once@example.org>").taken


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_a_sheet_the_store_cannot_write_stops_the_import_never_blames_the_player(
        world, tmp_path, monkeypatch, code):
    """Issue #44 ("a failure on the write path named, never swallowed"): a full
    disk or an I/O error while the sheet is stored was caught with the mail's
    own errors — status Quarantäne, "Mail nicht lesbar (OSError)", and the
    player told to send his mail again. Now the import stops with the file,
    the system's error and what to do; the mail is neither answered nor marked
    as taken, and the next import takes it exactly once."""
    from wdg.orders.intake import SheetNotStored
    import wdg.store.intake as store_intake

    real = store_intake.write_durable
    failing = {"on": True}

    def write(path, data, mode=0o644):
        if failing["on"] and Path(path).name == ".k1.txt.new":
            with open(path, "wb") as f:  # a part written, then the disk refuses
                f.write(data[:5])
            raise OSError(code, os.strerror(code))  # os.write names no file
        return real(path, data, mode)

    monkeypatch.setattr(store_intake, "write_durable", write)
    camp = Campaign(tmp_path / "camp")
    box = _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "stored-once"))
    with pytest.raises(SheetNotStored) as e:
        import_mailbox(camp, world, box, outbox=tmp_path / "out")
    folder = camp.orders_dir("test", world.date)
    msg = str(e.value)
    assert str(folder / ".k1.txt.new") in msg and os.strerror(code) in msg
    assert errno.errorcode[code] in msg and "Königreich 1" in msg
    assert "spieler@example.org" in msg and "weder beantwortet noch als eingelesen" in msg
    assert ("kein Platz mehr auf dem Datenträger" if code == errno.ENOSPC
            else "Ein-/Ausgabefehler") in msg
    assert "nicht lesbar" not in msg
    failing["on"] = False
    _not_taken_then_taken_once(camp, world, tmp_path, box, folder)


def test_a_real_full_disk_under_orders_stops_the_import_and_the_next_run_takes_it(
        world, tmp_path):
    """The same on a real full tmpfs mounted at the campaign's ``orders/``
    (fails where it cannot mount unless WDG_SKIP_MOUNTS=1, tests/skips.py)."""
    import subprocess

    from tests.skips import cannot_run
    from wdg.orders.intake import SheetNotStored

    camp = Campaign(tmp_path / "camp")
    orders = camp.root / "orders"
    orders.mkdir(parents=True)
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(orders)],
                           capture_output=True, text=True)
        why = None if r.returncode == 0 else r.stderr.strip() or f"exit {r.returncode}"
    except FileNotFoundError:
        why = "no 'mount' program on PATH"
    if why:
        cannot_run("WDG_SKIP_MOUNTS", f"cannot mount a tmpfs here (needs root): {why}")
    try:
        folder = camp.orders_dir("test", world.date)
        (folder / "replaced").mkdir(parents=True)
        ballast = orders / "ballast"
        fd = os.open(ballast, os.O_WRONLY | os.O_CREAT)
        try:  # fill the disk to its last byte
            while os.write(fd, b"x" * 4096):
                pass
        except OSError as full:
            assert full.errno == errno.ENOSPC
        finally:
            os.close(fd)
        box = _mbox(tmp_path / "a.mbox", _mail(SHEET.format(100), "stored-once"))
        with pytest.raises(SheetNotStored) as e:
            import_mailbox(camp, world, box, outbox=tmp_path / "out")
        msg = str(e.value)
        assert str(folder / ".k1.txt.new") in msg and "ENOSPC" in msg
        assert os.strerror(errno.ENOSPC) in msg and "kein Platz mehr auf dem Datenträger" in msg
        ballast.unlink()  # the game master makes room
        _not_taken_then_taken_once(camp, world, tmp_path, box, folder)
    finally:
        subprocess.run(["umount", str(orders)], capture_output=True)
