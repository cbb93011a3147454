"""The forecast: what a kingdom's orders would do, on what the kingdom knows.

One planning module over a kingdom's view (ARCHITECTURE.md, "Reports"): the
checker's ``wdg orders check --forecast``, ``wdg orders simulate``, the import's
confirmation ("Vorschau"), the bots' planner and the HTML order editor all call
it. It reads only a :class:`~wdg.orders.view.KingdomView` (the kingdom's own
armies and settlements with their militia, its treasury and popularity, the
known map with the owners as last seen) and the parsed sheet — never the
segment: foreign armies, other kingdoms' orders and the month's dice are
unknown to it, so every result is "voraussichtlich".

It re-implements no rule: :func:`forecast` runs the engine's own registered
steps (:func:`wdg.engine.month.registered_steps`) over a segment built from
the view, with the dice replaced by stated expectations
(:mod:`wdg.engine.foresight`: an army does not lose its way, a fleet does not
shatter, of unpaid Rüstgüter the expected share deserts), and reads the
forecast back from the month's events: every booking is the engine's, every
refusal the engine's reason. The chances the month would roll (getting lost
(e), shattering (k)) are given as percentages. A sheet the checker refuses
whole gets no forecast, only the reasons.

Public API (plain data, JSON-serialisable through ``to_dict``):

- :func:`forecast` ``(view, sheet, rules) -> Forecast``: per army the path,
  end, why it stops, lost chance, losses, the engine's lines for it; for the
  kingdom the gold before, every booking, the gold after, the refused orders.
- :func:`forecast_text` ``(fc) -> str``: the German text (``wdg orders
  simulate``, the confirmation's "Vorschau").
- :func:`reach` ``(view, number, rules) -> list[dict]``: the gemarks an army
  can reach this month on known terrain, each with its path and cost (the
  engine's :func:`~wdg.engine.movement.step_verdict` for every step).
- :func:`order_costs` ``(view, rules) -> dict``: the gold cost of each order type.
- :func:`running_costs` ``(view, rules) -> dict``: army -> (upkeep, pay) due this month.
- :func:`plan_data` ``(view, rules) -> dict``: all of the above an offline
  order editor needs (treasury, running costs, income, reach, order costs).
- :class:`KnownTerrain`: the known map as lookups for the search (the bots'
  planner and the editor's choices).
"""

from __future__ import annotations

import heapq
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from wdg.engine import army_orders, kingdom_orders, wizards
from wdg.engine.economy import army_dues, owes_dues
from wdg.engine.events import Event, Reason
from wdg.engine.foresight import FILL, foresee
from wdg.engine.month import registered_steps
from wdg.engine.treasury import count, gs, pct
from wdg.engine.movement import (
    GETS_LOST,
    LAND_KINDS,
    StepVerdict,
    Tables,
    may_get_lost_on,
    step_verdict,
)
from wdg.engine.movement import mover_kind
from wdg.orders import model as m
from wdg.orders.outcome import SHEET_REFUSALS
from wdg.orders.checker import accepted, check_sheet
from wdg.orders.lexicon import COMMANDS
from wdg.orders.view import ArmyView, KingdomView
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import ArmyStatus, Building, MoverKind, TroopType
from wdg.world.terrain import (
    coastal_mask,
    is_water,
    settlement_cost_factor,
    terrain,
)

# --- plain data -----------------------------------------------------------------------

@dataclass(slots=True)
class PathStep:
    """One gemark entered: its address, terrain, the percent it costs, the sum
    spent after it, and the soldiers expected to be lost there."""

    at: str
    direction: str
    terrain: str
    cost: int
    spent: int
    losses: int = 0


@dataclass(slots=True)
class ArmyForecast:
    """What one army would do this month."""

    number: int
    start: str
    """Position at the start of the month (``000.00`` for passive armies)."""
    troop: str | None
    units_before: int
    units_after: int
    """Soldiers after Phase A and the losses on the way (fights not counted)."""
    end: str
    """Where it would stand at the end of the month (before fights)."""
    status_after: str
    kind: str = ""
    """Mover kind (``krieger``, ``reiter``, ``boote``, ``schiffe``); empty if it does not move."""
    phase_a: str = ""
    phase_b: str = ""
    effects: list[str] = field(default_factory=list)
    """German lines: what Phase A and B would do (recruits, boats, transport ...)."""
    path: list[PathStep] = field(default_factory=list)
    spent: int = 0
    """Percent of the movement budget used."""
    stop: str = ""
    """Why the move would end before its last direction ("" if it runs through)."""
    remaining: list[str] = field(default_factory=list)
    """Directions of the order not executed."""
    lost_chance: int = 0
    """Percent chance that the army loses its way on the move ((e)); not rolled."""
    shatter_chance: int = 0
    """Percent chance that a fleet steered onto land shatters ((k)); not rolled."""
    unknown_ahead: bool = False
    """True if the move would enter a gemark the kingdom has never seen: the
    forecast ends the path before it (the month will not)."""
    unknown_owners: list[str] = field(default_factory=list)
    """Land gemarks of the path whose owner the kingdom has not seen (terrain seen
    from afar): if one belongs to a foreign kingdom, the move ends there."""
    boats: int = 0
    carried_by: int | None = None
    carrying: int | None = None


