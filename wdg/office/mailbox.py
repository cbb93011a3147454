"""One mailbox for the world: ``wdg mail run --all`` (docs/world.md).

A campaign's ``mail.yaml`` beside ``worlds/`` serves every segment that has
none of its own (:func:`wdg.mail.config.load_mail_config`). Each segment's
fetch takes the sheets whose ``Segment:`` line names it and leaves those that
name another segment of the campaign in the inbox for that segment's fetch
(:mod:`wdg.mail.fetch`), so one box for all segments needs no further routing:
:func:`run_all` runs ``wdg mail run`` of every segment in turn, each under its
own lock, with its own send record and log — a mail left by one segment's
fetch is taken by the next. Mail commands are answered by the segment whose
fetch takes the mail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wdg import exitcodes
from wdg.campaign import Campaign
from wdg.office import segment_names
from wdg.office.run import worse


def run_one(camp: Campaign, segment: str, *, force: bool = False,
            next_deadline: str | None = None, pdf: bool = True) -> Any:
    """``wdg mail run SEGMENT`` as the command does it (its outcome as a
    :class:`wdg.mail.run.RunReport`, a line in the segment's mail log); a
    segment whose ``mail.yaml`` is missing or whose files are damaged is a
    report with code *failed*, never an exception."""
    from wdg.errors import LockedError, WdgError
    from wdg.fsio import describe_os_error
    from wdg.mail.log import log_line
    from wdg.mail.run import RunReport, run_unattended

    seg_dir = camp.segment_dir(segment)
    tz = None
    try:
        from wdg.world.storage import load_segment

        tz = load_segment(seg_dir).settings.timezone
        rep = run_unattended(camp, segment, force=force, next_deadline=next_deadline, pdf=pdf)
    except LockedError as exc:
        rep = RunReport(segment, exitcodes.LOCKED, [f"gesperrt: {exc}"])
    except WdgError as exc:
        rep = RunReport(segment, exitcodes.FAILED, [f"Fehler: {exc}"])
    except OSError as exc:
        rep = RunReport(segment, exitcodes.FAILED, [f"Fehler: {describe_os_error(exc)}"])
    except KeyboardInterrupt:
        if tz is not None:
            log_line(seg_dir, "mail run --all: abgebrochen (Strg-C)", tz)
        raise
    if tz is not None:
        log_line(seg_dir, f"mail run --all: {exitcodes.NAMES.get(rep.code, rep.code)} "
                 f"(Code {rep.code}): " + " | ".join(rep.lines), tz)
    return rep


def run_all(camp: Campaign, *, force: bool = False, next_deadline: str | None = None,
            pdf: bool = True, progress: Callable[[Any], None] | None = None) -> tuple[int, list]:
    """``wdg mail run`` of every segment (by name); returns the world's exit code
    (:func:`wdg.office.run.worse`: failed before refused before locked before
    done before waiting before nothing) and the segments' reports."""
    code = exitcodes.NOTHING
    reports = []
    for name in segment_names(camp):
        rep = run_one(camp, name, force=force, next_deadline=next_deadline, pdf=pdf)
        reports.append(rep)
        code = worse(code, rep.code)
        if progress is not None:
            progress(rep)
    return code, reports
