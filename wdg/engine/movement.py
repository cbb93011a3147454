"""Phase B movement: ``b`` and ``e`` moves, seasons, transport by boat and ship.

Rules served: "Die Bewegung", "Das Boot", "Das Schiff", "Zusammengesetzte
Geländearten", "Schwieriges Gelände", "Allgemeine Regeln für Heere" (c)-(q),
"Der Kontrollbereich", "(e) Einnahme". Numbers come from
``worlds/rules/movement.yaml``; interpretations are in ``docs/rules.md``
("Movement and transport").

An army moves gemark by gemark; each step costs the percentage of the gemark
entered (:class:`Tables`); a step that would take the sum over the budget is
not made. Kingdoms move in ``m.kingdom_order``, armies in ascending number;
every random draw (getting lost, shattering) comes from ``m.rng`` in that
order. A land army carried by a fleet has no move of its own: its position
follows the fleet.

Events (kind, why in German):

- ``move.moved``: the army made at least one step (``data.path``, ``data.spent``)
- ``move.stopped``: the move ended before its last direction (``data.reason``)
- ``move.refused``: the order could not be executed at all
- ``move.lost``: the army lost its way and left in a random direction
- ``move.losses``: soldiers lost in difficult terrain (``data.lost``)
- ``move.landed``: boats reached a coastal gemark; the army went ashore
- ``move.shattered`` / ``move.drowned``: a fleet shattered on the coast and
  the army it carried drowned
- ``move.treasure_destroyed``: an ``e`` move destroyed treasure ("Die Eroberung")
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from wdg.engine.diplomacy import free_passage
from wdg.engine.events import Event
from wdg.engine.treasury import count, pct
from wdg.engine.month import Claim, Month, step
from wdg.orders.model import Conquer, Move, PhaseBOrder
from wdg.rules import Rules
from wdg.world.hexgrid import Direction, Hex
from wdg.world.state import (BUILDING_ORDER, Army, ArmyStatus, Building, MoverKind, Segment,
                             TroopType)
from wdg.world.terrain import (
    HEIGHTS,
    TERRAINS,
    WATER,
    can_get_lost,
    coastal_mask,
    is_closed,
    loss_components,
)

AREA = "movement"

LAND_KINDS = (MoverKind.KRIEGER, MoverKind.REITER)
"""Movers that walk: land armies not in boats and not carried."""
_SCHIFFE, _BOOTE = MoverKind.SCHIFFE, MoverKind.BOOTE
"""The members the step rule compares, bound once (an Enum's attribute costs a
lookup on every step of a search)."""
DIRECTIONS: tuple[Direction, ...] = tuple(Direction)
GETS_LOST = np.array([can_get_lost(t) for t in TERRAINS], dtype=bool)
"""Terrain id -> whether an army may lose its way leaving it (Sandwüste,
Regenwald, Eiswüste, Sumpf: "Bewegung" (e)); the terrain half of
:func:`may_get_lost_on`."""


@dataclass(slots=True)
class Tables:
    """The movement numbers of the rules file as arrays indexed by terrain id."""

    budget: int
    cost: dict[str, np.ndarray]
    """Mover kind -> percent to enter, by terrain id; -1 = may not enter."""
    landing: dict[str, int]
    loss: np.ndarray
    """Percent of soldiers lost on entering, by terrain id (components added)."""
    get_lost_chance: float
    shatter_chance: float

    @staticmethod
    def load(rules: Rules) -> Tables:
        """Build the tables from ``movement.yaml``."""
        costs = rules.section(AREA, "costs")
        cost: dict[str, np.ndarray] = {kind: _cost_array(costs[kind.value]) for kind in MoverKind}
        rates = rules.section(AREA, "losses")
        loss = np.array([sum(int(rates.get(c.value, 0)) for c in loss_components(t))
                         for t in TERRAINS], dtype=np.int32)
        return Tables(
            budget=rules.int(AREA, "budget"),
            cost=cost,
            landing={k: int(v) for k, v in rules.section(AREA, "landing").items()},
            loss=loss,
            get_lost_chance=rules.num(AREA, "get_lost_chance"),
            shatter_chance=rules.num(AREA, "shatter_chance"),
        )


def _cost_array(table: dict[str, int]) -> np.ndarray:
    """Percent per terrain id: the dearer component; -1 if any component is
    missing from ``table`` (the mover may not enter it)."""
    out = np.full(len(TERRAINS), -1, dtype=np.int32)
    for t in TERRAINS:
        parts = [table.get(c.value) for c in t.components]
        known = [int(p) for p in parts if p is not None]
        if len(known) == len(parts):
            out[t.id] = max(known)
    return out


def mover_kind(army: Army) -> MoverKind:
    """Krieger, Reiter, Boote (warriors in boats) or Schiffe."""
    if army.troop is TroopType.SCHIFFE:
        return MoverKind.SCHIFFE
    if army.boats > 0:
        return MoverKind.BOOTE
    return MoverKind.REITER if army.troop is TroopType.REITER else MoverKind.KRIEGER


def harbour_mask(seg: Segment) -> np.ndarray:
    """Gemarks with a settlement that has a harbour ("Siedlung mit einem Hafen")."""
    return (seg.settlement > 0) & (seg.buildings[BUILDING_ORDER.index(Building.HAFEN)] > 0)


def may_stand(seg: Segment, army: Army, h: Hex) -> bool:
    """True if the army's type may stand on ``h`` ((d), (o), "Das Boot")."""
    r, c = seg.grid.index(h)
    water = bool(WATER[seg.terrain[r, c]])
    kind = mover_kind(army)
    if kind is MoverKind.SCHIFFE:
        return water or bool(harbour_mask(seg)[r, c])
    if kind is MoverKind.BOOTE:
        return water
    return not water


