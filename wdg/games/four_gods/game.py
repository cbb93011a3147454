"""The 4 Gods game object: parameters, variants and shared precomputation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wdg.games.base import Game, GameError, register
from wdg.games.four_gods.actions import MAX_ROW, Layout
from wdg.games.four_gods.state import FourGodsState
from wdg.games.four_gods.tiles import first_tileset, load_tileset
from wdg.games.four_gods.world import Fitter

PROPHETS = {4: 10, 3: 13}
"""Prophets per god ("hier: je 10"; zu dritt 13)."""
ROW_CAPACITY = {4: 10, 3: 13, 2: 20}
"""Reserve row size ("10 Plättchen bei 4 Spielern", 13 zu dritt, 20 zu zweit)."""


@register
class FourGodsGame(Game):
    """4 Gods, turn-based mode ("Rundenbasiert"), 2 to 4 players.

    Parameters: ``players``; ``gods`` = ``"open"`` (Offene Götter, chosen
    during play) or ``"hidden"`` (Verdeckte Götter, dealt by chance at the
    start); ``two_player_gods`` = 4 (each of two players has two gods, 10
    prophets each) or 2 (one god each, 13 prophets); ``actions_per_turn``
    (the hourglass); ``max_turns`` (a safety limit, see docs/four_gods.md);
    ``tiles``: ``"balanced"`` (the default: ``tiles-balanced.yaml``, a set
    symmetric in the four terrains), ``"first"`` (``tiles.yaml``, the set
    shipped before; records that name no set, ``""``, were played with it),
    or the path of another tile file.
    """

    name = "four_gods"
    end_conditions = ("world full", "bag empty")
    """The book's ends A and B; the third, "Alle Spieler passen", "wird nur in
    sehr seltenen Fällen geschehen" and is not expected in a batch."""
    end_caps = ("turn limit",)
    end_labels = {"world full": "Welt voll", "bag empty": "Beutel leer",
                  "all passed": "alle passen", "turn limit": "Zuggrenze",
                  "not over": "nicht beendet"}
    """The book's "Die Welt ist vollständig ... gefüllt", "Der Beutel ... ist
    leer", "Alle Spieler passen"; the turn limit is our safety limit."""
    figure_labels = {"fill": "Welt gefüllt (Anteil)", "bag_left": "Plättchen im Beutel",
                     "cities": "Legendäre Städte", "turns": "Züge"}
    no_faction_label = "ohne Gott"
    """A player who never chose a god ("einen Gott wählen") in open-gods play."""
    factions_fixed = True
    min_players = 2
    max_players = 4
    value_scale = 15.0
    """Scores run to 50-100 points; a lead of 15 is a clear one."""

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        if p["gods"] not in ("open", "hidden"):
            raise GameError(f"gods={p['gods']!r}; erwartet 'open' (offen) oder 'hidden' (verdeckt)")
        if int(p["two_player_gods"]) not in (2, 4):
            raise GameError(f"two_player_gods={p['two_player_gods']!r}; erwartet 2 oder 4")
        for key in ("actions_per_turn", "max_turns"):
            if int(p[key]) < 1:
                raise GameError(f"{key}={p[key]!r}; erwartet eine Zahl ab 1")
        n = self.num_players
        self.hidden_gods = p["gods"] == "hidden"
        self.gods_per_player = 2 if n == 2 and int(p["two_player_gods"]) == 4 else 1
        self.prophets_per_god = PROPHETS.get(n, 10 if self.gods_per_player == 2 else 13)
        self.row_capacity = ROW_CAPACITY[n]
        self.actions_per_turn = int(p["actions_per_turn"])
        self.max_turns = int(p["max_turns"])
        self.fitter = _fitter(str(p["tiles"]))
        self.tileset = self.fitter.ts
        self.layout = Layout(self.tileset.rows * self.tileset.cols, n)
        self._decoded: dict[int, tuple[str, tuple[int, ...]]] = {}
        assert self.row_capacity <= MAX_ROW

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """:meth:`Layout.decode`, remembered per action."""
        hit = self._decoded.get(action)
        if hit is None:
            hit = self._decoded[action] = self.layout.decode(action)
        return hit

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        """Four players, open gods, a turn of five actions."""
        return {"players": 4, "gods": "open", "two_player_gods": 4,
                "actions_per_turn": 5, "max_turns": 2000, "tiles": "balanced"}

    def new_initial_state(self) -> FourGodsState:
        """Empty world, all tiles in the bag, no gods chosen yet."""
        return FourGodsState(self)


_FITTERS: dict[str, Fitter] = {}

SHIPPED_TILES = {"balanced": "tiles-balanced.yaml", "first": "tiles.yaml", "": "tiles.yaml"}
"""The shipped tile sets by the ``tiles`` parameter's name (docs/four_gods.md,
Components). ``""`` is what records and batches made before the balanced set
became the default (commit after 07e5897) name: the first set, so they replay
as they were played."""


def _fitter(path: str) -> Fitter:
    """One tile set and fit cache per tile file, shared by all games."""
    if path not in _FITTERS:
        shipped = SHIPPED_TILES.get(path)
        _FITTERS[path] = Fitter(first_tileset() if shipped == "tiles.yaml" else
                                load_tileset(Path(__file__).with_name(shipped)) if shipped else
                                load_tileset(Path(path)))
    return _FITTERS[path]
