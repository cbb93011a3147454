"""Occupation, destruction and settling conquests ("Die Eroberung", Phase B
orders ``o`` and ``x``, "Der Reichsschatz" (a)-(c)).

- Step ``occupation_destruction`` (48): kingdoms in the month's order, armies
  ascending. ``(o) Okkupation``: "Bei der Okkupation einer Gemark muß sich das
  Heer zum Beginn des Mondes in der betreffenden Gemark aufhalten und kann
  sich in diesem Mond nicht fortbewegen"; a foreign kingdom's gemark only at
  status 1-2; "Vor einer Okkupation kann es zu einem Kampf gegen die Milizen
  dieser Gemark kommen" — a won (or no) partisan fight files a
  :class:`~wdg.engine.month.Claim`. ``(x) Siedlung/Bauwerk zerstören``: after
  the partisan fight the army tears down as much as it manages.
- Step ``conquest`` (60): every claim (``e`` from movement, ``o`` from here)
  in random order; "Eine Eroberung kann ferner mißlingen, wenn auch andere
  Heere in demselben Mond eine Eroberung durchführen" — the first valid claim
  on a gemark wins it, later ones fail. "Flotten können keine Gemarken
  erobern." Conquering a settlement takes the share of the loser's treasury
  stored there ("Der Reichsschatz" (c)), the share of
:func:`wdg.engine.economy.treasury_share`.

Events: ``conquest.refused``, ``conquest.claim``, ``conquest.won`` (public for
settlements), ``conquest.failed``, ``conquest.lost`` (to the former owner),
``conquest.treasury`` (gold moves, ledger ``conquest``), ``destroy.done``
(public when a settlement is wiped out), ``destroy.refused``,
``destroy.treasury`` (the share of a destroyed settlement is lost),
``destroy.fleet_out`` / ``destroy.fleet_lost`` (fleets in a harbour that is
gone).
"""

from __future__ import annotations

from wdg.engine.combat import (
    destroy_army,
    ensure_kingdom_order,
    morale_factor,
    phase_b_orders,
    start_position,
)
from wdg.engine.diplomacy import may_conquer
from wdg.engine.economy import is_treasury_site, treasury_share
from wdg.engine.events import Event
from wdg.engine.treasury import count, credit, spend
from wdg.engine.militia import partisan_fight
from wdg.engine.movement import carried_army, harbour_mask, too_few_soldiers
from wdg.engine.month import Claim, Month, step
from wdg.orders.model import Destroy, DestroyTarget, Occupy
from wdg.world.hexgrid import Hex
from wdg.world.state import BUILDING_ORDER, Army, ArmyStatus
from wdg.world.terrain import is_water, terrain

AREA = "combat"


# --- o and x ------------------------------------------------------------------------

def _stationary_problem(m: Month, army: Army) -> str | None:
    """Why the army cannot carry out ``o``/``x`` this month, or None."""
    if army.status is not ArmyStatus.ACTIVE or army.position is None or army.general is None:
        return "Das Heer ist nicht aktiv"
    if army.number in m.busy:
        return "Das Heer ist in diesem Mond anderweitig gebunden"
    if army.carried_by is not None:
        return "Das Heer befindet sich auf einer Flotte"
    if army.number in m.moved or start_position(m, army) != army.position:
        return "Das Heer hat sich in diesem Mond fortbewegt"
    return None


def _refuse(m: Month, army: Army, kind: str, why: str, line: int) -> list[Event]:
    return [m.emit(Event(kind, kingdom=army.kingdom, army=army.number, at=army.position,
                         why=why, line=line))]


def occupy(m: Month, army: Army, order: Occupy) -> list[Event]:
    """``(o) Okkupation`` of the gemark where the army stands."""
    seg = m.state
    why = _stationary_problem(m, army)
    if why is None and army.is_fleet:
        why = "Flotten können keine Gemarken erobern"
    if why is None:
        why = too_few_soldiers(m, army, "o")
    at = army.position
    if why is None and at is not None:
        owner = seg.at(seg.owner, at)
        if is_water(terrain(seg.at(seg.terrain, at))):
            why = "Wassergemarken können nicht erobert werden"
        elif owner == army.kingdom:
            why = "Die Gemark gehört bereits zum eigenen Königreich"
        elif not may_conquer(seg, m.rules, army.kingdom, owner):
            why = (f"Der Diplomatiestatus zu {seg.kingdoms[owner].name} erlaubt keine "
                   f"Eroberung (nur bei 1 oder 2)")
    if why is not None:
        return _refuse(m, army, "conquest.refused", f"Okkupation verweigert: {why}", order.line)
    assert at is not None  # _stationary_problem refuses an army without a position
    won, out = partisan_fight(m, army, "die Okkupation", order.line)
    if won:
        m.claims.append(Claim(army.number, army.kingdom, at, "okkupation",
                              order.line))
        out.append(m.emit(Event("conquest.claim", kingdom=army.kingdom, army=army.number, at=at,
                                why="Okkupation begonnen; der Besitz wird am Ende des Mondes "
                                    "festgestellt", line=order.line,
                                data={"kind": "okkupation"})))
    return out


