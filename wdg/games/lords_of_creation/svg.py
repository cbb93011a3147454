"""An SVG picture of a Lords of Creation board: hexes coloured by terrain
with the hex numbers of the actions ("Feld 64"), the counters of each
player as a coloured disc with their number (a ring for civilised people,
a triangle for an altar) and a legend of the colours and marks."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

from wdg.games.lords_of_creation.components import TERRAIN_NAMES, geometry

if TYPE_CHECKING:
    from wdg.games.lords_of_creation.state import LordsState

TERRAIN_FILL = ("#b7d97a", "#c9a86a", "#2e7d32", "#f3dd8c", "#4a90d9", "#8d8d8d", "#e8c07d")
"""Grasland, Hügel, Wald, Insel, See, Berge, Wüste."""
PLAYER_FILL = ("#d62728", "#1f4fb4", "#111111", "#ff7f0e", "#8e24aa")
SIZE = 26
LEGEND_HEIGHT = 92
"""Room for the legend below the players."""


def legend_items() -> list[tuple[str, str]]:
    """The legend's entries ``(kind, label)``: the seven terrains by colour,
    then the marks of a held hex (4.2: 1 point barbarian, 2 civilised, 3
    with an altar)."""
    items = [(f"terrain:{t}", name) for t, name in enumerate(TERRAIN_NAMES)]
    items += [("barbarian", "barbarisch (Scheibe mit Zahl der Marker, 1 Punkt)"),
              ("civilised", "zivilisiert (weißer Ring, 2 Punkte)"),
              ("altar", "Altar (Dreieck, 3 Punkte)"),
              ("number", "Feldnummer der Aktionen (\"Feld 64\")")]
    return items


def _legend(x: float, y: float) -> list[str]:
    """The legend as SVG groups (``class="legend-item"``, the label as text)."""
    out = [f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">Legende</text>']
    grey = "#777"
    for i, (kind, label) in enumerate(legend_items()):
        col, row = (i % 4, i // 4) if kind.startswith("terrain") else (0, 2 + (i - 7) // 2)
        if not kind.startswith("terrain"):
            col = (i - 7) % 2
        cx = x + (col * 110 if kind.startswith("terrain") else col * 260)
        cy = y + 16 + row * 16
        if kind.startswith("terrain"):
            mark = (f'<rect x="{cx:.0f}" y="{cy - 9:.0f}" width="10" height="10" '
                    f'fill="{TERRAIN_FILL[int(kind.split(":")[1])]}" stroke="#555"/>')
        elif kind == "barbarian":
            mark = f'<circle cx="{cx + 5:.0f}" cy="{cy - 4:.0f}" r="6" fill="{grey}"/>'
        elif kind == "civilised":
            mark = (f'<circle cx="{cx + 5:.0f}" cy="{cy - 4:.0f}" r="6" fill="{grey}" '
                    f'stroke="#fff" stroke-width="2"/><circle cx="{cx + 5:.0f}" cy="{cy - 4:.0f}" r="8" '
                    f'fill="none" stroke="{grey}"/>')
        elif kind == "altar":
            mark = (f'<polygon points="{cx:.0f},{cy:.0f} {cx + 10:.0f},{cy:.0f} {cx + 5:.0f},{cy - 9:.0f}" '
                    f'fill="#fff" stroke="{grey}"/>')
        else:
            mark = f'<text x="{cx + 5:.0f}" y="{cy:.0f}" font-size="9" text-anchor="middle">64</text>'
        out.append(f'<g class="legend-item" data-kind="{kind.split(":")[0]}">{mark}'
                   f'<text x="{cx + 16:.0f}" y="{cy:.0f}" font-size="10">{escape(label)}</text></g>')
    return out


def board_svg(s: LordsState) -> str:
    """The board as an SVG document."""
    geo = geometry(s.radius)
    w3 = math.sqrt(3) * SIZE
    cx0 = w3 * (s.radius + 1)
    cy0 = SIZE * (1.5 * s.radius + 1.6)
    width = 2 * cx0
    height = 2 * cy0 + 40 + 16 * s.n + LEGEND_HEIGHT
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fbf8ef"/>']
    for i, hx in enumerate(geo.hexes):
        x = cx0 + w3 * (hx.q + hx.r / 2)
        y = cy0 + 1.5 * SIZE * hx.r
        pts = " ".join(f"{x + SIZE * math.cos(math.radians(60 * k - 30)):.1f},"
                       f"{y + SIZE * math.sin(math.radians(60 * k - 30)):.1f}" for k in range(6))
        t = s.terrain[i]
        fill = TERRAIN_FILL[t] if t >= 0 else "#ffffff"
        title = TERRAIN_NAMES[t] if t >= 0 else "leer"
        out.append(f'<polygon points="{pts}" fill="{fill}" stroke="#555" stroke-width="1">'
                   f'<title>Feld {i}: {escape(title)}</title></polygon>')
        ink = "#fff" if t in (2, 4, 5) else "#222"  # light numbers on Wald, See, Berge
        out.append(f'<text x="{x:.1f}" y="{y - SIZE * 0.45:.1f}" font-size="9" text-anchor="middle" '
                   f'fill="{ink}">{i}</text>')
        o = s.owner[i]
        if o >= 0:
            col = PLAYER_FILL[o % len(PLAYER_FILL)]
            if s.civ[i]:
                out.append(f'<circle cx="{x:.1f}" cy="{y + 4:.1f}" r="10" fill="{col}" '
                           f'stroke="#fff" stroke-width="3"/>')
            else:
                out.append(f'<circle cx="{x:.1f}" cy="{y + 4:.1f}" r="10" fill="{col}"/>')
            out.append(f'<text x="{x:.1f}" y="{y + 8:.1f}" font-size="11" text-anchor="middle" '
                       f'fill="#fff">{s.count[i]}</text>')
            if s.altar[i]:
                out.append(f'<polygon points="{x + 9:.1f},{y - 6:.1f} {x + 17:.1f},{y - 6:.1f} '
                           f'{x + 13:.1f},{y - 13:.1f}" fill="#fff" stroke="{col}"/>')
    y = 2 * cy0 + 10
    scores = s.scores()
    for p in range(s.n):
        out.append(f'<circle cx="16" cy="{y + 16 * p:.0f}" r="6" fill="{PLAYER_FILL[p % len(PLAYER_FILL)]}"/>'
                   f'<text x="28" y="{y + 16 * p + 4:.0f}" font-size="12">Spieler {p}: '
                   f'{scores[p]:.0f} Punkte, Vorrat {s.supply[p]}</text>')
    out.extend(_legend(10, y + 16 * s.n + 8))
    out.append(f'<text x="10" y="{height - 8:.0f}" font-size="10">Runde {s.round}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
