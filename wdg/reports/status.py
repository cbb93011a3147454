"""A segment's status as plain text (``wdg segment status``).

The month in its long German form, the size, one table row per kingdom
(number, name, ruler, gemarks, settlements, active/passive armies, soldiers,
treasury; city states marked) and the number of creatures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wdg.world.state import ArmyStatus, Segment


def kingdom_rows(seg: Segment) -> list[dict[str, Any]]:
    """One dict per kingdom with the figures of the status table."""
    owners, counts = np.unique(seg.owner, return_counts=True)
    gemarks = dict(zip(owners.tolist(), counts.tolist()))
    settled = seg.owner[seg.settlement > 0]
    rows = []
    for k in sorted(seg.kingdoms):
        kd = seg.kingdoms[k]
        armies = [a for a in seg.armies.values() if a.kingdom == k]
        rows.append({
            "number": k, "name": kd.name, "ruler": kd.ruler, "city_state": kd.city_state,
            "gemarks": gemarks.get(k, 0), "settlements": int((settled == k).sum()),
            "active": sum(a.status is not ArmyStatus.PASSIVE for a in armies),
            "passive": sum(a.status is ArmyStatus.PASSIVE for a in armies),
            "soldiers": sum(a.units for a in armies if not a.is_fleet),
            "treasury": kd.treasury,
        })
    return rows


def _n(x: int) -> str:
    return f"{x:,}".replace(",", ".")


def render_status(seg: Segment) -> str:
    """The status table as text (German labels, numbers with ``.`` thousands)."""
    g = seg.grid
    lines = [
        f"Segment {seg.name} — {seg.title}",
        seg.date.long(),
        f"{g.prov_cols}x{g.prov_rows} Provinzen ({g.first_province:03d}-{g.last_province:03d}), "
        f"{_n(g.size)} Gemarken, {len(seg.kingdoms)} Reiche, {len(seg.armies)} Heere, "
        f"{len(seg.creatures)} Fabelwesen",
        "",
    ]
    head = ("Nr", "Reich", "Herrscher", "Gemarken", "Siedl.", "aktiv", "passiv", "Soldaten",
            "Reichsschatz")
    table = [head]
    for r in kingdom_rows(seg):
        name = str(r["name"]) + (" (Stadtstaat)" if r["city_state"] else "")
        table.append((str(r["number"]), name, str(r["ruler"]), str(r["gemarks"]),
                      str(r["settlements"]), str(r["active"]), str(r["passive"]),
                      _n(int(r["soldiers"])), _n(int(r["treasury"])) + " GS"))
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {0, 3, 4, 5, 6, 7, 8}
    for row in table:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in
                 enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
