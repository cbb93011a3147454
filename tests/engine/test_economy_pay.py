"""Step 10: "Besoldung und Unterhalt"."""

from __future__ import annotations

from econ_helpers import RULES, month, world

from wdg.engine.economy import pay_and_upkeep
from wdg.world.factory import add_army
from wdg.world.state import ArmyStatus, TroopType


def test_active_armies_pay_upkeep_and_every_unit_its_pay():
    """"Für alle Rüstgüter müssen monatliche ... Zahlungen, Besoldung genannt,
    entrichtet werden" (Krieger 1, Reiter 2, Schiff 100 GS) plus "Unterhaltskosten"
    per active army (1.000 / 3.000 / 10.000 GS)."""
    seg = world(treasury=100_000)
    add_army(seg, 101, 1, "101.09", units=500)
    add_army(seg, 102, 1, "101.17", troop=TroopType.REITER, units=200)
    add_army(seg, 103, 1, "101.02", troop=TroopType.SCHIFFE, units=10)
    m = month(seg)
    pay_and_upkeep(m)
    expected = (1000 + 500) + (3000 + 400) + (10000 + 1000)
    assert seg.kingdoms[1].treasury == 100_000 - expected
    assert sum(-e.gold for e in m.log.of_kind("pay.upkeep")) == 14_000
    assert {e.ledger for e in m.log.of_kind("pay.wages")} == {"pay"}


def test_passive_armies_cost_nothing():
    """"Für jedes aktive Heer müssen in jedem Mond Unterhaltskosten gezahlt werden" —
    a passive army at 000.00 pays nothing."""
    seg = world(treasury=5000)
    add_army(seg, 101, 1, None)
    m = month(seg)
    pay_and_upkeep(m)
    assert seg.kingdoms[1].treasury == 5000
    assert not m.log.of_kind("pay.")


def test_an_army_activated_last_month_is_active_and_pays_from_this_month():
    """"(nh) ... Ab dem folgenden Mond müssen für das Heer dann Unterhaltskosten bezahlt werden." """
    seg = world(treasury=5000)
    add_army(seg, 101, 1, "101.09", units=0, status=ArmyStatus.ACTIVATING)
    m = month(seg)
    pay_and_upkeep(m)
    assert seg.armies[101].status is ArmyStatus.ACTIVE
    assert seg.kingdoms[1].treasury == 4000


def test_a_short_treasury_pays_what_it_can_and_never_goes_into_debt():
    """"Der Reichsschatz" (e): "ein Herrscher kann keine Schulden machen!" """
    seg = world(treasury=1200)
    add_army(seg, 101, 1, "101.09", units=1000)
    m = month(seg)
    pay_and_upkeep(m)
    assert seg.kingdoms[1].treasury == 0
    assert m.log.gold_total(1) == -1200


def test_unpaid_armies_lose_deserters_morale_and_general_experience():
    """"Befinden sich im Reichsschatz nicht mehr genug Goldsterne ... so kann es dazu
    kommen, daß Rüstgüter desertieren ... Zugleich sinken die Moral des Heeres und die
    Erfahrung des Feldherren." Deserters scatter: the militia does not grow."""
    seg = world(treasury=0)
    add_army(seg, 101, 1, "101.09", units=1000, morale=50, experience=20)
    militia = seg.militia.copy()
    m = month(seg)
    pay_and_upkeep(m)
    a = seg.armies[101]
    short = m.log.of_kind("pay.shortfall")[0]
    assert 0 < short.data["deserters"] < 1000
    assert a.units == 1000 - short.data["deserters"]
    assert a.morale == 50 - RULES.int("economy", "shortfall", "morale_loss")
    assert a.general.experience == 20 - RULES.int("economy", "shortfall", "experience_loss")
    assert (seg.militia == militia).all()


def test_kingdoms_pay_in_the_months_random_order_and_armies_ascending():
    """Later editions: kingdom by kingdom in random order, army by army ascending."""
    seg = world(kingdoms=(1, 2, 3))
    for n in (1, 2, 3):
        add_army(seg, n * 100 + 2, n, "101.09")
        add_army(seg, n * 100 + 1, n, "101.09")
    m = month(seg)
    pay_and_upkeep(m)
    seen = [e.army for e in m.log.of_kind("pay.upkeep")]
    assert seen == [n * 100 + i for n in m.kingdom_order for i in (1, 2)]