def phase_b_armies(m: Month) -> Iterator[Army]:
    """Active, not busy armies with a general, kingdoms in ``m.kingdom_order``
    (then any others ascending), armies in ascending number ("Passive Heere
    können keine Befehle für die Phase B der Heeresbefehle erhalten")."""
    by_kingdom: dict[int, list[Army]] = {}
    for a in m.state.armies.values():
        by_kingdom.setdefault(a.kingdom, []).append(a)
    order = list(m.kingdom_order) + sorted(k for k in by_kingdom if k not in m.kingdom_order)
    for k in order:
        for a in sorted(by_kingdom.get(k, ()), key=lambda x: x.number):
            if (a.is_active and a.position is not None and a.general is not None
                    and a.number not in m.busy):
                yield a


def phase_b_orders(m: Month) -> dict[int, PhaseBOrder | None]:
    """Army number -> its Phase B order, from its own kingdom's sheet only."""
    out: dict[int, PhaseBOrder | None] = {}
    for k, sheet in m.sheets.items():
        for block in sheet.armies:
            a = m.state.armies.get(block.number)
            if a is not None and a.kingdom == k:
                out[block.number] = block.phase_b
    return out


@dataclass(slots=True)
class _Ctx:
    """Per-step lookups built once."""

    m: Month
    t: Tables
    start_owner: np.ndarray
    harbour: np.ndarray
    coastal: np.ndarray


@dataclass(slots=True)
class _Walk:
    """One army's move in progress."""

    army: Army
    kind: MoverKind
    conquer: bool
    line: int
    spent: int = 0
    path: list[Hex] = field(default_factory=list)
    done: bool = False


@step("movement", 40)
def movement(m: Month) -> None:
    """Execute every ``b`` and ``e`` order of the month."""
    seg = m.state
    ctx = _Ctx(
        m=m,
        t=Tables.load(m.rules),
        start_owner=m.start.owner if m.start is not None else seg.owner.copy(),
        harbour=harbour_mask(seg),
        coastal=coastal_mask(seg.terrain),
    )
    orders = phase_b_orders(m)
    for army in phase_b_armies(m):
        order = orders.get(army.number)
        if isinstance(order, (Move, Conquer)):
            move_army(ctx, army, order)


