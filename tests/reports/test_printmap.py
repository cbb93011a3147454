"""The printed map: the SVG without text, every label laid over it as HTML at
the place the SVG gave it; the PDF shows the map's numbers and is the same
bytes every time."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from wdg.reports.batch import MonthInput, render_kingdom
from wdg.reports.exploration import exploration_pages
from wdg.reports.pdf import FetchRefused, GuardedFetcher
from wdg.reports.printmap import (ASCENT_MINUS_DESCENT, FIGURE_SPACE, SCHEME, advance,
                                  layout_labels, print_map, split_svg)
from wdg.reports.render import SHIPPED_TEMPLATES

_BLOCK = re.compile(r'<pre style="(?P<css>[^"]*)">(?P<text>[^<]*)</pre>')


def _pages(month, settings):
    _, after, events, _ = month
    return exploration_pages(after, 1, events, settings)


def _mm(css: str, prop: str) -> float:
    m = re.search(rf"(?:^|;){prop}:(-?[\d.]+)mm", css)
    return float(m.group(1)) if m else 0.0


def _placed(html: str) -> list[tuple[str, float, float]]:
    """Every label of the overlay blocks with its left end and baseline in mm,
    computed the way a browser lays the ``<pre>`` lines out."""
    out = []
    for m in _BLOCK.finditer(html):
        css, text = m.group("css"), m.group("text")
        text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        bold = "font-weight:bold" in css
        f, lh = _mm(css, "font-size"), _mm(css, "line-height")
        left, top, word = _mm(css, "left"), _mm(css, "top"), _mm(css, "word-spacing")
        for i, line in enumerate(text.split("\n")):
            base = top + lh / 2 + f * ASCENT_MINUS_DESCENT / 2 + i * lh
            x, start, run = left, None, ""
            for ch in line + " ":
                if ch in (" ", FIGURE_SPACE) and not (ch == " " and run and not run.isdigit()):
                    if run:
                        out.append((run, start, base))
                    run, start = "", None
                else:
                    if start is None:
                        start = x
                    run += ch
                x += advance(ch, bold) * f + (word if ch == " " else 0.0)
    return out


def test_the_printed_svg_has_no_text_and_every_label_is_laid_over_it(month, settings):
    for page in _pages(month, settings):
        bare, labels, k, w_mm, h_mm = split_svg(page.svg)
        assert "<text" not in bare and "<path" in bare and "<svg" in bare
        html = print_map(page.svg)
        assert html.startswith('<div class="pmap"') and "<text" not in html
        # the drawing is an image served from memory by the PDF renderer's fetcher
        url = re.search(r'<img src="([^"]+)"', html).group(1)
        assert url.startswith(SCHEME)
        drawing = GuardedFetcher([SHIPPED_TEMPLATES]).fetch(url).read()
        assert drawing.startswith(b"<svg") and b"<path" in drawing and b"<text" not in drawing
        gemarks = [b[5] for b in page.boxes if b[0] == "gemark"]
        overlay = "".join(m.group("text") for m in _BLOCK.finditer(html))
        for g in gemarks:
            assert g in overlay
        assert "Legende" in overlay


def test_every_label_sits_where_the_svg_put_it(month, settings):
    """Lattice lines (word-spacing, figure spaces) and single lines alike put
    each digit label at the SVG's place to a hundredth of a millimetre."""
    checked = 0
    for page in _pages(month, settings):
        _, labels, k, w_mm, _ = split_svg(page.svg)
        html = "".join(layout_labels(labels, k, w_mm))
        placed = _placed(html)
        for lb in labels:
            if not lb.text.isdigit():
                continue
            want = (lb.x * k, lb.y * k)
            near = [p for p in placed if p[0] == lb.text
                    and abs(p[1] - want[0]) < 0.05 and abs(p[2] - want[1]) < 0.05]
            assert near, f"label {lb.text} at {want} not placed"
            checked += 1
    assert checked > 30


def test_few_elements_carry_the_text_of_a_whole_map(month, settings):
    for page in _pages(month, settings):
        _, labels, k, w_mm, _ = split_svg(page.svg)
        blocks = layout_labels(labels, k, w_mm)
        assert len(blocks) < 25 < len(labels)


def test_the_fetcher_serves_only_maps_this_process_drew():
    fetcher = GuardedFetcher([SHIPPED_TEMPLATES])
    with pytest.raises(FetchRefused):
        fetcher.fetch(f"{SCHEME}{'0' * 32}.svg")
    assert fetcher.refused == [f"{SCHEME}{'0' * 32}.svg"]


def test_an_svg_without_a_printed_size_is_printed_as_it_is():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">'
           '<text x="1" y="2">7</text></svg>')
    assert print_map(svg) == svg


def test_text_under_a_transform_it_cannot_follow_stays_in_the_svg():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" width="100mm" '
           'height="50mm"><g transform="rotate(30)"><text x="1" y="2">07</text></g>'
           '<g transform="translate(10,5)"><text x="1" y="2" font-size="4">08</text></g></svg>')
    bare, labels, k, _, _ = split_svg(svg)
    assert ">07</text>" in bare and "08" not in bare
    assert [(lb.text, lb.x, lb.y) for lb in labels] == [("08", 11.0, 7.0)]


@pytest.fixture
def sheet_pdf(tmp_path, month, settings):
    before, after, events, sheets = month

    def render(where):
        inp = MonthInput(before, after, events, sheets, None, tmp_path / where, None, settings)
        render_kingdom(inp, 1)
        return (tmp_path / where / "k1" / "ergebnis.pdf").read_bytes()
    return render


def test_the_pdf_map_page_shows_the_map_numbers_and_the_bytes_are_reproducible(sheet_pdf, month,
                                                                               settings):
    first, second = sheet_pdf("a"), sheet_pdf("b")
    assert first == second
    pages = PdfReader(io.BytesIO(first)).pages
    last = pages[-1]
    text = last.extract_text()
    assert "Erkundungskarte" in text and "Legende" in text
    for g in {b[5] for p in _pages(month, settings) for b in p.boxes if b[0] == "gemark"}:
        assert g in text
    for b in (b for p in _pages(month, settings) for b in p.boxes if b[0] == "marker"):
        assert b[5] in text
    # the map itself is vector drawing: no raster image on the page
    assert not last.images
