"""Bots: a bot is a callable ``(state, rng) -> action`` for the player to move.

- ``random`` picks uniformly among the legal actions.
- ``greedy`` looks one move ahead and takes the action whose result
  :meth:`State.evaluate` rates best for itself (ties broken by the
  generator), on the position as its player sees it
  (:meth:`State.greedy_view`: Empires' hidden cards at their expected
  worth, a card drawn from the deck from the cards he cannot see) and
  averaged over the positions it cannot tell apart where the game lists
  them (:meth:`State.information_set`: 4 Gods' hidden gods).
  Where a game splits one move into sub-decisions
  (:meth:`State.in_compound_action`), greedy looks through them to the
  completed move. A choice made face down while the others choose too
  (:meth:`State.choice_preview`) is rated by its best use in the player's
  own turn as if it came now — never by applying it, which would let the
  last chooser see the others' cards at the reveal. Where it is blind — every action rates the same — it looks
  one decision further: after each action (a large chance node is sampled a
  few times) it takes the best of its own next decision, so "draw a card"
  is worth what the best use of a likely card is worth.
- ``mcts`` / ``mcts:N`` is an information-set Monte-Carlo tree search
  (:mod:`wdg.games.ismcts`) with a budget of ``N`` simulations per decision
  (default :data:`MCTS_DEFAULT_BUDGET`). It only ever searches
  determinisations drawn by :meth:`State.resample_from_infostate`, so it
  cannot read hidden hands.
- ``human`` asks at the terminal (:mod:`wdg.games.human`).

A bot may have a method ``inform(state, player, action)``; the game loop calls
it before every action is applied (the human player uses it to show what
happened since his last decision).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from wdg.games.base import CHANCE, GameError, State

Bot = Callable[[State, np.random.Generator], int]

COMPOUND_DEPTH_LIMIT = 6
"""Sub-decisions greedy follows within one compound move at most."""
LOOKAHEAD_SAMPLES = 2
"""Chance outcomes greedy samples at a large chance node when it looks ahead."""
LOOKAHEAD_ACTIONS = 24
"""Greedy's second look considers at most this many actions per branch."""
MCTS_DEFAULT_BUDGET = 100
"""Simulations per decision of ``mcts`` without a budget."""


def random_bot(state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal action (one uniform number from ``rng``)."""
    acts = state.legal_actions()
    return acts[min(len(acts) - 1, int(rng.random() * len(acts)))]


def greedy_bot(state: State, rng: np.random.Generator) -> int:
    """The action with the best one-move-ahead evaluation; where all rate the
    same, the best with one more own decision; remaining ties by ``rng``.
    Greedy judges the position as its player sees it
    (:meth:`State.greedy_view`: Empires counts the cards he cannot see at
    their expected worth) and averages over :meth:`State.information_set`
    (4 Gods' hidden gods: every deal of the others' gods), so it decides on
    what its player can know."""
    player = state.current_player()
    if len(state.legal_actions()) == 1:
        return state.legal_actions()[0]
    return greedy_on(state.greedy_view(player), rng)


def greedy_on(state: State, rng: np.random.Generator) -> int:
    """:func:`greedy_bot`'s choice on ``state`` as it is (its
    :meth:`State.information_set`, no :meth:`State.greedy_view`): the search
    uses it on a determinisation, where every card lies in a known place."""
    player = state.current_player()
    acts = state.legal_actions()
    if len(acts) == 1:
        return acts[0]
    views = state.information_set(player)
    if len(views) == 1:
        values = greedy_values(views[0], acts, player, rng)
    else:
        values = expected_greedy_values(views, acts, player, rng)
    best = max(values)
    ties = [a for a, v in zip(acts, values) if v >= best - 1e-12]
    return ties[int(rng.integers(len(ties)))]


def greedy_values(state: State, acts: list[int], player: int, rng: np.random.Generator) -> list[float]:
    """Greedy's value of each action: one move ahead (through compound
    moves); where all are equal, with ``player``'s best next decision."""
    values, previews = _first_values(state, acts, player, rng)
    if min(values) >= max(values) - 1e-12:  # blind: one more own decision
        values = _blind_values(state, acts, player, rng, previews)
    return values


def expected_greedy_values(views: list[State], acts: list[int], player: int,
                           rng: np.random.Generator) -> list[float]:
    """:func:`greedy_values` averaged over equally likely ``views`` (the
    positions ``player`` cannot tell apart, :meth:`State.information_set`):
    the mean of the one-move values; where that mean rates every action the
    same, the mean of the values with his best next decision."""
    n = len(views)
    first = [_first_values(v, acts, player, rng) for v in views]
    values = [sum(f[0][i] for f in first) / n for i in range(len(acts))]
    if min(values) >= max(values) - 1e-12:  # blind: one more own decision
        more = [_blind_values(v, acts, player, rng, f[1]) for v, f in zip(views, first)]
        values = [sum(m[i] for m in more) / n for i in range(len(acts))]
    return values


def _first_values(state: State, acts: list[int], player: int, rng: np.random.Generator
                  ) -> tuple[list[float], list[State] | None]:
    """The one-move values, and the previews of a face-down choice (judged
    by their best use, :meth:`State.choice_preview`) or ``None``."""
    previews = [state.choice_preview(a) for a in acts]
    if previews[0] is not None:
        shown = [s for s in previews if s is not None]
        return [_best_next(s, player, rng) for s in shown], shown
    return [value_after(state, a, player, 0) for a in acts], None


