""""Die Kontakte zwischen Herrschern": "Alle Botschaften und Bekanntmachungen müssen
sich in der Wortwahl und dem Gegenstand des Textes am Zeitalter des Spieles
orientieren. Dies gilt insbesondere für formale Begriffe und Abkürzungen, die zu
Spielzwecken im Spielzug und der Spielzugauswertung verwendet werden ...
Bekanntmachungen und Botschaften, die diese Erfordernisse nicht erfüllen, wird der
Segmentleiter weder verkünden noch weiterbefördern." — the game master's
``ZURUECKHALTEN`` and the game-term flag (``diplomacy.yaml game_term_patterns``)."""

from __future__ import annotations

from rulekit import RULES

from wdg.engine.diplomacy import game_terms
from wdg.engine.history import flagged_texts
from wdg.engine.turn import resolve_month
from wdg.orders.gmsheet import HoldMessage, check_gm_sheet, parse_gm_sheet
from wdg.orders.model import Announcement, Message, Sheet
from wdg.reports.gazette import game_term_warnings
from wdg.world.factory import add_kingdom, small_segment

GAMEY = "Heer 0101 steht in 101.12, nr 500 und 5.000 GS, DS 2 ++ oder wir kommen."
PROSE = "Der Fürst des Nordens grüßt Euch und wünscht Euren Feldern reiche Ernte."


def two_kingdoms():
    seg = small_segment()
    add_kingdom(seg, 1, diplomacy={2: 5})
    add_kingdom(seg, 2, diplomacy={1: 5})
    return seg


def test_game_terms_are_recognised_and_plain_prose_is_not():
    """The audit's message ("Heer 0101 … 101.12 … nr 500 … 5.000 GS, DS 2 ++") shows
    every kind of game term the rule names: an army number, an address, an order,
    the abbreviation GS and a diplomacy order; in-game prose shows none."""
    assert game_terms(RULES, GAMEY) == [
        "enthält eine Gemarkadresse", "enthält eine Heeresnummer",
        "enthält einen Befehl des Spielzugs", "enthält eine Spielabkürzung",
        "enthält einen Diplomatiestatus"]
    assert game_terms(RULES, PROSE) == []


def test_a_message_with_game_terms_is_flagged_for_the_game_master():
    """Whether a word is used "zu Spielzwecken" is the game master's judgement: the
    message goes out, but the event carries the flag and the overview warns him
    with the line he writes to hold such a message back."""
    seg = two_kingdoms()
    sheets = {1: Sheet(kingdom=1, messages=[Message(2, PROSE, 20), Message(2, GAMEY, 22)])}
    r = resolve_month(seg, sheets, RULES)
    sent = [e for e in r.log.events if e.kind == "message.sent"]
    assert [e.data.get("game_terms") is not None for e in sent] == [False, True]
    assert len([e for e in r.log.events if e.kind == "message.delivered"]) == 2
    warnings = game_term_warnings(seg, r.log.events)
    assert len(warnings) == 1 and "ZURUECKHALTEN 1 BOTSCHAFT 2 <Grund>" in warnings[0]
    assert "Zeile 22" in warnings[0]


def test_the_game_master_holds_a_message_back_with_its_reason_on_the_sender_s_sheet():
    """``ZURUECKHALTEN 1 BOTSCHAFT 2 <Grund>`` in the game master's sheet: the
    second message of kingdom 1's sheet is not forwarded, the sender's event (on
    its ``BOTSCHAFT`` line) gives the reason; the first goes out."""
    seg = two_kingdoms()
    gm = parse_gm_sheet("ZURUECKHALTEN 1 BOTSCHAFT 2 Spielbegriffe gehören nicht in eine Botschaft\n")
    assert gm.errors == [] and check_gm_sheet(gm, seg) == []
    assert gm.commands == [HoldMessage(1, "botschaft", 2,
                                       "Spielbegriffe gehören nicht in eine Botschaft", 1)]
    sheets = {1: Sheet(kingdom=1, messages=[Message(2, PROSE, 20), Message(2, GAMEY, 22)])}
    r = resolve_month(seg, sheets, RULES, gm_sheet=gm)
    held = [e for e in r.log.events if e.kind == "message.held"]
    assert len(held) == 1 and held[0].kingdom == 1 and held[0].line == 22
    assert "vom Segmentleiter zurückgehalten: Spielbegriffe gehören nicht" in held[0].why
    delivered = [e for e in r.log.events if e.kind == "message.delivered"]
    assert [e.data["text"] for e in delivered] == [PROSE]


def test_the_game_master_holds_an_announcement_back():
    """The same for a ``BEKANNTMACHUNG`` ("weder verkünden noch weiterbefördern"):
    it does not appear in the Götterbotschaft; a hold naming no existing
    announcement is reported to the game master (``gm.refused``)."""
    seg = two_kingdoms()
    gm = parse_gm_sheet("ZURUECKHALTEN 1 BEKANNTMACHUNG 1 unpassende Wortwahl\n"
                        "ZURUECKHALTEN 2 BEKANNTMACHUNG 1 gibt es nicht\n")
    sheets = {1: Sheet(kingdom=1, announcements=[Announcement(GAMEY, 30)])}
    r = resolve_month(seg, sheets, RULES, gm_sheet=gm)
    assert not [e for e in r.log.events if e.kind == "announcement.published"]
    held = [e for e in r.log.events if e.kind == "announcement.held"]
    assert len(held) == 1 and "unpassende Wortwahl" in held[0].why
    refused = [e for e in r.log.events if e.kind == "gm.refused"]
    assert len(refused) == 1 and "Königreich 2" in refused[0].why


def test_a_wrong_hold_line_is_a_clear_error():
    """A hold without the kind of text, with a number below 1 or for an unknown
    kingdom is refused with line, what was found and what is expected."""
    seg = two_kingdoms()
    gm = parse_gm_sheet("ZURUECKHALTEN 1 BRIEF 1 x\nZURUECKHALTEN 1 BOTSCHAFT 0 x\n"
                        "ZURUECKHALTEN 7 BOTSCHAFT 1 x\n")
    assert [(d.line, d.expected) for d in gm.errors] == [
        (1, "BOTSCHAFT oder BEKANNTMACHUNG"),
        (2, "die Nummer der Botschaft im Spielzug (1 = die erste)")]
    problems = check_gm_sheet(gm, seg)
    assert [d.line for d in problems] == [3] and problems[0].message == "unbekanntes Königreich"


def test_turn_status_lists_flagged_texts_before_the_run():
    """Before the run the game master sees which texts to judge (``wdg turn
    status``): game terms with the hold line to use, real addresses as held."""
    seg = two_kingdoms()
    sheets = {1: Sheet(kingdom=1, messages=[Message(2, PROSE, 20), Message(2, GAMEY, 22),
                                            Message(2, "Schreibt an a@b.example.org", 24)])}
    lines = flagged_texts(seg, sheets, RULES)
    assert len(lines) == 2
    assert "Botschaft Nr. 2" in lines[0] and "'ZURUECKHALTEN 1 BOTSCHAFT 2 <Grund>'" in lines[0]
    assert "Botschaft Nr. 3" in lines[1] and "wird zurückgehalten" in lines[1]
