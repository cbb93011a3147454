"""Build one kingdom's result sheet model (:class:`~wdg.reports.model.KingdomReport`).

Inputs are the state after the month, the month's events, the kingdom's
sheet (``None`` when it sent none) and optionally the state before. Section
by section, following the rule's "Die Spielzugauswertung", "Der Reichsschatz",
"Die Erkundung der Heere", "Der Diplomatiestatus" (automatic reports) and
"Die Kontakte zwischen Herrschern".
"""

from __future__ import annotations

import heapq
import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from wdg.engine.army_orders import recruit_building, recruit_volume
from wdg.engine.deposits import known_to
from wdg.engine.economy import treasury_share, treasury_sites
from wdg.engine.events import Event, SightingKind
from wdg.engine.wizards import action_codes
from wdg.orders.model import Sheet
from wdg.reports.model import (
    ARMY_STATUS,
    AroundCell,
    Sighting,
    FOREIGN_ANSWERS,
    STATUS_OF_REPORT,
    STATUS_TEXT,
    ArmyRow,
    Booking,
    DepositRow,
    DiplomacyRow,
    GemarkRow,
    Header,
    KingdomReport,
    LedgerRow,
    Line,
    Marker,
    MessageRow,
    OfferRow,
    OrderOutcome,
    Province,
    SettlementRow,
    Totals,
    Treasury,
    answers_sheet,
    diagnostic_texts,
    event_line,
    money,
    pct,
    outcome_of,
    sheet_orders,
)
from wdg.reports.settings import ReportSettings
from wdg.rules import Rules, shipped_rules
from wdg.world.hexgrid import Hex
from wdg.world.state import (
    BUILDING_ORDER,
    UNKNOWN_TERRAIN,
    Army,
    ArmyStatus,
    Building,
    Segment,
    TroopType,
)
from wdg.world.terrain import terrain
from wdg.world.deadline import describe as describe_deadline

# Sections claimed by kind prefix, in this order; the rest go to "Ereignisse".
SIGHTING_PREFIXES = ("recon.", "sighting", "scout")
BATTLE_PREFIXES = ("combat.", "militia.", "partisan")
OFFER_PREFIXES = ("offer.", "gm.general_offer")
NO_ORDER_SECTION = "ohne Befehl"
"""The section of the one row listing the armies that had no order and rested."""


def header(seg_after: Segment, kingdom: int, month_key: str, month_long: str, season: str) -> Header:
    """The sheet's head: segment, kingdom, ruler, month, next deadline."""
    kd = seg_after.kingdoms[kingdom]
    nxt = seg_after.date
    deadline = describe_deadline(seg_after, nxt)
    palaces = _palaces(seg_after, kingdom)
    return Header(seg_after.name, seg_after.title, kingdom, kd.name, kd.ruler, month_key,
                  month_long, season, nxt.long(), deadline, nxt.key, palaces,
                  max(1, min(10, palaces)), kd.herrscherin)


def _palaces(seg: Segment, kingdom: int) -> int:
    """Own settlements with a palace ("Pro Palast und Mond ... einen Befehl")."""
    i = BUILDING_ORDER.index(Building.PALAST)
    mine = (seg.owner == kingdom) & (seg.settlement > 0)
    return int(((seg.buildings[i] > 0) & mine).sum())


class MonthEvents:
    """A month's events sorted once for every kingdom's sheet (a stress month
    has ~16,000 events and 60 sheets: each sheet reads only its own share)."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self._mine: dict[int | None, list[Event]] = defaultdict(list)
        self._sent: dict[object, list[Event]] = defaultdict(list)
        self.creatures: list[tuple[int, Event]] = []
        """``(position, event)`` of the creature events a map may mark."""
        for i, e in enumerate(events):
            self._mine[e.kingdom].append(e)
            if e.line > 0 and e.kind.startswith(FOREIGN_ANSWERS):
                sender = e.data.get("from")
                if isinstance(sender, (int, str)):
                    self._sent[sender].append(e)
            if e.at is not None and e.kind.startswith(CREATURE_PREFIXES) \
                    and e.kind != "creature.slain":
                self.creatures.append((i, e))
        self._position = {id(e): i for i, e in enumerate(events)}

    def mine(self, kingdom: int) -> list[Event]:
        """The kingdom's own events, in the month's order."""
        return list(self._mine.get(kingdom, ()))

    def sent(self, kingdom: int) -> list[Event]:
        """Events of other kingdoms that may answer a line of ``kingdom``'s
        sheet (a message or announcement it sent), in the month's order."""
        return [e for e in self._sent.get(kingdom, ()) if e.kingdom != kingdom]

    def position(self, e: Event) -> int:
        """The event's place in the month's log."""
        return self._position[id(e)]


