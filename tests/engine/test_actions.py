"""Phase B orders that do not fight: r, t, h, i, s ("Die Heeresbefehle der Phase B (I)")."""

from __future__ import annotations

from tests.engine._phase_b_world import RULES, b, month_of, rules_with
from wdg.engine.actions import actions
from wdg.engine.movement import movement
from wdg.orders.model import Help, Inform, Rest, Search, Train
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.state import ArmyStatus, Building, Treasure, TroopType


def world(*rows: str):
    seg = small_segment(list(rows) or ["T. T. T."])
    add_kingdom(seg, 1, treasury=0)
    add_kingdom(seg, 2)
    return seg


def test_an_army_without_a_phase_b_order_rests():
    """(r) "Diesen Befehl führt jedes Heer automatisch aus, wenn es in der Phase B
    ... keinen anderen Befehl erhalten hat"; a moving army does not rest."""
    seg = world()
    add_army(seg, 1, 1, (0, 0))
    add_army(seg, 2, 1, (0, 0))
    add_army(seg, 3, 1, (0, 0))
    add_army(seg, 4, 1, None)
    m = month_of(seg, {1: None, 2: Rest(), 3: b("O")})
    movement(m)
    actions(m)
    assert m.notes["actions"]["rested"] == {1, 2}
    assert {e.army for e in m.log.of_kind("action.rest")} == {1, 2}


def test_busy_armies_get_no_phase_b_at_all():
    """bb/bs/vs: "in der Phase B können diesem Heer also keine weiteren Befehle
    erteilt werden"."""
    seg = world()
    add_army(seg, 1, 1, (0, 0), morale=50)
    m = month_of(seg, {1: Train()})
    m.busy.add(1)
    actions(m)
    assert seg.armies[1].morale == 50
    assert [e.kind for e in m.log] == ["action.refused"]
    assert "anderweitig gebunden" in m.log.events[0].why


def test_a_phase_b_order_of_a_passive_army_is_refused_with_the_reason():
    """"Passive Heere können keine Befehle für die Phase B der Heeresbefehle
    erhalten" — the player learns it (an army dismissed in Phase A, say)."""
    seg = world()
    add_army(seg, 1, 1, None)
    m = month_of(seg, {1: b("O")})
    movement(m)
    actions(m)
    assert [e.kind for e in m.log] == ["action.refused"]
    assert "passive Heere" in m.log.events[0].why


def test_training_raises_morale_by_the_rules_file_amount_up_to_the_top():
    """(t) "Dieser Befehl kann den Moralwert eines Heeres erhöhen"."""
    seg = world()
    gain = RULES.int("actions", "training", "morale_gain")
    a = add_army(seg, 1, 1, (0, 0), morale=50)
    top = add_army(seg, 2, 1, (0, 0), morale=98)
    actions(month_of(seg, {1: Train(), 2: Train()}))
    assert a.morale == 50 + gain
    assert top.morale == 100


def test_help_in_an_own_gemark_brings_harvest_gold_and_popularity():
    """(h) "hilft den Einwohnern der Gemark, indem es z.B. ... Erntearbeiten
    durchführt"; the militia is not raised at once, the gemark is published
    for the faster regrowth at the end of the month (docs/rules.md)."""
    seg = world()
    own(seg, 1, (0, 0))
    add_army(seg, 1, 1, (0, 0), units=1000)
    m = month_of(seg, {1: Help()})
    actions(m)
    ev = m.log.of_kind("action.help")[0]
    assert ev.data == {"gold": 300, "popularity": 1}  # Tiefland tax 600 * 0.5
    assert seg.kingdoms[1].treasury == 300 and seg.kingdoms[1].popularity == 51
    assert seg.militia[0, 0] == 0
    assert m.notes["actions"]["helped"] == {at(seg, (0, 0))}
    assert m.log.gold_total(1) == 300


def test_help_in_a_foreign_gemark_only_helps_its_people():
    """The harvest of a foreign gemark fills no own treasury (wdg's reading);
    its people still prosper (faster militia regrowth)."""
    seg = world()
    own(seg, 2, (0, 0))
    add_army(seg, 1, 1, (0, 0), units=1000)
    m = month_of(seg, {1: Help()})
    actions(m)
    assert seg.kingdoms[1].treasury == 0
    assert m.notes["actions"]["helped"] == {at(seg, (0, 0))}


