"""Generated order sheets: a realistic month's sheets for every kingdom.

:func:`generate_sheets` writes, for every playing kingdom of a segment, the
sheet a busy player would send (format: ``docs/orders.md``): the header with
the kingdom's password, every army listed with its position, and orders
drawn from what the army and the kingdom actually have —

- Phase A: ``nr`` in an own settlement with Kaserne (fleets: Hafen), ``er``,
  ``eh`` (merging into an own army of the same troop type on the same
  gemark), ``bb`` (Krieger on a wooded or swampy coast), ``bs`` (boarding an
  own empty fleet in a harbour town), ``vs`` (leaving the carrying fleet),
  ``nn`` (renaming an own settlement), and for passive armies ``nf``
  (the general on offer) and ``nh`` (activating in a town with Kaserne);
- Phase B: ``e`` into an adjacent gemark of an enemy at status 1-2 or a
  neutral one, ``o`` on a gemark that is not the kingdom's own, ``x`` on an
  enemy settlement, ``b`` walks over land (or water for fleets) through
  whatever terrain lies ahead, ``c`` for generals with an ability or magic,
  and ``t h i s r``;
- K: as many orders as the kingdom's palaces allow, cycling through
  ``BM SS DS F+ BK BH BQ`` so that the segment's sheets use all of them;
- a ``BOTSCHAFT`` to a kingdom on the diplomacy list, and every third
  kingdom a ``BEKANNTMACHUNG``.

The sheets are meant to be accepted by the parser and the checker; a few
orders may still be refused by the engine (money runs out, a fleet already
carries somebody), as with real players. Used by the benchmarks
(:mod:`wdg.bench`) on the stress segment (:mod:`wdg.world.stress`). All
random choices come from ``rng`` in a fixed order (kingdoms ascending,
armies ascending).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from wdg.world.hexgrid import Direction, Hex
from wdg.world.state import BUILDING_ORDER, Army, ArmyStatus, Building, Segment, TroopType
from wdg.world.terrain import WATER, Component, coastal_mask, terrain

K_CYCLE = ("BM", "SS", "DS", "F+", "BK", "BH", "BQ")
"""The K commands in the order the kingdoms use them."""
B_CHOICES = ("b", "b", "b", "t", "h", "i", "s", "r")
"""Phase B orders of an army with nothing better to do (moves weighted)."""
_BOAT_WOODS = {Component.WALD, Component.REGENWALD, Component.SUMPF}
_NAMES = ("Neuburg", "Falkenhorst", "Rabenfels", "Goldau", "Sturmwacht", "Eichental")


@dataclass(slots=True)
class _World:
    """Lookups shared by every sheet of the month."""

    seg: Segment
    water: np.ndarray
    coastal: np.ndarray
    by_hex: dict[Hex, list[Army]] = field(default_factory=dict)

    @staticmethod
    def of(seg: Segment) -> _World:
        w = _World(seg, WATER[seg.terrain], coastal_mask(seg.terrain))
        by_hex: dict[Hex, list[Army]] = defaultdict(list)
        for n in sorted(seg.armies):
            a = seg.armies[n]
            if a.position is not None and a.status is ArmyStatus.ACTIVE:
                by_hex[a.position].append(a)
        w.by_hex = dict(by_hex)
        return w

    def on_map(self, h: Hex) -> bool:
        return self.seg.grid.contains(h)

    def is_water(self, h: Hex) -> bool:
        row, col = self.seg.grid.index(h)
        return bool(self.water[row, col])

    def owner(self, h: Hex) -> int:
        return self.seg.at(self.seg.owner, h)

    def building(self, h: Hex, b: Building) -> int:
        return self.seg.building_level(h, b)

    def settlement(self, h: Hex) -> int:
        return self.seg.at(self.seg.settlement, h)


def default_passwords(seg: Segment) -> dict[int, str]:
    """The generator's demo passwords ``<segment>-<kingdom>``."""
    return {k: f"{seg.name}-{k}" for k in seg.kingdoms}


