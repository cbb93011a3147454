"""4 Gods: drawing, reserve rows, taking, gods, prophets, turns and the end."""

from __future__ import annotations

from pathlib import Path

from tests.games.test_four_gods_helpers import UNIFORM, give, kinds, lay, make_game, started
from wdg.games.base import CHANCE, load_game
from wdg.games.four_gods.actions import MAX_ROW, REGIONS

TILES = [(UNIFORM["M"], UNIFORM["E"])] * 6 + [("MMM/MMM/EEE", "WWW/WWW/GGG")] * 4


def test_drawing_needs_both_hands_free_and_may_take_one_or_two_tiles(tmp_path: Path) -> None:
    """"Du musst beide Hände frei haben, um aus dem Beutel ziehen zu dürfen
    ... Du darfst hierbei 1 oder 2 Plättchen ziehen." Each tile is a chance
    outcome."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    assert {game.layout.DRAW1, game.layout.DRAW2} <= set(s.legal_actions())
    s.apply_action(game.layout.DRAW2)
    assert s.current_player() == CHANCE
    s.apply_action(game.layout.draw_tile + 3)
    s.apply_action(game.layout.draw_tile + 7)
    assert s.hands == [3, 7] and s.phase == "main"
    assert "draw" not in kinds(s)


def test_no_drawing_with_a_full_reserve_row(tmp_path: Path) -> None:
    """"Wenn deine Ablagereihe voll ist (10 Plättchen bei 4 Spielern), darfst
    du keine Plättchen mehr aus dem Beutel ziehen!" """
    s = started(make_game(tmp_path, TILES * 2))
    s.rows[0] = [(t, 0) for t in range(10)]
    s._legal = None
    assert "draw" not in kinds(s)


def test_reserve_rows_hold_10_13_or_20_tiles_by_player_count() -> None:
    """"bis zu 10 Geländeplättchen", zu dritt "bis zu 13", zu zweit "20
    Ablagemöglichkeiten". """
    sizes = [load_game("four_gods", players=n).row_capacity for n in (4, 3, 2)]
    assert sizes == [10, 13, 20]


def test_a_tile_goes_into_the_own_row_with_the_chosen_side_up(tmp_path: Path) -> None:
    """"kannst du es stattdessen in deine Ablagereihe legen. Dabei darfst du
    frei entscheiden, welche Seite des Plättchens sichtbar sein soll." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    give(s, 1, 4)
    s.apply_action(game.layout.reserve + 2 * 1 + 1)
    assert s.rows[0] == [(4, 1)] and s.hands == [None, None]


def test_tiles_in_any_row_may_be_turned_with_a_free_hand(tmp_path: Path) -> None:
    """"Du kannst ein Geländeplättchen in deiner eigenen oder einer fremden
    Ablagereihe wenden ... Du musst hierzu mindestens 1 Hand frei haben." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.rows[2] = [(5, 0)]
    s._legal = None
    s.apply_action(game.layout.flip + 2 * MAX_ROW + 0)
    assert s.rows[2] == [(5, 1)]
    give(s, 0, 1)
    give(s, 1, 2)
    assert "flip" not in kinds(s) and "take" not in kinds(s)


def test_a_tile_taken_from_a_foreign_row_must_be_laid_or_kept_but_not_given_back(tmp_path: Path) -> None:
    """"Du nimmst das Plättchen in die freie Hand und musst es entweder sofort
    in die Welt oder in deine eigene Ablagereihe legen. Hast du das Plättchen
    aus einer fremden Ablagereihe genommen, darfst du es nicht mehr dorthin
    zurücklegen." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.bag.remove(5)
    s.rows[1] = [(5, 0)]
    s._legal = None
    s.apply_action(game.layout.take + 1 * MAX_ROW + 0)
    assert s.phase == "taken" and kinds(s) == {"place", "reserve"}
    s.apply_action(game.layout.reserve + 0)
    assert s.rows == [[(5, 0)], [], [], []]


def test_a_taken_tile_that_fits_nowhere_goes_back_to_its_row(tmp_path: Path) -> None:
    """"Sonderfall: Wenn du das Plättchen aus einer fremden Ablagereihe
    genommen hast, es aber weder in die Welt noch in deine eigene
    Ablagereihe legen kannst, dann (und nur dann!) legst du es zurück." """
    game = make_game(tmp_path, TILES * 2, rows=1, cols=2)
    s = started(game)
    lay(s, 0, 0)
    lay(s, 1, 1)  # world full
    s.rows[0] = [(t, 0) for t in range(2, 12)]
    for t in range(2, 13):
        s.bag.remove(t)
    s.rows[3] = [(12, 0)]
    s._legal = None
    s.apply_action(game.layout.take + 3 * MAX_ROW + 0)
    assert s.legal_actions() == [game.layout.ret]
    s.apply_action(game.layout.ret)
    assert s.rows[3] == [(12, 0)] and s.hands == [None, None]