def test_information_reports_the_gemark_where_the_army_began_the_month():
    """(i) "in der Gemark, in der es sich zum Beginn des Mondes befindet"."""
    seg = world()
    add_settlement(seg, (1, 0), 250, name="Burg", kingdom=2, militia=1000,
                   buildings={Building.KASERNE: 1})
    add_army(seg, 1, 1, (1, 0))
    m = month_of(seg, {1: Inform()})
    actions(m)
    ev = m.log.of_kind("action.information")[0]
    assert ev.at == at(seg, (1, 0))
    assert ev.data["owner"] == 2 and ev.data["settlement"] == 250
    assert ev.data["buildings"] == {"Kaserne": 1}
    assert 800 <= ev.data["militia_estimate"] <= 1200
    assert ev.data["militia_estimate"] % 10 == 0


def test_an_exact_information_rule_gives_the_exact_militia():
    """The accuracy lives in the rules file."""
    seg = world()
    add_settlement(seg, (1, 0), 150, militia=1234)
    add_army(seg, 1, 1, (1, 0))
    rules = rules_with("actions", information={"militia_error": 0.0, "round_to": 1})
    m = month_of(seg, {1: Inform()}, rules=rules)
    actions(m)
    assert m.log.of_kind("action.information")[0].data["militia_estimate"] == 1234


def test_search_finds_placed_treasure_with_the_rules_chance():
    """(s) "nach Schätzen oder ungewöhnlichen Gegenständen ... durchsucht"."""
    seg = world()
    seg.treasures[1] = Treasure(1, at(seg, (0, 0)), gold=5000, item="Krone")
    a = add_army(seg, 1, 1, (0, 0))
    rules = rules_with("actions", search={"base": 1.0, "per_1000_units": 0.0, "max": 1.0,
                                          "ship_weight": 100})
    m = month_of(seg, {1: Search()}, rules=rules)
    actions(m)
    assert not seg.treasures
    assert seg.kingdoms[1].treasury == 5000 and a.items == ["Krone"]
    assert m.log.of_kind("action.search.found")[0].ledger == "treasure"


def test_search_can_fail_and_is_reproducible():
    """Chance from the month's generator: same seed, same outcome."""
    results = set()
    for seed in range(20):
        outcome = []
        for _ in range(2):
            seg = world()
            seg.treasures[1] = Treasure(1, at(seg, (0, 0)), gold=10)
            add_army(seg, 1, 1, (0, 0), units=100)
            actions(month_of(seg, {1: Search()}, seed=seed))
            outcome.append(bool(seg.treasures))
        assert outcome[0] == outcome[1]
        results.add(outcome[0])
    assert results == {True, False}


def test_a_fleet_may_search_a_water_gemark():
    """(s) "sie können z.B. auch trainieren oder Wassergemarken durchsuchen"."""
    seg = world("~K ~K")
    seg.treasures[1] = Treasure(1, at(seg, (0, 0)), gold=100)
    add_army(seg, 7, 1, (0, 0), troop=TroopType.SCHIFFE, units=10)
    rules = rules_with("actions", search={"base": 0.0, "per_1000_units": 1.0, "max": 1.0,
                                          "ship_weight": 100})
    actions(month_of(seg, {7: Search()}, rules=rules))
    assert not seg.treasures


def test_activating_armies_do_nothing_in_phase_b():
    """An army placed by ``nh`` is active only "ab dem Beginn des folgenden Mondes"."""
    seg = world()
    add_army(seg, 1, 1, (0, 0), status=ArmyStatus.ACTIVATING, morale=40)
    m = month_of(seg, {1: Train()})
    actions(m)
    assert seg.armies[1].morale == 40
    assert [e.kind for e in m.log] == ["action.refused"]


def test_information_reads_as_german_with_buildings_and_a_formatted_militia():
    """"(i) Information": what the army learns reads as a sentence a player
    understands: owner, settlement, buildings, militia estimate."""
    from wdg.engine.actions import actions as run_actions
    from wdg.orders.model import Inform
    from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
    from wdg.world.state import Building

    from _phase_b_world import month_of

    seg = small_segment()
    add_kingdom(seg, 1, name="Reich Nord")
    add_kingdom(seg, 2)
    add_settlement(seg, (3, 3), 300, name="Hohenfels", kingdom=1, militia=12_000,
                   buildings={Building.KASERNE: 1, Building.PALAST: 1})
    add_army(seg, 201, 2, (3, 3))
    m = month_of(seg, {201: Inform(line=7)})
    run_actions(m)
    (e,) = [e for e in m.log if e.kind == "action.information"]
    assert e.why.startswith("Die Gemark gehört zum Reich Nord; Siedlung Hohenfels (300 BE)")
    assert "Bauwerke: Kaserne, Palast" in e.why
    assert "Miliz etwa " in e.why and "." in e.why.split("Miliz etwa ")[1]
