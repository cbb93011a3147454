"""Creatures ("Die Fabelwesen").

"Heere ... führen niemals Angriffe gegen Fabelwesen, sondern verhalten sich
abwartend und kämpfen nur dann, falls sie von ihnen angegriffen werden."
Kinds live in ``worlds/rules/creatures.yaml`` (strength, movement, habitat,
aggressive, evasion, effects, on_meeting).

- Step ``creature_attacks`` (49, right before the armies' fights): every
  aggressive, untamed creature (ascending id) attacks one army on its gemark
  that has not fought yet (kingdoms in the month's order, then ascending
  number); that is the army's one fight. Its effects (blinding, hypnotising,
  disease, petrifying, turning soldiers undead) strike first. A beaten
  creature may escape "durch Wegfliegen oder -tauchen" (``evasion``);
  otherwise it dies and "Schätze oder magische Gerätschaften ... [fallen] dem
  Sieger zu". Creatures with ``on_meeting`` harm every other army on their
  gemark ("manchmal aber auch schon das bloße Zusammentreffen").
- Step ``creatures`` (86): tamed creatures whose wizard left go wild again;
  aggressive untamed creatures wander ``movement`` gemarks at random.

Events: ``creature.attack`` (public), ``creature.effect`` (with ``lost``),
``creature.evaded``, ``creature.slain`` (public), ``creature.treasure``
(gold, ledger ``treasure``), ``creature.won``, ``creature.wild``,
``creature.moved``, ``creature.sighted`` (public, when a creature enters a
kingdom's territory).
"""

from __future__ import annotations

from typing import Any

from wdg.engine.combat import (
    adjust,
    armies_by_hex,
    army_strength,
    demoralised,
    destroy_army,
    ensure_kingdom_order,
    lose,
    win_chance,
    winner_losses,
    wreck_boats,
)
from wdg.engine.events import Event
from wdg.engine.treasury import count, credit
from wdg.engine.month import Month, step
from wdg.engine.rounding import nearest
from wdg.world.hexgrid import Hex
from wdg.world.state import Army, ArmyStatus, Creature
from wdg.world.terrain import is_water, terrain

AREA = "creatures"
EFFECT_NAMES = {"blenden": "geblendet", "krankheit": "an einer Krankheit gestorben",
                "versteinern": "versteinert", "untote": "in Untote verwandelt"}
"""Effects that take soldiers away (``hypnotisieren`` only keeps them from fighting)."""


def kind_of(m: Month, cr: Creature) -> dict[str, Any]:
    """The rules of a creature's kind (a missing kind is a DataError)."""
    return m.rules.section(AREA, "kinds", cr.kind)


def creature_strength(m: Month, cr: Creature) -> float:
    """Strength of the whole horde."""
    return cr.count * float(kind_of(m, cr)["strength"])


def may_stand(m: Month, kind: dict[str, Any], h: Hex) -> bool:
    """Habitat check: ``land``, ``water`` or ``any``."""
    seg = m.state
    if not seg.grid.contains(h):
        return False
    water = is_water(terrain(seg.at(seg.terrain, h)))
    return {"land": not water, "water": water}.get(kind["habitat"], True)


def _new_undead(m: Month, at: Hex, n: int) -> None:
    seg = m.state
    for cr in seg.creatures.values():
        if cr.kind == "untote" and cr.position == at and cr.tamed_by is None:
            cr.count += n
            return
    new_id = max(seg.creatures, default=0) + 1
    seg.creatures[new_id] = Creature(new_id, "untote", at, count=n)


def apply_effects(m: Month, cr: Creature, army: Army) -> list[Event]:
    """The soldiers a creature blinds, infects, petrifies or turns undead."""
    kind = kind_of(m, cr)
    out: list[Event] = []
    base = army.units
    for effect, share in sorted(kind.get("effects", {}).items()):
        if effect not in EFFECT_NAMES:
            continue
        n = min(army.units, int(base * float(share)))
        undead = n // m.rules.int(AREA, "undead_per_creature") if effect == "untote" else 0
        out += lose(m, army, n, "creature.effect",
                    f"{count(n, 'Soldat', 'Soldaten')} von {said(kind, 'dative')} {EFFECT_NAMES[effect]}", effect=effect,
                    undead=undead)
        if undead:
            _new_undead(m, cr.position, undead)
    return out


