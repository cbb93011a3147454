"""Consistency check: what must never be in a segment.

``wdg segment check`` prints one line per finding and exits 1 if there is
any; ``wdg turn run`` refuses to start on an inconsistent segment. The
checks follow the rules: armies only where their type may stand ("Landheere
können keine Wassergemarken betreten; Flotten können sich im allgemeinen nur
in Wassergemarken oder in einer Siedlung mit einem Hafen aufhalten"),
"Rüstgüter können nicht allein stehen", one settlement per gemark, Hafen,
Kaserne and Palast only in settlements, no debt, statuses 1..9, no diplomacy
with city states, and every reference pointing at something that exists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wdg.world.state import BUILDING_ORDER, ArmyStatus, Building, Segment
from wdg.world.terrain import WATER, terrain


@dataclass(frozen=True, slots=True)
class Finding:
    """One inconsistency: where, and what is wrong."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def check_segment(seg: Segment) -> list[Finding]:
    """All findings, in a stable order (map, kingdoms, armies, creatures, projects)."""
    out: list[Finding] = []
    out += _check_layers(seg)
    out += _check_kingdoms(seg)
    out += _check_armies(seg)
    out += _check_others(seg)
    return out


def _check_layers(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    shape = seg.grid.shape
    for name in ("terrain", "owner", "militia", "settlement"):
        arr = getattr(seg, name)
        if arr.shape != shape:
            out.append(Finding(f"layer {name}", f"shape {arr.shape}, expected {shape}"))
    if out:
        return out
    if int(seg.terrain.max(initial=0)) >= len(WATER):
        out.append(Finding("layer terrain", "unknown terrain id"))
        return out
    bad_owner = sorted(set(np.unique(seg.owner).tolist()) - set(seg.kingdoms) - {0})
    for k in bad_owner:
        out.append(Finding("layer owner", f"gemarks owned by unknown kingdom {k}"))
    for r, c in np.argwhere(seg.militia < 0):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "negative militia"))
    water = WATER[seg.terrain]
    for r, c in np.argwhere((seg.settlement > 0) & water):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "settlement on water"))
    for r, c in np.argwhere(seg.settlement < 0):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "negative settlement size"))
    for b in BUILDING_ORDER:
        if not b.only_in_settlement:
            continue
        layer = seg.buildings[BUILDING_ORDER.index(b)]
        for r, c in np.argwhere((layer > 0) & (seg.settlement == 0)):
            out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))),
                               f"{b.german} outside a settlement"))
    mine = seg.buildings[BUILDING_ORDER.index(Building.MINE)]
    for r, c in np.argwhere((mine > 0) & water):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "Mine on water"))
    for h, d in sorted((seg.deposits or {}).items(), key=lambda kv: seg.grid.index(kv[0])):
        if water[seg.grid.index(h)]:
            out.append(Finding(seg.label(h), f"deposit ({d.kind}) on water"))
    for h in sorted(seg.settlement_names):
        if not seg.grid.contains(h):
            out.append(Finding(f"settlement name {seg.settlement_names[h]!r}", "outside the map"))
        elif seg.at(seg.settlement, h) == 0:
            out.append(Finding(seg.label(h), f"settlement name {seg.settlement_names[h]!r} "
                                             "without a settlement"))
    for k, km in sorted(seg.known.items()):
        if k not in seg.kingdoms:
            out.append(Finding(f"known map of {k}", "unknown kingdom"))
        for name in ("seen", "terrain", "owner", "settlement"):
            if getattr(km, name).shape != shape:
                out.append(Finding(f"known map of {k}", f"{name} has shape "
                                   f"{getattr(km, name).shape}, outside the map {shape}"))
    return out