SIGHTING_KINDS = ("recon.sighting", "sighting")
"""Kinds of a kingdom's own events that mark a foreign army or creature on its map."""
CREATURE_PREFIXES = ("creature.", "gm.creature_placed")
"""Kinds of the events that put a creature on a map (those the chronicle tells)."""


def build_kingdom_report(seg_after: Segment, events: list[Event], sheet: Sheet | None,
                         kingdom: int, settings: ReportSettings, *,
                         seg_before: Segment | None = None,
                         index: MonthEvents | None = None,
                         rules: Rules | None = None) -> KingdomReport:
    """The result sheet model of ``kingdom`` for the month just resolved.
    ``rules``: the month's rules (default: the shipped ones); the settlements'
    figures are the engine's, computed with them.
    ``index``: the month's events sorted once (:class:`MonthEvents` of
    ``events``) when the caller builds many sheets."""
    month = seg_after.date.previous()
    rules = rules if rules is not None else shipped_rules()
    if index is None or index.events is not events:
        index = MonthEvents(events)
    mine = index.mine(kingdom)
    used: set[int] = set()  # ids of events placed in some section

    orders = order_outcomes(seg_after, sheet, mine, kingdom, settings, used, index.sent(kingdom))
    order_lines = {o.line for o in orders}
    loose = [t for line, t in diagnostic_texts(sheet, mine) if line not in order_lines]
    used |= {id(e) for e in mine if e.kind == "sheet.diagnostic"}

    def claim(pred: Callable[[Event], bool]) -> list[Event]:
        got = [e for e in mine if id(e) not in used and pred(e)]
        used.update(id(e) for e in got)
        return got

    def lines(evs: list[Event]) -> list[Line]:
        return [event_line(e, seg_after, settings) for e in evs]

    booked = claim(lambda e: e.gold != 0)
    booked_ids = {id(e) for e in booked}  # the bookings no order of the sheet explains
    bookings = [Booking(settings.ledger_label(e.ledger), _booking_text(e), e.gold) for e in booked]
    seen = claim(lambda e: e.kind.startswith(SIGHTING_PREFIXES))
    armies = _armies(seg_after, kingdom, seen, settings, mine, rules)
    army_numbers = {a.number for a in armies}
    sightings = _grouped_recon(seg_after, [e for e in seen if e.army in army_numbers], settings) \
        + _by_place(lines([e for e in seen if e.army not in army_numbers]))
    battles = _with_army(lines(claim(lambda e: e.kind.startswith(BATTLE_PREFIXES))))
    offers = lines(claim(lambda e: e.kind.startswith(OFFER_PREFIXES)))
    offer = seg_after.kingdoms[kingdom].offer
    if offer is not None and not offers:
        g = offer.general
        offers.append(Line("state.offer", f"Für den nächsten Mond bietet sich der Feldherr {g.name} an",
                           details=[("Gattung", g.troop.value), ("Erfahrung", str(g.experience)),
                                    ("Preis", money(offer.price))]
                           + ([("Zauberer", "ja")] if g.wizard else [])))
    if offer is not None:
        # the codes the general would bring ("werden ihm der dazu notwendige
        # Aktionscode und etwaige Erläuterungen automatisch ... mitgeteilt")
        for line in offers:
            if line.kind in ("offer.general", "state.offer", "gm.offer"):
                line.details = list(line.details) + [
                    (f"Charakteraktion {a['usage']}", a["meaning"])
                    for a in action_codes(rules, offer.general.wizard, offer.general.ability)]
    markers = _markers(seg_after, kingdom, index, settings)
    foreign = _foreign(seg_after, seen)
    auto = lines(claim(lambda e: e.kind == "diplomacy.report"))
    messages = [MessageRow(e.data.get("from"), _kname(seg_after, e.data.get("from")),
                           str(e.data.get("text", "")))
                for e in claim(lambda e: e.kind == "message.delivered")]
    contacts = lines(claim(lambda e: e.kind.startswith("contact.")))
    notes = [e.why for e in claim(lambda e: e.kind == "gm.note")]
    rest = _same_text(lines([e for e in mine if id(e) not in used]))

    provinces, settlements, militia = _territory(seg_after, kingdom, settings, rules)
    ledger = treasury(seg_after, mine, kingdom, settings, seg_before)
    ledger.bookings = bookings
    gold = [e for e in mine if e.gold]
    for row in ledger.rows:
        mine_booked = [e for e in gold if e.ledger == row.category]
        texts = [_booking_text(e) for e in mine_booked]
        # several bookings: each one; a single one only when its text tells more
        # than the category's name (a game master's reason, an income's source)
        # (an army's upkeep or pay names the army: "Unterhalt des Heeres 0101")
        if len(mine_booked) > 1 or (texts and id(mine_booked[0]) in booked_ids and (
                mine_booked[0].army is not None or not texts[0].startswith(row.label))):
            row.items = [Booking(row.label, t, e.gold) for t, e in zip(texts, mine_booked)]
            row.items = _grouped_bookings(seg_after, row.items, mine_booked)
    return KingdomReport(
        header=header(seg_after, kingdom, month.key, month.long(), month.season),
        has_sheet=sheet is not None,
        orders=orders,
        diagnostics=loose,
        treasury=ledger,
        provinces=provinces,
        settlements=settlements,
        militia_estimate=militia,
        foreign=foreign,
        armies=armies,
        sightings=sightings,
        battles=battles,
        offers=offers,
        diplomacy=_diplomacy(seg_after, kingdom, settings),
        auto_reports=auto,
        messages=messages,
        contacts=contacts,
        notes=notes,
        events=rest,
        totals=Totals(gemarks=sum(len(p.gemarks) for p in provinces),
                      settlements=len(settlements), armies=len(armies),
                      active_armies=sum(1 for a in armies
                                        if STATUS_OF_REPORT[a.status] is not ArmyStatus.PASSIVE),
                      soldiers=sum(a.units for a in armies),
                      tax_value=sum(g.tax for p in provinces for g in p.gemarks),
                      income=ledger.income, expense=ledger.expense, treasury=ledger.after,
                      popularity=seg_after.kingdoms[kingdom].popularity),
        offer=_offer(seg_after, kingdom, rules),
        markers=markers,
        deposits=_deposits(seg_after, kingdom),
    )


