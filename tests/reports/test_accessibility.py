"""Accessibility of the sheets (issue 20): every text colour of the style
sheet reaches 4.5:1 against the backgrounds it is drawn on, the HTML has a
viewport and scoped table headers, the language is German."""

from __future__ import annotations

import re

from wdg.reports.batch import MonthInput, render_kingdom
from wdg.reports.render import SHIPPED_TEMPLATES

BACKGROUNDS = ("#ffffff", "#f6f2ea", "#eadcc0")
"""White page, the zebra rows, the calendar's current month."""


def _lum(colour: str) -> float:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
    r, g, b = (int(c[i:i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_lum(a), _lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


DARK_BACKGROUNDS = ("#161616", "#27231e", "#222222")
"""The dark page, its zebra rows and the map's details box (issue #42)."""
_DARK = re.compile(r"@media[^{]*prefers-color-scheme:\s*dark[^{]*\{((?:[^{}]*\{[^{}]*\})*)[^{}]*\}")
_COLOUR = r"(?<![-\w])color:\s*(#[0-9a-fA-F]{3,6})"


def test_every_text_colour_of_the_style_sheet_has_4_5_to_1_contrast():
    """Light: every colour outside the dark blocks against the light
    backgrounds; dark (``prefers-color-scheme: dark``): every colour of the
    dark blocks against the dark ones."""
    for name in ("report.css", "editor.css", "map.css"):
        css = (SHIPPED_TEMPLATES / name).read_text(encoding="utf-8")
        dark = "".join(_DARK.findall(css))
        light = _DARK.sub("", css)
        colours = set(re.findall(_COLOUR, light))
        assert len(colours) >= (5 if name == "report.css" else 1)
        for c in sorted(colours):
            for bg in BACKGROUNDS:
                assert contrast(c, bg) >= 4.5, (name, c, bg, round(contrast(c, bg), 2))
        dark_colours = set(re.findall(_COLOUR, dark))
        assert dark_colours, name
        for c in sorted(dark_colours):
            for bg in DARK_BACKGROUNDS:
                assert contrast(c, bg) >= 4.5, (name, "dark", c, bg, round(contrast(c, bg), 2))


def test_the_html_sheet_has_a_viewport_scoped_headers_and_german_language(tmp_path, month,
                                                                          settings):
    before, after, events, sheets = month
    render_kingdom(MonthInput(before, after, events, sheets, None, tmp_path, None, settings,
                              pdf=False), 1)
    html = (tmp_path / "k1" / "ergebnis.html").read_text(encoding="utf-8")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert '<html lang="de">' in html
    headers = re.findall(r"<th\b[^>]*>", html)
    assert headers and all('scope="' in h for h in headers), headers