@dataclass(slots=True)
class Booking:
    """One expected treasury change: category, German text, signed amount."""

    category: str
    """``upkeep``, ``pay``, ``general``, ``activate``, ``recruit``, ``build``,
    ``settlement``, ``festival``, ``tax``, ``income``."""
    text: str
    amount: int
    line: int = 0
    army: int | None = None


@dataclass(slots=True)
class Refusal:
    """An order the month would refuse (or only partly execute)."""

    line: int
    order: str
    reason: str
    """German."""
    cause: Reason
    """:attr:`Reason.GOLD`, ``CAPACITY`` (the ships' Tragkraft), ``VOLUME`` (a
    settlement's Rüstvolumen), ``COUNT`` (fewer Rüstgüter than ordered),
    ``RANGE`` or ``RULE``; its value (``gold`` ...) in the JSON."""
    army: int | None = None


@dataclass(slots=True)
class Forecast:
    """The whole forecast of one sheet."""

    segment: str
    month: str
    kingdom: int
    gold_before: int | None
    """Treasury at the start of the month; ``None`` if the view does not carry it."""
    gold_after: int | None
    """Treasury expected at the end of the month (after taxes)."""
    bookings: list[Booking] = field(default_factory=list)
    armies: list[ArmyForecast] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    """German lines: what the forecast cannot know."""
    kingdom_name: str = ""
    """The kingdom's name (the text names the kingdom by it, docs/german.md)."""
    refused_whole: list[str] = field(default_factory=list)
    """German reasons the checker refuses the whole sheet ("der ganze Spielzug
    wird nicht angenommen"); then nothing is foreseen."""
    unpaid: int = 0
    """Pay and upkeep the treasury cannot pay at the start of the month
    ("Besoldung und Unterhalt": what is left unpaid leads to desertion)."""
    deserters: dict[int, int] = field(default_factory=dict)
    """Army -> Rüstgüter expected to desert at the pay step (unpaid, or of low
    morale)."""

    @property
    def costs(self) -> int:
        """Sum of the expected expenses (positive)."""
        return -sum(b.amount for b in self.bookings if b.amount < 0)

    @property
    def income(self) -> int:
        """Sum of the expected income."""
        return sum(b.amount for b in self.bookings if b.amount > 0)

    def army(self, number: int) -> ArmyForecast | None:
        """The forecast of one army."""
        return next((a for a in self.armies if a.number == number), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON)."""
        d = asdict(self)
        d["costs"], d["income"] = self.costs, self.income
        return d


# --- the known map -----------------------------------------------------------------------

class KnownTerrain:
    """The view's known map as lookups for the movement rule (built once)."""

    def __init__(self, view: KingdomView, rules: Rules) -> None:
        self.view = view
        self.grid = view.grid
        self.t = Tables.load(rules)
        self.month = view.month.month
        layer = np.full(self.grid.shape, terrain(FILL).id, dtype=np.uint8)
        for a, (code, _seen) in view.known.items():
            if view.on_map(a):
                layer[self.grid.index(self.grid.hex_of(a))] = terrain(code).id
        self.layer = layer
        self.coastal = coastal_mask(layer)
        self._coast: dict[Address, bool] = {}
        self._edges: dict[Address, tuple[Edge, ...]] = {}
        self.verdicts: dict[tuple[str, int, int, bool, bool, int], StepVerdict] = {}
        """:func:`step_verdict` by its arguments (the search asks the same steps
        again and again)."""

    def tid(self, a: Address) -> int | None:
        """Terrain id as known, or ``None``."""
        seen = self.view.known.get(a)
        return terrain(seen[0]).id if seen else None

    def is_coastal(self, a: Address) -> bool:
        got = self._coast.get(a)
        if got is None:
            got = self._coast[a] = bool(self.coastal[self.grid.index(self.grid.hex_of(a))])
        return got

    def harbour(self, a: Address) -> bool:
        """An own settlement with a Hafen (foreign harbours are not known)."""
        s = self.view.settlements.get(a)
        return s is not None and s.level(Building.HAFEN) > 0

    def own_at_start(self, a: Address) -> bool:
        return a in self.view.owned

    def foreign_owner(self, a: Address) -> int | None:
        """The other kingdom owning ``a`` as last seen, or ``None``."""
        if a in self.view.owned:
            return None
        o = self.view.owners.get(a, 0)
        return o if o not in (0, self.view.kingdom) else None

    def neighbour(self, a: Address, d: Direction) -> Address | None:
        """The adjacent address (the view remembers them for the process)."""
        return self.view.neighbour(a, d)

    def edges(self, a: Address) -> tuple[Edge, ...]:
        """The known neighbours of ``a`` with what the movement rule asks of
        them, remembered: every army of the kingdom searches the same land."""
        got = self._edges.get(a)
        if got is None:
            out = []
            for d in _DIRECTIONS:
                there = self.neighbour(a, d)
                if there is None or (tid := self.tid(there)) is None:
                    continue
                out.append(Edge(d, there, tid, self.is_coastal(there), self.harbour(there),
                                self.foreign_owner(there) is not None, str(there), d.value))
            got = self._edges[a] = tuple(out)
        return got