def destroy(m: Month, army: Army, order: Destroy) -> list[Event]:
    """``(x) Siedlung/Bauwerk zerstören <Typ>`` at the army's gemark."""
    seg = m.state
    why = _stationary_problem(m, army) or too_few_soldiers(m, army, "x")
    at = army.position
    target = order.target
    if why is None and at is not None:
        if target is DestroyTarget.SIEDLUNG and seg.at(seg.settlement, at) <= 0:
            why = "In der Gemark gibt es keine Siedlung"
        elif target.building is not None and seg.building_level(at, target.building) <= 0:
            why = f"In der Gemark gibt es kein Bauwerk {target.building.german}"
    if why is not None:
        return _refuse(m, army, "destroy.refused", f"Zerstörung verweigert: {why}", order.line)
    assert at is not None  # _stationary_problem refuses an army without a position
    won, out = partisan_fight(m, army, "die Zerstörung", order.line)
    if won and army.position is not None:
        out += _tear_down(m, army, at, target, order.line)
        out += fleets_leave_lost_harbour(m, at)
    return out


def fleets_leave_lost_harbour(m: Month, at: Hex) -> list[Event]:
    """Fleets in a settlement whose Hafen (or the settlement itself) is gone put
    out to the first adjacent water gemark (in the rule's direction order),
    with the army they carry; "Flotten können sich im allgemeinen nur in
    Wassergemarken oder in einer Siedlung mit einem Hafen aufhalten". Without
    any water next to it the fleet is lost (docs/rules.md)."""
    seg = m.state
    if harbour_mask(seg)[seg.grid.index(at)]:
        return []
    water = [h for h in at.neighbours()
             if seg.grid.contains(h) and is_water(terrain(seg.at(seg.terrain, h)))]
    out: list[Event] = []
    for n in sorted(seg.armies):
        fleet = seg.armies[n]
        if not fleet.is_fleet or fleet.position != at:
            continue
        if not water:
            out += destroy_army(m, fleet, "destroy.fleet_lost",
                                "Der Hafen ist zerstört und kein Wasser in der Nähe; die Flotte "
                                "ist verloren")
            continue
        cargo = carried_army(seg, fleet)
        fleet.position = water[0]
        if cargo is not None:
            cargo.position = water[0]
        out.append(m.emit(Event("destroy.fleet_out", kingdom=fleet.kingdom, army=n,
                                at=water[0], why=f"Der Hafen in {seg.label(at)} ist zerstört; "
                                f"die Flotte läuft nach {seg.label(water[0])} aus")))
    return out


def _tear_down(m: Month, army: Army, at: Hex, target: DestroyTarget, line: int) -> list[Event]:
    """Damage "so weit wie möglich": Baueinheiten of a settlement, levels of a building."""
    seg = m.state
    r, c = seg.grid.index(at)
    d = m.rules.section(AREA, "destruction")
    if target.building is not None:
        level = seg.building_level(at, target.building)
        n = army.units // int(d["soldiers_per_level"])
        if n == 0 and army.units >= int(d["min_soldiers_for_a_level"]):
            n = 1
        n = min(level, n)
        seg.buildings[BUILDING_ORDER.index(target.building), r, c] = level - n
        return [m.emit(Event("destroy.done", kingdom=army.kingdom, army=army.number, at=at,
                             line=line, public=n == level and n > 0,
                             why=f"{target.building.german}: {n} von {count(level, 'Baustufe', 'Baustufen')} zerstört",
                             data={"levels": n, "left": level - n}))]
    size = seg.at(seg.settlement, at)
    owner = seg.at(seg.owner, at)
    share = treasury_share(seg, owner, m.rules) \
        if owner in seg.kingdoms and is_treasury_site(size, m.rules) else 0
    damage = int(army.units / 100 * float(d["settlement_units_per_100"]) * morale_factor(m, army))
    damage = min(size, damage)
    seg.settlement[r, c] = size - damage
    if m.rules.has("actions", "help", "repair_per_1000_soldiers"):
        # the damage "h" can repair ("Beschädigungen repariert"); none once razed
        if damage == size:
            seg.damage.pop(at, None)
        elif damage:
            seg.damage[at] = seg.damage.get(at, 0) + damage
    out = []
    if damage == size:
        seg.buildings[[BUILDING_ORDER.index(b) for b in BUILDING_ORDER if b.only_in_settlement],
                      r, c] = 0
        seg.settlement_names.pop(at, None)
        if share:
            out.append(spend(m, owner, share, kind="destroy.treasury", ledger="conquest", at=at,
                             why="Mit der zerstörten Siedlung geht ihr Anteil am "
                                 "Reichsschatz verloren"))
    out.insert(0, m.emit(Event(
        "destroy.done", kingdom=army.kingdom, army=army.number, at=at, line=line,
        public=damage == size and damage > 0,
        why=(f"Siedlung zerstört ({count(damage, 'Baueinheit', 'Baueinheiten')})" if damage == size
             else f"{damage} von {count(size, 'Baueinheit', 'Baueinheiten')} der Siedlung zerstört"),
        data={"units": damage, "left": size - damage})))
    return out


