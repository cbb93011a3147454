"""The address system ``PPP.GG`` and the segment's rectangular grid.

ARCHITECTURE.md fixes the scheme: a province is a block of 8 columns x 6 rows
of gemarks in odd-r offset coordinates (48 gemarks, as the rule says: "Jeweils
48 Gemarken sind zu einem größeren Sechseck, der Provinz, zusammengefaßt").
Gemarks are numbered 01..48 row by row from the block's top-left corner. The
province number is ``100 * block_row + block_column`` (both 1-based), so
``111.22`` is block row 1, block column 11, gemark 22. ``000.00`` is the
special gemark of passive armies ("Sondergemark 000.00").

Parsing accepts ``111.22``, ``111-22``, ``111/22`` (and surrounding blanks);
printing is always ``111.22``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from wdg.errors import InvalidInputError
from wdg.world.hexgrid import Hex

PROVINCE_COLS = 8
"""Gemark columns per province block."""
PROVINCE_ROWS = 6
"""Gemark rows per province block."""
GEMARKS_PER_PROVINCE = PROVINCE_COLS * PROVINCE_ROWS  # 48, as the rule says

PASSIVE = "000.00"
"""The address of the special gemark of passive armies."""

_ADDRESS_RE = re.compile(r"^\s*(\d{1,3})\s*[./\-]\s*(\d{1,2})\s*$")


@dataclass(frozen=True, slots=True)
class Address:
    """A parsed address: province number and gemark number (1..48).

    ``Address(0, 0)`` is the passive gemark ``000.00``.
    """

    province: int
    gemark: int

    @property
    def is_passive(self) -> bool:
        """True for the special gemark ``000.00``."""
        return self.province == 0 and self.gemark == 0

    def __str__(self) -> str:
        return f"{self.province:03d}.{self.gemark:02d}"

    @staticmethod
    def parse(text: str) -> Address:
        """Parse ``111.22``, ``111-22`` or ``111/22`` (syntax only; see
        :meth:`Grid.hex_of` for whether the address lies on a given map)."""
        m = _ADDRESS_RE.match(text)
        if not m:
            raise InvalidInputError(
                f"keine Adresse: {text!r}; erwartet Provinz und Gemark wie '111.22'"
            )
        prov, gem = int(m.group(1)), int(m.group(2))
        if (prov, gem) == (0, 0):
            return Address(0, 0)
        if not 1 <= gem <= GEMARKS_PER_PROVINCE:
            raise InvalidInputError(
                f"Gemarknummer {gem:02d} in {text.strip()!r} gibt es nicht; erwartet 01..48"
            )
        if prov % 100 == 0 or prov < 101:
            raise InvalidInputError(
                f"Provinznummer {prov:03d} in {text.strip()!r} gibt es nicht; "
                "erwartet Blockzeile (1-9) und Blockspalte (01-99), z. B. 111"
            )
        return Address(prov, gem)


PASSIVE_ADDRESS = Address(0, 0)

_LABELS: dict[tuple[int, int], dict[Hex, str]] = {}
"""Printed addresses by map shape and hex (:meth:`Grid.label`); at most one
entry per gemark of each map shape this process has seen."""


@dataclass(frozen=True, slots=True)
class Grid:
    """The rectangular map of a segment: ``prov_cols x prov_rows`` provinces.

    Offset column ``col`` runs 0..cols-1 left to right, ``row`` 0..rows-1 top
    to bottom; numpy layers are indexed ``[row, col]``.
    """

    prov_cols: int
    prov_rows: int

    def __post_init__(self) -> None:
        if not (1 <= self.prov_cols <= 99 and 1 <= self.prov_rows <= 9):
            raise InvalidInputError(
                f"ein Segment hat 1..99 Provinzspalten und 1..9 Provinzzeilen, "
                f"nicht {self.prov_cols}x{self.prov_rows}"
            )

    @property
    def cols(self) -> int:
        """Number of gemark columns."""
        return self.prov_cols * PROVINCE_COLS

    @property
    def rows(self) -> int:
        """Number of gemark rows."""
        return self.prov_rows * PROVINCE_ROWS

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``: the shape of every dense layer."""
        return self.rows, self.cols

    @property
    def size(self) -> int:
        """Number of gemarks."""
        return self.rows * self.cols

    def contains(self, h: Hex) -> bool:
        """True if the hex lies on this map."""
        col, row = h.to_offset()
        return 0 <= row < self.rows and 0 <= col < self.cols

    def index(self, h: Hex) -> tuple[int, int]:
        """``(row, col)`` of a hex on the map (for numpy layers)."""
        col, row = h.to_offset()
        return row, col

    def hex_at(self, row: int, col: int) -> Hex:
        """The hex at layer index ``(row, col)``."""
        return Hex.from_offset(col, row)

    def address_of(self, h: Hex) -> Address:
        """The address of a hex on the map."""
        col, row = h.to_offset()
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise InvalidInputError(f"das Feld {tuple(h)} liegt außerhalb der Karte")
        brow, bcol = divmod(row, PROVINCE_ROWS)[0], divmod(col, PROVINCE_COLS)[0]
        gem = (row % PROVINCE_ROWS) * PROVINCE_COLS + (col % PROVINCE_COLS) + 1
        return Address(100 * (brow + 1) + (bcol + 1), gem)

    def hex_of(self, addr: Address | str) -> Hex:
        """The hex of an address on this map (raises for ``000.00`` and for
        addresses off the map)."""
        a = Address.parse(addr) if isinstance(addr, str) else addr
        if a.is_passive:
            raise InvalidInputError("000.00 ist die passive Gemark, kein Ort auf der Karte")
        brow, bcol = divmod(a.province, 100)
        if not (1 <= brow <= self.prov_rows and 1 <= bcol <= self.prov_cols):
            raise InvalidInputError(
                f"Provinz {a.province:03d} liegt nicht auf dieser Karte; die Provinzen reichen von "
                f"{self.first_province:03d} bis {self.last_province:03d}"
            )
        grow, gcol = divmod(a.gemark - 1, PROVINCE_COLS)
        row = (brow - 1) * PROVINCE_ROWS + grow
        col = (bcol - 1) * PROVINCE_COLS + gcol
        return Hex.from_offset(col, row)

    def label(self, h: Hex) -> str:
        """The printed address ``PPP.GG`` of a hex (remembered per map shape:
        a month's reports print the same few thousand addresses a hundred
        thousand times)."""
        labels = _LABELS.get((self.prov_cols, self.prov_rows))
        if labels is None:
            labels = _LABELS[(self.prov_cols, self.prov_rows)] = {}
        text = labels.get(h)
        if text is None:
            text = labels[h] = str(self.address_of(h))
        return text

    def parse(self, text: str) -> Hex:
        """Parse an address string to a hex on this map."""
        return self.hex_of(Address.parse(text))

    @property
    def first_province(self) -> int:
        """The number of the top-left province (101)."""
        return 101

    @property
    def last_province(self) -> int:
        """The number of the bottom-right province."""
        return 100 * self.prov_rows + self.prov_cols

    def provinces(self) -> list[int]:
        """All province numbers, row by row."""
        return [100 * br + bc for br in range(1, self.prov_rows + 1)
                for bc in range(1, self.prov_cols + 1)]

    def province_of(self, h: Hex) -> int:
        """The province number of a hex."""
        return self.address_of(h).province

    def hexes(self) -> Iterator[Hex]:
        """Every hex on the map, row by row (layer order)."""
        for row in range(self.rows):
            for col in range(self.cols):
                yield Hex.from_offset(col, row)

    def neighbours(self, h: Hex) -> list[Hex]:
        """The adjacent hexes that lie on the map."""
        return [n for n in h.neighbours() if self.contains(n)]
