"""Combat between armies ("Der Kampf", "Die Heeresmoral", "Das Boot",
"Das Schiff", "Allgemeine Regeln für Heere" (b), (j), (p), (r))."""

from __future__ import annotations

import pytest
from monthkit import RULES, month



from wdg.engine.combat import combat, ensure_kingdom_order, win_chance, army_strength
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.state import ArmyStatus, Building, Segment, TroopType




def two_kingdoms(s12: int, s21: int) -> Segment:
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: s12})
    add_kingdom(seg, 2, diplomacy={1: s21})
    return seg


def test_no_fight_when_both_statuses_are_between_4_and_9():
    """"1, 2, 3 Angriff auf fremde Heere möglich"; 4-9 allow no attack."""
    for s12, s21 in ((4, 4), (5, 9), (9, 6)):
        seg = two_kingdoms(s12, s21)
        add_army(seg, 1, 1, (2, 2))
        add_army(seg, 2, 2, (2, 2))
        m = month(seg)
        combat(m)
        assert not m.log.of_kind("combat.battle")
        assert seg.armies[1].units == 1000 and seg.armies[2].units == 1000


def test_a_fight_happens_when_one_side_holds_status_3():
    """"Wenn sich Heere verschiedener Königreiche ... auf derselben Gemark
    befinden, kommt es stets zu einem Kampf" — here because kingdom 2 holds 3."""
    seg = two_kingdoms(9, 3)
    add_army(seg, 1, 1, (2, 2))
    add_army(seg, 2, 2, (2, 2))
    m = month(seg)
    combat(m)
    assert len(m.log.of_kind("combat.battle")) == 2
    assert m.fought == {1, 2}
    beaten = [a for a in seg.armies.values() if a.general is None]
    assert len(beaten) == 1


def test_no_fight_between_kingdoms_that_have_never_met():
    """Status exists only for kingdoms on the list ("Diplomatische Beziehungen
    existieren nur gegenüber den Königreichen, die in der Liste ... aufgeführt")."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    add_army(seg, 1, 1, (2, 2))
    add_army(seg, 2, 2, (2, 2))
    m = month(seg)
    combat(m)
    assert not m.log.of_kind("combat.")


def test_every_army_fights_at_most_once_a_month():
    """"Jedes Heer kann in jedem Mond nur 1 Kampf austragen! Dies bedeutet, daß
    es unter Umständen trotz des Vorliegens der Kampfbedingungen ... nicht zum
    Kampf kommen kann!" One army of kingdom 1 meets two of kingdom 2."""
    seg = two_kingdoms(1, 1)
    add_army(seg, 1, 1, (2, 2), units=100_000)
    add_army(seg, 2, 2, (2, 2), units=10)
    add_army(seg, 3, 2, (2, 2), units=10)
    m = month(seg)
    combat(m)
    battles = m.log.of_kind("combat.battle")
    assert len(battles) == 2
    assert seg.armies[1].general is not None
    survivors = [n for n in (2, 3) if seg.armies[n].general is not None]
    assert len(survivors) == 1
    assert survivors[0] not in m.fought


def test_a_kingdom_s_armies_fight_in_ascending_number():
    """"kämpfen die Heere eines Königreiches immer nach der aufsteigenden
    Heeresnummer; das Heer mit der kleinsten Nummer zuerst": kingdom 1 (first in
    the month's order) has armies 1 and 2 where kingdom 2 has army 3 alone, which
    can fight once ("nur 1 Kampf"): army 1 fights it, army 2 does not fight."""
    seg = two_kingdoms(1, 1)
    add_army(seg, 1, 1, (2, 2), units=50_000)
    add_army(seg, 2, 1, (2, 2), units=50_000)
    add_army(seg, 3, 2, (2, 2), units=10)
    m = month(seg)
    m.kingdom_order = [1, 2]
    combat(m)
    assert m.fought == {1, 3}
    assert {e.army for e in m.log.of_kind("combat.battle")} == {1, 3}


def test_kingdom_order_is_reproducible_from_the_seed():
    """"Während die Reihenfolge der kämpfenden Königreiche zufällig festgelegt
    wird": the order and every fight follow from the month's generator."""
    def run(seed: int) -> tuple[list[int], list[dict]]:
        seg = small_segment()
        for k in range(1, 6):
            add_kingdom(seg, k, diplomacy={j: 2 for j in range(1, 6) if j != k})
            add_army(seg, k, k, (k % 3, 1))
            add_army(seg, 10 + k, k, (k % 3, 1), units=500)
        m = month(seg, seed=seed)
        combat(m)
        return list(m.kingdom_order), [e.to_dict() for e in m.log]

    assert run(7) == run(7)
    orders = {tuple(run(s)[0]) for s in range(10)}
    assert len(orders) > 1


