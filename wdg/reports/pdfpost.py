"""What the PDF renderer does to WeasyPrint's PDF before it is written (its
``finisher``): a leaner structure tree and font subsets shared by every sheet.

Tagged PDFs (``pdf_tags``) cost bytes in two places this module trims:

- **One structure element per text run.** WeasyPrint wraps every text box in
  a ``/Span`` element of its own (a fixed-width sheet line, a map label row,
  each piece of a paragraph) and puts that element under the paragraph,
  heading or table cell it belongs to. A ``/Span`` says nothing (ISO 32000-1,
  14.8.4.4: an inline element without a role), so :func:`flatten_spans`
  gives its marked content to the parent element directly (an MCID in the
  parent's ``K``, the parent tree pointing at the parent), as WeasyPrint
  already does for links. The reading order, the roles (``H1``, ``P``,
  ``Table``, ``TH``/``TD``, ``L``/``LI``, ``Figure``) and the text are the
  same; a stress sheet has about 700 structure elements fewer.
- **Font subsets.** WeasyPrint embeds a subset of each font with the glyphs
  the document uses, so every sheet carries different font programs (about
  15 KB of its 45 KB) and the month's pack cannot share them.
  :func:`share_fonts` embeds instead the subset of a fixed character set
  (:data:`SHARED_CHARS`, what the sheets write: German letters, digits, the
  punctuation of the templates) plus whatever else the document uses: the
  sheets of a month then carry the same font bytes, which the pack's xz
  stores once. A sheet grows by the few glyphs it does not use (about 2 KB);
  the archive shrinks by about 13 KB a sheet.

Both steps work on WeasyPrint's and pydyf's objects (WeasyPrint 70: the
``Font`` objects of ``document.fonts`` with their HarfBuzz face, pydyf's
object list); where these are not as expected they leave the PDF as
WeasyPrint made it. Same input, same bytes: nothing here depends on the clock
or the order of a dictionary that is not fixed.
"""

from __future__ import annotations

import io
import re
from typing import Any

