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
Area = tuple[int, frozenset[int], frozenset[Member], Member]
"""A connected terrain area: terrain, cells, members, lowest member."""
OPPOSITE = (S, W, N, E)


class Fitter:
    """Which tile orientations fit a cell's edge requirements (cached per
    requirement, shared by all states of one game)."""

    def __init__(self, ts: TileSet) -> None:
        self.ts = ts
        self.neighbours: tuple[tuple[int, int, int, int], ...] = tuple(
            self._nbrs(c) for c in range(ts.rows * ts.cols))
        self._cache: dict[Key, dict[int, tuple[int, ...]]] = {}
        self._flat = [(t, o.orient) for t, olist in enumerate(ts.oriented) for o in olist]
        """Every oriented tile, by tile and then orientation."""
        self._by_edge: list[dict[int, set[int]]] = [{}, {}, {}, {}]
        """Per side: edge code -> indices into ``_flat`` showing it there."""
        i = 0
        for olist in ts.oriented:
            for o in olist:
                for side, code in enumerate(o.edges):
                    self._by_edge[side].setdefault(code, set()).add(i)
                i += 1

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
            wanted = [self._by_edge[side].get(k, set()) for side, k in enumerate(key) if k >= 0]
            found = sorted(set.intersection(*wanted)) if wanted else range(len(self._flat))
            lists: dict[int, list[int]] = {}
            for i in found:
                t, o = self._flat[i]
                lists.setdefault(t, []).append(o)
            hit = {t: tuple(os) for t, os in lists.items()}
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

    __slots__ = ("fit", "tiles", "cities", "frontier", "_kingdoms", "_label", "_areas",
                 "_next_area", "_largest", "_count")

    def __init__(self, fit: Fitter) -> None:
        self.fit = fit
        n = fit.ts.rows * fit.ts.cols
        self.tiles: list[Oriented | None] = [None] * n
        self.cities: dict[int, int] = {}
        """cell -> god (colour) of the prophet on the city."""
        self.frontier: dict[int, Key] = {}
        """Empty cells touching at least two straight edges -> requirement."""
        self._kingdoms: list[Kingdom] | None = None
        # Terrain areas, kept up to date as tiles are laid (tiles are only
        # ever added, a destroyed city's hole included, so areas only grow
        # and merge). Copy-on-write: clones share these until a tile is laid.
        # ``_label is None`` once a tile was laid against a neighbour of
        # another terrain or over another tile (only hand-built positions):
        # then kingdoms are searched from scratch.
        self._label: dict[Member, int] | None = {}
        """``(cell, region)`` -> id of its terrain area."""
        self._areas: dict[int, Area] = {}
        """Area id -> (terrain, cells, members, lowest member)."""
        self._next_area = 0
        self._largest = (0, 0, 0, 0)
        """Per terrain: tiles of its largest kingdom."""
        self._count = (0, 0, 0, 0)
        """Per terrain: number of kingdoms."""
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
        w._label = self._label
        w._areas = self._areas
        w._next_area = self._next_area
        w._largest = self._largest
        w._count = self._count
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

    def place_tile(self, c: int, o: Oriented) -> None:
        """Lay a tile (trusts its input; a city on ``c`` is replaced)."""
        if self.tiles[c] is not None:  # never in play: a tile laid over a tile
            self._label = None
        self.cities.pop(c, None)
        self.tiles[c] = o
        self._kingdoms = None
        self.frontier.pop(c, None)
        for nb in self.fit.neighbours[c]:
            if nb >= 0:
                self._refresh(nb)
        if self._label is not None:
            self._join(c, o)

    def _join(self, c: int, o: Oriented) -> None:
        """Add the areas of the tile just laid on ``c`` and merge them with
        the areas of its neighbours across the shared edges."""
        assert self._label is not None  # the one caller joins only while the areas are kept
        label = self._label.copy()
        areas = self._areas.copy()
        largest, count = list(self._largest), list(self._count)
        nid = self._next_area
        for k, t in enumerate(o.region_terrain):
            m = (c, k)
            label[m] = nid
            areas[nid] = (t, frozenset((c,)), frozenset((m,)), m)
            nid += 1
        self._next_area = nid
        reg = o.region_of
        tiles = self.tiles
        for side, nb in enumerate(self.fit.neighbours[c]):
            if nb < 0:
                continue
            other = tiles[nb]
            if other is None:
                continue
            mine, theirs = _edge_regions(reg, side), _edge_regions(other.region_of, OPPOSITE[side])
            for i in range(3):
                ga, gb = label[(c, mine[i])], label[(nb, theirs[i])]
                if ga == gb:
                    continue
                a, b = areas[ga], areas[gb]
                if a[0] != b[0]:  # terrains disagree: not a legal position
                    self._label = None
                    return
                if len(a[2]) < len(b[2]):
                    ga, gb, a, b = gb, ga, b, a
                merged = (a[0], a[1] | b[1], a[2] | b[2], min(a[3], b[3]))
                for m in b[2]:
                    label[m] = ga
                del areas[gb]
                areas[ga] = merged
                t, size = a[0], len(merged[1])
                count[t] += (size >= 2) - (len(a[1]) >= 2) - (len(b[1]) >= 2)
                if size > largest[t]:
                    largest[t] = size
        self._label, self._areas = label, areas
        self._largest = (largest[0], largest[1], largest[2], largest[3])
        self._count = (count[0], count[1], count[2], count[3])

    def place_city(self, c: int, god: int) -> None:
        """Build a city with a prophet of ``god`` on cell ``c``."""
        self.cities[c] = god
        self.frontier.pop(c, None)

    def kingdoms(self) -> list[Kingdom]:
        """All kingdoms (areas of one terrain spanning two or more tiles);
        computed once per arrangement of tiles."""
        if self._kingdoms is None:
            if self._label is None:
                self._kingdoms = self._find_kingdoms()
            else:
                found = sorted((a for a in self._areas.values() if len(a[1]) >= 2), key=lambda a: a[3])
                self._kingdoms = [Kingdom(t, cells, members) for t, cells, members, _ in found]
        return list(self._kingdoms)

    def kingdom_of(self, m: Member) -> tuple[int, int] | None:
        """``(id, tiles)`` of the kingdom holding ``(cell, region)`` ``m``;
        None when ``m`` lies in no kingdom. Ids tell kingdoms of one world
        apart and mean nothing else."""
        if self._label is None:
            for i, k in enumerate(self.kingdoms()):
                if m in k.members:
                    return i, k.size
            return None
        g = self._label.get(m)
        if g is None:
            return None
        size = len(self._areas[g][1])
        return (g, size) if size >= 2 else None

    def kingdom_stats(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Per terrain: tiles of the largest kingdom, number of kingdoms."""
        if self._label is None:
            ks = self.kingdoms()
            return (tuple(max((k.size for k in ks if k.terrain == t), default=0) for t in range(4)),
                    tuple(sum(1 for k in ks if k.terrain == t) for t in range(4)))
        return self._largest, self._count

    def _find_kingdoms(self) -> list[Kingdom]:
        """All kingdoms computed from scratch (the reference the incremental
        areas are tested against)."""
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
            if east >= 0 and (other := self.tiles[east]) is not None:
                for i in range(3):
                    _union(parent, find, (c, o.region_of[i][2]), (east, other.region_of[i][0]))
            if south >= 0 and (other := self.tiles[south]) is not None:
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


def _edge_regions(reg: tuple[tuple[int, ...], ...], side: int) -> tuple[int, int, int]:
    """Region indices of the three sub-cells along one side, in edge order
    (left to right for north/south, top to bottom for east/west)."""
    if side == N:
        return reg[0][0], reg[0][1], reg[0][2]
    if side == S:
        return reg[2][0], reg[2][1], reg[2][2]
    col = 2 if side == E else 0
    return reg[0][col], reg[1][col], reg[2][col]


def _union(parent: dict[Member, Member], find: Callable[[Member], Member],
           a: Member, b: Member) -> None:
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)
