"""Greedy's two defects found by the designers' audit (issue 33): a city
waiting for its prophet credited to the Gebirge god, and Lords of Creation's
card choice blind for the first choosers and leaking the others' cards to
the last."""

from __future__ import annotations

import numpy as np

from wdg.games.base import CHANCE, load_game
from wdg.games.bots import greedy_bot, greedy_values, random_bot
from wdg.games.four_gods.scoring import city_points
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.phases import CHOOSE


def test_a_city_without_its_prophet_scores_for_no_god() -> None:
    """4 Gods: "Jeder Spieler erhält 5 GE ... für jede Legendäre Stadt auf der
    ein Prophet seiner Farbe steht" — a city just built, before its prophet is
    set, carries no god; it scored for the last god (Gebirge) through a
    negative list index."""
    assert city_points({12: -1}, {}) == [0, 0, 0, 0]
    assert city_points({12: -1, 13: 2}, {1: 1}) == [0, 5, 5, 0]


def _four_gods_city_choice():
    """A seeded four-greedy 4 Gods game played to the first decision at which
    a player whose god is not Gebirge may build a city."""
    game = load_game("four_gods", players=4)
    rng = np.random.default_rng(3)
    s = game.new_initial_state()
    for _ in range(3000):
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(rng))
            continue
        if s.is_terminal():
            break
        cities = [a for a in s.legal_actions() if s.game.decode(a)[0] == "city"]
        if cities and s.gods[p] and s.gods[p][0] != 3:
            return s, p, cities
        s.apply_action(greedy_bot(s, rng))
    raise AssertionError("no city decision in the seeded game")


def test_greedy_rates_a_city_with_its_prophet_for_its_own_god() -> None:
    """4 Gods: "Du musst einen Propheten deiner Gottheit auf die neu gelegte
    Legendäre Stadt setzen" — building a city and setting its prophet are one
    move, so greedy's value of the city is the completed move's: its own god
    gains the 5 points (the city counted for Gebirge while half-built, so
    only the Gebirge player ever saw a gain in a city)."""
    s, p, cities = _four_gods_city_choice()
    a = cities[0]
    child = s.clone()
    child.apply_action(a)
    assert child.in_compound_action()
    completed = []
    for b in child.legal_actions():
        c = child.clone()
        c.apply_action(b)
        completed.append(c.evaluate(p))
    value = greedy_values(s, [a], p, np.random.default_rng(0))[0]
    assert value == max(completed)
    before = s._scoring()[0]
    after = child._scoring()[0]
    assert after.total(3) == before.total(3)  # Gebirge gains nothing from another's city


def _loc_choice(players: int = 4, seed: int = 5):
    """A Lords of Creation game played by greedy to the last chooser's card
    choice of the first round of cards."""
    game = load_game("lords_of_creation", players=players)
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    for _ in range(5000):
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(rng))
            continue
        if s.phase == CHOOSE and p == players - 1:
            return s
        s.apply_action(random_bot(s, rng))
    raise AssertionError("no card choice reached")


def test_the_last_chooser_does_not_see_the_others_cards() -> None:
    """Lords of Creation 3.2: the cards are laid face down and revealed only
    when all have chosen. Greedy's choice as the last chooser must not depend
    on the cards the others chose: applying its choice would reveal them, so
    it rated its card by the turn order the hidden cards give (it chose its
    lowest card 47 % of the time instead of 30 %)."""
    s = _loc_choice()
    p = s.current_player()
    picks = set()
    values = []
    for trial in range(4):
        t = s.clone()
        t._legal = None
        # deal the hidden choices of the others again: the same hand sizes
        others = t.resample_from_infostate(p, np.random.default_rng(100 + trial))
        assert others.chosen[p] == t.chosen[p]
        acts = others.legal_actions()
        values.append(greedy_values(others, acts, p, np.random.default_rng(7)))
        picks.add(greedy_bot(others, np.random.default_rng(7)))
    assert all(v == values[0] for v in values)
    assert len(picks) == 1


def test_every_chooser_rates_its_cards_not_all_alike() -> None:
    """Lords of Creation 3.2/3.5: a card's value is the number of counters
    placed; greedy rated every card alike for the first choosers (nothing
    changes the score until the reveal) and so chose at random. Now a card is
    judged by its own turn as if it came now, for every seat."""
    game = load_game("lords_of_creation", players=4)
    rng = np.random.default_rng(11)
    s = game.new_initial_state()
    while not (s.phase == CHOOSE and s.current_player() == 0):
        p = s.current_player()
        s.apply_action(s.sample_chance(rng) if p == CHANCE else random_bot(s, rng))
    acts = s.legal_actions()
    assert len(acts) > 1 and all(A.CARD <= a for a in acts)
    values = greedy_values(s, acts, 0, np.random.default_rng(1))
    assert max(values) > min(values)


