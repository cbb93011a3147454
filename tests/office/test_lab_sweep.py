"""``wdg lab SEG --months M --seeds N [--rules DIR …]``: N seeds per rules set,
95 % intervals, paired differences; the same numbers in this process, on a
local pool and on a Dask LocalCluster."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner
from worldkit import world_copy

from wdg.campaign import PACKAGE_ROOT
from wdg.cli import app
from wdg.lab.sweep import interval, run_sweep, segment_seed, t975

runner = CliRunner()


def test_interval_is_students_t() -> None:
    got = interval([1.0, 2.0, 6.0])
    sd = math.sqrt(((1 - 3) ** 2 + (2 - 3) ** 2 + (6 - 3) ** 2) / 2)
    assert got["mean"] == 3.0
    assert got["ci95"] == pytest.approx([3 - 4.303 * sd / math.sqrt(3), 3 + 4.303 * sd / math.sqrt(3)])
    assert interval([5.0])["ci95"] == [5.0, 5.0]
    assert t975(30) == 2.042 and abs(t975(40) - 2.021) < 0.001 and abs(t975(120) - 1.980) < 0.001


def _rules_b(tmp_path: Path) -> Path:
    """The shipped rules with double the tax of a gemark's terrain (a visible difference)."""
    b = tmp_path / "teuer"
    shutil.copytree(PACKAGE_ROOT / "worlds" / "rules", b)
    text = (b / "economy.yaml").read_text(encoding="utf-8")
    assert "  gemark_factor: 1\n" in text
    (b / "economy.yaml").write_text(text.replace("  gemark_factor: 1\n", "  gemark_factor: 2\n"),
                                    encoding="utf-8")
    return b


def test_a_sweep_gives_the_same_numbers_in_a_pool_and_pairs_the_seeds(world_template: Path,
                                                                      tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    other = _rules_b(tmp_path)
    one = run_sweep(camp, "nord", months=2, seeds=3, rules=[other], out=tmp_path / "a",
                    jobs=1, replay=False)
    pool = run_sweep(camp, "nord", months=2, seeds=3, rules=[other], out=tmp_path / "b",
                     jobs=2, replay=False)
    assert pool.as_dict() == one.as_dict()
    assert one.labels == ["rules", "teuer"]
    # the seeds differ: the month's generator and the bots' choices change with them
    treasuries = [v["treasury_end"] for v in one.values["rules"]]
    assert len(set(treasuries)) > 1
    assert len({segment_seed(11, s) for s in (1, 2, 3)}) == 3
    diff = one.differences["teuer - rules"]["treasury_end"]
    assert diff["mean"] > 0  # double the gemarks' tax: richer on every seed
    per_seed = [b["treasury_end"] - a["treasury_end"]
                for a, b in zip(one.values["rules"], one.values["teuer"], strict=True)]
    assert diff == interval(per_seed)
    assert json.loads((tmp_path / "a" / "sweep.json").read_text(encoding="utf-8")) == \
        json.loads(json.dumps(one.as_dict(), sort_keys=True))
    text = (tmp_path / "a" / "sweep.txt").read_text(encoding="utf-8")
    assert "95-%-Intervall" in text and "teuer - rules" in text


@pytest.mark.slow
def test_a_sweep_on_a_dask_local_cluster_equals_the_local_one(world_template: Path,
                                                              tmp_path: Path) -> None:
    import distributed  # in the test extras: make test installs it
    camp = world_copy(world_template, tmp_path / "w")
    other = _rules_b(tmp_path)
    local = run_sweep(camp, "nord", months=2, seeds=2, rules=[other], out=tmp_path / "a",
                      replay=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        res = runner.invoke(app, ["lab", "nord", "--months", "2", "--seeds", "2", "--rules",
                                  str(other), "--scheduler", cluster.scheduler_address,
                                  "-o", str(tmp_path / "d"), "--json", "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    on_cluster = json.loads(res.stdout)
    assert on_cluster == json.loads(json.dumps(local.as_dict(), sort_keys=True))
