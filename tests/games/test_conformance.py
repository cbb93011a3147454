"""The framework's promises, for every registered game and player count:
clone equals original, records round-trip and replay to the same returns,
terminal states have no legal actions, returns lie within bounds, the same
seed gives the same game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wdg.games.base import CHANCE, load_game, registered_games
from wdg.games.bots import random_bot
from wdg.games.records import load_record, play, replay

SEEDS = range(3)


def _cases() -> list[tuple[str, int]]:
    cases = []
    for name in registered_games():
        game = load_game(name)
        cases.extend((name, n) for n in range(game.min_players, game.max_players + 1))
    return cases


@pytest.mark.parametrize(("name", "players"), _cases())
def test_random_games_keep_the_framework_promises(name: str, players: int, tmp_path: Path) -> None:
    """Seeded random games: legal actions sorted and unique, chance
    probabilities sum to one, clones equal and independent, terminal states
    without actions, returns in bounds, records round-trip and replay."""
    game = load_game(name, players=players)
    lo, hi = game.return_bounds()
    for seed in SEEDS:
        state, record = play(game, ["random"] * players, seed)
        assert state.is_terminal() and state.legal_actions() == []
        assert all(lo <= r <= hi for r in state.returns())
        path = tmp_path / f"{seed}.yaml"
        record.write(path)
        again = load_record(path)
        assert again.actions == record.actions
        assert replay(again).returns() == state.returns()
        _, second = play(game, ["random"] * players, seed)
        assert second.actions == record.actions


@pytest.mark.parametrize(("name", "players"), _cases())
def test_clone_equals_original_and_is_independent(name: str, players: int) -> None:
    """A clone prints and acts like the original; changing it leaves the original alone."""
    game = load_game(name, players=players)
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        acts = state.legal_actions()
        assert acts == sorted(set(acts)) and acts
        if state.current_player() == CHANCE:
            assert abs(sum(p for _, p in state.chance_outcomes()) - 1.0) < 1e-9
            a = state.sample_chance(rng)
        else:
            a = random_bot(state, rng)
        if step % 7 == 0:
            c = state.clone()
            assert c == state and str(c) == str(state) and c.legal_actions() == acts
            before = str(state)
            c.apply_action(a)
            assert str(state) == before
        state.apply_action(a)
        step += 1


@pytest.mark.parametrize("name", registered_games())
def test_greedy_bot_finishes_a_game(name: str) -> None:
    """The generic greedy bot plays every game to its end."""
    game = load_game(name)
    state, _ = play(game, ["greedy"] + ["random"] * (game.num_players - 1), 3)
    assert state.is_terminal()
