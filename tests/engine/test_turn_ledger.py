"""The ledger over several months: for every kingdom and month, treasury after =
treasury before + the sum of its events' gold ("Der Reichsschatz")."""

from __future__ import annotations

import numpy as np
from sheetgen import sheet_text
from turn_helpers import NAME, make_campaign

from wdg.engine.turn import replay_month, run_month
from wdg.store.segment import load_segment


def test_treasury_changes_equal_the_events_gold_over_several_months(tmp_path):
    """Every Goldstern in or out is an event with ``gold`` and ``ledger``; generated
    random sheets for five months; every month also replays byte for byte."""
    camp = make_campaign(tmp_path)
    rng = np.random.default_rng(2024)
    kinds = set()
    for _ in range(5):
        seg = load_segment(camp.segment_dir(NAME))
        d = camp.orders_dir(NAME, seg.date)
        d.mkdir(parents=True, exist_ok=True)
        for n in sorted(seg.kingdoms):
            (d / f"k{n}.txt").write_text(sheet_text(seg, n, f"pw-{n}", rng), encoding="utf-8")
        result = run_month(camp, NAME)
        for n, k in result.state.kingdoms.items():
            assert k.treasury >= 0
            assert k.treasury == seg.kingdoms[n].treasury + result.log.gold_total(n), n
        assert all(e.ledger for e in result.log if e.gold)
        kinds |= {e.kind for e in result.log}
        assert replay_month(camp, NAME, result.date).ok
    assert {"pay.upkeep", "tax.gemarks", "k.settle", "a.nr"} <= kinds


def test_the_ledger_holds_over_three_months_of_the_demo(tmp_path):
    """The same invariant on the shipped demo segment (worlds/canura, passwords
    canura-<n>) with generated sheets; each month replays byte for byte."""
    import shutil

    from wdg.campaign import PACKAGE_ROOT, Campaign

    demo = PACKAGE_ROOT / "worlds" / "canura"  # shipped: make demo runs it
    shutil.copytree(demo, tmp_path / "worlds" / "canura")
    camp = Campaign(tmp_path)
    rng = np.random.default_rng(7)
    for _ in range(3):
        seg = load_segment(camp.segment_dir("canura"))
        d = camp.orders_dir("canura", seg.date)
        d.mkdir(parents=True, exist_ok=True)
        for n, k in sorted(seg.kingdoms.items()):
            if k.player is not None and not k.city_state:
                (d / f"k{n}.txt").write_text(sheet_text(seg, n, f"canura-{n}", rng),
                                             encoding="utf-8")
        result = run_month(camp, "canura")
        assert not [e for e in result.log if e.kind == "sheet.refused"]
        for n, k in result.state.kingdoms.items():
            assert k.treasury == seg.kingdoms[n].treasury + result.log.gold_total(n), n
        assert replay_month(camp, "canura", result.date).ok
