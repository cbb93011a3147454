"""The stress preset: a big segment where every part of the month has work.

:func:`stress_segment` calls the ordinary generator
(:func:`wdg.world.generator.generate_segment`) with the sizes of
:data:`STRESS` — 20 x 9 provinces (8,640 gemarks), 60 kingdoms, 4 city
states, 50 active armies per kingdom (3,000, of all troop types, fleets at
sea, land armies carried by them), 40 creatures — and then makes it a
segment at war:

- neighbouring kingdoms (the generator puts each kingdom's nearest three on
  its diplomacy list at status 5) turn hostile: two pairs in three get
  statuses 1-3 toward each other, so that armies meeting there fight
  ("Angriff auf fremde Heere möglich") and, at 1-2, may conquer;
- on the line between two hostile capitals a front: a border zone split
  between the two kingdoms, a village on each side, and a part of each
  kingdom's land armies standing in it, some on the same gemarks as the
  enemy's (so that fights happen even before anybody moves);
- in every capital with a Hafen one empty fleet lies in the harbour;
- a few generals get a special ability or are wizards (``c`` orders).

Passwords are the generator's known demo passwords ``<name>-<kingdom>``;
:func:`wdg.orders.generate.generate_sheets` writes sheets with them. The
same ``scale`` and ``seed`` give the same segment. ``scale`` 0.5 and 0.25
shrink the map (columns) and the number of kingdoms, city states and
creatures in proportion; the density (armies per kingdom, kingdoms per
gemark) stays the same, so that the month's cost can be compared by size.
Scales above 1 grow it the same way up to 99 kingdoms and city states (the
army-number cap), the map further up to 99 province columns (4.95 x).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wdg.errors import InvalidInputError
from wdg.world.calendar import MonthDate
from wdg.world.generator import FIRST_MONTH, MAX_KINGDOMS, generate_segment
from wdg.world.hexgrid import Hex, hex_range, line
from wdg.world.state import BUILDING_ORDER, Army, ArmyStatus, Building, Segment, TroopType
from wdg.world.terrain import WATER

STRESS_SEED = 411_412
"""The seed of the benchmark's stress segment."""
HOSTILE_SHARE = 2 / 3
"""Share of neighbouring pairs that are at war."""
FRONT_ARMIES = 6
"""Land armies of each side a front draws (at most; fewer if the kingdom has no more)."""
FRONT_RADIUS = 2
"""Gemarks around the midpoint of two capitals that form the front."""
ABILITY_SHARE = 0.1
WIZARD_SHARE = 0.03
ABILITIES = ("FE", "WE", "ST")
"""Ability codes of ``worlds/rules/wizards.yaml``."""


@dataclass(frozen=True, slots=True)
class StressSize:
    """The sizes handed to the generator."""

    prov_cols: int
    prov_rows: int
    kingdoms: int
    city_states: int
    armies_per_kingdom: int
    active_per_kingdom: int
    creatures: int

    @property
    def gemarks(self) -> int:
        """Gemarks of the map (48 per province)."""
        return self.prov_cols * self.prov_rows * 48

    @property
    def active_armies(self) -> int:
        """Armies active at the start."""
        return self.kingdoms * self.active_per_kingdom


MAX_PROVINCE_COLS = 99
"""Province numbers have three digits (100 x block row + block column)."""

STRESS = StressSize(prov_cols=20, prov_rows=9, kingdoms=60, city_states=4,
                    armies_per_kingdom=60, active_per_kingdom=50, creatures=40)
"""The full stress size of the benchmark issue."""


MIN_SCALE = 0.05
MAX_SCALE = MAX_PROVINCE_COLS / STRESS.prov_cols
"""The largest scale: the map has at most 99 province columns (three-digit province
numbers, 100 x block row + block column) and already all 9 rows, so 20 columns
grow to at most 99 (4.95 x)."""


def stress_size(scale: float = 1.0) -> StressSize:
    """:data:`STRESS` scaled by area (map columns, kingdoms, city states, creatures):
    1, 0.5 and 0.25 for the benchmark, up to :data:`MAX_SCALE` for bigger tests.
    Kingdoms and city states together stop at 99 (four-digit army numbers,
    ``generator.MAX_KINGDOMS``): beyond about 1.55 x the map grows but not the number
    of kingdoms, so the realms lie farther apart (armies per kingdom stay 60)."""
    if not MIN_SCALE <= scale <= MAX_SCALE:
        raise InvalidInputError(f"--scale muß zwischen {MIN_SCALE} und {MAX_SCALE:g} liegen "
                                f"(die Karte hat höchstens {MAX_PROVINCE_COLS} Provinzspalten), "
                                f"nicht {scale!r}")
    s = STRESS
    kingdoms, cities = max(2, round(s.kingdoms * scale)), max(1, round(s.city_states * scale))
    if kingdoms + cities > MAX_KINGDOMS:  # keep the share of city states at the cap
        cities = round(MAX_KINGDOMS * s.city_states / (s.kingdoms + s.city_states))
        kingdoms = MAX_KINGDOMS - cities
    return StressSize(min(MAX_PROVINCE_COLS, max(2, round(s.prov_cols * scale))), s.prov_rows,
                      kingdoms, cities, s.armies_per_kingdom, s.active_per_kingdom,
                      max(1, round(s.creatures * scale)))


