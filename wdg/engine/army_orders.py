"""Step 30: the army orders of Phase A ("Die Heeresbefehle der Phase A"),
armies in ascending number; step 81: boats built with ``bb`` are launched.

Passive armies take only ``nf`` and ``nh`` ("Ein passives Heer kann nur
bestimmte Heeresbefehle ... erhalten"); an army activated last month is
active now; active armies take every other order. ``bb``, ``bs`` and ``vs``
take the whole month (the army joins ``m.busy``: no Phase B order).

Events ``a.<order>`` (executed), ``a.<order>.refused`` (with the reason),
``a.<order>.partial`` (partly executed), ``a.eh.joined`` (the target army of
``eh``), ``a.position`` (the sheet named another position: interpreted),
``a.refused`` (not an own army). Every change of an army's units is in its
event's signed ``data["soldiers"]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wdg.engine.combat import boat_capacity, fleet_capacity, space_of
from wdg.engine.economy import troop_key
from wdg.engine.events import Event, Reason
from wdg.engine.treasury import can_afford, count, gs, spend
from wdg.engine.treasury import number as german_number
from wdg.engine.month import Month, step
from wdg.engine.movement import too_few_soldiers
from wdg.engine.rounding import nearest
from wdg.errors import InvalidInputError
from wdg.rules import Rules
from wdg.orders.model import (
    Activate,
    ArmyBlock,
    Board,
    BuildBoats,
    Disembark,
    DismissArmy,
    HireGeneral,
    PhaseAOrder,
    Recruit,
    Release,
    Rename,
)
from wdg.world.hexgrid import Hex
from wdg.world.state import Army, ArmyStatus, Building, TroopType
from wdg.world.terrain import (
    Component,
    closed_reason,
    coastal_mask,
    has,
    is_land,
    is_water,
    ship_step_ok,
    terrain,
)

_NAMES = {HireGeneral: "nf", Activate: "nh", DismissArmy: "eh", Recruit: "nr", Release: "er",
          BuildBoats: "bb", Board: "bs", Disembark: "vs", Rename: "nn"}
_PASSIVE_ORDERS = (HireGeneral, Activate)
GOLD_ORDERS = frozenset(_NAMES[o] for o in (HireGeneral, Activate, Recruit))
"""The army orders that take gold from the treasury here (:func:`spend` in their handlers)."""
_ONE = {TroopType.SCHIFFE.value: "Schiff"}
"""Singular of a troop type's name where it differs ("1 Schiff", "1 Krieger")."""


@dataclass(slots=True)
class PhaseANotes:
    """What Phase A leaves for later steps (``m.notes["army_orders"]``)."""

    boats: dict[int, Hex] = field(default_factory=dict)
    """Army -> the water gemark its boats are built in (launched at step 81)."""
    launched: set[int] = field(default_factory=set)
    """Armies that embarked on new boats this month (no boat wear yet)."""
    disembarked: set[int] = field(default_factory=set)
    """Fleets an army left this month ("Allgemeine Regeln" (m))."""


def notes(m: Month) -> PhaseANotes:
    """This month's Phase A notes (created on first use)."""
    found = m.notes.get("army_orders")
    if not isinstance(found, PhaseANotes):
        found = PhaseANotes()
        m.notes["army_orders"] = found
    return found


@step("phase_a", 30)
def phase_a(m: Month) -> None:
    """Execute every Phase A order, armies in ascending number."""
    notes(m)
    blocks: dict[int, tuple[int, ArmyBlock]] = {}
    for kingdom in sorted(m.sheets):
        for block in m.sheets[kingdom].armies:
            blocks.setdefault(block.number, (kingdom, block))
    for number in sorted(blocks):
        kingdom, block = blocks[number]
        army = m.state.armies.get(number)
        if army is None or army.kingdom != kingdom:
            m.emit(Event("a.refused", kingdom, number, why=f"Das Heer {number:04d} gehört nicht "
                         "zum eigenen Königreich; seine Befehle werden nicht ausgeführt.",
                         line=block.line))
            continue
        _check_position(m, army, block)
        if block.phase_a is not None:
            execute(m, army, block.phase_a)