def _blind_values(state: State, acts: list[int], player: int, rng: np.random.Generator,
                  previews: list[State] | None) -> list[float]:
    """The values with ``player``'s best next decision (two for a face-down
    choice), for when the one-move values are all equal."""
    if previews is not None:
        return [_best_two(s, player, rng) for s in previews]
    return [_second_look(state, a, player, rng) for a in acts]


def one_move_values(state: State, acts: list[int], player: int) -> list[float]:
    """Greedy's one-move value of each action (through compound moves; a
    face-down choice by its preview, :meth:`State.choice_preview`)."""
    out = []
    for a in acts:
        preview = state.choice_preview(a)
        out.append(value_after(state, a, player, 0) if preview is None else preview.evaluate(player))
    return out


def value_after(state: State, action: int, player: int, depth: int,
                 by_search: bool = False) -> float:
    """``player``'s value after ``action``, through a compound move to its best
    completion: :meth:`State.evaluate` (greedy), or with ``by_search``
    :meth:`State.search_value` (the search's ranking)."""
    child = state.clone()
    child.apply_action(action)
    if (depth < COMPOUND_DEPTH_LIMIT and child.current_player() == player
            and child.in_compound_action()):
        acts = child.legal_actions()
        if acts:
            return max(value_after(child, a, player, depth + 1, by_search) for a in acts)
    return child.search_value(player) if by_search else child.evaluate(player)


def _second_look(state: State, action: int, player: int, rng: np.random.Generator) -> float:
    """The value of ``action`` followed by ``player``'s best next decision
    (after a few sampled chance outcomes, when chance comes first)."""
    child = state.clone()
    child.apply_action(action)
    if child.current_player() == CHANCE:
        total = 0.0
        for _ in range(LOOKAHEAD_SAMPLES):
            s = child.clone()
            s.apply_action(s.sample_chance(rng))
            total += _best_next(s, player, rng)
        return total / LOOKAHEAD_SAMPLES
    return _best_next(child, player, rng)


def _best_next(state: State, player: int, rng: np.random.Generator) -> float:
    if state.current_player() != player:
        return state.evaluate(player)
    acts = state.legal_actions()
    if len(acts) > LOOKAHEAD_ACTIONS:
        acts = [acts[int(i)] for i in rng.choice(len(acts), LOOKAHEAD_ACTIONS, replace=False)]
    return max(value_after(state, a, player, 0) for a in acts)


def _best_two(state: State, player: int, rng: np.random.Generator) -> float:
    """``player``'s best value over two own decisions from ``state`` (his
    best next decision, then his best one after it)."""
    if state.current_player() != player:
        return state.evaluate(player)
    acts = state.legal_actions()
    if len(acts) > LOOKAHEAD_ACTIONS:
        acts = [acts[int(i)] for i in rng.choice(len(acts), LOOKAHEAD_ACTIONS, replace=False)]
    best = -float("inf")
    for a in acts:
        child = state.clone()
        child.apply_action(a)
        best = max(best, _best_next(child, player, rng) if child.current_player() == player
                   else child.evaluate(player))
    return best


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
BOT_NAMES = ("random", "greedy", "mcts", "mcts:N", "human")
"""What ``--bots`` accepts."""


def get_bot(name: str) -> Bot:
    """The bot called ``name`` (``random``, ``greedy``, ``mcts``, ``mcts:N``, ``human``).
    Stateful bots (``mcts``, ``human``) are made fresh for every call."""
    if name in BOTS:
        return BOTS[name]
    base, sep, arg = name.partition(":")
    if base == "mcts":
        budget = MCTS_DEFAULT_BUDGET
        if sep:
            try:
                budget = int(arg)
            except ValueError:
                budget = 0
            if budget < 1:
                raise GameError(f"Bot {name!r} ungültig: nach 'mcts:' steht die Zahl der "
                                f"Simulationen, eine ganze Zahl ab 1, z. B. mcts:200")
        from wdg.games.ismcts import ISMCTSBot  # here, not at the top: wdg.games.ismcts imports this module
        return ISMCTSBot(budget)
    if name == "human":
        from wdg.games.human import HumanPlayer  # here, not at the top: wdg.games.human imports this module
        return HumanPlayer()
    raise GameError(f"unbekannter Bot {name!r}; erwartet einer von {', '.join(BOT_NAMES)}")


def parse_bots(spec: str, players: int) -> list[str]:
    """``"random,greedy"`` for ``players`` seats: the list repeated cyclically
    (a single name fills every seat)."""
    names = [x.strip() for x in spec.split(",") if x.strip()]
    if not names:
        raise GameError(f"keine Bot-Namen in {spec!r}; erwartet z. B. 'random,greedy'")
    if len(names) > players:
        raise GameError(f"{len(names)} Bots {names!r} für {players} Spieler; erwartet höchstens {players}")
    for name in names:
        if name != "human":
            get_bot(name)
    return [names[i % len(names)] for i in range(players)]


def choose(state: State, bot: Bot, rng: np.random.Generator) -> int:
    """The next action: a chance outcome sampled from ``rng`` or the bot's choice."""
    if state.current_player() == CHANCE:
        return state.sample_chance(rng)
    return bot(state, rng)
