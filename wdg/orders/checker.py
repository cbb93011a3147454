"""The checker: a parsed sheet against what the kingdom knows (its view).

``check_sheet(sheet, view)`` returns the parser's diagnostics plus one
diagnostic for every order the rules do not allow for this kingdom now
("Für alle Befehle gilt allgemein: a) Für bestimmte Befehle kann es
festgelegt sein, daß sie nur ... bei dem Vorliegen bestimmter Bedingungen
erteilt werden können"). Gold is not checked: the treasury changes during
the month, the engine refuses what cannot be paid.

:func:`accepted` gives the sheet the engine runs: the orders on lines with an
error removed ("die Ausführung des Befehles ganz verweigern").
"""

from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Iterator

from wdg.engine.movement import terrain_verdict
from wdg.orders import model as m
from wdg.orders.acceptance import WHOLE
from wdg.orders.outcome import IntakeReason
from wdg.orders.view import ArmyView, KingdomView
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import Building, MoverKind, TroopType
from wdg.world.terrain import Component, closed_reason, coastal_mask, has, is_land, is_water, ship_step_ok, \
    settlement_cost_factor, terrain

E, W = m.Severity.ERROR, m.Severity.WARNING
REFUSED = "Befehl verweigert"
REST = "Befehl verweigert – Heer ruht (kein Phase-B-Befehl)"
_BOAT_FORESTS = (Component.WALD, Component.REGENWALD, Component.SUMPF)
# Fixed by the rule text, not tunable: "Ein Schiff hat eine Tragkraft von 100
# Raumfaktoren"; "Ein Krieger hat einen Raumfaktor von 1", "eines Reiters ist 2".
_SHIP_CAPACITY = 100
_SPACE = {TroopType.KRIEGER.value: 1, TroopType.REITER.value: 2}


_BY_POSITION = operator.attrgetter("line", "column")


def check_sheet(sheet: m.Sheet, view: KingdomView) -> list[m.Diagnostic]:
    """All diagnostics of ``sheet`` (parser's and checker's), sorted by line."""
    out = list(sheet.diagnostics)
    out += _Checker(sheet, view).run()
    return sorted(out, key=_BY_POSITION)


def accepted(sheet: m.Sheet, diagnostics: list[m.Diagnostic]) -> m.Sheet:
    """A copy of ``sheet`` without the orders on lines that carry an error
    (a refused army block has an error on every one of its order lines, so
    no order is dropped without an error on its own line)."""
    bad = {d.line for d in diagnostics if d.severity is m.Severity.ERROR}
    out = copy.deepcopy(sheet)
    armies = []
    for b in out.armies:
        # an error on the army's own line refuses the order written there; a
        # refused block carries an error on each of its order lines (checker)
        if b.phase_a is not None and b.phase_a.line in bad:
            b.phase_a = None
        if b.phase_b is not None and b.phase_b.line in bad:
            b.phase_b = None
        armies.append(b)
    out.armies = armies
    out.kingdom_orders = [o for o in out.kingdom_orders if o.line not in bad]
    out.messages = [x for x in out.messages if x.line not in bad]
    return out


