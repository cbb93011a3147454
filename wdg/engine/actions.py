"""Phase B orders that do not fight: ``r`` rest, ``t`` training, ``h`` help,
``i`` information, ``s`` search ("Die Heeresbefehle der Phase B (I)").

``b`` and ``e`` are :mod:`wdg.engine.movement`'s; ``o``, ``x`` and ``c``
belong to the combat, conquest and wizard modules. An active army without a
Phase B order rests ("Diesen Befehl führt jedes Heer automatisch aus, wenn es
in der Phase B der Heeresbefehle keinen anderen Befehl erhalten hat").
Numbers come from ``worlds/rules/actions.yaml``; interpretations are in
``docs/rules.md`` ("Phase B orders that do not fight").

``m.notes["actions"]["rested"]`` is the set of armies that rested this month
(a resting fleet's durability rises: "ruht die Flotte, so steigt sie um 5%";
the end of month applies the numbers); ``m.notes["actions"]["helped"]`` the
land gemarks where an army helped (their militia grows back faster at the
end of the month, :mod:`wdg.engine.militia`).

Events: ``action.rest`` (the default rest answers the army's block line),
``action.training``, ``action.help``, ``action.information``,
``action.search.found``, ``action.search.deposit`` (a deposit found,
:mod:`wdg.engine.deposits`), ``action.search.nothing``, ``action.refused`` (a
``b e r t h i s`` order of an army that cannot act in Phase B).
"""

from __future__ import annotations

from dataclasses import dataclass

from wdg.engine.deposits import find as find_deposit
from wdg.engine.events import Event
from wdg.engine.treasury import credit, gs, number
from wdg.engine.month import Month, step
from wdg.engine.morale import army_factor
from wdg.engine.movement import phase_b_armies, phase_b_orders
from wdg.engine.rounding import nearest
from wdg.orders.model import Conquer, Help, Inform, Move, PhaseBOrder, Rest, Search, Train
from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import BUILDING_ORDER, Army, ArmyStatus, Segment, Treasure
from wdg.world.terrain import TAXES, WATER

AREA = "actions"


@dataclass(slots=True)
class _Ctx:
    m: Month
    treasures: dict[Hex, list[int]]
    rested: set[int]
    helped: set[Hex]


@step("actions", 45)
def actions(m: Month) -> None:
    """Execute every ``r t h i s`` order (and the default rest)."""
    ctx = _Ctx(m, _treasures_by_position(m.state), set(), set())
    published = m.notes.setdefault(AREA, {})
    assert isinstance(published, dict)  # only this step writes m.notes[AREA]
    published["rested"] = ctx.rested
    published["helped"] = ctx.helped
    orders = phase_b_orders(m)
    blocks = _block_lines(m)
    acting = set()
    for army in phase_b_armies(m):
        acting.add(army.number)
        order = orders.get(army.number)
        line = getattr(order, "line", 0) or blocks.get(army.number, 0)
        if order is None or isinstance(order, Rest):
            rest(ctx, army, line)
        elif isinstance(order, Train):
            train(ctx, army, line)
        elif isinstance(order, Help):
            help_people(ctx, army, line)
        elif isinstance(order, Inform):
            inform(ctx, army, line)
        elif isinstance(order, Search):
            search(ctx, army, line)
    refuse_idle(m, orders, acting)


_NOT_ACTING = (Move, Conquer, Rest, Train, Help, Inform, Search)
"""Orders only armies that can act in Phase B carry out (movement's and this
module's); ``o``, ``x`` and ``c`` are refused by their own modules."""


def refuse_idle(m: Month, orders: dict[int, PhaseBOrder | None], acting: set[int]) -> None:
    """Every ``b e r t h i s`` order of an army that cannot act in Phase B
    (passive, activating, dismissed or destroyed this month, busy, without a
    general) is refused with the reason, so that no order vanishes."""
    for n in sorted(orders):
        order = orders[n]
        if n in acting or not isinstance(order, _NOT_ACTING):
            continue
        army = m.state.armies[n]
        why = f"Befehl {order} nicht ausgeführt: {_idle_reason(m, army)}"
        m.emit(Event("action.refused", kingdom=army.kingdom, army=n, at=army.position,
                     line=order.line, why=why))


def _idle_reason(m: Month, army: Army) -> str:
    if army.status is ArmyStatus.ACTIVATING:
        return "das Heer ist erst ab dem folgenden Mond aktiv"
    if not army.is_active or army.position is None:
        return ("passive Heere können keine Befehle für die Phase B erhalten "
                "(das Heer steht in 000.00)")
    if army.general is None:
        return "das Heer hat keinen Feldherren"
    return "das Heer ist in diesem Mond anderweitig gebunden (bb, bs oder vs)"


