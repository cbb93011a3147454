"""The combat table pinned by exact numbers worked out by hand (issue #44: a
mutation dropping the fortification cap, one dropping the Palast from the
fortification and one making :func:`win_chance` ignore ``sharpness`` all
survived while the tests compared strengths only with ``<``).

"Der Kampf": "Alle Kämpfe werden vom Segmentleiter nach einer geheimen
Kampftabelle ausgetragen, in der die Stärke der Heere, die Art des Geländes und
der Bauwerke und das Besitzverhältnis des Kampfschauplatzes berücksichtigt
werden." The table is ``worlds/rules/combat.yaml``; how its numbers combine is
docs/rules.md, "Combat", steps 2-4. The shipped numbers each test relies on
are asserted first, so a change of the table points here rather than at the
arithmetic."""

from __future__ import annotations

import pytest

from tests.engine._phase_b_world import RULES, month_of, rules_with
from wdg.engine.combat import army_strength, home_factor, win_chance
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.state import Building, Segment, TroopType


def test_the_shipped_table_holds_the_numbers_these_tests_work_with():
    """combat.yaml as shipped: the hand-worked numbers below use these."""
    c = RULES.area_data("combat")
    assert c is not None
    assert c["unit_strength"] == {"Krieger": 1.0, "Reiter": 1.5, "Schiffe": 1.0}
    assert (c["reiter_in_difficult_terrain"], c["morale_base"], c["morale_weight"],
            c["experience_weight"]) == (0.67, 0.6, 0.8, 0.01)
    assert (c["owner_bonus"], c["natives_difficult_bonus"], c["building_bonus_per_level"],
            c["settlement_bonus_per_100"], c["fortification_cap"]) == (1.15, 1.4, 0.1, 0.05, 1.0)
    assert c["sharpness"] == 2.0
    assert RULES.int("economy", "buildings", "max_level") == 3


# --- the home factor (docs/rules.md "Combat" 3) -------------------------------------


def home_gemark(code: str = "T.", *, size: int = 0,
                buildings: dict[Building, int] | None = None) -> Segment:
    """Kingdom 1 owns gemark (0, 0) of terrain ``code``, with a settlement of
    ``size`` Baueinheiten and ``buildings`` if given; kingdom 2 is a visitor."""
    seg = small_segment([code])
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    own(seg, 1, (0, 0))
    if size or buildings:
        add_settlement(seg, (0, 0), size or 1, kingdom=1, buildings=buildings)
    return seg


def factor(code: str = "T.", *, size: int = 0, buildings: dict[Building, int] | None = None,
           kingdom: int = 1) -> float:
    seg = home_gemark(code, size=size, buildings=buildings)
    return home_factor(month_of(seg), kingdom, at(seg, (0, 0)))


def test_a_visitor_and_a_gemark_nobody_owns_give_no_home_factor():
    """"das Besitzverhältnis des Kampfschauplatzes": only the owner gains. The
    visitor (kingdom 2) on kingdom 1's gemark fights at 1.0, even behind
    kingdom 1's walls and in a swamp; so does anyone on a gemark nobody owns,
    and a side without kingdom."""
    assert factor(kingdom=2) == 1.0
    assert factor("Tu", size=900, buildings={Building.KASERNE: 3}, kingdom=2) == 1.0
    seg = small_segment(["T."])
    add_kingdom(seg, 1)
    assert home_factor(month_of(seg), 1, at(seg, (0, 0))) == 1.0
    assert home_factor(month_of(seg), None, at(seg, (0, 0))) == 1.0


def test_the_owner_on_open_land_fights_at_the_owner_bonus():
    """The owner on his own Tiefland (not difficult), no settlement, no
    building: ``owner_bonus`` 1.15 × (1 + 0) = 1.15."""
    assert factor() == pytest.approx(1.15)


def test_natives_in_difficult_terrain_fight_better_still():
    """"Eingeborene Einwohner einer Gemark mit schwierigem Gelände kämpfen hier
    meist mit erheblichen Vorteilen gegenüber Fremden" ("Schwieriges Gelände"):
    the owner in a Tieflandsumpf: 1.15 × ``natives_difficult_bonus`` 1.4 = 1.61."""
    assert factor("Tu") == pytest.approx(1.61)


