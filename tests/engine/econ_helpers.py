"""Shared set-up for the economy, K-order, Phase A and turn tests."""

from __future__ import annotations

from wdg.campaign import PACKAGE_ROOT
from wdg.engine.month import Month
from wdg.engine.turn import begin_month
from wdg.orders.model import ArmyBlock, KingdomOrder, PhaseAOrder, Sheet
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_kingdom, small_segment
from wdg.world.state import Segment

RULES = Rules.load(PACKAGE_ROOT / "worlds" / "rules")

# Row 0 is coastal water; 101.10 (Tieflandwald) and 101.09 (Tiefland) are coastal.
MAP = ["~K ~K ~K ~K ~K ~K", "T. Tw T. Tu B. Hv", "T. T. G. T. T. T."]


def world(treasury: int = 100_000, kingdoms: tuple[int, ...] = (1,)) -> Segment:
    """A one-province segment with the coastal strip of MAP and kingdoms."""
    seg = small_segment(MAP, date=MonthDate(412, 4), seed=5)
    for n in kingdoms:
        add_kingdom(seg, n, treasury=treasury)
    return seg


def month(seg: Segment, sheets: dict[int, Sheet] | None = None, *,
          rules: Rules | None = None) -> Month:
    """The month context the runner builds (generator, kingdom order, snapshot)."""
    return begin_month(seg, sheets or {}, rules or RULES)


def k_sheet(kingdom: int, *orders: KingdomOrder) -> dict[int, Sheet]:
    """A sheet with kingdom orders only."""
    return {kingdom: Sheet(kingdom=kingdom, kingdom_orders=list(orders))}


def a_sheet(seg: Segment, kingdom: int, *blocks: tuple[int, PhaseAOrder]) -> dict[int, Sheet]:
    """A sheet with Phase A orders for armies (positions taken from the state)."""
    out = []
    for number, order in blocks:
        pos = seg.armies[number].position
        addr = Address(0, 0) if pos is None else seg.grid.address_of(pos)
        out.append(ArmyBlock(number, addr, line=10 + number % 100, phase_a=order))
    return {kingdom: Sheet(kingdom=kingdom, armies=out)}


def ledger_ok(m: Month, before: dict[int, int]) -> bool:
    """Treasury after = treasury before + the sum of the kingdom's events' gold."""
    return all(m.state.kingdoms[n].treasury == before[n] + m.log.gold_total(n) for n in before)
