"""Every month says what made it and replays on its own (issue #29 items 1 and 3)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import wdg
from wdg.campaign import PACKAGE_ROOT
from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.engine.replay_explain import pdf_producer
from wdg.store import blobs as store_blobs
from wdg.store import months as store_months
from wdg.engine.turn import run_month
from wdg.engine.upgrade import insert_key
from wdg.orders.generate import generate_sheets
from wdg.provenance import build_info
from wdg.reports.archived import archive_writers, replay_archived
from wdg.store.delivery import archived_bytes, archived_reports
from wdg.reports.jsonreport import changes, previous_extract
from wdg.rules import safe_load_file
from wdg.store.segment import load_segment

APRIL, MAY = "0412-04", "0412-05"


@pytest.fixture(scope="module")
def two_months(tmp_path_factory) -> Path:
    """The demo campaign, two months, text/HTML reports (no PDFs), with its own templates."""
    camp = copy_demo(tmp_path_factory.mktemp("prov") / "c")
    for i in range(2):
        if i:
            seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
            out = camp.root / "orders" / DEMO_SEGMENT / seg.date.key
            out.mkdir(parents=True, exist_ok=True)
            for k, text in generate_sheets(seg, np.random.default_rng(i)).items():
                (out / f"k{k}.txt").write_text(text, encoding="utf-8")
        run_month(camp, DEMO_SEGMENT, force=True,
                  outputs=archive_writers(camp.templates_dir, camp.rules_dir, pdf=False,
                                          archive_dir=camp.archive_dir(DEMO_SEGMENT)))
    return camp.root


def _copy(root: Path, tmp_path: Path):
    from wdg.campaign import Campaign

    shutil.copytree(root, tmp_path / "c", copy_function=shutil.copy2)
    return Campaign(tmp_path / "c")


def test_the_version_is_one_number_with_the_commit():
    """pyproject reads the version from wdg/__init__.py; --version names the commit
    (from git in this checkout) and whether the tree is dirty."""
    meta = tomllib.loads((PACKAGE_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert meta["dynamic"]["version"] == {"attr": "wdg.__version__"}
    assert wdg.__version__ == "0.3.0"
    out = CliRunner().invoke(app, ["--version"]).output
    assert out.startswith(f"wdg {wdg.__version__}")
    info = build_info()
    if info["source"] == "git":
        assert len(info["commit"]) == 40 and info["commit"][:12] in out
        assert isinstance(info["dirty"], bool)


def test_provenance_names_software_dependencies_inputs_and_templates(two_months):
    mdir = two_months / "worlds" / DEMO_SEGMENT / "turns" / APRIL
    prov = safe_load_file(mdir / store_months.PROVENANCE)
    assert prov["wdg"]["version"] == wdg.__version__
    assert prov["python"]["version"].count(".") == 2
    assert prov["dependencies"]["numpy"]["version"] == np.__version__
    assert len(prov["dependencies"]["numpy"]["record_sha256"]) == 64
    sheet = (mdir / "orders" / "k1.txt").read_bytes()
    assert prov["inputs"]["orders/k1.txt"] == hashlib.sha256(sheet).hexdigest()
    assert prov["inputs"]["rules/economy.yaml"] == \
        hashlib.sha256((mdir / "rules" / "economy.yaml").read_bytes()).hexdigest()
    assert {"state-before/segment.yaml", "state-before/layers.npz", "seed.yaml",
            "inputs/previous-reports.json", "orders/sl.txt"} <= set(prov["inputs"])
    assert "previous_month" not in prov  # the first month
    for name, digest in prov["templates"].items():
        blob = store_blobs.blob_path(mdir.parent, digest)
        assert hashlib.sha256(blob.read_bytes()).hexdigest() == digest, name
        st = blob.stat()
        assert st.st_mode & 0o777 == 0o444 and st.st_nlink == 1  # read-only, no hard link
    assert "ergebnisblatt.txt.j2" in prov["templates"] and "report.css" in prov["templates"]


def test_the_chain_and_templates_stored_once(two_months):
    turns = two_months / "worlds" / DEMO_SEGMENT / "turns"
    april, may = (safe_load_file(turns / m / store_months.PROVENANCE) for m in (APRIL, MAY))
    assert may["previous_month"] == {
        "month": APRIL,
        "manifest_sha256": hashlib.sha256((turns / APRIL / "manifest.yaml").read_bytes()).hexdigest()}
    assert may["templates"] == april["templates"]
    assert len(list((turns / store_blobs.BLOBS / "sha256").iterdir())) == len(april["templates"])


def test_a_month_replays_on_its_own(two_months, tmp_path):
    """Without the live segment.yaml, without month M-1, with the campaign's
    templates edited: May replays byte for byte from its own folder (and the blobs)."""
    camp = _copy(two_months, tmp_path)
    seg_dir = camp.segment_dir(DEMO_SEGMENT)
    shutil.move(seg_dir / "turns" / APRIL, tmp_path / "april-elsewhere")
    (seg_dir / "segment.yaml").unlink()
    for p in camp.templates_dir.glob("*.j2"):
        p.write_text("{{ nonsense }}\n", encoding="utf-8")
    report = replay_archived(camp, DEMO_SEGMENT, MAY)
    assert report.ok, report.lines()
    assert report.same_software and f"dies ist wdg {wdg.__version__}" in report.lines()[0]


def test_a_damaged_template_blob_is_named(two_months, tmp_path):
    camp = _copy(two_months, tmp_path)
    turns = camp.archive_dir(DEMO_SEGMENT)
    digest = safe_load_file(turns / MAY / store_months.PROVENANCE)["templates"]["ergebnisblatt.txt.j2"]
    blob = store_blobs.blob_path(turns, digest)
    os.chmod(blob, 0o644)
    blob.write_bytes(blob.read_bytes() + b"x")
    report = replay_archived(camp, DEMO_SEGMENT, MAY)
    assert not report.ok and digest in report.first_difference
    assert "ergebnisblatt.txt.j2" in report.first_difference and "beschädigt" in report.first_difference


def test_a_changed_archived_input_is_named_in_its_layer(two_months, tmp_path):
    camp = _copy(two_months, tmp_path)
    rules = camp.archive_dir(DEMO_SEGMENT) / MAY / "rules" / "economy.yaml"
    data = rules.read_bytes()
    rules.unlink()  # (it may be a hard link to April's copy)
    rules.write_bytes(data + b"\n# edited\n")
    r = CliRunner().invoke(app, ["turn", "replay", DEMO_SEGMENT, MAY, "-j", "1",
                                 "-C", str(camp.root)])
    assert r.exit_code == 1
    assert "Eingaben: ABWEICHUNG — rules/economy.yaml wurde verändert" in r.output
    assert "Abweichung in rules/economy.yaml (Eingabe weicht von provenance.yaml ab)" in r.output


def test_the_previous_figures_give_the_same_changes(two_months):
    """``changes`` reads of last month's report only what ``previous_extract`` keeps."""
    turns = two_months / "worlds" / DEMO_SEGMENT / "turns"
    for k in (1, 2, 3):
        before = json.loads(archived_bytes(archived_reports(turns / APRIL), f"k{k}/bericht.json"))
        now = json.loads(archived_bytes(archived_reports(turns / MAY), f"k{k}/bericht.json"))
        assert changes(now, previous_extract(before)) == changes(now, before)
        assert now["changes"] == changes(now, before)


