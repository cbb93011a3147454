"""Wizards and character actions ("Der Zauberer", ``(c) Charakteraktion``)."""

from __future__ import annotations

from monthkit import month



from wdg.engine.wizards import character_actions, wizard_duels
from wdg.orders.model import CharacterAction
from wdg.world.factory import add_army, add_kingdom, at, small_segment
from wdg.world.state import Creature




def test_two_wizards_in_adjacent_gemarks_always_duel():
    """"Zauberer können sich niemals in derselben oder einer angrenzenden Gemark
    aufhalten. Geschieht dies doch, so kommt es immer zum Zauberduell."
    The loser dies and his army returns to 000.00."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    a = add_army(seg, 1, 1, (2, 2), wizard=True, experience=90)
    b = add_army(seg, 2, 2, (3, 2), wizard=True, experience=0)
    m = month(seg)
    wizard_duels(m)
    duels = m.log.of_kind("wizard.duel")
    assert len(duels) == 2 and duels[0].public
    loser = a if a.general is None else b
    assert (a.general is None) != (b.general is None)
    assert loser.position is None
    assert m.log.of_kind("wizard.fallen")[0].army == loser.number


def test_wizards_two_gemarks_apart_do_not_duel():
    """Only "derselben oder einer angrenzenden Gemark"."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (1, 2), wizard=True)
    add_army(seg, 2, 1, (3, 2), wizard=True)
    m = month(seg)
    wizard_duels(m)
    assert not m.log.events


def test_the_more_experienced_wizard_usually_wins():
    """Experience "hat einen Einfluß auf ... die Erfolgswahrscheinlichkeit"."""
    wins = 0
    for seed in range(100):
        seg = small_segment()
        add_kingdom(seg, 1)
        add_army(seg, 1, 1, (2, 2), wizard=True, experience=80)
        add_army(seg, 2, 1, (2, 2), wizard=True, experience=5)
        wizard_duels(month(seg, seed=seed))
        wins += seg.armies[1].general is not None
    assert wins > 80


def test_a_wizard_tames_a_creature_on_his_gemark():
    """"Zauberer können Fabelwesen zähmen.\""""
    tamed = 0
    for seed in range(40):
        seg = small_segment()
        add_kingdom(seg, 1)
        add_army(seg, 1, 1, (2, 2), wizard=True, experience=100)
        seg.creatures[5] = Creature(5, "troll", at(seg, (2, 2)))
        m = month(seg, {1: CharacterAction("ZA", ("5",))}, seed=seed)
        character_actions(m)
        tamed += seg.creatures[5].tamed_by == 1
    assert 20 < tamed < 40


def test_a_wizard_teleports_his_army_within_range_and_pays():
    """"Zauberer können teleportieren"; range and cost from wizards.yaml."""
    seg = small_segment(prov_cols=2)
    add_kingdom(seg, 1, treasury=100_000)
    a = add_army(seg, 1, 1, (1, 1), wizard=True, units=1000)
    target = at(seg, (5, 1))
    m = month(seg, {1: CharacterAction("TP", (seg.label(target),))})
    character_actions(m)
    assert a.position == target and 1 in m.moved
    cost = 2000 + 4 * 500 + 1000
    assert seg.kingdoms[1].treasury == 100_000 - cost and m.log.gold_total(1) == -cost
    far = at(seg, (14, 1))
    m = month(seg, {1: CharacterAction("TP", (seg.label(far),))})
    character_actions(m)
    assert a.position == target and m.log.of_kind("c.refused")


def test_a_general_without_magic_cannot_teleport():
    """Only wizards teleport; others are refused with the reason."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (1, 1))
    m = month(seg, {1: CharacterAction("TP", ("101.20",))})
    character_actions(m)
    assert a.position == at(seg, (1, 1))
    assert "beherrscht" in m.log.of_kind("c.refused")[0].why


def test_a_granted_ability_works_and_an_unknown_code_is_refused():
    """"Der Feldherr des Heeres führt eine Handlung durch, die nur diesem
    bestimmten Feldherren möglich ist"; the code comes from the game master."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (1, 1), ability="FE", morale=40)
    b = add_army(seg, 2, 1, (2, 2), ability="QQ")
    m = month(seg, {1: CharacterAction("fe"), 2: CharacterAction("QQ")})
    character_actions(m)
    assert a.morale == 55 and m.log.of_kind("c.ability")[0].army == 1
    refused = m.log.of_kind("c.refused")
    assert refused[0].army == 2 and "unbekannt" in refused[0].why
    m = month(seg, {1: CharacterAction("ST")})
    character_actions(m)
    assert m.log.of_kind("c.refused") and a.morale == 55
    assert b.morale == 50
