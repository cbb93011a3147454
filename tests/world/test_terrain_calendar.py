"""Terrain facts against the rule's table ("Die Geländearten", "Schwieriges
Gelände", "Die Siedlung" (c)) and the calendar ("Die Zeitrechnung")."""

from __future__ import annotations

import pytest

from wdg.errors import InvalidInputError
from wdg.world.calendar import MonthDate
from wdg.world.terrain import (
    BY_NAME, TERRAINS, Component as C, can_get_lost, causes_losses, closed_months,
    coastal_mask, is_difficult, is_land, is_water, loss_components, settlement_cost_factor,
    terrain,
)
import numpy as np

# The rule's table: name, Höhenstufe, Steuerwert.
RULE_TABLE = [
    ("Meer", 0, 0), ("Küstengewässer", 0, 0), ("Tiefland", 1, 600),
    ("Tieflandstromtal", 1, 600), ("Tieflandsee", 1, 400), ("Tieflandwald", 1, 400),
    ("Tieflandregenwald", 1, 200), ("Tieflandsumpf", 1, 200), ("Tieflandeiswüste", 1, 200),
    ("Tieflandsandwüste", 1, 200), ("Tieflandsteppe", 1, 300), ("Hochland", 2, 400),
    ("Hochlandstromtal", 2, 400), ("Hochlandsee", 2, 300), ("Hochlandwald", 2, 300),
    ("Hochlandregenwald", 2, 150), ("Hochlandsumpf", 2, 150), ("Hochlandeiswüste", 2, 150),
    ("Hochlandsandwüste", 2, 150), ("Hochlandsteppe", 2, 225), ("Hochlandvulkan", 2, 20),
    ("Bergland", 3, 200), ("Berglandwald", 3, 100), ("Berglandregenwald", 3, 50),
    ("Berglandeiswüste", 3, 50), ("Berglandvulkan", 3, 10), ("Gebirge", 4, 100),
    ("Gebirgseiswüste", 4, 25), ("Gebirgsvulkan", 4, 1), ("Hochgebirge", 5, 20),
    ("Hochgebirgseiswüste", 5, 5), ("Gebirgsmassiv", 6, 2),
]


def test_all_32_heights_and_tax_values_match_the_rule() -> None:
    assert [(t.name, t.height, t.tax) for t in TERRAINS] == RULE_TABLE


def test_composites_know_their_two_components() -> None:
    assert BY_NAME["Berglandwald"].components == (C.BERGLAND, C.WALD)
    assert BY_NAME["Hochgebirgseiswüste"].components == (C.HOCHGEBIRGE, C.EISWUESTE)
    assert not BY_NAME["Gebirge"].is_composite and BY_NAME["Hochlandvulkan"].is_composite


def test_water_and_land() -> None:
    """"Als Wassergemark wird eine Gemark bezeichnet, die entweder aus der Geländeart
    Meer oder Küstengewässer besteht"; every other gemark is a Landgemark."""
    assert [t.name for t in TERRAINS if is_water(t)] == ["Meer", "Küstengewässer"]
    assert all(is_land(t) for t in TERRAINS[2:])


def test_coastal_gemarks_are_lowland_touching_water() -> None:
    """"Küstengemark": a Landgemark of Höhenstufe 1 bordering a water gemark."""
    layer = np.full((4, 4), BY_NAME["Tiefland"].id, dtype=np.uint8)
    layer[0, 0] = BY_NAME["Meer"].id
    layer[0, 2] = BY_NAME["Hochland"].id
    mask = coastal_mask(layer)
    assert mask[0, 1] and mask[1, 0] and not mask[1, 1] and not mask[0, 2]


def test_difficult_terrain_losses_and_getting_lost() -> None:
    """"Schwieriges Gelände": Bergland is difficult without losses; Regenwald,
    Sumpf, Eiswüste, Sandwüste also bring the danger of getting lost."""
    assert is_difficult(BY_NAME["Bergland"]) and not causes_losses(BY_NAME["Bergland"])
    assert not is_difficult(BY_NAME["Tiefland"]) and not is_difficult(BY_NAME["Tieflandwald"])
    assert loss_components(BY_NAME["Gebirgseiswüste"]) == (C.GEBIRGE, C.EISWUESTE)
    lost = {t.name for t in TERRAINS if can_get_lost(t)}
    assert "Tieflandsumpf" in lost and "Berglandregenwald" in lost and "Gebirge" not in lost


@pytest.mark.parametrize("name, months", [
    ("Tieflandstromtal", {4, 5, 6}), ("Bergland", {1, 2, 3}), ("Gebirge", {1, 2, 3}),
    ("Hochgebirge", set(range(1, 7))), ("Gebirgsmassiv", set(range(1, 7))),
    ("Berglandwald", {1, 2, 3}), ("Hochgebirgseiswüste", set(range(1, 7))),
    ("Tiefland", set()), ("Hochlandstromtal", {4, 5, 6}),
])
def test_seasonal_closure_takes_the_worse_component(name: str, months: set[int]) -> None:
    """"Die Geländeart Berglandwald kann ... in den Monden 1 - 3 nicht betreten werden"."""
    assert closed_months(BY_NAME[name]) == months


@pytest.mark.parametrize("name, factor", [
    ("Tiefland", 1), ("Tieflandsumpf", 2), ("Berglandwald", 2), ("Gebirge", 3),
    ("Hochgebirgseiswüste", 3), ("Hochlandvulkan", None), ("Meer", None),
])
def test_settlement_cost_doubles_triples_or_is_impossible(name: str, factor: int | None) -> None:
    """"Die Siedlung" (c): x2 in Sumpf, Sandwüste, Eiswüste, Regenwald, Bergland;
    x3 in Gebirge, Hochgebirge, Gebirgsmassiv; no settlement in Vulkan."""
    assert settlement_cost_factor(BY_NAME[name]) == factor


def test_terrain_lookup_by_code_and_folded_name() -> None:
    assert terrain("Hw").name == "Hochlandwald"
    assert terrain("hochlandeiswueste").name == "Hochlandeiswüste"
    with pytest.raises(InvalidInputError, match="'Zz'"):
        terrain("Zz")


def test_month_names_seasons_and_vulgar_names() -> None:
    d = MonthDate(412, 4)
    assert (d.name, d.season, d.vulgar) == ("Dormit", "Frühling", "Blütenmond")
    assert MonthDate(412, 12).name == "Sar" and MonthDate(412, 1).season == "Winter"
    assert d.long() == "Mond Dormit (Blütenmond), Frühling des Jahres 412"


def test_next_and_previous_cross_the_year() -> None:
    assert MonthDate(412, 12).next() == MonthDate(413, 1)
    assert MonthDate(413, 1).previous() == MonthDate(412, 12)
    assert MonthDate.from_ordinal(MonthDate(412, 7).ordinal) == MonthDate(412, 7)


def test_month_parse_both_forms() -> None:
    assert MonthDate.parse("0412-04") == MonthDate.parse("Dormit 412") == MonthDate(412, 4)
    assert MonthDate(5, 3).key == "0005-03"
    with pytest.raises(InvalidInputError, match="'Dormat 412'"):
        MonthDate.parse("Dormat 412")
