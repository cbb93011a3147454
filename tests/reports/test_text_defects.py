"""The text defects issue #32 lists, one test each that would have caught it."""

from __future__ import annotations

import copy

from wdg.engine.economy import shortfall_text
from wdg.engine.events import Event
from wdg.reports.build import _booking_text
from wdg.reports.jsonreport import changes


def test_a_cut_booking_text_never_leaves_a_bracket_open():
    """"(Rüstvolumen erschöpft (Heer 0903)": a long booking text is cut at its
    first colon; a cut inside a bracket drops the bracket, so the army's name
    appended after it stands in balanced brackets."""
    e = Event("a.nr.partial", 9, 903, None,
              "3.642 Krieger angeworben (Rüstvolumen erschöpft: nur 3.642 von 6.000): "
              "36.420\u00a0GS; die Miliz sinkt um 3.642.", gold=-36420, ledger="recruit")
    text = _booking_text(e)
    assert text.count("(") == text.count(")")
    assert text == "3.642 Krieger angeworben (Heer 0903)"


def test_an_unpaid_month_names_only_what_happened():
    """"0 Rüstgüter desertieren ... um 0": with nobody deserting and nothing lost
    the text says so instead of counting zeros."""
    assert "0 Rüst" not in shortfall_text(0, 0, 0) and "um 0" not in shortfall_text(0, 0, 0)
    assert shortfall_text(0, 0, 0) == "Niemand desertiert."
    assert shortfall_text(3, 5, 0) == ("3 Rüstgüter desertieren und zerstreuen sich; die Moral "
                                       "sinkt um 5.")
    assert shortfall_text(1, 0, 2) == ("1 Rüstgut desertiert und zerstreut sich; die Erfahrung "
                                       "des Feldherren sinkt um 2.")


def test_the_militia_falls_by_a_number_written_as_on_the_sheet():
    """"Miliz sinkt um 3642" beside "3.642 Krieger": "(nr)" recruiting 3.642
    Krieger says the militia falls by 3.642."""
    from wdg.engine.turn import resolve_month
    from wdg.orders.parser import parse_sheet
    from wdg.rules import shipped_rules
    from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
    from wdg.world.state import Building

    seg = small_segment(["T. T."])
    add_kingdom(seg, 1, treasury=500_000)
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=5000)
    add_army(seg, 101, 1, (0, 0), units=100)
    sheet = parse_sheet("Segment: test\nKönigreich: 1\nPasswort: x\nH\nHeer 0101 101.01\n"
                        "A: nr 3642\n")
    log = resolve_month(seg, {1: sheet}, shipped_rules()).log
    (why,) = [e.why for e in log.events if e.kind == "a.nr"]
    assert "3.642 Krieger angeworben" in why and "die Miliz sinkt um 3.642." in why


def _doc(armies, foreign=None, sightings=None) -> dict:
    return {"report": {"treasury": {"after": 0}, "armies": armies, "totals": None,
                       "provinces": [], "diplomacy": [], "sightings": sightings or [],
                       "foreign": foreign or []}}


def test_new_sightings_count_things_never_seen_not_changed_lines():
    """"Neue Sichtungen: 1" counted a sighting line whose estimate changed: the
    same army seen again is not new, an army not seen last month is."""
    army = {"number": 101, "units": 10, "morale": 50, "status": "aktiv", "general": "G"}
    seen = {"gemark": "101.01", "what": "heer", "id": 2739, "kingdom": 27, "troop": "Reiter",
            "units": 600, "exact": False, "low": 500, "high": 700, "source": "Heer 0101"}
    before = _doc([army], [seen], [{"where": "101.01", "text": "etwa 600"}])
    again = dict(seen, units=650, low=550, high=760)
    now = _doc([army], [again], [{"where": "101.01", "text": "etwa 650"}])
    assert changes(now, before)["new_sightings"] == 0
    now["report"]["foreign"].append(dict(seen, id=2740))
    assert changes(now, before)["new_sightings"] == 1


def test_an_army_destroyed_this_month_has_no_morale_change():
    """An army destroyed this month (passive, no general, no Rüstgüter) was shown
    with a rising morale; it is left out of the morale changes."""
    alive = {"number": 101, "units": 10, "morale": 50, "status": "aktiv", "general": "G"}
    before = _doc([alive, dict(alive, number=102)])
    gone = {"number": 102, "units": 0, "morale": 60, "status": "passiv", "general": ""}
    now = _doc([dict(alive, morale=55), gone])
    assert changes(now, copy.deepcopy(before))["morale"] == [
        {"army": 101, "before": 50, "after": 55}]


def test_a_line_that_names_its_place_does_not_repeat_it():
    """"101.45 … in 101.45": the place stands before a line only when its text
    does not name it (text and HTML)."""
    from wdg.reports.render import Renderer

    r = Renderer()
    tpl = ('{% import "_text.j2" as t %}{{ t.event(a) }}{{ t.event(b) }}')
    a = {"where": "101.45", "text": "Heer 0101 siegt in 101.45", "details": []}
    b = {"where": "101.46", "text": "Ein Fabelwesen zog weiter", "details": []}
    out = r.text_env.from_string(tpl).render(a=a, b=b)
    assert out.count("101.45") == 1 and "101.46: Ein Fabelwesen" in out
    html = r.html_env.from_string('{% import "_html.j2" as h %}{{ h.event(a) }}').render(a=a)
    assert html.count("101.45") == 1


def test_scouting_lines_of_two_armies_with_different_causes_stay_apart():
    """Two armies' scouting events with the same data but different texts were
    merged into one line naming both; they stay two lines, and identical ones
    still merge."""
    from wdg.reports.build import _grouped_recon
    from wdg.reports.settings import load_report_settings
    from wdg.world.factory import small_segment

    seg = small_segment(["T. T."])
    s = load_report_settings()
    evs = [Event("recon.scouted", 1, 101, None, "Die Aufklärer sehen zwei Gemarken weit",
                 data={"reach": 2}),
           Event("recon.scouted", 1, 102, None, "Nebel: die Aufklärer sehen nur die eigene "
                 "Gemark", data={"reach": 2}),
           Event("recon.scouted", 1, 103, None, "Die Aufklärer sehen zwei Gemarken weit",
                 data={"reach": 2})]
    lines = _grouped_recon(seg, evs, s)
    assert [(l.where, l.text) for l in lines] == [
        ("Heere 0101, 0103", "Die Aufklärer sehen zwei Gemarken weit"),
        ("Heer 0102", "Nebel: die Aufklärer sehen nur die eigene Gemark")]


def test_a_battle_is_told_once_and_named_beside_the_morale():
    """A battle stood in three sections (Kämpfe, and twice under the army's
    morale change); beside the morale it is now named once, "Kampf (siehe
    Kämpfe)", while the events of other causes keep their own text."""
    from wdg.reports.build import _morale_texts

    evs = [Event("a.nr", 1, 102, None, "257 Krieger angeworben: 2.570\u00a0GS"),
           Event("combat.battle", 1, 102, None, "Heer 0102 griff Heer 4710 in 318.02 an"),
           Event("combat.losses", 1, 102, None, "Verluste im Kampf gegen Heer 4710"),
           Event("militia.fight", 1, 102, None, "Die Miliz stellt sich dem Heer")]
    assert _morale_texts(evs) == ["257 Krieger angeworben: 2.570\u00a0GS", "Kampf (siehe Kämpfe)",
                                  "Partisanenkampf (siehe Kämpfe)"]
