"""Constants shared by the modules of Empires of Middle-earth."""

from __future__ import annotations

DECK, DISCARD, HAND, PLAY, OUT = 0, 1, 2, 3, 4
"""Where a card lies."""
PLACE = ("deck", "discard", "hand", "play", "out")
INFLUENCE_LIMIT = 30
"""The general influence limit: sum of mind of a player's characters (2.1)."""
START, DRAWING, DRAW_CARD, MAIN, END, OVER = "start", "draw", "draw-card", "main", "end", "over"
"""Phases held by the state itself; rolls and battles keep their own stage."""
ARMY_KINDS = ("army", "prisoners")
