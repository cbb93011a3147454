"""The forecast: what a kingdom's orders would do, on what the kingdom knows.

One planning module over a kingdom's view (ARCHITECTURE.md, "Reports"): the
checker's ``wdg orders check --forecast``, ``wdg orders simulate``, the import's
confirmation ("Vorschau"), the bots' planner and the HTML order editor all call
it. It reads only a :class:`~wdg.orders.view.KingdomView` (the kingdom's own
armies and settlements, its treasury and popularity, the known map with the
owners as last seen) and the parsed sheet — never the segment: foreign armies
the kingdom has not seen, other kingdoms' orders and the month's dice are
unknown to it, so every result is "voraussichtlich".

It runs the month's steps in the engine's order ("Besoldung und Unterhalt",
K orders, Phase A, Phase B movement, taxes at the end of the month) with the
engine's own rules: the step rule of :func:`wdg.engine.movement.step_verdict`,
the tables of ``worlds/rules/movement.yaml`` and ``economy.yaml``, the tax
function :func:`wdg.engine.economy.tax_income`. Random events are not rolled:
the chance of getting lost ((e)) and of a fleet shattering ((k)) are given
as percentages, the path assumes the army keeps its way.

Public API (plain data, JSON-serialisable through ``to_dict``):

- :func:`forecast` ``(view, sheet, rules) -> Forecast``: per army the path,
  end, why it stops, lost chance, losses, Phase-A effects; for the kingdom the
  gold before, every cost, the taxes, the gold after, and the refused orders.
- :func:`forecast_text` ``(fc) -> str``: the German text (``wdg orders
  simulate``, the confirmation's "Vorschau").
- :func:`reach` ``(view, number, rules) -> list[dict]``: the gemarks an army
  can reach this month on known terrain, each with its path and cost.
- :func:`order_costs` ``(view, rules) -> dict``: the gold cost of each order type.
- :func:`running_costs` ``(view, rules) -> dict``: army -> (upkeep, pay) due this month.
- :func:`plan_data` ``(view, rules) -> dict``: all of the above an offline
  order editor needs (treasury, running costs, income, reach, order costs).
- :func:`walk` and :class:`KnownTerrain`: one move on the known map (the bots'
  planner and the editor's path drawing use the same step rule).
"""

from __future__ import annotations

import heapq
import math
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from wdg.engine.actions import help_gold
from wdg.engine.deposits import enabled as deposits_enabled
from wdg.engine.deposits import yield_layer
from wdg.engine.economy import EconomyStart, tax_income
from wdg.engine.kingdom_orders import festival_popularity
from wdg.engine.ledger import count, gs, pct
from wdg.engine.movement import (
    LAND_KINDS,
    StepVerdict,
    Tables,
    loss_of,
    may_get_lost_on,
    step_verdict,
)
from wdg.orders import model as m
from wdg.orders.checker import check_sheet
from wdg.orders.view import ArmyView, KingdomView
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import BUILDING_ORDER, ArmyStatus, Building, TroopType
from wdg.world.terrain import (
    TERRAINS,
    WATER,
    coastal_mask,
    is_water,
    settlement_cost_factor,
    terrain,
)

FILL = "T."
"""Map code put where the terrain is unknown in the layers built from the view
(land, so an unknown gemark never makes a neighbour coastal; the walk never
enters an unknown gemark)."""


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
    cause: str
    """``gold``, ``capacity``, ``range`` or ``rule`` (the checker's verdict)."""
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

    def owner_known(self, a: Address) -> bool:
        """True if the kingdom knows who owns ``a`` (own, or seen with its owner)."""
        return a in self.view.owned or a in self.view.owners

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


def mover_kind_of(army: ArmyView) -> str:
    """``krieger``, ``reiter``, ``boote`` (warriors in boats) or ``schiffe``, as
    :func:`wdg.engine.movement.mover_kind`."""
    if army.troop == TroopType.SCHIFFE.value:
        return "schiffe"
    if army.boats > 0:
        return "boote"
    return "reiter" if army.troop == TroopType.REITER.value else "krieger"