def test_runner_kingdom_order_is_used_and_not_redrawn():
    """The month's kingdom order, once drawn, is the one every step uses."""
    seg = two_kingdoms(1, 1)
    m = month(seg)
    m.kingdom_order = [2, 1]
    assert ensure_kingdom_order(m) == [2, 1]


def test_demoralised_part_leaves_and_returns_after_a_victory():
    """"bei einem Kampfbeginn [wird sich] der demoralisierte Teil eines Heeres
    davonmachen und nur dann zurückkehren, wenn der Rest des Heeres den Kampf
    gewinnen konnte." Morale 20 with threshold 40: half the army leaves."""
    seg = two_kingdoms(1, 1)
    add_army(seg, 1, 1, (2, 2), units=10_000, morale=20)
    add_army(seg, 2, 2, (2, 2), units=10)
    m = month(seg)
    combat(m)
    fled = m.log.of_kind("combat.fled")[0]
    assert fled.army == 1 and fled.data["fled"] == 5000
    lost = sum(e.data.get("lost", 0) for e in m.log if e.army == 1)
    assert seg.armies[1].units == 10_000 - lost
    assert lost < 5000  # the fled half came back


def test_demoralised_part_does_not_come_back_after_a_defeat():
    """The fled part returns "nur dann ..., wenn der Rest ... gewinnen konnte"."""
    seg = two_kingdoms(1, 1)
    add_army(seg, 1, 1, (2, 2), units=1000, morale=10)
    add_army(seg, 2, 2, (2, 2), units=100_000)
    m = month(seg)
    combat(m)
    assert seg.armies[1].units == 0
    destroyed = [e for e in m.log.of_kind("combat.destroyed") if e.army == 1][0]
    assert destroyed.data["lost"] == 1000


def test_a_beaten_army_loses_its_general_and_returns_to_000_00():
    """"Falls ein Heer in einem Kampf geschlagen wird, so stirbt auch der
    Feldherr"; "Heere, die vernichtet ... werden, verlieren ... ihren Feldherren
    und damit auch ihre Zuordnung zu einer bestimmten Truppengattung"."""
    seg = two_kingdoms(2, 5)
    add_army(seg, 1, 1, (2, 2), units=50_000)
    beaten = add_army(seg, 2, 2, (2, 2), units=20)
    m = month(seg)
    combat(m)
    assert beaten.general is None and beaten.troop is None
    assert beaten.position is None and beaten.status is ArmyStatus.PASSIVE
    assert seg.label(beaten.position) == "000.00"
    assert beaten.units == 0


def test_winner_gains_morale_and_experience():
    """"Erfolge des Heeres heben die Moral"; the general's experience rises."""
    seg = two_kingdoms(1, 1)
    a = add_army(seg, 1, 1, (2, 2), units=50_000, morale=50, experience=10)
    add_army(seg, 2, 2, (2, 2), units=20)
    combat(month(seg))
    assert a.morale == 50 + RULES.int("combat", "morale_after_win")
    assert a.general.experience == 10 + RULES.int("combat", "experience_after_win")


def test_boats_are_destroyed_in_any_fight():
    """"Boote haben keinen Kampfwert - findet ein Kampf statt, so werden alle
    Boote dadurch automatisch zerstört." The army stands on land and survives."""
    seg = two_kingdoms(1, 1)
    a = add_army(seg, 1, 1, (2, 2), units=50_000)
    a.boats = 50
    add_army(seg, 2, 2, (2, 2), units=20)
    m = month(seg)
    combat(m)
    assert a.boats == 0 and a.general is not None
    assert m.log.of_kind("combat.boats")


