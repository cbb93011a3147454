"""Reports of a month: rendered once into the archive, delivered from it.

``wdg turn run`` passes :func:`archive_writers` to the month's commit: every
report of the month — result sheets (text, HTML, PDF), kingdom views, order
forms, the Götterbotschaft and the overview — is rendered once, by a pool of
workers, into the staging folder's ``outputs/reports/`` before the commit
point, and so enters the manifest. After the commit :func:`deliver` builds
``reports/<segment>/<YYYY-MM>/`` from the archive (hard links where the file
system allows, else copies): the files players get are the archived bytes,
and ``wdg turn replay`` re-renders the month and compares them byte for byte
(:func:`check_delivered` also checks the delivered copies).

:func:`render_month` (``wdg reports render``) renders an archived month
again from that month's own archived state after it (``state/``), its event
log, sheets and rules — never from later state — and delivers: files equal to
the archived ones are delivered from the archive, files that differ (e.g.
after a template change) are written as rendered and listed.

The archive's writer gets no state before the month, so the treasury's
opening balance is computed from the ledger (:func:`wdg.reports.build.treasury`);
:func:`render_month` does the same, so both give the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
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


OUTPUTS_DIR = "outputs"


def archived_reports(mdir: Path) -> Path:
    """The folder of an archived month's reports (``outputs/reports/``)."""
    return mdir / OUTPUTS_DIR / OUTPUT_NAME


def _link_or_copy(src: Path, dst: Path) -> None:
    """Put ``src``'s bytes at ``dst`` (a hard link when possible), replacing
    ``dst`` atomically; ``src`` is never touched."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        if dst.exists() and os.path.samefile(src, dst):
            return
    except OSError:
        pass
    tmp = dst.with_name(f".{dst.name}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def deliver(camp: Campaign, segment: str, month: MonthDate) -> list[Path]:
    """Build ``reports/<segment>/<YYYY-MM>/`` from the archived month's
    ``outputs/reports/``; returns the delivered files, sorted. Files there that
    are not reports of the archive (the mail outbox) are left alone."""
    from wdg.engine.archive import month_dir

    src = archived_reports(month_dir(camp, segment, month))
    if not src.is_dir():
        raise StateError(f"segment {segment!r}: the archived month {month.key} holds no reports "
                         f"({src}); render them with 'wdg reports render {segment} {month.key}'")
    out = camp.reports_dir(segment, month)
    files = []
    for p in sorted(src.rglob("*")):
        if p.is_file():
            dst = out / p.relative_to(src)
            _link_or_copy(p, dst)
            files.append(dst)
    return files


def check_delivered(camp: Campaign, segment: str, month: MonthDate,
                    manifest: dict[str, str]) -> str | None:
    """The first delivered report (``reports/<segment>/<YYYY-MM>/...``) whose
    bytes differ from the archive's manifest, or ``None``. A report that was
    never delivered (or removed) is not a difference."""
    out = camp.reports_dir(segment, month)
    prefix = f"{OUTPUTS_DIR}/{OUTPUT_NAME}/"
    for name, digest in sorted(manifest.items()):
        if not name.startswith(prefix):
            continue
        p = out / name[len(prefix):]
        if p.is_file() and hashlib.sha256(p.read_bytes()).hexdigest() != digest:
            return p.relative_to(camp.root).as_posix()
    return None


@dataclass(slots=True)
class Rendered:
    """What :func:`render_month` wrote: every file, and those that differ from
    the archived month's reports (empty when all equal them)."""

    files: list[Path] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.files)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.files)


def month_inputs(camp: Campaign, segment: str, date: MonthDate) -> tuple[Segment, list[Event],
                                                                           dict, object, Path]:
    """``(state after, events, sheets, game master's sheet, rules folder)`` of
    an archived month, all from the month's own folder."""
    from wdg.engine.archive import month_dir, read_order_files
    from wdg.engine.intake import take_in

    mdir = month_dir(camp, segment, date)
    if not (mdir / "events.yaml").is_file() or not (mdir / "state-before").is_dir():
        raise StateError(f"segment {segment!r}: no archived month {date.key} in {mdir}; "
                         "run it first with 'wdg turn run'")
    if (mdir / "state").is_dir():
        after = load_segment(mdir / "state")  # the month's own state after it
    else:  # archives written before the state after the month was kept
        nxt = month_dir(camp, segment, date.next()) / "state-before"
        after = load_segment(nxt if nxt.is_dir() else camp.segment_dir(segment))
        if after.date != date.next():
            raise StateError(f"segment {segment!r}: the state after {date.key} is not archived "
                             f"(the segment stands at {after.date.key})")
    intake = take_in(load_segment(mdir / "state-before"), read_order_files(mdir / "orders"))
    rules = mdir / "rules" if (mdir / "rules" / "reports.yaml").is_file() else camp.rules_dir
    return after, load_events(mdir / "events.yaml", after), intake.sheets, intake.gm_sheet, rules


def render_month(campaign: Campaign | str | Path | None, segment: str, month: MonthDate | str, *,
                 jobs: int | None = None, pdf: bool = True, progress: bool = False) -> Rendered:
    """Render every report of an archived month again, from the month's own
    archived state, events, sheets and rules, and deliver them into
    ``reports/<segment>/<YYYY-MM>/``: files equal to the archived ones come
    from the archive, the others are written as rendered (and listed in
    ``differing``)."""
    from wdg.engine.archive import month_dir

    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    date = MonthDate.parse(month) if isinstance(month, str) else month
    after, events, sheets, gm_sheet, rules = month_inputs(camp, segment, date)
    archived = archived_reports(month_dir(camp, segment, date))
    out = camp.reports_dir(segment, date)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = Rendered()
    with tempfile.TemporaryDirectory(prefix=f".render-{date.key}-", dir=out.parent) as tmp:
        got = render_reports(None, after, events, sheets, gm_sheet, Path(tmp),
                             jobs=jobs or default_jobs(), templates=camp.templates_dir,
                             settings=load_report_settings(rules), pdf=pdf, progress=progress)
        for p in got:
            rel = p.relative_to(tmp)
            old = archived / rel
            dst = out / rel
            if old.is_file() and old.read_bytes() == p.read_bytes():
                _link_or_copy(old, dst)
            else:
                if old.is_file():
                    result.differing.append(rel.as_posix())
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(p, dst)
            result.files.append(dst)
    result.files.sort()
    return result


def archive_writers(templates: Path | None = None, rules_dir: Path | None = None, *,
                    pdf: bool = True, jobs: int = 1, progress: bool = False) -> dict[str, Any]:
    """Every report of the month as an output of the archived month:
    ``{"reports": writer}`` for :func:`wdg.engine.turn.run_month` and
    ``replay_month`` (``outputs=``). The writer renders the result sheets (with
    their PDFs unless ``pdf`` is false), views, order forms, Götterbotschaft
    and overview over ``jobs`` workers into the staging folder, so they are
    archived before the commit point and a replay verifies them byte for byte."""

    def write(result: Any, directory: Path) -> None:
        render_reports(None, result.state, list(result.log), result.sheets,
                       getattr(result, "gm_sheet", None), directory, jobs=jobs,
                       templates=templates, settings=load_report_settings(rules_dir), pdf=pdf,
                       progress=progress)

    return {OUTPUT_NAME: write}