_DIRECTIONS = tuple(Direction)
_LANDED = MoverKind.KRIEGER
"""The mover an army of boats becomes on landing (bound once for the search)."""
"""The six directions (iterating an Enum class is slow in a hot loop)."""


class Edge(NamedTuple):
    """A step to a known neighbour, as :meth:`KnownTerrain.edges` lists it."""

    direction: Direction
    there: Address
    tid: int
    coastal: bool
    harbour: bool
    foreign: bool
    label: str
    """``str(there)``: searches key their tables by it (a string's hash is kept)."""
    code: str
    """``direction.value``, the letter of a ``b``/``e`` order."""


def mover_kind_of(army: ArmyView) -> MoverKind:
    """``krieger``, ``reiter``, ``boote`` (warriors in boats) or ``schiffe``, as
    :func:`wdg.engine.movement.mover_kind` (:attr:`ArmyView.mover_kind`)."""
    return army.mover_kind


# --- the forecast ----------------------------------------------------------------------

def _orders_by_line(sheet: m.Sheet) -> dict[int, str]:
    """Sheet line -> the order written there (as text)."""
    out: dict[int, str] = {}
    for b in sheet.armies:
        for o in (b.phase_a, b.phase_b):
            if o is not None:
                out[o.line] = str(o)
    for k in sheet.kingdom_orders:
        out[k.line] = str(k)
    return out


def _cause(e: Event) -> Reason | None:
    """The forecast's cause of an event that refuses or cuts an order, or ``None``:
    a refusal's own code (:attr:`Event.reason`, set by the engine where it
    refuses), never a word searched in its German text."""
    if e.kind == "pay.shortfall":
        return Reason.GOLD
    if e.kind == "a.nr.partial":
        return Reason.VOLUME  # the settlement's militia (Rüstvolumen), not the ships' Tragkraft
    if e.kind == "a.er.partial":
        return Reason.COUNT  # the army had fewer Rüstgüter than the order names
    if e.kind.endswith(".partial"):
        return Reason.CAPACITY
    if e.kind.endswith(".refused"):
        return e.reason or Reason.RULE
    if e.kind == "conquest.failed":
        return Reason.RULE
    if e.kind == "move.stopped" and e.data.get("remaining"):
        return Reason.RANGE
    return None


_QUIET = ("pay.upkeep", "pay.wages", "move.moved", "move.losses", "recon.", "treasury.",
          "tax.", "militia.growth", "durability.")
"""Event kinds of an army that the forecast shows elsewhere (bookings, the path)
or not at all (its scouting, the end of the month's bookkeeping)."""


