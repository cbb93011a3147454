"""Money and the end of the month: pay and upkeep, construction, taxes,
the treasury's sites, durability of fleets and boats, general offers.

Steps (order numbers of :mod:`wdg.engine.month`):

- 10 ``pay``: "Besoldung und Unterhalt", kingdoms in the month's random order,
  armies ascending. Events ``pay.active``, ``pay.upkeep``, ``pay.wages``,
  ``pay.shortfall``; then desertion at low morale (:mod:`wdg.engine.morale`,
  ``morale.desertion``).
- 80 ``construction``: "Die Siedlung" (e), "Die Bauwerke" (b). Events
  ``build.progress``, ``build.done``, ``build.abandoned``.
- 82 ``taxes``: "Währung und Steuern" from the state at the start of the month.
  Events ``tax.gemarks``, ``tax.settlements``, ``tax.mines``.
- 83 ``treasury``: "Der Reichsschatz" (a), the share per settlement. Event
  ``treasury.spread``.
- 84 ``durability``: "Das Schiff", "Das Boot". Events ``durability.fleet``,
  ``durability.boats``, ``durability.sunk`` (with ``lost``), ``durability.ashore``,
  ``durability.boats_lost``, ``durability.drowned`` (with ``lost``).
- 88 ``offers``: "Der Feldherr" (a). Events ``offer.general``, ``offer.none``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wdg.engine.combat import destroy_army, overload
from wdg.engine.deposits import enabled as deposits_enabled
from wdg.engine.deposits import owner_yield_layer
from wdg.engine.events import Event
from wdg.engine.gamemaster import GM_OFFERS
from wdg.engine.treasury import count, credit, gs, spend
from wdg.engine.month import Month, step
from wdg.engine.morale import low_morale_desertion
from wdg.rules import Rules
from wdg.world.generator import distinct_name, generals_of
from wdg.world.hexgrid import Hex
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Building,
    Construction,
    General,
    GeneralOffer,
    ProjectKind,
    Segment,
    TroopType,
)
from wdg.world.terrain import HEIGHTS, TAXES, is_water, terrain

_MINE = BUILDING_ORDER.index(Building.MINE)


# --- facts at the start of the month ------------------------------------------------

@dataclass(slots=True)
class EconomyStart:
    """What the taxes are computed from: "the state as it stood before the
    month's changes" (RULES-NOTES, "Order of the month")."""

    owner: np.ndarray
    settlement: np.ndarray
    buildings: np.ndarray
    popularity: dict[int, int]
    mine_yield: np.ndarray | None = None
    """Goldsterne per mine level by gemark for its owner: the deposits the owner
    knew at the start of the month (:mod:`wdg.engine.deposits`); ``None`` for a
    rules set without deposits.yaml (mines yield by height, the old reading)."""


def remember_start(m: Month) -> EconomyStart:
    """Record (once) the start-of-month facts the taxes need."""
    found = m.notes.get("economy")
    if isinstance(found, EconomyStart):
        return found
    seg = m.state
    owner = m.start.owner.copy() if m.start is not None else seg.owner.copy()
    mine_yield = owner_yield_layer(seg, owner, m.rules) if deposits_enabled(m.rules) else None
    start = EconomyStart(owner, seg.settlement.copy(), seg.buildings.copy(),
                         {n: k.popularity for n, k in seg.kingdoms.items()}, mine_yield)
    m.notes["economy"] = start
    return start


# --- small pure helpers other modules use ------------------------------------------

def is_treasury_site(size: int, rules: Rules) -> bool:
    """True if a settlement of ``size`` Baueinheiten stores a share of the treasury:
    a site below the rule's smallest settlement, the Flecken (100 BE), is a building
    site, not one of the "Siedlungen" of "Der Reichsschatz" (a)
    (``settlement.treasury_min_units``)."""
    return size >= rules.int("economy", "settlement", "treasury_min_units")


def treasury_sites(seg: Segment, kingdom: int, rules: Rules) -> list[Hex]:
    """The kingdom's settlements that store the treasury, in layer order."""
    need = rules.int("economy", "settlement", "treasury_min_units")
    rows, cols = np.nonzero((seg.owner == kingdom) & (seg.settlement >= max(1, need)))
    return [seg.grid.hex_at(int(r), int(c)) for r, c in zip(rows, cols)]


