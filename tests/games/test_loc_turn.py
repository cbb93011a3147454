"""Lords of Creation, a player's turn: placing, moving, attacking (with the
rule book's combat examples), civilising and altars."""

from __future__ import annotations

import pytest

from wdg.games.base import CHANCE, GameError, load_game
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.components import GRASLAND, HUEGEL, INSEL, SEE, WALD
from wdg.games.lords_of_creation.phases import ACT, ADVANCE, CHOOSE, MOVE_COUNT, PLACE
from wdg.games.lords_of_creation.positions import attack, do, hex_at, position

C, E, W, E2 = hex_at(0, 0), hex_at(1, 0), hex_at(-1, 0), hex_at(2, 0)
NW, SO = hex_at(0, -1), hex_at(0, 1)


def game(players: int = 2):
    return load_game("lords_of_creation", players=players)


# ------------------------------------------------------------------ placing

def test_counters_go_into_one_empty_or_own_hex_of_the_cards_terrain() -> None:
    """3.5: "Alle diese Marker müssen in ein einziges Hexfeld gelegt werden,
    welches von demselben Geländetyp ist wie die gespielte Karte ... nie in
    Felder ..., in denen sich Marker eines anderen Spielers befinden"."""
    s = position(game(), {C: HUEGEL, E: HUEGEL, W: HUEGEL, NW: WALD},
                 {E: (1, 1, "b"), W: (0, 2, "b")}, 0, card=(HUEGEL, 4), placing=True)
    assert s.phase == PLACE
    assert s.legal_actions() == sorted([A.hex_action(C), A.hex_action(W)])
    do(s, A.hex_action(W))
    assert (s.owner[W], s.count[W], s.civ[W]) == (0, 6, False)
    assert s.phase == ACT


def test_counters_placed_in_a_civilised_hex_are_civilised() -> None:
    """3.8: "Wenn Menschenmarker in zivilisierte Felder eingesetzt werden,
    geschieht dies mit der zivilisierten Seite"."""
    s = position(game(), {C: WALD}, {C: (0, 2, "z")}, 0, card=(WALD, 3), placing=True)
    do(s, A.hex_action(C))
    assert (s.count[C], s.civ[C]) == (5, True)


def test_placing_is_skipped_when_no_hex_is_free() -> None:
    """3.5: "Falls ein Spieler keine Marker legen kann auf Grund mangelnden
    Platzes ... entfällt diese Aktion. Trotzdem kann der Spieler aber ...
    andere Aktionen ausführen"."""
    s2 = position(game(), {C: INSEL, E: HUEGEL}, {C: (1, 1, "b"), E: (0, 3, "b")}, 0)
    s2.hands[0][15 + 1] = s2.hands[1][0] = 1
    do(s2, A.END, A.CARD + 15 + 1, A.CARD + 0)
    assert s2.current_player() == 1  # player 1's Grasland card finds no Grasland: skipped
    assert s2.phase == ACT


def test_a_short_supply_places_what_is_left() -> None:
    """3.5: "... oder weil es keine Marker mehr gibt" — with fewer counters
    than the card's value, the rest of the supply is placed (our reading)."""
    s = position(game(), {C: GRASLAND}, {}, 0, card=(GRASLAND, 5), placing=True)
    s.supply[0] = 2
    do(s, A.hex_action(C))
    assert s.count[C] == 2 and s.supply[0] == 0


# ------------------------------------------------------------------ moving

def test_a_stack_moves_over_its_own_terrain_and_never_leaves_a_hex_empty() -> None:
    """3.6: "darf aber niemals ein Feld leer zurücklassen" and "die
    Geländeart [darf] nie gewechselt werden"."""
    s = position(game(), {C: WALD, E: WALD, W: GRASLAND}, {C: (0, 3, "b")}, 0)
    do(s, A.MENU_MOVE)
    assert s.legal_actions() == [A.pair(C, E)]
    do(s, A.pair(C, E))
    assert s.phase == MOVE_COUNT
    assert s.legal_actions() == [A.count_action(1), A.count_action(2)]
    do(s, A.count_action(2))
    assert (s.count[C], s.owner[E], s.count[E]) == (1, 0, 2)


def test_a_single_counter_cannot_move() -> None:
    """3.6: moving the only counter would leave its hex empty."""
    s = position(game(), {C: WALD, E: WALD}, {C: (0, 1, "b"), W: (1, 1, "b")}, 0)
    assert A.MENU_MOVE not in s.legal_actions()


def test_islanders_cross_one_sea_hex_to_another_island_only() -> None:
    """3.6: "Inselleute (und nur solche!) können dabei auch über ein Seefeld
    hinwegziehen ... aber nur auf eine andere Insel"."""
    s = position(game(), {C: INSEL, E: SEE, E2: INSEL, W: SEE, hex_at(-2, 0): GRASLAND},
                 {C: (0, 3, "b")}, 0)
    do(s, A.MENU_MOVE)
    assert s.legal_actions() == [A.pair(C, E2)]
    h = position(game(), {C: HUEGEL, E: SEE, E2: HUEGEL}, {C: (0, 3, "b")}, 0)
    assert A.MENU_MOVE not in h.legal_actions()