def _deposits(seg: Segment, kingdom: int) -> list[DepositRow]:
    """The deposits the kingdom has found, in map order (:mod:`wdg.engine.deposits`)."""
    mine = BUILDING_ORDER.index(Building.MINE)
    out = []
    for d in known_to(seg, kingdom):
        r, c = seg.grid.index(d.position)
        out.append(DepositRow(seg.label(d.position), d.kind, int(seg.buildings[mine, r, c]),
                              int(seg.owner[r, c]) == kingdom))
    return out


def _offer(seg: Segment, kingdom: int, rules: Rules) -> OfferRow | None:
    o = seg.kingdoms[kingdom].offer
    if o is None:
        return None
    g = o.general
    return OfferRow(g.name, g.troop.value, g.experience, g.wizard, g.ability, o.price,
                    action_codes(rules, g.wizard, g.ability))


def _markers(seg: Segment, kingdom: int, index: MonthEvents,
             settings: ReportSettings) -> list[Marker]:
    """What the kingdom's map marks besides its own armies: foreign armies and
    creatures its armies sighted this month, and every creature the
    Götterbotschaft's chronicle names at a gemark the kingdom knows (so that
    what the chronicle tells is on the map)."""
    grid = seg.grid
    km = seg.known.get(kingdom)
    out: list[Marker] = []
    seen: set[tuple[str, str, str]] = set()

    def add(kind: str, h: Hex, label: str) -> None:
        m = Marker(kind, grid.label(h), label)
        if (m.kind, m.gemark, m.label) not in seen:
            seen.add((m.kind, m.gemark, m.label))
            out.append(m)

    # the kingdom's own events and the creatures, in the month's order
    own = [(index.position(e), e) for e in index.mine(kingdom)
           if e.at is not None and e.kind.startswith(SIGHTING_KINDS)]
    for _i, e in heapq.merge(own, index.creatures, key=lambda pe: pe[0]):
        at = e.at
        if at is None:
            continue
        if e.kingdom == kingdom and e.kind.startswith(SIGHTING_KINDS):
            if not grid.contains(at):
                continue
            what = str(e.data.get("what", ""))
            ident = e.data.get("id")
            if what == SightingKind.CREATURE:
                add("creature", at, "F")
            else:
                add("army", at, f"{ident:04d}" if isinstance(ident, int) else "?")
        elif e.kind.startswith(CREATURE_PREFIXES) and e.kind != "creature.slain" \
                and settings.in_chronicle(e.kind, e.public) and grid.contains(at):
            r, c = grid.index(at)
            known = seg.owner[r, c] == kingdom or (km is not None and km.terrain[r, c] != UNKNOWN_TERRAIN)
            if known:
                add("creature", at, "F")
    for d in known_to(seg, kingdom):
        add("deposit", d.position, d.kind)
    return out


