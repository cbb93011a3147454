"""Creatures ("Die Fabelwesen")."""

from __future__ import annotations

from monthkit import RULES, month



from wdg.engine.creatures import creature_attacks, creature_moves
from wdg.world.factory import add_army, add_kingdom, at, small_segment
from wdg.world.state import Creature
from wdg.world.terrain import is_water, terrain




def test_the_generator_s_creature_kinds_are_defined():
    """The generator places drache, riesenadler, seeschlange, troll, untote."""
    kinds = RULES.section("creatures", "kinds")
    for k in ("drache", "riesenadler", "seeschlange", "troll", "untote"):
        assert {"strength", "movement", "habitat", "aggressive", "evasion"} <= set(kinds[k])


def test_armies_never_attack_passive_creatures():
    """"Heere ... führen niemals Angriffe gegen Fabelwesen, sondern verhalten
    sich abwartend und kämpfen nur dann, falls sie von ihnen angegriffen werden.\""""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (2, 2), units=100_000)
    seg.creatures[1] = Creature(1, "riesenadler", at(seg, (2, 2)), gold=500)
    m = month(seg)
    creature_attacks(m)
    assert not m.log.events and 1 in seg.creatures and 1 not in m.fought


def test_a_beaten_creature_s_treasure_goes_to_the_victor():
    """"Manche Fabelwesen führen Schätze oder magische Gerätschaften mit sich, die,
    falls die Fabelwesen von einem Heer geschlagen werden, dem Sieger zufallen und
    von ihm automatisch aufgenommen werden." A troll never evades: its gold goes to
    the treasury and its item into the victorious army's ``items``."""
    seg = small_segment()
    add_kingdom(seg, 1, treasury=0)
    army = add_army(seg, 1, 1, (2, 2), units=100_000)
    army.items = ["Kompass"]
    seg.creatures[1] = Creature(1, "troll", at(seg, (2, 2)), gold=7000, items=["Zauberstab"])
    m = month(seg)
    creature_attacks(m)
    assert 1 not in seg.creatures and 1 in m.fought
    assert seg.kingdoms[1].treasury == 7000
    assert seg.armies[1].items == ["Kompass", "Zauberstab"]
    treasure = m.log.of_kind("creature.treasure")[0]
    assert treasure.gold == 7000 and treasure.data["items"] == ["Zauberstab"]
    assert "nimmt Zauberstab auf" in treasure.why


def test_a_creature_may_evade_by_flying_away_and_keeps_its_treasure():
    """"Ein Angriff kann bei bestimmten Fabelwesen manchmal oder immer
    fehlschlagen, zum Beispiel, weil sie sich durch Wegfliegen oder -tauchen
    einem Angriff entziehen." A dragon (evasion 0.3) over many seeds."""
    evaded = slain = 0
    for seed in range(60):
        seg = small_segment()
        add_kingdom(seg, 1, treasury=0)
        add_army(seg, 1, 1, (3, 3), units=1_000_000)
        seg.creatures[1] = Creature(1, "drache", at(seg, (3, 3)), gold=100)
        m = month(seg, seed=seed)
        creature_attacks(m)
        if 1 in seg.creatures:
            evaded += 1
            assert seg.creatures[1].position != at(seg, (3, 3))
            assert seg.kingdoms[1].treasury == 0 and seg.creatures[1].gold == 100
        else:
            slain += 1
            assert seg.kingdoms[1].treasury == 100
    assert evaded > 5 and slain > 20


