"""The report models: plain data built from the state and the month's event log.

:func:`wdg.reports.build.build_kingdom_report` makes one kingdom's result sheet ("Ergebnisblatt":
"Ergebnisse der Ausführungen der Befehle des Herrschers" and "Sonstige
Angaben, die nur für dieses Königreich bestimmt sind", rule "Die
Spielzugauswertung"); :mod:`wdg.reports.gazette` builds the Götterbotschaft
and the game master's overview from the same pieces.

The model never re-derives what happened: outcomes, battles, sightings and
the ledger come from the events (ARCHITECTURE.md, step 9). Events are sorted
into sections by the *prefix* of their kind, so new kinds of the engine need
no change here; an event no section claims lands in "Ereignisse" — nothing
is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wdg.engine.events import Event
from wdg.engine.treasury import pct as ledger_pct
from wdg.orders.model import Sheet
from wdg.reports.settings import ReportSettings
from wdg.world.hexgrid import Hex
from wdg.world.state import ArmyStatus, Segment

# --- plain data -----------------------------------------------------------------------


@dataclass(slots=True)
class Header:
    """Who and when: the head of every sheet."""

    segment: str
    segment_title: str
    kingdom: int
    kingdom_name: str
    ruler: str
    month_key: str
    month_long: str
    season: str
    next_month_long: str
    deadline: str
    next_month_key: str = ""
    """The month the order form is for (``YYYY-MM``)."""
    palaces: int = 0
    """Own settlements with a palace (one kingdom order each)."""
    max_kingdom_orders: int = 1
    """Kingdom orders allowed next month ("Pro Palast ... maximal 10 und minimal 1")."""
    herrscherin: bool = False
    """The ruler is a woman ("Herrscherin"); in the JSON report only when true."""


@dataclass(slots=True)
class Line:
    """One event as the player reads it: text, place and its data."""

    kind: str
    text: str
    where: str = ""
    army: int | None = None
    details: list[tuple[str, str]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    """The event's data as machine-readable values (numbers as numbers, places
    as addresses, kingdoms and armies by number), without the keys players never
    see (``hidden_data_keys``) and without German phrases (those are in ``text``)."""


@dataclass(slots=True)
class Sighting:
    """A foreign army or creature seen in Phase E, as data ("Die Erkundung")."""

    gemark: str
    what: str
    """``heer`` or ``fabelwesen``."""
    id: int
    kingdom: int | None
    """The owning kingdom of an army (``None`` for a creature)."""
    troop: str
    """Troop type of an army; kind of a creature."""
    units: int
    """The count reported: exact, or the estimate."""
    exact: bool
    low: int
    high: int
    """The true count lies in ``[low, high]`` (equal to ``units`` when exact)."""
    source: str = ""
    """Who saw it (the engine's ``source``: an own army's scouts or the own land)."""


@dataclass(slots=True)
class OrderOutcome:
    """One order of the sheet and what became of it."""

    line: int
    section: str
    order: str
    status: str
    """``done``, ``partial``, ``refused``, ``interpreted`` or ``none``."""
    status_text: str
    notes: list[Line] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LedgerRow:
    """One ledger category's income and expense this month."""

    category: str
    label: str
    income: int
    expense: int
    """Positive number of Goldsterne spent."""
    items: list["Booking"] = field(default_factory=list)
    """The single bookings of the category when there are several (the account
    book's sub-lines: upkeep of each army ...); empty for one booking."""


@dataclass(slots=True)
class Booking:
    """One treasury change: category, text and signed amount."""

    label: str
    text: str
    amount: int


@dataclass(slots=True)
class Treasury:
    """The treasury before and after and the ledger between them."""

    before: int
    after: int
    rows: list[LedgerRow]
    income: int
    expense: int
    unbooked: int = 0
    """Change not explained by any event (0 when the engine booked everything)."""
    bookings: list[Booking] = field(default_factory=list)
    """The single bookings not already shown with an order (text and amount)."""


@dataclass(slots=True)
class GemarkRow:
    """One own gemark."""

    address: str
    terrain: str
    tax: int
    settlement: str = ""


@dataclass(slots=True)
class Province:
    """The own gemarks of one province."""

    number: int
    gemarks: list[GemarkRow]