_ARMY_IN_TEXT = re.compile(r"\s*\(?(?:des Heeres|der Flotte|Heer|Flotte)\s+(\d{4})\b\)?")
GROUP_BOOKINGS_FROM = 5
"""A category with this many single bookings of armies lists them per troop type."""


def _grouped_bookings(seg: Segment, items: list[Booking], evs: list[Event]) -> list[Booking]:
    """Many bookings of single armies (pay, upkeep) as one line per kind and
    troop type, naming the armies compactly: "Besoldung, Krieger: 12 Heere
    (0101, 0102, ...)"; other bookings stay as they are."""
    if len(items) < GROUP_BOOKINGS_FROM:
        return items
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    out: list[Booking] = []
    for b, e in zip(items, evs):
        m = _ARMY_IN_TEXT.search(b.text)
        if e.army is None or m is None:
            out.append(b)
            continue
        what = _ARMY_IN_TEXT.sub("", b.text).strip() or b.label
        a = seg.armies.get(e.army)
        troop = a.troop.value if a is not None and a.troop is not None else "ohne Gattung"
        groups.setdefault((what, troop), []).append((e.army, b.amount))
    for (what, troop), got in groups.items():
        nums = ", ".join(f"{n:04d}" for n, _ in sorted(got))
        word = "Heer" if len(got) == 1 else "Heere"
        out.append(Booking(what, f"{what}, {troop}: {len(got)} {word} ({nums})",
                           sum(a for _, a in got)))
    return out


_AMOUNT_TAIL = re.compile(r"\s*[:(]\s*-?[\d.]+[\s\u00a0]GS\)?\.?$")
BOOKING_WIDTH = 38
"""A ledger line's text fits beside its amount; a longer text is cut at its first colon."""


def _booking_text(e: Event) -> str:
    """A booking's text without the amount at its end (the column shows it),
    short enough for the ledger's line, naming its army."""
    text = e.why or e.kind
    text = _AMOUNT_TAIL.sub("", text) or text
    if len(text) > BOOKING_WIDTH and ":" in text:
        text = text.split(":", 1)[0]
        if text.count("(") > text.count(")"):  # cut inside a bracket: drop the bracket
            text = text[:text.rindex("(")].rstrip()
    if e.army is not None and f"{e.army:04d}" not in text:
        text += f" (Heer {e.army:04d})"
    return text


def _names_army(l: Line) -> bool:
    """True if a line must name its army beside it: it has one and its text
    does not name it."""
    return l.army is not None and f"{l.army:04d}" not in l.text


def _army_place(l: Line) -> str:
    """The army of a line and where it stood: ``0303 (302.27)``."""
    return f"{l.army:04d}" + (f" ({l.where})" if l.where else "")


def _with_army(items: list[Line]) -> list[Line]:
    """Name the army of a line outside its order ("Heer 0303 (302.27)") when
    its text does not."""
    for l in items:
        if _names_army(l):
            l.where = f"Heer {_army_place(l)}"
    return items


