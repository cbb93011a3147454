"""Hex grid and addresses: known values and properties (issue #2, item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wdg.errors import InvalidInputError
from wdg.reports.maps import render_province_picture
from wdg.world.address import Address, Grid
from wdg.world.hexgrid import Direction, Hex, hex_range, ring

hexes = st.builds(Hex, st.integers(-200, 200), st.integers(-200, 200))


def test_known_distances_and_neighbours() -> None:
    assert Hex(0, 0).distance(Hex(3, -1)) == 3
    assert Hex(0, 0).neighbour(Direction.O) == Hex(1, 0)
    assert Hex(0, 0).neighbour(Direction.NW) == Hex(0, -1)
    assert Hex(2, 2).direction_to(Hex(2, 3)) is Direction.SO
    assert Direction.SW.opposite() is Direction.NO


@given(hexes)
def test_every_neighbour_is_at_distance_one(h: Hex) -> None:
    assert all(h.distance(n) == 1 for n in h.neighbours())
    assert len(set(h.neighbours())) == 6


@given(hexes, st.integers(0, 8))
def test_ring_n_has_6n_hexes_at_distance_n(h: Hex, n: int) -> None:
    r = ring(h, n)
    assert len(r) == max(1, 6 * n) and len(set(r)) == len(r)
    assert all(h.distance(x) == n for x in r)
    assert len(hex_range(h, n)) == 3 * n * (n + 1) + 1


@given(hexes, hexes)
def test_distance_is_symmetric(a: Hex, b: Hex) -> None:
    assert a.distance(b) == b.distance(a)


@given(hexes)
def test_offset_and_axial_round_trip(h: Hex) -> None:
    assert Hex.from_offset(*h.to_offset()) == h


def test_every_address_of_a_whole_segment_round_trips() -> None:
    grid = Grid(20, 9)
    labels = set()
    for h in grid.hexes():
        label = grid.label(h)
        assert grid.parse(label) == h
        labels.add(label)
    assert len(labels) == grid.size == 8640


def test_remembered_labels_belong_to_their_map_and_off_map_still_refused() -> None:
    """Grid.label remembers labels per map shape: a hex labelled on a wider map
    is still refused on a map it lies off, every time (nothing remembered for it)."""
    small, wide = Grid(2, 1), Grid(12, 2)
    h = Hex.from_offset(9, 5)  # column 9, row 5: province 102 on both, gemark 5*8+1+1
    assert small.label(h) == wide.label(h) == "102.42"
    far = Hex.from_offset(20, 0)  # column 20 lies beyond the two-province map
    assert wide.label(far) == "103.05"
    for _ in range(2):
        with pytest.raises(InvalidInputError):
            small.label(far)


def test_known_addresses() -> None:
    grid = Grid(12, 2)
    assert grid.label(Hex.from_offset(0, 0)) == "101.01"
    assert grid.label(Hex.from_offset(8, 0)) == "102.01"
    assert grid.parse("111.22").to_offset() == (10 * 8 + 5, 2)  # row 2, column 6 of block 11


@pytest.mark.parametrize("text", ["111.22", "111-22", "111/22", " 111 . 22 "])
def test_the_three_separators_parse_alike(text: str) -> None:
    assert Address.parse(text) == Address(111, 22)
    assert str(Address.parse(text)) == "111.22"


@pytest.mark.parametrize("text", ["111.49", "111.00", "100.01", "abc", "1111.01"])
def test_bad_addresses_are_refused_quoting_the_input(text: str) -> None:
    with pytest.raises(InvalidInputError, match="erwartet"):
        Address.parse(text)


def test_english_aliases_ne_e_se() -> None:
    assert Direction.parse("NE") is Direction.NO
    assert Direction.parse("e") is Direction.O
    assert Direction.parse("SE") is Direction.SO
    assert Direction.parse("Südwest") is Direction.SW


def test_the_address_picture_in_docs_is_up_to_date() -> None:
    path = Path(__file__).resolve().parents[2] / "docs" / "address-province.svg"
    assert path.read_text(encoding="utf-8") == render_province_picture()
