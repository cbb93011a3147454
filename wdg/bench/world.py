"""The stress segment on disk and the month's in-memory run, for the benchmarks.

:func:`prepare` generates the stress segment (:mod:`wdg.world.stress`) at a
scale, saves it into a work directory and writes its generated sheets
(:mod:`wdg.orders.generate`) as ``orders/k<n>.txt``. :func:`take_sheets`
parses and checks them the way the game master's run does (the runner's
intake, :func:`wdg.engine.month_sheets.take_in`, with password checks), and
:func:`run_month` resolves the month in memory with the runner's
:func:`wdg.engine.turn.resolve_month`, timing each registered step through
its progress callback. Loading, saving and rendering are outside the timing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from wdg.campaign import PACKAGE_ROOT
from wdg.engine.events import Event
from wdg.engine.month_sheets import take_in
from wdg.engine.turn import resolve_month
from wdg.orders.generate import generate_sheets
from wdg.orders.model import Sheet
from wdg.rules import Rules
from wdg.world.state import ArmyStatus, Segment
from wdg.store.segment import load_segment, save_segment
from wdg.world.stress import STRESS_SEED, StressSize, stress_segment, stress_size

SHEET_SEED = 2
"""Second half of the seed of the generated sheets (the first is the segment's)."""


@dataclass(slots=True)
class Prepared:
    """A stress segment saved for the benchmarks, with its month's sheets."""

    scale: float
    size: StressSize
    segment_dir: Path
    orders_dir: Path
    files: dict[str, bytes]
    """``k<n>.txt`` -> the sheet's bytes, as the runner's intake takes them."""
    active_armies: int
    lines: int
    """Lines of all sheets together."""


@dataclass(slots=True)
class MonthRun:
    """One resolved month: total seconds, seconds per step, the events."""

    total: float
    steps: dict[str, float] = field(default_factory=dict)
    events: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


def rules() -> Rules:
    """The shipped rules files."""
    return Rules.load(PACKAGE_ROOT / "worlds" / "rules")


def prepare(scale: float, work: Path) -> Prepared:
    """Generate, save and write the sheets of the stress segment at ``scale``."""
    seg, passwords = stress_segment(scale)
    seg_dir = work / f"stress-{scale:g}" / "worlds" / "stress"
    save_segment(seg, seg_dir)
    texts = generate_sheets(seg, np.random.default_rng([STRESS_SEED, SHEET_SEED]), passwords)
    orders = seg_dir.parent.parent / "orders"
    orders.mkdir(parents=True, exist_ok=True)
    files = {}
    for k, text in texts.items():
        data = text.encode("utf-8")
        (orders / f"k{k}.txt").write_bytes(data)
        files[f"k{k}.txt"] = data
    active = sum(1 for a in seg.armies.values() if a.status is ArmyStatus.ACTIVE)
    lines = sum(t.count("\n") for t in texts.values())
    return Prepared(scale, stress_size(scale), seg_dir, orders, files, active, lines)


def load(p: Prepared) -> Segment:
    """A fresh copy of the saved segment."""
    return load_segment(p.segment_dir)


def take_sheets(seg: Segment, files: dict[str, bytes]) -> tuple[dict[int, Sheet], list[Event]]:
    """The checked sheets and the intake's events (parse, check, passwords)."""
    intake = take_in(seg, files)
    return intake.sheets, intake.events


def run_month(seg: Segment, sheets: dict[int, Sheet], pre_events: list[Event],
              rules_: Rules) -> MonthRun:
    """Resolve the month in memory and time every step."""
    times: dict[str, float] = {}
    current: str | None = None
    started = 0.0

    def progress(name: str, index: int, count: int) -> None:
        nonlocal current, started
        now = time.perf_counter()
        if current:
            times[current] = now - started
        current, started = name, now

    t0 = time.perf_counter()
    result = resolve_month(seg, sheets, rules_, pre_events=pre_events, progress=progress)
    total = time.perf_counter() - t0
    kinds: dict[str, int] = {}
    for e in result.log:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    return MonthRun(total, times, len(result.log), dict(sorted(kinds.items())))


def month_runs(p: Prepared, runs: int, rules_: Rules) -> list[MonthRun]:
    """``runs`` months, each on a freshly loaded segment with freshly taken sheets."""
    out = []
    for _ in range(runs):
        seg = load(p)
        sheets, events = take_sheets(seg, p.files)
        out.append(run_month(seg, sheets, events, rules_))
    return out
