"""SVG maps of a segment: the whole map for the game master, or one kingdom's
known part ("Erkundungskarte").

Pointy-top hexes in the terrain colours of the rule's table (composite types
are drawn as the feature's colour inside a ring of the height base's colour),
province borders drawn heavier with the province numbers, gemark numbers when
the hexes are large enough to read them, kingdom borders as coloured edges,
settlements, armies (fleets distinguished), creatures and a legend.

The SVG is self-contained (no external references), deterministic (same
state, same bytes) and escapes all text. Paths are built per terrain type
from precomputed corner offsets with numpy, not per-hex DOM objects, so a
map of 8,640 gemarks renders in a fraction of a second.
"""

from __future__ import annotations

import colorsys
from html import escape as _html_escape

import numpy as np

from wdg.errors import InvalidInputError
from wdg.textpolicy import xml_safe
from wdg.world.address import PROVINCE_COLS, PROVINCE_ROWS
from wdg.world.neighbours import neighbour_values
from wdg.world.state import UNKNOWN_TERRAIN, Segment
from wdg.world.terrain import TERRAINS

SQRT3 = 3 ** 0.5
UNKNOWN_FILL = "#d9d9d9"
_CORNER_ANGLES = np.radians([-30, 30, 90, 150, 210, 270])
# Edge shared with the neighbour in each Direction (NW NO O SO SW W): its corners.
_EDGE_CORNERS = ((4, 5), (5, 0), (0, 1), (1, 2), (2, 3), (3, 4))
_LEGEND_ROW = 18


def escape(text: str) -> str:
    """Text for SVG: characters XML forbids (and control/bidi characters)
    removed, then escaped — a name never makes the map unreadable."""
    return _html_escape(xml_safe(str(text)))


def kingdom_colour(number: int) -> str:
    """A distinct, stable colour for a kingdom number (golden-angle hues)."""
    h = (number * 0.618033988749895) % 1.0
    r, g, b = colorsys.hsv_to_rgb(h, 0.85, 0.85 if number % 2 else 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


class _Geometry:
    """Hex centres and corner offsets for a layer shape and hex radius."""

    def __init__(self, shape: tuple[int, int], size: float, margin: float) -> None:
        rows, cols = shape
        self.size = size
        r, c = np.indices(shape)
        self.x = margin + SQRT3 * size * (c + 0.5 * (r & 1)) + SQRT3 * size / 2
        self.y = margin + 1.5 * size * r + size
        self.cx = size * np.cos(_CORNER_ANGLES)
        self.cy = size * np.sin(_CORNER_ANGLES)
        self.width = margin * 2 + SQRT3 * size * (cols + 0.5)
        self.height = margin * 2 + 1.5 * size * (rows - 1) + 2 * size

    def hex_path(self, mask: np.ndarray, scale: float = 1.0) -> str:
        """One path ``d`` with a closed hexagon for every gemark in ``mask``."""
        dx = np.diff(np.append(self.cx, self.cx[0])) * scale
        dy = np.diff(np.append(self.cy, self.cy[0])) * scale
        rel = "l" + " ".join(f"{a:.2f} {b:.2f}" for a, b in zip(dx[:5], dy[:5])) + "z"
        xs = self.x[mask] + self.cx[0] * scale
        ys = self.y[mask] + self.cy[0] * scale
        return "".join(f"M{a:.2f} {b:.2f}{rel}" for a, b in zip(xs.tolist(), ys.tolist()))

    def edge_path(self, mask6: np.ndarray, inset: float = 1.0) -> str:
        """Edges of the gemarks where ``mask6[d]`` is True (direction ``d``)."""
        parts: list[str] = []
        for d, (i, j) in enumerate(_EDGE_CORNERS):
            sel = mask6[d]
            if not sel.any():
                continue
            xs, ys = self.x[sel], self.y[sel]
            x1, y1 = xs + self.cx[i] * inset, ys + self.cy[i] * inset
            x2, y2 = xs + self.cx[j] * inset, ys + self.cy[j] * inset
            parts.extend(f"M{a:.2f} {b:.2f}L{c:.2f} {e:.2f}" for a, b, c, e in
                         zip(x1.tolist(), y1.tolist(), x2.tolist(), y2.tolist()))
        return "".join(parts)


def render_map_svg(seg: Segment, kingdom: int | None = None, *, size: float | None = None,
                   numbers: bool | None = None, legend: bool = True) -> str:
    """The map of ``seg`` as SVG text; with ``kingdom`` only what it knows
    (its known map, its own armies). ``size`` is the hex radius in px
    (default by map size); ``numbers`` forces gemark numbers on or off."""
    if kingdom is not None and kingdom not in seg.kingdoms:
        raise InvalidInputError(f"Reich {kingdom!r} gibt es in Segment {seg.name!r} nicht; "
                                f"die Reiche sind {sorted(seg.kingdoms)}")
    size = size or (16.0 if seg.grid.size <= 2500 else 10.0)
    numbers = size >= 14 if numbers is None else numbers
    geo = _Geometry(seg.grid.shape, size, margin=size)
    terrain, owner, settled = _view(seg, kingdom)
    body = [_terrain_layer(geo, terrain), _grid_lines(geo)]
    if numbers:
        body.append(_gemark_numbers(geo, seg))
    body += [_kingdom_borders(geo, owner), _province_borders(geo, seg),
             _settlements(geo, seg, settled), _armies(geo, seg, kingdom)]
    if kingdom is None:
        body.append(_creatures(geo, seg))
    title = f"{seg.title} — {seg.date.short()}"
    if kingdom is not None:
        title += f" — {seg.kingdoms[kingdom].name} (Nr. {kingdom})"
    height = geo.height + 28
    legend_svg, legend_h = _legend(geo, terrain, height) if legend else ("", 0)
    total_h = height + legend_h
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{geo.width:.0f}" height="{total_h:.0f}" '
        f'viewBox="0 {-28} {geo.width:.0f} {total_h:.0f}" font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="-28" width="{geo.width:.0f}" height="{total_h:.0f}" fill="#ffffff"/>',
        f'<text x="{size:.0f}" y="-9" font-size="16" font-weight="bold">{escape(title)}</text>',
        *body, legend_svg, "</svg>\n",
    ])


