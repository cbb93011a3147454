"""The order editor of the HTML result sheet (issue #24): legal choices only,
its data safe inside the page, usable without JavaScript, absent from the
printed sheet, small, and built from the kingdom's own view alone."""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import pytest

from wdg.campaign import PACKAGE_ROOT
from wdg.orders.checker import check_sheet
from wdg.orders.choices import order_choices
from wdg.orders.forecast import forecast
from wdg.orders.model import Severity
from wdg.orders.parser import parse_sheet
from wdg.orders.view import KingdomView, build_view
from wdg.reports.batch import MonthInput, render_kingdom
from wdg.reports.editor import script_json, shipped_rules
from wdg.reports.render import SHIPPED_TEMPLATES
from wdg.world.factory import add_army
from wdg.world.state import TroopType
from wdg.store.segment import load_segment
from wdg.world.stress import stress_segment

DATA = re.compile(r'<script type="application/json" id="ed-data">(.*?)</script>', re.S)
HOSTILE = "</script><script>alert(1)</script>\u2028<!--"


def _values(c: dict, army: dict | None) -> list[str]:
    """Every order text a choice of the editor can produce (numbers at both ends)."""
    code, p = c["code"], c.get("param")
    if p is None:
        return [code]
    if p == "fixed":
        return [f"{code} {c['value']}"]
    if p in ("count", "gold"):
        return [f"{code} {c['min']}", f"{code} {c['max']}"]
    if p == "choice":
        return [f"{code} {o}" for o in c["options"]]
    if p == "name":
        return [f"{code} Neue Feste"]
    if p == "settle":
        return [f"{code} {o} {n}" for o in c["options"] for n in (c["min"], c["max"])]
    if p == "diplomacy":
        return [f"{code} {o['kingdom']} {s}" for o in c["options"] for s in o["steps"]]
    assert p == "reach" and army is not None
    return [f"{code} {r['dirs']}" for r in army["reach"]
            if "targets" not in c or r["to"] in c["targets"]]


def _sheet(view: KingdomView, armies: dict[int, list[str]], k: list[str]) -> str:
    lines = [f"Segment: {view.segment}", f"Königreich: {view.kingdom}", "Passwort: x",
             f"Mond: {view.month.short()}", "H"]
    for n, orders in sorted(armies.items()):  # the others missing: a warning, no error
        lines.append(f"Heer {n:04d} {view.armies[n].position}")
        lines += orders
    return "\n".join(lines + ["K", *k]) + "\n"


def _errors(view: KingdomView, text: str) -> list[str]:
    """The checker's errors, and every refusal the forecast expects for a
    reason other than gold (the treasury is the player's to plan)."""
    sheet = parse_sheet(text)
    out = [f"{d.line}: {d.message} ({d.found})" for d in check_sheet(sheet, view)
           if d.severity is Severity.ERROR]
    # many armies' choices share one sheet: two ``e`` onto one gemark, the
    # second fails (another army took it first) — the sheet's, not a choice's
    return out + [f"{r.line}: {r.order}: {r.reason} ({r.cause})"
                  for r in forecast(view, sheet, shipped_rules()).refused
                  if r.cause != "gold" and "zuvor erobert" not in r.reason]


def _every_choice_is_legal(view: KingdomView, limit: int | None = None) -> int:
    """Each choice of the editor on a sheet (one order per army and phase, many
    armies per sheet): the checker finds no error and the forecast refuses
    nothing but for gold. Returns the orders checked."""
    ch = order_choices(view, shipped_rules())
    rounds: dict[int, list[list[str]]] = {}
    # boarding: two armies may not board one fleet; hiring: the one general who
    # offered himself joins one army; an army dismissed into one that is itself
    # dismissed (the forecast runs the engine's nf and eh)
    alone: list[tuple[int, str]] = []
    # recruits: armies in one settlement share its militia (Rüstvolumen)
    places = [a["position"] for a in ch["armies"] if any(c["code"] == "nr" for c in a["a"])]
    for army in ch["armies"]:
        shared = places.count(army["position"]) > 1
        blocks = rounds.setdefault(army["number"], [])
        for c in army["a"]:
            for v in _values(c, army)[:limit]:
                if c["code"] in ("bs", "nf", "eh") or (c["code"] == "nr" and shared):
                    alone.append((army["number"], f"A: {v}"))
                    continue
                blocks.append([f"A: {v}"] + ([] if c.get("whole") or not army["b"] else ["B: r"]))
        for c in army["b"]:
            blocks += [[f"B: {v}"] for v in _values(c, army)[:limit]]
    n = 0
    for i in range(max((len(b) for b in rounds.values()), default=0)):
        got = {a: b[i] for a, b in rounds.items() if i < len(b)}
        assert not _errors(view, _sheet(view, got, [])), got
        n += len(got)
    for number, order in alone:
        assert not _errors(view, _sheet(view, {number: [order]}, [])), (number, order)
        n += 1
    for c in ch["kingdom"]["orders"]:
        for v in _values(c, None)[:limit]:
            assert not _errors(view, _sheet(view, {}, [v])), v
            n += 1
    return n