def said(kind: dict[str, Any], case: str = "subject") -> str:
    """The kind's German form (``creatures.yaml``: subject, accusative, dative;
    default its name) for texts that say who did what to whom."""
    return str(kind.get(case) or kind["name"])


def verb(kind: dict[str, Any], one: str, many: str) -> str:
    """The verb agreeing with the kind: "Ein Drache griff", "Untote griffen"."""
    return many if kind.get("plural") else one


def hypnotised(kind: dict[str, Any], units: int) -> int:
    """Soldiers of ``units`` a creature of ``kind`` hypnotises for the fight
    (``effects.hypnotisieren``: they do not fight and are not lost), rounded
    down: a soldier is hypnotised or not."""
    return int(units * float(kind.get("effects", {}).get("hypnotisieren", 0)))


def creature_losses(m: Month, count_: int, sa: float, sc: float) -> int:
    """What a horde of ``count_`` that beat an army loses: the winner's share of
    combat.yaml (``winner_loss_factor`` * sA / sC, at most ``winner_loss_max``),
    rounded to the nearest whole creature (a half as the rules say:
    :func:`wdg.engine.rounding.nearest`)."""
    r = m.rules
    return nearest(count_ * min(r.num("combat", "winner_loss_max"),
                                r.num("combat", "winner_loss_factor") * sa / max(sc, 1e-9)), r)


def creature_fight(m: Month, cr: Creature, army: Army) -> list[Event]:
    """An aggressive creature attacks ``army`` (the army's one fight)."""
    kind = kind_of(m, cr)
    at = cr.position
    m.fought.add(army.number)
    out = [m.emit(Event("creature.attack", kingdom=army.kingdom, army=army.number, at=at,
                        public=True, why=f"{said(kind)} {verb(kind, 'griff', 'griffen')} Heer "
                        f"{army.number:04d} von {m.state.kingdoms[army.kingdom].name} in "
                        f"{m.state.label(at)} an",
                        data={"creature": cr.id, "kind": cr.kind, "count": cr.count}))]
    out += apply_effects(m, cr, army)
    fighters = max(0, army.units - demoralised(m, army) - hypnotised(kind, army.units))
    sa = army_strength(m, army, at, fighters)
    sc = creature_strength(m, cr)
    if m.rng.random() >= win_chance(m, sa, sc):
        cr.count = max(1, cr.count - creature_losses(m, cr.count, sa, sc))
        out += destroy_army(m, army, "creature.won",
                            f"Von {said(kind, 'dative')} geschlagen; der Feldherr fällt")
        return out
    out += lose(m, army, winner_losses(m, fighters, sa, sc), "combat.losses",
                f"Verluste im Kampf gegen {said(kind, 'accusative')}")
    adjust(m, army, True)
    if m.rng.random() < float(kind["evasion"]):
        out.append(m.emit(Event("creature.evaded", kingdom=army.kingdom, army=army.number, at=at,
                                why=f"{said(kind)} {verb(kind, 'entzieht', 'entziehen')} sich "
                                    "dem Kampf",
                                data={"creature": cr.id})))
        _step_away(m, cr, kind)
    else:
        out += _slain(m, cr, army, kind)
    out += wreck_boats(m, army)
    return out


def _slain(m: Month, cr: Creature, army: Army, kind: dict[str, Any]) -> list[Event]:
    seg = m.state
    del seg.creatures[cr.id]
    out = [m.emit(Event("creature.slain", kingdom=army.kingdom, army=army.number, at=cr.position,
                        public=True, why=f"Heer {army.number:04d} von "
                        f"{m.state.kingdoms[army.kingdom].name} besiegte {said(kind, 'accusative')} "
                        f"in {seg.label(cr.position)}",
                        data={"creature": cr.id, "kind": cr.kind}))]
    if cr.items:
        # "Schätze oder magische Gerätschaften ..., die ... dem Sieger zufallen
        # und von ihm automatisch aufgenommen werden": the items join the
        # victorious army's items, as a search's finds do
        army.items.extend(cr.items)
    if cr.gold or cr.items:
        out.append(credit(m, army.kingdom, cr.gold, kind="creature.treasure", ledger="treasure",
                          army=army.number, at=cr.position,
                          why="Der Schatz des Fabelwesens fällt dem Sieger zu"
                          + (f"; das Heer nimmt {', '.join(cr.items)} auf" if cr.items else ""),
                          data={"items": list(cr.items)}))
    return out