def _check_position(m: Month, army: Army, block: ArmyBlock) -> None:
    actual = m.state.label(army.position) if army.position is None or \
        m.state.grid.contains(army.position) else "?"
    if str(block.position) != actual:
        m.emit(Event("a.position", army.kingdom, army.number, army.position,
                     f"Position {block.position} angegeben, das Heer steht in {actual}; die "
                     "Befehle gelten für das Heer an seiner tatsächlichen Position.",
                     line=block.line))


def execute(m: Month, army: Army, order: PhaseAOrder) -> None:
    """Execute one Phase A order of ``army`` (the applying step trusts the parser)."""
    name = _NAMES[type(order)]
    passive_order = isinstance(order, _PASSIVE_ORDERS)
    if army.status is ArmyStatus.ACTIVATING:
        return refuse(m, army, order, "das Heer wird erst ab dem folgenden Mond aktiv.")
    if army.status is ArmyStatus.PASSIVE and not passive_order:
        return refuse(m, army, order, "ein passives Heer kann nur die Befehle nf und nh "
                      "erhalten.")
    if army.status is ArmyStatus.ACTIVE and passive_order:
        return refuse(m, army, order, f"der Befehl {name} ist nur für passive Heere möglich.")
    _HANDLERS[type(order)](m, army, order)


def refuse(m: Month, army: Army, order: PhaseAOrder, reason: str,
           code: Reason = Reason.RULE) -> None:
    """Record a refused order with its reason (``code``: what a program compares)."""
    m.emit(Event(f"a.{_NAMES[type(order)]}.refused", army.kingdom, army.number, army.position,
                 f"Befehl {order} verweigert: {reason}", line=order.line, reason=code))


def _done(m: Month, army: Army, order: PhaseAOrder, why: str, kind_suffix: str = "",
          **data: object) -> None:
    m.emit(Event(f"a.{_NAMES[type(order)]}{kind_suffix}", army.kingdom, army.number,
                 army.position, why, line=order.line, data=dict(data)))


def _own_settlement(m: Month, kingdom: int, h: Hex | None) -> bool:
    seg = m.state
    return h is not None and seg.grid.contains(h) and seg.at(seg.owner, h) == kingdom and \
        seg.at(seg.settlement, h) > 0


# --- nf, nh: passive armies ------------------------------------------------------------

def _hire(m: Month, army: Army, order: HireGeneral) -> None:
    """"(nf) Neuen Feldherren anwerben": exactly last month's offer, for its premium;
    an old general is dismissed."""
    k = m.state.kingdoms[army.kingdom]
    if k.offer is None:
        return refuse(m, army, order, "im vergangenen Mond hat sich kein Feldherr angeboten.")
    price = k.offer.price
    if not can_afford(m, army.kingdom, price):
        return refuse(m, army, order, f"die Werbeprämie von {gs(price)} ist nicht im "
                      f"Reichsschatz ({gs(k.treasury)}).", Reason.GOLD)
    old = army.general
    army.general, k.offer = k.offer.general, None
    left = f"; {old.name} wird entlassen" if old is not None else ""
    spend(m, army.kingdom, price, kind="a.nf", ledger="general", army=army.number,
          line=order.line, why=f"Feldherr {army.general.name} ({army.general.troop.value}) "
          f"angeworben: {gs(price)}{left}.", data={"general": army.general.name})