_ORDER_NAMES = {"e": "Einnahme", "o": "Okkupation", "x": "Zerstörung", "bb": "Bootsbau"}


def too_few_soldiers(m: Month, army: Army, code: str) -> str | None:
    """Why ``army`` has too few soldiers for the order ``code`` (``e o x bb``), or
    ``None``: a general with his Troß alone "ist ... zu keinen besonderen Aktionen
    fähig" ("Das Heer"; ``actions.minimum_soldiers``)."""
    need = m.rules.int("actions", "minimum_soldiers", code)
    if army.units >= need:
        return None
    has = "keine Soldaten" if army.units == 0 else f"nur {count(army.units, 'Soldat', 'Soldaten')}"
    return (f"Das Heer hat {has}; ein Feldherr mit seinem Troß allein ist zu keiner "
            f"{_ORDER_NAMES.get(code, code)} fähig (mindestens {count(need, 'Soldat', 'Soldaten')})")


def move_army(ctx: _Ctx, army: Army, order: Move | Conquer) -> None:
    """Walk one army along the order's directions until done or stopped."""
    m = ctx.m
    kind = mover_kind(army)
    conquer = isinstance(order, Conquer)
    if army.carried_by is not None:
        _refuse(m, army, order.line, "Das Heer wird von einer Flotte befördert und kann sich "
                "nicht selbst bewegen")
        return
    if conquer and kind is MoverKind.SCHIFFE:
        _refuse(m, army, order.line, "Flotten können keine Gemarken erobern")
        return
    if conquer and (few := too_few_soldiers(m, army, "e")):
        _refuse(m, army, order.line, f"Einnahme verweigert: {few}")
        return
    w = _Walk(army, kind, conquer, order.line)
    directions = list(order.directions)
    for i, d in enumerate(directions):
        before = len(w.path)
        lost = False
        if w.kind in LAND_KINDS and _may_get_lost(ctx, army):
            if m.foresight is not None:
                m.foresight.chance(army, "lost", ctx.t.get_lost_chance,
                                   m.state.label(army.position))
            if m.rng.random() < ctx.t.get_lost_chance:
                d = DIRECTIONS[int(m.rng.integers(len(DIRECTIONS)))]
                lost = True
                _emit(m, "move.lost", army, army.position, order.line,
                      f"Das Heer hat sich verirrt und zieht nach {d.german}",
                      direction=d.value)
        reason = _step(ctx, w, d)
        if lost and reason is None:
            reason = "Das Heer bemerkt, daß es sich verirrt hat, und hält an"
        if reason is not None:
            rest = directions[i + (1 if len(w.path) > before else 0):]
            if rest or lost:
                _emit(m, "move.stopped", army, army.position, order.line, reason,
                      reason=reason, remaining=[x.value for x in rest])
            break
    if w.path:
        _emit(m, "move.moved", army, army.position, order.line,
              f"Bewegung über {len(w.path)} Gemark{'en' if len(w.path) != 1 else ''}, "
              f"{pct(w.spent)} der Reichweite",
              path=[ctx.m.state.label(h) for h in w.path], spent=w.spent)


@dataclass(frozen=True, slots=True)
class StepVerdict:
    """What the rules say about one step, before anything random happens.

    ``reason`` is ``None`` when the step is made (it then costs ``cost`` percent
    of the budget); otherwise the German reason the move ends there. ``aground``
    marks a fleet steered onto land that is not a harbour ((k)): the engine
    then rolls whether it shatters, the forecast gives the chance."""

    cost: int
    reason: str | None
    landing: bool = False
    aground: bool = False


def step_height(kind: str, tid: int) -> int:
    """Height level for the height rule; a fleet in a harbour counts as height 1
    ((q) "wie Landgemarken der Höhenstufe 1")."""
    if kind == _SCHIFFE and not WATER[tid]:
        return 1
    return int(HEIGHTS[tid])


