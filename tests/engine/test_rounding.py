"""Every rounding rule of the engine pinned by exact numbers worked out by hand
(issue #44: the militia's regrowth survived a ceil -> floor mutation because its
tests checked only inequalities). Each test names the rule (1994 rules,
/work/shared/seeds/wdg-spielregel-1994.txt; docs/rules.md for the numbers the
rules leave open) and the rules file holding the numbers; the arithmetic is in
the comments. ``python -m wdg.bench.mutants`` mutates these roundings and checks
that a test here fails (docs/testing.md)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.engine._phase_b_world import RULES, RULES_DIR, month_of, rules_with
from tests.engine.econ_helpers import a_sheet
from tests.engine.econ_helpers import month as econ_month
from tests.engine.econ_helpers import world as econ_world
from wdg.engine.actions import estimate, help_gold, repair_capacity
from wdg.engine.army_orders import launch_boats, phase_a, recruit_volume
from wdg.engine.combat import demoralised, lose, overload, winner_losses
from wdg.engine.conquest import _tear_down
from wdg.engine.creatures import apply_effects, creature_losses, hypnotised
from wdg.engine.economy import EconomyStart, pay_and_upkeep, tax_income, treasury_share
from wdg.engine.kingdom_orders import festival_popularity
from wdg.engine.militia import militia_cap, militia_growth, partisan_losses
from wdg.engine.morale import desertion_chance, low_morale_desertion
from wdg.engine.movement import Tables, loss_of
from wdg.engine.recon import _estimate as recon_estimate
from wdg.engine.recon import estimate_range
from wdg.engine.rounding import halves_round_up, nearest
from wdg.engine.wizards import character_actions
from wdg.orders.model import (
    BuildBoats,
    CharacterAction,
    DestroyTarget,
    DismissArmy,
    Recruit,
    Release,
)
from wdg.rules import Rules, safe_load_file
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import Building, Creature, TroopType
from wdg.world.terrain import terrain

# --- "Die Miliz": the cap and the regrowth (militia.yaml) ----------------------------


def test_the_militia_cap_is_rounded_down():
    """"eine von verschiedenen Faktoren abhängige Zahl wehrhafter Einwohner":
    Tiefland holds 50,000 inhabitants, a Baueinheit adds 100, the militia is a
    tenth, scaled by the owner's popularity (0.75 + popularity / 100 * 0.5).
    7 BE, popularity 41: (50,000 + 700) * 0.1 * 0.955 = 4,841.85 -> 4,841;
    a neutral gemark (factor 1): 50,000 * 0.1 = 5,000."""
    seg = small_segment(["T. T."])
    add_kingdom(seg, 1)
    own(seg, 1, (0, 0))
    seg.settlement[seg.grid.index(at(seg, (0, 0)))] = 7
    seg.kingdoms[1].popularity = 41
    cap = militia_cap(seg, RULES)
    assert int(cap[seg.grid.index(at(seg, (0, 0)))]) == 4841
    assert int(cap[seg.grid.index(at(seg, (1, 0)))]) == 5000


def _grown(militia: dict[tuple[int, int], int], helped: tuple[int, int] | None = None) -> list[int]:
    """The militia after the month's regrowth on neutral Tiefland (cap 5,000)."""
    seg = small_segment(["T. T. T. T."])
    for where, n in militia.items():
        seg.militia[seg.grid.index(at(seg, where))] = n
    m = month_of(seg)
    if helped is not None:
        m.notes["actions"] = {"helped": [at(seg, helped)]}
    militia_growth(m)
    return [int(seg.militia[seg.grid.index(at(seg, w))]) for w in militia]


