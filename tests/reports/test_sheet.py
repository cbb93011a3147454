"""The result sheet model and its text: orders with outcomes, the ledger, the
sections by event kind, the golden text sheet ("Die Spielzugauswertung")."""

from __future__ import annotations

import os
from pathlib import Path

from wdg.engine.events import Event
from wdg.reports.build import build_kingdom_report, treasury
from wdg.reports.render import Renderer
from wdg.reports.sheet import render_sheets, report_model


def _sheets(after, events, sheet, kingdom, settings, renderer=None, **kw):
    """The text and HTML sheets as rendered from the kingdom's report model."""
    _, doc = report_model(after, events, sheet, kingdom, settings, **kw)
    return render_sheets(doc, renderer or Renderer(), settings, pdf=False)

GOLDEN = Path(__file__).parent / "golden" / "ergebnis-k1.txt"


def test_the_income_table_adds_up_to_the_treasury_change(month, settings):
    """ "Der Reichsschatz": before + income - expense = after, with the state before given."""
    before, after, events, sheets = month
    r = build_kingdom_report(after, events, sheets[1], 1, settings, seg_before=before)
    t = r.treasury
    assert t.before == before.kingdoms[1].treasury
    assert t.after == after.kingdoms[1].treasury
    assert t.unbooked == 0
    assert t.before + sum(row.income for row in t.rows) - sum(row.expense for row in t.rows) == t.after
    assert t.income - t.expense == sum(e.gold for e in events if e.kingdom == 1)


def test_a_treasury_change_no_event_explains_is_shown_as_unbooked(month, settings):
    before, after, events, _ = month
    after.kingdoms[1].treasury += 77
    t = treasury(after, events, 1, settings, before)
    assert t.unbooked == 77
    assert t.before + t.income - t.expense + t.unbooked == t.after


def test_orders_get_their_outcome_from_the_events_of_their_line(month, settings):
    before, after, events, sheets = month
    r = build_kingdom_report(after, events, sheets[1], 1, settings, seg_before=before)
    status = {o.order: o.status for o in r.orders}
    assert status["nr 500"] == "partial"
    assert status["b O O"] == "done"
    assert status["DS 2 --"] == "refused"
    assert status["r"] == "none"          # no event answered it: "keine Rückmeldung"
    assert status["an Borhold (2)"] == "done"  # delivered, logged under the recipient
    refused = next(o for o in r.orders if o.status == "refused")
    assert "nicht unter 1" in refused.notes[0].text


def test_every_event_of_the_kingdom_lands_in_some_section_and_unknown_kinds_in_events(month, settings):
    before, after, events, sheets = month
    r = build_kingdom_report(after, events, sheets[1], 1, settings, seg_before=before)
    assert [l.kind for l in r.events] == ["weather.storm"]
    assert [l.kind for l in r.battles] == ["militia.fight"]
    assert len(r.sightings) == 2 and r.auto_reports and r.contacts
    assert r.messages[0].text == "<b>Fürchtet</b> uns {{ 7*7 }}"
    assert r.notes == ["Willkommen in Canura, {{ hoheit }}!"]
    shown = (sum(len(o.notes) for o in r.orders) + len(r.treasury.bookings) + len(r.sightings)
             + len(r.battles) + len(r.auto_reports) + len(r.messages) + len(r.contacts)
             + len(r.notes) + len(r.events) + sum(len(a.seen) for a in r.armies))
    mine = [e for e in events if e.kingdom == 1] + [e for e in events if e.data.get("from") == 1
                                                    and e.kingdom != 1]
    assert shown == len(mine)


def test_secret_combat_numbers_never_reach_the_player(month, settings):
    before, after, events, sheets = month
    r = build_kingdom_report(after, events, sheets[1], 1, settings)
    keys = {k for l in r.battles for k, _ in l.details}
    values = {v for l in r.battles for _, v in l.details}
    assert "chance" not in keys and "0.81" not in values


def test_a_kingdom_without_sheet_gets_a_sheet_saying_so(month, settings):
    before, after, events, _ = month
    r = build_kingdom_report(after, events, None, 2, settings)
    assert not r.has_sheet and r.orders == []
    assert any(m.sender == 1 for m in r.messages)


def test_settlements_share_the_treasury_equally_to_the_last_goldstern(month, settings):
    _, after, events, sheets = month
    r = build_kingdom_report(after, events, sheets[1], 1, settings)
    assert sum(s.share for s in r.settlements) == after.kingdoms[1].treasury
    assert [s.size_name for s in r.settlements] == ["Dorf", "Flecken"]


def test_the_text_sheet_matches_the_golden_file_and_fits_80_columns(month, settings):
    """Regenerate with WDG_REGEN_GOLDEN=1 after a deliberate change."""
    before, after, events, sheets = month
    text = _sheets(after, events, sheets[1], 1, settings, seg_before=before)["ergebnis.txt"]
    assert all(len(line) <= 80 for line in text.splitlines())
    if os.environ.get("WDG_REGEN_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_player_text_is_never_run_as_a_template(month, settings):
    before, after, events, sheets = month
    got = _sheets(after, events, sheets[1], 1, settings)
    text, html = got["ergebnis.txt"], got["ergebnis.html"]
    assert "{{ 7*7 }}" in text and "49" not in text.replace("1.049", "")
    assert "{{ hoheit }}" in html
    assert "&lt;b&gt;Fürchtet&lt;/b&gt;" in html and "<b>Fürchtet" not in html
    assert "Öde&lt;Mark&gt;" in html


def test_a_template_in_the_campaign_overrides_the_shipped_one(tmp_path, month, settings):
    before, after, events, sheets = month
    (tmp_path / "ergebnisblatt.txt.j2").write_text("EIGENES BLATT {{ r.header.kingdom_name }}\n",
                                                   encoding="utf-8")
    own = _sheets(after, events, sheets[1], 1, settings, Renderer(tmp_path))
    assert own["ergebnis.txt"] == "EIGENES BLATT Arkonia\n"
    assert "ERGEBNISBLATT" in _sheets(after, events, sheets[1], 1, settings)["ergebnis.txt"]


def test_an_event_without_text_shows_its_kind(month, settings):
    _, after, _, _ = month
    r = build_kingdom_report(after, [Event("odd.thing", 1, data={"x": 1})], None, 1, settings)
    assert r.events[0].text == "odd.thing" and r.events[0].details == [("x", "1")]


def test_the_sheet_names_settlements_as_the_engine_does(settings):
    from wdg.rules import safe_load_file
    from wdg.reports.settings import SHIPPED

    economy = safe_load_file(SHIPPED.parent / "economy.yaml")
    classes = economy["settlement"]["classes"]
    engine = {c["min"]: c["name"] for c in classes}
    sheet = dict(settings.settlement_sizes)
    assert set(sheet.values()) == set(engine.values())
    for size in (1, 50, 99, 100, 250, 399, 400, 699, 700, 1200):
        by_engine = max((m for m in engine if m <= size), default=None)
        assert settings.settlement_name(size) == engine[by_engine]
