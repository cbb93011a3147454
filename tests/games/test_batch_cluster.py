"""Batches on any concurrent.futures.Executor: a Dask LocalCluster of two
worker processes on loopback gives exactly the local results."""

from __future__ import annotations

import json
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.games.batch import CHUNK, dask_executor, run_batch, task_size
from wdg.games.stats import summarize

ARGS = ("lords_of_creation", {"players": 4}, ["random", "greedy", "random", "random"], 40, 21)


def test_any_executor_gives_the_local_results() -> None:
    """The runner only needs ``submit``: a thread pool plays the same games."""
    local = run_batch(*ARGS[:3], 30, 21, jobs=1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = run_batch(*ARGS[:3], 30, 21, executor=pool)
    assert threaded == local


class CountingExecutor(Executor):
    """Runs each task at once in this process and records its size; claims
    ``workers`` workers (as a Dask cluster's executor does)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.sizes: list[int] = []

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        self.sizes.append(len(args[-1]))
        fut: Future = Future()
        fut.set_result(fn(*args, **kwargs))
        return fut


@pytest.mark.parametrize(("games", "workers"), [(20, 2), (7, 4), (40, 8), (30, 1), (3, 5)])
def test_tasks_are_sized_to_the_batch_and_the_workers(games: int, workers: int) -> None:
    """Issue 43: batches were cut into fixed tasks of 25 games, so 20 games
    ran in one process whatever ``--jobs`` said. Now every worker gets at
    least one task (four where the batch is large enough), no task holds
    more than :data:`CHUNK` games, and the results are the same byte for
    byte however the games are split."""
    bots = ["random", "greedy", "random"] if games <= 20 else ["random"] * 3
    local = run_batch("lords_of_creation", {"players": 3}, bots, games, 8, jobs=1)
    ex = CountingExecutor(workers)
    split = run_batch("lords_of_creation", {"players": 3}, bots, games, 8, executor=ex)
    assert split == local
    assert sum(ex.sizes) == games and max(ex.sizes) <= CHUNK
    assert len(ex.sizes) >= min(games, workers)
    if games >= 4 * workers:
        assert len(ex.sizes) >= 4 * workers
    meta = {"game": "lords_of_creation"}
    assert json.dumps(summarize(split, meta), sort_keys=True) == json.dumps(summarize(local, meta),
                                                                           sort_keys=True)


def test_expensive_bots_get_smaller_tasks() -> None:
    """A task of cheap bots holds up to 25 games, of ``mcts:N`` 25*10/N
    (``mcts:30`` 8, ``mcts:60`` 4, ``mcts:200`` 1): a slow search batch is
    spread over the workers instead of waiting for one long task; a batch
    of many games still gives each worker several tasks."""
    assert task_size(1000, 2, ["random", "greedy"]) == CHUNK
    assert task_size(1000, 2, ["mcts:30", "mcts:30"]) == 8
    assert task_size(1000, 2, ["mcts:200", "mcts:60"]) == 1
    assert task_size(1000, 2, ["mcts"]) == 2
    assert task_size(20, 2, ["random"]) == 2
    assert task_size(20, 2, ["mcts:60", "mcts:30"]) == 2


@pytest.mark.slow
def test_a_dask_local_cluster_batch_equals_the_local_batch(tmp_path: Path) -> None:
    """``--scheduler ADDRESS`` runs the batch on Dask
    (``Client(ADDRESS).get_executor(pure=False)``) with the results of a local
    run for the same seed."""
    import distributed  # in the test extras: make test installs it
    local = run_batch(*ARGS, jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        on_cluster = run_batch(*ARGS, scheduler=cluster.scheduler_address)
        assert on_cluster == local
        executor, close = dask_executor(cluster.scheduler_address)
        assert executor.workers == 2  # type: ignore[attr-defined]  # tasks sized to the cluster
        close()
        out = tmp_path / "cluster.json"
        res = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "4", "--games", "40",
                                       "--seed", "21", "--bots", "random,greedy,random,random",
                                       "--scheduler", cluster.scheduler_address, "--json", str(out)])
        assert res.exit_code == 0, res.output
    ref = tmp_path / "local.json"
    res = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "4", "--games", "40",
                                   "--seed", "21", "--bots", "random,greedy,random,random",
                                   "--json", str(ref)])
    assert res.exit_code == 0
    assert json.loads(out.read_text()) == json.loads(ref.read_text())