def _block_lines(m: Month) -> dict[int, int]:
    """Army -> the line of its block on its own kingdom's sheet (for the default rest)."""
    out: dict[int, int] = {}
    for k in sorted(m.sheets):
        for block in m.sheets[k].armies:
            a = m.state.armies.get(block.number)
            if a is not None and a.kingdom == k:
                out.setdefault(block.number, block.line)
    return out


def _treasures_by_position(seg: Segment) -> dict[Hex, list[int]]:
    out: dict[Hex, list[int]] = {}
    for t in sorted(seg.treasures.values(), key=lambda x: x.id):
        out.setdefault(t.position, []).append(t.id)
    return out


def _start_position(m: Month, army: Army) -> Hex:
    """"die Gemark, in der es sich zum Beginn des Mondes befindet"."""
    pos = m.start.positions.get(army.number) if m.start is not None else None
    assert army.position is not None
    return pos if pos is not None else army.position


def rest(ctx: _Ctx, army: Army, line: int) -> None:
    """``r``: the army rests (repairs, tends its wounded)."""
    ctx.rested.add(army.number)
    _emit(ctx.m, "action.rest", army, army.position, line, "Das Heer legt eine Ruhepause ein")


def train(ctx: _Ctx, army: Army, line: int) -> None:
    """``t``: "Dieser Befehl kann den Moralwert eines Heeres erhöhen"."""
    rules = ctx.m.rules
    top = rules.int(AREA, "training", "morale_max")
    new = min(top, army.morale + rules.int(AREA, "training", "morale_gain"))
    gain = max(0, new - army.morale)
    army.morale = max(army.morale, new)
    _emit(ctx.m, "action.training", army, army.position, line,
          f"Das Heer trainiert; die Moral steigt um {gain} auf {army.morale}",
          morale=army.morale, gain=gain)


def help_gold(units: int, tid: int, rules: Rules) -> int:
    """The harvest help's gold of ``units`` soldiers helping in an own gemark of
    terrain ``tid`` (actions.yaml ``help``); the forecast uses it too."""
    sec = rules.section(AREA, "help")
    return int(min(units * float(sec["gold_per_soldier"]),
                   int(TAXES[tid]) * float(sec["gold_max_share_of_tax"])))


def help_people(ctx: _Ctx, army: Army, line: int) -> None:
    """``h``: harvest help (gold, own gemarks), gratitude (popularity, own
    gemarks), prosperity (the militia of any land gemark grows back faster at
    the end of the month: ``helped``)."""
    m = ctx.m
    seg = m.state
    here = _start_position(m, army)
    r, c = seg.grid.index(here)
    tid = int(seg.terrain[r, c])
    if army.is_fleet or WATER[tid]:
        _emit(m, "action.help", army, here, line, "Hier gibt es keine Einwohner, denen das "
              "Heer helfen könnte", gold=0, popularity=0)
        return
    ctx.helped.add(here)
    sec = m.rules.section(AREA, "help")
    gold = popularity = 0
    kingdom = seg.kingdoms.get(army.kingdom)
    if int(seg.owner[r, c]) == army.kingdom and kingdom is not None:
        gold = help_gold(army.units, tid, m.rules)
        kingdom.treasury += gold
        before = kingdom.popularity
        kingdom.popularity = min(100, before + int(sec["popularity_gain"]))
        popularity = kingdom.popularity - before
    repaired, left = repair(m, army, here)
    fixed = f"; {repaired} Baueinheiten der Siedlung repariert" + (
        f" ({left} noch beschädigt)" if left else "") if repaired else ""
    m.emit(Event("action.help", kingdom=army.kingdom, army=army.number, at=here, line=line,
                 gold=gold, ledger="income" if gold else "",
                 why=f"Das Heer hilft den Einwohnern: {gs(gold)} Ernteertrag, Beliebtheit "
                     f"+{popularity}{fixed}; die Miliz wächst am Ende des Mondes schneller nach",
                 data={"gold": gold, "popularity": popularity,
                       **({"repaired": repaired, "damage": left} if repaired else {})}))


def repair_capacity(units: int, rules: Rules) -> int:
    """Baueinheiten an army of ``units`` soldiers repairs in a month with ``h``
    ("indem es z.B. Beschädigungen repariert", actions.yaml)."""
    if units <= 0 or not rules.has(AREA, "help", "repair_per_1000_soldiers"):
        return 0
    return max(1, int(units * rules.num(AREA, "help", "repair_per_1000_soldiers") / 1000))


