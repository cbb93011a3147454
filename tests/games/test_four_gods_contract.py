"""4 Gods keeps the game framework's contract (seeded random playouts), and
a playthrough file guards against regressions."""

from __future__ import annotations


import numpy as np
import pytest

from wdg.games.base import CHANCE, GameError, load_game, random_action, random_playout

VARIANTS = [
    {"players": 4},
    {"players": 3},
    {"players": 2},
    {"players": 2, "two_player_gods": 2, "gods": "hidden"},
    {"players": 4, "gods": "hidden"},
]


@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_random_games_end_with_returns_in_bounds_and_replay_exactly(params: dict) -> None:
    """Same seed, same game; the action list replays to the same end; a
    terminal state has no legal actions; returns lie within the bounds and
    sum to one (win 1, shared win 1/k)."""
    game = load_game("four_gods", **params)
    for seed in range(3):
        end, actions = random_playout(game, seed)
        again, actions2 = random_playout(game, seed)
        assert actions == actions2 and str(end) == str(again)
        assert end.is_terminal() and end.legal_actions() == []
        lo, hi = game.return_bounds()
        assert all(lo <= r <= hi for r in end.returns()) and sum(end.returns()) == pytest.approx(1.0)
        replay = game.new_initial_state()
        for a in actions:
            replay.apply_action(a)
        assert replay == end and replay.scores() == end.scores()


def test_a_clone_is_equal_and_independent() -> None:
    """Acting on a clone leaves the original untouched."""
    game = load_game("four_gods", players=4)
    rng = np.random.default_rng(7)
    s = game.new_initial_state()
    for _ in range(120):
        s.apply_action(random_action(s, rng))
    before = str(s)
    c = s.clone()
    assert c == s
    while not c.is_terminal():
        c.apply_action(random_action(c, rng))
    assert str(s) == before and not s.is_terminal()


def test_every_legal_action_has_a_unique_name() -> None:
    """``action_to_string`` is readable and unique within a state."""
    game = load_game("four_gods", players=3)
    rng = np.random.default_rng(3)
    s = game.new_initial_state()
    for _ in range(200):
        if s.is_terminal():
            break
        if s.current_player() != CHANCE:
            names = [s.action_to_string(a) for a in s.legal_actions()]
            assert len(set(names)) == len(names)
        s.apply_action(random_action(s, rng))


def test_an_illegal_action_is_refused_with_a_game_error() -> None:
    """Actions outside ``legal_actions`` raise :class:`GameError`."""
    s = load_game("four_gods").new_initial_state()
    with pytest.raises(GameError, match="illegal action 999999"):
        s.apply_action(999_999)


def test_bad_parameters_are_refused() -> None:
    """Unknown modes are errors that quote the value."""
    with pytest.raises(GameError, match="'secret'"):
        load_game("four_gods", gods="secret")
    with pytest.raises(GameError, match="5"):
        load_game("four_gods", players=5)
