"""Typed events: what every step of the month records.

Reports, the Götterbotschaft's chronicle and the ledger read only the state
and this log (ARCHITECTURE.md, "The month", step 9). An event says who
(kingdom, army), where (gemark), what (``kind``), why (German text for the
player), and the amounts (``gold``: signed change of the kingdom's treasury,
the ledger line; ``data``: further typed amounts such as units lost). Every
change of an army's units (recruited, dismissed, deserted, lost, handed over)
is in the signed ``data["soldiers"]`` of an event naming that army, so for
every army and month: units after = units before + the sum of its
``soldiers``.

Event kinds are dotted strings ``<step>.<what>`` (``pay.wages``,
``k.build.refused``); the set of kinds a step emits is documented in that
step's module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

from wdg.world.hexgrid import Hex


class Reason(StrEnum):
    """Why the engine refused or cut an order, as a code: what the programs
    that read a month's events at run time compare (the forecast, the order
    editor through it, bots), never the German sentence in :attr:`Event.why`,
    which is its display text and may be reworded.

    The code lives only in memory: :meth:`Event.to_dict` does not write it, so
    the stored event log of a month (and every archive of an older version)
    keeps its bytes; an event read back from the store has ``reason=None``
    (docs/architecture.md, "Refusal reasons"). The values are the causes
    the forecast's JSON names (``wdg orders forecast --json``)."""

    GOLD = "gold"
    """The treasury cannot pay ("Der Reichsschatz" (e): no debts)."""
    CAPACITY = "capacity"
    """Ships or boats would carry more Raumfaktoren than they can ("Tragkraft")."""
    VOLUME = "volume"
    """The settlement's Rüstvolumen (its militia) is used up ("(nr)")."""
    COUNT = "count"
    """The army has fewer Rüstgüter than the order names ("(er)")."""
    RULE = "rule"
    """Any other rule forbids the order."""
    RANGE = "range"
    """The movement points ran out before the path's end."""


class SightingKind(StrEnum):
    """What a ``recon.sighting`` saw (:mod:`wdg.engine.recon`). The values are
    storage codes: the event's ``data["what"]`` in every stored event log."""

    ARMY = "heer"
    CREATURE = "fabelwesen"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened this month."""

    kind: str
    kingdom: int | None = None
    army: int | None = None
    at: Hex | None = None
    why: str = ""
    gold: int = 0
    """Signed change of ``kingdom``'s treasury (+ income, - expense)."""
    ledger: str = ""
    """Ledger category when ``gold`` != 0: ``pay``, ``upkeep``, ``build``,
    ``settlement``, ``recruit``, ``general``, ``activate``, ``festival``, ``tax``,
    ``income``, ``conquest``, ``treasure``, ``gm`` ..."""
    public: bool = False
    """True for events the Götterbotschaft's chronicle may show."""
    line: int = 0
    """The order-sheet line this event answers, if any."""
    data: dict[str, Any] = field(default_factory=dict)
    reason: Reason | None = field(default=None, compare=False)
    """The code of a refusal (``*.refused``) whose cause a program must know
    (:class:`Reason`); run time only, never stored (:meth:`to_dict`)."""

    def to_dict(self, label: Any = None) -> dict[str, Any]:
        """A plain mapping for YAML/JSON; ``label`` maps a hex to its address."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kingdom is not None:
            out["kingdom"] = self.kingdom
        if self.army is not None:
            out["army"] = self.army
        if self.at is not None:
            out["at"] = label(self.at) if label else [self.at.q, self.at.r]
        if self.why:
            out["why"] = self.why
        if self.gold:
            out["gold"] = self.gold
            out["ledger"] = self.ledger
        if self.public:
            out["public"] = True
        if self.line:
            out["line"] = self.line
        if self.data:
            out["data"] = dict(sorted(self.data.items()))
        return out


class EventLog:
    """The month's events in order of occurrence."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, event: Event) -> Event:
        """Append one event and return it."""
        self.events.append(event)
        return event

    def extend(self, events: list[Event]) -> None:
        """Append several events."""
        self.events.extend(events)

    def of_kind(self, prefix: str) -> list[Event]:
        """Events whose kind starts with ``prefix``."""
        return [e for e in self.events if e.kind.startswith(prefix)]

    def gold_total(self, kingdom: int) -> int:
        """Sum of all treasury changes of a kingdom this month (the ledger)."""
        return sum(e.gold for e in self.events if e.kingdom == kingdom)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)
