"""Step 30: "Die Heeresbefehle der Phase A" (nf nh eh nr er bb bs vs nn)."""

from __future__ import annotations

from econ_helpers import RULES, a_sheet, ledger_ok, month, world

from wdg.engine.army_orders import launch_boats, phase_a
from wdg.orders.model import (
    Activate,
    Board,
    BuildBoats,
    Disembark,
    DismissArmy,
    HireGeneral,
    Recruit,
    Release,
    Rename,
)
from wdg.world.address import Address
from wdg.world.factory import add_army, add_settlement, at
from wdg.world.hexgrid import Direction
from wdg.world.state import ArmyStatus, Building, General, GeneralOffer, TroopType
from wdg.world.terrain import terrain

A = Address.parse
KASERNE = {Building.KASERNE: 1}


def run(seg, *blocks, kingdom=1):
    m = month(seg, a_sheet(seg, kingdom, *blocks))
    before = {n: k.treasury for n, k in seg.kingdoms.items()}
    phase_a(m)
    assert ledger_ok(m, before)
    return m


def test_nf_hires_exactly_last_months_offer_and_dismisses_the_old_general():
    """"(nf) ... Es wird jeweils genau der Feldherr angeworben, der sich im vorangegangenen
    Mond dem Herrscher angeboten hat. Befindet sich bei dem Heer noch ein Feldherr, so wird
    dieser automatisch entlassen"; the premium is paid."""
    seg = world(treasury=10_000)
    add_army(seg, 101, 1, None)
    seg.kingdoms[1].offer = GeneralOffer(General("Hagen", TroopType.REITER, 30), 8000)
    run(seg, (101, HireGeneral()))
    a = seg.armies[101]
    assert a.general.name == "Hagen" and a.troop is TroopType.REITER
    assert seg.kingdoms[1].treasury == 2000 and seg.kingdoms[1].offer is None
    assert a.status is ArmyStatus.PASSIVE


def test_nf_without_an_offer_or_for_an_active_army_is_refused():
    """"Feldherren können nur angeworben werden, wenn sie sich ... angeboten haben"; "(b)
    Feldherren können nur für passive Heere angeworben werden." """
    seg = world()
    add_army(seg, 101, 1, None)
    add_army(seg, 102, 1, "101.09")
    m = run(seg, (101, HireGeneral()), (102, HireGeneral()))
    assert len(m.log.of_kind("a.nf.refused")) == 2


def test_nh_activates_a_passive_army_in_an_own_settlement_with_kaserne():
    """"Landheere können nur in Siedlungen aktiviert werden, in denen es Kasernen gibt ... Ab
    dem Beginn des folgenden Mondes ist das Heer dann aktiv"; it needs the money."""
    seg = world(treasury=5000)
    add_settlement(seg, "101.17", 100, kingdom=1, buildings=KASERNE)
    add_army(seg, 101, 1, None)
    run(seg, (101, Activate(A("101.17"))))
    a = seg.armies[101]
    assert a.status is ArmyStatus.ACTIVATING and a.position == at(seg, "101.17")
    assert seg.kingdoms[1].treasury == 5000 - RULES.int("economy", "activation", "Krieger")


def test_nh_for_a_fleet_needs_a_harbour_and_without_money_fails():
    """"Flotten können nur in Siedlungen aktiviert werden, in denen es Häfen gibt";
    "Befindet sich im Reichsschatz ... nicht die ... benötigte Summe, so findet die
    Aktivierung nicht statt." """
    seg = world(treasury=100_000)
    add_settlement(seg, "101.09", 100, kingdom=1, buildings=KASERNE)
    add_army(seg, 103, 1, None, troop=TroopType.SCHIFFE)
    m = run(seg, (103, Activate(A("101.09"))))
    assert m.log.of_kind("a.nh.refused")
    seg.buildings[0][seg.grid.index(at(seg, "101.09"))] = 1
    seg.kingdoms[1].treasury = 9999
    m = run(seg, (103, Activate(A("101.09"))))
    assert m.log.of_kind("a.nh.refused") and seg.armies[103].status is ArmyStatus.PASSIVE


def test_a_passive_army_without_general_cannot_be_activated():
    """"Ein Heer ohne Feldherr kann jedoch niemals aktiv sein" """
    seg = world()
    add_settlement(seg, "101.17", 100, kingdom=1, buildings=KASERNE)
    add_army(seg, 101, 1, None, troop=None)
    m = run(seg, (101, Activate(A("101.17"))))
    assert m.log.of_kind("a.nh.refused")


def test_passive_armies_take_only_nf_and_nh():
    """"Ein passives Heer kann nur einen der folgenden Befehle ... erhalten" """
    seg = world()
    add_army(seg, 101, 1, None)
    m = run(seg, (101, Recruit(10)))
    assert m.log.of_kind("a.nr.refused")