def test_militia_regrowth_rounds_up_and_decay_rounds_down():
    """The militia grows back by growth_rate 0.05 of the gap to its cap, rounded
    up (a gap of one still closes); "(h) Hilfe" triples the rate; militia above
    the cap falls by decay_rate 0.25 of the excess, rounded toward the larger
    fall. Cap 5,000 (neutral Tiefland):
    4,999: gap 1 -> ceil(0.05) = 1 -> 5,000;
    4,970: gap 30 -> ceil(1.5) = 2 -> 4,972;
    4,900 helped: gap 100 * 0.15 = 15 -> 4,915; 4,970 helped: ceil(4.5) = 5 -> 4,975;
    5,010: excess 10 -> floor(-2.5) = -3 -> 5,007."""
    assert _grown({(0, 0): 4999, (1, 0): 4970, (2, 0): 5010, (3, 0): 5000}) == \
        [5000, 4972, 5007, 5000]
    assert _grown({(0, 0): 4970, (1, 0): 4970}, helped=(0, 0)) == [4975, 4972]
    assert _grown({(0, 0): 4900}, helped=(0, 0)) == [4915]


# --- "Besoldung und Unterhalt": pay, shortfall and desertion (economy.yaml) -----------


def _paid_month(treasury: int, units: int, troop: TroopType = TroopType.KRIEGER,
                desertion_chance: float = 1.0):
    seg = small_segment(["T."])
    add_kingdom(seg, 1, treasury=treasury)
    army = add_army(seg, 101, 1, (0, 0), troop=troop, units=units)
    rules = rules_with("economy", shortfall={"desertion_chance": desertion_chance,
                                             "morale_loss": 10, "experience_loss": 5})
    m = month_of(seg, rules=rules)
    pay_and_upkeep(m)
    return seg, army, m


def test_pay_takes_the_upkeep_first_then_the_pay_as_far_as_the_treasury_reaches():
    """"Besoldung und Unterhalt": an active army owes its upkeep (Krieger 1,000 GS)
    and 1 GS per Krieger; "ein Herrscher kann keine Schulden machen". 500
    Krieger, 1,200 GS: upkeep 1,000 paid, pay 200 of 500, treasury 0."""
    seg, _army, m = _paid_month(1200, 500)
    assert [(e.kind, e.gold) for e in m.log.of_kind("pay.")][:2] == \
        [("pay.upkeep", -1000), ("pay.wages", -200)]
    assert seg.kingdoms[1].treasury == 0


def test_the_unpaid_share_of_an_army_is_rounded_up_to_whole_units():
    """"so kann es dazu kommen, daß Rüstgüter desertieren": the units whose share
    of the bill stayed unpaid may desert (each with desertion_chance; 1.0 here,
    so all of them do). 1,000 Krieger owe 1,000 + 1,000 = 2,000 GS; with 1,999
    GS 1 GS stays unpaid: ceil(1,000 * 1 / 2,000) = ceil(0.5) = 1 deserts.
    333 Krieger owe 1,333 GS; with 1,000 GS 333 stay unpaid:
    ceil(333 * 333 / 1,333) = ceil(83.19) = 84 desert."""
    _seg, army, m = _paid_month(1999, 1000)
    assert army.units == 999
    assert m.log.of_kind("pay.shortfall")[0].data["deserters"] == 1
    _seg, army, _m = _paid_month(1000, 333)
    assert army.units == 333 - 84


def test_a_full_treasury_leaves_nobody_unpaid():
    """The boundary of the rounding: paid in full, no unit is unpaid (ceil(0) = 0)."""
    _seg, army, m = _paid_month(2000, 1000)
    assert army.units == 1000 and m.log.of_kind("pay.shortfall") == []


# --- "Währung und Steuern": taxes (economy.yaml) ---------------------------------------


def test_taxes_round_down_after_the_popularity_factor():
    """"Die Höhe der Steuereinnahmen in jeder Gemark wird dabei durch den
    Steuerwert der Gemark bzw. der Siedlung bestimmt": Tiefland's Steuerwert is
    600 GS; a settlement pays 2,000 GS per full 100 Baueinheiten (Flecken
    100-199: 2,000 GS, Markt 4,000, Dorf 6,000): 399 BE pay 3 * 2,000 = 6,000,
    99 BE nothing. Popularity 53 scales every tax by 1 + 3 * 0.002 = 1.006:
    gemarks 3 * 600 * 1.006 = 1,810.8 -> 1,810; settlements 6,000 * 1.006 =
    6,036."""
    seg = small_segment(["T. T. T. T."])
    add_kingdom(seg, 1)
    own(seg, 1, (0, 0), (1, 0), (2, 0))
    seg.settlement[seg.grid.index(at(seg, (0, 0)))] = 399
    seg.settlement[seg.grid.index(at(seg, (1, 0)))] = 99
    start = EconomyStart(seg.owner.copy(), seg.settlement.copy(), seg.buildings.copy(),
                         {1: 53}, None)
    assert tax_income(start, seg.terrain, 1, RULES) == (1810, 6036, 0)


