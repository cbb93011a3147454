"""A small hand-built world for the order-sheet tests (no files needed)."""

from __future__ import annotations

import functools

import pytest

from wdg.world.factory import add_army, add_kingdom, add_settlement, own, small_segment
from wdg.world.passwords import hash_password
from wdg.world.state import Building, General, GeneralOffer, TroopType

MAP = [
    "~K ~K ~K ~K ~K ~K ~K ~K",
    "Tw T. T. Hv T. T. T. T.",
    "T. T. T. T. T. T. T. T.",
]
"""Row 0 is coastal water; 101.09 is a coastal forest, 101.10 a harbour town,
101.12 a volcano."""


@functools.cache
def _hash(password: str) -> str:
    """One scrypt hash per password for the whole session (each costs 0.1 s)."""
    return hash_password(password)


def make_world():
    """Kingdom 1 (player, password 'geheim-1') with six armies and one town;
    kingdoms 2 and 3 as neighbours; kingdom 4 unknown to kingdom 1."""
    seg = small_segment(MAP, name="test")
    k1 = add_kingdom(seg, 1, name="Nordmark", diplomacy={2: 5, 3: 9})
    k1.player.password_hash = _hash("geheim-1")
    k1.offer = GeneralOffer(General("Ardo", TroopType.REITER, 20), 3000)
    for n in (2, 3, 4):
        add_kingdom(seg, n).player.password_hash = _hash(f"geheim-{n}")
    add_settlement(seg, "101.10", 150, name="Hafenburg", kingdom=1,
                   buildings={Building.KASERNE: 1, Building.HAFEN: 1, Building.PALAST: 1})
    add_settlement(seg, "101.20", 120, name="Fremdburg", kingdom=2,
                   buildings={Building.KASERNE: 1})
    own(seg, 1, "101.09", "101.11", "101.12")
    add_army(seg, 101, 1, "101.10", units=500)
    add_army(seg, 102, 1, "101.09", units=300)
    add_army(seg, 103, 1, "101.10", troop=TroopType.SCHIFFE, units=5)
    add_army(seg, 104, 1, None)
    add_army(seg, 105, 1, None, troop=None)
    add_army(seg, 106, 1, "101.10", troop=TroopType.REITER, units=200)
    add_army(seg, 201, 2, "101.20")
    return seg


@pytest.fixture
def world():
    """A fresh small world per test."""
    return make_world()
