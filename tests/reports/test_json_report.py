"""The machine-readable report (k<n>/bericht.json, issue 20): its schema in
docs/ validates every kingdom's report of the stress preset, the demo's first
two months match golden files, and ``wdg turn show --format json`` prints it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.reports.reportkit import demo_two_months, stress_month
from tests.reports.schema_check import check, german_outside_text
from wdg.campaign import PACKAGE_ROOT
from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT
from wdg.store.delivery import archived_bytes
from wdg.reports.jsonreport import REPORT_VERSION

SCHEMA = json.loads((PACKAGE_ROOT / "docs" / "report-schema.json").read_text(encoding="utf-8"))
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo campaign after its first two months (month 2 from seeded sheets)."""
    return demo_two_months(tmp_path_factory.mktemp("json") / "c")


def _show(camp, month: str, kingdom: int) -> dict:
    r = CliRunner().invoke(app, ["turn", "show", DEMO_SEGMENT, month, "--kingdom", str(kingdom),
                                 "--format", "json", "-C", str(camp.root)])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.parametrize("month", ["0412-04", "0412-05"])
def test_the_demo_reports_of_the_first_two_months_match_their_golden_files(demo, month):
    """Regenerate with WDG_REGEN_GOLDEN=1 after a deliberate change."""
    for k in (1, 3):
        doc = _show(demo, month, k)
        assert check(doc, SCHEMA) == []
        assert german_outside_text(doc, SCHEMA) == []
        golden = GOLDEN / f"bericht-{month}-k{k}.json"
        text = json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
        if os.environ.get("WDG_REGEN_GOLDEN"):
            golden.write_text(text, encoding="utf-8")
        assert text == golden.read_text(encoding="utf-8")


def test_the_second_month_tells_what_changed_since_the_first(demo):
    first, second = _show(demo, "0412-04", 1), _show(demo, "0412-05", 1)
    assert first["changes"] == {"first_month": True}
    c = second["changes"]
    assert c["first_month"] is False
    assert c["treasury"]["before"] == first["report"]["treasury"]["after"]
    assert c["treasury"]["after"] == second["report"]["treasury"]["after"]
    assert c["popularity"] == {"before": first["report"]["totals"]["popularity"],
                               "after": second["report"]["totals"]["popularity"]}
    sheet = archived_bytes(demo.archive_dir(DEMO_SEGMENT) / "0412-05" / "outputs" / "reports",
                           "k1/ergebnis.txt").decode("utf-8")
    assert "Seit dem Vormonat: Der Reichsschatz " in sheet  # at the top, before the orders
    assert sheet.index("Seit dem Vormonat") < sheet.index("BEFEHLE UND IHRE AUSFÜHRUNG")


def test_every_number_on_the_sheet_head_comes_from_the_report(demo):
    doc = _show(demo, "0412-04", 1)
    sheet = archived_bytes(demo.archive_dir(DEMO_SEGMENT) / "0412-04" / "outputs" / "reports",
                           "k1/ergebnis.txt").decode("utf-8")
    h = doc["report"]["header"]
    for value in (h["kingdom_name"], h["ruler"], h["month_long"], h["deadline"]):
        assert value in sheet
    for a in doc["report"]["armies"]:
        assert f"{a['number']:04d}" in sheet
    after = f"{doc['report']['treasury']['after']:,}".replace(",", ".")
    assert after in sheet


@pytest.mark.slow
def test_the_schema_validates_every_kingdom_report_of_the_stress_preset():
    """Issue #32 (6): every kingdom's report of a stress month validates against
    docs/report-schema.json, holds no German phrase outside its text fields,
    gives foreign armies as data with their estimate as a range, a fleet's
    durability as a number and the two rings around each army."""
    from wdg.reports.batch import report_kingdoms
    from wdg.reports.build import build_kingdom_report
    from wdg.reports.jsonreport import build_json
    from wdg.reports.settings import load_report_settings

    result, intake = stress_month()
    settings = load_report_settings()
    kingdoms = report_kingdoms(result.state)
    assert len(kingdoms) == 60
    foreign = 0
    for k in kingdoms:
        rep = build_kingdom_report(result.state, list(result.log), intake.sheets.get(k), k, settings)
        doc = json.loads(json.dumps(build_json(rep, result.state, k, None)))
        assert doc["version"] == REPORT_VERSION
        assert check(doc, SCHEMA) == [], k
        assert german_outside_text(doc, SCHEMA) == [], k
        assert doc["known_map"] and doc["report"]["armies"]
        foreign += len(doc["report"]["foreign"])
        for s in doc["report"]["foreign"]:  # estimates as ranges holding the reported count
            assert s["low"] <= s["units"] <= s["high"], (k, s)
            assert s["exact"] == (s["low"] == s["high"] == s["units"]) or not s["exact"], (k, s)
        for a in doc["report"]["armies"]:
            assert a["durability"] is None or isinstance(a["durability"], int)
            assert len(a["around"]) in ((0,) if a["position"] == "000.00" else range(7, 20))
    assert foreign > 0


