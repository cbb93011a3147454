"""Hexagon geometry: axial coordinates, the rule's six directions, offset layout.

Pointy-top hexagons in axial coordinates ``(q, r)`` (cube ``s = -q - r``),
built from add/subtract/scale as in Red Blob Games' guide. Offset coordinates
(``col, row``, odd rows shoved right: "odd-r") are used only at the edges:
the address system, file formats and the numpy layers.

The six directions are the rule's own (Spielregel, "(b) Bewegung"):
``NW NO W O SW SO``; the English ``NE E SE`` are accepted as aliases.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from wdg.errors import InvalidInputError


class Hex(NamedTuple):
    """A hexagon in axial coordinates. Immutable, hashable, ordered."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate (``q + r + s == 0``)."""
        return -self.q - self.r

    def __add__(self, other: object) -> Hex:
        if not isinstance(other, Hex):
            return NotImplemented
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def scale(self, k: int) -> Hex:
        """This vector multiplied by ``k``."""
        return Hex(self.q * k, self.r * k)

    def neighbour(self, direction: Direction) -> Hex:
        """The adjacent hex in ``direction``."""
        return self + direction.vector

    def neighbours(self) -> list[Hex]:
        """The six adjacent hexes, in the order of :class:`Direction`."""
        return [self + d.vector for d in Direction]

    def distance(self, other: Hex) -> int:
        """Number of steps between the two hexes."""
        d = self - other
        return (abs(d.q) + abs(d.r) + abs(d.s)) // 2

    def direction_to(self, other: Hex) -> Direction | None:
        """The direction of an adjacent hex, or ``None`` if not adjacent."""
        return _VECTOR_TO_DIRECTION.get(other - self)

    def to_offset(self) -> tuple[int, int]:
        """``(col, row)`` in odd-r offset coordinates."""
        col = self.q + (self.r - (self.r & 1)) // 2
        return col, self.r

    @staticmethod
    def from_offset(col: int, row: int) -> Hex:
        """The hex at odd-r offset ``(col, row)``."""
        return Hex(col - (row - (row & 1)) // 2, row)


class Direction(Enum):
    """The rule's six directions, clockwise from north-west.

    The value is the German abbreviation the order sheets use.
    """

    NW = "NW"
    NO = "NO"
    O = "O"  # the rule's own name (Ost)
    SO = "SO"
    SW = "SW"
    W = "W"

    @property
    def vector(self) -> Hex:
        """The axial step of this direction."""
        return _VECTORS[self]

    @property
    def german(self) -> str:
        """The spelled-out German name (``Nordwest`` ...)."""
        return _GERMAN_NAMES[self]

    def opposite(self) -> Direction:
        """The direction pointing back."""
        return _OPPOSITE[self]

    @classmethod
    def parse(cls, text: str) -> Direction:
        """Parse ``NW NO W O SW SO`` (any case), the English ``NE E SE`` and the
        spelled-out German names (``Nordost``, ``Südwest``/``Suedwest`` ...)."""
        key = text.strip().upper().replace("Ü", "UE").replace("-", "")
        found = _ALIASES.get(key)
        if found is None:
            raise InvalidInputError(
                f"unbekannte Richtung {text!r}; erwartet eine von NW, NO, W, O, SW, SO"
            )
        return found


_VECTORS: dict[Direction, Hex] = {
    Direction.NW: Hex(0, -1),
    Direction.NO: Hex(1, -1),
    Direction.O: Hex(1, 0),
    Direction.SO: Hex(0, 1),
    Direction.SW: Hex(-1, 1),
    Direction.W: Hex(-1, 0),
}
_VECTOR_TO_DIRECTION = {v: d for d, v in _VECTORS.items()}
_OPPOSITE = {d: _VECTOR_TO_DIRECTION[v.scale(-1)] for d, v in _VECTORS.items()}
_GERMAN_NAMES = {
    Direction.NW: "Nordwest",
    Direction.NO: "Nordost",
    Direction.O: "Ost",
    Direction.SO: "Südost",
    Direction.SW: "Südwest",
    Direction.W: "West",
}
_ALIASES: dict[str, Direction] = {d.value: d for d in Direction}
_ALIASES.update({"NE": Direction.NO, "E": Direction.O, "SE": Direction.SO})
_ALIASES.update({
    "NORDWEST": Direction.NW, "NORDWESTEN": Direction.NW,
    "NORDOST": Direction.NO, "NORDOSTEN": Direction.NO,
    "OST": Direction.O, "OSTEN": Direction.O,
    "SUEDOST": Direction.SO, "SUEDOSTEN": Direction.SO,
    "SUEDWEST": Direction.SW, "SUEDWESTEN": Direction.SW,
    "WEST": Direction.W, "WESTEN": Direction.W,
})

ORIGIN = Hex(0, 0)


def ring(center: Hex, radius: int) -> list[Hex]:
    """The hexes at exactly ``radius`` steps from ``center`` (6n of them;
    just ``[center]`` for radius 0)."""
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius!r}")
    if radius == 0:
        return [center]
    result: list[Hex] = []
    h = center + Direction.SW.vector.scale(radius)
    # Walk the six sides; starting south-west, go east first.
    for d in (Direction.O, Direction.NO, Direction.NW, Direction.W, Direction.SW, Direction.SO):
        for _ in range(radius):
            result.append(h)
            h = h.neighbour(d)
    return result


def hex_range(center: Hex, radius: int) -> list[Hex]:
    """All hexes within ``radius`` steps of ``center`` (``3n(n+1)+1`` hexes)."""
    out: list[Hex] = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append(Hex(center.q + dq, center.r + dr))
    return out


def line(a: Hex, b: Hex) -> list[Hex]:
    """The hexes on a straight line from ``a`` to ``b`` inclusive (cube lerp)."""
    n = a.distance(b)
    if n == 0:
        return [a]
    out = []
    for i in range(n + 1):
        t = i / n
        # Nudge to break ties consistently.
        q = a.q + (b.q - a.q) * t + 1e-6
        r = a.r + (b.r - a.r) * t + 1e-6
        out.append(_cube_round(q, r))
    return out


def _cube_round(fq: float, fr: float) -> Hex:
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(q, r)


def walk(start: Hex, directions: list[Direction]) -> list[Hex]:
    """The hexes visited by stepping from ``start`` in each direction in turn
    (not including ``start``)."""
    out = []
    h = start
    for d in directions:
        h = h.neighbour(d)
        out.append(h)
    return out
