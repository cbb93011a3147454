"""Shared set-up for the rule-by-rule tests (``tests/rules``): the rules
files, the runner's month context and sheets built from orders."""

from __future__ import annotations

from wdg.campaign import PACKAGE_ROOT
from wdg.engine.month import Month
from wdg.engine.turn import begin_month
from wdg.orders.model import ArmyBlock, KingdomOrder, PhaseAOrder, PhaseBOrder, Sheet
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.state import Segment

RULES = Rules.load(PACKAGE_ROOT / "worlds" / "rules")


def month(seg: Segment, sheets: dict[int, Sheet] | None = None) -> Month:
    """The month context the runner builds (generator, kingdom order, snapshot)."""
    return begin_month(seg, sheets or {}, RULES)


def sheets(seg: Segment, *, a: dict[int, PhaseAOrder] | None = None,
           b: dict[int, PhaseBOrder] | None = None,
           k: dict[int, list[KingdomOrder]] | None = None) -> dict[int, Sheet]:
    """Sheets for every kingdom named: Phase A / B orders by army number (each
    army listed at its real position), kingdom orders by kingdom."""
    out: dict[int, Sheet] = {}
    for n, orders in (k or {}).items():
        out.setdefault(n, Sheet(kingdom=n)).kingdom_orders.extend(orders)
    for number in sorted(set(a or {}) | set(b or {})):
        army = seg.armies[number]
        pos = Address(0, 0) if army.position is None else seg.grid.address_of(army.position)
        block = ArmyBlock(number, pos, line=10 + number % 100, phase_a=(a or {}).get(number),
                          phase_b=(b or {}).get(number))
        out.setdefault(army.kingdom, Sheet(kingdom=army.kingdom)).armies.append(block)
    return out
