"""Benchmarks of the month's reports: text, HTML and PDF, one and two processes.

The reports engineer's :func:`wdg.reports.batch.render_reports` renders a
resolved stress month: every kingdom's result sheet and the Götterbotschaft
(the documents counted below; the kingdom views, next month's order forms
and the game master's overview come along in the same call). It is timed
without PDF (text and HTML) and with PDF, over one process and over the
pool of two. The PDF share is the difference of the two. The floor is
WeasyPrint's own time: ``weasyprint.HTML(string=...).write_pdf()`` on the
very HTML documents ``render_reports`` wrote, one after the other in this
process; the target is PDF rendering within 1.3x of it.

PDF rendering costs seconds per document, so the reports are measured on a
smaller cut of the stress preset (:data:`REPORT_SCALE`, same density and
the same kind of sheets); the figures are rates (documents per second) and
do not depend on the number of kingdoms.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from wdg.bench.harness import Figure, Results, median, missing, rate_figure, repeat
from wdg.bench.world import load, prepare, rules, take_sheets
from wdg.engine.turn import resolve_month

G = "reports"
REPORT_SCALE = 0.05
"""Stress preset scale for the reports (three kingdoms: four documents)."""
PDF_RATIO_LIMIT = 1.3
FIGURES = (("text + HTML, 1 process", "docs/s"), ("text + HTML, 2 processes", "docs/s"),
           ("text + HTML + PDF, 1 process", "docs/s"), ("text + HTML + PDF, 2 processes", "docs/s"),
           ("PDF alone (with minus without), 1 process", "docs/s"),
           ("WeasyPrint alone on the same HTML (floor)", "docs/s"),
           ("PDF time / WeasyPrint time", "x"))


def run_all(work: Path, res: Results, quick: bool) -> None:
    """Every report benchmark, or the figures marked missing when the
    renderer is not in this build."""
    try:
        from wdg.reports.batch import render_reports, report_kingdoms
    except ImportError as exc:
        for name, unit in FIGURES:
            res.add(missing(G, name, unit, "wdg.reports.batch.render_reports is not in this "
                            f"build ({exc})"))
        return
    p = prepare(REPORT_SCALE, work)
    before, seg = load(p), load(p)
    sheets, events = take_sheets(seg, p.files)
    log = resolve_month(seg, sheets, rules(), pre_events=events).log.events
    docs = len(report_kingdoms(seg)) + 1
    runs, pdf_runs = (1, 1) if quick else (3, 2)
    out = work / "reports"

    def render(pdf: bool, jobs: int) -> None:
        shutil.rmtree(out, ignore_errors=True)
        render_reports(before, seg, log, sheets, None, out, jobs=jobs, pdf=pdf)

    note = f"{docs - 1} result sheets + the Götterbotschaft (stress preset at {REPORT_SCALE:g})"
    plain1 = repeat(lambda: render(False, 1), runs)
    res.add(rate_figure(G, FIGURES[0][0], docs, plain1, "docs/s", note=note))
    plain2 = repeat(lambda: render(False, 2), runs)
    res.add(rate_figure(G, FIGURES[1][0], docs, plain2, "docs/s"))
    pdf1 = repeat(lambda: render(True, 1), pdf_runs)
    res.add(rate_figure(G, FIGURES[2][0], docs, pdf1, "docs/s"))
    pdf2 = repeat(lambda: render(True, 2), pdf_runs)
    res.add(rate_figure(G, FIGURES[3][0], docs, pdf2, "docs/s"))
    pdf_only = [max(t - median(plain1), 1e-9) for t in pdf1]
    res.add(rate_figure(G, FIGURES[4][0], docs, pdf_only, "docs/s"))
    floor = _weasyprint_floor(out, pdf_runs)
    res.add(rate_figure(G, FIGURES[5][0], docs, floor, "docs/s",
                        note="weasyprint.HTML(string=html).write_pdf() per document"))
    ratio = median(pdf_only) / median(floor)
    res.add(Figure(G, FIGURES[6][0], ratio, "x", [round(a / median(floor), 3) for a in pdf_only],
                   f"<= {PDF_RATIO_LIMIT:g} x", ratio <= PDF_RATIO_LIMIT,
                   "PDF alone over one process against the floor"))
    res.tables["reports"] = {"documents": docs, "scale": REPORT_SCALE,
                             "html_bytes": sum(f.stat().st_size for f in _html_files(out)),
                             "pdf_speedup_2_processes": round(median(pdf1) / median(pdf2), 3),
                             "text_html_speedup_2_processes": round(median(plain1) /
                                                                    median(plain2), 3)}


def _html_files(out: Path) -> list[Path]:
    """The result sheets' and the Götterbotschaft's HTML as written."""
    return sorted(out.glob("k*/ergebnis.html")) + sorted(out.glob("goetterbotschaft.html"))


def _weasyprint_floor(out: Path, runs: int) -> list[float]:
    """Seconds WeasyPrint alone needs for the same HTML documents."""
    import weasyprint

    htmls = [f.read_text(encoding="utf-8") for f in _html_files(out)]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for html in htmls:
            weasyprint.HTML(string=html).write_pdf()
        times.append(time.perf_counter() - t0)
    return times
