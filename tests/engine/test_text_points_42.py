"""The text points of issue #42 (7): what the player reads says the right
thing in the right words."""

from __future__ import annotations

from econ_helpers import RULES, a_sheet, month, world

from wdg.engine.army_orders import phase_a
from wdg.engine.events import Event, Reason
from wdg.orders.forecast import Booking, Forecast, Refusal, _cause, forecast_text
from wdg.orders.model import Recruit, Release
from wdg.reports.render import section_numbers
from wdg.world.factory import add_army, add_settlement
from wdg.world.state import Building


def _run(seg, *blocks):
    m = month(seg, a_sheet(seg, 1, *blocks))
    phase_a(m)
    return m


def test_cut_recruits_and_releases_are_not_put_down_to_the_ships_tragkraft():
    """"[Tragkraft]" stood for the militia's Rüstvolumen and for an army that
    had fewer Rüstgüter than it released: each now has its own cause."""
    assert _cause(Event("a.nr.partial", 1, 101, why="x")) == "volume"
    assert _cause(Event("a.er.partial", 1, 101, why="x")) == "count"
    assert _cause(Event("a.bs.refused", 1, 101, why="trägt nur 10 Raumfaktoren",
                        reason=Reason.CAPACITY)) == "capacity"  # the code, not the words (#44)
    fc = Forecast("s", "0412-04", 1, 100, 100, refused=[
        Refusal(7, "nr 6000", "nur 3.642 von 6.000", "volume", 101),
        Refusal(8, "er 50", "hatte nur 20", "count", 102)], bookings=[Booking("pay", "x", 0)])
    text = forecast_text(fc)
    assert "[Rüstvolumen]" in text and "[Bestand]" in text and "[Tragkraft]" not in text


def test_numbers_in_the_engines_texts_are_formatted():
    """"nur 3642 von 6000" -> "nur 3.642 von 6.000" (docs/german.md)."""
    seg = world(treasury=10_000_000)
    add_settlement(seg, "101.17", 250, kingdom=1, militia=3642,
                   buildings={Building.KASERNE: 1})
    add_army(seg, 101, 1, "101.17", units=0)
    m = _run(seg, (101, Recruit(6000)))
    (e,) = m.log.of_kind("a.nr.partial")
    assert "nur 3.642 von 6.000" in e.why, e.why


def test_an_army_without_ruestgueter_releases_none_and_says_why():
    """Not "0 Rüstgüter entlassen": the order is refused with the reason."""
    seg = world()
    add_army(seg, 101, 1, "101.09", units=0)
    m = _run(seg, (101, Release(5)))
    assert not [e for e in m.log.events if e.kind in ("a.er", "a.er.partial")]
    (e,) = [e for e in m.log.events if e.kind == "a.er.refused"]
    assert "keine Rüstgüter" in e.why and "0 Rüstgüter" not in e.why


def test_section_numbers_have_no_gaps():
    """A sheet without fights, offers or messages numbers its sections 1, 2, 3 …
    without skipping the ones it leaves out."""
    r = {"battles": [], "offers": [], "messages": [], "contacts": [1], "notes": [], "events": [1]}
    n = section_numbers(r)
    assert list(n.values()) == list(range(1, len(n) + 1))
    assert n["diplomacy"] == 5 and n["contacts"] == 6 and n["events"] == 7
    assert "battles" not in n and "offers" not in n
    full = section_numbers({k: [1] for k in ("battles", "offers", "messages", "contacts",
                                              "notes", "events")})
    assert full["events"] == 11
    assert RULES is not None


def test_the_scouting_says_a_settlement_is_being_built():
    """The scouting (Phase E) saw 50 BE where the settlement table (after the
    month's building) says 100 BE: a settlement under construction is marked
    so, its size as seen."""
    from wdg.engine.recon import recon
    from wdg.world.calendar import MonthDate
    from wdg.world.factory import at
    from wdg.world.state import Construction, ProjectKind

    seg = world()
    add_settlement(seg, "101.17", 50, kingdom=1)
    seg.constructions.append(Construction(1, at(seg, "101.17"), ProjectKind.SETTLEMENT, 50,
                                          MonthDate(412, 4)))
    add_settlement(seg, "101.18", 250, kingdom=1)
    add_army(seg, 101, 1, "101.17")
    m = month(seg)
    recon(m)
    (e,) = m.log.of_kind("recon.scouted")
    seen = e.data["buildings"]
    assert seen["101.17"][0] == "Siedlung (50 BE, im Bau: wächst am Ende des Mondes)"
    assert seen["101.18"][0] == "Siedlung (250 BE)"
