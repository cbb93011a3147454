"""The treasury's book: every Goldstern in or out is one event.

Steps never change ``Kingdom.treasury`` directly; they call :func:`spend` or
:func:`credit`, which change the treasury and record the event with its
signed ``gold`` and ``ledger`` category in one go. So for every kingdom and
month: treasury after = treasury before + sum of its events' ``gold``.

"Der Reichsschatz" (e): "ein Herrscher kann keine Schulden machen!" —
:func:`spend` refuses to go below zero; callers check :func:`can_afford`
first and refuse the order with the reason.
"""

from __future__ import annotations

from typing import Any

from wdg.engine.events import Event
from wdg.engine.month import Month
from wdg.errors import StateError
from wdg.world.hexgrid import Hex


def can_afford(m: Month, kingdom: int, amount: int) -> bool:
    """True if ``kingdom``'s treasury holds at least ``amount`` Goldsterne."""
    return m.state.kingdoms[kingdom].treasury >= amount


def spend(m: Month, kingdom: int, amount: int, *, kind: str, ledger: str, why: str,
          army: int | None = None, at: Hex | None = None, line: int = 0,
          data: dict[str, Any] | None = None) -> Event:
    """Take ``amount`` (>= 0) from the treasury and record it."""
    k = m.state.kingdoms[kingdom]
    if amount < 0 or amount > k.treasury:
        raise StateError(f"kingdom {kingdom}: cannot spend {amount!r} GS of {k.treasury} GS")
    k.treasury -= amount
    return m.emit(Event(kind, kingdom, army, at, why, gold=-amount, ledger=ledger, line=line,
                        data=dict(data or {})))


def credit(m: Month, kingdom: int, amount: int, *, kind: str, ledger: str, why: str,
           army: int | None = None, at: Hex | None = None, line: int = 0,
           data: dict[str, Any] | None = None) -> Event:
    """Add ``amount`` (>= 0) to the treasury and record it."""
    if amount < 0:
        raise StateError(f"kingdom {kingdom}: cannot credit {amount!r} GS")
    m.state.kingdoms[kingdom].treasury += amount
    return m.emit(Event(kind, kingdom, army, at, why, gold=amount, ledger=ledger, line=line,
                        data=dict(data or {})))


def number(n: int) -> str:
    """A number the German way: ``12.500``."""
    return f"{n:,}".replace(",", ".")


def gs(amount: int) -> str:
    """Goldsterne the German way: ``12.500 GS``."""
    return f"{number(amount)}\u00a0GS"  # one format everywhere: 1.000 GS, never broken


def pct(value: int) -> str:
    """A percentage the German way: ``33 %`` (a no-break space before the sign,
    as on the sheets; one format in every mail, forecast and sheet)."""
    return f"{number(value)}\u00a0%"


def count(n: int, one: str, many: str) -> str:
    """A number with the noun in singular or plural: ``count(1, "Boot", "Boote")`` ->
    ``1 Boot``, ``count(3, "Boot", "Boote")`` -> ``3 Boote`` (numbers the German way)."""
    return f"{number(n)} {one if n == 1 else many}"