def test_barbarians_never_move_onto_civilised_hexes_and_civilised_only_onto_own_civilised() -> None:
    """3.6: "Barbaren können nicht auf zivilisierte Felder ziehen,
    zivilisierte Leute nicht auf barbarische Felder" (3.4: "nur auf bereits
    zivilisierte Felder")."""
    s = position(game(), {C: WALD, E: WALD, W: WALD, NW: WALD},
                 {C: (0, 3, "b"), E: (0, 1, "z"), NW: (0, 3, "z")}, 0)
    do(s, A.MENU_MOVE)
    assert s.legal_actions() == [A.pair(C, W)]
    pairs = set(s.legal_actions())
    assert A.pair(C, W) in pairs and A.pair(C, E) not in pairs
    assert A.pair(NW, W) not in pairs  # civilised onto empty
    assert A.pair(NW, C) not in pairs  # civilised onto barbarian


# ------------------------------------------------------------------ attacking

def _duel(a_terrain: int, d_terrain: int, attackers: int = 2, defenders: int = 1):
    return position(game(), {C: a_terrain, E: d_terrain},
                    {C: (0, attackers, "b"), E: (1, defenders, "b")}, 0)


def test_rule_book_first_combat_example() -> None:
    """3.7 Kampfbeispiele 1: two barbarians attack one on the same terrain and
    roll two threes (a hit); the defender's two misses; the double ends the
    turn, so the attacker cannot enter the empty hex."""
    s = _duel(WALD, WALD)
    s.hands[0][0] = s.hands[1][0] = 1  # a further round follows
    attack(s, C, E, 3, 3, 2)
    assert s.owner[E] == -1 and s.count[C] == 2
    assert s.phase == CHOOSE and s.turn_player == -1  # the turn (and round) is over


def test_rule_book_first_combat_example_with_a_defender_four() -> None:
    """3.7 Kampfbeispiele 1: "Hätte der Verteidiger eine vier oder mehr
    gewürfelt, hätte der Angreifer ebenfalls einen Marker verloren"."""
    s = attack(_duel(WALD, WALD), C, E, 3, 3, 4)
    assert s.owner[E] == -1 and s.count[C] == 1 and s.supply[0] == 30 - 2 + 1


def test_rule_book_second_combat_example() -> None:
    """3.7 Kampfbeispiele 2: on another terrain the attacker needs eight;
    3+4 misses, the defender's four misses, the attacker attacks again; 4+5
    eliminates the defender, who rolls a one; no advance onto other terrain."""
    s = attack(_duel(WALD, GRASLAND), C, E, 3, 4, 4)
    assert (s.count[C], s.count[E], s.phase) == (2, 1, ACT)
    attack(s, C, E, 4, 5, 1)
    assert s.owner[E] == -1 and s.count[C] == 2 and s.phase == ACT


@pytest.mark.parametrize(("d", "hit"), [(5, False), (6, True)])
def test_defender_hits_only_above_each_attacker_die(d: int, hit: bool) -> None:
    """3.7: "Der Verteidiger trifft, wenn sein Würfel jeden einzelnen Würfel
    des Angreifers übertrifft" (attacker 4 and 5)."""
    s = attack(_duel(WALD, WALD, attackers=3, defenders=2), C, E, 4, 5, d)
    assert s.count[C] == (2 if hit else 3) and s.count[E] == 1


def test_attacker_must_enter_an_emptied_hex_of_the_same_terrain() -> None:
    """3.7: "Falls der Verteidiger alle Marker ... verliert, muß der Angreifer
    mindestens einen Marker in das leere Feld ziehen"."""
    s = attack(_duel(HUEGEL, HUEGEL, attackers=3), C, E, 2, 5, 1)
    assert s.phase == ADVANCE and A.END not in s.legal_actions()
    assert s.legal_actions() == [A.count_action(1), A.count_action(2)]
    do(s, A.count_action(1))
    assert (s.owner[E], s.count[E], s.count[C], s.phase) == (0, 1, 2, ACT)


def test_no_advance_with_one_counter_left() -> None:
    """3.7: "... außer ... der Angreifer hat nur noch einen Marker übrig"."""
    s = attack(_duel(HUEGEL, HUEGEL), C, E, 1, 5, 6)
    assert s.owner[E] == -1 and s.count[C] == 1 and s.phase != ADVANCE


def test_only_stacks_of_two_barbarians_attack() -> None:
    """3.7: "Nur Barbaren greifen an, und ... mindestens zwei Barbaren"."""
    for attackers, side in ((1, "b"), (3, "z")):
        s = position(game(), {C: WALD, E: WALD}, {C: (0, attackers, side), E: (1, 1, "b")}, 0)
        assert A.MENU_ATTACK not in s.legal_actions()


