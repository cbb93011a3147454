"""Benchmarks of the three batch-mode games: random four-player games per second.

Each game is played the way ``wdg games batch`` plays it
(:func:`wdg.games.batch.run_batch`: seeded games, records kept, random bots in
every seat) on one core, then with ``jobs=2`` over a process pool (pool start
included); the speed-up is the ratio of the two medians. Targets from the
game issues: Lords of Creation >= 50, 4 Gods >= 20, Empires of Middle-earth
>= 100 games per second on one core.
"""

from __future__ import annotations

from wdg.bench.harness import Figure, Results, median, rate_figure, repeat
from wdg.games.base import registered_games
from wdg.games.batch import run_batch

G = "games"
TARGETS = {"lords_of_creation": 50.0, "four_gods": 20.0, "empires_of_middle_earth": 100.0}
"""Four-player random games per second on one core (the game issues)."""
GAMES_PER_RUN = {"lords_of_creation": 300, "four_gods": 200, "empires_of_middle_earth": 300}
"""Games per timed batch (a run takes one to three seconds on one core)."""


def bench_game(name: str, res: Results, runs: int, scale: float) -> None:
    """One game: rate on one core, rate with two jobs, speed-up."""
    games = max(50, int(GAMES_PER_RUN.get(name, 200) * scale))
    params = {"players": 4}

    def batch(jobs: int) -> None:
        run_batch(name, params, ["random"] * 4, games, seed=2024, jobs=jobs)

    one = repeat(lambda: batch(1), runs)
    two = repeat(lambda: batch(2), runs)
    res.add(rate_figure(G, f"{name}: 4-player random games, 1 core", games, one, "games/s",
                        at_least=TARGETS.get(name),
                        note=f"run_batch of {games} games, median of {runs}"))
    res.add(rate_figure(G, f"{name}: same with --jobs 2", games, two, "games/s"))
    speedup = median(one) / median(two)
    res.add(Figure(G, f"{name}: speed-up with --jobs 2", speedup, "x",
                   [round(a / b, 2) for a, b in zip(one, two)]))


def run_all(res: Results, quick: bool, only: str | None) -> None:
    """Every registered game (``only``: ``games`` or a game's name)."""
    runs = 2 if quick else 3
    for name in registered_games():
        if only in (None, G, name):
            bench_game(name, res, runs, 0.34 if quick else 1.0)