def test_eh_hands_everything_to_a_target_army_and_goes_to_000_00():
    """"(eh) ... mitsamt allen Rüstgütern an ein anderes Zielheer, welches sich in derselben
    Gemark befindet und derselben Truppengattung angehört, übergeben ... Das Heer begibt
    sich in jedem Fall ... zur Sondergemark 000.00" """
    seg = world()
    add_army(seg, 101, 1, "101.09", units=300, morale=80)
    add_army(seg, 102, 1, "101.09", units=100, morale=40)
    run(seg, (101, DismissArmy(102)))
    a, t = seg.armies[101], seg.armies[102]
    assert t.units == 400 and t.morale == 70
    assert a.status is ArmyStatus.PASSIVE and a.position is None and a.units == 0


def test_eh_into_an_army_of_another_troop_type_is_refused():
    """"... derselben Truppengattung angehört" """
    seg = world()
    add_army(seg, 101, 1, "101.09", units=300)
    add_army(seg, 102, 1, "101.09", troop=TroopType.REITER, units=100)
    m = run(seg, (101, DismissArmy(102)))
    assert m.log.of_kind("a.eh.refused") and seg.armies[101].units == 300


def test_eh_0000_disbands_and_the_soldiers_scatter():
    """"Wird anstelle der Nummer des Zielheeres die Nummer 0000 angegeben, so löst sich das
    Heer vollständig auf"; dismissed soldiers do not return to the militia."""
    seg = world()
    add_army(seg, 101, 1, "101.09", units=300)
    militia = seg.militia.copy()
    run(seg, (101, DismissArmy(0)))
    assert seg.armies[101].units == 0 and (seg.militia == militia).all()


def test_a_dismissed_general_may_quit():
    """"Bei jeder Entlassung eines Heeres besteht die Gefahr, daß der Feldherr ... sein Amt
    aufgibt" (generals.yaml, dismissal.quit_chance)."""
    quits = 0
    for seed in range(40):
        seg = world()
        seg.seed = seed
        add_army(seg, 101, 1, "101.09")
        m = run(seg, (101, DismissArmy(0)))
        quits += m.log.of_kind("a.eh")[0].data["general_quit"]
        assert (seg.armies[101].general is None) == m.log.of_kind("a.eh")[0].data["general_quit"]
    assert 0 < quits < 40


def test_nr_recruits_from_the_militia_for_the_premium():
    """"Das Rüstvolumen ist gleich der Anzahl der Milizen ... ein Reiter wie 2 Milizionäre";
    "Die Werbeprämie für einen Reiter beträgt 20 Goldsterne"; "Bei Anwerbung von Milizen
    verringert sich ihre Zahl" """
    seg = world(treasury=10_000)
    h = add_settlement(seg, "101.17", 100, kingdom=1, militia=1000, buildings=KASERNE)
    add_army(seg, 102, 1, "101.17", troop=TroopType.REITER, units=0)
    run(seg, (102, Recruit(300)))
    assert seg.armies[102].units == 300
    assert seg.at(seg.militia, h) == 400 and seg.kingdoms[1].treasury == 4000


def test_nr_is_limited_by_the_recruitment_volume_in_ascending_army_order():
    """"Rüsten mehrere Heere in einem Mond in derselben Siedlung, so geschieht die Rüstung in
    der Reihenfolge der aufsteigenden Heeresnumerierung" — only "so lange, wie das
    Rüstvolumen dieser Siedlung noch nicht ausgeschöpft ist"."""
    seg = world(treasury=100_000)
    add_settlement(seg, "101.17", 100, kingdom=1, militia=500, buildings=KASERNE)
    add_army(seg, 102, 1, "101.17", units=0)
    add_army(seg, 101, 1, "101.17", units=0)
    m = run(seg, (102, Recruit(400)), (101, Recruit(400)))
    assert seg.armies[101].units == 400 and seg.armies[102].units == 100
    assert m.log.of_kind("a.nr.partial")[0].army == 102


def test_nr_needs_the_whole_premium_in_the_treasury():
    """"Eine Anwerbung ist nur möglich, wenn sich im Reichsschatz ... die für die gesamte
    Anwerbung nötige Summe ... befindet" """
    seg = world(treasury=999)
    add_settlement(seg, "101.17", 100, kingdom=1, militia=500, buildings=KASERNE)
    add_army(seg, 101, 1, "101.17", units=0)
    m = run(seg, (101, Recruit(100)))
    assert m.log.of_kind("a.nr.refused") and seg.armies[101].units == 0


