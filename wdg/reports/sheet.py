"""A kingdom's sheets rendered from its report model alone.

The report model is the JSON document of :mod:`wdg.reports.jsonreport`
(``k<n>/bericht.json``): :func:`render_sheets` takes that document — as
parsed from its JSON text, never the objects it was built from — and renders
the text sheet, the HTML sheet, the printed sheet (PDF), the exploration map
(:func:`wdg.reports.exploration.report_pages`) and next month's order form.
Every fact a player reads therefore comes from the document a client reads:
rendering again from an archived ``bericht.json`` gives the archived sheets
byte for byte (``tests/reports/test_one_model.py``).
"""

from __future__ import annotations

import re
from typing import Any

from wdg.engine.events import Event
from wdg.orders.model import Sheet
from wdg.orders.template import render_view_template
from wdg.orders.view import ArmyView, GeneralView, KingdomView, OfferView
from wdg.reports.build import MonthEvents, build_kingdom_report
from wdg.reports.exploration import report_pages
from wdg.reports.jsonreport import build_json, dumps, loads
from wdg.reports.model import STATUS_OF_REPORT, MapPage
from wdg.reports.render import Renderer
from wdg.reports.settings import ReportSettings
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.calendar import MonthDate
from wdg.world.state import Segment

PRINT_WIDTH = 100
"""Columns of the printed sheet's fixed-width lines: 100 characters of DejaVu
Sans Mono at 8.2 pt are 174 mm, within the A4 page's 182 mm (the text sheet
keeps 80 columns for mail)."""
SHEET = "ergebnis"
FORM = "spielzug.txt"


def report_model(seg_after: Segment, events: list[Event], sheet: Sheet | None, kingdom: int,
                 settings: ReportSettings, *, seg_before: Segment | None = None,
                 previous: dict[str, Any] | None = None,
                 index: MonthEvents | None = None,
                 rules: Rules | None = None) -> tuple[str, dict[str, Any]]:
    """A kingdom's report: its JSON text (the file) and the document parsed back
    from that text (what every sheet is rendered from). ``index``: the
    month's events sorted once, when the caller builds many reports."""
    report = build_kingdom_report(seg_after, events, sheet, kingdom, settings,
                                  seg_before=seg_before, index=index, rules=rules)
    text = dumps(build_json(report, seg_after, kingdom, previous))
    return text, loads(text)


def doc_date(doc: dict[str, Any]) -> str:
    """The document date written into HTML/PDF metadata: the month, not the clock."""
    return f"{doc['month']}-01"


def form_view(doc: dict[str, Any]) -> KingdomView:
    """The kingdom view the order form is filled from, read from the report."""
    r = doc["report"]
    h = r["header"]
    view = KingdomView(h["segment"], MonthDate.parse(h["next_month_key"]), h["kingdom"],
                       h["kingdom_name"], doc["grid"]["prov_cols"], doc["grid"]["prov_rows"],
                       palaces=h["palaces"],
                       diplomacy={d["kingdom"]: d["status"] for d in r["diplomacy"]},
                       names={d["kingdom"]: d["name"] for d in r["diplomacy"]})
    for a in r["armies"]:
        g = None
        if a["general"]:
            g = GeneralView(a["general"], a["troop_type"] or "", a["experience"] or 0,
                            a.get("wizard", False), a.get("ability"))
        view.armies[a["number"]] = ArmyView(a["number"], STATUS_OF_REPORT[a["status"]],
                                            Address.parse(a["position"]),
                                            a["troop_type"], a["units"], g,
                                            carried_by=a["carried_by"], carrying=a["carrying"])
    o = r["offer"]
    if o is not None:
        view.offer = OfferView(GeneralView(o["name"], o["troop"], o["experience"], o["wizard"],
                                           o["ability"]), o["price"])
    return view


def printed_html(doc: dict[str, Any], renderer: Renderer, settings: ReportSettings,
                 maps: list | None = None) -> str:
    """The HTML the PDF is made from. The printed sheet sets the long lists
    (orders, ledger, armies) as fixed-width lines of :data:`PRINT_WIDTH`
    columns: the same content, at a fraction of WeasyPrint's table cost."""
    return renderer.html("ergebnisblatt.html.j2", doc_date=doc_date(doc), print=True,
                         WIDTH=PRINT_WIDTH, r=doc["report"], changes=doc["changes"],
                         maps=report_pages(doc, settings) if maps is None else maps)


FILL_BEFORE_MAP = 0.5
"""A last text page filled less than this gets the first map in its free space
(scaled down to fit) instead of the map starting a page of its own."""
MAP_HEADING_MM = 14.0
"""Room the map's heading and its space above take on the text page."""
_SIZE = re.compile(r'^(<svg [^>]*?) width="([\d.]+)mm" height="([\d.]+)mm"')


