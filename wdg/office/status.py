"""``wdg world status``: every segment of the campaign in one table.

Per segment: its month, the deadline (and whether it has passed), the sheets
in / missing / refused, the blockers of ``wdg turn status``, the last month
run (its archive and when it was committed) and the mail state (``mail.yaml``
and the last line of the mail log). A segment whose files cannot be read is
listed with the reason instead; the others are not affected.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.engine import history
from wdg.engine.history import blockers
from wdg.errors import WdgError
from wdg.fsio import describe_os_error
from wdg.mail.config import load_mail_config
from wdg.office import segment_names
from wdg.procs import process_pool, stopping_pool
from wdg.store.months import month_dir
from wdg.store.segment import load_segment
from wdg.world.deadline import deadline_for, deadline_json, stored_problem


@dataclass(slots=True)
class SegmentStatus:
    """One segment's line of ``wdg world status``."""

    segment: str
    month: str | None = None
    month_name: str | None = None
    deadline: dict[str, Any] | None = None
    """As ``wdg turn deadline --json``."""
    due: bool = False
    """The deadline has passed: ``wdg world run`` runs the month."""
    valid: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    bots: list[int] = field(default_factory=list)
    playing: int = 0
    gm_sheet: bool = False
    blockers: list[str] = field(default_factory=list)
    last_run: dict[str, Any] | None = None
    """``{"month": "YYYY-MM", "at": ISO time of its commit}`` or None."""
    mail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    """Why the segment could not be read (then the fields above are empty)."""

    def as_dict(self) -> dict[str, Any]:
        """For ``--json``."""
        return asdict(self)


def _last_run(camp: Campaign, name: str, seg: Any) -> dict[str, Any] | None:
    last = seg.date.previous()
    manifest = month_dir(camp, name, last) / "manifest.yaml"
    if not manifest.is_file():
        return None
    at = datetime.fromtimestamp(manifest.stat().st_mtime, timezone.utc)
    return {"month": last.key, "month_name": last.short(),
            "at": at.isoformat(timespec="seconds")}


def mail_state(seg_dir: Path) -> dict[str, Any]:
    """Whether the segment has a ``mail.yaml`` (and with which servers), and
    the last line of its mail log (:mod:`wdg.mail.log`)."""

    out: dict[str, Any] = {"configured": False, "imap": False, "smtp": False, "last": None}
    try:
        config = load_mail_config(seg_dir)
    except (WdgError, OSError) as exc:
        out["problem"] = str(exc)
        return out
    if config is not None:
        out.update(configured=True, imap=config.imap is not None, smtp=config.smtp is not None)
    logs = sorted((seg_dir / "mail" / "log").glob("*.log")) \
        if (seg_dir / "mail" / "log").is_dir() else []
    if logs:
        try:
            lines = logs[-1].read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        out["last"] = lines[-1] if lines else None
    return out


def segment_status(camp: Campaign, name: str) -> SegmentStatus:
    """The status of one segment (errors reading it become :attr:`SegmentStatus.error`)."""

    out = SegmentStatus(name)
    seg_dir = camp.segment_dir(name)
    out.mail = mail_state(seg_dir)
    try:
        seg = load_segment(seg_dir)
        out.month, out.month_name = seg.date.key, seg.date.short()
        d = deadline_for(seg, seg.date)
        out.deadline = deadline_json(seg, d, stored_problem(seg))
        out.due = bool(out.deadline["passed"])
        out.last_run = _last_run(camp, name, seg)
        st = history.month_status(camp, name)
    except WdgError as exc:
        out.error = str(exc)
        return out
    except OSError as exc:
        out.error = describe_os_error(exc)
        return out
    out.valid, out.missing, out.bots = list(st.valid), list(st.missing), list(st.bots)
    out.refused = {str(k): why for k, why in sorted(st.refused.items())}
    out.playing, out.gm_sheet = st.playing, st.gm_sheet
    out.blockers = blockers(st)
    return out


def _status(root: str, name: str) -> SegmentStatus:
    return segment_status(Campaign(Path(root)), name)


def world_status(camp: Campaign, jobs: int = 1) -> list[SegmentStatus]:
    """Every segment's status, by name (``jobs`` > 1: read in that many processes)."""
    names = segment_names(camp)
    if jobs > 1 and len(names) > 1:
        with stopping_pool(process_pool(min(jobs, len(names)))) as pool:
            return list(pool.map(_status, [str(camp.root)] * len(names), names))
    return [segment_status(camp, name) for name in names]


def status_lines(rows: list[SegmentStatus]) -> list[str]:
    """The German table of ``wdg world status``."""
    head = f"{'Segment':<12} {'Mond':<8} {'Eintreffschluß':<18} {'fällig':<6} " \
           f"{'Bögen':<7} {'fehlen':<6} {'letzter Lauf':<20} Post"
    out = [head, "-" * len(head)]
    for r in rows:
        if r.error is not None:
            out.append(f"{r.segment:<12} FEHLER: {r.error}")
            continue
        d = r.deadline or {}
        when = (d.get("deadline") or "nicht gesetzt")[:16].replace("T", " ")
        last = f"{r.last_run['month']} {r.last_run['at'][:16].replace('T', ' ')}" \
            if r.last_run else "-"
        mail = ("IMAP+SMTP" if r.mail.get("imap") and r.mail.get("smtp") else
                "SMTP" if r.mail.get("smtp") else "IMAP" if r.mail.get("imap") else
                "mail.yaml" if r.mail.get("configured") else "-")
        out.append(f"{r.segment:<12} {r.month:<8} {when:<18} {'ja' if r.due else 'nein':<6} "
                   f"{len(r.valid):>2}/{r.playing:<4} {len(r.missing):<6} {last:<20} {mail}")
        for b in r.blockers:
            out.append(f"{'':<12} Blockade: {b}")
        for k, why in r.refused.items():
            out.append(f"{'':<12} Abgelehnt: Königreich {k}: {why}")
        if d.get("problem"):
            out.append(f"{'':<12} Warnung: {d['problem']}")
        if r.mail.get("problem"):
            out.append(f"{'':<12} Post: {r.mail['problem']}")
    return out