@pytest.mark.parametrize(("level", "expected"), [(1, 1.265575), (2, 1.380575), (3, 1.495575)])
def test_each_kaserne_level_fortifies_by_a_tenth(level, expected):
    """"die Art ... der Bauwerke": fortification = level × 0.1 plus the
    settlement a Kaserne stands in ("Bau nur in Siedlungen möglich"), here the
    smallest, 1 Baueinheit: 1/100 × 0.05 = 0.0005. 1.15 × (1 + 0.1005) =
    1.265575, 1.15 × 1.2005 = 1.380575, 1.15 × 1.3005 = 1.495575."""
    assert factor(size=1, buildings={Building.KASERNE: level}) == pytest.approx(expected)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_palast_fortifies_as_a_kaserne_of_the_same_level(level):
    """docs/rules.md "Combat" 3: fortification counts the levels of Kaserne
    *and* Palast ("die Art ... der Bauwerke"; the Palast is "der Sitz des
    Herrschers", "Die Bauwerke"). 100 Baueinheiten (0.05) and a Palast of
    ``level``: 1.15 × (1 + 0.05 + level × 0.1) = 1.3225, 1.4375, 1.5525 — the
    same as a Kaserne of that level; a settlement alone gives 1.15 × 1.05 = 1.2075."""
    expected = 1.15 * (1.05 + level * 0.1)
    assert factor(size=100, buildings={Building.PALAST: level}) == pytest.approx(expected)
    assert factor(size=100, buildings={Building.KASERNE: level}) == pytest.approx(expected)
    assert factor(size=100) == pytest.approx(1.2075)


def test_kaserne_and_palast_levels_add_up():
    """Kaserne 2 and Palast 3 on a Markt of 200 Baueinheiten: fortification =
    (2 + 3) × 0.1 + 200/100 × 0.05 = 0.5 + 0.1 = 0.6; 1.15 × 1.6 = 1.84."""
    both = {Building.KASERNE: 2, Building.PALAST: 3}
    assert factor(size=200, buildings=both) == pytest.approx(1.84)


def test_a_hafen_and_a_mine_do_not_fortify():
    """Only Kaserne and Palast count (docs/rules.md "Combat" 3): a Hafen 3 and a
    Mine 3 beside a settlement of 300 Baueinheiten: 1.15 × (1 + 0.15) = 1.3225."""
    assert factor(size=300, buildings={Building.HAFEN: 3, Building.MINE: 3}) == \
        pytest.approx(1.3225)


@pytest.mark.parametrize(("size", "expected"), [
    (300, 2.0125),         # 0.6 + 0.15 = 0.75 below the cap: 1.15 × 1.75 = 2.0125
    (800, 2.3),            # 0.6 + 0.40 = 1.0, exactly the cap: 1.15 × 2 = 2.3
    (900, 2.3),            # 0.6 + 0.45 = 1.05 -> capped at 1.0 (uncapped: 2.3575)
    (1400, 2.3),           # 0.6 + 0.70 = 1.3 -> capped at 1.0 (uncapped: 2.645)
])
def test_fortification_stops_at_the_cap(size, expected):
    """``fortification_cap`` 1.0 (docs/rules.md "Combat" 3: "at most
    ``fortification_cap``"): Kaserne 3 and Palast 3 (the highest level,
    economy.yaml ``buildings.max_level``) give 0.6; the settlement adds
    size/100 × 0.05. Up to the cap the factor grows, beyond it the owner
    fights at 1.15 × (1 + 1.0) = 2.3 however large the town."""
    full = {Building.KASERNE: 3, Building.PALAST: 3}
    assert factor(size=size, buildings=full) == pytest.approx(expected)


def test_the_cap_holds_in_difficult_terrain_too():
    """Natives behind capped walls in a Tieflandsumpf: 1.15 × 1.4 × (1 + 1.0) =
    3.22 with 1,400 Baueinheiten (0.6 + 0.7 = 1.3, capped at 1.0); with 300
    (0.75) 1.61 × 1.75 = 2.8175."""
    full = {Building.KASERNE: 3, Building.PALAST: 3}
    assert factor("Tu", size=1400, buildings=full) == pytest.approx(3.22)
    assert factor("Tu", size=300, buildings=full) == pytest.approx(2.8175)


# --- strength (docs/rules.md "Combat" 2) ---------------------------------------------