@dataclass(slots=True)
class SettlementRow:
    """One own settlement with its buildings and its share of the treasury."""

    address: str
    name: str
    size: int
    size_name: str
    buildings: str
    share: int
    """Its share of the treasury (:func:`wdg.engine.economy.treasury_share`; 0 for a
    site under ``treasury_min_units``, which stores none)."""
    treasury_site: bool = True
    """True if the treasury lies here (:func:`wdg.engine.economy.treasury_sites`)."""
    militia: int = 0
    """The militia of its gemark: what it can still recruit ("Das Rüstvolumen")."""
    volume: dict[str, int] = field(default_factory=dict)
    """Troop type -> recruits it can still raise
    (:func:`wdg.engine.army_orders.recruit_volume`), for the troop types its
    buildings allow (Kaserne: Krieger, Reiter; Hafen: Schiffe)."""


@dataclass(slots=True)
class AroundCell:
    """One gemark around an army: its place relative to the army (axial ``dq``,
    ``dr``; ring 0 is the army's own gemark), its address and its terrain as the
    kingdom knows it (``code``/``terrain`` empty: never seen)."""

    ring: int
    dq: int
    dr: int
    gemark: str
    code: str
    terrain: str


ARMY_STATUS = {ArmyStatus.ACTIVE: "active", ArmyStatus.PASSIVE: "passive",
               ArmyStatus.ACTIVATING: "activating"}
"""An army's status as the report model writes it (data, not words: the
templates say "aktiv", "passiv", "wird aktiv"; issue #44)."""
STATUS_OF_REPORT = {**{v: k for k, v in ARMY_STATUS.items()},
                    "aktiv": ArmyStatus.ACTIVE, "passiv": ArmyStatus.PASSIVE,
                    "wird aktiv": ArmyStatus.ACTIVATING}
"""A report's army status back to the state's (version 4 writes the values of
:data:`ARMY_STATUS`; versions 1-3 wrote the German words)."""


@dataclass(slots=True)
class ArmyRow:
    """One own army and what it saw in Phase E."""

    number: int
    position: str
    status: str
    troop: str
    units: int
    morale: int
    general: str
    experience: int | None
    transport: str
    durability: int | None
    """A fleet's durability in percent (``None`` for other armies)."""
    seen: list[Line] = field(default_factory=list)
    carried_by: int | None = None
    """The fleet carrying this army (for the order form)."""
    carrying: int | None = None
    """The army this fleet carries (for the order form)."""
    troop_type: str | None = None
    """The troop type proper (``None`` without a general: no type)."""
    morale_events: list[str] = field(default_factory=list)
    """This month's events of the army that changed its morale (their texts)."""
    around: list[AroundCell] = field(default_factory=list)
    """The gemarks within two rings of its position as the kingdom knows them
    after Phase E (the scouting reports two rings, "Die Erkundung"), row by row
    from north to south, west to east; empty for an army in 000.00."""
    wizard: bool = False
    """Its general is a wizard ("Der Zauberer")."""
    ability: str | None = None
    """Its general's special ability code, if any."""
    actions: list[dict[str, str]] = field(default_factory=list)
    """The character actions its general commands (``code``, ``usage``, German
    ``meaning``: :func:`wdg.engine.wizards.action_codes`)."""
    owner: int | None = None
    """Who owns the gemark it stands on: a kingdom's number, 0 neutral;
    ``None`` in 000.00 ("Zugehörigkeit zu einem Königreich")."""
    owner_name: str | None = None
    """That kingdom's name ("" neutral, ``None`` in 000.00)."""


@dataclass(slots=True)
class DiplomacyRow:
    """One entry of the list of diplomatic relations (own status)."""

    kingdom: int
    name: str
    status: int
    effect: str


@dataclass(slots=True)
class MessageRow:
    """A message ("Botschaft") delivered to this kingdom."""

    sender: int | None
    sender_name: str
    text: str


@dataclass(slots=True)
class OfferRow:
    """The general offering himself for next month (the order form names him)."""

    name: str
    troop: str
    experience: int
    wizard: bool
    ability: str | None
    price: int
    actions: list[dict[str, str]] = field(default_factory=list)
    """The character actions he would bring (:func:`wdg.engine.wizards.action_codes`)."""