class _Checker:
    """One pass over a sheet; each ``_check_*`` method yields diagnostics."""

    def __init__(self, sheet: m.Sheet, view: KingdomView) -> None:
        self.sheet = sheet
        self.view = view

    def run(self) -> list[m.Diagnostic]:
        out: list[m.Diagnostic] = []
        out += self._header()
        out += self._armies()
        out += self._kingdom_orders()
        out += self._messages()
        return out

    # -- helpers ---------------------------------------------------------------------

    @functools.cached_property
    def coastal(self) -> set[Address]:
        """Known coastal gemarks (via the terrain module's rule on a small layer);
        computed when a sheet first needs it (``bb``, ``vs``)."""
        import numpy as np

        grid = self.view.grid
        unknown = terrain("T.").id
        layer = np.full(grid.shape, unknown, dtype=np.uint8)
        for a, (code, _) in self.view.known.items():
            if self.view.on_map(a):
                layer[grid.index(grid.hex_of(a))] = terrain(code).id
        mask = coastal_mask(layer)
        return {a for a in self.view.known if self.view.on_map(a)
                and bool(mask[grid.index(grid.hex_of(a))])}

    def _own_settlement(self, a: Address):  # SettlementView | None
        return self.view.settlements.get(a) if a in self.view.owned else None

    def _where(self, line: int, a: Address) -> Iterator[m.Diagnostic]:
        if not a.is_passive and not self.view.on_map(a):
            yield m.Diagnostic(line, 1, E, "diese Gemark liegt nicht auf dem Segment",
                               found=str(a), expected="eine Gemark des Segments",
                               consequence=REFUSED)

    # -- header ------------------------------------------------------------------------

    def _header(self) -> Iterator[m.Diagnostic]:
        s, v = self.sheet, self.view
        if s.kingdom != v.kingdom:
            yield m.Diagnostic(1, 1, E, "der Spielzug ist nicht für dieses Königreich",
                               found=str(s.kingdom or "keine Angabe"),
                               expected=f"Königreich: {v.kingdom}",
                               consequence=WHOLE, code=IntakeReason.OTHER_KINGDOM)
        if s.segment and s.segment != v.segment:
            yield m.Diagnostic(1, 1, E, "falsches Segment", found=s.segment,
                               expected=f"Segment: {v.segment}",
                               consequence=WHOLE, code=IntakeReason.OTHER_SEGMENT)
        if s.month is not None and s.month != v.month:
            yield m.Diagnostic(s.header_lines.get("month", 1), 1, E,
                               "der Spielzug ist für einen anderen Mond",
                               found=s.month.short(), expected=v.month.short(),
                               consequence=WHOLE, code=IntakeReason.OTHER_MONTH)

    # -- armies ------------------------------------------------------------------------

    def _armies(self) -> Iterator[m.Diagnostic]:
        listed = set()
        for b in self.sheet.armies:
            listed.add(b.number)
            yield from self._block(b)
        for number, a in sorted(self.view.armies.items()):
            if number not in listed:
                yield m.Diagnostic(0, 1, W, f"Heer {number:04d} fehlt im Spielzug",
                                   expected=f"Heer {number:04d} {a.position}",
                                   consequence="das Heer erhält keine Befehle und ruht")

    def _block(self, b: m.ArmyBlock) -> Iterator[m.Diagnostic]:
        for d in self._block_orders(b):
            yield d
            if d.line == b.line and d.code is m.Effect.ARMY_REFUSED:
                for o in (b.phase_a, b.phase_b):
                    if o is not None and o.line != b.line:
                        yield m.Diagnostic(o.line, 1, E, f"Heer {b.number:04d} verweigert "
                                           f"(Zeile {b.line})", found=str(o),
                                           expected=d.expected, consequence=REFUSED)

    def _block_orders(self, b: m.ArmyBlock) -> Iterator[m.Diagnostic]:
        army = self.view.armies.get(b.number)
        if army is None:
            yield m.Diagnostic(b.line, 1, E,
                               f"Heer {b.number:04d} gehört nicht zu Ihrem Königreich",
                               found=f"{b.number:04d}",
                               expected="eine Ihrer Heeresnummern: " + ", ".join(
                                   f"{n:04d}" for n in sorted(self.view.armies)),
                               consequence="alle Befehle dieses Heeres verweigert",
                               code=m.Effect.ARMY_REFUSED)
            return
        if b.position != army.position:
            yield m.Diagnostic(b.line, 1, E, f"Heer {b.number:04d} steht nicht in {b.position}",
                               found=str(b.position), expected=str(army.position),
                               consequence="alle Befehle dieses Heeres verweigert",
                               code=m.Effect.ARMY_REFUSED)
            return
        if army.passive:
            if b.phase_a is not None and not isinstance(b.phase_a, (m.HireGeneral, m.Activate)):
                yield m.Diagnostic(b.phase_a.line, 1, E, "ein passives Heer kann nur nf oder nh "
                                   "erhalten", found=str(b.phase_a), expected="nf oder nh <Gemark>",
                                   consequence=REFUSED)
            if b.phase_b is not None:
                yield m.Diagnostic(b.phase_b.line, 1, E, "passive Heere können keine Befehle für "
                                   "die Phase B erhalten", found=str(b.phase_b), expected="nichts",
                                   consequence=REFUSED)
            if isinstance(b.phase_a, m.Activate):
                yield from self._activate(army, b.phase_a)
            elif isinstance(b.phase_a, m.HireGeneral) and self.view.offer is None:
                yield m.Diagnostic(b.phase_a.line, 1, E, "kein Feldherr hat sich angeboten",
                                   found="nf", expected="ein Angebot im letzten Mond",
                                   consequence=REFUSED)
            return
        if isinstance(b.phase_a, (m.HireGeneral, m.Activate)):
            yield m.Diagnostic(b.phase_a.line, 1, E, f"{b.phase_a} gilt nur für passive Heere",
                               found=str(b.phase_a), expected="ein Heer in 000.00",
                               consequence=REFUSED)
        elif b.phase_a is not None:
            yield from self._phase_a(army, b.phase_a)
        if b.phase_b is not None:
            yield from self._phase_b(army, b.phase_a, b.phase_b)

    def _activate(self, army: ArmyView, o: m.Activate) -> Iterator[m.Diagnostic]:
        yield from self._where(o.line, o.at)
        if army.general is None:
            yield m.Diagnostic(o.line, 1, E, "ein Heer ohne Feldherr kann nicht aktiviert werden",
                               found=str(o), expected="zuerst nf (Feldherren anwerben)",
                               consequence=REFUSED)
            return
        need = Building.HAFEN if army.is_fleet else Building.KASERNE
        s = self._own_settlement(o.at)
        if s is None or s.level(need) == 0:
            yield m.Diagnostic(o.line, 1, E, f"{'Flotten' if army.is_fleet else 'Landheere'} "
                               f"werden nur in eigenen Siedlungen mit {need.german} aktiviert",
                               found=str(o.at), expected=self._places(need),
                               consequence=REFUSED)

    def _places(self, need: Building) -> str:
        places = [str(s.at) for s in self.view.settlements.values() if s.level(need)]
        return f"eigene Siedlung mit {need.german}" + (f" ({', '.join(sorted(places))})"
                                                        if places else " (Sie haben keine)")

    def _phase_a(self, army: ArmyView, o: m.PhaseAOrder) -> Iterator[m.Diagnostic]:
        pos = army.position
        if isinstance(o, m.DismissArmy) and o.target != 0:
            t = self.view.armies.get(o.target)
            if t is None or t.number == army.number or t.position != pos or t.troop != army.troop:
                yield m.Diagnostic(o.line, 1, E, "das Zielheer muß ein anderes eigenes Heer "
                                   "derselben Truppengattung in derselben Gemark sein",
                                   found=f"{o.target:04d}", expected=self._partners(army),
                                   consequence=REFUSED)
        elif isinstance(o, m.Recruit):
            need = Building.HAFEN if army.is_fleet else Building.KASERNE
            s = self._own_settlement(pos)
            if s is None or s.level(need) == 0:
                yield m.Diagnostic(o.line, 1, E, f"{army.troop or 'Rüstgüter'} werden nur in "
                                   f"eigenen Siedlungen mit {need.german} angeworben",
                                   found=f"{army.number:04d} in {pos}",
                                   expected=self._places(need), consequence=REFUSED)
        elif isinstance(o, m.Release) and o.count > army.units:
            yield m.Diagnostic(o.line, 1, W, f"das Heer hat nur {army.units} "
                               f"{'Rüstgut' if army.units == 1 else 'Rüstgüter'}",
                               found=str(o.count), expected=f"höchstens {army.units}",
                               consequence=f"interpretiert als er {army.units}")
        if isinstance(o, (m.Release, m.DismissArmy)):
            yield from self._capacity(army, o)
        elif isinstance(o, m.BuildBoats):
            yield from self._boats(army, o)
            yield from self._no_soldiers(army, None, o)
        elif isinstance(o, m.Board):
            yield from self._board(army, o)
        elif isinstance(o, m.Disembark):
            yield from self._disembark(army, o)
        elif isinstance(o, m.Rename) and self._own_settlement(pos) is None:
            yield m.Diagnostic(o.line, 1, E, "das Heer steht in keiner eigenen Siedlung",
                               found=str(pos), expected="ein Heer in einer eigenen Siedlung",
                               consequence=REFUSED)

    def _capacity(self, army: ArmyView, o: m.Release | m.DismissArmy) -> Iterator[m.Diagnostic]:
        """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": ``er`` of ships and
        ``eh`` into a carried army must leave the fleet able to carry its army (a
        warning: the engine decides with the month's numbers and refuses)."""
        fleet: ArmyView | None
        if isinstance(o, m.Release) and army.carrying is not None:
            fleet, cargo = army, self.view.armies.get(army.carrying)
            ships, extra = max(0, army.units - o.count), 0
        elif isinstance(o, m.DismissArmy) and o.target:
            cargo = self.view.armies.get(o.target)
            fleet = self.view.armies.get(cargo.carried_by) if cargo and cargo.carried_by else None
            ships, extra = (fleet.units if fleet else 0), army.units
        else:
            return
        if fleet is None or cargo is None or cargo.troop not in _SPACE:
            return
        need = (cargo.units + extra) * _SPACE[cargo.troop]
        if need > ships * _SHIP_CAPACITY:
            yield m.Diagnostic(o.line, 1, W, f"die Flotte {fleet.number:04d} trüge danach nur "
                               f"{ships * _SHIP_CAPACITY} Raumfaktoren, das Heer "
                               f"{cargo.number:04d} braucht {need}", found=str(o),
                               expected="so viele Schiffe, wie das beförderte Heer braucht "
                               "(100 Raumfaktoren je Schiff)", consequence=REFUSED)

    def _partners(self, army: ArmyView) -> str:
        ids = [f"{a.number:04d}" for a in self.view.armies.values()
               if a.number != army.number and a.position == army.position
               and a.troop == army.troop]
        return ", ".join(["0000", *ids])

    def _boats(self, army: ArmyView, o: m.BuildBoats) -> Iterator[m.Diagnostic]:
        t = self.view.terrain_at(army.position)
        target = self.view.neighbour(army.position, o.direction)
        tt = self.view.terrain_at(target) if target else None
        if army.troop != TroopType.KRIEGER.value:
            why, exp = "nur Kriegerheere bauen Boote", "ein Kriegerheer"
        elif t is None or army.position not in self.coastal \
                or not any(has(t, c) for c in _BOAT_FORESTS):
            why, exp = "Boote baut man in einer Küstengemark mit Wald, Regenwald oder Sumpf", \
                "Küstengemark mit Wald, Regenwald oder Sumpf"
        elif tt is None or not is_water(tt):
            why, exp = f"in Richtung {o.direction.value} liegt keine Wassergemark", \
                "Richtung einer angrenzenden Wassergemark"
        else:
            return
        yield m.Diagnostic(o.line, 1, E, why, found=str(o), expected=exp, consequence=REFUSED)

    def _board(self, army: ArmyView, o: m.Board) -> Iterator[m.Diagnostic]:
        s = self._own_settlement(army.position)
        fleet = self.view.armies.get(o.fleet)
        if army.is_fleet:
            why, exp = "nur Landheere betreten Schiffe", "ein Landheer"
        elif s is None or s.level(Building.HAFEN) == 0:
            why, exp = "Einschiffen nur in einer eigenen Hafenstadt", self._places(Building.HAFEN)
        elif fleet is None or not fleet.is_fleet or fleet.position != army.position:
            why, exp = "keine eigene Flotte dieser Nummer in diesem Hafen", "Nummer einer eigenen " \
                "Flotte in " + str(army.position)
        elif fleet.carrying is not None:
            why, exp = f"die Flotte transportiert schon Heer {fleet.carrying:04d}", \
                "eine leere Flotte"
        elif (t := self.view.terrain_at(army.position)) is not None \
                and not ship_step_ok(t.height):
            why, exp = (f"Schiffe gelten beim Einschiffen als Höhenstufe 1 ((q)); der Hafen liegt "
                        f"auf Höhenstufe {t.height}"), "ein Hafen auf Höhenstufe 1 oder 2"
        else:
            return
        yield m.Diagnostic(o.line, 1, E, why, found=str(o), expected=exp, consequence=REFUSED)

    def _disembark(self, army: ArmyView, o: m.Disembark) -> Iterator[m.Diagnostic]:
        yield from self._where(o.line, o.at)
        if army.carried_by is None and not army.boats:
            yield m.Diagnostic(o.line, 1, E, "das Heer ist nicht eingeschifft", found=str(o),
                               expected="ein Heer auf einer Flotte oder in Booten",
                               consequence=REFUSED)
            return
        t = self.view.terrain_at(o.at) if self.view.on_map(o.at) else None
        same = o.at == army.position
        if not same and not (self.view.on_map(o.at) and self.view.adjacent(o.at, army.position)
                             and t is not None and is_land(t) and o.at in self.coastal):
            yield m.Diagnostic(o.line, 1, E, "die Zielgemark muß der Hafen der Flotte oder eine "
                               "angrenzende Küstengemark sein", found=str(o.at),
                               expected=f"{army.position} oder eine angrenzende Küstengemark",
                               consequence=REFUSED)
        elif t is not None and not ship_step_ok(t.height):
            yield m.Diagnostic(o.line, 1, E, "Schiffe gelten beim Ausschiffen als Höhenstufe 1 "
                               f"((q)); {o.at} liegt auf Höhenstufe {t.height}",
                               found=str(o.at), expected="eine Gemark auf Höhenstufe 1 oder 2",
                               consequence=REFUSED)
        elif t is not None and (closed := closed_reason(t, self.view.month.month)):
            yield m.Diagnostic(o.line, 1, E, closed, found=str(o.at),
                               expected="eine Gemark, die in diesem Mond betreten werden kann",
                               consequence=REFUSED)

    def _phase_b(self, army: ArmyView, a: m.PhaseAOrder | None,
                 o: m.PhaseBOrder) -> Iterator[m.Diagnostic]:
        if isinstance(a, (m.BuildBoats, m.Board, m.Disembark)):
            yield m.Diagnostic(o.line, 1, E, f"{a} dauert den ganzen Mond", found=str(o),
                               expected="kein Phase-B-Befehl für dieses Heer",
                               consequence=REST)
        elif army.is_fleet and isinstance(o, (m.Occupy, m.Destroy, m.Conquer)):
            yield m.Diagnostic(o.line, 1, E, "Flotten können nicht erobern, okkupieren oder "
                               "zerstören", found=str(o), expected="b, h, i, r, s, t oder c",
                               consequence=REST)
        elif isinstance(o, (m.Occupy, m.Destroy, m.Conquer)):
            yield from self._no_soldiers(army, a, o)
        if isinstance(o, (m.Move, m.Conquer)) and army.carried_by is None \
                and not army.passive and not isinstance(a, (m.Activate, m.Disembark)):
            yield from self._steps(army, o)

    def _steps(self, army: ArmyView, o: m.Move | m.Conquer) -> Iterator[m.Diagnostic]:
        """A move on known terrain that the terrain ends early (into the sea, a
        height step too many, a closed Stromtal ...): the engine's own
        :func:`wdg.engine.movement.terrain_verdict`, without ``--forecast``. A
        warning: the army goes as far as it can."""
        v, kind, here = self.view, army.mover_kind, army.position
        for i, d in enumerate(o.directions):
            there = v.neighbour(here, d)
            t_here = v.terrain_at(here)
            t = v.terrain_at(there) if there is not None else None
            if there is None or t is None or t_here is None:
                return  # the edge of the world or unknown land: the forecast says more
            s = v.settlements.get(there) if there in v.owned else None
            coastal = any((n := v.neighbour(there, x)) is not None
                          and (tn := v.terrain_at(n)) is not None and is_water(tn)
                          for x in Direction)
            verdict = terrain_verdict(kind, t_here.id, t.id, v.month.month, coastal=coastal,
                                      harbour=s is not None and s.level(Building.HAFEN) > 0)
            if verdict.reason is not None:
                yield m.Diagnostic(o.line, 1, W, f"Schritt {i + 1} ({d.value}) nach {there} "
                                   f"({t.name}): {verdict.reason}", found=str(o),
                                   expected="Richtungen über betretbares Gelände",
                                   consequence=f"die Bewegung endet spätestens in {here}")
                return
            if verdict.landing:
                kind = MoverKind.KRIEGER
            if v.owners.get(there, 0) not in (0, v.kingdom) and there not in v.owned:
                return  # a foreign control area may end it (the forecast says so)
            here = there

    def _no_soldiers(self, army: ArmyView, a: m.PhaseAOrder | None,
                     o: m.PhaseAOrder | m.PhaseBOrder) -> Iterator[m.Diagnostic]:
        """"Das Heer": a general with his Troß alone "ist ... zu keinen besonderen
        Aktionen fähig" (a warning: recruits of this month's ``nr`` may come first)."""
        if army.units == 0 and not isinstance(a, m.Recruit):
            yield m.Diagnostic(o.line, 1, W, "ein Heer ohne Soldaten (nur Feldherr und Troß) "
                               "ist zu keinen besonderen Aktionen fähig", found=str(o),
                               expected="ein Heer mit Soldaten (zuerst nr)",
                               consequence=REFUSED)

    # -- K -----------------------------------------------------------------------------

    def _kingdom_orders(self) -> Iterator[m.Diagnostic]:
        limit = self.view.max_kingdom_orders()
        changes: dict[int, int] = {}
        too_many = (f"zu viele Königreichbefehle: erlaubt sind {limit} (ein Befehl je Palast, "
                    "mindestens 1, höchstens 10)")
        at_most = f"höchstens {limit} Befehl{'' if limit == 1 else 'e'}"
        for i, o in enumerate(self.sheet.kingdom_orders):
            if i >= limit:
                yield m.Diagnostic(o.line, 1, E, too_many, found=f"{i + 1}. Befehl: {o}",
                                   expected=at_most, consequence=REFUSED)
                continue
            if isinstance(o, m.Build):
                yield from self._build(o)
            elif isinstance(o, m.Settle):
                yield from self._settle(o)
            elif isinstance(o, m.ChangeDiplomacy):
                yield from self._diplomacy(o, changes)

    def _build(self, o: m.Build) -> Iterator[m.Diagnostic]:
        yield from self._where(o.line, o.at)
        b = o.building
        if b.only_in_settlement and self._own_settlement(o.at) is None:
            yield m.Diagnostic(o.line, 1, E, f"{b.german} nur in eigenen Siedlungen",
                               found=str(o.at), expected="eine eigene Siedlung: " + ", ".join(
                                   sorted(str(a) for a in self.view.settlements)),
                               consequence=REFUSED)
        elif not b.only_in_settlement:
            t = self.view.terrain_at(o.at)
            if o.at not in self.view.owned or (t is not None and not is_land(t)):
                yield m.Diagnostic(o.line, 1, E, "Minen nur in eigenen Landgemarken",
                                   found=str(o.at), expected="eine eigene Landgemark",
                                   consequence=REFUSED)
            elif self.view.deposits is not None and o.at not in self.view.deposits:
                # "Mine ... für die Ausbeutung eines bereits bekannten Bodenschatzes"
                yield m.Diagnostic(o.line, 1, W, "hier ist dem Königreich kein Bodenschatz "
                                   "bekannt: die Mine wird nichts einbringen (Bodenschätze "
                                   "findet ein Heer mit s, Suche)", found=str(o.at),
                                   expected="eine Gemark mit gefundenem Bodenschatz: " + (
                                       ", ".join(sorted(str(a) for a in self.view.deposits))
                                       or "keine gefunden"),
                                   consequence="Befehl wird ausgeführt")

    def _settle(self, o: m.Settle) -> Iterator[m.Diagnostic]:
        yield from self._where(o.line, o.at)
        t = self.view.terrain_at(o.at)
        if o.at not in self.view.owned:
            yield m.Diagnostic(o.line, 1, E, "Siedlungen nur in Gemarken des eigenen "
                               "Königreiches", found=str(o.at), expected="eine eigene Gemark",
                               consequence=REFUSED)
        elif t is not None and settlement_cost_factor(t) is None:
            yield m.Diagnostic(o.line, 1, E, f"in {t.name} kann keine Siedlung errichtet werden",
                               found=str(o.at), expected="eine Gemark ohne Vulkan",
                               consequence=REFUSED)

    def _diplomacy(self, o: m.ChangeDiplomacy, changes: dict[int, int]) -> Iterator[m.Diagnostic]:
        dip = self.view.diplomacy
        if o.kingdom not in dip:
            yield m.Diagnostic(o.line, 1, E, f"Königreich {o.kingdom} steht nicht in Ihrer Liste "
                               "der diplomatischen Beziehungen", found=str(o.kingdom),
                               expected=", ".join(str(k) for k in sorted(dip)) or "(leer)",
                               consequence=REFUSED)
            return
        total = changes.get(o.kingdom, 0) + o.delta
        if abs(total) > 2:
            yield m.Diagnostic(o.line, 1, E, "der Diplomatiestatus ändert sich pro Mond "
                               "höchstens um 2", found=str(o), expected="insgesamt ++ bis --",
                               consequence=REFUSED)
            return
        changes[o.kingdom] = total
        new = dip[o.kingdom] + total
        if not 1 <= new <= 9:
            clamped = min(9, max(1, new))
            yield m.Diagnostic(o.line, 1, W, f"der Diplomatiestatus liegt zwischen 1 und 9 "
                               f"(jetzt {dip[o.kingdom]})", found=str(o),
                               expected="ein Ergebnis von 1 bis 9",
                               consequence=f"interpretiert als Status {clamped}")

    def _messages(self) -> Iterator[m.Diagnostic]:
        for msg in self.sheet.messages:
            if msg.to not in self.view.diplomacy:
                yield m.Diagnostic(msg.line, 1, E, "Botschaften nur an Königreiche Ihrer Liste "
                                   "der diplomatischen Beziehungen", found=str(msg.to),
                                   expected=", ".join(str(k) for k in sorted(self.view.diplomacy))
                                   or "(leer)", consequence="die Botschaft wird nicht befördert")
