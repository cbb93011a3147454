"""Refusal reasons travel as codes (:class:`wdg.engine.events.Reason`), the
German sentence is only their display text (issue #44, "no state carried as
display text").

The forecast (and the order editor and the checker's warnings, which read it)
takes the cause of a refused order from the event's code; rewording the
engine's sentence changes nothing it decides. The code is run time only: the
stored event log keeps its bytes (docs/architecture.md, "Refusal reasons")."""

from __future__ import annotations

import json

import pytest

from tests.engine._phase_b_world import RULES
from tests.orders.test_forecast import block, fc_of, world
from wdg.engine import army_orders, kingdom_orders
from wdg.engine.events import Event, Reason
from wdg.engine.foresight import foresee
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.reports.archived import event_from_dict
from wdg.world.factory import add_army, add_settlement
from wdg.world.state import Building, TroopType

HEAD = "Segment: test\nKönigreich: 1\nPasswort: x\n"


def _refusals(seg, body: str) -> list[Event]:
    """The refusal events of kingdom 1's month foreseen on ``body``."""
    seen = foresee(build_view(seg, 1), parse_sheet(HEAD + body), RULES)
    return [e for e in seen.log.events if e.kind.endswith(".refused") and e.kingdom == 1]


def test_the_engine_gives_each_refusal_its_code():
    """"Der Reichsschatz" (e): the Hafen (100.000 GS) does not fit into
    60.000 GS: ``Reason.GOLD``; a settlement with no militia left
    ("das Rüstvolumen"): ``Reason.VOLUME``; 300 Krieger onto 2 ships of 100
    Raumfaktoren ("Tragkraft"): ``Reason.CAPACITY``; an order of a passive
    army's kind for an active one: ``Reason.RULE``."""
    seg = world("~K T. T.", treasury=60_000)
    add_settlement(seg, (1, 0), 150, kingdom=1, buildings={Building.KASERNE: 1,
                                                          Building.HAFEN: 1}, militia=0)
    add_army(seg, 101, 1, (1, 0), units=300)
    add_army(seg, 102, 1, (1, 0), troop=TroopType.SCHIFFE, units=2)
    body = block(seg, 101, "nr 10") + "K\nBH 101.02\n"
    assert sorted((e.kind, e.reason) for e in _refusals(seg, body)) == [
        ("a.nr.refused", Reason.VOLUME), ("k.build.refused", Reason.GOLD)]
    body = block(seg, 101, "bs 0102") + "Heer 0102 101.02\n"
    assert [(e.kind, e.reason) for e in _refusals(seg, body)] == [("a.bs.refused",
                                                                   Reason.CAPACITY)]
    assert [(e.kind, e.reason) for e in _refusals(seg, block(seg, 101, "nf"))] == [
        ("a.nf.refused", Reason.RULE)]


def test_the_code_is_not_stored_and_an_event_read_back_has_none():
    """The stored form (:meth:`Event.to_dict`, the month's event log) is the
    same with or without a code, so no month's bytes change; an event read back
    from the store has no code and still equals the live one."""
    live = Event("k.build.refused", 1, why="Befehl BH 101.02 verweigert: …", line=5,
                 reason=Reason.GOLD)
    plain = Event("k.build.refused", 1, why="Befehl BH 101.02 verweigert: …", line=5)
    assert live.to_dict() == plain.to_dict() == {
        "kind": "k.build.refused", "kingdom": 1, "why": "Befehl BH 101.02 verweigert: …",
        "line": 5}
    back = event_from_dict(json.loads(json.dumps(live.to_dict())), None)  # type: ignore[arg-type]
    assert back.reason is None and back == live


@pytest.mark.parametrize("reworded", [False, True])
def test_rewording_a_refusal_changes_no_cause_of_the_forecast(monkeypatch, reworded):
    """The same three refusals as the engine words them and reworded without
    "Reichsschatz", "Raumfaktoren" or "Rüstvolumen" (before #44 the forecast
    searched those words): gold, capacity and volume either way."""
    if reworded:
        monkeypatch.setattr(kingdom_orders, "_no_money", lambda *a: "too poor.")
        monkeypatch.setattr(army_orders, "_overloads", lambda *a: "too heavy.")
    seg = world("~K T. T.", treasury=60_000)
    add_settlement(seg, (1, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=0)
    add_army(seg, 101, 1, (1, 0), units=100)
    add_army(seg, 103, 1, (1, 0), units=200)
    seg.armies[103].boats = 10  # 10 boats of 20 Raumfaktoren carry 200 Krieger exactly
    add_army(seg, 104, 1, (1, 0), units=100)
    fc = fc_of(seg, block(seg, 101, "nr 10") + block(seg, 104, "eh 0103")[2:]
               + "K\nBH 101.02\n")
    assert sorted((r.order, r.cause) for r in fc.refused) == [
        ("BH 101.02", Reason.GOLD), ("eh 0103", Reason.CAPACITY), ("nr 10", Reason.VOLUME)]
    if reworded:
        assert {r.reason.rpartition(": ")[2] for r in fc.refused} >= {"too poor.", "too heavy."}
    # the forecast's JSON keeps the cause's value, as before
    assert sorted(x["cause"] for x in json.loads(json.dumps(fc.to_dict()))["refused"]) == [
        "capacity", "gold", "volume"]
