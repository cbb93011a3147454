"""A whole month's reports: files, Götterbotschaft, overview, determinism, pool."""

from __future__ import annotations


from wdg.reports.batch import render_reports
from wdg.reports.gazette import build_gazette, build_overview


def test_the_goetterbotschaft_has_bulletins_announcements_chronicle_and_calendar(month, settings):
    before, after, events, sheets = month
    g = build_gazette(after, events, sheets, settings)
    assert [b.kind for b in g.bulletins] == ["ankuendigung", "ratschlag"]
    assert g.proclamations[0].kingdom_name == "Arkonia"
    assert [l.kind for l in g.chronicle] == ["combat.battle"]
    assert [c.name for c in g.calendar if c.current] == ["Dormit"]


def test_without_checked_announcements_the_sheets_announcements_minus_held_ones_are_printed(
        month, settings):
    before, after, events, sheets = month
    plain = [e for e in events if not e.kind.startswith("announcement.")]
    assert len(build_gazette(after, plain, sheets, settings).proclamations) == 1
    from wdg.engine.events import Event
    held = plain + [Event("announcement.held", 1, line=sheets[1].announcements[0].line)]
    assert build_gazette(after, held, sheets, settings).proclamations == []


def test_the_overview_warns_of_missing_sheets_armies_without_general_and_empty_treasuries(
        month, settings):
    before, after, events, sheets = month
    after.armies[101].general = None
    after.kingdoms[2].treasury = 500
    o = build_overview(after, events, sheets, settings, before)
    text = "\n".join(o.warnings)
    assert "Königreich 2 (Borhold): kein gültiger Spielzug" in text
    assert "Heer 0101 von Königreich 1 steht ohne Feldherrn" in text
    assert "Reichsschatz nur 500 GS" in text
    # every event is counted by kind; all but the routine ones are listed, with all data
    assert sum(n for _, n in o.kinds) == len(events)
    from wdg.reports.gazette import ROUTINE_PREFIXES
    assert len(o.events) == sum(1 for e in events if not e.kind.startswith(ROUTINE_PREFIXES))
    assert any(k == "Siegchance" for _, l in o.events for k, _ in l.details)  # the GM sees all


def test_a_month_renders_every_file_the_same_way_twice_and_with_a_pool(tmp_path, month, settings):
    before, after, events, sheets = month
    a = render_reports(before, after, events, sheets, None, tmp_path / "a", jobs=1,
                       settings=settings, pdf=False)
    b = render_reports(before, after, events, sheets, None, tmp_path / "b", jobs=2,
                       settings=settings, pdf=False)
    names = [p.relative_to(tmp_path / "a").as_posix() for p in a]
    assert names == [p.relative_to(tmp_path / "b").as_posix() for p in b]
    assert "k1/ergebnis.html" in names and "k2/spielzug.txt" in names and "overview.txt" in names
    assert not any(n.startswith("k9/") for n in names)  # the city state gets no sheet
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes(), n
