""""Das Schiff": "Ein Schiff hat eine Tragkraft von 100 Raumfaktoren" — the fleet's
capacity holds not only when an army boards but wherever the numbers change
(docs/rules.md, "Fleet capacity")."""

from __future__ import annotations

import copy

from rulekit import RULES, month, sheets

from wdg.engine.army_orders import phase_a
from wdg.engine.economy import pay_and_upkeep
from wdg.engine.turn import begin_month
from wdg.orders.checker import check_sheet
from wdg.orders.model import DismissArmy, Release
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.rules import Rules
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
from wdg.world.state import ArmyStatus, Building, TroopType


def at_sea(ships: int = 2, soldiers: int = 200, troop: TroopType = TroopType.KRIEGER,
           treasury: int = 100_000):
    """Fleet 11 of ``ships`` on the open sea at (1, 0) carrying army 21; a harbour
    town with fleet 12 at (1, 1)."""
    seg = small_segment(["~M ~M ~M", "T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=treasury)
    fleet = add_army(seg, 11, 1, (1, 0), troop=TroopType.SCHIFFE, units=ships)
    cargo = add_army(seg, 21, 1, (1, 0), troop=troop, units=soldiers)
    fleet.carrying, cargo.carried_by = 21, 11
    return seg


def never_paid_rules() -> Rules:
    """The shipped rules with every unpaid unit deserting (a certain draw)."""
    data = copy.deepcopy(RULES._data)
    data["economy"]["shortfall"]["desertion_chance"] = 1.0
    return Rules(data)


def test_releasing_ships_the_carried_army_still_needs_is_refused():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": two ships carry 200
    Krieger; ``er 1`` would leave one ship carrying 200, so it is refused; ``er 1`` of a
    fleet of three carrying 200 leaves two ships that still carry them and is done."""
    seg = at_sea(ships=2)
    m = month(seg, sheets(seg, a={11: Release(1)}))
    phase_a(m)
    assert seg.armies[11].units == 2 and seg.armies[21].units == 200
    refused = m.log.of_kind("a.er.refused")
    assert refused and "0 Schiffe" in refused[0].why

    seg = at_sea(ships=3)
    phase_a(month(seg, sheets(seg, a={11: Release(1)})))
    assert seg.armies[11].units == 2 and seg.armies[21].carried_by == 11


def test_releasing_every_ship_under_a_carried_army_is_refused():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": ``er 2`` of a fleet of two
    carrying 200 soldiers would leave 0 ships carrying 200 — refused, the fleet keeps
    its ships and its army."""
    seg = at_sea(ships=2)
    m = month(seg, sheets(seg, a={11: Release(2)}))
    phase_a(m)
    assert seg.armies[11].units == 2 and seg.armies[11].carrying == 21
    assert m.log.of_kind("a.er.refused")


def test_handing_soldiers_to_a_carried_army_may_not_overload_its_fleet():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": an army in boats handing
    1.000 Krieger (``eh``) to an army carried by one ship (100 Raumfaktoren, 50 aboard)
    is refused; 50 more would fit and are handed over."""
    seg = at_sea(ships=1, soldiers=50)
    boat = add_army(seg, 22, 1, (1, 0), units=1000)
    boat.boats = 50
    m = month(seg, sheets(seg, a={22: DismissArmy(21)}))
    phase_a(m)
    assert seg.armies[21].units == 50 and seg.armies[22].units == 1000
    assert "Raumfaktoren" in m.log.of_kind("a.eh.refused")[0].why

    seg = at_sea(ships=1, soldiers=50)
    small = add_army(seg, 22, 1, (1, 0), units=50)
    small.boats = 3
    phase_a(month(seg, sheets(seg, a={22: DismissArmy(21)})))
    assert seg.armies[21].units == 100 and seg.armies[22].status is ArmyStatus.PASSIVE


def test_handing_soldiers_to_an_army_in_boats_may_not_overload_its_boats():
    """"Das Boot": "Es werden genau so viele Boote gebaut, daß das gesamte Heer
    einschiffen kann" — the boats carry what was built for (``space.boat_capacity``
    each); more soldiers handed over with ``eh`` are refused."""
    seg = at_sea(ships=1, soldiers=50)
    boats = add_army(seg, 23, 1, (1, 0), units=40)
    boats.boats = 2  # 40 Raumfaktoren
    add_army(seg, 24, 1, (1, 0), units=10).boats = 1
    m = month(seg, sheets(seg, a={24: DismissArmy(23)}))
    phase_a(m)
    assert seg.armies[23].units == 40 and m.log.of_kind("a.eh.refused")


def test_ships_that_desert_at_sea_drown_the_soldiers_they_can_no_longer_carry():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren" with "Besoldung und
    Unterhalt" ("kann es dazu kommen, daß Rüstgüter desertieren") and (p) ("Fracht ...
    unrettbar versunken"): when unpaid ships desert at sea, the soldiers beyond the
    remaining ships' Tragkraft drown; when no ship is left, the army drowns with its
    general."""
    rules = never_paid_rules()
    seg = at_sea(ships=6, soldiers=300, troop=TroopType.REITER, treasury=0)  # 600 RF
    m = begin_month(seg, {}, rules)
    pay_and_upkeep(m)
    fleet, cargo = seg.armies[11], seg.armies[21]
    assert fleet.units == 0  # nothing was paid: every ship deserted
    assert cargo.status is ArmyStatus.PASSIVE and cargo.general is None
    assert m.log.of_kind("transport.drowned")

    # half the fleet's bill paid: 3 of 6 ships desert, 3 carry 300 RF = 150 Reiter
    bill = RULES.int("economy", "upkeep", "Schiffe") + 6 * RULES.int("economy", "pay", "Schiffe")
    seg = at_sea(ships=6, soldiers=300, troop=TroopType.REITER, treasury=bill // 2)
    m = begin_month(seg, {}, rules)
    pay_and_upkeep(m)
    assert seg.armies[11].units == 3
    drowned = m.log.of_kind("transport.drowned")
    assert [e.data["lost"] for e in drowned] == [150] and drowned[0].army == 21


def test_ships_that_desert_in_a_harbour_set_their_army_ashore():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren"; a fleet in a harbour
    town stands on land (q): when its ships desert and can no longer carry the army,
    the army goes ashore there instead of drowning."""
    seg = small_segment(["~M ~M", "T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=0)
    add_settlement(seg, (0, 1), 150, kingdom=1, buildings={Building.HAFEN: 1})
    fleet = add_army(seg, 11, 1, (0, 1), troop=TroopType.SCHIFFE, units=2)
    cargo = add_army(seg, 21, 1, (0, 1), units=200)
    fleet.carrying, cargo.carried_by = 21, 11
    m = begin_month(seg, {}, never_paid_rules())
    pay_and_upkeep(m)
    assert cargo.units <= 200 and cargo.carried_by is None and fleet.carrying is None
    assert cargo.status is ArmyStatus.ACTIVE and m.log.of_kind("transport.ashore")


def test_the_checker_warns_when_er_or_eh_would_overload_a_fleet():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": the checker warns about
    ``er`` of ships a carried army needs and about ``eh`` into a carried army beyond
    the Tragkraft; the engine then refuses."""
    seg = at_sea(ships=2)
    add_army(seg, 22, 1, (1, 0), units=1000).boats = 50
    pos = seg.grid.address_of(seg.armies[11].position)
    seg.kingdoms[1].player.password_hash = ""
    text = (f"Segment: test\nKönigreich: 1\nPasswort: x\nH\nHeer 0011 {pos}\nA: er 1\n"
            f"Heer 0021 {pos}\nHeer 0022 {pos}\nA: eh 0021\n")
    diags = check_sheet(parse_sheet(text), build_view(seg, 1))
    warned = [d for d in diags if "Raumfaktoren" in d.message]
    assert {d.line for d in warned} == {6, 9}
    assert all(d.severity.name == "WARNING" for d in warned)


def test_the_generator_loads_no_fleet_beyond_its_tragkraft():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": the stress preset puts land
    armies on fleets at sea; none carries more Raumfaktoren than its ships can."""
    from wdg.world.stress import stress_segment

    seg, _ = stress_segment(0.1)
    space = {TroopType.KRIEGER: 1, TroopType.REITER: 2}
    loads = [(f.units, seg.armies[f.carrying]) for f in seg.armies.values() if f.carrying]
    assert loads
    assert all(cargo.units * space[cargo.troop] <= ships * 100 for ships, cargo in loads)
