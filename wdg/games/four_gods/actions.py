"""Integer encoding of 4 Gods actions.

Player actions occupy consecutive blocks (draw, place, reserve, flip, take,
choose god, build city, prophet, move prophet, no prophet, return tile, end
turn); chance outcomes (deal a god, draw a tile, pick the start
player) live above :data:`CHANCE_BASE`.
"""

from __future__ import annotations

from dataclasses import dataclass

ORIENTS = 8
REGIONS = 9
"""At most nine terrain areas on a 3x3 side."""
MAX_ROW = 20
"""Largest reserve row (two players)."""
CHANCE_BASE = 1_000_000


@dataclass(frozen=True, slots=True)
class Layout:
    """Offsets of the action blocks for a frame of ``cells`` cells."""

    cells: int
    players: int

    DRAW1 = 0
    DRAW2 = 1
    PLACE = 2

    @property
    def reserve(self) -> int:
        """Put hand ``h`` into the own row with side ``s`` up: ``+ 2h + s``."""
        return self.PLACE + 2 * self.cells * ORIENTS

    @property
    def flip(self) -> int:
        """Turn slot ``i`` of player ``p``'s row: ``+ p * MAX_ROW + i``."""
        return self.reserve + 4

    @property
    def take(self) -> int:
        """Take slot ``i`` of player ``p``'s row: ``+ p * MAX_ROW + i``."""
        return self.flip + self.players * MAX_ROW

    @property
    def god(self) -> int:
        """Choose god ``g``: ``+ g``."""
        return self.take + self.players * MAX_ROW

    @property
    def city(self) -> int:
        """Build a city on cell ``c``: ``+ c``."""
        return self.god + 4

    @property
    def prophet(self) -> int:
        """A prophet of god ``g`` from the supply onto region ``k``: ``+ g * REGIONS + k``."""
        return self.city + self.cells

    @property
    def move(self) -> int:
        """The prophet on cell ``c`` moves to region ``k``: ``+ c * REGIONS + k``."""
        return self.prophet + 4 * REGIONS

    @property
    def skip(self) -> int:
        """Set no prophet on the tile just laid."""
        return self.move + self.cells * REGIONS

    @property
    def ret(self) -> int:
        """Give a taken tile back (the rule's special case)."""
        return self.skip + 1

    @property
    def END(self) -> int:  # a constant of the layout
        """End the turn (the last player action, so that a bot breaking ties
        by the lowest action does not pass by default)."""
        return self.ret + 1

    @property
    def deal(self) -> int:
        """Chance: deal god ``g``."""
        return CHANCE_BASE

    @property
    def draw_tile(self) -> int:
        """Chance: tile ``t`` comes out of the bag."""
        return CHANCE_BASE + 4

    @property
    def start(self) -> int:
        """Chance: player ``p`` begins."""
        return CHANCE_BASE + 1000

    def place(self, hand: int, cell: int, orient: int) -> int:
        """Lay the tile in ``hand`` on ``cell`` in ``orient``."""
        return self.PLACE + (hand * self.cells + cell) * ORIENTS + orient

    def decode(self, a: int) -> tuple[str, tuple[int, ...]]:
        """``(kind, arguments)`` of an action."""
        if a >= CHANCE_BASE:
            if a >= self.start:
                return "start", (a - self.start,)
            if a >= self.draw_tile:
                return "draw_tile", (a - self.draw_tile,)
            return "deal", (a - self.deal,)
        if a == self.END:
            return "end", ()
        if a < self.PLACE:
            return "draw", (a + 1,)
        if a > self.END:
            raise ValueError(a)
        blocks = (("ret", self.ret, 0), ("skip", self.skip, 0), ("move", self.move, REGIONS),
                  ("prophet", self.prophet, REGIONS), ("city", self.city, 0),
                  ("god", self.god, 0), ("take", self.take, MAX_ROW), ("flip", self.flip, MAX_ROW),
                  ("reserve", self.reserve, 2), ("place", self.PLACE, 0))
        for kind, base, div in blocks:
            if a >= base:
                off = a - base
                if kind == "place":
                    hc, o = divmod(off, ORIENTS)
                    h, c = divmod(hc, self.cells)
                    return kind, (h, c, o)
                if kind in ("ret", "skip"):
                    return kind, ()
                return kind, divmod(off, div) if div else (off,)
        raise ValueError(a)
