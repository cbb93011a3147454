"""Build small segments by hand: for tests, examples and the game master's tools.

``small_segment(["T. T. Hw", "~K ~K T."])`` makes a one-province map whose
top-left rows carry the given terrain codes (offset rows, odd rows shoved
right) and fills the rest with ``fill``. The helpers below add kingdoms,
armies, settlements and ownership with sensible defaults, so that a rule
test can set up exactly the situation it needs in a few lines.
"""

from __future__ import annotations

from collections.abc import Iterable

from wdg.world.address import Grid
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Building,
    General,
    Kingdom,
    Player,
    Segment,
    TroopType,
    empty_layers,
    new_known_map,
)
from wdg.world.terrain import terrain


def small_segment(rows: Iterable[str] = (), *, prov_cols: int = 1, prov_rows: int = 1,
                  fill: str = "T.", date: MonthDate = MonthDate(412, 7), seed: int = 1,
                  name: str = "test") -> Segment:
    """A segment whose terrain rows start with ``rows`` (space-separated map codes)."""
    grid = Grid(prov_cols, prov_rows)
    layers = empty_layers(grid)
    layers["terrain"][:] = terrain(fill).id
    for r, row in enumerate(rows):
        for c, code in enumerate(row.split()):
            layers["terrain"][r, c] = terrain(code).id
    return Segment(name=name, title=name.capitalize(), seed=seed, date=date, grid=grid, **layers)


def at(seg: Segment, where: str | Hex | tuple[int, int]) -> Hex:
    """A hex from an address (``"101.01"``), a hex, or offset ``(col, row)``."""
    if isinstance(where, Hex):
        return where
    if isinstance(where, tuple):
        return Hex.from_offset(*where)
    return seg.grid.parse(where)


def add_kingdom(seg: Segment, number: int, *, name: str | None = None, treasury: int = 100_000,
                diplomacy: dict[int, int] | None = None, city_state: bool = False,
                email: str | None = None) -> Kingdom:
    """Add a kingdom (with a player unless it is a city state) and its known map."""
    k = Kingdom(
        number=number,
        name=name or f"Reich {number}",
        ruler=f"Herrscher {number}",
        player=None if city_state else Player(f"Spieler {number}", email or f"k{number}@example.org"),
        city_state=city_state,
        treasury=treasury,
        diplomacy=dict(diplomacy or {}),
    )
    seg.kingdoms[number] = k
    seg.known[number] = new_known_map(seg.grid)
    return k


def own(seg: Segment, kingdom: int, *where: str | Hex | tuple[int, int]) -> None:
    """Give gemarks to a kingdom."""
    for w in where:
        r, c = seg.grid.index(at(seg, w))
        seg.owner[r, c] = kingdom


def add_settlement(seg: Segment, where: str | Hex | tuple[int, int], size: int, *,
                   name: str = "Siedlung", kingdom: int | None = None, militia: int | None = None,
                   buildings: dict[Building, int] | None = None) -> Hex:
    """Put a settlement of ``size`` Baueinheiten (and buildings) on a gemark."""
    h = at(seg, where)
    r, c = seg.grid.index(h)
    seg.settlement[r, c] = size
    seg.settlement_names[h] = name
    if kingdom is not None:
        seg.owner[r, c] = kingdom
    if militia is not None:
        seg.militia[r, c] = militia
    for b, level in (buildings or {}).items():
        seg.buildings[BUILDING_ORDER.index(b), r, c] = level
    return h


def add_army(seg: Segment, number: int, kingdom: int, where: str | Hex | tuple[int, int] | None,
             *, troop: TroopType | None = TroopType.KRIEGER, units: int = 1000, morale: int = 50,
             experience: int = 10, wizard: bool = False, ability: str | None = None,
             status: ArmyStatus | None = None) -> Army:
    """Add an army; ``where=None`` makes it passive at 000.00."""
    pos = None if where is None else at(seg, where)
    general = General(f"Feldherr {number}", troop, experience, ability, wizard) if troop else None
    a = Army(
        number=number,
        kingdom=kingdom,
        status=status or (ArmyStatus.PASSIVE if pos is None else ArmyStatus.ACTIVE),
        position=pos,
        general=general,
        units=units if pos is not None else 0,
        morale=morale,
    )
    seg.armies[number] = a
    return a
