"""Placing deposits ("Bodenschätze") on a new map: the generator's part of
:mod:`wdg.engine.deposits` (numbers in ``worlds/rules/deposits.yaml``).

"Die Bauwerke": "Der Begriff Mine ist ein Sammelbegriff für alle Anlagen, die
für die Ausbeutung eines bereits bekannten Bodenschatzes verwendet werden
können." The deposits come from their own generator (the segment's seed and
``seed_salt``), so placing them changes nothing else the generator draws.
"""

from __future__ import annotations

import numpy as np

from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import Deposit, Segment
from wdg.world.terrain import HEIGHTS, TERRAINS, is_water

AREA = "deposits"


def enabled(rules: Rules) -> bool:
    """True if the rules set has ``deposits.yaml`` (mines need known deposits)."""
    return AREA in rules.areas()


def kinds(rules: Rules) -> dict[str, int]:
    """Kind -> Goldsterne per mine level and month."""
    return {str(k): int(v) for k, v in rules.section(AREA, "kinds").items()}


def yield_per_level(rules: Rules, kind: str) -> int:
    """What a mine yields per level on a known deposit of ``kind`` (0 if the
    rules file no longer names the kind)."""
    return kinds(rules).get(kind, 0)


def chance_by_terrain(rules: Rules) -> np.ndarray:
    """The chance of a deposit by terrain id (0 on water; a composite terrain
    takes the higher of its components)."""
    table = {str(k): float(v) for k, v in rules.section(AREA, "chance").items()}
    return np.array([0.0 if is_water(t) else max(table.get(c.value, 0.0) for c in t.components)
                     for t in TERRAINS], dtype=np.float64)


def chance_of(rules: Rules, tid: int) -> float:
    """The chance that a gemark of terrain id ``tid`` holds a deposit (the bots
    search where it is high)."""
    return float(chance_by_terrain(rules)[tid]) if enabled(rules) else 0.0


def place(seg: Segment, rules: Rules) -> dict[Hex, Deposit]:
    """Deposits for every land gemark of ``seg`` by the terrain table, known to
    nobody; deterministic in the segment's seed and terrain (own generator)."""
    if not enabled(rules):
        return {}
    rng = np.random.default_rng([int(seg.seed), rules.int(AREA, "seed_salt")])
    chance = chance_by_terrain(rules)[seg.terrain]
    hit = rng.random(seg.terrain.shape) < chance
    pick = rng.random(seg.terrain.shape)
    by_height = rules.section(AREA, "kinds_by_height")
    out: dict[Hex, Deposit] = {}
    for row, col in zip(*np.nonzero(hit), strict=True):
        height = int(HEIGHTS[seg.terrain[row, col]])
        weights = {str(k): float(v) for k, v in (by_height.get(height) or {}).items()}
        if not weights:
            continue
        names = list(weights)
        cum = np.cumsum([weights[n] for n in names]) / sum(weights.values())
        kind = names[min(int(np.searchsorted(cum, pick[row, col], side="right")), len(names) - 1)]
        h = seg.grid.hex_at(int(row), int(col))
        out[h] = Deposit(h, kind)
    return out