@dataclass(slots=True)
class Totals:
    """The kingdom in figures: the sums the sheet prints under "Das Reich in Zahlen"."""

    gemarks: int
    settlements: int
    armies: int
    active_armies: int
    soldiers: int
    tax_value: int
    """Sum of the own gemarks' tax values ("Steuerwert")."""
    income: int
    expense: int
    treasury: int
    popularity: int
    """The ruler's popularity with the people, 0..100 ("Beliebtheit")."""


@dataclass(slots=True)
class Marker:
    """Something the map marks at a gemark besides own armies: a foreign army
    sighted (``army``), a creature (``creature``) or a deposit the kingdom found
    (``deposit``), with its label."""

    kind: str
    gemark: str
    label: str


@dataclass(slots=True)
class MapPage:
    """One page of a map: a title and an SVG document.

    ``boxes`` are the drawn labels and markers as ``(kind, x0, y0, x1, y1,
    text)`` in the SVG's units (kinds ``gemark``, ``province``, ``settlement``,
    ``marker``): the map builder's own account of where it put them, so that
    a test can prove no gemark number is covered."""

    title: str
    svg: str
    boxes: list[tuple[str, float, float, float, float, str]] = field(default_factory=list)
    inline: bool = False
    """Printed on the last text page, scaled into its free space (not on a page of its own)."""
    origin: tuple[int, int, float] = (0, 0, 0.0)
    """``(first row, first column, hex radius)`` of the drawn window: where a
    gemark's centre lies in the SVG's units (the order editor draws on it)."""


@dataclass(slots=True)
class DepositRow:
    """A deposit ("Bodenschatz") the kingdom has found (``s`` Suche)."""

    address: str
    kind: str
    """Salz, Eisen, Kupfer, Silber, Gold, Edelsteine (deposits.yaml)."""
    mine: int
    """Level of the mine there (0: none yet)."""
    own: bool
    """True if the gemark belongs to the kingdom (only then its mine yields for it)."""


@dataclass(slots=True)
class KingdomReport:
    """Everything on one kingdom's result sheet."""

    header: Header
    has_sheet: bool
    orders: list[OrderOutcome]
    diagnostics: list[str]
    """Diagnostics of sheet lines that carry no order."""
    treasury: Treasury
    provinces: list[Province]
    settlements: list[SettlementRow]
    militia_estimate: int
    armies: list[ArmyRow]
    sightings: list[Line]
    battles: list[Line]
    offers: list[Line]
    diplomacy: list[DiplomacyRow]
    auto_reports: list[Line]
    messages: list[MessageRow]
    contacts: list[Line]
    notes: list[str]
    events: list[Line]
    totals: Totals | None = None
    offer: OfferRow | None = None
    markers: list[Marker] = field(default_factory=list)
    """Foreign armies and creatures the map marks (own armies come from ``armies``)."""
    foreign: list[Sighting] = field(default_factory=list)
    """Every foreign army and creature seen this month, as data (the JSON report)."""
    deposits: list[DepositRow] = field(default_factory=list)
    """The deposits the kingdom has found (absent from the JSON report when none)."""


# --- helpers ---------------------------------------------------------------------------

STATUS_TEXT = {"done": "ausgeführt", "partial": "teilweise ausgeführt", "refused": "verweigert",
               "interpreted": "interpretiert", "none": "keine Rückmeldung"}

