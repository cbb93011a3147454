"""Exploration maps ("Erkundungskarte") and the game master's full map as SVG.

A map page shows a window of whole provinces (``map.page_provinces`` of
``reports.yaml``; the demo segment fits on one page, larger segments are
split into pages of that many provinces, and a kingdom only gets the pages
where it knows something). On it: every known gemark in its terrain colour
(composite types with the rim colour of their height base), gemarks seen this
month in full colour and older knowledge paler, unknown gemarks blank,
province borders and numbers, gemark numbers, own territory and settlements,
own armies, foreign armies and creatures sighted this month (events whose
kind starts with ``recon.``), and a legend. The overview map of the game
master shows the whole state: all owners, all armies and creatures.

Pointy-top hexes in odd-r offset layout, as the rest of wdg. Only ids and
numbers are written as text; anything else is XML-escaped.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from wdg.engine.events import Event
from wdg.errors import InvalidInputError
from wdg.reports.build import build_kingdom_report
from wdg.reports.jsonreport import build_json
from wdg.reports.model import STATUS_OF_REPORT, MapPage
from wdg.reports.settings import ReportSettings
from wdg.world.address import PROVINCE_COLS, PROVINCE_ROWS, Grid
from wdg.world.hexgrid import Hex
from wdg.world.state import UNKNOWN_TERRAIN, ArmyStatus, Segment
from wdg.world.terrain import TERRAINS

SQRT3 = math.sqrt(3.0)
# Neighbour offsets (drow, dcol) for even and odd rows, in the order of the
# hex edges between corners k and k+1: O, SO, SW, W, NW, NO.
_NB_EVEN = ((0, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0))
_NB_ODD = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1))
KINGDOM_COLOURS = ("#c0392b", "#2c3e90", "#d68910", "#117a65", "#7d3c98", "#1f618d",
                   "#b9770e", "#922b21", "#196f3d", "#5b2c6f", "#0e6655", "#873600")
OWN_COLOUR = "#c0392b"
FOREIGN_COLOUR = "#333333"
SIGHTED_COLOUR = "#b03a2e"
CREATURE_COLOUR = "#6c3483"
ARMY_COLOUR = "#1a3c8f"
DEPOSIT_COLOUR = "#9a6a00"
"""A deposit the kingdom found: a dark gold disc with B (white text, as F)."""
UNKNOWN_FILL = "#f7f7f4"


@dataclass(slots=True)
class _Layer:
    """What one map shows, per gemark and as markers."""

    terrain: np.ndarray
    """Terrain id per gemark (UNKNOWN_TERRAIN = not known)."""
    fresh: np.ndarray
    """True where the gemark was seen this month (full colour)."""
    owner: np.ndarray
    """Owner as known (-1 unknown, 0 neutral)."""
    settlement: np.ndarray
    """Settlement size as known (<= 0: none or unknown)."""
    own: int | None
    """The kingdom whose territory is highlighted (None: colour every owner)."""
    armies: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    sighted: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    creatures: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    deposits: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """Deposits the kingdom found ("Bodenschätze"), by kind."""


def _full_layer(seg: Segment) -> _Layer:
    lay = _Layer(seg.terrain.copy(), np.ones(seg.grid.shape, dtype=bool),
                 seg.owner.astype(np.int32), seg.settlement.astype(np.int32), None)
    grid = seg.grid
    for n in sorted(seg.armies):
        a = seg.armies[n]
        if a.position is not None and a.status is not ArmyStatus.PASSIVE and grid.contains(a.position):
            lay.armies.setdefault(grid.index(a.position), []).append(n)
    for i in sorted(seg.creatures):
        c = seg.creatures[i]
        if grid.contains(c.position):
            lay.creatures.setdefault(grid.index(c.position), []).append("F")
    return lay


def _windows(g: Grid, settings: ReportSettings) -> list[tuple[int, int, int, int]]:
    """Province windows ``(first block row, first block col, rows, cols)`` of the pages."""
    pc, pr = settings.page_provinces
    out = []
    for br in range(0, g.prov_rows, pr):
        for bc in range(0, g.prov_cols, pc):
            out.append((br, bc, min(pr, g.prov_rows - br), min(pc, g.prov_cols - bc)))
    return out


def exploration_pages(seg: Segment, kingdom: int, events: list[Event],
                      settings: ReportSettings) -> list[MapPage]:
    """The kingdom's exploration map, one page per province window it knows:
    drawn from its report model (:func:`report_pages`), as on the sheet."""
    rep = build_kingdom_report(seg, events, None, kingdom, settings)
    return report_pages(build_json(rep, seg, kingdom, None), settings)


def report_grid(doc: dict) -> Grid:
    """The segment's grid as the report names it."""
    return Grid(int(doc["grid"]["prov_cols"]), int(doc["grid"]["prov_rows"]))