def _forecast(view: KingdomView, sheet: m.Sheet, rules: Rules,
              diags: list[m.Diagnostic], skip: frozenset[str] = frozenset()) -> Forecast:
    """The month foreseen by the engine (:func:`wdg.engine.foresight.foresee`)
    over the accepted part of ``sheet``, read back into a :class:`Forecast`."""
    k = view.kingdom
    fc = Forecast(view.segment, view.month.key, k, view.treasury, None, kingdom_name=view.name)
    for d in sorted(diags, key=lambda x: x.line):
        if d.severity is m.Severity.ERROR and d.line:
            fc.refused.append(Refusal(d.line, d.found, d.message, Reason.RULE))
    seen = foresee(view, accepted(sheet, diags), rules, skip=skip)
    before, after, marks = seen.before, seen.after, seen.foresight
    written = _orders_by_line(sheet)
    mine = [e for e in seen.log.events if e.kingdom == k]
    for e in mine:
        if e.gold:
            fc.bookings.append(Booking(e.ledger, e.why, e.gold, e.line, e.army))
        if e.kind == "pay.shortfall":
            fc.unpaid += int(e.data["unpaid"])
        if e.kind in ("pay.shortfall", "morale.desertion") and e.army is not None \
                and e.data.get("deserters"):
            fc.deserters[e.army] = fc.deserters.get(e.army, 0) + int(e.data["deserters"])
        cause = _cause(e)
        if cause is Reason.RULE and e.kind == "conquest.failed" and e.at is not None \
                and Address.parse(before.label(e.at)) in view.owned:
            cause = None  # an ``e`` passing its own land: nothing to conquer there
        if cause is not None:
            why = e.why
            if e.kind == "move.stopped":
                why = f"{e.why} (nicht ausgeführt: {' '.join(e.data['remaining'])})"
            fc.refused.append(Refusal(e.line, written.get(e.line, ""), why, cause, e.army))
    if view.treasury is not None:
        fc.gold_after = after.kingdoms[k].treasury
    blocks = {b.number: b for b in sheet.armies}
    by_army: dict[int, list[Event]] = {}
    for e in mine:
        if e.army is not None:
            by_army.setdefault(e.army, []).append(e)
    for n in sorted(before.armies):
        a0, a1 = before.armies[n], after.armies[n]
        if a0.kingdom != k:
            continue  # a foreign army the scouts saw
        b = blocks.get(n)
        af = ArmyForecast(n, before.label(a0.position) if a0.position else "000.00",
                          a0.troop.value if a0.troop else None, a0.units, a1.units,
                          after.label(a1.position) if a1.position else "000.00",
                          a1.status.value, boats=a1.boats, carried_by=a1.carried_by,
                          carrying=a1.carrying)
        if b is not None:
            af.phase_a = str(b.phase_a) if b.phase_a is not None else ""
            af.phase_b = str(b.phase_b) if b.phase_b is not None else ""
        evs = by_army.get(n, [])
        af.effects = [e.why for e in evs if e.why and not e.kind.startswith(_QUIET)]
        losses: dict[str, int] = {}
        for e in evs:
            if e.kind == "move.losses" and e.at is not None:
                losses[after.label(e.at)] = losses.get(after.label(e.at), 0) + int(e.data["lost"])
            elif e.kind == "move.stopped":
                af.stop, af.remaining = e.why, list(e.data.get("remaining", []))
        order = b.phase_b if b is not None else None
        dirs = list(getattr(order, "directions", ()))
        for i, (at, cost) in enumerate(marks.steps.get(n, [])):
            af.spent += cost
            t = view.terrain_at(Address.parse(at))
            af.path.append(PathStep(at, dirs[i].value if i < len(dirs) else "",
                                    t.name if t is not None else "?", cost, af.spent,
                                    losses.get(at, 0)))
        if af.path:
            af.kind = mover_kind(a0) if a0.troop else ""
        stay, intact = 1.0, 1.0
        for what, p, _where in marks.chances.get(n, []):
            if what == "lost":
                stay *= 1.0 - p
            else:
                intact *= 1.0 - p
        af.lost_chance, af.shatter_chance = round(100 * (1 - stay)), round(100 * (1 - intact))
        af.unknown_ahead = n in marks.unknown_ahead
        af.unknown_owners = [s.at for s in af.path if (a := Address.parse(s.at)) not in view.owned
                             and a not in view.owners and (t := view.terrain_at(a)) is not None
                             and not is_water(t)]
        fc.armies.append(af)
    fc.refused.sort(key=lambda r: (r.line, r.order))
    fc.unknown = _UNKNOWN_LINES[:]
    return fc


_STAYS: dict[type, str] = {
    m.Rest: "ruht in {at}",
    m.Train: "trainiert in {at}",
    m.Search: "durchsucht {at} (was es findet, ist offen)",
    m.Inform: "holt Informationen über {at} ein",
    m.Occupy: "okkupiert {at} (der Ausgang ist offen)",
    m.Destroy: "{o}: Zerstörung in {at} (der Ausgang ist offen)",
    m.CharacterAction: "{o}: Charakteraktion (die Vorschau rechnet sie nicht voraus)",
}
"""What an army that does not move does with its Phase B order (German)."""


