"""The printed form of a map: its SVG without text, the text laid over it in HTML.

WeasyPrint draws SVG text one character at a time (a Pango layout and a text
object per character): a stress kingdom's map page, with its hundreds of
gemark numbers, army numbers and legend lines, cost more than all the text
pages of its sheet. HTML text costs a fraction of that per line, so for the
PDF every ``<text>`` of a map SVG (:mod:`wdg.reports.exploration`) is taken
out of the SVG and set as HTML text at the same place, in the same font, size
and colour:

- labels that sit on a regular lattice (the gemark numbers on the hex grid,
  army numbers, province numbers: digits only, equal length, at multiples of
  one spacing on lines a multiple of one distance apart) become one
  absolutely positioned ``<pre>`` per kind, one line per row of hexes, the
  labels separated by one space whose width (``word-spacing``) makes the
  spacing exact and empty places filled with figure spaces (as wide as a
  digit) — a few elements for a whole page;
- left-aligned texts in one column at equal distances (the legend) become one
  ``<pre>`` per column;
- anything else becomes one small absolutely positioned line each.

Positions are exact for DejaVu Sans (its advances are below; digits and the
figure space are all equally wide). Text the converter does not understand
(``<tspan>``, transforms other than ``translate``) stays in the SVG.
Deterministic: the same SVG gives the same HTML.
"""

from __future__ import annotations

import hashlib
import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from xml.sax.saxutils import escape

SVG_NS = "http://www.w3.org/2000/svg"
_T = f"{{{SVG_NS}}}"
ET.register_namespace("", SVG_NS)

FIGURE_SPACE = "\u2007"
ASCENT_MINUS_DESCENT = (1901 - 483) / 2048
"""DejaVu Sans (and Bold, Mono): hhea ascent minus descent in em. In a line of
height ``L`` a baseline sits ``L/2 + f * this / 2`` below the line's top."""
# Advances in em (units per em 2048) of DejaVu Sans and DejaVu Sans Bold.
_ADV = {
    False: {"digit": 1303, " ": 651, "+": 1716, "F": 1178, "?": 1087, "-": 739, "–": 1024},
    True: {"digit": 1425, " ": 713, "+": 1716, "F": 1399, "?": 1188, "-": 850, "–": 1024},
}
_DEFAULT_ADV = 1303


def advance(ch: str, bold: bool) -> float:
    """Advance of ``ch`` in DejaVu Sans (bold or regular), in em; characters
    not in the table count as a digit (only digit labels are placed exactly)."""
    table = _ADV[bold]
    if ch.isdigit() or ch == FIGURE_SPACE:
        return table["digit"] / 2048
    return table.get(ch, _DEFAULT_ADV) / 2048


def text_width(text: str, bold: bool) -> float:
    """Width of ``text`` in em (DejaVu Sans)."""
    return sum(advance(c, bold) for c in text)


@dataclass(frozen=True, slots=True)
class _Style:
    family: str
    size: float          # user units
    bold: bool
    fill: str
    opacity: float


@dataclass(slots=True)
class _Label:
    x: float             # left end of the text (user units)
    y: float             # baseline
    text: str
    style: _Style
    anchored_start: bool  # placed by its left end (not centred)


_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _css_rules(svg: ET.Element) -> list[tuple[set[str], dict[str, str]]]:
    """Class rules of the SVG's ``<style>`` elements: ``(classes, declarations)``."""
    rules = []
    for st in svg.iter(f"{_T}style"):
        for sel, body in _RULE.findall(st.text or ""):
            decl = {}
            for part in body.split(";"):
                if ":" in part:
                    k, v = part.split(":", 1)
                    decl[k.strip()] = v.strip()
            for one in sel.split(","):
                one = one.strip()
                if re.fullmatch(r"(\.[\w-]+)+", one):
                    rules.append((set(one[1:].split(".")), decl))
    return rules


_PROPS = ("font-family", "font-size", "font-weight", "fill", "fill-opacity", "text-anchor")


def _translate(value: str | None) -> tuple[float, float] | None:
    """The offset of a ``translate(...)`` transform; ``None`` for any other."""
    if not value:
        return 0.0, 0.0
    m = re.fullmatch(r"\s*translate\(\s*(-?[\d.]+)(?:[\s,]+(-?[\d.]+))?\s*\)\s*", value)
    if not m:
        return None
    return float(m.group(1)), float(m.group(2) or 0.0)


