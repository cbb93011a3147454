"""Lords of Creation: rules of the rule book (and the short rules) that
``test_loc_turn.py`` and ``test_loc_rounds.py`` do not yet show (the audit in
``docs/games-rules-coverage.md``)."""

from __future__ import annotations

from wdg.games.base import CHANCE, load_game
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.components import (
    BERGE, GRASLAND, HABITABLE, HUEGEL, INSEL, SEE, WALD, WUESTE, card_id, card_terrain,
    load_components,
)
from wdg.games.lords_of_creation.phases import ACT, ADVANCE, ATTACK_PAIR, CHOOSE, CREATE, OVER, REFILL
from wdg.games.lords_of_creation.positions import attack, do, hex_at, move, position

C, E, W, E2, E3 = hex_at(0, 0), hex_at(1, 0), hex_at(-1, 0), hex_at(2, 0), hex_at(3, 0)
NW, SO = hex_at(0, -1), hex_at(0, 1)


def game(players: int = 2, **params):
    return load_game("lords_of_creation", players=players, **params)


# ------------------------------------------------------------ 2. creation

def test_a_drawn_marker_goes_only_onto_an_empty_hex() -> None:
    """2.: "legt ihn irgendwo auf das Spielfeld, auf ein beliebiges leeres
    Hexfeld"."""
    s = load_game("lords_of_creation", players=2, board_radius=2).new_initial_state()
    while s.current_player() == CHANCE and s.phase != CREATE:
        s.apply_action(s.legal_actions()[0])
    do(s, A.DRAW, A.TERRAIN_DRAWN + WALD, A.hex_action(0))
    do(s, A.DRAW, A.TERRAIN_DRAWN + SEE)
    hexes = [a - A.HEX for a in s.legal_actions() if a != A.KEEP]
    assert 0 not in hexes and len(hexes) == s.size - 1


# --------------------------------------------------- 3.1, 3.2 terrain, cards

def test_people_cards_show_only_habitable_terrain_so_people_never_live_on_see_berge_wueste() -> None:
    """3.1: "Drei Geländetypen sind nicht bewohnbar: See, Berge, Wüste. Auf
    diese Geländetypen dürfen nie Menschenmarker gelegt werden"; 1.: "Die zwei
    identischen Stapel Menschenkarten" (every card twice)."""
    deck = load_components().deck
    assert {card_terrain(c) for c, k in enumerate(deck) if k} == set(HABITABLE)
    assert set(deck) == {2}
    s = position(game(), {C: WALD, E: SEE, W: BERGE, NW: WUESTE}, {}, 0, card=(WALD, 2),
                 placing=True, fill=SEE)
    assert s.legal_actions() == [A.hex_action(C)]


def test_identical_cards_do_not_end_the_game_while_the_deck_can_refill() -> None:
    """4.: the sudden end needs identical cards "aber keine Karten mehr zum
    Nachziehen vorhanden sind"; with cards for everyone the hands are refilled."""
    s = position(game(), {W: WALD}, {}, 0)
    s.hands[0][card_id(WALD, 4)] = s.hands[1][card_id(WALD, 4)] = 1
    s.deck[card_id(INSEL, 1)] = 2
    do(s, A.END, A.CARD + card_id(WALD, 4), A.CARD + card_id(WALD, 4))
    assert s.phase == REFILL and s.current_player() == CHANCE


# ------------------------------------------------------------ 3.3 the turn

def test_placing_comes_first_before_any_other_action() -> None:
    """3.3: "Man muß auf jeden Fall immer zuerst die Menschencounter plazieren,
    danach kann man die anderen Aktionen ... ausführen"."""
    s = position(game(), {C: WALD, E: WALD}, {E: (0, 3, "b"), W: (1, 2, "b")}, 0,
                 card=(WALD, 2), placing=True)
    assert all(A.HEX <= a < A.PAIR for a in s.legal_actions())
    assert A.END not in s.legal_actions() and A.MENU_MOVE not in s.legal_actions()
    do(s, A.hex_action(C))
    assert s.phase == ACT and {A.END, A.MENU_MOVE, A.MENU_ATTACK} <= set(s.legal_actions())


def test_the_turn_ends_by_itself_when_no_action_is_left() -> None:
    """3.3: "Der Zug eines Spielers ist erst dann beendet, wenn er ... keine
    Aktionen mehr zur Verfügung hat" — the engine ends it at once."""
    s = position(game(), {C: WALD}, {}, 0, card=(WALD, 1), placing=True, ever_civ=(0, 1))
    s.hands[0][0] = s.hands[1][0] = 1  # a further round follows
    do(s, A.hex_action(C))
    assert s.phase == CHOOSE and s.turn_player == -1


