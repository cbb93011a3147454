"""The integrity layer (issue #30 items 1, 2, 6; issue #29 "a month verifies on its own").

Every stored file — the live segment's files, and every archived month's
inputs (sheets, rules, seed, state before), state after, events, outputs and
index — is covered by a hash list (``SHA256SUMS``, docs/storage.md). A bit
flip or a truncation in any of them is found and named, in German, by
``wdg segment check``, ``wdg turn list --verify`` and the commands that read
it; none becomes game state; nothing prints a traceback. The month counter is
checked against the chain of archived months; recovery never follows a
symlink; undo checks that it can finish before it commits.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from turn_helpers import NAME, make_campaign, standard_sheets, tree_bytes, write_sheet

from tests.skips import cannot_run
from wdg.store import integrity
from wdg.campaign import Campaign
from wdg.cli import main
from wdg.world.calendar import MonthDate

APRIL, MAY, JUNE = MonthDate(412, 4), MonthDate(412, 5), MonthDate(412, 6)


def wdg(capsys, *args: str) -> tuple[int, str]:
    """Run the command line as the game master does (``wdg.cli.main``: errors
    become messages); any other exception — a traceback — fails the test."""
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def _sheets(camp: Campaign, month: MonthDate) -> None:
    write_sheet(camp, month, 1, "H\nHeer 0101 101.09\nA: nr 100\nK\nF+ 1000\n")
    write_sheet(camp, month, 2, "H\nHeer 0201 101.14\nA: er 50\nK\nF+ 1000\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A campaign after two months (reports archived, no PDFs), with June's sheets."""
    root = tmp_path_factory.mktemp("integrity") / "c"
    camp = make_campaign(root)
    standard_sheets(camp, APRIL)
    _sheets(camp, MAY)
    _sheets(camp, JUNE)
    for _ in range(2):
        try:
            main(["turn", "run", NAME, "-q", "--no-pdf", "-C", str(root)])
        except SystemExit as e:
            assert not e.code
    return root


@pytest.fixture
def camp(base, tmp_path) -> Campaign:
    shutil.copytree(base, tmp_path / "c")
    return Campaign(tmp_path / "c")


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x04
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


LIVE = ["segment.yaml", "map.txt", "kingdoms.yaml", "armies.yaml", "world.yaml", "layers.npz",
        "SHA256SUMS"]
ARCHIVED = ["orders/k1.txt", "rules/economy.yaml", "seed.yaml", "state-before/kingdoms.yaml.gz",
            "state-before/layers.npz", "state/armies.yaml.gz", "state/layers.npz",
            "events.jsonl.xz", "outputs/reports/pack.tar.xz", "manifest.yaml", "summary.yaml",
            "provenance.yaml", "inputs/previous-reports.json.xz", "SHA256SUMS"]
KINDS = ([("live", f) for f in LIVE] + [("last", f) for f in ARCHIVED]
         + [("middle", f) for f in ARCHIVED] + [("blob", "template")])
"""Every stored file kind: the live files and list; in the last and in a middle
month a sheet, a rules file, the seed, state before and after (compressed YAML
and layers), the event log, the reports pack, manifest, index, provenance, the
archived inputs, the month's list; and an archived template (a blob of
``turns/.blobs/sha256/``, used again by the next month). The mail records
are tested below (``test_damage_to_the_intake_record_...``)."""


def _blob(seg_dir: Path) -> Path:
    """An archived template the last month used (the next month renders with it too)."""
    import yaml

    prov = yaml.safe_load((seg_dir / "turns" / MAY.key / "provenance.yaml").read_text())
    name, digest = sorted(prov["templates"].items())[0]
    return seg_dir / "turns" / ".blobs" / "sha256" / digest


@pytest.mark.parametrize("damage", [_flip, _truncate], ids=["bitflip", "truncation"])
@pytest.mark.parametrize(("where", "name"), KINDS, ids=[f"{w}:{n}" for w, n in KINDS])
def test_damage_to_any_stored_file_is_found_and_named_never_game_state(camp, capsys, where,
                                                                       name, damage):
    """Issue #30 "a bit flip in each stored file kind ... found and named, none turned
    into game state, no traceback"; issue #29 "a tamper test over every archived file
    kind (inputs, state, events, outputs, index)"."""
    seg_dir = camp.segment_dir(NAME)
    folder = {"live": seg_dir, "last": seg_dir / "turns" / MAY.key,
              "middle": seg_dir / "turns" / APRIL.key, "blob": seg_dir}[where]
    path = _blob(seg_dir) if where == "blob" else folder / name
    assert path.is_file(), path
    damage(path)
    root = str(camp.root)
    worlds_before = tree_bytes(seg_dir)

    code, out = wdg(capsys, "segment", "check", NAME, "-C", root)
    assert code == 1 and str(path) in out and "Traceback" not in out, out

    code, out = wdg(capsys, "turn", "list", NAME, "--verify", "-C", root)
    assert code == 1 and "Traceback" not in out, out
    if where != "live":
        assert str(path) in out, out
    else:
        assert str(path) in out or "Fehler:" in out, out

    if where in ("live", "last", "blob"):
        # the month is not run on it: refused, the file named, nothing changed
        code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", root)
        assert code == 1 and str(path) in out and "Traceback" not in out, out
        assert tree_bytes(seg_dir) == worlds_before
        assert not (seg_dir / "turns" / JUNE.key).exists()


