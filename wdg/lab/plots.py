"""Line plots of the lab's series: matplotlib (PNG) when installed, else SVG.

matplotlib is an optional extra (``pip install wdg[lab]``); without it the lab
draws simple SVG line charts of its own (:func:`svg_chart`), so a report is
always complete. One chart per metric; with two rules sets the charts stand
side by side with a common y axis, drawn from the same seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

COLOURS = ("#c0392b", "#2c3e90", "#d68910", "#117a65", "#7d3c98", "#1f618d", "#b9770e",
           "#922b21", "#196f3d", "#5b2c6f")


@dataclass(slots=True)
class Series:
    """One line: a label and a value per month."""

    label: str
    values: list[float]


@dataclass(slots=True)
class Panel:
    """One chart: a title and its lines (one panel per rules set)."""

    title: str
    series: list[Series]


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def draw(name: str, title: str, panels: list[Panel], months: list[str], out: Path,
         backend: str) -> Path:
    """Write one figure (``name.png`` or ``name.svg``) and return its path."""
    if backend == "matplotlib":
        return _matplotlib(name, title, panels, months, out)
    path = out / f"{name}.svg"
    path.write_text(svg_figure(title, panels, months), encoding="utf-8")
    return path


def _matplotlib(name: str, title: str, panels: list[Panel], months: list[str], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 3.6), sharey=True,
                             squeeze=False)
    x = list(range(1, len(months) + 1))
    for ax, panel in zip(axes[0], panels, strict=True):
        for i, s in enumerate(panel.series):
            ax.plot(x, s.values, label=s.label, color=COLOURS[i % len(COLOURS)], linewidth=1.6)
        ax.set_title(panel.title, fontsize=9)
        ax.set_xlabel("Mond")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="best")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path = out / f"{name}.png"
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    return path


def svg_figure(title: str, panels: list[Panel], months: list[str]) -> str:
    """Panels side by side with a common y axis, as one SVG document."""
    w, h = 420, 260
    values = [v for p in panels for s in p.series for v in s.values] or [0.0]
    lo, hi = min(0.0, min(values)), max(values)
    if hi == lo:
        hi = lo + 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(panels)}" '
             f'height="{h + 30}" font-family="sans-serif" font-size="10">',
             f'<text x="8" y="16" font-size="13">{escape(title)}</text>']
    for i, p in enumerate(panels):
        parts.append(svg_chart(p, months, lo, hi, i * w, 24, w, h))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def svg_chart(p: Panel, months: list[str], lo: float, hi: float, x0: int, y0: int,
              w: int, h: int) -> str:
    """One chart: axes, a grid line per quarter, a polyline per series, a legend."""
    left, right, top, bottom = 52, 110, 18, 26
    pw, ph = w - left - right, h - top - bottom
    n = max(1, len(months) - 1)

    def px(i: int) -> float:
        return x0 + left + pw * i / n

    def py(v: float) -> float:
        return y0 + top + ph * (1 - (v - lo) / (hi - lo))

    out = [f'<text x="{x0 + left}" y="{y0 + 12}">{escape(p.title)}</text>',
           f'<rect x="{x0 + left}" y="{y0 + top}" width="{pw}" height="{ph}" fill="none" '
           'stroke="#999"/>']
    for q in range(5):
        v = lo + (hi - lo) * q / 4
        out.append(f'<line x1="{x0 + left}" x2="{x0 + left + pw}" y1="{py(v):.1f}" '
                   f'y2="{py(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + left - 4}" y="{py(v) + 3:.1f}" text-anchor="end">'
                   f'{_num(v)}</text>')
    for i, m in enumerate(months):
        if i % max(1, len(months) // 6) == 0 or i == len(months) - 1:
            out.append(f'<text x="{px(i):.1f}" y="{y0 + top + ph + 14}" '
                       f'text-anchor="middle">{escape(m)}</text>')
    for j, s in enumerate(p.series):
        c = COLOURS[j % len(COLOURS)]
        pts = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(s.values))
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.6" points="{pts}"/>')
        ly = y0 + top + 12 * j + 8
        out.append(f'<line x1="{x0 + left + pw + 8}" x2="{x0 + left + pw + 22}" y1="{ly}" '
                   f'y2="{ly}" stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{x0 + left + pw + 25}" y="{ly + 3}">{escape(s.label[:16])}</text>')
    return "\n".join(out)


def _num(v: float) -> str:
    if abs(v) >= 10_000:
        return f"{v / 1000:.0f}k"
    if abs(v) >= 100 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.1f}"
