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


def _legend(svg: str) -> str:
    return svg[svg.index('class="legend"'):]


def test_every_own_army_on_the_map_and_every_sighting_is_drawn_and_distinct(month, settings):
    _, after, _, _ = month
    svg = _svg(month, settings)
    body = svg[:svg.index('class="legend"')]
    for n, a in after.armies.items():
        if a.kingdom == 1 and a.status is not ArmyStatus.PASSIVE:
            assert f">{n:04d}</text>" in body
    assert ">0201</text>" in body  # the sighted foreign army, with its number
    assert ">F</text>" in body  # the sighted creature
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