def _kname(seg: Segment, k: object) -> str:
    if isinstance(k, int) and k in seg.kingdoms:
        return seg.kingdoms[k].name
    return "unbekannt" if k is None else f"Königreich {k}"


def order_outcomes(seg: Segment, sheet: Sheet | None, mine: list[Event], kingdom: int,
            settings: ReportSettings, used: set[int],
            others: Sequence[Event] = ()) -> list[OrderOutcome]:
    """Every order of the sheet with the events answering its line; ``others``
    (all events, or those of :meth:`MonthEvents.sent`) supplies answers logged
    under another kingdom (a message delivered to its recipient)."""
    if sheet is None:
        return []
    by_line: dict[int, list[Event]] = defaultdict(list)
    for e in mine:
        if answers_sheet(e, kingdom):
            by_line[e.line].append(e)
    for e in others:  # the cheap tests of answers_sheet first
        if e.kingdom != kingdom and e.line > 0 and e.kind.startswith(FOREIGN_ANSWERS) \
                and answers_sheet(e, kingdom):
            by_line[e.line].append(e)
    diags: dict[int, list[str]] = defaultdict(list)
    for line, text in diagnostic_texts(sheet, mine):
        diags[line].append(text)
    out = []
    # Army block heads (number and position) may be answered too (a.position ...).
    heads = [(b.line, f"Heer {b.number:04d}", f"{b.position} (kein Befehl)") for b in sheet.armies]
    names = {k: kd.name for k, kd in seg.kingdoms.items()}
    order_lines = {line for line, _, _ in sheet_orders(sheet)}
    rows = sheet_orders(sheet, names) + [h for h in heads if h[0] not in order_lines
                                  and (by_line.get(h[0]) or diags.get(h[0]))]
    resting: list[tuple[int, str]] = []
    head_lines = {h[0] for h in heads}
    for line, section, text in sorted(rows, key=lambda r: r[0]):
        evs = by_line.get(line, [])
        if line in head_lines and line not in order_lines and not diags.get(line) and evs \
                and all(e.kind == "action.rest" for e in evs):
            used.update(id(e) for e in evs)
            resting.append((line, section))
            continue
        used.update(id(e) for e in evs)
        status = outcome_of([e.kind for e in evs])
        label = STATUS_TEXT[status]
        if status == "interpreted":
            label = "interpretiert als:"
        out.append(OrderOutcome(line, section, text, status, label,
                                _order_notes(seg, evs, kingdom, settings), diags.get(line, [])))
    if resting:
        numbers = ", ".join(sec.replace("Heer ", "") for _, sec in resting)
        word = "Heer" if len(resting) == 1 else "Heere"
        out.append(OrderOutcome(resting[0][0], NO_ORDER_SECTION, f"{word} {numbers}", "done",
                                "ruhte" if len(resting) == 1 else "ruhten", [], []))
        out.sort(key=lambda o: o.line)
    return out


def _order_notes(seg: Segment, evs: list[Event], kingdom: int,
                 settings: ReportSettings) -> list[Line]:
    """The events answering an order, as the sender reads them: a message
    delivered to another kingdom is told as delivered (its own text is the
    recipient's "Botschaft von ..."), not twice when the engine also logged
    the sending; the own announcement as published."""
    own = [e for e in evs if e.kingdom == kingdom]
    out = []
    # where a move stopped early, tell first how far it went
    for e in sorted(evs, key=lambda e: e.kind.endswith(".stopped")):
        if e.kingdom != kingdom:
            if e.kind.startswith("message.") and not any(o.kind.startswith("message.") for o in own):
                out.append(Line(e.kind, f"Botschaft an {_kname(seg, e.kingdom)} zugestellt"))
            continue
        if e.kind == "announcement.published":
            out.append(Line(e.kind, "Die Bekanntmachung erscheint in der Götterbotschaft."))
            continue
        out.append(event_line(e, seg, settings))
    return out


