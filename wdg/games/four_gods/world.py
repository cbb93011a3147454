"""The world inside the frame: placed terrain tiles and cities, the placement
rule (two straight edges, every touching edge matching), the frontier of
cells where a tile or city may go, and kingdoms over the sub-grid.

Rule: "Das neu gelegte Plättchen muss an mindestens 2 bereits bestehende
(gerade) Kanten der Welt anliegen. Als (gerade) Kanten zählen sowohl der
Rahmen als auch bereits in die Welt gelegte Plättchen." Round cities have no
straight edges and impose no terrain on their neighbours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wdg.games.four_gods.tiles import E, N, S, W, Oriented, TileSet

Member = tuple[int, int]
"""``(cell, region)``: one terrain area of one placed tile."""

NONE = -1
"""No edge requirement on a side (empty cell, city)."""
FRAME = -2
"""The frame on a side: a straight edge without terrain."""

Key = tuple[int, int, int, int]
OPPOSITE = (S, W, N, E)


class Fitter:
    """Which tile orientations fit a cell's edge requirements (cached per
    requirement, shared by all states of one game)."""

    def __init__(self, ts: TileSet) -> None:
        self.ts = ts
        self.neighbours: tuple[tuple[int, int, int, int], ...] = tuple(
            self._nbrs(c) for c in range(ts.rows * ts.cols))
        self._cache: dict[Key, dict[int, tuple[int, ...]]] = {}

    def _nbrs(self, c: int) -> tuple[int, int, int, int]:
        r, col = divmod(c, self.ts.cols)
        return (c - self.ts.cols if r > 0 else FRAME,
                c + 1 if col < self.ts.cols - 1 else FRAME,
                c + self.ts.cols if r < self.ts.rows - 1 else FRAME,
                c - 1 if col > 0 else FRAME)

    def fits(self, key: Key) -> dict[int, tuple[int, ...]]:
        """``{tile: orientations}`` of every tile that matches ``key``."""
        hit = self._cache.get(key)
        if hit is None:
            hit = {}
            for t, olist in enumerate(self.ts.oriented):
                ok = tuple(o.orient for o in olist
                           if all(k < 0 or k == e for k, e in zip(key, o.edges)))
                if ok:
                    hit[t] = ok
            self._cache[key] = hit
        return hit


@dataclass(frozen=True, slots=True)
class Kingdom:
    """A connected area of one terrain over two or more tiles."""

    terrain: int
    cells: frozenset[int]
    members: frozenset[tuple[int, int]]
    """``(cell, region)`` pairs of the area."""

    @property
    def size(self) -> int:
        """Number of tiles the kingdom spans."""
        return len(self.cells)


class World:
    """Tiles and cities in the frame; cells numbered row by row."""

    __slots__ = ("fit", "tiles", "cities", "frontier", "_kingdoms")

    def __init__(self, fit: Fitter) -> None:
        self.fit = fit
        n = fit.ts.rows * fit.ts.cols
        self.tiles: list[Oriented | None] = [None] * n
        self.cities: dict[int, int] = {}
        """cell -> god (colour) of the prophet on the city."""
        self.frontier: dict[int, Key] = {}
        """Empty cells touching at least two straight edges -> requirement."""
        self._kingdoms: list[Kingdom] | None = None
        for c in range(n):
            self._refresh(c)

    def clone(self) -> World:
        """An independent copy (oriented tiles are immutable and shared)."""
        w = World.__new__(World)
        w.fit = self.fit
        w.tiles = self.tiles.copy()
        w.cities = self.cities.copy()
        w.frontier = self.frontier.copy()
        w._kingdoms = self._kingdoms
        return w

    def key(self, c: int) -> Key:
        """Edge requirement of cell ``c``: per side the neighbour's edge code,
        :data:`FRAME`, or :data:`NONE`."""
        out = []
        for side, nb in enumerate(self.fit.neighbours[c]):
            if nb == FRAME:
                out.append(FRAME)
            else:
                t = self.tiles[nb]
                out.append(NONE if t is None else t.edges[OPPOSITE[side]])
        return (out[0], out[1], out[2], out[3])

    @staticmethod
    def straight_edges(key: Key) -> int:
        """How many sides of a cell touch the frame or a terrain tile."""
        return sum(1 for k in key if k != NONE)

    def _refresh(self, c: int) -> None:
        if self.tiles[c] is not None or c in self.cities:
            self.frontier.pop(c, None)
            return
        k = self.key(c)
        if self.straight_edges(k) >= 2:
            self.frontier[c] = k
        else:
            self.frontier.pop(c, None)

    def is_full(self) -> bool:
        """Every cell holds a tile or a city."""
        return all(t is not None or c in self.cities for c, t in enumerate(self.tiles))

    def fits_at(self, c: int, o: Oriented) -> bool:
        """Whether ``o`` may be laid on cell ``c`` (empty or a city's hole)."""
        if self.tiles[c] is not None:
            return False
        k = self.frontier.get(c) if c not in self.cities else self.key(c)
        if k is None or self.straight_edges(k) < 2:
            return False
        return all(r < 0 or r == e for r, e in zip(k, o.edges))

    def place_tile(self, c: int, o: Oriented) -> None:
        """Lay a tile (trusts its input; a city on ``c`` is replaced)."""
        self.cities.pop(c, None)
        self.tiles[c] = o
        self._kingdoms = None
        self.frontier.pop(c, None)
        for nb in self.fit.neighbours[c]:
            if nb >= 0:
                self._refresh(nb)

    def place_city(self, c: int, god: int) -> None:
        """Build a city with a prophet of ``god`` on cell ``c``."""
        self.cities[c] = god
        self.frontier.pop(c, None)

    def kingdoms(self) -> list[Kingdom]:
        """All kingdoms (areas of one terrain spanning two or more tiles);
        computed once per arrangement of tiles."""
        if self._kingdoms is None:
            self._kingdoms = self._find_kingdoms()
        return list(self._kingdoms)

    def _find_kingdoms(self) -> list[Kingdom]:
        parent: dict[tuple[int, int], tuple[int, int]] = {}

        def find(x: tuple[int, int]) -> tuple[int, int]:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for c, o in enumerate(self.tiles):
            if o is not None:
                for k in range(len(o.region_terrain)):
                    parent[(c, k)] = (c, k)
        for c, o in enumerate(self.tiles):
            if o is None:
                continue
            nbrs = self.fit.neighbours[c]
            east, south = nbrs[E], nbrs[S]
            if east >= 0 and self.tiles[east] is not None:
                other = self.tiles[east]
                for i in range(3):
                    _union(parent, find, (c, o.region_of[i][2]), (east, other.region_of[i][0]))
            if south >= 0 and self.tiles[south] is not None:
                other = self.tiles[south]
                for i in range(3):
                    _union(parent, find, (c, o.region_of[2][i]), (south, other.region_of[0][i]))
        groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for x in parent:
            groups.setdefault(find(x), []).append(x)
        out = []
        for root, members in groups.items():
            cells = frozenset(m[0] for m in members)
            if len(cells) >= 2:
                o = self.tiles[root[0]]
                assert o is not None
                out.append(Kingdom(o.region_terrain[root[1]], cells, frozenset(members)))
        out.sort(key=lambda k: min(k.members))
        return out


def _union(parent: dict[Member, Member], find: Callable[[Member], Member],
           a: Member, b: Member) -> None:
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)