def test_a_changed_treasury_is_not_game_state(camp, capsys):
    """Issue #30: ``treasury: 120000`` -> ``121000`` in kingdoms.yaml became game
    state and the month ran on it. Now it is refused and named; the game master
    who meant it seals it with ``wdg segment accept`` after the check."""
    path = camp.segment_dir(NAME) / "kingdoms.yaml"
    text = path.read_text(encoding="utf-8")
    import re

    m = re.search(r"treasury: (\d+)", text)
    path.write_text(text.replace(m.group(0), f"treasury: {int(m.group(1)) + 1000}", 1),
                    encoding="utf-8")
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 1 and "kingdoms.yaml: beschädigt oder außerhalb von wdg verändert" in out
    assert "wdg segment accept probe" in out
    code, out = wdg(capsys, "segment", "accept", NAME, "-C", str(camp.root))
    assert code == 0, out
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 0, out


def _set_date(camp: Campaign, key: str) -> Path:
    path = camp.segment_dir(NAME) / "segment.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f"date: {JUNE.key}", f"date: {key}"), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", [MAY.key, APRIL.key, "0412-07", "0412-09"])
def test_a_date_set_back_or_forward_is_refused_not_recovered(camp, capsys, key):
    """Issue #30 item 2: the date in segment.yaml set back one month made
    ``segment check`` move the archived month to .abandoned/ and ``turn run``
    re-resolve it, overwriting the delivered reports; set forward, an unreported
    gap. Both are refused and named — even after the edit is sealed with
    ``wdg segment accept`` (the chain of months still disagrees)."""
    seg_file = _set_date(camp, key)
    seg_dir = camp.segment_dir(NAME)
    reports = tree_bytes(camp.root / "reports")
    root = str(camp.root)
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", root)
    assert code == 1 and f"{seg_file}: beschädigt" in out  # the hash list first
    assert wdg(capsys, "segment", "accept", NAME, "-C", root)[0] == 0
    archive_before = tree_bytes(seg_dir / "turns")
    word = "zurückgesetzt" if key < JUNE.key else "vorgestellt"
    for args in (["turn", "run", NAME, "-q", "--no-pdf"], ["segment", "check", NAME],
                 ["turn", "list", NAME]):
        code, out = wdg(capsys, *args, "-C", root)
        assert code == 1 and str(seg_file) in out and word in out and "Traceback" not in out, out
    assert tree_bytes(seg_dir / "turns") == archive_before  # nothing moved to .abandoned/
    assert not (seg_dir / "turns" / ".abandoned").exists()
    assert tree_bytes(camp.root / "reports") == reports


def test_a_missing_month_in_the_middle_is_a_gap(camp, capsys):
    """Issue #29: "a deleted month in the middle is not reported as a gap"."""
    seg_dir = camp.segment_dir(NAME)
    make_more = [JUNE, MonthDate(412, 7)]
    for m in make_more:
        _sheets(camp, m.next())
        assert wdg(capsys, "turn", "run", NAME, "-q", "--no-render", "-C", str(camp.root))[0] == 0
    shutil.rmtree(seg_dir / "turns" / MAY.key)
    for args in (["segment", "check", NAME], ["turn", "list", NAME],
                 ["turn", "run", NAME, "-q", "--no-pdf"]):
        code, out = wdg(capsys, *args, "-C", str(camp.root))
        assert code == 1 and "0412-05 fehlt" in out and "Traceback" not in out, out


@pytest.mark.parametrize("name", ["summary.yaml", "seed.yaml", "manifest.yaml"])
def test_a_forged_index_with_a_rewritten_hash_list_breaks_the_chain(camp, capsys, name):
    """A forged summary.yaml/seed.yaml (issue #30, #29) whose forger also
    rewrote the month's SHA256SUMS is found: the next month's list holds the
    hash of the old one."""
    mdir = camp.segment_dir(NAME) / "turns" / APRIL.key
    path = mdir / name
    text = path.read_text(encoding="utf-8")
    forged = text.replace("- 1\n", "- 2\n", 1) if "- 1\n" in text else text + "# x\n"
    assert forged != text
    path.write_text(forged, encoding="utf-8")
    prev = mdir.parent / "none"
    (mdir / integrity.LIST).unlink()
    integrity.seal_month(mdir, prev if prev.is_dir() else None)
    assert integrity.verify_month(mdir) == []  # the month alone looks fine now ...
    code, out = wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))
    assert code == 1 and str(mdir / integrity.LIST) in out and "verändert oder ersetzt" in out


def test_an_older_month_without_hash_lists_lists_and_verifies_what_it_has(camp, capsys):
    """Months archived by an older wdg (no SHA256SUMS): listed, their outputs
    checked against the manifest, and it says what is not covered — no crash;
    an empty manifest is named, not a TypeError (issue #29)."""
    seg_dir = camp.segment_dir(NAME)
    for m in (APRIL, MAY):
        (seg_dir / "turns" / m.key / integrity.LIST).unlink()
    (seg_dir / integrity.LIST).unlink()
    root = str(camp.root)
    code, out = wdg(capsys, "turn", "list", NAME, "--verify", "-C", root)
    assert code == 0 and out.count("nicht abgesichert") == 2, out
    code, out = wdg(capsys, "segment", "check", NAME, "-C", root)
    assert code == 0 and "älteren wdg-Version" in out, out
    (seg_dir / "turns" / APRIL.key / "manifest.yaml").write_text("", encoding="utf-8")
    for args in (["turn", "list", NAME, "--verify"], ["segment", "check", NAME],
                 ["turn", "replay", NAME, APRIL.key]):
        code, out = wdg(capsys, *args, "-C", root)
        assert code == 1 and "manifest.yaml" in out and "Traceback" not in out, out
    # the next save seals the live files again
    assert wdg(capsys, "turn", "run", NAME, "-q", "--no-render", "-C", root)[0] == 0
    assert (seg_dir / integrity.LIST).is_file()