def playing_kingdoms(seg: Segment) -> list[int]:
    """Kingdoms that send sheets: with a player, not a city state, not retired."""
    return [n for n in sorted(seg.kingdoms) if seg.kingdoms[n].player is not None
            and not seg.kingdoms[n].city_state and not seg.kingdoms[n].retired]


def generate_sheets(seg: Segment, rng: np.random.Generator,
                    passwords: dict[int, str] | None = None) -> dict[int, str]:
    """Kingdom number -> the text of its sheet for the segment's current month.
    ``passwords`` defaults to :func:`default_passwords`."""
    pw = passwords if passwords is not None else default_passwords(seg)
    world = _World.of(seg)
    return {k: _sheet(world, k, pw[k], rng) for k in playing_kingdoms(seg)}


def _sheet(w: _World, k: int, password: str, rng: np.random.Generator) -> str:
    seg = w.seg
    lines = [f"# Spielzug {seg.kingdoms[k].name}", f"Segment: {seg.name}", f"Königreich: {k}",
             f"Passwort: {password}", f"Mond: {seg.date.key}", "", "H"]
    merged: set[int] = set()
    boarded: set[int] = set()
    hired = False
    for n in sorted(a for a in seg.armies if seg.armies[a].kingdom == k):
        a = seg.armies[n]
        if a.status is ArmyStatus.ACTIVE and a.position is not None:
            lines += _active(w, a, rng, merged, boarded)
        elif a.status is ArmyStatus.PASSIVE:
            block, hired = _passive(w, a, rng, hired)
            lines += block
        else:
            lines.append(f"Heer {n:04d} {seg.label(a.position)}")
    lines += ["", "K"] + _kingdom_orders(w, k, rng)
    lines += _texts(w, k, rng)
    return "\n".join(lines) + "\n"


# --- armies -------------------------------------------------------------------------

def _active(w: _World, a: Army, rng: np.random.Generator, merged: set[int],
            boarded: set[int]) -> list[str]:
    seg = w.seg
    assert a.position is not None
    out = [f"Heer {a.number:04d} {seg.label(a.position)}"]
    if a.carried_by is not None:
        fleet = seg.armies.get(a.carried_by)
        if fleet is not None and fleet.position is not None and rng.random() < 0.3:
            land = [h for h in _ring1(w, fleet.position) if not w.is_water(h)]
            if land:
                out.append(f"A: vs {seg.label(land[int(rng.integers(len(land)))])}")
        return out
    phase_a, whole_month = _phase_a(w, a, rng, merged, boarded)
    if phase_a:
        out.append(f"A: {phase_a}")
    if not whole_month and a.number not in merged:
        out.append(f"B: {_phase_b(w, a, rng)}")
    return out


def _ring1(w: _World, h: Hex) -> list[Hex]:
    return [x for x in h.neighbours() if w.on_map(x)]


def _phase_a(w: _World, a: Army, rng: np.random.Generator, merged: set[int],
             boarded: set[int]) -> tuple[str, bool]:
    """The Phase A order (or "") and whether it takes the whole month."""
    h = a.position
    assert h is not None
    own_town = w.owner(h) == a.kingdom and w.settlement(h) > 0
    recruit_at = Building.HAFEN if a.is_fleet else Building.KASERNE
    if a.is_fleet:
        if own_town and w.building(h, recruit_at) and rng.random() < 0.5:
            return f"nr {int(rng.integers(1, 6))}", False
        return "", False
    partner = next((b for b in w.by_hex.get(h, []) if b.number != a.number
                    and b.kingdom == a.kingdom and b.troop is a.troop and b.number not in merged
                    and b.carried_by is None and b.carrying is None), None)
    if partner is not None and a.number not in merged and rng.random() < 0.3:
        merged.add(a.number)
        return f"eh {partner.number:04d}", False
    if own_town and w.building(h, Building.HAFEN) and rng.random() < 0.4:
        fleet = next((f for f in w.by_hex.get(h, []) if f.kingdom == a.kingdom and f.is_fleet
                      and f.carrying is None and f.number not in boarded), None)
        if fleet is not None:
            boarded.add(fleet.number)
            return f"bs {fleet.number:04d}", True
    direction = _boat_direction(w, a)
    if direction is not None and rng.random() < 0.5:
        return f"bb {direction.value}", True
    roll = rng.random()
    if own_town and w.building(h, recruit_at) and roll < 0.5:
        return f"nr {int(rng.integers(20, 400))}", False
    if own_town and roll < 0.6:
        return f"nn {_NAMES[int(rng.integers(len(_NAMES)))]}", False
    if roll > 0.95 and a.units > 10:
        return f"er {int(rng.integers(1, a.units // 10 + 1))}", False
    return "", False