def step_verdict(t: Tables, kind: str, here_tid: int, there_tid: int, month: int, *,
                 coastal: bool, harbour: bool, spent: int) -> StepVerdict:
    """The rule on one step of a mover of ``kind`` from terrain ``here_tid`` onto
    terrain ``there_tid`` in ``month`` with ``spent`` percent already used
    ("Die Bewegung", (d), (f)-(h), (k), (o), (q), "Das Boot").

    Pure: the engine (:func:`move_army`) and the forecast
    (:mod:`wdg.orders.forecast`) both decide every step with it. ``coastal`` and
    ``harbour`` describe the gemark entered (a Küstengemark; a settlement with a
    Hafen)."""
    found = terrain_verdict(kind, here_tid, there_tid, month, coastal=coastal, harbour=harbour)
    if found.reason is not None:
        return found
    name, landing = TERRAINS[there_tid].name, found.landing
    cost = t.landing[kind] if (landing or (kind == _SCHIFFE and not WATER[there_tid])) \
        else int(t.cost[kind][there_tid])
    if cost < 0:
        return StepVerdict(0, f"{name} kann von diesem Heer nicht betreten werden")
    if spent + cost > t.budget:
        return StepVerdict(cost, "Die Bewegungsreichweite ist erschöpft")
    return StepVerdict(cost, None, landing=landing)


def terrain_verdict(kind: str, here_tid: int, there_tid: int, month: int, *,
                    coastal: bool, harbour: bool) -> StepVerdict:
    """The part of :func:`step_verdict` that needs no rules file: water, coast,
    height steps and seasons ("Die Bewegung" (d), (f)-(h), (k), (o), (q), "Das
    Boot"). ``reason`` is ``None`` if the terrain allows the step (its cost is
    then :func:`step_verdict`'s to say). The order checker warns with it."""
    water = bool(WATER[there_tid])
    name = TERRAINS[there_tid].name
    landing = False
    if kind == _SCHIFFE and not water and not harbour:
        return StepVerdict(0, "Die Flotte kann an dieser Küste nicht anlegen", aground=True)
    if kind == _BOOTE and not water:
        if not coastal:
            return StepVerdict(0, f"{name} ist keine Küstengemark; die Boote können dort "
                               "nicht landen")
        landing = True
    if kind in LAND_KINDS and water:
        return StepVerdict(0, "Landheere können keine Wassergemarken betreten")
    if abs(step_height(kind, there_tid) - step_height(kind, here_tid)) > 1:
        return StepVerdict(0, f"{name} liegt auf Höhenstufe {int(HEIGHTS[there_tid])}; nur die "
                           "direkt darüber- oder darunterliegende Höhenstufe kann betreten "
                           "werden")
    if _closed_in(month)[there_tid]:
        return StepVerdict(0, f"{name} kann in diesem Mond nicht betreten werden")
    return StepVerdict(0, None, landing=landing)


_CLOSED: dict[int, np.ndarray] = {}


def _closed_in(month: int) -> np.ndarray:
    """True by terrain id for terrain closed in ``month`` ((f)-(h))."""
    found = _CLOSED.get(month)
    if found is None:
        found = np.array([is_closed(t, month) for t in TERRAINS], dtype=bool)
        _CLOSED[month] = found
    return found


def loss_of(t: Tables, units: int, tid: int) -> int:
    """Soldiers lost on entering terrain ``tid`` ("Schwieriges Gelände"): the
    rate of :attr:`Tables.loss` of ``units``, rounded down; never the general."""
    return units * int(t.loss[tid]) // 100


def may_get_lost_on(tid: int, own_at_start: bool) -> bool:
    """(e): an army leaving Sandwüste, Regenwald, Eiswüste or Sumpf outside its own
    territory (as it stood at the start of the month) may lose its way."""
    return bool(GETS_LOST[tid]) and not own_at_start


def control_stop(kind: str, water: bool, name: str, status: int | None,
                 free: bool) -> str | None:
    """(c), "Der Kontrollbereich": the German reason a move ends on entering a
    gemark of the foreign kingdom ``name`` whose status toward the mover is
    ``status`` (``None``: no relation), or ``None`` if the move goes on
    (``free``: the status lets it pass, :func:`wdg.engine.diplomacy.free_passage`)."""
    if free:
        return None
    shown = "keine Beziehungen" if status is None else f"Diplomatiestatus {status}"
    if kind in LAND_KINDS and not water:
        return f"Die Bewegung wird im Kontrollbereich von {name} unterbrochen ({shown})"
    return f"Das Heer betritt das Gebiet von {name} und hält an ({shown})"