def test_archived_months_share_no_hard_links(camp):
    """Issue #30/#29: "each rules file is one inode shared by every month"; one
    in-place edit changed three months. Every archived file has one link."""
    turns = camp.segment_dir(NAME) / "turns"
    files = [p for p in turns.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_nlink == 1 for p in files)


# --- recovery never follows a symlink -------------------------------------------------------------

@pytest.mark.parametrize("target", ["other", "self"])
def test_a_planted_generation_symlink_is_refused_and_deletes_nothing(camp, capsys, tmp_path,
                                                                      target):
    """Issue #30 item 1: ``ln -s <other campaign>/worlds/canura worlds/canura/.gen-x``
    (and ``ln -s .``), then ``wdg segment check``: the other campaign's (or the
    segment's own) files were deleted as "an uncommitted save". Now refused with
    a clear message; every file survives."""
    seg_dir = camp.segment_dir(NAME)
    other = tmp_path / "other"
    shutil.copytree(seg_dir, other, ignore=shutil.ignore_patterns("turns"))
    link = seg_dir / ".gen-x"
    link.symlink_to(other if target == "other" else Path("."))
    before = tree_bytes(other), tree_bytes(seg_dir)
    for args in (["segment", "check", NAME], ["turn", "run", NAME, "-q", "--no-pdf"],
                 ["turn", "undo", NAME]):
        code, out = wdg(capsys, *args, "-C", str(camp.root))
        assert code == 1 and ".gen-x ist ein symbolischer Link" in out and "Traceback" not in out
    assert (tree_bytes(other), tree_bytes(seg_dir)) == before
    link.unlink()
    assert wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))[0] == 0


@pytest.mark.parametrize("name", [".undone", ".staging-0412-06", ".abandoned"])
def test_a_symlink_in_turns_is_refused_and_nothing_moves_out(camp, capsys, tmp_path, name):
    """Issue #30 item 1: a ``.undone`` symlink moved an archived month outside
    the campaign and ``segment check`` said "keine Befunde"."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    link = camp.segment_dir(NAME) / "turns" / name
    link.symlink_to(outside)
    turns_before = tree_bytes(camp.segment_dir(NAME) / "turns" / MAY.key)
    for args in (["turn", "undo", NAME], ["segment", "check", NAME],
                 ["turn", "run", NAME, "-q", "--no-pdf"]):
        code, out = wdg(capsys, *args, "-C", str(camp.root))
        assert code == 1 and "symbolischer Link" in out and "Traceback" not in out, out
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert tree_bytes(camp.segment_dir(NAME) / "turns" / MAY.key) == turns_before


def test_a_planted_lock_symlink_does_not_truncate_its_target(camp, capsys, tmp_path):
    """The lock file is opened with O_NOFOLLOW: a ``.lock`` link to a file
    elsewhere is refused, the file keeps its bytes."""
    victim = tmp_path / "victim.txt"
    victim.write_text("wichtig\n")
    (camp.segment_dir(NAME) / ".lock").symlink_to(victim)
    code, out = wdg(capsys, "turn", "undo", NAME, "-C", str(camp.root))
    assert code == 1 and "symbolischer Link" in out
    assert victim.read_text() == "wichtig\n"


def test_a_generation_without_proof_of_origin_is_kept(camp, capsys):
    """Recovery deletes only inside a generation whose mark names the directory
    itself; anything else is reported and kept."""
    gen = camp.segment_dir(NAME) / ".gen-77-foreign"
    gen.mkdir()
    (gen / "kingdoms.yaml").write_text("kingdoms: []\n")
    code, out = wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))
    assert code == 1 and "nicht von wdg angelegt" in out
    assert (gen / "kingdoms.yaml").read_text() == "kingdoms: []\n"


# --- two-step commands check before they commit ------------------------------------------------------

def test_undo_refuses_before_committing_when_turns_is_not_writable(camp, capsys, monkeypatch):
    """Issue #30 item 6: on a read-only ``turns/`` undo committed, then failed,
    and every locking command failed after it. Now it checks first."""
    import errno
    import tempfile

    seg_dir = camp.segment_dir(NAME)
    real = tempfile.TemporaryFile

    def read_only(*a, **k):
        if Path(k.get("dir", "")).name in ("turns", ".undone"):
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*a, **k)

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    before = tree_bytes(seg_dir)
    code, out = wdg(capsys, "turn", "undo", NAME, "-C", str(camp.root))
    assert code == 1 and "Rückgängig machen nicht begonnen" in out and "turns" in out, out
    assert tree_bytes(seg_dir) == before
    monkeypatch.setattr(tempfile, "TemporaryFile", real)
    assert wdg(capsys, "turn", "undo", NAME, "-C", str(camp.root))[0] == 0


def test_undo_refuses_without_space_and_across_file_systems(camp, capsys, monkeypatch):
    """Undo checks free space for the state it writes, and that ``.undone`` lies
    on the segment's file system, before it commits."""
    seg_dir = camp.segment_dir(NAME)
    before = tree_bytes(seg_dir)
    usage = shutil.disk_usage(seg_dir)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage._replace(free=4096))
    code, out = wdg(capsys, "turn", "undo", NAME, "-C", str(camp.root))
    assert code == 1 and "KiB frei" in out and "Nichts wurde geändert" in out, out
    monkeypatch.undo()
    real_lstat = os.lstat

    def other_fs(p, *a, **k):
        st = real_lstat(p, *a, **k)
        if str(p).endswith(".undone"):
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev + 1, *tuple(st)[3:]))
        return st

    monkeypatch.setattr(os, "lstat", other_fs)
    code, out = wdg(capsys, "turn", "undo", NAME, "-C", str(camp.root))
    assert code == 1 and "verschiedenen Dateisystemen" in out, out
    monkeypatch.undo()
    assert {k: v for k, v in tree_bytes(seg_dir).items()} == before


