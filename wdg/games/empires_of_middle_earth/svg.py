"""An SVG picture of an Empires of Middle-earth position: the regions of the
map as labelled circles at rough Middle-earth positions (typed in by the
project; regions of another map file are laid out on a circle), the borders
between them as lines, mountain regions shaded, and each region's armies as
small coloured boxes (owner colour, strength, hero or minion), under each
region its armies by player and lord, the region number as in
:func:`wdg.games.empires_of_middle_earth.text.board_text`, and a legend."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.state import EmpiresState

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")

POSITIONS: dict[str, tuple[float, float]] = {
    "Forochel": (230, 40), "Numeriador": (110, 120), "Lindon": (60, 210), "The Shire": (150, 230),
    "Arthedain": (220, 150), "Cardolan": (230, 270), "Minhiriath": (150, 330), "Rhudaur": (330, 190),
    "Angmar": (340, 90), "Gundabad": (450, 70), "Hollin": (320, 300), "Dunland": (260, 360),
    "Enedhwaith": (220, 430), "Redhorn Gate": (400, 320), "High Pass": (420, 200),
    "Anduin Vales": (500, 200), "Grey Mountain Narrows": (560, 80), "Withered Heath": (660, 60),
    "Woodland Realm": (600, 150), "Northern Rhovanion": (720, 150), "Iron Hills": (780, 70),
    "Western Mirkwood": (580, 240), "Heart of Mirkwood": (640, 260), "Southern Mirkwood": (620, 330),
    "Wold & Foothills": (480, 370), "Brown Lands": (560, 420), "Southern Rhovanion": (720, 310),
    "Dorwinion": (800, 230), "Horse Plains": (700, 420), "Dagorlad": (640, 470),
    "Fangorn": (400, 410), "Rohan": (430, 480), "Gap of Isen": (310, 460),
    "Old Pukel-land": (260, 520), "Andrast": (170, 580), "Anfalas": (250, 600), "Lamedon": (350, 570),
    "Belfalas": (380, 640), "Lebennin": (460, 600), "Anorien": (500, 520), "Ithilien": (580, 560),
    "Imlad Morgul": (640, 540), "Udun": (700, 500), "Gorgoroth": (740, 560), "Nurn": (760, 630),
    "Khand": (860, 560), "Harondor": (600, 680),
}
WIDTH, HEIGHT = 920, 720
EDITION_DE = ("Held", "Scherge")


def _edition(e: int) -> str:
    return EDITION_DE[e] if e in (0, 1) else str(e)


def legend_items() -> list[tuple[str, str]]:
    """The legend's entries ``(kind, label)``: an army's box and its border
    (the edition), the label under a region (lord and armies), a mountain
    region."""
    return [("hero", "Heer, Held (schwarzer Rand), Zahl: Stärke"),
            ("minion", "Heer, Scherge (weißer Rand)"),
            ("label", "unter der Region: Spieler, Fürst: Stärke, H/S"),
            ("mountain", "Gebirgsregion (dunkler)"), ("region", "Region mit Nummer")]


def _legend(x: float, y: float) -> list[str]:
    out = [f'<text x="{x:.0f}" y="{y:.0f}" font-size="11" font-weight="bold">Legende</text>']
    for i, (kind, label) in enumerate(legend_items()):
        cy = y + 14 + 13 * i
        if kind in ("hero", "minion"):
            mark = (f'<rect x="{x:.0f}" y="{cy - 9:.0f}" width="10" height="10" rx="2" fill="#888" '
                    f'stroke="{"#000" if kind == "hero" else "#fff"}"/>')
        elif kind == "label":
            mark = f'<text x="{x:.0f}" y="{cy:.0f}" font-size="8">P0</text>'
        else:
            fill = "#c8bfae" if kind == "mountain" else "#e6dcc0"
            mark = f'<circle cx="{x + 5:.0f}" cy="{cy - 4:.0f}" r="5" fill="{fill}" stroke="#7a6a48"/>'
        out.append(f'<g class="legend-item" data-kind="{kind}">{mark}'
                   f'<text x="{x + 16:.0f}" y="{cy:.0f}" font-size="10">{escape(label)}</text></g>')
    return out


TOP = 30
"""Room for the title above the map."""


def _layout(names: tuple[str, ...]) -> list[tuple[float, float]]:
    if all(n in POSITIONS for n in names):
        return [(POSITIONS[n][0], POSITIONS[n][1] + TOP) for n in names]
    k = len(names)
    return [(WIDTH / 2 + 300 * math.cos(2 * math.pi * i / k),
             HEIGHT / 2 + 300 * math.sin(2 * math.pi * i / k)) for i in range(k)]


def board_svg(s: EmpiresState) -> str:
    """The position as an SVG document."""
    me, cards = s.g.map, s.g.cards
    pos = _layout(me.regions)
    h = HEIGHT + TOP + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" '
           f'viewBox="0 0 {WIDTH} {h}" font-family="sans-serif">',
           f'<rect width="{WIDTH}" height="{h}" fill="#f4efe1"/>']
    for r, nbs in enumerate(me.adjacent):
        for q in nbs:
            if q > r:
                (x1, y1), (x2, y2) = pos[r], pos[q]
                out.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
                           f'stroke="#b9a77f" stroke-width="2"/>')
    armies: dict[int, list[int]] = {}
    for p in range(s.g.num_players):
        for a in s.table[p]:
            if cards[a].kind != "character":
                armies.setdefault(s.region[a], []).append(a)
    for r, name in enumerate(me.regions):
        x, y = pos[r]
        fill = "#c8bfae" if me.mountain[r] else "#e6dcc0"
        out.append(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="24" fill="{fill}" stroke="#7a6a48"/>')
        out.append(f'<text x="{x:.0f}" y="{y - 28:.0f}" font-size="10" text-anchor="middle">'
                   f'{r} {escape(name)}</text>')
        here = armies.get(r, [])
        for i, a in enumerate(here):
            p = s.owner[a]
            bx, by = x - 20 + (i % 3) * 14, y - 8 + (i // 3) * 14
            stroke = "#000" if cards[a].edition == 0 else "#fff"
            lord = cards[s.lord[a]].name if s.lord[a] >= 0 else "-"
            edition = _edition(cards[a].edition)
            out.append(f'<g class="army" data-owner="{p}" data-edition="{escape(edition)}" '
                       f'data-lord="{escape(lord)}">'
                       f'<rect x="{bx:.0f}" y="{by:.0f}" width="13" height="13" rx="2" '
                       f'fill="{PLAYER_COLOURS[p % len(PLAYER_COLOURS)]}" stroke="{stroke}">'
                       f'<title>P{p} {escape(cards[a].name)} ({cards[a].strength}), {edition}, '
                       f'Fürst {escape(lord)}</title></rect>'
                       f'<text x="{bx + 6.5:.1f}" y="{by + 10:.0f}" font-size="9" fill="#fff" '
                       f'text-anchor="middle">{cards[a].strength}</text></g>')
        lords: dict[tuple[int, str], list[str]] = {}
        for a in here:
            lord = cards[s.lord[a]].name if s.lord[a] >= 0 else "-"
            lords.setdefault((s.owner[a], lord), []).append(
                f"{cards[a].strength}{_edition(cards[a].edition)[0]}")
        for j, ((p, lord), armies_of_lord) in enumerate(sorted(lords.items())):
            out.append(f'<text class="army-label" x="{x:.0f}" y="{y + 34 + 9 * j:.0f}" font-size="8" '
                       f'text-anchor="middle" fill="{PLAYER_COLOURS[p % len(PLAYER_COLOURS)]}">'
                       f'P{p} {escape(lord)}: {" ".join(armies_of_lord)}</text>')
    free = armies.get(-1, [])
    legend = [f"P{p}: {int(s.scores()[p])} Heere, Gold {s.gold[p]}" for p in range(s.g.num_players)]
    for i, text in enumerate(legend):
        out.append(f'<rect x="{10 + i * 150}" y="{HEIGHT + TOP + 12}" width="12" height="12" '
                   f'fill="{PLAYER_COLOURS[i % len(PLAYER_COLOURS)]}"/>'
                   f'<text x="{26 + i * 150}" y="{HEIGHT + TOP + 23}" font-size="12">{escape(text)}</text>')
    if free:
        out.append(f'<text x="10" y="{HEIGHT + TOP}" font-size="11">ohne Region: '
                   + escape(", ".join(f"P{s.owner[a]} {cards[a].name}" for a in free)) + '</text>')
    out.append(f'<text x="10" y="16" font-size="13">Runde {s.rounds}, am Zug P{s.player}, '
               f'Stapel {len(s.deck)}</text>')
    out.extend(_legend(WIDTH - 290, HEIGHT + TOP - 60))
    out.append("</svg>")
    return "\n".join(out) + "\n"
