""""Der Feldherr" and "Erfahrung des Feldherren": the points not yet tested
under tests/engine (test_phase_a.py tests nf, nh one by one)."""

from __future__ import annotations

from rulekit import RULES, month, sheets

from wdg.engine.combat import army_strength
from wdg.engine.movement import movement
from wdg.engine.turn import resolve_month
from wdg.orders.model import Activate, HireGeneral, Move
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import ArmyStatus, Building, General, GeneralOffer, TroopType


def test_a_hired_general_can_activate_his_army_only_in_the_following_month():
    """"c) Ein Heer, für das ein Feldherr angeworben wird, wird durch diese Anwerbung
    nicht automatisch aktiv, sondern kann dann erst im darauf folgenden Mond aktiviert
    werden!"; "(nh) ... Ab dem folgenden Mond müssen für das Heer dann Unterhaltskosten
    bezahlt werden." Three whole months through the runner."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=100_000)
    town = add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1})
    add_army(seg, 101, 1, None, troop=None)
    seg.kingdoms[1].offer = GeneralOffer(General("Hagen", TroopType.REITER, 30), 8000)

    resolve_month(seg, sheets(seg, a={101: HireGeneral()}), RULES)
    a = seg.armies[101]
    assert a.general.name == "Hagen" and a.status is ArmyStatus.PASSIVE

    r = resolve_month(seg, sheets(seg, a={101: Activate(seg.grid.address_of(town))}), RULES)
    assert a.status is ArmyStatus.ACTIVATING and a.position == town
    assert not r.log.of_kind("pay.upkeep")
    activation = RULES.int("economy", "activation", "Reiter")
    assert [e.gold for e in r.log.of_kind("a.nh")] == [-activation]

    r = resolve_month(seg, {}, RULES)
    assert a.status is ArmyStatus.ACTIVE
    assert [e.gold for e in r.log.of_kind("pay.upkeep")] == \
        [-RULES.int("economy", "upkeep", "Reiter")]


def test_a_more_experienced_general_makes_his_army_fight_better():
    """"Erfahrung des Feldherren ... hat einen Einfluß auf die Kampfqualität" — the
    same soldiers under a general of experience 60 are stronger than under one of 10."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    green = add_army(seg, 1, 1, (0, 0), experience=10)
    old = add_army(seg, 2, 1, (0, 0), experience=60)
    m = month(seg)
    h = at(seg, (0, 0))
    assert army_strength(m, old, h, 1000) > army_strength(m, green, h, 1000)


def test_the_general_suffers_no_losses_when_his_army_moves():
    """"Feldherren erleiden bei ihrer Bewegung keine Verluste" — entering a Hochlandvulkan
    costs 100 soldiers their share (movement.yaml, losses), the general stays with his
    experience."""
    seg = small_segment(["T. Hv"], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (0, 0), units=100, experience=25)
    m = month(seg, sheets(seg, b={1: Move((Direction.O,))}))
    movement(m)
    rate = RULES.int("movement", "losses", "Vulkan")
    assert a.position == at(seg, (1, 0)) and a.units == 100 - rate
    assert a.general is not None and a.general.experience == 25


def test_a_game_masters_offer_leaves_this_months_offer_hireable_and_is_hired_next_month():
    """"b) ... Dieser Befehl wirbt genau den Feldherren an, der sich im Mond zuvor dem
    Herrscher angeboten hatte"; "a) ... Dieses Angebot wird dem Herrscher vom
    Segmentleiter jeweils automatisch mitgeteilt." The game master's ``FELDHERR`` in
    the month a kingdom hires its offer must neither swap the general it saw last
    month nor be wiped by the end-of-month draw: kingdom 2 hires Hagen for 21.750 GS
    (not the game master's "Teuer" for 90.000), kingdom 1 gets the game master's
    offer on this month's sheet and hires it the month after."""
    from wdg.orders import gmsheet

    seg = small_segment(["T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=200_000)
    add_kingdom(seg, 2, treasury=200_000)
    add_army(seg, 101, 1, None, troop=None)
    add_army(seg, 201, 2, None, troop=None)
    seg.kingdoms[2].offer = GeneralOffer(General("Hagen", TroopType.KRIEGER, 30), 21_750)
    gm = gmsheet.parse_gm_sheet('FELDHERR 1 Reiter 40 3000 NAME "Orlan"\n'
                                'FELDHERR 2 Krieger 90 90000 NAME "Teuer"\n')

    r = resolve_month(seg, sheets(seg, a={201: HireGeneral()}), RULES, gm_sheet=gm)
    assert seg.armies[201].general.name == "Hagen"
    assert [e.gold for e in r.log.of_kind("a.nf")] == [-21_750]
    assert seg.kingdoms[1].offer.general.name == "Orlan"  # not wiped by the draw
    assert seg.kingdoms[2].offer.general.name == "Teuer"  # next month's offer
    shown = [e.why for e in r.log.of_kind("gm.general_offer") if e.kingdom == 1]
    assert shown and "Orlan" in shown[0] and "3.000\u00a0GS" in shown[0]

    r = resolve_month(seg, sheets(seg, a={101: HireGeneral()}), RULES)
    assert seg.armies[101].general.name == "Orlan"
    assert [e.gold for e in r.log.of_kind("a.nf")] == [-3000]