@pytest.mark.parametrize("where", ["turns", "reports"])
def test_turn_run_refuses_up_front_when_the_archive_or_reports_folder_is_read_only(
        camp, capsys, mounts, where):
    """Issue #30 item 5 for ``turn run``: with ``turns/`` (where the month is
    archived) or ``reports/<segment>/`` (where it is delivered after the commit)
    on a read-only mount, the run is refused before the month is resolved — a
    German message naming the folder and that nothing was changed — and the
    campaign is byte-identical; writable again, the month runs."""
    folder = camp.segment_dir(NAME) / "turns" if where == "turns" else \
        camp.root / "reports" / NAME
    assert folder.is_dir()
    mounts.read_only(folder)
    before = tree_bytes(camp.root)
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 1 and "Traceback" not in out, out
    assert f"Auswertung von Mond {JUNE.key} nicht begonnen: in {folder} kann nicht geschrieben " \
        "werden (schreibgeschütztes Dateisystem). Nichts wurde geändert" in out, out
    assert tree_bytes(camp.root) == before
    mounts.release(folder)
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 0, out
    assert (camp.root / "reports" / NAME / JUNE.key).is_dir()


def test_the_commit_point_check_counts_the_delivered_reports(camp, capsys, monkeypatch):
    """At the commit point ``turn run`` asks for room for the new state and for
    the reports it will deliver unpacked (issue #30 item 5): with less free
    space than that it refuses before committing and removes its staged month."""
    from wdg.store import months
    from wdg.store.delivery import archived_reports, delivered_size

    seen = {}
    real = months.can_commit

    def spy(seg_dir, month, **kw):
        if kw.get("staging") is not None:
            seen["reports"] = delivered_size(archived_reports(kw["staging"]))
            seen["state"] = sum(len(b) for b in kw["state"].values())
            usage = shutil.disk_usage(seg_dir)
            monkeypatch.setattr(shutil, "disk_usage", lambda p: usage._replace(
                free=integrity.with_margin(seen["reports"] + seen["state"])))
        return real(seg_dir, month, **kw)

    monkeypatch.setattr(months, "can_commit", spy)
    before = tree_bytes(camp.root)
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 1 and f"Speichern von Mond {JUNE.key} nicht begonnen" in out, out
    assert "Nichts wurde geändert" in out and "Traceback" not in out, out
    delivered = sum(p.stat().st_size for p in (camp.root / "reports" / NAME / MAY.key).rglob("*")
                    if p.is_file())
    assert seen["reports"] > delivered // 2  # the unpacked reports, not the packed ones
    assert tree_bytes(camp.root) == before
    assert not list(camp.segment_dir(NAME).glob("turns/.staging-*"))


def test_a_save_whose_renames_cannot_finish_is_refused_before_its_commit(camp, mounts):
    """The journal's renames are carried out after the commit point: a target
    folder on a read-only mount (or another file system) is refused before it,
    and the target folders are made before it (issue #30 item 5)."""
    from wdg.errors import StateError
    from wdg.store.segment import load_segment, save_segment

    seg_dir = camp.segment_dir(NAME)
    seg = load_segment(seg_dir)
    (seg_dir / "turns" / "x").mkdir()
    target = seg_dir / "turns" / "ro"
    target.mkdir()
    mounts.read_only(target)
    before = tree_bytes(seg_dir)
    with pytest.raises(StateError, match=f"Speichern nicht begonnen: in {target} kann nicht "
                       "geschrieben werden .*Nichts wurde geändert"):
        save_segment(seg, seg_dir, renames=(("turns/x", "turns/ro/x"),))
    assert tree_bytes(seg_dir) == before and (seg_dir / "turns" / "x").is_dir()
    assert not list(seg_dir.glob(".gen-*")) and not (seg_dir / ".commit").exists()
    save_segment(seg, seg_dir, renames=(("turns/x", "turns/new/deeper/x"),))
    assert (seg_dir / "turns" / "new" / "deeper" / "x").is_dir()


def test_sending_checks_the_send_record_can_be_written_before_the_first_mail(tmp_path, monkeypatch):
    """``reports send`` / ``mail run``: a mail handed to the server must be
    recorded (else it may go out twice). No room for the record: refused before
    any connection is made, nothing recorded (issue #30 item 5)."""
    from wdg.errors import StateError
    from wdg.mail.config import load_mail_config
    from wdg.store.sent import Ledger
    from wdg.mail.send import Outgoing, send_mails

    seg = tmp_path / "seg"
    seg.mkdir()
    (seg / "mail.yaml").write_text("from: SL <sl@wdg.test>\nsmtp:\n  host: 127.0.0.1\n"
                                   "  port: 9\n  security: plain\n", encoding="utf-8")
    usage = shutil.disk_usage(seg)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage._replace(free=4096))
    mails = [Outgoing(f"t/k{k}", f"p{k}@wdg.test", lambda c: None, f"{k:064x}") for k in (1, 2)]
    with pytest.raises(StateError, match=r"Versand nicht begonnen: auf dem Datenträger von "
                       rf"{seg / 'mail'} sind 4 KiB frei.*Nichts wurde geändert"):
        send_mails(Ledger(seg), load_mail_config(seg), mails)
    assert not (seg / "mail" / "sent.yaml").exists()