# --- losses: terrain, battle, demoralised (movement.yaml, combat.yaml) --------------------


def test_terrain_losses_round_down():
    """"In bestimmten Geländearten treten Verluste bei Heeren auf": Sumpf 3 % of
    the soldiers (movement.yaml); 1,099 * 3 / 100 = 32.97 -> 32; Tiefland none."""
    t = Tables.load(RULES)
    assert loss_of(t, 1099, terrain("Tieflandsumpf").id) == 32
    assert loss_of(t, 1099, terrain("Tiefland").id) == 0


def test_the_winner_s_losses_round_to_the_nearest_soldier():
    """The winner loses winner_loss_factor 0.5 * sL / sW of its fighters, at most
    0.7 (combat.yaml). sW 200, sL 60: share 0.15. 1,003 fighters: 150.45 -> 150;
    1,005 fighters: 150.75 -> 151; share capped: sL = sW * 2 -> 0.7 * 1,000 = 700."""
    m = month_of(small_segment(["T."]))
    assert winner_losses(m, 1003, 200.0, 60.0) == 150
    assert winner_losses(m, 1005, 200.0, 60.0) == 151
    assert winner_losses(m, 1000, 100.0, 200.0) == 700


def test_the_demoralised_part_rounds_down():
    """"bei einem Kampfbeginn [wird sich] der demoralisierte Teil eines Heeres
    davonmachen": below morale 40 the share (40 - morale) / 40, at most 0.8,
    leaves (combat.yaml). Morale 30: 1,003 * 0.25 = 250.75 -> 250; morale 40:
    none."""
    seg = small_segment(["T."])
    add_kingdom(seg, 1)
    army = add_army(seg, 101, 1, (0, 0), units=1003, morale=30)
    m = month_of(seg)
    assert demoralised(m, army) == 250
    army.morale = 40
    assert demoralised(m, army) == 0
    assert np.isclose(1003 * 0.25, 250.75)


def test_soldiers_on_a_sunk_ship_drown_rounded_up():
    """"Wird bei einem Seegefecht ein Schiff versenkt, auf dem sich Soldaten
    befinden, so ertrinken diese": the carried army loses the sunk ships' share
    of its soldiers, rounded up (nobody is left on a sunk ship). 1 of 3 ships:
    ceil(100 / 3) = ceil(33.3) = 34 of 100 Krieger drown, 66 stay."""
    seg = small_segment(["~M"])
    add_kingdom(seg, 1)
    fleet = add_army(seg, 7, 1, (0, 0), troop=TroopType.SCHIFFE, units=3)
    cargo = add_army(seg, 8, 1, (0, 0), troop=TroopType.KRIEGER, units=100)
    fleet.carrying, cargo.carried_by = 8, 7
    m = month_of(seg)
    lose(m, fleet, 1, "combat.losses", "ein Schiff versenkt")
    assert (fleet.units, cargo.units) == (2, 66)


# --- rounding to the nearest whole number: an exact half (combat.yaml halves_round_up) ----


def _rules_before_halves_round_up() -> Rules:
    """The shipped rules without ``combat.yaml`` ``halves_round_up``, as the months
    resolved before wdg 0.3.0 had them (a half rounds to even there)."""
    data = {p.stem: safe_load_file(p) or {} for p in sorted(RULES_DIR.glob("*.yaml"))}
    del data["combat"]["halves_round_up"]
    return Rules(data)


OLD = _rules_before_halves_round_up()


