"""``wdg mail watch``: answer every sheet the moment it arrives (IMAP IDLE).

:func:`watch` keeps one IMAP connection open, fetches (:func:`wdg.mail.fetch.fetch`
on that connection), then waits with ``IDLE`` until the server reports new mail
(or ``idle_seconds`` pass: RFC 2177 asks to re-issue IDLE within 29 minutes), and
fetches again. Mail that came in while a fetch was busy, and that the server
reported with the reply to one of the fetch's commands (it does not report it
again in IDLE), ends the wait at once (:meth:`wdg.mail.imap.ImapSession.idle`):
sheets arriving in a rush are all answered, not left until the next mail. A dropped connection (server restart, network gone, the server's
own timeout) is reconnected after a pause that grows from 1 s to at most 60 s;
a segment locked by another command (``wdg turn run``) is waited for the same way.
``stop()`` is polled at least once a second while waiting; a fetch in progress
is finished first — so SIGTERM ends the watch cleanly between two mails.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wdg.campaign import Campaign
from wdg.errors import LockedError
from wdg.mail.fetch import FetchReport, fetch, mail_config
from wdg.mail.imap import ConnectionLost, ImapError, ImapSession

IDLE_SECONDS = 25 * 60
BACKOFF = (1, 2, 5, 10, 30, 60)
RETRY_SECONDS = 10
"""How soon answers the SMTP server did not take are tried again."""


def _pause(seconds: float, stop: Callable[[], bool]) -> None:
    end = time.monotonic() + seconds
    while not stop() and time.monotonic() < end:
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))


def watch(camp: Campaign, segment: str, *, stop: Callable[[], bool],
          on_report: Callable[[FetchReport], None],
          on_problem: Callable[[str], None], idle_seconds: float = IDLE_SECONDS,
          answer: bool = True, on_ready: Callable[[], None] | None = None) -> None:
    """Fetch and answer until ``stop()`` is true (see the module). ``on_ready`` is
    called once, after the first fetch, before the first wait."""
    failures = 0
    while not stop():
        config = mail_config(camp, segment)  # re-read: the game master may change it
        assert config.imap is not None
        try:
            with ImapSession(config.imap) as box:
                if failures:
                    on_problem("Verbindung zum IMAP-Server wieder hergestellt")
                failures = 0
                while not stop():
                    report = fetch(camp, segment, config=config, session=box, answer=answer)
                    on_report(report)
                    if on_ready is not None:
                        on_ready()
                        on_ready = None
                    if stop():
                        break
                    # answers that could not go out are tried again soon, not only
                    # when the next mail arrives
                    box.idle(min(idle_seconds, RETRY_SECONDS) if report.failed else idle_seconds,
                             stop)
        except ConnectionLost as exc:
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except ImapError as exc:
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except LockedError as exc:  # a month being run: wait for it
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        _pause(BACKOFF[min(failures, len(BACKOFF) - 1)], stop)
        failures += 1