SHARED_CHARS = (" !\"%'()+,-./0123456789:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                "ÄÖÜäöüß·–—−„“…\u00a0\u2007\ufb00\ufb01\ufb02\ufb03\ufb04")
"""Characters every embedded font subset holds (for sharing, see the module):
what the sheets and the Götterbotschaft write — letters and digits, the
German letters, the punctuation of the templates and the engine's texts
(dashes, German quotes, the ellipsis, the no-break and figure spaces of
numbers and the printed map), and the f-ligatures DejaVu Sans sets. Not
more: each glyph here that a sheet does not use costs it about 60 bytes."""

_REF = re.compile(rb"^\d+ \d+ R$")
_GIDS: dict[str, frozenset[int]] = {}
"""Glyph ids of the shared set, per font (WeasyPrint's font hash), per process."""
_SUBSETS: dict[tuple[str, frozenset[int]], bytes] = {}
"""Font programs subset to a glyph set, per process (a worker renders many sheets)."""
_HOLD = 32


def finish(document: Any, pdf: Any) -> None:
    """WeasyPrint's ``finisher``: :func:`flatten_spans`, then :func:`share_fonts`."""
    flatten_spans(pdf)
    share_fonts(document, pdf)


def _objects_by_reference(pdf: Any) -> dict[bytes, Any]:
    return {o.reference: o for o in pdf.objects[1:]}


def flatten_spans(pdf: Any) -> int:
    """Give the marked content of every role-less ``/Span`` structure element
    holding one marked-content sequence to its parent element (on the same
    page), drop the span and number the objects anew. Returns how many were
    dropped."""
    import pydyf

    objs = pdf.objects
    if "StructTreeRoot" not in pdf.catalog:
        return 0
    by_ref = _objects_by_reference(pdf)
    elements: list[Any] = [o for o in objs[1:]  # pydyf.Dictionary: a dict with .reference
                           if isinstance(o, dict) and o.get("Type") == "/StructElem"]
    spans: dict[bytes, bytes] = {}
    # children come after their parents in the object list: from the end, a
    # span whose content went to a span above it can go on up in the same pass
    for o in reversed(elements):
        kids = o.get("K")
        if (o.get("S") != "/Span" or set(o) != {"Type", "S", "K", "Pg", "P"}
                or len(kids) != 1 or type(kids[0]) is not int):
            continue
        parent = by_ref.get(o["P"])
        if parent is None or parent.get("Type") != "/StructElem" or parent.get("Pg") != o["Pg"]:
            continue
        siblings = parent["K"]
        if o.reference not in siblings:
            continue
        siblings[siblings.index(o.reference)] = kids[0]
        spans[o.reference] = o["P"]
    if not spans:
        return 0

    def owner(ref: bytes) -> bytes:
        while ref in spans:
            ref = spans[ref]
        return ref

    root = by_ref[pdf.catalog["StructTreeRoot"]]
    nums = by_ref[root["ParentTree"]]["Nums"]
    for page_refs in nums[1::2]:
        if isinstance(page_refs, list):
            for i, ref in enumerate(page_refs):
                if isinstance(ref, bytes) and ref in spans:
                    page_refs[i] = owner(ref)
    kept = [objs[0]]
    renumbered: dict[bytes, bytes] = {}
    for o in objs[1:]:
        old = o.reference
        if old in spans:
            continue
        o.number = len(kept)
        kept.append(o)
        renumbered[old] = o.reference

    def fix(value: Any) -> Any:
        if isinstance(value, bytes):
            return renumbered.get(value, value) if _REF.match(value) else value
        if isinstance(value, dict):
            for key, v in value.items():
                value[key] = fix(v)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                value[i] = fix(v)
        return value

    for o in kept[1:]:
        fix(o.extra if isinstance(o, pydyf.Stream) else o)
    objs[:] = kept
    return len(spans)


def _shared_gids(font: Any) -> frozenset[int]:
    gids = _GIDS.get(font.hash)
    if gids is None:
        from fontTools.ttLib import TTFont
        from weasyprint.text.fonts import get_hb_object_data

        tt = TTFont(io.BytesIO(get_hb_object_data(font.hb_face)), fontNumber=font.index,
                    lazy=True)
        order = {name: i for i, name in enumerate(tt.getGlyphOrder())}
        cmap = tt.getBestCmap() or {}
        names = [cmap[ord(c)] for c in SHARED_CHARS if ord(c) in cmap]
        gids = _GIDS[font.hash] = frozenset(order[n] for n in names if n in order)
    return gids


def share_fonts(document: Any, pdf: Any) -> int:
    """Embed each font as the subset of :data:`SHARED_CHARS` and the glyphs the
    document uses (see the module). Returns how many font programs were
    replaced; none without HarfBuzz's subsetter (WeasyPrint's other subsetter
    works on the already subset font)."""
    import pydyf

    try:
        from weasyprint.pdf import fonts as wfonts
        if not wfonts.harfbuzz_subset:
            return 0
    except (ImportError, AttributeError):
        return 0
    streams = {id(o.stream[0]): o for o in pdf.objects
               if isinstance(o, pydyf.Stream) and "Length1" in o.extra and len(o.stream) == 1}
    used: dict[str, set[int]] = {}
    first: dict[str, Any] = {}
    for font in document.fonts.values():
        used.setdefault(font.hash, set()).update(font.to_unicode)
        first.setdefault(font.hash, font)
    replaced = 0
    for key, font in first.items():
        stream = streams.get(id(font.file_content))
        if stream is None or font.missing or font.used_in_forms or font.type != "ttf":
            continue
        want = _shared_gids(font) | used[key]
        data = _SUBSETS.get((key, want))
        if data is None:
            before = font.file_content
            font.subset(dict.fromkeys(sorted(want)), False)
            if font.file_content is before:  # HarfBuzz could not subset it: keep WeasyPrint's
                continue
            data = font.file_content
            if len(_SUBSETS) >= _HOLD:
                del _SUBSETS[next(iter(_SUBSETS))]
            _SUBSETS[(key, want)] = data
        stream.stream[0] = data
        stream.extra["Length1"] = len(data)
        replaced += 1
    return replaced