def test_army_strength_a_worked_example():
    """Strength = fighters × ``unit_strength`` × morale factor × experience
    factor × home factor (docs/rules.md "Combat" 2; "Erfahrung des Feldherren":
    "Er hat einen Einfluß auf die Kampfqualität"; "Die Heeresmoral").

    Kingdom 1's Krieger army (morale 75, general's experience 20) at home in a
    Dorf of 300 Baueinheiten with a Kaserne 2 on Tiefland, 1,000 fighters:
    Krieger 1.0; morale 0.6 + 75/100 × 0.8 = 1.2; experience 1 + 20 × 0.01 =
    1.2; home 1.15 × (1 + 2 × 0.1 + 3 × 0.05) = 1.15 × 1.35 = 1.5525;
    1000 × 1.0 × 1.2 × 1.2 × 1.5525 = 2235.6. The visitor's army of kingdom 2
    (Reiter, morale 50, experience 0) on the same gemark, 800 fighters:
    800 × 1.5 × (0.6 + 0.4) × 1 × 1.0 = 1200."""
    seg = home_gemark(size=300, buildings={Building.KASERNE: 2})
    host = add_army(seg, 1, 1, (0, 0), morale=75, experience=20)
    guest = add_army(seg, 2, 2, (0, 0), troop=TroopType.REITER, morale=50, experience=0)
    m = month_of(seg)
    h = at(seg, (0, 0))
    assert army_strength(m, host, h, 1000) == pytest.approx(2235.6)
    assert army_strength(m, guest, h, 800) == pytest.approx(1200.0)
    # half the fighters, half the strength; none, none
    assert army_strength(m, host, h, 500) == pytest.approx(1117.8)
    assert army_strength(m, host, h, 0) == 0.0


def test_riders_at_home_in_a_swamp():
    """Reiter lose their edge in difficult terrain (× 0.67) while natives gain
    (× 1.4): kingdom 1's 1,000 riders (morale 100, experience 0) in their own
    Tieflandsumpf: 1000 × 1.5 × 0.67 × (0.6 + 0.8) × 1 × 1.15 × 1.4 =
    1005 × 1.4 × 1.61 = 2265.27."""
    seg = home_gemark("Tu")
    a = add_army(seg, 1, 1, (0, 0), troop=TroopType.REITER, morale=100, experience=0)
    assert army_strength(month_of(seg), a, at(seg, (0, 0)), 1000) == pytest.approx(2265.27)


# --- the odds (docs/rules.md "Combat" 4) ---------------------------------------------


def test_win_chance_follows_the_formula_with_the_shipped_sharpness():
    """Side A wins with sA^k / (sA^k + sB^k), k = ``sharpness`` 2: twice the
    strength wins 2² / (2² + 1) = 4/5 ("k = 2 means twice the strength wins four
    times in five"), three times 9/10; the weaker side the rest, 1/5 and 1/10;
    equal sides 1/2. The worked example above: 2235.6² / (2235.6² + 1200²) =
    4997907.36 / (4997907.36 + 1440000) = 0.776325..."""
    m = month_of(small_segment())
    k = RULES.num("combat", "sharpness")
    assert win_chance(m, 2, 1) == pytest.approx(2 ** k / (2 ** k + 1))
    assert win_chance(m, 2, 1) == pytest.approx(0.8)
    assert win_chance(m, 1, 2) == pytest.approx(0.2)
    assert win_chance(m, 3000, 1000) == pytest.approx(0.9)
    assert win_chance(m, 1000, 3000) == pytest.approx(0.1)
    assert win_chance(m, 700, 700) == 0.5
    assert win_chance(m, 2235.6, 1200) == pytest.approx(4997907.36 / 6437907.36)


def test_win_chance_reads_its_sharpness_from_the_table():
    """The same sides under another table: k = 3 gives twice the strength 8/9,
    k = 1 gives 2/3 (the plain ratio), k = 0.5 gives √2 / (√2 + 1) = 0.585786..."""
    for k, expected in ((3.0, 8 / 9), (1.0, 2 / 3), (0.5, 2 ** 0.5 / (2 ** 0.5 + 1))):
        m = month_of(small_segment(), rules=rules_with("combat", sharpness=k))
        assert win_chance(m, 2, 1) == pytest.approx(expected)


def test_win_chance_when_a_side_has_no_strength():
    """A side with no strength loses for certain (0^2 / (0^2 + 1^2) = 0); two
    sides without strength toss a fair coin (docs/rules.md "Combat" 4)."""
    m = month_of(small_segment())
    assert win_chance(m, 500, 0) == 1.0
    assert win_chance(m, 0, 500) == 0.0
    assert win_chance(m, 0, 0) == 0.5