_UNKNOWN_LINES = [
    "Fremde Heere stehen, wo Ihre Aufklärer sie zuletzt sahen, in der gemeldeten Stärke und "
    "ohne Befehle; ungesehene Heere, die Befehle anderer Königreiche, deren Haltung zu Ihnen "
    "und die Fabelwesen sind unbekannt: wo ein Heer auf fremde Truppen trifft, kann es "
    "anders kämpfen, Verluste erleiden oder anhalten.",
    "Es wird nicht gewürfelt: die Vorschau nimmt jeweils das Wahrscheinlichere an (kein "
    "Heer verirrt sich, keine Flotte zerschellt; die Gefahr steht als Prozentzahl da); bei "
    "knappem Sold desertiert der zu erwartende Teil.",
    "Besitzer fremder Gemarken sind so angenommen, wie sie zuletzt gesehen wurden; unbekanntes "
    "Gelände betritt die Vorschau nicht.",
    "Eroberungen, Schätze, Ereignisse und Befehle des Segmentleiters können den Reichsschatz "
    "zusätzlich verändern.",
    "Zauber und Charakteraktionen (c) hängen von Fremdem ab; die Vorschau rechnet sie ohne "
    "fremde Heere und Fabelwesen.",
]


GOLD_ORDERS = army_orders.GOLD_ORDERS | kingdom_orders.GOLD_ORDERS | wizards.GOLD_ORDERS
"""The orders whose engine handlers take gold from the treasury (the others cost nothing)."""


def running_costs(view: KingdomView, rules: Rules) -> dict[int, tuple[int, int]]:
    """Army -> (upkeep, pay) due at the start of the month ("Besoldung und
    Unterhalt", economy.yaml): every army active this month (an activating one
    becomes active first) with a general, in ascending number, as the engine's
    pay step charges it (:func:`wdg.engine.economy.army_dues`). The bots plan
    their budget with it."""
    out = {}
    for n, a in sorted(view.armies.items()):
        if not a.troop or not owes_dues(a.status, a.general is not None):
            continue
        out[n] = army_dues(a.troop, a.units, rules)
    return out


def forecast(view: KingdomView, sheet: m.Sheet, rules: Rules, *,
             diagnostics: list[m.Diagnostic] | None = None,
             known: KnownTerrain | None = None,
             skip: frozenset[str] = frozenset()) -> Forecast:
    """What ``sheet`` would do this month on what ``view`` knows (see the module
    docstring): the engine's own steps run over a segment built from the view
    (:func:`wdg.engine.foresight.foresee`). Orders on lines with an error of
    the checker are refused as the month refuses them; a sheet the checker
    refuses whole (another kingdom, segment or month) is not foreseen at all:
    the forecast holds only the reasons (:attr:`Forecast.refused_whole`).
    ``diagnostics`` are the checker's when the caller has them already
    (default: :func:`~wdg.orders.checker.check_sheet`); ``known`` is accepted
    for callers that built the view's :class:`KnownTerrain` (unused here);
    ``skip``: steps the engine leaves out (:func:`~wdg.engine.foresight.foresee`).
    Deterministic; never rolls a die; reads nothing but its arguments."""
    diags = diagnostics if diagnostics is not None else check_sheet(sheet, view)
    whole = [d for d in diags if d.severity is m.Severity.ERROR and d.code in SHEET_REFUSALS]
    if whole:
        fc = Forecast(view.segment, view.month.key, view.kingdom, view.treasury, None,
                      kingdom_name=view.name)
        fc.refused_whole = [f"Zeile {d.line}: {d.message}"
                            + (f" (gefunden: {d.found}, erwartet: {d.expected})"
                               if d.found and d.expected else "") for d in whole]
        return fc
    return _forecast(view, sheet, rules, diags, skip)


# --- reach and costs for the editor ------------------------------------------------------

