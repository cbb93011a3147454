"""Shared set-up for the Phase B / Phase E tests: a month over a small world."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from wdg.engine.month import Month, Snapshot
from wdg.orders.model import ArmyBlock, Conquer, Move, PhaseBOrder, Sheet
from wdg.rules import Rules, safe_load_file
from wdg.world.address import PASSIVE_ADDRESS
from wdg.world.hexgrid import Direction
from wdg.world.state import Segment

RULES_DIR = Path(__file__).resolve().parents[2] / "worlds" / "rules"
RULES = Rules.load(RULES_DIR)


def rules_with(area: str, **overrides: Any) -> Rules:
    """The shipped rules with some top-level keys of one area replaced."""
    data = {p.stem: safe_load_file(p) or {} for p in sorted(RULES_DIR.glob("*.yaml"))}
    data[area] = {**copy.deepcopy(data[area]), **overrides}
    return Rules(data)


def month_of(seg: Segment, orders: dict[int, PhaseBOrder | None] | None = None, *,
             seed: int = 1, rules: Rules | None = None) -> Month:
    """A month with one sheet per kingdom listing the given armies' Phase B orders."""
    sheets: dict[int, Sheet] = {}
    for number, order in (orders or {}).items():
        a = seg.armies[number]
        sheet = sheets.setdefault(a.kingdom, Sheet(kingdom=a.kingdom))
        pos = seg.grid.address_of(a.position) if a.position is not None else PASSIVE_ADDRESS
        sheet.armies.append(ArmyBlock(number, pos, line=0, phase_b=order))
    m = Month(state=seg, sheets=sheets, rng=np.random.default_rng(seed), rules=rules or RULES)
    m.start = Snapshot(owner=seg.owner.copy(),
                       positions={n: a.position for n, a in seg.armies.items()})
    m.kingdom_order = sorted(seg.kingdoms)
    return m


def dirs(text: str) -> tuple[Direction, ...]:
    """``"O O NW"`` -> directions."""
    return tuple(Direction.parse(d) for d in text.split())


def b(text: str) -> Move:
    """A ``b`` order."""
    return Move(dirs(text))


def e(text: str) -> Conquer:
    """An ``e`` order."""
    return Conquer(dirs(text))
