"""Bots: a bot is a function ``(state, rng) -> action`` for the player to move.

``random`` picks uniformly among the legal actions; ``greedy`` looks one move
ahead and takes the action whose result :meth:`State.evaluate` rates best for
itself (ties broken by the generator). Where a game splits one move into
sub-decisions (:meth:`State.in_compound_action`), greedy looks through them
to the completed move. Both work for every registered game.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from wdg.games.base import CHANCE, GameError, State

Bot = Callable[[State, np.random.Generator], int]

COMPOUND_DEPTH_LIMIT = 6
"""Sub-decisions greedy follows within one compound move at most."""


def random_bot(state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal action."""
    acts = state.legal_actions()
    return acts[int(rng.integers(len(acts)))]


def greedy_bot(state: State, rng: np.random.Generator) -> int:
    """The action with the best one-move-ahead evaluation; ties by ``rng``."""
    player = state.current_player()
    acts = state.legal_actions()
    if len(acts) == 1:
        return acts[0]
    values = [_value_after(state, a, player, 0) for a in acts]
    best = max(values)
    ties = [a for a, v in zip(acts, values) if v >= best - 1e-12]
    return ties[int(rng.integers(len(ties)))]


def _value_after(state: State, action: int, player: int, depth: int) -> float:
    child = state.clone()
    child.apply_action(action)
    if (depth < COMPOUND_DEPTH_LIMIT and child.current_player() == player
            and child.in_compound_action()):
        acts = child.legal_actions()
        if acts:
            return max(_value_after(child, a, player, depth + 1) for a in acts)
    return child.evaluate(player)


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}


def get_bot(name: str) -> Bot:
    """The bot called ``name``."""
    try:
        return BOTS[name]
    except KeyError:
        raise GameError(f"unknown bot {name!r}; expected one of {sorted(BOTS)!r}") from None


def parse_bots(spec: str, players: int) -> list[str]:
    """``"random,greedy"`` for ``players`` seats: the list repeated cyclically
    (a single name fills every seat)."""
    names = [x.strip() for x in spec.split(",") if x.strip()]
    if not names:
        raise GameError(f"no bot names in {spec!r}; expected e.g. 'random,greedy'")
    if len(names) > players:
        raise GameError(f"{len(names)} bots {names!r} for {players} players; expected at most {players}")
    for name in names:
        get_bot(name)
    return [names[i % len(names)] for i in range(players)]


def choose(state: State, bot: Bot, rng: np.random.Generator) -> int:
    """The next action: a chance outcome sampled from ``rng`` or the bot's choice."""
    if state.current_player() == CHANCE:
        return state.sample_chance(rng)
    return bot(state, rng)