def _activate(m: Month, army: Army, order: Activate) -> None:
    """"(nh) Heer neu aktivieren": in an own settlement with Kaserne (fleets:
    Hafen), if the treasury holds the sum; active from the next month."""
    seg = m.state
    if army.general is None:
        return refuse(m, army, order, "das Heer hat keinen Feldherren; zuerst muß ein "
                      "Feldherr angeworben werden.")
    try:
        h = seg.grid.hex_of(order.at)
    except InvalidInputError:
        return refuse(m, army, order, f"die Gemark {order.at} liegt nicht auf der Karte.")
    need = recruit_building(troop_key(army))
    if not _own_settlement(m, army.kingdom, h) or seg.building_level(h, need) == 0:
        return refuse(m, army, order, f"{order.at} ist keine eigene Siedlung mit {need.german}.")
    cost = m.rules.int("economy", "activation", troop_key(army))
    if not can_afford(m, army.kingdom, cost):
        return refuse(m, army, order, f"für die Aktivierung fehlen Goldsterne ({gs(cost)} "
                      "nötig).", Reason.GOLD)
    left = army.units
    army.status, army.position, army.units = ArmyStatus.ACTIVATING, h, 0
    spend(m, army.kingdom, cost, kind="a.nh", ledger="activate", army=army.number, at=h,
          line=order.line, why=f"Heer {army.number:04d} in {seg.label(h)} aktiviert "
          f"({gs(cost)}); es ist ab dem folgenden Mond aktiv.",
          data={"soldiers": -left} if left else None)


# --- eh, er: dismissing ------------------------------------------------------------------

def _dismiss(m: Month, army: Army, order: DismissArmy) -> None:
    """"(eh) Heer entlassen": hand everything to a target army of the same type
    in the same gemark, or disband (0000); the army goes to 000.00 and its
    general may quit (generals.yaml)."""
    seg = m.state
    if army.carrying is not None:
        return refuse(m, army, order, f"die Flotte transportiert noch das Heer "
                      f"{army.carrying:04d}.")
    if order.target:
        target = seg.armies.get(order.target)
        if target is None or target.kingdom != army.kingdom or target.number == army.number \
                or not target.is_active or target.position != army.position \
                or target.troop is not army.troop:
            return refuse(m, army, order, f"das Zielheer {order.target:04d} ist kein eigenes "
                          "aktives Heer derselben Truppengattung in derselben Gemark.")
        moved = army.units
        over = _overloads(m, target, moved)
        if over:
            return refuse(m, army, order, over, Reason.CAPACITY)
        target.morale = _blend(target.morale, target.units, army.morale, moved, m.rules)
        target.units += moved
        what = f"übergibt {count(moved, 'Rüstgut', 'Rüstgüter')} an Heer {target.number:04d}"
        m.emit(Event("a.eh.joined", target.kingdom, target.number, target.position,
                     f"Heer {army.number:04d} wird entlassen; "
                     f"{count(moved, 'Rüstgut tritt', 'Rüstgüter treten')} in das Heer ein.", line=order.line, data={"soldiers": moved,
                                                             "from": army.number}))
    else:
        moved = army.units
        what = "löst sich auf" if not moved else \
            f"löst sich auf; {count(moved, 'Rüstgut zerstreut', 'Rüstgüter zerstreuen')} sich"
    _to_passive(m, army)
    quit_ = bool(m.rng.random() < m.rules.num("generals", "dismissal", "quit_chance"))
    gone = ""
    if quit_ and army.general is not None:
        gone = f" Der Feldherr {army.general.name} gibt verärgert sein Amt auf."
        army.general = None
    _done(m, army, order, f"Das Heer {what} und begibt sich nach 000.00.{gone}",
          units=moved, soldiers=-moved, target=order.target, general_quit=quit_)


def _to_passive(m: Month, army: Army) -> None:
    if army.carried_by is not None:
        m.state.armies[army.carried_by].carrying = None
    army.status, army.position, army.units = ArmyStatus.PASSIVE, None, 0
    army.carried_by, army.boats, army.boat_durability = None, 0, 100
    notes(m).boats.pop(army.number, None)