@step("occupation_destruction", 48)
def occupation_destruction(m: Month) -> list[Event]:
    """All ``o`` and ``x`` orders: kingdoms in the month's order, armies ascending."""
    orders = phase_b_orders(m)
    by_kingdom: dict[int, list[int]] = {}
    for n, o in orders.items():
        if isinstance(o, (Occupy, Destroy)):
            by_kingdom.setdefault(m.state.armies[n].kingdom, []).append(n)
    out: list[Event] = []
    for k in ensure_kingdom_order(m):
        for n in sorted(by_kingdom.get(k, [])):
            army, order = m.state.armies[n], orders[n]
            if isinstance(order, Occupy):
                out += occupy(m, army, order)
            elif isinstance(order, Destroy):
                out += destroy(m, army, order)
    return out


# --- settling claims ------------------------------------------------------------------

def _claim_problem(m: Month, claim: Claim, taken: set[Hex]) -> str | None:
    seg = m.state
    army = seg.armies.get(claim.army)
    if claim.at in taken:
        return "Ein anderes Heer hat die Gemark in diesem Mond zuvor erobert"
    if army is None or army.status is not ArmyStatus.ACTIVE or army.general is None \
            or army.kingdom != claim.kingdom:
        return "Das Heer besteht nicht mehr"
    if army.is_fleet:
        return "Flotten können keine Gemarken erobern"
    few = too_few_soldiers(m, army, "e" if claim.kind == "einnahme" else "o")
    if few:
        return few
    owner = seg.at(seg.owner, claim.at)
    if claim.kind == "einnahme":
        return einnahme_problem(owner, seg.at(seg.settlement, claim.at) > 0,
                                any(seg.building_level(claim.at, b) for b in BUILDING_ORDER))
    if army.position != claim.at:
        return "Das Heer steht nicht mehr in der Gemark"
    if owner == claim.kingdom:
        return "Die Gemark gehört bereits zum eigenen Königreich"
    if not may_conquer(seg, m.rules, claim.kingdom, owner):
        return "Der Diplomatiestatus erlaubt keine Eroberung"
    return None


def einnahme_problem(owner: int, settlement: bool, building: bool) -> str | None:
    """Why an ``e`` (Einnahme) of a gemark with this ``owner`` fails, or ``None``:
    only neutral gemarks without settlement and building are taken by moving in.
    The conquest step and the order editor's choices ask this."""
    if owner != 0 or settlement or building:
        return "Einnahme nur neutraler Gemarken ohne Siedlung und Bauwerk"
    return None


def transfer(m: Month, at: Hex, winner: int, army: int | None, line: int = 0) -> list[Event]:
    """Give the gemark to ``winner``; a settlement brings its share of the
    former owner's treasury ("Der Reichsschatz" (c))."""
    seg = m.state
    r, c = seg.grid.index(at)
    old = int(seg.owner[r, c])
    out: list[Event] = []
    has_settlement = seg.settlement[r, c] > 0
    if old in seg.kingdoms and is_treasury_site(int(seg.settlement[r, c]), m.rules):
        share = treasury_share(seg, old, m.rules)
        if share > 0:
            out.append(spend(m, old, share, kind="conquest.treasury", ledger="conquest", at=at,
                             why="Anteil am Reichsschatz mit der Siedlung verloren"))
            out.append(credit(m, winner, share, kind="conquest.treasury", ledger="conquest",
                              army=army, at=at, line=line,
                              why="Anteil am Reichsschatz der eroberten Siedlung"))
    seg.owner[r, c] = winner
    name = seg.settlement_names.get(at, "")
    out.insert(0, m.emit(Event(
        "conquest.won", kingdom=winner, army=army, at=at, public=bool(has_settlement), line=line,
        why=f"Gemark {seg.label(at)} erobert" + (f" mit der Siedlung {name}" if has_settlement
                                                else ""),
        data={"from": old})))
    if old in seg.kingdoms:
        out.append(m.emit(Event("conquest.lost", kingdom=old, at=at,
                                why=f"Gemark {seg.label(at)} an {seg.kingdoms[winner].name} "
                                    f"verloren", data={"to": winner})))
    return out


@step("conquest", 60)
def conquest(m: Month) -> list[Event]:
    """Settle all claims in random order ("Die Reihenfolge aller Eroberungen ist
    in diesem Fall zufällig")."""
    claims = sorted(m.claims, key=lambda c: (c.army, c.at, c.kind))
    out: list[Event] = []
    taken: set[Hex] = set()
    if not claims:
        return out
    for i in m.rng.permutation(len(claims)):
        claim = claims[int(i)]
        why = _claim_problem(m, claim, taken)
        if why is not None:
            out.append(m.emit(Event("conquest.failed", kingdom=claim.kingdom, army=claim.army,
                                    at=claim.at, why=f"Eroberung mißlungen: {why}",
                                    line=claim.line, data={"kind": claim.kind})))
            continue
        taken.add(claim.at)
        out += transfer(m, claim.at, claim.kingdom, claim.army, claim.line)
    return out
