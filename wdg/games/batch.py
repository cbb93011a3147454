"""Many seeded games between bots, on any :class:`concurrent.futures.Executor`.

Game ``i`` gets its own seed from ``numpy.random.SeedSequence(seed).spawn``,
and (with rotation) seat ``s`` is played by ``bots[(s + i) % n]``. Paired
games (``paired=True``): games ``k*n .. k*n+n-1`` share the seed ``k`` and
differ only in the seats, rotated by one each (a duplicate tournament: every
bot sits once in each seat of the same deal).

Games go out in tasks sized to the batch and the workers
(:func:`task_size`): at least one task per worker (four where the batch is
large enough, so a slow task does not leave the others idle), and at most
:data:`CHUNK` games of cheap bots, fewer of expensive ones (``mcts:N``:
``CHUNK * 10 // N``, one game from ``mcts:250`` on). Every game has its own
seed and generator, and results are collected by game index, so the
statistics are the same byte for byte whatever runs them and however the
games are split:

- ``jobs=1``: in this process;
- ``jobs=N``: a local :class:`~concurrent.futures.ProcessPoolExecutor` of N
  workers, started with :func:`wdg.procs.worker_init` (they die with their
  parent);
- ``scheduler=ADDRESS``: a Dask cluster, through
  ``distributed.Client(ADDRESS).get_executor(pure=False)`` (``pure=False``:
  two equal chunks are still two tasks). Dask is the optional extra
  ``wdg[cluster]``;
- ``executor=``: any other Executor (e.g. a Ray pool wrapped as one).

Each worker process builds a game object once per parameter set (the deck
and the tiles are read once per worker, not per chunk).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from wdg.games.base import CHANCE, Game, GameError, load_game
from wdg.games.records import play
from wdg.procs import kill_workers, worker_init

CHUNK = 25
"""Most games per task sent to a worker (cheap bots)."""
TASKS_PER_WORKER = 4
"""Tasks per worker a large batch is cut into (load balance)."""


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
    info: tuple[tuple[str, Any], ...] = ()
    """The game's own end figures (a state's ``end_info()``, where its game has one): how it ended, fill, armies..."""
    start: int = -1
    """The start player (:meth:`wdg.games.base.State.start_player`), -1 when the game has none."""
    last: int = -1
    """The player of the game's last decision (who took the last turn)."""
    factions: tuple[str, ...] = ()
    """Per seat its side (:meth:`wdg.games.base.State.factions`; 4 Gods: the gods)."""


def game_seeds(seed: int, games: int) -> list[int]:
    """One 64-bit seed per game, derived with ``SeedSequence(seed).spawn``."""
    return [int(child.generate_state(1, np.uint64)[0])
            for child in np.random.SeedSequence(seed).spawn(games)]


def bot_cost(bot: str) -> float:
    """A bot's cost per decision in units of greedy's (``mcts:N``: N/10)."""
    base, sep, arg = bot.partition(":")
    if base == "mcts":
        try:
            budget = int(arg) if sep else 100
        except ValueError:
            budget = 100
        return max(1.0, budget / 10)
    return 1.0


