"""Render a whole month: every kingdom's result sheet, the Götterbotschaft, the overview.

:func:`render_reports` works on objects in memory (state before and after,
the event log, the sheets, the game master's sheet) and writes

- ``k<n>/ergebnis.txt``, ``k<n>/ergebnis.html``, ``k<n>/ergebnis.pdf`` per kingdom,
  with ``k<n>/ansicht.yaml`` (the machine-readable kingdom view,
  :func:`wdg.orders.view.build_view`) and ``k<n>/spielzug.txt`` (next month's
  pre-filled order form, :func:`wdg.orders.template.render_template`);
- ``goetterbotschaft.{txt,html,pdf}`` and ``overview.{txt,html}``.

File names come from ids only. Kingdoms are rendered by a process pool over
``jobs`` workers (``jobs=1``: in this process) with a progress bar on stderr;
the workers die with the parent (:mod:`wdg.procs`).
:func:`wdg.reports.archived.render_month` reads an archived month of a campaign and calls it.
Same inputs, same bytes: nothing depends on the clock, the worker count or
the order in which workers finish.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wdg.engine.events import Event
from wdg.orders.model import Sheet
from wdg.orders.view import build_view, view_to_yaml
from wdg.procs import process_pool, stopping_pool
from wdg.reports.build import MonthEvents
from wdg.reports.exploration import overview_pages
from wdg.reports.gazette import build_gazette, build_overview
from wdg.reports.jsonreport import FILE as JSON_FILE
from wdg.reports.sheet import FORM, SHEET, render_sheets, report_model  # noqa: F401 (names of the files)
from wdg.reports.render import Renderer
from wdg.reports.settings import ReportSettings, load_report_settings
from wdg.rules import Rules
from wdg.world.state import Segment

POOL_FROM = 20
"""Text and HTML only: kingdoms from which the pool pays (its start costs ~0.3 s)."""
VIEW = "ansicht.yaml"
GAZETTE = "goetterbotschaft"
OVERVIEW = "overview"


@dataclass(slots=True)
class MonthInput:
    """Everything one month's reports are made from (sent once to each worker)."""

    seg_before: Segment | None
    seg_after: Segment
    events: list[Event]
    sheets: dict[int, Sheet]
    gm_sheet: object | None
    out_dir: Path
    templates: Path | None
    settings: ReportSettings
    pdf: bool = True
    previous: dict[int, dict] = field(default_factory=dict)
    """Each kingdom's JSON report of the previous month (for "changes since last month")."""
    rules: Rules | None = None
    """The month's rules (the order editor's reach and costs); ``None``: the shipped ones."""
    index: MonthEvents | None = None
    """The events sorted once for all sheets (built by :func:`render_reports`)."""
    digest: str | None = None
    """The month's digest (:mod:`wdg.digest`), printed in the Götterbotschaft and every
    result sheet; ``None``: not known (the line is left out)."""


def _digest(r: Renderer, inp: MonthInput) -> Renderer:
    for env in (r.text_env, r.html_env):
        env.globals["month_digest"] = inp.digest
    return r


def report_kingdoms(seg: Segment) -> list[int]:
    """The kingdoms that get a result sheet: every kingdom with a player that
    has not retired (city states and retired kingdoms have nobody to read it)."""
    return [n for n in sorted(seg.kingdoms)
            if seg.kingdoms[n].player is not None and not seg.kingdoms[n].city_state
            and not seg.kingdoms[n].retired]


def doc_date(seg_after: Segment) -> str:
    """The document date written into HTML/PDF metadata: the month, not the clock."""
    d = seg_after.date.previous()
    return f"{d.year:04d}-{d.month:02d}-01"


def render_kingdom(inp: MonthInput, kingdom: int, renderer: Renderer | None = None) -> list[Path]:
    """Write one kingdom's folder ``k<n>/``; returns the files written."""
    r = _digest(renderer or Renderer(inp.templates), inp)
    text, doc = report_model(inp.seg_after, inp.events, inp.sheets.get(kingdom), kingdom,
                             inp.settings, seg_before=inp.seg_before,
                             previous=inp.previous.get(kingdom), index=inp.index,
                             rules=inp.rules)
    d = inp.out_dir / f"k{kingdom}"
    d.mkdir(parents=True, exist_ok=True)
    out = [_write(d / JSON_FILE, text)]
    # the view file and the order editor's data, with the foreign armies seen this month
    view = build_view(inp.seg_after, kingdom, inp.index.mine(kingdom) if inp.index is not None
                      else inp.events)
    # Everything the player reads is rendered from the report as its file holds it
    # (the order editor also reads the kingdom view, as the player's own tools do).
    for name, data in render_sheets(doc, r, inp.settings, pdf=inp.pdf, view=view,
                                    rules=inp.rules).items():
        out.append(_write(d / name, data))
    out.append(_write(d / VIEW, view_to_yaml(view)))
    return out