def _blend(morale_a: int, units_a: int, morale_b: int, units_b: int, rules: Rules) -> int:
    """Morale of two groups joined: the average weighted by units ("Die
    Heeresmoral"), rounded to the nearest point (a half as the rules say:
    :func:`wdg.engine.rounding.nearest`)."""
    total = units_a + units_b
    return morale_b if units_a == 0 else morale_a if total == 0 else \
        nearest((morale_a * units_a + morale_b * units_b) / total, rules)


def _overloads(m: Month, target: Army, joining: int) -> str:
    """Why ``joining`` more units would overload the ships or boats carrying
    ``target`` ("Tragkraft von 100 Raumfaktoren"; boats: ``space.boat_capacity``),
    or ``""``. wdg refuses the order rather than drown anyone."""
    if target.carried_by is not None:
        fleet = m.state.armies[target.carried_by]
        room, what = fleet_capacity(m, fleet.units), f"die Flotte {fleet.number:04d}"
    elif target.boats:
        room, what = boat_capacity(m, target.boats), f"die {count(target.boats, 'Boot', 'Boote')}"
    else:
        return ""
    need = space_of(m, target, target.units + joining)
    if need <= room:
        return ""
    return (f"{what} des Heeres {target.number:04d} trägt nur {room} Raumfaktoren, "
            f"mit den Rüstgütern wären es {need}.")


def _release(m: Month, army: Army, order: Release) -> None:
    """"(er) Rüstgüter entlassen": they scatter at once (no militia). A fleet keeps
    enough ships to carry the army aboard ("Tragkraft"): an order that would leave
    too few is refused."""
    if order.count <= 0:
        return refuse(m, army, order, "die Anzahl muß größer als 0 sein.")
    n = min(order.count, army.units)
    if n == 0:  # (issue #42: not "0 Rüstgüter entlassen")
        return refuse(m, army, order, "das Heer hat keine Rüstgüter, die es entlassen könnte.")
    cargo = m.state.armies.get(army.carrying) if army.carrying is not None else None
    if cargo is not None and cargo.troop is not None \
            and space_of(m, cargo) > fleet_capacity(m, army.units - n):
        spare = (fleet_capacity(m, army.units) - space_of(m, cargo)) \
            // m.rules.int("economy", "space", "ship_capacity")
        return refuse(m, army, order, f"die übrigen Schiffe könnten das Heer {cargo.number:04d} "
                      f"({space_of(m, cargo)} Raumfaktoren) nicht mehr tragen; höchstens "
                      f"{count(spare, 'Schiff kann', 'Schiffe können')} entlassen werden.", Reason.CAPACITY)
    army.units -= n
    partial = n < order.count
    _done(m, army, order, f"{count(n, 'Rüstgut', 'Rüstgüter')} entlassen; "
          f"{'es zerstreut' if n == 1 else 'sie zerstreuen'} sich in alle Himmelsrichtungen." + (f" (Das Heer hatte nur {german_number(n)}.)" if partial else ""),
          ".partial" if partial else "", units=n, soldiers=-n)


# --- nr: recruiting ------------------------------------------------------------------------

def recruit_volume(militia: int, troop: str, rules: Rules) -> int:
    """"Das Rüstvolumen": how many Rüstgüter of ``troop`` (a :class:`TroopType`
    value) a settlement with ``militia`` militiamen can still raise ("ein Krieger
    wie 1 Milizionär, ein Reiter wie 2 Milizionäre und ein Schiff wie 1.000
    Milizionäre", ``economy.recruit_volume``). The sheet, the view, the
    forecast and the editor all ask this function."""
    return max(0, militia) // rules.int("economy", "recruit_volume", troop)


def recruit_building(troop: str) -> Building:
    """The building a settlement needs to recruit ``troop``: a Hafen for ships,
    a Kaserne for the others ("(nr)")."""
    return Building.HAFEN if troop == TroopType.SCHIFFE.value else Building.KASERNE