def page_fill(page: Any) -> tuple[float, float]:
    """How far down a laid-out WeasyPrint page's content reaches (share of its
    content height; the running head and page number are not content) and its
    content height in mm."""
    box = page._page_box
    top, bottom = box.content_box_y(), box.content_box_y()
    for child in box.children:
        if type(child).__name__ == "MarginBox":
            continue
        for b in child.descendants():
            kind = type(b).__name__
            if kind == "LineBox" or "Replaced" in kind:
                bottom = max(bottom, b.position_y + b.margin_height())
    return (bottom - top) / box.height, box.height * 25.4 / 96


def _first_map_page(document: Any) -> int | None:
    for i, page in enumerate(document.pages):
        for b in page._page_box.descendants():
            el = getattr(b, "element", None)
            if el is not None and el.tag == "section" and "mappage" in (el.get("class") or ""):
                return i
    return None


def _shrunk(page: MapPage, height_mm: float) -> MapPage | None:
    """The map page drawn at most ``height_mm`` high, printed inline; ``None``
    if its SVG has no printed size."""
    m = _SIZE.match(page.svg)
    if m is None:
        return None
    w, h = float(m.group(2)), float(m.group(3))
    f = min(1.0, height_mm / h)
    svg = f'{m.group(1)} width="{w * f:.1f}mm" height="{h * f:.1f}mm"' + page.svg[m.end():]
    return MapPage(page.title, svg, page.boxes, inline=True, origin=page.origin)


def printed_pdf(doc: dict[str, Any], renderer: Renderer, settings: ReportSettings,
                maps: list[MapPage]) -> bytes:
    """The printed sheet (PDF bytes) of :func:`printed_document`."""
    from wdg.reports.pdf import document_to_pdf  # WeasyPrint: ~1 s to import, only when needed

    return document_to_pdf(printed_document(doc, renderer, settings, maps))


def printed_document(doc: dict[str, Any], renderer: Renderer, settings: ReportSettings,
                     maps: list[MapPage] | None = None) -> Any:
    """The printed sheet laid out (a WeasyPrint document). Laid out once; when
    its last text page before the map is less than half full, the first map
    is scaled into that page's free space (laid out a second time), so no page
    carries only a couple of lines."""
    from wdg.reports.pdf import html_to_document  # WeasyPrint: ~1 s to import, only when needed

    maps = report_pages(doc, settings) if maps is None else maps

    document = html_to_document(printed_html(doc, renderer, settings, maps), renderer.dirs)
    first = _first_map_page(document)
    if first:
        fill, height_mm = page_fill(document.pages[first - 1])
        if fill < FILL_BEFORE_MAP:
            inline = _shrunk(maps[0], (1 - fill) * height_mm - MAP_HEADING_MM)
            if inline is not None:
                maps = [inline] + list(maps[1:])
                document = html_to_document(printed_html(doc, renderer, settings, maps),
                                            renderer.dirs)
    return document


def render_sheets(doc: dict[str, Any], renderer: Renderer, settings: ReportSettings, *,
                  pdf: bool = True, view: KingdomView | None = None,
                  rules: Any = None) -> dict[str, str | bytes]:
    """Every file of a kingdom's folder but the report and the view, by file
    name, rendered from the report document ``doc``; with the kingdom's
    ``view`` (``ansicht.yaml``) the HTML sheet carries the order editor."""
    r = renderer
    report = doc["report"]
    values = dict(r=report, changes=doc["changes"], maps=report_pages(doc, settings))
    out: dict[str, str | bytes] = {f"{SHEET}.txt": r.text("ergebnisblatt.txt.j2", **values)}
    form = render_view_template(form_view(doc), deadline=report["header"]["deadline"],
                                rules=rules)
    extra: dict[str, Any] = {}
    if view is not None:
        # lazy: the editor loads the orders' choices; `wdg --help` imports this module
        from wdg.reports.editor import editor_context, shipped_rules

        extra["editor"] = editor_context(doc, view, values["maps"], form,
                                         rules or shipped_rules(), settings.orders_address)
    # the map's planning aids (owners, details on hover, zoom): the screen's sheet only
    from wdg.reports.mapview import map_context

    extra["mapview"] = map_context(doc, values["maps"], settings)
    out[f"{SHEET}.html"] = r.html("ergebnisblatt.html.j2", doc_date=doc_date(doc), print=False,
                                  **values, **extra)
    if pdf:
        out[f"{SHEET}.pdf"] = printed_pdf(doc, r, settings, values["maps"])
    out[FORM] = form
    return out
