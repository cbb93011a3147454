"""4 Gods (Christophe Boelinger) as a batch-mode engine: square two-sided
terrain tiles, prophets, legendary cities; the turn-based mode."""

from wdg.games.four_gods.game import FourGodsGame

__all__ = ["FourGodsGame"]