def _boat_direction(w: _World, a: Army) -> Direction | None:
    """A water direction for ``bb``: Krieger on a coastal gemark with wood or swamp."""
    h = a.position
    assert h is not None
    row, col = w.seg.grid.index(h)
    if a.troop is not TroopType.KRIEGER or a.boats or not w.coastal[row, col]:
        return None
    if terrain(int(w.seg.terrain[row, col])).feature not in _BOAT_WOODS:
        return None
    for d in Direction:
        x = h.neighbour(d)
        if w.on_map(x) and w.is_water(x):
            return d
    return None


def _phase_b(w: _World, a: Army, rng: np.random.Generator) -> str:
    seg, h = w.seg, a.position
    assert h is not None
    if not a.is_fleet and not a.boats:
        here = w.owner(h)
        if here != a.kingdom and _conquerable(seg, a.kingdom, here):
            if w.settlement(h) and here and rng.random() < 0.4:
                return f"x {_destroy_target(w, h)}"
            if rng.random() < 0.6:
                return "o"
        targets = [d for d in Direction if w.on_map(h.neighbour(d))
                   and not w.is_water(h.neighbour(d))
                   and w.owner(h.neighbour(d)) != a.kingdom
                   and _conquerable(seg, a.kingdom, w.owner(h.neighbour(d)))]
        enemy = [d for d in targets if w.owner(h.neighbour(d))]
        pick = enemy or targets
        if pick and rng.random() < (0.7 if enemy else 0.15):
            return f"e {pick[int(rng.integers(len(pick)))].value}"
    g = a.general
    if g is not None and (g.ability or g.wizard) and rng.random() < 0.6:
        return f"c {g.ability}" if g.ability else _spell(w, a, rng)
    choice = B_CHOICES[int(rng.integers(len(B_CHOICES)))]
    if choice != "b":
        return choice
    path = _walk(w, h, water=a.is_fleet or bool(a.boats), steps=int(rng.integers(1, 5)), rng=rng)
    return "b " + " ".join(d.value for d in path) if path else "r"


def _spell(w: _World, a: Army, rng: np.random.Generator) -> str:
    """A wizard's ``c TP <Gemark>`` to a land gemark nearby."""
    h = a.position
    assert h is not None
    path = _walk(w, h, water=False, steps=3, rng=rng)
    target = h
    for d in path:
        target = target.neighbour(d)
    return f"c TP {w.seg.label(target)}" if target != h else "r"


def _walk(w: _World, start: Hex, *, water: bool, steps: int,
          rng: np.random.Generator) -> list[Direction]:
    """Random directions that stay on the map and on land (or water), never
    stepping straight back."""
    out: list[Direction] = []
    h = start
    for _ in range(steps):
        options = [d for d in Direction if w.on_map(h.neighbour(d))
                   and w.is_water(h.neighbour(d)) == water
                   and (not out or d is not out[-1].opposite())]
        if not options:
            break
        d = options[int(rng.integers(len(options)))]
        out.append(d)
        h = h.neighbour(d)
    return out


def _conquerable(seg: Segment, kingdom: int, owner: int) -> bool:
    """May ``kingdom`` take a gemark of ``owner``: neutral, a city state's, or
    a kingdom it holds at status 1-2."""
    if owner == 0:
        return True
    other = seg.kingdoms.get(owner)
    if other is None or owner == kingdom:
        return False
    return other.city_state or seg.kingdoms[kingdom].diplomacy.get(owner, 5) <= 2


