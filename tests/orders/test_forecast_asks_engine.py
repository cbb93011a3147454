"""The forecast asks the engine who pays and which orders cost gold, instead of
restating the rules (issue #44): a change in the engine's rule changes both."""

from __future__ import annotations

from tests.engine._phase_b_world import RULES, month_of
from wdg.engine.economy import pay_and_upkeep
from wdg.orders.forecast import GOLD_ORDERS, order_costs, running_costs
from wdg.orders.lexicon import COMMANDS
from wdg.orders.view import build_view
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, own, small_segment
from wdg.world.state import ArmyStatus, TroopType


def _world():
    seg = small_segment(["T. T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=100_000)
    own(seg, 1, (0, 0))
    return seg


def test_running_costs_charge_the_armies_the_pay_step_charges():
    """"Besoldung und Unterhalt": every active army pays its upkeep and each unit
    its pay; an army placed by ``nh`` last month becomes active and pays; a passive
    army pays nothing. economy.yaml: Krieger upkeep 1.000 GS + 1 GS a unit,
    Reiter 3.000 GS + 2 GS a unit. The forecast's running costs and the engine's
    pay step name the same armies and the same sums."""
    seg = _world()
    add_army(seg, 101, 1, (0, 0), troop=TroopType.KRIEGER, units=500)
    add_army(seg, 102, 1, (1, 0), troop=TroopType.REITER, units=100,
             status=ArmyStatus.ACTIVATING)
    add_army(seg, 103, 1, None, troop=TroopType.KRIEGER, units=700)
    costs = running_costs(build_view(seg, 1), RULES)
    assert costs == {101: (1000, 500), 102: (3000, 200)}
    m = month_of(seg)
    pay_and_upkeep(m)
    paid: dict[int, int] = {}
    for e in m.log.of_kind("pay."):
        if e.kind in ("pay.upkeep", "pay.wages"):
            assert e.army is not None
            paid[e.army] = paid.get(e.army, 0) - e.gold
    assert paid == {101: 1500, 102: 3200}
    assert seg.kingdoms[1].treasury == 100_000 - 1500 - 3200


def test_the_free_orders_are_the_commands_whose_engine_handlers_take_no_gold():
    """"Die Befehle": of the rule's commands, ``nf``/``nh``/``nr`` (premium,
    activation), ``BH``/``BK``/``BQ``/``BM`` (Baupreis), ``SS`` (Baueinheiten),
    ``F+`` (Volksfest) and ``c`` (a wizard's teleport costs gold, wizards.yaml)
    take gold; every other command is free. The list comes from the engine's
    handlers, not from a second copy in the forecast."""
    seg = _world()
    free = order_costs(build_view(seg, 1), RULES)["free"]
    assert set(free) == {c.code for c in COMMANDS} - GOLD_ORDERS
    assert GOLD_ORDERS == {"nf", "nh", "nr", "BH", "BK", "BQ", "BM", "SS", "F+", "c"}
    assert sorted(free) == sorted(["eh", "er", "bb", "bs", "vs", "nn", "DS", "b", "e", "h",
                                   "i", "o", "r", "s", "t", "x"])