def repair(m: Month, army: Army, here: Hex) -> tuple[int, int]:
    """Repair the damage an ``x`` did to the settlement at ``here`` (any owner's:
    the army helps "den Einwohnern der Gemark"); (repaired, still damaged)."""
    seg = m.state
    damage = seg.damage.get(here, 0)
    r, c = seg.grid.index(here)
    if not damage or seg.settlement[r, c] <= 0:
        return 0, damage
    done = min(damage, repair_capacity(army.units, m.rules))
    seg.settlement[r, c] += done
    if damage - done:
        seg.damage[here] = damage - done
    else:
        del seg.damage[here]
    return done, damage - done


def inform(ctx: _Ctx, army: Army, line: int) -> None:
    """``i``: owner, settlement, buildings and an estimate of the militia of
    the gemark where the army began the month."""
    m = ctx.m
    seg = m.state
    here = _start_position(m, army)
    r, c = seg.grid.index(here)
    owner = int(seg.owner[r, c])
    size = int(seg.settlement[r, c])
    buildings = {b.german: int(seg.buildings[i, r, c])
                 for i, b in enumerate(BUILDING_ORDER) if seg.buildings[i, r, c] > 0}
    # a better army errs less ("Erfolgswahrscheinlichkeit", morale.yaml)
    militia = estimate(m, int(seg.militia[r, c]),
                       m.rules.num(AREA, "information", "militia_error") / army_factor(m.rules, army),
                       m.rules.int(AREA, "information", "round_to"))
    owner_text = f"gehört zum {seg.kingdoms[owner].name}" if owner in seg.kingdoms \
        else "gehört niemandem"
    place = f"Siedlung {seg.settlement_names.get(here, 'Namenlos')} ({size} BE)" if size \
        else "keine Siedlung"
    _emit(m, "action.information", army, here, line,
          f"Die Gemark {owner_text}; {place}; Bauwerke: "
          f"{', '.join(buildings) or 'keine'}; Miliz etwa {number(militia)}",
          owner=owner, settlement=size, settlement_name=seg.settlement_names.get(here, ""),
          buildings=buildings, militia_estimate=militia)


def estimate(m: Month, true: int, error: float, round_to: int) -> int:
    """``true`` off by a uniform share within +-``error``, rounded (one draw)."""
    noisy = true * (1.0 + m.rng.uniform(-error, error))
    step_ = max(1, round_to)
    return max(0, nearest(noisy / step_, m.rules) * step_)


def search_chance(rules: Rules, units: int, factor: float = 1.0) -> float:
    """The chance of a search by ``units`` soldiers (ships already weighted) to
    find each thing hidden in the gemark: base + per_1000_units per 1,000,
    times the army's morale and experience factor (:func:`wdg.engine.morale.
    army_factor`, "Die Moral hat Auswirkungen auf die
    Erfolgswahrscheinlichkeit"), at most ``max``."""
    sec = rules.section(AREA, "search")
    base = float(sec["base"]) + float(sec["per_1000_units"]) * units / 1000
    return min(float(sec["max"]), base * factor)


def search(ctx: _Ctx, army: Army, line: int) -> None:
    """``s``: each treasure in the army's start gemark is found with a chance
    growing with the army's size; found gold goes to the treasury, items
    to the army."""
    m = ctx.m
    here = _start_position(m, army)
    sec = m.rules.section(AREA, "search")
    weight = int(sec["ship_weight"]) if army.is_fleet else 1
    chance = search_chance(m.rules, army.units * weight, army_factor(m.rules, army))
    found = False
    for tid in list(ctx.treasures.get(here, ())):
        treasure = m.state.treasures.get(tid)
        if treasure is None:
            continue
        if m.rng.random() < chance:
            _take(ctx, army, treasure, line)
            ctx.treasures[here].remove(tid)
            found = True
    # a Bodenschatz is a treasure of the ground: the same search finds it
    found = find_deposit(m, army, here, chance, line) or found
    if not found:
        _emit(m, "action.search.nothing", army, here, line, "Die Suche bleibt ohne Erfolg")


def _take(ctx: _Ctx, army: Army, treasure: Treasure, line: int) -> None:
    m = ctx.m
    del m.state.treasures[treasure.id]
    if treasure.item:
        army.items.append(treasure.item)
    what = " und ".join(x for x in (gs(treasure.gold) if treasure.gold else "",
                                    treasure.item) if x) or "nichts von Wert"
    credit(m, army.kingdom, treasure.gold, kind="action.search.found",
           ledger="treasure" if treasure.gold else "", army=army.number, at=treasure.position,
           line=line, why=f"Das Heer findet {what}" + (f" ({treasure.note})" if treasure.note else ""),
           data={"treasure": treasure.id, "gold": treasure.gold, "item": treasure.item})


def _emit(m: Month, kind: str, army: Army, at: Hex | None, line: int, why: str,
          **data: object) -> None:
    m.emit(Event(kind, kingdom=army.kingdom, army=army.number, at=at, why=why, line=line,
                 data=dict(data)))
