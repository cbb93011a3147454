"""Building a :class:`~wdg.engine.month.Month` by hand for step tests: one
function shared by the engine's rule tests (combat, conquest, creatures,
diplomacy, militia, wizards)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wdg.engine.month import Month, Snapshot
from wdg.orders.model import ArmyBlock, PhaseBOrder, Sheet
from wdg.rules import Rules
from wdg.world.state import Segment

RULES = Rules.load(Path(__file__).resolve().parents[2] / "worlds" / "rules")


def month(seg: Segment, orders: dict[int, PhaseBOrder] | None = None, *,
          sheets: dict[int, Sheet] | None = None, seed: int = 1) -> Month:
    """A month over ``seg`` with the start snapshot taken now; ``orders`` gives
    armies their Phase B order (on sheet line 10 + army number), ``sheets``
    adds whole sheets."""
    all_sheets: dict[int, Sheet] = dict(sheets or {})
    for n, order in (orders or {}).items():
        a = seg.armies[n]
        sheet = all_sheets.setdefault(a.kingdom, Sheet(kingdom=a.kingdom))
        sheet.armies.append(ArmyBlock(n, seg.grid.address_of(a.position), 10 + n, phase_b=order))
    m = Month(state=seg, sheets=all_sheets, rng=np.random.default_rng(seed), rules=RULES)
    m.start = Snapshot(owner=seg.owner.copy(),
                       positions={n: a.position for n, a in seg.armies.items()})
    return m
