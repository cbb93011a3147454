"""Step 20: the kingdom orders ("K: Königreichbefehle").

Kingdoms in the month's random order, orders in sheet order. "Pro Palast und
Mond kann der Herrscher grundsätzlich einen Befehl geben. Die maximale Anzahl
beträgt jedoch 10 und die minimale 1" — palaces counted at the start of the
month; orders beyond the allowance are refused. Every cost is paid in full
at the start ("Die Siedlung" (b), "Die Bauwerke" (a)); an order the
treasury cannot pay is refused ("Der Reichsschatz" (e)).

Events: ``k.build``, ``k.settle``, ``k.diplomacy``, ``k.festival`` (executed),
``k.<what>.refused`` (with the reason), ``k.refused`` (over the allowance).
"""

from __future__ import annotations

import numpy as np

from wdg.engine.economy import settlement_class
from wdg.engine.events import Event, Reason
from wdg.engine.treasury import can_afford, count, gs, spend
from wdg.engine.month import Month, step
from wdg.errors import InvalidInputError
from wdg.orders.model import Build, ChangeDiplomacy, Festival, KingdomOrder, Settle
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.hexgrid import Hex
from wdg.world.state import BUILDING_ORDER, Building, Construction, ProjectKind, ruler_title
from wdg.world.terrain import WATER, is_land, settlement_cost_factor, terrain

_KIND = {Building.HAFEN: ProjectKind.HAFEN, Building.KASERNE: ProjectKind.KASERNE,
         Building.PALAST: ProjectKind.PALAST, Building.MINE: ProjectKind.MINE}


_ARTICLE = {Building.HAFEN: "der", Building.KASERNE: "die", Building.PALAST: "der",
            Building.MINE: "die"}
"""The definite article of each building's German name (nominative)."""

def allowance(m: Month, kingdom: int) -> int:
    """Kingdom orders allowed this month: one per palace at the start of the
    month, at least ``min`` and at most ``max`` (economy.yaml)."""
    seg = m.state
    owner = m.start.owner if m.start is not None else seg.owner
    palaces = int(((owner == kingdom) & (seg.buildings[BUILDING_ORDER.index(Building.PALAST)]
                                         > 0)).sum())
    lo = m.rules.int("economy", "kingdom_orders", "min")
    hi = m.rules.int("economy", "kingdom_orders", "max")
    return max(lo, min(hi, palaces))


@step("kingdom_orders", 20)
def kingdom_orders(m: Month) -> None:
    """Execute every kingdom's K orders."""
    start_status = {n: dict(k.diplomacy) for n, k in m.state.kingdoms.items()}
    for n in m.kingdom_order:
        sheet = m.sheets.get(n)
        if sheet is None:
            continue
        limit = allowance(m, n)
        for i, order in enumerate(sheet.kingdom_orders):
            if i >= limit:
                m.emit(Event("k.refused", n, why=f"Befehl {order} verweigert: nur {limit} "
                             f"Königreichbefehl(e) pro Mond (ein Befehl je Palast).",
                             line=order.line))
                continue
            execute(m, n, order, start_status[n])


GOLD_ORDERS = frozenset({*(f"B{b.value}" for b in Building), "SS", "F+"})
"""The kingdom orders that take gold from the treasury (:func:`_build`, :func:`_settle`,
:func:`_festival`); ``DS`` is free."""


def execute(m: Month, kingdom: int, order: KingdomOrder, start: dict[int, int]) -> None:
    """Execute one kingdom order (``start``: the diplomacy list at the start of the month)."""
    if isinstance(order, Build):
        _build(m, kingdom, order)
    elif isinstance(order, Settle):
        _settle(m, kingdom, order)
    elif isinstance(order, ChangeDiplomacy):
        _diplomacy(m, kingdom, order, start)
    elif isinstance(order, Festival):
        _festival(m, kingdom, order)


def _refuse(m: Month, kingdom: int, what: str, order: KingdomOrder, reason: str,
            at: Hex | None = None, code: Reason = Reason.RULE) -> None:
    m.emit(Event(f"k.{what}.refused", kingdom, None, at, f"Befehl {order} verweigert: {reason}",
                 line=order.line, reason=code))


