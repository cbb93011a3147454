"""Statistics a game designer balances with: win rates by turn position, by
the last turn, by faction and by end condition, margins of victory and
score differences with intervals, a fairness check, flags for degenerate
batches, and the comparison of two rule variants on the same seeds.

Every win rate is the mean return (a shared win among k counts 1/k), so
in every game the returns add up to 1 and a fair game gives each seat,
each turn position and each faction dealt at random a win rate of 1/n.

The fairness check compares each group's win rate with 1/n. With many
groups some interval misses 1/n by chance alone, so the intervals of the
check are Wilson intervals at the Bonferroni-corrected level
``1 - 0.05 / m`` for the ``m`` groups it tests (at most one false flag in
twenty fair batches); the tables show the ordinary 95 % intervals.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

from wdg.games.batch import GameSummary
from wdg.games.stats import Z95, distribution, wilson

ALPHA = 0.05
"""The fairness check's family-wise error rate."""
SHORT_GAME_SHARE = 0.25
"""A game with fewer decisions than this share of the batch's median is
flagged as short (e.g. everyone passing after a few actions)."""


def _rate(wins: float, games: int, z: float = Z95) -> dict[str, Any]:
    lo, hi = wilson(wins, games, z)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else 0.0, "ci95": [lo, hi]}


def _mean_ci(values: list[float]) -> dict[str, Any]:
    """Mean with a normal 95 % interval (the games are independent)."""
    arr = np.asarray(values, dtype=float)
    n = len(arr)
    mean = float(arr.mean()) if n else 0.0
    if n < 2:
        return {"n": n, "mean": mean, "ci95": [mean, mean]}
    half = Z95 * float(arr.std(ddof=1)) / math.sqrt(n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half]}


def position(r: GameSummary, seat: int) -> int | None:
    """``seat``'s turn position in game ``r`` (1 = the start player), or
    ``None`` where the game has no start player."""
    if r.start < 0:
        return None
    return (seat - r.start) % len(r.scores) + 1


def _groups(results: list[GameSummary]) -> dict[str, dict[str, list[int]]]:
    """Per kind of group ("seat", "position", "last_turn", "faction") and
    per group value: the indices ``game * n + seat`` of its members."""
    n = len(results[0].scores)
    out: dict[str, dict[str, list[int]]] = {"seat": {}, "position": {}, "last_turn": {}, "faction": {}}
    for i, r in enumerate(results):
        for s in range(n):
            k = i * n + s
            out["seat"].setdefault(str(s), []).append(k)
            pos = position(r, s)
            if pos is not None:
                out["position"].setdefault(str(pos), []).append(k)
            if r.last >= 0:
                out["last_turn"].setdefault("ja" if r.last == s else "nein", []).append(k)
            if r.factions:
                out["faction"].setdefault(r.factions[s], []).append(k)
    return {kind: dict(sorted(g.items())) for kind, g in out.items() if g}


