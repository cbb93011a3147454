"""The lab's report folder: tables, figures, plots and an HTML page.

``<out>/metrics.csv`` (one row per rules set, month and kingdom),
``<out>/summary.yaml`` (the figures of :func:`figures`), ``<out>/plots/`` (one
chart per metric, PNG with matplotlib else SVG), ``<out>/index.html`` (the
page that shows them) and ``<out>/campaigns/<label>/`` (the copies played,
with their archives, for ``wdg turn replay``).
"""

from __future__ import annotations

import csv
import html
from pathlib import Path
from typing import Any

import yaml

from wdg.lab.metrics import CAUSES, KingdomMonth
from wdg.lab.plots import Panel, Series, draw, have_matplotlib
from wdg.lab.run import CampaignRun

METRICS: tuple[tuple[str, str, bool], ...] = (
    ("treasury", "Reichsschatz (GS)", False),
    ("income", "Einnahmen je Mond (GS)", False),
    ("income_mines", "davon Minen (GS)", False),
    ("income_settlements", "davon Siedlungen (GS)", False),
    ("morale", "Moral der Landheere (Mittel nach Soldaten)", False),
    ("costs", "Ausgaben je Mond (GS)", False),
    ("soldiers", "Soldaten", False),
    ("gemarks", "Gemarken", False),
    ("settlements", "Siedlungen", False),
    ("battles", "Kämpfe (kumuliert)", True),
    ("conquests", "Eroberte Gemarken (kumuliert)", True),
)
"""(field of KingdomMonth, German title, cumulative)."""
LOSS_CAUSES = tuple(dict.fromkeys(name for _p, name in CAUSES))


def figures(run: CampaignRun) -> dict[str, Any]:
    """What a game master reads first: war, conquest, wealth, waste, soundness."""
    months = run.months
    battle_months = [i for i, m in enumerate(months)
                     if sum(r.battles for r in m.kingdoms.values()) > 0]
    gaps = [b - a for a, b in zip(battle_months, battle_months[1:])]
    first, last = months[0].kingdoms, months[-1].kingdoms
    per_kingdom: dict[int, dict[str, Any]] = {}
    for k, r in last.items():
        per_kingdom[k] = {
            "name": run.names.get(k, str(k)), "bot": run.bots.get(k, "-"),
            "treasury": r.treasury, "income_first": first[k].income, "income_last": r.income,
            "soldiers": r.soldiers, "gemarks": r.gemarks, "settlements": r.settlements,
            "battles": sum(m.kingdoms[k].battles for m in months),
            "battles_won": sum(m.kingdoms[k].battles_won for m in months),
            "conquests": sum(m.kingdoms[k].conquests for m in months),
            "towns_won": sum(m.kingdoms[k].towns_won for m in months),
            "towns_lost": sum(m.kingdoms[k].towns_lost for m in months),
            "losses": _losses(months, k),
            "income_total": sum(m.kingdoms[k].income for m in months),
            "mines_total": sum(m.kingdoms[k].income_mines for m in months),
        }
    builders = {k: v for k, v in per_kingdom.items() if str(v["bot"]).startswith("Baumeister")}
    upkeep_last = {k: r.upkeep for k, r in last.items()}
    return {
        "label": run.label,
        "rules": str(run.rules_dir),
        "months": len(months),
        "from": months[0].month,
        "to": months[-1].month,
        "battles": sum(r.battles for m in months for r in m.kingdoms.values()) // 2,
        "battle_sides": sum(r.battles for m in months for r in m.kingdoms.values()),
        "months_with_battles": len(battle_months),
        "first_battle": months[battle_months[0]].month if battle_months else None,
        "longest_gap_between_battles": max(gaps) if gaps else None,
        "settlements_changed_hands": sum(m.towns_changed for m in months),
        "gemarks_conquered": sum(r.conquests for m in months for r in m.kingdoms.values()),
        "baumeister_income": {k: [v["income_first"], v["income_last"]] for k, v in builders.items()},
        "empty_army_upkeep": sum(r.empty_upkeep for m in months for r in m.kingdoms.values()),
        # the mines' share of all income of all kingdoms over the campaign
        "mine_share": round(sum(v["mines_total"] for v in per_kingdom.values())
                            / max(1, sum(v["income_total"] for v in per_kingdom.values())), 3),
        # cannot pay next month's pay and upkeep (at last month's rate)
        "broke_at_end": sorted(k for k, r in last.items() if r.treasury < upkeep_last[k]),
        "conservation_errors": [e for m in months for e in m.conservation_errors],
        "replay_failures": list(run.replay_failures),
        "kingdoms": per_kingdom,
    }


