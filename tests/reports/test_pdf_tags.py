"""Tagged PDFs (issue 20, accessibility): the result sheet and the
Götterbotschaft carry a structure tree with headings, tables and the map as a
figure, are marked and German; tagging changes nothing that is drawn; the
font subsets every sheet embeds are the same bytes (the archive stores them
once)."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

from wdg.reports.batch import MonthInput, render_common, render_kingdom
from wdg.reports.pdf import PDF_IDENTIFIER, html_to_document, html_to_pdf
from wdg.reports.jsonreport import loads
from wdg.reports.render import SHIPPED_TEMPLATES, Renderer
from wdg.reports.sheet import printed_html

MARKS = re.compile(rb"^(/\w+\n<<[^\n]*>>\nBDC|/\w+\nBMC|EMC)\n", re.M)
"""The marked-content operators tagging adds to a page's drawing."""


def _drawing(page) -> list[bytes]:
    """A page's drawing operators without what tagging adds: the marked
    content, and the text object and font selection it starts anew for every
    marked text run (the same font again)."""
    ops = MARKS.sub(b"", page.get_contents().get_data()).replace(b"ET\nBT\n", b"").split(b"\n")
    out, font = [], None
    for op in ops:
        if op.endswith(b" Tf"):
            if op == font:
                continue
            font = op
        out.append(op)
    return out


def _resolve(obj):
    return obj.get_object() if isinstance(obj, IndirectObject) else obj


def _structure(pdf: bytes) -> tuple[PdfReader, list[DictionaryObject], list[tuple[int, int]]]:
    """The reader, every structure element (depth first) and every piece of
    marked content the tree holds (page object number, MCID)."""
    reader = PdfReader(io.BytesIO(pdf))
    root = _resolve(reader.trailer["/Root"]["/StructTreeRoot"])
    elements: list[DictionaryObject] = []
    mcids: list[tuple[int, int]] = []

    def walk(node, page: int) -> None:
        node = _resolve(node)
        if isinstance(node, int):
            mcids.append((page, int(node)))
        elif isinstance(node, ArrayObject):
            for kid in node:
                walk(kid, page)
        elif isinstance(node, DictionaryObject) and node.get("/Type") == "/StructElem":
            elements.append(node)
            pg = node.raw_get("/Pg") if "/Pg" in node else None
            walk(node.get("/K", ArrayObject()), pg.idnum if pg is not None else page)

    walk(root["/K"], 0)
    return reader, elements, mcids


def _sheet_pdf(tmp_path, month, settings) -> bytes:
    before, after, events, sheets = month
    render_kingdom(MonthInput(before, after, events, sheets, None, tmp_path, None, settings), 1)
    return (tmp_path / "k1" / "ergebnis.pdf").read_bytes()


def _assert_tagged(pdf: bytes) -> list[str]:
    reader, elements, mcids = _structure(pdf)
    catalog = reader.trailer["/Root"]
    assert catalog["/MarkInfo"]["/Marked"] == True  # a pypdf BooleanObject
    assert catalog["/Lang"] == "de"
    assert reader.metadata.title
    # the tree holds each piece of marked content once; what it leaves out
    # (WeasyPrint's choice) is the page margins: the running head and the page number
    marked = sum(len(re.findall(rb"/MCID \d+", p.get_contents().get_data()))
                 for p in reader.pages)
    assert len(mcids) == len(set(mcids)) > 0
    assert marked - 2 * len(reader.pages) <= len(mcids) <= marked
    return [str(e["/S"]) for e in elements]


def test_the_result_sheet_pdf_is_tagged_german_with_headings_tables_and_the_map(
        tmp_path, month, settings):
    pdf = _sheet_pdf(tmp_path, month, settings)
    roles = _assert_tagged(pdf)
    assert roles[0] == "/Document"
    for role in ("/H1", "/H2", "/P", "/Table", "/TR", "/TH", "/TD", "/Figure"):
        assert role in roles, role
    _, elements, _ = _structure(pdf)
    figures = [e for e in elements if e["/S"] == "/Figure"]
    assert all(str(f["/Alt"]).startswith("Erkundungskarte") for f in figures)
    # the role-less spans WeasyPrint wraps around each text run are gone
    assert not [e for e in elements if e["/S"] == "/Span" and isinstance(e["/K"], int)]


def test_the_goetterbotschaft_pdf_is_tagged(tmp_path, month, settings):
    before, after, events, sheets = month
    render_common(MonthInput(before, after, events, sheets, None, tmp_path, None, settings))
    roles = _assert_tagged((tmp_path / "goetterbotschaft.pdf").read_bytes())
    assert "/H1" in roles and "/H2" in roles and "/L" in roles and "/LI" in roles


def test_tagging_draws_the_same_pages_with_the_same_text(tmp_path, month, settings):
    """The page drawings of the tagged sheet, without the marked-content
    operators, equal those of the same document written untagged, and the text
    read back is the same."""
    pdf = _sheet_pdf(tmp_path, month, settings)
    doc = loads((tmp_path / "k1" / "bericht.json").read_text(encoding="utf-8"))
    html = printed_html(doc, Renderer(None), settings)
    plain = html_to_document(html, [SHIPPED_TEMPLATES]).write_pdf(pdf_identifier=PDF_IDENTIFIER)
    tagged, untagged = PdfReader(io.BytesIO(pdf)), PdfReader(io.BytesIO(plain))
    assert len(tagged.pages) == len(untagged.pages) >= 2
    for a, b in zip(tagged.pages, untagged.pages):
        assert _drawing(a) == _drawing(b)
        assert a.extract_text() == b.extract_text()
    assert "/StructTreeRoot" not in untagged.trailer["/Root"]


def _font_programs(pdf: bytes) -> dict[str, bytes]:
    reader = PdfReader(io.BytesIO(pdf))
    out = {}
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = _resolve(font)
            descriptor = _resolve(_resolve(font["/DescendantFonts"][0])["/FontDescriptor"])
            name = str(font["/BaseFont"]).split("+", 1)[1]
            out[name] = _resolve(descriptor["/FontFile2"]).get_data()
    return out


def test_different_documents_embed_the_same_font_subsets():
    """Two documents with different text share their font programs byte for
    byte, and each program draws every character of both."""
    from fontTools.ttLib import TTFont

    texts = ("Reich Elunmund: 12.500 GS", "Götterbotschaft — „Heer 0101“ griff an …")
    pdfs = [html_to_pdf(f"<html lang='de'><body><p>{t}</p><h1>{t}</h1>"
                        f"<pre style='font-family: DejaVu Sans Mono'>{t}</pre></body></html>",
                        [SHIPPED_TEMPLATES])[0] for t in texts]
    first, second = (_font_programs(p) for p in pdfs)
    assert first and first == second
    for program in first.values():
        font = TTFont(io.BytesIO(program))
        cmap, glyphs = font["cmap"].getBestCmap(), font["glyf"]
        for ch in set("".join(texts)) - {" "}:
            assert glyphs[cmap[ord(ch)]].numberOfContours, ch
