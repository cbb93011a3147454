"""The figures docs/lab.md reports for the shipped demo, on a shorter run:
bots at war fight every few months and take a settlement, the Baumeister
grows richer, nobody pays upkeep for an empty army, gold and soldiers are
conserved by cause, every month replays byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from wdg.campaign import Campaign
from wdg.lab.report import figures
from wdg.lab.run import assign_bots, run_campaign
from wdg.store.segment import load_segment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_fifteen_demo_months_with_bots(tmp_path) -> None:
    camp = Campaign(ROOT)
    seg = load_segment(camp.segment_dir("canura"))
    bots = assign_bots(seg, None)
    assert bots[9] == "Kriegsherr+feind"
    run = run_campaign(camp, "canura", months=15, bots=bots, directory=tmp_path / "lab", seed=1)
    f = figures(run)
    assert f["replay_failures"] == [] and f["conservation_errors"] == []
    assert f["empty_army_upkeep"] == 0
    assert f["battles"] >= 3 and f["longest_gap_between_battles"] <= 4
    assert f["settlements_changed_hands"] >= 1
    for k, (first, last) in f["baumeister_income"].items():
        assert last > first, k
    assert not (ROOT / "worlds" / "canura" / "turns").exists()
