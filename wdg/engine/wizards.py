"""Wizards and the generals' character actions ("Der Zauberer", Phase B order
``(c) Charakteraktion <Aktionscode>``).

- Step ``character_actions`` (46): kingdoms in the month's order, armies
  ascending. A wizard knows the codes of ``wizards.yaml`` for taming
  ("Zauberer können Fabelwesen zähmen") and teleporting ("Zauberer können
  teleportieren"); any general may use the one code the game master handed
  him (``General.ability``), defined under ``abilities``. Any other code is
  refused with the reason.
- Step ``wizard_duels`` (55): "Zauberer können sich niemals in derselben oder
  einer angrenzenden Gemark aufhalten. Geschieht dies doch, so kommt es immer
  zum Zauberduell." Every such pair duels once; the loser dies, his army
  (without a general) returns to 000.00 and its soldiers scatter.

Events: ``c.refused``, ``c.ability``, ``c.tame`` / ``c.tame.failed``,
``c.teleport`` (gold, ledger ``magic``), ``wizard.duel`` (public),
``wizard.fallen`` (with ``lost``).
"""

from __future__ import annotations

from wdg.engine.combat import destroy_army, ensure_kingdom_order, phase_b_orders
from wdg.engine.creatures import creature_strength, kind_of
from wdg.engine.events import Event, Reason
from wdg.engine.treasury import count, gs, pct, spend
from wdg.engine.militia import militia_cap
from wdg.engine.month import Month, step
from wdg.engine.morale import action_factor
from wdg.errors import WdgError
from wdg.orders.model import CharacterAction
from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import Army, ArmyStatus
from wdg.world.terrain import is_closed, is_water, terrain

AREA = "wizards"
GOLD_ORDERS = frozenset({"c"})
"""A character action may take gold from the treasury: teleporting (:func:`teleport`)."""


def _refuse(m: Month, army: Army, order: CharacterAction, why: str,
            code: Reason = Reason.RULE) -> list[Event]:
    return [m.emit(Event("c.refused", kingdom=army.kingdom, army=army.number, at=army.position,
                         line=order.line, why=f"Charakteraktion {order.code} verweigert: {why}",
                         reason=code))]


def character_action(m: Month, army: Army, order: CharacterAction) -> list[Event]:
    """Carry out one ``c`` order (or refuse it with the reason)."""
    if army.status is not ArmyStatus.ACTIVE or army.general is None or army.position is None:
        return _refuse(m, army, order, "Das Heer ist nicht aktiv")
    if army.number in m.busy:
        return _refuse(m, army, order, "Das Heer ist in diesem Mond anderweitig gebunden")
    code = order.code.upper()
    g = army.general
    if g.wizard and code == str(m.rules.get(AREA, "tame_code")).upper():
        return tame(m, army, order)
    if g.wizard and code == str(m.rules.get(AREA, "teleport_code")).upper():
        return teleport(m, army, order)
    abilities = m.rules.section(AREA, "abilities")
    if g.ability is None or g.ability.upper() != code:
        return _refuse(m, army, order, f"Der Feldherr beherrscht keine Aktion {order.code!r}")
    if code not in abilities:
        return _refuse(m, army, order, f"Der Aktionscode {order.code!r} ist unbekannt")
    return _ability(m, army, order, abilities[code])


def _ability(m: Month, army: Army, order: CharacterAction, spec: dict) -> list[Event]:
    seg = m.state
    g = army.general
    assert g is not None and army.position is not None
    army.morale = max(0, min(100, army.morale + int(spec["morale"])))
    g.experience = max(0, min(100, g.experience + int(spec["experience"])))
    gained = 0
    share = float(spec["militia_share"])
    if share > 0:
        r, c = seg.grid.index(army.position)
        gained = int(militia_cap(seg, m.rules)[r, c] * share)
        seg.militia[r, c] += gained
    return [m.emit(Event("c.ability", kingdom=army.kingdom, army=army.number, at=army.position,
                         line=order.line, why=f"{spec['name']}: ausgeführt",
                         data={"code": order.code.upper(), "morale": int(spec["morale"]),
                               "experience": int(spec["experience"]), "militia": gained}))]


# --- the codes a general commands (what the game master tells him) ------------------------

