"""The turn runner: one month of a segment, from sheets to committed state.

:func:`resolve_month` is the pure core (no files): it seeds the month's
generator from (campaign seed, year, month), draws the kingdoms' random
order, takes the start-of-month snapshot, runs every registered step in
order and advances the date. :func:`run_month` is the game master's call: it
takes the lock, loads the segment, reads and checks the sheets
(:mod:`wdg.engine.intake`), resolves and commits the month with its archive
(:mod:`wdg.engine.archive`). See docs/turns.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wdg.engine.events import Event, EventLog
from wdg.engine.month import Month, Snapshot, registered_steps
from wdg.errors import WdgError
from wdg.orders.model import Sheet
from wdg.rules import Rules
from wdg.world.calendar import MonthDate
from wdg.world.state import Segment

Progress = Callable[[str, int, int], None]
"""``progress(step_name, index, count)``, called before each step."""


class InjectedFailure(WdgError):
    """Raised on purpose by the ``fail_after_step`` test hook."""


@dataclass(slots=True)
class MonthResult:
    """A resolved month: the new state, the event log and how it was drawn."""

    state: Segment
    log: EventLog
    date: MonthDate
    """The month that was resolved (``state.date`` is already the next one)."""
    entropy: list[int]
    """The generator's seed: ``[campaign seed, year, month]``."""
    kingdom_order: list[int]
    sheets: dict[int, Sheet] = field(default_factory=dict)
    inputs: dict[str, bytes] = field(default_factory=dict)
    """File name -> bytes of every sheet read (archived under ``orders/``)."""
    committed: bool = False
    manifest: dict[str, str] = field(default_factory=dict)
    """Output file -> sha256 (filled by the archive)."""

    def seed_record(self) -> dict[str, Any]:
        """What ``seed.yaml`` holds."""
        return {"segment": self.state.name, "month": self.date.key,
                "entropy": list(self.entropy), "kingdom_order": list(self.kingdom_order)}


def month_entropy(seg: Segment) -> list[int]:
    """The seed of the month's generator: (campaign seed, year, month)."""
    return [int(seg.seed), seg.date.year, seg.date.month]


def begin_month(seg: Segment, sheets: dict[int, Sheet], rules: Rules) -> Month:
    """The month's context: generator, kingdom order (the first draw) and snapshot."""
    rng = np.random.default_rng(month_entropy(seg))
    kingdoms = sorted(n for n, k in seg.kingdoms.items() if not k.retired)
    order = [int(x) for x in rng.permutation(kingdoms)] if kingdoms else []
    m = Month(state=seg, sheets=dict(sheets), rng=rng, rules=rules, kingdom_order=order)
    m.start = Snapshot(owner=seg.owner.copy(),
                       positions={n: a.position for n, a in seg.armies.items()})
    return m


def resolve_month(seg: Segment, sheets: dict[int, Sheet], rules: Rules, *,
                  pre_events: list[Event] | None = None, notes: dict[str, object] | None = None,
                  progress: Progress | None = None,
                  fail_after_step: str | None = None) -> MonthResult:
    """Run every registered step over ``seg`` (changed in place) and advance its date.

    ``pre_events`` (sheet intake) open the log; ``notes`` seed ``Month.notes``
    (e.g. the game master's sheet). ``fail_after_step`` raises
    :class:`InjectedFailure` after the named step (atomicity tests).
    """
    date = seg.date
    m = begin_month(seg, sheets, rules)
    m.notes.update(notes or {})
    m.log.extend(list(pre_events or []))
    steps = registered_steps()
    if fail_after_step is not None and fail_after_step not in {s.name for s in steps}:
        raise WdgError(f"unknown step {fail_after_step!r}")
    for i, s in enumerate(steps):
        if progress is not None:
            progress(s.name, i, len(steps))
        before = len(m.log)
        returned = s.fn(m)
        if returned:  # steps may emit, return their events, or both
            emitted = {id(e) for e in m.log.events[before:]}
            m.log.extend([e for e in returned if id(e) not in emitted])
        if s.name == fail_after_step:
            raise InjectedFailure(f"injected failure after step {s.name!r}")
    if progress is not None:
        progress("", len(steps), len(steps))
    seg.date = date.next()
    return MonthResult(state=seg, log=m.log, date=date, entropy=month_entropy_of(date, seg),
                       kingdom_order=list(m.kingdom_order), sheets=dict(sheets))


def month_entropy_of(date: MonthDate, seg: Segment) -> list[int]:
    """The entropy of the month ``date`` of ``seg``."""
    return [int(seg.seed), date.year, date.month]
