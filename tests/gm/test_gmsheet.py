"""The game master's sheet: parsing, checking and applying interventions.

Rule: the game master ("Segmentleiter") has access to every detail of a
segment; wdg records each intervention as an input of the month.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wdg.engine.economy import general_offers
from wdg.engine.gamemaster import apply_gm_sheet
from wdg.engine.month import Month
from wdg.orders import gmsheet as g
from wdg.rules import Rules
from wdg.world.factory import add_kingdom, small_segment
from wdg.world.state import TroopType
from wdg.world.terrain import terrain

RULES = Rules.load(Path(__file__).resolve().parents[2] / "worlds" / "rules")


def _seg():
    seg = small_segment(["T. T. Hw"])
    add_kingdom(seg, 1, treasury=1000)
    add_kingdom(seg, 2)
    add_kingdom(seg, 7, city_state=True)
    return seg


def _run(seg, text: str) -> Month:
    m = Month(state=seg, sheets={}, rng=np.random.default_rng(1), rules=RULES,
              gm_sheet=g.parse_gm_sheet(text))
    apply_gm_sheet(m)
    return m


def test_every_command_parses_to_its_typed_form():
    sheet = g.parse_gm_sheet(
        "SEGMENTLEITER\n"
        "FABELWESEN SETZEN drache 101.02 ANZAHL 2 GOLD 5000 NAME \"Fafnir\"\n"
        "fabelwesen bewegen 1 101.03\n"
        "Fabelwesen entfernen 1\n"
        "SCHATZ 101.04 GOLD 300 GEGENSTAND \"Amulett des Mondes\"\n"
        "FELDHERR 1 Reiter 40 2000 ZAUBERER FAEHIGKEIT tz NAME \"Orlan\"\n"
        "GOLD 1 +5000 Erbschaft eines Onkels\n"
        "GELÄNDE 101.05 Hochlandwald\n"
        "BESITZER 101.06 2\n"
        "MILIZ 101.06 1200\n"
        "SIEDLUNG 101.07 150 NAME \"Neuhaven\"\n"
        "EREIGNIS Ein strenger Winter\n"
        "DIPLOMATIE 1 2\n"
        "NOTIZ 1\nDein Bote kam zu spät.\nENDE\n"
        "ANKÜNDIGUNG\nDer nächste Eintreffschluß ist der 3.\nENDE\n"
        "RATSCHLAG\nErkundet, bevor ihr marschiert.\nENDE\n"
    )
    assert sheet.diagnostics == []
    kinds = [type(c).__name__ for c in sheet.commands]
    assert kinds == ["PlaceCreature", "MoveCreature", "RemoveCreature", "PlaceTreasure",
                     "OfferGeneral", "ChangeGold", "SetTerrain", "SetOwner", "SetMilitia",
                     "SetSettlement", "SeasonEvent", "AddDiplomacy", "Note", "Bulletin", "Bulletin"]
    pc = sheet.commands[0]
    assert (pc.kind, str(pc.at), pc.count, pc.gold, pc.name) == ("drache", "101.02", 2, 5000, "Fafnir")
    og = sheet.commands[4]
    assert (og.troop, og.experience, og.price, og.wizard, og.ability) == (TroopType.REITER, 40, 2000, True, "tz")
    assert sheet.commands[5].amount == 5000 and sheet.commands[5].reason == "Erbschaft eines Onkels"
    assert sheet.commands[6].terrain is terrain("Hochlandwald")
    assert sheet.commands[12].text == "Dein Bote kam zu spät."


def test_a_malformed_line_is_a_clear_message_and_the_rest_still_counts():
    sheet = g.parse_gm_sheet("GOLD 1 5000 ohne Vorzeichen\nFABELWESN SETZEN troll 101.01\nMILIZ 101.06 10\n")
    assert [d.line for d in sheet.errors] == [1, 2]
    assert "Vorzeichen" in sheet.errors[0].message
    assert sheet.errors[1].suggestion == "FABELWESEN"
    assert len(sheet.commands) == 1


def test_a_block_without_ende_is_reported():
    sheet = g.parse_gm_sheet("ANKÜNDIGUNG\nText ohne Ende\n")
    assert sheet.errors and sheet.errors[0].message == "Block ohne ENDE"


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_the_parser_never_raises(text):
    g.parse_gm_sheet(text)


def test_an_unknown_kingdom_is_refused_and_nothing_changes():
    seg = _seg()
    before = {n: k.treasury for n, k in seg.kingdoms.items()}
    sheet = g.parse_gm_sheet("GOLD 9 +100 Geschenk\n")
    assert [d.message for d in g.check_gm_sheet(sheet, seg)] == ["unbekanntes Königreich"]
    m = _run(seg, "GOLD 9 +100 Geschenk\n")
    assert {n: k.treasury for n, k in seg.kingdoms.items()} == before
    assert [e.kind for e in m.log] == ["gm.refused"]


def test_an_address_off_the_map_is_refused():
    seg = _seg()
    diags = g.check_gm_sheet(g.parse_gm_sheet("MILIZ 505.01 10\n"), seg)
    assert diags and diags[0].message == "Gemark liegt nicht auf der Karte"


def test_a_gold_change_that_would_make_the_treasury_negative_is_refused():
    """Der Reichsschatz (e): "ein Herrscher kann keine Schulden machen"."""
    seg = _seg()
    text = "GOLD 1 -600 Strafe\nGOLD 1 -600 noch eine Strafe\n"
    diags = g.check_gm_sheet(g.parse_gm_sheet(text), seg)
    assert [d.line for d in diags] == [2]
    _run(seg, text)
    assert seg.kingdoms[1].treasury == 400


def test_gold_given_is_a_ledger_event_for_the_kingdom():
    seg = _seg()
    m = _run(seg, "GOLD 1 +250 Fund\n")
    assert seg.kingdoms[1].treasury == 1250
    assert m.log.gold_total(1) == 250


def test_placing_and_removing_a_creature_and_a_treasure():
    seg = _seg()
    m = _run(seg, "FABELWESEN SETZEN troll 101.02 ANZAHL 3\nSCHATZ 101.03 GOLD 99\n")
    (cid, cr), = seg.creatures.items()
    assert (cr.kind, seg.label(cr.position), cr.count) == ("troll", "101.02", 3)
    assert [t.gold for t in seg.treasures.values()] == [99]
    assert any(e.kind == "gm.creature_placed" and e.public for e in m.log)
    _run(seg, f"FABELWESEN ENTFERNEN {cid}\n")
    assert seg.creatures == {}


def test_a_general_offered_by_the_game_master_replaces_the_end_of_month_draw():
    """Der Feldherr (a): offers are communicated by the game master; his offer takes
    the place of the month's draw (step 88), so it is next month's offer."""
    seg = _seg()
    m = _run(seg, "FELDHERR 2 Schiffe 55 8000 NAME \"Kapitän Lorn\"\n")
    assert seg.kingdoms[2].offer is None  # not before the end of the month
    m.kingdom_order = [1, 2]
    general_offers(m)
    offer = seg.kingdoms[2].offer
    assert offer.price == 8000 and offer.general.troop is TroopType.SCHIFFE
    assert offer.general.name == "Kapitän Lorn"


def test_no_general_offer_and_no_diplomacy_for_a_city_state():
    """Stadtstaaten: "verfügen nicht über Heere", "keine diplomatischen Beziehungen"."""
    seg = _seg()
    diags = g.check_gm_sheet(g.parse_gm_sheet("FELDHERR 7 Krieger 10 100\nDIPLOMATIE 1 7\n"), seg)
    assert [d.line for d in diags] == [1, 2]


def test_diplomacy_added_by_the_game_master_starts_at_five():
    """Der Diplomatiestatus: "Zu einem Königreich, das neu in die Liste ... aufgenommen
    wird, besteht immer ein Diplomatiestatus von 5"."""
    seg = _seg()
    _run(seg, "DIPLOMATIE 1 2\n")
    assert seg.kingdoms[1].diplomacy == {2: 5}
    assert seg.kingdoms[2].diplomacy == {}


