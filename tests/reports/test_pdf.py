"""PDF output: what a player reads back, determinism, and the guarded fetcher."""

from __future__ import annotations

import io

from pypdf import PdfReader

from wdg.reports.batch import MonthInput, render_common, render_kingdom
from wdg.reports.pdf import GuardedFetcher, html_to_pdf
from wdg.reports.render import SHIPPED_TEMPLATES


def _text(pdf: bytes) -> list[str]:
    return [p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages]


def test_the_pdf_sheet_has_the_kingdom_umlauts_the_map_page_and_every_army(tmp_path, month, settings):
    before, after, events, sheets = month
    inp = MonthInput(before, after, events, sheets, None, tmp_path, None, settings)
    files = render_kingdom(inp, 1)
    pdf = (tmp_path / "k1" / "ergebnis.pdf").read_bytes()
    pages = _text(pdf)
    text = "\n".join(pages)
    assert "Arkonia" in text and "Ulrike von Arkon" in text
    assert "Blütenmond" in text and "Frühling" in text and "Öde<Mark>" in text
    assert "Erkundungskarte Arkonia (1)" in pages[-1] and "Legende" in pages[-1]
    for n in (101, 103, 104):
        assert f"{n:04d}" in text
    assert {p.name for p in files} == {"ergebnis.txt", "ergebnis.html", "ergebnis.pdf",
                                       "ansicht.yaml", "spielzug.txt", "bericht.json"}


def test_the_same_html_gives_the_same_pdf_bytes():
    html = "<html><body><p>Götterbotschaft für Öl & Ärger</p></body></html>"
    assert html_to_pdf(html, [SHIPPED_TEMPLATES])[0] == html_to_pdf(html, [SHIPPED_TEMPLATES])[0]


def test_an_announcement_with_markup_is_literal_text_and_fetches_nothing(tmp_path, month, settings):
    """The announcement holds <img src="http://..."> and {{ 7*7 }}."""
    before, after, events, sheets = month
    inp = MonthInput(before, after, events, sheets, None, tmp_path, None, settings)
    render_common(inp)
    html = (tmp_path / "goetterbotschaft.html").read_text(encoding="utf-8")
    assert "&lt;img src=&#34;http://example.invalid/x.png&#34;&gt; {{ 7*7 }}" in html
    pdf, refused = html_to_pdf(html, [SHIPPED_TEMPLATES])
    assert refused == []
    text = "\n".join(_text(pdf))
    assert '<img src="http://example.invalid/x.png">' in text and "{{ 7*7 }}" in text


def test_the_fetcher_refuses_the_network_and_files_outside_the_template_folders(tmp_path):
    inside = tmp_path / "templates"
    inside.mkdir()
    (inside / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("x", encoding="utf-8")
    html = ('<img src="http://example.invalid/a.png"><img src="file:///etc/passwd">'
            '<img src="../secret.txt"><img src="logo.svg">')
    pdf, refused = html_to_pdf(html, [inside])
    assert pdf.startswith(b"%PDF")
    assert refused == ["http://example.invalid/a.png", "file:///etc/passwd",
                       (tmp_path / "secret.txt").as_uri()]
    assert GuardedFetcher([inside]).permits((inside / "logo.svg").as_uri()) is not None