def test_ships_are_recruited_only_where_there_is_a_harbour():
    """"Rüstplätze für Schiffe sind alle Siedlungen ... in denen ein Hafen ist ... Durch die
    Anwerbung von 1 Schiff vermindert sich die Anzahl der Milizen also um 1.000." """
    seg = world(treasury=100_000)
    h = add_settlement(seg, "101.09", 100, kingdom=1, militia=2500, buildings=KASERNE)
    add_army(seg, 103, 1, "101.09", troop=TroopType.SCHIFFE, units=0)
    m = run(seg, (103, Recruit(2)))
    assert m.log.of_kind("a.nr.refused")
    seg.buildings[0][seg.grid.index(h)] = 1
    run(seg, (103, Recruit(5)))
    assert seg.armies[103].units == 2 and seg.at(seg.militia, h) == 500
    assert seg.kingdoms[1].treasury == 100_000 - 10_000


def test_recruits_change_the_armys_morale():
    """"werden neue Rüstgüter aufgenommen, so kann sich die Moral verbessern oder
    verschlechtern" (economy.yaml, recruit_morale)."""
    seg = world(treasury=100_000)
    add_settlement(seg, "101.17", 100, kingdom=1, militia=1000, buildings=KASERNE)
    add_army(seg, 101, 1, "101.17", units=100, morale=80)
    run(seg, (101, Recruit(100)))
    assert seg.armies[101].morale == (80 + RULES.int("economy", "recruit_morale")) // 2


def test_er_releases_units_that_scatter():
    """"(er) ... Die entlassenen Rüstgüter zerstreuen sich sofort" """
    seg = world()
    add_army(seg, 101, 1, "101.09", units=300)
    militia = seg.militia.copy()
    run(seg, (101, Release(100)))
    assert seg.armies[101].units == 200 and (seg.militia == militia).all()


def _water_dir(seg, where):
    h = at(seg, where)
    for d in Direction:
        n = h.neighbour(d)
        if seg.grid.contains(n) and seg.at(seg.terrain, n) in (0, 1):
            return d, n
    raise AssertionError("no water")


def test_bb_builds_boats_for_the_whole_army_and_embarks_at_the_end_of_the_month():
    """"(bb) ... Kriegerheer ... in einer Küstengemark der Geländearten Wald, Regenwald oder
    Sumpf ... genau so viele Boote ..., daß das gesamte Heer einschiffen kann ... am Ende des
    Mondes automatisch"; the whole month (no Phase B)."""
    seg = world()
    add_army(seg, 101, 1, "101.10", units=1000)   # Tieflandwald at the coast
    d, water = _water_dir(seg, "101.10")
    m = run(seg, (101, BuildBoats(d)))
    assert 101 in m.busy and seg.armies[101].position == at(seg, "101.10")
    launch_boats(m)
    a = seg.armies[101]
    assert a.position == water and a.boats == 1000 // RULES.int("economy", "space", "boat_capacity")


def test_bb_is_refused_for_riders_and_outside_coastal_woods():
    """"Jedes Kriegerheer, das sich in einer Küstengemark der Geländearten Wald, Regenwald
    oder Sumpf aufhält, kann primitive Boote bauen." """
    seg = world()
    add_army(seg, 101, 1, "101.09", units=100)                         # Tiefland
    add_army(seg, 102, 1, "101.10", troop=TroopType.REITER, units=100)
    d, _ = _water_dir(seg, "101.09")
    m = run(seg, (101, BuildBoats(d)), (102, BuildBoats(d)))
    assert len(m.log.of_kind("a.bb.refused")) == 2 and not m.busy


def test_bb_is_refused_in_a_highland_wood_on_the_water():
    """"Jedes Kriegerheer, das sich in einer Küstengemark der Geländearten Wald, Regenwald
    oder Sumpf aufhält, kann primitive Boote bauen"; a Küstengemark is land of height 1
    next to water (docs/rules.md "Phase A", ``bb``). A Hochlandwald (height 2) on the
    sea is a wood next to water but no Küstengemark: no boats."""
    seg = world()
    seg.terrain[seg.grid.index(at(seg, "101.10"))] = terrain("Hw").id
    add_army(seg, 101, 1, "101.10", units=1000)
    d, _ = _water_dir(seg, "101.10")
    m = run(seg, (101, BuildBoats(d)))
    assert "Küstengemark" in m.log.of_kind("a.bb.refused")[0].why
    assert not m.busy and seg.armies[101].boats == 0


def _harbour(seg, units=5):
    add_settlement(seg, "101.09", 100, kingdom=1, buildings={Building.HAFEN: 1})
    return add_army(seg, 103, 1, "101.09", troop=TroopType.SCHIFFE, units=units)


