"""Exit codes of the commands a cron job or a systemd timer calls
(``wdg mail run``, ``wdg reports send``, ``wdg mail forms``; docs/gamemaster.md).

Other commands exit 0 on success, 1 on an error, 2 on a usage error, 130 on
Ctrl-C. The mail commands tell more apart, so that a script can react:
"""

from __future__ import annotations

from enum import Enum

OK = 0
"""Work was done (mails fetched/answered, the month run, results sent)."""
FAILED = 1
"""Something failed (a server not reachable, a damaged file ...): see the message."""
USAGE = 2
"""The command line itself was wrong."""
NOTHING = 3
"""Nothing to do: no new mail, every mail already sent."""
WAITING = 4
"""Waiting for the deadline: the month's EINTREFFSCHLUSS has not passed yet."""
REFUSED = 5
"""Refused: the month may not run (a blocker in ``wdg turn status``: too many
sheets missing, the game master's sheet has errors, no deadline set ...), or a
mail is uncertain / the send record is damaged — the game master must look."""
LOCKED = 6
"""Another wdg command holds the segment's lock; try again later (``wdg mail run``
first waits for it, ``--wait``: ``wdg mail watch`` holds it only while it takes
mail in)."""
UNSENT = 7
"""Mails are owed and could not be sent: confirmations, command answers or results
wait because the SMTP server is down, refuses the login, or its password is
missing. What was fetched is recorded; the message says what is owed and why; the
game master is told by mail as well (once the server takes mail again). A failure:
never hidden behind 0, 3 or 4 (issue #39)."""
INTERRUPTED = 130
"""Ctrl-C (SIGINT); 143 for SIGTERM (128 + signal number)."""

NAMES = {OK: "erledigt", FAILED: "fehlgeschlagen", USAGE: "Aufruf fehlerhaft",
         NOTHING: "nichts zu tun", WAITING: "wartet auf den Eintreffschluß",
         REFUSED: "verweigert", LOCKED: "gesperrt", UNSENT: "nicht versandt",
         INTERRUPTED: "abgebrochen"}
"""The German word for each code (in the log and in ``--json`` as ``status``)."""

class Level(Enum):
    """What a line of a run report is (``wdg mail run``, ``wdg world run``): the
    command prints problems on stderr by this code, never by the line's first
    German word."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    REFUSED = "refused"
    LOCKED = "locked"


PROBLEMS = frozenset({Level.WARNING, Level.ERROR, Level.REFUSED, Level.LOCKED})
"""The lines ``wdg mail run`` prints on stderr (``wdg world run``: without warnings)."""


JSON_STATUS = {OK: "done", FAILED: "failed", NOTHING: "nothing", WAITING: "waiting",
               REFUSED: "refused", LOCKED: "locked", UNSENT: "unsent",
               INTERRUPTED: "interrupted"}
"""The machine-readable word for each code (``--json``)."""
