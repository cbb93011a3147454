"""Rounding to the nearest whole number, as the rules of the month say.

The 1994 rules never say how to round. Where the engine rounds to the nearest
whole number (the winner's losses in a battle, a partisan or a creature fight,
the morale of joined armies, an estimate), a German reader of 1994 rounds an
exact half up ("kaufmännisch runden", DIN 1333): 4.5 -> 5, 50.5 -> 51.
Python's ``round`` rounds a half to the even neighbour (4.5 -> 4): the months
resolved before ``combat.yaml`` ``halves_round_up`` existed used it, and a
rules set without the key still does, so those months replay byte for byte
(``RULES_OFF_WHEN_ABSENT``; docs/rules.md, "Rounding").
"""

from __future__ import annotations

import math

from wdg.rules import Rules


def halves_round_up(rules: Rules) -> bool:
    """True if the rules say an exact half rounds up (``combat.yaml``
    ``halves_round_up``); absent (a month resolved before it): to even."""
    return rules.has("combat", "halves_round_up") and bool(rules.get("combat", "halves_round_up"))


def nearest(x: float, rules: Rules) -> int:
    """``x`` rounded to the nearest whole number; an exact half away from zero
    when :func:`halves_round_up`, else to the even neighbour (Python's ``round``)."""
    if not halves_round_up(rules):
        return int(round(x))
    whole = math.floor(abs(x))
    up = abs(x) - whole >= 0.5  # exact: no float error in the fraction of a float
    return int(math.copysign(whole + up, x)) if x else 0