def _losses(months: list[Any], k: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in months:
        for c, n in m.kingdoms[k].losses.items():
            out[c] = out.get(c, 0) + n
    return dict(sorted(out.items()))


def write_report(runs: list[CampaignRun], out: Path, *, plots: str = "auto") -> dict[str, Any]:
    """Write the report folder for one run or a comparison; return the figures."""
    out.mkdir(parents=True, exist_ok=True)
    figs = [figures(r) for r in runs]
    _csv(runs, out / "metrics.csv")
    summary = figs[0] if len(figs) == 1 else {"compare": figs}
    (out / "summary.yaml").write_text(yaml.safe_dump(summary, allow_unicode=True,
                                                     sort_keys=False), encoding="utf-8")
    backend = plots
    if plots == "auto":
        backend = "matplotlib" if have_matplotlib() else "svg"
    images: list[Path] = []
    notice = ""
    if backend == "none":
        notice = "Keine Diagramme (--plots none)."
    else:
        pdir = out / "plots"
        pdir.mkdir(exist_ok=True)
        images = _plots(runs, pdir, backend)
        if plots == "auto" and backend == "svg":
            notice = ("matplotlib ist nicht installiert (pip install 'wdg[lab]'); die Diagramme "
                      "sind einfache SVG-Grafiken des Labors.")
    (out / "index.html").write_text(_html(runs, figs, images, out, notice), encoding="utf-8")
    return summary


def _csv(runs: list[CampaignRun], path: Path) -> None:
    fields = [f for f in KingdomMonth.__slots__ if f != "losses"]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["rules", "month", "kingdom", "name", "bot", *fields,
                    *(f"loss_{c}" for c in LOSS_CAUSES)])
        for run in runs:
            for m in run.months:
                for k, r in m.kingdoms.items():
                    w.writerow([run.label, m.month, k, run.names.get(k, ""), run.bots.get(k, "-"),
                                *(int(getattr(r, f)) for f in fields),
                                *(r.losses.get(c, 0) for c in LOSS_CAUSES)])


def _plots(runs: list[CampaignRun], pdir: Path, backend: str) -> list[Path]:
    months = [m.month for m in runs[0].months]
    out = []
    for field, title, cumulative in METRICS:
        panels = []
        for run in runs:
            series = []
            for k in sorted(run.months[0].kingdoms):
                vals, acc = [], 0.0
                for m in run.months:
                    v = float(getattr(m.kingdoms[k], field))
                    acc = acc + v if cumulative else v
                    vals.append(acc)
                series.append(Series(f"{k} {run.bots.get(k, '-')}", vals))
            panels.append(Panel(run.label, series))
        out.append(draw(field, title, panels, months, pdir, backend))
    panels = []
    for run in runs:
        series = []
        for c in LOSS_CAUSES:
            vals, acc = [], 0.0
            for m in run.months:
                acc += sum(r.losses.get(c, 0) for r in m.kingdoms.values())
                vals.append(acc)
            if acc:
                series.append(Series(c, vals))
        panels.append(Panel(run.label, series or [Series("keine", [0.0] * len(run.months))]))
    out.append(draw("losses", "Verluste nach Ursache (kumuliert, alle Reiche)", panels, months,
                    pdir, backend))
    return out