# ------------------------------------------------------------ 3.6 moving

def test_a_stack_moves_any_distance_step_by_step() -> None:
    """3.6: "Ein Stapel Menschencounter kann sich prinzipiell beliebig weit
    bewegen (auf gleichem Gelände), darf aber niemals ein Feld leer
    zurücklassen" — a string of steps, one counter left on each hex."""
    s = position(game(), {C: WALD, E: WALD, E2: WALD, E3: WALD}, {C: (0, 4, "b")}, 0)
    move(s, C, E, 3)
    move(s, E, E2, 2)
    move(s, E2, E3, 1)
    assert [s.count[h] for h in (C, E, E2, E3)] == [1, 1, 1, 1]
    assert all(s.owner[h] == 0 for h in (C, E, E2, E3))


# ------------------------------------------------------------ 3.7 attacking

def test_only_hexes_of_other_players_are_attacked() -> None:
    """3.7: attacks go against the counters of another player ("Jeder Treffer
    bedeutet für den Gegner den Verlust eines Menschencounters"); entering an
    empty or an own hex is a move."""
    s = position(game(), {C: WALD, E: WALD, W: WALD, NW: GRASLAND},
                 {C: (0, 3, "b"), E: (0, 1, "b"), NW: (1, 1, "z")}, 0)
    do(s, A.MENU_ATTACK)
    assert s.phase == ATTACK_PAIR and s.legal_actions() == [A.pair(C, NW)]


def test_civilised_people_are_attacked_and_defend_like_barbarians() -> None:
    """3.4 / 3.8: "Barbaren und Zivilisierte verteidigen sich auf die gleiche
    Weise"; "Zivilisierte werden genauso wie Barbaren angegriffen": six on the
    same terrain hits, the defender hits above each attacker die."""
    s = position(game(), {C: WALD, E: WALD}, {C: (0, 3, "b"), E: (1, 3, "z")}, 0)
    attack(s, C, E, 2, 4, 5)
    assert (s.count[C], s.count[E], s.civ[E]) == (2, 2, True)
    u = position(game(), {C: WALD, E: WALD}, {C: (0, 3, "b"), E: (1, 3, "z")}, 0)
    attack(u, C, E, 1, 4, 4)  # five misses; four is not above the attacker's four
    assert (u.count[C], u.count[E]) == (3, 3)


def test_attacks_are_unlimited_and_an_advanced_stack_attacks_again() -> None:
    """3.7: "Der angreifende Spieler darf soviel Angriffe machen, wie er will";
    short rules: "Nach Angriff einmarschierte Barbarians können erneut
    angreifen, einmarschieren usw.!"."""
    s = position(game(), {C: HUEGEL, E: HUEGEL, E2: HUEGEL},
                 {C: (0, 4, "b"), E: (1, 1, "b"), E2: (1, 1, "b")}, 0)
    attack(s, C, E, 2, 5, 1)
    assert s.phase == ADVANCE
    do(s, A.count_action(3))
    do(s, A.MENU_ATTACK)
    assert A.pair(E, E2) in s.legal_actions()
    do(s, A.pair(E, E2), A.dice_action(2, 5, 1))
    do(s, A.count_action(1))
    assert [s.owner[h] for h in (C, E, E2)] == [0, 0, 0] and s.phase == ACT


def test_islanders_advance_across_the_sea_into_an_emptied_island() -> None:
    """3.7: the attacker must enter the emptied hex of the same terrain; short
    rules: "falls unter Beachtung der normalen Bewegungsregeln möglich" — for
    Inselleute across one See hex."""
    s = position(game(), {C: INSEL, E: SEE, E2: INSEL}, {C: (0, 3, "b"), E2: (1, 1, "b")}, 0)
    attack(s, C, E2, 3, 4, 1)
    assert s.phase == ADVANCE
    do(s, A.count_action(2))
    assert (s.owner[E2], s.count[E2], s.count[C]) == (0, 2, 1)


