"""An SVG picture of a 4 Gods world: every tile as its 3 x 3 terrains
(Meer blue, Ebene light green, Wald dark green, Gebirge grey), cities as
circles in their god's colour, prophets as dots in their god's colour
(with hidden gods: in their player's colour, the god stays secret), cells
where a tile may go now outlined, columns A.. and rows 1.. as in the
actions, and a legend of the colours."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from wdg.games.four_gods.text import COLOUR_NAMES, end_reason_de, prophet_colour, prophet_label, turn_label
from wdg.games.four_gods.tiles import GOD_NAMES, TERRAIN_NAMES

if TYPE_CHECKING:
    from wdg.games.four_gods.state import FourGodsState as St

TERRAIN_FILL = ("#3b7dd8", "#b5d96b", "#2e7d32", "#9e9e9e")
GOD_FILL = ("#0d47a1", "#f9a825", "#1b5e20", "#4e342e")
COLOUR_FILL = ("#c62828", "#1565c0", "#f9a825", "#6a1b9a")
"""Prophet colours with hidden gods (text.COLOUR_NAMES)."""
NO_GOD_FILL = "#bdbdbd"


def _fill(s: St, g: int) -> str:
    if g < 0:
        return NO_GOD_FILL
    if s.game.hidden_gods:
        k = prophet_colour(s, g)
        return COLOUR_FILL[k] if k >= 0 else NO_GOD_FILL
    return GOD_FILL[g]
CELL = 54
MARGIN = 28


def board_svg(s: St, viewer: int | None = None) -> str:
    """The world as an SVG document (for ``viewer``: the other players'
    hidden gods as ``?``)."""
    ts = s.game.tileset
    sub = CELL / 3
    w, h = max(MARGIN + ts.cols * CELL + 10, 540), MARGIN + ts.rows * CELL + 190
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
                           f'r="6" fill="{_fill(s, g)}" stroke="#fff" stroke-width="1.5">'
                           f'<title>Prophet ({escape(prophet_label(s, g))})</title></circle>')
        elif c in s.world.cities:
            g = s.world.cities[c]
            out.append(f'<circle cx="{x0 + CELL / 2}" cy="{y0 + CELL / 2}" r="{CELL / 2 - 3}" '
                       f'fill="#e0c070" stroke="{_fill(s, g)}" stroke-width="4">'
                       f'<title>Legendäre Stadt, {escape(prophet_label(s, g))}</title></circle>')
        else:
            stroke = "#c62828" if c in s.world.frontier else "#ddd"
            out.append(f'<rect x="{x0 + 1}" y="{y0 + 1}" width="{CELL - 2}" height="{CELL - 2}" '
                       f'fill="none" stroke="{stroke}" stroke-dasharray="3,3"/>')
    pts = s.scores()
    y = MARGIN + ts.rows * CELL + 20
    hidden = s.hidden_gods_of(viewer) if viewer is not None else []
    for p in range(s.game.num_players):
        gods = ",".join(GOD_NAMES[g] for g in s.gods[p]) or "-"
        if p in hidden:
            gods = "?"
        if s.game.hidden_gods:
            gods += " (Farbe " + (",".join(prophet_label(s, g) for g in s.gods[p]) or "-") + ")"
        points = "? Punkte" if p in hidden else f"{pts[p]:.0f} Punkte"
        out.append(f'<text x="{MARGIN + (p % 2) * 260}" y="{y + (p // 2) * 16}" font-size="11">'
                   f'Spieler {p}: {escape(gods)}, {points}</text>')
    out.append(f'<text x="{MARGIN}" y="{y + 36}" font-size="11">{turn_label(s)}, Beutel {len(s.bag)}'
               f'{", Ende: " + escape(end_reason_de(s)) if s.end_reason else ""}</text>')
    out.extend(_legend(s, MARGIN, y + 56, hidden))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def legend_items(s: St, hidden: list[int] | None = None) -> list[tuple[str, str, str]]:
    """The legend's entries ``(fill, label, shape)``: the terrains, the
    prophets by colour, the city, the free cell. With open gods every god's
    colour and its player; with hidden gods ("Verdeckte Götter") every
    dealt colour and its player, the god named only where the viewer may
    know it (his own; all without a viewer), else "Gottheit verdeckt"."""
    hidden = hidden or []
    items = [(TERRAIN_FILL[t], TERRAIN_NAMES[t], "rect") for t in range(4)]
    if s.game.hidden_gods:
        for k, g in sorted((prophet_colour(s, g), g) for g in range(4) if s.owner[g] >= 0):
            p = s.owner[g]
            god = "Gottheit verdeckt" if p in hidden else GOD_NAMES[g]
            items.append((COLOUR_FILL[k], f"Prophet {COLOUR_NAMES[k]}: Spieler {p} ({god})", "circle"))
    else:
        for g in range(4):
            who = f"Spieler {s.owner[g]}" if s.owner[g] >= 0 else "noch frei"
            items.append((GOD_FILL[g], f"Prophet {GOD_NAMES[g]} ({who})", "circle"))
    items += [("#e0c070", "Legendäre Stadt (Rand: Farbe ihres Propheten)", "city"),
              ("#c62828", "hier darf gelegt werden", "free")]
    return items


def _legend(s: St, x: int, y: int, hidden: list[int]) -> list[str]:
    """The legend (:func:`legend_items`) as SVG groups ``class="legend-item"``."""
    out = [f'<text x="{x}" y="{y}" font-size="10" font-weight="bold">Legende</text>']
    items = legend_items(s, hidden)
    cols = 2
    for i, (fill, label, shape) in enumerate(items):
        cx, cy = (x + (i % 4) * 110, y + 14) if i < 4 else (x + ((i - 4) % cols) * 250,
                                                            y + 32 + ((i - 4) // cols) * 18)
        out.append('<g class="legend-item">')
        if shape == "rect":
            out.append(f'<rect x="{cx}" y="{cy - 9}" width="10" height="10" fill="{fill}"/>')
        elif shape == "circle":
            out.append(f'<circle cx="{cx + 5}" cy="{cy - 4}" r="5" fill="{fill}" stroke="#fff"/>')
        elif shape == "city":
            out.append(f'<circle cx="{cx + 5}" cy="{cy - 4}" r="5" fill="{fill}" stroke="#555" stroke-width="2"/>')
        else:
            out.append(f'<rect x="{cx}" y="{cy - 9}" width="10" height="10" fill="none" stroke="{fill}" '
                       f'stroke-dasharray="2,2"/>')
        out.append(f'<text x="{cx + 14}" y="{cy}" font-size="10">{escape(label)}</text></g>')
    return out
