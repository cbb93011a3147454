"""Hand-built 4 Gods positions for the rule tests: small frames and tile sets
written to a temporary file and loaded through the game's ``tiles`` parameter."""

from __future__ import annotations

from pathlib import Path

import yaml

from wdg.games.base import load_game
from wdg.games.four_gods.game import FourGodsGame
from wdg.games.four_gods.state import FourGodsState

UNIFORM = {t: "/".join([t * 3] * 3) for t in "MEWG"}
"""A side showing one terrain only."""


def make_game(tmp_path: Path, tiles: list[tuple[str, str]], rows: int = 3, cols: int = 3,
              cities: int = 8, **params: object) -> FourGodsGame:
    """A game on a ``rows`` x ``cols`` frame with the given tiles."""
    path = tmp_path / f"tiles_{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump({"frame": {"rows": rows, "columns": cols}, "cities": cities,
                                    "tiles": [list(t) for t in tiles]}), encoding="utf-8")
    game = load_game("four_gods", tiles=str(path), **params)
    assert isinstance(game, FourGodsGame)
    return game


def started(game: FourGodsGame, player: int = 0) -> FourGodsState:
    """The initial state after the start player (and hidden gods) are drawn."""
    s = game.new_initial_state()
    while s.phase == "deal":
        s.apply_action(s.legal_actions()[0])
    s.apply_action(game.layout.start + player)
    return s


def lay(s: FourGodsState, cell: int, tile: int, orient: int = 0) -> None:
    """Put a tile into the world directly (building a position)."""
    s.bag.remove(tile)
    s.world.place_tile(cell, s.game.tileset.by_orient[tile][orient])
    s._legal = None


def give(s: FourGodsState, hand: int, tile: int) -> None:
    """Put a tile from the bag into the current player's hand."""
    s.bag.remove(tile)
    s.hands[hand] = tile
    s._legal = None


def kinds(s: FourGodsState) -> set[str]:
    """The kinds of the legal actions (``place``, ``draw``, ...)."""
    return {s.game.layout.decode(a)[0] for a in s.legal_actions()}


def placements(s: FourGodsState) -> set[tuple[int, int, int]]:
    """``(hand, cell, orientation)`` of every legal placement."""
    out = set()
    for a in s.legal_actions():
        kind, args = s.game.layout.decode(a)
        if kind == "place":
            out.add(args)
    return out
