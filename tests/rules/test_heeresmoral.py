""""Die Heeresmoral" and "Erfahrung des Feldherren" outside combat: morale and
experience change an army's chance of success, and a low morale makes soldiers
desert even when they are paid (numbers in ``worlds/rules/morale.yaml``, reading
in docs/rules.md, "Morale and experience outside combat")."""

from __future__ import annotations

from rulekit import RULES, month, sheets

from wdg.engine.actions import actions, search_chance
from wdg.engine.economy import pay_and_upkeep
from wdg.engine.morale import action_factor, desertion_chance
from wdg.engine.turn import resolve_month
from wdg.orders.model import Search
from wdg.rules import Rules
from wdg.world.factory import add_army, add_kingdom, at, small_segment
from wdg.world.state import Treasure


def searches_found(morale: int, experience: int, seeds: range) -> int:
    """How many of the months (one per seed) a 500-soldier army finds the
    treasure hidden in its gemark."""
    found = 0
    for seed in seeds:
        seg = small_segment(seed=seed)
        add_kingdom(seg, 1)
        add_army(seg, 1, 1, (2, 2), units=500, morale=morale, experience=experience)
        seg.treasures[1] = Treasure(1, at(seg, (2, 2)), gold=100)
        m = month(seg, sheets(seg, b={1: Search()}))
        actions(m)
        found += not seg.treasures
    return found


def test_morale_and_experience_change_the_chance_of_a_search():
    """"Die Moral hat Auswirkungen auf die Erfolgswahrscheinlichkeit bei der
    Ausführung der Heeresbefehle" and the general's experience "hat einen Einfluß
    auf ... die Erfolgswahrscheinlichkeit von Aktionen des von ihm geführten
    Heeres": the same search over the same 60 months finds the treasure far more
    often at morale 100 and experience 95 than at morale 5 and experience 0 (the
    audit found 10 of 25 at both)."""
    low = search_chance(RULES, 500, action_factor(RULES, 5, 0))
    high = search_chance(RULES, 500, action_factor(RULES, 100, 95))
    assert round(low, 4) == round(0.35 * 0.55 * 0.75, 4)       # 0.144
    assert round(high, 4) == round(0.35 * 1.5 * 1.225, 4)      # 0.643
    seeds = range(60)
    poor, good = searches_found(5, 0, seeds), searches_found(100, 95, seeds)
    assert poor < 20 < 28 < good


def test_each_of_morale_and_experience_counts_on_its_own():
    """Morale alone and experience alone each raise the chance (morale 50 and
    experience 50 are the neutral middle: factor 1)."""
    assert action_factor(RULES, 50, 50) == 1.0
    assert action_factor(RULES, 0, 50) < action_factor(RULES, 50, 50) < action_factor(RULES, 100, 50)
    assert action_factor(RULES, 50, 0) < action_factor(RULES, 50, 50) < action_factor(RULES, 50, 100)


def test_a_rules_set_without_morale_yaml_keeps_the_old_chances():
    """Months archived before ``morale.yaml`` existed replay as they were: without
    the file the factor is 1 and nobody deserts for low morale."""
    old = Rules({area: RULES.section(area) for area in RULES.areas() if area != "morale"})
    assert action_factor(old, 0, 0) == 1.0 and desertion_chance(old, 0) == 0.0


def test_a_fully_paid_army_at_morale_0_loses_deserters():
    """"Eine niedrige Moral kann aber auch Streitigkeiten und Desertionen zur Folge
    haben": an army at morale 0 whose pay and upkeep are paid in full still loses
    about ``max_chance`` (10 %) of its soldiers a month; the deserters are an event
    with their number; the audit's armies lost 0 in 15 army-months."""
    seg = small_segment()
    add_kingdom(seg, 1, treasury=1_000_000)
    add_army(seg, 1, 1, (2, 2), units=3000, morale=0)
    add_army(seg, 2, 1, (3, 3), units=3000, morale=60)
    m = month(seg)
    pay_and_upkeep(m)
    assert not m.log.of_kind("pay.shortfall")
    lost = 3000 - seg.armies[1].units
    assert 200 <= lost <= 400
    event = m.log.of_kind("morale.desertion")[0]
    assert event.army == 1 and event.data["soldiers"] == -lost
    assert seg.armies[2].units == 3000


def test_desertion_grows_as_morale_falls_and_stops_at_the_threshold():
    """The chance falls linearly from ``max_chance`` at morale 0 to nothing at
    ``below`` (20): morale 19 loses few, 20 none."""
    below = RULES.int("morale", "desertion", "below")
    assert desertion_chance(RULES, 0) == RULES.num("morale", "desertion", "max_chance")
    assert 0 < desertion_chance(RULES, below - 1) < desertion_chance(RULES, 5)
    assert desertion_chance(RULES, below) == 0.0


def test_twelve_months_at_morale_0_cost_a_paid_army_most_of_its_soldiers():
    """Keeping an army at morale 0 is no longer free: twelve paid months of a
    1,000-soldier army that never trains leave roughly 0.9^12 of it (a quarter to
    two fifths); the same army at morale 40 keeps every soldier."""
    seg = small_segment()
    add_kingdom(seg, 1, treasury=1_000_000)
    add_army(seg, 1, 1, (2, 2), units=1000, morale=0)
    add_army(seg, 2, 1, (3, 3), units=1000, morale=40)
    for _ in range(12):
        resolve_month(seg, {}, RULES)
    assert 200 <= seg.armies[1].units <= 420
    assert seg.armies[2].units == 1000
