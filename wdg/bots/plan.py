"""Path-finding on the terrain a kingdom knows ("Die Bewegung").

The planner sees only a :class:`~wdg.bots.briefing.Briefing`: the known
terrain (unknown gemarks are never entered), the owners as last seen, the
month. Each step is decided by the engine's own step rule
(:func:`wdg.engine.movement.step_verdict`, shared with the forecast
:mod:`wdg.orders.forecast`), which reads the movement percentages of
``worlds/rules/movement.yaml`` (the rule's table: Krieger 100 % everywhere on
land, Reiter 33/50/100 %, boats and ships on water), the height rule ("immer
nur Gemarken der direkt darüber- oder darunterliegende Höhenstufe"), the
seasonal closures ("(f)-(h)") and the stop in foreign territory ("(c)", "Der
Kontrollbereich").

:meth:`Planner.route` is a Dijkstra search whose cost is the percent of the
movement budget spent, with penalties for what the rule makes costly or
dangerous: a foreign gemark ends the month's move (the rest of the budget is
lost), terrain where an army gets lost outside its own land ("(e)") and
terrain with losses ("Schwieriges Gelände"). :meth:`Planner.month_steps`
cuts a route to the directions that fit into one month.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from wdg.bots.briefing import Briefing
from wdg.engine.movement import LAND_KINDS, Tables, step_verdict
from wdg.rules import Rules
from wdg.world.address import Address, Grid
from wdg.world.hexgrid import Direction, Hex
from wdg.world.state import MoverKind
from wdg.world.terrain import Terrain, can_get_lost, is_water, terrain

LOST_PENALTY = 200
"""Extra percent for entering terrain where an army may get lost outside its land."""
LOSS_PENALTY_PER_PERCENT = 30
"""Extra percent per percent of soldiers lost on entering a gemark."""


class Planner:
    """Routes over the known map of one kingdom for one month."""

    def __init__(self, b: Briefing, rules: Rules) -> None:
        view = b.view
        self.grid: Grid = view.grid
        self.month = view.month.month
        self.kingdom = view.kingdom
        self.t = Tables.load(rules)
        self.known: dict[Hex, Terrain] = {}
        for a, (code, _seen) in view.known.items():
            if view.on_map(a):
                self.known[self.grid.hex_of(a)] = terrain(code)
        self.owner: dict[Hex, int] = {self.grid.hex_of(a): o for a, o in b.owners.items()
                                      if view.on_map(a)}
        self.own = {self.grid.hex_of(a) for a in view.owned}
        self._coastal: set[Hex] | None = None

    # -- facts ------------------------------------------------------------------------

    def hex(self, a: Address) -> Hex:
        return self.grid.hex_of(a)

    def label(self, h: Hex) -> str:
        return self.grid.label(h)

    def neighbours(self, h: Hex) -> list[tuple[Direction, Hex]]:
        """The on-map neighbours with their directions, in the rule's order."""
        out = []
        for d in Direction:
            x = h.neighbour(d)
            if self.grid.contains(x):
                out.append((d, x))
        return out

    def is_land(self, h: Hex) -> bool:
        t = self.known.get(h)
        return t is not None and not is_water(t)

    def is_water(self, h: Hex) -> bool:
        t = self.known.get(h)
        return t is not None and is_water(t)

    def coastal(self, h: Hex) -> bool:
        """A known land gemark of height 1 next to known water (Küstengemark)."""
        t = self.known.get(h)
        if t is None or is_water(t) or t.height != 1:
            return False
        return any(self.is_water(x) for _d, x in self.neighbours(h))

    def foreign(self, h: Hex) -> bool:
        """Owned by another kingdom as last seen (entering ends the move)."""
        o = self.owner.get(h, 0)
        return o not in (0, self.kingdom) and h not in self.own

    def frontier(self, h: Hex) -> bool:
        """A known gemark with an unknown neighbour."""
        return any(x not in self.known for _d, x in self.neighbours(h))

    # -- costs ------------------------------------------------------------------------

    def step_cost(self, kind: str, here: Hex, there: Hex) -> int | None:
        """Percent of the budget to enter ``there`` from ``here``, or ``None``
        if the rule forbids the step (unknown, wrong element, height, season):
        the engine's and the forecast's step rule
        (:func:`wdg.engine.movement.step_verdict`) on the known terrain."""
        t = self.known.get(there)
        src = self.known.get(here)
        if t is None or src is None:
            return None
        if kind is MoverKind.SCHIFFE and not is_water(t):
            return None  # bots sail only on water (harbours are entered by nobody's plan)
        v = step_verdict(self.t, kind, src.id, t.id, self.month,
                         coastal=self.coastal(there), harbour=False, spent=0)
        return None if v.reason is not None else v.cost

    def penalty(self, kind: str, there: Hex) -> int:
        t = self.known[there]
        extra = 0
        if kind in LAND_KINDS and there not in self.own:
            if can_get_lost(t):
                extra += LOST_PENALTY
            extra += int(self.t.loss[t.id]) * LOSS_PENALTY_PER_PERCENT
        if self.foreign(there):
            extra += self.t.budget
        return extra

    # -- search -----------------------------------------------------------------------

    def route(self, kind: str, start: Hex, goal: Callable[[Hex], bool],
              limit: int = 4000) -> list[Hex] | None:
        """The cheapest known path from ``start`` to the nearest gemark for which
        ``goal`` holds (``start`` itself gives ``[]``); ``None`` if none is
        reachable within ``limit`` percent."""
        if goal(start):
            return []
        best: dict[Hex, int] = {start: 0}
        prev: dict[Hex, Hex] = {}
        heap: list[tuple[int, int, int, Hex]] = [(0, start.q, start.r, start)]
        while heap:
            cost, _q, _r, h = heapq.heappop(heap)
            if cost > best.get(h, 1 << 30):
                continue
            if h != start and goal(h):
                path = [h]
                while path[-1] in prev and prev[path[-1]] != start:
                    path.append(prev[path[-1]])
                return path[::-1]
            if kind is MoverKind.BOOTE and h != start and not self.is_water(h):
                continue  # boats stop on landing
            for _d, x in self.neighbours(h):
                c = self.step_cost(kind, h, x)
                if c is None:
                    continue
                nc = cost + max(c, 1) + self.penalty(kind, x)
                if nc <= limit and nc < best.get(x, 1 << 30):
                    best[x] = nc
                    prev[x] = h
                    heapq.heappush(heap, (nc, x.q, x.r, x))
        return None

    def reachable(self, kind: str, start: Hex, limit: int) -> dict[Hex, int]:
        """Every known gemark reachable within ``limit`` percent (with penalties)."""
        best: dict[Hex, int] = {start: 0}
        heap: list[tuple[int, int, int, Hex]] = [(0, start.q, start.r, start)]
        while heap:
            cost, _q, _r, h = heapq.heappop(heap)
            if cost > best.get(h, 1 << 30):
                continue
            for _d, x in self.neighbours(h):
                c = self.step_cost(kind, h, x)
                if c is None:
                    continue
                nc = cost + max(c, 1) + self.penalty(kind, x)
                if nc <= limit and nc < best.get(x, 1 << 30):
                    best[x] = nc
                    heapq.heappush(heap, (nc, x.q, x.r, x))
        return best

    def month_steps(self, kind: str, start: Hex, path: list[Hex]) -> list[Direction]:
        """The directions of ``path`` that one month's budget allows: the sum of
        percentages stays within the budget, and the move ends on entering a
        foreign gemark or on landing from boats."""
        out: list[Direction] = []
        spent = 0
        here = start
        for there in path:
            c = self.step_cost(kind, here, there)
            if c is None or spent + c > self.t.budget:
                break
            d = direction_between(here, there)
            if d is None:
                break
            out.append(d)
            spent += c
            if self.foreign(there) or (kind is MoverKind.BOOTE and not self.is_water(there)):
                break
            here = there
        return out


def direction_between(a: Hex, b: Hex) -> Direction | None:
    """The direction from ``a`` to its neighbour ``b``."""
    for d in Direction:
        if a.neighbour(d) == b:
            return d
    return None


__all__ = ["Planner", "direction_between"]