def _destroy_target(w: _World, h: Hex) -> str:
    for b, letter in ((Building.MINE, "M"), (Building.KASERNE, "K"), (Building.HAFEN, "H")):
        if w.building(h, b):
            return letter
    return "X"


def _passive(w: _World, a: Army, rng: np.random.Generator, hired: bool) -> tuple[list[str], bool]:
    seg = w.seg
    out = [f"Heer {a.number:04d} 000.00"]
    k = seg.kingdoms[a.kingdom]
    if not hired and k.offer is not None and (a.general is None or rng.random() < 0.5):
        out.append("A: nf")
        return out, True
    if a.general is not None and rng.random() < 0.3:
        need = Building.HAFEN if a.is_fleet else Building.KASERNE
        towns = _towns(w, a.kingdom, need)
        if towns:
            out.append(f"A: nh {seg.label(towns[int(rng.integers(len(towns)))])}")
    return out, hired


def _towns(w: _World, kingdom: int, building: Building | None = None) -> list[Hex]:
    seg = w.seg
    mask = (seg.owner == kingdom) & (seg.settlement > 0)
    if building is not None:
        mask &= seg.buildings[BUILDING_ORDER.index(building)] > 0
    return [seg.grid.hex_at(int(r), int(c)) for r, c in np.argwhere(mask)]


# --- kingdom orders and texts -----------------------------------------------------------

def _kingdom_orders(w: _World, k: int, rng: np.random.Generator) -> list[str]:
    seg = w.seg
    palaces = len(_towns(w, k, Building.PALAST))
    allowed = max(1, min(10, palaces))
    own = [seg.grid.hex_at(int(r), int(c)) for r, c in np.argwhere(seg.owner == k)]
    towns = _towns(w, k)
    out: list[str] = []
    used_ds: set[int] = set()
    for i in range(allowed):
        code = K_CYCLE[(k + i) % len(K_CYCLE)]
        order = _k_order(w, k, code, own, towns, used_ds, rng)
        if order:
            out.append(order)
    return out


def _k_order(w: _World, k: int, code: str, own: list[Hex], towns: list[Hex],
             used_ds: set[int], rng: np.random.Generator) -> str:
    seg = w.seg
    king = seg.kingdoms[k]
    if code == "DS":
        others = [n for n in sorted(king.diplomacy) if n not in used_ds]
        if others:
            other = others[int(rng.integers(len(others)))]
            used_ds.add(other)
            status = king.diplomacy[other]
            change = "-" * min(2, status - 1) if 1 < status <= 3 else ("-" if status == 9 else "+")
            return f"DS {other} {change}"
        code = "F+"
    if code == "F+":
        return f"F+ {int(rng.integers(1, 11)) * 500}"
    if code in ("BM", "SS"):
        land = [h for h in own if not w.is_water(h) and terrain(seg.at(seg.terrain, h)).feature
                is not Component.VULKAN]
        if not land:
            return ""
        h = land[int(rng.integers(len(land)))]
        return f"BM {seg.label(h)}" if code == "BM" else \
            f"SS {seg.label(h)} {int(rng.integers(5, 101))}"
    if not towns:
        return ""
    return f"{code} {seg.label(towns[int(rng.integers(len(towns)))])}"


def _texts(w: _World, k: int, rng: np.random.Generator) -> list[str]:
    seg = w.seg
    king = seg.kingdoms[k]
    out: list[str] = []
    if king.diplomacy:
        to = sorted(king.diplomacy)[int(rng.integers(len(king.diplomacy)))]
        tone = "Weicht von unseren Grenzen, oder es gibt Krieg!" if king.diplomacy[to] <= 3 \
            else "Wir grüßen Euch und bieten Handel und Frieden an."
        out += ["", f"BOTSCHAFT {to}", f"{king.ruler} an {seg.kingdoms[to].ruler}:", tone, "ENDE"]
    if k % 3 == 0:
        out += ["", "BEKANNTMACHUNG", f"{king.name} ruft alle Reiche zur Ordnung auf.",
                "Wer unsere Gemarken betritt, wird es bereuen.", "ENDE"]
    return out
