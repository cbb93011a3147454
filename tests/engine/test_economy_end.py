"""End of month (steps 80-88): construction, taxes, the treasury's sites,
durability of fleets and boats, general offers."""

from __future__ import annotations

from econ_helpers import RULES, month, world

from wdg.engine.economy import (
    construction,
    durability,
    general_offers,
    remember_start,
    settlement_class,
    settlement_income,
    taxes,
    treasury_share,
)
from wdg.orders.model import ArmyBlock, Move, Sheet
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own
from wdg.world.state import Building, Construction, ProjectKind, TroopType


def test_a_settlement_project_finishes_up_to_50_baueinheiten_a_month():
    """"Die Siedlung" (e): "Von einem Bauauftrag werden in jedem Mond bis zu 50
    Baueinheiten fertiggestellt." """
    seg = world()
    own(seg, 1, "101.17")
    seg.constructions.append(Construction(1, at(seg, "101.17"), ProjectKind.SETTLEMENT, 80,
                                          MonthDate(412, 4)))
    m = month(seg)
    construction(m)
    assert seg.at(seg.settlement, at(seg, "101.17")) == 50
    assert seg.constructions[0].remaining == 30
    construction(month(seg))
    assert seg.at(seg.settlement, at(seg, "101.17")) == 80
    assert seg.constructions == []


def test_a_building_is_finished_after_one_month():
    """"Die Bauwerke" (b): "Die Baudauer für ein Bauwerk beträgt 1 Mond." """
    seg = world()
    h = add_settlement(seg, "101.17", 150, kingdom=1)
    seg.constructions.append(Construction(1, h, ProjectKind.KASERNE, 1, MonthDate(412, 4)))
    construction(month(seg))
    assert seg.building_level(h, Building.KASERNE) == 1
    assert seg.constructions == []


def test_a_project_in_a_lost_gemark_is_abandoned():
    """wdg: a project whose gemark changed hands this month is abandoned (docs/rules.md)."""
    seg = world(kingdoms=(1, 2))
    own(seg, 2, "101.17")
    seg.constructions.append(Construction(1, at(seg, "101.17"), ProjectKind.MINE, 1,
                                          MonthDate(412, 4)))
    m = month(seg)
    construction(m)
    assert m.log.of_kind("build.abandoned") and seg.constructions == []


def test_settlement_income_follows_the_size_table():
    """"Die Siedlung": Flecken 100-199 2.000 GS, Markt 200-299 4.000, Dorf 300-399 6.000."""
    assert [settlement_income(s, RULES) for s in (99, 100, 199, 200, 300, 399)] == \
        [0, 2000, 2000, 4000, 6000, 6000]
    assert [settlement_class(s, RULES) for s in (150, 250, 350)] == ["Flecken", "Markt", "Dorf"]


def test_taxes_come_from_gemarks_and_settlements_as_they_stood_at_the_start():
    """"Am Ende eines jeden Mondes erhält der Herrscher Steuereinnahmen aus den Gemarken und
    Siedlungen" — from the state before the month's changes (a gemark lost this month
    still pays its old owner)."""
    seg = world(treasury=0, kingdoms=(1, 2))
    add_settlement(seg, "101.17", 250, kingdom=1)          # Tiefland 600 + Markt 4.000
    own(seg, 1, "101.18", "101.10")                       # Tiefland 600, Tieflandwald 400
    m = month(seg)
    remember_start(m)
    seg.owner[seg.grid.index(at(seg, "101.18"))] = 2      # conquered during the month
    taxes(m)
    assert seg.kingdoms[1].treasury == 600 + 600 + 400 + 4000
    assert seg.kingdoms[2].treasury == 0


def test_a_mine_yields_by_level_and_height():
    """wdg: "Mine ... für die Ausbeutung eines ... Bodenschatzes": income per level by
    height level (economy.yaml, mine)."""
    seg = world(treasury=0)
    h = at(seg, "101.13")  # Bergland, height 3
    own(seg, 1, h)
    seg.buildings[3][seg.grid.index(h)] = 2
    m = month(seg)
    taxes(m)
    assert m.log.of_kind("tax.mines")[0].gold == 2 * 3000


