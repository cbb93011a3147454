"""The archive holds exactly what was sent (issue 16): the reports are rendered
once into the month's archive and delivered from it; ``turn replay`` checks
both; an old month is rendered again from its own state and kingdom list."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.store.files import PACK, read_pack
from wdg.store.delivery import archived_bytes
from wdg.reports.archived import render_month
from wdg.store.segment import load_segment
from wdg.world.terrain import WATER

M1 = "0412-04"
DEADLINE = "3.12.2099, 13:00 Uhr"  # in the future: a past one is refused


def _wdg(root: Path, *args: str, code: int = 0) -> str:
    r = CliRunner().invoke(app, [*args, "-C", str(root)])
    assert r.exit_code == code, r.output
    return r.output


def _tree(root: Path) -> dict[str, str]:
    """name -> sha256 of the content (an archived ``name.gz`` as ``name``,
    decompressed; the members of an archived pack as files of its folder)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            rel = p.relative_to(root).as_posix()
            data = p.read_bytes()
            if p.name == PACK:
                for name, member in read_pack(p).items():
                    out[(Path(rel).parent / name).as_posix()] = hashlib.sha256(member).hexdigest()
                continue
            if rel.endswith(".gz"):
                rel, data = rel[:-3], gzip.decompress(data)
            out[rel] = hashlib.sha256(data).hexdigest()
    return out


def _text(camp, name: str) -> str:
    """An archived report's text, as delivered."""
    data = archived_bytes(_archived(camp), name)
    assert data is not None, name
    return data.decode("utf-8")


@pytest.fixture(scope="module")
def camp(tmp_path_factory):
    camp = copy_demo(tmp_path_factory.mktemp("truth") / "c")
    out = _wdg(camp.root, "turn", "run", DEMO_SEGMENT, "-q", "--jobs", "2",
               "--next-deadline", "2099-12-03")
    assert "ausgewertet und gespeichert" in out
    return camp


def _archived(camp) -> Path:
    return camp.archive_dir(DEMO_SEGMENT) / M1 / "outputs" / "reports"


def test_every_delivered_report_is_the_archived_file_byte_for_byte_with_the_deadline(camp):
    delivered = _tree(camp.root / "reports" / DEMO_SEGMENT / M1)
    archived = _tree(_archived(camp))
    assert delivered == archived
    sheets = [n for n in delivered if n.endswith("/ergebnis.txt")]
    assert len(sheets) >= 5 and any(n.endswith("/ergebnis.pdf") for n in delivered)
    # stored once: every report, PDFs included, in the month's one pack
    assert [p.name for p in _archived(camp).rglob("*")] == [PACK]
    pdf = camp.root / "reports" / DEMO_SEGMENT / M1 / "k1" / "ergebnis.pdf"
    assert pdf.read_bytes() == archived_bytes(_archived(camp), "k1/ergebnis.pdf")
    for name in sheets + [n.replace(".txt", ".html") for n in sheets]:
        text = _text(camp, name)
        assert DEADLINE in text, name  # the real deadline, not "wie angekündigt"
        assert "wie vom Segmentleiter angekündigt" not in text, name
    # the manifest lists every report, PDFs included, and a replay renders them again
    manifest = (camp.archive_dir(DEMO_SEGMENT) / M1 / "manifest.yaml").read_text(encoding="utf-8")
    assert "outputs/reports/k1/ergebnis.pdf" in manifest
    assert "identisch" in _wdg(camp.root, "turn", "replay", DEMO_SEGMENT, M1)


def test_replay_names_a_delivered_report_that_was_changed(camp):
    delivered = camp.root / "reports" / DEMO_SEGMENT / M1 / "k1" / "ergebnis.txt"
    original = delivered.read_bytes()
    try:
        # an editor that writes a new file: the archive keeps its bytes
        delivered.unlink()
        delivered.write_bytes(original.replace(b"Reichsschatz", b"Reichsschutz", 1))
        out = _wdg(camp.root, "turn", "replay", DEMO_SEGMENT, M1, code=1)
        assert f"reports/{DEMO_SEGMENT}/{M1}/k1/ergebnis.txt" in out
    finally:
        delivered.unlink()
        delivered.write_bytes(original)
    assert "identisch" in _wdg(camp.root, "turn", "replay", DEMO_SEGMENT, M1)


def test_an_old_month_is_rendered_again_identically_after_kingdoms_change(camp):
    archived = _tree(_archived(camp))
    seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
    free = next(seg.grid.label(h) for h in seg.grid.hexes()
                if seg.at(seg.owner, h) == 0 and seg.at(seg.terrain, h) not in WATER
                and not seg.at(seg.settlement, h))
    _wdg(camp.root, "kingdom", "add", DEMO_SEGMENT, "--name", "Neuland", "--ruler", "Nova",
         "--email", "neu@example.org", "--at", free)
    _wdg(camp.root, "kingdom", "retire", DEMO_SEGMENT, "2")
    got = render_month(camp, DEMO_SEGMENT, M1, jobs=2)
    assert got.differing == []
    delivered = camp.root / "reports" / DEMO_SEGMENT / M1
    assert _tree(delivered) == archived  # kingdom 2 keeps its sheet, no sheet for the new one
    assert (delivered / "k2" / "ergebnis.pdf").is_file()
    out = _wdg(camp.root, "reports", "render", DEMO_SEGMENT, M1)
    assert "alle identisch mit dem Archiv" in out


def test_the_goetterbotschaft_names_the_deadline_too(camp):
    for name in ("goetterbotschaft.txt", "goetterbotschaft.html"):
        text = _text(camp, name)
        assert DEADLINE in text, name


def test_one_kingdoms_sheets_and_pdf_are_rendered_again_alone(camp):
    """Issue #42: ``wdg reports render SEGMENT MONTH --kingdom 3`` renders that
    kingdom's folder again (its PDF too) from the month's archive, and nothing
    else; an unknown kingdom is named in one line."""
    import shutil

    delivered = camp.root / "reports" / DEMO_SEGMENT / M1
    archived = _tree(_archived(camp))
    shutil.rmtree(delivered / "k3")
    before = {p: p.stat().st_mtime_ns for p in delivered.rglob("*") if p.is_file()}
    out = _wdg(camp.root, "reports", "render", DEMO_SEGMENT, M1, "--kingdom", "3", "-q")
    assert "alle identisch mit dem Archiv" in out, out
    assert (delivered / "k3" / "ergebnis.pdf").is_file()
    assert {k: v for k, v in _tree(delivered).items() if k.startswith("k3/")} == \
        {k: v for k, v in archived.items() if k.startswith("k3/")}
    assert {p: p.stat().st_mtime_ns for p in before} == before  # nothing else touched
    r = CliRunner().invoke(app, ["reports", "render", DEMO_SEGMENT, M1, "-k", "99",
                                 "-C", str(camp.root)])
    assert r.exit_code == 1 and "--kingdom 99: kein Königreich" in str(r.exception), r
