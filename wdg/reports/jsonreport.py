"""The machine-readable report of a kingdom and month (``k<n>/bericht.json``).

One versioned JSON document per kingdom and month, serialised from the same
report model the text, HTML and PDF sheets are rendered from
(:class:`wdg.reports.model.KingdomReport`), plus the kingdom's whole known
map (every gemark it knows: terrain, owner and settlement as last seen, the
month it was seen) and the changes since the previous month's report
(treasury, soldiers per army, gemarks gained and lost, new diplomatic
contacts). The sheets (text, HTML, PDF), the map and the order form are
rendered from this document alone (:mod:`wdg.reports.sheet`). Its schema is ``docs/report-schema.json``
(:data:`REPORT_VERSION`); a client (like Magellan for Eressea's CR) reads it
instead of parsing the text sheet.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from wdg.reports.model import STATUS_OF_REPORT, KingdomReport
from wdg.world.calendar import MonthDate
from wdg.world.state import UNKNOWN_TERRAIN, ArmyStatus, Segment
from wdg.world.terrain import TERRAINS

REPORT_VERSION = 4
FILE = "bericht.json"


_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}
"""Field names by dataclass type (``dataclasses.fields`` is slow to ask per value)."""


def _plain(value: Any) -> Any:
    t = type(value)
    if t in _SCALARS:
        return value
    names = _FIELDS.get(t)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(value))
    # a scalar is its own plain form: answered inline, without a call for each
    # of a report's ~10,000 fields (same values as calling _plain on it)
    scalars = _SCALARS
    if names is not None:
        return {n: v if type(v := getattr(value, n)) in scalars else _plain(v) for n in names}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in scalars else _plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): v if type(v) in scalars else _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def known_map(seg: Segment, kingdom: int) -> list[dict[str, Any]]:
    """Every gemark the kingdom knows (its own land always, as it is now)."""
    km = seg.known.get(kingdom)
    mine = seg.owner == kingdom
    if km is not None:
        known = (km.terrain != UNKNOWN_TERRAIN) | mine
    else:
        known = mine
    rows, cols = np.nonzero(known)
    out = []
    for r, c in zip(rows.tolist(), cols.tolist()):
        h = seg.grid.hex_at(r, c)
        if mine[r, c]:
            ter, owner, settle = int(seg.terrain[r, c]), kingdom, int(seg.settlement[r, c])
            seen = seg.date.previous()
        else:
            assert km is not None  # not its own: known only through its known map
            ter, owner, settle = int(km.terrain[r, c]), int(km.owner[r, c]), int(km.settlement[r, c])
            seen = MonthDate.from_ordinal(int(km.seen[r, c]))
        cell: dict[str, Any] = {"gemark": seg.label(h), "terrain": TERRAINS[ter].name,
                                "owner": owner if owner >= 0 else None,
                                "settlement": settle if settle >= 0 else None}
        cell["seen"] = seen.key
        out.append(cell)
    return out


def previous_extract(doc: dict[str, Any]) -> dict[str, Any]:
    """The figures of a month's report that the next month's :func:`changes`
    reads (and nothing else): archived with the next month
    (``inputs/previous-reports.json``), so that month replays without this
    one. ``changes(now, previous_extract(before)) == changes(now, before)``
    (tested)."""
    r = doc["report"]
    out: dict[str, Any] = {
        "treasury": {"after": r["treasury"]["after"]},
        "armies": [{"number": a["number"], "units": a["units"], "morale": a["morale"]}
                   for a in r["armies"]],
        "provinces": [{"gemarks": [{"address": g["address"]} for g in p["gemarks"]]}
                      for p in r["provinces"]],
        "diplomacy": [{"kingdom": d["kingdom"]} for d in r["diplomacy"]],
        "sightings": [{"where": s["where"], "text": s["text"]} for s in r["sightings"]],
    }
    if "foreign" in r:  # version 3: new sightings are foreign armies not seen before
        out["foreign"] = [{"what": s["what"], "id": s["id"]} for s in r["foreign"]]
    totals = r.get("totals") or {}
    if "popularity" in totals:
        out["totals"] = {"popularity": totals["popularity"]}
    return {"report": out}


def changes(now: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """What changed since the previous month's report (``None``: the first month)."""
    if before is None:
        return {"first_month": True}
    t0 = before["report"]["treasury"]["after"]
    t1 = now["report"]["treasury"]["after"]
    a0 = {a["number"]: a["units"] for a in before["report"]["armies"]}
    a1 = {a["number"]: a["units"] for a in now["report"]["armies"]}
    soldiers = [{"army": n, "before": a0.get(n), "after": a1.get(n)}
                for n in sorted(set(a0) | set(a1)) if a0.get(n) != a1.get(n)]
    m0 = {a["number"]: a["morale"] for a in before["report"]["armies"]}
    # an army destroyed this month (passive, no general, no Rüstgüter) has no
    # morale to report (issue #32: it was shown with a rising morale)
    morale = [{"army": a["number"], "before": m0[a["number"]], "after": a["morale"]}
              for a in now["report"]["armies"]
              if a["number"] in m0 and m0[a["number"]] != a["morale"]
              and not (STATUS_OF_REPORT[a["status"]] is ArmyStatus.PASSIVE
                       and not a["general"] and not a["units"])]
    p0 = (before["report"].get("totals") or {}).get("popularity")  # (version 1 has no totals)
    p1 = (now["report"].get("totals") or {}).get("popularity")
    popularity = {"before": p0, "after": p1}
    g0 = {g["address"] for p in before["report"]["provinces"] for g in p["gemarks"]}
    g1 = {g["address"] for p in now["report"]["provinces"] for g in p["gemarks"]}
    d0 = {d["kingdom"] for d in before["report"]["diplomacy"]}
    new_contacts = [d for d in now["report"]["diplomacy"] if d["kingdom"] not in d0]
    # new sightings: foreign armies and creatures not seen last month (issue #32:
    # not the sighting lines whose text changed, e.g. a new estimate)
    if "foreign" in before["report"]:
        f0 = {(s["what"], s["id"]) for s in before["report"]["foreign"]}
        new_sightings = [s for s in now["report"]["foreign"] if (s["what"], s["id"]) not in f0]
    else:  # a version-2 report before: its lines are all there is
        s0 = {(s["where"], s["text"]) for s in before["report"]["sightings"]}
        new_sightings = [s for s in now["report"]["sightings"]
                         if (s["where"], s["text"]) not in s0]
    return {"first_month": False, "treasury": {"before": t0, "after": t1, "change": t1 - t0},
            "soldiers": soldiers, "morale": morale, "popularity": popularity, "gemarks_gained": sorted(g1 - g0),
            "gemarks_lost": sorted(g0 - g1), "new_contacts": new_contacts,
            "new_sightings": len(new_sightings)}


def build_json(report: KingdomReport, seg_after: Segment, kingdom: int,
               previous: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON report (plain data) of ``kingdom`` for the month just resolved."""
    doc: dict[str, Any] = {
        "version": REPORT_VERSION,
        "segment": seg_after.name,
        "month": seg_after.date.previous().key,
        "kingdom": kingdom,
        "grid": {"prov_cols": seg_after.grid.prov_cols, "prov_rows": seg_after.grid.prov_rows},
        "report": _plain(report),
        "known_map": known_map(seg_after, kingdom),
    }
    if not doc["report"]["deposits"]:
        # absent means "none found": the reports of segments without deposits read
        # (and replay) as before
        del doc["report"]["deposits"]
    if not doc["report"]["header"]["herrscherin"]:
        # absent means "Herrscher": the reports of kingdoms without the field read as before
        del doc["report"]["header"]["herrscherin"]
    doc["changes"] = changes(doc, previous)
    return doc


def loads(text: str) -> dict[str, Any]:
    """The report document back from its JSON text."""
    return json.loads(text)


def dumps(doc: dict[str, Any]) -> str:
    """Deterministic JSON text (sorted keys, UTF-8, compact: the C encoder; one
    trailing newline)."""
    return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