def test_popularity_raises_taxes():
    """"(F+) ... kann die Beliebtheit des Herrschers beim Volk erhöhen"; wdg: popularity
    above 50 raises every tax (economy.yaml, taxes.popularity_effect)."""
    seg = world(treasury=0)
    own(seg, 1, "101.17")
    seg.kingdoms[1].popularity = 100
    taxes(month(seg))
    assert seg.kingdoms[1].treasury == int(600 * 1.1)


def test_the_treasury_is_spread_evenly_over_the_settlements():
    """"Der Reichsschatz" (a): "verteilt sich stets gleichmäßig auf alle Siedlungen";
    (c): the conqueror takes that share."""
    seg = world(treasury=90_001)
    for a in ("101.17", "101.18", "101.20"):
        add_settlement(seg, a, 100, kingdom=1)
    assert treasury_share(seg, 1) == 30_000
    seg2 = world(treasury=5000)
    assert treasury_share(seg2, 1) == 0


def _fleet(seg, order=None, harbour=False):
    add_settlement(seg, "101.09", 100, kingdom=1,
                   buildings={Building.HAFEN: 1} if harbour else None)
    a = add_army(seg, 103, 1, "101.09" if harbour else "101.02", troop=TroopType.SCHIFFE,
                 units=5)
    a.durability = 50
    sheets = {}
    if order is not None:
        pos = seg.grid.address_of(a.position)
        sheets = {1: Sheet(kingdom=1, armies=[ArmyBlock(103, pos, 5, None, order)])}
    return a, month(seg, sheets)


def test_a_resting_fleet_gains_5_percent_durability():
    """"Das Schiff": "ruht die Flotte, so steigt sie um 5%" """
    seg = world()
    a, m = _fleet(seg)
    durability(m)
    assert a.durability == 55


def test_a_fleet_resting_in_a_harbour_gains_20_percent():
    """"Das Schiff": "(in einem Hafen um 20%)" """
    seg = world()
    a, m = _fleet(seg, harbour=True)
    durability(m)
    assert a.durability == 70


def test_a_fleet_that_moved_loses_3_percent():
    """"Das Schiff": "Die Haltbarkeit eines Schiffes sinkt in jedem Mond um 3%" """
    seg = world()
    a, m = _fleet(seg, order=Move(()))
    m.moved.add(103)
    durability(m)
    assert a.durability == 47


def test_boats_lose_10_percent_a_month_and_cannot_be_repaired():
    """"Das Boot": "Die Haltbarkeit von Booten sinkt in jedem Mond um 10%; sie kann nicht
    gesteigert werden." """
    seg = world()
    a = add_army(seg, 101, 1, "101.02", units=100)
    a.boats, a.boat_durability = 5, 60
    durability(month(seg))
    assert a.boat_durability == 50


def test_generals_offer_themselves_from_the_rules_file():
    """"Der Feldherr" (a): the offer names experience, troop type, special ability and
    premium; wdg draws it from generals.yaml with the month's generator."""
    offered = 0
    for seed in range(20):
        seg = world(kingdoms=(1, 2))
        seg.seed = seed
        m = month(seg)
        general_offers(m)
        for n in (1, 2):
            o = seg.kingdoms[n].offer
            if o is not None:
                offered += 1
                g = RULES.section("generals", "offers")
                assert g["experience"]["min"] <= o.general.experience <= g["experience"]["max"]
                assert o.price >= g["price_base"][o.general.troop.value]
    assert 0 < offered < 40


def test_city_states_get_no_general_offers():
    """"Stadtstaaten verfügen nicht über Heere oder Rüstgüter." """
    seg = world()
    add_kingdom(seg, 9, city_state=True)
    seg.seed = 3
    general_offers(month(seg))
    assert seg.kingdoms[9].offer is None


def test_taxes_use_no_randomness():
    """Determinism: the economy's end-of-month steps draw only in the fixed places."""
    seg = world()
    m = month(seg)
    state = m.rng.bit_generator.state
    taxes(m)
    construction(m)
    assert m.rng.bit_generator.state == state