def render_common(inp: MonthInput, renderer: Renderer | None = None) -> list[Path]:
    """The Götterbotschaft and the game master's overview."""
    r = _digest(renderer or Renderer(inp.templates), inp)
    inp.out_dir.mkdir(parents=True, exist_ok=True)
    date = doc_date(inp.seg_after)
    g = build_gazette(inp.seg_after, inp.events, inp.sheets, inp.settings, inp.gm_sheet)
    out = [_write(inp.out_dir / f"{GAZETTE}.txt", r.text("goetterbotschaft.txt.j2", g=g))]
    html = r.html("goetterbotschaft.html.j2", g=g, doc_date=date)
    out.append(_write(inp.out_dir / f"{GAZETTE}.html", html))
    if inp.pdf:
        from wdg.reports.pdf import html_to_pdf  # lazy: WeasyPrint takes ~1 s to import; only for PDFs
        out.append(_write(inp.out_dir / f"{GAZETTE}.pdf", html_to_pdf(html, r.dirs)[0]))
    o = build_overview(inp.seg_after, inp.events, inp.sheets, inp.settings, inp.seg_before,
                       index=inp.index)
    # The overview's maps are files beside it, referenced from the HTML (not
    # inlined: at stress size they would make it many megabytes).
    for i, page in enumerate(overview_pages(inp.seg_after, inp.settings), start=1):
        name = f"{OVERVIEW}-karte-{i}.svg"
        out.append(_write(inp.out_dir / name, page.svg))
        o.map_files.append((page.title, name))
    out.append(_write(inp.out_dir / f"{OVERVIEW}.txt", r.text("overview.txt.j2", o=o)))
    out.append(_write(inp.out_dir / f"{OVERVIEW}.html",
                      r.html("overview.html.j2", o=o, doc_date=date)))
    return out


def _write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


# --- the pool ------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init_worker(inp: MonthInput) -> None:
    _WORKER["inp"] = inp
    _WORKER["renderer"] = Renderer(inp.templates)


COMMON = 0
"""The pool's task for the Götterbotschaft and the overview (no kingdom has number 0)."""


def _work(task: int) -> list[Path]:
    if task == COMMON:
        return render_common(_WORKER["inp"], _WORKER["renderer"])
    return render_kingdom(_WORKER["inp"], task, _WORKER["renderer"])


class Progress:
    """A progress bar on stderr (redrawn in place on a terminal, else one final line)."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total, self.label, self.done = total, label, 0
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()

    def step(self) -> None:
        """One more item done."""
        self.done += 1
        if self.tty or (self.enabled and self.done == self.total):
            width = 30
            filled = width * self.done // max(self.total, 1)
            end = "\n" if self.done == self.total else ""
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                             f"{self.done}/{self.total}{end}")
            sys.stderr.flush()


def render_reports(seg_before: Segment | None, seg_after: Segment, events: list[Event],
                   sheets: dict[int, Sheet], gm_sheet: object | None, out_dir: Path, *,
                   jobs: int = 1, templates: Path | None = None,
                   settings: ReportSettings | None = None, pdf: bool = True,
                   progress: bool = False,
                   previous: dict[int, dict] | None = None,
                   rules_dir: Path | None = None,
                   beside: Callable[[], None] | None = None,
                   collect: Callable[[list[Path]], None] | None = None,
                   digest: str | None = None,
                   only: list[int] | None = None) -> list[Path]:
    """Render every report of a month into ``out_dir``; returns the files, sorted.
    ``previous``: each kingdom's JSON report of the month before (for the
    changes since then; none in a segment's first month); ``rules_dir``: the
    month's rules files (default: the shipped ones). ``beside``: other
    work of the caller, done in this process while the workers render (after
    the rendering when there are no workers). ``collect(files)`` receives each
    task's files as it is done, always in the same order (the Götterbotschaft
    and overview, then the kingdoms by number), whatever the number of workers.
    ``digest``: the month's digest (:mod:`wdg.digest`), printed in the Götterbotschaft
    and every result sheet.
    ``only``: just these kingdoms' folders (no Götterbotschaft, no overview)."""
    inp = MonthInput(seg_before, seg_after, list(events), dict(sheets), gm_sheet, Path(out_dir),
                     templates, settings or load_report_settings(), pdf, dict(previous or {}),
                     rules=Rules.load(Path(rules_dir)) if rules_dir is not None else None,
                     digest=digest)
    inp.index = MonthEvents(inp.events)  # before the workers fork: they share it
    kingdoms = report_kingdoms(seg_after)
    tasks: list = [COMMON, *kingdoms]
    if only is not None:
        kingdoms = [k for k in kingdoms if k in set(only)]
        tasks = list(kingdoms)
    bar = Progress(len(tasks), "Ergebnisblätter", progress)
    files: list[Path] = []
    jobs = max(1, min(jobs, len(kingdoms) or 1))
    if not pdf and len(kingdoms) < POOL_FROM:
        jobs = 1  # text and HTML of a few kingdoms: a pool costs more than it saves
    if multiprocessing.current_process().daemon:
        jobs = 1  # a daemonic process (e.g. a pool worker itself) may not have children
    if jobs == 1:
        renderer = Renderer(templates)
        for task in tasks:
            got = render_common(inp, renderer) if task == COMMON \
                else render_kingdom(inp, task, renderer)
            if collect is not None:
                collect(got)
            files += got
            bar.step()
        if beside is not None:
            beside()
    else:
        if pdf:
            # imported once here, not in every worker (forked workers inherit it;
            # the Götterbotschaft's PDF needs it here anyway)
            import weasyprint  # noqa: F401
        # Workers die with this process (SIGKILL included) and are killed when
        # it gives up (Ctrl-C, SIGTERM, an error): none writes after that.
        # The Götterbotschaft and the overview (the largest single task) go
        # first, so that they run beside the kingdoms, not after them.
        with stopping_pool(process_pool(jobs, _init_worker, (inp,))) as pool:
            results = pool.map(_work, tasks)  # every task submitted
            if beside is not None:
                beside()
            for got in results:
                if collect is not None:
                    collect(got)
                files += got
                bar.step()
    return sorted(files)


def default_jobs() -> int:
    """Workers for the pool: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)
