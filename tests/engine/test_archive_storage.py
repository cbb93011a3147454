"""How the archive stores a month (issue 16, "each file stored once"): the
reports in one xz pack, the state's text files gzip-compressed, the event log
as JSON Lines; every stored form read back exactly, damage named by file."""

from __future__ import annotations

import gzip
import hashlib
import lzma
from pathlib import Path

import pytest
from turn_helpers import NAME, make_campaign, standard_sheets
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.store import files as store_files
from wdg.store import months as store_months
from wdg.engine.history import list_months
from wdg.engine.turn import replay_month, run_month
from wdg.errors import StateError
from wdg.reports.archived import archive_writers
from wdg.store.delivery import GZIP
from wdg.store.delivery import archived_names, deliver, storage_of
from wdg.world.calendar import MonthDate
from wdg.store.segment import load_segment, segments_equal

APRIL = MonthDate(412, 4)


def _files(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_a_pack_holds_its_files_exactly_and_the_same_files_give_the_same_pack(tmp_path):
    files = {"k1/ergebnis.txt": "Reichsschatz: 1.000 GS\n".encode(), "k1/ergebnis.pdf": b"%PDF",
             "k2/bericht.json": b"{}", "overview.html": "<p>Götter</p>".encode(),
             "leer.txt": b""}
    packs = []
    for run in ("a", "b"):
        _files(tmp_path / run, files)
        pack = store_files.write_pack(tmp_path / run, keep=lambda p: p.suffix == ".pdf")
        assert pack == tmp_path / run / store_files.PACK
        packs.append(pack.read_bytes())
        # the packed files are gone, the kept one stays as it is
        assert sorted(p.relative_to(tmp_path / run).as_posix()
                      for p in (tmp_path / run).rglob("*") if p.is_file()) == \
            ["k1/ergebnis.pdf", store_files.PACK]
    assert packs[0] == packs[1]
    store_files._PACK_CACHE.clear()  # read from disk, not from what the writer remembered
    members = store_files.read_pack(tmp_path / "a" / store_files.PACK)
    assert members == {n: d for n, d in files.items() if not n.endswith(".pdf")}
    # the manifest lists the members as files of the pack's folder
    tree = store_files.hash_tree(tmp_path / "a")
    assert tree["k1/ergebnis.txt"] == hashlib.sha256(files["k1/ergebnis.txt"]).hexdigest()
    assert store_files.PACK not in tree and "k1/ergebnis.pdf" in tree
    assert store_files.read_archived(tmp_path / "a" / "k1" / "ergebnis.txt", root=tmp_path / "a") \
        == files["k1/ergebnis.txt"]
    with pytest.raises(FileNotFoundError):
        store_files.read_archived(tmp_path / "a" / "k9" / "ergebnis.txt", root=tmp_path / "a")


def test_a_damaged_pack_is_named(tmp_path):
    _files(tmp_path, {"a.txt": b"x" * 1000})
    pack = store_files.write_pack(tmp_path)
    pack.write_bytes(pack.read_bytes()[:-20])
    store_files._PACK_CACHE.clear()
    with pytest.raises(StateError, match="pack.tar.xz"):
        store_files.read_pack(pack)


@pytest.fixture
def camp(tmp_path):
    c = make_campaign(tmp_path)
    standard_sheets(c, APRIL)
    return c


def test_the_archived_state_is_compressed_and_reads_back_as_the_segment(camp):
    run_month(camp, NAME)
    mdir = camp.archive_dir(NAME) / APRIL.key
    for folder in ("state", "state-before"):
        names = sorted(p.name for p in (mdir / folder).iterdir())
        assert "armies.yaml.gz" in names and "layers.npz" in names and "armies.yaml" not in names
    # the state after the month is the live segment, byte for byte and as loaded
    for p in (mdir / "state").iterdir():
        live = camp.segment_dir(NAME) / p.name.removesuffix(".gz")
        assert store_files.read_archived(p) == live.read_bytes(), p.name
    assert segments_equal(load_segment(mdir / "state"), load_segment(camp.segment_dir(NAME)))
    # the manifest hashes the content (as before the state was compressed)
    manifest = store_months.safe_load_file(mdir / "manifest.yaml")["files"]
    assert manifest["state/armies.yaml"] == hashlib.sha256(
        (camp.segment_dir(NAME) / "armies.yaml").read_bytes()).hexdigest()
    # the index records the stored files' sizes
    sizes = store_months.safe_load_file(mdir / store_files.SUMMARY)["sizes"]
    assert sizes["state/armies.yaml.gz"] == (mdir / "state" / "armies.yaml.gz").stat().st_size


def test_a_changed_compressed_state_file_is_named_by_replay_and_list(camp):
    run_month(camp, NAME)
    stored = camp.archive_dir(NAME) / APRIL.key / "state" / "kingdoms.yaml.gz"
    text = gzip.decompress(stored.read_bytes())
    stored.unlink()  # (a hard link of the next month's state-before would share the edit)
    stored.write_bytes(gzip.compress(text.replace(b"name:", b"name: ", 1)))
    report = replay_month(camp, NAME, APRIL.key)
    assert not report.ok
    assert report.first_difference == "state/kingdoms.yaml (archivierte Datei weicht vom Manifest ab)"
    # turn list --verify: named by the month's hash list (issue #30)
    (m,) = list_months(camp, NAME, verify=True)
    assert not m.verified and m.first_mismatch.startswith(str(stored) + ": beschädigt")


def test_the_event_log_is_json_lines_and_older_logs_still_read(tmp_path):
    events = [{"kind": "move", "kingdom": 1, "why": "zieht nach 101.01\u2028weiter",
               "data": {"text": "Zeile 1\nZeile 2 \"zitiert\""}}, {"kind": "pay", "gold": -5}]
    for name in store_files.EVENT_FILES:
        d = tmp_path / name
        d.mkdir()
        (d / name).write_bytes(store_files.events_bytes(events, name))
        assert store_files.events_file(d).name == name
        assert store_files.read_events_data(d) == events
    text = lzma.decompress((tmp_path / store_files.EVENTS / store_files.EVENTS).read_bytes())
    assert text.decode("utf-8").count("\n") == 2  # one event a line


def test_a_month_with_gzip_reports_replays_and_delivers_as_stored(tmp_path):
    """Months archived before the pack (each report as ``name.gz``) keep replaying."""
    camp = copy_demo(tmp_path / "c")
    run_month(camp, DEMO_SEGMENT, outputs=archive_writers(camp.templates_dir, camp.rules_dir,
                                                          pdf=False, storage=GZIP))
    mdir = camp.archive_dir(DEMO_SEGMENT) / "0412-04"
    manifest = store_months.safe_load_file(mdir / "manifest.yaml")["files"]
    assert storage_of(mdir, manifest) == GZIP
    assert "outputs/reports/k1/ergebnis.txt.gz" in manifest
    assert Path("k1/ergebnis.txt") in archived_names(mdir / "outputs" / "reports")
    files = deliver(camp, DEMO_SEGMENT, MonthDate.parse("0412-04"))
    assert any(p.name == "ergebnis.txt" for p in files)
    r = CliRunner().invoke(app, ["turn", "replay", DEMO_SEGMENT, "0412-04", "-C", str(camp.root)])
    assert r.exit_code == 0 and "identisch" in r.output, r.output
