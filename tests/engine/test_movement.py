"""Phase B movement on land: budget, height, seasons, diplomacy, control area,
getting lost, losses ("Die Bewegung", "Allgemeine Regeln für Heere")."""

from __future__ import annotations

import pytest

from tests.engine._phase_b_world import b, e, month_of, rules_with
from wdg.engine.movement import movement
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.state import ArmyStatus, Treasure, TroopType

R = TroopType.REITER


def world(row: str, *, month: int = 7, rows: tuple[str, ...] = ()):
    seg = small_segment([row, *rows], date=MonthDate(412, month))
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    return seg


def test_a_rider_makes_three_tiefland_steps_but_not_a_fourth():
    """Reiter: "33% der Bewegungsreichweite in den Geländearten: Tiefland und
    Hochland"; a step that takes the sum over 100% is not made."""
    seg = world("T. T. T. T. T. T.")
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    m = month_of(seg, {1: b("O O O O")})
    movement(m)
    assert a.position == at(seg, (3, 0))
    assert m.log.of_kind("move.moved")[0].data["spent"] == 99
    assert m.log.of_kind("move.stopped")[0].data["remaining"] == ["O"]


def test_a_rider_over_mixed_terrain_adds_the_percentages():
    """Tiefland 33% + Wald 50% = 83%; a further Tiefland step (116%) is refused."""
    seg = world("T. Tw T. T.")
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    # first step enters Tw (50), second T. (33) = 83, third T. -> 116
    m = month_of(seg, {1: b("O O O")})
    movement(m)
    assert a.position == at(seg, (2, 0))
    assert m.log.of_kind("move.moved")[0].data["spent"] == 83


def test_a_warrior_makes_exactly_one_step():
    """Krieger: "100% der Bewegungsreichweite in allen Land-Geländearten"."""
    seg = world("T. T. T.")
    a = add_army(seg, 1, 1, (0, 0))
    m = month_of(seg, {1: b("O O")})
    movement(m)
    assert a.position == at(seg, (1, 0))
    assert 1 in m.moved


def test_a_composite_terrain_costs_what_its_dearer_component_costs():
    """"In der Geländeart Berglandwald kann sich ein Reiterheer also nur mit einer
    Geschwindigkeit von 1 Gemark pro Mond fortbewegen"."""
    seg = world("H. Bw B.")
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    m = month_of(seg, {1: b("O O")})
    movement(m)
    assert a.position == at(seg, (1, 0))
    assert m.log.of_kind("move.moved")[0].data["spent"] == 100


def test_a_height_jump_of_two_levels_is_refused():
    """"Ein Wechsel von Höhenstufe 2 nach Höhenstufe 4 ist also zum Beispiel
    nicht möglich" (here 1 -> 3)."""
    seg = world("T. B.")
    a = add_army(seg, 1, 1, (0, 0))
    m = month_of(seg, {1: b("O")})
    movement(m)
    assert a.position == at(seg, (0, 0))
    assert "Höhenstufe" in m.log.of_kind("move.stopped")[0].why
    assert 1 not in m.moved


def test_a_land_army_never_enters_water():
    """(d) "Landheere können keine Wassergemarken betreten"."""
    seg = world("T. ~K")
    a = add_army(seg, 1, 1, (0, 0))
    movement(month_of(seg, {1: b("O")}))
    assert a.position == at(seg, (0, 0))


@pytest.mark.parametrize("start, target, closed", [
    ("T.", "Ts", {4, 5, 6}),          # (f) Stromtal in spring
    ("H.", "B.", {1, 2, 3}),          # (g) Bergland in winter
    ("B.", "G.", {1, 2, 3}),          # (g) Gebirge in winter
    ("G.", "X.", {1, 2, 3, 4, 5, 6}),  # (h) Hochgebirge
    ("X.", "M.", {1, 2, 3, 4, 5, 6}),  # (h) Gebirgsmassiv
    ("H.", "Bw", {1, 2, 3}),          # composite: "Berglandwald ... in den Monden 1 - 3 nicht"
])
def test_seasonal_closures_hold_in_their_months_and_not_outside(start, target, closed):
    """(f), (g), (h) and "Zusammengesetzte Geländearten": closed months block entry."""
    for month in range(1, 13):
        seg = world(f"{start} {target}", month=month)
        a = add_army(seg, 1, 1, (0, 0))
        movement(month_of(seg, {1: b("O")}))
        entered = a.position == at(seg, (1, 0))
        assert entered == (month not in closed), (target, month)


