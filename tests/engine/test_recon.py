"""Phase E scouting and each kingdom's known map ("Die Erkundung der Heere",
"Der Kontrollbereich")."""

from __future__ import annotations

import numpy as np

from tests.engine._phase_b_world import month_of
from wdg.engine.recon import recon
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.hexgrid import hex_range, ring
from wdg.world.state import UNKNOWN_TERRAIN, Building, Creature, TroopType
from wdg.world.terrain import terrain

CENTRE = (3, 2)


def world(fill: str = "T.", centre: str | None = None, month: int = 7):
    seg = small_segment([], fill=fill, date=MonthDate(412, month))
    if centre:
        seg.terrain[CENTRE[1], CENTRE[0]] = terrain(centre).id
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    return seg


def known_cells(seg, k=1):
    return {seg.grid.hex_at(int(r), int(c))
            for r, c in zip(*np.nonzero(seg.known[k].terrain != UNKNOWN_TERRAIN))}


def sightings(m):
    return {e.data["id"]: e for e in m.log.of_kind("recon.sighting")}


def test_an_army_sees_its_gemark_and_two_rings_of_terrain():
    """a) Standort, b) "alle 6 benachbarten Gemarken", c) "die diesen Gemarken
    wiederum benachbarten Gemarken (2-GF-Bereich) ... Geländearten"."""
    seg = world()
    add_army(seg, 1, 1, CENTRE, units=1000)
    recon(month_of(seg))
    centre = at(seg, CENTRE)
    assert known_cells(seg) == set(hex_range(centre, 2))
    km = seg.known[1]
    r, c = seg.grid.index(centre)
    assert km.seen[r, c] == seg.date.ordinal
    assert km.owner[r, c] == 0
    far = seg.grid.index(ring(centre, 1)[0])
    assert km.owner[far] == -1 and km.settlement[far] == 0  # settlement seen, owner not


def test_foreign_armies_are_exact_at_the_army_s_gemark_and_estimated_next_door():
    """a) "genaue Angaben über fremde Heere bzw. Fabelwesen"; b) "geschätzte
    Angaben"; c) nothing but terrain."""
    seg = world()
    centre = at(seg, CENTRE)
    add_army(seg, 1, 1, centre, units=1000)
    add_army(seg, 20, 2, centre, units=777)
    add_army(seg, 21, 2, ring(centre, 1)[2], units=1000)
    add_army(seg, 22, 2, ring(centre, 2)[5], units=1000)
    m = month_of(seg)
    recon(m)
    s = sightings(m)
    assert s[20].data["exact"] and s[20].data["units"] == 777 and s[20].kingdom == 1
    assert not s[21].data["exact"] and 750 <= s[21].data["units"] <= 1250
    assert 22 not in s


def test_creatures_are_seen_like_armies():
    """"fremde Heere bzw. Fabelwesen"."""
    seg = world()
    centre = at(seg, CENTRE)
    add_army(seg, 1, 1, centre)
    seg.creatures[3] = Creature(3, "drache", centre, count=2)
    m = month_of(seg)
    recon(m)
    ev = [e for e in m.log.of_kind("recon.sighting") if e.data["what"] == "fabelwesen"][0]
    assert ev.data["units"] == 2 and ev.data["exact"]


def test_small_armies_scout_one_ring_less():
    """"Bei Heeren, die aus weniger als 1.000 Kriegern (500 Reitern, 10 Schiffen)
    bestehen ... kann die Erkundung eingeschränkt sein"."""
    for troop, units, fill in ((TroopType.KRIEGER, 999, "T."), (TroopType.REITER, 499, "T."),
                               (TroopType.SCHIFFE, 9, "~M")):
        seg = world(fill)
        add_army(seg, 1, 1, CENTRE, troop=troop, units=units)
        m = month_of(seg)
        recon(m)
        assert known_cells(seg) == set(hex_range(at(seg, CENTRE), 1)), troop
        assert m.log.of_kind("recon.scouted")[0].data["restricted"] == ["kleines Heer"]
    seg = world("T.")
    add_army(seg, 1, 1, CENTRE, troop=TroopType.REITER, units=500)
    recon(month_of(seg))
    assert len(known_cells(seg)) == 19


