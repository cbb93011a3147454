"""The militia and partisan fights ("Die Miliz").

"In jeder Gemark befindet sich eine von verschiedenen Faktoren abhängige Zahl
wehrhafter Einwohner, die als die Miliz bezeichnet wird. Versucht ein Heer
beispielsweise, eine Gemark zu verwüsten oder zu okkupieren oder ein Bauwerk
zu zerstören, so stellen sich die Milizen, die sich dort aufhalten, dem
Eindringling automatisch in einem Partisanenkampf entgegen."

Model (numbers in ``worlds/rules/militia.yaml``): inhabitants per gemark from
the terrain's height level and feature plus the settlement; the militia's
cap is a share of them, scaled by the owner's popularity. Recruitment lowers
the militia (economy); it grows back slowly toward the cap at the end of the
month (step ``militia`` 85, numpy over the whole map), faster where an army
helps (``h``; the gemarks :mod:`wdg.engine.actions` publishes) — that is the
whole effect of ``h`` on the militia. Partisan fights (:func:`partisan_fight`) are not the army's
one fight of the month ("Eventuelle Partisanenkämpfe ... werden ... nicht als
Kampf zwischen Heeren betrachtet").

Events: ``militia.fight`` (``data``: militia, won, militia_lost),
``militia.losses`` / ``militia.destroyed`` (with ``lost``), ``militia.growth``
(one summary event).
"""

from __future__ import annotations

import numpy as np

from wdg.engine.combat import (
    adjust,
    army_strength,
    demoralised,
    destroy_army,
    lose,
    win_chance,
    winner_losses,
)
from wdg.engine.events import Event
from wdg.engine.treasury import number
from wdg.engine.month import Month, step
from wdg.engine.rounding import nearest
from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import Army, Segment
from wdg.world.terrain import TERRAINS, is_difficult, terrain

AREA = "militia"


def _per_terrain(rules: Rules) -> np.ndarray:
    """Inhabitants by terrain id (height level x feature factor)."""
    by_height = {int(k): float(v) for k, v in rules.section(AREA, "inhabitants_by_height").items()}
    feature = rules.section(AREA, "inhabitants_feature_factor")
    out = np.zeros(len(TERRAINS), dtype=np.float64)
    for t in TERRAINS:
        f = 1.0
        for c in t.components[1:]:
            f = min(f, float(feature.get(c.value, 1.0)))
        out[t.id] = by_height.get(t.height, 0.0) * f
    return out


def militia_cap(seg: Segment, rules: Rules) -> np.ndarray:
    """The militia each gemark grows back to (int64 layer)."""
    inhabitants = _per_terrain(rules)[seg.terrain] + \
        seg.settlement * rules.num(AREA, "inhabitants_per_settlement_unit")
    pop = np.ones(max(seg.kingdoms, default=0) + 1, dtype=np.float64)
    base, weight = rules.num(AREA, "popularity_base"), rules.num(AREA, "popularity_weight")
    for n, k in seg.kingdoms.items():
        pop[n] = base + k.popularity / 100 * weight
    owner = seg.owner.astype(np.int64).clip(0, len(pop) - 1)
    return np.floor(inhabitants * rules.num(AREA, "militia_share") * pop[owner]).astype(np.int64)


def _helped(m: Month) -> np.ndarray:
    """Boolean layer of gemarks where an army carried out ``(h) Hilfe``, as the
    Phase B step published them (``m.notes["actions"]["helped"]``: land
    gemarks where the army began the month); none if that step did not run."""
    seg = m.state
    out = np.zeros(seg.grid.shape, dtype=bool)
    found = m.notes.get("actions")
    for h in (found.get("helped", ()) if isinstance(found, dict) else ()):
        out[seg.grid.index(h)] = True
    return out


