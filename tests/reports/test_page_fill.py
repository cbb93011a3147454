"""Printed sheets stay short and fill their pages (issue 20): a demo sheet has
at most 4 pages, a 45-army kingdom of the stress preset at most 8, no page
carries only a couple of lines, and no fixed-width line runs past the page.
Measured on WeasyPrint's laid-out pages of the very document the PDF is
written from (:func:`wdg.reports.sheet.printed_document`), rendered from each
kingdom's ``bericht.json``."""

from __future__ import annotations

import json

import pytest

from tests.reports.reportkit import demo_two_months, stress_month
from wdg.commands.demo import DEMO_SEGMENT
from wdg.store.delivery import archived_bytes, archived_names
from wdg.reports.render import Renderer
from wdg.reports.settings import load_report_settings
from wdg.reports.sheet import page_fill, printed_document

MIN_FILL = 0.25
"""A page whose content ends above a quarter of its height is near-empty."""


def layout(document) -> list[tuple[float, float]]:
    """Per page of a laid-out WeasyPrint document: how far down its content
    reaches (share of the page's content height; the running head and the page
    number are not content) and how far its widest text runs past the right
    edge of the content area (px, <= 0 fits)."""
    pages = []
    for page in document.pages:
        fill, _ = page_fill(page)  # the measure the sheet itself acts on
        box = page._page_box
        right = box.content_box_x() + box.width
        past = -right
        for child in box.children:
            if type(child).__name__ == "MarginBox":
                continue
            for b in child.descendants():
                if type(b).__name__ == "TextBox":
                    past = max(past, b.position_x + b.width - right)
        pages.append((fill, past))
    return pages


def _check(doc: dict, settings, max_pages: int) -> list[tuple[float, float]]:
    pages = layout(printed_document(doc, Renderer(), settings))
    where = f"kingdom {doc['kingdom']}, {doc['month']}"
    assert len(pages) <= max_pages, (where, len(pages))
    for i, (fill, past) in enumerate(pages, start=1):
        assert fill >= MIN_FILL, f"{where}: page {i} of {len(pages)} is near-empty ({fill:.0%})"
        assert past <= 0.5, f"{where}: page {i} has a line {past:.1f} px past the edge"
    return pages


def test_the_measure_sees_a_near_empty_page():
    """The check measures: a sheet whose last page holds two lines is caught."""
    lines = "\n".join(f"Zeile {i}" for i in range(64))  # one page and two lines more
    html = (f"<html><body><pre style='font: 10pt/1.4 monospace; margin: 0'>{lines}</pre>"
            "</body></html>")
    import weasyprint

    pages = layout(weasyprint.HTML(string=html, base_url="/").render())
    assert len(pages) == 2 and pages[0][0] > 0.9 and pages[1][0] < MIN_FILL


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory):
    camp = demo_two_months(tmp_path_factory.mktemp("fill") / "c")
    docs = []
    for reports in sorted(camp.archive_dir(DEMO_SEGMENT).glob("*/outputs/reports")):
        docs += [json.loads(archived_bytes(reports, n)) for n in archived_names(reports)
                 if n.name == "bericht.json"]
    assert len(docs) >= 12
    return docs


def test_demo_sheets_print_on_at_most_4_pages_none_near_empty(demo_reports):
    settings = load_report_settings()
    for doc in demo_reports:
        _check(doc, settings, 4)


@pytest.mark.slow
def test_a_45_army_stress_kingdom_prints_on_at_most_8_pages_none_near_empty():
    from wdg.reports.jsonreport import loads
    from wdg.reports.sheet import report_model

    result, intake = stress_month()
    settings = load_report_settings()
    armies = {k: sum(1 for a in result.state.armies.values() if a.kingdom == k)
              for k in result.state.kingdoms}
    big = [k for k in sorted(armies, key=lambda k: (-armies[k], k))
           if armies[k] >= 45 and k in intake.sheets][:2]
    assert big, armies
    for k in big:
        _, doc = report_model(result.state, list(result.log), intake.sheets.get(k), k, settings)
        assert len(loads(json.dumps(doc))["report"]["armies"]) >= 45
        _check(doc, settings, 8)
