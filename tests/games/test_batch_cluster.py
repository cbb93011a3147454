"""Batches on any concurrent.futures.Executor: a Dask LocalCluster of two
worker processes on loopback gives exactly the local results."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.games.batch import run_batch

ARGS = ("lords_of_creation", {"players": 4}, ["random", "greedy", "random", "random"], 40, 21)


def test_any_executor_gives_the_local_results() -> None:
    """The runner only needs ``submit``: a thread pool plays the same games."""
    local = run_batch(*ARGS[:3], 30, 21, jobs=1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = run_batch(*ARGS[:3], 30, 21, executor=pool)
    assert threaded == local


@pytest.mark.slow
def test_a_dask_local_cluster_batch_equals_the_local_batch(tmp_path: Path) -> None:
    """``--scheduler ADDRESS`` runs the batch on Dask
    (``Client(ADDRESS).get_executor(pure=False)``) with the results of a local
    run for the same seed."""
    distributed = pytest.importorskip(
        "distributed", reason="Dask is not installed (pip install 'wdg[cluster]'); "
        "the cluster batch cannot be tried")
    local = run_batch(*ARGS, jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        on_cluster = run_batch(*ARGS, scheduler=cluster.scheduler_address)
        assert on_cluster == local
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