def test_segment_upgrade_checks_before_its_first_step(camp, capsys, monkeypatch):
    """``wdg segment upgrade`` writes rules, mail records and the segment in
    steps: it checks first that there is room for all of them (issue #30 item 5)."""
    seg_dir = camp.segment_dir(NAME)
    before = tree_bytes(camp.root)
    usage = shutil.disk_usage(seg_dir)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage._replace(free=8192))
    code, out = wdg(capsys, "segment", "upgrade", NAME, "-C", str(camp.root))
    assert code == 1 and "Segment-Upgrade nicht begonnen: auf dem Datenträger von" in out, out
    assert "Nichts wurde geändert" in out and "Traceback" not in out
    assert tree_bytes(camp.root) == before
    monkeypatch.undo()
    code, out = wdg(capsys, "segment", "upgrade", NAME, "-C", str(camp.root))
    assert code == 0, out


# --- file-system errors say what was committed ------------------------------------------------------

def test_a_full_disk_while_delivering_says_the_month_is_saved_and_what_to_run(camp, capsys,
                                                                              monkeypatch):
    """Issue #30 item 7: "says 'not committed' for a month that was committed and
    only failed to deliver". Now: saved, and the command that delivers."""
    import errno

    from wdg.store import delivery

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device",
                      str(camp.root / "reports" / NAME / JUNE.key / "k1"))

    monkeypatch.setattr(delivery, "put_bytes", full)
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 1 and "Traceback" not in out
    assert f"Mond {JUNE.key} ist ausgewertet und gespeichert" in out
    assert f"wdg reports render {NAME} {JUNE.key}" in out and "kein Platz mehr" in out
    assert (camp.segment_dir(NAME) / "turns" / JUNE.key / integrity.LIST).is_file()


def test_a_full_disk_before_the_commit_says_nothing_was_saved(camp, capsys, monkeypatch):
    import errno

    from wdg.store import months

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(months.integrity, "seal_month", full)
    before = tree_bytes(camp.segment_dir(NAME))
    code, out = wdg(capsys, "turn", "run", NAME, "-q", "--no-pdf", "-C", str(camp.root))
    assert code == 1 and f"Mond {JUNE.key} ist NICHT gespeichert" in out, out
    assert f"wdg turn run {NAME}" in out and "Traceback" not in out
    assert tree_bytes(camp.segment_dir(NAME)) == before


# --- sealed records (mail records between months) --------------------------------------------------

def test_sealed_records_find_a_bit_flip_and_a_truncation(tmp_path):
    path = tmp_path / "sent.yaml"
    integrity.write_sealed(path, b"sent:\n- id: 1\n")
    assert integrity.read_sealed(path) == b"sent:\n- id: 1\n"
    good = path.read_bytes()
    path.write_bytes(good.replace(b"id: 1", b"id: 3"))
    with pytest.raises(integrity.IntegrityError, match="sent.yaml: beschädigt"):
        integrity.read_sealed(path)
    path.write_bytes(good[:-20])
    with pytest.raises(integrity.IntegrityError, match="sent.yaml"):
        integrity.read_sealed(path)
    path.write_bytes(b"sent: []\n")  # written before sealing: accepted as it is
    assert integrity.read_sealed(path) == b"sent: []\n"
    integrity.write_sealed(path, b"sent:\n- id: 1\n- id: 2\n")
    cut = path.read_bytes()
    path.write_bytes(cut[:cut.index(b"- id: 2")])  # cut at a line end, seal line gone
    with pytest.raises(integrity.IntegrityError, match="abgeschnitten"):
        integrity.read_sealed(path)


def _sheet_mailbox(camp: Campaign, path: Path) -> Path:
    """An mbox with kingdom 1's June sheet (moved out of the orders folder)."""
    import email.utils
    import mailbox
    from email.message import EmailMessage

    sheet = camp.orders_dir(NAME, JUNE) / "k1.txt"
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "p1@example.org", "sl@example.org", "Spielzug"
    msg["Date"] = email.utils.format_datetime(email.utils.parsedate_to_datetime(
        "Mon, 02 Nov 2026 10:00:00 +0000"))
    msg["Message-ID"] = "<k1-juni@example.org>"
    msg.set_content(sheet.read_text(encoding="utf-8"))
    sheet.unlink()
    box = mailbox.mbox(str(path))
    box.add(msg)
    box.flush()
    box.close()
    return path