def _recruit(m: Month, army: Army, order: Recruit) -> None:
    """"(nr) Neue Rüstgüter anwerben": own troop type only, in an own settlement
    with Kaserne (ships: Hafen), up to the Rüstvolumen (the militia there), if
    the treasury holds the whole premium; the militia falls accordingly."""
    seg, rules, h = m.state, m.rules, army.position
    assert h is not None  # execute(): only an active army, which stands on the map
    if order.count <= 0:
        return refuse(m, army, order, "die Anzahl muß größer als 0 sein.")
    if army.carried_by is not None or army.boats:
        return refuse(m, army, order, "das Heer ist eingeschifft.")
    need = recruit_building(troop_key(army))
    if not _own_settlement(m, army.kingdom, h) or seg.building_level(h, need) == 0:
        return refuse(m, army, order, f"Rüstung nur in einer eigenen Siedlung mit {need.german}.")
    troop = troop_key(army)
    per = rules.int("economy", "recruit_volume", troop)
    r, c = seg.grid.index(h)
    n = min(order.count, recruit_volume(int(seg.militia[r, c]), troop, rules))
    if n == 0:
        return refuse(m, army, order, "das Rüstvolumen dieser Siedlung ist erschöpft.",
                      Reason.VOLUME)
    price = n * rules.int("economy", "premium", troop)
    if not can_afford(m, army.kingdom, price):
        return refuse(m, army, order, f"die Werbeprämie für {count(n, _ONE.get(troop, troop), troop)} ({gs(price)}) ist nicht "
                      f"im Reichsschatz ({gs(seg.kingdoms[army.kingdom].treasury)}).", Reason.GOLD)
    seg.militia[r, c] -= n * per
    army.morale = _blend(army.morale, army.units, rules.int("economy", "recruit_morale"), n, rules)
    army.units += n
    partial = n < order.count
    note = f" (Rüstvolumen erschöpft: nur {german_number(n)} von {german_number(order.count)})" if partial else ""
    spend(m, army.kingdom, price, kind="a.nr.partial" if partial else "a.nr", ledger="recruit",
          army=army.number, at=h, line=order.line,
          why=f"{count(n, _ONE.get(troop, troop), troop)} angeworben{note}: {gs(price)}; die Miliz "
          f"sinkt um {german_number(n * per)}.",
          data={"units": n, "soldiers": n, "militia": n * per})


# --- bb, bs, vs: boats and fleets ----------------------------------------------------------

def _space(m: Month, army: Army) -> int:
    return army.units * m.rules.int("economy", "space", troop_key(army))


def _build_boats(m: Month, army: Army, order: BuildBoats) -> None:
    """"(bb) Boote bauen": a warrior army in a coastal Wald/Regenwald/Sumpf gemark
    builds just enough boats for the whole army in the adjacent water gemark;
    it embarks at the end of the month. Takes the whole month."""
    seg, h = m.state, army.position
    assert h is not None  # execute(): only an active army, which stands on the map
    if army.troop is not TroopType.KRIEGER:
        return refuse(m, army, order, "nur ein Kriegerheer kann Boote bauen.")
    if army.carried_by is not None or army.boats:
        return refuse(m, army, order, "das Heer ist bereits eingeschifft.")
    few = too_few_soldiers(m, army, "bb")
    if few:
        return refuse(m, army, order, few[0].lower() + few[1:] + ".")
    t = terrain(seg.at(seg.terrain, h))
    r, c = seg.grid.index(h)
    woods = any(has(t, x) for x in (Component.WALD, Component.REGENWALD, Component.SUMPF))
    if not (woods and bool(coastal_mask(seg.terrain)[r, c])):
        return refuse(m, army, order, "Boote können nur in einer Küstengemark mit Wald, "
                      "Regenwald oder Sumpf gebaut werden.")
    water = h.neighbour(order.direction)
    if not seg.grid.contains(water) or not is_water(terrain(seg.at(seg.terrain, water))):
        return refuse(m, army, order, f"in Richtung {order.direction.value} liegt keine "
                      "Wassergemark.")
    boats = max(1, math.ceil(_space(m, army) / m.rules.int("economy", "space", "boat_capacity")))
    notes(m).boats[army.number] = water
    m.busy.add(army.number)
    _done(m, army, order, f"Das Heer baut {count(boats, 'Boot', 'Boote')} in {seg.label(water)}; es schifft sich "
          "am Ende des Mondes ein.", boats=boats, water=seg.label(water))