def test_an_exact_half_rounds_up_as_a_german_reader_rounds():
    """The rules never say how to round; "kaufmännisch" (DIN 1333) an exact half
    rounds up, away from zero: 4.5 -> 5, 50.5 -> 51, 0.5 -> 1, -2.5 -> -3; below
    the half down (4.49 -> 4). combat.yaml ``halves_round_up: true``; a rules set
    without it (months before 0.3.0) keeps Python's half-to-even: 4.5 -> 4,
    50.5 -> 50, 0.5 -> 0, -2.5 -> -2, 5.5 -> 6 (docs/rules.md, "Rounding")."""
    assert halves_round_up(RULES) and not halves_round_up(OLD)
    assert [nearest(x, RULES) for x in (4.5, 50.5, 0.5, -2.5, 4.49, 5.5, 7.0, 0.0)] == \
        [5, 51, 1, -3, 4, 6, 7, 0]
    assert [nearest(x, OLD) for x in (4.5, 50.5, 0.5, -2.5, 4.49, 5.5, 7.0, 0.0)] == \
        [4, 50, 0, -2, 4, 6, 7, 0]
    # a float just below the half is not a half (no float error rounds it up)
    assert nearest(0.49999999999999994, RULES) == 0


def test_the_winner_s_losses_at_an_exact_half_round_up():
    """Combat (docs/rules.md, "Combat" 5.): equal strengths give the winner the
    share 0.5 * 1 = 0.5; 1,001 fighters * 0.5 = 500.5 -> 501 (before 0.3.0: to
    the even 500)."""
    m = month_of(small_segment(["T."]))
    assert winner_losses(m, 1001, 100.0, 100.0) == 501
    assert winner_losses(month_of(small_segment(["T."]), rules=OLD), 1001, 100.0, 100.0) == 500


def test_partisan_losses_round_to_the_nearest_man_halves_up():
    """"Die Miliz" (militia.yaml): the loser loses loser_loss 0.3 of itself, the
    winner winner_loss_factor 0.3 * sL / sW of itself, at most winner_loss_max 0.5.
    The army wins against 15 militiamen (sA 300, sM 100): 15 * 0.3 = 4.5 -> 5
    militiamen killed; the army's 1,000 fighters lose 1,000 * 0.3 * 100 / 300 =
    100. The army loses against 1,001 militiamen (sA 1,000, sM 100: the share
    0.3 * 10 is capped at 0.5): 1,001 * 0.5 = 500.5 -> 501 killed; its 115
    fighters lose 115 * 0.3 = 34.5 -> 35. Before 0.3.0 the halves went to even:
    4, 500, 34. Below a half down: 1,003 fighters * 0.3 = 300.9 -> 301; 1,002 *
    0.3 = 300.6 -> 301; 1,001 * 0.3 = 300.3 -> 300."""
    m = month_of(small_segment(["T."]))
    assert partisan_losses(m, True, 15, 1000, 300.0, 100.0) == (5, 100)
    assert partisan_losses(m, False, 1001, 115, 1000.0, 100.0) == (501, 35)
    assert [partisan_losses(m, False, 1, n, 1.0, 100.0)[1] for n in (1003, 1002, 1001)] == \
        [301, 301, 300]
    old = month_of(small_segment(["T."]), rules=OLD)
    assert partisan_losses(old, True, 15, 1000, 300.0, 100.0) == (4, 100)
    assert partisan_losses(old, False, 1001, 115, 1000.0, 100.0) == (500, 34)


def test_a_creature_horde_that_wins_loses_the_winner_s_share_halves_up():
    """"Die Fabelwesen": a horde that beats an army loses the winner's share of
    combat.yaml (0.5 * sA / sC, at most 0.7). 5 creatures, equal strength:
    5 * 0.5 = 2.5 -> 3 (before 0.3.0: 2); 3 creatures: 1.5 -> 2; the share capped
    (sA = 10 * sC): 10 * 0.7 = 7; 7 creatures, sA = sC / 10: 7 * 0.05 = 0.35 -> 0."""
    m = month_of(small_segment(["T."]))
    assert creature_losses(m, 5, 50.0, 50.0) == 3
    assert creature_losses(m, 3, 50.0, 50.0) == 2
    assert creature_losses(m, 10, 500.0, 50.0) == 7
    assert creature_losses(m, 7, 5.0, 50.0) == 0
    assert creature_losses(month_of(small_segment(["T."]), rules=OLD), 5, 50.0, 50.0) == 2


