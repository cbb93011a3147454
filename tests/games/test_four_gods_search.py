"""4 Gods: what the search bot sees — a city that the opponent can destroy
counts as lost (``FourGodsState.search_totals``), so the search does not
build one where greedy does."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.games.test_four_gods_helpers import UNIFORM, lay, make_game, started
from wdg.games.bots import greedy_bot
from wdg.games.four_gods import state as fg_state
from wdg.games.four_gods.game import FourGodsGame
from wdg.games.four_gods.state import FourGodsState
from wdg.games.ismcts import ISMCTSBot

# A 3x3 frame, cells numbered   0 1 2 / 3 4 5 / 6 7 8
TILES = [
    (UNIFORM["M"], UNIFORM["E"]),  # 0
    (UNIFORM["E"], UNIFORM["M"]),  # 1
    ("MMM/MMM/EEE", UNIFORM["G"]),  # 2
    (UNIFORM["W"], UNIFORM["G"]),  # 3
    (UNIFORM["G"], UNIFORM["W"]),  # 4
    (UNIFORM["M"], UNIFORM["M"]),  # 5
    (UNIFORM["M"], UNIFORM["W"]),  # 6
] + [(UNIFORM["M"], UNIFORM["M"])] * 4  # 7-10


def _two_player(tmp_path: Path) -> FourGodsGame:
    """Two players with one god each: a player's score is his god's."""
    return make_game(tmp_path, TILES, players=2, two_player_gods=2)


def _city_in_the_middle(game: FourGodsGame, north: int, east: int, south: int, west: int) -> FourGodsState:
    """Player 0 (Zwerge, god 3) has a city in the middle of the frame
    between the given tiles, player 1 (Meer, god 0) none."""
    s = started(game)
    s.apply_action(game.layout.god + 3)
    s.owner[0], s.gods[1], s.supply[0] = 1, [0], 13
    s.world.place_city(4, 3)
    for cell, tile in ((1, north), (5, east), (7, south), (3, west)):
        lay(s, cell, tile)
    return s


def test_a_city_a_row_tile_fits_counts_as_lost_to_the_opponent(tmp_path: Path) -> None:
    """"Wenn du ein Geländeplättchen in der Hand hast, das du gemäß der
    Legeregeln dorthin legen kannst, wo eine Legendäre Stadt in der Welt
    liegt, kannst du ... die Stadt zerstören" and "Du kannst 1
    Geländeplättchen aus deiner eigenen oder einer fremden Ablagereihe
    nehmen": a sea tile in a row fits the hole of a city among four sea
    tiles, so the city's 5 points count for the opponent's god, not its
    owner's."""
    game = _two_player(tmp_path)
    s = _city_in_the_middle(game, 7, 8, 9, 10)
    s.bag.remove(5)
    s.rows[1].append((5, 0))
    b = s.breakdown()
    assert b.cities[3] == 5 and b.cities[0] == 0
    totals = s.search_totals()
    assert totals[3] == b.total(3) - 5
    assert totals[0] == b.total(0) + 5
    # the owner's margin in the search is ten points below the score's
    # (search_value = margin + the same growth term for both players)
    assert s.search_value(0) - s.search_value(1) == 2 * (b.total(3) - b.total(0) - 10)


def test_a_city_among_all_four_terrains_keeps_its_points(tmp_path: Path) -> None:
    """"Wenn eine Legendäre Stadt von allen vier möglichen Geländearten
    umgeben ist ..., kann sie nicht zerstört werden": no tile fits, whatever
    lies in the rows and the bag, and the search counts the city in full."""
    game = _two_player(tmp_path)
    s = _city_in_the_middle(game, 0, 1, 3, 4)  # Meer, Ebene, Wald, Gebirge
    s.rows[1].append((5, 0))
    s.bag.remove(5)
    b = s.breakdown()
    assert s.search_totals() == [float(b.total(g)) for g in range(4)]


def test_a_city_only_bag_tiles_fit_is_at_partial_risk(tmp_path: Path) -> None:
    """Nothing in the rows fits, some bag tiles do: the city counts by the
    chance that the opponent draws one (:data:`CITY_RISK_DRAWS` draws)."""
    game = _two_player(tmp_path)
    s = _city_in_the_middle(game, 7, 8, 9, 10)
    fit = s.world.fit.fits(s.world.key(4))
    share = sum(1 for t in s.bag if t in fit) / len(s.bag)
    assert 0 < share < 1
    lost = 5 * (1 - (1 - share) ** fg_state.CITY_RISK_DRAWS)
    b = s.breakdown()
    assert abs(s.search_totals()[3] - (b.total(3) - lost)) < 1e-9


def test_the_search_does_not_build_a_city_the_opponent_destroys_at_once(tmp_path: Path) -> None:
    """Greedy builds a city in an empty corner (5 points now); any tile
    fits an empty corner, and one lies in the opponent's row, so he
    destroys it in his turn and keeps the 5 points ("Bei Spielende erhältst
    du für jede von dir zerstörte Legendäre Stadt 5 Göttlichen Einfluss").
    The search builds no city."""
    game = _two_player(tmp_path)
    s = started(game)
    s.apply_action(game.layout.god + 3)
    s.owner[0], s.gods[1], s.supply[0] = 1, [0], 13
    s.bag.remove(5)
    s.rows[1].append((5, 0))
    s._legal = None
    city = {game.layout.city + c for c in s.world.frontier}
    assert city <= set(s.legal_actions())
    assert greedy_bot(s, np.random.default_rng(1)) in city
    bot = ISMCTSBot(30)
    bot.seat = 0
    for seed in range(3):
        assert bot(s, np.random.default_rng(seed)) not in city