@step("boats", 81)
def launch_boats(m: Month) -> None:
    """End of month: armies that built boats embark and sit on the water gemark;
    boats of an army that fought were destroyed ("Das Boot")."""
    n = notes(m)
    cap = m.rules.int("economy", "space", "boat_capacity")
    for number in sorted(n.boats):
        army, water = m.state.armies[number], n.boats[number]
        if not army.is_active or army.general is None:
            continue
        if number in m.fought:
            m.emit(Event("a.bb.destroyed", army.kingdom, number, army.position,
                         "Die Boote wurden beim Kampf zerstört; das Heer bleibt an Land.",
                         data={"boats": 0}))
            continue
        army.boats = max(1, math.ceil(_space(m, army) / cap))
        army.boat_durability, army.position = 100, water
        n.launched.add(number)
        m.emit(Event("a.bb.launched", army.kingdom, number, water,
                     f"Das Heer schifft sich auf {count(army.boats, 'Boot', 'Booten')} ein.",
                     data={"boats": army.boats}))


def _board(m: Month, army: Army, order: Board) -> None:
    """"(bs) Schiffe betreten": a land army in an own harbour town boards an own
    fleet there that carries no other army and has room (100 per ship)."""
    seg, h = m.state, army.position
    assert h is not None  # execute(): only an active army, which stands on the map
    fleet = seg.armies.get(order.fleet)
    if army.is_fleet:
        return refuse(m, army, order, "eine Flotte kann keine Schiffe betreten.")
    if army.carried_by is not None or army.boats:
        return refuse(m, army, order, "das Heer ist bereits eingeschifft.")
    if not _own_settlement(m, army.kingdom, h) or seg.building_level(h, Building.HAFEN) == 0:
        return refuse(m, army, order, "Einschiffung nur in einer eigenen Hafenstadt.")
    if not ship_step_ok(terrain(seg.at(seg.terrain, h)).height):
        return refuse(m, army, order, "Schiffe gelten beim Einschiffen als Höhenstufe 1; aus "
                      f"Höhenstufe {terrain(seg.at(seg.terrain, h)).height} ist das nicht "
                      "möglich.")
    if fleet is None or fleet.kingdom != army.kingdom or not fleet.is_fleet \
            or not fleet.is_active or fleet.position != h:
        return refuse(m, army, order, f"die Flotte {order.fleet:04d} ist keine eigene aktive "
                      "Flotte in diesem Hafen.")
    if fleet.carrying is not None or fleet.number in notes(m).disembarked:
        return refuse(m, army, order, "die Flotte transportiert in diesem Mond bereits ein "
                      "anderes Heer.")
    capacity = fleet.units * m.rules.int("economy", "space", "ship_capacity")
    if _space(m, army) > capacity:
        return refuse(m, army, order, f"die Flotte trägt {capacity} Raumfaktoren, das Heer "
                      f"braucht {_space(m, army)}.", Reason.CAPACITY)
    army.carried_by, fleet.carrying = fleet.number, army.number
    m.busy.add(army.number)
    _done(m, army, order, f"Das Heer schifft sich auf die Flotte {fleet.number:04d} ein.",
          fleet=fleet.number)


