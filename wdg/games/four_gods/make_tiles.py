"""Make a 4 Gods tile set that favours no terrain (and so no god).

The rule book names "92x beidseitig bedruckte Geländeplättchen" but prints
none of them, so every tile set here is the project's choice
(docs/four_gods.md, Components). The first shipped set (``tiles.yaml``) took
an edge's middle from the first of its two corner terrains in the order
M, E, W, G; that gave Meer and Ebene 539 and 492 of the 1,656 sub-cells
against 321 and 304 for Wald and Gebirge, and its Ebene areas joined into
few large kingdoms: the Menschen won about 0.20 of four-player games
instead of 0.25 (docs/games.md, fairness check).

This construction is symmetric in the four terrains by design: 23 base
tiles are drawn, and each comes with its three images under the cyclic
exchange of terrains M -> E -> W -> G -> M (92 tiles). Whatever the rules do
with one god's terrain on some tiles they do with every other god's terrain
on as many tiles of the same shape, so a difference between the gods in a
batch comes from the rules or the players, not from the tiles.

A side is drawn as before: one, two or three terrains (15 / 60 / 25 %)
spread over the four corners; an edge's middle shows its corners' terrain
when they agree; of two neighbouring terrains in the cycle (M-E, E-W, W-G,
G-M) the earlier one (M of M-E, G of G-M) — a rule the exchange carries into
itself, so matching corners still mean a matching edge; of two opposite
terrains (M-W, E-G), for which no rule can be symmetric, one drawn per base
tile and carried along its images (such an edge fits only an edge with the
same middle). The centre shows the most frequent corner terrain (a tie
drawn). Every side shows one to three terrains, as the book requires.

    python -m wdg.games.four_gods.make_tiles --seed 4 > tiles-balanced.yaml
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from wdg.games.four_gods.tiles import TERRAINS, Grid, side_text

BASE_TILES = 23
"""23 base tiles x 4 images = the book's 92 tiles."""
TERRAIN_COUNTS = ((1, 0.15), (2, 0.60), (3, 0.25))
"""Terrains on a side and their share, as in the first set (docs/four_gods.md)."""
CORNERS = ((0, 0), (0, 2), (2, 2), (2, 0))
"""Corner cells clockwise from the top left."""
EDGES = (((0, 0), (0, 2), (0, 1)), ((0, 2), (2, 2), (1, 2)),
         ((2, 2), (2, 0), (2, 1)), ((2, 0), (0, 0), (1, 0)))
"""Per edge: its two corners and its middle cell."""


def middle(a: int, b: int, rng: np.random.Generator) -> int:
    """The terrain of an edge's middle between corners ``a`` and ``b``."""
    if a == b:
        return a
    if (b - a) % 4 == 1:
        return a
    if (a - b) % 4 == 1:
        return b
    return int(rng.choice((a, b)))


def draw_side(rng: np.random.Generator) -> Grid:
    """One side: corners, edge middles and centre as the module says."""
    k = int(rng.choice([n for n, _ in TERRAIN_COUNTS], p=[p for _, p in TERRAIN_COUNTS]))
    while True:
        kinds = [int(t) for t in rng.choice(4, size=k, replace=False)]
        corners = [int(rng.choice(kinds)) for _ in range(4)]
        if set(corners) == set(kinds):
            break
    grid = [[-1] * 3 for _ in range(3)]
    for (r, c), t in zip(CORNERS, corners):
        grid[r][c] = t
    for (ra, ca), (rb, cb), (rm, cm) in EDGES:
        grid[rm][cm] = middle(grid[ra][ca], grid[rb][cb], rng)
    counts = [corners.count(t) for t in range(4)]
    top = [t for t in range(4) if counts[t] == max(counts)]
    grid[1][1] = int(rng.choice(top))
    return tuple(tuple(row) for row in grid)


def shift(grid: Grid, by: int) -> Grid:
    """The side with every terrain moved ``by`` steps along M, E, W, G."""
    return tuple(tuple((t + by) % 4 for t in row) for row in grid)


def balanced_sides(seed: int) -> list[tuple[Grid, Grid]]:
    """The 92 tiles: each base tile followed by its three images."""
    rng = np.random.default_rng(seed)
    out: list[tuple[Grid, Grid]] = []
    for _ in range(BASE_TILES):
        a, b = draw_side(rng), draw_side(rng)
        out.extend((shift(a, k), shift(b, k)) for k in range(4))
    return out


def to_yaml(seed: int) -> str:
    """The tile file, with its construction in the header."""
    sides = balanced_sides(seed)
    count = [0] * 4
    for a, b in sides:
        for g in (a, b):
            for row in g:
                for t in row:
                    count[t] += 1
    head = [
        "# 4 Gods: a tile set that favours no terrain (the project's choice).",
        "#",
        "# The rule book names 92 two-sided terrain tiles but prints none of them.",
        "# Made by `python -m wdg.games.four_gods.make_tiles --seed "
        f"{seed}` (see that module and",
        "# docs/four_gods.md, Components): 23 base tiles drawn as for tiles.yaml,",
        "# each followed by its images under the exchange M -> E -> W -> G -> M, so",
        "# every terrain lies on as many tiles of the same shape (sub-cells: "
        + ", ".join(f"{TERRAINS[t]} {count[t]}" for t in range(4)) + ").",
        "# An edge's middle: the corners' terrain when they agree; of neighbouring",
        "# terrains in the cycle the earlier (M of M-E, G of G-M); of opposite ones",
        "# (M-W, E-G) one drawn per base tile. Centre: the most frequent corner.",
        "frame:",
        "  rows: 10",
        "  columns: 10",
        "cities: 8",
        "tiles:",
    ]
    for i, (a, b) in enumerate(sides):
        head.append(f"  - [{side_text(a)}, {side_text(b)}]   # {i:2d}: base {i // 4}, image {i % 4}")
    return "\n".join(head) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the tile file for ``--seed`` to standard output."""
    ap = argparse.ArgumentParser(prog="python -m wdg.games.four_gods.make_tiles",
                                 description="Schreibt einen ausgewogenen 4-Götter-Plättchensatz (YAML).")
    ap.add_argument("--seed", type=int, default=4, help="Seed der 23 Grundplättchen (Vorgabe 4)")
    args = ap.parse_args(argv)
    sys.stdout.write(to_yaml(args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
