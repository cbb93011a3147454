"""The calendar of Canura ("Die Zeitrechnung").

Twelve months ("Monde") of six weeks of five days; one turn ("Spielzug") is
one month. Months carry a name, a season and a vulgar name. Archive folders
and order-sheet folders use ``YYYY-MM`` (the year zero-padded to four digits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from wdg.errors import InvalidInputError


class MonthInfo(NamedTuple):
    """One row of the rule's month table."""

    number: int
    name: str
    season: str
    vulgar: str


MONTHS: tuple[MonthInfo, ...] = (
    MonthInfo(1, "Arudin", "Winter", "Dunkelmond"),
    MonthInfo(2, "Bithana", "Winter", "Eismond"),
    MonthInfo(3, "Cylarn", "Winter", "erster Saatmond"),
    MonthInfo(4, "Dormit", "Frühling", "Blütenmond"),
    MonthInfo(5, "Endex", "Frühling", "Wonnemond"),
    MonthInfo(6, "Pluz", "Frühling", "erster Erntemond"),
    MonthInfo(7, "Gurudin", "Sommer", "Sonnmond"),
    MonthInfo(8, "Hethana", "Sommer", "Brachmond"),
    MonthInfo(9, "Islarn", "Sommer", "zweiter Saatmond"),
    MonthInfo(10, "Jasmit", "Herbst", "Nebelmond"),
    MonthInfo(11, "Katdex", "Herbst", "Windmond"),
    MonthInfo(12, "Sar", "Herbst", "zweiter Erntemond"),
)

_KEY_RE = re.compile(r"^\s*(\d{1,4})-(\d{1,2})\s*$")


@dataclass(frozen=True, slots=True, order=True)
class MonthDate:
    """A month of a year, e.g. ``MonthDate(412, 4)`` = Dormit 412."""

    year: int
    month: int

    def __post_init__(self) -> None:
        if not 1 <= self.month <= 12:
            raise InvalidInputError(f"der Monat muß 1..12 sein, nicht {self.month!r}")
        if not 0 <= self.year <= 9999:
            raise InvalidInputError(f"das Jahr muß 0..9999 sein, nicht {self.year!r}")

    @property
    def info(self) -> MonthInfo:
        """The month's row in the rule's table."""
        return MONTHS[self.month - 1]

    @property
    def name(self) -> str:
        """The month's name (``Dormit``)."""
        return self.info.name

    @property
    def season(self) -> str:
        """The season (``Frühling``)."""
        return self.info.season

    @property
    def vulgar(self) -> str:
        """The vulgar name (``Blütenmond``)."""
        return self.info.vulgar

    @property
    def key(self) -> str:
        """``YYYY-MM``: archive and order folders."""
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def ordinal(self) -> int:
        """Months since year 0 month 1, plus one (so that 0 can mean "never")."""
        return self.year * 12 + self.month

    @staticmethod
    def from_ordinal(n: int) -> MonthDate:
        """Inverse of :attr:`ordinal`."""
        y, m = divmod(n - 1, 12)
        return MonthDate(y, m + 1)

    def next(self) -> MonthDate:
        """The following month."""
        return MonthDate(self.year + 1, 1) if self.month == 12 else MonthDate(self.year, self.month + 1)

    def previous(self) -> MonthDate:
        """The month before."""
        return MonthDate(self.year - 1, 12) if self.month == 1 else MonthDate(self.year, self.month - 1)

    def long(self) -> str:
        """The form reports use: ``Mond Dormit (Blütenmond), Frühling des Jahres 412``."""
        return f"Mond {self.name} ({self.vulgar}), {self.season} des Jahres {self.year}"

    def short(self) -> str:
        """``Dormit 412``."""
        return f"{self.name} {self.year}"

    def __str__(self) -> str:
        return self.key

    @staticmethod
    def parse(text: str) -> MonthDate:
        """Parse ``YYYY-MM`` or ``<Monatsname> <Jahr>`` (``Dormit 412``)."""
        m = _KEY_RE.match(text)
        if m:
            return MonthDate(int(m.group(1)), int(m.group(2)))
        parts = text.strip().split()
        if len(parts) == 2 and parts[1].isdigit():
            for info in MONTHS:
                if info.name.lower() == parts[0].lower():
                    return MonthDate(int(parts[1]), info.number)
        raise InvalidInputError(
            f"kein Monat: {text!r}; erwartet JJJJ-MM (z. B. 0412-04) oder einen Monatsnamen "
            "und ein Jahr (z. B. 'Dormit 412')"
        )
