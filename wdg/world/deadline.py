"""The deadline for a month's sheets ("EINTREFFSCHLUSS").

"Der Spielzug muß den Segmentleiter bis zu dem von ihm angegebenen Datum
(EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben!" The game master
sets a real date (and, if not 13:00, a time) for the sheets of a month; it is
stored in the segment's settings with the month it belongs to, used by the
mailbox intake, shown by ``wdg turn status`` and printed on the result sheets
of the month before.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from wdg.errors import InvalidInputError
from wdg.world.calendar import MonthDate
from wdg.world.state import Segment


def normalise(text: str, hour: int = 13) -> str:
    """``YYYY-MM-DD`` (the rule's 13:00) or ``YYYY-MM-DD HH:MM`` -> ``YYYY-MM-DD HH:MM``."""
    t = text.strip()
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            d = datetime.strptime(t, fmt)
        except ValueError:
            continue
        if fmt == "%Y-%m-%d":
            d = d.replace(hour=hour)
        return d.strftime("%Y-%m-%d %H:%M")
    raise InvalidInputError(f"not a deadline: {text!r}; expected 'YYYY-MM-DD' (13:00) or "
                            "'YYYY-MM-DD HH:MM'")


def check_timezone(tz: str) -> str:
    """A known IANA time zone name or a clear error."""
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInputError(f"unknown time zone {tz!r}; expected e.g. 'Europe/Berlin'") from None
    return tz


def set_deadline(seg: Segment, text: str, *, month: MonthDate | None = None,
                 tz: str | None = None) -> str:
    """Set the deadline for the sheets of ``month`` (default: the segment's current
    month); returns the normalised deadline."""
    s = seg.settings
    if tz is not None:
        s.timezone = check_timezone(tz)
    s.deadline = normalise(text, s.deadline_hour)
    s.deadline_month = (month or seg.date).key
    return s.deadline


def deadline_for(seg: Segment, month: MonthDate) -> datetime | None:
    """The deadline of ``month``'s sheets as an aware datetime, if set for it."""
    s = seg.settings
    if not s.deadline or s.deadline_month != month.key:
        return None
    naive = datetime.strptime(s.deadline, "%Y-%m-%d %H:%M")
    return naive.replace(tzinfo=ZoneInfo(check_timezone(s.timezone)))


def when(d: datetime) -> str:
    """``3.12.2026, 13:00 Uhr``."""
    return f"{d.day}.{d.month}.{d.year}, {d:%H:%M} Uhr"


def describe(seg: Segment, month: MonthDate) -> str:
    """The line for the result sheets: ``Eintreffschluss für Endex 412: 3.12.2026,
    13:00 Uhr``, or a notice when the game master has not set it yet."""
    d = deadline_for(seg, month)
    if d is None:
        return f"Eintreffschluss für {month.short()}: wie vom Segmentleiter angekündigt"
    return f"Eintreffschluss für {month.short()}: {when(d)}"
