"""The budget measurement (``python -m wdg.games.budget``): seeded and
reproducible, and its figures are what the searches did."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from wdg.games.budget import main, measure, sample_positions
from wdg.games.ismcts import ROOT_MIN, ROOT_WIDEN, ISMCTSBot


def test_budget_figures_are_reproducible_and_bounded() -> None:
    """Same arguments, same figures; the root admits at most
    ``ROOT_MIN + ROOT_WIDEN * sqrt(budget)`` candidates (and never more than
    the legal actions); shares lie in [0, 1]; a budget agrees with itself."""
    kw = dict(budgets=[4, 16], reference=16, positions=4, seed=3, play_bots=["greedy", "greedy"])
    a = measure("four_gods", {"players": 2}, **kw)
    assert a == measure("four_gods", {"players": 2}, **kw)
    assert a["positions"] == 4
    for b, f in a["budgets"].items():
        assert 1 <= f["admitted_mean"] <= min(f["legal_mean"], ROOT_MIN + ROOT_WIDEN * math.sqrt(int(b)) + 1)
        for key in ("first_candidate", "self_agreement", "reference_agreement"):
            assert 0.0 <= f[key] <= 1.0
    # the tree the measurement reads is the search's own: it holds the choice
    s, p = sample_positions("four_gods", {"players": 2}, ["greedy", "greedy"], 1, 3)[0]
    bot = ISMCTSBot(16)
    choice = bot(s, np.random.default_rng([3, 0, 16, 0]))
    assert bot.root is not None and (p, choice) in bot.root.children


def test_budget_command_writes_a_table_and_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "b.json"
    assert main(["lords_of_creation", "--positions", "2", "--budgets", "2,4", "--reference", "4",
                 "--play", "greedy", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| budget |") and "| mcts:2 |" in table
    assert set(json.loads(out.read_text())["budgets"]) == {"2", "4"}
    assert main(["lords_of_creation", "--budgets", "x"]) == 2
    assert "--budgets" in capsys.readouterr().err
