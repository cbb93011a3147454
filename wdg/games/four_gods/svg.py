"""An SVG picture of a 4 Gods world: every tile as its 3 x 3 terrains
(Meer blue, Ebene light green, Wald dark green, Gebirge grey), cities as
circles in their god's colour, prophets as dots in their god's colour,
cells where a tile may go now outlined, columns A.. and rows 1.. as in the
actions."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from wdg.games.four_gods.tiles import GOD_NAMES

if TYPE_CHECKING:
    from wdg.games.four_gods.state import FourGodsState as St

TERRAIN_FILL = ("#3b7dd8", "#b5d96b", "#2e7d32", "#9e9e9e")
GOD_FILL = ("#0d47a1", "#f9a825", "#1b5e20", "#4e342e")
CELL = 54
MARGIN = 28


def board_svg(s: St) -> str:
    """The world as an SVG document."""
    ts = s.game.tileset
    sub = CELL / 3
    w, h = MARGIN + ts.cols * CELL + 10, MARGIN + ts.rows * CELL + 76
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
           f'viewBox="0 0 {w:.0f} {h:.0f}" font-family="sans-serif">',
           f'<rect width="{w:.0f}" height="{h:.0f}" fill="#fbf8ef"/>']
    for col in range(ts.cols):
        out.append(f'<text x="{MARGIN + col * CELL + CELL / 2:.0f}" y="18" font-size="12" '
                   f'text-anchor="middle">{chr(ord("A") + col)}</text>')
    for r in range(ts.rows):
        out.append(f'<text x="14" y="{MARGIN + r * CELL + CELL / 2 + 4:.0f}" font-size="12" '
                   f'text-anchor="middle">{r + 1}</text>')
    prophets = {c: (g, k) for c, (g, (_, k)) in s.prophets.items()}
    for c in range(ts.rows * ts.cols):
        r, col = divmod(c, ts.cols)
        x0, y0 = MARGIN + col * CELL, MARGIN + r * CELL
        o = s.world.tiles[c]
        if o is not None:
            for rr in range(3):
                for cc in range(3):
                    out.append(f'<rect x="{x0 + cc * sub:.1f}" y="{y0 + rr * sub:.1f}" '
                               f'width="{sub + 0.3:.1f}" height="{sub + 0.3:.1f}" '
                               f'fill="{TERRAIN_FILL[o.grid[rr][cc]]}"/>')
            out.append(f'<rect x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" fill="none" '
                       f'stroke="#00000033"/>')
            if c in prophets:
                g, k = prophets[c]
                cells = [(rr, cc) for rr in range(3) for cc in range(3) if o.region_of[rr][cc] == k]
                rr, cc = cells[len(cells) // 2]
                out.append(f'<circle cx="{x0 + (cc + 0.5) * sub:.1f}" cy="{y0 + (rr + 0.5) * sub:.1f}" '
                           f'r="6" fill="{GOD_FILL[g]}" stroke="#fff" stroke-width="1.5">'
                           f'<title>Prophet der {escape(GOD_NAMES[g])}</title></circle>')
        elif c in s.world.cities:
            g = s.world.cities[c]
            out.append(f'<circle cx="{x0 + CELL / 2}" cy="{y0 + CELL / 2}" r="{CELL / 2 - 3}" '
                       f'fill="#e0c070" stroke="{GOD_FILL[g]}" stroke-width="4">'
                       f'<title>Legendäre Stadt, {escape(GOD_NAMES[g])}</title></circle>')
        else:
            stroke = "#c62828" if c in s.world.frontier else "#ddd"
            out.append(f'<rect x="{x0 + 1}" y="{y0 + 1}" width="{CELL - 2}" height="{CELL - 2}" '
                       f'fill="none" stroke="{stroke}" stroke-dasharray="3,3"/>')
    pts = s.scores()
    y = MARGIN + ts.rows * CELL + 20
    for p in range(s.game.num_players):
        gods = ",".join(GOD_NAMES[g] for g in s.gods[p]) or "-"
        out.append(f'<text x="{MARGIN + (p % 2) * 260}" y="{y + (p // 2) * 16}" font-size="11">'
                   f'Spieler {p}: {escape(gods)}, {pts[p]:.0f} Punkte</text>')
    out.append(f'<text x="{MARGIN}" y="{y + 36}" font-size="11">Zug {s.turn}, Beutel {len(s.bag)}'
               f'{", Ende: " + escape(s.end_reason) if s.end_reason else ""}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