def _length(v: str) -> float:
    m = _NUM.match(v.strip())
    return float(m.group(0)) if m else 0.0


def split_svg(svg: str) -> tuple[str, list[_Label], float, float, float] | None:
    """``(svg without its texts, the texts, mm per unit, width and height in
    mm)``; ``None`` if the SVG has no printed size in mm (then it is printed
    as it is)."""
    root = ET.fromstring(svg)
    width, height, box = root.get("width", ""), root.get("height", ""), root.get("viewBox", "")
    if not width.endswith("mm") or not height.endswith("mm") or not box:
        return None
    vb = [float(v) for v in box.replace(",", " ").split()]
    w_mm, h_mm = float(width[:-2]), float(height[:-2])
    k = w_mm / vb[2]
    rules = _css_rules(root)
    labels: list[_Label] = []

    def walk(el: ET.Element, inherited: dict[str, str], dx: float, dy: float) -> None:
        for child in list(el):
            tag = child.tag
            if tag == f"{_T}text":
                got = _text(child, inherited, rules, dx, dy)
                if got:
                    labels.extend(got)
                    el.remove(child)
                continue
            if tag in (f"{_T}style", f"{_T}defs", f"{_T}title"):
                continue
            off = _translate(child.get("transform"))
            if off is None:
                continue  # a transform we do not follow: its texts stay in the SVG
            props = dict(inherited)
            props.update({p: v for p in _PROPS if (v := child.get(p)) is not None})
            walk(child, props, dx + off[0], dy + off[1])

    walk(root, {}, -vb[0], -vb[1])
    return ET.tostring(root, encoding="unicode"), labels, k, w_mm, h_mm


def _text(el: ET.Element, inherited: dict[str, str], rules: list, dx: float,
          dy: float) -> list[_Label] | None:
    if len(el) or not el.text or el.get("transform") or "dx" in el.attrib or "dy" in el.attrib:
        return None
    props = dict(inherited)
    classes = set((el.get("class") or "").split())
    for need, decl in rules:
        if need <= classes:
            props.update({p: decl[p] for p in _PROPS if p in decl})
    props.update({p: v for p in _PROPS if (v := el.get(p)) is not None})
    size = _length(props.get("font-size", "16"))
    weight = props.get("font-weight", "normal")
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 600)
    style = _Style(props.get("font-family", "DejaVu Sans, sans-serif"), size, bold,
                   props.get("fill", "#000"), float(props.get("fill-opacity", "1")))
    text = el.text
    xs = [float(v) for v in (el.get("x") or "0").replace(",", " ").split()]
    y = float((el.get("y") or "0").replace(",", " ").split()[0]) + dy
    xs = [x + dx for x in xs]
    anchor = props.get("text-anchor", "start")
    if len(xs) == len(text) and len(xs) > 1:
        # every character placed: labels are runs of characters closer than
        # one font size; each keeps its centre (HTML sets its natural advances)
        out: list[_Label] = []
        run = [0]
        for i in range(1, len(text) + 1):
            if i == len(text) or xs[i] - xs[i - 1] > size:
                first, last = run[0], run[-1]
                chunk = text[first:last + 1]
                centre = (xs[first] + xs[last] + advance(text[last], bold) * size) / 2
                out.append(_Label(centre - text_width(chunk, bold) * size / 2, y, chunk, style,
                                  False))
                run = [i]
            else:
                run.append(i)
        return out
    if len(xs) != 1:
        return None
    wid = text_width(text, bold) * size
    x = xs[0] - (wid / 2 if anchor == "middle" else wid if anchor == "end" else 0.0)
    return [_Label(x, y, text, style, anchor == "start")]


# --- laying the labels out as HTML -------------------------------------------------------

TOL = 0.15
"""Tolerance of positions in user units (the SVG writes them to 0.1)."""


def _lines_pitch(ys: list[float], tol: float = TOL) -> float | None:
    """The distance of equally spaced lines holding every baseline in ``ys``
    (sorted, distinct), or ``None``."""
    if len(ys) == 1:
        return 0.0
    step = min(b - a for a, b in zip(ys, ys[1:]))
    if step <= tol:
        return None
    step = (ys[-1] - ys[0]) / round((ys[-1] - ys[0]) / step)  # refined over the whole span
    for y in ys:
        q = (y - ys[0]) / step
        if abs(q - round(q)) * step > tol:
            return None
    return step