def test_difficult_terrain_restricts_scouting_and_both_restrictions_leave_only_the_own_gemark():
    """"... oder aufgrund Schwierigen Geländes kann die Erkundung eingeschränkt sein"."""
    seg = world(centre="Ts")
    add_army(seg, 1, 1, CENTRE, units=1000)
    recon(month_of(seg))
    assert len(known_cells(seg)) == 7
    seg = world(centre="Ts")
    add_army(seg, 1, 1, CENTRE, units=10)
    add_army(seg, 20, 2, ring(at(seg, CENTRE), 1)[0], units=1000)
    m = month_of(seg)
    recon(m)
    assert known_cells(seg) == {at(seg, CENTRE)}
    assert not [ev for ev in m.log.of_kind("recon.sighting") if ev.kingdom == 1]


def test_the_ruler_learns_of_foreign_armies_in_his_territory():
    """"Aus seinem Königreich erhält der Herrscher am Ende des Mondes automatisch
    Informationen über die Identität und Schätzwerte über die Stärke fremder Heere"."""
    seg = world()
    own(seg, 1, (7, 5))
    add_army(seg, 20, 2, (7, 5), units=2000)
    add_army(seg, 21, 2, (6, 5), units=2000)  # neutral gemark: not seen
    m = month_of(seg)
    recon(m)
    s = sightings(m)
    assert set(s) == {20}
    assert s[20].data["source"] == "kontrollbereich" and not s[20].data["exact"]
    assert s[20].kingdom == 1 and s[20].data["of"] == 2
    assert known_cells(seg) == {at(seg, (7, 5))}


def test_estimates_are_reproducible_from_the_seed():
    """All chance comes from the month's generator."""
    values = []
    for _ in range(2):
        seg = world()
        add_army(seg, 1, 1, CENTRE)
        add_army(seg, 21, 2, ring(at(seg, CENTRE), 1)[0], units=1234)
        m = month_of(seg, seed=9)
        recon(m)
        values.append(sightings(m)[21].data["units"])
    assert values[0] == values[1]


def test_the_known_map_grows_and_never_forgets_terrain():
    """"das Gebiet seines Königreiches und die anderen von ihm erkundeten Gebiete";
    the last-seen facts carry their month."""
    seg = world()
    a = add_army(seg, 1, 1, (1, 1), units=1000)
    recon(month_of(seg))
    first = known_cells(seg)
    first_month = seg.date.ordinal
    seg.date = seg.date.next()
    a.position = at(seg, (6, 4))
    recon(month_of(seg))
    second = known_cells(seg)
    assert first <= second and len(second) > len(first)
    km = seg.known[1]
    old = seg.grid.index(at(seg, (0, 0)))
    new = seg.grid.index(at(seg, (6, 4)))
    assert km.seen[old] == first_month and km.seen[new] == seg.date.ordinal


def test_the_own_territory_is_always_known_with_owner_and_settlement():
    """The kingdom's map shows "das Gebiet seines Königreiches"."""
    seg = world()
    add_settlement(seg, (5, 5), 300, kingdom=1, buildings={Building.PALAST: 1})
    recon(month_of(seg))
    km = seg.known[1]
    r, c = seg.grid.index(at(seg, (5, 5)))
    assert km.owner[r, c] == 1 and km.settlement[r, c] == 300 and km.seen[r, c] > 0


def test_passive_armies_do_not_scout():
    """Phase E: "von jedem aktiven Heer"."""
    seg = world()
    add_army(seg, 1, 1, None)
    recon(month_of(seg))
    assert not known_cells(seg)
