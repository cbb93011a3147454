"""Every rounding rule of the engine pinned by exact numbers worked out by hand
(issue #44: the militia's regrowth survived a ceil -> floor mutation because its
tests checked only inequalities). Each test names the rule (1994 rules,
/work/shared/seeds/wdg-spielregel-1994.txt; docs/rules.md for the numbers the
rules leave open) and the rules file holding the numbers; the arithmetic is in
the comments. ``python -m wdg.bench.mutants`` mutates these roundings and checks
that a test here fails (docs/testing.md)."""

from __future__ import annotations

import numpy as np

from tests.engine._phase_b_world import RULES, month_of, rules_with
from wdg.engine.combat import demoralised, lose, winner_losses
from wdg.engine.economy import EconomyStart, pay_and_upkeep, tax_income
from wdg.engine.militia import militia_cap, militia_growth
from wdg.engine.movement import Tables, loss_of
from wdg.world.factory import add_army, add_kingdom, at, own, small_segment
from wdg.world.state import TroopType
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