@dataclass(slots=True)
class _Walk:
    """A simulated move on the known map."""

    path: list[PathStep] = field(default_factory=list)
    end: Address | None = None
    spent: int = 0
    stop: str = ""
    remaining: list[str] = field(default_factory=list)
    stay_chance: float = 1.0
    shatter: float = 0.0
    units: int = 0
    kind: str = ""
    landed: bool = False
    unknown_ahead: bool = False
    unknown_owners: list[str] = field(default_factory=list)


def walk(km: KnownTerrain, start: Address, kind: str, directions: tuple[Direction, ...],
         units: int = 0) -> _Walk:
    """Follow ``directions`` from ``start`` with the engine's step rule until the
    move ends; the path assumes the army keeps its way (the chance that it does
    not is ``1 - stay_chance``). An unknown gemark ends the forecast of the move."""
    w = _Walk(end=start, units=units, kind=kind)
    here = start
    for i, d in enumerate(directions):
        here_tid = km.tid(here)
        if here_tid is None:
            w.stop = f"Die Gemark {here} ist Ihnen unbekannt; weiter reicht die Vorschau nicht"
            w.remaining = [x.value for x in directions[i:]]
            w.unknown_ahead = True
            break
        if w.kind in LAND_KINDS and may_get_lost_on(here_tid, km.own_at_start(here)):
            w.stay_chance *= 1.0 - km.t.get_lost_chance
        there = km.neighbour(here, d)
        reason = None
        made = False
        if there is None:
            reason = "Der Rand der Welt ist erreicht"
        elif (tid := km.tid(there)) is None:
            reason = (f"Die Gemark {there} ist Ihnen unbekannt; ob und wie das Heer sie betritt, "
                      "kann die Vorschau nicht sagen")
            w.unknown_ahead = True
        else:
            v = step_verdict(km.t, w.kind, here_tid, tid, km.month, coastal=km.is_coastal(there),
                             harbour=km.harbour(there), spent=w.spent)
            if v.aground:
                w.shatter = km.t.shatter_chance
                reason = (f"{v.reason}: die Flotte zerschellt mit {pct(round(100 * w.shatter))} "
                          "Wahrscheinlichkeit (mit dem beförderten Heer), sonst dreht sie ab")
            elif v.reason is not None:
                reason = v.reason
            else:
                made = True
                w.spent += v.cost
                if v.landing:  # ashore first, then the terrain's losses (as the engine)
                    w.kind, w.landed = "krieger", True
                lost = loss_of(km.t, w.units, tid) if w.kind in LAND_KINDS else 0
                w.units -= lost
                w.path.append(PathStep(str(there), d.value, TERRAINS[tid].name, v.cost, w.spent,
                                       lost))
                here = w.end = there
                if not WATER[tid] and not km.owner_known(there):
                    w.unknown_owners.append(str(there))
                if v.landing:
                    reason = "Die Boote haben die Küste erreicht; das Heer ist ausgeschifft"
                elif (owner := km.foreign_owner(there)) is not None:
                    reason = (f"Die Bewegung wird voraussichtlich im Kontrollbereich von Reich "
                              f"{owner} unterbrochen (es sei denn, Reich {owner} führt Sie mit "
                              "Diplomatiestatus 7 oder höher)")
        if reason is not None:
            rest = directions[i + (1 if made else 0):]
            if rest or not made:
                w.stop = reason
            w.remaining = [x.value for x in rest]
            break
    return w


# --- the forecast ----------------------------------------------------------------------

