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

from typing import Any

from wdg.engine.events import Event
from wdg.orders.model import Sheet
from wdg.orders.template import render_view_template
from wdg.orders.view import ArmyView, GeneralView, KingdomView, OfferView
from wdg.reports.build import build_kingdom_report
from wdg.reports.exploration import report_pages
from wdg.reports.jsonreport import build_json, dumps, loads
from wdg.reports.render import Renderer
from wdg.reports.settings import ReportSettings
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
                 previous: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """A kingdom's report: its JSON text (the file) and the document parsed back
    from that text (what every sheet is rendered from)."""
    report = build_kingdom_report(seg_after, events, sheet, kingdom, settings,
                                  seg_before=seg_before)
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
                       diplomacy={d["kingdom"]: d["status"] for d in r["diplomacy"]})
    status = {"aktiv": "aktiv", "passiv": "passiv", "wird aktiv": "aktivierend"}
    for a in r["armies"]:
        g = None
        if a["general"]:
            g = GeneralView(a["general"], a["troop_type"] or "", a["experience"] or 0)
        view.armies[a["number"]] = ArmyView(a["number"], status[a["status"]],
                                            Address.parse(a["position"]),
                                            a["troop_type"], a["units"], g,
                                            carried_by=a["carried_by"], carrying=a["carrying"])
    o = r["offer"]
    if o is not None:
        view.offer = OfferView(GeneralView(o["name"], o["troop"], o["experience"], o["wizard"],
                                           o["ability"]), o["price"])
    return view


def render_sheets(doc: dict[str, Any], renderer: Renderer, settings: ReportSettings, *,
                  pdf: bool = True) -> dict[str, str | bytes]:
    """Every file of a kingdom's folder but the report itself, by file name,
    rendered from the report document ``doc``."""
    r = renderer
    report = doc["report"]
    values = dict(r=report, changes=doc["changes"], maps=report_pages(doc, settings))
    out: dict[str, str | bytes] = {f"{SHEET}.txt": r.text("ergebnisblatt.txt.j2", **values)}
    out[f"{SHEET}.html"] = r.html("ergebnisblatt.html.j2", doc_date=doc_date(doc), print=False,
                                  **values)
    if pdf:
        from wdg.reports.pdf import html_to_pdf  # WeasyPrint: ~1 s to import, only when needed
        # The printed sheet sets the long lists (orders, armies) as fixed-width
        # lines: the same content, at a fraction of WeasyPrint's table cost.
        # The printed page holds PRINT_WIDTH columns of DejaVu Sans Mono.
        printed = r.html("ergebnisblatt.html.j2", doc_date=doc_date(doc), print=True,
                         WIDTH=PRINT_WIDTH, **values)
        out[f"{SHEET}.pdf"] = html_to_pdf(printed, r.dirs)[0]
    out[FORM] = render_view_template(form_view(doc), deadline=report["header"]["deadline"])
    return out
