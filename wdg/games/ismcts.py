"""Information-set Monte-Carlo tree search (single observer, after Cowling,
Powley and Whitehouse 2012), for every registered game.

Each simulation draws a determinisation of the position with
:meth:`State.resample_from_infostate` — hidden hands, face-down choices and
deck orders re-dealt from what the deciding player does not see — and walks
one shared tree, keyed by the player to act and his action:

- **selection** among the actions legal in *this* determinisation by UCB1,
  where an action's exploration term counts how often it was *available*
  (not how often its parent was visited), as ISMCTS requires;
- **expansion** with progressive widening ordered by the greedy heuristic:
  a node that has been visited ``n`` times may have
  ``1 + WIDEN * n ** WIDEN_POWER`` children, and the next child is the best
  (by :meth:`State.evaluate` one move ahead, for the player who chooses;
  by :meth:`State.search_value` where the state sets
  ``search_expands_by_value``: 4 Gods) of ``EXPAND_SAMPLES`` untried
  actions. A node's mean therefore follows its
  good moves, not the average of every legal one — a random expansion of a
  player's follow-up decisions (4 Gods: the tile placed after a draw)
  would make good actions look as poor as their random continuations;
- **chance** outcomes are sampled with the bot's generator and not
  branched on ("open loop"): the subtree below a draw from a bag of a
  hundred tiles is shared by all of them, so it learns something;
- **rollout** of ``rollout_depth`` decisions (none by default: the
  games' evaluations guide better than short rollouts did in trials) with
  a cheap greedy policy (the best of ``ROLLOUT_SAMPLES`` sampled actions by
  the one-move evaluation); then the position is valued for every player:
  the returns at the end of a game, else
  ``σ((v_leaf - v_root) / value_scale)`` with ``v`` =
  :meth:`State.search_value` — the change since the decision point, in the
  same determinisation (so the worth of a hidden hand cancels out), in
  [0, 1], the range UCB1's constant is meant for;
- **backpropagation** of the value of the player who made each choice.

Two switches a game's State class may set (both off by default, so games
without them search as described above):

- ``search_ranks``: root candidates, their progressive bias and the
  expansions are ranked by :meth:`State.search_value` one move ahead
  (through compound moves) instead of greedy's :meth:`State.evaluate` (when
  that ranks every action the same, greedy's values are used); an
  expansion inside a compound move rates all its untried actions, not
  ``EXPAND_SAMPLES`` of them (Empires of Middle-earth: the card taken from
  the discard pile is the best one, as greedy takes it);
- ``search_removes_luck``: the game's ``search_value`` at a chance node is
  the expectation over its outcomes, and the jump of the value at the
  sampled outcome is taken out of the simulation's result (a control
  variate, :meth:`ISMCTSBot._chance`): what the search compares is the
  players' choices, not the dice that followed them.

At the decision point the actions are added in greedy's order by
progressive widening (:data:`ROOT_WIDEN`), with a progressive bias (:data:`PRIOR`) toward
greedy's values (a game whose state has ``search_candidate_values(acts,
player, rng)`` rates them itself: 4 Gods, by its ``search_value`` one move
ahead) — computed on a determinisation: the true position is read
only through its legal actions and its determinisations, never evaluated
(its hidden cards would reach the search). The final choice is the most
visited of them (ties by mean value with the bias, then greedy's order). Everything random comes from the generator given to the bot, so
games are reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from wdg.games.base import CHANCE, State
from wdg.games.bots import greedy_on, greedy_values, one_move_values, value_after

UCB_C = 0.7
"""Exploration constant of UCB1 (values lie in [0, 1])."""
ROOT_MIN = 2
ROOT_WIDEN = 1.0
"""Progressive widening at the decision point: after ``n`` simulations the
root has at most ``ROOT_MIN + ROOT_WIDEN * sqrt(n)`` children, added in
greedy's order (best first). A search of 30 simulations compares about the
seven moves greedy likes best, one of 200 about sixteen, and with a budget
as large as the legal moves squared every legal move: the candidates are not
capped by greedy's ranking (until issue 33 they were greedy's six best at
any budget, and a larger budget could not find what greedy ranked low)."""
WIDEN = 1.0
WIDEN_POWER = 0.5
"""Progressive widening below the decision point: a node visited ``n``
times has at most ``1 + WIDEN * n ** WIDEN_POWER`` children."""
EXPAND_SAMPLES = 4
"""Untried actions rated by one-move evaluation before expanding the best."""
ROLLOUT_DEPTH = 0
"""Decisions played by the cheap greedy policy after the tree before
valuing (chance outcomes not counted)."""
ROLLOUT_SAMPLES = 4
"""Actions the rollout policy rates per decision."""
PRIOR = 1.0
"""Progressive bias at the decision point: ``PRIOR * prior / visits`` is
added to an action's UCB score and to its mean when the choice is made;
prior is 1 for greedy's best action and falls by the action's shortfall
against it in units of the game's ``value_scale`` (0 below one unit). With a
small budget the search follows greedy's judgement, with a larger one its
own results take over."""
STEP_COST = 0.01
"""Each decision the searching player makes in a row from the decision
point (before anyone else or chance acts) costs this share of the game's
``value_scale`` in the simulation's value: of two lines that reach the same
position the shorter is preferred, so a search that finds "keep moving" as
good as "end the turn" (Lords of Creation's free moves) ends its turn."""
STREAK_LIMIT = 60
"""A safety net: after this many decisions in a row by the bot's seat it
takes the best action that ends its turn (by greedy's one-move value), or
greedy's choice where none does. Until issue 33 it played uniformly random
actions from here on (44 of 1.323 mcts:200 decisions in Lords of
Creation)."""


class _Node:
    __slots__ = ("children", "visits", "avail", "value")

    def __init__(self) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        """By ``(player, action)``: after a chance outcome another player
        may be to act at the same node."""
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
        self.forced = 0
        """Decisions taken by the safety net (:data:`STREAK_LIMIT`)."""
        self.seat = -1
        """Set by the game loop."""
        self.streak = 0
        self.scale = 5.0
        self.players = 2
        self.rank: dict[int, int] = {}
        """Greedy's rank of each action at the decision point."""
        self.guide = False
        self.unlucky = False
        """The game's ``search_removes_luck`` (:meth:`_chance`)."""
        """The game ranks candidates by :meth:`State.search_value` (its ``search_ranks``)."""
        self.prior: dict[int, float] = {}
        """The progressive bias of each action at the decision point (:data:`PRIOR`)."""
        self.root: _Node | None = None
        """The last search's tree (read by measurements, :mod:`wdg.games.budget`)."""

    def inform(self, state: State, player: int, action: int) -> None:
        """Count the decisions in a row of this bot's seat."""
        self.streak = self.streak + 1 if player == self.seat and player >= 0 else 0

    def __call__(self, state: State, rng: np.random.Generator) -> int:
        player = state.current_player()
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        if self.streak >= STREAK_LIMIT:
            self.forced += 1
            return _end_of_turn(state, acts, player, rng)
        self.decisions += 1
        # The true position is read only through its legal actions and its
        # determinisations; greedy's judgement too is taken on one, so the
        # hidden cards cannot reach the search through the evaluation.
        first = state.resample_from_infostate(player, rng)
        self.scale = _scale_of(first)
        self.players = len(first.scores())
        self.guide = bool(getattr(first, "search_ranks", False))
        self.unlucky = bool(getattr(first, "search_removes_luck", False))
        rate = getattr(first, "search_candidate_values", None)
        if rate is not None:  # the game's own ranking (4 Gods)
            values = rate(acts, player, rng)
        else:
            values = _search_values(first, acts, player) if self.guide else []
            if not values or max(values) <= min(values) + 1e-12:
                values = greedy_values(first, acts, player, rng)
        ranked = sorted(range(len(acts)), key=lambda i: (-values[i], float(rng.random())))
        self.rank = {acts[i]: r for r, i in enumerate(ranked)}
        top = max(values)
        self.prior = {a: PRIOR * max(0.0, 1.0 - (top - v) / self.scale) for a, v in zip(acts, values)}
        root = self.root = _Node()
        for _ in range(self.budget):
            self._simulate(root, state.resample_from_infostate(player, rng), rng)
        self.simulations += self.budget
        rank, prior = self.rank, self.prior
        scored = [(ch.visits, ch.value / ch.visits + prior[a] / ch.visits, -rank[a], a)
                  for (p, a), ch in root.children.items() if ch.visits and p == player and a in rank]
        return max(scored)[3]

    def _simulate(self, root: _Node, s: State, rng: np.random.Generator) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        c = self.c
        base = [s.search_value(q) for q in range(self.players)]
        me = s.current_player()
        steps, run = 0, True
        while not s.is_terminal():
            p = s.current_player()
            if p == CHANCE:
                run = False
                self._chance(s, rng, base)
                continue
            if p != me:
                run = False
            elif run:
                steps += 1
            legal = s.legal_actions()
            children = node.children
            untried = []
            for a in legal:
                ch = children.get((p, a))
                if ch is None:
                    untried.append(a)
                else:
                    ch.avail += 1
            if node is root:
                limit = ROOT_MIN + ROOT_WIDEN * math.sqrt(node.visits)
            else:
                limit = 1 + WIDEN * node.visits ** WIDEN_POWER
            if untried and len(legal) - len(untried) < limit:
                if node is root:  # in greedy's order
                    a = min(untried, key=self.rank.__getitem__)
                elif len(untried) == 1:
                    a = untried[0]
                else:
                    k = len(untried) if self.guide and s.in_compound_action() else EXPAND_SAMPLES
                    a = self._best_of(s, untried, p, k, rng, self.guide)
                child = children[(p, a)] = _Node()
                child.avail = 1
                s.apply_action(a)
                path.append((child, p))
                break
            best, a, pick = -math.inf, -1, None
            prior = self.prior if node is root else None
            for b in legal:
                ch = children.get((p, b))
                if ch is None:
                    continue
                u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if prior is not None:  # progressive bias toward greedy's values
                    u += prior[b] / ch.visits
                if u > best:
                    best, a, pick = u, b, ch
            assert pick is not None
            s.apply_action(a)
            path.append((pick, p))
            node = pick
        if steps and not s.is_terminal():
            base[me] += STEP_COST * self.scale * steps
        values = self._rollout(s, rng, base)
        root.visits += 1
        for child, p in path:
            child.visits += 1
            child.value += values[p]

    def _chance(self, s: State, rng: np.random.Generator, base: list[float]) -> None:
        """Sample a chance outcome. With the game's ``search_removes_luck``
        (its :meth:`State.search_value` at a chance node is the expectation
        over the outcomes) the jump of the value at the outcome is taken out
        of the simulation's result (added to ``base``): a control variate
        (Veness, Lanctot and Bowling 2011) that leaves the mean of an
        action's value alone and removes the luck of the dice from it."""
        if not self.unlucky:
            s.apply_action(s.sample_chance(rng))
            return
        before = [s.search_value(q) for q in range(self.players)]
        s.apply_action(s.sample_chance(rng))
        if not s.is_terminal():
            for q in range(self.players):
                base[q] += s.search_value(q) - before[q]

    @staticmethod
    def _best_of(s: State, acts: list[int], player: int, k: int, rng: np.random.Generator,
                 guide: bool = False) -> int:
        """The best of ``k`` of ``acts`` (sampled without replacement, all of
        them when there are no more) by ``player``'s one-move evaluation
        (:meth:`State.search_value` with ``guide``, or where the state sets
        ``search_expands_by_value``)."""
        if len(acts) > k:
            acts = [acts[int(i)] for i in rng.choice(len(acts), k, replace=False)]
        best, choice = -math.inf, acts[0]
        by_search = getattr(s, "search_expands_by_value", False)
        for a in acts:
            t = s.clone()
            t.apply_action(a)
            v = t.search_value(player) if guide or by_search else t.evaluate(player)
            if v > best:
                best, choice = v, a
        return choice

    def _rollout(self, s: State, rng: np.random.Generator, base: list[float]) -> list[float]:
        left = self.rollout_depth
        while left > 0 and not s.is_terminal():
            p = s.current_player()
            if p == CHANCE:
                self._chance(s, rng, base)
                continue
            acts = s.legal_actions()
            a = acts[0] if len(acts) == 1 else self._best_of(s, acts, p, ROLLOUT_SAMPLES, rng,
                                                             self.guide)
            left -= 1
            s.apply_action(a)
        if s.is_terminal():
            return [float(x) for x in s.returns()]
        out = []
        for q in range(self.players):
            m = (s.search_value(q) - base[q]) / self.scale
            out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, m)))))
        return out


def _end_of_turn(state: State, acts: list[int], player: int, rng: np.random.Generator) -> int:
    """The safety net's choice: the best action (greedy's one-move value,
    judged on a determinisation) after which another player or chance acts;
    greedy's choice where no action ends the turn."""
    first = state.resample_from_infostate(player, rng)
    ending = []
    for a in acts:
        t = first.clone()
        t.apply_action(a)
        if t.current_player() != player:
            ending.append(a)
    if not ending:
        return greedy_on(first, rng)
    values = one_move_values(first, ending, player)
    return ending[int(np.argmax(values))]


def _search_values(state: State, acts: list[int], player: int) -> list[float]:
    """:meth:`State.search_value` of each action one move ahead, through a
    compound move to its best completion (as greedy looks at it)."""
    return [value_after(state, a, player, 0, by_search=True) for a in acts]


def _scale_of(s: State) -> float:
    for attr in ("game", "g"):
        g = getattr(s, attr, None)
        if g is not None and hasattr(g, "value_scale"):
            return float(g.value_scale)
    return 5.0
