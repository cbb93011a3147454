"""4 Gods: laying tiles and cities, and the two protections of a city."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games.test_four_gods_helpers import UNIFORM, give, lay, make_game, placements, started
from wdg.games.base import GameError, load_game
from wdg.games.four_gods.make_tiles import EDGES, shift, to_yaml
from wdg.games.four_gods.tiles import first_tileset
from wdg.games.four_gods.world import Fitter

# A 3x3 frame, cells numbered   0 1 2 / 3 4 5 / 6 7 8
TILES = [
    (UNIFORM["M"], UNIFORM["E"]),  # 0
    (UNIFORM["E"], UNIFORM["M"]),  # 1
    ("MMM/MMM/EEE", UNIFORM["G"]),  # 2
    (UNIFORM["W"], UNIFORM["G"]),  # 3
    (UNIFORM["G"], UNIFORM["W"]),  # 4
    (UNIFORM["M"], UNIFORM["M"]),  # 5
    (UNIFORM["M"], UNIFORM["W"]),  # 6
]


def test_the_first_tiles_can_only_go_into_the_corners(tmp_path: Path) -> None:
    """"Daraus folgt, dass die ersten Geländeplättchen in die Ecken des Rahmens
    gelegt werden müssen." """
    s = started(make_game(tmp_path, TILES))
    give(s, 0, 0)
    assert {c for _, c, _ in placements(s)} == {0, 2, 6, 8}


def test_a_tile_must_touch_two_straight_edges_of_frame_or_tiles(tmp_path: Path) -> None:
    """"Das neu gelegte Plättchen muss an mindestens 2 bereits bestehende
    (gerade) Kanten der Welt anliegen." The centre touches one tile only."""
    s = started(make_game(tmp_path, TILES))
    lay(s, 0, 5)
    give(s, 0, 6)
    cells = {c for _, c, _ in placements(s)}
    assert {1, 3} <= cells and 4 not in cells


def test_touching_terrains_must_match_and_either_side_may_be_played(tmp_path: Path) -> None:
    """"Jedes neu gelegte Plättchen muss auf allen Seiten zur dort
    angrenzenden Geländeart passen" and "Welche der beiden Seiten ... du
    nutzt, ist dir überlassen": next to sea only the sea side (B) fits."""
    s = started(make_game(tmp_path, TILES))
    lay(s, 0, 5)
    give(s, 0, 1)  # side A Ebene, side B Meer
    at_1 = {o for _, c, o in placements(s) if c == 1}
    assert at_1 == {4}


def test_tiles_may_be_turned_to_fit(tmp_path: Path) -> None:
    """A half sea, half plain tile fits east of a sea tile only turned so
    that its sea half faces west (three quarter turns)."""
    s = started(make_game(tmp_path, TILES))
    lay(s, 0, 5)
    give(s, 0, 2)
    assert {o for _, c, o in placements(s) if c == 1} == {3}


def test_a_round_city_gives_no_straight_edge(tmp_path: Path) -> None:
    """"Die Plättchen der Legendären Städte sind rund ... und zählen niemals
    für die 2-Kanten-Bedingung": beside a corner city the edge cell touches
    only the frame."""
    s = started(make_game(tmp_path, TILES))
    s.world.place_city(0, 1)
    give(s, 0, 0)
    cells = {c for _, c, _ in placements(s)}
    assert 1 not in cells and 3 not in cells and cells == {2, 6, 8}


def test_a_city_needs_two_straight_edges_and_a_chosen_god(tmp_path: Path) -> None:
    """"Erst nachdem du eine Gottheit gewählt hast, bist du in der Lage,
    Legendäre Städte zu errichten" and "Die neu gelegte Legendäre Stadt muss
    an mindestens 2 bereits bestehende Kanten der Welt anliegen." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    lay(s, 0, 5)
    assert not any(game.layout.decode(a)[0] == "city" for a in s.legal_actions())
    s.apply_action(game.layout.god + 2)
    cities = {game.layout.decode(a)[1][0] for a in s.legal_actions()
              if game.layout.decode(a)[0] == "city"}
    assert cities == {1, 2, 3, 6, 8}


def test_a_new_city_must_take_a_prophet(tmp_path: Path) -> None:
    """"Du musst einen Propheten deiner Gottheit auf die neu gelegte
    Legendäre Stadt setzen." No "no prophet" choice; it comes from the supply."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 2)
    s.apply_action(game.layout.city + 0)
    assert s.phase == "city"
    assert s.legal_actions() == [game.layout.prophet + 2 * 9]
    s.apply_action(game.layout.prophet + 2 * 9)
    assert s.world.cities == {0: 2} and s.supply[2] == 9