def reach(view: KingdomView, number: int, rules: Rules,
          known: KnownTerrain | None = None) -> list[dict[str, Any]]:
    """The gemarks army ``number`` can reach this month on known terrain (from its
    position at the start of the month, without Phase A), cheapest path first
    found. Each entry: ``to`` (address), ``directions`` (for ``b``/``e``),
    ``path`` (addresses entered), ``cost`` (percent of the budget), ``stops``
    (True if the move would end there: control area, landing) and
    ``lost_chance`` (percent). Sorted by cost, then address. Empty for
    passive, carried or unknown armies. ``known``: the view's
    :class:`KnownTerrain` when the caller asks for many armies (built once)."""
    a = view.armies.get(number)
    if a is None or a.passive or a.carried_by is not None or a.general is None:
        return []
    km = known if known is not None else KnownTerrain(view, rules)
    kind = mover_kind_of(a)
    start = a.position
    first = str(start)
    # the tables are keyed by the address's text (its hash is kept by the
    # string; an Address hashes in Python): the same search, a third the time
    none = (1 << 30, 0.0)
    best: dict[str, tuple[int, float]] = {first: (0, 1.0)}
    prev: dict[str, tuple[str, str]] = {}
    ends: set[str] = set()
    # each entry carries its gemark's terrain id (the edge knows it; an equal
    # address before it in the tuple means an equal id, so the order is the same)
    heap: list[tuple[int, str, Address, str, float, int | None]] = [
        (0, first, start, kind, 1.0, km.tid(start))]
    verdicts = km.verdicts
    lost = 1.0 - km.t.get_lost_chance
    while heap:
        spent, key, here, k, stay, here_tid = heapq.heappop(heap)
        if spent > best.get(key, none)[0] or key in ends:
            continue
        if here_tid is None:
            continue
        # may_get_lost_on(here_tid, own at start), the terrain asked first
        if k in LAND_KINDS and GETS_LOST[here_tid] and may_get_lost_on(
                here_tid, km.own_at_start(here)):
            stay = stay * lost
        for _d, there, tid, coastal, harbour, foreign, label, code in km.edges(here):
            vkey = (k, here_tid, tid, coastal, harbour, spent)
            v = verdicts.get(vkey)
            if v is None:  # step_verdict is pure: the same step costs the same
                v = verdicts[vkey] = step_verdict(km.t, k, here_tid, tid, km.month,
                                                  coastal=coastal, harbour=harbour, spent=spent)
            if v.reason is not None:
                continue
            nc = spent + v.cost
            if nc < best.get(label, none)[0]:
                best[label] = (nc, stay)
                prev[label] = (key, code)
                if v.landing or foreign:
                    ends.add(label)
                else:
                    ends.discard(label)
                heapq.heappush(heap, (nc, label, there, _LANDED if v.landing else k, stay,
                                      tid))
    out = []
    for to, (cost, stay) in best.items():
        if to == first:
            continue
        path, dirs, x = [], [], to
        while x != first:
            p, d = prev[x]
            path.append(x)
            dirs.append(d)
            x = p
        out.append({"to": to, "directions": dirs[::-1], "path": path[::-1], "cost": cost,
                    "stops": to in ends, "lost_chance": round(100 * (1 - stay))})
    out.sort(key=lambda e: (e["cost"], e["to"]))
    return out


def order_costs(view: KingdomView, rules: Rules) -> dict[str, Any]:
    """The gold cost of each order type for this kingdom now (economy.yaml):
    ``nr`` per recruit by troop type, ``nh`` per activation by troop type, ``nf``
    the offered general's premium (``None`` without an offer), ``B`` per building
    code (``H K Q M``), ``SS`` per Baueinheit (to be multiplied by the terrain
    factor 1-3, see ``SS_factor``), ``SS_factor`` per own gemark, ``F+`` the amount
    given, ``pay``/``upkeep`` per unit and per army each month, and every other
    order ``0``."""
    e = "economy"
    troops = [t.value for t in TroopType]
    factors = {}
    for a in sorted(view.owned, key=str):
        t = view.terrain_at(a)
        f = settlement_cost_factor(t) if t is not None and not is_water(t) else None
        if f is not None:
            factors[str(a)] = f
    return {
        "nr": {t: rules.int(e, "premium", t) for t in troops},
        "nh": {t: rules.int(e, "activation", t) for t in troops},
        "nf": view.offer.price if view.offer else None,
        "B": {b.value: rules.int(e, "buildings", "price", b.german) for b in Building},
        "SS": rules.int(e, "settlement", "unit_price"),
        "SS_factor": factors,
        "F+": "amount",
        "pay": {t: rules.int(e, "pay", t) for t in troops},
        "upkeep": {t: rules.int(e, "upkeep", t) for t in troops},
        "free": [c.code for c in COMMANDS if c.code not in GOLD_ORDERS],
    }


ORDER_STEPS = {"kingdom_orders": "K", "phase_a": "A"}
"""The month's steps that carry out the orders that cost gold, by the part of
the sheet they read (``K`` the kingdom orders in the sheet's order, ``A`` the
Phase A orders by ascending army number: :func:`wdg.engine.kingdom_orders.kingdom_orders`,
:func:`wdg.engine.army_orders.phase_a`)."""

_PAY_LEDGERS = ("upkeep", "pay")
"""The ledgers of the pay step ("Besoldung und Unterhalt", step 10)."""


def spending_sequence() -> list[str]:
    """The parts of the sheet in the order the month spends gold on them: the
    order of the engine's registered steps (:func:`wdg.engine.month.registered_steps`),
    not a copy of it."""
    return [ORDER_STEPS[s.name] for s in registered_steps() if s.name in ORDER_STEPS]