def _merged(units_a: int, morale_a: int, units_b: int, morale_b: int,
            rules: Rules = RULES) -> int:
    """The morale of army 102 after army 101 hands it everything ("(eh)")."""
    seg = econ_world()
    add_army(seg, 101, 1, "101.09", units=units_a, morale=morale_a)
    add_army(seg, 102, 1, "101.09", units=units_b, morale=morale_b)
    phase_a(econ_month(seg, a_sheet(seg, 1, (101, DismissArmy(102))), rules=rules))
    assert seg.armies[102].units == units_a + units_b
    return seg.armies[102].morale


def test_the_morale_of_joined_armies_is_the_weighted_mean_halves_up():
    """"Die Heeresmoral": "werden neue Rüstgüter aufgenommen, so kann sich die
    Moral verbessern oder verschlechtern": the morale of the joined army is the
    mean weighted by units, to the nearest point. 100 at 51 join 100 at 50:
    10,100 / 200 = 50.5 -> 51 (before 0.3.0: the even 50); 100 at 41 join 300
    at 60: (4,100 + 18,000) / 400 = 55.25 -> 55; 100 at 43 join 100 at 50:
    46.5 -> 47 (to even as well: 46)."""
    assert _merged(100, 51, 100, 50) == 51
    assert _merged(100, 51, 100, 50, OLD) == 50
    assert _merged(100, 41, 300, 60) == 55
    assert _merged(100, 43, 100, 50) == 47
    assert _merged(100, 43, 100, 50, OLD) == 46


def test_recruits_join_with_their_morale_halves_up():
    """"(nr)": recruits join at economy.yaml recruit_morale 40. 100 at 41 take 100
    recruits: 8,100 / 200 = 40.5 -> 41 (before 0.3.0: the even 40)."""
    for rules, want in ((RULES, 41), (OLD, 40)):
        seg = econ_world(treasury=100_000)
        add_settlement(seg, "101.17", 100, kingdom=1, militia=1000,
                       buildings={Building.KASERNE: 1})
        add_army(seg, 101, 1, "101.17", units=100, morale=41)
        phase_a(econ_month(seg, a_sheet(seg, 1, (101, Recruit(100))), rules=rules))
        assert (seg.armies[101].units, seg.armies[101].morale) == (200, want)


def test_an_estimate_rounds_to_the_step_halves_up():
    """"(i) Informationen": the militia is reported within +-militia_error of the
    truth, rounded to round_to 10 (actions.yaml); recon sightings likewise
    (recon.yaml). With an error of 0 the draw is 1.0 exactly: 25 -> 2.5 steps
    -> 30 (before 0.3.0: the even 20); 24 -> 20; 26 -> 30; 35 -> 40 either way."""
    m = month_of(small_segment(["T."]))
    assert [estimate(m, n, 0.0, 10) for n in (25, 24, 26, 35)] == [30, 20, 30, 40]
    assert [recon_estimate(m, n, 0.0, 10) for n in (25, 24, 26, 35)] == [30, 20, 30, 40]
    old = month_of(small_segment(["T."]), rules=OLD)
    assert estimate(old, 25, 0.0, 10) == 20 and recon_estimate(old, 25, 0.0, 10) == 20


def test_the_range_an_estimate_stands_for_is_rounded_inward():
    """The JSON report's range of an estimate (recon.py ``estimate_range``): the
    truth lies in [(u - r/2) / (1 + e), (u + r/2) / (1 - e)], the low end rounded
    up and the high end down (whole soldiers inside the range). u 100, e 0.2,
    r 10: 95 / 1.2 = 79.17 -> 80; 105 / 0.8 = 131.25 -> 131."""
    assert estimate_range(100, 0.2, 10) == (80, 131)
    assert estimate_range(0, 0.2, 10) == (0, 6)


# --- rounded down or up, never to the nearest ---------------------------------------------


