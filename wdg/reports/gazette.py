"""The Götterbotschaft and the game master's overview (models).

The Götterbotschaft ("In der Götterbotschaft können enthalten sein:
Ankündigungen des Segmentleiters, Ratschläge des Segmentleiters zum Spiel,
Erläuterungen zur Spielregel, Offene Bekanntmachungen einzelner Herrscher")
is built from the ``gm.bulletin`` events (the game master's sheet ``sl.txt``),
the rulers' announcements that passed the content check
(``announcement.published``; without any ``announcement.*`` events, from the
sheets' ``BEKANNTMACHUNG`` blocks minus those an event holds back), the
chronicle of public events (which kinds: ``reports.yaml``) and the calendar.

The overview is the game master's: every kingdom's figures, orders with
outcomes and diagnostics, every event with all its data, and warnings.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from wdg.engine.events import Event
from wdg.orders.model import Sheet
from wdg.reports.build import MonthEvents, order_outcomes, treasury
from wdg.reports.exploration import KINGDOM_COLOURS
from wdg.reports.model import Line, MapPage, OrderOutcome, event_line
from wdg.reports.settings import ReportSettings
from wdg.world.calendar import MONTHS
from wdg.world.deadline import describe as describe_deadline
from wdg.world.state import ArmyStatus, Segment

BULLETIN_TITLES = (("ankuendigung", "Ankündigungen des Segmentleiters"),
                   ("ratschlag", "Ratschläge zum Spiel"),
                   ("erlaeuterung", "Erläuterungen zur Spielregel"))


@dataclass(slots=True)
class BulletinSection:
    """The game master's texts of one kind."""

    kind: str
    title: str
    texts: list[str]


@dataclass(slots=True)
class Proclamation:
    """An open announcement of a ruler ("offene Bekanntmachung")."""

    kingdom: int
    kingdom_name: str
    ruler: str
    text: str
    herrscherin: bool = False
    """The ruler is a woman ("Herrscherin")."""


@dataclass(slots=True)
class CalendarMonth:
    """One month of the year with the current one marked."""

    number: int
    name: str
    vulgar: str
    season: str
    current: bool


@dataclass(slots=True)
class Gazette:
    """The Götterbotschaft of one month."""

    segment: str
    segment_title: str
    month_key: str
    month_long: str
    next_month_long: str
    year: int
    bulletins: list[BulletinSection]
    proclamations: list[Proclamation]
    chronicle: list[Line]
    calendar: list[CalendarMonth]
    season_event: str
    deadline: str = ""
    """The EINTREFFSCHLUSS line of the next month's sheets (as on the result sheets)."""


def build_gazette(seg_after: Segment, events: list[Event], sheets: dict[int, Sheet],
                  settings: ReportSettings, gm_sheet: object | None = None) -> Gazette:
    """The Götterbotschaft model of the month just resolved."""
    month = seg_after.date.previous()
    texts: dict[str, list[str]] = {k: [] for k, _ in BULLETIN_TITLES}
    bulletin_events = [e for e in events if e.kind == "gm.bulletin"]
    if bulletin_events:
        for e in bulletin_events:
            texts.setdefault(str(e.data.get("kind", "ankuendigung")), []).append(e.why)
    else:
        for c in getattr(gm_sheet, "commands", []):
            if type(c).__name__ == "Bulletin":
                texts.setdefault(c.kind, []).append(c.text)
    titles = dict(BULLETIN_TITLES)
    bulletins = [BulletinSection(k, titles.get(k, k.capitalize()), v) for k, v in texts.items() if v]

    return Gazette(
        deadline=describe_deadline(seg_after, seg_after.date),
        segment=seg_after.name, segment_title=seg_after.title, month_key=month.key,
        month_long=month.long(), next_month_long=seg_after.date.long(), year=month.year,
        bulletins=bulletins,
        proclamations=_proclamations(seg_after, events, sheets),
        chronicle=[event_line(e, seg_after, settings) for e in events
                   if settings.in_chronicle(e.kind, e.public)],
        calendar=[CalendarMonth(m.number, m.name, m.vulgar, m.season, m.number == month.month)
                  for m in MONTHS],
        season_event=seg_after.settings.season_event,
    )


