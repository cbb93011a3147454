"""Combat between armies ("Der Kampf", "Die Heeresmoral", "Erfahrung des
Feldherren", "Das Boot", "Das Schiff", "Allgemeine Regeln für Heere" (b),
(j), (p), (r)).

"Wenn sich Heere verschiedener Königreiche nach ihrer vollständigen Bewegung
auf derselben Gemark befinden, kommt es stets zu einem Kampf ... Während die
Reihenfolge der kämpfenden Königreiche zufällig festgelegt wird, kämpfen die
Heere eines Königreiches immer nach der aufsteigenden Heeresnummer ... Jedes
Heer kann in jedem Mond nur 1 Kampf austragen!"

Armies fight when at least one of the two kingdoms holds a status of 1-3
toward the other (:func:`wdg.engine.diplomacy.hostile`). The secret table is
``worlds/rules/combat.yaml``; docs/rules.md ("Combat") explains it.

This module also holds the helpers every fighting module shares: the army's
fighting strength, the odds, losses (:func:`lose`) and destruction
(:func:`destroy_army`). Every soldier or ship that leaves an army here is
counted in exactly one event's ``data["lost"]`` (and, like every change of
an army's units anywhere in the month, in its signed ``data["soldiers"]``).

Events: ``combat.battle`` (one per side; the attacker's is public),
``combat.fled`` (the demoralised part), ``combat.losses``,
``combat.destroyed``, ``combat.drowned``, ``combat.boats``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wdg.engine.diplomacy import hostile
from wdg.engine.events import Event
from wdg.engine.treasury import count
from wdg.engine.month import Month, step
from wdg.engine.rounding import nearest
from wdg.orders.model import PhaseBOrder
from wdg.world.hexgrid import Hex
from wdg.world.state import Army, ArmyStatus, Building, TroopType
from wdg.world.terrain import is_difficult, is_water, terrain

AREA = "combat"


# --- shared month helpers -------------------------------------------------------

def ensure_kingdom_order(m: Month) -> list[int]:
    """The month's random kingdom order; drawn here (once) when the runner has
    not drawn it yet."""
    if not m.kingdom_order:
        ks = sorted(m.state.kingdoms)
        m.kingdom_order = [ks[i] for i in m.rng.permutation(len(ks))]
    return m.kingdom_order


def phase_b_orders(m: Month) -> dict[int, PhaseBOrder]:
    """Army number -> its Phase B order from its own kingdom's sheet."""
    cached = m.notes.get("combat.phase_b")
    if isinstance(cached, dict):
        return cached
    orders: dict[int, PhaseBOrder] = {}
    for k in sorted(m.sheets):
        for block in m.sheets[k].armies:
            a = m.state.armies.get(block.number)
            if a is not None and a.kingdom == k and block.phase_b is not None:
                orders[block.number] = block.phase_b
    m.notes["combat.phase_b"] = orders
    return orders


def start_position(m: Month, army: Army) -> Hex | None:
    """Where the army stood at the start of the month."""
    if m.start is None:
        return army.position
    return m.start.positions.get(army.number, army.position)


def can_fight(army: Army) -> bool:
    """Active armies with a general that are not carried by a fleet ("Landheere,
    die auf Schiffen befördert werden, können bei einem Seegefecht nicht mitkämpfen")."""
    return (army.status is ArmyStatus.ACTIVE and army.position is not None
            and army.general is not None and army.carried_by is None)


def armies_by_hex(m: Month) -> dict[Hex, list[Army]]:
    """Fighting-capable armies indexed by gemark, each list ascending by number."""
    out: dict[Hex, list[Army]] = {}
    for n in sorted(m.state.armies):
        a = m.state.armies[n]
        if can_fight(a) and a.position is not None:  # (can_fight checks the position too)
            out.setdefault(a.position, []).append(a)
    return out


# --- strength and odds ----------------------------------------------------------

def num(m: Month, key: str) -> float:
    """A number from combat.yaml."""
    return m.rules.num(AREA, key)


def demoralised(m: Month, army: Army) -> int:
    """Soldiers who leave at the start of a fight ("der demoralisierte Teil
    eines Heeres [wird sich] davonmachen")."""
    threshold = num(m, "demoralised_threshold")
    if army.morale >= threshold or threshold <= 0:
        return 0
    share = min(num(m, "demoralised_max_share"), (threshold - army.morale) / threshold)
    return int(army.units * share)