@pytest.mark.parametrize("status, stops", [(None, True), (1, True), (6, True), (7, False),
                                           (9, False)])
def test_entering_foreign_territory_stops_unless_its_owner_is_friendly(status, stops):
    """(c) "Betritt ein Heer eine Gemark eines fremden Königreiches, dessen
    Diplomatiestatus zum eigenen Königreich auf 6 oder weniger festgesetzt ist,
    so endet sofort seine Bewegung"; 7-9: "nicht behindert"."""
    seg = world("T. T. T. T.")
    own(seg, 2, (1, 0), (2, 0))
    if status is not None:
        seg.kingdoms[2].diplomacy[1] = status
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    movement(month_of(seg, {1: b("O O")}))
    assert a.position == at(seg, (1, 0) if stops else (2, 0))


def test_the_statuses_that_let_a_move_pass_come_from_the_rules_file():
    """7-9 "nicht behindert" is ``passage_statuses`` in diplomacy.yaml, read by
    the move (wdg.engine.diplomacy.free_passage), not a number in the code: with
    only 8 and 9 there a status 7 stops the army at the border."""
    seg = world("T. T. T. T.")
    own(seg, 2, (1, 0), (2, 0))
    seg.kingdoms[2].diplomacy[1] = 7
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    movement(month_of(seg, {1: b("O O")}, rules=rules_with("diplomacy",
                                                        passage_statuses=[8, 9])))
    assert a.position == at(seg, (1, 0))


def test_the_mover_s_own_status_toward_the_owner_does_not_matter():
    """Only the OWNER's status toward the mover counts ("dessen Diplomatiestatus
    zum eigenen Königreich")."""
    seg = world("T. T. T.")
    own(seg, 2, (1, 0), (2, 0))
    seg.kingdoms[1].diplomacy[2] = 9
    seg.kingdoms[2].diplomacy[1] = 5
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    movement(month_of(seg, {1: b("O O")}))
    assert a.position == at(seg, (1, 0))


def test_city_state_territory_always_stops_a_move():
    """Stadtstaaten: "Zu Stadtstaaten können keine diplomatischen Beziehungen
    aufgenommen werden" - so never friendly."""
    seg = world("T. T. T.")
    add_kingdom(seg, 3, city_state=True, diplomacy={1: 9})
    own(seg, 3, (1, 0), (2, 0))
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    movement(month_of(seg, {1: b("O O")}))
    assert a.position == at(seg, (1, 0))


def test_the_control_area_as_it_stood_at_the_start_of_the_month_interrupts():
    """"Die Bewegung eines fremden Landheeres wird innerhalb des zum Beginn des
    Mondes bestehenden Kontrollbereiches sofort unterbrochen." The owner layer
    at the start counts, not a later one."""
    seg = world("T. T. T. T.")
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    m = month_of(seg, {1: b("O O O")})
    m.start.owner[0, 2] = 2  # owned by 2 at the start; the live layer says neutral
    movement(m)
    assert a.position == at(seg, (2, 0))
    assert "Kontrollbereich" in m.log.of_kind("move.stopped")[0].why


def test_own_territory_never_stops_a_move():
    """Only "fremde" kingdoms stop a move."""
    seg = world("T. T. T. T.")
    own(seg, 1, (1, 0), (2, 0), (3, 0))
    a = add_army(seg, 1, 1, (0, 0), troop=R)
    movement(month_of(seg, {1: b("O O O")}))
    assert a.position == at(seg, (3, 0))


def lost_world(owner: int = 0):
    seg = world("T. T. T. T. T.", rows=("T. T. Td T. T.", "T. T. T. T. T."))
    if owner:
        own(seg, owner, (2, 1))
    add_army(seg, 1, 1, (2, 1), troop=R)
    return seg


def test_getting_lost_is_drawn_from_the_month_s_generator_and_reproducible():
    """(e) outside its own territory in Sandwüste an army may leave "in eine
    zufällige Himmelsrichtung" and "beendet sofort seine Bewegung"."""
    rules = rules_with("movement", get_lost_chance=1.0)
    ends = set()
    for seed in range(12):
        positions = []
        for _ in range(2):
            seg = lost_world()
            m = month_of(seg, {1: b("O O O")}, seed=seed, rules=rules)
            movement(m)
            positions.append(seg.armies[1].position)
            assert len(m.log.of_kind("move.lost")) == 1
            assert seg.armies[1].position.distance(at(seg, (2, 1))) == 1
        assert positions[0] == positions[1]
        ends.add(positions[0])
    assert len(ends) > 1