def _flip_in_key(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.index(b"k1-juni") + 3
    data[at] ^= 0x01  # "k1-juni" -> "k1-kuni": the mail would look unseen
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_flip_in_key, _truncate], ids=["bitflip", "truncation"])
def test_damage_to_the_intake_record_is_found_and_never_read_as_not_seen(camp, capsys, tmp_path,
                                                                         damage):
    """The intake record ``mail/seen.yaml`` is sealed (issue #30: "a bit flip in
    each stored file kind ... found and named, none turned into game state"):
    a flipped byte in a mail's key or a file cut short is named on loading —
    by ``orders import`` (which would otherwise take the mail again and answer
    it twice) and by ``segment check`` — with what to do; nothing is imported.
    Restored from the backup, the mail is known again."""
    from wdg.store.seen import SeenRecord

    root, seg_dir = str(camp.root), camp.segment_dir(NAME)
    box = _sheet_mailbox(camp, tmp_path / "eingang.mbox")
    code, out = wdg(capsys, "orders", "import", NAME, str(box), "-C", root)
    assert code == 0, out
    seen = seg_dir / "mail" / "seen.yaml"
    assert integrity.is_sealed(seen.read_bytes()) and SeenRecord(seg_dir).get("<k1-juni@example.org>")
    good = seen.read_bytes()
    damage(seen)
    before = tree_bytes(camp.root)

    code, out = wdg(capsys, "orders", "import", NAME, str(box), "-C", root)
    assert code == 1 and "Traceback" not in out, out
    assert str(seen) in out and f"wdg segment accept {NAME}" in out and "Sicherung" in out, out
    assert "doppelt" in out, out
    assert tree_bytes(camp.root) == before  # nothing imported, nothing answered

    code, out = wdg(capsys, "segment", "check", NAME, "-C", root)
    assert code == 1 and str(seen) in out and "Traceback" not in out, out

    seen.write_bytes(good)  # restored from the backup
    assert wdg(capsys, "segment", "check", NAME, "-C", root)[0] == 0
    code, out = wdg(capsys, "orders", "import", NAME, str(box), "-C", root)
    assert code in (0, 3) and "Traceback" not in out, out
    assert sorted(p.name for p in camp.orders_dir(NAME, JUNE).glob("k1*.txt")) == ["k1.txt"]


def test_a_checked_intake_record_is_sealed_again_by_segment_accept(camp, capsys):
    from wdg.store.seen import SeenRecord

    seg_dir = camp.segment_dir(NAME)
    rec = SeenRecord(seg_dir)
    rec.record("<a@x>", "taking", JUNE.key)
    rec.record("<a@x>", "taken", JUNE.key, results=[])
    seen = rec.path
    seen.write_bytes(seen.read_bytes().replace(b'"month": "0412-06"', b'"month": "0412-07"', 1))
    with pytest.raises(integrity.IntegrityError, match="seen.yaml: beschädigt"):
        SeenRecord(seg_dir)
    code, out = wdg(capsys, "segment", "accept", NAME, "-C", str(camp.root))
    assert code == 0 and "Eingangsbuch" in out and "neu versiegelt" in out, out
    assert SeenRecord(seg_dir).get("<a@x>").taken
    assert wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))[0] == 0


def test_an_intake_record_written_before_sealing_is_read_and_sealed_on_its_next_event(camp,
                                                                                      capsys):
    """Old segments keep working: the append-only record without a seal (a torn
    last line dropped, as before) loads; its next event seals it, keeping every line."""
    from wdg.store.seen import HEADER, SeenRecord

    seg_dir = camp.segment_dir(NAME)
    seen = seg_dir / "mail" / "seen.yaml"
    seen.parent.mkdir()
    old = (HEADER + '- {"key": "<a@x>", "event": "taking", "month": "0412-06"}\n'
           '- {"key": "<a@x>", "event": "taken", "month": "0412-06", "results": []}\n'
           '- {"key": "<b@x>", "ev').encode()
    seen.write_bytes(old)
    assert wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))[0] == 0
    rec = SeenRecord(seg_dir)
    assert rec.get("<a@x>").taken and rec.get("<b@x>") is None and not rec.sealed
    rec.record("<c@x>", "taking", JUNE.key)
    raw = seen.read_bytes()
    assert integrity.is_sealed(raw) and raw.count(b'"key": "<a@x>"') == 2
    assert b"<b@x>" not in raw
    again = SeenRecord(seg_dir)
    assert again.get("<a@x>").taken and again.get("<c@x>").event == "taking"
    assert oct(seen.stat().st_mode & 0o777) == "0o600"


def test_a_bit_flip_in_the_send_record_is_refused_not_read_as_unsent(camp, capsys):
    """The send record ``mail/sent.yaml`` (issue #30: a bit flip in each stored
    file kind): its seal holds the SHA-256 of the record up to its last line,
    so a flipped byte in a mail's key — which would make that mail look unsent
    and mail it twice — is refused, by the next send and by ``segment check``.
    A seal of an older wdg (the number only) is accepted and completed."""
    from wdg.errors import StateError
    from wdg.store.sent import Ledger

    seg_dir = camp.segment_dir(NAME)
    led = Ledger(seg_dir)
    for k in ("bericht/0412-05/k1", "bericht/0412-05/k2"):
        led.intend(k, message_id=f"<{k}@x>", to="p@x", sha256="ab")
        led.settle(k, "sent", "250 ok")
    path, seal = led.path, led.seal
    good = path.read_bytes()
    path.write_bytes(good.replace(b"0412-05/k1", b"0412-05/k3"))
    with pytest.raises(StateError, match="Prüfsumme"):
        Ledger(seg_dir)
    code, out = wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))
    assert code == 1 and str(path) in out and "Prüfsumme" in out, out
    path.write_bytes(good)
    assert wdg(capsys, "segment", "check", NAME, "-C", str(camp.root))[0] == 0
    seal.write_text("4\n")  # as an older wdg wrote it
    led = Ledger(seg_dir)
    assert led.was_sent("bericht/0412-05/k1") and not led.was_sent("bericht/0412-05/k3")
    led.intend("x", message_id="<x@x>", to="p@x", sha256="ab")
    assert len(seal.read_text().split()) == 2 and Ledger(seg_dir).n == 5


