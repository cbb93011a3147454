"""HTML to PDF with WeasyPrint, fetching nothing from outside the template folders.

The URL fetcher given to WeasyPrint accepts only ``file:`` URLs of files
inside the allowed folders (the campaign's own ``templates/`` and the shipped
templates and their assets) and the printed maps this process drew
(``wdg-map:`` URLs, held in memory by :mod:`wdg.reports.printmap`), and
refuses everything else — ``http:``, ``https:``, ``data:`` from the network,
files elsewhere on disk — with an error WeasyPrint reports and skips.
Reports inline their CSS, so a normal render reads nothing from disk or
network.

PDFs are deterministic: a fixed document identifier, no creation date from
the clock (WeasyPrint writes dates only from the document's ``<meta>``), so
the same HTML gives the same bytes.

PDFs are **tagged** (:data:`PDF_OPTIONS`): a structure tree (headings,
paragraphs, lists, tables with their header cells, the map as a figure with
its title as alternative text), ``/MarkInfo /Marked true`` and the document
language from ``<html lang="de">``, for screen readers and reflow. WeasyPrint's
tree is made leaner and the font subsets shareable before writing
(:mod:`wdg.reports.pdfpost`), so that tagging does not grow the archive.
"""

from __future__ import annotations

import logging
import mimetypes
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from weasyprint.urls import URLFetcher, URLFetcherResponse

from wdg.reports import pdfpost, printmap

PDF_IDENTIFIER = b"wdg-report"
PDF_OPTIONS: dict[str, Any] = {"pdf_identifier": PDF_IDENTIFIER, "pdf_tags": True,
                               "finisher": pdfpost.finish}
"""What every PDF is written with: the fixed identifier, tags, the finisher.
Not ``pdf_variant="pdf/ua-1"``: it adds only an XMP packet claiming PDF/UA-1
conformance (about 0.5 KB), which nothing here has verified."""
_FONTS: list[Any] = []
"""One WeasyPrint font configuration per process (a worker renders many PDFs)."""
_STYLES: dict[tuple[str, str], Any] = {}
"""Parsed style sheets by (text, base URL): every sheet of a month has the same one."""
_HEAD_STYLE = re.compile(r"<style>(?P<css>[^<]*(?:<(?!/style>)[^<]*)*)</style>")


def _cached_style(html: str, base_url: str) -> tuple[str, list[Any]]:
    """``html`` without its first ``<style>`` (in ``<head>``) and that style
    sheet parsed once per process: WeasyPrint would parse it again for every
    document (a tenth of a short sheet's time). Sheets that could fetch
    something (``url(``, ``@import``) stay in the document."""
    import weasyprint

    head_end = html.find("</head>")
    m = _HEAD_STYLE.search(html, 0, head_end if head_end >= 0 else 0)
    if m is None or "url(" in m.group("css") or "@import" in m.group("css"):
        return html, []
    key = (m.group("css"), base_url)
    sheet = _STYLES.get(key)
    if sheet is None:
        sheet = _STYLES[key] = weasyprint.CSS(string=m.group("css"), base_url=base_url,
                                              font_config=_fonts())
    return html[:m.start()] + html[m.end():], [sheet]


def _fonts() -> Any:
    if not _FONTS:
        from weasyprint.text.fonts import FontConfiguration
        _FONTS.append(FontConfiguration())
    return _FONTS[0]


class FetchRefused(Exception):
    """A URL the PDF renderer may not fetch."""


class GuardedFetcher(URLFetcher):
    """A WeasyPrint URL fetcher limited to files inside ``allowed`` folders.

    ``refused`` lists every URL it turned away (for the log and the tests).
    """

    def __init__(self, allowed: list[Path]) -> None:
        super().__init__(allowed_protocols=("file",), allow_redirects=False, fail_on_errors=False)
        self.allowed = [Path(p).resolve() for p in allowed]
        self.refused: list[str] = []

    def permits(self, url: str) -> Path | None:
        """The local file of ``url`` if it may be read, else ``None``."""
        parts = urlparse(url)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            return None
        path = Path(unquote(parts.path)).resolve()
        for root in self.allowed:
            if path == root or root in path.parents:
                return path if path.is_file() else None
        return None

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        """The file of an allowed ``file:`` URL, or a printed map this process
        drew (``wdg-map:``, from memory); anything else is refused."""
        if url.startswith(printmap.SCHEME):
            data = printmap.resource(url)
            if data is not None:
                return URLFetcherResponse(url, body=data, headers={"Content-Type": "image/svg+xml"})
        path = self.permits(url)
        if path is None:
            self.refused.append(url)
            raise FetchRefused(f"refused to fetch {url!r}: only files of the template folders")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(path.as_uri(), body=path.read_bytes(),
                                  headers={"Content-Type": mime})


@contextmanager
def _quiet_weasyprint() -> Iterator[None]:
    """WeasyPrint's warnings off for the block (it logs refused fetches as
    warnings; they are returned instead)."""
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _prepared(html: str, allowed: list[Path], base: Path | None) -> tuple[Any, GuardedFetcher, Any]:
    """WeasyPrint's HTML document of ``html`` (fetching only from the template
    folders, with the process's parsed style sheet), its fetcher and style sheets."""
    import weasyprint

    fetcher = GuardedFetcher(allowed)
    base_url = (base or allowed[0]).resolve().as_uri() + "/"
    html, sheets = _cached_style(html, base_url)
    return weasyprint.HTML(string=html, base_url=base_url, url_fetcher=fetcher), fetcher, sheets


def html_to_pdf(html: str, allowed: list[Path], base: Path | None = None) -> tuple[bytes, list[str]]:
    """Render ``html`` to PDF bytes; returns the bytes and the refused URLs."""
    with _quiet_weasyprint():
        doc, fetcher, sheets = _prepared(html, allowed, base)
        pdf = doc.write_pdf(stylesheets=sheets, font_config=_fonts(), **PDF_OPTIONS)
    return pdf, list(fetcher.refused)


def html_to_document(html: str, allowed: list[Path], base: Path | None = None) -> Any:
    """The laid-out WeasyPrint document of ``html`` (pages to measure before
    writing: :func:`document_to_pdf`), with the process's font configuration
    and parsed style sheet, as :func:`html_to_pdf`."""
    with _quiet_weasyprint():
        doc, _fetcher, sheets = _prepared(html, allowed, base)
        return doc.render(stylesheets=sheets, font_config=_fonts())


def document_to_pdf(document: Any) -> bytes:
    """The PDF bytes of a laid-out document (deterministic and tagged, as
    :func:`html_to_pdf`)."""
    with _quiet_weasyprint():
        return document.write_pdf(**PDF_OPTIONS)