def test_a_god_is_chosen_once_and_is_then_gone_for_the_others(tmp_path: Path) -> None:
    """"kann jeder Spieler, der noch keine Gottheit gewählt hat, zu jeder Zeit
    ... eine noch verfügbare Gottheit wählen ... behält er diese für den Rest
    der Partie." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 2)
    assert "god" not in kinds(s)
    s.apply_action(game.layout.END)
    gods = {game.layout.decode(a)[1][0] for a in s.legal_actions() if game.layout.decode(a)[0] == "god"}
    assert gods == {0, 1, 3} and s.supply[2] == 10


def test_prophets_only_after_choosing_a_god(tmp_path: Path) -> None:
    """"Du kannst erst dann Propheten in die Welt setzen, nachdem du eine
    Gottheit gewählt hast." Without a god the turn goes on after laying."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    give(s, 0, 0)
    s.apply_action(game.layout.place(0, 0, 0))
    assert s.phase == "main"
    give(s, 0, 1)
    s.apply_action(game.layout.god + 1)
    s.apply_action(game.layout.place(0, 2, 0))
    assert s.phase == "prophet"


def test_a_prophet_goes_onto_one_terrain_of_the_tile_just_laid(tmp_path: Path) -> None:
    """"darfst du 1 Propheten aus deinem Vorrat auf eine beliebige Geländeart
    des neu gelegten Plättchens setzen." A half sea, half plain tile offers
    its two areas (or no prophet)."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 1)
    give(s, 0, 6)
    s.apply_action(game.layout.place(0, 0, 0))
    p = game.layout.prophet + 1 * REGIONS
    assert s.legal_actions() == sorted([p, p + 1, game.layout.skip])
    s.apply_action(p + 1)
    assert s.prophets == {0: (1, (0, 1))} and s.supply[1] == 9


def test_with_an_empty_supply_a_prophet_moves_but_never_off_a_city(tmp_path: Path) -> None:
    """"Sollte dein Propheten-Vorrat leer sein, kannst du 1 deiner Propheten
    innerhalb der Welt versetzen ... niemals einen Propheten versetzen, der
    sich auf einer Legendären Stadt befindet." """
    game = make_game(tmp_path, TILES)
    s = started(game)
    s.apply_action(game.layout.god + 1)
    lay(s, 0, 0)
    s.prophets[0] = (1, (0, 0))
    s.world.place_city(2, 1)
    s.supply[1] = 0
    give(s, 0, 1)
    s.apply_action(game.layout.place(0, 6, 0))
    assert s.legal_actions() == sorted([game.layout.skip, game.layout.move + 0 * REGIONS + 0])
    s.apply_action(game.layout.move)
    assert s.prophets == {6: (1, (6, 0))} and s.world.cities == {2: 1}


def test_the_hourglass_ends_the_turn_and_hands_go_to_the_row(tmp_path: Path) -> None:
    """"Sobald die Zeit abgelaufen ist, musst du alle Plättchen, die du in den
    Händen hältst, in deine eigene Ablagereihe legen. Ist dort kein Platz,
    wirf sie in den Beutel." The hourglass is ``actions_per_turn``."""
    game = make_game(tmp_path, TILES * 2, actions_per_turn=2)
    s = started(game)
    s.rows[0] = [(t, 0) for t in range(11, 20)]
    for t in range(11, 20):
        s.bag.remove(t)
    s.apply_action(game.layout.DRAW2)
    s.apply_action(game.layout.draw_tile + 0)
    s.apply_action(game.layout.draw_tile + 1)
    assert s.player == 0
    s.apply_action(game.layout.reserve)  # second action: time is up, the row is full
    assert s.player == 1 and s.hands == [None, None]
    assert s.rows[0][-1] == (0, 0) and len(s.rows[0]) == 10 and 1 in s.bag