def test_eliminated_counters_return_to_the_supply_and_come_back_as_barbarians() -> None:
    """3.7: "Solcherart eliminierte Marker erhalten die Spieler zurück in ihren
    Vorrat"; 3.8: "eliminierte Marker kehren allerdings als Barbaren wieder
    ins Spiel zurück"."""
    s = position(game(), {C: WALD, E: GRASLAND}, {C: (0, 3, "b"), E: (1, 1, "z")}, 0)
    s.hands[0][card_id(WALD, 2)] = s.hands[1][card_id(GRASLAND, 1)] = 1
    before = s.supply[1]
    attack(s, C, E, 4, 5, 1)
    assert s.owner[E] == -1 and s.supply[1] == before + 1
    do(s, A.END, A.CARD + card_id(WALD, 2), A.CARD + card_id(GRASLAND, 1))
    assert s.turn_player == 1  # the lower card moves first
    do(s, A.hex_action(E))
    assert s.owner[E] == 1 and s.count[E] == 1 and not s.civ[E]


# ------------------------------------------------------- 3.8, 3.9 civilising, altars

def test_civilising_next_to_a_civilised_hex_ignores_its_terrain_and_colour() -> None:
    """3.8: "Bei der Zivilisation eines benachbarten Feldes spielen die
    Geländeart und die Farbe der Leute keinerlei Rolle"."""
    far = hex_at(-3, 3)
    s = position(game(), {C: GRASLAND, E: HUEGEL, far: GRASLAND},
                 {C: (0, 2, "b"), E: (1, 1, "z"), far: (1, 2, "b")}, 0, ever_civ=(0,))
    do(s, A.MENU_CIVILISE)
    assert s.legal_actions() == [A.hex_action(C)]
    do(s, A.hex_action(C))
    assert s.civ[C] and s.count[C] == 2  # every barbarian in the hex turned


def test_a_hex_may_be_civilised_and_given_an_altar_in_the_same_turn() -> None:
    """Short rules: "Ziv. Hex: 2 Worship Points, dort kann Altar gebaut werden
    (auch noch im gleichen Zug)"."""
    s = position(game(), {C: WALD}, {C: (0, 3, "b")}, 0)
    do(s, A.MENU_CIVILISE, A.hex_action(C))
    assert A.MENU_ALTAR in s.legal_actions()
    do(s, A.MENU_ALTAR, A.hex_action(C))
    assert s.altar[C] and s.count[C] == 2 and s.scores()[0] == 3.0


def test_an_altar_is_not_destroyed_by_a_hit_while_people_remain_under_it() -> None:
    """3.9: "Der Altar selbst kann aber nicht durch einen Treffer zerstört
    werden"; a hit takes a counter."""
    s = position(game(), {C: WALD, E: GRASLAND}, {C: (0, 3, "b"), E: (1, 2, "A")}, 0)
    attack(s, C, E, 4, 5, 1)
    assert (s.altar[E], s.count[E], s.owner[E]) == (True, 1, 1)
    assert s.scores()[1] == 3.0


def test_with_full_knowledge_the_end_by_identical_cards_waits_for_the_last_seven_cards() -> None:
    """5.1: "Will man das mögliche Zufallsende beibehalten, muß man unbedingt
    genau darauf achten, sobald alle Spieler ihre letzten sieben Karten auf
    der Hand haben" and 4.: identical cards end the game only when nothing is
    left to draw, "d. h. alle Spieler haben ihre letzten sieben Karten auf
    der Hand". With every card dealt at the start, two identical cards at the
    first reveal (twenty cards in each hand) do not end the game; with seven
    cards in every hand they do — unless the sudden end is switched off."""
    for sudden in (True, False):
        s = game(full_knowledge=True, sudden_end=sudden, board_radius=2).new_initial_state()
        while s.phase != CHOOSE:  # the deal gives both players the same cards
            acts = [a for a in s.legal_actions() if a != A.KEEP]
            s.apply_action(acts[0])
        assert s.round == 1 and s.hands[0] == s.hands[1] and sum(s.hands[0]) > 7
        late = s.clone()
        c = s.legal_actions()[0]
        do(s, c, c)
        assert s.phase != OVER  # far more than seven cards in hand: the game goes on
        for p in (0, 1):  # the same position with the last seven cards in every hand
            while sum(late.hands[p]) > 7:
                k = max(range(len(late.hands[p])), key=lambda x: late.hands[p][x])
                late.hands[p][k] -= 1
        late.forget_legal()
        assert late.hands[0] == late.hands[1]
        c = late.legal_actions()[0]
        do(late, c, c)
        assert (late.phase == OVER) == sudden
