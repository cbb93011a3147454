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

from wdg.world.state import BUILDING_ORDER, Army, ArmyStatus, Building, Segment
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
            out.append(Finding(f"Ebene {name}", f"Form {arr.shape}, erwartet {shape}"))
    if out:
        return out
    if int(seg.terrain.max(initial=0)) >= len(WATER):
        out.append(Finding("Ebene terrain", "unbekannte Gelände-Nummer"))
        return out
    bad_owner = sorted(set(np.unique(seg.owner).tolist()) - set(seg.kingdoms) - {0})
    for k in bad_owner:
        out.append(Finding("Ebene owner", f"Gemarken im Besitz des unbekannten Reichs {k}"))
    for r, c in np.argwhere(seg.militia < 0):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "negative Miliz"))
    water = WATER[seg.terrain]
    for r, c in np.argwhere((seg.settlement > 0) & water):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "Siedlung auf Wasser"))
    for r, c in np.argwhere(seg.settlement < 0):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "negative Siedlungsgröße"))
    for b in BUILDING_ORDER:
        if not b.only_in_settlement:
            continue
        layer = seg.buildings[BUILDING_ORDER.index(b)]
        for r, c in np.argwhere((layer > 0) & (seg.settlement == 0)):
            out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))),
                               f"{b.german} außerhalb einer Siedlung"))
    mine = seg.buildings[BUILDING_ORDER.index(Building.MINE)]
    for r, c in np.argwhere((mine > 0) & water):
        out.append(Finding(seg.label(seg.grid.hex_at(int(r), int(c))), "Mine auf Wasser"))
    for h, d in sorted((seg.deposits or {}).items(), key=lambda kv: seg.grid.index(kv[0])):
        if water[seg.grid.index(h)]:
            out.append(Finding(seg.label(h), f"Vorkommen ({d.kind}) auf Wasser"))
    for h in sorted(seg.settlement_names):
        if not seg.grid.contains(h):
            out.append(Finding(f"Siedlungsname {seg.settlement_names[h]!r}", "außerhalb der Karte"))
        elif seg.at(seg.settlement, h) == 0:
            out.append(Finding(seg.label(h), f"Siedlungsname {seg.settlement_names[h]!r} "
                                             "ohne Siedlung"))
    for k, km in sorted(seg.known.items()):
        if k not in seg.kingdoms:
            out.append(Finding(f"bekannte Karte von {k}", "unbekanntes Reich"))
        for name in ("seen", "terrain", "owner", "settlement"):
            if getattr(km, name).shape != shape:
                out.append(Finding(f"bekannte Karte von {k}", f"{name} hat die Form "
                                   f"{getattr(km, name).shape}, die Karte {shape}"))
    return out


def _check_kingdoms(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for n, k in sorted(seg.kingdoms.items()):
        where = f"Reich {n}"
        if k.number != n:
            out.append(Finding(where, f"das Feld number sagt {k.number}"))
        if k.treasury < 0:
            out.append(Finding(where, f"negativer Schatz {k.treasury}"))
        for other, status in sorted(k.diplomacy.items()):
            if not 1 <= status <= 9:
                out.append(Finding(where, f"Diplomatiestatus {status} gegenüber {other} außerhalb von 1..9"))
            if other not in seg.kingdoms:
                out.append(Finding(where, f"die Diplomatieliste nennt das unbekannte Reich {other}"))
            elif seg.kingdoms[other].city_state:
                out.append(Finding(where, f"Diplomatie mit dem Stadtstaat {other}"))
            if other == n:
                out.append(Finding(where, "Diplomatie mit sich selbst"))
        if k.city_state and k.diplomacy:
            out.append(Finding(where, "ein Stadtstaat hat eine Diplomatieliste"))
    return out


def _check_armies(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for n, a in sorted(seg.armies.items()):
        where = f"Heer {n:04d}"
        if a.number != n:
            out.append(Finding(where, f"das Feld number sagt {a.number}"))
        if a.kingdom not in seg.kingdoms:
            out.append(Finding(where, f"gehört zum unbekannten Reich {a.kingdom}"))
        elif seg.kingdoms[a.kingdom].city_state:
            out.append(Finding(where, "Stadtstaaten haben keine Heere"))
        if a.units < 0:
            out.append(Finding(where, f"negative Einheiten {a.units}"))
        if a.status is ArmyStatus.PASSIVE:
            if a.position is not None:
                out.append(Finding(where, "passiv, aber nicht auf 000.00"))
            if a.units > 0:
                out.append(Finding(where, f"{a.units} Einheiten in einem passiven Heer (Einheiten ohne Heer)"))
            continue
        if a.general is None:
            out.append(Finding(where, "aktiv ohne General"))
        if a.position is None:
            out.append(Finding(where, "aktiv, aber auf 000.00"))
            continue
        if not seg.grid.contains(a.position):
            out.append(Finding(where, "Position außerhalb der Karte"))
            continue
        out += _check_army_terrain(seg, a, where)
    return out


def _check_army_terrain(seg: Segment, a: Army, where: str) -> list[Finding]:
    out: list[Finding] = []
    h = a.position
    assert h is not None  # the caller skips armies at 000.00
    t = terrain(seg.at(seg.terrain, h))
    water = bool(WATER[t.id])
    harbour = seg.at(seg.settlement, h) > 0 and seg.building_level(h, Building.HAFEN) > 0
    if a.is_fleet:
        if not water and not harbour:
            out.append(Finding(where, f"Flotte auf {t.name} {seg.label(a.position)} ohne Hafen"))
        if a.carrying is not None:
            c = seg.armies.get(a.carrying)
            if c is None or c.carried_by != a.number:
                out.append(Finding(where, f"trägt Heer {a.carrying}, bei dem das nicht vermerkt ist"))
    else:
        afloat = a.carried_by is not None or a.boats > 0
        if water and not afloat:
            out.append(Finding(where, f"Landheer auf Wasser {seg.label(a.position)}"))
        if a.carried_by is not None:
            f = seg.armies.get(a.carried_by)
            if f is None or f.carrying != a.number:
                out.append(Finding(where, f"getragen von {a.carried_by}, bei dem das nicht vermerkt ist"))
            elif f.position != a.position:
                out.append(Finding(where, f"nicht an der Position seiner Flotte {a.carried_by}"))
        if a.carrying is not None:
            out.append(Finding(where, "ein Landheer kann kein anderes Heer tragen"))
    return out


def _check_others(seg: Segment) -> list[Finding]:
    out: list[Finding] = []
    for cid, c in sorted(seg.creatures.items()):
        if not seg.grid.contains(c.position):
            out.append(Finding(f"Kreatur {cid}", "Position außerhalb der Karte"))
        if c.tamed_by is not None and c.tamed_by not in seg.armies:
            out.append(Finding(f"Kreatur {cid}", f"gezähmt vom unbekannten Heer {c.tamed_by}"))
    for tid, t in sorted(seg.treasures.items()):
        if not seg.grid.contains(t.position):
            out.append(Finding(f"Schatz {tid}", "Position außerhalb der Karte"))
    for i, p in enumerate(seg.constructions):
        if p.kingdom not in seg.kingdoms:
            out.append(Finding(f"Bauprojekt {i}", f"unbekanntes Reich {p.kingdom}"))
        if not seg.grid.contains(p.position):
            out.append(Finding(f"Bauprojekt {i}", "Position außerhalb der Karte"))
    return out
