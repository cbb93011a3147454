"""The Erkundungskarte as a player reads it: every own army and every sighting
is on it, the legend explains exactly the symbols drawn, numbers stay whole."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader

from wdg.reports.batch import MonthInput, render_kingdom
from wdg.reports.exploration import exploration_pages
from wdg.world.state import ArmyStatus


def _svg(month, settings) -> str:
    _, after, events, _ = month
    return "\n".join(p.svg for p in exploration_pages(after, 1, events, settings))


def _labels(month, settings, kind: str) -> set[str]:
    _, after, events, _ = month
    return {b[5] for p in exploration_pages(after, 1, events, settings) for b in p.boxes
            if b[0] == kind}


def _legend(svg: str) -> str:
    return svg[svg.index('class="legend"'):]


def test_every_own_army_on_the_map_and_every_sighting_is_drawn_and_distinct(month, settings):
    _, after, _, _ = month
    svg = _svg(month, settings)
    markers = _labels(month, settings, "marker")
    for n, a in after.armies.items():
        if a.kingdom == 1 and a.status is not ArmyStatus.PASSIVE:
            assert f"{n:04d}" in markers
    assert "0201" in markers  # the sighted foreign army, with its number
    assert "F" in markers  # the sighted creature
    body = svg[:svg.index('class="legend"')]
    for label in markers:  # each drawn as text (labels of a row share one element)
        assert label in body
    legend = _legend(svg)
    assert "eigenes Heer" in legend and "fremdes Heer, gesichtet" in legend
    assert "Fabelwesen, gesichtet" in legend


def test_the_legend_names_every_symbol_drawn_and_nothing_else(month, settings):
    _, after, events, _ = month
    svg = _svg(month, settings)
    legend = _legend(svg)
    body = svg[:svg.index('class="legend"')]
    assert ("Siedlung" in legend) == ('fill="#111" stroke="#fff"' in body)
    assert ("eigenes Reichsgebiet" in legend) == ('stroke="#c0392b"' in body)
    assert ("fremdes Reichsgebiet" in legend) == ('stroke-dasharray="1.5,1"' in body)
    assert ("unbekannt" in legend) == ('fill="#f7f7f4"' in body)
    # a map without sightings has no legend entry for them
    quiet = [e for e in events if not e.kind.startswith("recon.")]
    plain = "\n".join(p.svg for p in exploration_pages(after, 1, quiet, settings))
    assert "gesichtet" not in _legend(plain)


def test_map_texts_use_fill_opacity_never_opacity_so_no_digit_is_clipped(month, settings):
    # WeasyPrint clips a centred text with an ``opacity`` attribute at its anchor:
    # "303" came out as "03". Every gemark number is written with both digits.
    svg = _svg(month, settings)
    assert not re.search(r"<text[^>]* opacity=", svg)
    assert re.search(r">\d{2}</text>", svg)


def test_every_army_number_and_province_number_reaches_the_pdf_map_page(tmp_path, month, settings):
    before, after, events, sheets = month
    render_kingdom(MonthInput(before, after, events, sheets, None, tmp_path, None, settings), 1)
    pages = [p.extract_text() for p in PdfReader(io.BytesIO((tmp_path / "k1" / "ergebnis.pdf")
                                                             .read_bytes())).pages]
    last = pages[-1]
    for n, a in after.armies.items():
        if a.kingdom == 1 and a.status is not ArmyStatus.PASSIVE:
            assert f"{n:04d}" in last
    assert "101" in last


def _overlap(a, b) -> bool:
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def _covered(pages) -> list[tuple[str, str, str]]:
    """Every (page, gemark number, covering label) where a drawn box overlaps a
    gemark number's box."""
    bad = []
    for p in pages:
        numbers = [b for b in p.boxes if b[0] == "gemark"]
        others = [b for b in p.boxes if b[0] != "gemark"]
        for g in numbers:
            for o in others + [n for n in numbers if n is not g]:
                if _overlap(g, o):
                    bad.append((p.title, g[5], f"{o[0]} {o[5]}"))
    return bad


def test_no_gemark_number_on_any_demo_map_is_covered_by_another_drawn_element(tmp_path, settings):
    from wdg.commands.demo import DEMO_SEGMENT, copy_demo
    from wdg.engine.turn import run_month
    from wdg.reports.batch import report_kingdoms

    camp = copy_demo(tmp_path / "c")
    result = run_month(camp, DEMO_SEGMENT)
    seg, events = result.state, list(result.log)
    checked = 0
    for k in report_kingdoms(seg):
        pages = exploration_pages(seg, k, events, settings)
        assert pages and all(p.boxes for p in pages)
        assert _covered(pages) == []
        checked += sum(1 for p in pages for b in p.boxes if b[0] == "gemark")
    assert checked > 100


