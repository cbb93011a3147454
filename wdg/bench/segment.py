"""Benchmarks of the stress segment: storage, sheets, the month, size curve, memory.

Targets (the benchmark issue, this machine): the month under 3 s, load plus
save under 2 s, parsing all sheets under 1 s, peak memory under 1 GiB.
"""

from __future__ import annotations

from functools import partial
import json
import subprocess
from pathlib import Path

from wdg.bench.harness import (
    Figure,
    Results,
    median,
    python_exe,
    rate_figure,
    repeat,
    seconds_figure,
    timed,
)
from wdg.bench.world import Prepared, load, month_runs, prepare, rules, take_sheets
from wdg.orders.checker import check_sheet
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.store.segment import save_segment

G = "segment"
SCALES = (0.25, 0.5)
"""Smaller sizes of the size curve (the full size is measured anyway)."""


def bench_storage(p: Prepared, res: Results, runs: int) -> None:
    """Load and save of the stress segment."""
    loads = repeat(lambda: load(p), runs)
    seg = load(p)
    target = p.segment_dir.parent / "saved"
    saves = repeat(lambda: save_segment(seg, target), runs)
    res.add(seconds_figure(G, "load stress segment", loads))
    res.add(seconds_figure(G, "save stress segment", saves))
    both = [a + b for a, b in zip(loads, saves)]
    res.add(seconds_figure(G, "load + save", both, limit=2.0,
                           note="sum of each run's load and save"))


def bench_sheets(p: Prepared, res: Results, runs: int) -> None:
    """Parsing, checking and the runner's intake of all the month's sheets."""
    seg = load(p)
    texts = list(p.files.values())
    n = len(texts)
    parse_runs = repeat(lambda: [parse_sheet(t) for t in texts], runs)
    parsed = {int(name[1:-4]): parse_sheet(data) for name, data in p.files.items()}
    errors = sum(len(s.errors) for s in parsed.values())
    res.add(seconds_figure(G, f"parse all {n} sheets ({p.lines:,} lines)", parse_runs, limit=1.0,
                           note=f"{errors} parser errors in the generated sheets"))
    res.add(rate_figure(G, "parse", n, parse_runs, "sheets/s"))

    def check_all() -> int:
        return sum(len(check_sheet(s, build_view(seg, k))) for k, s in parsed.items())

    check_runs = repeat(check_all, runs)
    res.add(rate_figure(G, "check (kingdom view + checker)", n, check_runs, "sheets/s"))
    both = [a + b for a, b in zip(parse_runs, check_runs)]
    res.add(rate_figure(G, "parse + check", n, both, "sheets/s"))
    intake_runs = repeat(lambda: take_sheets(seg, p.files), max(1, runs // 2))
    res.add(rate_figure(G, "runner intake (parse, check, passwords)", n, intake_runs,
                        "sheets/s", note="includes one scrypt password check per sheet "
                        "(the stress segment's known passwords: N=2^10; a real segment's "
                        "hashes cost N=2^15, about 0.1 s each, docs/security.md)"))


def bench_month(p: Prepared, res: Results, runs: int) -> None:
    """The month's resolution in total and per step."""
    r = rules()
    months = month_runs(p, runs, r)
    res.add(seconds_figure(G, "resolve the stress month (all steps)", [m.total for m in months],
                           limit=3.0, note="wdg.engine.turn.resolve_month in memory on the "
                           "loaded state with the checked sheets; no load/save/render"))
    steps = {name: median([m.steps.get(name, 0.0) for m in months]) for name in months[0].steps}
    res.tables["month_steps_s"] = {k: round(v, 4) for k, v in
                                   sorted(steps.items(), key=lambda kv: -kv[1])}
    res.tables["month_events"] = {"total": months[0].events, "by_kind": months[0].kinds}
    for name, secs in sorted(steps.items(), key=lambda kv: -kv[1])[:6]:
        res.add(Figure(G, f"  step {name}", secs, "s", [round(m.steps.get(name, 0.0), 4)
                                                        for m in months]))


def bench_scaling(full: Prepared, work: Path, res: Results, runs: int) -> None:
    """The month at 1/4, 1/2 and full size."""
    r = rules()
    rows = []
    for scale in (*SCALES, 1.0):
        p = full if scale == 1.0 else prepare(scale, work)
        months = month_runs(p, runs, r)
        load_s = median(repeat(partial(load, p), runs))
        rows.append({"scale": scale, "provinces": p.size.prov_cols * p.size.prov_rows,
                     "gemarks": p.size.gemarks, "kingdoms": p.size.kingdoms,
                     "active_armies": p.active_armies, "sheet_lines": p.lines,
                     "events": months[0].events, "month_s": round(median([m.total for m in
                                                                          months]), 4),
                     "load_s": round(load_s, 4)})
        res.add(seconds_figure(G, f"month at {scale:g} size ({p.size.gemarks:,} gemarks, "
                               f"{p.active_armies:,} armies)", [m.total for m in months]))
    res.tables["size_curve"] = rows


def bench_memory(p: Prepared, res: Results) -> None:
    """Peak memory of the month's run in a subprocess of its own."""
    def child(trace: bool) -> dict[str, float]:
        cmd = [python_exe(), "-m", "wdg.bench.memory", str(p.segment_dir), str(p.orders_dir)]
        out = subprocess.run(cmd + (["--trace"] if trace else []), capture_output=True,
                             text=True, check=True, timeout=600)
        return json.loads(out.stdout.strip().splitlines()[-1])

    plain = child(False)
    traced = child(True)
    rss = plain["maxrss_mib"]
    res.add(Figure(G, "peak memory of the month's run (max RSS of the process)", rss, "MiB",
                   [round(rss, 1)], "< 1024 MiB", rss < 1024,
                   "whole process: interpreter, numpy, loading and intake included"))
    res.add(Figure(G, "  Python allocations during the month (tracemalloc peak)",
                   traced["traced_peak_mib"], "MiB", [round(traced["traced_peak_mib"], 1)]))


def run_all(work: Path, res: Results, quick: bool, only: str | None) -> None:
    """Every segment benchmark (``only``: storage, sheets, month, scaling, memory)."""
    runs = 2 if quick else 5
    seconds, full = timed(lambda: prepare(1.0, work))
    res.tables["stress_segment"] = {
        "provinces": f"{full.size.prov_cols}x{full.size.prov_rows}",
        "gemarks": full.size.gemarks, "kingdoms": full.size.kingdoms,
        "city_states": full.size.city_states, "active_armies": full.active_armies,
        "creatures": full.size.creatures, "sheets": len(full.files), "sheet_lines": full.lines,
        "generate_and_save_s": round(seconds, 3)}
    parts = {"storage": lambda: bench_storage(full, res, runs),
             "sheets": lambda: bench_sheets(full, res, runs),
             "month": lambda: bench_month(full, res, runs),
             "scaling": lambda: bench_scaling(full, work, res, 2 if quick else 3),
             "memory": lambda: bench_memory(full, res)}
    for name, fn in parts.items():
        if only in (None, G, name):
            fn()