def test_insert_key_keeps_comments_and_order():
    text = ("# economy\nsettlement:\n  # the table\n  min: 1   # rule 7\n  classes:\n"
            "    - {min: 1, name: Lager}\n\nother: 2  # keep\n")
    out = insert_key(text, "settlement.treasury_min_units", 0, "added")
    assert "  treasury_min_units: 0  # added\n" in out
    assert out.startswith("# economy\nsettlement:\n  # the table\n  min: 1   # rule 7\n")
    assert out.endswith("other: 2  # keep\n")
    out = insert_key(out, "minimum_soldiers.e", 1, "new block")
    assert out.endswith("minimum_soldiers:\n  e: 1  # new block\n")


def test_pdf_producer_explains_a_pdf_difference():
    assert pdf_producer(b"%PDF-1.7 ... /Producer (WeasyPrint 61.2) ...") == "WeasyPrint 61.2"
    assert pdf_producer(b"no metadata") is None


TAMPER = [
    # (what, path in May's folder, how) — how: "edit" appends a line, "flip" flips a byte
    ("a sheet", "orders/k1.txt", "edit"),
    ("another sheet", "orders/k2.txt", "flip"),
    ("a rules file", "rules/combat.yaml", "edit"),
    ("the start state (compressed)", "state-before/armies.yaml.gz", "flip"),
    ("the start state's layers", "state-before/layers.npz", "flip"),
    ("the seed", "seed.yaml", "edit"),
    ("the previous month's figures", "inputs/previous-reports.json.xz", "flip"),
    ("the state after", "state/kingdoms.yaml.gz", "flip"),
    ("the event log", "events.jsonl.xz", "flip"),
    ("the reports' pack", "outputs/reports/pack.tar.xz", "flip"),
]


