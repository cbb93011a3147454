"""HTML to PDF with WeasyPrint, fetching nothing from outside the template folders.

The URL fetcher given to WeasyPrint accepts only ``file:`` URLs of files
inside the allowed folders (the campaign's own ``templates/`` and the shipped
templates and their assets) and refuses everything else — ``http:``,
``https:``, ``data:`` from the network, files elsewhere on disk — with an
error WeasyPrint reports and skips. Reports inline their CSS and SVG, so a
normal render fetches nothing at all.

PDFs are deterministic: a fixed document identifier, no creation date from
the clock (WeasyPrint writes dates only from the document's ``<meta>``), so
the same HTML gives the same bytes.
"""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from weasyprint.urls import URLFetcher, URLFetcherResponse

PDF_IDENTIFIER = b"wdg-report"


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
        """The file of an allowed ``file:`` URL; anything else is refused."""
        path = self.permits(url)
        if path is None:
            self.refused.append(url)
            raise FetchRefused(f"refused to fetch {url!r}: only files of the template folders")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(path.as_uri(), body=path.read_bytes(),
                                  headers={"Content-Type": mime})


def html_to_pdf(html: str, allowed: list[Path], base: Path | None = None) -> tuple[bytes, list[str]]:
    """Render ``html`` to PDF bytes; returns the bytes and the refused URLs."""
    import weasyprint

    fetcher = GuardedFetcher(allowed)
    base_url = (base or allowed[0]).resolve().as_uri() + "/"
    # WeasyPrint logs refused fetches as warnings; they are returned instead.
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        doc = weasyprint.HTML(string=html, base_url=base_url, url_fetcher=fetcher)
        pdf = doc.write_pdf(pdf_identifier=PDF_IDENTIFIER)
    finally:
        log.setLevel(level)
    return pdf, list(fetcher.refused)


def html_to_document(html: str, allowed: list[Path], base: Path | None = None) -> Any:
    """The laid-out WeasyPrint document of ``html`` (pages to measure before
    writing: :func:`document_to_pdf`)."""
    import weasyprint

    fetcher = GuardedFetcher(allowed)
    base_url = (base or allowed[0]).resolve().as_uri() + "/"
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return weasyprint.HTML(string=html, base_url=base_url, url_fetcher=fetcher).render()
    finally:
        log.setLevel(level)


def document_to_pdf(document: Any) -> bytes:
    """The PDF bytes of a laid-out document (deterministic, as :func:`html_to_pdf`)."""
    return document.write_pdf(pdf_identifier=PDF_IDENTIFIER)
