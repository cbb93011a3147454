"""A human player at the terminal (``--bots human,...``).

At each of his decisions the player sees, in German: what happened since
his last one (every action as it looks to him: cards drawn by others and
cards chosen face down stay hidden; the end of every turn is said), the
position once as he sees it (:meth:`State.human_view`), what is left of
his turn and the points he may know (:meth:`State.turn_status`), and the
legal actions grouped by kind, then target (:func:`group_actions`): first
he picks a kind from a short list, then a target from another (``0`` goes
back). ``q`` abandons the game. Input comes from standard input, so a test
(or a script) can drive a game through it.
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from wdg.games.base import CHANCE, GameError, State

FLAT_LIMIT = 8
"""Up to this many legal actions are offered as one list (no grouping)."""

Group = tuple[str, list[tuple[str, int]]]
"""A menu entry: its label and its members (label, index into the actions)."""


def group_actions(paths: list[tuple[str, ...]]) -> list[Group]:
    """Group actions by their label paths (:meth:`State.action_path`) into a
    two-level menu: an entry of the first list is a prefix of the paths (the
    kind, or the kind and a coarse target), its members the actions with
    that prefix, labelled by the rest of their path. Every kind starts with
    its first label as the prefix; a kind is split one label deeper while
    that makes the longer of the two lists shorter. Up to
    :data:`FLAT_LIMIT` actions form one list of single entries."""
    if len(paths) <= FLAT_LIMIT:
        return [(" ".join(p), [("", i)]) for i, p in enumerate(paths)]
    kinds = sorted({p[0] for p in paths}, key=[p[0] for p in paths].index)
    depth = dict.fromkeys(kinds, 1)

    def build(dep: dict[str, int]) -> list[Group]:
        out: dict[tuple[str, ...], list[tuple[str, int]]] = {}
        for i, p in enumerate(paths):
            d = dep[p[0]]
            out.setdefault(p[:d], []).append((" ".join(p[d:]), i))
        return [(" ".join(k), v) for k, v in out.items()]

    def cost(groups: list[Group]) -> tuple[int, int]:
        longest = max(len(m) for _, m in groups)
        return max(len(groups), longest), len(groups) + longest

    groups = build(depth)
    best = cost(groups)
    while True:
        trials = []
        deeper = [k for k in kinds if any(len(p) > depth[k] for p in paths if p[0] == k)]
        longest = max(len(m) for _, m in groups)
        widest = [k for k in deeper if any(len(m) == longest and paths[m[0][1]][0] == k
                                           for _, m in groups)]
        for ks in [[k] for k in deeper] + [widest]:
            if ks:
                trial = {**depth, **{k: depth[k] + 1 for k in ks}}
                trials.append((cost(build(trial)), ks, trial))
        if not trials:
            break
        c, _, trial = min(trials, key=lambda t: t[0])
        if c >= best:
            break
        best, depth = c, trial
        groups = build(depth)
    return groups


def menu_sizes(state: State) -> tuple[int, int]:
    """The lengths of the two lists a human choosing now would see: the
    first list, and the longest second list (0 where every entry of the
    first list is a single action)."""
    acts = state.legal_actions()
    groups = group_actions([state.action_path(a) for a in acts])
    longest = max(len(m) for _, m in groups)
    return len(groups), (longest if longest > 1 else 0)


def measure_menus(name: str, players: int, seeds: int) -> dict[str, float]:
    """Menu sizes over ``seeds`` seeded games (even seeds random players,
    odd ones greedy): at every decision the flat number of legal actions,
    the first list and the longest second list (``python -m
    wdg.games.human``, the figures of docs/games.md)."""
    from statistics import median

    from wdg.games.base import load_game
    from wdg.games.bots import get_bot

    flat, firsts, seconds = [], [], []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        bot = get_bot("greedy" if seed % 2 else "random")
        s = load_game(name, players=players).new_initial_state()
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                s.apply_action(s.sample_chance(rng))
                continue
            f, sec = menu_sizes(s)
            flat.append(len(s.legal_actions()))
            firsts.append(f)
            seconds.append(sec)
            s.apply_action(bot(s, rng))
    two = [x for x in seconds if x]
    return {"decisions": len(flat), "flat_median": median(flat), "flat_max": max(flat),
            "first_median": median(firsts), "first_max": max(firsts),
            "second_share": len(two) / len(flat), "second_median": median(two) if two else 0,
            "second_max": max(seconds)}


class HumanPlayer:
    """A seat played by a person through standard input and output."""

    def __init__(self, inp: TextIO | None = None, out: TextIO | None = None) -> None:
        self._inp = inp
        self._out = out
        self.seat = -1
        """Set by the game loop before the first action."""
        self.news: list[str] = []

    @property
    def inp(self) -> TextIO:
        return self._inp or sys.stdin

    @property
    def out(self) -> TextIO:
        return self._out or sys.stdout

    def inform(self, state: State, player: int, action: int) -> None:
        """Remember ``action`` (about to be applied) as this seat sees it,
        and the end of a turn if it ends one (said at once when it is his)."""
        who = "Zufall" if player == CHANCE else f"Spieler {player}" + (
            " (du)" if player == self.seat else "")
        self.news.append(f"  {who}: {state.human_action_string(action, self.seat)}")
        owner = state.turn_owner()
        if owner < 0:
            return
        after = state.clone()
        after.apply_action(action)
        if after.turn_owner() != owner or after.is_terminal():
            if owner == self.seat:
                self.out.write("--- Dein Zug ist beendet. ---\n")
            self.news.append(f"  --- Zug von Spieler {owner} beendet ---")

    def _ask(self, seat: int, count: int, back: bool) -> int | None:
        """A number 1..count from the input (None: back to the first list)."""
        w = self.out.write
        while True:
            extra = ", 0 zurück" if back else ""
            w(f"Deine Wahl [1-{count}{extra}, q beendet das Spiel]: ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise GameError(f"player {seat}: input ended before the game was over")
            text = line.strip()
            if text.lower() in ("q", "quit"):
                raise GameError(f"player {seat} abandoned the game")
            if back and text == "0":
                return None
            if text.isdigit() and 1 <= int(text) <= count:
                return int(text)
            w(f"Bitte eine Zahl von 1 bis {count} eingeben (nicht {text!r}).\n")

    def __call__(self, state: State, rng: np.random.Generator) -> int:
        seat = state.current_player()
        self.seat = seat
        acts = state.legal_actions()
        w = self.out.write
        w(f"\n=== Spieler {seat} ist am Zug ===\n")
        if self.news:
            w("Seit deiner letzten Entscheidung:\n")
            if len(self.news) > 40:
                w(f"  ({len(self.news) - 40} frühere Aktionen nicht gezeigt)\n")
            w("\n".join(self.news[-40:]) + "\n")
            self.news = []
        w(state.human_view(seat) + "\n")
        for line in state.turn_status(seat):
            w(line + "\n")
        groups = group_actions([state.action_path(a) for a in acts])
        while True:
            w("Deine Möglichkeiten:\n")
            for i, (label, members) in enumerate(groups, 1):
                more = f" ({len(members)})" if len(members) > 1 else ""
                w(f"  {i:>3}) {label}{more}\n")
            pick = self._ask(seat, len(groups), back=False)
            assert pick is not None
            label, members = groups[pick - 1]
            if len(members) == 1:
                return acts[members[0][1]]
            w(f"{label}:\n")
            for i, (sub, _) in enumerate(members, 1):
                w(f"  {i:>3}) {sub}\n")
            sub_pick = self._ask(seat, len(members), back=True)
            if sub_pick is not None:
                return acts[members[sub_pick - 1][1]]


if __name__ == "__main__":  # pragma: no cover - the measurement behind docs/games.md
    for game_name in ("lords_of_creation", "four_gods", "empires_of_middle_earth"):
        for n in (2, 4):
            print(game_name, n, measure_menus(game_name, n, 20))
