"""Information-set Monte-Carlo tree search (single observer, after Cowling,
Powley and Whitehouse 2012), for every registered game.

Each simulation draws a determinisation of the position with
:meth:`State.resample_from_infostate` — hidden hands, face-down choices and
deck orders re-dealt from what the deciding player does not see — and walks
one shared tree, keyed by the actions from the decision point:

- **selection** among the actions legal in *this* determinisation by UCB1,
  where an action's exploration term counts how often it was *available*
  (not how often its parent was visited), as ISMCTS requires;
- **expansion** of one untried action;
- **rollout** with uniformly random actions for at most ``rollout_depth``
  further decisions, then the position is valued for every player: the
  returns at the end of a game, else a logistic of
  :meth:`State.evaluate` with the game's ``value_scale``;
- **backpropagation** of the value of the player who made each choice.

Chance outcomes are sampled with the bot's generator and the tree branches on
them. At the decision point only the actions greedy rates best are searched
(:data:`ROOT_SHARE`), with a progressive bias toward greedy's values
(:data:`PRIOR_WEIGHT`). The final choice is the most visited root action (ties by mean value,
then by the generator). Everything random comes from the generator given to
the bot, so games are reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from wdg.games.base import CHANCE, State

UCB_C = 0.7
"""Exploration constant of UCB1 (values lie in [0, 1])."""
ROLLOUT_DEPTH = 0
"""Random decisions (chance outcomes not counted) after the tree before valuing.
None by default: the games' evaluations are better guides than random play."""
ROOT_SHARE = 4
"""At the decision point only the ``max(2, budget // ROOT_SHARE)`` actions that
greedy's one-move look rates best are searched (all of them when there are
fewer): a budget smaller than the number of actions still compares the
promising ones more than once."""


PRIOR_WEIGHT = 1.0
"""Progressive bias at the decision point: an action's greedy value, scaled
to [0, 1] among the actions, adds ``PRIOR_WEIGHT * prior / visits`` to its
UCB score — with a small budget the search follows greedy's judgement, with
a larger one its own results take over."""
STREAK_LIMIT = 60
"""After this many decisions in a row by the bot's seat (nobody else, no
chance in between) it plays uniformly random actions until someone else
acts: a search that finds "keep moving" as good as "end the turn" (Lords of
Creation's free moves) would otherwise never end its turn."""


class _Node:
    __slots__ = ("children", "visits", "avail", "value")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = 0.0
        """Sum of the values, for the player who chose the action into this node."""


class ISMCTSBot:
    """``mcts:N``: ISMCTS with ``budget`` simulations per decision."""

    def __init__(self, budget: int, rollout_depth: int = ROLLOUT_DEPTH, c: float = UCB_C) -> None:
        self.budget = budget
        self.rollout_depth = rollout_depth
        self.c = c
        self.simulations = 0
        """Simulations run so far (for benchmarks)."""
        self.decisions = 0
        """Searched decisions so far (for benchmarks)."""
        self.seat = -1
        """Set by the game loop."""
        self.streak = 0
        self.allowed: set[int] | None = None
        self.prior: dict[int, float] = {}

    def inform(self, state: State, player: int, action: int) -> None:
        """Count the decisions in a row of this bot's seat."""
        self.streak = self.streak + 1 if player == self.seat and player >= 0 else 0

    def __call__(self, state: State, rng: np.random.Generator) -> int:
        player = state.current_player()
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        if self.streak >= STREAK_LIMIT:
            return acts[int(rng.integers(len(acts)))]
        self.decisions += 1
        root = _Node()
        keep = max(2, self.budget // ROOT_SHARE)
        from wdg.games.bots import greedy_values
        values = greedy_values(state, acts, player, rng)
        ranked = sorted(range(len(acts)), key=lambda i: (-values[i], float(rng.random())))
        self.allowed = {acts[i] for i in ranked[:keep]} if len(acts) > keep else None
        lo, hi = min(values), max(values)
        self.prior = {a: (v - lo) / (hi - lo) if hi > lo else 0.0 for a, v in zip(acts, values)}
        for _ in range(self.budget):
            self._simulate(root, state.resample_from_infostate(player, rng), rng)
        self.simulations += self.budget
        scored = [(ch.visits, ch.value / ch.visits + PRIOR_WEIGHT * self.prior.get(a, 0.0) / ch.visits, a)
                  for a, ch in root.children.items() if ch.visits and a in acts]
        best = max((n, v) for n, v, _ in scored)
        ties = sorted(a for n, v, a in scored if n == best[0] and v >= best[1] - 1e-12)
        return ties[int(rng.integers(len(ties)))]

    def _simulate(self, root: _Node, s: State, rng: np.random.Generator) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        c = self.c
        expanded = False
        while not expanded and not s.is_terminal():
            p = s.current_player()
            if p == CHANCE:
                a = s.sample_chance(rng)
                s.apply_action(a)
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = _Node()
                node = child
                continue
            legal = s.legal_actions()
            if node is root and self.allowed is not None:
                legal = [a for a in legal if a in self.allowed] or legal
            children = node.children
            untried = []
            for a in legal:
                ch = children.get(a)
                if ch is None:
                    untried.append(a)
                else:
                    ch.avail += 1
            if untried:
                a = untried[int(rng.integers(len(untried)))]
                child = children[a] = _Node()
                child.avail = 1
                expanded = True
            else:
                best, a, child = -1.0, legal[0], children[legal[0]]
                prior = self.prior if node is root else None
                for b in legal:
                    ch = children[b]
                    u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if prior is not None:  # progressive bias toward greedy's choice
                        u += PRIOR_WEIGHT * prior.get(b, 0.0) / ch.visits
                    if u > best:
                        best, a, child = u, b, ch
            s.apply_action(a)
            path.append((child, p))
            node = child
        values = self._rollout(s, rng)
        for child, p in path:
            child.visits += 1
            child.value += values[p]

    def _rollout(self, s: State, rng: np.random.Generator) -> list[float]:
        left = self.rollout_depth
        while left > 0 and not s.is_terminal():
            if s.current_player() == CHANCE:
                a = s.sample_chance(rng)
            else:
                acts = s.legal_actions()
                a = acts[int(rng.integers(len(acts)))]
                left -= 1
            s.apply_action(a)
        if s.is_terminal():
            return [float(x) for x in s.returns()]
        scale = _scale_of(s)
        out = []
        for q in range(len(s.scores())):
            m = s.evaluate(q) / scale
            out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, m)))))
        return out


def _scale_of(s: State) -> float:
    for attr in ("game", "g"):
        g = getattr(s, attr, None)
        if g is not None and hasattr(g, "value_scale"):
            return float(g.value_scale)
    return 5.0
