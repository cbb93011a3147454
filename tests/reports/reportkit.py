"""Campaigns the report tests share: the demo after its first two months,
and the stress preset's month resolved from its generated sheets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.engine.month_sheets import Intake, take_in
from wdg.engine.turn import MonthResult, resolve_month, run_month
from wdg.orders.generate import generate_sheets
from wdg.reports.archived import archive_writers
from wdg.rules import Rules
from wdg.store.segment import load_segment
from wdg.world.stress import STRESS_SEED, stress_segment


def demo_two_months(root: Path) -> Campaign:
    """The demo campaign in ``root`` after its first two months (month 2 from
    seeded sheets), reports archived without PDFs."""
    camp = copy_demo(root)
    for i in range(2):
        if i:
            seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
            out = camp.root / "orders" / DEMO_SEGMENT / seg.date.key
            out.mkdir(parents=True, exist_ok=True)
            for k, text in generate_sheets(seg, np.random.default_rng(7)).items():
                (out / f"k{k}.txt").write_text(text, encoding="utf-8")
        run_month(camp, DEMO_SEGMENT, force=True,
                  outputs=archive_writers(camp.templates_dir, camp.rules_dir, pdf=False,
                                          archive_dir=camp.archive_dir(DEMO_SEGMENT)))
    return camp


def stress_month() -> tuple[MonthResult, Intake]:
    """The full-size stress preset's month, resolved from its generated sheets
    (as ``make bench`` runs it)."""
    seg, passwords = stress_segment(1.0)
    texts = generate_sheets(seg, np.random.default_rng([STRESS_SEED, 2]), passwords)
    intake = take_in(seg, {f"k{k}.txt": t.encode("utf-8") for k, t in texts.items()})
    result = resolve_month(seg, intake.sheets, Rules.load(PACKAGE_ROOT / "worlds" / "rules"),
                           pre_events=intake.events)
    return result, intake
