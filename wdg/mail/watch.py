"""``wdg mail watch``: answer every sheet the moment it arrives (IMAP IDLE).

:func:`watch` keeps one IMAP connection open, fetches (:func:`wdg.mail.fetch.fetch`
on that connection), then waits with ``IDLE`` until the server reports new mail
(or ``idle_seconds`` pass: RFC 2177 asks to re-issue IDLE within 29 minutes), and
fetches again. A dropped connection (server restart, network gone, the server's
own timeout) is reconnected after a pause that grows from 1 s to at most 60 s;
a segment locked by another command (``wdg turn run``) is waited for the same way.
``stop()`` is polled at least once a second while waiting; a fetch in progress
is finished first — so SIGTERM ends the watch cleanly between two mails.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.mail.fetch import FetchReport, fetch, mail_config
from wdg.mail.imap import ConnectionLost, ImapError, ImapSession

IDLE_SECONDS = 25 * 60
BACKOFF = (1, 2, 5, 10, 30, 60)


def _pause(seconds: float, stop: Callable[[], bool]) -> None:
    end = time.monotonic() + seconds
    while not stop() and time.monotonic() < end:
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))


def watch(camp: Campaign, segment: str, *, stop: Callable[[], bool],
          on_report: Callable[[FetchReport], None],
          on_problem: Callable[[str], None], idle_seconds: float = IDLE_SECONDS,
          answer: bool = True) -> None:
    """Fetch and answer until ``stop()`` is true (see the module)."""
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
                    if stop():
                        break
                    box.idle(idle_seconds, stop)
        except ConnectionLost as exc:
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except ImapError as exc:
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        except StateError as exc:
            if "locked" not in str(exc) and "gesperrt" not in str(exc):
                raise
            on_problem(f"{exc}; neuer Versuch in {BACKOFF[min(failures, len(BACKOFF) - 1)]} s")
        _pause(BACKOFF[min(failures, len(BACKOFF) - 1)], stop)
        failures += 1
