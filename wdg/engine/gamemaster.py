"""Step 15: the game master's sheet, applied at the start of the month.

Every command of :mod:`wdg.orders.gmsheet` becomes a change of the state and
an event (``gm.*``): so the archive shows what the game master did, the
result sheets show what was addressed to a kingdom (``gm.note``, gold given or
taken), and the Götterbotschaft prints the announcements (``gm.bulletin``).
Commands that fail the segment checks are not applied (``gm.refused``); the
turn runner refuses to start on a sheet with errors anyway.
"""

from __future__ import annotations

from wdg.engine.events import Event
from wdg.engine.treasury import count, credit, gs, spend
from wdg.engine.month import Month, step
from wdg.orders import gmsheet as g
from wdg.world.generator import distinct_name, generals_of
from wdg.world.state import Creature, General, GeneralOffer, Treasure

GM_OFFERS = "gm_offers"
"""``Month.notes`` key: the game master's offers by kingdom, made at the end of the
month (step 88) in place of the drawn offer."""


@step("disqualify", 5)
def disqualify(m: Month) -> list[Event]:
    """``DISQUALIFIZIEREN`` lines of the game master's sheet, first thing in the
    month ("sofort"): the kingdom leaves the game as with ``wdg kingdom retire``
    (:func:`wdg.world.admin.retire`: armies disbanded, diplomacy ended, to a
    city state or neutral per the segment's ``retire_to``), and its sheet of the
    month is not carried out (no message forwarded, no order). A month without
    such a line is not touched (old archives replay unchanged)."""
    sheet = m.gm_sheet
    if not isinstance(sheet, g.GmSheet) or \
            not any(isinstance(c, g.Disqualify) for c in sheet.commands):
        return []
    from wdg.world.admin import retire  # lazy: `wdg orders check` imports this module

    bad = {d.line for d in g.check_gm_sheet(sheet, m.state)}
    events: list[Event] = []
    for c in sheet.commands:
        if not isinstance(c, g.Disqualify):
            continue
        if c.line in bad:
            events.append(m.emit(Event("gm.refused", line=c.line,
                                       why="Anweisung des Segmentleiters nicht ausführbar")))
            continue
        k = m.state.kingdoms[c.kingdom]
        if k.city_state or k.retired:
            continue  # a second line for the same kingdom
        mode = m.state.settings.retire_to.lower()
        retire(m.state, c.kingdom)
        m.sheets.pop(c.kingdom, None)
        events.append(m.emit(Event("gm.disqualified", kingdom=c.kingdom, line=c.line,
                                   why=f"vom Segmentleiter disqualifiziert: {c.reason}",
                                   data={"to": mode})))
    return events


@step("gamemaster", 15)
def apply_gm_sheet(m: Month) -> list[Event]:
    """Apply the month's game master's sheet (if any) in sheet order."""
    sheet = m.gm_sheet
    if not isinstance(sheet, g.GmSheet):
        return []
    bad = {d.line for d in g.check_gm_sheet(sheet, m.state)}
    events: list[Event] = []
    for cmd in sheet.commands:
        if isinstance(cmd, g.Disqualify):
            continue  # applied at step 5 (disqualify)
        if cmd.line in bad:
            events.append(m.emit(Event("gm.refused", line=cmd.line,
                                       why="Anweisung des Segmentleiters nicht ausführbar")))
            continue
        events.extend(_apply(m, cmd))
    return events


def _apply(m: Month, c: g.GmCommand) -> list[Event]:
    """Apply one command; returns its events, already recorded."""
    seg = m.state
    if isinstance(c, g.Note):
        return [m.emit(Event("gm.note", kingdom=c.kingdom, why=c.text, line=c.line))]
    if isinstance(c, g.HoldMessage):
        return []  # applied when the messages are forwarded (step 8, wdg.engine.diplomacy)
    if isinstance(c, g.Bulletin):
        return [m.emit(Event("gm.bulletin", why=c.text, public=True, line=c.line,
                             data={"kind": c.kind}))]
    if isinstance(c, g.SeasonEvent):
        seg.settings.season_event = c.text
        return [m.emit(Event("gm.season_event", why=c.text or "Besonderes Ereignis beendet", public=True,
                      line=c.line))]
    if isinstance(c, g.ChangeGold):
        book = credit if c.amount >= 0 else spend
        return [book(m, c.kingdom, abs(c.amount), kind="gm.gold", ledger="gm", why=c.reason,
                     line=c.line)]
    if isinstance(c, g.OfferGeneral):
        # The offer the kingdom saw last month stays valid for this month's `nf`; the
        # game master's offer takes the place of the end-of-month draw (step 88), is
        # shown on this month's sheet and can be hired next month.
        name = distinct_name(c.name or "Unbekannter Feldherr", generals_of(seg, c.kingdom))
        gen = General(name, c.troop, c.experience, c.ability, c.wizard)
        pending = m.notes.setdefault(GM_OFFERS, {})
        assert isinstance(pending, dict)
        pending[c.kingdom] = GeneralOffer(gen, c.price)
        return [m.emit(Event("gm.general_offer", kingdom=c.kingdom, line=c.line,
                      why=f"Für den nächsten Mond bietet sich der Feldherr {gen.name} "
                          f"({c.troop.value}, Erfahrung {c.experience}"
                          f"{', Zauberer' if c.wizard else ''}) für eine Werbeprämie von "
                          f"{gs(c.price)} an.",
                      data={"name": gen.name, "troop": c.troop.value, "experience": c.experience,
                            "price": c.price, "wizard": c.wizard}))]
    if isinstance(c, g.AddDiplomacy):
        k = seg.kingdoms[c.kingdom]
        k.diplomacy.setdefault(c.other, 5)
        return [m.emit(Event("gm.diplomacy", kingdom=c.kingdom, line=c.line,
                      why=f"{seg.kingdoms[c.other].name} in die Liste der diplomatischen "
                          "Beziehungen aufgenommen (Status 5)", data={"other": c.other}))]
    return _apply_at(m, c)


