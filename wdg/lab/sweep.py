"""A lab that sweeps: N seeds per rules set, every metric with a 95 % interval
and the paired difference between rules sets (``wdg lab SEG --seeds N``).

Seed ``s`` (1..N) is one campaign per rules set: the bots choose with seed
``s`` and the copy's segment gets the seed :func:`segment_seed` (from the
segment's own seed and ``s``), so the month's generator differs from seed to
seed — and is the same for every rules set at the same ``s``: the rules sets
are compared on the same seeds, and their difference per seed is a paired
sample. Each campaign is one task on an Executor: this process (``jobs=1``),
a local process pool (``jobs=N``) or a Dask cluster (``scheduler=``, the client
of :mod:`wdg.cluster`); the tasks return plain figures and are collected by
(rules set, seed), so the numbers are the same wherever they ran.

Intervals: Student's t over the seeds (mean ± t(0.975, n-1) · s / √n);
differences: the same over the per-seed differences ``B - A``.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wdg.campaign import Campaign
from wdg.cluster import connect
from wdg.errors import InvalidInputError, StateError
from wdg.lab.report import figures
from wdg.lab.run import assign_bots, run_campaign
from wdg.procs import kill_workers, process_pool
from wdg.store.segment import load_segment

METRICS: tuple[tuple[str, str], ...] = (
    ("battles", "Kämpfe (Heer gegen Heer)"),
    ("months_with_battles", "Monde mit Kampf"),
    ("settlements_changed_hands", "Siedlungen erobert"),
    ("gemarks_conquered", "Gemarken erobert"),
    ("treasury_end", "Reichsschätze am Ende (GS)"),
    ("soldiers_end", "Soldaten am Ende"),
    ("gemarks_end", "Gemarken der Reiche am Ende"),
    ("broke_at_end", "pleite am Ende (Reiche)"),
    ("empty_army_upkeep", "Unterhalt leerer Heere (GS)"),
    ("mine_share", "Anteil der Minen an den Einnahmen"),
    ("conservation_errors", "Erhaltungsfehler"),
    ("replay_failures", "Wiederholungsfehler"),
)
"""The sweep's metrics (key, German label), one number per campaign."""

T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""The 97.5 % quantile of Student's t for 1..30 degrees of freedom."""
Z975 = 1.959963984540054


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (table
    up to 30, then the Cornish-Fisher expansion, within 0.001)."""
    if df < 1:
        raise ValueError("df >= 1")
    if df <= len(T975):
        return T975[df - 1]
    z = Z975
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def interval(values: list[float]) -> dict[str, Any]:
    """Mean and 95 % interval (t) of ``values``; no width with one value."""
    arr = np.asarray(values, dtype=float)
    n = len(arr)
    mean = float(arr.mean()) if n else 0.0
    if n < 2:
        return {"n": n, "mean": mean, "ci95": [mean, mean]}
    half = t975(n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half]}


def segment_seed(base: int, s: int) -> int:
    """The copy's segment seed for seed ``s`` (a 31-bit number from
    ``SeedSequence([base, s])``)."""
    return int(np.random.SeedSequence([int(base), int(s)]).generate_state(1)[0] >> 1)


def campaign_metrics(fig: dict[str, Any]) -> dict[str, float]:
    """One campaign's figures (:func:`wdg.lab.report.figures`) as the sweep's numbers."""
    ks = fig["kingdoms"].values()
    return {"battles": fig["battles"], "months_with_battles": fig["months_with_battles"],
            "settlements_changed_hands": fig["settlements_changed_hands"],
            "gemarks_conquered": fig["gemarks_conquered"],
            "treasury_end": sum(k["treasury"] for k in ks),
            "soldiers_end": sum(k["soldiers"] for k in ks),
            "gemarks_end": sum(k["gemarks"] for k in ks),
            "broke_at_end": len(fig["broke_at_end"]),
            "empty_army_upkeep": fig["empty_army_upkeep"], "mine_share": fig["mine_share"],
            "conservation_errors": len(fig["conservation_errors"]),
            "replay_failures": len(fig["replay_failures"])}


def play_seed(root: str, segment: str, months: int, bots: dict[int, str], directory: str,
              rules: str, seed: int, label: str, replay: bool) -> dict[str, float]:
    """One campaign of the sweep (a task): its metrics."""
    camp = Campaign(Path(root))
    base = load_segment(camp.segment_dir(segment)).seed
    run = run_campaign(camp, segment, months=months, bots=bots, directory=Path(directory),
                       rules_dir=Path(rules), seed=seed, label=label, replay=replay,
                       segment_seed=segment_seed(base, seed))
    return campaign_metrics(figures(run))


@dataclass(slots=True)
class Sweep:
    """The sweep's numbers: per rules set and seed the metrics, their intervals,
    and the paired differences of each further rules set against the first."""

    segment: str
    months: int
    seeds: int
    labels: list[str]
    rules: list[str]
    values: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    """label -> metrics per seed (seed 1 first)."""
    summary: dict[str, dict[str, Any]] = field(default_factory=dict)
    """label -> metric -> interval."""
    differences: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``"B - A"`` -> metric -> interval of the per-seed differences."""

    def as_dict(self) -> dict[str, Any]:
        return {"segment": self.segment, "months": self.months, "seeds": self.seeds,
                "labels": self.labels, "rules": self.rules, "values": self.values,
                "summary": self.summary, "differences": self.differences}


