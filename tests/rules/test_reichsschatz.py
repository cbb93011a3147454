""""Der Reichsschatz" (a)-(e): the points not yet tested under tests/engine
((a) spread, (c) conquest, (e) no debt are; see docs/rules-coverage.md)."""

from __future__ import annotations

from rulekit import RULES, month, sheets

from wdg.engine.army_orders import phase_a
from wdg.engine.economy import remember_start, taxes, treasury_share
from wdg.orders.model import Recruit
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
from wdg.world.state import Building, Creature


def test_income_arises_even_when_a_foreign_army_or_a_creature_occupies_the_settlement():
    """(b) "Alle Steuer- und sonstige Einnahmen entstehen grundsätzlich in den
    Lagerstätten des Reichsschatzes und zwar auch dann, wenn diese z.B. von einem
    Fabelwesen oder einem fremden Heer besetzt sind." """
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=0)
    add_kingdom(seg, 2, treasury=0, diplomacy={1: 1})
    seg.kingdoms[1].diplomacy[2] = 1
    a = add_settlement(seg, (0, 0), 150, kingdom=1)      # Tiefland 600 + Flecken 2.000
    b = add_settlement(seg, (1, 0), 250, kingdom=1)      # Tiefland 600 + Markt 4.000
    add_army(seg, 201, 2, a, units=5000)
    seg.creatures[1] = Creature(1, "drache", b, count=3)
    m = month(seg)
    remember_start(m)
    taxes(m)
    assert seg.kingdoms[1].treasury == 600 + 2000 + 600 + 4000
    assert seg.kingdoms[2].treasury == 0


def test_recruiting_may_cost_more_than_the_share_stored_in_that_settlement():
    """(d) "Auf die Rüstung ... hat die Position der Lagerstätte des Reichsschatzes keinen
    Einfluß ... Die an dem betreffenden Ort entstehenden Kosten gelten stets als
    königreichintern mit dem Reichsschatz verrechnet." — 10.000 GS in two settlements
    (5.000 each) pay 800 Krieger (8.000 GS) in one of them."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=10_000)
    here = add_settlement(seg, (0, 0), 150, kingdom=1, militia=2000,
                          buildings={Building.KASERNE: 1})
    add_settlement(seg, (1, 0), 150, kingdom=1)
    add_army(seg, 101, 1, here, units=0)
    assert treasury_share(seg, 1, RULES) == 5000
    m = month(seg, sheets(seg, a={101: Recruit(800)}))
    phase_a(m)
    price = 800 * RULES.int("economy", "premium", "Krieger")
    assert seg.armies[101].units == 800 and seg.kingdoms[1].treasury == 10_000 - price


def test_a_construction_site_below_a_flecken_stores_no_share_of_the_treasury():
    """(a) "Der Reichsschatz verteilt sich stets gleichmäßig auf alle Siedlungen" and (c)
    "Wird eine Siedlung ... erobert, so geht der dort gelagerte Anteil ... über" — the
    settlement table ("Die Siedlung") begins with the Flecken at 100 Baueinheiten; a
    site of 50 BE is none of these Siedlungen (economy.yaml ``treasury_min_units``):
    the whole treasury lies in the Dorf, and the conqueror of the site takes nothing."""
    from wdg.engine.turn import resolve_month
    from wdg.orders.model import Occupy

    seg = small_segment(["T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=0, diplomacy={2: 1})
    add_kingdom(seg, 2, treasury=207_200, diplomacy={1: 5})
    add_settlement(seg, (0, 0), 300, kingdom=2)
    site = add_settlement(seg, (2, 0), 50, kingdom=2)
    seg.militia[:] = 0
    assert treasury_share(seg, 2, RULES) == 207_200
    add_army(seg, 101, 1, site, units=500)
    r = resolve_month(seg, sheets(seg, b={101: Occupy()}), RULES)
    assert seg.at(seg.owner, site) == 1
    assert not r.log.of_kind("conquest.treasury")
    assert seg.kingdoms[1].treasury < 1000  # taxes of the start of the month only
    spread = [e for e in r.log.of_kind("treasury.spread") if e.kingdom == 2]
    assert spread[0].data["settlements"] == 1