def treasury(seg_after: Segment, events: list[Event], kingdom: int, settings: ReportSettings,
             seg_before: Segment | None = None) -> Treasury:
    """The ledger of the month: income and expense by category; before + income -
    expense + unbooked = after (``unbooked`` is 0 unless the state before shows a
    change no event accounts for)."""
    inc: dict[str, int] = defaultdict(int)
    exp: dict[str, int] = defaultdict(int)
    for e in events:
        if e.kingdom == kingdom and e.gold:
            (inc if e.gold > 0 else exp)[e.ledger] += abs(e.gold)
    after = seg_after.kingdoms[kingdom].treasury
    total = sum(inc.values()) - sum(exp.values())
    if seg_before is not None and kingdom in seg_before.kingdoms:
        before = seg_before.kingdoms[kingdom].treasury
    else:
        before = after - total
    rows = [LedgerRow(c, settings.ledger_label(c), inc.get(c, 0), exp.get(c, 0))
            for c in sorted(set(inc) | set(exp), key=lambda c: (-inc.get(c, 0), exp.get(c, 0), c))]
    return Treasury(before, after, rows, sum(inc.values()), sum(exp.values()),
                    unbooked=after - before - total)


def _territory(seg: Segment, kingdom: int, settings: ReportSettings,
               rules: Rules) -> tuple[list[Province], list[SettlementRow], int]:
    """Own gemarks by province and own settlements. Every figure of a settlement
    comes from the engine's own functions: its share of the treasury
    (:func:`wdg.engine.economy.treasury_share` over
    :func:`~wdg.engine.economy.treasury_sites`: "Der Reichsschatz verteilt sich
    stets gleichmäßig auf alle Siedlungen", none in a site under
    ``treasury_min_units``), its militia and what it can still recruit
    (:func:`wdg.engine.army_orders.recruit_volume`)."""
    grid = seg.grid
    rows, cols = np.nonzero(seg.owner == kingdom)
    by_prov: dict[int, list[GemarkRow]] = defaultdict(list)
    settled = []
    for r, c in sorted(zip(rows.tolist(), cols.tolist())):
        h = grid.hex_at(r, c)
        t = terrain(int(seg.terrain[r, c]))
        size = int(seg.settlement[r, c])
        sname = settings.settlement_name(size) if size > 0 else ""
        by_prov[grid.province_of(h)].append(GemarkRow(grid.label(h), t.name, t.tax, sname))
        if size > 0:
            settled.append((h, r, c, size))
    provinces = [Province(p, sorted(g, key=lambda x: x.address)) for p, g in sorted(by_prov.items())]
    settled.sort(key=lambda s: grid.label(s[0]))
    sites = set(treasury_sites(seg, kingdom, rules))
    share = treasury_share(seg, kingdom, rules)
    settlements = []
    for h, r, c, size in settled:
        blds = [f"{b.german} (Stufe {int(seg.buildings[i, r, c])})"
                for i, b in enumerate(BUILDING_ORDER) if seg.buildings[i, r, c] > 0]
        militia = int(seg.militia[r, c])
        volume = {t.value: recruit_volume(militia, t.value, rules) for t in TroopType
                  if seg.building_level(h, recruit_building(t.value)) > 0}
        settlements.append(SettlementRow(grid.label(h), seg.settlement_names.get(h, ""), size,
                                         settings.settlement_name(size), ", ".join(blds),
                                         share if h in sites else 0, h in sites, militia,
                                         volume))
    militia = int(seg.militia[seg.owner == kingdom].sum())
    step = settings.militia_rounding
    return provinces, settlements, int(round(militia / step) * step)


def _transport(a: Army) -> str:
    parts = []
    if a.boats:
        boats = "1 Boot" if a.boats == 1 else f"{a.boats} Booten"
        parts.append(f"in {boats} (Haltbarkeit {pct(a.boat_durability)})")
    if a.carried_by is not None:
        parts.append(f"an Bord von Flotte {a.carried_by:04d}")
    if a.carrying is not None:
        parts.append(f"trägt Heer {a.carrying:04d}")
    return "; ".join(parts)


