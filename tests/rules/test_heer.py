""""Das Heer": "Jedes aktive Heer besteht immer und automatisch aus einem Feldherren
und dem zu einem Heer zugehörigen Troß ... Wenn der Feldherr über keine
Spezialfähigkeiten verfügt, ist ein Heer in dieser Zusammensetzung jedoch zu keinen
besonderen Aktionen fähig" — an army without soldiers conquers, occupies, destroys
and builds boats no more (``actions.minimum_soldiers``, docs/rules.md)."""

from __future__ import annotations

from rulekit import RULES, sheets

from wdg.engine.movement import too_few_soldiers
from wdg.engine.turn import begin_month, resolve_month
from wdg.orders import model as mo
from wdg.orders.checker import check_sheet
from wdg.orders.model import BuildBoats, Conquer, Destroy, DestroyTarget, Occupy
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.rules import Rules
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import TroopType

O = Direction.O


def plain(militia: int = 3000):
    """A row of Tiefland gemarks, each with ``militia``; kingdom 1 owns none."""
    seg = small_segment(["T. T. T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=100_000)
    seg.militia[:] = militia
    return seg


def test_an_army_of_only_its_general_takes_no_gemark_with_einnahme():
    """"zu keinen besonderen Aktionen fähig": a Reiter army of 0 soldiers ordered
    ``e O O O`` across neutral gemarks does not claim three of them; with soldiers
    the same order claims them."""
    seg = plain()
    add_army(seg, 11, 1, (0, 0), troop=TroopType.REITER, units=0)
    r = resolve_month(seg, sheets(seg, b={11: Conquer((O, O, O))}), RULES)
    assert not (seg.owner == 1).any()
    refused = r.log.of_kind("move.refused")
    assert refused and "keine Soldaten" in refused[0].why

    seg = plain()
    add_army(seg, 11, 1, (0, 0), troop=TroopType.REITER, units=100)
    resolve_month(seg, sheets(seg, b={11: Conquer((O, O, O))}), RULES)
    assert int((seg.owner == 1).sum()) == 3


def test_an_army_of_only_its_general_neither_occupies_nor_destroys():
    """"zu keinen besonderen Aktionen fähig": ``o`` and ``x`` of a 0-soldier army are
    refused before any partisan fight; the gemark and the settlement stay as they are."""
    seg = plain(militia=0)
    add_kingdom(seg, 2)
    seg.kingdoms[1].diplomacy[2] = 1
    town = add_settlement(seg, (2, 0), 150, kingdom=2)
    add_army(seg, 11, 1, (0, 0), units=0)
    add_army(seg, 12, 1, (2, 0), units=0)
    r = resolve_month(seg, sheets(seg, b={11: Occupy(), 12: Destroy(DestroyTarget.SIEDLUNG)}),
                      RULES)
    assert seg.at(seg.owner, at(seg, (0, 0))) == 0
    assert seg.at(seg.settlement, town) == 150
    assert "keine Soldaten" in r.log.of_kind("conquest.refused")[0].why
    assert "keine Soldaten" in r.log.of_kind("destroy.refused")[0].why


def test_an_army_of_only_its_general_builds_no_boats():
    """"zu keinen besonderen Aktionen fähig": ``bb`` of a 0-soldier warrior army in a
    coastal forest is refused (no boats, no launch)."""
    seg = small_segment(["~K ~K", "Tw T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    add_army(seg, 11, 1, (0, 1), units=0)
    water = next(d for d in Direction
                 if seg.grid.contains(n := at(seg, (0, 1)).neighbour(d))
                 and seg.at(seg.terrain, n) == seg.at(seg.terrain, at(seg, (0, 0))))
    r = resolve_month(seg, sheets(seg, a={11: BuildBoats(water)}), RULES)
    assert seg.armies[11].boats == 0 and seg.armies[11].position == at(seg, (0, 1))
    assert "keine Soldaten" in r.log.of_kind("a.bb.refused")[0].why


def test_the_checker_warns_about_special_actions_of_an_army_without_soldiers():
    """"zu keinen besonderen Aktionen fähig": the checker warns about ``e``/``o``/``x``
    of an army without soldiers, but not when ``nr`` recruits some first."""
    seg = plain()
    seg.kingdoms[1].player.password_hash = ""
    add_army(seg, 11, 1, (0, 0), units=0)
    add_army(seg, 12, 1, (0, 0), units=0)
    pos = seg.grid.address_of(at(seg, (0, 0)))
    text = (f"Segment: test\nKönigreich: 1\nPasswort: x\nH\nHeer 0011 {pos}\nB: e O\n"
            f"Heer 0012 {pos}\nA: nr 100\nB: o\n")
    warned = [d for d in check_sheet(parse_sheet(text), build_view(seg, 1))
              if "Troß" in d.message]
    assert [d.line for d in warned] == [6]
    assert warned[0].severity is mo.Severity.WARNING


def test_an_army_of_exactly_the_minimum_takes_gemarks_with_einnahme():
    """The boundary of ``actions.minimum_soldiers`` (``e``: 1, docs/rules.md
    "Armies without soldiers"): "at least" that many soldiers may conquer. A Reiter
    army of exactly 1 soldier ordered ``e O O O`` across neutral Tiefland (no
    terrain losses) claims all three gemarks, and still has its 1 soldier when
    ownership is settled at the end of the month; one fewer (0) claims none
    (:func:`test_an_army_of_only_its_general_takes_no_gemark_with_einnahme`)."""
    assert RULES.int("actions", "minimum_soldiers", "e") == 1
    seg = plain()
    add_army(seg, 11, 1, (0, 0), troop=TroopType.REITER, units=1)
    r = resolve_month(seg, sheets(seg, b={11: Conquer((O, O, O))}), RULES)
    assert not r.log.of_kind("move.refused") and not r.log.of_kind("conquest.refused")
    assert int((seg.owner == 1).sum()) == 3
    assert seg.armies[11].units == 1


def _minimum(n: int) -> Rules:
    """The shipped rules with ``actions.minimum_soldiers`` at ``n`` for every order."""
    actions = dict(RULES.area_data("actions") or {})
    actions["minimum_soldiers"] = {code: n for code in ("e", "o", "x", "bb")}
    return Rules({**{a: RULES.area_data(a) or {} for a in RULES.areas()}, "actions": actions})


def test_the_minimum_of_soldiers_is_met_exactly_at_the_minimum():
    """``too_few_soldiers``: an army with exactly ``minimum_soldiers`` soldiers may
    carry out ``e``, ``o``, ``x`` and ``bb``; with one fewer it may not, and the
    reason names both numbers. Shipped (1 each): 1 soldier passes, 0 ("keine
    Soldaten") not; with a minimum of 5: 5 passes, 4 ("nur 4 Soldaten ...
    mindestens 5 Soldaten") not."""
    seg = plain()
    army = add_army(seg, 11, 1, (0, 0), units=1)
    shipped = begin_month(seg, {}, RULES)
    for code in ("e", "o", "x", "bb"):
        army.units = 1
        assert too_few_soldiers(shipped, army, code) is None
        army.units = 0
        why = too_few_soldiers(shipped, army, code)
        assert why is not None and "keine Soldaten" in why and "mindestens 1 Soldat)" in why
    five = begin_month(seg, {}, _minimum(5))
    for code in ("e", "o", "x", "bb"):
        army.units = 5
        assert too_few_soldiers(five, army, code) is None
        army.units = 6
        assert too_few_soldiers(five, army, code) is None
        army.units = 4
        why = too_few_soldiers(five, army, code)
        assert why is not None and "nur 4 Soldaten" in why and "mindestens 5 Soldaten" in why