def test_the_hash_lists_are_checked_by_sha256sum(camp):
    """The lists are in ``sha256sum`` format: standard tools verify them."""
    import subprocess

    seg_dir = camp.segment_dir(NAME)
    for d in (seg_dir, seg_dir / "turns" / MAY.key):
        r = subprocess.run(["sha256sum", "--quiet", "-c", integrity.LIST], cwd=d,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


# --- a real full disk and Ctrl-C under turn run --jobs 2 (slow) ----------------------------------

def _mount(*args: str) -> str | None:
    """``mount ARGS``: None when it worked, else why not (mount's own words)."""
    import subprocess

    try:
        r = subprocess.run(["mount", *args], capture_output=True, text=True)
    except FileNotFoundError:
        return "no 'mount' program on PATH"
    return None if r.returncode == 0 else \
        f"'mount {' '.join(args)}' failed: {r.stderr.strip() or f'exit {r.returncode}'}"


@pytest.fixture
def mounts():
    """Mount helpers (need root; where mounting is not allowed the test fails
    unless WDG_SKIP_MOUNTS=1, tests/skips.py); everything mounted is unmounted after the test, last first.
    ``mounts.tmpfs(path, size_k)``: a tmpfs of that size at ``path``;
    ``mounts.read_only(path)``: ``path`` bind-mounted read-only onto itself."""
    import subprocess
    from types import SimpleNamespace

    done: list[Path] = []

    def tmpfs(path: Path, size_k: int) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        why = _mount("-t", "tmpfs", "-o", f"size={size_k}k", "tmpfs", str(path))
        if why:
            cannot_run("WDG_SKIP_MOUNTS", f"cannot mount a tmpfs here (needs root): {why}")
        done.append(path)
        return path

    def read_only(path: Path) -> Path:
        why = _mount("--bind", str(path), str(path))
        if why:
            cannot_run("WDG_SKIP_MOUNTS", f"cannot bind-mount here (needs root): {why}")
        done.append(path)
        why = _mount("-o", "remount,ro,bind", str(path))
        if why:
            cannot_run("WDG_SKIP_MOUNTS", f"cannot remount read-only here (needs root): {why}")
        return path

    def release(path: Path) -> None:
        subprocess.run(["umount", str(path)], capture_output=True)
        done.remove(path)

    yield SimpleNamespace(tmpfs=tmpfs, read_only=read_only, release=release)
    for path in reversed(done):
        subprocess.run(["umount", str(path)], capture_output=True)


def _demo_on_tmpfs(tmp_path: Path, mounts, free_k: int) -> Campaign:
    """The demo campaign on a tmpfs with about ``free_k`` KiB left."""
    from wdg.commands.demo import copy_demo

    probe = copy_demo(tmp_path / "measure")
    used = sum(-(-p.stat().st_size // 4096) * 4 for p in probe.root.rglob("*") if p.is_file())
    shutil.rmtree(probe.root)
    mnt = mounts.tmpfs(tmp_path / "fs", used + free_k)
    return copy_demo(mnt / "c")


def _run_demo(camp: Campaign, *more: str):
    import subprocess

    return subprocess.run([sys.executable, "-m", "wdg", "turn", "run", "canura", "--jobs", "2",
                           "--force", *more, "-C", str(camp.root)], capture_output=True,
                          text=True, timeout=300)


def _unchanged_but_bot_sheets(camp: Campaign, before: dict[str, bytes], out: str) -> set[str]:
    """The campaign is as ``before`` but for the bot kingdoms' sheets the run
    wrote (and announced) for the month before resolving it — inputs the re-run
    takes as they are; returns their names."""
    after = tree_bytes(camp.root)
    bots = {n for n in set(after) - set(before) if n.startswith("orders/canura/0412-04/")}
    assert {n: after[n] for n in after if n not in bots} == before
    assert all(f"Spielzug {Path(n).name} geschrieben" in out for n in bots), out
    return bots


@pytest.mark.slow
@pytest.mark.parametrize(("free_k", "what"), [(100, "Auswertung"), (1500, "Speichern")],
                         ids=["before-the-month", "at-the-commit-point"])
def test_turn_run_on_a_tiny_tmpfs_is_refused_up_front_and_changes_nothing(tmp_path, mounts,
                                                                          free_k, what):
    """Issue #30 item 5: "Undo and the other two-step commands check they can finish
    before they commit (writable, same file system, space for what they will
    write)". On a real tmpfs with the demo campaign and 100 KiB free, ``turn
    run`` (with PDFs, two workers) is refused before the month is resolved (the
    estimate: the state thrice plus 1 MiB); with 1.5 MiB free it resolves and
    renders, and at the commit point the delivered reports (1.2 MB unpacked)
    do not fit: refused before anything is committed, the staged month
    removed. Both times: one German message naming the folder, the free and
    the needed KiB, "Nichts wurde geändert"; the campaign byte-identical (the
    second time but for the bot kingdom's sheet the run wrote, and said so,
    before resolving: a sheet of the month, taken as it is by the re-run)."""
    camp = _demo_on_tmpfs(tmp_path, mounts, free_k)
    before = tree_bytes(camp.root)
    r = _run_demo(camp, "-q")
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "Traceback" not in out, out
    assert f"{what} von Mond 0412-04 nicht begonnen: auf dem Datenträger von " in out, out
    assert "KiB frei, gebraucht werden etwa" in out and "Nichts wurde geändert" in out, out
    assert str(camp.root) in out, out
    bots = _unchanged_but_bot_sheets(camp, before, out)
    assert what == "Speichern" or not bots
    assert not list(camp.segment_dir("canura").glob("turns/.staging-*"))


def _turn_run_until(python_args: list[str], camp, marker: str, then):
    """``python PYTHON_ARGS turn run canura --jobs 2 --force`` in a subprocess, its
    stderr read until a line starting with ``marker``; then ``then(process)`` is called.
    Returns the process and the stderr lines read so far."""
    import subprocess

    p = subprocess.Popen([sys.executable, *python_args, "turn", "run", "canura", "--jobs", "2",
                          "--force", "-C", str(camp.root)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    seen = []
    for line in p.stderr:
        seen.append(line)
        if line.startswith(marker):
            then(p)
            break
    return p, seen


@pytest.mark.slow
def test_a_disk_filled_while_two_workers_render_is_one_message(tmp_path, mounts):
    """Issue #30 item 7: disk full "prints a worker-pool traceback at 3 levels".
    The checks before the month pass; the disk is filled by someone else while
    the two workers render (after "[2/4]"): one message, no traceback, the
    month not committed and the campaign as before."""

    camp = _demo_on_tmpfs(tmp_path, mounts, 8000)
    filler = camp.root.parent / "filler"
    before = tree_bytes(camp.root)
    def fill(_p) -> None:
        with filler.open("wb") as f:  # everything left, block by block
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
    p, seen = _turn_run_until(["-m", "wdg"], camp, "[2/4]", fill)
    out, err = p.communicate(timeout=300)
    out = out + "".join(seen) + err
    assert p.returncode == 1 and "Traceback" not in out, out
    assert "ist NICHT gespeichert" in out or "nicht begonnen" in out, out
    assert "kein Platz mehr auf dem Datenträger" in out or "KiB frei" in out, out
    assert str(camp.root.parent) in out, out
    assert not (camp.segment_dir("canura") / "turns" / "0412-04").exists()
    filler.unlink()
    _unchanged_but_bot_sheets(camp, before, out)


@pytest.mark.slow
def test_ctrl_c_in_turn_run_with_two_workers_is_one_line(tmp_path):
    """Ctrl-C while two workers render: exit 130, one line, no traceback of the pool."""
    import signal
    import subprocess

    from wdg.commands.demo import copy_demo

    camp = copy_demo(tmp_path / "c")
    # Signalled while the two workers render (the parent is packing the first
    # finished sheet; held there so a busy machine cannot finish the run before
    # the signal arrives): exit 130, one German line, nothing stored.
    held = ("import sys, time\n"
            "sys.argv[0] = 'wdg'\n"
            "from wdg.store import files\n"
            "add = files.PackWriter.add_file\n"
            "def slow_add(self, path):\n"
            "    if not getattr(files, '_held', False):\n"
            "        files._held = True\n"
            "        sys.stderr.write('HELD\\n'); sys.stderr.flush()\n"
            "        time.sleep(120)\n"
            "    add(self, path)\n"
            "files.PackWriter.add_file = slow_add\n"
            "from wdg.cli import main\n"
            "main()\n")
    p, seen = _turn_run_until(["-c", held], camp, "HELD", lambda p: p.send_signal(signal.SIGINT))
    out, err = p.communicate(timeout=120)
    err = "".join(seen) + err
    assert "Traceback" not in out + err, err
    assert p.returncode == 130, (p.returncode, err)
    assert err.splitlines()[-1] == ("abgebrochen (Strg-C); Gespeichertes ist unverändert "
                                    "oder vollständig"), err
    assert not (camp.segment_dir("canura") / "turns" / "0412-04").exists()
    # Signalled at once after the summary line: the run is complete and says so
    # (exit 0), never killed by the signal (-2) while Python exits.
    p = subprocess.Popen([sys.executable, "-m", "wdg", "turn", "run", "canura", "--jobs", "2",
                          "-q", "--force", "-C", str(camp.root)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    while first and "ausgewertet und gespeichert" not in first:
        first = p.stdout.readline()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode in (0, 130), (p.returncode, err)
    assert "Traceback" not in out + err, err
    assert (camp.segment_dir("canura") / "turns" / "0412-04").exists()


def test_a_full_disk_at_the_staging_mark_leaves_no_empty_mark(tmp_path, monkeypatch):
    """Issue #30 item 6 ("nothing it did not finish is left behind"): the disk
    fills just as the run writes the mark beside its staging folder (seen in a
    full suite on a busy machine: an empty ``turns/.staging-0412-04.wdg`` was
    left). The mark it made is removed again and the error goes on."""
    import errno

    from wdg.store import recovery

    staging = tmp_path / ".staging-0412-04"
    staging.mkdir()
    real_write = os.write

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(recovery.os, "write", full)
    with pytest.raises(OSError):
        recovery.mark_staging(staging)
    monkeypatch.setattr(recovery.os, "write", real_write)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".staging-0412-04"]


def _open_fds_to(path: str) -> list[int]:
    """In a pool worker: its descriptors that refer to ``path``."""
    out = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == path:
                out.append(int(name))
        except OSError:
            pass
    return out


def test_a_pool_worker_holds_no_copy_of_the_segment_lock(tmp_path):
    """Issue #30 (after a SIGKILL "the next command recovers"): a ``turn run``
    killed while its workers render must leave the segment's lock free at once.
    A forked worker inherited the lock's descriptor and so held the flock until
    it died itself (seen on a busy machine: ``segment check`` right after the
    kill found the segment locked and left the staged month). Workers now close
    their copy first thing."""
    from wdg.commands.demo import copy_demo
    from wdg.store.lock import segment_lock
    from wdg.procs import process_pool, stopping_pool

    camp = copy_demo(tmp_path / "c")
    seg = camp.segment_dir("canura")
    with segment_lock(seg):
        lock = str((seg / ".lock").resolve())
        with stopping_pool(process_pool(1)) as pool:
            assert pool.submit(_open_fds_to, lock).result(timeout=120) == []
