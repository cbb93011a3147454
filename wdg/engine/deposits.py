"""Deposits ("Bodenschätze") and the mines that work them.

"Die Bauwerke": "Der Begriff Mine ist ein Sammelbegriff für alle Anlagen, die
für die Ausbeutung eines bereits bekannten Bodenschatzes verwendet werden
können." Numbers in ``worlds/rules/deposits.yaml``; the reading in
docs/rules.md, "Deposits and mines":

- the generator places deposits by terrain (:func:`place`), from their own
  generator (the segment's seed and ``seed_salt``), so nothing else changes;
- nobody knows a deposit until one of his armies finds it with ``s`` (Suche:
  "nach Schätzen oder ungewöhnlichen Gegenständen usw. durchsucht" — a
  Bodenschatz is a treasure of the ground; scouting reports only "Geländeart,
  Art der Bauwerke ..."): :func:`find` (called by the search of
  :mod:`wdg.engine.actions`, with the search's chance);
- a mine yields ``kinds[kind]`` per level for the gemark's owner only on a
  deposit he knows (:func:`yield_layer`, used by the taxes of
  :mod:`wdg.engine.economy` and by the forecast);
- :func:`upgrade` gives a segment saved before deposits existed its deposits
  and keeps the mines already built working (``wdg segment upgrade``).

A rules set without ``deposits.yaml`` (every month archived before it) keeps
the old reading (:func:`enabled` is False): mines yield by height.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from wdg.engine.events import Event
from wdg.engine.treasury import gs
from wdg.engine.month import Month
from wdg.rules import Rules
from wdg.world.deposits import AREA, chance_by_terrain, chance_of, enabled, kinds, place, \
    yield_per_level
from wdg.world.hexgrid import Hex
from wdg.world.state import BUILDING_ORDER, Army, Building, Deposit, Segment
from wdg.world.terrain import HEIGHTS

__all__ = ["chance_by_terrain", "chance_of", "enabled", "find", "kinds", "known_to",
           "owner_yield_layer", "place", "upgrade", "yield_layer", "yield_per_level"]
_MINE = BUILDING_ORDER.index(Building.MINE)


def known_to(seg: Segment, kingdom: int) -> list[Deposit]:
    """The deposits ``kingdom`` has found, in map order."""
    if not seg.deposits:
        return []
    return [d for h, d in sorted(seg.deposits.items(), key=lambda kv: seg.grid.index(kv[0]))
            if kingdom in d.known_by]


def yield_layer(shape: tuple[int, int], known: Iterable[tuple[int, int, str]],
                rules: Rules) -> np.ndarray:
    """Goldsterne per mine level by gemark: the yield of the deposit at each
    ``(row, col, kind)`` in ``known``, 0 elsewhere."""
    out = np.zeros(shape, dtype=np.int64)
    table = kinds(rules)
    for row, col, kind in known:
        out[row, col] = table.get(kind, 0)
    return out


def owner_yield_layer(seg: Segment, owner: np.ndarray, rules: Rules) -> np.ndarray:
    """Per gemark the yield per mine level for its owner in ``owner`` (the
    start-of-month owners): only deposits the owner knows count."""
    known = []
    for h, d in (seg.deposits or {}).items():
        row, col = seg.grid.index(h)
        if int(owner[row, col]) in d.known_by:
            known.append((row, col, d.kind))
    return yield_layer(seg.terrain.shape, known, rules)


def find(m: Month, army: Army, here: Hex, chance: float, line: int) -> bool:
    """The search of ``army`` at ``here`` may find the deposit there (one draw
    with the search's ``chance``, only if the kingdom does not know it yet)."""
    seg = m.state
    if not enabled(m.rules) or not seg.deposits:
        return False
    d = seg.deposits.get(here)
    if d is None or army.kingdom in d.known_by:
        return False
    if m.rng.random() >= chance:
        return False
    d.known_by = sorted({*d.known_by, army.kingdom})
    per_level = yield_per_level(m.rules, d.kind)
    mine = seg.building_level(here, Building.MINE)
    note = f"; die Mine hier (Stufe {mine}) fördert ab dem nächsten Mond" if mine \
        else "; eine Mine (BM) könnte ihn ausbeuten"
    m.emit(Event("action.search.deposit", kingdom=army.kingdom, army=army.number, at=here,
                 line=line, why=f"Das Heer findet einen Bodenschatz: {d.kind} "
                                f"({gs(per_level)} je Minenstufe und Mond){note}",
                 data={"kind": d.kind, "per_level": per_level, "mine": mine}))
    return True


def upgrade(seg: Segment, rules: Rules) -> list[str]:
    """Give a segment saved before deposits existed (``seg.deposits is None``)
    its deposits: placed by the table as the generator places them; under every
    mine already built a deposit (drawn by the same table's kinds if none was
    placed there) known to the mine's owner, so that the mines a player built
    keep yielding (at the kind's rate instead of the old rate by height).
    Returns German lines for the upgrade's report; nothing if there is nothing
    to do (deposits present, or the rules have no deposits.yaml)."""
    if seg.deposits is not None or not enabled(rules):
        return []
    placed = place(seg, rules)
    lines = [f"Bodenschätze verteilt: {len(placed)} (worlds/rules/deposits.yaml)."]
    rng = np.random.default_rng([int(seg.seed), rules.int(AREA, "seed_salt"), 1])
    by_height = rules.section(AREA, "kinds_by_height")
    for row, col in zip(*np.nonzero(seg.buildings[_MINE]), strict=True):
        h = seg.grid.hex_at(int(row), int(col))
        owner = int(seg.owner[row, col])
        d = placed.get(h)
        if d is None:
            height = int(HEIGHTS[seg.terrain[row, col]])
            weights = {str(k): float(v) for k, v in (by_height.get(height) or {}).items()} \
                or {next(iter(kinds(rules))): 1.0}
            names = list(weights)
            p = np.array([weights[n] for n in names]) / sum(weights.values())
            d = placed[h] = Deposit(h, names[int(rng.choice(len(names), p=p))])
        if owner in seg.kingdoms:
            d.known_by = sorted({*d.known_by, owner})
        lines.append(f"Mine in {seg.label(h)} (Stufe {int(seg.buildings[_MINE, row, col])}): "
                     f"Bodenschatz {d.kind}, bekannt dem Königreich {owner}; Ertrag "
                     f"{gs(yield_per_level(rules, d.kind))} je Stufe.")
    seg.deposits = placed
    return lines
