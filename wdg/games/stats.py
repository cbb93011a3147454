"""Statistics of a batch: win rates per bot and per seat with 95% Wilson
intervals, score distributions with a 95% interval of the mean, game
lengths; as a dict (JSON, English keys), CSV rows and a German text table.

A win counts 1, a shared win among k players 1/k (the game's returns), so a
win rate is the mean return of the bot or seat.

The text prints proportions (win rates, shares) with their Wilson interval
as ``[low, high]`` and means (scores, differences) with the half-width of
their normal 95% interval as ``± h``; numbers use the decimal point (these
are tables for analysis, docs/german.md).
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
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


def mean_ci(values: list[float]) -> dict[str, Any]:
    """Mean with a normal 95% interval (the games are independent); ``n``
    values, ``equal`` when they are all the same (then the interval has no
    width, which says nothing about certainty)."""
    arr = np.asarray(values, dtype=float)
    n = len(arr)
    mean = float(arr.mean()) if n else 0.0
    equal = bool(n) and bool(np.all(arr == arr[0]))
    if n < 2:
        return {"n": n, "mean": mean, "ci95": [mean, mean], "equal": equal}
    half = Z95 * float(arr.std(ddof=1)) / math.sqrt(n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half], "equal": equal}


def distribution(values: list[float]) -> dict[str, Any]:
    """Mean (with its 95% interval, ``mean_ci95``), standard deviation,
    quantiles and a histogram of ``values``."""
    arr = np.asarray(values, dtype=float)
    q = np.quantile(arr, [0.1, 0.25, 0.5, 0.75, 0.9])
    uniq, counts = np.unique(arr, return_counts=True)
    return {
        "n": int(len(arr)), "mean": float(arr.mean()), "mean_ci95": mean_ci(values)["ci95"],
        "std": float(arr.std()), "min": float(arr.min()),
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
    labels = {"end": dict(getattr(game, "end_labels", {})),
              "figures": dict(getattr(game, "figure_labels", {}))}
    return {
        **meta,
        "games": len(results),
        "bots": _bot_groups(by_bot, n, results if meta.get("paired") else None),
        "seats": {str(s): _group(*by_seat[s]) for s in range(n)},
        "shared_wins": shared,
        "full_ties": full,
        "ending": _endings(results, labels),
        "length": {"actions": distribution([r.actions for r in results]),
                   "decisions": distribution([r.decisions for r in results])},
        "design": _design(results, game),
    }


def _bot_groups(by_bot: dict[str, tuple[int, float, list[float]]], n: int,
                paired: list[GameSummary] | None = None) -> dict[str, Any]:
    """Per bot its group; where one bot plays every seat its win rate is
    1/n by construction (the returns of a game add up to 1): no interval
    then (``ci95`` None, ``fixed`` says why). For a paired batch
    (``paired``: its games, each seed in every seat rotation) the interval
    is the normal one of the mean over the seeds of the bot's win rate in
    the seed's games (``ci95_over_seeds``): the games of a seed are not
    independent."""
    out = {b: _group(*by_bot[b]) for b in sorted(by_bot)}
    if paired and len(out) > 1:
        seeds: dict[int, dict[str, list[float]]] = {}
        for r in paired:
            for b, x in zip(r.bots, r.returns):
                seeds.setdefault(r.seed, {}).setdefault(b, []).append(x)
        for b, g in out.items():
            shares = [sum(v[b]) / len(v[b]) for v in seeds.values() if b in v]
            lo, hi = mean_ci(shares)["ci95"]
            g["ci95"] = [max(0.0, lo), min(1.0, hi)]
            g["ci95_over_seeds"] = len(shares)
    if len(out) == 1:
        g = next(iter(out.values()))
        g["ci95"] = None
        g["fixed"] = f"1/{n}: jeder Sitz spielt diesen Bot"
    return out


def _design(results: list[GameSummary], game: Any) -> dict[str, Any]:
    from wdg.games.design import designer_stats  # here, not at the top: wdg.games.design imports this module
    return designer_stats(results, end_conditions=getattr(game, "end_conditions", ()),
                          end_caps=getattr(game, "end_caps", ()),
                          factions_fixed=getattr(game, "factions_fixed", False),
                          end_labels=getattr(game, "end_labels", {}),
                          no_faction_label=getattr(game, "no_faction_label", "ohne Seite"))


def end_label(end: str, labels: dict[str, str]) -> str:
    """The German name of an end cause (the cause itself where the game
    names none)."""
    return labels.get(end, end)


def _endings(results: list[GameSummary], labels: dict[str, dict[str, str]]) -> dict[str, Any]:
    """How the games ended (the games' ``end_info``): the count of each
    ``end`` cause and the mean of every numeric figure; ``labels``: their
    German names (for the text; the keys stay the games' own)."""
    causes: dict[str, int] = {}
    figures: dict[str, list[float]] = {}
    for r in results:
        for key, value in r.info:
            if key == "end":
                causes[str(value)] = causes.get(str(value), 0) + 1
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                figures.setdefault(key, []).append(float(value))
    return {"causes": dict(sorted(causes.items())),
            "means": {k: float(np.mean(v)) for k, v in sorted(figures.items())},
            "labels": {k: end_label(k, labels["end"]) for k in sorted(causes)},
            "figure_labels": {k: labels["figures"].get(k, k) for k in sorted(figures)}}


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
                        *((_fmt(g["ci95"][0]), _fmt(g["ci95"][1])) if g["ci95"] else ("", "")), _fmt(sc["mean"]), _fmt(sc["std"]),
                        _fmt(sc["min"]), _fmt(sc["p25"]), _fmt(sc["median"]), _fmt(sc["p75"]),
                        _fmt(sc["max"])])
    for name, d in summary["length"].items():
        w.writerow(["length", name, summary["games"], "", "", "", "", _fmt(d["mean"]), _fmt(d["std"]),
                    _fmt(d["min"]), _fmt(d["p25"]), _fmt(d["median"]), _fmt(d["p75"]), _fmt(d["max"])])
    return out.getvalue()


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def to_text(summary: dict[str, Any]) -> str:
    """The statistics as German tables (at most 100 columns)."""
    lines = fit(f"{summary.get('game', '')}: {summary['games']} Partien, "
                f"{summary['shared_wins']} mit geteiltem Sieg, "
                f"{summary.get('full_ties', 0)} volle Gleichstände (alle teilen den Sieg)")
    ending = summary.get("ending") or {}
    names = ending.get("labels", {})
    if ending.get("causes"):
        lines.extend(wrap("Ende durch:", [f"{names.get(k, k)} {v}" for k, v in ending["causes"].items()]))
    if ending.get("means"):
        figs = ending.get("figure_labels", {})
        lines.extend(wrap("Am Ende (Mittel):", [f"{figs.get(k, k)} {v:.2f}"
                                                for k, v in ending["means"].items()]))
    for group, title in (("bots", "Bot"), ("seats", "Sitz")):
        lines.extend(group_table(title, summary[group]))
        fixed = [g["fixed"] for g in summary[group].values() if g.get("fixed")]
        if fixed:
            lines.append(f"  (fest: Siegrate {fixed[0]}; kein Intervall)")
        seeds = [g["ci95_over_seeds"] for g in summary[group].values() if g.get("ci95_over_seeds")]
        if seeds:
            lines.append(f"  (gepaart: jeder der {seeds[0]} Seeds in jeder Sitzdrehung gespielt; "
                         f"95%-KI der Siegrate über die Seeds)")
    for name, title in (("actions", "Aktionen"), ("decisions", "Entscheidungen")):
        d = summary["length"].get(name)
        if d:
            lines.append(f"Länge ({title}): Mittel {d['mean']:.1f}, sd {d['std']:.1f}, "
                         f"Median {d['median']:.0f}, min {d['min']:.0f}, max {d['max']:.0f}")
    if summary.get("design"):
        from wdg.games.design import to_text as design_text  # here, not at the top: wdg.games.design imports this module
        lines.append(design_text(summary["design"]))
    return "\n".join(lines)