def action_codes(rules: Rules, wizard: bool, ability: str | None) -> list[dict[str, str]]:
    """The character actions a general can carry out, as the player is told them
    ("(c) Charakteraktion <Aktionscode>": "Falls ein Feldherr eine
    Charakteraktion durchführen kann, werden ihm der dazu notwendige
    Aktionscode und etwaige Erläuterungen automatisch vom Segmentleiter
    mitgeteilt"): each ``code``, its ``usage`` on the sheet and its
    ``meaning`` (German), from wizards.yaml — the same keys
    :func:`character_action` reads. A wizard has the taming and the
    teleporting code; a general with a special ability its one code."""
    out: list[dict[str, str]] = []
    if wizard:
        tp, za = str(rules.get(AREA, "teleport_code")), str(rules.get(AREA, "tame_code"))
        out.append({"code": tp, "usage": f"c {tp} <Gemark>",
                    "meaning": "teleportiert das ganze Heer mit dem Zauberer in eine Gemark bis "
                               f"zu {count(rules.int(AREA, 'teleport_range'), 'Gemark', 'Gemarken')}"
                               " weit, die es betreten darf (nicht in Booten, auf Schiffen oder "
                               f"einer Flotte); kostet {gs(rules.int(AREA, 'teleport_cost_base'))}"
                               f" + {gs(rules.int(AREA, 'teleport_cost_per_gemark'))} je Gemark + "
                               f"{gs(rules.int(AREA, 'teleport_cost_per_unit'))} je Rüstgut; "
                               "gilt als Bewegung"})
        out.append({"code": za, "usage": f"c {za} [Nummer des Fabelwesens]",
                    "meaning": "zähmt ein Fabelwesen in der Gemark des Heeres (ohne Nummer das "
                               "mit der kleinsten); es bleibt zahm, solange der Zauberer bei ihm "
                               "steht; die Chance steigt mit der Erfahrung und sinkt mit der "
                               "Stärke des Fabelwesens"})
    if ability:
        spec = rules.section(AREA, "abilities").get(ability.upper())
        if isinstance(spec, dict):
            parts = [f"Moral {int(spec['morale']):+d}" if int(spec["morale"]) else "",
                     f"Erfahrung {int(spec['experience']):+d}" if int(spec["experience"]) else "",
                     (f"die Miliz der Gemark wächst um {pct(round(float(spec['militia_share']) * 100))}"
                      " ihrer Obergrenze") if float(spec["militia_share"]) else ""]
            meaning = f"{spec['name']}: " + ", ".join(p for p in parts if p)
        else:
            meaning = "vom Segmentleiter verliehen (in diesen Regeln nicht beschrieben)"
        out.append({"code": ability.upper(), "usage": f"c {ability.upper()}", "meaning": meaning})
    return out


# --- taming ---------------------------------------------------------------------------

def tame(m: Month, army: Army, order: CharacterAction) -> list[Event]:
    """Tame a creature on the wizard's gemark (``c ZA [id]``; without an id
    the wild creature with the lowest id)."""
    seg = m.state
    here = sorted((c for c in seg.creatures.values()
                   if c.position == army.position and c.tamed_by is None), key=lambda c: c.id)
    if order.args:
        try:
            wanted = int(order.args[0])
        except ValueError:
            return _refuse(m, army, order, f"{order.args[0]!r} ist keine Nummer eines Fabelwesens")
        here = [c for c in here if c.id == wanted]
    if not here:
        return _refuse(m, army, order, "Kein ungezähmtes Fabelwesen in dieser Gemark")
    cr = here[0]
    r = m.rules
    g = army.general
    assert g is not None
    # the experience is in the taming formula itself; the army's morale changes
    # the chance as for every action ("Die Moral hat Auswirkungen auf die
    # Erfolgswahrscheinlichkeit", morale.yaml; experience counted once)
    chance = (r.num(AREA, "tame_base") + g.experience / 100 * r.num(AREA, "tame_weight")
              - creature_strength(m, cr) / 1000 * r.num(AREA, "tame_per_strength")) \
        * action_factor(r, army.morale, 50)
    chance = max(0.0, min(1.0, chance))
    name = kind_of(m, cr)["name"]
    if m.rng.random() < chance:
        cr.tamed_by = army.number
        return [m.emit(Event("c.tame", kingdom=army.kingdom, army=army.number, at=army.position,
                             line=order.line, why=f"{name} gezähmt; es bleibt zahm, solange "
                                                  f"der Zauberer bei ihm bleibt",
                             data={"creature": cr.id, "chance": round(chance, 3)}))]
    return [m.emit(Event("c.tame.failed", kingdom=army.kingdom, army=army.number, at=army.position,
                         line=order.line, why=f"Zähmung von {name} mißlungen",
                         data={"creature": cr.id, "chance": round(chance, 3)}))]


# --- teleport ---------------------------------------------------------------------------

def _teleport_problem(m: Month, army: Army, target: Hex) -> str | None:
    seg = m.state
    assert army.position is not None
    if not seg.grid.contains(target):
        return "Die Zielgemark liegt außerhalb des Segments"
    dist = army.position.distance(target)
    if dist > m.rules.int(AREA, "teleport_range"):
        return f"Die Zielgemark ist {count(dist, 'Gemark', 'Gemarken')} entfernt (höchstens " \
               f"{m.rules.int(AREA, 'teleport_range')})"
    if army.carried_by is not None or army.carrying is not None or army.boats:
        return "Ein Heer mit Schiffen, Booten oder auf einer Flotte kann nicht teleportieren"
    t = terrain(seg.at(seg.terrain, target))
    if is_water(t) != army.is_fleet:
        return "Landheere nur auf Landgemarken, Flotten nur auf Wassergemarken"
    if is_closed(t, seg.date.month):
        return f"{t.name} kann in diesem Mond nicht betreten werden"
    return None


