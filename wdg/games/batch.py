"""Many seeded games between bots, optionally over a process pool.

Game ``i`` gets its own seed from ``numpy.random.SeedSequence(seed).spawn``,
and (with rotation) seat ``s`` is played by ``bots[(s + i) % n]``. Results
are collected by game index, so the statistics are the same whatever the
number of worker processes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from wdg.games.base import CHANCE, GameError, load_game
from wdg.games.records import play

CHUNK = 25
"""Games per task sent to a worker process."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """The outcome of one batch game."""

    index: int
    seed: int
    bots: tuple[str, ...]
    """Bot name per seat."""
    scores: tuple[float, ...]
    returns: tuple[float, ...]
    actions: int
    """All actions, chance outcomes included."""
    decisions: int
    """Actions of players (without chance)."""


def game_seeds(seed: int, games: int) -> list[int]:
    """One 64-bit seed per game, derived with ``SeedSequence(seed).spawn``."""
    return [int(child.generate_state(1, np.uint64)[0])
            for child in np.random.SeedSequence(seed).spawn(games)]


def seat_bots(bots: list[str], index: int, rotate: bool) -> tuple[str, ...]:
    """The bot in each seat of game ``index``."""
    n = len(bots)
    return tuple(bots[(s + index) % n] for s in range(n)) if rotate else tuple(bots)


def _play_chunk(name: str, params: dict[str, Any],
                tasks: list[tuple[int, int, tuple[str, ...]]]) -> list[GameSummary]:
    game = load_game(name, **params)
    out = []
    for index, seed, bots in tasks:
        state, record = play(game, list(bots), seed, with_text=False)
        decisions = sum(1 for p, _, _ in record.actions if p != CHANCE)
        out.append(GameSummary(index, seed, bots, tuple(state.scores()), tuple(state.returns()),
                               len(record.actions), decisions))
    return out


def run_batch(name: str, params: dict[str, Any], bots: list[str], games: int, seed: int,
              jobs: int = 1, rotate: bool = True,
              progress: Callable[[int], None] | None = None) -> list[GameSummary]:
    """Play ``games`` games of ``name`` and return their summaries by index.
    ``progress(k)`` is called after every ``k`` finished games."""
    if games < 1:
        raise GameError(f"--games must be at least 1, got {games!r}")
    if jobs < 1:
        raise GameError(f"--jobs must be at least 1, got {jobs!r}")
    load_game(name, **params)  # validate before starting workers
    seeds = game_seeds(seed, games)
    tasks = [(i, seeds[i], seat_bots(bots, i, rotate)) for i in range(games)]
    chunks = [tasks[i:i + CHUNK] for i in range(0, games, CHUNK)]
    results: list[GameSummary] = []
    if jobs == 1:
        for chunk in chunks:
            results.extend(_play_chunk(name, params, chunk))
            if progress:
                progress(len(chunk))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_chunk, name, params, chunk) for chunk in chunks]
            for fut in as_completed(futures):
                part = fut.result()
                results.extend(part)
                if progress:
                    progress(len(part))
    results.sort(key=lambda r: r.index)
    return results