def test_province_numbers_never_sit_on_own_land(tmp_path, settings):
    from wdg.commands.demo import DEMO_SEGMENT, copy_demo
    from wdg.engine.turn import run_month
    from wdg.reports.batch import report_kingdoms

    camp = copy_demo(tmp_path / "c")
    seg = run_month(camp, DEMO_SEGMENT).state
    labels = 0
    for k in report_kingdoms(seg):
        for p in exploration_pages(seg, k, [], settings):
            for b in p.boxes:
                if b[0] != "province":
                    continue
                # the hex it sits on: the gemark number right above it, same centre
                g = [g for g in p.boxes if g[0] == "gemark"
                     and abs((g[1] + g[3]) - (b[1] + b[3])) < 0.2 and 0 < b[2] - g[4] < 5]
                assert len(g) == 1, b
                where = seg.grid.parse(f"{b[5]}.{g[0][5]}")
                assert seg.owner[seg.grid.index(where)] != k, (k, b[5], g[0][5])
                labels += 1
    assert labels > 0


def test_a_creature_the_chronicle_names_at_a_gemark_the_kingdom_knows_is_on_its_map(month, settings):
    """Issue 20: the chronicle announced a creature at 101.45, a gemark kingdom 1
    knew, and its map did not show it. Now every creature the chronicle names
    at a known gemark is marked there; one at an unknown gemark is not."""
    from wdg.engine.events import Event
    from wdg.reports.build import build_kingdom_report
    from wdg.world.state import UNKNOWN_TERRAIN

    _, after, events, _ = month
    quiet = [e for e in events if not e.kind.startswith("recon.")]
    km = after.known[1]
    own = after.grid.parse("101.12")
    unknown = next(after.grid.hex_at(r, c) for r in range(after.grid.rows)
                   for c in range(after.grid.cols)
                   if km.terrain[r, c] == UNKNOWN_TERRAIN and after.owner[r, c] != 1)
    seen = next(after.grid.hex_at(r, c) for r in range(after.grid.rows)
                for c in range(after.grid.cols)
                if km.terrain[r, c] != UNKNOWN_TERRAIN and after.owner[r, c] != 1)
    told = [Event("creature.sighted", 1, at=own, public=True,
                  why="Ein Drache wurde im Reichsgebiet von Arkonia gesichtet"),
            Event("gm.creature_placed", at=seen, public=True,
                  why="Ein Fabelwesen wurde gesichtet: Die Brüder vom Hügel (Troll)"),
            Event("gm.creature_placed", at=unknown, public=True,
                  why="Ein Fabelwesen wurde gesichtet: Troll")]
    assert all(settings.in_chronicle(e.kind, e.public) for e in told)
    rep = build_kingdom_report(after, quiet + told, None, 1, settings)
    assert [(m.kind, m.gemark) for m in rep.markers] == [("creature", "101.12"),
                                                         ("creature", after.label(seen))]
    boxes = [b for p in exploration_pages(after, 1, quiet + told, settings) for b in p.boxes]
    assert "F" in {b[5] for b in boxes if b[0] == "marker"}
    assert "F" not in {b[5] for p in exploration_pages(after, 1, quiet, settings)
                       for b in p.boxes if b[0] == "marker"}


def test_a_realm_too_big_for_one_page_gets_an_overview_and_detail_pages_at_one_scale(settings):
    """A kingdom knowing gemarks far apart: one overview page of all it knows,
    then detail pages of province windows, every detail page at the same scale
    (printed mm per map unit); a realm that fits is one page."""
    import re

    from wdg.reports.exploration import report_pages

    def doc(cells):
        return {"kingdom": 1, "month": "0412-04", "grid": {"prov_cols": 12, "prov_rows": 6},
                "known_map": [{"gemark": g, "terrain": "Tiefland", "owner": 0, "settlement": 0,
                               "seen": "0412-04"} for g in cells],
                "report": {"header": {"kingdom_name": "Weitland", "kingdom": 1},
                           "provinces": [], "armies": [], "markers": []}}

    def mm_per_unit(svg):
        m = re.match(r'<svg [^>]*viewBox="0 0 ([\d.]+) [\d.]+" width="([\d.]+)mm"', svg)
        return float(m.group(2)) / float(m.group(1))

    small = report_pages(doc(["101.01", "101.02", "102.01"]), settings)
    assert [p.title for p in small] == ["Erkundungskarte Weitland (1)"]
    big = report_pages(doc(["101.01", "112.48", "601.01", "612.48", "305.20"]), settings)
    assert big[0].title == "Erkundungskarte Weitland (1), Übersicht"
    details = big[1:]
    assert len(details) >= 2 and all("Provinzen" in p.title for p in details)
    scales = [mm_per_unit(p.svg) for p in details]
    assert max(scales) - min(scales) < 0.001 * max(scales)  # (sizes printed to 0.1 mm)