def _step(ctx: _Ctx, w: _Walk, d: Direction) -> str | None:
    """Try one step; return ``None`` to go on or the German reason the move ends."""
    seg = ctx.m.state
    army = w.army
    here = army.position
    assert here is not None
    there = here.neighbour(d)
    if not seg.grid.contains(there):
        return "Der Rand der Welt ist erreicht"
    if ctx.m.foresight is not None and (unknown := ctx.m.foresight.unknown_step(seg, army, there)):
        return unknown
    r, c = seg.grid.index(there)
    tid = int(seg.terrain[r, c])
    water = bool(WATER[tid])
    v = step_verdict(ctx.t, w.kind, int(seg.at(seg.terrain, here)), tid, seg.date.month,
                     coastal=bool(ctx.coastal[r, c]), harbour=bool(ctx.harbour[r, c]),
                     spent=w.spent)
    if v.aground:
        return _run_aground(ctx, w, there)
    if v.reason is not None:
        return v.reason
    _enter(ctx, w, there, v.cost)
    if v.landing:
        _land(ctx, w)
    if w.kind in LAND_KINDS:
        _suffer_losses(ctx, army, tid, w.line)
        if w.conquer:
            _claim(ctx, army, there, w.line)
    if w.done:
        return "Die Boote haben die Küste erreicht; das Heer ist ausgeschifft"
    return _foreign_stop(ctx, army, w.kind, there, water)


def _enter(ctx: _Ctx, w: _Walk, there: Hex, cost: int) -> None:
    """Make the step: the army (and a land army it carries) stands on ``there``."""
    army = w.army
    army.position = there
    w.spent += cost
    if ctx.m.foresight is not None:
        ctx.m.foresight.entered(army, ctx.m.state.label(there), cost)
    w.path.append(there)
    ctx.m.moved.add(army.number)
    cargo = carried_army(ctx.m.state, army)
    if cargo is not None:
        cargo.position = there
        ctx.m.moved.add(cargo.number)


def carried_army(seg: Segment, fleet: Army) -> Army | None:
    """The land army a fleet carries, if the link is consistent ((l), (n))."""
    if fleet.carrying is None:
        return None
    cargo = seg.armies.get(fleet.carrying)
    if cargo is None or cargo.carried_by != fleet.number or cargo.kingdom != fleet.kingdom:
        return None
    return cargo


def _land(ctx: _Ctx, w: _Walk) -> None:
    """Boats on a coastal gemark: the army goes ashore, the boats stay behind."""
    army = w.army
    _emit(ctx.m, "move.landed", army, army.position, w.line,
          f"Die Boote erreichen die Küste; das Heer schifft aus, {count(army.boats, 'Boot bleibt', 'Boote bleiben')} "
          "unbrauchbar zurück", boats=army.boats)
    army.boats = 0
    army.boat_durability = 100
    w.kind = MoverKind.KRIEGER
    w.done = True


def _run_aground(ctx: _Ctx, w: _Walk, there: Hex) -> str:
    """(k): a fleet steered onto land that is not a harbour may shatter."""
    m = ctx.m
    fleet = w.army
    if m.foresight is not None:
        m.foresight.chance(fleet, "shatter", ctx.t.shatter_chance, m.state.label(there))
    if m.rng.random() >= ctx.t.shatter_chance:
        return "Die Flotte kann an dieser Küste nicht anlegen und dreht ab"
    cargo = carried_army(m.state, fleet)
    _emit(m, "move.shattered", fleet, there, w.line,
          f"Die Flotte zerschellt an der Küste; {count(fleet.units, 'Schiff geht', 'Schiffe gehen')} verloren",
          lost=fleet.units, soldiers=-fleet.units)
    if cargo is not None:
        _emit(m, "move.drowned", cargo, there, w.line,
              f"Das Heer ertrinkt mitsamt seinem Feldherrn ({count(cargo.units, 'Rüstgut', 'Rüstgüter')})",
              lost=cargo.units, soldiers=-cargo.units)
        destroy_army(cargo)
    destroy_army(fleet)
    w.done = True
    return "Die Flotte ist zerschellt"