def test_bs_boards_a_fleet_in_an_own_harbour_town():
    """"(bs) ... in einer Hafenstadt des eigenen Königreiches auf eine Flotte eingeschifft
    ... nur möglich, wenn die Flotte noch kein anderes Heer transportiert ... einen ganzen
    Mond" """
    seg = world()
    _harbour(seg)
    add_army(seg, 101, 1, "101.09", units=400)
    add_army(seg, 102, 1, "101.09", units=10)
    m = run(seg, (101, Board(103)), (102, Board(103)))
    assert seg.armies[101].carried_by == 103 and seg.armies[103].carrying == 101
    assert m.log.of_kind("a.bs.refused")[0].army == 102 and m.busy == {101}


def test_bs_needs_room_100_per_ship():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren"; "Der Raumfaktor eines Reiters
    ist 2." """
    seg = world()
    _harbour(seg, units=5)
    add_army(seg, 102, 1, "101.09", troop=TroopType.REITER, units=251)
    m = run(seg, (102, Board(103)))
    assert m.log.of_kind("a.bs.refused") and seg.armies[102].carried_by is None


def test_bs_a_fleet_carries_exactly_its_tragkraft():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren"; "Der Raumfaktor eines Reiters
    ist 2": 5 ships carry 500 Raumfaktoren, so 250 riders (500) board; one more does not
    (test_bs_needs_room_100_per_ship)."""
    seg = world()
    _harbour(seg, units=5)
    add_army(seg, 102, 1, "101.09", troop=TroopType.REITER, units=250)
    m = run(seg, (102, Board(103)))
    assert not m.log.of_kind("a.bs.refused")
    assert seg.armies[102].carried_by == 103 and seg.armies[103].carrying == 102


def test_vs_leaves_the_fleet_to_an_adjacent_coastal_gemark():
    """"(vs) ... Die Zielgemark muß zum Beginn des Mondes entweder an derselben Stelle wie
    die Flotte (Hafen) oder direkt angrenzend (Küstengemark) sein." """
    seg = world()
    fleet = add_army(seg, 103, 1, "101.02", troop=TroopType.SCHIFFE, units=5)
    army = add_army(seg, 101, 1, "101.02", units=100)
    fleet.carrying, army.carried_by = 101, 103
    m = run(seg, (101, Disembark(A("101.17"))))
    assert m.log.of_kind("a.vs.refused")
    run(seg, (101, Disembark(A("101.10"))))
    assert army.position == at(seg, "101.10") and fleet.carrying is None


def test_no_boarding_a_fleet_in_the_month_another_army_left_it():
    """"Allgemeine Regeln" (m): "Es ist nicht möglich, in demselben Mond ein Landheer von
    einer Flotte auszuschiffen und ein anderes Landheer auf dieselbe Flotte einzuschiffen." """
    seg = world()
    fleet = _harbour(seg)
    a = add_army(seg, 101, 1, "101.09", units=100)
    fleet.carrying, a.carried_by = 101, 103
    add_army(seg, 102, 1, "101.09", units=100)
    m = run(seg, (101, Disembark(A("101.09"))), (102, Board(103)))
    assert a.carried_by is None and m.log.of_kind("a.bs.refused")


def test_nn_renames_the_own_settlement_where_the_army_stands():
    """"(nn) ... die Siedlung des eigenen Königreiches, in dem sich das Heer zum Beginn des
    Mondes befindet ... bis zu 15 beliebigen Zeichen" """
    seg = world()
    h = add_settlement(seg, "101.17", 100, kingdom=1, name="Alt")
    add_army(seg, 101, 1, "101.17")
    run(seg, (101, Rename("Neu-Rabenfels")))
    assert seg.settlement_names[h] == "Neu-Rabenfels"
    run(seg, (101, Rename("Sehr langer Siedlungsname")))
    assert seg.settlement_names[h] == "Sehr langer Sie"


def test_nn_refuses_names_the_game_master_rejects():
    """"Der Segmentleiter kann Namen ablehnen, die beispielsweise nicht zur Spielatmosphäre
    passen" (names.yaml)."""
    seg = world()
    h = add_settlement(seg, "101.17", 100, kingdom=1, name="Alt")
    add_army(seg, 101, 1, "101.17")
    m = run(seg, (101, Rename("www.burg.de")))
    assert m.log.of_kind("a.nn.refused") and seg.settlement_names[h] == "Alt"


def test_orders_for_a_foreign_army_are_not_executed():
    """Only the own armies take orders ("Heeresbefehle sind Befehle, die ein Herrscher den
    Heeren seines Königreiches erteilt")."""
    seg = world(kingdoms=(1, 2))
    add_army(seg, 201, 2, "101.09", units=300)
    m = run(seg, (201, Release(100)), kingdom=1)
    assert m.log.of_kind("a.refused") and seg.armies[201].units == 300