def test_a_foreign_city_is_destroyed_by_a_fitting_tile(tmp_path: Path) -> None:
    """"Ersetze ihr Plättchen in der Welt mit deinem Geländeplättchen und lege
    die zerstörte Stadt ... vor dir ab ... Der Prophet, der sich auf der
    Legendären Stadt befunden hat, wird ... aus dem Spiel entfernt." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 0)
    s.owner[2], s.gods[1], s.supply[2] = 1, [2], 9
    s.world.place_city(0, 2)
    give(s, 0, 5)
    s._legal = None
    s.apply_action(game.layout.place(0, 0, 0))
    assert 0 not in s.world.cities and s.world.tiles[0] is not None
    assert s.destroyed == [1, 0, 0, 0] and s.supply[2] == 9
    assert s.breakdown().cities[0] == 5
    assert s.phase == "prophet"  # "Danach darfst du ... einen eigenen Propheten ... setzen"


def test_an_own_city_cannot_be_destroyed(tmp_path: Path) -> None:
    """"Wichtig: Du darfst keine deiner eigenen Legendären Städte zerstören!" """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 0)
    s.world.place_city(0, 0)
    give(s, 0, 5)
    assert 0 not in {c for _, c, _ in placements(s)}
    with pytest.raises(GameError):
        s.apply_action(game.layout.place(0, 0, 0))


def _surrounded(tmp_path: Path, north: int, east: int, south: int, west: int, hand: int):
    game = make_game(tmp_path, TILES + [(UNIFORM["M"], UNIFORM["M"])] * 4)
    s = started(game)
    s.apply_action(game.layout.god + 3)
    s.world.place_city(4, 1)
    for cell, tile in ((1, north), (5, east), (7, south), (3, west)):
        lay(s, cell, tile)
    give(s, 0, hand)
    return s


def test_a_city_is_destroyable_when_a_tile_fits_its_hole(tmp_path: Path) -> None:
    """The counterpart of the protections: four sea neighbours, a sea tile
    in hand, the city can be destroyed."""
    s = _surrounded(tmp_path, 7, 8, 9, 10, hand=5)
    assert 4 in {c for _, c, _ in placements(s)}


def test_a_city_surrounded_by_all_four_terrains_is_safe(tmp_path: Path) -> None:
    """"Wenn eine Legendäre Stadt von allen vier möglichen Geländearten umgeben
    ist ..., kann sie nicht zerstört werden, da es kein Geländeplättchen gibt,
    das alle vier Geländearten aufweist." No tile of the shipped set fits."""
    s = _surrounded(tmp_path, 0, 1, 3, 4, hand=5)  # Meer, Ebene, Wald, Gebirge
    assert 4 not in {c for _, c, _ in placements(s)}
    assert Fitter(first_tileset()).fits(s.world.key(4)) == {}


def test_a_city_between_two_diagonal_tiles_of_different_corner_terrain_is_safe(tmp_path: Path) -> None:
    """"Wenn eine Legendäre Stadt von zwei (diagonal benachbarten)
    Geländeplättchen umgeben ist, deren Geländearten an der sich berührenden
    Ecke unterschiedlich sind, ist die Stadt sicher." Sea to the north, plain
    to the east: the north-east corner would need two terrains."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 3)
    s.world.place_city(4, 1)
    lay(s, 1, 5)
    lay(s, 5, 1)
    fitter = Fitter(first_tileset())
    n, e, so, w = s.world.key(4)
    assert fitter.fits((n, e, so, w)) == {}
    assert fitter.fits((n, -1, so, w)) and fitter.fits((-1, e, so, w))  # each alone would fit


@pytest.mark.parametrize("name", ["balanced", "first"])
def test_the_shipped_tiles_hold_what_the_book_says_of_them(name: str) -> None:
    """The book gives the tiles only as "92x beidseitig bedruckte
    Geländeplättchen" and "8x Legendäre Städte", with four terrains ("Es gibt
    4 Geländearten: Meer, Ebene, Wald und Gebirge") and no tile showing all
    four ("es kein Geländeplättchen gibt, das alle vier Geländearten
    aufweist"); the pictures are not in the rule text, so each shipped set is
    the project's choice (docs/four_gods.md, Components) and these are the
    only facts it can be checked against."""
    ts = load_game("four_gods", tiles=name).tileset
    assert ts.num_tiles == 92 and ts.cities == 8
    for a, b in ts.sides:
        for side in (a, b):
            terrains = {t for row in side for t in row}
            assert len(side) == 3 and all(len(row) == 3 for row in side)
            assert terrains <= {0, 1, 2, 3} and 1 <= len(terrains) <= 3


def test_the_default_tiles_favour_no_terrain_and_are_remade_by_their_script() -> None:
    """The four gods stand on an equal footing in the book: each rules one of
    the "4 Geländearten: Meer, Ebene, Wald und Gebirge", and the scoring
    treats them alike. The default set therefore carries every tile with its
    images under the exchange Meer -> Ebene -> Wald -> Gebirge -> Meer, so
    each god's terrain lies on as many tiles of each shape as every other's
    (the first set gave Meer 539 and Gebirge 304 of 1,656 sub-cells);
    ``make_tiles`` reproduces the shipped file byte for byte, and a matching
    corner pair means a matching edge except between opposite terrains."""
    ts = load_game("four_gods").tileset
    assert ts is not first_tileset()
    tiles = sorted(ts.sides)
    assert sorted((shift(a, 1), shift(b, 1)) for a, b in ts.sides) == tiles
    counts = [sum(row.count(t) for a, b in ts.sides for side in (a, b) for row in side) for t in range(4)]
    assert counts == [92 * 2 * 9 // 4] * 4
    shipped = Path(__file__).parents[2] / "wdg" / "games" / "four_gods" / "tiles-balanced.yaml"
    assert to_yaml(4) == shipped.read_text(encoding="utf-8")
    for a, b in ts.sides:
        for side in (a, b):
            for (ra, ca), (rb, cb), (rm, cm) in EDGES:
                x, y, m = side[ra][ca], side[rb][cb], side[rm][cm]
                assert m in (x, y)
                if (y - x) % 4 == 1:
                    assert m == x
                elif (x - y) % 4 == 1:
                    assert m == y


def test_records_of_the_first_tile_set_name_it_and_keep_it() -> None:
    """A game record or batch made before the balanced set became the
    default names ``tiles: ''``; it must still get the set it was played
    with (docs/four_gods.md, Components), else its replay would differ."""
    assert load_game("four_gods", tiles="").tileset is first_tileset()
    assert load_game("four_gods", tiles="first").tileset is first_tileset()
    assert load_game("four_gods").params["tiles"] == "balanced"