def destroy_army(army: Army) -> None:
    """The army is destroyed with its general ("Allgemeine Regeln" (b)) and goes
    to 000.00 without a troop type."""
    army.units = 0
    army.general = None
    army.status = ArmyStatus.PASSIVE
    army.position = None
    army.boats = 0
    army.carried_by = None
    army.carrying = None


def _suffer_losses(ctx: _Ctx, army: Army, tid: int, line: int) -> None:
    """Losses in difficult terrain; the general never suffers losses."""
    rate = int(ctx.t.loss[tid])
    lost = loss_of(ctx.t, army.units, tid)
    if lost <= 0:
        return
    army.units -= lost
    _emit(ctx.m, "move.losses", army, army.position, line,
          f"{count(lost, 'Soldat geht', 'Soldaten gehen')} im Gelände {TERRAINS[tid].name} verloren ({pct(rate)})",
          lost=lost, soldiers=-lost, rate=rate)


def _claim(ctx: _Ctx, army: Army, there: Hex, line: int) -> None:
    """``e``: claim the gemark; an Einnahme destroys treasure there ("Die Eroberung")."""
    m = ctx.m
    m.claims.append(Claim(army.number, army.kingdom, there, "einnahme", line))
    seg = m.state
    r, c = seg.grid.index(there)
    if seg.owner[r, c] != 0 or seg.settlement[r, c] > 0 or seg.buildings[:, r, c].any():
        return
    for tid in sorted(t.id for t in seg.treasures.values() if t.position == there):
        del seg.treasures[tid]
        _emit(m, "move.treasure_destroyed", army, there, line,
              "Bei der rücksichtslosen Einnahme werden Schätze zerstört oder geplündert",
              treasure=tid)


def _foreign_stop(ctx: _Ctx, army: Army, kind: str, there: Hex, water: bool) -> str | None:
    """(c) and "Der Kontrollbereich": entering a gemark of a foreign kingdom whose
    status toward the mover is 6 or less (or none) ends the move; 7-9 (the
    rules' ``passage_statuses``) let it pass."""
    seg = ctx.m.state
    r, c = seg.grid.index(there)
    owner = int(ctx.start_owner[r, c])
    if owner == 0 or owner == army.kingdom:
        return None
    k = seg.kingdoms.get(owner)
    status = None if k is None or k.city_state else k.diplomacy.get(army.kingdom)
    name = k.name if k is not None else f"Reich {owner}"
    return control_stop(kind, water, name, status, free_passage(ctx.m.rules, status))


def _may_get_lost(ctx: _Ctx, army: Army) -> bool:
    """(e): outside its own territory in Sandwüste, Regenwald, Eiswüste or Sumpf."""
    seg = ctx.m.state
    assert army.position is not None
    r, c = seg.grid.index(army.position)
    return may_get_lost_on(int(seg.terrain[r, c]), int(ctx.start_owner[r, c]) == army.kingdom)


def _refuse(m: Month, army: Army, line: int, why: str) -> None:
    _emit(m, "move.refused", army, army.position, line, why)


def _emit(m: Month, kind: str, army: Army, at: Hex | None, line: int, why: str,
          **data: object) -> None:
    m.emit(Event(kind, kingdom=army.kingdom, army=army.number, at=at, why=why, line=line,
                 data=dict(data)))


__all__ = ["StepVerdict", "Tables", "carried_army", "control_stop", "destroy_army",
           "harbour_mask", "loss_of", "may_get_lost_on", "may_stand", "mover_kind", "movement",
           "phase_b_armies", "phase_b_orders", "step_height", "step_verdict", "terrain_verdict"]
