"""``wdg mail watch``: answer every sheet the moment it arrives (IMAP IDLE).

:func:`watch` keeps one IMAP connection open, fetches (:func:`wdg.mail.fetch.fetch`
on that connection), then waits with ``IDLE`` until the server reports new mail
(or ``idle_seconds`` pass: RFC 2177 asks to re-issue IDLE within 29 minutes), and
fetches again. Mail that came in while a fetch was busy, and that the server
reported with the reply to one of the fetch's commands (it does not report it
again in IDLE), ends the wait at once (:meth:`wdg.mail.imap.ImapSession.idle`):
sheets arriving in a rush are all answered, not left until the next mail.

A server without IDLE is said once (``on_problem``) and asked every
``imap.poll_seconds`` (mail.yaml, default 15 s); so are the further folders of
``imap.folders`` (IDLE watches one folder).

A dropped connection (server restart, network gone, the server's own timeout) is
reconnected after a pause that grows from 1 s to at most 60 s; after
:data:`ALERT_AFTER` failures in a row the game master gets an alert
(:mod:`wdg.mail.alerts`). A segment locked by another command (``wdg turn run``)
is waited for the same way. A **refused login** ends the watch
(:class:`LoginRefused`): a wrong password does not heal itself, and a service
that stays "active" while nothing is fetched hides it — IMAP's ends it at once,
SMTP's after the mails in hand were filed (their answers stay due). ``stop()`` is
polled at least once a second while waiting; a fetch in progress is finished
first — so SIGTERM ends the watch cleanly between two mails.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wdg.campaign import Campaign
from wdg.errors import LockedError, StateError, WdgError
from wdg.mail import alerts
from wdg.mail.fetch import FetchReport, fetch, mail_config
from wdg.mail.imap import ConnectionLost, ImapError, ImapLoginRefused, ImapSession
from wdg.mail.smtp import SmtpLoginRefused

IDLE_SECONDS = 25 * 60
BACKOFF = (1, 2, 5, 10, 30, 60)
RETRY_SECONDS = 10
"""How soon answers the SMTP server did not take are tried again."""
ALERT_AFTER = 4
"""Failed connections in a row (1 + 2 + 5 + 10 s of trying) before an alert."""


class LoginRefused(StateError):
    """The IMAP or SMTP server refused the login (or its password is missing):
    the watch ends, the command exits with a failure (German text)."""

    def __init__(self, text: str, smtp: bool) -> None:
        super().__init__(text)
        self.smtp = smtp


def pause(seconds: float, stop: Callable[[], bool]) -> None:
    """Wait ``seconds``, or less as soon as ``stop()`` is true (asked every
    0.2 s): the backoff after a dropped connection, which a stop request ends."""
    end = time.monotonic() + seconds
    while not stop() and time.monotonic() < end:
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))


def watch(camp: Campaign, segment: str, *, stop: Callable[[], bool],
          on_report: Callable[[FetchReport], None],
          on_problem: Callable[[str], None], idle_seconds: float = IDLE_SECONDS,
          answer: bool = True, on_ready: Callable[[], None] | None = None) -> None:
    """Fetch and answer until ``stop()`` is true (see the module). ``on_ready`` is
    called once, after the first fetch, before the first wait. Raises
    :class:`LoginRefused` when a login is refused."""

    seg_dir = camp.segment_dir(segment)
    failures = 0
    told_no_idle = False
    send_trouble = ""
    while not stop():
        config = mail_config(camp, segment)  # re-read: the game master may change it
        assert config.imap is not None
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
                    report = fetch(camp, segment, config=config, session=box, answer=answer)
                    on_report(report)
                    if on_ready is not None:
                        on_ready()
                        on_ready = None
                    if isinstance(report.send_error, SmtpLoginRefused):
                        raise LoginRefused(str(report.send_error), smtp=True)
                    trouble = str(report.send_error or "") or \
                        next(iter(report.failed.values()), "")
                    if trouble and trouble != send_trouble:
                        on_problem(f"Fehler: {len(report.failed)} Antwort(en) nicht gesendet "
                                   f"({trouble}); neuer Versuch in {RETRY_SECONDS} s")
                    elif send_trouble and not trouble:
                        on_problem("Versand wieder möglich: die fälligen Antworten sind "
                                   "gesendet")
                    send_trouble = trouble
                    if stop():
                        break
                    wait = idle_seconds
                    if not box.has_idle or len(config.imap.read_folders) > 1:
                        wait = min(wait, config.imap.poll_seconds)
                    # answers that could not go out are tried again soon, not only
                    # when the next mail arrives
                    box.idle(min(wait, RETRY_SECONDS) if report.failed else wait, stop)
        except ImapLoginRefused as exc:
            alerts.imap_failed(seg_dir, exc)
            alerts.deliver(seg_dir, config)  # SMTP may well work
            raise LoginRefused(str(exc), smtp=False) from None
        except (ConnectionLost, ImapError) as exc:
            if failures + 1 >= ALERT_AFTER:
                alerts.imap_failed(seg_dir, exc)
                alerts.deliver(seg_dir, config)
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except LockedError as exc:  # a month being run: wait for it
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except WdgError:  # the watch ends (a damaged record ...): its alert goes out first
            alerts.deliver(seg_dir, config)
            raise
        pause(BACKOFF[min(failures, len(BACKOFF) - 1)], stop)
        failures += 1
