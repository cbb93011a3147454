"""PNG plots of a batch's designer statistics (matplotlib, the optional extra
``wdg[lab]``): the win rate by turn position with its 95 % interval (and
the variant's beside it), the score distribution by turn position and the
winner's margin (each with the variant's beside it when there is one). The
same figures are in the batch's JSON (``design``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wdg.games.base import GameError


def write_plots(summary: dict[str, Any], directory: Path) -> list[Path]:
    """Write the plots of ``summary`` into ``directory``; their paths."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    meta = {"Software": None}  # no version string: same batch, same bytes
    for file_name, fig in figures(summary):
        path = directory / file_name
        fig.savefig(path, metadata=meta)
        plt.close(fig)
        out.append(path)
    return out


def _pyplot() -> Any:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise GameError("--plots braucht matplotlib: pip install 'wdg[lab]'") from None
    return plt


def figures(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The plots of ``summary`` as (file name, matplotlib figure)."""
    plt = _pyplot()
    design = summary["design"]
    name = summary.get("game", "")
    variant = summary.get("variant")
    figs: list[tuple[str, Any]] = []

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
    expected = design["fairness"].get("expected") or 1.0 / max(1, len(keys))
    ax.axhline(expected, color="#555555", linestyle="--", linewidth=1, label=f"1/n = {expected:.3f}")
    ax.legend(fontsize=8)
    ax.set_xticks(xs, keys)
    ax.set_xlabel("Zugposition (1 = Startspieler)" if kind == "position" else "Sitz")
    ax.set_ylabel("Siegrate (95%-KI)")
    ax.set_title(f"{name}: Siegrate nach {'Zugposition' if kind == 'position' else 'Sitz'}")
    fig.tight_layout()
    figs.append(("siegrate.png", fig))

    xlabel = "Zugposition (1 = Startspieler)" if kind == "position" else "Sitz"
    vlabel = ", ".join(variant["change"]) if variant else ""
    vdesign = variant["summary"]["design"] if variant else None

    fig, ax = plt.subplots(figsize=(6, 3.8), dpi=100)
    sets = [("Grundregeln", groups, "#4477aa")]
    if vdesign:
        sets.append((vlabel, vdesign["by"].get(kind, {}), "#ee7733"))
    box_w = 0.34 if vdesign else 0.5
    for j, (label, grp, colour) in enumerate(sets):
        shift = (j - (len(sets) - 1) / 2) * (box_w + 0.04)
        present = [(x, k) for x, k in zip(xs, keys) if k in grp]
        boxes = ax.bxp([{"med": grp[k]["score"]["median"], "q1": grp[k]["score"]["p25"],
                         "q3": grp[k]["score"]["p75"], "whislo": grp[k]["score"]["p10"],
                         "whishi": grp[k]["score"]["p90"], "mean": grp[k]["score"]["mean"],
                         "label": k, "fliers": []} for _, k in present],
                       positions=[x + shift for x, _ in present], widths=box_w, showmeans=True,
                       patch_artist=True, manage_ticks=False)
        for box in boxes["boxes"]:
            box.set_facecolor(colour)
            box.set_alpha(0.6)
        if boxes["boxes"]:
            boxes["boxes"][0].set_label(label)
    ax.set_xticks(xs, keys)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Punkte")
    ax.set_title(f"{name}: Punkte nach {'Zugposition' if kind == 'position' else 'Sitz'}\n"
                 "(Kasten p25-p75, Strich Median, Antennen p10-p90, Dreieck Mittel)", fontsize=10)
    if vdesign:
        low, high = ax.get_ylim()
        ax.set_ylim(low, high + 0.22 * (high - low))  # room for the legend above the boxes
        ax.legend(fontsize=8, loc="upper center", ncol=2)
    fig.tight_layout()
    figs.append(("punkte.png", fig))

    margins = [("Grundregeln", design.get("margin"), "#228833")]
    if vdesign:
        margins.append((vlabel, vdesign.get("margin"), "#ee7733"))
    margins = [m for m in margins if m[1]]
    if margins:
        fig, ax = plt.subplots(figsize=(6, 3.4), dpi=100)
        bar_w = 0.8 / len(margins)
        for j, (label, margin, colour) in enumerate(margins):
            hist = margin["histogram"]
            shift = (j - (len(margins) - 1) / 2) * bar_w
            share = [c / margin["n"] for c in hist.values()]
            lo, hi = margin["mean_ci95"]
            ax.bar([float(k) + shift for k in hist], share, width=bar_w, color=colour, alpha=0.8,
                   label=f"{label}: Mittel {margin['mean']:.2f} ± {(hi - lo) / 2:.2f} "
                         f"({margin['n']} Partien)")
        ax.set_xlabel("Vorsprung des Siegers (Punkte)")
        ax.set_ylabel("Anteil der Partien")
        ax.set_title(f"{name}: Vorsprung des Siegers (Partien mit einem Sieger)", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        figs.append(("vorsprung.png", fig))
    return figs
