"""Phase E: scouts and explorers, the ruler's view of his territory, and each
kingdom's known map ("Die Erkundung der Heere", "Der Kontrollbereich").

Every active army reports (a) its own gemark in full: terrain, buildings,
owner, exact foreign armies and creatures; (b) the six neighbours: terrain,
buildings, estimated foreign armies and creatures; (c) the ring beyond:
terrain only. Small armies and armies in difficult terrain reach fewer rings
(``worlds/rules/recon.yaml``). The ruler also learns identity and estimated
strength of foreign armies inside his own land territory. A kingdom's known
map (:class:`~wdg.world.state.KnownMap`) accumulates: terrain once seen stays
known; ``seen``, ``owner`` and ``settlement`` carry the last sighting.

Events (``kingdom`` is the observer):

- ``recon.sighting``: a foreign army or creature (``data``: ``what``
  ``"heer"``/``"fabelwesen"``, ``id``, ``of`` (its kingdom), ``troop``,
  ``units``, ``exact``, ``source`` ``"standort"``/``"aufklaerer"``/
  ``"kontrollbereich"``)
- ``recon.scouted``: one per army: its reach, the restrictions that applied and
  the buildings seen within ring 1 (``data.buildings``: address -> names)
"""

from __future__ import annotations

import math

from dataclasses import dataclass, field

import numpy as np

from wdg.engine.events import Event, SightingKind
from wdg.engine.treasury import number
from wdg.engine.month import Month, step
from wdg.engine.movement import mover_kind
from wdg.engine.rounding import nearest
from wdg.world.hexgrid import Hex, ring
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Creature,
    MoverKind,
    ProjectKind,
    Segment,
    new_known_map,
)
from wdg.world.terrain import TERRAINS, WATER, is_difficult

AREA = "recon"
_DIFFICULT = np.array([is_difficult(t) for t in TERRAINS], dtype=bool)


@dataclass(slots=True)
class _Seen:
    """What one kingdom saw this month."""

    terrain: set[tuple[int, int]] = field(default_factory=set)
    settlement: set[tuple[int, int]] = field(default_factory=set)
    owner: set[tuple[int, int]] = field(default_factory=set)
    sightings: dict[tuple[SightingKind, int], tuple[bool, Hex, str]] = field(default_factory=dict)


@dataclass(slots=True)
class _Index:
    """Armies and creatures by position, built once."""

    armies: dict[Hex, list[Army]]
    creatures: dict[Hex, list[Creature]]
    structures: np.ndarray
    """True where a settlement or a building stands."""


@step("recon", 70)
def recon(m: Month) -> None:
    """Phase E for every kingdom, then the known maps."""
    seg = m.state
    index = _index(seg)
    intruders = _intruders(seg, index)
    for k in _kingdom_order(m):
        seen = _Seen()
        for army in sorted((a for a in seg.armies.values() if a.kingdom == k), key=lambda a: a.number):
            if army.is_active and army.position is not None and army.general is not None:
                scout(m, army, index, seen)
        for a in intruders.get(k, ()):
            assert a.position is not None
            _note(seen, (SightingKind.ARMY, a.number), False, a.position, "kontrollbereich")
        _emit_sightings(m, k, seen)
        update_known_map(seg, k, seen)


def _kingdom_order(m: Month) -> list[int]:
    ks = [k for k, v in m.state.kingdoms.items() if not v.city_state]
    return [k for k in m.kingdom_order if k in ks] + sorted(k for k in ks if k not in m.kingdom_order)


def _index(seg: Segment) -> _Index:
    armies: dict[Hex, list[Army]] = {}
    for a in sorted(seg.armies.values(), key=lambda x: x.number):
        if a.position is not None and a.status is not ArmyStatus.PASSIVE and a.general is not None:
            armies.setdefault(a.position, []).append(a)
    creatures: dict[Hex, list[Creature]] = {}
    for c in sorted(seg.creatures.values(), key=lambda x: x.id):
        creatures.setdefault(c.position, []).append(c)
    structures = (seg.settlement > 0) | seg.buildings.any(axis=0)
    return _Index(armies, creatures, structures)


def _intruders(seg: Segment, index: _Index) -> dict[int, list[Army]]:
    """Kingdom -> foreign armies standing on its land gemarks ("Kontrollbereich")."""
    out: dict[int, list[Army]] = {}
    for h, armies in index.armies.items():
        r, c = seg.grid.index(h)
        owner = int(seg.owner[r, c])
        if owner == 0 or WATER[seg.terrain[r, c]]:
            continue
        out.setdefault(owner, []).extend(a for a in armies if a.kingdom != owner)
    return out


def reach_of(m: Month, army: Army) -> tuple[int, list[str]]:
    """How many rings the army scouts, and the German reasons for restrictions."""
    rules = m.rules
    seg = m.state
    assert army.position is not None
    reach = rules.int(AREA, "reach")
    why: list[str] = []
    kind = mover_kind(army)
    kind = MoverKind.KRIEGER if kind is MoverKind.BOOTE else kind
    if army.units < rules.int(AREA, "small_army", kind):
        reach -= rules.int(AREA, "small_army_penalty")
        why.append("kleines Heer")
    if _DIFFICULT[seg.at(seg.terrain, army.position)]:
        reach -= rules.int(AREA, "difficult_terrain_penalty")
        why.append("schwieriges Gelände")
    return max(0, reach), why