def morale_factor(m: Month, army: Army) -> float:
    """Strength factor of the morale of those who stay."""
    return num(m, "morale_base") + army.morale / 100 * num(m, "morale_weight")


def home_factor(m: Month, kingdom: int | None, at: Hex) -> float:
    """The owner of the battlefield fights better ("das Besitzverhältnis des
    Kampfschauplatzes"), more so in difficult terrain (natives) and behind
    buildings and a settlement ("die Art ... der Bauwerke")."""
    seg = m.state
    if kingdom is None or seg.at(seg.owner, at) != kingdom:
        return 1.0
    f = num(m, "owner_bonus")
    if is_difficult(terrain(seg.at(seg.terrain, at))):
        f *= num(m, "natives_difficult_bonus")
    levels = seg.building_level(at, Building.KASERNE) + seg.building_level(at, Building.PALAST)
    fort = levels * num(m, "building_bonus_per_level") + \
        seg.at(seg.settlement, at) / 100 * num(m, "settlement_bonus_per_100")
    return f * (1 + min(fort, num(m, "fortification_cap")))


def army_strength(m: Month, army: Army, at: Hex, fighters: int) -> float:
    """Fighting strength of ``fighters`` soldiers (or ships) of ``army`` at ``at``."""
    troop = army.troop or TroopType.KRIEGER
    w = float(m.rules.section(AREA, "unit_strength")[troop.value])
    if troop is TroopType.REITER and is_difficult(terrain(m.state.at(m.state.terrain, at))):
        w *= num(m, "reiter_in_difficult_terrain")
    exp = army.general.experience if army.general else 0
    return fighters * w * morale_factor(m, army) * (1 + exp * num(m, "experience_weight")) \
        * home_factor(m, army.kingdom, at)


def win_chance(m: Month, sa: float, sb: float) -> float:
    """Chance that side A wins: sA^k / (sA^k + sB^k)."""
    if sa <= 0 and sb <= 0:
        return 0.5
    k = num(m, "sharpness")
    return sa ** k / (sa ** k + sb ** k)


def winner_losses(m: Month, fighters: int, s_win: float, s_lose: float,
                  factor_key: str = "winner_loss_factor", max_key: str = "winner_loss_max",
                  area: str = AREA) -> int:
    """Soldiers the winner loses: share factor * sL / sW of its fighters, capped."""
    if fighters <= 0 or s_win <= 0:
        return 0
    share = min(m.rules.num(area, max_key), m.rules.num(area, factor_key) * s_lose / s_win)
    return min(fighters, nearest(fighters * share, m.rules))


# --- losses and destruction -------------------------------------------------------

def lose(m: Month, army: Army, n: int, kind: str, why: str, **data: object) -> list[Event]:
    """Take ``n`` units from ``army`` (one event with ``lost``); ships lost drown
    their share of the carried army ("Wird bei einem Seegefecht ein Schiff
    versenkt, auf dem sich Soldaten befinden, so ertrinken diese")."""
    n = max(0, min(n, army.units))
    if n == 0:
        return []
    before = army.units
    army.units -= n
    out = [m.emit(Event(kind, kingdom=army.kingdom, army=army.number, at=army.position, why=why,
                        data={"lost": n, "soldiers": -n, **data}))]
    out += _drown_cargo(m, army, n, before)
    return out


def _drown_cargo(m: Month, fleet: Army, sunk: int, before: int) -> list[Event]:
    if fleet.carrying is None or before <= 0:
        return []
    cargo = m.state.armies.get(fleet.carrying)
    if cargo is None:
        return []
    if fleet.units == 0:
        return destroy_army(m, cargo, "combat.drowned",
                            "Die Flotte ist gesunken; das beförderte Heer ertrinkt")
    drowned = math.ceil(cargo.units * sunk / before)
    return lose(m, cargo, drowned, "combat.drowned",
                f"{count(sunk, 'Schiff', 'Schiffe')} versenkt; beförderte Soldaten ertrinken")


def space_of(m: Month, army: Army, units: int | None = None) -> int:
    """Raumfaktoren of ``units`` (default: all) of a land army ("Das Militär" (h))."""
    assert army.troop is not None
    n = army.units if units is None else units
    return n * m.rules.int("economy", "space", army.troop.value)


def fleet_capacity(m: Month, ships: int) -> int:
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": what ``ships`` carry."""
    return ships * m.rules.int("economy", "space", "ship_capacity")