def _view(seg: Segment, kingdom: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Terrain, owner and settlement layers as the viewer knows them."""
    if kingdom is None:
        return seg.terrain, seg.owner.astype(np.int32), seg.settlement
    known = seg.known[kingdom]
    return known.terrain, known.owner.astype(np.int32), known.settlement


def _terrain_layer(geo: _Geometry, terrain: np.ndarray) -> str:
    out = ['<g stroke="none">']
    unknown = terrain == UNKNOWN_TERRAIN
    if unknown.any():
        out.append(f'<path fill="{UNKNOWN_FILL}" d="{geo.hex_path(unknown)}"/>')
    for t in TERRAINS:
        mask = terrain == t.id
        if not mask.any():
            continue
        if t.rim:
            out.append(f'<path fill="{t.rim}" d="{geo.hex_path(mask)}"/>')
            out.append(f'<path fill="{t.fill}" d="{geo.hex_path(mask, 0.62)}"/>')
        else:
            out.append(f'<path fill="{t.fill}" d="{geo.hex_path(mask)}"/>')
    out.append("</g>")
    return "".join(out)


def _grid_lines(geo: _Geometry) -> str:
    every = np.ones(geo.x.shape, dtype=bool)
    return (f'<path fill="none" stroke="#000000" stroke-opacity="0.25" stroke-width="0.5" '
            f'd="{geo.hex_path(every)}"/>')


def _gemark_numbers(geo: _Geometry, seg: Segment) -> str:
    rows, cols = seg.grid.shape
    r, c = np.indices((rows, cols))
    gem = (r % PROVINCE_ROWS) * PROVINCE_COLS + (c % PROVINCE_COLS) + 1
    fs = geo.size * 0.55
    out = [f'<g font-size="{fs:.1f}" text-anchor="middle" fill="#000000" fill-opacity="0.55">']
    for x, y, g in zip(geo.x.ravel().tolist(), geo.y.ravel().tolist(), gem.ravel().tolist()):
        out.append(f'<text x="{x:.1f}" y="{y - geo.size * 0.35:.1f}">{g:02d}</text>')
    out.append("</g>")
    return "".join(out)


def _province_borders(geo: _Geometry, seg: Segment) -> str:
    rows, cols = seg.grid.shape
    r, c = np.indices((rows, cols))
    prov = (r // PROVINCE_ROWS) * 100 + c // PROVINCE_COLS
    diff = neighbour_values(prov, -1) != prov
    diff[[0, 4, 5]] = False  # draw each shared edge once (from one side)
    nb = neighbour_values(prov, -1)
    diff &= nb >= 0
    out = [f'<path fill="none" stroke="#000000" stroke-width="{max(1.5, geo.size / 7):.1f}" '
           f'd="{geo.edge_path(diff)}"/>']
    fs = geo.size * 2.2
    out.append(f'<g font-size="{fs:.0f}" font-weight="bold" text-anchor="middle" fill="#000000" '
               f'fill-opacity="0.35">')
    for p in seg.grid.provinces():
        br, bc = divmod(p, 100)
        cr, cc = (br - 1) * PROVINCE_ROWS + 2, (bc - 1) * PROVINCE_COLS + 3
        x = (geo.x[cr, cc] + geo.x[cr + 1, cc + 1]) / 2
        y = (geo.y[cr, cc] + geo.y[cr + 1, cc]) / 2 + fs / 3
        out.append(f'<text x="{x:.1f}" y="{y:.1f}">{p:03d}</text>')
    out.append("</g>")
    return "".join(out)


def _kingdom_borders(geo: _Geometry, owner: np.ndarray) -> str:
    nb = neighbour_values(owner, -2)
    border = (nb != owner) & (owner > 0)
    width = max(1.5, geo.size / 6)
    out = []
    for k in np.unique(owner[owner > 0]).tolist():
        mask6 = border & (owner == k)
        out.append(f'<path fill="none" stroke="{kingdom_colour(k)}" stroke-width="{width:.1f}" '
                   f'stroke-linecap="round" d="{geo.edge_path(mask6, 0.86)}"/>')
    return "".join(out)


def _settlements(geo: _Geometry, seg: Segment, settled: np.ndarray) -> str:
    out = [f'<g font-size="{max(8.0, geo.size * 0.7):.1f}" text-anchor="middle">']
    for row, col in np.argwhere(settled > 0).tolist():
        x, y = geo.x[row, col], geo.y[row, col]
        rad = geo.size * (0.22 + 0.1 * min(int(settled[row, col]), 400) / 400)
        name = seg.settlement_names.get(seg.grid.hex_at(row, col), "")
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad:.1f}" fill="#ffffff" '
                   f'stroke="#000000" stroke-width="1.2"/>')
        if name:
            out.append(f'<text x="{x:.1f}" y="{y + geo.size * 1.05:.1f}" stroke="#ffffff" '
                       f'stroke-width="2.5" paint-order="stroke">{escape(name)}</text>')
    out.append("</g>")
    return "".join(out)


def _armies(geo: _Geometry, seg: Segment, kingdom: int | None) -> str:
    by_place: dict[tuple[int, int], list[int]] = {}
    for n in sorted(seg.armies):
        a = seg.armies[n]
        if a.position is None or (kingdom is not None and a.kingdom != kingdom):
            continue
        by_place.setdefault(seg.grid.index(a.position), []).append(n)
    fs = max(7.0, geo.size * 0.5)
    out = [f'<g class="armies" font-size="{fs:.1f}" text-anchor="middle">']
    for (row, col), nums in sorted(by_place.items()):
        first = seg.armies[nums[0]]
        fleet = any(seg.armies[n].is_fleet for n in nums)
        label = str(nums[0]) + (f"+{len(nums) - 1}" if len(nums) > 1 else "")
        w = fs * 0.62 * len(label) + 4
        x, y = geo.x[row, col] + geo.size * 0.15, geo.y[row, col] + geo.size * 0.05
        shape = (f'<rect x="{x - w / 2:.1f}" y="{y - fs * 0.6:.1f}" width="{w:.1f}" '
                 f'height="{fs * 1.3:.1f}" rx="{fs * 0.6 if fleet else 1:.1f}" ')
        fill = "#1f3f8f" if fleet else "#ffffff"
        text = "#ffffff" if fleet else "#000000"
        out.append(shape + f'fill="{fill}" stroke="{kingdom_colour(first.kingdom)}" '
                   f'stroke-width="1.5"/>')
        out.append(f'<text x="{x:.1f}" y="{y + fs * 0.38:.1f}" fill="{text}">{label}</text>')
    out.append("</g>")
    return "".join(out)


def _creatures(geo: _Geometry, seg: Segment) -> str:
    s = geo.size * 0.35
    out = [f'<g font-size="{max(7.0, geo.size * 0.45):.1f}" text-anchor="middle" '
           f'font-weight="bold">']
    for i in sorted(seg.creatures):
        c = seg.creatures[i]
        row, col = seg.grid.index(c.position)
        x, y = geo.x[row, col], geo.y[row, col]
        out.append(f'<path d="M{x:.1f} {y - s:.1f}L{x + s:.1f} {y:.1f}L{x:.1f} {y + s:.1f}'
                   f'L{x - s:.1f} {y:.1f}z" fill="#c00000" stroke="#000000" stroke-width="0.8"/>')
        out.append(f'<text x="{x:.1f}" y="{y + s * 0.45:.1f}" fill="#ffffff">'
                   f'{escape(c.kind[:1].upper())}</text>')
    out.append("</g>")
    return "".join(out)


def _legend(geo: _Geometry, terrain: np.ndarray, top: float) -> tuple[str, float]:
    used = [t for t in TERRAINS if (terrain == t.id).any()]
    items = [(f'<rect width="14" height="14" fill="{t.rim or t.fill}"/>'
              + (f'<rect x="3" y="3" width="8" height="8" fill="{t.fill}"/>' if t.rim else ""),
              f"{t.code} {t.name}") for t in used]
    if (terrain == UNKNOWN_TERRAIN).any():
        items.append((f'<rect width="14" height="14" fill="{UNKNOWN_FILL}"/>', "unbekannt"))
    items += [
        ('<circle cx="7" cy="7" r="5" fill="#ffffff" stroke="#000000"/>', "Siedlung"),
        ('<rect x="0" y="2" width="14" height="10" rx="1" fill="#ffffff" stroke="#000000"/>',
         "Heer (Nummer)"),
        ('<rect x="0" y="2" width="14" height="10" rx="5" fill="#1f3f8f" stroke="#000000"/>',
         "Flotte"),
        ('<path d="M7 1L13 7L7 13L1 7z" fill="#c00000"/>', "Fabelwesen"),
        ('<path d="M0 7H14" stroke="#000000" stroke-width="2.5"/>', "Provinzgrenze"),
    ]
    col_w = 190
    per_row = max(1, int((geo.width - 20) // col_w))
    out = ['<g font-size="11">']
    for i, (symbol, label) in enumerate(items):
        x = 10 + (i % per_row) * col_w
        y = top - 20 + (i // per_row) * _LEGEND_ROW
        out.append(f'<g transform="translate({x:.0f},{y:.0f})">{symbol}'
                   f'<text x="20" y="11">{escape(label)}</text></g>')
    out.append("</g>")
    rows = (len(items) + per_row - 1) // per_row
    return "".join(out), rows * _LEGEND_ROW + 10


def render_province_picture() -> str:
    """The picture of docs/address-province.svg: province 101 of a one-province
    map, every gemark numbered 01..48 (lowland framed by coastal water)."""
    from wdg.world.factory import small_segment  # lazy: a docs picture; `wdg --help` imports this module

    seg = small_segment(["~K ~K ~K ~K ~K ~K ~K ~K", " ~K T. T. Hw T. Hs T. ~K",
                         "~K T. H. H. B. H. T. ~K", " ~K T. T. Hp H. T. T. ~K",
                         "~K T. Tw T. T. Tu T. ~K", " ~K ~K ~K ~K ~K ~K ~K ~K"],
                        name="adressen")
    seg.title = "Provinz 101, Gemarken 01-48"
    return render_map_svg(seg, size=30, numbers=True, legend=False)