def scout(m: Month, army: Army, index: _Index, seen: _Seen) -> None:
    """One army's report: own gemark, the 1-GF- and the 2-GF-Bereich."""
    seg = m.state
    here = army.position
    assert here is not None
    reach, why = reach_of(m, army)
    cell = seg.grid.index(here)
    seen.terrain.add(cell)
    seen.settlement.add(cell)
    seen.owner.add(cell)
    _look(seen, army.kingdom, here, index, exact=True, source="standort")
    buildings = _buildings(seg, here) if index.structures[cell] else []
    shown: dict[str, list[str]] = {seg.label(here): buildings} if buildings else {}
    for radius in range(1, reach + 1):
        for h in ring(here, radius):
            if not seg.grid.contains(h):
                continue
            cell = seg.grid.index(h)
            seen.terrain.add(cell)
            if radius == 1:
                seen.settlement.add(cell)
                _look(seen, army.kingdom, h, index, exact=False, source="aufklaerer")
                if index.structures[cell]:
                    shown[seg.label(h)] = _buildings(seg, h)
    m.emit(Event("recon.scouted", kingdom=army.kingdom, army=army.number, at=here,
                 why=("Erkundung eingeschränkt: " + ", ".join(why)) if why else "",
                 data={"reach": reach, "restricted": why, "buildings": shown}))


def _buildings(seg: Segment, h: Hex) -> list[str]:
    r, c = seg.grid.index(h)
    # the size when the scouts saw it (Phase E): a settlement being built grows
    # at the end of the month, after them (issue #42: "50 BE" beside "100 BE")
    building = any(p.position == h and p.kind is ProjectKind.SETTLEMENT
                   for p in seg.constructions)
    size = int(seg.settlement[r, c])
    out = [f"Siedlung ({size} BE" + (", im Bau: wächst am Ende des Mondes)" if building else ")")] \
        if size > 0 else []
    out += [b.german for i, b in enumerate(BUILDING_ORDER) if seg.buildings[i, r, c] > 0]
    return out


def _look(seen: _Seen, k: int, h: Hex, index: _Index, *, exact: bool, source: str) -> None:
    for a in index.armies.get(h, ()):
        if a.kingdom != k:
            _note(seen, (SightingKind.ARMY, a.number), exact, h, source)
    for c in index.creatures.get(h, ()):
        _note(seen, (SightingKind.CREATURE, c.id), exact, h, source)


def _note(seen: _Seen, key: tuple[SightingKind, int], exact: bool, h: Hex, source: str) -> None:
    """Keep the best sighting: an exact one beats an estimate."""
    old = seen.sightings.get(key)
    if old is None or (exact and not old[0]):
        seen.sightings[key] = (exact, h, source)


def _emit_sightings(m: Month, k: int, seen: _Seen) -> None:
    """Sightings in a fixed order; estimates draw from ``m.rng``."""
    seg = m.state
    err = m.rules.num(AREA, "estimate_error")
    round_to = m.rules.int(AREA, "estimate_round_to")
    for (what, ident), (exact, h, source) in sorted(seen.sightings.items()):
        if what is SightingKind.ARMY:
            a = seg.armies[ident]
            true, of = a.units, a.kingdom
            troop = a.troop.value if a.troop else ""
            label = f"Heer {ident:04d} von {_kname(seg, of)} ({troop})"
        else:
            c = seg.creatures[ident]
            true, of, troop = c.count, None, c.kind
            kind = m.rules.get("creatures", "kinds", c.kind, "name") or c.kind
            label = f"Fabelwesen {c.name} ({kind})" if c.name else f"Fabelwesen {kind}"
        units = true if exact else _estimate(m, true, err, round_to)
        low, high = (units, units) if exact else estimate_range(units, err, round_to)
        m.emit(Event("recon.sighting", kingdom=k, at=h,
                     why=f"{label}: {'genau' if exact else 'etwa'} {number(units)}",
                     data={"what": what.value, "id": ident, "of": of, "troop": troop, "units": units,
                           "exact": exact, "source": source, "low": low, "high": high}))


def _kname(seg: Segment, k: int) -> str:
    return seg.kingdoms[k].name if k in seg.kingdoms else f"Reich {k}"


def estimate_range(units: int, error: float, round_to: int) -> tuple[int, int]:
    """The true counts an estimate ``units`` can stand for: :func:`_estimate`
    scales the truth by at most ``error`` either way and rounds to ``round_to``,
    so the truth lies in ``[(units - r/2) / (1 + error), (units + r/2) / (1 - error)]``
    (``recon.estimate_error``, ``estimate_round_to``). The JSON report gives it."""
    half = max(1, round_to) / 2
    low = max(1 if units > 0 else 0, math.ceil((units - half) / (1.0 + error)))
    high = math.floor((units + half) / (1.0 - error)) if error < 1 else units * 10
    return low, max(low, high)


def _estimate(m: Month, true: int, error: float, round_to: int) -> int:
    noisy = true * (1.0 + m.rng.uniform(-error, error))
    value = nearest(noisy / max(1, round_to), m.rules) * max(1, round_to)
    return max(1 if true > 0 else 0, value)


def update_known_map(seg: Segment, k: int, seen: _Seen) -> None:
    """Merge this month's sightings and the own territory into ``seg.known[k]``."""
    km = seg.known.get(k)
    if km is None:
        km = seg.known[k] = new_known_map(seg.grid)
    ordinal = seg.date.ordinal
    territory = seg.owner == k
    for cells, layers in ((seen.terrain, ("terrain",)), (seen.settlement, ("settlement",)),
                          (seen.owner, ("owner",))):
        if not cells:
            continue
        rows, cols = np.array(sorted(cells)).T
        for name in layers:
            getattr(km, name)[rows, cols] = getattr(seg, name)[rows, cols]
        km.seen[rows, cols] = ordinal
    for name in ("terrain", "settlement", "owner"):
        getattr(km, name)[territory] = getattr(seg, name)[territory]
    km.seen[territory] = ordinal
