""""(h) Hilfe: Das gesamte Heer hilft den Einwohnern der Gemark, indem es z.B.
Beschädigungen repariert und Erntearbeiten durchführt." — the repairs
(``actions.help.repair_per_1000_soldiers``; docs/rules.md, Phase B orders)."""

from __future__ import annotations

from rulekit import RULES, sheets

from wdg.engine.turn import resolve_month
from wdg.orders.model import Destroy, DestroyTarget, Help
from wdg.rules import Rules
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment


def damaged_town(rules: Rules = RULES):
    """Kingdom 1's Dorf of 300 BE at (2,2), no militia; kingdom 2's army of 600
    destroys part of it (``x X``) in the first month and leaves."""
    seg = small_segment(date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=500_000)
    add_kingdom(seg, 2, treasury=500_000)
    h = add_settlement(seg, (2, 2), 300, kingdom=1, militia=0)
    seg.militia[:] = 0
    add_army(seg, 201, 2, (2, 2), units=600, morale=50)
    resolve_month(seg, sheets(seg, b={201: Destroy(DestroyTarget.SIEDLUNG)}), rules)
    seg.armies[201].position = at(seg, (5, 5))
    return seg, h


def test_help_repairs_a_damaged_settlement():
    """A settlement damaged by ``x X`` keeps a record of the Baueinheiten lost;
    an army of 3,000 soldiers helping there repairs 60 a month (20 per 1,000)
    until the damage is made good — it never grows past its size before the
    damage (the audit's settlement stayed at 190 BE after two months of help)."""
    seg, h = damaged_town()
    size = seg.at(seg.settlement, h)
    assert 0 < size < 300 and seg.damage == {h: 300 - size}
    add_army(seg, 101, 1, h, units=3000)
    sizes = []
    for _ in range(3):
        r = resolve_month(seg, sheets(seg, b={101: Help()}), RULES)
        sizes.append(seg.at(seg.settlement, h))
        assert any(e.kind == "action.help" and "repariert" in e.why for e in r.log.events) \
            or sizes[-1] == 300
    assert sizes[0] == min(300, size + 60) and sizes[1] == min(300, size + 120)
    assert sizes[2] == 300 and h not in seg.damage


def test_help_repairs_nothing_where_nothing_was_destroyed():
    """Help in an undamaged settlement repairs nothing: it cannot build new
    Baueinheiten (that is ``SS``)."""
    seg = small_segment(date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    h = add_settlement(seg, (2, 2), 190, kingdom=1)
    add_army(seg, 101, 1, h, units=3000)
    resolve_month(seg, sheets(seg, b={101: Help()}), RULES)
    assert seg.at(seg.settlement, h) == 190 and not seg.damage


def test_a_rules_set_without_the_repair_rate_records_no_damage():
    """Months archived before the repair rule existed replay as resolved: without
    ``help.repair_per_1000_soldiers`` no damage is recorded."""
    data = {a: dict(RULES.section(a)) for a in RULES.areas()}
    data["actions"]["help"] = {k: v for k, v in data["actions"]["help"].items()
                               if k != "repair_per_1000_soldiers"}
    seg, _h = damaged_town(Rules(data))
    assert not seg.damage