def _own_hex(m: Month, kingdom: int, addr: Address) -> tuple[Hex | None, str]:
    """The hex of an address if it is an own gemark, else the reason why not."""
    try:
        h = m.state.grid.hex_of(addr)
    except InvalidInputError:
        return None, f"die Gemark {addr} liegt nicht auf der Karte."
    if m.state.at(m.state.owner, h) != kingdom:
        return None, f"die Gemark {addr} gehört nicht zum eigenen Königreich."
    return h, ""


# --- B: buildings ----------------------------------------------------------------------

def _build(m: Month, kingdom: int, order: Build) -> None:
    """"(Bn) Bauwerk n bauen": BH/BK/BQ only in settlements, BM in any own land
    gemark; an existing building is enlarged by one level up to the cap."""
    seg, b = m.state, order.building
    h, reason = _own_hex(m, kingdom, order.at)
    if h is None:
        return _refuse(m, kingdom, "build", order, reason)
    t = terrain(seg.at(seg.terrain, h))
    if b.only_in_settlement and seg.at(seg.settlement, h) == 0:
        return _refuse(m, kingdom, "build", order, f"ein {b.german} kann nur in einer Siedlung "
                       "gebaut werden.", h)
    if not is_land(t):
        return _refuse(m, kingdom, "build", order, "Bauwerke stehen nur auf Landgemarken.", h)
    if b is Building.HAFEN and not _borders_water(m, h):
        return _refuse(m, kingdom, "build", order, "ein Hafen braucht eine angrenzende "
                       "Wassergemark.", h)
    pending = sum(1 for p in seg.constructions if p.position == h and p.kind is _KIND[b])
    cap = m.rules.int("economy", "buildings", "max_level")
    if seg.building_level(h, b) + pending >= cap:
        return _refuse(m, kingdom, "build", order, f"{_ARTICLE[b]} {b.german} hat schon die größte "
                       f"sinnvolle Stufe ({cap}); eine Erweiterung bringt keinen Vorteil.", h)
    price = m.rules.int("economy", "buildings", "price", b.german)
    if not can_afford(m, kingdom, price):
        return _refuse(m, kingdom, "build", order, _no_money(m, kingdom, price), h, Reason.GOLD)
    seg.constructions.append(Construction(kingdom, h, _KIND[b], 1, seg.date))
    level = seg.building_level(h, b) + pending + 1
    spend(m, kingdom, price, kind="k.build", ledger="build", at=h, line=order.line,
          why=f"{b.german} in {seg.label(h)} begonnen (Stufe {level}, fertig am Ende des "
              f"Mondes): {gs(price)}", data={"building": b.german, "level": level})


def _borders_water(m: Month, h: Hex) -> bool:
    seg = m.state
    return any(bool(WATER[seg.at(seg.terrain, n)]) for n in seg.grid.neighbours(h))


def _no_money(m: Month, kingdom: int, price: int) -> str:
    return (f"der Reichsschatz ({gs(m.state.kingdoms[kingdom].treasury)}) reicht für "
            f"{gs(price)} nicht; Schulden sind nicht möglich.")


# --- SS: settlements --------------------------------------------------------------------

def _settle(m: Month, kingdom: int, order: Settle) -> None:
    """"(SS) Siedlung bauen/erweitern": 1..100 Baueinheiten per order, 1.000 GS
    each (x2, x3 by terrain, none in Vulkan), paid at the start."""
    seg, rules = m.state, m.rules
    h, reason = _own_hex(m, kingdom, order.at)
    if h is None:
        return _refuse(m, kingdom, "settle", order, reason)
    lo = rules.int("economy", "settlement", "min_units")
    hi = rules.int("economy", "settlement", "max_units")
    if not lo <= order.units <= hi:
        return _refuse(m, kingdom, "settle", order, f"ein Bauauftrag umfaßt {lo} bis {hi} "
                       f"Baueinheiten, nicht {order.units}.", h)
    t = terrain(seg.at(seg.terrain, h))
    factor = settlement_cost_factor(t)
    if factor is None:
        return _refuse(m, kingdom, "settle", order, f"in der Geländeart {t.name} kann keine "
                       "Siedlung errichtet werden.", h)
    price = order.units * rules.int("economy", "settlement", "unit_price") * factor
    if not can_afford(m, kingdom, price):
        return _refuse(m, kingdom, "settle", order, _no_money(m, kingdom, price), h,
                       Reason.GOLD)
    seg.constructions.append(Construction(kingdom, h, ProjectKind.SETTLEMENT, order.units,
                                          seg.date))
    size = seg.at(seg.settlement, h)
    target = size + sum(p.remaining for p in seg.constructions
                        if p.position == h and p.kind is ProjectKind.SETTLEMENT)
    spend(m, kingdom, price, kind="k.settle", ledger="settlement", at=h, line=order.line,
          why=f"Bauauftrag über {count(order.units, 'Baueinheit', 'Baueinheiten')} in {seg.label(h)} "
              f"({t.name}, {gs(factor * rules.int('economy', 'settlement', 'unit_price'))} je "
              f"BE): {gs(price)}; Ziel {target} BE ({settlement_class(target, rules)}).",
          data={"units": order.units, "factor": factor, "target": target})


