"""A bot never sees what its kingdom does not know ("Die Landkarte ..., von
der der jeweilige Mitspieler immer nur einen kleinen Teil kennt"), and it
plans moves with the rule's percentages, heights and seasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from wdg.bots import PERSONALITIES, Sighting, brief, write_sheet
from wdg.bots.plan import Planner
from wdg.engine.events import SightingKind
from wdg.orders.model import Conquer, Move
from wdg.orders.parser import parse_sheet
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.calendar import MonthDate
from wdg.store.segment import load_segment

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules.load(ROOT / "worlds" / "rules")


@pytest.fixture(scope="module")
def demo():
    return load_segment(ROOT / "worlds" / "canura")


def _referenced(view, text: str) -> set[Address]:
    """Every gemark the sheet names or walks through."""
    sheet = parse_sheet(text.encode("utf-8"))
    out: set[Address] = set()
    for b in sheet.armies:
        out.add(b.position)
        for o in (b.phase_a, b.phase_b):
            at = getattr(o, "at", None)
            if isinstance(at, Address):
                out.add(at)
        if isinstance(b.phase_b, (Move, Conquer)) and not b.position.is_passive:
            h = view.grid.hex_of(b.position)
            for d in b.phase_b.directions:
                h = h.neighbour(d)
                out.add(view.grid.address_of(h))
    for o in sheet.kingdom_orders:
        at = getattr(o, "at", None)
        if isinstance(at, Address):
            out.add(at)
    out.discard(Address(0, 0))
    return out


def _fogged(seg, k: int, radius: int):
    """The kingdom's briefing with its known map cut to ``radius`` around its
    own land and armies; an enemy army and town are placed far outside it."""
    b = brief(seg, k)
    v = b.view
    grid = v.grid
    centres = [grid.hex_of(a) for a in v.owned]
    centres += [grid.hex_of(a.position) for a in v.armies.values() if not a.passive]
    keep = {a for a in v.known if min(grid.hex_of(a).distance(c) for c in centres) <= radius}
    v.known = {a: v.known[a] for a in keep}
    b.owners = {a: o for a, o in b.owners.items() if a in keep}
    b.towns = {a: s for a, s in b.towns.items() if a in keep}
    far = max((a for a in grid_addresses(grid) if a not in keep),
              key=lambda a: min(grid.hex_of(a).distance(c) for c in centres))
    other = min(v.diplomacy) if v.diplomacy else (1 if k != 1 else 2)
    b.sightings = [Sighting(far, SightingKind.ARMY, 999, other, 3000, "Krieger")]
    v.diplomacy[other] = 1
    return b, keep, far


def grid_addresses(grid):
    return [grid.address_of(h) for h in grid.hexes()]


@pytest.mark.parametrize("who", [*PERSONALITIES, "Kriegsherr+feind"])
@pytest.mark.parametrize("k", [2, 3, 6, 9])
def test_a_bot_sheet_references_only_known_gemarks(demo, who, k) -> None:
    b, keep, far = _fogged(demo, k, 2)
    for month in range(6):
        text = write_sheet(b, who, RULES, password="x", seed=month)
        refs = _referenced(b.view, text)
        assert refs <= keep, (refs - keep, text)
        assert far not in refs


def test_the_planner_never_enters_unknown_land(demo) -> None:
    b, keep, _far = _fogged(demo, 3, 1)
    p = Planner(b, RULES)
    start = p.hex(b.view.armies[301].position)
    path = p.route("reiter", start, lambda h: p.grid.address_of(h) not in keep, limit=10_000)
    assert path is None
    reach = p.reachable("krieger", start, 10_000)
    assert {p.grid.address_of(h) for h in reach} <= keep


def test_riders_cross_three_lowland_gemarks_a_month_warriors_one(demo) -> None:
    """"Die Bewegung": Reiter 33 % in Tiefland, Krieger 100 %."""
    b = brief(demo, 3)
    p = Planner(b, RULES)
    lowland = [h for h, t in p.known.items() if t.code == "T." and h in p.own]
    start = lowland[0]
    line = [start]
    for _ in range(4):  # a straight line of known lowland, if there is one
        nxt = [x for _d, x in p.neighbours(line[-1]) if x in p.known and p.known[x].code == "T."
               and x not in line and p.step_cost("reiter", line[-1], x) == 33]
        if not nxt:
            break
        line.append(nxt[0])
    path = line[1:]
    assert len(p.month_steps("krieger", start, path)) == min(1, len(path))
    assert len(p.month_steps("reiter", start, path)) == min(3, len(path))


def test_height_steps_and_seasons_close_the_way(demo) -> None:
    """Only the next height level may be entered; Bergland and Gebirge are
    closed in the months 1-3, Hochgebirge 1-6 ("Allgemeine Regeln" (g), (h))."""
    b = brief(demo, 3)
    p = Planner(b, RULES)
    pairs = [(h, x) for h in p.known for _d, x in p.neighbours(h) if x in p.known
             and not p.is_water(h) and not p.is_water(x)]
    jump = [(h, x) for h, x in pairs if abs(p.known[h].height - p.known[x].height) > 1]
    for h, x in jump:
        assert p.step_cost("krieger", h, x) is None
    mountain = [(h, x) for h, x in pairs if p.known[x].height in (3, 4)
                and abs(p.known[h].height - p.known[x].height) <= 1]
    if mountain:
        h, x = mountain[0]
        b.view.month = MonthDate(412, 2)
        assert Planner(b, RULES).step_cost("krieger", h, x) is None
        b.view.month = MonthDate(412, 8)
        assert Planner(b, RULES).step_cost("krieger", h, x) is not None