DATA_LABELS = {
    "units": "Anzahl", "troop": "Gattung", "of": "Königreich", "what": "Art", "exact": "genau",
    "won": "gewonnen", "enemy": "gegnerisches Heer", "enemy_kingdom": "gegnerisches Königreich",
    "militia": "Milizen", "militia_lost": "Milizen gefallen", "lost": "Verluste",
    "soldiers": "Soldaten", "gemarks": "Gemarken", "taxes": "Steuereinnahmen",
    "treasury": "Reichsschatz", "status": "Status", "other": "Königreich", "price": "Preis",
    "experience": "Erfahrung", "wizard": "Zauberer", "reach": "Erkundung",
    "buildings": "gesehene Siedlungen und Bauwerke", "source": "Quelle", "id": "Nummer", "from": "von", "to": "an",
    "name": "Name", "email": "E-Mail", "address": "Anschrift", "count": "Anzahl",
    "kind": "Art", "gold": "Gold", "item": "Gegenstand", "popularity": "Beliebtheit",
    "path": "Weg", "remaining": "nicht mehr ausgeführt", "items": "Schätze",
    "low": "mindestens", "high": "höchstens",
    # every other key the engine writes, so that no English key reaches a sheet or
    # the game master's overview (tests/reports/test_german.py checks a stress month)
    "ability": "Spezialfähigkeit", "boats": "Boote", "chance": "Siegchance",
    "change": "Änderung", "code": "Kürzel", "creature": "Fabelwesen Nr.",
    "deserters": "Deserteure", "destroyed": "vernichtet", "direction": "Richtung",
    "durability": "Haltbarkeit", "effect": "Wirkung", "enemy_strength": "Stärke des Gegners",
    "experience_loss": "Erfahrungsverlust", "factor": "Faktor", "fled": "geflohen",
    "fleet": "Flotte", "gain": "Zuwachs", "general": "Feldherr",
    "general_quit": "Feldherr gab auf", "left": "verbleibend", "level": "Stufe",
    "levels": "Baustufen", "loser": "Verlierer", "militia_estimate": "geschätzte Milizen",
    "morale": "Moral", "morale_loss": "Moralverlust", "new": "neu", "old": "bisher",
    "owner": "Besitzer", "popularity_old": "bisherige Beliebtheit", "rate": "Verlustrate",
    "reason": "Grund", "reasons": "Gründe", "restricted": "eingeschränkt durch",
    "settlement": "Siedlung (Baueinheiten)", "settlement_name": "Siedlungsname",
    "settlements": "Siedlungen", "share": "Anteil je Siedlung", "size": "Baueinheiten",
    "spent": "verbrauchte Reichweite", "strength": "Stärke", "target": "Ziel",
    "text": "Text", "total": "insgesamt", "undead": "Untote", "unpaid": "unbezahlt",
    "water": "Wassergemark", "winner": "Sieger", "building": "Bauwerk",
    "distance": "Entfernung", "treasure": "Schatz", "number": "Nummer", "ruler": "Herrscher",
    "severity": "Art", "suggestion": "Vorschlag", "current": "bisher",
    "city_state": "Stadtstaat", "sheet": "Spielzug",
    "per_level": "Ertrag je Minenstufe und Mond", "mine": "Minenstufe",
    "repaired": "repariert", "damage": "noch beschädigt", "game_terms": "Spielbegriffe",
}

DETAIL_KEYS: dict[str, tuple[str, ...]] = {
    "recon.scouted": ("buildings", "reach"),
    "move.moved": ("path",),
    "move.stopped": ("remaining",),
    "combat.": ("lost",),
    "militia.": ("lost", "militia_lost"),
    "conquest.": ("from",),
    "creature.treasure": ("items", "gold"),
    "diplomacy.report": ("status", "soldiers", "gemarks", "taxes", "treasury"),
    "contact.": ("name", "email", "address"),
}
"""Data a player reads beside an event's text, by kind prefix (the longest
matching prefix counts). The engine's German text says everything else; its
data (``gain: 10; morale: 56``) would only repeat it, in English keys. An
event without a text shows all its data."""

KINGDOM_KEYS = frozenset({"from", "of", "other", "enemy_kingdom", "to"})
"""Data keys holding a kingdom number: shown as the kingdom's name."""

KIND_TEXT = {"recon.scouted": "Erkundung durch Aufklärer und Erkunder",
             "creature.moved": "Ein Fabelwesen zog weiter"}
"""German text for events the engine logs without one (else the kind is shown)."""

FOREIGN_ANSWERS = ("message.", "announcement.")
"""Kinds of another kingdom's events that answer a line of the sender's sheet."""
NOT_ANSWERS = ("gm.", "message.delivered", "diplomacy.report", "sheet.diagnostic", "contact.")
"""Kinds that carry a line number of some other sheet (the game master's, the
sender's) and so never answer one of this kingdom's orders."""


def gs(amount: int) -> str:
    """Goldsterne in the German form: ``250.000``."""
    sign = "-" if amount < 0 else ""
    return sign + f"{abs(int(amount)):,}".replace(",", ".")


NBSP = "\u00a0"
"""Between a number and its unit (``1.000 GS``, ``3 %``): never broken apart."""


