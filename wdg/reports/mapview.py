"""The HTML sheet's map for planning: its data, embedded as JSON.

``templates/map.js`` (inlined after the maps of the HTML sheet, never in the
printed sheet) colours the land of every foreign owner the kingdom knows
with a legend, shows a gemark's details on hover or tap and lets the player
zoom and pan. It reads one JSON document (:func:`map_data`), built from the
kingdom's report (``bericht.json``) alone — the known map with terrain,
owner, settlement and the month each gemark was last seen, the own armies
and the sighted markers — and the map pages' geometry. Nothing else of the
segment enters it; the strings are German and final, the script only shows
them. Same inputs, same bytes.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from wdg.reports.editor import script_json
from wdg.reports.exploration import report_grid
from wdg.reports.model import STATUS_OF_REPORT, MapPage
from wdg.reports.settings import ReportSettings
from wdg.world.calendar import MonthDate
from wdg.world.state import ArmyStatus


OWNER_COLOURS = ("#e08a00", "#8e44ad", "#d4489a", "#1f5fbf", "#5a5a5a", "#00a0c8",
                 "#138a72", "#8a6d00", "#6b8e23", "#a0522d")
"""Foreign owners' colours on the HTML map, in the order of their numbers:
no red (the kingdom's own land is outlined red, sighted armies are framed
red), the hues least like the terrain's greens and blues first; a kingdom that knows more owners than colours
sees them repeat (the hover names every owner)."""


def _gs(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def map_data(doc: dict[str, Any], maps: list[MapPage], settings: ReportSettings) -> dict[str, Any]:
    """What ``map.js`` needs for a kingdom's sheet (plain, JSON-able):

    - ``pages``: each map page's origin row, column and hex size (the SVG's
      geometry, as the order editor has it);
    - ``cells``: per known gemark ``[row, col, address, terrain, owner,
      settlement, seen]`` with ``owner`` an index into ``owners`` (-1: none
      known or nobody's) or the kingdom itself as ``-2``, the settlement and
      the last-seen month as German text;
    - ``owners``: the foreign owners on the known map (``k``, ``name``,
      ``colour``), by number; ``marks``: by address, the armies and creatures
      the sheet shows there (own armies with troop type and strength)."""
    grid = report_grid(doc)
    kingdom = int(doc["kingdom"])
    report = doc["report"]
    month = doc["month"]
    names = {int(d["kingdom"]): d["name"] for d in report["diplomacy"]}
    own_land = {g["address"] for p in report["provinces"] for g in p["gemarks"]}
    own_towns = {s["address"]: s for s in report["settlements"]}
    foreign = sorted({int(c["owner"]) for c in doc["known_map"]
                      if c["owner"] not in (None, 0, kingdom) and c["gemark"] not in own_land})
    index = {k: i for i, k in enumerate(foreign)}
    owners = [{"k": k, "name": names.get(k, f"Königreich {k}"),
               "colour": OWNER_COLOURS[i % len(OWNER_COLOURS)]} for i, k in enumerate(foreign)]
    seen_text: dict[str, str] = {}
    cells = []
    for c in doc["known_map"]:
        at = c["gemark"]
        r, col = grid.index(grid.parse(at))
        o = c["owner"]
        if at in own_land:
            owner = -2
        elif o in (None, 0, kingdom):
            owner = -1 if o is None else -3  # unknown / nobody's (or lost land)
        else:
            owner = index[int(o)]
        size = c["settlement"]
        town = own_towns.get(at)
        if town is not None:
            settlement = f"{town['name']} ({town['size_name']}, {_gs(int(town['size']))} BE)"
        elif size is None:
            settlement = "unbekannt"
        elif size > 0:
            settlement = f"{settings.settlement_name(int(size))}, {_gs(int(size))} BE"
        else:
            settlement = "keine"
        seen = c["seen"]
        if seen not in seen_text:
            when = MonthDate.parse(seen)
            seen_text[seen] = when.short() + (" (in diesem Mond)" if seen >= month else "")
        cells.append([r, col, at, c["terrain"], owner, settlement, seen_text[seen]])
    marks: dict[str, list[str]] = {}
    for a in report["armies"]:
        if STATUS_OF_REPORT[a["status"]] is ArmyStatus.PASSIVE:
            continue
        what = ", ".join(x for x in (a.get("troop") or "", f"{_gs(int(a['units']))} Rüstgüter") if x)
        marks.setdefault(a["position"], []).append(f"eigenes Heer {int(a['number']):04d} ({what})")
    for m in report["markers"]:
        if m["kind"] == "creature":
            label = "Fabelwesen, gesichtet"
        else:
            label = f"fremdes Heer {m['label']}, gesichtet"
        marks.setdefault(m["gemark"], []).append(label)
    rows, cols = grid.shape
    return {"kingdom": kingdom, "rows": rows, "cols": cols, "pages": [{"r0": p.origin[0], "c0": p.origin[1], "s": p.origin[2]}
                                          for p in maps],
            "cells": cells, "owners": owners, "marks": marks}


def map_context(doc: dict[str, Any], maps: list[MapPage],
                settings: ReportSettings) -> dict[str, Any]:
    """What the HTML sheet's map script needs: the data and the same as safe
    script text (:func:`wdg.reports.editor.script_json`)."""
    data = map_data(doc, maps, settings)
    return {"data": data, "json": Markup(script_json(data))}