# --- DS: diplomacy ------------------------------------------------------------------------

def _diplomacy(m: Month, kingdom: int, order: ChangeDiplomacy, start: dict[int, int]) -> None:
    """"(DS) Diplomatiestatus ändern": only toward kingdoms on the list, by at
    most 2 per month in total, within 1..9; each side sets its own status."""
    k, rules = m.state.kingdoms[kingdom], m.rules
    other = order.kingdom
    if other not in k.diplomacy:
        name = m.state.kingdoms[other].name if other in m.state.kingdoms else "das Königreich"
        return _refuse(m, kingdom, "diplomacy", order, f"{name} ({other}) steht nicht in "
                       "der Liste der diplomatischen Beziehungen.")
    step_max = rules.int("economy", "diplomacy", "max_change_per_month")
    lo = max(rules.int("economy", "diplomacy", "min"), start[other] - step_max)
    hi = min(rules.int("economy", "diplomacy", "max"), start[other] + step_max)
    old = k.diplomacy[other]
    new = int(np.clip(old + order.delta, lo, hi))
    if new == old:
        return _refuse(m, kingdom, "diplomacy", order, f"der Diplomatiestatus zu {other} steht "
                       f"auf {old} und kann in diesem Mond nicht weiter verändert werden.")
    k.diplomacy[other] = new
    note = "" if new == old + order.delta else " (begrenzt)"
    name = m.state.kingdoms[other].name if other in m.state.kingdoms else f"Königreich {other}"
    m.emit(Event("k.diplomacy", kingdom, why=f"Diplomatiestatus zu {name} ({other}) von {old} "
                 f"auf {new} geändert{note}.", line=order.line,
                 data={"other": other, "old": old, "new": new}))


# --- F+: festival --------------------------------------------------------------------------

def festival_popularity(old: int, gold: int, gemarks: int, rules: Rules) -> int:
    """The ruler's popularity after festivals for ``gold`` in ``gemarks`` own
    gemarks (economy.yaml ``festival``: a point per so many Goldsterne per gemark,
    at most ``max_points``, capped at ``popularity.max``); the forecast uses it too."""
    per = rules.int("economy", "festival", "gold_per_point_per_gemark") * max(1, gemarks)
    points = min(gold // per, rules.int("economy", "festival", "max_points"))
    return min(rules.int("economy", "popularity", "max"), old + points)


def _festival(m: Month, kingdom: int, order: Festival) -> None:
    """"(F+) Volksfest veranstalten": the gold is spent in all gemarks of the
    kingdom and may raise the ruler's popularity (economy.yaml, festival)."""
    k, rules = m.state.kingdoms[kingdom], m.rules
    if order.gold <= 0:
        return _refuse(m, kingdom, "festival", order, "der Betrag muß größer als 0 sein.")
    if not can_afford(m, kingdom, order.gold):
        return _refuse(m, kingdom, "festival", order, _no_money(m, kingdom, order.gold),
                       code=Reason.GOLD)
    gemarks = max(1, int((m.state.owner == kingdom).sum()))
    old = k.popularity
    k.popularity = festival_popularity(old, order.gold, gemarks, rules)
    spend(m, kingdom, order.gold, kind="k.festival", ledger="festival", line=order.line,
          why=f"Volksfeste in {count(gemarks, 'Gemark', 'Gemarken')} für {gs(order.gold)}; die Beliebtheit "
              f"{ruler_title(k.herrscherin, 'gen')} steigt von {old} auf {k.popularity}.",
          data={"popularity_old": old, "popularity": k.popularity})
