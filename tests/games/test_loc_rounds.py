"""Lords of Creation: set-up, the creation phase, the order of a round, the
hands, the end of the game and the worship points."""

from __future__ import annotations

from wdg.games.base import CHANCE, load_game
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.components import (
    GRASLAND, HUEGEL, INSEL, WALD, card_id, load_components,
)
from wdg.games.lords_of_creation.phases import CHOOSE, CREATE, CREATE_PLACE, OVER, PLACE, TIE
from wdg.games.lords_of_creation.positions import do, hex_at, position

C, E, W = hex_at(0, 0), hex_at(1, 0), hex_at(-1, 0)


def _dealt(players: int = 2, **params):
    """A new game after the deal (always the lowest card type) and start player 0."""
    s = load_game("lords_of_creation", players=players, **params).new_initial_state()
    while s.current_player() == CHANCE and s.phase != CREATE:
        s.apply_action(s.legal_actions()[0])
    return s


def test_seven_cards_are_dealt_and_a_start_player_is_rolled() -> None:
    """1./2.: "an jeden Spieler werden sieben Karten ausgeteilt"; "Ein
    Startspieler wird ausgewürfelt"."""
    s = load_game("lords_of_creation", players=3).new_initial_state()
    for _ in range(21):
        s.apply_action(s.legal_actions()[-1])
    assert [sum(h) for h in s.hands] == [7, 7, 7]
    assert s.legal_actions() == [A.PLAYER_CHOSEN + p for p in range(3)]
    s.apply_action(A.PLAYER_CHOSEN + 2)
    assert s.current_player() == 2 and s.phase == CREATE


def test_a_drawn_marker_is_placed_or_kept_and_then_the_next_player_moves() -> None:
    """2.: "zieht ... einen Geländemarker ... und legt ihn ... auf ein
    beliebiges leeres Hexfeld ... anstatt ... behält man ihn einfach. Das
    zählt als Aktion, und der nächste Spieler ist an der Reihe"."""
    s = _dealt()
    do(s, A.DRAW, A.TERRAIN_DRAWN + WALD)
    assert s.phase == CREATE_PLACE and A.KEEP in s.legal_actions()
    do(s, A.KEEP)
    assert s.current_player() == 1 and s.kept[0][WALD] == 1
    do(s, A.DRAW, A.TERRAIN_DRAWN + INSEL, A.hex_action(C))
    assert s.terrain[C] == INSEL and s.current_player() == 0
    assert A.KEPT + WALD * 100 + E in s.legal_actions()  # kept markers may be placed later
    do(s, A.KEPT + WALD * 100 + E)
    assert s.terrain[E] == WALD and s.kept[0][WALD] == 0


def test_at_most_three_markers_are_kept() -> None:
    """2.: "Man darf insgesamt bis zu drei Marker zurückhalten"."""
    s = _dealt()
    for _ in range(3):
        do(s, A.DRAW, A.TERRAIN_DRAWN + HUEGEL, A.KEEP, A.DRAW, A.TERRAIN_DRAWN + HUEGEL,
           A.hex_action(s.terrain.index(-1)))
    do(s, A.DRAW, A.TERRAIN_DRAWN + HUEGEL)
    assert A.KEEP not in s.legal_actions()


def test_the_full_board_ends_creation_and_kept_markers_return_to_the_bag() -> None:
    """2.: "Sobald alle Felder ... belegt sind, endet diese Phase ...
    Zurückgehaltene Marker werden wieder in den Behälter zurückgetan"."""
    s = _dealt(board_radius=2)
    do(s, A.DRAW, A.TERRAIN_DRAWN + WALD, A.KEEP)
    while s.phase != CHOOSE:
        acts = [a for a in s.legal_actions() if a != A.KEEP]
        s.apply_action(acts[0])
    assert -1 not in s.terrain
    assert sum(s.bag) == sum(load_components().terrain_markers) - 19
    assert s.kept[0] == [0] * 7


def _round(cards: list[int], sudden_end: bool = True):
    n = len(cards)
    s = position(load_game("lords_of_creation", players=n, sudden_end=sudden_end),
                 {h: t for h, t in ((C, GRASLAND), (E, HUEGEL), (W, WALD), (hex_at(0, 1), INSEL))},
                 {}, 0)
    for p, c in enumerate(cards):
        s.hands[p][c] += 1
        s.hands[p][card_id(GRASLAND, 5)] += 1
    do(s, A.END)
    return s


def test_cards_are_chosen_face_down_and_the_lowest_card_moves_first() -> None:
    """3.2: "Alle Spieler legen gleichzeitig eine Karte verdeckt ... Der Spieler
    mit der niedrigsten Karte beginnt"; a later chooser's options do not
    depend on the earlier choices."""
    s = _round([card_id(WALD, 4), card_id(HUEGEL, 2), card_id(WALD, 3)])
    options_1 = None
    for p, c in enumerate([card_id(WALD, 4), card_id(HUEGEL, 2), card_id(WALD, 3)]):
        if p == 1:
            options_1 = s.legal_actions()
        do(s, A.CARD + c)
    assert options_1 == sorted([A.CARD + card_id(HUEGEL, 2), A.CARD + card_id(GRASLAND, 5)])
    assert [g for g in s.queue] == [[2], [0]] and s.current_player() == 1


def test_equal_values_are_ordered_insel_huegel_wald_grasland() -> None:
    """3.2: "Bei Gleichstand entscheidet der Geländetyp ... 1. Insel 2. Hügel
    3. Wald 4. Grasland"."""
    cards = [card_id(GRASLAND, 3), card_id(WALD, 3), card_id(HUEGEL, 3), card_id(INSEL, 3)]
    s = _round(cards)
    do(s, *(A.CARD + c for c in cards))
    assert s.current_player() == 3 and s.queue == [[2], [1], [0]]


