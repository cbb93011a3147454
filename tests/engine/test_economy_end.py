"""End of month (steps 80-88): construction, taxes, the treasury's sites,
durability of fleets and boats, general offers."""

from __future__ import annotations

from econ_helpers import RULES, month, world

from wdg.engine.actions import actions
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
from wdg.orders.model import ArmyBlock, Move, Search, Sheet, Train
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own
from wdg.rules import Rules
from wdg.world.state import Building, Construction, Deposit, ProjectKind, TroopType


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


def test_a_mine_yields_by_level_on_a_known_deposit():
    """"Mine ... für die Ausbeutung eines bereits bekannten Bodenschatzes": a
    level-2 mine on a Silber deposit its owner found yields 2 x the kind's yield
    (deposits.yaml); on an unknown deposit nothing; a rules set without
    deposits.yaml (months archived before it) keeps the old yield by height."""
    seg = world(treasury=0)
    h = at(seg, "101.13")  # Bergland, height 3
    own(seg, 1, h)
    seg.buildings[3][seg.grid.index(h)] = 2
    seg.deposits = {h: Deposit(h, "Silber", known_by=[1])}
    m = month(seg)
    taxes(m)
    assert m.log.of_kind("tax.mines")[0].gold == 2 * RULES.int("deposits", "kinds", "Silber")
    seg.deposits[h].known_by = []
    m = month(seg)
    taxes(m)
    assert not m.log.of_kind("tax.mines")
    old = Rules({a: RULES.section(a) for a in RULES.areas() if a != "deposits"})
    m = month(seg, rules=old)
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
    assert treasury_share(seg, 1, RULES) == 30_000
    seg2 = world(treasury=5000)
    assert treasury_share(seg2, 1, RULES) == 0


def _fleet(seg, order=None, harbour=False, durability_=50):
    add_settlement(seg, "101.09", 100, kingdom=1,
                   buildings={Building.HAFEN: 1} if harbour else None)
    a = add_army(seg, 103, 1, "101.09" if harbour else "101.02", troop=TroopType.SCHIFFE,
                 units=5)
    a.durability = durability_
    sheets = {}
    if order is not None:
        pos = seg.grid.address_of(a.position)
        sheets = {1: Sheet(kingdom=1, armies=[ArmyBlock(103, pos, 5, None, order)])}
    m = month(seg, sheets)
    actions(m)  # Phase B publishes who rested (m.notes["actions"]["rested"])
    return a, m


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


def test_a_fleet_that_trained_or_searched_does_not_rest_and_loses_3_percent():
    """"ruht die Flotte, so steigt sie um 5%" — only a resting fleet ("(r)
    Ruhepause ... Mit diesem Befehl kann die Haltbarkeit einer Flotte erhöht
    werden"); training or searching is not resting, even in a harbour."""
    for order in (Train(), Search()):
        seg = world()
        a, m = _fleet(seg, order=order, harbour=True)
        durability(m)
        assert a.durability == 47
        assert 103 not in m.notes["actions"]["rested"]


def test_a_fleet_worn_down_to_0_percent_sinks_and_its_cargo_drowns():
    """wdg's decision (economy.yaml ``durability.sinks_at``): a worn-out fleet
    sinks; "(p) ... so gilt die auf diesem Schiff beförderte Fracht ... als
    unrettbar versunken" — every ship and soldier is counted as lost."""
    seg = world()
    a, m = _fleet(seg, order=Move(()), durability_=3)
    cargo = add_army(seg, 101, 1, "101.02", units=300)
    a.carrying, cargo.carried_by = 101, 103
    durability(m)
    assert a.general is None and a.position is None and cargo.position is None
    lost = {e.army: e.data["lost"] for e in m.log if "lost" in e.data}
    assert lost == {103: 5, 101: 300}
    assert m.log.of_kind("durability.sunk")


def test_a_fleet_worn_down_in_a_harbour_sinks_but_its_cargo_goes_ashore():
    """In a harbour the carried army is on land ("(q) ... wie Landgemarken"):
    it goes ashore instead of drowning (docs/rules.md, "End of month")."""
    seg = world()
    a, m = _fleet(seg, order=Train(), harbour=True, durability_=2)
    cargo = add_army(seg, 101, 1, "101.09", units=300)
    a.carrying, cargo.carried_by = 101, 103
    durability(m)
    assert a.general is None and a.units == 0
    assert cargo.units == 300 and cargo.carried_by is None and cargo.position == at(seg, "101.09")
    assert m.log.of_kind("durability.ashore")


def test_boats_lose_10_percent_a_month_and_cannot_be_repaired():
    """"Das Boot": "Die Haltbarkeit von Booten sinkt in jedem Mond um 10%; sie kann nicht
    gesteigert werden." """
    seg = world()
    a = add_army(seg, 101, 1, "101.02", units=100)
    a.boats, a.boat_durability = 5, 60
    durability(month(seg))
    assert a.boat_durability == 50


def test_boats_worn_down_to_0_percent_fall_apart_and_the_army_on_the_water_drowns():
    """wdg's decision (``durability.sinks_at``): boats at 0 % fall apart; an army
    on the water without its boats drowns ("Das Boot")."""
    seg = world()
    a = add_army(seg, 101, 1, "101.02", units=100)
    a.boats, a.boat_durability = 5, 10
    m = month(seg)
    durability(m)
    assert a.boats == 0 and a.units == 0 and a.position is None
    assert [e.data["lost"] for e in m.log.of_kind("durability.drowned")] == [100]


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


def test_an_offered_general_s_ability_is_a_character_action_he_can_carry_out():
    """"Verfügt ein Feldherr über ... Spezialfähigkeit" — "(c) Charakteraktion:
    Der Feldherr des Heeres führt eine Handlung durch, die nur diesem bestimmten
    Feldherren möglich ist": every ability an offer can carry is a code the
    character action knows."""
    import numpy as np

    from wdg.engine.economy import ability_name, draw_offer

    codes = set(RULES.section("wizards", "abilities"))
    seen = set()
    rng = np.random.default_rng(3)
    for _ in range(3000):
        offer = draw_offer(rng, RULES)
        if offer is not None and offer.general.ability:
            seen.add(offer.general.ability)
    assert seen and seen <= codes
    assert ability_name(RULES, "FE") == "Feuerrede"
