"""The game object of Empires of Middle-earth: parameters, deck, map, action codes."""

from __future__ import annotations

from typing import Any

from wdg.games.base import Game, GameError, register
from wdg.games.empires_of_middle_earth.codes import Codes
from wdg.games.empires_of_middle_earth.data import DEFAULT_DECK, DEFAULT_MAP, load_deck, load_map
from wdg.games.empires_of_middle_earth.state import EmpiresState

SWITCHES = ("tie_breaks", "agents", "liberation", "shadow_army", "event_cards",
            "bribe_surcharge", "bribe_cap", "fortifications")
"""Every paragraph the rules mark "optional", off by default."""


@register
class EmpiresGame(Game):
    """Empires of Middle-earth for 2..6 players from one shared deck."""

    name = "empires_of_middle_earth"
    end_conditions = ("deck exhausted",)
    """The end of the deck ("am Ende des verdeckten Kartenstapels")."""
    optional_ends = ("round cap",)
    """The agreed end ("Das Spiel kann auch durch eine vorher vereinbarte Zeit
    beendet werden", ``max_rounds``):
    optional in the book, so a batch in which it never occurs is the healthy
    case, not a degenerate one."""
    end_labels = {"deck exhausted": "Stapel aufgebraucht", "round cap": "Rundengrenze",
                  "not over": "nicht beendet"}
    """"am Ende des verdeckten Kartenstapels"; "durch eine vorher vereinbarte
    Zeit" (``max_rounds``)."""
    figure_labels = {"rounds": "Runden", "armies": "Heere", "deck_draws": "vom Stapel gezogen",
                     "discard_takes": "vom Abwurfstapel genommen"}
    min_players = 2
    max_players = 6
    value_scale = 10.0
    """One army (worth 10 in :meth:`EmpiresState.worth`) is a clear lead."""

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        """Players, deck and map files, the round cap and the optional rules."""
        params: dict[str, Any] = {"players": 4, "deck_file": DEFAULT_DECK, "map_file": DEFAULT_MAP,
                                  "max_rounds": 30}
        params.update({s: False for s in SWITCHES})
        return params

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        for s in SWITCHES:
            if not isinstance(self.params[s], bool):
                raise GameError(f"{self.name}: Parameter {s!r} muß true oder false sein, "
                                f"nicht {self.params[s]!r}")
        rounds = self.params["max_rounds"]
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
            raise GameError(f"{self.name}: Parameter 'max_rounds' muß eine ganze Zahl ab 0 sein "
                            f"(0: bis der Stapel aufgebraucht ist), nicht {rounds!r}")
        self.map = load_map(str(self.params["map_file"]))
        options = frozenset(s for s in ("agents", "liberation", "shadow_army", "event_cards")
                            if self.params[s])
        self.cards = load_deck(str(self.params["deck_file"]), self.map, options)
        self.codes = Codes(len(self.cards), len(self.map.sites))
        self.mobilise_cache: dict[tuple[int, int, int, bool], float] = {}
        """:meth:`EmpiresState.mobilise_chance` by (character, his site, army, attempted)."""

    def new_initial_state(self) -> EmpiresState:
        """Empty hands; the first action is the chance roll for the start player."""
        return EmpiresState(self)