def _lattice_of(labels: list[_Label]) -> tuple[float, float] | None:
    """``(spacing, row pitch)`` of the most frequent digit labels (the gemark
    numbers on the hex grid): the smallest distance between two labels on a
    baseline and between two baselines, refined over the widest span."""
    if not labels:
        return None
    rows: dict[float, list[float]] = {}
    for lb in labels:
        rows.setdefault(round(lb.y, 1), []).append(lb.x)
    best = None
    for xs in rows.values():
        xs.sort()
        for a, b in zip(xs, xs[1:]):
            if b - a > TOL and (best is None or b - a < best):
                best = b - a
    if best is None:
        return None
    span = max(max(xs) - min(xs) for xs in rows.values())
    spacing = span / round(span / best)
    ys = sorted(rows)
    pitch = _lines_pitch(ys, 2 * TOL) if len(ys) > 1 else None
    if not pitch:
        return None
    return spacing, pitch


class _Out:
    def __init__(self, k: float, width_mm: float) -> None:
        self.k = k
        self.width_mm = width_mm
        self.blocks: list[str] = []

    def block(self, style: _Style, left: float, first_y: float, pitch: float,
              lines: list[str], extra: str = "") -> None:
        """One ``<pre>`` whose first baseline is at ``first_y`` (user units)."""
        k = self.k
        f = style.size * k
        lh = pitch * k if pitch > 0 else f
        top = first_y * k - (lh / 2 + f * ASCENT_MINUS_DESCENT / 2)
        colour = style.fill
        if style.opacity < 1:
            colour = _rgba(colour, style.opacity)
        # a given width: WeasyPrint would otherwise measure every line twice
        # to shrink the box to fit (most of an absolute box's cost); wider
        # than the map, so that no line ever wraps (pre-wrap: WeasyPrint lays
        # out a "pre" block's whole remaining text again for every line)
        width = max(1.0, self.width_mm - left * k) + 100.0
        css = (f"left:{left * k:.2f}mm;top:{top:.2f}mm;width:{width:.2f}mm;font-size:{f:.3f}mm;"
               f"line-height:{lh:.3f}mm;color:{colour}"
               + (";font-weight:bold" if style.bold else "") + extra)
        family = style.family.replace('"', "'")
        if "dejavu sans" not in family.lower() or "mono" in family.lower():
            css += f";font-family:{family}"
        self.blocks.append(f'<pre style="{css}">{escape(chr(10).join(lines))}</pre>')


def _rgba(colour: str, opacity: float) -> str:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    if len(c) != 6:
        return colour
    return f"rgba({int(c[0:2], 16)},{int(c[2:4], 16)},{int(c[4:6], 16)},{opacity:g})"


def _lattice(out: _Out, labels: list[_Label], spacing: float, pitch: float) -> None:
    """Set digit labels of one style and length as ``<pre>`` blocks: one per
    place on the lattice (``spacing`` apart on a line, ``pitch`` between
    lines) modulo its cell, every label of the block on a line of it."""
    lb0 = labels[0]
    st, n = lb0.style, len(lb0.text)
    size = st.size
    digit = advance("0", st.bold) * size
    space = advance(" ", st.bold) * size
    cell = spacing / 2 if n * digit + 0.2 * size <= spacing / 2 else spacing
    # partitions by position modulo the cell and the pitch (odd rows of hexes
    # are offset by half a hex; army markers stack in two places per hex)
    parts: list[tuple[float, float, list[_Label]]] = []
    for lb in sorted(labels, key=lambda v: (v.y, v.x)):
        for x0, y0, members in parts:
            qx, qy = (lb.x - x0) / cell, (lb.y - y0) / pitch
            if abs(qx - round(qx)) * cell <= TOL and abs(qy - round(qy)) * pitch <= TOL:
                members.append(lb)
                break
        else:
            parts.append((lb.x, lb.y, [lb]))
    for x0, y0, members in parts:
        top_row = min(round((m.y - y0) / pitch) for m in members)
        first_col = min(round((m.x - x0) / cell) for m in members)
        rows: dict[int, dict[int, str]] = {}
        fx = fy = 0.0
        for m in members:
            r = round((m.y - y0) / pitch) - top_row
            c = round((m.x - x0) / cell) - first_col
            fx += m.x - c * cell
            fy += m.y - r * pitch
            line = rows.setdefault(r, {})
            if c in line:  # two labels on one place (never on our maps): on their own
                out.block(st, m.x, m.y, 0.0, [m.text])
                continue
            line[c] = m.text
        origin, first = fx / len(members), fy / len(members)
        lines = []
        for r in range(max(rows) + 1):
            cells = rows.get(r, {})
            lines.append(" ".join(cells.get(c, FIGURE_SPACE * n)
                                  for c in range(max(cells) + 1)) if cells else "")
        word = cell - n * digit - space
        out.block(st, origin, first, pitch, lines, f";word-spacing:{word * out.k:.3f}mm")


