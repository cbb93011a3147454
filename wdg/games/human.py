"""A human player at the terminal (``--bots human,...``).

At each of his decisions the player sees what happened since his last one
(every action as it looks to him: cards drawn by others and cards chosen
face down stay hidden), the position as he sees it
(:meth:`State.observation_string`) and the legal actions numbered from 1;
he answers with a number. ``q`` abandons the game. Input comes from standard
input, so a test (or a script) can drive a game through it.
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from wdg.games.base import CHANCE, GameError, State


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
        """Remember ``action`` (about to be applied) as this seat sees it."""
        who = "chance" if player == CHANCE else f"player {player}" + (
            " (you)" if player == self.seat else "")
        self.news.append(f"  {who}: {state.public_action_string(action, self.seat)}")

    def __call__(self, state: State, rng: np.random.Generator) -> int:
        seat = state.current_player()
        self.seat = seat
        acts = state.legal_actions()
        w = self.out.write
        w(f"\n=== player {seat} to move ===\n")
        if self.news:
            w("What happened since your last decision:\n")
            w("\n".join(self.news[-40:]) + "\n")
            if len(self.news) > 40:
                w(f"  ({len(self.news) - 40} earlier actions not shown)\n")
            self.news = []
        w(state.observation_string(seat) + "\n")
        if hasattr(state, "board_text"):  # the board with the numbering of the actions
            w(state.board_text(seat) + "\n")
        w(f"Scores: {state.scores()}\nYour legal actions:\n")
        for i, a in enumerate(acts, 1):
            w(f"  {i:>3}) {state.action_to_string(a)}\n")
        while True:
            w(f"Your choice [1-{len(acts)}, q to quit]: ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise GameError(f"player {seat}: input ended before the game was over")
            text = line.strip()
            if text.lower() in ("q", "quit"):
                raise GameError(f"player {seat} abandoned the game")
            if text.isdigit() and 1 <= int(text) <= len(acts):
                return acts[int(text) - 1]
            w(f"Please answer with a number from 1 to {len(acts)} (got {text!r}).\n")