def _report_layer(grid: Grid, doc: dict) -> _Layer:
    """What a kingdom's map shows, read from its report model (``bericht.json``):
    the known map, the own armies and the markers."""
    kingdom = int(doc["kingdom"])
    ter = np.full(grid.shape, UNKNOWN_TERRAIN, dtype=np.uint8)
    fresh = np.zeros(grid.shape, dtype=bool)
    owner = np.full(grid.shape, -1, dtype=np.int32)
    settle = np.full(grid.shape, -1, dtype=np.int32)
    by_name = {t.name: i for i, t in enumerate(TERRAINS)}
    month = doc["month"]
    owned = {g["address"] for p in doc["report"]["provinces"] for g in p["gemarks"]}
    for cell in doc["known_map"]:
        r, c = grid.index(grid.parse(cell["gemark"]))
        ter[r, c] = by_name[cell["terrain"]]
        fresh[r, c] = cell["seen"] >= month
        o = cell["owner"]
        # land the kingdom lost is drawn as neutral until seen again
        owner[r, c] = kingdom if cell["gemark"] in owned else (-1 if o is None else
                                                                (0 if o == kingdom else o))
        settle[r, c] = -1 if cell["settlement"] is None else cell["settlement"]
    lay = _Layer(ter, fresh, owner, settle, kingdom)
    for a in doc["report"]["armies"]:
        if STATUS_OF_REPORT[a["status"]] is ArmyStatus.PASSIVE:
            continue
        h = _parse(grid, a["position"])
        if h is not None:
            lay.armies.setdefault(grid.index(h), []).append(int(a["number"]))
    for m in doc["report"]["markers"]:
        h = _parse(grid, m["gemark"])
        if h is None:
            continue
        target = lay.creatures if m["kind"] == "creature" else \
            lay.deposits if m["kind"] == "deposit" else lay.sighted
        target.setdefault(grid.index(h), []).append(m["label"])
    return lay


def _parse(grid: Grid, address: str) -> Hex | None:
    try:
        h = grid.parse(address)
    except InvalidInputError:  # 000.00 and the like: no place on the map
        return None
    return h if grid.contains(h) else None


def report_pages(doc: dict, settings: ReportSettings) -> list[MapPage]:
    """A kingdom's exploration map drawn from its report model alone."""
    grid = report_grid(doc)
    h = doc["report"]["header"]
    return _pages(grid, _report_layer(grid, doc), settings,
                  f"Erkundungskarte {h['kingdom_name']} ({h['kingdom']})", skip_unknown=True)


def overview_pages(seg: Segment, settings: ReportSettings) -> list[MapPage]:
    """The game master's map of everything."""
    return _pages(seg.grid, _full_layer(seg), settings, f"Segment {seg.title or seg.name}",
                  skip_unknown=False)


def _fit(box: tuple[int, int, int, int], s: float) -> float:
    """The scale (mm per SVG unit) at which ``box`` with its legend fits a page."""
    _, _, nrows, ncols = box
    width = SQRT3 * s * (ncols + 0.5) + 2 * s
    height = 1.5 * s * (nrows - 1) + 4 * s + width * LEGEND_SHARE
    return min(MAX_HEX_MM / (SQRT3 * s), MAP_WIDTH_MM / width, MAP_HEIGHT_MM / height)


