"""Action numbering of Empires of Middle-earth.

Actions are ints in contiguous blocks whose sizes depend on the number of
cards ``n`` and sites ``s`` of the loaded deck and map. Small ints 0..2 are
answers used in many decisions (no/done, yes, draw from the deck). Chance
outcomes are numbered on their own (a 2d6 sum, a die face, a card id).
"""

from __future__ import annotations

NO, YES, DRAW, TAKE = 0, 1, 2, 3
"""``TAKE`` opens the choice of a card from the open discard pile (then
``take + c``): one decision "deck or discard pile", a second "which card"."""
BRIBE_MAX = 99
"""Largest bribe (in points) one player can offer in one decision."""


class Codes:
    """Offsets of the action blocks for a deck of ``n`` cards and ``s`` sites.

    ``take + c`` take card c from the discard pile; ``play + c`` play a
    character; ``drop + c`` discard an own character at will; ``final + c``
    discard a card to end the turn; ``pick + c`` choose a card (supporter,
    leader, lost army); ``site + i`` choose home site i; ``bribe + BRIBE_MAX
    + k`` bribe k points (negative: against the roller); ``use + c`` /
    ``use + n + c`` play an influence or support card for / against the roll;
    ``fort + level`` mountain defence; ``mob + c*n + a`` mobilise army a by
    character c; ``intrigue + c*n + t``; ``campaign + a*n + t``;
    ``liberate + p*n + c`` prisoners p under lord c; ``hazard + h*n + t``.
    """

    __slots__ = ("n", "s", "take", "play", "drop", "final", "pick", "site", "bribe", "use",
                 "fort", "mob", "intrigue", "campaign", "liberate", "hazard", "end")

    def __init__(self, n: int, s: int) -> None:
        self.n, self.s = n, s
        self.take = 8
        self.play = self.take + n
        self.drop = self.play + n
        self.final = self.drop + n
        self.pick = self.final + n
        self.site = self.pick + n
        self.bribe = self.site + s
        self.use = self.bribe + 2 * BRIBE_MAX + 1
        self.fort = self.use + 2 * n
        self.mob = self.fort + 3
        self.intrigue = self.mob + n * n
        self.campaign = self.intrigue + n * n
        self.liberate = self.campaign + n * n
        self.hazard = self.liberate + n * n
        self.end = self.hazard + n * n