def gold_plan(view: KingdomView, rules: Rules, idle: Forecast | None = None) -> dict[str, Any]:
    """The month's treasury in order as the order editor walks it, from the
    engine's own month (:func:`forecast` of a sheet without orders): ``start``
    (the treasury at the start, ``None`` if unknown), ``paid`` and ``unpaid``
    (what the pay step takes and what it cannot pay), ``after_pay`` (the
    treasury the orders find), ``deserters`` (army -> Rüstgüter expected to
    desert at the pay step, unpaid or demoralised), ``sequence``
    (:func:`spending_sequence`), ``income`` (what the end of the month brings;
    it is reckoned from the state at the start of the month, so no order
    changes it) and ``after_without_orders``.

    The pay step and the income do not depend on the month's orders (pay and
    upkeep are due before any order, "Besoldung und Unterhalt"; the taxes are
    reckoned from the state at the start, :func:`wdg.engine.economy.taxes`);
    the orders then spend in :func:`spending_sequence` and one is carried out
    only if the treasury holds its whole price
    (:func:`wdg.engine.treasury.can_afford`): that walk is all the editor does,
    so its box is this forecast (tests/orders/test_editor_gold_truth.py)."""
    if idle is None:
        idle = forecast(view, m.Sheet(segment=view.segment, kingdom=view.kingdom), rules)
    paid = -sum(b.amount for b in idle.bookings if b.category in _PAY_LEDGERS)
    start = view.treasury
    return {"start": start, "paid": paid, "unpaid": idle.unpaid,
            "after_pay": None if start is None else start - paid,
            "deserters": {str(n): d for n, d in sorted(idle.deserters.items())},
            "sequence": spending_sequence(),
            "income": idle.income, "after_without_orders": idle.gold_after}


GOLD_ONLY_SKIP = frozenset({"recon"})
"""Steps a forecast read only for its gold (:func:`plan_data`) leaves out:
Phase E's scouting (``recon``, a third of a foreseen month) writes only the
known maps and sighting events without gold, and no step after it reads
either (taxes, construction, pay of the next month: the treasury and the
ledger events); ``tests/orders/test_forecast.py`` holds the gold the same."""


def plan_data(view: KingdomView, rules: Rules,
              known: KnownTerrain | None = None) -> dict[str, Any]:
    """Everything an order editor needs to plan offline, as plain data (JSON): the
    treasury at the start of the month, each army's ``running`` costs (upkeep +
    pay, :func:`running_costs`) and its ``reach`` (:func:`reach`), the expected
    ``income`` at the end of the month (taxes, settlements, mines: the forecast
    of a sheet without orders), the gold ``after`` such a sheet, and the
    ``costs`` of each order type (:func:`order_costs`). A running gold total is
    ``treasury - running - order costs + income``; the text the editor writes
    is then checked and forecast by :func:`forecast` like any sheet. ``known``:
    the view's :class:`KnownTerrain` when the caller has built it. Armies at
    one place that move alike share one ``reach`` list (read it, do not change it)."""
    km = known if known is not None else KnownTerrain(view, rules)
    idle = forecast(view, m.Sheet(segment=view.segment, kingdom=view.kingdom), rules, known=km,
                    skip=GOLD_ONLY_SKIP)
    running = running_costs(view, rules)
    # An army's reach depends only on where it stands and how it moves: armies
    # standing together (a capital's garrison) share one search and one list.
    ways: dict[tuple[Address, str], list[dict[str, Any]]] = {}

    def way(n: int, a: ArmyView) -> list[dict[str, Any]]:
        if a.passive or a.carried_by is not None or a.general is None:
            return []
        key = (a.position, mover_kind_of(a))
        if key not in ways:
            ways[key] = reach(view, n, rules, km)
        return ways[key]

    return {
        "segment": view.segment,
        "month": view.month.key,
        "kingdom": view.kingdom,
        "treasury": view.treasury,
        "income": idle.income,
        "after_without_orders": idle.gold_after,
        "armies": {str(n): {"running": sum(running.get(n, (0, 0))),
                            "kind": "" if a.passive else mover_kind_of(a),
                            "reach": way(n, a)}
                   for n, a in sorted(view.armies.items())},
        "costs": order_costs(view, rules),
        "gold": gold_plan(view, rules, idle),
    }


# --- text ------------------------------------------------------------------------------