def _proclamations(seg: Segment, events: list[Event], sheets: dict[int, Sheet]) -> list[Proclamation]:
    def named(k: int, text: str) -> Proclamation:
        kd = seg.kingdoms.get(k)
        return Proclamation(k, kd.name if kd else f"Königreich {k}", kd.ruler if kd else "", text,
                            bool(kd and kd.herrscherin))

    checked = [e for e in events if e.kind.startswith("announcement.")]
    if checked:
        return [named(int(e.data.get("from", e.kingdom or 0)), str(e.data.get("text", "")))
                for e in checked if e.kind == "announcement.published"]
    held = {(e.kingdom, e.line) for e in events if "held" in e.kind.split(".")}
    return [named(k, a.text) for k in sorted(sheets) for a in sheets[k].announcements
            if (k, a.line) not in held]


# --- the game master's overview --------------------------------------------------------

@dataclass(slots=True)
class KingdomRow:
    """One kingdom's figures in the overview table."""

    number: int
    name: str
    ruler: str
    kind: str
    sheet: str
    gemarks: int
    settlements: int
    soldiers: int
    ships: int
    treasury: int
    income: int
    expense: int
    herrscherin: bool = False
    """The ruler is a woman ("Herrscherin")."""


@dataclass(slots=True)
class KingdomDetail:
    """One kingdom's orders and diagnostics."""

    number: int
    name: str
    orders: list[OrderOutcome]
    diagnostics: list[str]


@dataclass(slots=True)
class Overview:
    """The game master's overview of the month."""

    segment: str
    segment_title: str
    month_key: str
    month_long: str
    rows: list[KingdomRow]
    warnings: list[str]
    details: list[KingdomDetail]
    events: list[tuple[str, Line]]
    """``(kingdom label, event)`` for every event of the month in log order but
    the routine ones (:data:`ROUTINE_PREFIXES`, counted in ``kinds``)."""
    maps: list[MapPage] = field(default_factory=list)
    kinds: list[tuple[str, int]] = field(default_factory=list)
    """Every event kind of the month with its count."""
    map_files: list[tuple[str, str]] = field(default_factory=list)
    """``(title, file name)`` of the overview's map pages, written beside it."""
    colours: list[KingdomColour] = field(default_factory=list)
    """The colour key of the maps: every kingdom with land and its rim colour."""


@dataclass(slots=True)
class KingdomColour:
    """One entry of the overview map's colour key."""

    number: int
    name: str
    colour: str


def game_term_warnings(seg: Segment, events: list[Event]) -> list[str]:
    """Messages and announcements forwarded with game terms in them ("formale
    Begriffe und Abkürzungen, die zu Spielzwecken ... verwendet werden"): the
    game master decides, and holds such a text back with ``ZURUECKHALTEN`` in
    his sheet before the run (``wdg turn status`` lists them, as does an
    overview of ``wdg turn run --dry-run``)."""
    out = []
    for e in events:
        terms = e.data.get("game_terms") if e.kind in ("message.sent",
                                                        "announcement.published") else None
        if not terms or e.kingdom is None:
            continue
        what = "BOTSCHAFT" if e.kind == "message.sent" else "BEKANNTMACHUNG"
        name = seg.kingdoms[e.kingdom].name if e.kingdom in seg.kingdoms else ""
        to = f" an Königreich {e.data['to']}" if "to" in e.data else ""
        out.append(f"Königreich {e.kingdom} ({name}): {what.capitalize()} Nr. {e.data.get('number')}"
                   f"{to} (Zeile {e.line}) {', '.join(terms)} (Spielbegriffe) — weitergeleitet; "
                   f"zurückhalten mit 'ZURUECKHALTEN {e.kingdom} {what} {e.data.get('number')} "
                   "<Grund>' im Bogen des Segmentleiters vor dem Lauf")
    return out


