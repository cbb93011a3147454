"""4 Gods scoring ("Göttlichen Einfluss berechnen"), with the rule book's
worked examples A-E and the tie cases."""

from __future__ import annotations

from pathlib import Path

from tests.games.test_four_gods_helpers import UNIFORM, lay, make_game, started
from wdg.games.four_gods.scoring import (
    city_points,
    largest_points,
    most_points,
    prophet_points,
    rank_points,
)
from wdg.games.four_gods.world import Kingdom

MEER, EBENE, WALD, GEBIRGE = 0, 1, 2, 3
BLUE, YELLOW, GREEN, GREY = MEER, EBENE, WALD, GEBIRGE  # colours of the example


def kingdom(terrain: int, size: int, first: int = 0) -> Kingdom:
    """A kingdom over cells ``first .. first+size-1`` (region 0 of each)."""
    cells = range(first, first + size)
    return Kingdom(terrain, frozenset(cells), frozenset((c, 0) for c in cells))


def on(k: Kingdom, *gods: int) -> dict[int, tuple[int, tuple[int, int]]]:
    """Prophets of ``gods`` on the first tiles of ``k``, one per tile."""
    cells = sorted(k.cells)
    return {cells[i]: (g, (cells[i], 0)) for i, g in enumerate(gods)}


def test_example_a_a_lone_prophet_scores_the_free_tiles_of_its_kingdom() -> None:
    """A: "Das Gebirgs-Königreich ... erstreckt sich über 6 Geländeplättchen.
    Nur Spieler Grau ... Er erhält für die 5 unbesetzten Geländeplättchen 5 GE." """
    k = kingdom(GEBIRGE, 6)
    assert prophet_points([k], on(k, GREY)) == [0, 0, 0, 5]


def test_example_b_only_the_player_with_most_prophets_scores() -> None:
    """B: 12 tiles, "2 gelbe Propheten sowie je 1 grüner, blauer und grauer
    Prophet. Nur der Gott der Menschen (Spieler Gelb) ... erhält 7 GE." """
    k = kingdom(EBENE, 12)
    assert prophet_points([k], on(k, YELLOW, YELLOW, GREEN, BLUE, GREY)) == [0, 7, 0, 0]


def test_example_c_tied_leaders_each_score_the_full_value() -> None:
    """C: 9 tiles, "1 grüner und 1 blauer Prophet. Beide Spieler erhalten
    daher 7 GE." """
    k = kingdom(GEBIRGE, 9)
    assert prophet_points([k], on(k, GREEN, BLUE)) == [7, 0, 7, 0]


def test_prophets_outside_a_kingdom_score_nothing() -> None:
    """"Entfernt zunächst alle Propheten, die sich auf einem Gebiet befinden,
    das nur aus einem einzelnen Geländeplättchen besteht." """
    k = kingdom(WALD, 3)
    prophets = {50: (GREEN, (50, 0)), **on(k, BLUE)}
    assert prophet_points([k], prophets) == [2, 0, 0, 0]


def test_largest_kingdoms_example_d_b_and_c_equal_e() -> None:
    """D: sea 21 tiles -> 15; B: plain 12 -> 10; "C = E: Der größte Wald und
    das größte Gebirge bestehen beide aus 9 Geländeplättchen ... beide 5 ÷ 2 =
    2 GE." """
    ks = [kingdom(MEER, 21, 0), kingdom(EBENE, 12, 30), kingdom(WALD, 9, 50),
          kingdom(GEBIRGE, 9, 60), kingdom(MEER, 3, 70)]
    assert largest_points(ks, [0, 1, 2, 3]) == [15, 10, 2, 2]


def test_most_kingdoms_example_8_7_7_4() -> None:
    """"Es gibt 8 Wald-Königreiche, 7 Meer-Königreiche, 7 Ebenen-Königreiche
    und 4 Gebirgs-Königreiche ... Grün erhält 15 GE ... Blau bzw. Gelb ...
    jeweils (10+5) ÷ 2 = 7 GE. Der Gott der Zwerge ... erhält nichts." """
    ks, cell = [], 0
    for terrain, n in ((WALD, 8), (MEER, 7), (EBENE, 7), (GEBIRGE, 4)):
        for _ in range(n):
            ks.append(kingdom(terrain, 2, cell))
            cell += 2
    assert most_points(ks, [0, 1, 2, 3]) == [7, 7, 15, 0]


