"""One mailbox for the world: ``wdg mail run --all`` (docs/world.md).

A campaign's ``mail.yaml`` beside ``worlds/`` serves every segment that has
none of its own (:func:`wdg.mail.config.load_mail_config`). Each segment's
fetch takes the sheets whose ``Segment:`` line names it and leaves those that
name another segment of the campaign in the inbox for that segment's fetch
(:mod:`wdg.mail.fetch`), so one box for all segments needs no further routing:
:func:`run_all` runs ``wdg mail run`` of every segment in turn, each under its
own lock, with its own send record and log — a mail left by one segment's
fetch is taken by the next. A player's mail command (``Formular``, ``Ergebnis
erneut``, ``Passwort vergessen``) is answered by the segment whose fetch takes
it, for every kingdom of the sender in every segment the box serves
(:func:`wdg.mail.commands.sender_elsewhere`, in the mail layer that
office imports, never the other way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wdg import exitcodes
from wdg.campaign import Campaign
from wdg.errors import LockedError, StateError, WdgError
from wdg.fsio import describe_os_error
from wdg.mail import alerts
from wdg.mail.config import MAIL_FILE, load_mail_config
from wdg.mail.fetch import fetch, mail_config
from wdg.mail.imap import ConnectionLost, ImapError, ImapLoginRefused, ImapSession
from wdg.mail.log import log_line
from wdg.mail.run import RunReport, run_unattended
from wdg.mail.smtp import SmtpLoginRefused
from wdg.mail.watch import ALERT_AFTER, BACKOFF, IDLE_SECONDS, LoginRefused, RETRY_SECONDS, pause
from wdg.office import segment_names
from wdg.office.run import worse
from wdg.store.segment import load_segment


def run_one(camp: Campaign, segment: str, *, force: bool = False,
            next_deadline: str | None = None, pdf: bool = True) -> Any:
    """``wdg mail run SEGMENT`` as the command does it (its outcome as a
    :class:`wdg.mail.run.RunReport`, a line in the segment's mail log); a
    segment whose ``mail.yaml`` is missing or whose files are damaged is a
    report with code *failed*, never an exception."""

    seg_dir = camp.segment_dir(segment)
    tz = None
    try:
        tz = load_segment(seg_dir).settings.timezone
        rep = run_unattended(camp, segment, force=force, next_deadline=next_deadline, pdf=pdf)
    except LockedError as exc:
        rep = RunReport.failed(segment, exitcodes.LOCKED, f"gesperrt: {exc}",
                               exitcodes.Level.LOCKED)
    except WdgError as exc:
        rep = RunReport.failed(segment, exitcodes.FAILED, f"Fehler: {exc}",
                               exitcodes.Level.ERROR)
    except OSError as exc:
        rep = RunReport.failed(segment, exitcodes.FAILED, f"Fehler: {describe_os_error(exc)}",
                               exitcodes.Level.ERROR)
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


def shared_segments(camp: Campaign) -> tuple[Any, list[str], list[str]]:
    """The campaign's ``mail.yaml`` (checked: it must have an ``imap`` section),
    the segments it serves and those with a ``mail.yaml`` of their own."""

    config = None
    path = camp.root / MAIL_FILE
    if path.is_file():
        # a segment without its own file gets exactly the campaign's
        config = next((load_mail_config(camp.segment_dir(n)) for n in segment_names(camp)
                       if not (camp.segment_dir(n) / MAIL_FILE).is_file()), None)
    served = [n for n in segment_names(camp) if not (camp.segment_dir(n) / MAIL_FILE).is_file()]
    own = [n for n in segment_names(camp) if (camp.segment_dir(n) / MAIL_FILE).is_file()]
    if config is None or config.imap is None:
        raise StateError(f"{path}: kein gemeinsames IMAP-Postfach der Kampagne (mail.yaml neben "
                         "worlds/ mit Abschnitt imap:, docs/world.md); ohne es: 'wdg mail watch "
                         "SEGMENT' je Segment")
    return config, served, own


def watch_all(camp: Campaign, *, stop: Callable[[], bool], on_report: Callable[[Any], None],
              on_problem: Callable[[str], None], idle_seconds: float | None = None,
              on_ready: Callable[[], None] | None = None) -> None:
    """``wdg mail watch --all``: one IMAP connection to the campaign's box; on
    every wake-up each segment it serves fetches on that connection (each under
    its own lock, taking the sheets that name it and leaving the others), then
    one IDLE for all (without IDLE: a look every ``imap.poll_seconds``). A
    segment locked by another command (its month being run) is skipped this
    round and tried again soon; a dropped connection is reconnected after a
    growing pause, and a refused login ends the watch (:class:`wdg.mail.watch.
    LoginRefused`), all as :func:`wdg.mail.watch.watch`; the alerts of a lost
    connection go through the first segment the box serves."""

    idle = IDLE_SECONDS if idle_seconds is None else idle_seconds
    failures = 0
    told_no_idle = False
    while not stop():
        config, served, own = shared_segments(camp)  # re-read: the game master may change it
        alert_dir = camp.segment_dir(served[0]) if served else None
        for name in own:
            on_problem(f"{name}: hat ein eigenes mail.yaml; 'wdg mail watch {name}' beobachtet "
                       "dessen Postfach")
        try:
            with ImapSession(config.imap) as box:
                if failures:
                    on_problem("Verbindung zum IMAP-Server wieder hergestellt")
                failures = 0
                if not box.has_idle and not told_no_idle:
                    told_no_idle = True
                    on_problem(f"Warnung: der IMAP-Server {config.imap.where} bietet kein IDLE "
                               f"an; wdg mail watch schaut alle {config.imap.poll_seconds:g} s "
                               "nach neuer Mail (imap.poll_seconds in mail.yaml)")
                while not stop():
                    retry = False
                    for name in served:
                        try:
                            report = fetch(camp, name, config=mail_config(camp, name),
                                           session=box)
                        except LockedError as exc:
                            on_problem(f"{name}: {exc}; neuer Versuch in {RETRY_SECONDS} s")
                            retry = True
                            continue
                        on_report(report)
                        if isinstance(report.send_error, SmtpLoginRefused):
                            raise LoginRefused(str(report.send_error), smtp=True)
                        retry = retry or bool(report.failed)
                        if stop():
                            break
                    if on_ready is not None:
                        on_ready()
                        on_ready = None
                    if stop():
                        break
                    wait = idle
                    if not box.has_idle or len(config.imap.read_folders) > 1:
                        wait = min(wait, config.imap.poll_seconds)
                    box.idle(min(wait, RETRY_SECONDS) if retry else wait, stop)
        except ImapLoginRefused as exc:
            if alert_dir is not None:
                alerts.imap_failed(alert_dir, exc)
                alerts.deliver(alert_dir, config)
            raise LoginRefused(str(exc), smtp=False) from None
        except (ConnectionLost, ImapError) as exc:
            if failures + 1 >= ALERT_AFTER and alert_dir is not None:
                alerts.imap_failed(alert_dir, exc)
                alerts.deliver(alert_dir, config)
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except WdgError:  # the watch ends (a damaged record ...): its alert goes out first
            if alert_dir is not None:
                alerts.deliver(alert_dir, config)
            raise
        pause(BACKOFF[min(failures, len(BACKOFF) - 1)], stop)
        failures += 1