def _disembark(m: Month, army: Army, order: Disembark) -> None:
    """"(vs) Schiffe verlassen": to the fleet's harbour or an adjacent coastal
    gemark (positions at the start of the month). Takes the whole month."""
    seg = m.state
    if army.carried_by is None:
        why = "Boote werden verlassen, indem sie auf eine Küstengemark gelenkt werden." \
            if army.boats else "das Heer befindet sich nicht auf einer Flotte."
        return refuse(m, army, order, why)
    fleet = seg.armies[army.carried_by]
    try:
        target = seg.grid.hex_of(order.at)
    except InvalidInputError:
        return refuse(m, army, order, f"die Gemark {order.at} liegt nicht auf der Karte.")
    where = m.start.positions.get(fleet.number) if m.start is not None else fleet.position
    coastal = bool(coastal_mask(seg.terrain)[seg.grid.index(target)])
    ok = where is not None and (
        (target == where and is_land(terrain(seg.at(seg.terrain, target))))
        or (target.distance(where) == 1 and coastal))
    if not ok:
        return refuse(m, army, order, f"{order.at} ist weder der Hafen der Flotte noch eine "
                      "angrenzende Küstengemark.")
    height = terrain(seg.at(seg.terrain, target)).height
    if not ship_step_ok(height):
        return refuse(m, army, order, "Schiffe gelten beim Ausschiffen als Höhenstufe 1; "
                      f"{order.at} liegt auf Höhenstufe {height}.")
    closed = closed_reason(terrain(seg.at(seg.terrain, target)), seg.date.month)
    if closed:
        return refuse(m, army, order, closed + ".")
    army.carried_by, fleet.carrying, army.position = None, None, target
    notes(m).disembarked.add(fleet.number)
    m.busy.add(army.number)
    _done(m, army, order, f"Das Heer verläßt die Flotte {fleet.number:04d} nach "
          f"{seg.label(target)}.", fleet=fleet.number)


# --- nn: renaming ------------------------------------------------------------------------

def _rename(m: Month, army: Army, order: Rename) -> None:
    """"(nn) Neuer Siedlungsname": the own settlement where the army stands at
    the start of the month; up to 15 characters; the game master's list of
    rejected names (names.yaml)."""
    seg = m.state
    h = m.start.positions.get(army.number) if m.start is not None else army.position
    if h is None or not _own_settlement(m, army.kingdom, h):
        return refuse(m, army, order, "das Heer steht zu Beginn des Mondes in keiner eigenen "
                      "Siedlung.")
    name = " ".join(order.name.split())
    limit = m.rules.int("economy", "rename", "max_length")
    if not name:
        return refuse(m, army, order, "der Name ist leer.")
    if rejected_name(name, m):
        return refuse(m, army, order, f"der Segmentleiter lehnt den Namen {name!r} ab.")
    cut = name[:limit].rstrip()
    old = seg.settlement_names.get(h, "Namenlos")
    seg.settlement_names[h] = cut
    note = f" (auf {limit} Zeichen gekürzt)" if cut != name else ""
    _done(m, army, order, f"Die Siedlung {old} in {seg.label(h)} heißt nun {cut}{note}.",
          ".interpreted" if note else "", old=old, new=cut)


def _fold(s: str) -> str:
    s = s.casefold()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        s = s.replace(a, b)
    return s


def rejected_name(name: str, m: Month) -> bool:
    """True if the game master rejects ``name`` (names.yaml)."""
    folded = _fold(name)
    whole = {_fold(str(x)) for x in m.rules.get("names", "rejected")}
    parts = [_fold(str(x)) for x in m.rules.get("names", "rejected_parts")]
    return folded in whole or any(p in folded for p in parts)


_HANDLERS: dict[type, Callable[[Month, Army, Any], None]] = {
    HireGeneral: _hire, Activate: _activate, DismissArmy: _dismiss, Recruit: _recruit,
    Release: _release, BuildBoats: _build_boats, Board: _board, Disembark: _disembark,
    Rename: _rename}
