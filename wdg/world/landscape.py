"""A plausible terrain layer made with numpy (used by :mod:`wdg.world.generator`).

Steps, each a whole-map array operation:

1. elevation: smooth value noise, faded to sea at the map's edges; the
   highest share ``land`` of it becomes land;
2. water: Küstengewässer next to land, Meer beyond;
3. height levels 1..6 from the elevation, then limited so that neighbouring
   gemarks differ by at most one level ("Ein Heer kann ... immer nur Gemarken
   der direkt darüber- oder darunterliegende Höhenstufe betreten") — so every
   coast is Tiefland and the land rises inland through Hochland and Bergland
   to Gebirge;
4. climate: temperature from latitude (cold north, hot south) minus height,
   moisture from noise and nearness to water, giving Wald, Regenwald, Sumpf,
   Eiswüste, Sandwüste, Steppe;
5. rivers: chains of Stromtal running downhill from the hills to the sea;
   lakes (See) and a few volcanoes.

All randomness comes from the passed generator.
"""

from __future__ import annotations

import numpy as np

from wdg.world.neighbours import hex_distance_to, neighbour_index, neighbour_values
from wdg.world.terrain import BY_NAME, Component, TERRAINS

C = Component
_BASES = (C.TIEFLAND, C.HOCHLAND, C.BERGLAND, C.GEBIRGE, C.HOCHGEBIRGE, C.GEBIRGSMASSIV)
_FEATURES = (None, C.WALD, C.REGENWALD, C.SUMPF, C.EISWUESTE, C.SANDWUESTE, C.STEPPE,
             C.STROMTAL, C.SEE, C.VULKAN)


def _lookup_table() -> np.ndarray:
    """``LUT[level, feature_index]`` = terrain id; combinations the rule's table
    does not have fall back to the plain height base."""
    by_comp = {t.components: t.id for t in TERRAINS}
    lut = np.zeros((7, len(_FEATURES)), dtype=np.uint8)
    lut[0, :] = BY_NAME["Meer"].id
    for level, base in enumerate(_BASES, start=1):
        for j, feat in enumerate(_FEATURES):
            lut[level, j] = by_comp.get((base, feat) if feat else (base,), by_comp[(base,)])
    return lut


LUT = _lookup_table()
F = {f: i for i, f in enumerate(_FEATURES)}