class _Run:
    """One forecast in progress."""

    def __init__(self, view: KingdomView, sheet: m.Sheet, rules: Rules,
                 diagnostics: list[m.Diagnostic] | None, known: KnownTerrain | None) -> None:
        self.view, self.sheet, self.rules = view, sheet, rules
        self.km = known if known is not None else KnownTerrain(view, rules)
        self.gold = view.treasury
        self.popularity = view.popularity if view.popularity is not None else 50
        self.fc = Forecast(view.segment, view.month.key, view.kingdom, view.treasury, None,
                           kingdom_name=view.name)
        self.diags = diagnostics if diagnostics is not None else check_sheet(sheet, view)
        self.bad = {d.line: d for d in self.diags if d.severity is m.Severity.ERROR}
        self.armies: dict[int, ArmyForecast] = {}
        self.busy: set[int] = set()
        self.positions: dict[int, Address] = {}

    # -- gold ----------------------------------------------------------------------------

    def pay(self, amount: int, category: str, text: str, *, line: int = 0,
            army: int | None = None, order: str = "", partial_ok: bool = False) -> bool:
        """Book ``amount``; False (and a refusal) if the treasury would not hold it."""
        if self.gold is not None and amount > self.gold and not partial_ok:
            self.fc.refused.append(Refusal(line, order, f"der Reichsschatz "
                                           f"(voraussichtlich {gs(self.gold)}) reicht für "
                                           f"{gs(amount)} nicht", "gold", army))
            return False
        paid = amount if self.gold is None else min(amount, self.gold)
        if paid:
            self.fc.bookings.append(Booking(category, text, -paid, line, army))
        if self.gold is not None:
            self.gold -= paid
        return True

    def price(self, *keys: str) -> int:
        return self.rules.int("economy", *keys)

    # -- the month ----------------------------------------------------------------------

    def run(self) -> Forecast:
        for n, a in sorted(self.view.armies.items()):
            status = ArmyStatus.ACTIVE.value if a.status == ArmyStatus.ACTIVATING.value \
                else a.status
            self.armies[n] = ArmyForecast(n, str(a.position), a.troop, a.units, a.units,
                                          str(a.position), status, boats=a.boats,
                                          carried_by=a.carried_by, carrying=a.carrying)
            self.positions[n] = a.position
        self._refusals_of_checker()
        self._pay_and_upkeep()
        self._kingdom_orders()
        self._phase_a()
        self._phase_b()
        self._taxes()
        self.fc.armies = [self.armies[n] for n in sorted(self.armies)]
        self.fc.gold_after = self.gold
        self.fc.refused.sort(key=lambda r: (r.line, r.order))
        self.fc.unknown = _UNKNOWN_LINES[:]
        return self.fc

    def _refusals_of_checker(self) -> None:
        for d in sorted(self.bad.values(), key=lambda x: x.line):
            if d.line:
                self.fc.refused.append(Refusal(d.line, d.found, d.message, "rule"))

    def _pay_and_upkeep(self) -> None:
        """"Besoldung und Unterhalt" (step 10): upkeep and pay of every active army."""
        for n, (upkeep, wages) in running_costs(self.view, self.rules).items():
            af = self.armies[n]
            short = 0
            for amount, cat, what in ((upkeep, "upkeep", "Unterhalt"),
                                      (wages, "pay", "Besoldung")):
                have = self.gold
                self.pay(amount, cat, f"{what} des Heeres {n:04d}: {gs(amount)}", army=n,
                         partial_ok=True)
                if have is not None and have < amount:
                    short += amount - have
            if short:
                self.fc.refused.append(Refusal(0, f"Heer {n:04d}", f"{gs(short)} Sold und "
                                               "Unterhalt blieben unbezahlt: Rüstgüter können "
                                               "desertieren, Moral und Erfahrung sinken",
                                               "gold", n))
                af.effects.append(f"Sold und Unterhalt nicht voll bezahlt ({gs(short)} fehlen)")

    def _kingdom_orders(self) -> None:
        """K orders (step 20) in sheet order up to the palace allowance."""
        ordered: dict[tuple[Address, Building], int] = {}
        for o in self.sheet.kingdom_orders:
            if o.line in self.bad:
                continue
            if isinstance(o, m.Build):
                self._build(o, ordered)
            elif isinstance(o, m.Settle):
                t = self.view.terrain_at(o.at)
                factor = settlement_cost_factor(t) if t is not None else None
                lo, hi = self.price("settlement", "min_units"), self.price("settlement",
                                                                              "max_units")
                if factor is None or not lo <= o.units <= hi:
                    self.fc.refused.append(Refusal(o.line, str(o), f"ein Bauauftrag umfaßt {lo} "
                                                   f"bis {hi} Baueinheiten" if factor else
                                                   "dort kann keine Siedlung stehen", "rule"))
                    continue
                price = o.units * self.price("settlement", "unit_price") * factor
                self.pay(price, "settlement", f"Siedlungsbau in {o.at}: "
                         f"{count(o.units, 'Baueinheit', 'Baueinheiten')}, {gs(price)}",
                         line=o.line, order=str(o))
            elif isinstance(o, m.Festival):
                self._festival(o)

    def _festival(self, o: m.Festival) -> None:
        """"(F+)": the gold, and the popularity it buys
        (:func:`wdg.engine.kingdom_orders.festival_popularity`); the taxes of this
        month are computed from the popularity at its start."""
        if o.gold <= 0:
            self.fc.refused.append(Refusal(o.line, str(o), "der Betrag muß größer als 0 sein",
                                           "rule"))
            return
        old = self.popularity
        new = festival_popularity(old, o.gold, len(self.view.owned), self.rules)
        if self.pay(o.gold, "festival", f"Volksfeste: {gs(o.gold)}; die Beliebtheit steigt "
                    f"voraussichtlich von {old} auf {new}", line=o.line, order=str(o)):
            self.popularity = new

    def _build(self, o: m.Build, ordered: dict[tuple[Address, Building], int]) -> None:
        """"(Bn)": one level more, up to ``buildings.max_level`` (a building ordered
        last month is finished by now; this sheet's earlier orders count), a Hafen
        only beside water ("Die Bauwerke")."""
        b = o.building
        s = self.view.settlements.get(o.at)
        level = (s.level(b) if s is not None else self.view.mines.get(o.at, 0)
                 if b is Building.MINE else 0) + ordered.get((o.at, b), 0)
        cap = self.price("buildings", "max_level")
        if level >= cap:
            self.fc.refused.append(Refusal(o.line, str(o), f"{b.german} in {o.at} hat schon "
                                           f"die größte sinnvolle Stufe ({cap})", "rule"))
            return
        if b is Building.HAFEN and not any(
                (n := self.view.neighbour(o.at, d)) is not None
                and (t := self.view.terrain_at(n)) is not None and is_water(t)
                for d in Direction):
            self.fc.refused.append(Refusal(o.line, str(o), "ein Hafen braucht eine angrenzende "
                                           "Wassergemark", "rule"))
            return
        price = self.price("buildings", "price", b.german)
        if self.pay(price, "build", f"{b.german} in {o.at}: {gs(price)}", line=o.line,
                    order=str(o)):
            ordered[(o.at, b)] = ordered.get((o.at, b), 0) + 1

    def _phase_a(self) -> None:
        """Phase A (step 30), armies in ascending number."""
        blocks = {b.number: b for b in self.sheet.armies if b.number in self.view.armies}
        for n in sorted(blocks):
            b, af, a = blocks[n], self.armies[n], self.view.armies[n]
            o = b.phase_a
            if b.line in self.bad or o is None:
                continue
            af.phase_a = str(o)
            if o.line in self.bad:
                af.effects.append(f"{o}: verweigert ({self.bad[o.line].message})")
                continue
            self._phase_a_order(a, af, o)

    def _phase_a_order(self, a: ArmyView, af: ArmyForecast, o: m.PhaseAOrder) -> None:
        n = a.number
        if isinstance(o, m.HireGeneral):
            price = self.view.offer.price if self.view.offer else 0
            name = self.view.offer.general.name if self.view.offer else "?"
            if self.pay(price, "general", f"Feldherr {name} angeworben: {gs(price)}", line=o.line,
                        army=n, order=str(o)):
                af.effects.append(f"Feldherr {name} wird angeworben ({gs(price)})")
        elif isinstance(o, m.Activate):
            cost = self.price("activation", a.troop) if a.troop else 0
            if self.pay(cost, "activate", f"Heer {n:04d} in {o.at} aktiviert: {gs(cost)}",
                        line=o.line, army=n, order=str(o)):
                af.status_after, af.end, af.units_after = ArmyStatus.ACTIVATING.value, \
                    str(o.at), 0
                af.effects.append(f"wird in {o.at} aktiviert ({gs(cost)}), aktiv ab dem "
                                  "folgenden Mond")
                self.positions[n] = o.at
        elif isinstance(o, m.DismissArmy):
            moved = af.units_after
            if o.target and o.target in self.armies:
                self.armies[o.target].units_after += moved
                self.armies[o.target].effects.append(
                    f"übernimmt {count(moved, 'Rüstgut', 'Rüstgüter')} von Heer {n:04d}")
            af.effects.append("wird entlassen und begibt sich nach 000.00"
                              + (f" (Rüstgüter an Heer {o.target:04d})" if o.target else ""))
            af.status_after, af.end, af.units_after = ArmyStatus.PASSIVE.value, "000.00", 0
            self.busy.add(n)
        elif isinstance(o, m.Recruit):
            self._recruit(a, af, o)
        elif isinstance(o, m.Release):
            k = min(o.count, af.units_after)
            af.units_after -= k
            af.effects.append(f"{count(k, 'Rüstgut', 'Rüstgüter')} entlassen")
        elif isinstance(o, m.BuildBoats):
            need = self.rules.int("actions", "minimum_soldiers", "bb")
            if af.units_after < need:  # "Das Heer": a general and his Troß alone
                why = (f"das Heer hat {count(af.units_after, 'Soldat', 'Soldaten')}, zum "
                       f"Bootsbau braucht es mindestens {count(need, 'Soldat', 'Soldaten')}")
                self.fc.refused.append(Refusal(o.line, str(o), why, "rule", n))
                af.effects.append(f"{o}: verweigert, {why}")
                return
            space = af.units_after * self.price("space", a.troop or "Krieger")
            boats = max(1, math.ceil(space / self.price("space", "boat_capacity")))
            water = self.view.neighbour(a.position, o.direction)
            af.effects.append(f"baut {count(boats, 'Boot', 'Boote')} in {water} und schifft sich "
                              "am Ende des Mondes ein (den ganzen Mond)")
            af.boats, af.end = boats, str(water)
            self.busy.add(n)
        elif isinstance(o, m.Board):
            self._board(a, af, o)
        elif isinstance(o, m.Disembark):
            af.effects.append(f"verläßt die Schiffe nach {o.at} (den ganzen Mond)")
            af.end, af.carried_by = str(o.at), None
            self.positions[n] = o.at
            self.busy.add(n)
        elif isinstance(o, m.Rename):
            af.effects.append(f"die Siedlung in {a.position} soll {o.name} heißen")

    def _recruit(self, a: ArmyView, af: ArmyForecast, o: m.Recruit) -> None:
        """"(nr)": the whole premium must be in the treasury; an embarked army
        cannot recruit (as :func:`wdg.engine.army_orders._recruit`)."""
        troop = a.troop or ""
        if a.carried_by is not None or a.boats or o.count <= 0:
            why = "die Anzahl muß größer als 0 sein" if o.count <= 0 else \
                "das Heer ist eingeschifft"
            self.fc.refused.append(Refusal(o.line, str(o), why, "rule", a.number))
            af.effects.append(f"{o}: verweigert, {why}")
            return
        price = o.count * self.price("premium", troop)
        one = "Schiff" if troop == TroopType.SCHIFFE.value else troop
        if self.gold is not None and price > self.gold:
            each = self.price("premium", troop)
            self.fc.refused.append(Refusal(o.line, str(o), f"die Werbeprämie für "
                                           f"{count(o.count, one, troop)} ({gs(price)}) ist "
                                           f"voraussichtlich nicht im Reichsschatz "
                                           f"({gs(self.gold)}; bezahlbar: "
                                           f"{self.gold // each})", "gold", a.number))
            af.effects.append(f"{o}: verweigert, zu wenig Gold")
            return
        self.pay(price, "recruit", f"{count(o.count, one, troop)} angeworben: {gs(price)}",
                 line=o.line, army=a.number, order=str(o))
        af.units_after += o.count
        af.effects.append(f"wirbt {count(o.count, one, troop)} an ({gs(price)}), sofern das "
                          "Rüstvolumen der Siedlung reicht")

    def _board(self, a: ArmyView, af: ArmyForecast, o: m.Board) -> None:
        fleet = self.armies.get(o.fleet)
        space = af.units_after * self.price("space", a.troop or "Krieger")
        room = (fleet.units_after if fleet else 0) * self.price("space", "ship_capacity")
        if fleet is None or space > room:
            self.fc.refused.append(Refusal(o.line, str(o), f"die Flotte {o.fleet:04d} trägt "
                                           f"{room} Raumfaktoren, das Heer braucht {space}",
                                           "capacity", a.number))
            af.effects.append(f"{o}: verweigert, die Flotte ist zu klein")
            return
        af.effects.append(f"schifft sich auf die Flotte {o.fleet:04d} ein ({space} von {room} "
                          "Raumfaktoren; den ganzen Mond)")
        af.carried_by, fleet.carrying = o.fleet, a.number
        self.busy.add(a.number)

    def _phase_b(self) -> None:
        """Phase B movement (step 40), armies in ascending number."""
        blocks = {b.number: b for b in self.sheet.armies if b.number in self.view.armies}
        for n in sorted(self.armies):
            af, a = self.armies[n], self.view.armies[n]
            b = blocks.get(n)
            o = b.phase_b if b is not None and b.line not in self.bad else None
            if o is not None:
                af.phase_b = str(o)
            if o is not None and o.line in self.bad:
                af.effects.append(f"{o}: verweigert ({self.bad[o.line].message}); das Heer ruht")
                continue
            can_act = af.status_after == ArmyStatus.ACTIVE.value and a.general is not None \
                and not a.position.is_passive and n not in self.busy
            if isinstance(o, (m.Move, m.Conquer)) and can_act:
                self._move(a, af, o)
            elif isinstance(o, m.Help) and can_act:
                self._help(a, af)
            elif isinstance(o, (m.Occupy, m.Destroy)) and can_act and \
                    af.units_after < (need := self.rules.int(
                        "actions", "minimum_soldiers", "o" if isinstance(o, m.Occupy) else "x")):
                why = (f"das Heer hat {count(af.units_after, 'Soldat', 'Soldaten')}, es braucht "
                       f"mindestens {count(need, 'Soldat', 'Soldaten')}")
                self.fc.refused.append(Refusal(o.line, str(o), why, "rule", n))
                af.effects.append(f"{o}: verweigert, {why}; das Heer ruht in {af.end}")
            elif o is not None and not isinstance(o, (m.Move, m.Conquer)) and can_act:
                af.effects.append(_STAYS.get(type(o), "{o}: bleibt in {at}").format(
                    o=o, at=af.end))
            elif o is None and can_act:
                af.effects.append(f"ruht in {af.end}")
        for n, af in self.armies.items():  # a carried army goes where its fleet goes
            if af.carried_by is not None and af.carried_by in self.armies and \
                    self.armies[af.carried_by].path:
                af.end = self.armies[af.carried_by].end
                af.effects.append(f"fährt mit der Flotte {af.carried_by:04d} nach {af.end}")

    def _move(self, a: ArmyView, af: ArmyForecast, o: m.Move | m.Conquer) -> None:
        conquer = isinstance(o, m.Conquer)
        kind = mover_kind_of(a)
        if a.carried_by is not None:
            return self._refuse_move(af, o, "Das Heer wird von einer Flotte befördert und kann "
                                     "sich nicht selbst bewegen")
        need = self.rules.int("actions", "minimum_soldiers", "e")
        if conquer and af.units_after < need:
            has = "keine Soldaten" if not af.units_after else \
                f"nur {count(af.units_after, 'Soldat', 'Soldaten')}"
            return self._refuse_move(af, o, f"Einnahme verweigert: das Heer hat {has} "
                                     f"(mindestens {count(need, 'Soldat', 'Soldaten')})")
        w = walk(self.km, self.positions[a.number], kind, o.directions, af.units_after)
        af.kind, af.path, af.spent, af.stop, af.remaining = kind, w.path, w.spent, w.stop, \
            w.remaining
        af.end = str(w.end)
        af.units_after = w.units
        af.lost_chance = round(100 * (1 - w.stay_chance))
        af.shatter_chance = round(100 * w.shatter)
        af.unknown_ahead = w.unknown_ahead
        af.unknown_owners = w.unknown_owners
        if w.landed:
            af.boats = 0
        if w.stop and w.remaining:
            self.fc.refused.append(Refusal(o.line, str(o), f"nur {len(w.path)} von "
                                           f"{len(o.directions)} Schritten: {w.stop}", "range",
                                           a.number))
        if conquer and w.path:
            af.effects.append("nimmt die betretenen Gemarken ein: "
                              + ", ".join(s.at for s in w.path) + " (Ausgang offen)")

    def _help(self, a: ArmyView, af: ArmyForecast) -> None:
        """``h`` in an own land gemark brings the harvest help's gold (step 45,
        :func:`wdg.engine.actions.help_gold`)."""
        tid = self.km.tid(a.position)
        gold = 0
        if tid is not None and not a.is_fleet and not WATER[tid] and a.position in self.view.owned:
            gold = help_gold(af.units_after, tid, self.rules)
        if gold:
            self.fc.bookings.append(Booking("income", f"Ernteertrag der Hilfe des Heeres "
                                            f"{a.number:04d}: {gs(gold)}", gold, army=a.number))
            if self.gold is not None:
                self.gold += gold
        af.effects.append(f"hilft den Einwohnern in {af.end}"
                          + (f" ({gs(gold)} Ernteertrag)" if gold else ""))

    def _refuse_move(self, af: ArmyForecast, o: m.Move | m.Conquer, why: str) -> None:
        af.stop = why
        self.fc.refused.append(Refusal(o.line, str(o), why, "rule", af.number))

    def _taxes(self) -> None:
        """Taxes at the end of the month (step 82) from the own gemarks at the start
        of the month, with the engine's :func:`tax_income`."""
        view, grid = self.view, self.view.grid
        if not view.owned:
            return
        shape = grid.shape
        owner = np.zeros(shape, dtype=np.int16)
        settlement = np.zeros(shape, dtype=np.int32)
        buildings = np.zeros((len(BUILDING_ORDER), *shape), dtype=np.int16)
        mine = BUILDING_ORDER.index(Building.MINE)
        for a in view.owned:
            if view.on_map(a):
                owner[grid.index(grid.hex_of(a))] = view.kingdom
        for s in view.settlements.values():
            r, c = grid.index(grid.hex_of(s.at))
            settlement[r, c] = s.size
            for i, b in enumerate(BUILDING_ORDER):
                buildings[i, r, c] = s.level(b)
        for a, lv in view.mines.items():
            buildings[(mine, *grid.index(grid.hex_of(a)))] = lv
        # a mine yields only on a deposit the kingdom found (wdg.engine.deposits)
        mine_yield = yield_layer(shape, ((*grid.index(grid.hex_of(a)), kind)
                                         for a, kind in (view.deposits or {}).items() if view.on_map(a)),
                                 self.rules) if deposits_enabled(self.rules) else None
        start = EconomyStart(owner, settlement, buildings,
                             {view.kingdom: view.popularity if view.popularity is not None
                              else 50}, mine_yield)
        g, s, mi = tax_income(start, self.km.layer, view.kingdom, self.rules)
        gemarks = count(len(view.owned), "Gemark", "Gemarken")
        for amount, cat, text in ((g, "tax", f"Steuern aus {gemarks}"),
                                  (s, "income", "Einnahmen der Siedlungen"),
                                  (mi, "income", "Einnahmen der Minen")):
            if amount:
                self.fc.bookings.append(Booking(cat, f"{text}: {gs(amount)}", amount))
                if self.gold is not None:
                    self.gold += amount


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
    "Bewegungen, Befehle und Kämpfe anderer Königreiche und der Fabelwesen sind unbekannt; "
    "wo ein Heer auf fremde Truppen trifft, kann es kämpfen, Verluste erleiden oder anhalten.",
    "Es wird nicht gewürfelt: ob sich ein Heer verirrt oder eine Flotte zerschellt, steht "
    "als Wahrscheinlichkeit da; wer bei knappem Sold desertiert, ist offen.",
    "Besitzer fremder Gemarken sind so angenommen, wie sie zuletzt gesehen wurden; unbekanntes "
    "Gelände betritt die Vorschau nicht.",
    "Das Rüstvolumen der Siedlungen (die Miliz) ist nicht genau bekannt; Anwerbungen sind in "
    "voller Höhe angenommen.",
    "Eroberungen, Schätze, Ereignisse und Befehle des Segmentleiters können den Reichsschatz "
    "zusätzlich verändern.",
    "Nicht berechnet sind Charakteraktionen (c) sowie die Abnutzung von Booten und Schiffen "
    "am Ende des Mondes.",
]