def test_an_empty_bag_gives_everyone_one_last_turn(tmp_path: Path) -> None:
    """"Wenn die Partie auf normale Weise endet (Welt voll oder Beutel leer),
    erhält jeder von euch reihum noch einen letzten Zug." """
    game = make_game(tmp_path, TILES[:2], players=2)
    s = started(game)
    s.apply_action(game.layout.DRAW2)
    s.apply_action(game.layout.draw_tile + 0)
    s.apply_action(game.layout.draw_tile + 1)
    order = []
    while not s.is_terminal():
        order.append(s.player)
        s.apply_action(game.layout.END)
    assert order == [0, 1, 0] and s.end_reason == "bag empty"


def test_a_full_world_ends_the_game_after_the_last_turns(tmp_path: Path) -> None:
    """"Die Welt ist vollständig mit Geländeplättchen und Legendären Städten
    gefüllt." """
    game = make_game(tmp_path, TILES, rows=1, cols=2, players=2)
    s = started(game)
    give(s, 0, 0)
    give(s, 1, 1)
    s.apply_action(game.layout.place(0, 0, 0))
    s.apply_action(game.layout.place(1, 1, 0))
    assert s.final_turns == 3
    for _ in range(3):
        s.apply_action(game.layout.END)
    assert s.is_terminal() and s.end_reason == "world full"


def test_the_game_ends_at_once_when_all_players_pass(tmp_path: Path) -> None:
    """"Alle Spieler passen. D. h. kein Spieler kann oder möchte mehr Aktionen
    ausführen." A full round without drawing or laying anything, no last turns."""
    game = make_game(tmp_path, TILES, players=3)
    s = started(game)
    for _ in range(3):
        assert not s.is_terminal()
        s.apply_action(game.layout.END)
    assert s.is_terminal() and s.end_reason == "all passed" and s.legal_actions() == []


def test_hidden_gods_are_dealt_by_chance_and_allow_a_prophet_on_the_first_tile(tmp_path: Path) -> None:
    """"Stattdessen erhält jeder von euch zufällig und verdeckt eine Gottheit
    zugelost ... dürft ihr bereits auf das erste Plättchen ... einen
    Propheten setzen." """
    game = make_game(tmp_path, TILES, gods="hidden")
    s = game.new_initial_state()
    assert s.current_player() == CHANCE and s.phase == "deal"
    for g in (3, 1, 0, 2):
        s.apply_action(game.layout.deal + g)
    s.apply_action(game.layout.start + 0)
    assert s.gods == [[3], [1], [0], [2]] and "god" not in kinds(s)
    give(s, 0, 0)
    s.apply_action(game.layout.place(0, 0, 0))
    assert s.phase == "prophet"


def test_two_players_with_four_gods_take_two_gods_each(tmp_path: Path) -> None:
    """"Jeder von euch wählt im Verlauf der Partie zwei Gottheiten" (10
    Propheten je Gottheit); "Mit nur 2 Göttern": one god, 13 prophets."""
    game = make_game(tmp_path, TILES, players=2)
    s = started(game)
    s.apply_action(game.layout.god + 0)
    s.apply_action(game.layout.god + 3)
    assert s.gods[0] == [0, 3] and s.supply == [10, 0, 0, 10] and "god" not in kinds(s)
    two = make_game(tmp_path, TILES, players=2, two_player_gods=2)
    s2 = started(two)
    s2.apply_action(two.layout.god + 1)
    assert "god" not in kinds(s2) and s2.supply[1] == 13


def test_three_players_have_13_prophets_per_god() -> None:
    """"Legt je 13 Propheten in das Aufbewahrungskästchen jeder Gottheit." """
    assert load_game("four_gods", players=3).prophets_per_god == 13
    assert load_game("four_gods", players=4).prophets_per_god == 10


def test_taking_with_one_tile_in_hand_forces_a_decision_on_the_taken_tile(tmp_path: Path) -> None:
    """"Du nimmst das Plättchen in die freie Hand und musst es entweder sofort
    in die Welt oder in deine eigene Ablagereihe legen": with a tile already
    in the left hand, the choice concerns the right hand's taken tile."""
    game = make_game(tmp_path, TILES)
    s = started(game)
    give(s, 0, 0)
    s.bag.remove(6)
    s.rows[2] = [(6, 0)]
    s._legal = None
    s.apply_action(game.layout.take + 2 * MAX_ROW + 0)
    assert s.hands == [0, 6]
    hands = {game.layout.decode(a)[1][0] for a in s.legal_actions()}
    assert hands == {1}
    s.apply_action(game.layout.reserve + 2 * 1 + 0)
    assert s.hands == [0, None] and s.rows[0] == [(6, 0)]
