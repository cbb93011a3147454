"""Morale and the general's experience outside combat ("Die Heeresmoral",
"Erfahrung des Feldherren"); numbers in ``worlds/rules/morale.yaml``.

- :func:`action_factor`: "Die Moral hat Auswirkungen auf die
  Erfolgswahrscheinlichkeit bei der Ausführung der Heeresbefehle" and the
  general's experience "hat einen Einfluß auf ... die Erfolgswahrscheinlichkeit
  von Aktionen des von ihm geführten Heeres": the factor by which an army's
  chance of success is multiplied (search ``s``, taming ``c ZA``, the accuracy
  of information ``i``). Combat has its own factors (``combat.yaml``).
- :func:`low_morale_desertion` (called by the pay step, 10, for every army
  after its pay): "Eine niedrige Moral kann aber auch Streitigkeiten und
  Desertionen zur Folge haben" — even when the army was paid in full. Event
  ``morale.desertion`` (``soldiers`` negative).

A rules set without ``morale.yaml`` (months archived before it existed) has
factor 1 and no desertion at low morale, so such months replay unchanged.
"""

from __future__ import annotations

from wdg.engine.combat import overload
from wdg.engine.events import Event
from wdg.engine.treasury import count
from wdg.engine.month import Month
from wdg.rules import Rules
from wdg.world.state import Army

AREA = "morale"


def enabled(rules: Rules) -> bool:
    """True if the rules set has ``morale.yaml``."""
    return AREA in rules.areas()


def action_factor(rules: Rules, morale: int, experience: int | None) -> float:
    """The factor on an army's chance of success for its ``morale`` (0..100)
    and its general's ``experience`` (0..100; ``None``: no general, as 0)."""
    if not enabled(rules):
        return 1.0
    sec = rules.section(AREA, "actions")
    m = float(sec["morale_base"]) + max(0, min(100, morale)) / 100 * float(sec["morale_weight"])
    e = float(sec["experience_base"]) \
        + max(0, min(100, experience or 0)) / 100 * float(sec["experience_weight"])
    return m * e


def army_factor(rules: Rules, army: Army) -> float:
    """:func:`action_factor` of an army (its morale and its general's experience)."""
    return action_factor(rules, army.morale,
                         army.general.experience if army.general is not None else None)


def desertion_chance(rules: Rules, morale: int) -> float:
    """The chance of each unit of an army at ``morale`` to desert this month."""
    if not enabled(rules):
        return 0.0
    below = rules.int(AREA, "desertion", "below")
    if morale >= below or below <= 0:
        return 0.0
    return rules.num(AREA, "desertion", "max_chance") * (below - max(0, morale)) / below


def low_morale_desertion(m: Month, army: Army) -> None:
    """Units of a demoralised army desert (binomial draw); the deserters scatter
    (the militia does not grow), as unpaid ones do."""
    p = desertion_chance(m.rules, army.morale)
    if p <= 0 or army.units <= 0:
        return
    deserters = int(m.rng.binomial(army.units, p))
    if not deserters:
        return
    army.units -= deserters
    what = count(deserters, "Rüstgut desertiert und zerstreut sich",
                 "Rüstgüter desertieren und zerstreuen sich")
    m.emit(Event("morale.desertion", army.kingdom, army.number, army.position,
                 f"Die Moral des Heeres ist niedrig ({army.morale}): {what}.",
                 data={"deserters": deserters, "soldiers": -deserters, "morale": army.morale}))
    if army.is_fleet:
        overload(m, army, "Schiffe desertiert")