def test_identical_cards_are_decided_by_the_die_only_when_their_turn_comes() -> None:
    """3.2: "Herrscht dann immer noch Gleichstand, wird gewürfelt ... Alle
    Spieler, die unstrittig vorher an der Reihe sind, beenden erst ihre Züge"."""
    cards = [card_id(WALD, 3), card_id(GRASLAND, 1), card_id(WALD, 3)]
    s = _round(cards, sudden_end=False)
    do(s, *(A.CARD + c for c in cards))
    assert s.current_player() == 1 and s.phase == PLACE
    do(s, A.hex_action(C), A.END)
    assert s.phase == TIE and s.legal_actions() == [A.PLAYER_CHOSEN + 0, A.PLAYER_CHOSEN + 2]
    do(s, A.PLAYER_CHOSEN + 2)
    assert s.current_player() == 2
    do(s, A.hex_action(W), A.END)
    assert s.current_player() == 0  # (the only Wald hex is now player 2's: nothing to place)


def test_hands_are_refilled_only_if_the_deck_suffices_for_all() -> None:
    """3.2: "ziehen alle Spieler eine neue Karte ... Wenn nicht mehr ausreichend
    Karten für alle Spieler vorhanden sind, bekommt niemand eine neue Karte"."""
    s = _round([card_id(WALD, 4), card_id(HUEGEL, 2)])
    s.deck[card_id(INSEL, 1)] = 2
    do(s, A.CARD + card_id(WALD, 4), A.CARD + card_id(HUEGEL, 2))
    assert s.current_player() == CHANCE
    do(s, A.CARD_DRAWN + card_id(INSEL, 1), A.CARD_DRAWN + card_id(INSEL, 1))
    assert [sum(h) for h in s.hands] == [2, 2] and sum(s.deck) == 0
    t = _round([card_id(WALD, 4), card_id(HUEGEL, 2), card_id(WALD, 2)])
    t.deck[card_id(INSEL, 1)] = 2
    do(t, *(A.CARD + c for c in (card_id(WALD, 4), card_id(HUEGEL, 2), card_id(WALD, 2))))
    assert [sum(h) for h in t.hands] == [1, 1, 1] and sum(t.deck) == 0
    assert t.current_player() != CHANCE


def test_identical_cards_with_an_empty_deck_end_the_game_at_once() -> None:
    """4.: "wenn zwei oder mehr Spieler Karten desselben Geländetyps und
    desselben Wertes spielen, aber keine Karten mehr zum Nachziehen vorhanden
    sind"; "Sobald die Karten aufgedeckt werden ..., endet das Spiel"."""
    s = _round([card_id(WALD, 4), card_id(WALD, 4)])
    do(s, A.CARD + card_id(WALD, 4), A.CARD + card_id(WALD, 4))
    assert s.phase == OVER and s.ended_by.startswith("gleiche Karten")


def test_without_the_sudden_end_identical_cards_are_played() -> None:
    """5.1: "Außerdem kann man das zufallsende ignorieren"."""
    s = position(load_game("lords_of_creation", players=2, sudden_end=False), {W: WALD}, {}, 0)
    s.hands[0][card_id(WALD, 4)] = s.hands[1][card_id(WALD, 4)] = 1
    do(s, A.END, A.CARD + card_id(WALD, 4), A.CARD + card_id(WALD, 4))
    assert s.phase == TIE


def test_the_game_ends_when_all_cards_are_played() -> None:
    """4.: "wenn alle Menschenkarten gespielt wurden"."""
    s = _round([card_id(WALD, 4), card_id(HUEGEL, 2)])
    do(s, A.CARD + card_id(WALD, 4), A.CARD + card_id(HUEGEL, 2))
    for _ in range(2):
        do(s, s.legal_actions()[0], A.END)
    do(s, A.CARD + card_id(GRASLAND, 5), A.CARD + card_id(GRASLAND, 5))
    assert s.phase == OVER


def test_full_knowledge_deals_every_card_equally_and_sets_the_rest_aside() -> None:
    """5.1: "Zu Spielbeginn werden all Karten verteilt ... Alle müssen gleich
    viele Karten erhalten, überzählige werden zur Seite gelegt"."""
    s = _dealt(players=3, full_knowledge=True)
    assert [sum(h) for h in s.hands] == [13, 13, 13] and sum(s.deck) == 0


def test_worship_points_and_the_tie_breaks() -> None:
    """4.2: "Jedes Barbarenfeld zählt ... einen Punkt, jedes zivilisierte zwei
    ... Altar drei"; ties by more hexes, then more counters, then a draw."""
    g = load_game("lords_of_creation", players=3)
    s = position(g, {}, {C: (0, 1, "A"), E: (1, 1, "b"), W: (1, 5, "z"),
                         hex_at(2, 0): (2, 2, "b"), hex_at(3, 0): (2, 1, "b"), hex_at(4, 0): (2, 1, "b")},
                 0)
    assert s.scores() == [3.0, 3.0, 3.0]
    do(s, A.END)
    assert s.returns() == [0.0, 0.0, 1.0]  # three hexes beat two and one
    t = position(g, {}, {C: (0, 3, "b"), E: (1, 2, "b"), W: (2, 3, "b")}, 0)
    do(t, A.END)
    assert t.returns() == [0.5, 0.0, 0.5]