def _pages(grid: Grid, lay: _Layer, settings: ReportSettings, title: str, *,
           skip_unknown: bool) -> list[MapPage]:
    """The pages of a map. A kingdom's map (``skip_unknown``) is one page of
    everything it knows when that fits with hexes at least
    :data:`MIN_HEX_MM` wide; a bigger realm gets an overview page of all it
    knows and detail pages of province windows, all detail pages at one scale."""
    s = settings.hex_size
    wins = _windows(grid, settings)
    if skip_unknown:
        known = lay.terrain != UNKNOWN_TERRAIN
        if not known.any():
            return []
        whole = _known_box(known, 0, 0)
        scale = _fit(whole, s)
        if scale * SQRT3 * s >= MIN_HEX_MM or len(wins) == 1:
            return [_page(grid, lay, whole, s, title, scale)]
        overview = _page(grid, lay, whole, s, f"{title}, Übersicht", scale)
    todo = []
    for br, bc, nr, nc in wins:
        r0, c0 = br * PROVINCE_ROWS, bc * PROVINCE_COLS
        sub = lay.terrain[r0:r0 + nr * PROVINCE_ROWS, c0:c0 + nc * PROVINCE_COLS]
        box = (r0, c0, nr * PROVINCE_ROWS, nc * PROVINCE_COLS)
        if skip_unknown:
            if not (sub != UNKNOWN_TERRAIN).any():
                continue
            box = _known_box(sub != UNKNOWN_TERRAIN, r0, c0)
        first = 100 * (br + 1) + bc + 1
        last = 100 * (br + nr) + bc + nc
        t = title if len(wins) == 1 else f"{title}, Provinzen {first:03d}–{last:03d}"
        todo.append((t, box))
    # One scale on every detail page of a map: the largest window fits the page,
    # the others are drawn at the same scale (never enlarged beyond MAX_HEX_MM).
    scale = min((_fit(box, s) for _, box in todo), default=_fit((0, 0, 1, 1), s))
    pages = [_page(grid, lay, box, s, t, scale) for t, box in todo]
    return ([overview] if skip_unknown else []) + pages


def _page(grid: Grid, lay: _Layer, box: tuple[int, int, int, int], s: float, title: str,
          scale: float) -> MapPage:
    boxes: list[tuple[str, float, float, float, float, str]] = []
    svg = render_svg(grid, lay, box, s, title, boxes=boxes, mm_per_unit=scale)
    return MapPage(title, svg, boxes, origin=(int(box[0]), int(box[1]), s))


MIN_HEX_MM = 7.0
"""A kingdom's whole known map is one page when its hexes can be printed at
least this wide (two-digit gemark numbers stay legible); else an overview page
and detail pages."""
MAP_WIDTH_MM = 188.0
"""Printed width available to a map (A4 less the map page's margins)."""
MAP_HEIGHT_MM = 255.0
"""Printed height available to a map with its legend (below the page's heading)."""
MAX_HEX_MM = 14.0
"""The widest a hex is ever printed (a small realm's map is not blown up)."""
LEGEND_SHARE = 0.37
"""The legend's height as a share of the map's width (about 18 entries in two columns, long ones on a row of their own)."""
DIGIT_EM = 0.636
"""Advance of a DejaVu Sans digit in em (digits are tabular)."""
TEXT_EM = 0.58
"""Average advance of a DejaVu Sans letter in em (for the legend's columns)."""
DIGIT_ASCENT = 0.73
"""Height of a DejaVu Sans digit above the baseline, in em."""
HATCH_ID = "older"


def _known_box(known: np.ndarray, r0: int, c0: int,
               margin: int = 1) -> tuple[int, int, int, int]:
    """The gemarks of a window ``(first row, first col, rows, cols)`` holding every
    known gemark and ``margin`` gemarks around them (so the map is as large on
    the page as the known land allows)."""
    rows = np.nonzero(known.any(axis=1))[0]
    cols = np.nonzero(known.any(axis=0))[0]
    top, bottom = max(0, rows[0] - margin), min(known.shape[0] - 1, rows[-1] + margin)
    left, right = max(0, cols[0] - margin), min(known.shape[1] - 1, cols[-1] + margin)
    return r0 + top, c0 + left, bottom - top + 1, right - left + 1


_UNIT_CORNERS = tuple((math.cos(math.radians(60 * i - 30)), math.sin(math.radians(60 * i - 30)))
                      for i in range(6))
