"""Step 20: "Die Befehle für das Königreich" (BH BK BQ BM, SS, DS, F+)."""

from __future__ import annotations

from econ_helpers import RULES, k_sheet, ledger_ok, month, world

from wdg.engine.kingdom_orders import kingdom_orders
from wdg.orders.model import Build, ChangeDiplomacy, Festival, Settle
from wdg.world.address import Address
from wdg.world.factory import add_settlement, at, own
from wdg.world.state import Building, ProjectKind

A = Address.parse


def run(seg, *orders, kingdom=1):
    m = month(seg, k_sheet(kingdom, *orders))
    before = {n: k.treasury for n, k in seg.kingdoms.items()}
    kingdom_orders(m)
    assert ledger_ok(m, before)
    return m


def test_a_kaserne_is_paid_in_full_at_the_start_and_built_in_a_settlement():
    """"Die Bauwerke": Kaserne 50.000 GS, "Bau nur in Siedlungen möglich"; (a) "Der
    gesamte Baupreis muß beim Baubeginn entrichtet werden." """
    seg = world(treasury=60_000)
    add_settlement(seg, "101.17", 100, kingdom=1)
    m = run(seg, Build(Building.KASERNE, A("101.17"), 3))
    assert seg.kingdoms[1].treasury == 10_000
    assert seg.constructions[0].kind is ProjectKind.KASERNE
    assert m.log.of_kind("k.build")[0].gold == -50_000


def test_the_other_buildings_cost_the_rule_s_baupreis():
    """"Die Bauwerke": "Hafen 100.000 GS", "Palast 50.000 GS", "Mine 50.000 GS" (the
    Kaserne's 50.000: the test above), paid in full at the start ((a)). One order a
    month each (one palace at most: one K order); 101.09 is a coastal settlement."""
    for building, price in ((Building.HAFEN, 100_000), (Building.PALAST, 50_000),
                            (Building.MINE, 50_000)):
        seg = world(treasury=150_000)
        add_settlement(seg, "101.09", 100, kingdom=1)
        m = run(seg, Build(building, A("101.09")))
        assert seg.kingdoms[1].treasury == 150_000 - price, building
        assert [e.gold for e in m.log.of_kind("k.build")] == [-price]


def test_a_palast_outside_a_settlement_is_refused():
    """"(Bn) ... in Siedlungen: BH = Hafen, BK = Kaserne, BQ = Palast" """
    seg = world()
    own(seg, 1, "101.17")
    m = run(seg, Build(Building.PALAST, A("101.17")))
    assert m.log.of_kind("k.build.refused") and not seg.constructions


def test_a_mine_can_be_built_in_any_own_land_gemark():
    """"(Bn) ... in jeder Landgemark: BM = Mine." """
    seg = world()
    own(seg, 1, "101.13")
    run(seg, Build(Building.MINE, A("101.13")))
    assert seg.constructions[0].kind is ProjectKind.MINE


def test_building_in_a_foreign_gemark_is_refused():
    """"... in einer Gemark des eigenen Königreiches gebaut." """
    seg = world(kingdoms=(1, 2))
    own(seg, 2, "101.13")
    m = run(seg, Build(Building.MINE, A("101.13")))
    assert "nicht zum eigenen Königreich" in m.log.of_kind("k.build.refused")[0].why


def test_a_harbour_needs_an_adjacent_water_gemark():
    """wdg: "Der Begriff Hafen ist ein Sammelbegriff für Schiffswerften" — a Hafen only
    in a settlement bordering water (docs/rules.md)."""
    seg = world()
    add_settlement(seg, "101.17", 100, kingdom=1)   # row 2: inland
    add_settlement(seg, "101.09", 100, kingdom=1)   # row 1: coast
    seg.buildings[2][seg.grid.index(at(seg, "101.17"))] = 1  # palaces: two K orders
    seg.buildings[2][seg.grid.index(at(seg, "101.09"))] = 1
    m = run(seg, Build(Building.HAFEN, A("101.17")), Build(Building.HAFEN, A("101.09")))
    assert "Wassergemark" in m.log.of_kind("k.build.refused")[0].why
    assert [c.position for c in seg.constructions] == [at(seg, "101.09")]


def test_building_again_enlarges_up_to_the_cap():
    """"Die Bauwerke" (c): "Wird ein vorhandenes Bauwerk nochmals gebaut, so wird es dadurch
    vergrößert. Ab einer bestimmten Größe bringt eine Erweiterung ... keinen Vorteil mehr." """
    seg = world(treasury=200_000)
    cap = RULES.int("economy", "buildings", "max_level")
    h = add_settlement(seg, "101.17", 100, kingdom=1, buildings={Building.KASERNE: cap - 1})
    run(seg, Build(Building.KASERNE, A("101.17")))
    assert len(seg.constructions) == 1
    seg.buildings[1][seg.grid.index(h)] = cap
    seg.constructions.clear()
    m = run(seg, Build(Building.KASERNE, A("101.17")))
    assert m.log.of_kind("k.build.refused") and not seg.constructions


def test_an_order_the_treasury_cannot_pay_is_refused():
    """"Der Reichsschatz" (e): "ein Herrscher kann keine Schulden machen!" """
    seg = world(treasury=49_999)
    add_settlement(seg, "101.17", 100, kingdom=1)
    m = run(seg, Build(Building.KASERNE, A("101.17")))
    assert seg.kingdoms[1].treasury == 49_999
    assert "Schulden" in m.log.of_kind("k.build.refused")[0].why


