"""The mail log of a segment: ``worlds/<segment>/mail/log/<YYYY-MM>.log``.

One line per thing done (fetched, answered, run, sent, refused), stamped with
the time in the segment's time zone. A log, not state: nothing reads it back;
it is for the game master (and ``journalctl``-less cron set-ups). One file per
real calendar month keeps it small; old files can be deleted at any time.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from wdg.store.edges import LinkRefused, refuse_links

LOG_DIR = Path("mail") / "log"


def _zone(tz: str | None) -> ZoneInfo:
    from wdg.world.deadline import zone_or_utc  # lazy: numpy (wdg.world); the mail log imports without it

    return zone_or_utc(tz)


def log_line(segment_dir: Path, text: str, tz: str | None = None) -> Path:
    """Append one line (``YYYY-MM-DD HH:MM:SS+ZZZZ text``) to the segment's log.
    A link in ``mail/log/`` is never written through: a warning instead."""
    now = datetime.now(_zone(tz))
    d = segment_dir / LOG_DIR
    path = d / f"{now:%Y-%m}.log"
    try:  # never through a link (a log line is not worth stopping the command for)
        refuse_links(segment_dir, path, "schreibt ins Postprotokoll")
    except LinkRefused as e:
        sys.stderr.write(f"Warnung: {e}\n")
        return path
    d.mkdir(parents=True, exist_ok=True)
    line = f"{now:%Y-%m-%d %H:%M:%S%z} [{os.getpid()}] {' '.join(text.split())}\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    with open(fd, "a", encoding="utf-8") as f:
        f.write(line)
    return path