def money(amount: int) -> str:
    """An amount of Goldsterne: ``250.000 GS`` (one format on every sheet)."""
    return f"{gs(amount)}{NBSP}GS"


def signed_money(amount: int) -> str:
    """A change of Goldsterne with its sign: ``+1.000 GS``, ``−1.000 GS``."""
    return ("+" if amount >= 0 else "−") + money(abs(amount))


def pct(value: int) -> str:
    """A percentage: ``3 %`` (:func:`wdg.engine.treasury.pct`: one format everywhere)."""
    return ledger_pct(value)


def count(n: int, one: str, many: str) -> str:
    """A number with its noun in the singular or plural: ``1 Befehl``, ``3 Befehle``."""
    return f"{gs(n)} {one if n == 1 else many}"


SECTION_NUMBERS = {"orders": 1, "treasury": 2, "territory": 3, "armies": 4, "battles": 5,
                   "offers": 6, "diplomacy": 7, "messages": 8, "contacts": 9, "notes": 10,
                   "events": 11}
"""The sheet's sections in order (the numbers of a sheet with every section;
a sheet numbers the sections it shows without gaps,
:func:`wdg.reports.render.section_numbers`; archived templates read these)."""


def _value(v: Any, seg: Segment) -> str:
    if isinstance(v, bool):
        return "ja" if v else "nein"
    if isinstance(v, Hex):
        return seg.label(v) if seg.grid.contains(v) else str(tuple(v))
    if isinstance(v, int):
        return gs(v) if abs(v) >= 1000 else str(v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_value(x, seg)}" for k, x in sorted(v.items(), key=lambda i: str(i[0])))
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
        return ", ".join(_value(x, seg) for x in items)
    return "" if v is None else str(v)


def _shown_keys(e: Event, settings: ReportSettings) -> frozenset[str] | None:
    """The data keys shown with ``e`` (``None``: all)."""
    if settings.all_details or not (e.why or e.kind in KIND_TEXT):
        return None
    if e.kind in KIND_TEXT and not e.why:
        return frozenset(DATA_LABELS)
    best = max((p for p in DETAIL_KEYS if e.kind.startswith(p)), key=len, default=None)
    return frozenset(DETAIL_KEYS[best]) if best is not None else frozenset()


MONEY_KEYS = frozenset({"treasury", "taxes", "gold", "price", "cost"})
"""Data keys holding Goldsterne: shown as ``1.000 GS``."""
PERCENT_KEYS = frozenset({"rate", "spent", "chance", "durability"})
"""Data keys holding a percentage: shown as ``3 %``."""


def _detail_value(k: str, v: Any, seg: Segment) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        if k in MONEY_KEYS:
            return money(v)
        if k in PERCENT_KEYS:
            return pct(v)
    if k in KINGDOM_KEYS and isinstance(v, int) and not isinstance(v, bool) and v in seg.kingdoms:
        return f"{seg.kingdoms[v].name} ({v})"
    if k in KINGDOM_KEYS and v == 0 and not isinstance(v, bool):
        return "keinem Königreich (neutrale Gemark)"
    if k == "reach" and isinstance(v, int):  # rings scouted around the army
        return "nur die eigene Gemark" if v == 0 else \
            f"{v} {'Gemark' if v == 1 else 'Gemarken'} weit"
    return _value(v, seg)


def _data_value(v: Any, seg: Segment) -> Any:
    """A value of event data as plain JSON data, or ``_PHRASE`` for German text."""
    if isinstance(v, Hex):
        return seg.label(v) if seg.grid.contains(v) else None
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    if isinstance(v, str):
        return _PHRASE if " " in v.strip() else v
    if isinstance(v, dict):
        got = {str(k): _data_value(x, seg) for k, x in v.items()}
        return {k: x for k, x in got.items() if x is not _PHRASE}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
        return [x for x in (_data_value(i, seg) for i in items) if x is not _PHRASE]
    return _PHRASE


_PHRASE = object()
"""Marks a value that is German text (it belongs to the line's ``text``)."""