def test_the_second_month_holds_its_own_copy_of_the_state_before(demo):
    """The state before month 2 is the state after month 1 byte for byte, as are
    unchanged rules files — but each month holds its own copy, never a hard link
    that one in-place edit would change for both months (issue #30, #29)."""
    turns = demo.archive_dir(DEMO_SEGMENT)
    for name in ("armies.yaml.gz", "kingdoms.yaml.gz", "layers.npz"):
        a, b = turns / "0412-05" / "state-before" / name, turns / "0412-04" / "state" / name
        assert a.read_bytes() == b.read_bytes() and not a.samefile(b)
    a, b = turns / "0412-05" / "rules" / "economy.yaml", turns / "0412-04" / "rules" / "economy.yaml"
    assert a.read_bytes() == b.read_bytes() and not a.samefile(b)


@pytest.mark.parametrize("month", ["0412-04", "0412-05"])
def test_the_archived_sheets_and_forms_render_again_from_the_archived_report_alone(demo, month,
                                                                                   tmp_path):
    """Every kingdom's text and HTML sheet and order form of the demo, as
    archived, equals what its archived bericht.json renders to (one model; the
    month's digest, a fact of the archive and not of one kingdom's report, comes
    from the archived month: wdg.digest)."""
    from wdg.digest import month_digest
    from wdg.reports.render import Renderer
    from wdg.reports.settings import load_report_settings
    from wdg.reports.sheet import render_sheets

    from wdg.store.delivery import archived_names

    out = demo.archive_dir(DEMO_SEGMENT) / month / "outputs" / "reports"
    settings = load_report_settings(demo.rules_dir)
    folders = sorted({n.parts[0] for n in archived_names(out)
                      if len(n.parts) == 2 and n.parts[0].startswith("k")})
    assert len(folders) >= 6
    from wdg.orders.view import load_view
    from wdg.rules import Rules

    rules = Rules.load(demo.rules_dir) if demo.rules_dir.is_dir() else None
    for folder in folders:
        doc = json.loads(archived_bytes(out, f"{folder}/bericht.json"))
        view_file = tmp_path / f"{month}-{folder}-ansicht.yaml"
        view_file.write_bytes(archived_bytes(out, f"{folder}/ansicht.yaml"))
        digest = month_digest(demo.archive_dir(DEMO_SEGMENT) / month, DEMO_SEGMENT)
        for name, text in render_sheets(doc, Renderer(demo.templates_dir, month_digest=digest),
                                        settings,
                                        pdf=False, view=load_view(view_file),
                                        rules=rules).items():
            archived = archived_bytes(out, f"{folder}/{name}").decode("utf-8")
            assert text == archived, (folder, name)


def test_the_checker_finds_german_outside_text_fields():
    """The test above can fail: a German phrase in a data field is found, the
    same phrase in a field named ``text`` or marked ``x-text`` is not."""
    schema = {"type": "object", "properties": {"a": {"type": "string"},
                                               "b": {"type": "string", "x-text": True}}}
    doc = {"a": "Heer 2739 von Reich Dunital", "b": "Heer 2739 von Reich Dunital",
           "text": "Heer 2739 von Reich Dunital", "c": "krieger"}
    assert [p.split(":")[0] for p in german_outside_text(doc, schema)] == ["$.a"]


def test_an_estimate_range_holds_every_true_count_that_gives_the_estimate():
    """"Die Erkundung": an estimate is the true count off by up to
    ``estimate_error`` and rounded; :func:`estimate_range` holds every true
    count that can give it (all truths 1..3000, both error extremes)."""
    from wdg.engine.recon import estimate_range
    from wdg.rules import shipped_rules

    rules = shipped_rules()
    err, r = rules.num("recon", "estimate_error"), rules.int("recon", "estimate_round_to")
    for true in range(1, 3000, 7):
        for u in (-err, -err / 2, 0.0, err / 2, err):
            est = max(1, int(round(true * (1 + u) / r)) * r)
            low, high = estimate_range(est, err, r)
            assert low <= true <= high, (true, u, est, low, high)