def boat_capacity(m: Month, boats: int) -> int:
    """What ``boats`` carry (``space.boat_capacity`` each, "Das Boot")."""
    return boats * m.rules.int("economy", "space", "boat_capacity")


def overload(m: Month, fleet: Army, cause: str) -> list[Event]:
    """The fleet lost ships without a fight (desertion): what it can no longer
    carry does not stay aboard. In a harbour (a land gemark) the carried army goes
    ashore; on the water the soldiers beyond the Tragkraft drown, all of them with
    the general when no ship is left ("(p) ... Fracht ... unrettbar versunken")."""
    cargo = m.state.armies.get(fleet.carrying) if fleet.carrying is not None else None
    if cargo is None or cargo.troop is None:
        return []
    room = fleet_capacity(m, fleet.units)
    if space_of(m, cargo) <= room:
        return []
    at = fleet.position
    if at is not None and not is_water(terrain(m.state.at(m.state.terrain, at))):
        cargo.carried_by, fleet.carrying = None, None
        return [m.emit(Event("transport.ashore", cargo.kingdom, cargo.number, at,
                             f"{cause}: die Flotte {fleet.number:04d} kann das Heer nicht mehr "
                             "tragen; es geht im Hafen an Land.", data={"fleet": fleet.number}))]
    if fleet.units == 0:
        return destroy_army(m, cargo, "transport.drowned",
                            f"{cause}: der Flotte {fleet.number:04d} bleibt kein Schiff; das "
                            "beförderte Heer ertrinkt mitsamt seinem Feldherrn")
    keep = room // m.rules.int("economy", "space", cargo.troop.value)
    ships = "das verbliebene Schiff der Flotte {0:04d} trägt" if fleet.units == 1 else \
        "die {1} verbliebenen Schiffe der Flotte {0:04d} tragen"
    return lose(m, cargo, cargo.units - keep, "transport.drowned",
                f"{cause}: {ships.format(fleet.number, fleet.units)} nur {room} Raumfaktoren; "
                "die übrigen Soldaten ertrinken", fleet=fleet.number)


def destroy_army(m: Month, army: Army, kind: str, why: str) -> list[Event]:
    """"Heere, die vernichtet oder zerstört werden, verlieren dagegen ihren
    Feldherren und damit auch ihre Zuordnung zu einer bestimmten
    Truppengattung": every unit lost, no general, back to 000.00."""
    seg = m.state
    lost = army.units
    at = army.position
    army.units = 0
    army.general = None
    army.status = ArmyStatus.PASSIVE
    army.position = None
    army.boats = 0
    army.morale = int(num(m, "morale_of_destroyed"))
    out = [m.emit(Event(kind, kingdom=army.kingdom, army=army.number, at=at, why=why,
                        data={"lost": lost, "soldiers": -lost, "destroyed": True}))]
    if army.carried_by is not None:
        fleet = seg.armies.get(army.carried_by)
        if fleet is not None and fleet.carrying == army.number:
            fleet.carrying = None
        army.carried_by = None
    if army.carrying is not None:
        cargo = seg.armies.get(army.carrying)
        army.carrying = None
        if cargo is not None:
            cargo.carried_by = None
            out += destroy_army(m, cargo, "combat.drowned",
                                "Die Flotte ist untergegangen; das beförderte Heer ertrinkt")
    return out


def adjust(m: Month, army: Army, won: bool, area: str = AREA) -> None:
    """Morale and experience move with success and failure."""
    key = "win" if won else "loss"
    army.morale = max(0, min(100, army.morale + m.rules.int(area, f"morale_after_{key}")))
    if army.general is not None:
        g = army.general
        g.experience = max(0, min(100, g.experience + m.rules.int(area, f"experience_after_{key}")))


def wreck_boats(m: Month, army: Army) -> list[Event]:
    """"Boote haben keinen Kampfwert - findet ein Kampf statt, so werden alle
    Boote dadurch automatisch zerstört." An army on water without its boats
    drowns."""
    if army.boats <= 0:
        return []
    boats = army.boats
    army.boats = 0
    out = [m.emit(Event("combat.boats", kingdom=army.kingdom, army=army.number, at=army.position,
                        why=f"{count(boats, 'Boot', 'Boote')} im Kampf zerstört", data={"boats": boats}))]
    if army.position is not None and is_water(terrain(m.state.at(m.state.terrain, army.position))):
        out += destroy_army(m, army, "combat.drowned",
                            "Die Boote sind zerstört; das Heer ertrinkt auf dem Wasser")
    return out