def value_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Smooth noise in [0, 1]: random values on a coarse lattice of ``cell``
    gemarks, interpolated (smoothstep) at each gemark's hex position."""
    rows, cols = shape
    gy, gx = int(rows / cell) + 2, int(cols / cell) + 2
    lattice = rng.random((gy + 1, gx + 1))
    r, c = np.indices(shape, dtype=float)
    x = (c + 0.5 * (r.astype(int) & 1)) / cell
    y = r * 0.866 / cell
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    fx, fy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    top = lattice[y0, x0] * (1 - fx) + lattice[y0, x0 + 1] * fx
    bottom = lattice[y0 + 1, x0] * (1 - fx) + lattice[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def fractal_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Three octaves of value noise, normalised to [0, 1]."""
    n = value_noise(rng, shape, cell) + 0.5 * value_noise(rng, shape, cell / 2) \
        + 0.25 * value_noise(rng, shape, cell / 4)
    return (n - n.min()) / max(float(np.ptp(n)), 1e-9)


def _edge_fade(shape: tuple[int, int]) -> np.ndarray:
    rows, cols = shape
    r, c = np.indices(shape, dtype=float)
    e = np.minimum(np.minimum(r, rows - 1 - r) / max(rows, 1) * 2,
                   np.minimum(c, cols - 1 - c) / max(cols, 1) * 2)
    fade = np.clip(e / 0.25, 0, 1)
    fade[np.minimum(r, rows - 1 - r) < 2] = 0
    fade[np.minimum(c, cols - 1 - c) < 2] = 0
    return fade


def limit_steps(levels: np.ndarray) -> np.ndarray:
    """Lower levels until neighbours differ by at most one (water is level 0)."""
    out = levels.copy()
    while True:
        new = np.minimum(out, neighbour_values(out, 99).min(axis=0) + 1)
        if np.array_equal(new, out):
            return out
        out = new


def make_terrain(rng: np.random.Generator, shape: tuple[int, int], *, land: float = 0.55,
                 lakes_per_1000: float = 3.0, volcanoes_per_1000: float = 1.5) -> np.ndarray:
    """A uint8 terrain layer of ``shape``."""
    rows, cols = shape
    scale = max(6.0, min(rows, cols) / 3)
    elev = fractal_noise(rng, shape, scale) * _edge_fade(shape)
    sea_level = np.quantile(elev, 1 - land)
    is_land = elev > sea_level
    lift = np.where(is_land, (elev - sea_level) / max(float(elev.max() - sea_level), 1e-9), 0)
    levels = np.where(is_land, 1 + np.floor(lift ** 1.6 * 6).clip(0, 5), 0).astype(np.int8)
    levels = limit_steps(levels)
    is_land = levels > 0
    feature = _climate(rng, shape, levels, is_land)
    _rivers(rng, levels, feature)
    _scatter(rng, levels, feature, F[C.SEE], lakes_per_1000, allowed=(1, 2), inland=True)
    _scatter(rng, levels, feature, F[C.VULKAN], volcanoes_per_1000, allowed=(2, 3, 4),
             inland=True)
    out = LUT[levels, feature]
    coast_water = ~is_land & neighbour_values(is_land, False).any(axis=0)
    out[coast_water] = BY_NAME["Küstengewässer"].id
    out[~is_land & ~coast_water] = BY_NAME["Meer"].id
    return out.astype(np.uint8)


def _climate(rng: np.random.Generator, shape: tuple[int, int], levels: np.ndarray,
             is_land: np.ndarray) -> np.ndarray:
    rows, _ = shape
    lat = np.indices(shape)[0] / max(rows - 1, 1)
    temp = lat + 0.25 * (fractal_noise(rng, shape, 8) - 0.5) - 0.07 * levels
    near_water = hex_distance_to(~is_land)
    moist = 0.75 * fractal_noise(rng, shape, 6) + 0.25 * np.exp(-near_water / 3.0)
    feature = np.zeros(shape, dtype=np.int8)
    feature[moist < 0.32] = F[C.STEPPE]
    feature[moist > 0.55] = F[C.WALD]
    feature[(moist > 0.72) & (levels <= 2)] = F[C.SUMPF]
    feature[(temp > 0.78) & (moist > 0.58)] = F[C.REGENWALD]
    feature[(temp > 0.72) & (moist < 0.36)] = F[C.SANDWUESTE]
    feature[temp < 0.08] = F[C.EISWUESTE]
    feature[~is_land] = 0
    return feature


def _rivers(rng: np.random.Generator, levels: np.ndarray, feature: np.ndarray) -> None:
    """Rivers from random hill gemarks down to the sea; the lowland and
    highland stretches become Stromtal."""
    is_land = levels > 0
    dist = hex_distance_to(~is_land)
    sources = np.argwhere((levels >= 3) & (dist >= 3))
    count = int(is_land.sum() // 120) + 1
    if len(sources) == 0:
        return
    rows, cols = levels.shape
    nrow, ncol, valid = neighbour_index(rows, cols)
    river = np.zeros_like(is_land)
    for i in rng.permutation(len(sources))[:count]:
        r, c = (int(x) for x in sources[i])
        while is_land[r, c] and not river[r, c]:
            river[r, c] = True
            options = [(int(levels[nrow[d, r, c], ncol[d, r, c]]), int(dist[nrow[d, r, c],
                        ncol[d, r, c]]), d) for d in range(6) if valid[d, r, c]]
            options = [o for o in options if o[1] < dist[r, c]]
            if not options:
                break
            _, _, d = min(options)
            r, c = int(nrow[d, r, c]), int(ncol[d, r, c])
    feature[river & (levels <= 2)] = F[C.STROMTAL]


def _scatter(rng: np.random.Generator, levels: np.ndarray, feature: np.ndarray, feat: int,
             per_1000: float, *, allowed: tuple[int, ...], inland: bool) -> None:
    is_land = levels > 0
    ok = np.isin(levels, allowed) & (feature != F[C.STROMTAL])
    if inland:
        ok &= ~neighbour_values(~is_land, True).any(axis=0)
    spots = np.argwhere(ok)
    n = min(len(spots), int(round(is_land.sum() * per_1000 / 1000)))
    for i in rng.permutation(len(spots))[:n]:
        feature[tuple(spots[i])] = feat