def test_troops_on_a_sunk_ship_drown():
    """"Wird bei einem Seegefecht ein Schiff versenkt, auf dem sich Soldaten
    befinden, so ertrinken diese" ((j), (p)); carried troops do not fight (r)."""
    seg = small_segment(fill="~M")
    add_kingdom(seg, 1, diplomacy={2: 1})
    add_kingdom(seg, 2, diplomacy={1: 1})
    fleet = add_army(seg, 1, 1, (3, 3), troop=TroopType.SCHIFFE, units=2)
    cargo = add_army(seg, 2, 1, (3, 3), units=200)
    fleet.carrying, cargo.carried_by = 2, 1
    add_army(seg, 3, 2, (3, 3), troop=TroopType.SCHIFFE, units=500)
    m = month(seg)
    combat(m)
    assert 2 not in m.fought
    assert fleet.general is None and cargo.general is None
    assert cargo.units == 0 and cargo.position is None
    drowned = m.log.of_kind("combat.drowned")
    assert drowned and drowned[0].army == 2 and drowned[0].data["lost"] == 200


def test_a_ship_fights_like_one_soldier():
    """"Ein Schiff hat dieselbe Kampfkraft wie ein Soldat.\""""
    seg = two_kingdoms(1, 1)
    f = add_army(seg, 1, 1, (2, 2), troop=TroopType.SCHIFFE, units=100)
    k = add_army(seg, 2, 2, (2, 2), units=100)
    m = month(seg)
    h = at(seg, (2, 2))
    assert army_strength(m, f, h, 100) == army_strength(m, k, h, 100)


def test_the_owner_fights_better_behind_walls_and_in_difficult_terrain():
    """The table weighs "die Art des Geländes und der Bauwerke und das
    Besitzverhältnis"; natives excel in difficult terrain."""
    seg = small_segment(["T. Tu"])
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (0, 0))
    m = month(seg)
    plain, swamp = at(seg, (0, 0)), at(seg, (1, 0))
    foreign = army_strength(m, a, plain, 1000)
    own(seg, 1, plain, swamp)
    home = army_strength(m, a, plain, 1000)
    home_swamp = army_strength(m, a, swamp, 1000)
    add_settlement(seg, plain, 300, kingdom=1, buildings={Building.KASERNE: 2})
    fortified = army_strength(m, a, plain, 1000)
    assert foreign < home < home_swamp and home < fortified
    assert win_chance(m, home, foreign) > 0.5


def test_riders_are_weaker_only_in_difficult_terrain():
    """docs/rules.md "Combat" 2: strength = fighters × ``unit_strength`` (Reiter
    1.5), × ``reiter_in_difficult_terrain`` (0.67) only in difficult terrain
    ("Schwieriges Gelände": Sumpf is one, Tiefland is not); × morale factor
    (0.6 + 50/100 × 0.8 = 1.0) × experience factor (1 + 10 × 0.01 = 1.1); no
    home factor on a gemark nobody owns. 1,000 riders: 1000 × 1.5 × 1.1 = 1650
    on Tiefland, 1650 × 0.67 = 1105.5 in the Tieflandsumpf."""
    seg = small_segment(["T. Tu"])
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (0, 0), troop=TroopType.REITER, morale=50, experience=10)
    m = month(seg)
    assert army_strength(m, a, at(seg, (0, 0)), 1000) == pytest.approx(1650.0)
    assert army_strength(m, a, at(seg, (1, 0)), 1000) == pytest.approx(1105.5)


def test_a_carried_army_is_no_one_s_opponent_at_sea():
    """"Allgemeine Regeln" (r): "Landheere, die auf Schiffen befördert werden,
    können bei einem Seegefecht nicht mitkämpfen" — nor be attacked: fleet 1
    (500 ships, carrying army 2) beats fleet 3; fleet 4, which has not fought,
    finds no one left to fight (army 2 is aboard), so there is one battle."""
    seg = small_segment(fill="~M")
    add_kingdom(seg, 1, diplomacy={2: 1})
    add_kingdom(seg, 2, diplomacy={1: 1})
    fleet = add_army(seg, 1, 1, (3, 3), troop=TroopType.SCHIFFE, units=500)
    cargo = add_army(seg, 2, 1, (3, 3), units=100)
    fleet.carrying, cargo.carried_by = 2, 1
    add_army(seg, 3, 2, (3, 3), troop=TroopType.SCHIFFE, units=2)
    idle = add_army(seg, 4, 2, (3, 3), troop=TroopType.SCHIFFE, units=2)
    m = month(seg)
    combat(m)
    assert m.fought == {1, 3}
    assert len(m.log.of_kind("combat.battle")) == 2  # one battle, one event per side
    assert idle.general is not None and idle.units == 2
    assert cargo.general is not None and cargo.carried_by == 1
