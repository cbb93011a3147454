"""The legal choices of next month's order sheet, for the HTML order editor.

:func:`order_choices` lists, from a kingdom's view only, what each army and
the kingdom may order next month — every choice one the checker
(:mod:`wdg.orders.checker`) accepts without an error:

- per active army the Phase A orders its place allows (``nr`` in an own
  settlement with Kaserne, fleets with Hafen; ``er``; ``eh`` into an own army
  of the same troop type on the same gemark or ``0000``; ``bb`` (with
  soldiers) towards the water neighbours of a wooded or swampy coast; ``bs`` onto an own empty
  fleet in an own harbour that can carry the army; ``vs`` onto the fleet's harbour or an adjacent
  coast; ``nn`` in an own settlement) and the Phase B orders (``b`` and ``e``
  to the gemarks in reach on known terrain, the forecast's
  :func:`wdg.orders.forecast.reach`; ``o`` and ``x`` off the own land; ``c``
  with the general's ability; ``t h i s r``);
- per passive army ``nf`` (when a general offers himself) and ``nh`` in the
  own settlements with Kaserne (fleets: Hafen);
- the kingdom orders its palaces allow: ``BH BK BQ`` in own settlements below
  the highest building level (``BH`` beside water), ``BM`` on own land, ``SS`` where a settlement
  may be built, ``DS`` for each kingdom of the diplomacy list with the changes
  that keep the status within 1..9, ``F+``;
- the recipients of messages (the diplomacy list).

Reach, the gold each order costs, each army's pay and upkeep and the
expected income come from the forecast's :func:`wdg.orders.forecast.plan_data`:
one planning module, not a copy.
Everything is plain data (JSON) with addresses as strings; the editor's
JavaScript only shows it and writes the sheet text.
"""

from __future__ import annotations

from typing import Any

from wdg.engine.army_orders import recruit_building, recruit_volume
from wdg.engine.conquest import einnahme_problem
from wdg.engine.diplomacy import conquest_statuses, status_allows_conquest
from wdg.engine.wizards import action_codes
from wdg.engine.movement import step_verdict
from wdg.orders.forecast import KnownTerrain, plan_data
from wdg.orders.params import NAME_MAX, SETTLE_MAX, SETTLE_MIN
from wdg.orders.view import ArmyView, KingdomView
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import Building, TroopType
from wdg.world.terrain import Component, closed_reason, has, is_land, is_water, \
    settlement_cost_factor, ship_step_ok

_BOAT_FORESTS = (Component.WALD, Component.REGENWALD, Component.SUMPF)
_DS_STEPS = (("++", 2), ("+", 1), ("-", -1), ("--", -2))
_DESTROY = (("X", "Siedlung"), ("H", "Hafen"), ("K", "Kaserne"), ("M", "Mine"), ("Q", "Palast"))