def forecast_text(fc: Forecast, limit: int | None = None) -> str:
    """The forecast in German, as ``wdg orders simulate`` prints it; ``limit``
    caps the list of refused orders (the confirmation of a very long sheet)."""
    who = f"{fc.kingdom_name} (Königreich {fc.kingdom})" if fc.kingdom_name \
        else f"Königreich {fc.kingdom}"
    out = [f"Vorschau für {who}, Segment {fc.segment}, Mond {fc.month}"]
    if fc.refused_whole:
        out += ["", "Keine Vorschau: der ganze Spielzug wird nicht angenommen."]
        for x in fc.refused_whole:
            out += _wrap(f"- {x}", "  ", "    ")
        return "\n".join(out) + "\n"
    out += ["(voraussichtlich; nur nach dem, was Ihr Königreich weiß)", ""]
    out.append("Heere:")
    for a in fc.armies:
        out += _army_lines(a)
    out += ["", "Reichsschatz:"]
    if fc.gold_before is None:
        out.append("  Anfangsbestand unbekannt (die Sicht enthält keinen Reichsschatz)")
    else:
        out.append(f"  zu Beginn des Mondes:        {gs(fc.gold_before):>14}")
    for b in fc.bookings:
        sign = "+" if b.amount > 0 else "-"
        out += _wrap(f"{sign} {b.text}", "  ", "    ")
    out.append(f"  Ausgaben voraussichtlich:    {gs(fc.costs):>14}")
    out.append(f"  Einnahmen voraussichtlich:   {gs(fc.income):>14}")
    if fc.gold_after is not None:
        out.append(f"  am Ende des Mondes voraussichtlich: {gs(fc.gold_after)}")
    out += ["", "Voraussichtlich verweigert oder nur teilweise ausgeführt:"]
    if not fc.refused:
        out.append("  nichts")
    shown = fc.refused if limit is None else fc.refused[:limit]
    for r in shown:
        where = f"Zeile {r.line}: " if r.line else ""
        what = f"{r.order} – " if r.order else ""
        out += _wrap(f"{where}{what}{r.reason} [{CAUSE_WORDS[r.cause]}]", "  ", "    ")
    if len(shown) < len(fc.refused):
        out.append(f"  … und {len(fc.refused) - len(shown)} weitere")
    out += ["", "Was die Vorschau nicht wissen kann oder nicht berechnet:"]
    for x in fc.unknown:
        out += _wrap(f"- {x}", "  ", "    ")
    return "\n".join(out) + "\n"


WIDTH = 80
"""Line width of the forecast text (the width of the text result sheets)."""


def _wrap(text: str, first: str, rest: str) -> list[str]:
    """``text`` broken into lines of at most :data:`WIDTH` characters."""
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first]


CAUSE_WORDS = {Reason.GOLD: "Gold", Reason.CAPACITY: "Tragkraft", Reason.VOLUME: "Rüstvolumen",
          Reason.COUNT: "Bestand", Reason.RANGE: "Reichweite", Reason.RULE: "Regel"}


def _army_lines(a: ArmyForecast) -> list[str]:
    head = f"Heer {a.number:04d} ({a.troop or 'ohne Truppengattung'}, " \
        f"{count(a.units_before, 'Rüstgut', 'Rüstgüter')}) in {a.start}"
    orders = " / ".join(x for x in (a.phase_a, a.phase_b) if x)
    out = _wrap(head + (f": {orders}" if orders else ""), "  ", "      ")
    for e in a.effects:
        out += _wrap(e, "    ", "      ")
    if a.path:
        steps = ", ".join(f"{s.at} {s.terrain} {pct(s.cost)}" for s in a.path)
        out += _wrap(f"Weg: {steps} (zusammen {pct(a.spent)} der Reichweite)", "    ", "      ")
        losses = sum(s.losses for s in a.path)
        if losses:
            out.append(f"    Verluste im schwierigen Gelände voraussichtlich: "
                       f"{count(losses, 'Soldat', 'Soldaten')}")
    if a.stop:
        out += _wrap(f"Halt: {a.stop}", "    ", "      ")
    if a.unknown_owners:
        out += _wrap("Besitzer unbekannt: " + ", ".join(a.unknown_owners) + "; gehört eine "
                     "davon einem fremden Reich, endet die Bewegung dort", "    ", "      ")
    if a.lost_chance:
        out.append(f"    Gefahr, sich zu verirren: {pct(a.lost_chance)}")
    if a.shatter_chance:
        out.append(f"    Gefahr, an der Küste zu zerschellen: {pct(a.shatter_chance)}")
    if a.status_after == ArmyStatus.PASSIVE.value:
        out.append("    bleibt passiv in 000.00" if a.start == "000.00" else
                   "    Ende des Mondes voraussichtlich passiv in 000.00")
        return out
    out.append(f"    Ende des Mondes voraussichtlich in {a.end}"
               + (f", {count(a.units_after, 'Rüstgut', 'Rüstgüter')}"
                  if a.units_after != a.units_before else ""))
    return out


__all__ = ["ORDER_STEPS", "ArmyForecast", "Booking", "Forecast", "KnownTerrain", "PathStep",
           "Refusal", "forecast", "forecast_text", "gold_plan", "mover_kind_of", "order_costs",
           "plan_data", "reach", "running_costs", "spending_sequence"]