"""The corners of a hexagon of size 1 (computed once; the same floats as per call)."""


def _corners(x: float, y: float, s: float) -> list[tuple[float, float]]:
    return [(x + s * cx, y + s * cy) for cx, cy in _UNIT_CORNERS]


def _hexpath(x: float, y: float, s: float, corners: list[tuple[float, float]] | None = None) -> str:
    """One closed hexagon as path data (``corners``: its corners, if known)."""
    c = corners if corners is not None else _corners(x, y, s)
    return "M" + "L".join(f"{a:.1f},{b:.1f}" for a, b in c) + "Z"


def _edge(corners: list[tuple[float, float]], k: int) -> str:
    """Edge ``k`` of a hexagon (from corner ``k`` to the next) as path data."""
    (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 6]
    return f"M{ax:.1f},{ay:.1f}L{bx:.1f},{by:.1f}"


@functools.lru_cache(maxsize=64)
def _dark(colour: str) -> bool:
    """True for a fill on which dark text is hard to read (relative luminance < 0.2)."""
    def lin(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b) < 0.2


def _text_box(x: float, y: float, text: str, size: float) -> tuple[float, float, float, float]:
    """The box of a centred digit text at baseline ``y``."""
    half = len(text) * DIGIT_EM * size / 2
    return (x - half, y - DIGIT_ASCENT * size, x + half, y)