def _hidden_gods_position():
    """A three-player 4 Gods game with hidden gods, played by greedy until
    prophets and a city stand in the world."""
    game = load_game("four_gods", players=3, gods="hidden")
    rng = np.random.default_rng(8)
    s = game.new_initial_state()
    for _ in range(4000):
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(rng))
            continue
        if len(s.prophets) >= 3 and s.world.cities and s.phase == "main":
            return s
        s.apply_action(greedy_bot(s, rng))
    raise AssertionError("position not reached")


def test_hidden_gods_stay_hidden_in_everything_a_player_sees() -> None:
    """4 Gods, "Verdeckte Götter": "Die Farbe der gewählten Propheten hat in
    diesem Modus nichts mit der Gottheit zu tun ... in diesem Modus bleibt
    bis zum Spielende geheim, wer von euch welche Gottheit verkörpert."
    Two positions that differ only in which god the two other players hold
    look the same to the viewer — observation, board text and SVG name the
    prophets by colour — while the engine still scores by the gods."""
    from wdg.games.four_gods.svg import board_svg
    from wdg.games.four_gods.text import board_text
    from wdg.games.four_gods.tiles import GOD_NAMES
    s = _hidden_gods_position()
    viewer = 0
    a, b = 1, 2
    t = s.clone()
    ga, gb = t.gods[a][0], t.gods[b][0]
    t.gods[a], t.gods[b] = [gb], [ga]
    t.owner[ga], t.owner[gb] = b, a
    # the prophets stand in their player's colour: swap their gods with the players
    t.prophets = {c: ({ga: gb, gb: ga}.get(g, g), where) for c, (g, where) in t.prophets.items()}
    t.world.cities = {c: {ga: gb, gb: ga}.get(g, g) for c, g in t.world.cities.items()}
    t.supply[ga], t.supply[gb] = s.supply[gb], s.supply[ga]
    t._scored = []
    assert s.observation_string(viewer) == t.observation_string(viewer)
    assert board_text(s, viewer) == board_text(t, viewer)
    assert board_svg(s, viewer) == board_svg(t, viewer)
    seen = s.observation_string(viewer) + board_text(s, viewer) + board_svg(s, viewer)
    for q in (a, b):
        assert GOD_NAMES[s.gods[q][0]] not in seen.replace(GOD_NAMES[s.gods[viewer][0]], "")
    assert s.gods[a] == [ga] and t.gods[a] == [gb]


def _hidden_gods_choice():
    """A seeded three-player 4 Gods game with hidden gods, played by greedy
    to the first decision at which greedy reading the true gods would choose
    differently in two deals of the others' gods that the player to move
    cannot tell apart (each of the two with one best move)."""
    rng = np.random.default_rng(1)
    s = load_game("four_gods", players=3, gods="hidden").new_initial_state()
    for _ in range(400):
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(s.sample_chance(rng))
            continue
        acts = s.legal_actions()
        if len(acts) > 1 and s.prophets:
            best = {}
            for v in s.information_set(p):
                vals = greedy_values(v, acts, p, np.random.default_rng(0))
                top = [a for a, x in zip(acts, vals) if x >= max(vals) - 1e-12]
                if len(top) == 1:
                    best.setdefault(top[0], v)
            if len(best) > 1:
                first, second = list(best.values())[:2]
                return p, first, second
        s.apply_action(greedy_bot(s, rng))
    raise AssertionError("no such decision in 400 actions")


def test_greedy_decides_on_the_gods_its_player_knows() -> None:
    """4 Gods, Verdeckte Götter: "Die Farbe der gewählten Propheten hat in
    diesem Modus nichts mit der Gottheit zu tun" — a player sees the
    others' colours, not their gods. Two positions that differ only in the
    gods behind the others' colours look the same to him, and greedy makes
    the same move in both, though judged by the true gods (as greedy did
    until now) the two positions have different best moves: it averages its
    evaluation over every deal of the others' gods he cannot rule out
    (``State.information_set``, the deals the search's determinisations
    draw from)."""
    me, s, t = _hidden_gods_choice()
    assert s.gods[me] == t.gods[me] and s.gods != t.gods
    assert s.observation_string(me) == t.observation_string(me)
    assert (s.observation_tensor(me) == t.observation_tensor(me)).all()
    acts = s.legal_actions()
    assert acts == t.legal_actions()

    def true_best(x):  # greedy as it was: the true gods
        vals = greedy_values(x, acts, me, np.random.default_rng(0))
        return acts[int(np.argmax(vals))]

    assert true_best(s) != true_best(t)
    assert [str(v) for v in s.information_set(me)] == [str(v) for v in t.information_set(me)]
    for seed in range(3):
        assert greedy_bot(s, np.random.default_rng(seed)) == greedy_bot(t, np.random.default_rng(seed))


def test_greedy_with_open_gods_evaluates_the_position_itself() -> None:
    """With open gods every god is known ("Offene Götter"): greedy's only
    position is the one on the table."""
    rng = np.random.default_rng(2)
    s = load_game("four_gods", players=3).new_initial_state()
    while s.current_player() < 0 or not s.gods[s.current_player()]:
        s.apply_action(s.sample_chance(rng) if s.current_player() == CHANCE else greedy_bot(s, rng))
    assert s.information_set(s.current_player()) == [s]
