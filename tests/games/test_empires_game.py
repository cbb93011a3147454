"""Empires of Middle-earth against the game API's promises, and its playthrough file."""

from __future__ import annotations


import numpy as np
import pytest

from wdg.games.base import CHANCE, TERMINAL, GameError, load_game, random_action, \
    random_playout

NAME = "empires_of_middle_earth"
ALL_OPTIONS = {"tie_breaks": True, "agents": True, "liberation": True, "shadow_army": True,
               "event_cards": True, "bribe_surcharge": True, "bribe_cap": True,
               "fortifications": True}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seeded_games_end_replay_exactly_and_pay_within_bounds(players: int) -> None:
    """Same seed, same game; the action list replays it; the end has no legal actions."""
    game = load_game(NAME, players=players)
    for seed in (1, 2):
        final, actions = random_playout(game, seed)
        again, actions2 = random_playout(game, seed)
        assert actions == actions2 and str(final) == str(again)
        replay = game.new_initial_state()
        for a in actions:
            replay.apply_action(a)
        assert replay == final and replay.is_terminal()
        assert final.current_player() == TERMINAL and final.legal_actions() == []
        low, high = game.return_bounds()
        assert all(low <= r <= high for r in final.returns())
        assert sum(final.returns()) == pytest.approx(1.0)


def test_every_option_on_plays_to_the_end() -> None:
    """Each optional rule switched on: the games still end and replay."""
    game = load_game(NAME, players=4, **ALL_OPTIONS)
    for seed in range(6):
        final, actions = random_playout(game, seed)
        replay = game.new_initial_state()
        for a in actions:
            replay.apply_action(a)
        assert replay == final


def test_clones_are_independent_and_actions_are_sorted_and_unique() -> None:
    """A clone equals its original and does not change with it; chance outcomes sum to 1."""
    game = load_game(NAME, players=4, **ALL_OPTIONS)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        acts = state.legal_actions()
        assert acts == sorted(set(acts)) and acts
        if state.current_player() == CHANCE:
            assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
        names = [state.action_to_string(a) for a in acts]
        assert len(set(names)) == len(names)
        if step % 7 == 0:
            copy = state.clone()
            assert copy == state
            before = str(state)
            copy.apply_action(acts[-1])
            assert str(state) == before
        state.apply_action(random_action(state, rng))
        step += 1


def test_an_illegal_action_is_refused() -> None:
    """apply_action raises GameError for an action not in legal_actions."""
    state = load_game(NAME, players=3).new_initial_state()
    with pytest.raises(GameError, match="not legal"):
        state.apply_action(7)


def test_unknown_parameters_and_bad_switches_are_refused() -> None:
    """Parameters are checked when the game is made."""
    with pytest.raises(GameError):
        load_game(NAME, players=7)
    with pytest.raises(GameError, match="fortifications"):
        load_game(NAME, fortifications="yes")