def test_every_choice_of_the_demo_kingdoms_passes_the_checker():
    seg = load_segment(PACKAGE_ROOT / "worlds" / "canura")
    total = sum(_every_choice_is_legal(build_view(seg, k)) for k in sorted(seg.kingdoms)
                if not seg.kingdoms[k].city_state)
    assert total > 100


@pytest.mark.slow
def test_every_choice_on_the_stress_segment_passes_the_checker():
    """Fleets in harbours, boats, generals with abilities, fronts between kingdoms."""
    seg, _ = stress_segment(0.1)
    codes: set[str] = set()
    for k in sorted(seg.kingdoms)[:12]:
        view = build_view(seg, k)
        _every_choice_is_legal(view, limit=3)
        ch = order_choices(view, shipped_rules())
        codes |= {c["code"] for a in ch["armies"] for c in a["a"] + a["b"]}
    assert {"nr", "er", "eh", "b", "c", "t", "nh"} <= codes, codes


def test_a_passive_army_gets_no_phase_b_and_a_whole_month_order_is_marked():
    seg = load_segment(PACKAGE_ROOT / "worlds" / "canura")
    for k in sorted(seg.kingdoms):
        for a in order_choices(build_view(seg, k), shipped_rules())["armies"]:
            if a["passive"]:
                assert a["b"] == [] and {c["code"] for c in a["a"]} <= {"nf", "nh"}
            for c in a["a"]:
                assert c.get("whole", False) == (c["code"] in ("bb", "bs", "vs", "eh"))


def _render(tmp_path: Path, month, settings, **kw) -> str:
    before, after, events, sheets = month
    render_kingdom(MonthInput(before, after, events, sheets, None, tmp_path, None, settings,
                              pdf=False, **kw), 1)
    return (tmp_path / "k1" / "ergebnis.html").read_text(encoding="utf-8")


def test_without_javascript_the_text_field_holds_the_pre_filled_form(tmp_path, month, settings):
    page = _render(tmp_path, month, settings)
    field = re.search(r'<textarea id="ed-text"[^>]*>(.*?)</textarea>', page, re.S)
    assert field, "no text field"
    form = (tmp_path / "k1" / "spielzug.txt").read_text(encoding="utf-8")
    assert html.unescape(field.group(1)) == form
    assert "<noscript>" in page and 'id="ed-form" hidden' in page


def test_the_printed_sheet_has_no_editor(month, settings):
    from wdg.reports.render import Renderer

    from wdg.reports.sheet import PRINT_WIDTH, report_model

    before, after, events, sheets = month
    _, doc = report_model(after, events, sheets[1], 1, settings, seg_before=before)
    printed = Renderer().html("ergebnisblatt.html.j2", r=doc["report"], changes=doc["changes"],
                              maps=[], doc_date="0412-04-01", print=True, WIDTH=PRINT_WIDTH,
                              editor={"data": {}, "json": "", "form": ""})
    assert "ed-data" not in printed and "editor.js" not in printed and "<textarea" not in printed
    css = (SHIPPED_TEMPLATES / "editor.css").read_text(encoding="utf-8")
    assert "@media print { .editor, .ed-plan { display: none" in css


def test_a_hostile_kingdom_and_general_name_stay_inert_in_the_page(tmp_path, month, settings):
    before, after, events, sheets = month
    after = copy.deepcopy(after)
    after.kingdoms[1].name = HOSTILE
    after.armies[101].general.name = HOSTILE
    after.kingdoms[2].name = HOSTILE  # on kingdom 1's diplomacy list: a message recipient
    page = _render(tmp_path, (before, after, events, sheets), settings)
    assert "<script>alert(1)" not in page and "<!--" not in page.split("<body", 1)[1]
    # the editor's data and code, the map's data and code
    assert page.count("<script") == 4 and page.count("</script>") == 4
    raw = DATA.search(page).group(1)
    assert "<" not in raw and ">" not in raw and "&" not in raw and "\u2028" not in raw
    data = json.loads(raw)
    assert data["name"] == HOSTILE.replace("\u2028", "")  # removed, as everywhere on the sheet
    assert any(a["general"] == data["name"] for a in data["choices"]["armies"])
    assert data["names"]["2"] == data["name"]


def test_script_json_escapes_what_could_end_the_element():
    """``<``, ``>`` and ``&`` escaped; the line separators U+2028/2029 removed by
    the text policy (wdg.textpolicy.xml_safe), as everywhere on the sheet."""
    text = str(script_json({"a": "</script>&<!--\u2028\u2029"}))
    assert text == '{"a":"\\u003c/script\\u003e\\u0026\\u003c!--"}'
    assert json.loads(text)["a"] == "</script>&<!--"