def test_settlement_units_cost_1000_each_doubled_in_swamp():
    """"Die Siedlung" (c): 1.000 GS per Baueinheit, "in den Geländearten Sumpf ... auf das
    Doppelte"; (b) paid at the start."""
    seg = world(treasury=300_000)
    own(seg, 1, "101.17", "101.12")  # Tiefland, Tieflandsumpf
    run(seg, Settle(A("101.17"), 100))
    assert seg.kingdoms[1].treasury == 200_000
    seg.buildings[2][seg.grid.index(at(seg, "101.17"))] = 1
    run(seg, Settle(A("101.12"), 50))
    assert seg.kingdoms[1].treasury == 100_000


def test_settlement_units_cost_triple_in_mountains_and_none_in_a_volcano():
    """"Die Siedlung" (c): "in den Geländearten Gebirge ... auf das Dreifache ... In der
    Geländeart Vulkan kann keine Siedlung errichtet werden." """
    seg = world(treasury=300_000)
    own(seg, 1, "101.19", "101.14")  # Gebirge, Hochlandvulkan
    seg.buildings[2][seg.grid.index(at(seg, "101.19"))] = 1  # two palaces: two orders
    seg.buildings[2][seg.grid.index(at(seg, "101.14"))] = 1
    m = run(seg, Settle(A("101.19"), 10), Settle(A("101.14"), 10))
    assert seg.kingdoms[1].treasury == 300_000 - 30_000
    assert "vulkan" in m.log.of_kind("k.settle.refused")[0].why


def test_a_settlement_order_holds_1_to_100_units():
    """"Die Siedlung" (d): "Jeder einzelne Bauauftrag kann zwischen 1 und 100 Baueinheiten
    umfassen." """
    seg = world(treasury=300_000)
    own(seg, 1, "101.17")
    m = run(seg, Settle(A("101.17"), 101))
    assert m.log.of_kind("k.settle.refused") and not seg.constructions


def test_one_kingdom_order_per_palace_at_least_one_at_most_ten():
    """"Pro Palast und Mond ... einen Befehl ... Die maximale Anzahl beträgt jedoch 10 und
    die minimale 1 Königreichbefehle pro Mond." """
    seg = world(treasury=1_000_000)
    m = run(seg, Festival(100), Festival(100))
    assert len(m.log.of_kind("k.festival")) == 1 and len(m.log.of_kind("k.refused")) == 1
    for i in range(12):
        add_settlement(seg, (i % 6, 2 + i // 6), 100, kingdom=1, buildings={Building.PALAST: 1})
    m = run(seg, *[Festival(100) for _ in range(12)])
    assert len(m.log.of_kind("k.festival")) == 10 and len(m.log.of_kind("k.refused")) == 2


def test_diplomacy_changes_by_at_most_two_a_month_within_1_to_9():
    """"Der Diplomatiestatus ... pro Mond nur maximal um den Wert +2 oder -2"; values 1..9."""
    seg = world(kingdoms=(1, 2, 3))
    seg.kingdoms[1].diplomacy = {2: 5, 3: 8}
    for i in range(3):
        add_settlement(seg, (i, 2), 100, kingdom=1, buildings={Building.PALAST: 1})
    m = run(seg, ChangeDiplomacy(2, -2), ChangeDiplomacy(2, -1), ChangeDiplomacy(3, 2))
    assert seg.kingdoms[1].diplomacy == {2: 3, 3: 9}
    assert len(m.log.of_kind("k.diplomacy.refused")) == 1


def test_diplomacy_only_toward_kingdoms_on_the_list_and_only_ones_own_side():
    """"... zu einem Königreich ... das in der Liste der diplomatischen Beziehungen ...
    aufgeführt ist"; "jeweils nur der eigene Diplomatiestatus festgesetzt werden" """
    seg = world(kingdoms=(1, 2, 3))
    seg.kingdoms[1].diplomacy = {2: 5}
    seg.kingdoms[2].diplomacy = {1: 5}
    m = run(seg, ChangeDiplomacy(3, 1))
    assert m.log.of_kind("k.diplomacy.refused")
    run(seg, ChangeDiplomacy(2, 1))
    assert seg.kingdoms[1].diplomacy[2] == 6 and seg.kingdoms[2].diplomacy[1] == 5


def test_a_festival_spends_the_gold_and_raises_popularity():
    """"(F+) Volksfest veranstalten ... kann die Beliebtheit des Herrschers beim Volk
    erhöhen" (economy.yaml, festival)."""
    seg = world(treasury=10_000)
    own(seg, 1, "101.17", "101.18")
    run(seg, Festival(1000))
    assert seg.kingdoms[1].treasury == 9000
    assert seg.kingdoms[1].popularity == 55


def test_a_festival_of_a_herrscherin_raises_her_popularity():
    """Issue 20: the festival's text names a female ruler "Herrscherin"."""
    seg = world(treasury=10_000)
    seg.kingdoms[1].herrscherin = True
    own(seg, 1, "101.17", "101.18")
    m = run(seg, Festival(1000))
    text = m.log.of_kind("k.festival")[0].why
    assert "die Beliebtheit der Herrscherin steigt von 50 auf 55" in text


def test_palaces_are_counted_as_they_stood_at_the_start_of_the_month():
    """"Pro Palast und Mond kann der Herrscher grundsätzlich einen Befehl geben";
    docs/rules.md "Kingdom orders": the palaces in own gemarks at the start of the
    month. Kingdom 1 begins the month with two; one of their gemarks changes hands
    after the start (as by the game master's change of owner, step 15): this month
    still allows two orders."""
    seg = world(treasury=1_000_000)
    for i in range(2):
        add_settlement(seg, (i, 2), 100, kingdom=1, buildings={Building.PALAST: 1})
    m = month(seg, k_sheet(1, Festival(100), Festival(100)))
    seg.owner[seg.grid.index(at(seg, (1, 2)))] = 0
    kingdom_orders(m)
    assert len(m.log.of_kind("k.festival")) == 2 and not m.log.of_kind("k.refused")