def test_island_barbarians_attack_across_one_sea_hex_onto_any_terrain() -> None:
    """3.7: "Inselbarbaren können über ein dazwischen liegendes Seefeld hinweg
    angreifen, und zwar auch jedes beliebige Gelände"."""
    s = position(game(), {C: INSEL, E: SEE, E2: GRASLAND}, {C: (0, 2, "b"), E2: (1, 1, "b")}, 0)
    do(s, A.MENU_ATTACK)
    assert s.legal_actions() == [A.pair(C, E2)]
    h = position(game(), {C: HUEGEL, E: SEE, E2: GRASLAND}, {C: (0, 2, "b"), E2: (1, 1, "b")}, 0)
    assert A.MENU_ATTACK not in h.legal_actions()


def test_a_double_ends_the_turn_and_forfeits_the_civilisation() -> None:
    """3.7 / 3.8: "mit einem Pasch endet der Zug sofort, Treffer werden aber
    noch ausgeführt"; "wenn man einen Pasch würfelt, hat man die Chance dazu
    vertan"."""
    g = game()
    s = position(g, {C: WALD, E: WALD, W: WALD}, {C: (0, 3, "b"), E: (1, 2, "b")}, 0)
    s.hands[0][0] = s.hands[1][0] = 1  # a further round follows
    attack(s, C, E, 5, 5, 6)
    assert s.count[E] == 1 and s.count[C] == 2 and s.phase == CHOOSE


# ------------------------------------------------------------- civilising

def test_first_civilisation_anywhere_later_only_next_to_a_civilised_hex() -> None:
    """3.8: "Wenn er dieses das erste Mal tut, kann er jedes beliebige Feld
    ... auswählen. In allen folgenden Zügen ... nur solche Felder ..., die
    benachbart zu bereits mindestens einem zivilisierten Feld sind"."""
    far = hex_at(3, -3)
    pieces = {C: (0, 2, "b"), E2: (1, 1, "z"), far: (1, 1, "b"), hex_at(3, 0): (0, 1, "b")}
    s = position(game(), {C: WALD, E2: WALD, far: WALD, hex_at(3, 0): WALD}, pieces, 0)
    do(s, A.MENU_CIVILISE)
    assert s.legal_actions() == sorted(A.hex_action(h) for h in (C, far, hex_at(3, 0)))
    later = position(game(), {C: WALD, E2: WALD, far: WALD, hex_at(3, 0): WALD}, pieces, 0,
                     ever_civ=(0,))
    do(later, A.MENU_CIVILISE)
    assert later.legal_actions() == [A.hex_action(hex_at(3, 0))]


def test_civilising_once_per_turn_any_owner() -> None:
    """3.8: "Jeder Spieler kann während seines Zuges ein Feld zivilisieren ...
    Man darf durchaus auch Barbaren der anderen Spieler zivilisieren"."""
    s = position(game(), {C: WALD, E: WALD}, {C: (0, 2, "b"), E: (1, 2, "b")}, 0)
    do(s, A.MENU_CIVILISE, A.hex_action(E))
    assert s.civ[E] and s.owner[E] == 1
    assert A.MENU_CIVILISE not in s.legal_actions()
    assert A.MENU_ATTACK in s.legal_actions()  # C may still attack the civilised hex


def test_no_civilisation_across_the_sea() -> None:
    """3.8: "Dabei kann man nicht über ein dazwischen liegendes Seefeld hinweg
    zivilisieren"."""
    s = position(game(), {C: INSEL, E: SEE, E2: INSEL}, {C: (0, 2, "z"), E2: (0, 2, "b")}, 0,
                 ever_civ=(0,))
    assert A.MENU_CIVILISE not in s.legal_actions()


# ------------------------------------------------------------------ altars

def test_an_altar_replaces_the_top_counter_of_a_civilised_hex_once_per_turn() -> None:
    """3.9: "muß er mindestens zwei zivilisierte Leute in dem entsprechenden
    Feld haben. Der oberste Menschenmarker wird ... durch einen Altarmarker
    ersetzt"; one altar per turn."""
    s = position(game(), {C: WALD, E: WALD, W: WALD},
                 {C: (0, 2, "z"), E: (0, 3, "z"), W: (0, 1, "z")}, 0)
    do(s, A.MENU_ALTAR)
    assert s.legal_actions() == sorted([A.hex_action(C), A.hex_action(E)])
    do(s, A.hex_action(C))
    assert s.altar[C] and s.count[C] == 1
    assert A.MENU_ALTAR not in s.legal_actions()
    assert s.scores()[0] == 3 + 2 + 2


def test_the_altar_falls_with_the_last_counter_under_it() -> None:
    """3.9: "Falls alle zivilisierten Marker unter einem Altar durch Kämpfe
    verloren gehen, wird auch der Altar entfernt"."""
    s = position(game(), {C: WALD, E: GRASLAND}, {C: (0, 3, "b"), E: (1, 1, "A")}, 0)
    attack(s, C, E, 4, 5, 1)
    assert not s.altar[E] and s.owner[E] == -1 and not s.civ[E]


def test_illegal_actions_are_refused() -> None:
    """An action not in ``legal_actions`` raises GameError naming it."""
    s = position(game(), {C: WALD}, {C: (0, 1, "b")}, 0)
    with pytest.raises(GameError, match="illegal action 3"):
        s.apply_action(A.MENU_MOVE)
    assert s.current_player() != CHANCE