def _armies(seg: Segment, kingdom: int, seen: list[Event],
            settings: ReportSettings, events: Sequence[Event] = (),
            rules: Rules | None = None) -> list[ArmyRow]:
    morale = _morale_events(events, kingdom)
    rules = rules if rules is not None else shipped_rules()
    out = []
    # armies standing together (a capital's garrison) see the same surroundings:
    # one list for them (read only; the JSON report writes each row's own copy)
    arounds: dict[Hex | None, list[AroundCell]] = {}
    for n in sorted(seg.armies):
        a = seg.armies[n]
        if a.kingdom != kingdom:
            continue
        g = a.general
        owner = None if a.position is None else int(seg.at(seg.owner, a.position))
        out.append(ArmyRow(
            number=n, position=seg.label(a.position), status=ARMY_STATUS[a.status],
            wizard=bool(g and g.wizard), ability=g.ability if g else None,
            actions=action_codes(rules, g.wizard, g.ability) if g else [],
            owner=owner, owner_name=(None if owner is None else "" if owner == 0
                                     else _kname(seg, owner)),
            troop=a.troop.value if a.troop else "ohne Feldherrn", units=a.units, morale=a.morale,
            general=g.name if g else "", experience=g.experience if g else None,
            transport=_transport(a),
            durability=a.durability if a.is_fleet else None,
            seen=[], carried_by=a.carried_by, carrying=a.carrying,
            troop_type=a.troop.value if a.troop else None,
            morale_events=_morale_texts(morale.get(n, [])),
            around=arounds[a.position] if a.position in arounds else
            arounds.setdefault(a.position, _around(seg, kingdom, a.position))))
    return out


AROUND_RINGS = 2
"""Rings of gemarks shown around each army: the two the scouting reports
("Die Erkundung"; docs/reports.md)."""


def _around(seg: Segment, kingdom: int, h: Hex | None) -> list[AroundCell]:
    """The gemarks within :data:`AROUND_RINGS` of ``h`` on the map, with the
    terrain the kingdom knows after the month (own land as it is; else its
    Erkundungskarte), north to south, west to east."""
    if h is None:
        return []
    km = seg.known.get(kingdom)
    out = []
    n = AROUND_RINGS
    for dr in range(-n, n + 1):
        for dq in range(max(-n, -n - dr), min(n, n - dr) + 1):
            x = Hex(h.q + dq, h.r + dr)
            if not seg.grid.contains(x):
                continue
            r, c = seg.grid.index(x)
            tid = int(seg.terrain[r, c]) if seg.owner[r, c] == kingdom else \
                int(km.terrain[r, c]) if km is not None else UNKNOWN_TERRAIN
            t = terrain(tid) if tid != UNKNOWN_TERRAIN else None
            out.append(AroundCell(max(abs(dq), abs(dr), abs(dq + dr)), dq, dr, seg.label(x),
                                  t.code if t else "", t.name if t else ""))
    return out


MORALE_KINDS = ("a.eh.joined", "a.nr", "action.training", "pay.shortfall", "combat.", "militia.",
                "partisan", "wizard.", "k.za")
"""Kinds of the events that change an army's morale (the engine: joining and
recruiting blend it, training raises it, an unpaid wage and a battle change it,
a spell sets it); the sheet names them beside a morale change."""


def _morale_text(e: Event) -> str:
    text = e.why or e.kind
    return text.rstrip(".")


def _morale_texts(events: list[Event]) -> list[str]:
    """The texts beside an army's morale change. A fight is told once, in the
    section "Kämpfe": here it is named by where it was (issue #32: a battle
    stood in three sections, its sentences repeated under the morale)."""
    out: list[str] = []
    for e in events:
        if e.kind.startswith(BATTLE_PREFIXES):
            what = "Partisanenkampf" if e.kind.startswith(("militia.", "partisan")) else "Kampf"
            text = f"{what} (siehe Kämpfe)"
        else:
            text = _morale_text(e)
        if text not in out:
            out.append(text)
    return out


def _morale_events(events: Sequence[Event], kingdom: int) -> dict[int, list[Event]]:
    out: dict[int, list[Event]] = defaultdict(list)
    for e in events:
        if e.kingdom == kingdom and e.army is not None and e.kind.startswith(MORALE_KINDS) \
                and not e.kind.endswith("chronicle"):
            out[e.army].append(e)
    return out