def test_the_editor_data_names_the_armies_reach_and_the_kingdom_orders(tmp_path, month, settings):
    data = json.loads(DATA.search(_render(tmp_path, month, settings)).group(1))
    assert data["segment"] == "probe" and data["kingdom"] == 1 and data["month"] == "Endex 412"
    armies = {a["number"]: a for a in data["choices"]["armies"]}
    assert set(armies) == {101, 103, 104}
    assert armies[104]["passive"] and armies[104]["b"] == []
    assert armies[101]["reach"], "army 0101 reaches no gemark"
    assert all({"to", "dirs", "cost"} <= set(r) for r in armies[101]["reach"])
    k = data["choices"]["kingdom"]
    assert k["limit"] == 1 and {"BK", "F+"} <= {o["code"] for o in k["orders"]}
    assert data["maps"] and data["maps"][0]["s"] > 0
    assert data["address"] == ""


def test_an_enemy_army_the_kingdom_cannot_see_on_its_path_changes_nothing_in_the_page(
        tmp_path, month, settings):
    """Privacy (issue #24): the editor's reach and the whole page come from the
    kingdom's own view; an enemy army standing unseen on the path of army 0101
    leaves every byte of the page as it was."""
    before, after, events, sheets = month
    clean = _render(tmp_path / "a", month, settings)
    data = json.loads(DATA.search(clean).group(1))
    army = next(a for a in data["choices"]["armies"] if a["reach"])
    step = army["reach"][0]["to"]  # the first gemark of a path of army 0101
    after = copy.deepcopy(after)
    spy = add_army(after, 9876, 2, step, troop=TroopType.REITER, units=4321)
    spy.general.name = "Spähhauptmann Zzyzx"
    page = _render(tmp_path / "b", (before, after, events, sheets), settings)
    assert page == clean
    for secret in ("9876", "4321", "4.321", "Zzyzx"):
        assert secret not in page


@pytest.mark.parametrize("name, most", [("editor", 45_000), ("map", 18_000)])
def test_the_editor_and_map_code_and_style_are_small_and_fetch_nothing(name, most):
    """Each script with its style sheet stays small enough to read in the page
    (the map's grew by its keyboard cursor and the owners' hatching, issue
    #42). ``url(#…)`` names a pattern of the page itself, nothing fetched."""
    js = (SHIPPED_TEMPLATES / f"{name}.js").read_text(encoding="utf-8")
    css = (SHIPPED_TEMPLATES / f"{name}.css").read_text(encoding="utf-8")
    assert len(js.encode()) + len(css.encode()) < most
    for text in (js, css):
        assert "</" not in text  # inlined: nothing may close the element
        assert not re.search(r"https?:|//[a-z]|@import|url\((?![\"']?#)|fetch\(|XMLHttpRequest|innerHTML|eval\(",
                             text.replace("http://www.w3.org/2000/svg", ""))


@pytest.mark.parametrize("address", ["sl@example.org", ""])
def test_the_mailto_link_is_there_only_with_an_address(tmp_path, month, settings, address):
    from dataclasses import replace

    page = _render(tmp_path, month, replace(settings, orders_address=address))
    assert ('id="ed-mail" href="mailto:sl@example.org"' in page) == bool(address)


MAP_DATA = re.compile(r'<script type="application/json" id="map-data">(.*?)</script>', re.S)


def test_the_map_data_names_every_known_gemark_and_foreign_owner_from_the_report(tmp_path, month,
                                                                                 settings):
    """Issue #32, the map a player plans on: the HTML sheet's map data holds
    every gemark of the report's known map with terrain, owner, settlement
    and when it was seen, the foreign owners (never the kingdom itself, never
    nobody) with a colour each, and the own armies at their gemarks; none of
    it is in the printed sheet. (Foreign owners at stress size and in the
    browser: tests/e2e/test_editor_browser.py.)"""
    from wdg.reports.mapview import OWNER_COLOURS
    from wdg.reports.sheet import printed_html

    page = _render(tmp_path, month, settings)
    data = json.loads(MAP_DATA.search(page).group(1))
    doc = json.loads((tmp_path / "k1" / "bericht.json").read_text(encoding="utf-8"))
    assert [c[2] for c in data["cells"]] == [c["gemark"] for c in doc["known_map"]]
    owners = {o["k"] for o in data["owners"]}
    known = {c["owner"] for c in doc["known_map"]} - {None, 0, 1}
    assert owners == known and 1 not in owners
    assert [o["colour"] for o in data["owners"]] == list(OWNER_COLOURS[:len(owners)])
    for cell, c in zip(data["cells"], doc["known_map"]):
        assert cell[3] == c["terrain"]
        if c["owner"] in owners:
            assert data["owners"][cell[4]]["k"] == c["owner"]
    own = [a for a in doc["report"]["armies"] if a["status"] != "passive"]
    for a in own:
        assert any(f"eigenes Heer {a['number']:04d}" in m for m in data["marks"][a["position"]])
    from wdg.reports.exploration import report_pages
    from wdg.reports.render import Renderer
    printed = printed_html(doc, Renderer(), settings, report_pages(doc, settings))
    assert "map-data" not in printed and 'class="toc"' not in printed and 'id="karte"' not in printed
