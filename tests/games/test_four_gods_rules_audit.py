"""4 Gods: rules of the rule book that the other ``test_four_gods_*`` files do
not yet show (the audit in ``docs/games-rules-coverage.md``)."""

from __future__ import annotations

from pathlib import Path

from tests.games.test_four_gods_helpers import UNIFORM, give, kinds, lay, make_game, started
from wdg.games.four_gods.actions import REGIONS
from wdg.games.four_gods.scoring import prophet_points
from wdg.games.four_gods.world import Kingdom

TILES = [(UNIFORM["M"], UNIFORM["E"])] * 6 + [("MMM/MMM/EEE", "WWW/WWW/GGG")] * 4
MEER, EBENE, WALD, GEBIRGE = 0, 1, 2, 3


def city_cells(s) -> set[int]:
    """Cells offered for a new city."""
    lay_ = s.game.layout
    return {lay_.decode(a)[1][0] for a in s.legal_actions() if lay_.decode(a)[0] == "city"}


def test_no_more_cities_than_the_city_tiles(tmp_path: Path) -> None:
    """"In einer Partie können bis zu 8 Legendäre Städte errichtet werden." With a
    set of one city tile, the second city is not offered."""
    game = make_game(tmp_path, TILES, cities=1)
    s = started(game)
    s.apply_action(game.layout.god + 2)
    assert city_cells(s) == {0, 2, 6, 8}
    s.apply_action(game.layout.city + 0)
    s.apply_action(game.layout.prophet + 2 * REGIONS)
    assert s.cities_left == 0 and "city" not in kinds(s)


def test_a_city_takes_a_prophet_from_a_tile_when_the_supply_is_empty_never_from_a_city(
        tmp_path: Path) -> None:
    """"Sollte dies der Fall sein, musst du einen deiner Propheten von einem Geländeplättchen
    deiner Wahl auf die Legendäre Stadt versetzen (aber nicht von einer anderen Legendären
    Stadt!)." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 2)
    lay(s, 0, 0)
    s.prophets[0] = (2, (0, 0))
    s.world.place_city(8, 2)
    s.supply[2] = 0
    s._legal = None
    s.apply_action(game.layout.city + 2)
    assert s.phase == "city"
    assert s.legal_actions() == [game.layout.move + 0 * REGIONS + 0]
    s.apply_action(game.layout.move)
    assert s.world.cities == {8: 2, 2: 2} and s.prophets == {}


def test_no_city_without_a_prophet_to_set(tmp_path: Path) -> None:
    """"Du musst einen Propheten deiner Gottheit auf die neu gelegte Legendäre Stadt setzen":
    with an empty supply and no prophet on a terrain tile no city can be built."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 2)
    s.supply[2] = 0
    s._legal = None
    assert "city" not in kinds(s)


def test_a_city_can_only_be_destroyed_by_a_player_with_a_god(tmp_path: Path) -> None:
    """"Erst nachdem du eine Gottheit gewählt hast, bist du in der Lage, Legendäre Städte zu
    zerstören." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.owner[2] = 1
    s.gods[1] = [2]
    s.world.place_city(0, 2)
    give(s, 0, 5)
    cells = {args[1] for a in s.legal_actions()
             for kind, args in [game.layout.decode(a)] if kind == "place"}
    assert 0 not in cells
    s.apply_action(game.layout.god + 0)
    cells = {args[1] for a in s.legal_actions()
             for kind, args in [game.layout.decode(a)] if kind == "place"}
    assert 0 in cells


def test_no_tile_into_a_full_reserve_row(tmp_path: Path) -> None:
    """"Im Spiel zu viert darfst du maximal 10 Plättchen in deine Reihe legen." """
    game = make_game(tmp_path, TILES * 2)
    s = started(game)
    give(s, 0, 0)
    assert "reserve" in kinds(s)
    s.rows[0] = [(t, 0) for t in range(10, 20)]
    s._legal = None
    assert "reserve" not in kinds(s)


def test_drawing_two_tiles_needs_two_in_the_bag(tmp_path: Path) -> None:
    """"Du darfst hierbei 1 oder 2 Plättchen ziehen" — from what the bag holds."""
    game = make_game(tmp_path, TILES[:1])
    s = started(game)
    assert game.layout.DRAW1 in s.legal_actions() and game.layout.DRAW2 not in s.legal_actions()


def test_both_hands_may_go_into_the_row(tmp_path: Path) -> None:
    """"Du darfst auch beide Plättchen in deinen Händen gleichzeitig ablegen." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    give(s, 0, 0)
    give(s, 1, 1)
    s.apply_action(game.layout.reserve + 0)
    s.apply_action(game.layout.reserve + 2 + 1)
    assert s.rows[0] == [(0, 0), (1, 1)] and s.hands == [None, None]