def test_shared_ranks_add_the_places_and_round_down() -> None:
    """"Gleichstand": (15+10)/2 = 12, (10+5)/2 = 7, 5/2 = 2, (15+10+5)/3 =
    10, (10+5)/3 = 5, (15+10+5)/4 = 7."""
    assert rank_points({0: 9, 1: 9, 2: 5, 3: 1}) == {0: 12, 1: 12, 2: 5, 3: 0}
    assert rank_points({0: 9, 1: 5, 2: 5, 3: 1}) == {0: 15, 1: 7, 2: 7, 3: 0}
    assert rank_points({0: 9, 1: 8, 2: 5, 3: 5}) == {0: 15, 1: 10, 2: 2, 3: 2}
    assert rank_points({0: 9, 1: 9, 2: 9, 3: 1}) == {0: 10, 1: 10, 2: 10, 3: 0}
    assert rank_points({0: 9, 1: 5, 2: 5, 3: 5}) == {0: 15, 1: 5, 2: 5, 3: 5}
    assert rank_points({0: 4, 1: 4, 2: 4, 3: 4}) == {0: 7, 1: 7, 2: 7, 3: 7}


def test_the_terrain_of_an_unchosen_god_does_not_rank() -> None:
    """Zu dritt: "Bei der Schlusswertung wird ihre Geländeart bei der
    Auswertung von „Größtes Königreich“ sowie „Meiste Königreiche“ nicht
    berücksichtigt." The largest (sea) kingdom belongs to nobody."""
    ks = [kingdom(MEER, 20, 0), kingdom(EBENE, 5, 30), kingdom(WALD, 4, 40), kingdom(GEBIRGE, 3, 50)]
    assert largest_points(ks, [1, 2, 3]) == [0, 15, 10, 5]
    assert most_points(ks, [1, 2, 3]) == [0, 10, 10, 10]


def test_two_player_kingdoms_go_to_the_colour_with_most_prophets() -> None:
    """"Tim 1 blauen Propheten und 3 grüne Propheten. Clemens hat dort 2 graue
    und 2 gelbe Propheten ... erhält nur Tim für seinen grünen Propheten." """
    k = kingdom(WALD, 10)
    prophets = on(k, BLUE, GREEN, GREEN, GREEN, GREY, GREY, YELLOW, YELLOW)
    assert prophet_points([k], prophets) == [0, 0, 2, 0]


def test_cities_score_five_for_own_prophet_and_five_per_destroyed_city() -> None:
    """"5 GE ... für jede Legendäre Stadt auf der ein Prophet seiner Farbe
    steht" and "5 GE für jede Legendäre Stadt, die er zerstört hat." """
    assert city_points({3: WALD, 9: WALD, 12: MEER}, {GEBIRGE: 1}) == [5, 0, 10, 5]


def test_kingdoms_follow_one_terrain_across_tiles_and_count_tiles_once(tmp_path: Path) -> None:
    """"Ein Königreich besteht aus einem zusammenhängenden Gebiet derselben
    Geländeart aus 2 oder mehr miteinander verbundenen Geländeplättchen."
    Three half-sea tiles make a 3-tile sea; their plain halves and a plain
    tile below make a 4-tile plain; the forest lake in that tile is a single
    tile and no kingdom."""
    tiles = [("MMM/MMM/EEE", UNIFORM["E"]), ("MMM/MMM/EEE", UNIFORM["E"]), ("MMM/MMM/EEE", UNIFORM["E"]),
             ("EEE/EWE/EEE", UNIFORM["E"])]
    game = make_game(tmp_path, tiles, rows=2, cols=3)
    s = started(game)
    for cell in range(3):
        lay(s, cell, cell)
    lay(s, 4, 3)
    ks = s.world.kingdoms()
    summary = sorted((k.terrain, k.size) for k in ks)
    assert summary == [(MEER, 3), (EBENE, 4)]


def test_final_score_adds_the_four_steps_for_the_gods_in_play(tmp_path: Path) -> None:
    """The four steps in order: cities, prophets and kingdoms, largest,
    most. Player 0 (Meer) has a prophet in the 3-tile sea and scores 2 + 15
    (largest) + 15 (most); player 1 (Ebene) has no kingdom of its own
    terrain in this world."""
    tiles = [(UNIFORM["M"], UNIFORM["E"])] * 3
    game = make_game(tmp_path, tiles, rows=1, cols=3, players=2, two_player_gods=2)
    s = started(game)
    for cell in range(3):
        lay(s, cell, cell)
    s.gods, s.owner = [[MEER], [EBENE]], [0, 1, -1, -1]
    s.prophets = {0: (MEER, (0, 0))}
    assert s.scores() == [32.0, 0.0]
