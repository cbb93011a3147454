"""Lords of Creation (Martin Wallace, Warfrog 1993) as a registered batch game."""

from __future__ import annotations

from typing import Any

from wdg.games.base import Game, GameError, register
from wdg.games.lords_of_creation.components import Components, geometry, load_components
from wdg.games.lords_of_creation.state import LordsState


@register
class LordsOfCreation(Game):
    """2-5 players; parameters:

    - ``players``: 2..5
    - ``full_knowledge``: 5.1 "Völliges Wissen" — all cards dealt at the start
    - ``sudden_end``: the end by identical cards when the deck is empty (4.);
      5.1 allows dropping it in the variant
    - ``board_radius``: 5 is the 91-hex board; 4 the inner-61 variant
      (default from ``components.yaml``)
    """

    name = "lords_of_creation"
    end_conditions: tuple[str, ...] = ("alle Karten gespielt", "gleiche Karten bei leerem Stapel")
    end_labels = {"not over": "nicht beendet"}
    """The ends are named in German already (4.)."""
    figure_labels = {"rounds": "Runden", "hexes_held": "besetzte Felder",
                     "counters": "Menschenmarker", "cards_left_max": "höchstens Karten auf einer Hand",
                     "no_counter_placed": "ohne gesetzten Marker (Anteil)"}
    min_players = 2
    max_players = 5

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.components: Components = load_components()
        radius = self.params["board_radius"]
        if radius is not None and (not isinstance(radius, int) or isinstance(radius, bool)):
            raise GameError(f"lords_of_creation: board_radius muß eine ganze Zahl 2..5 sein "
                            f"(oder leer für den Wert der Komponentendatei), nicht {radius!r}")
        self.radius = int(self.components.board_radius if radius is None else radius)
        if not 2 <= self.radius <= 5:
            raise GameError(f"lords_of_creation: board_radius {radius!r} außerhalb von 2..5")
        if sum(self.components.terrain_markers) < geometry(self.radius).size:
            raise GameError(
                f"lords_of_creation: {sum(self.components.terrain_markers)} Geländemarker "
                f"füllen keine {geometry(self.radius).size} Felder")
        for key in ("full_knowledge", "sudden_end"):
            if not isinstance(self.params[key], bool):
                raise GameError(f"lords_of_creation: Parameter {key} muß true oder false sein, "
                                f"nicht {self.params[key]!r}")
        if not self.params["sudden_end"]:  # 5.1 drops the end by identical cards
            self.end_conditions = ("alle Karten gespielt",)

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        """Players 4, standard rules, board from the component file."""
        return {"players": 4, "full_knowledge": False, "sudden_end": True, "board_radius": None}

    def new_initial_state(self) -> LordsState:
        """Before the deal."""
        return LordsState(self)
