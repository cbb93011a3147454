"""The stress preset and its generated order sheets (functional, no timing).

Benchmarks are not tests: these only check that the benchmark's inputs are
what it claims — sheets that the parser and the checker accept, that carry
the right passwords and that use every command — on a small cut of the
stress preset (seconds).
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.engine.month_sheets import take_in
from wdg.orders.checker import check_sheet
from wdg.orders.lexicon import COMMANDS
from wdg.orders.generate import generate_sheets, playing_kingdoms
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.world.consistency import check_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import ArmyStatus
from wdg.world.stress import STRESS, stress_segment, stress_size


@pytest.fixture(scope="module")
def small():
    seg, passwords = stress_segment(0.1)
    sheets = generate_sheets(seg, np.random.default_rng(5), passwords)
    return seg, passwords, sheets


def _codes(sheet) -> set[str]:
    out = set()
    for b in sheet.armies:
        out |= {str(o).split()[0] for o in (b.phase_a, b.phase_b) if o is not None}
    out |= {str(o).split()[0] for o in sheet.kingdom_orders}
    if sheet.messages:
        out.add("BOTSCHAFT")
    if sheet.announcements:
        out.add("BEKANNTMACHUNG")
    return out


def test_the_full_stress_size_is_the_issues_size():
    assert STRESS.gemarks == 8640
    assert (STRESS.kingdoms, STRESS.city_states, STRESS.creatures) == (60, 4, 40)
    assert STRESS.active_armies == 3000
    assert stress_size(0.5).gemarks == 4320


def test_the_stress_segment_is_consistent_and_at_war(small):
    seg, _, _ = small
    assert check_segment(seg) == []
    statuses = [s for k in seg.kingdoms.values() for s in k.diplomacy.values()]
    assert any(1 <= s <= 3 for s in statuses)
    active = [a for a in seg.armies.values() if a.status is ArmyStatus.ACTIVE]
    assert any(a.is_fleet for a in active) and any(a.carried_by for a in active)


def test_every_playing_kingdom_gets_a_sheet_that_parses_without_errors(small):
    seg, _, sheets = small
    assert sorted(sheets) == playing_kingdoms(seg)
    for k, text in sheets.items():
        sheet = parse_sheet(text)
        assert sheet.errors == [], (k, sheet.errors[:3])
        assert sheet.kingdom == k and sheet.segment == seg.name


def test_the_checker_finds_no_errors_in_the_generated_sheets(small):
    seg, _, sheets = small
    for k, text in sheets.items():
        errors = [d for d in check_sheet(parse_sheet(text), build_view(seg, k))
                  if d.severity.value == "Fehler"]
        assert errors == [], (k, errors[:3])


def test_the_sheets_carry_the_right_passwords(small):
    seg, _, sheets = small
    intake = take_in(seg, {f"k{k}.txt": t.encode() for k, t in sheets.items()})
    assert sorted(intake.sheets) == sorted(sheets)
    assert not [e for e in intake.events if e.kind == "sheet.refused"]


def test_the_generated_moves_never_step_straight_back(small):
    """The generator promises walks that never step straight back (the
    docstring of its walk in wdg/orders/generate.py): no ``b`` order holds a
    direction followed by its opposite (``O W``, ``NW SO`` ...)."""
    _, _, sheets = small
    walks = [line.split()[2:] for text in sheets.values() for line in text.splitlines()
             if line.startswith("B: b ")]
    assert sum(len(w) >= 2 for w in walks) > 20  # enough walks of two steps or more to see it
    back = [w for w in walks
            if any(Direction.parse(b) is Direction.parse(a).opposite() for a, b in zip(w, w[1:]))]
    assert back == []


def test_the_sheets_together_use_every_command():
    seg, passwords = stress_segment(0.25)
    sheets = generate_sheets(seg, np.random.default_rng(5), passwords)
    used = set().union(*(_codes(parse_sheet(t)) for t in sheets.values()))
    wanted = {c.code for c in COMMANDS} | {"BOTSCHAFT", "BEKANNTMACHUNG"}
    assert wanted - used == set()


def test_segment_new_with_the_stress_preset(tmp_path):
    r = CliRunner().invoke(app, ["segment", "new", "stress", "--preset", "stress", "--seed", "3",
                                 "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "stress-60" in r.output
    assert (tmp_path / "worlds" / "stress" / "armies.yaml").is_file()
