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
A faction entry of a player without a side (:data:`NO_FACTION`, 4 Gods: no
god chosen) is listed but not tested: it is no side to balance, and its
player scores nothing. Each tested faction is compared with its fair
share, 1/n, or in games where some players have no side the share of the
others (what those players leave, split evenly).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

from wdg.games.base import NO_FACTION
from wdg.games.batch import GameSummary
from wdg.games.stats import (
    RATE_HEAD, Z95, distribution, end_label, fit, games_word, mean_ci, pm, rate_cells, wilson, wrap,
)

ALPHA = 0.05
"""The fairness check's family-wise error rate."""
SHORT_GAME_SHARE = 0.25
"""A game with fewer decisions than this share of the batch's median is
flagged as short (e.g. everyone passing after a few actions)."""


def _rate(wins: float, games: int, z: float = Z95) -> dict[str, Any]:
    lo, hi = wilson(wins, games, z)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else 0.0, "ci95": [lo, hi]}


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
                   end_caps: tuple[str, ...] = (), factions_fixed: bool = False,
                   end_labels: dict[str, str] | None = None,
                   no_faction_label: str = "ohne Seite") -> dict[str, Any]:
    """The designer's part of a batch's statistics (plain data, for JSON);
    ``end_labels``: the German names of the end causes, ``no_faction_label``
    the name of :data:`NO_FACTION` in the text."""
    labels = dict(end_labels or {})
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
            g["score_vs_others"] = mean_ci([scores[k] - _others_mean(results[k // n].scores, k % n)
                                             for k in ks])
            if kind == "faction" and name == NO_FACTION:
                g["label"] = no_faction_label
            by[kind][name] = g
    out: dict[str, Any] = {"by": by, "by_end": _by_end(results, labels), "margin": _margins(results)}
    same_bot = len({b for r in results for b in r.bots}) == 1
    out["fairness"] = fairness(results, groups, factions_fixed) if same_bot else {
        "tested": False, "why": "not every seat plays the same bot",
        "why_de": "nicht jeder Sitz spielt denselben Bot", "flags": []}
    if out["fairness"]["tested"] and NO_FACTION in groups.get("faction", {}):
        out["fairness"]["untested"] = [{"group": "faction", "name": NO_FACTION, "label": no_faction_label,
                                        "games": len(groups["faction"][NO_FACTION]),
                                        "why": "no side: the player has no faction"}]
    out["degenerate"] = degenerate(results, end_conditions, end_caps, labels)
    return out


def _others_mean(scores: tuple[float, ...], seat: int) -> float:
    others = [x for q, x in enumerate(scores) if q != seat]
    return sum(others) / len(others) if others else 0.0


def _by_end(results: list[GameSummary], labels: dict[str, str] | None = None) -> dict[str, Any]:
    """Per end condition: how often (Wilson interval), its German name, and
    the win rate by turn position."""
    out: dict[str, Any] = {}
    total = len(results)
    ends: dict[str, list[GameSummary]] = {}
    for r in results:
        ends.setdefault(str(dict(r.info).get("end", "?")), []).append(r)
    for end, games in sorted(ends.items()):
        lo, hi = wilson(len(games), total)
        entry: dict[str, Any] = {"games": len(games), "share": len(games) / total, "ci95": [lo, hi],
                                 "label": end_label(end, labels or {})}
        pos: dict[str, list[float]] = {}
        for r in games:
            for s in range(len(r.scores)):
                p = position(r, s)
                if p is not None:
                    pos.setdefault(str(p), []).append(r.returns[s])
        entry["positions"] = {p: _rate(sum(v), len(v)) for p, v in sorted(pos.items())}
        out[end] = entry
    return out


def _margin_values(results: list[GameSummary]) -> list[float]:
    m = []
    for r in results:
        if max(r.returns) >= 1.0:
            ordered = sorted(r.scores, reverse=True)
            m.append(ordered[0] - ordered[1] if len(ordered) > 1 else ordered[0])
    return m


def _margins(results: list[GameSummary]) -> dict[str, Any] | None:
    """The winner's lead over the runner-up, in games with one winner: its
    distribution, ``n`` games and the 95 % interval of its mean."""
    m = _margin_values(results)
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
    tested = [(k, name, ks) for k in kinds for name, ks in groups[k].items()
              if not (k == "faction" and name == NO_FACTION)]
    m = max(1, len(tested))
    z = NormalDist().inv_cdf(1 - ALPHA / (2 * m))
    expect = 1.0 / n
    share = _fair_shares(results) if "faction" in kinds else []
    checks = []
    flags = []
    for kind, name, ks in tested:
        wins = sum(returns[k] for k in ks)
        lo, hi = wilson(wins, len(ks), z)
        want = sum(share[k] for k in ks) / len(ks) if kind == "faction" else expect
        entry = {"group": kind, "name": name, "games": len(ks), "win_rate": wins / len(ks),
                 "interval": [lo, hi], "expected": want, "flag": not lo <= want <= hi}
        checks.append(entry)
        if entry["flag"]:
            flags.append(entry)
    return {"tested": True, "expected": expect, "level": 1 - ALPHA / m, "z": z,
            "checks": checks, "flags": flags}


def _fair_shares(results: list[GameSummary]) -> list[float]:
    """Per player of every game (index ``game * n + seat``) the return a
    fair game gives him: 1/n, or where some players of the game have no
    faction, what they leave split evenly among the players with one."""
    n = len(results[0].scores)
    out: list[float] = []
    for r in results:
        none = [s for s in range(n) if r.factions and r.factions[s] == NO_FACTION]
        if not none or len(none) == n:
            out.extend([1.0 / n] * n)
            continue
        rest = (1.0 - sum(r.returns[s] for s in none)) / (n - len(none))
        out.extend(0.0 if s in none else rest for s in range(n))
    return out


def degenerate(results: list[GameSummary], end_conditions: tuple[str, ...] = (),
               end_caps: tuple[str, ...] = (), labels: dict[str, str] | None = None
               ) -> list[dict[str, Any]]:
    """Flags for a batch that may mislead: an end condition of the book that
    never occurs, a safety limit that ends games, games far shorter than the
    median, full ties at zero. ``labels``: the German names of the ends."""
    labels = labels or {}
    flags: list[dict[str, Any]] = []
    ends = [str(dict(r.info).get("end", "")) for r in results]
    for e in end_conditions:
        if e not in ends:
            flags.append({"kind": "end never occurs", "end": e, "games": len(results),
                          "text": f"Ende „{end_label(e, labels)}“ kommt in {len(results)} "
                                  f"Partien nie vor"})
    for e in end_caps:
        k = ends.count(e)
        if k:
            flags.append({"kind": "safety limit ends games", "end": e, "count": k,
                          "text": f"{k} Partien enden durch die Sicherheitsgrenze "
                                  f"„{end_label(e, labels)}“"})
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
    """Two batches of the same seeds and bots under two rule variants,
    variant minus base, each difference with a 95 % interval:

    every group the fairness check tests (:func:`fairness`: seat, turn
    position, last turn, faction), and more:

    - paired over the games of the same seed (the mean of the per-game
      differences and its normal interval): win rate and score per seat and
      per turn position (the seats both variants have), of the player who
      takes the last turn ("ja") and of the others ("nein", their mean),
      per faction where both batches give every seat of every game the
      same faction (factions dealt before play from the seed alone), the
      share of each end condition (a game's difference is -1, 0 or +1),
      the mean score of all players, the game length;
    - unpaired (the two batches' means, Welch's normal interval), where a
      game of one variant has no partner in the other: per faction where
      the factions differ between the batches (a side chosen during play,
      so the same seed need not give it the same player) and the margin of
      victory (only games with one winner have one)."""
    if [r.seed for r in base] != [r.seed for r in variant]:
        raise ValueError("compare needs two batches of the same seeds")
    n = min(len(base[0].scores), len(variant[0].scores))
    out: dict[str, Any] = {"games": len(base), "players": [len(base[0].scores), len(variant[0].scores)]}
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
                table[key] = {"win_rate_diff": mean_ci(d_ret), "score_diff": mean_ci(d_score)}
        out[kind] = table
    out["last_turn"] = _compare_last_turn(base, variant)
    out["faction"] = _compare_factions(base, variant)
    ends_a = [str(dict(r.info).get("end", "?")) for r in base]
    ends_b = [str(dict(r.info).get("end", "?")) for r in variant]
    out["end"] = {e: {"share_base": ends_a.count(e) / len(base), "share_variant": ends_b.count(e) / len(base),
                      "share_diff": mean_ci([float(b == e) - float(a == e) for a, b in zip(ends_a, ends_b)])}
                  for e in sorted(set(ends_a) | set(ends_b))}
    out["score_mean_diff"] = mean_ci([float(np.mean(b.scores) - np.mean(a.scores))
                                      for a, b in zip(base, variant)])
    lengths = [b.decisions - a.decisions for a, b in zip(base, variant)]
    out["decisions_diff"] = mean_ci([float(x) for x in lengths])
    out["margin_base"] = _margins(base)
    out["margin_variant"] = _margins(variant)
    out["margin_diff"] = unpaired_diff(_margin_values(base), _margin_values(variant))
    return out


def unpaired_diff(a: list[float], b: list[float]) -> dict[str, Any] | None:
    """The difference of the means of two independent samples, ``b`` minus
    ``a``, with Welch's normal 95 % interval; ``equal`` when neither sample
    varies (then the interval has no width)."""
    if not a or not b:
        return None
    ma, mb = float(np.mean(a)), float(np.mean(b))
    va = float(np.var(a, ddof=1)) / len(a) if len(a) > 1 else 0.0
    vb = float(np.var(b, ddof=1)) / len(b) if len(b) > 1 else 0.0
    half = Z95 * math.sqrt(va + vb)
    return {"n_base": len(a), "n_variant": len(b), "base": ma, "variant": mb, "mean": mb - ma,
            "ci95": [mb - ma - half, mb - ma + half], "equal": va == 0.0 and vb == 0.0}


def _compare_last_turn(base: list[GameSummary], variant: list[GameSummary]) -> dict[str, Any]:
    """The player who takes the last turn ("ja") and the others ("nein",
    their mean per game), paired over the games where both variants know
    who took it: both win rates and the difference of win rate and score."""
    pairs = [(a, b) for a, b in zip(base, variant) if a.last >= 0 and b.last >= 0]
    if not pairs:
        return {}

    def side(r: GameSummary, last: bool, values: tuple[float, ...]) -> float:
        if last:
            return values[r.last]
        rest = [x for s, x in enumerate(values) if s != r.last]
        return sum(rest) / len(rest) if rest else 0.0
    out: dict[str, Any] = {}
    for key, last in (("ja", True), ("nein", False)):
        ra = [side(a, last, a.returns) for a, _ in pairs]
        rb = [side(b, last, b.returns) for _, b in pairs]
        out[key] = {"games": len(pairs), "win_rate_base": float(np.mean(ra)),
                    "win_rate_variant": float(np.mean(rb)),
                    "win_rate_diff": mean_ci([y - x for x, y in zip(ra, rb)]),
                    "score_diff": mean_ci([side(b, last, b.scores) - side(a, last, a.scores)
                                           for a, b in pairs])}
    return out


def _compare_factions(base: list[GameSummary], variant: list[GameSummary]) -> dict[str, Any]:
    """Per faction both batches have (not :data:`NO_FACTION`): the
    difference of win rate and score — paired over the seeds where both
    batches give every seat of every game the same faction (per game the
    mean over the faction's players), else unpaired."""
    if all(a.factions and a.factions == b.factions for a, b in zip(base, variant)):
        return _compare_factions_paired(base, variant)
    def members(results: list[GameSummary]) -> dict[str, tuple[list[float], list[float]]]:
        out: dict[str, tuple[list[float], list[float]]] = {}
        for r in results:
            for s, f in enumerate(r.factions):
                if f != NO_FACTION:
                    ret, sc = out.setdefault(f, ([], []))
                    ret.append(r.returns[s])
                    sc.append(r.scores[s])
        return out
    a, b = members(base), members(variant)
    return {f: {"win_rate_diff": unpaired_diff(a[f][0], b[f][0]),
                "score_diff": unpaired_diff(a[f][1], b[f][1])}
            for f in sorted(set(a) & set(b))}


def _compare_factions_paired(base: list[GameSummary], variant: list[GameSummary]) -> dict[str, Any]:
    """:func:`_compare_factions` where every game deals its seats the same
    factions in both batches: per game the difference of the faction's
    players' mean return and score, with its normal interval."""
    facs = sorted({f for r in base for f in r.factions if f != NO_FACTION})
    out: dict[str, Any] = {}
    for f in facs:
        d_ret, d_score = [], []
        for a, b in zip(base, variant):
            seats = [s for s, x in enumerate(a.factions) if x == f]
            if seats:
                d_ret.append(sum(b.returns[s] - a.returns[s] for s in seats) / len(seats))
                d_score.append(sum(b.scores[s] - a.scores[s] for s in seats) / len(seats))
        out[f] = {"paired": True, "win_rate_diff": mean_ci(d_ret), "score_diff": mean_ci(d_score)}
    return out


def _seat_of(r: GameSummary, kind: str, key: int) -> int | None:
    if kind == "seat":
        return key
    if r.start < 0:
        return None
    return (r.start + key - 1) % len(r.scores)


TITLES = {"position": "Zugposition (1 = Startspieler)", "last_turn": "letzter Zug",
          "faction": "Seite", "seat": "Sitz"}


def to_text(d: dict[str, Any]) -> str:
    """The designer's tables, for the terminal (German, at most 100 columns):
    win rates with their Wilson interval ``[low, high]``, means with the
    half-width of their normal 95 % interval ``± h``."""
    lines = []
    for kind in ("position", "last_turn", "faction"):
        if kind not in d["by"]:
            continue
        lines.append(f"{TITLES[kind]}:")
        width = max(len(str(g.get("label", k))) for k, g in d["by"][kind].items())
        lines.append(f"  {'':<{width}}  {RATE_HEAD}  {'Abstand':>8} {'95%-KI'}")
        for name, g in d["by"][kind].items():
            v = g["score_vs_others"]
            lines.append(f"  {str(g.get('label', name)):<{width}}  {rate_cells(g)}  "
                         f"{v['mean']:>+8.2f} {pm(v['ci95'])}")
    if any(kind in d["by"] for kind in ("position", "last_turn", "faction")):
        lines.append("  (Abstand: Punkte minus Mittel der Mitspieler; ± halbe Breite des 95%-KI)")
    if d["by_end"]:
        lines.append("Ende (Anteil der Partien, 95%-KI; Siegrate nach Zugposition):")
        for end, e in d["by_end"].items():
            head = (f"  {e.get('label', end)}: {games_word(e['games'])}, {e['share']:.3f} "
                    f"[{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}]" + (";" if e["positions"] else ""))
            lines.extend(wrap(head, [f"{p}: {g['win_rate']:.2f}" for p, g in e["positions"].items()],
                              indent="    "))
    if d["margin"]:
        m = d["margin"]
        lines.append(f"Vorsprung des Siegers ({games_word(m['n'])} mit einem Sieger):")
        lines.append(f"  Mittel {m['mean']:.2f} {pm(m['mean_ci95'])}, Median {m['median']:.1f}, "
                     f"p10 {m['p10']:.1f}, p90 {m['p90']:.1f}")
    f = d["fairness"]
    if f["tested"]:
        lines.append(f"Fairness (erwartet {f['expected']:.3f}, Intervalle auf {f['level']:.4f}): "
                     + ("keine Auffälligkeit" if not f["flags"] else f"{len(f['flags'])} Auffälligkeit(en)"))
        for e in f["flags"]:
            want = "" if abs(e["expected"] - f["expected"]) < 1e-9 else f", erwartet {e['expected']:.3f}"
            lines.append(f"  AUFFÄLLIG: {TITLES[e['group']]} {e['name']}: {e['win_rate']:.3f} "
                         f"[{e['interval'][0]:.3f}, {e['interval'][1]:.3f}] bei {e['games']} Partien{want}")
        for e in f.get("untested", []):
            lines.append(f"  nicht geprüft: {TITLES[e['group']]} „{e['label']}“ ({e['games']}-mal; "
                         f"keine Seite, die sich ausgleichen ließe)")
    else:
        lines.append(f"Fairness: nicht geprüft ({f.get('why_de', f['why'])})")
    for flag in d["degenerate"]:
        lines.extend(fit(f"ENTARTET: {flag['text']}"))
    return "\n".join(lines)


def _paired(c: dict[str, Any], digits: int) -> str:
    """A paired difference: ``+x ± h``, or what holds in every game when
    the differences do not vary (no interval claims certainty then)."""
    if c["equal"]:
        if c["mean"] == 0:
            return f"gleich in allen {c['n']} Partien"
        return f"{c['mean']:+.{digits}f} in allen {c['n']} Partien"
    return f"{c['mean']:+.{digits}f} {pm(c['ci95'], digits)}"


def _unpaired(c: dict[str, Any] | None, digits: int) -> str:
    if c is None:
        return "nicht vergleichbar (eine Seite ohne Partien)"
    if c["equal"]:
        if c["mean"] == 0:
            return f"gleich, stets {c['base']:.{digits}f}"
        return f"stets {c['base']:.{digits}f} gegen stets {c['variant']:.{digits}f}"
    return f"{c['mean']:+.{digits}f} {pm(c['ci95'], digits)}"


def compare_text(c: dict[str, Any], label: str, end_labels: dict[str, str] | None = None,
                 faction_labels: dict[str, str] | None = None) -> str:
    """The variant comparison, for the terminal (German)."""
    names = end_labels or {}
    paired_factions = any(row.get("paired") for row in c.get("faction", {}).values())
    lines = [f"Vergleich {label} gegen die Grundregeln: {c['games']} Partien mit denselben Seeds",
             "(Variante minus Grundregeln, ± halbe Breite des 95%-KI; gepaart über dieselben Seeds,",
             " Vorsprung ungepaart)" if paired_factions else " Seite und Vorsprung ungepaart)"]
    players = c.get("players")
    if players and players[0] != players[1]:
        lines.append(f"  Spielerzahl {players[0]} → {players[1]}: Sitze und Zugpositionen 1 bis "
                     f"{min(players)} gepaart; eine faire Siegrate ist {1 / players[0]:.3f} → "
                     f"{1 / players[1]:.3f}")
    for kind, title in (("position", "Zugposition"), ("seat", "Sitz")):
        for key, row in c[kind].items():
            lines.append(f"  {title} {key}: Siegrate {_paired(row['win_rate_diff'], 3)}, "
                         f"Punkte {_paired(row['score_diff'], 2)}")
    for key, row in c.get("last_turn", {}).items():
        who = "wer den letzten Zug hat" if key == "ja" else "die anderen (Mittel)"
        lines.extend(fit(f"  letzter Zug {key} ({who}): Siegrate {row['win_rate_base']:.3f} → "
                         f"{row['win_rate_variant']:.3f}, Differenz {_paired(row['win_rate_diff'], 3)}, "
                         f"Punkte {_paired(row['score_diff'], 2)}"))
    for fac, row in c.get("faction", {}).items():
        show = _paired if row.get("paired") else _unpaired
        lines.append(f"  Seite {(faction_labels or {}).get(fac, fac)}: Siegrate "
                     f"{show(row['win_rate_diff'], 3)}, Punkte {show(row['score_diff'], 2)}")
    for end, row in c.get("end", {}).items():
        lines.append(f"  Ende „{names.get(end, end)}“: Anteil {row['share_base']:.3f} → "
                     f"{row['share_variant']:.3f}, Differenz {_paired(row['share_diff'], 3)}")
    md = c.get("margin_diff")
    if md is not None:
        lines.append(f"  Vorsprung des Siegers: {md['base']:.2f} ({md['n_base']} Partien) → "
                     f"{md['variant']:.2f} ({md['n_variant']}), Differenz {_unpaired(md, 2)}")
    if "score_mean_diff" in c:
        lines.append(f"  Punkte im Mittel aller Spieler: {_paired(c['score_mean_diff'], 2)}")
    lines.append(f"  Partielänge (Entscheidungen): {_paired(c['decisions_diff'], 1)}")
    return "\n".join(lines)
