""""Die Siedlung" (a)-(e) and the rule's worked example (Flecken, then Markt);
the single rules (c), (d) are tested in tests/engine/test_kingdom_orders.py."""

from __future__ import annotations

from rulekit import RULES, month, sheets

from wdg.engine.economy import construction, settlement_class
from wdg.engine.kingdom_orders import kingdom_orders
from wdg.orders.model import Settle
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_kingdom, at, own, small_segment


def _month(seg, *orders):
    """Kingdom orders, then the end-of-month construction; the date moves on."""
    m = month(seg, sheets(seg, k={1: list(orders)}) if orders else None)
    kingdom_orders(m)
    construction(m)
    seg.date = seg.date.next()
    return m


def test_the_rules_example_a_flecken_then_a_markt_and_one_unit_of_damage():
    """"1.Bauauftrag: Bau eines Fleckens (100 Baueinheiten). 2.Bauauftrag: Ausbau des
    Fleckens zu einem Markt (100 Baueinheiten)"; "(b) Der gesamte Baupreis muß beim
    Baubeginn entrichtet werden"; "(e) ... in jedem Mond bis zu 50 Baueinheiten";
    "durch die geringste Beschädigung (1 Baueinheit) [wird] der Markt wieder zu einem
    Flecken"."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=250_000)
    own(seg, 1, (0, 0))
    h = at(seg, (0, 0))
    here = seg.grid.address_of(h)
    _month(seg, Settle(here, 100))
    assert seg.kingdoms[1].treasury == 150_000          # all 100 BE paid at the start
    assert seg.at(seg.settlement, h) == 50
    _month(seg)
    assert seg.at(seg.settlement, h) == 100
    assert settlement_class(100, RULES) == "Flecken"
    _month(seg, Settle(here, 100))
    _month(seg)
    assert seg.at(seg.settlement, h) == 200 and seg.kingdoms[1].treasury == 50_000
    assert settlement_class(200, RULES) == "Markt"
    assert settlement_class(200 - 1, RULES) == "Flecken"


def test_a_second_order_in_the_same_gemark_enlarges_the_one_settlement_there():
    """(a) "In jeder Gemark kann sich nur eine Siedlung befinden. Ihre Bezeichnung richtet
    sich nach der Menge an Baueinheiten": an order on a Markt of 280 BE extends it to a
    Dorf of 310 BE, and there is still one settlement."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=500_000)
    own(seg, 1, (0, 0))
    here = seg.grid.address_of(at(seg, (0, 0)))
    seg.settlement[seg.grid.index(at(seg, (0, 0)))] = 280
    m = _month(seg, Settle(here, 30))
    assert not m.log.of_kind("k.settle.refused")
    assert seg.at(seg.settlement, at(seg, (0, 0))) == 310
    assert settlement_class(310, RULES) == "Dorf"
    assert int((seg.settlement > 0).sum()) == 1
