"""Bot players: kingdoms that play themselves (docs/bots.md).

A bot reads only what its ruler has — the kingdom's view and its last result
sheet (:class:`~wdg.bots.briefing.Briefing`) — and writes an ordinary order
sheet as text (:func:`~wdg.bots.players.write_sheet`), which goes through the
same parser, checker and intake as a player's. Three personalities:
*Baumeister*, *Eroberer*, *Kriegsherr* (:data:`PERSONALITIES`).
:mod:`wdg.bots.npc` lets ``wdg turn run`` write the sheets of kingdoms the
game master handed to a bot.
"""

from wdg.bots.briefing import Briefing, Sighting, brief
from wdg.bots.players import PERSONALITIES, Personality, bot_seed, personality, write_sheet

__all__ = ["PERSONALITIES", "Briefing", "Personality", "Sighting", "bot_seed", "brief",
           "personality", "write_sheet"]