def _apply_at(m: Month, c: g.GmCommand) -> list[Event]:
    seg = m.state
    if isinstance(c, (g.MoveCreature, g.RemoveCreature)):
        cr = seg.creatures[c.id]
        if isinstance(c, g.RemoveCreature):
            del seg.creatures[c.id]
            return [m.emit(Event("gm.creature_removed", at=cr.position, line=c.line,
                          why=f"Fabelwesen {cr.name or _kind_name(m, cr.kind)} entfernt", data={"creature": c.id}))]
        cr.position = seg.grid.hex_of(c.at)
        return [m.emit(Event("gm.creature_moved", at=cr.position, line=c.line,
                      why=f"Fabelwesen {cr.name or _kind_name(m, cr.kind)} versetzt", data={"creature": c.id}))]
    if not isinstance(c, (g.PlaceCreature, g.PlaceTreasure, g.SetTerrain, g.SetOwner,
                          g.SetMilitia, g.SetSettlement)):
        raise AssertionError(type(c))  # pragma: no cover - _apply handles the others
    h = seg.grid.hex_of(c.at)
    row, col = seg.grid.index(h)
    if isinstance(c, g.PlaceCreature):
        cid = max(seg.creatures, default=0) + 1
        seg.creatures[cid] = Creature(cid, c.kind, h, c.count, None, c.gold, [], c.name)
        return [m.emit(Event("gm.creature_placed", at=h, line=c.line, public=True,
                      why=f"Ein Fabelwesen wurde in {seg.label(h)} gesichtet: "
                          + (f"{c.name} ({_kind_name(m, c.kind)})" if c.name else _kind_name(m, c.kind)),
                      data={"creature": cid, "kind": c.kind, "count": c.count}))]
    if isinstance(c, g.PlaceTreasure):
        tid = max(seg.treasures, default=0) + 1
        seg.treasures[tid] = Treasure(tid, h, c.gold, c.item)
        return [m.emit(Event("gm.treasure", at=h, line=c.line, why="Schatz platziert",
                      data={"treasure": tid, "gold": c.gold, "item": c.item}))]
    if isinstance(c, g.SetTerrain):
        seg.terrain[row, col] = c.terrain.id
        return [m.emit(Event("gm.terrain", at=h, line=c.line,
                             why=f"Geländeart jetzt {c.terrain.name}",
                             data={"terrain": c.terrain.code}))]
    if isinstance(c, g.SetOwner):
        seg.owner[row, col] = c.kingdom
        return [m.emit(Event("gm.owner", at=h, kingdom=c.kingdom or None, line=c.line,
                      why="Besitz vom Segmentleiter festgelegt", data={"owner": c.kingdom}))]
    if isinstance(c, g.SetMilitia):
        seg.militia[row, col] = c.militia
        return [m.emit(Event("gm.militia", at=h, line=c.line,
                             why=f"Miliz auf {c.militia} gesetzt", data={"militia": c.militia}))]
    if isinstance(c, g.SetSettlement):
        seg.settlement[row, col] = c.size
        if c.size == 0:
            seg.settlement_names.pop(h, None)
            seg.buildings[:, row, col] = 0
        elif c.name:
            seg.settlement_names[h] = c.name
        return [m.emit(Event("gm.settlement", at=h, line=c.line,
                      why=f"Siedlung auf {count(c.size, 'Baueinheit', 'Baueinheiten')} gesetzt",
                      data={"size": c.size}))]
    raise AssertionError(type(c))  # pragma: no cover - every command handled above


def _kind_name(m: Month, kind: str) -> str:
    """The German name of a creature kind (``troll`` -> ``Troll``)."""
    kinds = m.rules.get("creatures", "kinds")
    entry = kinds.get(kind) if isinstance(kinds, dict) else None
    return str(entry.get("name", kind)) if isinstance(entry, dict) else kind
