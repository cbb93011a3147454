"""Vectorised neighbourhoods on dense per-gemark layers (odd-r offset layout).

For a layer of shape ``(rows, cols)``, :func:`neighbour_values` returns the six
neighbours' values of every gemark as an array ``(6, rows, cols)`` in the
order of :class:`~wdg.world.hexgrid.Direction`; neighbours off the map get a
``fill`` value. This keeps map-wide computations (distances to water, height
smoothing, borders) in numpy instead of per-gemark Python objects.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wdg.world.hexgrid import Direction


@lru_cache(maxsize=16)
def neighbour_index(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(nrow, ncol, valid)``, each ``(6, rows, cols)``: the offset position of
    every gemark's neighbour in each direction and whether it lies on the map
    (off-map positions are clipped to 0)."""
    r, c = np.indices((rows, cols))
    q = c - (r - (r & 1)) // 2
    nrow = np.empty((6, rows, cols), dtype=np.intp)
    ncol = np.empty((6, rows, cols), dtype=np.intp)
    for i, d in enumerate(Direction):
        nq, nr = q + d.vector.q, r + d.vector.r
        nrow[i] = nr
        ncol[i] = nq + (nr - (nr & 1)) // 2
    valid = (nrow >= 0) & (nrow < rows) & (ncol >= 0) & (ncol < cols)
    nrow[~valid] = 0
    ncol[~valid] = 0
    for a in (nrow, ncol, valid):
        a.setflags(write=False)
    return nrow, ncol, valid


def neighbour_values(layer: np.ndarray, fill: object) -> np.ndarray:
    """The values of the six neighbours of every gemark, ``(6, rows, cols)``;
    ``fill`` where the neighbour is off the map."""
    nrow, ncol, valid = neighbour_index(*layer.shape)
    out = layer[nrow, ncol]
    out[~valid] = fill
    return out


def hex_distance_to(mask: np.ndarray) -> np.ndarray:
    """Steps from every gemark to the nearest gemark where ``mask`` is True
    (0 on the mask; a large number if the mask is empty)."""
    big = mask.size + 1
    dist = np.where(mask, 0, big).astype(np.int32)
    while True:
        nearer = neighbour_values(dist, big).min(axis=0) + 1
        new = np.minimum(dist, nearer)
        if np.array_equal(new, dist):
            return dist
        dist = new


def axial(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Axial ``(q, r)`` of every gemark of a ``(rows, cols)`` layer."""
    r, c = np.indices((rows, cols))
    return c - (r - (r & 1)) // 2, r


def distances_from(q0: int, r0: int, rows: int, cols: int) -> np.ndarray:
    """Hex distance from axial ``(q0, r0)`` to every gemark of the layer."""
    q, r = axial(rows, cols)
    dq, dr = q - q0, r - r0
    return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
