"""4 Gods terrain tiles: terrains, the 3x3 sub-grid of a tile side, the eight
orientations (4 rotations x 2 sides), edge codes for exact matching, the
terrain areas ("regions") of an oriented tile, and loading ``tiles.yaml``.

A side is a 3x3 grid of terrains (corners, edge midpoints, centre). Edges are
read left to right (north, south) and top to bottom (east, west), so two
neighbours match when the east code of the left tile equals the west code of
the right one (and likewise south/north).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from wdg.games.base import GameError

TERRAINS = "MEWG"
"""Terrain letters by index: Meer, Ebene, Wald, Gebirge."""
TERRAIN_NAMES = ("Meer", "Ebene", "Wald", "Gebirge")
GOD_NAMES = ("Fischmenschen", "Menschen", "Elfen", "Zwerge")
"""God ``g`` rules terrain ``g`` (Fischmenschen: Meer, Menschen: Ebene, ...)."""

N, E, S, W = 0, 1, 2, 3
"""Side indices of a cell."""

Grid = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Oriented:
    """One tile in one orientation: its grid, edge codes, regions."""

    tile: int
    orient: int
    grid: Grid
    edges: tuple[int, int, int, int]
    region_of: Grid
    """Region index of each sub-cell (regions numbered in row-major order of
    their first sub-cell)."""
    region_terrain: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TileSet:
    """The components: frame size, number of cities, every oriented tile."""

    rows: int
    cols: int
    cities: int
    sides: tuple[tuple[Grid, Grid], ...]
    oriented: tuple[tuple[Oriented, ...], ...]
    """``oriented[tile]``: the distinct orientations of the tile (duplicates
    of a symmetric side are dropped, the lowest orientation kept)."""
    by_orient: tuple[dict[int, Oriented], ...]

    @property
    def num_tiles(self) -> int:
        """How many terrain tiles are in the bag at the start."""
        return len(self.sides)


def parse_side(text: str) -> Grid:
    """``"MME/MME/EEE"`` -> a 3x3 grid of terrain indices."""
    rows = str(text).split("/")
    if len(rows) != 3 or any(len(r) != 3 for r in rows) or \
            any(ch not in TERRAINS for r in rows for ch in r):
        raise GameError(f"bad tile side {text!r}; expected 3 rows of 3 of {TERRAINS!r} joined by '/'")
    grid = tuple(tuple(TERRAINS.index(ch) for ch in r) for r in rows)
    if len({t for r in grid for t in r}) > 3:
        raise GameError(f"tile side {text!r} shows four terrains; the rules allow one to three")
    return grid


def side_text(grid: Grid) -> str:
    """Inverse of :func:`parse_side`."""
    return "/".join("".join(TERRAINS[t] for t in r) for r in grid)


def rotate(grid: Grid) -> Grid:
    """The grid turned 90 degrees clockwise."""
    return tuple(tuple(grid[2 - c][r] for c in range(3)) for r in range(3))


def edge_codes(grid: Grid) -> tuple[int, int, int, int]:
    """Codes of the north, east, south and west edges (3 terrains each)."""
    def code(a: int, b: int, c: int) -> int:
        return a * 16 + b * 4 + c
    return (code(*grid[0]), code(*(grid[r][2] for r in range(3))),
            code(*grid[2]), code(*(grid[r][0] for r in range(3))))


def regions(grid: Grid) -> tuple[Grid, tuple[int, ...]]:
    """Connected areas of one terrain within a 3x3 grid (4-neighbourhood)."""
    reg = [[-1] * 3 for _ in range(3)]
    terrains: list[int] = []
    for r0 in range(3):
        for c0 in range(3):
            if reg[r0][c0] >= 0:
                continue
            k = len(terrains)
            terrains.append(grid[r0][c0])
            stack = [(r0, c0)]
            reg[r0][c0] = k
            while stack:
                r, c = stack.pop()
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < 3 and 0 <= cc < 3 and reg[rr][cc] < 0 and grid[rr][cc] == grid[r][c]:
                        reg[rr][cc] = k
                        stack.append((rr, cc))
    return tuple(tuple(r) for r in reg), tuple(terrains)


def orient_grid(sides: tuple[Grid, Grid], orient: int) -> Grid:
    """Orientation ``side * 4 + quarter turns clockwise``."""
    grid = sides[orient // 4]
    for _ in range(orient % 4):
        grid = rotate(grid)
    return grid


def build_tileset(rows: int, cols: int, cities: int, sides: list[tuple[Grid, Grid]]) -> TileSet:
    """Precompute the distinct orientations of every tile."""
    oriented: list[tuple[Oriented, ...]] = []
    for t, pair in enumerate(sides):
        seen: set[Grid] = set()
        olist: list[Oriented] = []
        for o in range(8):
            g = orient_grid(pair, o)
            if g in seen:
                continue
            seen.add(g)
            reg, ter = regions(g)
            olist.append(Oriented(t, o, g, edge_codes(g), reg, ter))
        oriented.append(tuple(olist))
    return TileSet(rows, cols, cities, tuple(sides), tuple(oriented),
                   tuple({o.orient: o for o in ol} for ol in oriented))


def load_tileset(path: Path | None = None) -> TileSet:
    """Read a tile set (default: the first shipped set, ``tiles.yaml``)."""
    path = path or Path(__file__).with_name("tiles.yaml")
    try:
        data: Any = yaml.load(path.read_text(encoding="utf-8"),
                              Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise GameError(f"Plättchendatei {str(path)!r} kann nicht gelesen werden: "
                        f"{exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise GameError(f"Plättchendatei {str(path)!r} ist kein gültiges YAML: "
                        f"{str(exc).splitlines()[0]}") from None
    try:
        rows, cols = int(data["frame"]["rows"]), int(data["frame"]["columns"])
        cities = int(data["cities"])
        raw = data["tiles"]
    except (KeyError, TypeError, ValueError) as exc:
        raise GameError(f"{str(path)!r}: Schlüssel {exc!s} fehlt oder ist ungültig; erwartet "
                        "frame.rows, frame.columns, cities, tiles") from None
    sides: list[tuple[Grid, Grid]] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, list) or len(entry) != 2:
            raise GameError(f"{str(path)!r}: Plättchen {i} ist {entry!r}; erwartet [Seite A, Seite B]")
        sides.append((parse_side(entry[0]), parse_side(entry[1])))
    return build_tileset(rows, cols, cities, sides)


@cache
def first_tileset() -> TileSet:
    """The first shipped tile set (``tiles.yaml``), loaded once; the game's
    default is the balanced set (``FourGodsGame``'s ``tiles`` parameter)."""
    return load_tileset()