def render_svg(grid: Grid, lay: _Layer, window: tuple[int, int, int, int], s: float,
               title: str, *, boxes: list[tuple[str, float, float, float, float, str]] | None = None,
               mm_per_unit: float | None = None) -> str:
    """One map page as a standalone SVG document (deterministic text).

    Terrain is drawn as one path per colour, older knowledge hatched over it,
    territory as its outline; every gemark number sits in the top of its hex,
    the settlement square below it and at most two markers in the lower half
    (the second one "+n" when more are there), so nothing covers a number.
    ``boxes`` (if given) receives every label's and marker's box."""
    r0, c0, nrows, ncols = window
    w = SQRT3 * s
    margin = s
    drawn: set[str] = set()  # the symbols on this page, for the legend
    width = w * (ncols + 0.5) + 2 * margin
    map_h = 1.5 * s * (nrows - 1) + 2 * s + 2 * margin
    out_boxes: list[tuple[str, float, float, float, float, str]] = [] if boxes is None else boxes
    grid_rows, grid_cols = grid.shape

    def centre(r: int, c: int) -> tuple[float, float]:
        return (margin + w * (c - c0 + 0.5 * (r & 1)) + w / 2, margin + s + 1.5 * s * (r - r0))

    fills: dict[str, list[str]] = {}      # colour -> hexagons (full size)
    inner: dict[str, list[str]] = {}      # colour -> inner hexagons of composite types
    older: list[str] = []
    unknown: list[str] = []
    borders: list[str] = []
    outline: dict[str, list[str]] = {}    # stroke colour -> territory edges
    foreign: list[str] = []
    texts: list[tuple[float, float, str, str, float]] = []
    marks: list[str] = []
    mark_texts: list[tuple[float, float, str, str, float]] = []
    used_terrain: set[int] = set()
    free: dict[tuple[int, int], list[tuple[int, float, float, float]]] = {}

    def owner_at(r: int, c: int) -> int:
        if 0 <= r < grid_rows and 0 <= c < grid_cols:
            return int(lay.owner[r, c])
        return -1

    for r in range(r0, r0 + nrows):
        for c in range(c0, c0 + ncols):
            x, y = centre(r, c)
            tid = int(lay.terrain[r, c])
            corners = _corners(x, y, s)
            hp = _hexpath(x, y, s, corners)
            dark = False
            if tid == UNKNOWN_TERRAIN:
                drawn.add("unknown")
                unknown.append(hp)
            else:
                used_terrain.add(tid)
                t = TERRAINS[tid]
                fills.setdefault(t.rim or t.fill, []).append(hp)
                if t.rim:
                    inner.setdefault(t.fill, []).append(_hexpath(x, y, s * 0.68))
                dark = _dark(t.rim or t.fill)
                if not lay.fresh[r, c]:
                    drawn.add("older")
                    older.append(hp)
            own = int(lay.owner[r, c])
            nbs = _NB_ODD if r & 1 else _NB_EVEN
            for k, (dr, dc) in enumerate(nbs):
                nr_, nc_ = r + dr, c + dc
                seg_d = ""  # the edge's path data, made only when it is drawn
                if own > 0 and owner_at(nr_, nc_) != own:
                    seg_d = _edge(corners, k)
                    if lay.own is None:
                        outline.setdefault(KINGDOM_COLOURS[own % len(KINGDOM_COLOURS)], []).append(seg_d)
                        drawn.add("own")
                    elif own == lay.own:
                        outline.setdefault(OWN_COLOUR, []).append(seg_d)
                        drawn.add("own")
                    else:
                        foreign.append(seg_d)
                        drawn.add("foreign")
                inside = r0 <= nr_ < r0 + nrows and c0 <= nc_ < c0 + ncols
                if inside and (nr_, nc_) < (r, c):
                    continue
                other = (nr_ // PROVINCE_ROWS, nc_ // PROVINCE_COLS)
                outside = not (0 <= nr_ < grid_rows and 0 <= nc_ < grid_cols)
                if outside or other != (r // PROVINCE_ROWS, c // PROVINCE_COLS):
                    borders.append(seg_d or _edge(corners, k))
            gem = f"{(r % PROVINCE_ROWS) * PROVINCE_COLS + (c % PROVINCE_COLS) + 1:02d}"
            gy = y - s * 0.42
            texts.append((x, gy, gem, "g d" if dark else "g", s * 0.42))
            out_boxes.append(("gemark", *_text_box(x, gy, gem, s * 0.42), gem))
            settled = lay.settlement[r, c] > 0
            if settled:
                drawn.add("settlement")
                q = s * 0.15
                marks.append(f'<rect x="{x - q:.1f}" y="{y - s * 0.2 - q:.1f}" width="{2 * q:.1f}" '
                             f'height="{2 * q:.1f}" fill="#111" stroke="#fff" stroke-width="0.5"/>')
                out_boxes.append(("settlement", x - q, y - s * 0.2 - q, x + q, y - s * 0.2 + q, ""))
            got = _markers(lay, (r, c), x, y, s, drawn, out_boxes, mark_texts)
            marks += got
            mine = lay.own is not None and own == lay.own
            owned_any = lay.own is None and own > 0
            if not got and not settled and not mine and not owned_any:
                water = tid == UNKNOWN_TERRAIN or TERRAINS[tid].height == 0
                free.setdefault((r // PROVINCE_ROWS, c // PROVINCE_COLS), []).append(
                    (0 if water else 1, x, y, 0.0))
    prov_labels = []
    for (br, bc), cands in sorted(free.items()):
        # the province number on a free hex (water or unknown first, never own
        # land, never a hex with a settlement or a marker), nearest the middle
        ra, rb = br * PROVINCE_ROWS, (br + 1) * PROVINCE_ROWS
        ca, cb = bc * PROVINCE_COLS, (bc + 1) * PROVINCE_COLS
        mx = margin + w * ((ca + cb) / 2 - c0) + w / 4
        my = margin + s + 1.5 * s * ((ra + rb - 1) / 2 - r0)
        _, x, y, _ = min(cands, key=lambda t: (t[0], (t[1] - mx) ** 2 + (t[2] - my) ** 2, t[1], t[2]))
        label = f"{100 * (br + 1) + bc + 1:03d}"
        py = y + s * 0.32
        prov_labels.append((x, py, label, "p", s * 0.55))
        out_boxes.append(("province", *_text_box(x, py, label, s * 0.55), label))
    legend, legend_h = _legend(sorted(used_terrain), lay, margin, map_h, width, s, drawn)
    height = map_h + legend_h
    size = ""
    if mm_per_unit is not None:
        size = f' width="{width * mm_per_unit:.1f}mm" height="{height * mm_per_unit:.1f}mm"'
    else:
        size = f' width="{width:.1f}" height="{height:.1f}"'
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.1f} {height:.1f}"{size} '
        f'role="img" aria-label={quoteattr(title)}>',
        f"<title>{escape(title)}</title>",
        f'<defs><pattern id="{HATCH_ID}" width="{s * 0.5:.1f}" height="{s * 0.5:.1f}" '
        f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="{s * 0.22:.1f}" height="{s * 0.5:.1f}" fill="#ffffff" fill-opacity="0.75"/>'
        "</pattern>"
        "<style>"
        f".g{{font-family:DejaVu Sans,sans-serif;font-size:{s * 0.42:.1f}px;fill:#111}}"
        ".g.d{fill:#fff}"
        f".p{{font-family:DejaVu Sans,sans-serif;font-size:{s * 0.55:.1f}px;font-weight:bold;"
        "fill:#000}"
        f".m{{font-family:DejaVu Sans,sans-serif;font-size:{s * 0.27:.1f}px;font-weight:bold;"
        "fill:#fff}"
        f".m.s{{fill:{SIGHTED_COLOUR}}}"
        "</style></defs>",
    ]
    if unknown:
        parts.append(f'<path d="{"".join(unknown)}" fill="{UNKNOWN_FILL}" stroke="#d8d8d0" '
                     'stroke-width="0.3"/>')
    for colour in sorted(fills):
        parts.append(f'<path d="{"".join(fills[colour])}" fill="{colour}" stroke="#777" '
                     'stroke-width="0.3"/>')
    for colour in sorted(inner):
        parts.append(f'<path d="{"".join(inner[colour])}" fill="{colour}"/>')
    if older:
        parts.append(f'<path d="{"".join(older)}" fill="url(#{HATCH_ID})" class="older"/>')
    parts.append(f'<path d="{"".join(borders)}" fill="none" stroke="#111" '
                 f'stroke-width="{s * 0.14:.1f}" stroke-linecap="round"/>')
    if foreign:
        parts.append(f'<path d="{"".join(foreign)}" fill="none" stroke="{FOREIGN_COLOUR}" '
                     f'stroke-width="{s * 0.1:.1f}" stroke-dasharray="1.5,1" class="foreign"/>')
    for colour in sorted(outline):
        parts.append(f'<path d="{"".join(outline[colour])}" fill="none" stroke="{colour}" '
                     f'stroke-width="{s * 0.2:.1f}" stroke-linecap="round" class="territory"/>')
    parts += ['<g class="labels">', *_row_texts(prov_labels + texts), "</g>",
              '<g class="marks">', *marks, *_row_texts(mark_texts), "</g>", legend, "</svg>"]
    return "\n".join(parts) + "\n"


def _row_texts(items: list[tuple[float, float, str, str, float]]) -> list[str]:
    """Centred short labels ``(x, baseline y, text, class, font size)`` as one
    ``<text>`` per baseline and class, every character placed by its own x
    (SVG's x list): WeasyPrint draws one text object per element, and a map's
    hundreds of two-digit numbers as hundreds of elements cost it more time
    and bytes than the rest of the page."""
    rows: dict[tuple[float, str], list[tuple[float, str, float]]] = {}
    for x, y, text, cls, size in items:
        rows.setdefault((round(y, 1), cls), []).append((x, text, size))
    out = []
    for (y, cls), got in sorted(rows.items()):
        xs: list[str] = []
        chars = []
        for x, text, size in sorted(got):
            adv = DIGIT_EM * size
            left = x - len(text) * adv / 2
            xs += [f"{left + i * adv:.1f}" for i in range(len(text))]
            chars.append(text)
        out.append(f'<text x="{" ".join(xs)}" y="{y:.1f}" class="{cls}">{escape("".join(chars))}</text>')
    return out


def _font(size: float, fill: str, *, bold: bool = False, opacity: float = 1.0,
          anchor: str = "middle") -> str:
    """SVG text attributes (attributes, not CSS: every SVG renderer reads them)."""
    # fill-opacity, never opacity: WeasyPrint clips a text with ``opacity`` and
    # text-anchor="middle" at its anchor (the first digits of numbers were lost).
    return (f'font-family="DejaVu Sans, sans-serif" font-size="{size:.1f}" fill="{fill}" '
            f'text-anchor="{anchor}"' + (' font-weight="bold"' if bold else "")
            + (f' fill-opacity="{opacity}"' if opacity < 1 else ""))


MARKER_H = 0.3
"""Height of an army marker in hex sizes; two fit below the settlement square."""


def _markers(lay: _Layer, cell: tuple[int, int], x: float, y: float, s: float,
             drawn: set[str], boxes: list[tuple[str, float, float, float, float, str]],
             texts: list[tuple[float, float, str, str, float]]) -> list[str]:
    """Own armies (blue boxes with white numbers), sighted foreign armies (white
    boxes framed red, red numbers) and creatures (purple discs with F) in the
    lower half of the hex, below its number and settlement; at most two, the
    second one "+n" when more are there (the armies are listed on the sheet)."""
    stack: list[tuple[str, str]] = [("army", f"{n:04d}") for n in lay.armies.get(cell, [])]
    stack += [("sighted", v) for v in lay.sighted.get(cell, [])]
    stack += [("creature", "F") for _ in lay.creatures.get(cell, [])]
    stack += [("deposit", "B") for _ in lay.deposits.get(cell, [])]
    if len(stack) > 2:
        stack = stack[:1] + [("more", f"+{len(stack) - 1}")]
    h, gap = s * MARKER_H, s * 0.04
    out: list[str] = []
    for i, (kind, label) in enumerate(stack):
        drawn.add(kind)
        yy = y + i * (h + gap)
        base = yy + h * 0.8
        if kind in ("creature", "deposit"):
            colour = CREATURE_COLOUR if kind == "creature" else DEPOSIT_COLOUR
            out.append(f'<circle cx="{x:.1f}" cy="{yy + h / 2:.1f}" r="{h / 2:.1f}" '
                       f'fill="{colour}"/>')
            texts.append((x, base, label, "m", s * 0.27))
            boxes.append(("marker", x - h / 2, yy, x + h / 2, yy + h, label))
            continue
        wid = s * (0.12 + 0.18 * len(label))
        if kind == "sighted":
            box = f'fill="#ffffff" stroke="{SIGHTED_COLOUR}" stroke-width="{s * 0.06:.1f}"'
            cls = "m s"
        elif kind == "more":
            box, cls = 'fill="#555555"', "m"
        else:
            box, cls = f'fill="{ARMY_COLOUR}"', "m"
        out.append(f'<rect x="{x - wid / 2:.1f}" y="{yy:.1f}" width="{wid:.1f}" height="{h:.1f}" '
                   f'rx="{s * 0.06:.1f}" {box}/>')
        texts.append((x, base, label, cls, s * 0.27))
        boxes.append(("marker", x - wid / 2, yy, x + wid / 2, yy + h, label))
    return out


def _legend(terrains: list[int], lay: _Layer, x0: float, y0: float, width: float,
            s: float, drawn: set[str]) -> tuple[str, float]:
    """The legend below the map: the terrains on the page and every symbol drawn
    on it (``drawn``), nothing that is not there."""
    items: list[tuple[str, str]] = []  # (swatch svg at 0,0 size u, label)
    s = width / 30  # the legend keeps its size on the page however wide the map is
    u = s * 0.65
    for tid in terrains:
        t = TERRAINS[tid]
        sw = f'<rect width="{u:.1f}" height="{u:.1f}" fill="{t.rim or t.fill}" stroke="#777" stroke-width="0.3"/>'
        if t.rim:
            sw += (f'<rect x="{u * 0.25:.1f}" y="{u * 0.25:.1f}" width="{u * 0.5:.1f}" '
                   f'height="{u * 0.5:.1f}" fill="{t.fill}"/>')
        items.append((sw, t.name))
    if "unknown" in drawn:
        items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="{UNKNOWN_FILL}" stroke="#aaa" '
                      'stroke-width="0.3"/>', "unbekannt"))
    if "older" in drawn:
        items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="#7cc36a" stroke="#777" '
                      f'stroke-width="0.3"/><rect width="{u:.1f}" height="{u:.1f}" '
                      f'fill="url(#{HATCH_ID})"/>', "schraffiert: früher erkundet, "
                      "nicht in diesem Mond gesehen"))
    if "own" in drawn:
        if lay.own is not None:
            items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="none" stroke="{OWN_COLOUR}" '
                          f'stroke-width="{s * 0.16:.1f}"/>', "eigenes Reichsgebiet"))
        else:
            items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="none" '
                          f'stroke="{KINGDOM_COLOURS[1]}" stroke-width="{s * 0.16:.1f}"/>',
                          "Reichsgebiet (Farbe je Reich)"))
    if "foreign" in drawn:
        items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="none" stroke="{FOREIGN_COLOUR}" '
                      'stroke-dasharray="1.5,1"/>', "fremdes Reichsgebiet"))
    if "settlement" in drawn:
        items.append((f'<rect x="{u * 0.2:.1f}" y="{u * 0.2:.1f}" width="{u * 0.6:.1f}" '
                      f'height="{u * 0.6:.1f}" fill="#111"/>', "Siedlung"))
    if "army" in drawn:
        items.append((f'<rect width="{u * 1.4:.1f}" height="{u * 0.75:.1f}" rx="1" fill="{ARMY_COLOUR}"/>',
                      "eigenes Heer (Nummer)" if lay.own is not None else "Heer (Nummer)"))
    if "sighted" in drawn:
        items.append((f'<rect width="{u * 1.4:.1f}" height="{u * 0.75:.1f}" rx="1" fill="#fff" '
                      f'stroke="{SIGHTED_COLOUR}" stroke-width="{s * 0.1:.1f}"/>',
                      "fremdes Heer, gesichtet (Nummer)"))
    if "creature" in drawn:
        items.append((f'<circle cx="{u / 2:.1f}" cy="{u / 2:.1f}" r="{u / 2:.1f}" fill="{CREATURE_COLOUR}"/>',
                      "Fabelwesen" + (", gesichtet" if lay.own is not None else "")))
    if "deposit" in drawn:
        items.append((f'<circle cx="{u / 2:.1f}" cy="{u / 2:.1f}" r="{u / 2:.1f}" fill="{DEPOSIT_COLOUR}"/>',
                      "B: gefundener Bodenschatz"))
    if "more" in drawn:
        items.append((f'<rect width="{u * 1.4:.1f}" height="{u * 0.75:.1f}" rx="1" fill="#555"/>',
                      "+n: n weitere Heere/Fabelwesen"))
    items.append((f'<rect width="{u:.1f}" height="{u:.1f}" fill="#fff" stroke="#ccc" stroke-width="0.3"/>'
                  f'<text x="{u / 2:.1f}" y="{u * 0.75:.1f}" {_font(u * 0.6, "#111")}>07</text>',
                  "Gemark (Nummer in der Provinz)"))
    items.append((f'<path d="M0,{u / 2:.1f}H{u:.1f}" stroke="#111" stroke-width="{s * 0.14:.1f}"/>',
                  "Provinzgrenze; fette Zahl: Provinz (auf Wasser oder freiem Land)"))
    L, T = _font(s * 0.6, "#111", anchor="start"), _font(s * 0.8, "#111", bold=True, anchor="start")
    per_row = 2
    col_w = (width - 2 * x0) / per_row
    out = [f'<g class="legend" transform="translate({x0:.1f},{y0:.1f})">',
           f'<text x="0" y="{s * 0.8:.1f}" {T}>Legende</text>']
    row, col = 0, 0
    for sw, label in items:
        # a label wider than its column takes a row of its own (never cut at the edge)
        wide = u + s * 0.4 + len(label) * s * 0.6 * TEXT_EM > col_w
        if wide and col:
            row, col = row + 1, 0
        cx, cy = col * col_w, s * 1.2 + row * s * 1.0
        out.append(f'<g transform="translate({cx:.1f},{cy:.1f})">{sw}'
                   f'<text x="{u + s * 0.4:.1f}" y="{u * 0.85:.1f}" {L}>{escape(label)}</text></g>')
        col = per_row if wide else col + 1
        if col >= per_row:
            row, col = row + 1, 0
    rows = row + (1 if col else 0)
    out.append("</g>")
    return "\n".join(out), s * 1.8 + rows * s * 1.0