def treasury_share(seg: Segment, kingdom: int, rules: Rules) -> int:
    """The part of the treasury stored in each of the kingdom's treasury sites.

    "Der Reichsschatz" (a): "verteilt sich stets gleichmäßig auf alle
    Siedlungen"; (c): the conqueror of a settlement takes this share. The
    share is rounded down (the remainder stays with the kingdom); a kingdom
    without a treasury site has no share to lose (0). Sites below the Flecken
    hold none (:func:`is_treasury_site`).
    """
    n = len(treasury_sites(seg, kingdom, rules))
    return seg.kingdoms[kingdom].treasury // n if n else 0


def settlement_income(size: int, rules: Rules) -> int:
    """Monthly income of a settlement of ``size`` Baueinheiten ("Die Siedlung":
    Flecken 2.000, Markt 4.000, Dorf 6.000 GS; beyond: see economy.yaml)."""
    return (size // 100) * rules.int("economy", "settlement", "income_per_hundred")


def settlement_class(size: int, rules: Rules) -> str:
    """The settlement's designation by size (Flecken, Markt, Dorf ...)."""
    name = ""
    for c in rules.get("economy", "settlement", "classes"):
        if size >= int(c["min"]):
            name = str(c["name"])
    return name


def popularity_factor(popularity: int, rules: Rules) -> float:
    """Multiplier of all taxes by the ruler's popularity (50 = 1.0)."""
    return 1.0 + (popularity - 50) * rules.num("economy", "taxes", "popularity_effect")


def troop_key(army: Army) -> str:
    """The rules-file key of the army's troop type (``Krieger`` ...)."""
    assert army.troop is not None
    return army.troop.value


def armies_of(seg: Segment, kingdom: int) -> list[Army]:
    """A kingdom's armies in ascending number."""
    return [seg.armies[n] for n in sorted(seg.armies) if seg.armies[n].kingdom == kingdom]


# --- step 10: pay and upkeep ---------------------------------------------------------

@step("pay", 10)
def pay_and_upkeep(m: Month) -> None:
    """"Besoldung und Unterhalt": at the start of the month every active army
    pays its upkeep and every unit its pay; what the treasury cannot pay
    leads to desertion and to falling morale and experience."""
    remember_start(m)
    for kingdom in m.kingdom_order:
        for army in armies_of(m.state, kingdom):
            if army.status is ArmyStatus.ACTIVATING:
                army.status = ArmyStatus.ACTIVE
                m.emit(Event("pay.active", kingdom, army.number, army.position,
                             "Das Heer ist ab diesem Mond aktiv.", data={"status": "active"}))
            if owes_dues(army.status, army.general is not None):
                _pay_army(m, army)
                low_morale_desertion(m, army)


def owes_dues(status: ArmyStatus, has_general: bool) -> bool:
    """Whether an army pays upkeep and pay at the start of the month ("Besoldung
    und Unterhalt"): an active army led by a general (an activating army becomes
    active in the pay step first). The pay step and the forecast ask this."""
    return status in (ArmyStatus.ACTIVE, ArmyStatus.ACTIVATING) and has_general


def army_dues(troop: str, units: int, rules: Rules) -> tuple[int, int]:
    """``(upkeep, pay)`` an active army of ``units`` Rüstgüter of ``troop`` owes at
    the start of the month ("Besoldung und Unterhalt", economy.yaml); the pay
    step, the forecast's running costs and the bots' budget ask this."""
    return rules.int("economy", "upkeep", troop), units * rules.int("economy", "pay", troop)


def _pay_army(m: Month, army: Army) -> None:
    rules, k = m.rules, m.state.kingdoms[army.kingdom]
    upkeep, wages = army_dues(troop_key(army), army.units, rules)
    paid = 0
    for amount, kind, ledger, what in ((upkeep, "pay.upkeep", "upkeep", "Unterhalt"),
                                       (wages, "pay.wages", "pay", "Besoldung")):
        part = min(amount, k.treasury)
        if part:
            spend(m, army.kingdom, part, kind=kind, ledger=ledger, army=army.number,
                  at=army.position, why=f"{what} des Heeres {army.number:04d}: {gs(part)}"
                  + ("" if part == amount else f" von {gs(amount)}"))
        paid += part
    due = upkeep + wages
    if paid < due:
        _shortfall(m, army, due, paid)


def shortfall_text(deserters: int, morale_loss: int, exp_loss: int) -> str:
    """What an unpaid month did to an army, in German, naming only what happened
    (issue #32: not "0 Rüstgüter desertieren ... um 0")."""
    parts = []
    if deserters:
        parts.append(count(deserters, "Rüstgut desertiert und zerstreut sich",
                           "Rüstgüter desertieren und zerstreuen sich"))
    else:
        parts.append("Niemand desertiert")
    if morale_loss:
        parts.append(f"die Moral sinkt um {morale_loss}")
    if exp_loss:
        parts.append(f"die Erfahrung des Feldherren sinkt um {exp_loss}")
    return "; ".join(parts) + "."


def _shortfall(m: Month, army: Army, due: int, paid: int) -> None:
    """Desertion, morale and experience after an incomplete payment."""
    rules = m.rules
    unpaid_units = math.ceil(army.units * (due - paid) / due)
    p = rules.num("economy", "shortfall", "desertion_chance")
    deserters = int(m.rng.binomial(unpaid_units, p)) if unpaid_units else 0
    army.units -= deserters
    morale_loss = min(army.morale, rules.int("economy", "shortfall", "morale_loss"))
    army.morale -= morale_loss
    exp_loss = 0
    if army.general is not None:
        exp_loss = min(army.general.experience,
                       rules.int("economy", "shortfall", "experience_loss"))
        army.general.experience -= exp_loss
    m.emit(Event("pay.shortfall", army.kingdom, army.number, army.position,
                 f"Der Reichsschatz reicht nicht: {gs(due - paid)} blieben unbezahlt. "
                 + shortfall_text(deserters, morale_loss, exp_loss),
                 data={"unpaid": due - paid, "deserters": deserters, "soldiers": -deserters,
                       "morale_loss": morale_loss, "experience_loss": exp_loss}))
    if army.is_fleet and deserters:
        overload(m, army, "Schiffe desertiert")


# --- step 80: construction ------------------------------------------------------------

@step("construction", 80)
def construction(m: Month) -> None:
    """Projects progress: a settlement gains up to 50 Baueinheiten per project
    and month ("Die Siedlung" (e)); a building is done after one month ("Die
    Bauwerke" (b)). A project whose gemark no longer belongs to its kingdom is
    abandoned (the gold was paid at its start and is lost); so is a Kaserne,
    Hafen or Palast whose settlement was destroyed during the month (they
    "können nur in Siedlungen errichtet werden", "Die Bauwerke")."""
    seg, rules = m.state, m.rules
    per_month = rules.int("economy", "settlement", "units_per_month")
    keep = []
    for p in seg.constructions:
        if seg.at(seg.owner, p.position) != p.kingdom:
            m.emit(Event("build.abandoned", p.kingdom, None, p.position,
                         f"Der Bau ({p.kind.value}) wird aufgegeben: die Gemark gehört "
                         "nicht mehr zum Königreich."))
            continue
        b = p.kind.building  # None for a settlement
        if b is not None and b.only_in_settlement and seg.at(seg.settlement, p.position) <= 0:
            m.emit(Event("build.abandoned", p.kingdom, None, p.position,
                         f"Der Bau ({b.german}) wird aufgegeben: die Siedlung "
                         "besteht nicht mehr."))
            continue
        if p.kind is ProjectKind.SETTLEMENT:
            _settle_progress(m, p, per_month)
        else:
            _building_done(m, p)
        if p.remaining > 0:
            keep.append(p)
    seg.constructions = keep


def _settle_progress(m: Month, p: Construction, per_month: int) -> None:
    seg = m.state
    done = min(per_month, p.remaining)
    p.remaining -= done
    r, c = seg.grid.index(p.position)
    seg.settlement[r, c] += done
    seg.settlement_names.setdefault(p.position, "Namenlos")
    size = int(seg.settlement[r, c])
    kind = "build.done" if p.remaining == 0 else "build.progress"
    rest = "" if p.remaining == 0 else f"; {p.remaining} BE fehlen noch"
    m.emit(Event(kind, p.kingdom, None, p.position,
                 f"Siedlungsbau: {count(done, 'Baueinheit', 'Baueinheiten')} fertiggestellt, die Siedlung hat nun "
                 f"{size} BE ({settlement_class(size, m.rules)}){rest}.",
                 data={"units": done, "size": size, "remaining": p.remaining}))


def _building_done(m: Month, p: Construction) -> None:
    seg = m.state
    b = p.kind.building
    assert b is not None  # the caller passes building projects only
    r, c = seg.grid.index(p.position)
    i = BUILDING_ORDER.index(b)
    cap = m.rules.int("economy", "buildings", "max_level")
    seg.buildings[i, r, c] = min(cap, int(seg.buildings[i, r, c]) + 1)
    p.remaining = 0
    level = int(seg.buildings[i, r, c])
    m.emit(Event("build.done", p.kingdom, None, p.position,
                 f"{b.german} fertiggestellt (Stufe {level}).", data={"level": level}))


# --- step 82: taxes ---------------------------------------------------------------------

def tax_income(start: EconomyStart, terrain: np.ndarray, kingdom: int,
               rules: Rules) -> tuple[int, int, int]:
    """(gemark taxes, settlement income, mine income) of a kingdom from the
    start-of-month state, popularity applied."""
    mask = start.owner == kingdom
    factor = popularity_factor(start.popularity.get(kingdom, 50), rules)
    gemarks = int(TAXES[terrain][mask].sum()) * rules.int("economy", "taxes", "gemark_factor")
    per100 = rules.int("economy", "settlement", "income_per_hundred")
    settlements = int(((start.settlement[mask] // 100) * per100).sum())
    if start.mine_yield is not None:
        # "für die Ausbeutung eines bereits bekannten Bodenschatzes": only on a
        # deposit the owner knows, at its kind's yield (deposits.yaml)
        mines = int((start.buildings[_MINE][mask].astype(np.int64)
                     * start.mine_yield[mask]).sum())
    else:
        by_height = rules.section("economy", "mine", "income_by_height")
        table = np.array([int(by_height.get(h, 0)) for h in range(7)], dtype=np.int64)
        mines = int((start.buildings[_MINE][mask] * table[HEIGHTS[terrain][mask]]).sum())
    return (int(gemarks * factor), int(settlements * factor), int(mines * factor))


def lost_last_site(m: Month, start: EconomyStart, kingdom: int) -> bool:
    """True if ``kingdom`` stored its treasury in a settlement at the start of the
    month and has no such settlement now (issue #42, a rule point decided in
    docs/rules.md): "Alle Steuer- und sonstige Einnahmen entstehen
    grundsätzlich in den Lagerstätten des Reichsschatzes" ("Der Reichsschatz"
    (b)), and with its last one the kingdom lost the treasury stored there
    ((a), (c)) — the month's income has no place to arise. Off in a rules set
    without ``taxes.income_needs_a_treasury_site`` (months resolved before it)."""
    rules = m.rules
    if not (rules.has("economy", "taxes", "income_needs_a_treasury_site")
            and rules.get("economy", "taxes", "income_needs_a_treasury_site")):
        return False
    need = max(1, rules.int("economy", "settlement", "treasury_min_units"))
    had = bool(((start.owner == kingdom) & (start.settlement >= need)).any())
    return had and not treasury_sites(m.state, kingdom, rules)


@step("taxes", 82)
def taxes(m: Month) -> None:
    """"Am Ende eines jeden Mondes erhält der Herrscher Steuereinnahmen aus den
    Gemarken und Siedlungen seines Königreiches" — computed from the state as
    it stood at the start of the month; all income arises at the treasury's
    sites even when they are occupied ("Der Reichsschatz" (b))."""
    start = remember_start(m)
    for n in sorted(m.state.kingdoms):
        g, s, mi = tax_income(start, m.state.terrain, n, m.rules)
        gemarks = int((start.owner == n).sum())
        if g + s + mi and lost_last_site(m, start, n):
            m.emit(Event("tax.forfeited", n,
                         why=f"Keine Einnahmen in diesem Mond ({gs(g + s + mi)} entgehen): die "
                             "letzte Siedlung, in der der Reichsschatz lagerte, ist verloren, "
                             "und Einnahmen entstehen nur in den Lagerstätten des Reichsschatzes.",
                         data={"forgone": g + s + mi}))
            continue
        for amount, kind, ledger, why, data in (
                (g, "tax.gemarks", "tax", f"Steuern aus {count(gemarks, 'Gemark', 'Gemarken')}: {gs(g)}",
                 {"gemarks": gemarks}),
                (s, "tax.settlements", "income", f"Einnahmen der Siedlungen: {gs(s)}", None),
                (mi, "tax.mines", "income", f"Einnahmen der Minen: {gs(mi)}", None)):
            if amount:
                credit(m, n, amount, kind=kind, ledger=ledger, why=why, data=data)


# --- step 83: the treasury's sites ------------------------------------------------------

@step("treasury", 83)
def treasury_spread(m: Month) -> None:
    """"Der Reichsschatz verteilt sich stets gleichmäßig auf alle Siedlungen":
    record each kingdom's share per settlement (the amount a conqueror takes)."""
    seg = m.state
    for n in sorted(seg.kingdoms):
        sites = treasury_sites(seg, n, m.rules)
        share = treasury_share(seg, n, m.rules)
        total = gs(seg.kingdoms[n].treasury)
        if len(sites) > 1:
            why = (f"Der Reichsschatz ({total}) lagert zu gleichen Teilen in {len(sites)} "
                   f"Siedlungen: {gs(share)} je Siedlung.")
        elif sites:
            why = f"Der Reichsschatz ({total}) lagert in der einzigen Siedlung des Reiches."
        else:
            why = "Das Königreich besitzt keine Siedlung, in der der Reichsschatz lagern kann."
        m.emit(Event("treasury.spread", n, why=why,
                     data={"settlements": len(sites), "share": share}))


# --- step 84: durability ----------------------------------------------------------------

@step("durability", 84)
def durability(m: Month) -> None:
    """Fleets: -3 % a month, +5 % when resting, +20 % resting in a harbour
    ("Das Schiff"); boats: -10 % a month, never repaired ("Das Boot"). A
    fleet or boats worn down to ``sinks_at`` go down (docs/rules.md)."""
    seg, rules = m.state, m.rules
    launched = _launched(m)
    rested = resting_armies(m)
    for n in sorted(seg.armies):
        a = seg.armies[n]
        if not a.is_active:
            continue
        if a.is_fleet:
            _fleet_durability(m, a, n in rested, rules)
        elif a.boats and n not in launched:
            loss = min(a.boat_durability, rules.int("economy", "durability", "boat_loss"))
            a.boat_durability -= loss
            m.emit(Event("durability.boats", a.kingdom, n, a.position,
                         f"Die Haltbarkeit der Boote sinkt auf {a.boat_durability}\u00a0%.",
                         data={"durability": a.boat_durability}))
            if a.boat_durability <= rules.int("economy", "durability", "sinks_at"):
                _boats_break(m, a)


def resting_armies(m: Month) -> set[int]:
    """The armies that rested this month, as the Phase B step published them
    (``m.notes["actions"]["rested"]``); none if that step did not run. A fleet
    that moved, trained, searched or did anything else does not rest."""
    found = m.notes.get("actions")
    rested = found.get("rested") if isinstance(found, dict) else None
    return set(rested) if rested is not None else set()


def _launched(m: Month) -> set[int]:
    notes = m.notes.get("army_orders")
    return set(getattr(notes, "launched", set())) if notes is not None else set()


def _fleet_durability(m: Month, a: Army, resting: bool, rules: Rules) -> None:
    seg = m.state
    resting = resting and a.number not in m.moved
    in_harbour = a.position is not None and seg.grid.contains(a.position) and \
        seg.building_level(a.position, Building.HAFEN) > 0
    if resting:
        key, what = ("fleet_harbour", "ruht im Hafen") if in_harbour else ("fleet_rest", "ruht")
        change = rules.int("economy", "durability", key)
    else:
        change, what = -rules.int("economy", "durability", "fleet_loss"), "ruht nicht"
    top = rules.int("economy", "durability", "fleet_max")
    a.durability = max(0, min(top, a.durability + change))
    m.emit(Event("durability.fleet", a.kingdom, a.number, a.position,
                 f"Die Flotte {what}; ihre Haltbarkeit beträgt nun {a.durability}\u00a0%.",
                 data={"durability": a.durability, "change": change}))
    if a.durability <= rules.int("economy", "durability", "sinks_at"):
        _fleet_sinks(m, a, in_harbour)


def _fleet_sinks(m: Month, fleet: Army, in_harbour: bool) -> None:
    """A worn-out fleet goes down with its ships; on the water its cargo is
    "unrettbar versunken" ((p)); in a harbour the carried army goes ashore."""
    seg = m.state
    cargo = seg.armies.get(fleet.carrying) if fleet.carrying is not None else None
    if in_harbour and cargo is not None and cargo.carried_by == fleet.number:
        fleet.carrying, cargo.carried_by = None, None
        m.emit(Event("durability.ashore", cargo.kingdom, cargo.number, cargo.position,
                     f"Die Flotte {fleet.number:04d} ist nicht mehr seetüchtig; das Heer geht "
                     "im Hafen an Land."))
    destroy_army(m, fleet, "durability.sunk",
                 "Die Flotte ist so morsch, daß sie sinkt; Schiffe und Besatzung gehen verloren"
                 + ("" if in_harbour or cargo is None else ", das beförderte Heer ertrinkt"))


def _boats_break(m: Month, army: Army) -> None:
    """Boats worn down fall apart; an army still on the water drowns (as when
    its boats are destroyed in a fight, "Das Boot")."""
    boats, army.boats = army.boats, 0
    water = army.position is not None and is_water(terrain(m.state.at(m.state.terrain,
                                                                       army.position)))
    m.emit(Event("durability.boats_lost", army.kingdom, army.number, army.position,
                 f"Die {count(boats, 'Boot', 'Boote')} sind morsch und zerfallen." if boats != 1
                 else "Das Boot ist morsch und zerfällt.", data={"boats": boats}))
    if water:
        destroy_army(m, army, "durability.drowned",
                     "Ohne Boote auf dem Wasser ertrinkt das Heer mitsamt seinem Feldherrn")


# --- step 88: general offers ------------------------------------------------------------

@step("offers", 88)
def general_offers(m: Month) -> None:
    """"Ein Feldherr ... bietet sich stets von selbst dem Herrscher an": each
    ruler may receive one offer for next month's ``nf``; an untaken offer lapses.
    A game master's ``FELDHERR`` of this month (step 15) is the offer instead of the
    draw (the draw is still made, so other kingdoms' offers do not depend on it); its
    event was written at step 15."""
    pending = m.notes.get(GM_OFFERS, {})
    assert isinstance(pending, dict)
    for n in m.kingdom_order:
        k = m.state.kingdoms[n]
        if k.city_state or k.retired or k.player is None:
            continue
        k.offer = draw_offer(m.rng, m.rules, generals_of(m.state, n))
        if n in pending:
            k.offer = pending[n]
            continue
        if k.offer is None:
            m.emit(Event("offer.none", n, why="In diesem Mond bietet sich kein Feldherr an."))
            continue
        g, price = k.offer.general, k.offer.price
        extra = (", Zauberer" if g.wizard else "") + \
            (f", Spezialfähigkeit {ability_name(m.rules, g.ability)} (Charakteraktion "
             f"c {g.ability})" if g.ability else "")
        m.emit(Event("offer.general", n,
                     why=f"Der Feldherr {g.name} ({g.troop.value}, Erfahrung {g.experience}"
                         f"{extra}) bietet sich für eine Werbeprämie von {gs(price)} an.",
                     data={"name": g.name, "troop": g.troop.value, "experience": g.experience,
                           "ability": g.ability or "", "wizard": g.wizard, "price": price}))


def ability_name(rules: Rules, code: str) -> str:
    """The German name of a special ability code (``FE`` -> ``Feuerrede``)."""
    spec = rules.section("wizards", "abilities").get(code.upper())
    return str(spec["name"]) if isinstance(spec, dict) and "name" in spec else code


def draw_offer(rng: np.random.Generator, rules: Rules,
               taken: set[str] | frozenset[str] = frozenset()) -> GeneralOffer | None:
    """One month's offer from generals.yaml (draws in a fixed order); a name in
    ``taken`` (the kingdom's generals) gets an ordinal, ``Kunigunde II``."""
    o = rules.section("generals", "offers")
    if rng.random() >= float(o["chance"]):
        return None
    weights = o["troop_weights"]
    troops = [t for t in TroopType if t.value in weights]
    w = np.array([float(weights[t.value]) for t in troops])
    troop = troops[int(rng.choice(len(troops), p=w / w.sum()))]
    exp = int(rng.integers(int(o["experience"]["min"]), int(o["experience"]["max"]) + 1))
    ability = None
    if rng.random() < float(o["ability_chance"]):
        codes = sorted(rules.section("wizards", "abilities"))  # the codes `c` can carry out
        ability = codes[int(rng.integers(len(codes)))] if codes else None
    wizard = bool(rng.random() < float(o["wizard_chance"]))
    name = distinct_name(str(o["names"][int(rng.integers(len(o["names"])))]), taken)
    price = int(o["price_base"][troop.value]) + exp * int(o["price_per_experience"])
    if wizard:
        price *= int(o["wizard_price_factor"])
    return GeneralOffer(General(name, troop, exp, ability, wizard), price)
