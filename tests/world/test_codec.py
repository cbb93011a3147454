"""The type-driven record codec: appended fields need no storage changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import pytest

from wdg.errors import DataError
from wdg.world.address import Grid
from wdg.world.calendar import MonthDate
from wdg.world.codec import decode, deep_equal, encode
from wdg.world.hexgrid import Hex

GRID = Grid(2, 1)


class Colour(Enum):
    RED = "rot"
    BLUE = "blau"


@dataclass(slots=True)
class Inner:
    where: Hex | None = None
    when: MonthDate = MonthDate(412, 1)


@dataclass(slots=True)
class Record:
    number: int
    colour: Colour = Colour.RED
    ratio: float = 0.5
    tags: list[str] = field(default_factory=list)
    table: dict[int, int] = field(default_factory=dict)
    inner: Inner | None = None
    appended_later: int = 7


def test_a_record_round_trips_through_plain_data() -> None:
    r = Record(3, Colour.BLUE, 1.5, ["a"], {2: 1, 1: 4}, Inner(Hex.from_offset(9, 2), MonthDate(413, 12)), 8)
    data = encode(r, Record, GRID)
    assert data["inner"] == {"where": "102.18", "when": "0413-12"}
    assert list(data["table"]) == [1, 2]
    assert deep_equal(decode(data, Record, "r", GRID), r)


def test_fields_at_their_default_are_left_out_but_positions_are_always_written() -> None:
    data = encode(Record(1, inner=Inner()), Record, GRID)
    assert data == {"number": 1, "inner": {"where": "000.00"}}


def test_an_old_file_without_an_appended_field_loads_with_the_default() -> None:
    assert decode({"number": 1}, Record, "r", GRID).appended_later == 7


@pytest.mark.parametrize("data, key, found", [
    ({"number": "1"}, "r.number", "'1'"),
    ({"number": True}, "r.number", "True"),
    ({"number": 1, "colour": "grün"}, "r.colour", "'grün'"),
    ({"number": 1, "tags": "x"}, "r.tags", "'x'"),
    ({"number": 1, "inner": {"where": "101.49"}}, "r.inner.where", "'101.49'"),
    ({"number": 1, "inner": {"when": "412"}}, "r.inner.when", "'412'"),
    ({"number": 1, "table": {"x": 1}}, "r.table.x", "'x'"),
    ({"number": 1, "bogus": 1}, "r.bogus", "'bogus'"),
])
def test_a_wrong_value_names_its_key_path(data: dict, key: str, found: str) -> None:
    with pytest.raises(DataError) as info:
        decode(data, Record, "r", GRID)
    assert info.value.where == key
    assert found in str(info.value)