def teleport(m: Month, army: Army, order: CharacterAction) -> list[Event]:
    """``c TP <Gemark>``: the wizard moves his army by the power of his mind."""
    seg = m.state
    if not order.args:
        return _refuse(m, army, order, "Zielgemark fehlt")
    try:
        target = seg.grid.parse(order.args[0])
    except (WdgError, ValueError) as exc:
        return _refuse(m, army, order, f"Zielgemark {order.args[0]!r} ungültig ({exc})")
    why = _teleport_problem(m, army, target)
    if why is not None:
        return _refuse(m, army, order, why)
    assert army.position is not None
    dist = army.position.distance(target)
    r = m.rules
    cost = r.int(AREA, "teleport_cost_base") + dist * r.int(AREA, "teleport_cost_per_gemark") \
        + army.units * r.int(AREA, "teleport_cost_per_unit")
    kd = seg.kingdoms[army.kingdom]
    if kd.treasury < cost:
        return _refuse(m, army, order, f"Der Reichsschatz reicht nicht ({gs(cost)} nötig)",
                       Reason.GOLD)
    start = army.position
    army.position = target
    m.moved.add(army.number)
    return [spend(m, army.kingdom, cost, kind="c.teleport", ledger="magic", army=army.number,
                  at=target, line=order.line,
                  why=f"Teleportation von {seg.label(start)} nach {seg.label(target)}",
                  data={"from": seg.label(start), "distance": dist})]


@step("character_actions", 46)
def character_actions(m: Month) -> list[Event]:
    """All ``c`` orders, kingdoms in the month's order, armies ascending."""
    orders = phase_b_orders(m)
    by_kingdom: dict[int, dict[int, CharacterAction]] = {}
    for n, o in orders.items():
        if isinstance(o, CharacterAction):
            by_kingdom.setdefault(m.state.armies[n].kingdom, {})[n] = o
    out: list[Event] = []
    for k in ensure_kingdom_order(m):
        for n, action in sorted(by_kingdom.get(k, {}).items()):
            out += character_action(m, m.state.armies[n], action)
    return out


# --- duels --------------------------------------------------------------------------------

def _wizards(m: Month) -> dict[Hex, list[Army]]:
    out: dict[Hex, list[Army]] = {}
    for n in sorted(m.state.armies):
        a = m.state.armies[n]
        if a.status is ArmyStatus.ACTIVE and a.position is not None and a.general is not None \
                and a.general.wizard:
            out.setdefault(a.position, []).append(a)
    return out


def duel(m: Month, a: Army, b: Army) -> list[Event]:
    """One wizard's duel; odds by experience (``wizards.yaml``)."""
    assert a.general is not None and b.general is not None
    r = m.rules
    base, k = r.num(AREA, "duel_base"), r.num(AREA, "duel_sharpness")
    ea, eb = (a.general.experience + base) ** k, (b.general.experience + base) ** k
    p = ea / (ea + eb) if ea + eb > 0 else 0.5
    w, l_ = (a, b) if m.rng.random() < p else (b, a)
    assert w.general is not None and l_.general is not None
    names = (w.general.name, l_.general.name)
    w.general.experience = min(100, w.general.experience + r.int(AREA, "duel_experience_gain"))
    kname = {x.number: m.state.kingdoms[x.kingdom].name for x in (w, l_)}
    # one line for the chronicle (the first side's), each side's on its own sheet
    out = [m.emit(Event("wizard.duel", kingdom=k_, army=x.number, at=x.position,
                        public=x is a,
                        why=f"Zauberduell: {names[0]} (Heer {w.number:04d} von {kname[w.number]}) "
                            f"besiegt {names[1]} (Heer {l_.number:04d} von {kname[l_.number]})",
                        data={"winner": w.number, "loser": l_.number, "chance": round(p, 3)}))
           for k_, x in ((a.kingdom, a), (b.kingdom, b))]
    out += destroy_army(m, l_, "wizard.fallen",
                        f"Der Zauberer {names[1]} fällt im Duell; ohne Feldherrn zerstreut sich "
                        f"das Heer")
    return out


@step("wizard_duels", 55)
def wizard_duels(m: Month) -> list[Event]:
    """Every pair of living wizards in the same or adjacent gemarks duels once;
    wizards by kingdom order, then ascending army number."""
    index = _wizards(m)
    rank = {k: i for i, k in enumerate(ensure_kingdom_order(m))}
    everyone = sorted((a for lst in index.values() for a in lst),
                      key=lambda a: (rank.get(a.kingdom, len(rank)), a.number))
    done: set[tuple[int, int]] = set()
    out: list[Event] = []
    for a in everyone:
        if a.general is None or a.position is None:
            continue
        near = [b for h in (a.position, *a.position.neighbours()) for b in index.get(h, [])]
        for b in sorted(near, key=lambda x: x.number):
            pair = (min(a.number, b.number), max(a.number, b.number))
            if b is a or pair in done or b.general is None or a.general is None:
                continue
            done.add(pair)
            out += duel(m, a, b)
    return out
