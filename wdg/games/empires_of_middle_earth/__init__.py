"""Empires of Middle-earth (Andreas Flügge's multi-player variant of METW/MELE) as a
batch-mode engine; importing this package registers the game."""

from wdg.games.empires_of_middle_earth.game import EmpiresGame

__all__ = ["EmpiresGame"]
