"""PNG plots of a batch's designer statistics (matplotlib, the optional extra
``wdg[lab]``): the win rate by turn position with its 95 % interval (and
the variant's beside it), the score distribution by turn position, and the
winner's margin. The same figures are in the batch's JSON (``design``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wdg.games.base import GameError


def write_plots(summary: dict[str, Any], directory: Path) -> list[Path]:
    """Write the plots of ``summary`` into ``directory``; their paths."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise GameError("--plots needs matplotlib: pip install 'wdg[lab]'") from None
    directory.mkdir(parents=True, exist_ok=True)
    design = summary["design"]
    name = summary.get("game", "")
    variant = summary.get("variant")
    out: list[Path] = []
    meta = {"Software": None}  # no version string: same batch, same bytes

    by = design["by"]
    kind = "position" if "position" in by else "seat"
    groups = by[kind]
    keys = list(groups)
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    width = 0.38 if variant else 0.6
    xs = list(range(len(keys)))
    rates = [groups[k]["win_rate"] for k in keys]
    err = [[r - groups[k]["ci95"][0] for k, r in zip(keys, rates)],
           [groups[k]["ci95"][1] - r for k, r in zip(keys, rates)]]
    ax.bar([x - (width / 2 if variant else 0) for x in xs], rates, width, yerr=err, capsize=4,
           color="#4477aa", label="Grundregeln")
    if variant:
        vg = variant["summary"]["design"]["by"].get(kind, {})
        vr = [vg.get(k, {}).get("win_rate", 0.0) for k in keys]
        verr = [[r - vg.get(k, {}).get("ci95", [r, r])[0] for k, r in zip(keys, vr)],
                [vg.get(k, {}).get("ci95", [r, r])[1] - r for k, r in zip(keys, vr)]]
        ax.bar([x + width / 2 for x in xs], vr, width, yerr=verr, capsize=4, color="#ee7733",
               label=", ".join(variant["change"]))
        ax.legend(fontsize=8)
    expected = design["fairness"].get("expected") or 1.0 / max(1, len(keys))
    ax.axhline(expected, color="#555555", linestyle="--", linewidth=1)
    ax.set_xticks(xs, keys)
    ax.set_xlabel("Zugposition (1 = Startspieler)" if kind == "position" else "Sitz")
    ax.set_ylabel("Siegrate (95 % CI)")
    ax.set_title(f"{name}: Siegrate nach {'Zugposition' if kind == 'position' else 'Sitz'}")
    fig.tight_layout()
    path = directory / "siegrate.png"
    fig.savefig(path, metadata=meta)
    plt.close(fig)
    out.append(path)

    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    stats = [groups[k]["score"] for k in keys]
    ax.bxp([{"med": s["median"], "q1": s["p25"], "q3": s["p75"], "whislo": s["p10"],
             "whishi": s["p90"], "mean": s["mean"], "label": k, "fliers": []} for s, k in zip(stats, keys)],
           showmeans=True)
    ax.set_ylabel("Punkte (p10, p25, Median, p75, p90; Dreieck: Mittel)")
    ax.set_title(f"{name}: Punkte nach {'Zugposition' if kind == 'position' else 'Sitz'}")
    fig.tight_layout()
    path = directory / "punkte.png"
    fig.savefig(path, metadata=meta)
    plt.close(fig)
    out.append(path)

    margin = design.get("margin")
    if margin:
        hist = margin["histogram"]
        fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
        ax.bar([float(k) for k in hist], list(hist.values()), width=0.8, color="#228833")
        ax.set_xlabel("Vorsprung des Siegers (Punkte)")
        ax.set_ylabel("Partien")
        ax.set_title(f"{name}: Vorsprung des Siegers")
        fig.tight_layout()
        path = directory / "vorsprung.png"
        fig.savefig(path, metadata=meta)
        plt.close(fig)
        out.append(path)
    return out