@step("militia", 85)
def militia_growth(m: Month) -> list[Event]:
    """The militia grows back slowly toward its cap (and falls to it when above)."""
    seg, r = m.state, m.rules
    cap = militia_cap(seg, r)
    cur = seg.militia.astype(np.int64)
    rate = np.where(_helped(m), r.num(AREA, "growth_rate") * r.num(AREA, "help_growth_factor"),
                    r.num(AREA, "growth_rate"))
    gap = cap - cur
    # rounded up to a whole militiaman after dropping the float error of the
    # product (0.05 * 3 * 100 must give 15, not 16)
    grow = np.where(gap > 0, np.ceil(np.round(gap * np.minimum(rate, 1.0), 6)), 0)
    fall = np.where(gap < 0, np.floor(gap * r.num(AREA, "decay_rate")), 0)
    new = (cur + grow + fall).astype(np.int64)
    seg.militia[:] = new.astype(seg.militia.dtype)
    return [m.emit(Event("militia.growth", why="Die Milizen wachsen nach",
                         data={"total": int(new.sum()), "change": int((new - cur).sum())}))]


# --- partisan fights ---------------------------------------------------------------

def militia_strength(m: Month, at: Hex) -> float:
    """"die Kampfkraft der Milizen [ist] unter Umständen deutlich höher ..., als
    es ihrer Anzahl entsprechen würde"; natives excel in difficult terrain."""
    seg = m.state
    s = seg.at(seg.militia, at) * m.rules.num(AREA, "partisan_strength")
    if is_difficult(terrain(seg.at(seg.terrain, at))):
        s *= m.rules.num(AREA, "natives_difficult_bonus")
    return s


def partisan_fight(m: Month, army: Army, purpose: str,
                   line: int = 0) -> tuple[bool, list[Event]]:
    """The militia of the army's gemark resists ``purpose`` (German, e.g.
    "die Okkupation"; ``line``: the order's sheet line, which the fight
    answers). Returns whether the army prevailed. No militia, no fight.
    The army's own territory raises no partisans against it."""
    seg = m.state
    at = army.position
    assert at is not None
    militia = seg.at(seg.militia, at)
    if militia <= 0 or seg.at(seg.owner, at) == army.kingdom:
        return True, []
    fighters = army.units - demoralised(m, army)
    sa = army_strength(m, army, at, fighters)
    sm = militia_strength(m, at)
    p = win_chance(m, sa, sm)
    won = bool(m.rng.random() < p)
    r = m.rules
    killed, losses = partisan_losses(m, won, militia, fighters, sa, sm)
    row, col = seg.grid.index(at)
    seg.militia[row, col] = max(0, militia - killed)
    out = [m.emit(Event(
        "militia.fight", kingdom=army.kingdom, army=army.number, at=at, line=line,
        why=f"Partisanenkampf gegen {number(militia)} Milizen um {purpose}: "
            + ("gewonnen" if won else "verloren"),
        data={"militia": militia, "won": won, "militia_lost": killed,
              "chance": round(p, 3)}))]
    if not won and sm >= r.num(AREA, "destroy_ratio") * sa:
        out += destroy_army(m, army, "militia.destroyed",
                            f"Von den Milizen vernichtet ({purpose} mißlingt)")
        return False, out
    out += lose(m, army, losses, "militia.losses", "Verluste im Partisanenkampf")
    adjust_after_partisans(m, army, won)
    return won, out


def partisan_losses(m: Month, won: bool, militia: int, fighters: int, sa: float,
                    sm: float) -> tuple[int, int]:
    """(militiamen killed, the army's soldiers lost) in a partisan fight the army
    ``won`` or lost (militia.yaml): the loser loses ``loser_loss`` of itself, the
    winner ``winner_loss_factor`` * sL / sW of itself, at most ``winner_loss_max``;
    each rounded to the nearest whole man (a half as the rules say:
    :func:`wdg.engine.rounding.nearest`)."""
    r = m.rules
    if won:
        return (nearest(militia * r.num(AREA, "loser_loss"), r),
                winner_losses(m, fighters, sa, sm, area=AREA))
    return (nearest(militia * min(r.num(AREA, "winner_loss_max"),
                                  r.num(AREA, "winner_loss_factor") * sa / max(sm, 1e-9)), r),
            nearest(fighters * r.num(AREA, "loser_loss"), r))


def adjust_after_partisans(m: Month, army: Army, won: bool) -> None:
    """Success and failure against partisans move morale and experience
    (steps of combat.yaml)."""
    adjust(m, army, won)