def designer_stats(results: list[GameSummary], *, end_conditions: tuple[str, ...] = (),
                   end_caps: tuple[str, ...] = (), factions_fixed: bool = False) -> dict[str, Any]:
    """The designer's part of a batch's statistics (plain data, for JSON)."""
    n = len(results[0].scores)
    returns = [x for r in results for x in r.returns]
    scores = [x for r in results for x in r.scores]
    groups = _groups(results)
    by: dict[str, Any] = {}
    for kind, members in groups.items():
        by[kind] = {}
        for name, ks in members.items():
            g = _rate(sum(returns[k] for k in ks), len(ks))
            g["score"] = distribution([scores[k] for k in ks])
            g["score_vs_others"] = _mean_ci([scores[k] - _others_mean(results[k // n].scores, k % n)
                                             for k in ks])
            by[kind][name] = g
    out: dict[str, Any] = {"by": by, "by_end": _by_end(results), "margin": _margins(results)}
    same_bot = len({b for r in results for b in r.bots}) == 1
    out["fairness"] = fairness(results, groups, factions_fixed) if same_bot else {
        "tested": False, "why": "not every seat plays the same bot", "flags": []}
    out["degenerate"] = degenerate(results, end_conditions, end_caps)
    return out


def _others_mean(scores: tuple[float, ...], seat: int) -> float:
    others = [x for q, x in enumerate(scores) if q != seat]
    return sum(others) / len(others) if others else 0.0


def _by_end(results: list[GameSummary]) -> dict[str, Any]:
    """Per end condition: how often, and the win rate by turn position."""
    out: dict[str, Any] = {}
    total = len(results)
    ends: dict[str, list[GameSummary]] = {}
    for r in results:
        ends.setdefault(str(dict(r.info).get("end", "?")), []).append(r)
    for end, games in sorted(ends.items()):
        lo, hi = wilson(len(games), total)
        entry: dict[str, Any] = {"games": len(games), "share": len(games) / total, "ci95": [lo, hi]}
        pos: dict[str, list[float]] = {}
        for r in games:
            for s in range(len(r.scores)):
                p = position(r, s)
                if p is not None:
                    pos.setdefault(str(p), []).append(r.returns[s])
        entry["positions"] = {p: _rate(sum(v), len(v)) for p, v in sorted(pos.items())}
        out[end] = entry
    return out


def _margins(results: list[GameSummary]) -> dict[str, Any] | None:
    """The winner's lead over the runner-up, in games with one winner."""
    m = []
    for r in results:
        if max(r.returns) >= 1.0:
            ordered = sorted(r.scores, reverse=True)
            m.append(ordered[0] - ordered[1] if len(ordered) > 1 else ordered[0])
    return distribution(m) if m else None


def fairness(results: list[GameSummary], groups: dict[str, dict[str, list[int]]] | None = None,
             factions_fixed: bool = False) -> dict[str, Any]:
    """Compare the win rate of every seat, turn position, last-turn group and
    (where factions are dealt or chosen before the result) faction with 1/n;
    a group whose corrected interval excludes 1/n is flagged."""
    n = len(results[0].scores)
    if groups is None:
        groups = _groups(results)
    returns = [x for r in results for x in r.returns]
    kinds = [k for k in ("seat", "position", "last_turn", "faction")
             if k in groups and (k != "faction" or factions_fixed)]
    tested = [(k, name, ks) for k in kinds for name, ks in groups[k].items()]
    m = max(1, len(tested))
    z = NormalDist().inv_cdf(1 - ALPHA / (2 * m))
    expect = 1.0 / n
    checks = []
    flags = []
    for kind, name, ks in tested:
        wins = sum(returns[k] for k in ks)
        lo, hi = wilson(wins, len(ks), z)
        entry = {"group": kind, "name": name, "games": len(ks), "win_rate": wins / len(ks),
                 "interval": [lo, hi], "expected": expect, "flag": not lo <= expect <= hi}
        checks.append(entry)
        if entry["flag"]:
            flags.append(entry)
    return {"tested": True, "expected": expect, "level": 1 - ALPHA / m, "z": z,
            "checks": checks, "flags": flags}


def degenerate(results: list[GameSummary], end_conditions: tuple[str, ...] = (),
               end_caps: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Flags for a batch that may mislead: an end condition of the book that
    never occurs, a safety limit that ends games, games far shorter than the
    median, full ties at zero."""
    flags: list[dict[str, Any]] = []
    ends = [str(dict(r.info).get("end", "")) for r in results]
    for e in end_conditions:
        if e not in ends:
            flags.append({"kind": "end never occurs", "end": e, "games": len(results),
                          "text": f"Ende {e!r} kommt in {len(results)} Partien nie vor"})
    for e in end_caps:
        k = ends.count(e)
        if k:
            flags.append({"kind": "safety limit ends games", "end": e, "count": k,
                          "text": f"{k} Partien enden durch die Sicherheitsgrenze {e!r}"})
    median = float(np.median([r.decisions for r in results]))
    bound = SHORT_GAME_SHARE * median
    short = [r for r in results if r.decisions < bound]
    if short:
        shortest = min(short, key=lambda r: r.decisions)
        flags.append({"kind": "short games", "count": len(short), "bound": bound,
                      "shortest": {"index": shortest.index, "decisions": shortest.decisions,
                                   "end": dict(shortest.info).get("end", "")},
                      "text": f"{len(short)} Partien mit weniger als {bound:.0f} Entscheidungen "
                              f"(ein Viertel des Medians), die kürzeste mit {shortest.decisions}"})
    zero = sum(1 for r in results if len(r.scores) > 1 and max(r.scores) == 0 == min(r.scores))
    if zero:
        flags.append({"kind": "all-zero ties", "count": zero, "share": zero / len(results),
                      "text": f"{zero} von {len(results)} Partien enden unentschieden bei 0 Punkten"})
    return flags


def compare(base: list[GameSummary], variant: list[GameSummary]) -> dict[str, Any]:
    """Two batches of the same seeds and bots under two rule variants: per
    seat and turn position the difference of win rate and mean score
    (variant minus base) with a 95 % interval from the paired games."""
    if [r.seed for r in base] != [r.seed for r in variant]:
        raise ValueError("compare needs two batches of the same seeds")
    n = len(base[0].scores)
    out: dict[str, Any] = {"games": len(base)}
    for kind in ("seat", "position"):
        table: dict[str, Any] = {}
        for key in [str(s) for s in range(n)] if kind == "seat" else [str(p) for p in range(1, n + 1)]:
            d_ret, d_score = [], []
            for a, b in zip(base, variant):
                sa = _seat_of(a, kind, int(key))
                sb = _seat_of(b, kind, int(key))
                if sa is None or sb is None:
                    continue
                d_ret.append(b.returns[sb] - a.returns[sa])
                d_score.append(b.scores[sb] - a.scores[sa])
            if d_ret:
                table[key] = {"win_rate_diff": _mean_ci(d_ret), "score_diff": _mean_ci(d_score)}
        out[kind] = table
    lengths = [b.decisions - a.decisions for a, b in zip(base, variant)]
    out["decisions_diff"] = _mean_ci([float(x) for x in lengths])
    out["margin_base"] = _margins(base)
    out["margin_variant"] = _margins(variant)
    return out


def _seat_of(r: GameSummary, kind: str, key: int) -> int | None:
    if kind == "seat":
        return key
    if r.start < 0:
        return None
    return (r.start + key - 1) % len(r.scores)


def to_text(d: dict[str, Any]) -> str:
    """The designer's tables, for the terminal."""
    lines = []
    titles = {"position": "Zugposition (1 = Startspieler)", "last_turn": "letzter Zug",
              "faction": "Seite", "seat": "Sitz"}
    for kind in ("position", "last_turn", "faction"):
        if kind not in d["by"]:
            continue
        lines.append(f"{titles[kind]}:")
        lines.append(f"  {'':>16} {'n':>6} {'win rate':>9} {'95% CI':>16} {'score':>8} {'vs others (95% CI)':>26}")
        for name, g in d["by"][kind].items():
            v = g["score_vs_others"]
            lines.append(f"  {name:>16} {g['games']:>6} {g['win_rate']:>9.3f} "
                         f"[{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}] {g['score']['mean']:>8.2f} "
                         f"{v['mean']:>+8.2f} [{v['ci95'][0]:+.2f}, {v['ci95'][1]:+.2f}]")
    if d["by_end"]:
        lines.append("Ende:")
        for end, e in d["by_end"].items():
            pos = ", ".join(f"{p}: {g['win_rate']:.2f}" for p, g in e["positions"].items())
            lines.append(f"  {end}: {e['games']} ({e['share']:.1%})" + (f"; Sieg nach Position {pos}" if pos else ""))
    if d["margin"]:
        m = d["margin"]
        lines.append(f"Vorsprung des Siegers: Mittel {m['mean']:.2f}, Median {m['median']:.1f}, "
                     f"p10 {m['p10']:.1f}, p90 {m['p90']:.1f}")
    f = d["fairness"]
    if f["tested"]:
        lines.append(f"Fairness (erwartet {f['expected']:.3f}, Intervalle auf {f['level']:.4f}): "
                     + ("keine Auffälligkeit" if not f["flags"] else f"{len(f['flags'])} Auffälligkeit(en)"))
        for e in f["flags"]:
            lines.append(f"  AUFFÄLLIG: {titles[e['group']]} {e['name']}: {e['win_rate']:.3f} "
                         f"[{e['interval'][0]:.3f}, {e['interval'][1]:.3f}] bei {e['games']} Partien")
    else:
        lines.append(f"Fairness: nicht geprüft ({f['why']})")
    for flag in d["degenerate"]:
        lines.append(f"ENTARTET: {flag['text']}")
    return "\n".join(lines)


def compare_text(c: dict[str, Any], label: str) -> str:
    """The variant comparison, for the terminal."""
    lines = [f"Vergleich {label} gegen die Grundregeln, {c['games']} Partien mit denselben Seeds "
             f"(Variante minus Grundregel, 95% CI):"]
    for kind, title in (("position", "Zugposition"), ("seat", "Sitz")):
        for key, row in c[kind].items():
            w, s = row["win_rate_diff"], row["score_diff"]
            lines.append(f"  {title} {key}: Siegrate {w['mean']:+.3f} [{w['ci95'][0]:+.3f}, {w['ci95'][1]:+.3f}], "
                         f"Punkte {s['mean']:+.2f} [{s['ci95'][0]:+.2f}, {s['ci95'][1]:+.2f}]")
    dd = c["decisions_diff"]
    lines.append(f"  Partielänge (Entscheidungen): {dd['mean']:+.1f} [{dd['ci95'][0]:+.1f}, {dd['ci95'][1]:+.1f}]")
    return "\n".join(lines)