def _labels(sets: list[Path]) -> list[str]:
    names = [p.name or str(p) for p in sets]
    if len(set(names)) == len(names):
        return names
    return [chr(ord("A") + i) if i < 26 else f"R{i + 1}" for i in range(len(sets))]


def run_sweep(camp: Campaign, segment: str, *, months: int, seeds: int,
              rules: list[Path] | None = None, bots: str | None = None, out: Path | None = None,
              jobs: int = 1, scheduler: str | None = None, executor: Executor | None = None,
              replay: bool = True) -> Sweep:
    """Play ``seeds`` campaigns per rules set (the campaign's rules first, then
    each of ``rules``) and summarize (see the module)."""
    if seeds < 1:
        raise InvalidInputError(f"--seeds {seeds}: erwartet mindestens 1")
    if months < 1:
        raise InvalidInputError("--months muß mindestens 1 sein")
    if jobs < 1:
        raise InvalidInputError(f"--jobs {jobs}: erwartet mindestens 1")
    if not (camp.segment_dir(segment) / "segment.yaml").is_file():
        raise StateError(f"kein Segment {segment!r} in {camp.worlds}")
    sets = [camp.rules_dir] + [Path(r) for r in rules or []]
    for r in sets:
        if not (r / "economy.yaml").is_file():
            raise InvalidInputError(f"--rules {r}: kein Regelverzeichnis (economy.yaml fehlt)")
    labels = _labels(sets)
    assigned = assign_bots(load_segment(camp.segment_dir(segment)), bots)
    out = Path(out) if out is not None else camp.root / "reports" / f"lab-{segment}-seeds"
    tasks = {(lab, s): (str(camp.root.resolve()), segment, months, assigned,
                        str((out / "campaigns" / f"{lab}-s{s}").resolve()), str(r.resolve()),
                        s, lab, replay)
             for r, lab in zip(sets, labels, strict=True) for s in range(1, seeds + 1)}
    got: dict[tuple[str, int], dict[str, float]] = {}
    close = None
    own = False
    if executor is None and scheduler is not None:
        executor, close = connect(scheduler)
    elif executor is None and jobs > 1:
        executor, own = process_pool(min(jobs, len(tasks))), True
        close = executor.shutdown
    try:
        if executor is None:
            for key, args in tasks.items():
                got[key] = play_seed(*args)
        else:
            futures = {executor.submit(play_seed, *args): key for key, args in tasks.items()}
            for fut in as_completed(futures):
                got[futures[fut]] = fut.result()
    except BaseException:
        if own and executor is not None:
            kill_workers(executor)
            executor.shutdown(wait=False, cancel_futures=True)
            close = None
        raise
    finally:
        if close is not None:
            close()
    sweep = Sweep(segment, months, seeds, labels, [str(r) for r in sets])
    for lab in labels:
        sweep.values[lab] = [got[(lab, s)] for s in range(1, seeds + 1)]
        sweep.summary[lab] = {m: interval([v[m] for v in sweep.values[lab]]) for m, _ in METRICS}
    first = labels[0]
    for lab in labels[1:]:
        sweep.differences[f"{lab} - {first}"] = {
            m: interval([b[m] - a[m] for a, b in zip(sweep.values[first], sweep.values[lab],
                                                        strict=True)]) for m, _ in METRICS}
    out.mkdir(parents=True, exist_ok=True)
    import json

    (out / "sweep.json").write_text(json.dumps(sweep.as_dict(), ensure_ascii=False, indent=1,
                                               sort_keys=True) + "\n", encoding="utf-8")
    (out / "sweep.txt").write_text("\n".join(sweep_lines(sweep)) + "\n", encoding="utf-8")
    return sweep


def _num(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v:,.0f}".replace(",", ".")
    if v == int(v):
        return f"{v:.0f}"
    return f"{v:.2f}"


def _cell(iv: dict[str, Any]) -> str:
    lo, hi = iv["ci95"]
    return f"{_num(iv['mean'])} [{_num(lo)}, {_num(hi)}]"


def sweep_lines(sweep: Sweep) -> list[str]:
    """The German table: per metric the mean [95 % interval] of each rules set
    and of each paired difference."""
    heads = sweep.labels + list(sweep.differences)
    out = [f"{sweep.segment}: {sweep.months} Monde, {sweep.seeds} Seeds je Regelsatz; "
           "Mittelwert [95-%-Intervall]"
           + ("; Differenz gepaart über dieselben Seeds" if sweep.differences else ""),
           f"{'Kennzahl':<36} " + " ".join(f"{h:<28}" for h in heads)]
    for m, label in METRICS:
        cells = [_cell(sweep.summary[lab][m]) for lab in sweep.labels]
        cells += [_cell(d[m]) for d in sweep.differences.values()]
        out.append(f"{label:<36} " + " ".join(f"{c:<28}" for c in cells))
    return [line.rstrip() for line in out]