def test_terrain_owner_militia_and_settlement_are_set():
    seg = _seg()
    _run(seg, "GELAENDE 101.05 Hw\nBESITZER 101.05 2\nMILIZ 101.05 77\nSIEDLUNG 101.05 120 NAME \"Eck\"\n")
    h = seg.grid.parse("101.05")
    assert seg.at(seg.terrain, h) == terrain("Hw").id
    assert seg.at(seg.owner, h) == 2 and seg.at(seg.militia, h) == 77
    assert seg.at(seg.settlement, h) == 120 and seg.settlement_names[h] == "Eck"


def test_notes_and_bulletins_become_events_for_the_reports():
    seg = _seg()
    m = _run(seg, "NOTIZ 2\nHallo\nENDE\nRATSCHLAG\nVorsicht\nENDE\nEREIGNIS Dürre\n")
    assert [(e.kind, e.kingdom, e.why) for e in m.log][:2] == [("gm.note", 2, "Hallo"),
                                                               ("gm.bulletin", None, "Vorsicht")]
    assert seg.settings.season_event == "Dürre"


@pytest.mark.parametrize("text", ["SCHATZ 101.01\n", "FELDHERR 1 Drachen 10 10\n",
                                  "SIEDLUNG 101.01 100 NAME \"Ein viel zu langer Name\"\n",
                                  "MILIZ 000.00 5\n", "DIPLOMATIE 1 1\n"])
def test_impossible_commands_are_errors_at_parse_time(text):
    assert g.parse_gm_sheet(text).errors
