"""The month's context and the registry of its steps.

A step is a function ``step(m: Month) -> list[Event]`` registered with
``@step(name, order)``. ARCHITECTURE.md's signature ``step(state, orders, rng)``
is kept in substance: :class:`Month` bundles exactly those (plus the rules
and the start-of-month snapshot the rules refer to, e.g. "der zum Beginn des
Mondes bestehende Kontrollbereich"), so that new concerns need no new
parameters. Fixed order numbers (gaps leave room):

====  ==============================================================
 10   pay and upkeep
 15   the game master's sheet
 20   kingdom orders (K)
 30   Phase A army orders
 40   Phase B movement, transport, ``e`` moves
 45   Phase B orders that do not fight (r t h i s c)
 48   occupation and destruction (partisan fights)
 50   combat
 60   conquest and ownership settled
 70   Phase E scouting, known maps
 80+  end of month: construction, taxes, durability, militia, offers,
      creature moves
====  ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wdg.engine import ENGINE_MODULES
from wdg.engine.events import Event, EventLog
from wdg.orders.model import Sheet
from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment


@dataclass(slots=True)
class Snapshot:
    """Facts as they stood at the start of the month."""

    owner: np.ndarray
    """The owner layer (control area, taxes of "the state before the month")."""
    positions: dict[int, Hex | None]
    """Every army's position."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A conquest attempt, settled at step 60 in random order ("Die Eroberung")."""

    army: int
    kingdom: int
    at: Hex
    kind: str
    """``"einnahme"`` (order ``e``) or ``"okkupation"`` (order ``o``)."""
    line: int = 0
    """The sheet line of the order, so the outcome reaches the player's order."""


@dataclass(slots=True)
class Month:
    """Everything a step may read or change for one month."""

    state: Segment
    sheets: dict[int, Sheet]
    """Kingdom number -> its checked sheet (kingdoms without a sheet are absent)."""
    rng: np.random.Generator
    rules: Rules
    log: EventLog = field(default_factory=EventLog)
    start: Snapshot | None = None
    kingdom_order: list[int] = field(default_factory=list)
    """Kingdoms in the month's random order (drawn once at the start)."""
    busy: set[int] = field(default_factory=set)
    """Armies whose whole month is taken (``bb``, ``bs``, ``vs``): no Phase B."""
    moved: set[int] = field(default_factory=set)
    """Armies that moved this month (fleet durability -3 %)."""
    fought: set[int] = field(default_factory=set)
    """Armies that fought their one fight this month."""
    claims: list[Claim] = field(default_factory=list)
    """Conquest claims, settled at step 60."""
    notes: dict[str, object] = field(default_factory=dict)
    """Other per-month scratch data keyed by the owning module's name."""
    gm_sheet: object | None = None
    """The game master's sheet of the month (:class:`wdg.orders.gmsheet.GmSheet`),
    applied at step 15."""
    foresight: Any = None
    """``None`` in a real month; when the month is foreseen for one kingdom (the
    forecast), its :class:`wdg.engine.foresight.Foresight`: the steps ask it
    what the kingdom does not know and tell it the chances they would roll."""

    def emit(self, event: Event) -> Event:
        """Record one event."""
        return self.log.add(event)


StepFn = Callable[[Month], list[Event] | None]


@dataclass(frozen=True, slots=True)
class Step:
    """A registered step."""

    name: str
    order: int
    fn: StepFn


_STEPS: dict[str, Step] = {}


def step(name: str, order: int) -> Callable[[StepFn], StepFn]:
    """Register ``fn`` as the month's step ``name`` at position ``order``."""

    def deco(fn: StepFn) -> StepFn:
        if name in _STEPS and _STEPS[name].fn is not fn:
            raise ValueError(f"step {name!r} registered twice")
        _STEPS[name] = Step(name, order, fn)
        return fn

    return deco


def run_step(m: Month, s: Step) -> None:
    """Run one step; the events it returns (and did not emit) join the log."""
    before = len(m.log)
    returned = s.fn(m)
    if returned:  # steps may emit, return their events, or both
        emitted = {id(e) for e in m.log.events[before:]}
        m.log.extend([e for e in returned if id(e) not in emitted])


def registered_steps() -> list[Step]:
    """All registered steps in running order (imports the engine modules first)."""
    import importlib

    for mod in ENGINE_MODULES:
        try:
            importlib.import_module(f"wdg.engine.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"wdg.engine.{mod}":
                raise
    return sorted(_STEPS.values(), key=lambda s: (s.order, s.name))