def _step_away(m: Month, cr: Creature, kind: dict[str, Any]) -> bool:
    """Move one gemark in a random allowed direction; False if none is allowed."""
    options = [h for h in cr.position.neighbours() if may_stand(m, kind, h)]
    if not options:
        return False
    cr.position = options[int(m.rng.integers(len(options)))]
    return True


@step("creature_attacks", 49)
def creature_attacks(m: Month) -> list[Event]:
    """Aggressive creatures attack whoever is on their gemark."""
    order = ensure_kingdom_order(m)
    rank = {k: i for i, k in enumerate(order)}
    index = armies_by_hex(m)
    out: list[Event] = []
    attacked: dict[int, int] = {}
    for cid in sorted(m.state.creatures):
        cr = m.state.creatures.get(cid)
        if cr is None or cr.tamed_by is not None or not kind_of(m, cr)["aggressive"]:
            continue
        here = [a for a in index.get(cr.position, []) if a.number not in m.fought
                and a.status is ArmyStatus.ACTIVE]
        if here:
            target = min(here, key=lambda a: (rank.get(a.kingdom, len(rank)), a.number))
            attacked[target.number] = cid
            out += creature_fight(m, cr, target)
    out += _meetings(m, index, attacked)
    return out


def _meetings(m: Month, index: dict[Hex, list[Army]], attacked: dict[int, int]) -> list[Event]:
    out: list[Event] = []
    for cid in sorted(m.state.creatures):
        cr = m.state.creatures.get(cid)
        if cr is None or cr.tamed_by is not None or not kind_of(m, cr).get("on_meeting"):
            continue
        for a in index.get(cr.position, []):
            if a.position == cr.position and attacked.get(a.number) != cid and a.units > 0:
                out += apply_effects(m, cr, a)
    return out


# --- end of month --------------------------------------------------------------------

@step("creatures", 86)
def creature_moves(m: Month) -> list[Event]:
    """"Die Fabelwesen bleiben jedoch nur so lange zahm, wie sich der Zauberer
    bei ihnen aufhält"; aggressive wild creatures wander."""
    seg = m.state
    out: list[Event] = []
    for cid in sorted(seg.creatures):
        cr = seg.creatures[cid]
        kind = kind_of(m, cr)
        if cr.tamed_by is not None:
            w = seg.armies.get(cr.tamed_by)
            if w is None or w.status is not ArmyStatus.ACTIVE or w.general is None \
                    or not w.general.wizard or w.position != cr.position:
                out.append(m.emit(Event("creature.wild", at=cr.position,
                                        kingdom=w.kingdom if w else None, army=cr.tamed_by,
                                        why=f"{said(kind)} {verb(kind, 'ist', 'sind')} nicht "
                                            "mehr zahm")))
                cr.tamed_by = None
            continue
        if not kind["aggressive"]:
            continue
        start = cr.position
        for _ in range(int(kind["movement"])):
            if not _step_away(m, cr, kind):
                break
        if cr.position != start:
            out.append(m.emit(Event("creature.moved", at=cr.position,
                                    data={"creature": cid, "from": list(start)})))
            owner = seg.at(seg.owner, cr.position)
            if owner in seg.kingdoms:
                out.append(m.emit(Event("creature.sighted", kingdom=owner, at=cr.position,
                                        public=True, data={"creature": cr.id, "kind": cr.kind,
                                                           "of": owner},
                                        why=f"{said(kind)} {verb(kind, 'wurde', 'wurden')} im "
                                            f"Reichsgebiet von {seg.kingdoms[owner].name} "
                                            "gesichtet")))
    return out