def test_creature_effects_round_down_and_every_full_twenty_make_an_undead():
    """"Die Fabelwesen": Untote infect krankheit 0.02 and turn untote 0.05 of the
    soldiers they meet (creatures.yaml, each share of the army as it met them,
    rounded down: a soldier is struck or not), and every undead_per_creature 20
    of the turned soldiers add one creature to the horde (whole creatures only).
    1,019 soldiers: 20.38 -> 20 sick, 50.95 -> 50 undead, 50 // 20 = 2 creatures
    (2.5); the horde of 10 grows to 12, the army keeps 1,019 - 70 = 949."""
    seg = small_segment(["T."])
    add_kingdom(seg, 1)
    army = add_army(seg, 101, 1, (0, 0), units=1019)
    seg.creatures[1] = cr = Creature(1, "untote", at(seg, (0, 0)), count=10)
    events = apply_effects(month_of(seg), cr, army)
    assert [(e.data["effect"], e.data["lost"], e.data["undead"]) for e in events] == \
        [("krankheit", 20, 0), ("untote", 50, 2)]
    assert (army.units, cr.count) == (949, 12)


def test_the_recruitment_volume_counts_whole_units():
    """"Das Rüstvolumen ... ein Krieger wie 1 Milizionär, ein Reiter wie 2
    Milizionäre und ein Schiff wie 1.000 Milizionäre" (economy.yaml
    recruit_volume): only whole units, rounded down. 1,999 militia: 1,999
    Krieger, 999 Reiter (999.5), 1 ship; 2,999: 2 ships (2.999); none below 0."""
    assert [recruit_volume(1999, t, RULES) for t in ("Krieger", "Reiter", "Schiffe")] == \
        [1999, 999, 1]
    assert recruit_volume(2999, "Schiffe", RULES) == 2
    assert recruit_volume(-5, "Krieger", RULES) == 0


def _water_dir(seg, where):
    h = at(seg, where)
    for d in Direction:
        n = h.neighbour(d)
        if seg.grid.contains(n) and seg.at(seg.terrain, n) in (0, 1):
            return d, n
    raise AssertionError("no water")


def test_boats_are_built_for_the_whole_army_rounded_up():
    """"Das Boot": "Es werden genau so viele Boote gebaut, daß das gesamte Heer
    einschiffen kann"; a boat carries boat_capacity 20 Raumfaktoren
    (economy.yaml), a Krieger 1: 1,001 Krieger need ceil(50.05) = 51 boats (50
    would leave one ashore); the order says so and the army embarks on 51."""
    seg = econ_world()
    add_army(seg, 101, 1, "101.10", units=1001)   # Tieflandwald at the coast
    d, water = _water_dir(seg, "101.10")
    m = econ_month(seg, a_sheet(seg, 1, (101, BuildBoats(d))))
    phase_a(m)
    assert m.log.of_kind("a.bb")[0].data["boats"] == 51
    launch_boats(m)
    assert (seg.armies[101].position, seg.armies[101].boats) == (water, 51)


def test_a_fleet_that_lost_ships_keeps_only_whole_soldiers_it_can_carry():
    """"(p) ... Fracht ... unrettbar versunken": a fleet on the water that lost
    ships (desertion) carries only what its Tragkraft holds, whole soldiers. The
    shipped numbers (100 per ship, Reiter 2) always divide; with a game master's
    ship_capacity 25: 3 ships carry 75 Raumfaktoren = 75 // 2 = 37 Reiter (37.5);
    of 100 Reiter 63 drown."""
    space = {**RULES.section("economy", "space"), "ship_capacity": 25}
    seg = small_segment(["~M"])
    add_kingdom(seg, 1)
    fleet = add_army(seg, 7, 1, (0, 0), troop=TroopType.SCHIFFE, units=3)
    cargo = add_army(seg, 8, 1, (0, 0), troop=TroopType.REITER, units=100)
    fleet.carrying, cargo.carried_by = 8, 7
    m = month_of(seg, rules=rules_with("economy", space=space))
    events = overload(m, fleet, "Schiffe desertiert")
    assert cargo.units == 37 and events[0].data["lost"] == 63