def build_overview(seg_after: Segment, events: list[Event], sheets: dict[int, Sheet],
                   settings: ReportSettings, seg_before: Segment | None = None, *,
                   index: MonthEvents | None = None) -> Overview:
    """The game master's overview of the month just resolved (``index``: the
    events sorted once, :class:`~wdg.reports.build.MonthEvents`)."""
    if index is None or index.events is not events:
        index = MonthEvents(events)
    gm_settings = dataclasses.replace(settings, hidden_data_keys=frozenset(), all_details=True)
    month = seg_after.date.previous()
    owners, counts = np.unique(seg_after.owner, return_counts=True)
    gemarks = dict(zip(owners.tolist(), counts.tolist()))
    settled = seg_after.owner[seg_after.settlement > 0]
    rows, details, warnings = [], [], []
    for k in sorted(seg_after.kingdoms):
        kd = seg_after.kingdoms[k]
        armies = [a for a in seg_after.armies.values() if a.kingdom == k]
        mine = index.mine(k)
        tr = treasury(seg_after, mine, k, settings, seg_before)
        playing = not kd.city_state and not kd.retired and kd.player is not None
        kind = "Stadtstaat" if kd.city_state else ("ausgeschieden" if kd.retired else "Königreich")
        has = k in sheets
        rows.append(KingdomRow(k, kd.name, kd.ruler, kind, "ja" if has else ("nein" if playing else "–"),
                               gemarks.get(k, 0), int((settled == k).sum()),
                               sum(a.units for a in armies if not a.is_fleet),
                               sum(a.units for a in armies if a.is_fleet),
                               kd.treasury, tr.income, tr.expense, kd.herrscherin))
        if playing and not has:
            warnings.append(f"Königreich {k} ({kd.name}): kein gültiger Spielzug eingegangen")
        if kd.treasury <= settings.treasury_warning and not kd.retired:
            warnings.append(f"Königreich {k} ({kd.name}): Reichsschatz nur {kd.treasury} GS")
        if tr.unbooked:
            warnings.append(f"Königreich {k} ({kd.name}): Änderung des Reichsschatzes um "
                            f"{tr.unbooked} GS ist durch kein Ereignis verbucht")
        for a in sorted(armies, key=lambda a: a.number):
            if a.general is None and a.status is not ArmyStatus.PASSIVE:
                warnings.append(f"Heer {a.number:04d} von Königreich {k} steht ohne Feldherrn "
                                f"auf {seg_after.label(a.position)}")
        used: set[int] = set()
        orders = order_outcomes(seg_after, sheets.get(k), mine, k, gm_settings, used, index.sent(k))
        loose = [e.why for e in mine if e.kind == "sheet.diagnostic"
                 and e.line not in {o.line for o in orders}]
        if orders or loose:
            details.append(KingdomDetail(k, kd.name, orders, loose))

    warnings += game_term_warnings(seg_after, events)

    def who(e: Event) -> str:
        return f"{e.kingdom}" if e.kingdom is not None else "–"

    kinds: dict[str, int] = {}
    for e in events:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    shown = [(who(e), event_line(e, seg_after, gm_settings)) for e in events
             if not e.kind.startswith(ROUTINE_PREFIXES)]

    colours = [KingdomColour(k, seg_after.kingdoms[k].name, KINGDOM_COLOURS[k % len(KINGDOM_COLOURS)])
               for k in sorted(seg_after.kingdoms) if gemarks.get(k, 0) > 0]
    return Overview(seg_after.name, seg_after.title, month.key, month.long(), rows, warnings,
                    details, shown, kinds=sorted(kinds.items()), colours=colours)


ROUTINE_PREFIXES = ("pay.", "recon.", "move.", "tax.", "durability.", "action.", "a.", "k.",
                    "treasury.")
"""Event kinds the overview counts but does not list one by one (every player
finds them on his sheet; ``wdg turn show SEG MONTH`` lists them all)."""