def event_data(e: Event, settings: ReportSettings, seg: Segment) -> dict[str, Any]:
    """The machine-readable data of ``e`` for the JSON report (:attr:`Line.data`)."""
    out = {}
    for k, v in sorted(e.data.items()):
        if k in settings.hidden_data_keys:
            continue
        x = _data_value(v, seg)
        if x is not _PHRASE:
            out[k] = x
    if e.gold and "gold" not in out:
        out["gold"] = e.gold  # the treasury's change, signed (issue #42: facts as data)
    return out


def event_line(e: Event, seg: Segment, settings: ReportSettings) -> Line:
    """An event for the player: its text, place and the data worth reading
    beside it (:data:`DETAIL_KEYS`)."""
    shown = _shown_keys(e, settings)
    details = [(DATA_LABELS.get(k, k), _detail_value(k, v, seg)) for k, v in sorted(e.data.items())
               if k not in settings.hidden_data_keys and v not in (None, "", [], {})
               and (shown is None or k in shown)
               and not (k == "path" and isinstance(v, list) and len(v) == 1)]
    where = ""
    if e.at is not None:
        where = seg.label(e.at) if seg.grid.contains(e.at) else ""
    text = e.why or KIND_TEXT.get(e.kind, e.kind)
    return Line(e.kind, text, where, e.army, details, event_data(e, settings, seg))


def outcome_of(kinds: list[str]) -> str:
    """The status of an order from the kinds of the events answering it. A move
    that stopped early (``move.stopped``) or an order that failed
    (``conquest.failed``) was carried out in part when the army moved at all,
    else refused."""
    parts = [set(k.split(".")) for k in kinds]
    if any({"refused", "held"} & p for p in parts):
        return "refused"
    if any({"stopped", "failed"} & p for p in parts):
        # a move that stopped early or an order that failed after moving (a
        # conquest into a gemark already taken) was carried out in part
        return "partial" if any("moved" in p for p in parts) else "refused"
    if any("partial" in p for p in parts):
        return "partial"
    if any("interpreted" in p for p in parts):
        return "interpreted"
    return "done" if kinds else "none"


def answers_sheet(e: Event, kingdom: int) -> bool:
    """True if ``e`` answers a line of ``kingdom``'s own sheet: its own events
    (except kinds that quote other sheets' lines) and a delivered message or
    published announcement naming it as the sender."""
    if e.line <= 0:
        return False
    if e.kingdom != kingdom:
        return e.data.get("from") == kingdom and e.kind.startswith(FOREIGN_ANSWERS)
    if e.data.get("from") not in (None, kingdom):
        return False
    return not any(e.kind.startswith(p) for p in NOT_ANSWERS)


def sheet_orders(sheet: Sheet, names: dict[int, str] | None = None) -> list[tuple[int, str, str]]:
    """``(line, section, order text)`` of every order of a sheet, in sheet order;
    ``names``: kingdom names, so that a message names its recipient."""
    out: list[tuple[int, str, str]] = []
    for b in sheet.armies:
        if b.phase_a is not None:
            out.append((b.phase_a.line or b.line, f"Heer {b.number:04d} A", str(b.phase_a)))
        if b.phase_b is not None:
            out.append((b.phase_b.line or b.line, f"Heer {b.number:04d} B", str(b.phase_b)))
    for o in sheet.kingdom_orders:
        out.append((o.line, "K", str(o)))
    for msg in sheet.messages:
        to = f"an {names[msg.to]} ({msg.to})" if names and msg.to in names else \
            f"an Königreich {msg.to}"
        out.append((msg.line, "Botschaft", to))
    for ann in sheet.announcements:
        out.append((ann.line, "Bekanntmachung", _first_words(ann.text)))
    return out


def _first_words(text: str, n: int = 40) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def diagnostic_texts(sheet: Sheet | None, events: list[Event]) -> list[tuple[int, str]]:
    """``(line, text)`` of every diagnostic: the intake's events (parser and
    checker) when there are any, else the sheet's own parser messages."""
    from_events = [(e.line, e.why) for e in events if e.kind == "sheet.diagnostic"]
    if from_events or sheet is None:
        return from_events
    out = []
    for d in sheet.diagnostics:
        text = f"Zeile {d.line}: {d.severity.value}: {d.message}"
        if d.found:
            text += f" (gefunden: {d.found!r}" + (f", erwartet: {d.expected}" if d.expected else "") + ")"
        if d.consequence:
            text += f" — {d.consequence}"
        out.append((d.line, text))
    return out