def order_choices(view: KingdomView, rules: Rules,
                  foreign_settlements: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every legal choice of ``view``'s kingdom for the month to be played
    (see the module docstring). ``foreign_settlements``: addresses of
    settlements of others the kingdom knows (the report's known map), where
    ``x`` may be ordered."""
    km = KnownTerrain(view, rules)
    plan = plan_data(view, rules, km)
    costs = plan["costs"]
    armies = []
    ordered = sorted(view.armies.values(), key=lambda x: x.number)
    conquerable: dict[str, bool] = {}  # by address: armies standing together reach the same
    for a in ordered:
        p = plan["armies"][str(a.number)]
        got = _army(view, km, rules, costs, a, p["reach"], foreign_settlements, ordered,
                    conquerable, plan["gold"]["deserters"])
        got["running"] = p["running"]
        armies.append(got)
    return {"armies": armies, "kingdom": _kingdom(view, rules, costs),
            "recipients": sorted(view.diplomacy), "treasury": plan["treasury"],
            "income": plan["income"], "gold": plan["gold"]}


def _army(view: KingdomView, km: KnownTerrain, rules: Rules, costs: dict[str, Any],
          a: ArmyView, reach: list[dict[str, Any]], foreign: frozenset[str],
          ordered: list[ArmyView], conquerable: dict[str, bool],
          deserters: dict[str, int] | None = None) -> dict[str, Any]:
    """``deserters``: army -> Rüstgüter the forecast expects to desert at the
    pay step (:func:`wdg.orders.forecast.gold_plan`)."""
    out: dict[str, Any] = {
        "number": a.number, "position": str(a.position), "passive": a.passive,
        "troop": a.troop or "", "units": a.units, "fleet": a.is_fleet,
        "general": a.general.name if a.general else "",
        "wizard": bool(a.general and a.general.wizard),
        "carried_by": a.carried_by, "carrying": a.carrying, "boats": a.boats,
    }
    if a.passive:
        out["a"] = _passive(view, rules, costs, a)
        out["b"] = []
        out["reach"] = []
        return out
    out["left_out"] = []
    out["a"] = _phase_a(view, km, rules, costs, a, ordered, out["left_out"], deserters)
    out["reach"] = [_target(r) for r in reach]
    out["b"] = _phase_b(view, km, rules, a, out["reach"], foreign, conquerable, out["left_out"])
    return out


def _target(r: dict[str, Any]) -> dict[str, Any]:
    """A reachable gemark as the editor needs it: the address, the directions
    of the path (its gemarks follow from them), the share of the month's
    movement it costs, and only when they apply the stop and the chance to
    get lost."""
    out: dict[str, Any] = {"to": r["to"], "dirs": " ".join(r["directions"]), "cost": r["cost"]}
    if r["stops"]:
        out["stops"] = True
    if r["lost_chance"]:
        out["lost"] = r["lost_chance"]
    return out


def _own_settlements(view: KingdomView, need: Building | None = None) -> list[str]:
    return sorted(str(s.at) for s in view.settlements.values()
                  if s.at in view.owned and (need is None or s.level(need) > 0))


def _passive(view: KingdomView, rules: Rules, costs: dict[str, Any],
             a: ArmyView) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if view.offer is not None:
        g = view.offer.general
        codes = action_codes(rules, g.wizard, g.ability)
        label = f"Feldherrn {g.name} anwerben ({g.troop}, Erfahrung {g.experience}" \
            + (", Zauberer" if g.wizard else "") + ")"
        if codes:
            label += " – Charakteraktionen: " + "; ".join(
                f"{x['usage']}: {x['meaning']}" for x in codes)
        out.append({"code": "nf", "cost": costs["nf"], "label": label})
    if a.general is not None:
        need = Building.HAFEN if a.is_fleet else Building.KASERNE
        places = _own_settlements(view, need)
        if places and a.troop:
            out.append({"code": "nh", "param": "choice", "options": places,
                        "cost": costs["nh"].get(a.troop, 0), "label": "Heer aktivieren in"})
    return out


def _phase_a(view: KingdomView, km: KnownTerrain, rules: Rules, costs: dict[str, Any],
             a: ArmyView, ordered: list[ArmyView],
             left_out: list[dict[str, str]] | None = None,
             deserters: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """``ordered``: the view's armies by number; ``left_out`` gets the
    transport the month would refuse, with the reason."""
    left_out = left_out if left_out is not None else []
    deserters = deserters or {}
    pos = a.position
    own = view.settlements.get(pos) if pos in view.owned else None
    out: list[dict[str, Any]] = []
    if a.carried_by is not None or a.boats:
        # on a fleet or in boats: the only Phase A order is leaving them
        # (the terrain closed this month is left out: the engine's vs and the
        # checker refuse it, terrain.closed_reason)
        places = [str(pos)] if a.carried_by is not None and _ship_ok(view, pos) else []
        for d in Direction:
            x = view.neighbour(pos, d)
            t = view.terrain_at(x) if x is not None else None
            if x is not None and t is not None and is_land(t) and km.is_coastal(x) \
                    and ship_step_ok(t.height) and closed_reason(t, view.month.month) is None:
                places.append(str(x))
        if places:
            out.append({"code": "vs", "param": "choice", "options": sorted(set(places)),
                        "whole": True, "label": "Schiffe verlassen nach"})
        return out
    if own is not None and a.troop and own.level(recruit_building(a.troop)) > 0:
        # "bis zum Rüstvolumen": the settlement's militia caps the recruits, as the
        # engine's recruiting caps them (an older view without militia: the parser's cap)
        most = 100000 if own.militia is None else min(100000, recruit_volume(own.militia,
                                                                            a.troop, rules))
        if most > 0:
            out.append({"code": "nr", "param": "count", "min": 1, "max": most,
                        "each": costs["nr"].get(a.troop, 0), "label": "Rüstgüter anwerben"})
    spare = a.units
    cargo = view.armies.get(a.carrying) if a.carrying is not None else None
    if cargo is not None and cargo.troop:
        # a fleet keeps the ships its cargo needs ("Tragkraft"), as the engine's er
        room = rules.int("economy", "space", "ship_capacity")
        spare = (a.units * room - cargo.units * rules.int("economy", "space", cargo.troop)) // room
    # the pay step comes first: of an army short of pay the expected deserters
    # are gone before Phase A (the forecast's figure, plan_data's gold plan)
    left = a.units - deserters.get(str(a.number), 0)
    if left < min(spare, a.units) and spare > 0:
        left_out.append({"code": "er", "why": f"höchstens {left} Rüstgüter: voraussichtlich "
                                              f"desertieren {a.units - left} zu Beginn des "
                                              "Mondes (Sold und Unterhalt reichen nicht)"})
    spare = min(spare, left)
    if spare > 0:
        out.append({"code": "er", "param": "count", "min": 1, "max": min(spare, a.units),
                    "label": "Rüstgüter entlassen"})
    partners = ["0000"] + [f"{b.number:04d}" for b in ordered
                           if b.number != a.number and b.position == pos and b.troop == a.troop
                           and not b.passive]
    if a.carrying is None:
        out.append({"code": "eh", "param": "choice", "options": partners, "whole": True,
                    "label": "Heer entlassen (in Heer)"})
    t = view.terrain_at(pos)
    if a.troop == TroopType.KRIEGER.value and a.units > 0 and t is not None \
            and km.is_coastal(pos) and any(has(t, c) for c in _BOAT_FORESTS):
        dirs = [d.value for d in Direction
                if (x := view.neighbour(pos, d)) is not None
                and (tx := view.terrain_at(x)) is not None and is_water(tx)]
        if dirs:
            out.append({"code": "bb", "param": "choice", "options": dirs, "whole": True,
                        "label": "Boote bauen, Richtung"})
    if not a.is_fleet and own is not None and own.level(Building.HAFEN) > 0 \
            and t is not None and ship_step_ok(t.height):
        space = a.units * rules.int("economy", "space", a.troop or TroopType.KRIEGER.value)
        room = rules.int("economy", "space", "ship_capacity")
        here = [f for f in ordered if f.is_fleet and f.position == pos and f.carrying is None
                and not f.passive]
        fleets = [f"{f.number:04d}" for f in here if f.units * room >= space]
        # "Tragkraft": a fleet too small is not offered, and the army says why
        left_out += [{"code": "bs", "why": f"Flotte {f.number:04d} trägt nur {f.units * room} "
                                           f"Raumfaktoren, das Heer braucht {space}"}
                     for f in here if f.units * room < space]
        if fleets:
            out.append({"code": "bs", "param": "choice", "options": fleets, "whole": True,
                        "label": "Schiffe betreten (Flotte)"})
    if own is not None:
        out.append({"code": "nn", "param": "name", "max": NAME_MAX,
                    "label": f"Siedlung {own.name} umbenennen in"})
    return out


def _ship_ok(view: KingdomView, a: Address) -> bool:
    t = view.terrain_at(a)
    return t is not None and is_land(t) and ship_step_ok(t.height) \
        and closed_reason(t, view.month.month) is None


def _phase_b(view: KingdomView, km: KnownTerrain, rules: Rules, a: ArmyView,
             reach_list: list[dict[str, Any]], foreign: frozenset[str],
             conquerable: dict[str, bool], left_out: list[dict[str, str]]) -> list[dict[str, Any]]:
    """``conquerable``: :func:`_conquerable` by address, remembered for the
    view; ``left_out`` gets what the month would not carry out, each with the
    engine's reason (``code``, ``why``: German)."""
    out: list[dict[str, Any]] = []
    if reach_list:
        out.append({"code": "b", "param": "reach", "label": "Bewegung nach"})
    left_out += _closed_steps(view, km, a)
    pos = a.position
    fights = not a.is_fleet and a.units > 0 and not a.boats and a.carried_by is None
    if fights:
        targets = []
        for r in reach_list:
            ok = conquerable.get(r["to"])
            if ok is None:
                ok = conquerable[r["to"]] = _conquerable(view, Address.parse(r["to"]), foreign)
            if ok:
                targets.append(r["to"])
        if targets:
            out.append({"code": "e", "param": "reach", "targets": targets,
                        "label": "Einnahme: Bewegung nach"})
        if pos not in view.owned and (why := _no_occupation(view, rules, pos)):
            left_out.append({"code": "o", "why": why})
        elif pos not in view.owned:
            out.append({"code": "o", "label": "Okkupation"})
            if str(pos) in foreign:
                out.append({"code": "x", "param": "choice",
                            "options": [c for c, _ in _DESTROY],
                            "names": [n for _, n in _DESTROY], "label": "Zerstören"})
    g = a.general
    if g is not None and g.ability:
        out.append({"code": "c", "param": "fixed", "value": g.ability,
                    "label": f"Charakteraktion {g.ability}"})
    if g is not None and g.wizard:
        # a teleport's target and a creature to tame are the player's to name:
        # the form knows neither, the text takes them (the sheet lists the codes)
        left_out.append({"code": "c", "why": "Die Zauber c TP <Gemark> (teleportieren) und "
                         "c ZA [Nummer] (Fabelwesen zähmen) bietet das Formular nicht an: "
                         "Ziel und Fabelwesen bitte im Text des Spielzugs angeben"})
    out += [{"code": "t", "label": "Training"}, {"code": "h", "label": "Hilfe"},
            {"code": "i", "label": "Information"}, {"code": "s", "label": "Suche"},
            {"code": "r", "label": "Ruhepause"}]
    return out


def _conquerable(view: KingdomView, at: Address, foreign: frozenset[str]) -> bool:
    """A land gemark not the kingdom's own that the month's conquest step would
    give to an ``e`` (the engine's :func:`~wdg.engine.conquest.einnahme_problem`)
    as far as the kingdom knows: the owner as last seen, a settlement of
    others it knows (``foreign``)."""
    t = view.terrain_at(at)
    if t is None or not is_land(t) or at in view.owned:
        return False
    return einnahme_problem(view.owners.get(at, 0), str(at) in foreign, False) is None


def _no_occupation(view: KingdomView, rules: Rules, at: Address) -> str:
    """Why ``o`` at ``at`` would be refused by the month, as far as the kingdom
    knows ("" if it may be ordered): water, or a foreign owner whose status
    allows no conquest (the engine's :func:`~wdg.engine.conquest.occupy`)."""
    t = view.terrain_at(at)
    if t is not None and is_water(t):
        return "Wassergemarken können nicht erobert werden"
    owner = view.owners.get(at, 0)
    if owner and not status_allows_conquest(rules, view.diplomacy.get(owner)):
        have = view.diplomacy.get(owner)
        allowed = " oder ".join(str(x) for x in conquest_statuses(rules))
        return (f"die Gemark {at} gehört Königreich {owner}; "
                + (f"Ihr Diplomatiestatus zu ihm ist {have}" if have is not None
                   else "es steht nicht auf Ihrer Liste der diplomatischen Beziehungen")
                + f", eine Eroberung ist nur bei {allowed} möglich")
    return ""


def _closed_steps(view: KingdomView, km: KnownTerrain, a: ArmyView) -> list[dict[str, str]]:
    """The neighbours the army cannot enter this month, each with the movement
    rule's reason (season, terrain, water, height: the engine's
    :func:`~wdg.engine.movement.step_verdict`, as :func:`wdg.orders.forecast.reach`
    asks it)."""
    if a.passive or a.carried_by is not None or a.general is None:
        return []
    here = km.tid(a.position)
    if here is None:
        return []
    out = []
    for e in km.edges(a.position):
        v = step_verdict(km.t, a.mover_kind, here, e.tid, km.month, coastal=e.coastal,
                         harbour=e.harbour, spent=0)
        if v.reason is not None:
            out.append({"code": "b", "why": f"{e.code} nach {e.label}: {v.reason}"})
    return out


def _kingdom(view: KingdomView, rules: Rules, costs: dict[str, Any]) -> dict[str, Any]:
    top = rules.int("economy", "buildings", "max_level")
    orders: list[dict[str, Any]] = []
    for code, b in (("BH", Building.HAFEN), ("BK", Building.KASERNE), ("BQ", Building.PALAST)):
        places = sorted(str(s.at) for s in view.settlements.values()
                        if s.at in view.owned and s.level(b) < top
                        and (b is not Building.HAFEN or _by_water(view, s.at)))
        if places:
            orders.append({"code": code, "param": "choice", "options": places,
                           "cost": costs["B"][b.value], "label": f"{b.german} bauen in"})
    mines = sorted(str(a) for a in view.owned if (t := view.terrain_at(a)) is not None
                   and is_land(t) and _mine_level(view, a) < top)
    label = "Mine bauen in"
    if view.deposits is not None:
        # "für die Ausbeutung eines bereits bekannten Bodenschatzes": the gemarks with a
        # deposit the kingdom found first, and the label says where a mine yields
        found = {str(a): kind for a, kind in view.deposits.items()}
        mines.sort(key=lambda a: (a not in found, a))
        known = ", ".join(f"{a} {found[a]}" for a in mines if a in found)
        label += (f" (fördert nur auf einem gefundenen Bodenschatz: {known})" if known else
                  " (kein Bodenschatz gefunden: eine Mine fördert nichts)")
    if mines:
        orders.append({"code": "BM", "param": "choice", "options": mines,
                       "cost": costs["B"][Building.MINE.value], "label": label})
    factors = {str(a): settlement_cost_factor(t) for a in view.owned
               if (t := view.terrain_at(a)) is not None and is_land(t)
               and settlement_cost_factor(t) is not None}
    if factors:
        orders.append({"code": "SS", "param": "settle", "options": sorted(factors),
                       "factor": dict(sorted(factors.items())), "each": costs["SS"],
                       "min": SETTLE_MIN, "max": SETTLE_MAX,
                       "label": "Siedlung bauen in"})
    ds = []
    for k, status in sorted(view.diplomacy.items()):
        steps = [s for s, d in _DS_STEPS if 1 <= status + d <= 9]
        if steps:
            ds.append({"kingdom": k, "status": status, "steps": steps})
    if ds:
        orders.append({"code": "DS", "param": "diplomacy", "options": ds,
                       "label": "Diplomatiestatus ändern"})
    orders.append({"code": "F+", "param": "gold", "min": 1, "max": 10_000_000,
                   "label": "Volksfest veranstalten für"})
    return {"limit": view.max_kingdom_orders(), "palaces": view.palaces, "orders": orders}


def _by_water(view: KingdomView, a: Address) -> bool:
    """A known water gemark borders ``a`` (a Hafen needs one)."""
    return any((x := view.neighbour(a, d)) is not None and (t := view.terrain_at(x)) is not None
               and is_water(t) for d in Direction)


def _mine_level(view: KingdomView, a: Address) -> int:
    s = view.settlements.get(a)
    return s.level(Building.MINE) if s is not None else view.mines.get(a, 0)
