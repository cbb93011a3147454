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


def _walk(name: str, players: int, seed: int):  # type: ignore[no-untyped-def]
    """A seeded random game: yields (step, state) before every action."""
    game = load_game(name, players=players)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        yield step, state
        state.apply_action(state.sample_chance(rng) if state.current_player() == CHANCE
                           else random_bot(state, rng))
        step += 1
    yield step, state


@pytest.mark.parametrize(("name", "players"), _cases())
def test_openspiel_parity_observation_information_state_serialisation_undo(name: str, players: int) -> None:
    """OpenSpiel's promises (issue 33, Deliver 6) along a seeded random
    game: a per-player observation tensor of the game's fixed length
    (the documented layout's blocks); an information state with perfect
    recall (what a player saw earlier stays the beginning of what he knows
    later); ``serialize``/``deserialize_state`` give an equal state that
    continues byte for byte as the original; ``undo_action`` takes the last
    action back to an equal state."""
    game = load_game(name, players=players)
    size = game.observation_tensor_size()
    assert size == sum(n for _, n in game.observation_tensor_layout()) and size > 0
    recalled: dict[int, list[str]] = {}
    checks = 0
    for step, state in _walk(name, players, 11):
        for p in range(players) if step % 9 == 0 else ():
            vec = state.observation_tensor(p)
            assert vec.shape == (size,) and vec.dtype == np.float32 and np.isfinite(vec).all()
        if step % 37 == 0 or state.is_terminal():
            for p in range(players):
                info = state.information_state_string(p)
                past = info.split("\n--\n")[0].splitlines()
                assert len(past) == step
                earlier = recalled.get(p, [])
                assert past[:len(earlier)] == earlier, f"player {p} forgot at step {step}"
                recalled[p] = past
                assert info.endswith(state.observation_string(p))
            text = state.serialize()
            again = game.deserialize_state(text)
            assert again == state and again.legal_actions() == state.legal_actions()
            assert again.serialize() == text
            assert again.history() == state.history() and len(state.history()) == step
            if step:
                before = game.deserialize_state(text)
                before.undo_action()
                undone = state.clone()
                undone.undo_action()
                assert undone == before and undone.history() == state.history()[:-1]
                assert undone.legal_actions() == before.legal_actions()
                assert undone.current_player() == before.current_player()
            checks += 1
    assert checks >= 2
    # byte-identical continuation: the original and its deserialised copy,
    # played on with the same generator, make the same game
    mid = next(s.clone() for k, s in _walk(name, players, 12) if k == 40)
    copy = game.deserialize_state(mid.serialize())
    lines = []
    for s in (mid, copy):
        rng = np.random.default_rng(99)
        out = []
        while not s.is_terminal():
            a = s.sample_chance(rng) if s.current_player() == CHANCE else random_bot(s, rng)
            out.append(f"{a} {s.action_to_string(a)}")
            s.apply_action(a)
        out.append(str(s))
        lines.append("\n".join(out).encode())
    assert lines[0] == lines[1]


def test_serialised_states_refuse_bad_text_and_other_games() -> None:
    """Bad serialised text is a one-line :class:`GameError`; a state of one
    game is not taken as another's; the initial state has nothing to undo."""
    from wdg.games.base import GameError, deserialize_state
    lords = load_game("lords_of_creation", players=2)
    s = lords.new_initial_state()
    with pytest.raises(GameError, match="nothing to undo"):
        s.undo_action()
    with pytest.raises(GameError, match="not a serialised game state"):
        deserialize_state("{x")
    with pytest.raises(GameError, match="whole numbers"):
        deserialize_state('{"game": "four_gods", "params": {}, "actions": ["a"]}')
    with pytest.raises(GameError, match="action 0"):
        deserialize_state('{"game": "four_gods", "params": {"players": 2}, "actions": [5]}')
    with pytest.raises(GameError, match="not of"):
        load_game("four_gods", players=2).deserialize_state(s.serialize())
    from wdg.games.lords_of_creation.positions import position
    hand_made = position(lords, {0: 0}, {0: (0, 3, "b")}, 0)
    with pytest.raises(GameError, match="built by hand"):
        hand_made.serialize()
    determinised = s.resample_from_infostate(0, np.random.default_rng(1))
    if determinised is not s:
        with pytest.raises(GameError, match="determinisation"):
            determinised.history()


def test_long_histories_survive_deepcopy_and_pickle() -> None:
    """A finished game's state (hundreds of actions) can be deep-copied and
    pickled (e.g. to a worker) with its history; a determinisation stays one
    without a history."""
    import copy
    import pickle

    from wdg.games.base import GameError, random_playout
    state, actions = random_playout(load_game("empires_of_middle_earth", players=6), 3)
    assert len(actions) > 500
    for other in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert other == state and other.history() == actions
    d = state.resample_from_infostate(0, np.random.default_rng(0))
    for other in (copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
        with pytest.raises(GameError, match="determinisation"):
            other.history()