def test_an_army_never_gets_lost_in_its_own_territory():
    """(e) "außerhalb des eigenen Reichsgebietes"."""
    seg = lost_world(owner=1)
    m = month_of(seg, {1: b("O O")}, rules=rules_with("movement", get_lost_chance=1.0))
    movement(m)
    assert seg.armies[1].position == at(seg, (4, 1))
    assert not m.log.of_kind("move.lost")


def test_losses_in_a_composite_terrain_add_both_components():
    """"bei 'Verluste' die addierten Verluste beider Einzelgeländearten":
    Hochgebirge 4% + Eiswüste 3% = 7%; the general suffers none."""
    seg = world("G. Xi")
    a = add_army(seg, 1, 1, (0, 0), units=1000)
    m = month_of(seg, {1: b("O")})
    movement(m)
    assert a.position == at(seg, (1, 0))
    assert a.units == 930
    assert a.general is not None
    assert m.log.of_kind("move.losses")[0].data == {"lost": 70, "soldiers": -70, "rate": 7}


def test_bergland_causes_no_losses():
    """"Bergland  keine" in the table of difficult terrain."""
    seg = world("H. B.")
    a = add_army(seg, 1, 1, (0, 0), units=1000)
    movement(month_of(seg, {1: b("O")}))
    assert a.units == 1000 and a.position == at(seg, (1, 0))


def test_a_conquest_move_claims_every_gemark_entered_and_destroys_treasure():
    """(e) Einnahme: "Für die Bewegung gilt das unter 'Bewegung' geschriebene";
    "eventuell vorhandene Schätze oder Gegenstände werden zerstört"."""
    seg = world("T. T. T. T.")
    seg.treasures[5] = Treasure(5, at(seg, (1, 0)), gold=1000)
    seg.treasures[6] = Treasure(6, at(seg, (3, 0)), gold=1000)
    add_army(seg, 1, 1, (0, 0), troop=R)
    m = month_of(seg, {1: e("O O O")})
    movement(m)
    assert [(c.at, c.kind) for c in m.claims] == [
        (at(seg, (1, 0)), "einnahme"), (at(seg, (2, 0)), "einnahme"), (at(seg, (3, 0)), "einnahme")]
    assert not seg.treasures


def test_a_conquest_move_spares_treasure_where_no_einnahme_is_possible():
    """"Mit diesem Befehl können nur neutrale Gemarken ohne Siedlung und Bauwerk
    erobert werden" - elsewhere nothing is taken and nothing destroyed."""
    seg = world("T. T.")
    add_settlement(seg, (1, 0), 150)
    seg.treasures[5] = Treasure(5, at(seg, (1, 0)), gold=1000)
    add_army(seg, 1, 1, (0, 0))
    movement(month_of(seg, {1: e("O")}))
    assert 5 in seg.treasures


def test_busy_and_passive_armies_do_not_move():
    """"Passive Heere können keine Befehle für die Phase B ... erhalten"; bb/bs/vs
    take the whole month."""
    seg = world("T. T. T.")
    a = add_army(seg, 1, 1, (0, 0))
    p = add_army(seg, 2, 1, (0, 0), status=ArmyStatus.ACTIVATING)
    m = month_of(seg, {1: b("O"), 2: b("O")})
    m.busy.add(1)
    movement(m)
    assert a.position == at(seg, (0, 0)) and p.position == at(seg, (0, 0))
    assert not m.moved


def test_docs_show_the_movement_table_of_the_rules_file():
    """docs/rules.md must show the movement table as it stands in movement.yaml."""
    from pathlib import Path

    from tests.engine._phase_b_world import RULES

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    costs = RULES.section("movement", "costs")
    kinds = ("krieger", "reiter", "boote", "schiffe")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "Component" not in ln]
    seen = set()
    for ln in rows:
        cells = [c.strip().rstrip("*").strip() for c in ln.strip("|").split("|")]
        name, values = cells[0], cells[1:5]
        if name.startswith("landing"):
            landing = RULES.section("movement", "landing")
            assert values[2:] == [str(landing["boote"]), str(landing["schiffe"])]
            continue
        for kind, v in zip(kinds, values):
            assert str(costs[kind].get(name, "-")) == v, (name, kind)
        seen.add(name)
    assert seen == {n for kind in kinds for n in costs[kind]}
