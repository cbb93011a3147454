"""Reports of an archived month: :func:`render_month`, and the archive output.

``worlds/<segment>/turns/<YYYY-MM>/`` holds ``state-before/``, ``orders/``,
``rules/`` and ``events.yaml`` (:mod:`wdg.engine.archive`); the state after
the month is the next month's ``state-before/`` or, for the last month, the
segment's current state. :func:`render_month` reads them and renders every
report into ``reports/<segment>/<YYYY-MM>/``.

:func:`register_archive_output` adds the reports to every month's archive
(``outputs/reports/``): the text and HTML sheets, the kingdom views and the
order forms, the Götterbotschaft and the overview, so that ``wdg turn
replay`` verifies them byte for byte. The PDFs are made from exactly that
HTML and are deterministic too (tested), but are left out of the archive to
keep the month's commit fast. The archive's writer gets no state before the
month, so there the treasury's opening balance is computed from the ledger
(:func:`wdg.reports.build.treasury`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.engine.events import Event
from wdg.errors import StateError
from wdg.reports.batch import default_jobs, render_reports
from wdg.reports.settings import load_report_settings
from wdg.rules import safe_load_file
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment
from wdg.world.storage import load_segment

OUTPUT_NAME = "reports"


def event_from_dict(d: dict[str, Any], seg: Segment) -> Event:
    """An event from its plain form in ``events.yaml`` (addresses back to hexes)."""
    at = d.get("at")
    if isinstance(at, str):
        at = seg.grid.parse(at)
    elif isinstance(at, list) and len(at) == 2:
        at = Hex(int(at[0]), int(at[1]))
    return Event(kind=str(d["kind"]), kingdom=d.get("kingdom"), army=d.get("army"), at=at,
                 why=str(d.get("why", "")), gold=int(d.get("gold", 0)),
                 ledger=str(d.get("ledger", "")), public=bool(d.get("public", False)),
                 line=int(d.get("line", 0)), data=dict(d.get("data") or {}))


def load_events(path: Path, seg: Segment) -> list[Event]:
    """The event log of an archived month."""
    data = safe_load_file(path) or []
    if not isinstance(data, list):
        raise StateError(f"{path}: expected a list of events")
    return [event_from_dict(d, seg) for d in data]


def render_month(campaign: Campaign | str | Path | None, segment: str, month: MonthDate | str, *,
                 jobs: int | None = None, pdf: bool = True, progress: bool = False) -> list[Path]:
    """Render every report of an archived month into ``reports/<segment>/<YYYY-MM>/``."""
    from wdg.engine.archive import month_dir, read_order_files
    from wdg.engine.intake import take_in

    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    if not (mdir / "events.yaml").is_file() or not (mdir / "state-before").is_dir():
        raise StateError(f"segment {segment!r}: no archived month {date.key} in {mdir}; "
                         "run it first with 'wdg turn run'")
    before = load_segment(mdir / "state-before")
    nxt = month_dir(camp, segment, date.next()) / "state-before"
    if nxt.is_dir():
        after = load_segment(nxt)
    else:
        after = load_segment(camp.segment_dir(segment))
        if after.date != date.next():
            raise StateError(f"segment {segment!r}: the state after {date.key} is not archived "
                             f"(the segment stands at {after.date.key})")
    intake = take_in(load_segment(mdir / "state-before"), read_order_files(mdir / "orders"))
    rules = mdir / "rules" if (mdir / "rules" / "reports.yaml").is_file() else camp.rules_dir
    return render_reports(before, after, load_events(mdir / "events.yaml", after), intake.sheets,
                          intake.gm_sheet, camp.reports_dir(segment, date),
                          jobs=jobs or default_jobs(), templates=camp.templates_dir,
                          settings=load_report_settings(rules), pdf=pdf, progress=progress)


def archive_writers(templates: Path | None = None,
                    rules_dir: Path | None = None) -> dict[str, Any]:
    """The reports (text, HTML, views, order forms — not the PDFs, to keep the
    commit fast) as an output of the archived month: ``{"reports": writer}``
    for :func:`wdg.engine.turn.run_month` and ``replay_month`` (``outputs=``),
    so that a replay verifies the result sheets byte for byte too."""

    def write(result: Any, directory: Path) -> None:
        render_reports(None, result.state, list(result.log), result.sheets, None, directory,
                       jobs=1, templates=templates, settings=load_report_settings(rules_dir),
                       pdf=False)

    return {OUTPUT_NAME: write}