def task_size(games: int, workers: int, bots: list[str] | tuple[str, ...]) -> int:
    """Games per task: at most :data:`CHUNK` divided by the dearest bot's
    cost (:func:`bot_cost`), and small enough that every worker gets
    :data:`TASKS_PER_WORKER` tasks (at least one each: one game a task
    when there are fewer than ``workers`` times that many games)."""
    cap = max(1, int(CHUNK // max(bot_cost(b) for b in bots)))
    return max(1, min(cap, games // (max(1, workers) * TASKS_PER_WORKER)))


def seat_bots(bots: list[str], index: int, rotate: bool) -> tuple[str, ...]:
    """The bot in each seat of game ``index``."""
    n = len(bots)
    return tuple(bots[(s + index) % n] for s in range(n)) if rotate else tuple(bots)


_GAMES: dict[str, Game] = {}
"""Game objects of this worker process by name and parameters."""


def worker_game(name: str, params: dict[str, Any]) -> Game:
    """The game object for ``name`` and ``params``, built once per process."""
    key = f"{name}:{sorted(params.items())!r}"
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_game(name, **params)
    return game


def play_chunk(name: str, params: dict[str, Any],
               tasks: list[tuple[int, int, tuple[str, ...]]]) -> list[GameSummary]:
    """Play the games ``(index, seed, bots)`` of one task."""
    game = worker_game(name, params)
    out = []
    for index, seed, bots in tasks:
        state, record = play(game, list(bots), seed, with_text=False)
        decisions = sum(1 for p, _, _ in record.actions if p != CHANCE)
        info = tuple(sorted(state.end_info().items())) if hasattr(state, "end_info") else ()
        last = next((p for p, _, _ in reversed(record.actions) if p != CHANCE), -1)
        out.append(GameSummary(index, seed, bots, tuple(state.scores()), tuple(state.returns()),
                               len(record.actions), decisions, info, state.start_player(), last,
                               tuple(state.factions())))
    return out


_play_chunk = play_chunk  # the old private name


def dask_executor(address: str) -> tuple[Executor, Callable[[], None]]:
    """An Executor on the Dask scheduler at ``address`` and a function that
    closes the client (:func:`wdg.cluster.connect`, the client code every
    ``--scheduler`` of wdg shares); GameError when Dask is missing or
    unreachable. The executor's ``workers`` is the cluster's number of worker
    threads at the start (tasks are sized to it, :func:`task_size`)."""
    from wdg.cluster import ClusterError, connect  # lazy: only for --scheduler; `wdg --help` imports this module

    try:
        executor, close = connect(address)
    except ClusterError as exc:
        raise GameError(str(exc)) from exc.__cause__
    client = getattr(executor, "_client", None)
    try:
        workers = max(1, sum(client.nthreads().values())) if client is not None else 1
    except (AttributeError, OSError):  # the scheduler did not answer (Dask's comm errors are OSError)
        workers = 1
    executor.workers = workers  # type: ignore[attr-defined]  # read by executor_workers; not a field of Executor
    return executor, close


def executor_workers(executor: Executor, default: int = 1) -> int:
    """How many tasks ``executor`` runs at once: its ``workers`` (set for
    Dask, :func:`dask_executor`), a pool's ``_max_workers``, else ``default``."""
    for attr in ("workers", "_max_workers"):
        k = getattr(executor, attr, None)
        if isinstance(k, int) and k >= 1:
            return k
    return max(1, default)


def plan_games(bots: list[str], games: int, seed: int, rotate: bool = True,
               paired: bool = False) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(index, seed, bots per seat)`` of every game of a batch; with
    ``paired`` the ``n`` seat rotations of each seed in a row."""
    n = len(bots)
    if paired:
        if not rotate:
            raise GameError("--paired dreht die Sitze selbst; --no-rotate passt nicht dazu")
        if games % n:
            raise GameError(f"--paired: --games {games} ist kein Vielfaches der Spielerzahl {n} "
                            f"(jeder Seed wird einmal in jeder Sitzdrehung gespielt); "
                            f"z. B. --games {games + n - games % n}")
        base = game_seeds(seed, games // n)
        seeds = [base[i // n] for i in range(games)]
    else:
        seeds = game_seeds(seed, games)
    return [(i, seeds[i], seat_bots(bots, i, rotate)) for i in range(games)]


def run_batch(name: str, params: dict[str, Any], bots: list[str], games: int, seed: int,
              jobs: int = 1, rotate: bool = True,
              progress: Callable[[int], None] | None = None, *,
              executor: Executor | None = None, scheduler: str | None = None,
              paired: bool = False, workers: int | None = None) -> list[GameSummary]:
    """Play ``games`` games of ``name`` and return their summaries by index.
    ``progress(k)`` is called after every ``k`` finished games. The games run
    on ``executor`` if given, else on the Dask ``scheduler``, else on ``jobs``
    local processes (1: in this process), in tasks of :func:`task_size`
    (``workers``: how many run at once, by default what the executor says).
    ``paired``: each seed played once in every seat rotation (:func:`plan_games`)."""
    if not isinstance(games, int) or games < 1:
        raise GameError(f"--games {games!r}: erwartet mindestens 1 Partie")
    if not isinstance(jobs, int) or jobs < 1:
        raise GameError(f"--jobs {jobs!r}: erwartet mindestens 1 Prozess")
    load_game(name, **params)  # validate before starting workers
    tasks = plan_games(bots, games, seed, rotate, paired)
    results: list[GameSummary] = []
    if executor is None and scheduler is None and jobs == 1:
        size = task_size(games, 1, bots)
        for chunk in (tasks[i:i + size] for i in range(0, games, size)):
            results.extend(play_chunk(name, params, chunk))
            if progress:
                progress(len(chunk))
    else:
        close: Callable[[], None] | None = None
        if executor is None and scheduler is not None:
            executor, close = dask_executor(scheduler)
        elif executor is None:
            executor = ProcessPoolExecutor(max_workers=jobs, initializer=worker_init)
            close = executor.shutdown
        size = task_size(games, workers or executor_workers(executor, jobs), bots)
        chunks = [tasks[i:i + size] for i in range(0, games, size)]
        try:
            futures = [executor.submit(play_chunk, name, params, chunk) for chunk in chunks]
            for fut in as_completed(futures):
                part = fut.result()
                results.extend(part)
                if progress:
                    progress(len(part))
        except BaseException:
            # Ctrl-C, SIGTERM, an error: our own workers stop now, not after their chunks.
            if isinstance(executor, ProcessPoolExecutor) and close == executor.shutdown:
                kill_workers(executor)
                executor.shutdown(wait=False, cancel_futures=True)
                close = None
            raise
        finally:
            if close is not None:
                close()
    results.sort(key=lambda r: r.index)
    return results