def test_with_two_gods_one_prophet_per_tile_of_either_god(tmp_path: Path) -> None:
    """"Sobald du beide Gottheiten gewählt hast, musst du jedes Mal ... entscheiden, von welcher
    Gottheit du den eingesetzten Propheten nimmst. Du darfst weiterhin nur 1 Propheten pro
    Plättchen einsetzen." """
    game = make_game(tmp_path, TILES, players=2)
    s = started(game)
    s.apply_action(game.layout.god + 0)
    s.apply_action(game.layout.god + 3)
    give(s, 0, 0)
    s.apply_action(game.layout.place(0, 0, 0))
    p = game.layout.prophet
    assert s.legal_actions() == sorted([game.layout.skip, p + 0 * REGIONS, p + 3 * REGIONS])
    s.apply_action(p + 3 * REGIONS)
    assert s.phase == "main" and s.prophets == {0: (3, (0, 0))}


def test_prophets_on_another_terrain_of_a_tile_do_not_occupy_it_for_a_kingdom() -> None:
    """"Dieser Spieler erhält soviel GE wie es unbesetzte Plättchen (also ohne Propheten) in
    diesem Königreich gibt. (Propheten auf anderen Geländearten eines Plättchens sind hierbei
    natürlich irrelevant.)" Four half-sea, half-plain tiles: a sea and a plain kingdom over
    the same four tiles, one prophet in each, on different tiles."""
    cells = range(4)
    sea = Kingdom(MEER, frozenset(cells), frozenset((c, 0) for c in cells))
    plain = Kingdom(EBENE, frozenset(cells), frozenset((c, 1) for c in cells))
    prophets = {0: (WALD, (0, 1)), 1: (MEER, (1, 0))}
    assert prophet_points([sea, plain], prophets) == [3, 0, 3, 0]


def _two_gods_final(tmp_path: Path, cities: dict[int, list[int]]):
    """A finished two-player game with four gods; ``cities``: god -> cells of its cities."""
    game = make_game(tmp_path, TILES, players=2)
    s = started(game)
    s.gods, s.owner = [[0, 1], [2, 3]], [0, 0, 1, 1]
    for god, cells in cities.items():
        for c in cells:
            s.world.place_city(c, god)
    s.phase = "over"
    return s


def test_with_two_gods_each_the_rearmost_god_loses_then_the_other_decides(tmp_path: Path) -> None:
    """"Und der Verlierer ist ... der Spieler, dessen Prophet auf der Wertungsleiste ganz hinten
    ist ... Besteht hier ein Gleichstand, gewinnt der Spieler, dessen anderer Prophet auf der
    Wertungsleiste vorne steht. Besteht auch hier Gleichstand, endet die Partie unentschieden." """
    s = _two_gods_final(tmp_path, {0: [0], 1: [2], 3: [6, 8]})  # P0 5/5, P1 0/10
    assert s.scores() == [5.0, 0.0] and s.returns() == [1.0, 0.0]
    s = _two_gods_final(tmp_path, {0: [0], 1: [2, 4], 2: [6], 3: [8]})  # P0 5/10, P1 5/5
    assert s.returns() == [1.0, 0.0]
    s = _two_gods_final(tmp_path, {0: [0], 1: [2], 2: [6], 3: [8]})  # 5/5 against 5/5
    assert s.returns() == [0.5, 0.5]