def test_releasing_ships_names_the_whole_ships_the_cargo_can_spare():
    """"(er) Rüstgüter entlassen" for a fleet carrying an army: the ships left
    must carry it ("Tragkraft von 100 Raumfaktoren"). 5 ships carry 250 Krieger:
    500 - 250 = 250 spare Raumfaktoren = 2 whole ships (2.5); releasing 4 is
    refused and the refusal names 2."""
    seg = econ_world()
    fleet = add_army(seg, 103, 1, (0, 0), troop=TroopType.SCHIFFE, units=5)
    cargo = add_army(seg, 104, 1, (0, 0), units=250)
    fleet.carrying, cargo.carried_by = 104, 103
    m = econ_month(seg, a_sheet(seg, 1, (103, Release(4))))
    phase_a(m)
    assert fleet.units == 5
    assert "höchstens 2 Schiffe können entlassen werden" in m.log.of_kind("a.er.refused")[0].why


def test_destroying_counts_whole_levels_and_whole_baueinheiten():
    """"(x) ... so weit wie möglich" (combat.yaml destruction): a building loses
    one level per full soldiers_per_level 500 soldiers (999 -> 1, 1,000 -> 2),
    at least one with min_soldiers_for_a_level 100 (99 -> 0); a settlement loses
    settlement_units_per_100 20 Baueinheiten per 100 soldiers times the morale
    factor (0.6 + 50 / 100 * 0.8 = 1.0), rounded down: 1,049 soldiers ->
    10.49 * 20 = 209.8 -> 209 of 500 BE."""
    def levels(units: int) -> int:
        seg = small_segment(["T."])
        add_kingdom(seg, 1)
        h = add_settlement(seg, (0, 0), 500, buildings={Building.KASERNE: 3})
        army = add_army(seg, 101, 1, (0, 0), units=units, morale=50)
        _tear_down(month_of(seg), army, h, DestroyTarget.KASERNE, 0)
        return 3 - seg.building_level(h, Building.KASERNE)
    assert [levels(n) for n in (99, 100, 999, 1000)] == [0, 1, 1, 2]
    seg = small_segment(["T."])
    add_kingdom(seg, 1)
    h = add_settlement(seg, (0, 0), 500)
    army = add_army(seg, 101, 1, (0, 0), units=1049, morale=50)
    _tear_down(month_of(seg), army, h, DestroyTarget.SIEDLUNG, 0)
    assert seg.at(seg.settlement, h) == 500 - 209


def test_festival_points_count_whole_points():
    """"(F+) Volksfest veranstalten": one point per gold_per_point_per_gemark 100
    GS per own gemark, at most max_points 10, popularity at most 100
    (economy.yaml). 7 gemarks, 2,099 GS: 2,099 // 700 = 2 points (2.998): 50 ->
    52; 70,000 GS: 100 points capped at 10 -> 60; from 95: 100."""
    assert festival_popularity(50, 2099, 7, RULES) == 52
    assert festival_popularity(50, 70_000, 7, RULES) == 60
    assert festival_popularity(95, 70_000, 7, RULES) == 100


def test_the_treasury_share_of_a_site_rounds_down():
    """"Der Reichsschatz" (a) "verteilt sich stets gleichmäßig auf alle
    Siedlungen": 1,001 GS over 3 Flecken = 333 each (333.67; the remainder stays
    with the kingdom); a Lager of 99 BE holds none."""
    seg = small_segment(["T. T. T. T."])
    add_kingdom(seg, 1, treasury=1001)
    for where in ((0, 0), (1, 0), (2, 0)):
        add_settlement(seg, where, 100, kingdom=1)
    add_settlement(seg, (3, 0), 99, kingdom=1)
    assert treasury_share(seg, 1, RULES) == 333


def test_low_morale_desertion_draws_over_every_unit_with_the_exact_chance():
    """"Eine niedrige Moral kann aber auch ... Desertionen zur Folge haben"
    (morale.yaml desertion): nothing is rounded; every unit deserts with
    max_chance 0.10 * (below 20 - morale) / 20: morale 7 -> 0.065, 19 -> 0.005,
    0 -> 0.1, 20 -> 0. The draw is over all units: with max_chance 1.0 at
    morale 0 all 1,003 desert."""
    assert [desertion_chance(RULES, n) for n in (7, 19, 0, 20)] == \
        pytest.approx([0.065, 0.005, 0.1, 0.0], abs=1e-15)
    seg = small_segment(["T."])
    add_kingdom(seg, 1)
    army = add_army(seg, 101, 1, (0, 0), units=1003, morale=0)
    m = month_of(seg, rules=rules_with("morale", desertion={"below": 20, "max_chance": 1.0}))
    low_morale_desertion(m, army)
    assert army.units == 0 and m.log.of_kind("morale.desertion")[0].data["deserters"] == 1003


