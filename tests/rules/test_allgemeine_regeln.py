""""Allgemeine Regeln für Heere": the points that have no test elsewhere
(docs/rules-coverage.md lists where (a)-(s) are tested)."""

from __future__ import annotations

from rulekit import month, sheets

from wdg.engine.army_orders import phase_a
from wdg.orders import model as mo
from wdg.orders.checker import check_sheet
from wdg.orders.model import Board, Disembark
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment
from wdg.world.state import Building, TroopType

HAFEN = {Building.HAFEN: 1, Building.KASERNE: 1}


def harbours():
    """Row 0 water; (0,1) a Bergland harbour (height 3), (1,1) a Hochland
    harbour (height 2), both bordering the water; a fleet of 5 ships and a
    warrior army in each."""
    seg = small_segment(["~K ~K ~K ~K", "B. H. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    for i, where in enumerate(((0, 1), (1, 1))):
        add_settlement(seg, where, 150, kingdom=1, buildings=HAFEN)
        add_army(seg, 11 + i, 1, where, troop=TroopType.SCHIFFE, units=5)
        add_army(seg, 21 + i, 1, where, units=100)
    return seg


def test_an_army_boards_ships_only_from_a_harbour_of_height_1_or_2():
    """(q) "Beim Ein- und Ausschiffen werden Schiffe wie Landgemarken der Höhenstufe 1
    behandelt" with "Die Bewegung": "immer nur Gemarken der direkt darüber- oder
    darunterliegende Höhenstufe" — no boarding from a Bergland harbour (3 -> 1)."""
    seg = harbours()
    m = month(seg, sheets(seg, a={21: Board(11), 22: Board(12)}))
    phase_a(m)
    assert seg.armies[21].carried_by is None and seg.armies[11].carrying is None
    refused = m.log.of_kind("a.bs.refused")
    assert [e.army for e in refused] == [21] and "Höhenstufe" in refused[0].why
    assert seg.armies[22].carried_by == 12


def test_an_army_leaves_ships_only_into_a_harbour_of_height_1_or_2():
    """(q) applies to "Ausschiffen" too: an army carried into a Bergland harbour cannot
    step off there (3 -> 1); in a Hochland harbour (2) it can."""
    seg = harbours()
    for fleet, army in ((11, 21), (12, 22)):
        seg.armies[fleet].carrying, seg.armies[army].carried_by = army, fleet
    m = month(seg, sheets(seg, a={21: Disembark(seg.grid.address_of(at(seg, (0, 1)))),
                                  22: Disembark(seg.grid.address_of(at(seg, (1, 1))))}))
    phase_a(m)
    assert seg.armies[21].carried_by == 11
    assert [e.army for e in m.log.of_kind("a.vs.refused")] == [21]
    assert seg.armies[22].carried_by is None and seg.armies[12].carrying is None


def test_the_checker_refuses_boarding_and_leaving_ships_above_height_2():
    """The order checker knows (q) as well, and that "(vs)" leads only to the harbour or
    to an adjacent "Küstengemark" (a land gemark of height 1)."""
    seg = harbours()
    seg.kingdoms[1].player.password_hash = ""
    seg.armies[12].carrying, seg.armies[22].carried_by = 22, 12
    b, h, t = (seg.grid.address_of(at(seg, x)) for x in ((0, 1), (1, 1), (2, 1)))
    far = seg.grid.address_of(at(seg, (1, 2)))  # Tiefland, not at the coast
    text = (f"Segment: test\nKönigreich: 1\nPasswort: x\nH\nHeer 0011 {b}\nHeer 0012 {h}\n"
            f"Heer 0021 {b}\nA: bs 0011\nHeer 0022 {h}\nA: vs {far}\n")
    errors = [d.message for d in check_sheet(parse_sheet(text), build_view(seg, 1))
              if d.severity is mo.Severity.ERROR]
    assert len(errors) == 2 and "Höhenstufe" in errors[0] and "Küstengemark" in errors[1]
    ok = text.replace(f"A: vs {far}", f"A: vs {t}")
    left = [d.message for d in check_sheet(parse_sheet(ok), build_view(seg, 1))
            if d.severity is mo.Severity.ERROR]
    assert len(left) == 1 and "Einschiffen" in left[0]


def stromtal_coast(month_number: int):
    """Row 0 water; (0,1) a harbour town, (1,1) a Tieflandstromtal on the coast;
    a fleet in the harbour carries a warrior army; the month ``month_number``."""
    seg = small_segment(["~K ~K ~K ~K", "T. Ts T. T."], date=MonthDate(412, month_number))
    add_kingdom(seg, 1)
    add_settlement(seg, (0, 1), 150, kingdom=1, buildings=HAFEN)
    add_army(seg, 11, 1, (0, 1), troop=TroopType.SCHIFFE, units=5)
    add_army(seg, 21, 1, (0, 1), units=100)
    seg.armies[11].carrying, seg.armies[21].carried_by = 21, 11
    return seg


def test_an_army_cannot_leave_its_fleet_into_a_stromtal_in_spring():
    """(f) "In den Monden des Frühjahres (4-6) kann die Geländeart Stromtal nicht
    betreten werden": ``vs`` onto an adjacent Tieflandstromtal is refused in Dormit,
    Endex and Pluz (the army stays on the fleet) and carried out in Gurudin."""
    for month_number in (4, 5, 6, 7):
        seg = stromtal_coast(month_number)
        target = seg.grid.address_of(at(seg, (1, 1)))
        m = month(seg, sheets(seg, a={21: Disembark(target)}))
        phase_a(m)
        if month_number <= 6:
            assert seg.armies[21].carried_by == 11 and seg.armies[11].carrying == 21
            refused = m.log.of_kind("a.vs.refused")
            assert [e.army for e in refused] == [21] and "stromtal" in refused[0].why
        else:
            assert seg.armies[21].carried_by is None
            assert seg.armies[21].position == at(seg, (1, 1))


def test_the_checker_refuses_leaving_ships_into_a_stromtal_in_spring():
    """The checker asks the same rule ((f)): ``vs`` into the Stromtal is an error in
    Endex (5) and none in Gurudin (7)."""
    for month_number, expected in ((5, 1), (7, 0)):
        seg = stromtal_coast(month_number)
        seg.kingdoms[1].player.password_hash = ""
        h, s = (seg.grid.address_of(at(seg, x)) for x in ((0, 1), (1, 1)))
        text = (f"Segment: test\nKönigreich: 1\nPasswort: x\nH\nHeer 0011 {h}\n"
                f"Heer 0021 {h}\nA: vs {s}\n")
        errors = [d.message for d in check_sheet(parse_sheet(text), build_view(seg, 1))
                  if d.severity is mo.Severity.ERROR]
        assert len(errors) == expected
        if expected:
            assert "stromtal" in errors[0] and "(f)" in errors[0]
