"""Transport by boat and ship ("Das Boot", "Das Schiff", "Die Bewegung",
"Allgemeine Regeln für Heere" (d), (k), (l)-(q))."""

from __future__ import annotations

from tests.engine._phase_b_world import b, e, month_of, rules_with
from wdg.engine.movement import movement
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment
from wdg.world.state import Building, TroopType

S = TroopType.SCHIFFE


def world(*rows: str):
    seg = small_segment(list(rows), date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    return seg


def boat_army(seg, where, boats=10):
    a = add_army(seg, 1, 1, where, units=500)
    a.boats = boats
    return a


def fleet_with_cargo(seg, where):
    f = add_army(seg, 7, 1, where, troop=S, units=10)
    c = add_army(seg, 8, 1, where, units=900)
    f.carrying, c.carried_by = 8, 7
    return f, c


def test_boats_sail_two_steps_of_50_percent():
    """"Die Bewegung von Booten erfordert: 50% ... in den Geländearten Meer und
    Küstengewässer"."""
    seg = world("~K ~M ~K ~K T.")
    a = boat_army(seg, (0, 0))
    m = month_of(seg, {1: b("O O O")})
    movement(m)
    assert a.position == at(seg, (2, 0))
    assert a.boats == 10
    assert 1 in m.moved


def test_boats_land_their_army_on_a_coastal_gemark_and_are_left_behind():
    """"Gelangen Boote auf eine Küstengemark, so schifft das beförderte Heer
    automatisch aus und die Boote werden unbrauchbar zurückgelassen."""
    seg = world("~K T. T.")
    a = boat_army(seg, (0, 0))
    m = month_of(seg, {1: b("O O")})
    movement(m)
    assert a.position == at(seg, (1, 0))
    assert a.boats == 0
    assert m.log.of_kind("move.landed")[0].data == {"boats": 10}
    assert m.log.of_kind("move.stopped")[0].data["remaining"] == ["O"]


def test_boats_cannot_land_on_a_high_coast():
    """Height rule: from water (0) only level 1 can be entered."""
    seg = world("~K H.")
    a = boat_army(seg, (0, 0))
    movement(month_of(seg, {1: b("O")}))
    assert a.position == at(seg, (0, 0)) and a.boats == 10


def test_ships_sail_four_steps_on_the_open_sea_but_not_five():
    """Schiffe: "25% der Bewegungsreichweite in der Geländeart Meer"."""
    seg = world("~M ~M ~M ~M ~M ~M")
    f = add_army(seg, 7, 1, (0, 0), troop=S, units=10)
    movement(month_of(seg, {7: b("O O O O O")}))
    assert f.position == at(seg, (4, 0))


def test_ships_pay_50_percent_in_coastal_waters():
    """Schiffe: "50% der Bewegungsreichweite in der Geländeart Küstengewässer"."""
    seg = world("~K ~K ~K ~K")
    f = add_army(seg, 7, 1, (0, 0), troop=S, units=10)
    movement(month_of(seg, {7: b("O O O")}))
    assert f.position == at(seg, (2, 0))


def test_a_carried_army_moves_along_with_its_fleet():
    """"Werden Landheere transportiert, so ist stets die Bewegungsreichweite des
    jeweiligen Transportmittels ... maßgeblich"."""
    seg = world("~M ~M ~M ~M ~M")
    f, c = fleet_with_cargo(seg, (0, 0))
    m = month_of(seg, {7: b("O O O"), 8: b("O")})
    movement(m)
    assert f.position == c.position == at(seg, (3, 0))
    assert {7, 8} <= m.moved
    assert m.log.of_kind("move.refused")[0].army == 8


def test_a_fleet_may_enter_a_harbour_and_carries_its_army_there():
    """(d) "Flotten können sich ... nur in Wassergemarken oder in einer Siedlung
    mit einem Hafen aufhalten"; (o) ships end their move in a harbour."""
    seg = world("~K T. T.")
    add_settlement(seg, (1, 0), 150, kingdom=1, buildings={Building.HAFEN: 1})
    f, c = fleet_with_cargo(seg, (0, 0))
    movement(month_of(seg, {7: b("O O")}))
    assert f.position == c.position == at(seg, (1, 0))
    assert c.carried_by == 7


def test_a_fleet_in_a_harbour_may_put_out_to_sea():
    """(o) "Schiffe beginnen ... ihre Fahrt stets in einer Wassergemark oder einer
    Siedlung, in der es einen Hafen gibt"."""
    seg = world("T. ~K ~M")
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.HAFEN: 1})
    f = add_army(seg, 7, 1, (0, 0), troop=S, units=10)
    movement(month_of(seg, {7: b("O O")}))
    assert f.position == at(seg, (2, 0))


def test_a_fleet_carrying_an_army_shatters_on_a_coast_without_harbour():
    """(k) "Wird eine Flotte auf eine Landgemark gelenkt, so kann sie zerschellen.
    Werden von einer solchen Flotte Heere befördert, so ertrinken alle Rüstgüter";
    the general drowns with his army ("Der Feldherr")."""
    seg = world("~K T.")
    f, c = fleet_with_cargo(seg, (0, 0))
    m = month_of(seg, {7: b("O")}, rules=rules_with("movement", shatter_chance=1.0))
    movement(m)
    assert f.units == 0 and c.units == 0
    assert f.general is None and c.general is None
    assert f.position is None and c.position is None
    assert m.log.of_kind("move.shattered")[0].data == {"lost": 10, "soldiers": -10}
    assert m.log.of_kind("move.drowned")[0].data == {"lost": 900, "soldiers": -900}


def test_a_fleet_that_does_not_shatter_turns_back_and_stays_in_the_water():
    """(k) "so kann sie zerschellen" - when it does not, it stays afloat."""
    seg = world("~K T.")
    f, c = fleet_with_cargo(seg, (0, 0))
    m = month_of(seg, {7: b("O")}, rules=rules_with("movement", shatter_chance=0.0))
    movement(m)
    assert f.position == c.position == at(seg, (0, 0))
    assert f.units == 10 and c.units == 900


def test_shattering_is_reproducible_from_the_seed():
    """All chance comes from the month's generator."""
    outcomes = []
    for seed in (3, 3):
        seg = world("~K T.")
        f, _ = fleet_with_cargo(seg, (0, 0))
        movement(month_of(seg, {7: b("O")}, seed=seed))
        outcomes.append(f.units)
    assert outcomes[0] == outcomes[1]


def test_a_fleet_cannot_conquer():
    """(s) "Flotten können keine Gemarken erobern"."""
    seg = world("~K ~K")
    f = add_army(seg, 7, 1, (0, 0), troop=S, units=10)
    m = month_of(seg, {7: e("O")})
    movement(m)
    assert f.position == at(seg, (0, 0)) and not m.claims


def test_a_fleet_entering_a_foreign_harbour_stops_there():
    """(c) applies to every army entering a foreign kingdom's gemark."""
    seg = world("~K T. ~K")
    add_settlement(seg, (1, 0), 150, kingdom=2, buildings={Building.HAFEN: 1})
    f = add_army(seg, 7, 1, (0, 0), troop=S, units=10)
    m = month_of(seg, {7: b("O O")})
    movement(m)
    assert f.position == at(seg, (1, 0))