# --- one battle --------------------------------------------------------------------

@dataclass(slots=True)
class Side:
    """One side of a battle at its start."""

    army: Army
    fled: int
    fighters: int
    strength: float


def _side(m: Month, army: Army, at: Hex) -> tuple[Side, list[Event]]:
    fled = demoralised(m, army)
    out: list[Event] = []
    if fled:
        out.append(m.emit(Event("combat.fled", kingdom=army.kingdom, army=army.number, at=at,
                                why=f"{fled} demoralisierte Soldaten machen sich davon",
                                data={"fled": fled})))
    fighters = army.units - fled
    return Side(army, fled, fighters, army_strength(m, army, at, fighters)), out


def battle(m: Month, a: Army, b: Army) -> list[Event]:
    """One fight between two armies on the same gemark; the beaten one is
    destroyed, the winner loses soldiers and its fled part comes back."""
    at = a.position
    assert at is not None
    seg = m.state
    m.fought.update((a.number, b.number))
    sa, out = _side(m, a, at)
    sb, more = _side(m, b, at)
    out += more
    p = win_chance(m, sa.strength, sb.strength)
    win, lose_side = (sa, sb) if m.rng.random() < p else (sb, sa)
    w, l_ = win.army, lose_side.army

    def who(x: Army) -> str:
        return f"Heer {x.number:04d} von {seg.kingdoms[x.kingdom].name}"

    # the Götterbotschaft's chronicle and both sheets: one sentence that says
    # who attacked whom where and who won ("a" chose "b" as its opponent)
    told = (f"{who(a)} griff {who(b)} in {seg.label(at)} an: {seg.kingdoms[w.kingdom].name} "
            f"gewann, Heer {l_.number:04d} wurde vernichtet")
    out.append(m.emit(Event(
        "combat.chronicle", at=at, public=True,
        why=told, data={"winner": w.number, "loser": l_.number})))
    for me, other, won in ((a, b, w is a), (b, a, w is b)):
        out.append(m.emit(Event(
            "combat.battle", kingdom=me.kingdom, army=me.number, at=at,
            why=told,
            data={"enemy": other.number, "enemy_kingdom": other.kingdom, "won": won,
                  "strength": round(sa.strength if me is a else sb.strength, 1),
                  "enemy_strength": round(sb.strength if me is a else sa.strength, 1),
                  "chance": round(p if me is a else 1 - p, 3)})))
    out += destroy_army(m, l_, "combat.destroyed",
                        f"Im Kampf gegen Heer {w.number:04d} geschlagen; der Feldherr fällt")
    n = winner_losses(m, win.fighters, win.strength, lose_side.strength)
    out += lose(m, w, n, "combat.losses", f"Verluste im Kampf gegen Heer {l_.number:04d}")
    adjust(m, w, True)
    out += wreck_boats(m, w)
    return out


# --- the step ------------------------------------------------------------------------

def _opponent(m: Month, army: Army, here: list[Army], rank: dict[int, int]) -> Army | None:
    """The first enemy on the gemark that has not fought: kingdoms in the
    month's order, then ascending army number."""
    best: Army | None = None
    for o in here:
        if o.kingdom == army.kingdom or o.number in m.fought or not can_fight(o):
            continue
        if not hostile(m.state, m.rules, army.kingdom, o.kingdom):
            continue
        key = (rank.get(o.kingdom, len(rank)), o.number)
        if best is None or key < (rank.get(best.kingdom, len(rank)), best.number):
            best = o
    return best


@step("combat", 50)
def combat(m: Month) -> list[Event]:
    """All fights of the month after Phase B: kingdoms in random order, each
    kingdom's armies ascending, every army at most one fight."""
    order = ensure_kingdom_order(m)
    rank = {k: i for i, k in enumerate(order)}
    index = armies_by_hex(m)
    mine: dict[int, list[Army]] = {}
    for here in index.values():
        if len({a.kingdom for a in here}) < 2:
            continue
        for a in here:
            mine.setdefault(a.kingdom, []).append(a)
    out: list[Event] = []
    for k in order:
        for a in sorted(mine.get(k, []), key=lambda x: x.number):
            if a.number in m.fought or not can_fight(a) or a.position is None:
                continue
            o = _opponent(m, a, index[a.position], rank)
            if o is not None:
                out += battle(m, a, o)
    return out