def _check_kingdoms(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for n, k in sorted(seg.kingdoms.items()):
        where = f"kingdom {n}"
        if k.number != n:
            out.append(Finding(where, f"number field says {k.number}"))
        if k.treasury < 0:
            out.append(Finding(where, f"negative treasury {k.treasury}"))
        for other, status in sorted(k.diplomacy.items()):
            if not 1 <= status <= 9:
                out.append(Finding(where, f"diplomacy status {status} toward {other} outside 1..9"))
            if other not in seg.kingdoms:
                out.append(Finding(where, f"diplomacy list names unknown kingdom {other}"))
            elif seg.kingdoms[other].city_state:
                out.append(Finding(where, f"diplomacy with city state {other}"))
            if other == n:
                out.append(Finding(where, "diplomacy with itself"))
        if k.city_state and k.diplomacy:
            out.append(Finding(where, "a city state has a diplomacy list"))
    return out


def _check_armies(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for n, a in sorted(seg.armies.items()):
        where = f"army {n:04d}"
        if a.number != n:
            out.append(Finding(where, f"number field says {a.number}"))
        if a.kingdom not in seg.kingdoms:
            out.append(Finding(where, f"belongs to unknown kingdom {a.kingdom}"))
        elif seg.kingdoms[a.kingdom].city_state:
            out.append(Finding(where, "city states have no armies"))
        if a.units < 0:
            out.append(Finding(where, f"negative units {a.units}"))
        if a.status is ArmyStatus.PASSIVE:
            if a.position is not None:
                out.append(Finding(where, "passive but not at 000.00"))
            if a.units > 0:
                out.append(Finding(where, f"{a.units} units in a passive army (units without an army)"))
            continue
        if a.general is None:
            out.append(Finding(where, "active without a general"))
        if a.position is None:
            out.append(Finding(where, "active but at 000.00"))
            continue
        if not seg.grid.contains(a.position):
            out.append(Finding(where, "position outside the map"))
            continue
        out += _check_army_terrain(seg, a, where)
    return out


def _check_army_terrain(seg: Segment, a, where: str) -> list[Finding]:  # type: ignore[no-untyped-def]
    out: list[Finding] = []
    t = terrain(seg.at(seg.terrain, a.position))
    water = bool(WATER[t.id])
    harbour = seg.at(seg.settlement, a.position) > 0 and seg.building_level(a.position, Building.HAFEN) > 0
    if a.is_fleet:
        if not water and not harbour:
            out.append(Finding(where, f"fleet on {t.name} {seg.label(a.position)} without a Hafen"))
        if a.carrying is not None:
            c = seg.armies.get(a.carrying)
            if c is None or c.carried_by != a.number:
                out.append(Finding(where, f"carries army {a.carrying}, which does not say so"))
    else:
        afloat = a.carried_by is not None or a.boats > 0
        if water and not afloat:
            out.append(Finding(where, f"land army on water {seg.label(a.position)}"))
        if a.carried_by is not None:
            f = seg.armies.get(a.carried_by)
            if f is None or f.carrying != a.number:
                out.append(Finding(where, f"carried by {a.carried_by}, which does not say so"))
            elif f.position != a.position:
                out.append(Finding(where, f"not at the position of its fleet {a.carried_by}"))
        if a.carrying is not None:
            out.append(Finding(where, "a land army cannot carry another army"))
    return out


def _check_others(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for cid, c in sorted(seg.creatures.items()):
        if not seg.grid.contains(c.position):
            out.append(Finding(f"creature {cid}", "position outside the map"))
        if c.tamed_by is not None and c.tamed_by not in seg.armies:
            out.append(Finding(f"creature {cid}", f"tamed by unknown army {c.tamed_by}"))
    for tid, t in sorted(seg.treasures.items()):
        if not seg.grid.contains(t.position):
            out.append(Finding(f"treasure {tid}", "position outside the map"))
    for i, p in enumerate(seg.constructions):
        if p.kingdom not in seg.kingdoms:
            out.append(Finding(f"construction {i}", f"unknown kingdom {p.kingdom}"))
        if not seg.grid.contains(p.position):
            out.append(Finding(f"construction {i}", "position outside the map"))
    return out
