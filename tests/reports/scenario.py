"""A fixed small month for the report tests: two kingdoms and a city state on
two provinces, one sheet with orders of every outcome, events of every
section (and one kind no section knows), a message, an announcement, a
game master's bulletin and note."""

from __future__ import annotations

import copy

from wdg.engine.events import Event
from wdg.orders.model import Sheet
from wdg.orders.parser import parse_sheet
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.state import Building, Segment, TroopType

SHEET_1 = """\
Segment: probe
Königreich: 1
Passwort: geheim
H
Heer 0101 101.03
A: nr 500
B: b O O
Heer 0103 101.02
B: r
Heer 0104 000.00
A: nh 101.04
K
BK 101.03
F+ 5000
DS 2 --
BOTSCHAFT 2
Seid gegrüßt, Nachbar.
ENDE
BEKANNTMACHUNG
Hört, hört: Arkonia lädt zum Fest! Ärger über Öl & Übermut.
ENDE
"""


def segments() -> tuple[Segment, Segment]:
    """The state before (Dormit 412) and after the month."""
    seg = small_segment(["~M ~K T. Hw Hs B. Tw T.", " ~K T. Hs B. T. Tu T. G."], prov_cols=2,
                        prov_rows=1, date=MonthDate(412, 4), seed=77, name="probe")
    seg.title = "Probe"
    add_kingdom(seg, 1, name="Arkonia", treasury=120_000, diplomacy={2: 3})
    add_kingdom(seg, 2, name="Borhold", diplomacy={1: 9})
    add_kingdom(seg, 9, name="Freistadt", city_state=True)
    seg.kingdoms[1].ruler = "Ulrike von Arkon"
    seg.kingdoms[2].ruler = "Bodo der Kühne"
    add_settlement(seg, "101.03", 350, name="Arkon", kingdom=1, militia=900,
                   buildings={Building.PALAST: 1, Building.HAFEN: 2})
    add_settlement(seg, "101.05", 150, name="Öde<Mark>", kingdom=1, militia=400)
    add_settlement(seg, "102.10", 220, name="Borh", kingdom=2)
    own(seg, 1, "101.04", "101.11", "101.12")
    add_army(seg, 101, 1, "101.03", units=1000, morale=60, experience=20)
    add_army(seg, 103, 1, "101.02", troop=TroopType.SCHIFFE, units=5)
    add_army(seg, 104, 1, None, troop=TroopType.REITER, units=300)
    add_army(seg, 201, 2, "102.10", units=2500)
    seg.settings.deadline, seg.settings.deadline_month = "2026-12-17 13:00", "0412-05"
    known = seg.known[1]
    known.seen[:, :6] = seg.date.ordinal
    known.terrain[:, :6] = seg.terrain[:, :6]
    after = copy.deepcopy(seg)
    after.date = seg.date.next()
    after.kingdoms[1].treasury = 120_000 - 1200 - 50_000 - 5000 - 8_000 + 9_150 + 3_000
    after.armies[101].units = 1300
    after.armies[101].position = at(seg, "101.05")
    return seg, after


def sheet() -> Sheet:
    """Kingdom 1's sheet."""
    return parse_sheet(SHEET_1)


def events(seg: Segment) -> list[Event]:
    """The month's events (as the engine would have logged them)."""
    s = sheet()
    line = {str(o): o.line for o in s.kingdom_orders}
    msg_line, ann_line = s.messages[0].line, s.announcements[0].line
    b101 = s.army(101)
    h = lambda a: at(seg, a)
    return [
        Event("pay.wages", 1, gold=-1200, ledger="pay", why="Sold für 1.005 Rüstgüter"),
        Event("gm.note", 1, line=7, why="Willkommen in Canura, {{ hoheit }}!"),
        Event("gm.bulletin", why="Das Segment öffnet seine Tore.", public=True, line=3,
              data={"kind": "ankuendigung"}),
        Event("gm.bulletin", why="Schickt Kundschafter voraus.", public=True, line=5,
              data={"kind": "ratschlag"}),
        Event("k.build", 1, at=h("101.03"), gold=-50_000, ledger="build", line=line["BK 101.03"],
              why="Kaserne in Arkon begonnen"),
        Event("k.festival", 1, gold=-5000, ledger="festival", line=line["F+ 5000"],
              why="Volksfest gefeiert", data={"popularity": 3}),
        Event("k.refused", 1, line=line["DS 2 --"],
              why="Diplomatiestatus kann nicht unter 1 sinken"),
        Event("a.nr.partial", 1, army=101, gold=-8_000, ledger="recruit",
              line=b101.phase_a.line, why="Nur 300 Rekruten angeworben (Miliz erschöpft)",
              data={"units": 300}),
        Event("move.moved", 1, army=101, at=h("101.05"), line=b101.phase_b.line,
              why="Heer zog nach 101.05"),
        Event("message.delivered", 2, line=msg_line, why="Botschaft von Arkonia",
              data={"from": 1, "text": "Seid gegrüßt, Nachbar."}),
        Event("message.delivered", 1, line=9, why="Botschaft von Borhold",
              data={"from": 2, "text": "<b>Fürchtet</b> uns {{ 7*7 }}"}),
        Event("militia.fight", 1, army=101, at=h("101.05"),
              why="Partisanenkampf gegen 120 Milizen um Okkupation: gewonnen",
              data={"militia": 120, "won": True, "chance": 0.81}),
        Event("combat.battle", 2, army=201, at=h("102.10"), public=True,
              why="Kampf gegen Heer 0777 von Räubern: gewonnen",
              data={"enemy": 777, "won": True, "strength": 3.5}),
        Event("recon.sighting", 1, at=h("101.06"), why="Heer 0201 von Borhold (Krieger): etwa 2500",
              data={"what": "heer", "id": 201, "of": 2, "troop": "Krieger", "units": 2500,
                    "exact": False, "source": "Heer 0101"}),
        Event("recon.sighting", 1, at=h("101.13"), why="Fabelwesen Fafnir: genau 1",
              data={"what": "fabelwesen", "id": 1, "units": 1, "exact": True}),
        Event("contact.address", 1, at=h("101.06"), why="Der Herrscher von Borhold ist offener Mitspieler",
              data={"other": 2, "name": "Bernd Beispiel", "email": "b@example.org",
                    "address": "Hauptstraße 1, 12345 Musterstadt"}),
        Event("diplomacy.report", 1, why="Automatischer Bericht von Borhold (Diplomatiestatus 9)",
              data={"soldiers": 2500, "gemarks": 1, "taxes": 4000, "treasury": 104000}),
        Event("tax.gemarks", 1, gold=9_150, ledger="tax", why="Steuern aus 6 Gemarken"),
        Event("gm.gold", 1, gold=3_000, ledger="gm", why="Entschädigung", line=11),
        Event("weather.storm", 1, at=h("101.12"), why="Ein Sturm zieht über das Land",
              data={"force": 7}),
        Event("announcement.published", 1, line=ann_line, public=True, why="Bekanntmachung von Arkonia",
              data={"from": 1, "text": '<img src="http://example.invalid/x.png"> {{ 7*7 }} Hört, '
                                       "hört! Ärger über Öl & Übermut."}),
        Event("sheet.missing", 2, why="Kein gültiger Spielzug eingegangen"),
    ]
