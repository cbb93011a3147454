"""A small but complete segment for storage tests: every kind of record."""

from __future__ import annotations

import numpy as np

from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.hexgrid import Hex
from wdg.world.passwords import hash_password
from wdg.world.state import (
    ArmyStatus,
    Building,
    Construction,
    Contact,
    Creature,
    General,
    GeneralOffer,
    ProjectKind,
    Segment,
    Treasure,
    TroopType,
)


def full_segment() -> Segment:
    """Two provinces, two kingdoms and a city state, armies of every status,
    settlements with buildings, a creature, a treasure, a construction."""
    seg = small_segment(["~M ~K T. Hw", " ~K T. Hs B."], prov_cols=2, prov_rows=1,
                        date=MonthDate(412, 4), seed=77, name="probe")
    k1 = add_kingdom(seg, 1, name="Arkonia", diplomacy={2: 3})
    k1.player.password_hash = hash_password("geheim", np.random.default_rng(1))
    k1.player.contact = Contact.SECRET
    k1.offer = GeneralOffer(General("Ulrich", TroopType.REITER, 25, "sp", False), 4000)
    add_kingdom(seg, 2, name="Borhold <&> \"Reich\"", diplomacy={1: 5})
    add_kingdom(seg, 9, name="Freistadt", city_state=True)
    add_settlement(seg, "101.03", 350, name="Arkon", kingdom=1, militia=900,
                   buildings={Building.KASERNE: 1, Building.PALAST: 1, Building.HAFEN: 2})
    add_settlement(seg, "102.10", 120, name="Borh", kingdom=2)
    own(seg, 1, "101.04", "101.11")
    seg.buildings[3, 0, 3] = 1  # a mine outside any settlement
    add_army(seg, 101, 1, "101.03", units=1000)
    add_army(seg, 102, 1, None, troop=TroopType.REITER)
    add_army(seg, 103, 1, "101.02", troop=TroopType.SCHIFFE, units=5)
    seg.armies[103].carrying = 101
    seg.armies[101].carried_by = 103
    add_army(seg, 201, 2, "102.10", troop=None, status=ArmyStatus.ACTIVATING)
    seg.creatures[1] = Creature(1, "drache", at(seg, "101.20"), count=2, gold=500,
                                items=["Schwert"], name="Fafnir")
    seg.treasures[1] = Treasure(1, at(seg, "102.30"), gold=1000, item="Krone", note="alt")
    seg.constructions.append(Construction(1, at(seg, "101.11"), ProjectKind.SETTLEMENT, 80,
                                          MonthDate(412, 3)))
    seg.militia[:] = 40
    seg.known[1].seen[0, :4] = seg.date.ordinal
    seg.known[1].terrain[0, :4] = seg.terrain[0, :4]
    seg.known[1].owner[0, :4] = seg.owner[0, :4]
    seg.settings.deadline, seg.settings.deadline_month = "2026-12-17 13:00", "0412-05"
    assert Hex.from_offset(0, 0) in list(seg.grid.hexes())
    return seg