def _same_text(items: list[Line]) -> list[Line]:
    """Each army named beside its line as :func:`_with_army` does, and events
    of several armies with the same text and data as one line naming the
    armies ("Heere 0108 (318.17), 0112 (317.24): Die Flotte ruht nicht; ..."),
    in the order of the first. Which lines name an army is asked of the line
    (:func:`_names_army`), never read back from the words of its ``where``."""
    out: list[Line] = []
    first: dict[tuple, tuple[Line, list[str]]] = {}
    for l in items:
        if not _names_army(l):
            out.append(l)
            continue
        key = (l.kind, l.text, tuple(map(tuple, l.details)),
               json.dumps(l.data, sort_keys=True, default=str))
        if key in first:
            first[key][1].append(_army_place(l))
        else:
            line = Line(l.kind, l.text, l.where, l.army, list(l.details), dict(l.data))
            first[key] = (line, [_army_place(l)])
            out.append(line)
    for line, places in first.values():
        line.where = ("Heer " if len(places) == 1 else "Heere ") + ", ".join(places)
    return out


def _by_place(items: list[Line]) -> list[Line]:
    """Sightings without details at one gemark as one line ("318.27: Heer 4701
    von ...: etwa 3.440; Heer 4705 von ...: genau 20"), in the order of the first."""
    out: list[Line] = []
    at: dict[tuple[str, str], Line] = {}
    for l in items:
        key = (l.kind, l.where)
        if l.details or not l.where:
            out.append(l)
        elif key in at:
            at[key].text += "; " + l.text
            # the facts of each sighting stay data: the first's, then the others'
            at[key].data.setdefault("more", []).append(dict(l.data))
        else:
            at[key] = Line(l.kind, l.text, l.where, l.army, [], dict(l.data))
            out.append(at[key])
    return out


def _foreign(seg: Segment, seen: list[Event]) -> list[Sighting]:
    """Every foreign army and creature the kingdom saw this month, once each
    (``recon.sighting`` events as data)."""
    out: dict[tuple[str, int], Sighting] = {}
    for e in seen:
        if e.kind != "recon.sighting" or e.at is None:
            continue
        d = e.data
        key = (str(d.get("what", "")), int(d.get("id", 0)))
        units = int(d.get("units", 0))
        if key not in out:
            out[key] = Sighting(seg.label(e.at), key[0], key[1], d.get("of"),
                                    str(d.get("troop", "")), units, bool(d.get("exact")),
                                    int(d.get("low", units)), int(d.get("high", units)),
                                    source=str(d.get("source", "")))
    return sorted(out.values(), key=lambda s: (s.gemark, s.what, s.id))


def _grouped_recon(seg: Segment, seen: list[Event], settings: ReportSettings) -> list[Line]:
    """The armies' Phase E reports, one line per thing seen (several armies
    seeing the same settlements give one line naming them all), in the order
    of the first army that saw it."""
    Key = tuple[str, tuple[tuple[str, str], ...]]
    who: dict[Key, list[tuple[int, str]]] = {}
    texts: dict[Key, list[str]] = {}
    data: dict[Key, dict] = {}
    for e in sorted(seen, key=lambda e: (e.army or 0, e.line)):
        line = event_line(e, seg, settings)
        # one line per thing seen and cause: armies' lines merge only when they
        # say the same (issue #32: two armies with different causes were merged)
        key = (line.kind, (("", line.text),) + tuple(line.details))
        who.setdefault(key, []).append((e.army or 0, line.where))
        data.setdefault(key, line.data)
        if line.text not in texts.setdefault(key, []):
            texts[key].append(line.text)
    out = []
    for key, armies in who.items():
        names = ", ".join(f"{n:04d}" + (f" ({w})" if w else "") for n, w in armies)
        out.append(Line(key[0], "; ".join(texts[key]),
                        where=("Heer " if len(armies) == 1 else "Heere ") + names,
                        army=None, details=list(key[1][1:]), data=data[key]))
    return out


def _diplomacy(seg: Segment, kingdom: int, settings: ReportSettings) -> list[DiplomacyRow]:
    kd = seg.kingdoms[kingdom]
    return [DiplomacyRow(o, _kname(seg, o), s, settings.diplomacy_effects.get(s, ""))
            for o, s in sorted(kd.diplomacy.items())]