def _columns(out: _Out, labels: list[_Label]) -> list[_Label]:
    """Left-aligned texts of one style in a column at equal distances (a
    legend) as one ``<pre>`` per column; returns the labels left over."""
    left_over = []
    cols: dict[float, list[_Label]] = {}
    for lb in labels:
        cols.setdefault(round(lb.x, 2), []).append(lb)
    for _x, members in sorted(cols.items()):
        ys = sorted({round(m.y, 3) for m in members})
        pitch = _lines_pitch(ys)
        if pitch is None or len(members) < 2 or len(ys) != len(members):
            left_over += members
            continue
        rows = {round((m.y - ys[0]) / pitch) if pitch else 0: m.text for m in members}
        out.block(members[0].style, members[0].x, ys[0], pitch,
                  [rows.get(r, "") for r in range(max(rows) + 1)])
    return left_over


def layout_labels(labels: list[_Label], k: float, width_mm: float) -> list[str]:
    """The labels as positioned ``<pre>`` blocks (HTML) over a map ``width_mm`` wide."""
    out = _Out(k, width_mm)
    digits: dict[tuple[_Style, int], list[_Label]] = {}
    starts: dict[_Style, list[_Label]] = {}
    single: list[_Label] = []
    for lb in labels:
        if lb.text.isdigit():
            digits.setdefault((lb.style, len(lb.text)), []).append(lb)
        elif lb.anchored_start:
            starts.setdefault(lb.style, []).append(lb)
        else:
            single.append(lb)
    lattice = _lattice_of(max(digits.values(), key=len)) if digits else None
    for key in sorted(digits, key=lambda t: (t[0].size, t[0].bold, t[0].fill, t[1])):
        if lattice:
            _lattice(out, digits[key], *lattice)
        else:
            single += digits[key]
    for st in sorted(starts, key=lambda s: (s.size, s.bold, s.fill)):
        single += _columns(out, starts[st])
    for lb in sorted(single, key=lambda v: (v.y, v.x, v.text)):
        out.block(lb.style, lb.x, lb.y, 0.0, [lb.text])
    return out.blocks


_TITLE = re.compile(r"<title>([^<]*)</title>")
"""The map's title: the printed map image's alternative text (a tagged PDF's figure)."""
SCHEME = "wdg-map:"
"""URLs of printed map drawings held in memory (:func:`resource`)."""
_HELD: dict[str, bytes] = {}
_HOLD = 64


def resource(url: str) -> bytes | None:
    """The SVG of a printed map by its URL (``wdg-map:<digest>.svg``), if this
    process made it: the PDF renderer's URL fetcher serves it from memory."""
    return _HELD.get(url)


def print_map(svg: str) -> str:
    """The HTML of one map for print: the SVG without text, as an image
    (WeasyPrint reads an image's SVG with a C XML parser and without the HTML
    cascade: cheaper than inline SVG), and its text over it (see the module's
    description); the SVG as it is if it has no size in mm."""
    got = split_svg(svg)
    if got is None:
        return svg
    bare, labels, k, w_mm, h_mm = got
    blocks = layout_labels(labels, k, w_mm)
    data = bare.encode("utf-8")
    url = f"{SCHEME}{hashlib.sha256(data).hexdigest()[:32]}.svg"
    _HELD.pop(url, None)
    _HELD[url] = data
    while len(_HELD) > _HOLD:  # a worker renders one sheet at a time: keep the latest few
        del _HELD[next(iter(_HELD))]
    size = f"width:{w_mm:.1f}mm;height:{h_mm:.1f}mm"
    title = _TITLE.search(svg)
    alt = html.escape(html.unescape(title.group(1)) if title else "Karte", quote=True)
    return (f'<div class="pmap" style="{size}"><img src="{url}" alt="{alt}" style="{size}">'
            + "".join(blocks) + "</div>")


