"""Benchmarks of the three batch-mode games: random four-player games per
second per core, the same over two processes, and MCTS decisions per second.

Each game is played the way ``wdg games batch`` plays it
(:func:`wdg.games.batch.run_batch`: seeded games, records kept, random bots in
every seat). "Per core" is measured in CPU time of the process (games per
CPU-second), so other work on a busy machine does not count against it; the
run with ``jobs=2`` over a process pool (pool start included) is timed by
the clock, and the speed-up is the ratio of the clock-time medians. Targets
(issue 19): Lords of Creation >= 300, 4 Gods >= 150, Empires of Middle-earth
>= 150 four-player random games per second per core.

MCTS: the ISMCTS bot (``mcts:N``) is asked for decisions at seeded positions
of a two-player game; decisions per CPU-second and simulations per
CPU-second are reported per game.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from wdg.bench.harness import Figure, Results, median, rate_figure, repeat
from wdg.games.base import registered_games
from wdg.games.batch import run_batch
from wdg.games.ismcts import ISMCTSBot

G = "games"
TARGETS = {"lords_of_creation": 300.0, "four_gods": 150.0, "empires_of_middle_earth": 150.0}
"""Four-player random games per second per core (issue 19)."""
GAMES_PER_RUN = {"lords_of_creation": 400, "four_gods": 300, "empires_of_middle_earth": 300}
"""Games per timed batch (a run takes one to three seconds on one core)."""
MCTS_BUDGET = 50
MCTS_DECISIONS = {"lords_of_creation": 30, "four_gods": 20, "empires_of_middle_earth": 40}


def cpu_repeat(fn: Callable[[], object], runs: int) -> list[float]:
    """CPU seconds of this process for ``runs`` calls of ``fn``."""
    out = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return out


def bench_game(name: str, res: Results, runs: int, scale: float) -> None:
    """One game: rate per core, rate with two jobs, speed-up."""
    games = max(50, int(GAMES_PER_RUN.get(name, 200) * scale))
    params = {"players": 4}

    def batch(jobs: int) -> None:
        run_batch(name, params, ["random"] * 4, games, seed=2024, jobs=jobs)

    batch(1)  # warm-up: imports, data files, tables
    one_cpu = cpu_repeat(lambda: batch(1), runs)
    one = repeat(lambda: batch(1), runs)
    two = repeat(lambda: batch(2), runs)
    res.add(rate_figure(G, f"{name}: 4-player random games per core", games, one_cpu, "games/s",
                        at_least=TARGETS.get(name),
                        note=f"run_batch of {games} games, CPU time, median of {runs}"))
    res.add(rate_figure(G, f"{name}: same with --jobs 2 (clock)", games, two, "games/s"))
    speedup = median(one) / median(two)
    res.add(Figure(G, f"{name}: speed-up with --jobs 2", speedup, "x",
                   [round(a / b, 2) for a, b in zip(one, two)]))


def bench_mcts(name: str, res: Results, runs: int, scale: float) -> None:
    """ISMCTS decisions per CPU-second at seeded two-player positions."""
    from wdg.bench.decisions import positions as seeded_positions
    positions = seeded_positions(name, max(5, int(MCTS_DECISIONS.get(name, 20) * scale)))

    def decide() -> None:
        bot = ISMCTSBot(MCTS_BUDGET)
        r = np.random.default_rng(1)
        for p in positions:
            bot(p, r)

    times = cpu_repeat(decide, runs)
    res.add(rate_figure(G, f"{name}: mcts:{MCTS_BUDGET} decisions per core", len(positions), times,
                        "decisions/s", note=f"{len(positions)} positions of 2-player games, CPU time"))
    res.add(rate_figure(G, f"{name}: mcts simulations per core", len(positions) * MCTS_BUDGET, times,
                        "simulations/s"))


def run_all(res: Results, quick: bool, only: str | None) -> None:
    """Every registered game (``only``: ``games`` or a game's name)."""
    runs = 2 if quick else 3
    for name in registered_games():
        if only in (None, G, name):
            bench_game(name, res, runs, 0.34 if quick else 1.0)
            bench_mcts(name, res, runs, 0.5 if quick else 1.0)
