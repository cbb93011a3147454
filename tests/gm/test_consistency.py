"""``wdg segment check``: what must never be in a segment."""

from __future__ import annotations

from wdg.world.consistency import check_segment
from wdg.world.factory import add_army, add_kingdom, add_settlement, own, small_segment
from wdg.world.state import BUILDING_ORDER, Building, Deposit, TroopType


def _seg():
    seg = small_segment(["T. T. ~K ~M"])
    add_kingdom(seg, 1, diplomacy={2: 5})
    add_kingdom(seg, 2)
    return seg


def _whats(seg):
    return [f.what for f in check_segment(seg)]


def test_a_clean_segment_has_no_findings():
    seg = _seg()
    add_settlement(seg, (0, 0), 300, kingdom=1, buildings={Building.KASERNE: 1})
    add_army(seg, 101, 1, (0, 0))
    assert check_segment(seg) == []


def test_a_land_army_on_water_is_found():
    """Allgemeine Regeln (d): "Landheere können keine Wassergemarken betreten"."""
    seg = _seg()
    add_army(seg, 101, 1, (2, 0))
    assert any("Landheer auf Wasser" in w for w in _whats(seg))


def test_a_fleet_on_land_without_harbour_is_found():
    """(d): "Flotten können sich ... nur in Wassergemarken oder in einer Siedlung mit
    einem Hafen aufhalten"."""
    seg = _seg()
    add_army(seg, 101, 1, (0, 0), troop=TroopType.SCHIFFE, units=5)
    assert any("Flotte auf" in w for w in _whats(seg))
    add_settlement(seg, (0, 0), 300, kingdom=1, buildings={Building.HAFEN: 1})
    assert not any("Flotte auf" in w for w in _whats(seg))


def test_units_without_an_army_are_found():
    """Das Militär (a): "Rüstgüter können nicht allein stehen"."""
    seg = _seg()
    a = add_army(seg, 101, 1, None)
    a.units = 50
    assert any("Einheiten ohne Heer" in w for w in _whats(seg))


def test_a_barracks_outside_a_settlement_is_found_but_a_mine_is_not():
    """Die Bauwerke: Kaserne "Bau nur in Siedlungen möglich"; Mine anywhere on land."""
    seg = _seg()
    seg.buildings[BUILDING_ORDER.index(Building.KASERNE), 0, 1] = 1
    seg.buildings[BUILDING_ORDER.index(Building.MINE), 0, 0] = 1
    assert _whats(seg) == ["Kaserne außerhalb einer Siedlung"]


def test_a_deposit_on_water_is_found():
    """Deposits ("Bodenschätze") lie in the ground of land gemarks (the generator
    places them on land only; docs/rules.md, "Deposits and mines")."""
    seg = _seg()
    for col in (0, 3):
        h = seg.grid.hex_at(0, col)
        seg.deposits[h] = Deposit(h, "Salz")
    assert _whats(seg) == ["Vorkommen (Salz) auf Wasser"]


def test_negative_treasury_and_status_out_of_range_are_found():
    seg = _seg()
    seg.kingdoms[1].treasury = -1
    seg.kingdoms[1].diplomacy[2] = 10
    whats = _whats(seg)
    assert "negativer Schatz -1" in whats
    assert "Diplomatiestatus 10 gegenüber 2 außerhalb von 1..9" in whats


def test_dangling_references_are_found():
    seg = _seg()
    own(seg, 1, (0, 0))
    seg.owner[0, 1] = 9
    a = add_army(seg, 101, 1, (0, 0))
    a.carried_by = 555
    seg.kingdoms[2].diplomacy[8] = 5
    whats = _whats(seg)
    assert "Gemarken im Besitz des unbekannten Reichs 9" in whats
    assert "getragen von 555, bei dem das nicht vermerkt ist" in whats
    assert "die Diplomatieliste nennt das unbekannte Reich 8" in whats


def test_a_settlement_name_without_settlement_is_found():
    seg = _seg()
    h = add_settlement(seg, (0, 0), 100, name="Alt")
    seg.settlement[0, 0] = 0
    assert any("ohne Siedlung" in w for w in _whats(seg))
    assert h in seg.settlement_names


def test_turn_run_refuses_an_inconsistent_segment(tmp_path):
    """``wdg turn run`` refuses to start on an inconsistent segment and says why."""
    import pytest

    from wdg.campaign import Campaign
    from wdg.engine.turn import run_month
    from wdg.errors import StateError
    from wdg.store.segment import save_segment

    seg = _seg()
    seg.buildings[BUILDING_ORDER.index(Building.KASERNE), 0, 1] = 1
    save_segment(seg, tmp_path / "worlds" / "test")
    with pytest.raises(StateError, match="Kaserne außerhalb einer Siedlung"):
        run_month(Campaign(tmp_path), "test", force=True)
    assert not (tmp_path / "worlds" / "test" / "turns").exists()