def test_harvest_help_and_repairs_round_down():
    """"(h) Hilfe" (actions.yaml help): gold_per_soldier 0.5 GS per soldier, at
    most gold_max_share_of_tax 0.5 of the Steuerwert (Tiefland 600 -> 300):
    401 soldiers 200.5 -> 200 GS, 1,000 soldiers 300. Repairs
    repair_per_1000_soldiers 20: 1,049 soldiers 20.98 -> 20 BE; at least 1 with
    any soldier (1 -> 0.02 -> 1), none without."""
    tid = terrain("Tiefland").id
    assert (help_gold(401, tid, RULES), help_gold(1000, tid, RULES)) == (200, 300)
    assert [repair_capacity(n, RULES) for n in (1049, 1, 0)] == [20, 1, 0]


def test_a_creature_hypnotises_whole_soldiers():
    """"Die Fabelwesen": a Seeschlange hypnotises hypnotisieren 0.2 of the
    soldiers it fights (creatures.yaml; they do not fight), rounded down:
    1,004 -> 200.8 -> 200; a Drache hypnotises none."""
    kinds = RULES.section("creatures", "kinds")
    assert hypnotised(kinds["seeschlange"], 1004) == 200
    assert hypnotised(kinds["drache"], 1004) == 0


def test_a_werber_raises_the_militia_by_whole_men():
    """A general's ability "Werber" (WE, wizards.yaml militia_share 0.05) raises
    the militia of his gemark by a share of its cap, rounded down: cap 4,841
    (7 BE, popularity 41, see the cap test above) * 0.05 = 242.05 -> 242; the
    militia of 1,000 becomes 1,242."""
    seg = small_segment(["T. T."])
    add_kingdom(seg, 1)
    own(seg, 1, (0, 0))
    seg.settlement[seg.grid.index(at(seg, (0, 0)))] = 7
    seg.kingdoms[1].popularity = 41
    seg.militia[seg.grid.index(at(seg, (0, 0)))] = 1000
    add_army(seg, 101, 1, (0, 0), ability="WE")
    m = month_of(seg, {101: CharacterAction("WE")})
    character_actions(m)
    assert m.log.of_kind("c.ability")[0].data["militia"] == 242
    assert int(seg.militia[seg.grid.index(at(seg, (0, 0)))]) == 1242


def test_an_upgraded_campaign_keeps_half_to_even_until_the_game_master_adopts(tmp_path):
    """A running campaign's rules lack ``halves_round_up`` (made before 0.3.0):
    ``wdg segment upgrade --rules keep`` leaves it out — the campaign rounds as
    before and its archived months replay as resolved — and ``--rules adopt``
    adds it (``RULES_OFF_WHEN_ABSENT``; docs/turns.md, "Regeln")."""
    from wdg.campaign import Campaign
    from wdg.engine import upgrade

    camp = Campaign(tmp_path / "c")
    own = camp.worlds / "rules"
    shutil.copytree(RULES_DIR, own)
    combat = own / "combat.yaml"
    combat.write_text(combat.read_text(encoding="utf-8").replace("halves_round_up: true\n", ""),
                      encoding="utf-8")
    assert not halves_round_up(Rules.load(own))
    notes = upgrade.rules_step(upgrade.Context(camp, "x", 2, 3, "keep", False, "keep"))
    assert not halves_round_up(Rules.load(own))
    assert any("combat.yaml: halves_round_up: neue Regel, nicht übernommen" in n
               for n in notes), notes
    upgrade.rules_step(upgrade.Context(camp, "x", 2, 3, "keep", False, "adopt"))
    assert halves_round_up(Rules.load(own))
