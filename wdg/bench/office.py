"""The world bench (``python -m wdg.bench --only world``): ``wdg world run`` of
a world of stress-size segments with one and with two workers.

A world of :data:`SEGMENTS` stress segments (``--quick``: :data:`QUICK_SEGMENTS`),
each the full stress segment of :mod:`wdg.world.stress` (60 kingdoms, 3,600
armies) with its generated sheets (:func:`wdg.bench.campaign.prepare_campaign`),
is resolved by ``python -m wdg world run --force --no-pdf --json`` on a fresh
copy: with ``--jobs 1`` pinned to one CPU, and with ``--jobs 2`` on two. The
figures: the wall time of each, the speed-up (target ≥ 1.6), the per-segment
seconds (the median of the tasks' own times with one worker) and the peak
resident memory per worker (the largest ``ru_maxrss`` a worker process
reported after its segments). Results in ``res.tables["world"]``:
``{"segments", "kingdoms", "workers": {"1": s, "2": s}, ...}``.

Text + HTML only: a month with every PDF costs about five times as much CPU
(the ``cli`` bench measures it for one segment); docs/performance.md, "The
world", projects a cluster from both.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from pathlib import Path
from typing import Any

from wdg.bench.campaign import prepare_campaign
from wdg.bench.cli import measure_rss
from wdg.bench.harness import Figure, Results, seconds_figure

G = "world"
SEGMENTS = 8
QUICK_SEGMENTS = 4
TARGET_SPEEDUP = 1.6


def _report(text: str) -> dict[str, Any]:
    """The ``--json`` document in the command's output."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"wdg world run printed no JSON: {text[-2000:]}")


def prepare_world(root: Path, segments: int) -> int:
    """Write ``segments`` stress segments into ``root``; returns the kingdoms."""
    from wdg.store.segment import load_segment

    for i in range(segments):
        prepare_campaign(1.0, root, name=f"seg{i + 1}")
    return sum(sum(1 for k in load_segment(root / "worlds" / f"seg{i + 1}").kingdoms.values()
                   if not k.city_state) for i in range(segments))


def run_all(work: Path, res: Results, quick: bool) -> None:
    """Build the world and resolve it with one and two workers (see the module)."""
    n = QUICK_SEGMENTS if quick else SEGMENTS
    prepared = work / "world-prepared"
    kingdoms = prepare_world(prepared, n)
    cores = sorted(os.sched_getaffinity(0))
    table: dict[str, Any] = {"segments": n, "kingdoms": kingdoms, "pdf": False,
                             "workers": {}, "cpu_s": {}, "per_segment_s": {},
                             "peak_rss_mib_per_worker": {}, "load_average": {}}
    for workers in (1, 2):
        if workers > len(cores):
            res.add(Figure(G, f"{n} segments, {workers} workers", None, "s",
                           note=f"this machine has {len(cores)} CPU"))
            continue
        root = work / "world-run"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(prepared, root)
        cpus = set(cores[:workers])
        args = ["world", "run", "--force", "--no-pdf", "--jobs", str(workers), "--json",
                "-C", str(root)]
        wall, text, rss, cpu = measure_rss(args, root, cpus)
        doc = _report(text)
        ran = [s for s in doc["segments"] if s["status"] == "done"]
        if len(ran) != n:
            raise RuntimeError(f"wdg world run: {n - len(ran)} segments not run: "
                               f"{[s['messages'] for s in doc['segments'] if s not in ran]}")
        per_worker: dict[str, int] = {}
        for s in ran:
            per_worker[s["worker"]] = max(per_worker.get(s["worker"], 0), s["peak_rss_kib"])
        key = str(workers)
        table["workers"][key] = round(wall, 2)
        table["cpu_s"][key] = round(cpu, 1)
        table.setdefault("cpu_per_segment_s", {})[key] = round(cpu / n, 2)
        table["per_segment_s"][key] = round(statistics.median(s["seconds"] for s in ran), 2)
        table["peak_rss_mib_per_worker"][key] = round(max(per_worker.values()) / 1024)
        table["load_average"][key] = [round(x, 2) for x in os.getloadavg()]
        res.add(seconds_figure(G, f"{n} segments x {kingdoms // n} kingdoms, {workers} "
                               f"worker{'s' if workers > 1 else ''}", [wall],
                               note=f"wdg world run --force --no-pdf --jobs {workers} on "
                               f"{workers} CPU; CPU {cpu:.1f} s; load "
                               f"{os.getloadavg()[0]:.1f}; median segment "
                               f"{table['per_segment_s'][key]:.1f} s"))
        res.add(Figure(G, f"CPU per segment (text + HTML), {workers} worker"
                       f"{'s' if workers > 1 else ''}", cpu / n, "s",
                       [cpu / n], note="user + system seconds of the command and its "
                       "workers, divided by the segments (does not depend on the load)"))
        res.add(Figure(G, f"peak memory per worker, {workers} worker"
                       f"{'s' if workers > 1 else ''}", max(per_worker.values()) / 1024, "MiB",
                       [max(per_worker.values()) / 1024],
                       note="largest ru_maxrss of a worker process after its segments "
                       f"(whole command incl. report workers: {rss // 1024} MiB)"))
    if "1" in table["workers"] and "2" in table["workers"]:
        speedup = table["workers"]["1"] / table["workers"]["2"]
        table["speedup"] = round(speedup, 2)
        res.add(Figure(G, "speed-up with 2 workers", speedup, "x", [speedup],
                       f">= {TARGET_SPEEDUP}", speedup >= TARGET_SPEEDUP,
                       "wall time with 1 worker on 1 CPU / with 2 workers on 2 CPUs; "
                       "noisy on a shared machine (load average in the table)"))
    res.tables["world"] = table