def running_costs(view: KingdomView, rules: Rules) -> dict[int, tuple[int, int]]:
    """Army -> (upkeep, pay) due at the start of the month ("Besoldung und
    Unterhalt", economy.yaml): every army active this month (an activating one
    becomes active first) with a general, in ascending number, as the engine's
    pay step charges it. The bots plan their budget with it."""
    out = {}
    for n, a in sorted(view.armies.items()):
        if a.status not in (ArmyStatus.ACTIVE.value, ArmyStatus.ACTIVATING.value) \
                or a.general is None or not a.troop:
            continue
        out[n] = (rules.int("economy", "upkeep", a.troop),
                  a.units * rules.int("economy", "pay", a.troop))
    return out


def forecast(view: KingdomView, sheet: m.Sheet, rules: Rules, *,
             diagnostics: list[m.Diagnostic] | None = None,
             known: KnownTerrain | None = None) -> Forecast:
    """What ``sheet`` would do this month on what ``view`` knows (see the module
    docstring). Orders on lines with an error of the checker are refused as the
    month refuses them; ``diagnostics`` are the checker's when the caller has
    them already (default: :func:`~wdg.orders.checker.check_sheet`); ``known``
    the view's :class:`KnownTerrain` when the caller has built it.
    Deterministic; never rolls a die; reads nothing but its arguments."""
    return _Run(view, sheet, rules, diagnostics, known).run()


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
    heap: list[tuple[int, str, Address, str, float]] = [(0, first, start, kind, 1.0)]
    verdicts = km.verdicts
    lost = 1.0 - km.t.get_lost_chance
    while heap:
        spent, key, here, k, stay = heapq.heappop(heap)
        if spent > best.get(key, none)[0] or key in ends:
            continue
        here_tid = km.tid(here)
        if here_tid is None:
            continue
        if k in LAND_KINDS and may_get_lost_on(here_tid, km.own_at_start(here)):
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
                heapq.heappush(heap, (nc, label, there, "krieger" if v.landing else k, stay))
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
        "free": ["eh", "er", "bb", "bs", "vs", "nn", "DS", "b", "e", "c", "h", "i", "o", "r",
                 "s", "t", "x"],
    }


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
    idle = forecast(view, m.Sheet(segment=view.segment, kingdom=view.kingdom), rules, known=km)
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
    }


# --- text ------------------------------------------------------------------------------

def forecast_text(fc: Forecast, limit: int | None = None) -> str:
    """The forecast in German, as ``wdg orders simulate`` prints it; ``limit``
    caps the list of refused orders (the confirmation of a very long sheet)."""
    who = f"{fc.kingdom_name} (Königreich {fc.kingdom})" if fc.kingdom_name \
        else f"Königreich {fc.kingdom}"
    out = [f"Vorschau für {who}, Segment {fc.segment}, Mond {fc.month}",
           "(voraussichtlich; nur nach dem, was Ihr Königreich weiß)", ""]
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
        out += _wrap(f"{where}{what}{r.reason} [{_CAUSE[r.cause]}]", "  ", "    ")
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


_CAUSE = {"gold": "Gold", "capacity": "Tragkraft", "range": "Reichweite", "rule": "Regel"}


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


__all__ = ["ArmyForecast", "Booking", "Forecast", "KnownTerrain", "PathStep", "Refusal",
           "forecast", "forecast_text", "mover_kind_of", "order_costs", "plan_data", "reach",
           "running_costs", "walk"]
