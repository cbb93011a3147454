"""Twelve months of a small segment played by bots: every sheet is accepted,
gold and soldiers are conserved by cause every month, every month replays
byte for byte, and something happens (docs/lab.md)."""

from __future__ import annotations

import pytest

from wdg.campaign import Campaign
from wdg.store.files import read_events_data
from wdg.lab.metrics import measure, snapshot
from wdg.lab.run import assign_bots, run_campaign
from wdg.world.generator import generate_segment
from wdg.store.segment import save_segment


def _small(tmp_path):
    seg, _pw = generate_segment("klein", 2, 2, 4, seed=17, city_states=1, creatures=2,
                                demo_passwords=True)
    camp = Campaign(tmp_path / "camp")
    save_segment(seg, camp.segment_dir("klein"))
    return camp, seg


@pytest.mark.slow
def test_a_twelve_month_bot_campaign_conserves_gold_and_soldiers_and_replays(tmp_path) -> None:
    camp, seg = _small(tmp_path)
    bots = assign_bots(seg, "Kriegsherr,Baumeister,Eroberer,Kriegsherr+feind")
    run = run_campaign(camp, "klein", months=12, bots=bots, directory=tmp_path / "lab", seed=4)
    assert len(run.months) == 12
    assert [e for m in run.months for e in m.conservation_errors] == []
    assert all(r.gold_ok and r.soldiers_ok for m in run.months for r in m.kingdoms.values())
    assert run.replay_failures == []
    turns = tmp_path / "lab" / "worlds" / "klein" / "turns"
    for mdir in sorted(turns.iterdir()):
        events = read_events_data(mdir)
        bad = [e for e in events if e["kind"] in ("sheet.missing", "sheet.refused")
               or (e["kind"] == "sheet.diagnostic" and e["data"]["severity"] == "Fehler")]
        assert bad == [], (mdir.name, bad)
        # no order refused for lack of gold in normal play
        poor = [e for e in events if e["kind"].endswith(".refused")
                and "Reichsschatz" in e.get("why", "")]
        assert poor == [], (mdir.name, poor)
    # the real segment was only read
    assert not (camp.segment_dir("klein") / "turns").exists()
    # something happened: land was taken, armies moved
    assert sum(r.conquests for m in run.months for r in m.kingdoms.values()) > 0
    assert sum(r.empty_upkeep for m in run.months for r in m.kingdoms.values()) == 0


def test_the_conservation_check_can_fail(tmp_path) -> None:
    """A treasury or an army changed without an event is found."""
    _camp, seg = _small(tmp_path)
    before = snapshot(seg)
    seg.kingdoms[1].treasury += 5
    army = next(a for a in seg.armies.values() if a.kingdom == 2 and a.units)
    army.units -= 1
    m = measure(before, seg, [], seg.date)
    assert not m.kingdoms[1].gold_ok and not m.kingdoms[2].soldiers_ok
    assert len(m.conservation_errors) == 2