def pm(ci: list[float], digits: int = 2) -> str:
    """The half-width of a symmetric interval, ``± h``."""
    return f"± {(ci[1] - ci[0]) / 2:.{digits}f}"


def games_word(k: int) -> str:
    """``1 Partie``, ``2 Partien``."""
    return f"{k} Partie" if k == 1 else f"{k} Partien"


def fit(line: str, width: int = 100) -> list[str]:
    """``line`` broken at spaces into lines of at most ``width`` columns,
    continuation lines indented."""
    if len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False,
                         break_long_words=False)


def wrap(head: str, items: list[str], width: int = 100, indent: str = "  ") -> list[str]:
    """``head`` and the comma-separated ``items``, wrapped at ``width``
    columns between items, the continuation lines indented by ``indent``."""
    out, line = [], head
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(piece) > width and line != head:
            out.append(line)
            line = indent + piece
        else:
            line = f"{line} {piece}" if line else piece
    out.append(line)
    return out


RATE_HEAD = f"{'Partien':>7}  {'Siegrate':>8} {'95%-KI':<14}  {'Punkte':>7} {'95%-KI':<7}"
"""The columns of a group's win rate and score mean (see :func:`rate_cells`)."""


def rate_cells(g: dict[str, Any]) -> str:
    """A group's games, win rate with its Wilson interval and score mean
    with the half-width of its 95% interval, under :data:`RATE_HEAD`."""
    sc = g["score"]
    ci = f"[{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}]" if g["ci95"] else f"{'(fest)':<14}"
    return (f"{g['games']:>7}  {g['win_rate']:>8.3f} {ci}  "
            f"{sc['mean']:>7.2f} {pm(sc['mean_ci95']):<7}")


def group_table(title: str, groups: dict[str, Any]) -> list[str]:
    """A table of win rates (Wilson interval) and score means (± the half
    width of their 95% interval) with spread, one row per group; the first
    column as wide as its longest label."""
    width = max([len(title)] + [len(str(g.get("label", k))) for k, g in groups.items()])
    out = [f"{title:<{width}}  {RATE_HEAD}  {'sd':>6} {'Median':>6} {'min':>5} {'max':>5}"]
    for name, g in groups.items():
        sc = g["score"]
        out.append(f"{str(g.get('label', name)):<{width}}  {rate_cells(g)}  {sc['std']:>6.2f} "
                   f"{sc['median']:>6.1f} {sc['min']:>5.0f} {sc['max']:>5.0f}")
    return out
