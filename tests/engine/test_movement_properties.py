"""Property tests: random small worlds and random move orders."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine._phase_b_world import RULES, month_of
from wdg.engine.movement import may_stand, movement
from wdg.orders.model import Conquer, Move
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import Building, TroopType
from wdg.world.terrain import TERRAINS, WATER

CODES = [t.code for t in TERRAINS]
COLS, ROWS = 8, 6

worlds = st.fixed_dictionaries({
    "terrain": st.lists(st.sampled_from(CODES), min_size=COLS * ROWS, max_size=COLS * ROWS),
    "month": st.integers(1, 12),
    "owners": st.lists(st.integers(0, 3), min_size=COLS * ROWS, max_size=COLS * ROWS),
    "status": st.integers(1, 9),
    "harbours": st.lists(st.integers(0, COLS * ROWS - 1), max_size=4),
    "armies": st.lists(st.tuples(
        st.integers(0, COLS * ROWS - 1),
        st.sampled_from(["krieger", "reiter", "schiffe", "boote"]),
        st.lists(st.sampled_from(list(Direction)), max_size=8),
        st.booleans(),
    ), max_size=8),
    "seed": st.integers(0, 2**16),
})


def build(spec):
    rows = [" ".join(spec["terrain"][r * COLS:(r + 1) * COLS]) for r in range(ROWS)]
    seg = small_segment(rows, date=MonthDate(412, spec["month"]))
    for k in (1, 2, 3):
        add_kingdom(seg, k, diplomacy={j: spec["status"] for j in (1, 2, 3) if j != k})
    seg.owner[:] = [spec["owners"][r * COLS:(r + 1) * COLS] for r in range(ROWS)]
    for i in spec["harbours"]:
        r, c = divmod(i, COLS)
        if not WATER[seg.terrain[r, c]]:
            add_settlement(seg, (c, r), 150, buildings={Building.HAFEN: 1})
    orders = {}
    for n, (cell, kind, ds, conquer) in enumerate(spec["armies"], start=1):
        r, c = divmod(cell, COLS)
        water = bool(WATER[seg.terrain[r, c]])
        if (kind in ("schiffe", "boote")) != water:
            continue
        troop = {"reiter": TroopType.REITER, "schiffe": TroopType.SCHIFFE}.get(kind, TroopType.KRIEGER)
        a = add_army(seg, n, 1 + n % 3, (c, r), troop=troop, units=1000)
        if kind == "boote":
            a.boats = 10
        orders[n] = Conquer(tuple(ds)) if conquer else Move(tuple(ds))
    return seg, orders


@settings(max_examples=150, deadline=None)
@given(worlds)
def test_no_army_ends_where_it_may_not_stand_and_no_move_exceeds_its_budget(spec):
    """(d), (o), "Das Boot": land armies on land, fleets on water or in a harbour,
    boats on water; "Die Bewegung ist nur möglich, wenn ... nicht über die maximale
    Bewegungsreichweite"; the same seed gives the same positions."""
    seg, orders = build(spec)
    m = month_of(seg, orders, seed=spec["seed"])
    movement(m)
    budget = RULES.int("movement", "budget")
    for a in seg.armies.values():
        if a.position is not None:
            assert may_stand(seg, a, a.position), (a, seg.label(a.position))
    for ev in m.log.of_kind("move.moved"):
        assert 0 < ev.data["spent"] <= budget
        assert len(ev.data["path"]) <= 4 or seg.armies[ev.army].is_fleet
    seg2, orders2 = build(spec)
    movement(month_of(seg2, orders2, seed=spec["seed"]))
    assert {n: a.position for n, a in seg.armies.items()} == \
        {n: a.position for n, a in seg2.armies.items()}