def stress_segment(scale: float = 1.0, seed: int = STRESS_SEED, name: str = "stress",
                   start: MonthDate | None = None) -> tuple[Segment, dict[int, str]]:
    """The stress segment and its kingdoms' (known) passwords; ``start`` is the first
    month to play (default: the generator's)."""
    size = stress_size(scale)
    seg, passwords = generate_segment(
        name, size.prov_cols, size.prov_rows, size.kingdoms, seed,
        city_states=size.city_states, armies_per_kingdom=size.armies_per_kingdom,
        active_per_kingdom=size.active_per_kingdom, creatures=size.creatures,
        capital_radius=2, demo_passwords=True, start=start or FIRST_MONTH)
    rng = np.random.default_rng([seed, 1])
    pairs = _make_hostile(seg, rng)
    used: set[int] = set()
    for a, b in pairs:
        _make_front(seg, rng, a, b, used)
    _dock_fleets(seg)
    _give_abilities(seg, rng)
    return seg, passwords


def _make_hostile(seg: Segment, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Turn a share of the neighbouring pairs hostile (statuses 1-3 both ways)."""
    pairs = sorted({(min(a, b), max(a, b)) for a, k in seg.kingdoms.items()
                    for b in k.diplomacy})
    hostile = []
    for a, b in pairs:
        if rng.random() < HOSTILE_SHARE:
            seg.kingdoms[a].diplomacy[b] = int(rng.integers(1, 4))
            seg.kingdoms[b].diplomacy[a] = int(rng.integers(1, 4))
            hostile.append((a, b))
    return hostile


def capital_of(seg: Segment, kingdom: int) -> Hex | None:
    """The gemark of the kingdom's (first) palace."""
    palace = seg.buildings[BUILDING_ORDER.index(Building.PALAST)]
    spots = np.argwhere((seg.owner == kingdom) & (palace > 0))
    return seg.grid.hex_at(int(spots[0][0]), int(spots[0][1])) if len(spots) else None


def _is_land(seg: Segment, h: Hex) -> bool:
    return seg.grid.contains(h) and not WATER[seg.at(seg.terrain, h)]


def _make_front(seg: Segment, rng: np.random.Generator, a: int, b: int, used: set[int]) -> None:
    """A border zone halfway between the capitals of ``a`` and ``b``."""
    ca, cb = capital_of(seg, a), capital_of(seg, b)
    if ca is None or cb is None:
        return
    path = line(ca, cb)
    mid = path[len(path) // 2]
    zone = [h for h in hex_range(mid, FRONT_RADIUS) if _is_land(seg, h)
            and seg.at(seg.settlement, h) == 0 and seg.at(seg.owner, h) in (0, a, b)]
    if len(zone) < 4:
        return
    side = {h: a if h.distance(ca) < h.distance(cb) or
            (h.distance(ca) == h.distance(cb) and rng.random() < 0.5) else b for h in zone}
    for h, k in side.items():
        row, col = seg.grid.index(h)
        seg.owner[row, col] = k
    for k in (a, b):
        mine = [h for h in zone if side[h] == k]
        if mine:
            village = mine[int(rng.integers(len(mine)))]
            row, col = seg.grid.index(village)
            seg.settlement[row, col] = int(rng.integers(40, 160))
            seg.buildings[BUILDING_ORDER.index(Building.KASERNE), row, col] = 1
            seg.buildings[BUILDING_ORDER.index(Building.MINE), row, col] = 1
            seg.settlement_names[village] = f"Grenzdorf {k}-{a + b}"
    for k in (a, b):
        for army in _front_armies(seg, k, used):
            h = zone[int(rng.integers(len(zone)))]
            army.position = h


def _front_armies(seg: Segment, kingdom: int, used: set[int]) -> list[Army]:
    """Up to :data:`FRONT_ARMIES` free land armies of the kingdom (not its first,
    which guards the capital; not carried, not carrying)."""
    out = []
    for n in sorted(seg.armies):
        army = seg.armies[n]
        if (army.kingdom == kingdom and n % 100 != 1 and n not in used
                and army.status is ArmyStatus.ACTIVE and army.carried_by is None
                and army.troop in (TroopType.KRIEGER, TroopType.REITER)):
            out.append(army)
            used.add(n)
            if len(out) == FRONT_ARMIES:
                break
    return out


def _dock_fleets(seg: Segment) -> None:
    """In every capital with a Hafen the kingdom's first fleet lies in the
    harbour, its passengers landed there, so that armies can board it (``bs``)."""
    for k in sorted(seg.kingdoms):
        capital = capital_of(seg, k)
        if capital is None or not seg.building_level(capital, Building.HAFEN):
            continue
        fleet = next((a for n, a in sorted(seg.armies.items()) if a.kingdom == k
                      and a.status is ArmyStatus.ACTIVE and a.is_fleet), None)
        if fleet is None:
            continue
        fleet.position = capital
        if fleet.carrying is not None:
            cargo = seg.armies[fleet.carrying]
            cargo.carried_by, cargo.position, fleet.carrying = None, capital, None


def _give_abilities(seg: Segment, rng: np.random.Generator) -> None:
    """Special abilities and wizards for a few generals of active armies."""
    for n in sorted(seg.armies):
        army = seg.armies[n]
        if army.general is None or army.status is not ArmyStatus.ACTIVE:
            continue
        roll = rng.random()
        if roll < WIZARD_SHARE:
            army.general.wizard = True
        elif roll < WIZARD_SHARE + ABILITY_SHARE:
            army.general.ability = ABILITIES[int(rng.integers(len(ABILITIES)))]
