"""Per kingdom and month: what the lab measures, from the state and the event log.

Everything is read from the state after the month and the month's events, as
the result sheets are (ARCHITECTURE.md, step 9); the state before the month
is a small :class:`Snapshot`. Two conservation laws are checked every month:

- **gold**: treasury after − treasury before = the sum of the kingdom's
  ledger events (``Event.gold``) — every Goldstern has a cause;
- **soldiers**: for every army, units after − units before = the sum of the
  signed ``data["soldiers"]`` of the events naming it (docs of
  :mod:`wdg.engine.events`) — every soldier or ship has a cause.

Losses are grouped by cause (:data:`CAUSES`, by event kind prefix); soldiers
handed from one army to another (``eh`` onto an army) are no loss.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from wdg.engine.events import Event
from wdg.world.calendar import MonthDate
from wdg.world.state import ArmyStatus, Segment, TroopType

CAUSES: tuple[tuple[str, str], ...] = (
    ("pay.", "Desertion"),
    ("morale.", "Moral"),
    ("combat.", "Kampf"),
    ("militia.", "Miliz"),
    ("creature.", "Fabelwesen"),
    ("wizard.", "Zauberer"),
    ("move.losses", "Gelände"),
    ("move.", "Ertrunken"),
    ("durability.", "Schiffbruch"),
    ("a.er", "Entlassen"),
    ("a.eh", "Entlassen"),
    ("destroy.", "Zerstörung"),
)
"""Event kind prefix -> cause of a loss (first match)."""
INCOME_LEDGERS = frozenset({"tax", "income", "conquest", "treasure", "gm"})
INCOME_KINDS = {"tax.gemarks": "income_taxes", "tax.settlements": "income_settlements",
                "tax.mines": "income_mines"}
"""Income events counted by source (the rest of the income: help, treasure, conquest)."""
UPKEEP_LEDGERS = frozenset({"pay", "upkeep"})


def cause_of(kind: str) -> str:
    for prefix, name in CAUSES:
        if kind.startswith(prefix):
            return name
    return kind.split(".")[0]


@dataclass(slots=True)
class Snapshot:
    """The few facts of the state before the month the metrics need."""

    treasury: dict[int, int]
    units: dict[int, tuple[int, int]]
    """Army number -> (kingdom, units)."""
    empty_active: set[int]
    """Active armies with no units."""
    towns: dict[tuple[int, int], int]
    """Settlement cell -> owner."""


def snapshot(seg: Segment) -> Snapshot:
    towns = {(int(r), int(c)): int(seg.owner[r, c]) for r, c in zip(*seg.settlement.nonzero())}
    return Snapshot(
        treasury={k: v.treasury for k, v in seg.kingdoms.items()},
        units={n: (a.kingdom, a.units) for n, a in seg.armies.items()},
        empty_active={n for n, a in seg.armies.items()
                      if a.status is ArmyStatus.ACTIVE and a.units == 0},
        towns=towns)


@dataclass(slots=True)
class KingdomMonth:
    """One kingdom in one month (the lab's table row)."""

    treasury: int = 0
    income: int = 0
    income_taxes: int = 0
    """Of the income: the gemarks' taxes (``tax.gemarks``)."""
    income_settlements: int = 0
    """Of the income: the settlements' income (``tax.settlements``)."""
    income_mines: int = 0
    """Of the income: the mines' yield (``tax.mines``)."""
    costs: int = 0
    upkeep: int = 0
    """Pay and upkeep of the armies (part of the costs)."""
    soldiers: int = 0
    ships: int = 0
    armies: int = 0
    empty_armies: int = 0
    """Active armies without units at the end of the month."""
    empty_upkeep: int = 0
    """Upkeep paid for armies that stood active and empty at the end of the
    previous month (a newly activated army's first upkeep is not counted)."""
    gemarks: int = 0
    settlements: int = 0
    battles: int = 0
    battles_won: int = 0
    conquests: int = 0
    towns_won: int = 0
    towns_lost: int = 0
    morale: int = 0
    """Morale of the active land armies with soldiers, averaged by soldiers (0: none)."""
    losses: dict[str, int] = field(default_factory=dict)
    gold_ok: bool = True
    soldiers_ok: bool = True


@dataclass(slots=True)
class MonthMetrics:
    """Every kingdom's row of one month."""

    month: str
    kingdoms: dict[int, KingdomMonth]
    towns_changed: int = 0
    conservation_errors: list[str] = field(default_factory=list)


def measure(before: Snapshot, seg: Segment, events: list[Event], date: MonthDate) -> MonthMetrics:
    """The metrics of the month just resolved (``seg`` is the state after it)."""
    rows: dict[int, KingdomMonth] = {}
    for k, kd in sorted(seg.kingdoms.items()):
        if kd.city_state:
            continue
        rows[k] = KingdomMonth(treasury=kd.treasury, gemarks=int((seg.owner == k).sum()),
                               settlements=int(((seg.owner == k) & (seg.settlement > 0)).sum()))
    out = MonthMetrics(date.key, rows)
    gold: dict[int, int] = defaultdict(int)
    moved: dict[int, int] = defaultdict(int)
    for e in events:
        r = rows.get(e.kingdom) if e.kingdom is not None else None
        if e.gold:
            gold[e.kingdom or 0] += e.gold
            if r is not None:
                if e.gold > 0 and e.ledger in INCOME_LEDGERS:
                    r.income += e.gold
                    if e.kind in INCOME_KINDS:
                        setattr(r, INCOME_KINDS[e.kind], getattr(r, INCOME_KINDS[e.kind]) + e.gold)
                elif e.gold < 0:
                    r.costs -= e.gold
                    if e.ledger in UPKEEP_LEDGERS:
                        r.upkeep -= e.gold
                        if e.army in before.empty_active and e.ledger == "upkeep":
                            r.empty_upkeep -= e.gold
        s = e.data.get("soldiers") if e.data else None
        if isinstance(s, int) and e.army is not None:
            moved[e.army] += s
            if r is not None and s < 0 and not (e.kind.startswith("a.eh")
                                                and e.data.get("target")):
                c = cause_of(e.kind)
                r.losses[c] = r.losses.get(c, 0) + (-s)
        if r is None:
            continue
        if e.kind == "combat.battle":
            r.battles += 1
            r.battles_won += 1 if e.data.get("won") else 0
        elif e.kind == "conquest.won":
            r.conquests += 1
    weighted: dict[int, int] = defaultdict(int)
    for a in seg.armies.values():
        r = rows.get(a.kingdom)
        if r is None or a.status is not ArmyStatus.ACTIVE:
            continue
        r.armies += 1
        if a.troop is TroopType.SCHIFFE:
            r.ships += a.units
        else:
            r.soldiers += a.units
            weighted[a.kingdom] += a.units * a.morale
        if a.units == 0:
            r.empty_armies += 1
    for k, r in rows.items():
        r.morale = round(weighted[k] / r.soldiers) if r.soldiers else 0
    for (row, col), old in before.towns.items():
        new = int(seg.owner[row, col])
        if seg.settlement[row, col] > 0 and new != old:
            out.towns_changed += 1
            if new in rows:
                rows[new].towns_won += 1
            if old in rows:
                rows[old].towns_lost += 1
    for k, r in rows.items():
        if r.treasury - before.treasury.get(k, 0) != gold.get(k, 0):
            r.gold_ok = False
            out.conservation_errors.append(
                f"{date.key} Königreich {k}: Reichsschatz {before.treasury.get(k, 0)} -> "
                f"{r.treasury}, Buchungen {gold.get(k, 0):+d}")
    for n, a in seg.armies.items():
        k0, u0 = before.units.get(n, (a.kingdom, 0))
        if a.units - u0 != moved.get(n, 0):
            if a.kingdom in rows:
                rows[a.kingdom].soldiers_ok = False
            out.conservation_errors.append(
                f"{date.key} Heer {n:04d}: {u0} -> {a.units}, Ereignisse {moved.get(n, 0):+d}")
    return out
