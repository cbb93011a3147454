""""Der Kampf": the points not yet tested under tests/engine/test_combat.py."""

from __future__ import annotations

from rulekit import month, sheets

from wdg.engine.combat import combat
from wdg.engine.movement import movement
from wdg.orders.model import Move
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, at, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import TroopType

O = Direction.O


def _enemies():
    seg = small_segment(["T. T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, diplomacy={2: 1})
    add_kingdom(seg, 2, diplomacy={1: 1})
    add_army(seg, 1, 1, (0, 0), troop=TroopType.REITER, units=1000)
    add_army(seg, 2, 2, (1, 0), units=1000)
    return seg


def test_armies_that_only_pass_each_other_do_not_fight():
    """"Wenn sich Heere verschiedener Königreiche nach ihrer vollständigen Bewegung auf
    derselben Gemark befinden, kommt es stets zu einem Kampf, der nach der Phase B ...
    ausgetragen wird" — a rider army that rides through the enemy's gemark and on
    does not fight; one that stops there does."""
    seg = _enemies()
    m = month(seg, sheets(seg, b={1: Move((O, O))}))
    movement(m)
    combat(m)
    assert seg.armies[1].position == at(seg, (2, 0))
    assert not m.log.of_kind("combat.battle") and not m.fought

    seg = _enemies()
    m = month(seg, sheets(seg, b={1: Move((O,))}))
    movement(m)
    combat(m)
    assert m.log.of_kind("combat.battle") and m.fought == {1, 2}
