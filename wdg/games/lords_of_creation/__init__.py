"""Lords of Creation: the creation phase, the people phase and worship points.

Importing this package registers the game as ``lords_of_creation``.
"""

from wdg.games.lords_of_creation.game import LordsOfCreation
from wdg.games.lords_of_creation.state import LordsState

__all__ = ["LordsOfCreation", "LordsState"]
