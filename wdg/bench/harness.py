"""Timing, figures, the printed table and ``bench/results.json``.

A :class:`Figure` is one measured number: the median of its runs, its unit,
and — where the benchmark issue sets one — its target and whether it was
met. A figure whose code is not in this build is recorded as missing with
the reason, never invented (``value`` is ``None``).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class Figure:
    """One figure of the results."""

    group: str
    name: str
    value: float | None
    unit: str
    runs: list[float] = field(default_factory=list)
    """Every run's value (the figure is their median)."""
    target: str = ""
    """The issue's target, e.g. ``"< 3 s"``; empty when there is none."""
    met: bool | None = None
    note: str = ""
    """How it was measured, or why it is missing."""

    @property
    def missing(self) -> bool:
        """True when the figure could not be measured in this build."""
        return self.value is None


@dataclass(slots=True)
class Results:
    """Everything one ``python -m wdg.bench`` run measured."""

    figures: list[Figure] = field(default_factory=list)
    tables: dict[str, Any] = field(default_factory=dict)
    """Further structured results (per-step times, the size curve)."""
    meta: dict[str, Any] = field(default_factory=dict)

    def add(self, fig: Figure) -> Figure:
        """Record a figure and print it at once (long runs show progress)."""
        self.figures.append(fig)
        print(format_row(fig), flush=True)
        return fig

    def to_json(self) -> dict[str, Any]:
        """The content of ``bench/results.json``."""
        return {"meta": self.meta, "figures": [asdict(f) for f in self.figures],
                "tables": self.tables}


def median(values: list[float]) -> float:
    """The median of the runs."""
    return float(statistics.median(values))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call of ``fn`` takes, and its result."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def repeat(fn: Callable[..., Any], runs: int, setup: Callable[[], Any] | None = None) -> list[float]:
    """Seconds of ``runs`` calls; ``setup()`` (not timed) runs before each and
    its result is passed to ``fn``."""
    out = []
    for _ in range(runs):
        if setup is not None:
            arg = setup()
            t0 = time.perf_counter()
            fn(arg)
        else:
            t0 = time.perf_counter()
            fn()
        out.append(time.perf_counter() - t0)
    return out


def seconds_figure(group: str, name: str, runs: list[float], *, limit: float | None = None,
                   note: str = "") -> Figure:
    """A time in seconds (median), with target ``< limit`` if given."""
    value = median(runs)
    return Figure(group, name, value, "s", [round(r, 4) for r in runs],
                  f"< {limit:g} s" if limit is not None else "",
                  None if limit is None else value < limit, note)


def rate_figure(group: str, name: str, count: int, runs: list[float], unit: str, *,
                at_least: float | None = None, note: str = "") -> Figure:
    """A throughput ``count / seconds`` (median of the runs' rates)."""
    rates = [count / r for r in runs]
    value = median(rates)
    return Figure(group, name, value, unit, [round(r, 2) for r in rates],
                  f">= {at_least:g} {unit}" if at_least is not None else "",
                  None if at_least is None else value >= at_least, note)


def missing(group: str, name: str, unit: str, reason: str, target: str = "") -> Figure:
    """A figure that cannot be measured in this build."""
    return Figure(group, name, None, unit, [], target, None, f"missing: {reason}")


def format_value(fig: Figure) -> str:
    """The value as printed in the table."""
    if fig.value is None:
        return "—"
    v = fig.value
    if fig.unit in ("s",):
        return f"{v:.3f}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.2f}"


def format_row(fig: Figure) -> str:
    """One line of the table."""
    verdict = {True: "met", False: "MISSED", None: ""}[fig.met]
    if fig.missing:
        verdict = "missing"
    head = f"{fig.group + ': ' + fig.name:<58} {format_value(fig):>10} {fig.unit:<10}"
    tail = f"{fig.target:<14} {verdict}"
    return f"{head} {tail}".rstrip()


def table(results: Results) -> str:
    """The whole table, as printed at the end and quoted in docs/performance.md."""
    lines = [f"{'figure':<58} {'value':>10} {'unit':<10} {'target':<14} verdict", "-" * 104]
    lines += [format_row(f) for f in results.figures]
    notes = [f for f in results.figures if f.note]
    if notes:
        lines += ["", "notes:"] + [f"  {f.group}: {f.name}: {f.note}" for f in notes]
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    """Where and what was measured."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu": _cpu_name(),
        "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parents[2])
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def write_results(results: Results, path: Path) -> None:
    """Write ``bench/results.json`` (indented, stable key order)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results.to_json(), indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def python_exe() -> str:
    """The interpreter running the benchmarks (for subprocesses)."""
    return sys.executable
