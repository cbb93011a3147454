"""Many seeded games between bots, on any :class:`concurrent.futures.Executor`.

Game ``i`` gets its own seed from ``numpy.random.SeedSequence(seed).spawn``,
and (with rotation) seat ``s`` is played by ``bots[(s + i) % n]``. Games go
out in chunks of :data:`CHUNK`; results are collected by game index, so the
statistics are the same whatever runs them:

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
"""Games per task sent to a worker."""


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
    """The game's own end figures (:meth:`State.end_info`): how it ended, fill, armies..."""
    start: int = -1
    """The start player (:meth:`State.start_player`), -1 when the game has none."""
    last: int = -1
    """The player of the game's last decision (who took the last turn)."""
    factions: tuple[str, ...] = ()
    """Per seat its side (:meth:`State.factions`; 4 Gods: the gods)."""


def game_seeds(seed: int, games: int) -> list[int]:
    """One 64-bit seed per game, derived with ``SeedSequence(seed).spawn``."""
    return [int(child.generate_state(1, np.uint64)[0])
            for child in np.random.SeedSequence(seed).spawn(games)]


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
    ``--scheduler`` of wdg shares); GameError when Dask is missing or unreachable."""
    from wdg.cluster import ClusterError, connect

    try:
        return connect(address)
    except ClusterError as exc:
        raise GameError(str(exc)) from exc.__cause__


def run_batch(name: str, params: dict[str, Any], bots: list[str], games: int, seed: int,
              jobs: int = 1, rotate: bool = True,
              progress: Callable[[int], None] | None = None, *,
              executor: Executor | None = None, scheduler: str | None = None) -> list[GameSummary]:
    """Play ``games`` games of ``name`` and return their summaries by index.
    ``progress(k)`` is called after every ``k`` finished games. The games run
    on ``executor`` if given, else on the Dask ``scheduler``, else on ``jobs``
    local processes (1: in this process)."""
    if not isinstance(games, int) or games < 1:
        raise GameError(f"--games {games!r}: erwartet mindestens 1 Partie")
    if not isinstance(jobs, int) or jobs < 1:
        raise GameError(f"--jobs {jobs!r}: erwartet mindestens 1 Prozess")
    load_game(name, **params)  # validate before starting workers
    seeds = game_seeds(seed, games)
    tasks = [(i, seeds[i], seat_bots(bots, i, rotate)) for i in range(games)]
    chunks = [tasks[i:i + CHUNK] for i in range(0, games, CHUNK)]
    results: list[GameSummary] = []
    if executor is None and scheduler is None and jobs == 1:
        for chunk in chunks:
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