@pytest.mark.parametrize("what,rel,how", TAMPER, ids=[t[0] for t in TAMPER])
def test_replay_names_every_damaged_file_kind_without_a_traceback(two_months, tmp_path,
                                                                   what, rel, how):
    """Each archived file kind changed or damaged: ``wdg turn replay`` exits 1 with
    the file named in its layer — never a traceback (issue #29)."""
    camp = _copy(two_months, tmp_path)
    path = camp.archive_dir(DEMO_SEGMENT) / MAY / rel
    data = path.read_bytes()
    path.unlink()  # (a hard link to April's copy must not change April)
    if how == "edit":
        path.write_bytes(data + b"\n# edited\n")
    else:
        mid = len(data) // 2
        path.write_bytes(data[:mid] + bytes([data[mid] ^ 0x10]) + data[mid + 1:])
    r = CliRunner().invoke(app, ["turn", "replay", DEMO_SEGMENT, MAY, "-j", "1",
                                 "-C", str(camp.root)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1, r.output
    named = rel.removesuffix(".gz").removesuffix(".xz") if rel.startswith(
        ("state", "inputs")) else rel  # (listed under their content's name)
    shown = rel.split("/")[0] if rel.startswith("outputs") else named
    assert shown in r.output, r.output
    assert "ABWEICHUNG" in r.output, r.output


def test_rules_that_are_off_when_absent_stay_off_unless_adopted(tmp_path, monkeypatch):
    """A new rule whose absence means "off" (deposits, morale, help repairs): the upgrade
    keeps the campaign playing as before unless the game master adopts it; a key whose
    old behaviour is known gets that value either way."""
    from wdg.campaign import Campaign
    from wdg.engine import upgrade

    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "deposits.yaml").write_text("seed_salt: 7\n")
    (shipped / "actions.yaml").write_text("help:\n  repair_per_1000_soldiers: 5\n"
                                          "minimum_soldiers:\n  e: 1\n")
    monkeypatch.setattr(upgrade, "SHIPPED_RULES", shipped)
    camp = Campaign(tmp_path / "c")
    (camp.worlds / "rules").mkdir(parents=True)
    (camp.worlds / "rules" / "actions.yaml").write_text("help:\n  other: 1  # kept\n")
    keep = upgrade.Context(camp, "x", 1, 2, "keep", False, "keep")
    notes = upgrade.rules_step(keep)
    text = (camp.worlds / "rules" / "actions.yaml").read_text()
    assert "repair_per_1000_soldiers" not in text and "  e: 0  # added by wdg segment upgrade" in text
    assert not (camp.worlds / "rules" / "deposits.yaml").exists()
    assert any("deposits.yaml: neue Regel, nicht übernommen" in n for n in notes), notes
    adopt = upgrade.Context(camp, "x", 1, 2, "keep", False, "adopt")
    upgrade.rules_step(adopt)
    assert "repair_per_1000_soldiers: 5" in (camp.worlds / "rules" / "actions.yaml").read_text()
    assert (camp.worlds / "rules" / "deposits.yaml").read_text() == "seed_salt: 7\n"
    assert upgrade.off_when_absent("actions.yaml", "help.repair_per_1000_soldiers")
    assert not upgrade.off_when_absent("actions.yaml", "minimum_soldiers.e")


def test_the_export_package_checks_provenance_templates_and_chain(two_months, tmp_path):
    """``wdg export --archive`` of months with provenance: verify.py (standard library
    only) checks every input against the provenance (redacted sheets by their original
    hash), every template blob and the chain; a damaged blob and a broken chain are
    named."""
    import subprocess
    import sys
    import tarfile

    from wdg.campaign import Campaign
    from wdg.engine.export_archive import export_archive

    index = export_archive(Campaign(two_months), DEMO_SEGMENT, tmp_path / "p.tar")
    assert index["months"][1]["provenance"]["previous_month"]["month"] == APRIL
    assert "orders/k1.txt" in index["months"][0]["redacted"]
    with tarfile.open(tmp_path / "p.tar") as tar:
        tar.extractall(tmp_path / "x", filter="data")
    root = tmp_path / "x" / f"wdg-archiv-{DEMO_SEGMENT}"
    python = getattr(sys, "_base_executable", None) or sys.executable

    def verify() -> subprocess.CompletedProcess:
        return subprocess.run([python, "-I", "verify.py"], cwd=root, capture_output=True,
                              text=True, timeout=60)

    got = verify()
    assert got.returncode == 0, got.stdout + got.stderr
    digest = index["months"][0]["provenance"]["templates"]["ergebnisblatt.txt.j2"]
    blob = root / "blobs" / "sha256" / digest
    os.chmod(blob, 0o644)
    blob.write_bytes(b"changed")
    got = verify()
    assert got.returncode == 1 and f"blobs/sha256/{digest}" in got.stdout, got.stdout
    # a month's manifest replaced (and the index made to match it): the chain breaks
    blob.write_bytes(archived := (Path(two_months) / "worlds" / DEMO_SEGMENT / "turns" / ".blobs"
                                  / "sha256" / digest).read_bytes())
    assert hashlib.sha256(archived).hexdigest() == digest
    manifest = root / "worlds" / DEMO_SEGMENT / "turns" / APRIL / "manifest.yaml"
    manifest.write_bytes(manifest.read_bytes() + b"# forged\n")
    data = json.loads((root / "index.json").read_text())
    data["files"][f"worlds/{DEMO_SEGMENT}/turns/{APRIL}/manifest.yaml"] = \
        hashlib.sha256(manifest.read_bytes()).hexdigest()
    (root / "index.json").write_text(json.dumps(data))
    got = verify()
    assert got.returncode == 1, got.stdout
    assert f"{MAY}: provenance nennt ein anderes Manifest von {APRIL}" in got.stdout, got.stdout