def _html(runs: list[CampaignRun], figs: list[dict[str, Any]], images: list[Path], out: Path,
          notice: str) -> str:
    e = html.escape
    rows = []
    keys = [("months", "Monde"), ("battles", "Kämpfe"), ("months_with_battles", "Monde mit Kampf"),
            ("first_battle", "erster Kampf"),
            ("longest_gap_between_battles", "längste Pause zwischen Kämpfen (Monde)"),
            ("settlements_changed_hands", "Siedlungen erobert"),
            ("gemarks_conquered", "Gemarken erobert"),
            ("baumeister_income", "Einnahmen der Baumeister (erster → letzter Mond)"),
            ("empty_army_upkeep", "Unterhalt für leere Heere (GS)"),
            ("mine_share", "Anteil der Minen an allen Einnahmen"),
            ("broke_at_end", "pleite am Ende"),
            ("conservation_errors", "Erhaltungsfehler (Gold, Soldaten)"),
            ("replay_failures", "Wiederholungsfehler")]
    for key, label in keys:
        if key == "baumeister_income":
            cells = "".join("<td>" + e("; ".join(f"Reich {k}: {_gs(a)} → {_gs(b)}" for k, (a, b)
                                                 in f[key].items()) or "–") + "</td>" for f in figs)
            rows.append(f"<tr><th>{e(label)}</th>{cells}</tr>")
            continue
        cells = "".join(f"<td>{e(_fmt(f[key]))}</td>" for f in figs)
        rows.append(f"<tr><th>{e(label)}</th>{cells}</tr>")
    head = "".join(f"<th>{e(f['label'])}</th>" for f in figs)
    tables = []
    for f in figs:
        body = "".join(
            f"<tr><td>{k}</td><td>{e(v['name'])}</td><td>{e(v['bot'])}</td>"
            f"<td>{_gs(v['treasury'])}</td><td>{_gs(v['income_first'])} → "
            f"{_gs(v['income_last'])}</td>"
            f"<td>{_gs(v['soldiers'])}</td><td>{v['gemarks']}</td><td>{v['settlements']}</td>"
            f"<td>{v['battles']} ({v['battles_won']})</td><td>{v['towns_won']}/{v['towns_lost']}</td>"
            f"<td>{e(_fmt(v['losses']))}</td></tr>" for k, v in f["kingdoms"].items())
        tables.append(f"<h3>{e(f['label'])}: Reiche nach {f['months']} Monden</h3><table>"
                      "<tr><th>Nr</th><th>Reich</th><th>Bot</th><th>Reichsschatz</th>"
                      "<th>Einnahmen</th><th>Soldaten</th><th>Gemarken</th><th>Siedlungen</th>"
                      "<th>Kämpfe (gewonnen)</th><th>Siedlungen +/−</th><th>Verluste</th></tr>"
                      f"{body}</table>")
    imgs = "".join(f'<figure><img src="{e(p.relative_to(out).as_posix())}" alt="{e(p.stem)}">'
                   "</figure>" for p in images)
    return (
        "<!DOCTYPE html>\n<html lang=\"de\"><head><meta charset=\"utf-8\">"
        f"<title>Kampagnenlabor {e(runs[0].segment)}</title><style>"
        "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;font-size:13px}"
        "img{max-width:100%}figure{margin:1em 0}.note{color:#a04000}</style></head><body>"
        f"<h1>Kampagnenlabor: {e(runs[0].segment)}, {figs[0]['months']} Monde</h1>"
        + (f'<p class="note">{e(notice)}</p>' if notice else "")
        + f"<table><tr><th></th>{head}</tr>{''.join(rows)}</table>"
        + "".join(tables) + imgs
        + "<p>Tabellen: <a href=\"metrics.csv\">metrics.csv</a>, "
          "<a href=\"summary.yaml\">summary.yaml</a>.</p></body></html>\n")


def _gs(n: int) -> str:
    """German digit grouping: 58.000."""
    return f"{int(n):,}".replace(",", ".")


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, list):
        return ", ".join(_fmt(x) for x in v) or "keine"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) or "keine"
    return str(v)