def test_a_creature_that_wins_destroys_the_army():
    """A beaten army loses its general ("Der Feldherr")."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (2, 2), units=10)
    seg.creatures[1] = Creature(1, "drache", at(seg, (2, 2)))
    m = month(seg)
    creature_attacks(m)
    assert a.general is None and a.position is None
    assert m.log.of_kind("creature.attack")[0].public


def test_creatures_blind_and_turn_soldiers_undead():
    """"Andere Fabelwesen können Soldaten auch blenden, ... in Untote verwandeln":
    the turned soldiers join the horde (one undead per ``undead_per_creature``)."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (2, 2), units=10_000)
    seg.creatures[1] = Creature(1, "untote", at(seg, (2, 2)), count=1)
    m = month(seg)
    creature_attacks(m)
    effects = {e.data["effect"]: e.data["lost"] for e in m.log.of_kind("creature.effect")}
    assert effects["untote"] == 500 and effects["krankheit"] == 200
    turned = [e for e in m.log.of_kind("creature.effect") if e.data["effect"] == "untote"][0]
    assert turned.data["undead"] == 500 // RULES.int("creatures", "undead_per_creature")
    assert a.units <= 10_000 - 700


def test_a_creature_attacks_only_one_army_and_that_is_its_one_fight():
    """"Jedes Heer kann in jedem Mond nur 1 Kampf austragen"; a creature
    attacks whoever is there: the first army in the month's kingdom order."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    add_army(seg, 1, 1, (2, 2), units=100_000)
    add_army(seg, 2, 2, (2, 2), units=100_000)
    seg.creatures[1] = Creature(1, "troll", at(seg, (2, 2)))
    m = month(seg)
    m.kingdom_order = [2, 1]
    creature_attacks(m)
    assert m.fought == {2}


def test_aggressive_creatures_wander_in_their_habitat_and_passive_ones_stay():
    """"unterschiedliche Bewegungsmöglichkeiten und -reichweiten": a sea serpent
    stays on water, a passive eagle stays put."""
    seg = small_segment(["~M ~M ~M ~M T. T."] * 6)
    seg.creatures[1] = Creature(1, "seeschlange", at(seg, (1, 2)))
    seg.creatures[2] = Creature(2, "riesenadler", at(seg, (5, 5)))
    for seed in range(20):
        creature_moves(month(seg, seed=seed))
        assert is_water(terrain(seg.at(seg.terrain, seg.creatures[1].position)))
    assert seg.creatures[2].position == at(seg, (5, 5))


def test_a_tamed_creature_goes_wild_when_its_wizard_leaves():
    """"Die Fabelwesen bleiben jedoch nur so lange zahm, wie sich der Zauberer
    bei ihnen aufhält.\""""
    seg = small_segment()
    add_kingdom(seg, 1)
    w = add_army(seg, 1, 1, (2, 2), wizard=True)
    seg.creatures[1] = Creature(1, "troll", at(seg, (2, 2)), tamed_by=1)
    creature_moves(month(seg))
    assert seg.creatures[1].tamed_by == 1
    w.position = at(seg, (4, 4))
    m = month(seg)
    creature_moves(m)
    assert seg.creatures[1].tamed_by is None and m.log.of_kind("creature.wild")


def test_a_tamed_creature_does_not_attack():
    """Tame creatures are no danger to the army on their gemark."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (2, 2), wizard=True)
    add_army(seg, 2, 1, (2, 2))
    seg.creatures[1] = Creature(1, "drache", at(seg, (2, 2)), tamed_by=1)
    m = month(seg)
    creature_attacks(m)
    assert not m.log.events


def test_a_second_creature_does_not_attack_an_army_that_fought_the_first():
    """"Jedes Heer kann in jedem Mond nur 1 Kampf austragen!" ("Der Kampf"): two
    trolls stand on the gemark of one army; the first attacks it (the army's one
    fight of the month), the second finds no army left to attack and stays as it
    was."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (2, 2), units=100_000)
    seg.creatures[1] = Creature(1, "troll", at(seg, (2, 2)))
    seg.creatures[2] = Creature(2, "troll", at(seg, (2, 2)))
    m = month(seg)
    creature_attacks(m)
    attacks = m.log.of_kind("creature.attack")
    assert [e.data["creature"] for e in attacks] == [1]
    assert 2 in seg.creatures and seg.creatures[2].count == 1
    assert m.fought == {1}
