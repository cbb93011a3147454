"""The game master's interventions reach the reports: the overview shows them all,
a note or a gold change addressed to a kingdom appears on that kingdom's sheet,
announcements in the Götterbotschaft — and the month replays byte-identically."""

from __future__ import annotations

import pytest

from wdg.commands.demo import copy_demo
from wdg.engine.turn import replay_month, run_month
from wdg.reports.archived import archive_writers, render_month

SL = """SEGMENTLEITER
FABELWESEN SETZEN troll 101.45 ANZAHL 2
GOLD 3 +1234 Ersatz für einen verlorenen Brief
NOTIZ 3
Dein Brief vom Vormonat ist verloren gegangen.
ENDE
ANKUENDIGUNG
Der Markt von Varunfeld öffnet seine Tore.
ENDE
"""


@pytest.fixture(scope="module")
def month(tmp_path_factory):
    camp = copy_demo(tmp_path_factory.mktemp("gmrep") / "demo")
    (camp.root / "orders" / "canura" / "0412-04" / "sl.txt").write_text(SL, encoding="utf-8")
    result = run_month(camp, "canura", outputs=archive_writers(camp.templates_dir, camp.rules_dir, pdf=False))
    render_month(camp, "canura", result.date, pdf=False, jobs=1)
    return camp, result


def test_a_note_and_gold_for_a_kingdom_appear_on_its_sheet(month):
    camp, result = month
    text = (camp.reports_dir("canura", result.date) / "k3" / "ergebnis.txt").read_text(encoding="utf-8")
    assert "Dein Brief vom Vormonat ist verloren gegangen." in text
    assert "Ersatz für einen verlorenen Brief" in text
    other = (camp.reports_dir("canura", result.date) / "k1" / "ergebnis.txt").read_text(encoding="utf-8")
    assert "Dein Brief vom Vormonat" not in other


def test_the_overview_lists_every_intervention(month):
    camp, result = month
    text = (camp.reports_dir("canura", result.date) / "overview.txt").read_text(encoding="utf-8")
    for kind in ("gm.creature_placed", "gm.gold", "gm.note", "gm.bulletin"):
        assert kind in text, kind


def test_the_announcement_is_in_the_goetterbotschaft(month):
    camp, result = month
    text = (camp.reports_dir("canura", result.date) / "goetterbotschaft.txt").read_text(encoding="utf-8")
    assert "Der Markt von Varunfeld öffnet seine Tore." in text


def test_the_month_with_the_gm_sheet_replays_byte_identically(month):
    camp, result = month
    mdir = camp.archive_dir("canura") / result.date.key
    report = replay_month(camp, "canura", result.date,
                          outputs=archive_writers(camp.templates_dir, mdir / "rules", pdf=False))
    assert report.ok, report.first_difference
    assert report.checked > 20
