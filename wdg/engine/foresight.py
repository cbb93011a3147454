"""The month foreseen: the engine's own steps on what one kingdom knows.

The forecast (:mod:`wdg.orders.forecast`) does not re-implement a rule. It
builds a segment from the kingdom's view (:func:`segment_from_view`) and runs
every registered step of the month over it (:func:`foresee`), exactly as
:func:`wdg.engine.turn.resolve_month` runs them, with two differences, both
stated here and in docs/players.md:

- **The dice are replaced by stated expectations** (:class:`ExpectedDice`): a
  yes/no draw (``random() < p``) comes out as the likelier case (a chance
  below one half does not happen, one above does), a range (``uniform``) as
  its middle, a count (``binomial``) as its expectation, an order
  (``permutation``) as given, a choice as the likeliest item. So an army does
  not lose its way, a fleet does not shatter, the stronger side wins, and of
  the unpaid Rüstgüter the expected share deserts.
- **What the kingdom does not know is marked** (:class:`Foresight`, the
  month context's ``foresight``): a gemark the kingdom has never seen ends a
  move before it (the movement step asks :meth:`Foresight.unknown_step`), and
  the steps tell it every chance they would have rolled and every step they
  made (:meth:`Foresight.chance`, :meth:`Foresight.entered`).

The segment holds the kingdom's own armies, settlements (with their
militia), buildings, mines, the deposits it found, treasury, popularity, diplomacy and general
offer; the terrain as last seen (unknown gemarks are filled with
:data:`FILL` and marked); the owners of foreign gemarks as last seen, each
foreign owner a kingdom without armies whose diplomatic list is unknown (so
its control area stops a move); the militia outside the own settlements at
the engine's cap (:func:`wdg.engine.militia.militia_cap`, the level it grows
back to). The foreign armies the kingdom's scouts saw last month stand where
they were seen, with the count reported and no orders (their kingdoms' lists
of relations unknown: they fight only where the kingdom's own list says 1-3);
creatures and unseen armies are not in it.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wdg.engine.events import EventLog
from wdg.engine.militia import militia_cap
from wdg.engine.month import Month, Snapshot, registered_steps, run_step
from wdg.orders.model import Sheet
from wdg.orders.view import KingdomView
from wdg.rules import Rules
from wdg.world.address import Grid
from wdg.world.hexgrid import Hex
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Building,
    Deposit,
    General,
    GeneralOffer,
    Kingdom,
    Segment,
    TroopType,
    empty_layers,
    new_known_map,
)
from wdg.world.terrain import terrain

FILL = "T."
"""Map code put where the terrain is unknown (land, so an unknown gemark never
makes a neighbour coastal; no move enters it: :meth:`Foresight.unknown_step`)."""


class ExpectedDice:
    """Stands in for the month's :class:`numpy.random.Generator` when the month
    is foreseen: every draw returns its stated expectation (module docstring).
    Only the methods the engine calls exist; anything else fails loudly."""

    def random(self) -> float:
        """A yes/no draw ``random() < p`` gives the likelier case."""
        return 0.5

    def uniform(self, low: float = 0.0, high: float = 1.0) -> float:
        """The middle of the range (an estimate's error is 0)."""
        return (low + high) / 2

    def integers(self, low: int, high: int | None = None) -> int:
        """The middle value of ``[low, high)`` (``[0, low)`` with one argument)."""
        lo, hi = (0, low) if high is None else (low, high)
        return lo + (hi - lo - 1) // 2

    def binomial(self, n: int, p: float) -> int:
        """The expected count, rounded."""
        return int(round(n * p))

    def permutation(self, x: Any) -> np.ndarray:
        """The order as given (``arange(x)`` for a number)."""
        return np.arange(x) if isinstance(x, (int, np.integer)) else np.asarray(x)

    def choice(self, a: Any, p: Any = None) -> Any:
        """The likeliest item (the first one without weights)."""
        i = int(np.argmax(p)) if p is not None else 0
        return i if isinstance(a, (int, np.integer)) else a[i]


@dataclass(slots=True)
class Foresight:
    """The month context's ``foresight``: set only when the month is foreseen
    for ``kingdom`` (``None`` in every real month)."""

    kingdom: int
    unknown: np.ndarray
    """Bool layer: gemarks the kingdom has never seen."""
    labels: dict[Hex, str] = field(default_factory=dict)
    chances: dict[int, list[tuple[str, float, str]]] = field(default_factory=dict)
    """Army -> the chances the month would have rolled: ``(what, p, where)``;
    ``what`` is ``lost`` ((e), getting lost) or ``shatter`` ((k))."""
    steps: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    """Army -> every gemark it entered: ``(address, percent it cost)``."""
    unknown_ahead: set[int] = field(default_factory=set)
    """Armies whose move reached a gemark the kingdom has never seen."""

    def unknown_step(self, seg: Segment, army: Army, there: Hex) -> str | None:
        """The German reason a move ends before ``there``, or ``None``: the
        kingdom has never seen it, so the forecast cannot say whether and how
        the army enters it (the month will)."""
        r, c = seg.grid.index(there)
        if not self.unknown[r, c]:
            return None
        self.unknown_ahead.add(army.number)
        return (f"Die Gemark {seg.label(there)} ist Ihnen unbekannt; ob und wie das Heer sie "
                "betritt, kann die Vorschau nicht sagen")

    def chance(self, army: Army, what: str, p: float, where: str) -> None:
        """A step would roll ``p`` for ``what`` here (the expectation is used)."""
        self.chances.setdefault(army.number, []).append((what, float(p), where))

    def entered(self, army: Army, where: str, cost: int) -> None:
        """The army entered ``where`` for ``cost`` percent of its budget."""
        self.steps.setdefault(army.number, []).append((where, int(cost)))


def segment_from_view(view: KingdomView, rules: Rules,
                      others: AbstractSet[int] = frozenset()) -> tuple[Segment, Foresight]:
    """The segment the month is foreseen on (module docstring) and its
    :class:`Foresight` marks; ``others``: further kingdoms the sheet names (a
    message's addressee), present without armies or land. Reads nothing but
    its arguments."""
    grid = Grid(view.prov_cols, view.prov_rows)
    layers = empty_layers(grid)
    layers["terrain"][:] = terrain(FILL).id
    unknown = np.ones(grid.shape, dtype=bool)
    for a, (code, _seen) in view.known.items():
        if view.on_map(a):
            r, c = grid.index(grid.hex_of(a))
            layers["terrain"][r, c] = terrain(code).id
            unknown[r, c] = False
    k = view.kingdom
    seg = Segment(name=view.segment, title=view.segment, seed=0, date=view.month, grid=grid,
                  **layers)
    owners = ({o for o in view.owners.values()} | set(view.diplomacy) | set(others)
              | {f.kingdom for f in view.foreign}) - {0, k}
    for a, o in view.owners.items():
        if view.on_map(a) and o != k:
            seg.owner[grid.index(grid.hex_of(a))] = o
    for a in view.owned:
        if view.on_map(a):
            seg.owner[grid.index(grid.hex_of(a))] = k
    me = Kingdom(number=k, name=view.name, treasury=view.treasury or 0,
                 popularity=view.popularity if view.popularity is not None else 50,
                 diplomacy=dict(view.diplomacy))
    if view.offer is not None:
        g = view.offer.general
        me.offer = GeneralOffer(General(g.name, TroopType(g.troop), g.experience, g.ability,
                                        g.wizard), view.offer.price)
    seg.kingdoms[k] = me
    for o in sorted(owners):
        # named as the kingdom's sheet names it (issue #42: not "Reich 6")
        seg.kingdoms[o] = Kingdom(number=o, name=view.names.get(o, f"Königreich {o}"))
    for n in seg.kingdoms:
        seg.known[n] = new_known_map(grid)
    mine = BUILDING_ORDER.index(Building.MINE)
    for s in view.settlements.values():
        h = grid.hex_of(s.at)
        r, c = grid.index(h)
        seg.settlement[r, c] = s.size
        seg.settlement_names[h] = s.name
        for i, b in enumerate(BUILDING_ORDER):
            seg.buildings[i, r, c] = s.level(b)
    for a, lv in view.mines.items():
        seg.buildings[(mine, *grid.index(grid.hex_of(a)))] = lv
    # the deposits the kingdom found: its mines yield on them (wdg.engine.deposits);
    # those it has not found are unknown to it, so a search finds none here
    seg.deposits = None if view.deposits is None else {
        grid.hex_of(a): Deposit(grid.hex_of(a), kind, [k])
        for a, kind in view.deposits.items() if view.on_map(a)}
    seg.militia[:] = militia_cap(seg, rules)
    for s in view.settlements.values():
        if s.militia is not None:
            seg.militia[grid.index(grid.hex_of(s.at))] = s.militia
    for n, av in sorted(view.armies.items()):
        gv = av.general
        seg.armies[n] = Army(
            number=n, kingdom=k, status=av.status,
            position=None if av.position.is_passive else grid.hex_of(av.position),
            general=None if gv is None else General(gv.name, TroopType(gv.troop), gv.experience,
                                                    gv.ability, gv.wizard),
            units=av.units, morale=av.morale, durability=av.durability, boats=av.boats,
            boat_durability=av.boat_durability, carried_by=av.carried_by, carrying=av.carrying)
    for f in view.foreign:
        # a foreign army as the scouts saw it: where it stood, the count reported,
        # a general of the rule's default experience; it has no orders (it rests)
        if f.number not in seg.armies and view.on_map(f.position):
            seg.armies[f.number] = Army(
                number=f.number, kingdom=f.kingdom, status=ArmyStatus.ACTIVE,
                position=grid.hex_of(f.position),
                general=General(f"Feldherr des Heeres {f.number:04d}", TroopType(f.troop)),
                units=f.units)
    return seg, Foresight(k, unknown)


@dataclass(slots=True)
class Foreseen:
    """A month foreseen: the segment before and after, the events, the marks."""

    before: Segment
    """The segment at the start: its armies as they were (its layers are the
    month's, changed: read only ``armies``, ``grid`` and ``label``)."""
    after: Segment
    log: EventLog
    foresight: Foresight


def foresee(view: KingdomView, sheet: Sheet, rules: Rules, *,
            skip: frozenset[str] = frozenset()) -> Foreseen:
    """Run every registered step of the month over the segment built from
    ``view`` with ``sheet`` (already stripped of the orders the checker
    refuses: :func:`wdg.orders.checker.accepted`) and :class:`ExpectedDice`.
    ``skip``: names of steps left out, for a caller that reads nothing they
    change (the order editor's gold plan leaves out ``recon``).
    Deterministic; reads nothing but its arguments."""
    import copy

    seg, marks = segment_from_view(view, rules, {x.to for x in sheet.messages})
    before = copy.copy(seg)  # the armies as they start (the layers are not read after)
    # each army and its general copied (the steps change both in place; the
    # forecast reads neither an army's items nor the layers of ``before``)
    before.armies = {n: copy.copy(a) for n, a in seg.armies.items()}
    for a in before.armies.values():
        a.general = copy.copy(a.general)
    m = Month(state=seg, sheets={view.kingdom: sheet}, rng=ExpectedDice(),  # type: ignore[arg-type]  # stands in for the Generator: the draws the engine makes
              rules=rules, kingdom_order=sorted(seg.kingdoms), foresight=marks)
    m.start = Snapshot(owner=seg.owner.copy(),
                       positions={n: a.position for n, a in seg.armies.items()})
    for s in registered_steps():
        if s.name not in skip:
            run_step(m, s)
    seg.date = view.month.next()
    return Foreseen(before, seg, m.log, marks)


__all__ = ["FILL", "ExpectedDice", "Foreseen", "Foresight", "foresee", "segment_from_view"]
