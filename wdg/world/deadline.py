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


FIRST_YEAR = 1970
"""The earliest year a deadline may have: it is a real date, never a game year
(``0412-06-03`` is Quellmond 412 written like a month key, not a deadline)."""


_FORMS = ("%Y-%m-%d %H:%M", "%Y-%m-%d", "%d.%m.%Y %H:%M", "%d.%m.%Y")
FORMS_TEXT = ("'JJJJ-MM-TT' oder 'TT.MM.JJJJ' (13:00 Uhr, wie die Regel sagt), "
              "'JJJJ-MM-TT HH:MM' oder 'TT.MM.JJJJ HH:MM', z.B. '2026-12-03 13:00' oder "
              "'03.12.2026 13:00'")
"""The forms a deadline may be given in (docs/gamemaster.md), in German."""


def normalise(text: str, hour: int = 13) -> str:
    """A deadline as the game master writes it -> ``YYYY-MM-DD HH:MM``.

    Accepted: ``YYYY-MM-DD`` and ``DD.MM.YYYY`` (the rule's 13:00, or ``hour``),
    each also with ``HH:MM``; the form wdg prints (``3.12.2026, 13:00 Uhr``)
    is read back too. Raises :class:`InvalidInputError` (German) for anything
    else, including a real-looking date in a game year (before :data:`FIRST_YEAR`)."""
    t = " ".join(text.replace(",", " ").split())
    if t.endswith(" Uhr"):
        t = t[:-4]
    for fmt in _FORMS:
        try:
            d = datetime.strptime(t, fmt)
        except ValueError:
            continue
        if d.year < FIRST_YEAR:
            raise InvalidInputError(
                f"kein Eintreffschluß: {text!r} liegt im Jahr {d.year} — ein Spieljahr? Der "
                f"EINTREFFSCHLUSS ist ein echtes Kalenderdatum ab {FIRST_YEAR}: erwartet "
                f"{FORMS_TEXT}; nichts geändert")
        if "%H" not in fmt:
            d = d.replace(hour=hour)
        return f"{d.year:04d}-{d:%m-%d %H:%M}"
    raise InvalidInputError(f"kein Eintreffschluß: {text!r}; erwartet {FORMS_TEXT}; "
                            "nichts geändert")


FORCE_HINT = "--force setzt ihn trotzdem, etwa um alte Post nachträglich einzulesen"


def refuse_past(value: str, tz: str, *, what: str = "Eintreffschluß",
                hint: str = FORCE_HINT) -> None:
    """Refuse a normalised deadline ``value`` that lies in the past in zone ``tz``
    (``hint``: how to set it anyway)."""
    at = datetime.strptime(value, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(check_timezone(tz)))
    now = datetime.now(at.tzinfo)
    if at <= now:
        raise InvalidInputError(
            f"der {what} {when(at)} ({tz}) liegt in der Vergangenheit (jetzt: {when(now)}); "
            f"ein Eintreffschluß muß in der Zukunft liegen — nichts geändert ({hint})")


ZONE_ERRORS = (ZoneInfoNotFoundError, ValueError, OSError)
"""What ``ZoneInfo(name)`` raises for a name that is no time zone: an unknown
name (:class:`zoneinfo.ZoneInfoNotFoundError`), a malformed one or a path
(:class:`ValueError`), a folder of the zone database (``Europe``) or a name
too long for the file system (:class:`OSError`)."""


def zone_or_utc(tz: str | None) -> ZoneInfo:
    """The zone ``tz``; UTC when it is empty or no zone (a stored bad name is
    reported by :func:`stored_problem` and ``wdg segment check``; a mail's
    date or a log line is still written, in UTC)."""
    try:
        return ZoneInfo(tz or "UTC")
    except ZONE_ERRORS:
        return ZoneInfo("UTC")


def check_timezone(tz: str) -> str:
    """A known IANA time zone name or a clear error."""
    try:
        ZoneInfo(tz)
    except ZONE_ERRORS:
        raise InvalidInputError(f"unbekannte Zeitzone {tz!r}; erwartet z.B. 'Europe/Berlin'") \
            from None
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


def stored_problem(seg: Segment) -> str | None:
    """What is wrong with the stored deadline setting (an unreadable date or an
    unknown time zone, e.g. written by hand or by an older version), or ``None``.
    Commands show it instead of failing; the deadline then counts as not set."""
    s = seg.settings
    if not s.deadline:
        return None
    try:
        if normalise(s.deadline) != s.deadline:
            raise InvalidInputError(f"nicht in der Form 'JJJJ-MM-TT HH:MM': {s.deadline!r}")
        check_timezone(s.timezone)
    except InvalidInputError as exc:
        return (f"der gespeicherte Eintreffschluß {s.deadline!r} ({s.timezone}) ist nicht "
                f"lesbar: {exc}; er gilt als nicht gesetzt — neu setzen mit 'wdg turn deadline "
                f"{seg.name} TT.MM.JJJJ [HH:MM]'")
    return None


def deadline_for(seg: Segment, month: MonthDate) -> datetime | None:
    """The deadline of ``month``'s sheets as an aware datetime, if set for it (a stored
    setting that cannot be read counts as not set, see :func:`stored_problem`)."""
    s = seg.settings
    if not s.deadline or s.deadline_month != month.key or stored_problem(seg) is not None:
        return None
    naive = datetime.strptime(s.deadline, "%Y-%m-%d %H:%M")
    return naive.replace(tzinfo=ZoneInfo(s.timezone))


def when(d: datetime) -> str:
    """``3.12.2026, 13:00 Uhr``."""
    return f"{d.day}.{d.month}.{d.year}, {d:%H:%M} Uhr"


def describe(seg: Segment, month: MonthDate) -> str:
    """The line for the result sheets: ``Eintreffschluß für Endex 412: 3.12.2026,
    13:00 Uhr``, or a notice when the game master has not set it yet."""
    d = deadline_for(seg, month)
    if d is None:
        return f"Eintreffschluß für {month.short()}: wie vom Segmentleiter angekündigt"
    return f"Eintreffschluß für {month.short()}: {when(d)}"


def deadline_json(seg: Segment, d: datetime | None, problem: str | None) -> dict:
    """``wdg turn deadline --json`` (and ``deadline`` of ``wdg mail run --json``):
    the month, the deadline (ISO 8601 with its UTC offset, and the zone), whether
    it has passed, seconds left."""
    now = datetime.now(d.tzinfo if d is not None else None)
    return {"segment": seg.name, "month": seg.date.key, "month_name": seg.date.short(),
            "deadline": d.isoformat() if d is not None else None,
            "timezone": seg.settings.timezone,
            "passed": (now >= d) if d is not None else None,
            "seconds_left": max(0, int((d - now).total_seconds())) if d is not None else None,
            "problem": problem}
