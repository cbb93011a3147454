"""Statistics of a batch: win rates per bot and per seat with 95% Wilson
intervals, score distributions, game lengths; as a dict (JSON), CSV rows and
a text table.

A win counts 1, a shared win among k players 1/k (the game's returns), so a
win rate is the mean return of the bot or seat.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

import numpy as np

from wdg.games.batch import GameSummary

Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def distribution(values: list[float]) -> dict[str, Any]:
    """Mean, standard deviation, quantiles and a histogram of ``values``."""
    arr = np.asarray(values, dtype=float)
    q = np.quantile(arr, [0.1, 0.25, 0.5, 0.75, 0.9])
    uniq, counts = np.unique(arr, return_counts=True)
    return {
        "mean": float(arr.mean()), "std": float(arr.std()), "min": float(arr.min()),
        "p10": float(q[0]), "p25": float(q[1]), "median": float(q[2]), "p75": float(q[3]),
        "p90": float(q[4]), "max": float(arr.max()),
        "histogram": {_key(v): int(c) for v, c in zip(uniq, counts)},
    }


def _key(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _group(games: int, wins: float, scores: list[float]) -> dict[str, Any]:
    lo, hi = wilson(wins, games)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else 0.0,
            "ci95": [lo, hi], "score": distribution(scores) if scores else None}


def summarize(results: list[GameSummary], meta: dict[str, Any], game: Any = None) -> dict[str, Any]:
    """All statistics of a batch as plain data (for JSON); with the ``game``
    (its end conditions and whether its factions are dealt) the designer's
    part too (:mod:`wdg.games.design`)."""
    n = len(results[0].scores)
    by_bot: dict[str, tuple[int, float, list[float]]] = {}
    by_seat = [(0, 0.0, []) for _ in range(n)]  # type: list[tuple[int, float, list[float]]]
    for r in results:
        for s in range(n):
            g, w, sc = by_bot.get(r.bots[s], (0, 0.0, []))
            sc.append(r.scores[s])
            by_bot[r.bots[s]] = (g + 1, w + r.returns[s], sc)
            g, w, sc = by_seat[s]
            sc.append(r.scores[s])
            by_seat[s] = (g + 1, w + r.returns[s], sc)
    shared = sum(1 for r in results if max(r.returns) < 1.0)
    full = sum(1 for r in results if n > 1 and min(r.returns) > 0.0)
    return {
        **meta,
        "games": len(results),
        "bots": {b: _group(*by_bot[b]) for b in sorted(by_bot)},
        "seats": {str(s): _group(*by_seat[s]) for s in range(n)},
        "shared_wins": shared,
        "full_ties": full,
        "ending": _endings(results),
        "length": {"actions": distribution([r.actions for r in results]),
                   "decisions": distribution([r.decisions for r in results])},
        "design": _design(results, game),
    }


def _design(results: list[GameSummary], game: Any) -> dict[str, Any]:
    from wdg.games.design import designer_stats
    return designer_stats(results, end_conditions=getattr(game, "end_conditions", ()),
                          end_caps=getattr(game, "end_caps", ()),
                          factions_fixed=getattr(game, "factions_fixed", False))


def _endings(results: list[GameSummary]) -> dict[str, Any]:
    """How the games ended (the games' ``end_info``): the count of each
    ``end`` cause and the mean of every numeric figure."""
    causes: dict[str, int] = {}
    figures: dict[str, list[float]] = {}
    for r in results:
        for key, value in r.info:
            if key == "end":
                causes[str(value)] = causes.get(str(value), 0) + 1
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                figures.setdefault(key, []).append(float(value))
    return {"causes": dict(sorted(causes.items())),
            "means": {k: float(np.mean(v)) for k, v in sorted(figures.items())}}


CSV_FIELDS = ("group", "name", "games", "wins", "win_rate", "ci95_low", "ci95_high",
              "score_mean", "score_std", "score_min", "score_p25", "score_median",
              "score_p75", "score_max")


def to_csv(summary: dict[str, Any]) -> str:
    """One row per bot and per seat, then the game length rows."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for group in ("bots", "seats"):
        for name, g in summary[group].items():
            sc = g["score"]
            w.writerow([group[:-1], name, g["games"], _fmt(g["wins"]), _fmt(g["win_rate"]),
                        _fmt(g["ci95"][0]), _fmt(g["ci95"][1]), _fmt(sc["mean"]), _fmt(sc["std"]),
                        _fmt(sc["min"]), _fmt(sc["p25"]), _fmt(sc["median"]), _fmt(sc["p75"]),
                        _fmt(sc["max"])])
    for name, d in summary["length"].items():
        w.writerow(["length", name, summary["games"], "", "", "", "", _fmt(d["mean"]), _fmt(d["std"]),
                    _fmt(d["min"]), _fmt(d["p25"]), _fmt(d["median"]), _fmt(d["p75"]), _fmt(d["max"])])
    return out.getvalue()


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def to_text(summary: dict[str, Any]) -> str:
    """A readable table of the statistics."""
    lines = [f"{summary.get('game', '')}: {summary['games']} games, "
             f"{summary['shared_wins']} shared wins, {summary.get('full_ties', 0)} full ties"]
    ending = summary.get("ending") or {}
    if ending.get("causes"):
        lines.append("ended by: " + ", ".join(f"{k} {v}" for k, v in ending["causes"].items()))
    if ending.get("means"):
        lines.append("at the end (mean): " + ", ".join(f"{k} {v:.2f}" for k, v in ending["means"].items()))
    for group, title in (("bots", "bot"), ("seats", "seat")):
        lines.append(f"{title:>8} {'games':>7} {'win rate':>9} {'95% CI':>17} "
                     f"{'score mean':>11} {'sd':>6} {'median':>7} {'min':>5} {'max':>5}")
        for name, g in summary[group].items():
            sc = g["score"]
            lines.append(f"{name:>8} {g['games']:>7} {g['win_rate']:>9.3f} "
                         f"[{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}] {sc['mean']:>11.2f} "
                         f"{sc['std']:>6.2f} {sc['median']:>7.1f} {sc['min']:>5.0f} {sc['max']:>5.0f}")
    for name, d in summary["length"].items():
        lines.append(f"length ({name}): mean {d['mean']:.1f}, sd {d['std']:.1f}, "
                     f"median {d['median']:.0f}, min {d['min']:.0f}, max {d['max']:.0f}")
    if summary.get("design"):
        from wdg.games.design import to_text as design_text
        lines.append(design_text(summary["design"]))
    return "\n".join(lines)
