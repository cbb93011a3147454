"""The editor's gold box against the forecast and the month (issue #42, "Must
show"): a bot campaign of eight months on the demo segment in which one
kingdom, the human-like one, is played with nothing but the HTML order
editor — each month its result sheet is rendered as the month renders it,
opened in headless Chromium, the month's orders are pasted into the editor's
text field (the orders a player picks from the editor's own choices:
recruits, buildings, a festival, activations), and the editor's gold box is
read. The other kingdoms are the bots (docs/bots.md).

In every month the end treasury in the editor's box equals the forecast's
(``wdg orders simulate``) and the kingdom's treasury after the month, to the
Goldstern — also in the months forced short: before four of the months the
treasury is cut below the month's pay and upkeep (a game master's
correction, so the sheet the player sees already shows it), so pay falls
short and soldiers desert; in others the orders ask more than the treasury
holds and the month refuses some — the editor marks each such order at the
order, the same number as the forecast's gold refusals ("Besoldung und
Unterhalt"; "Der Reichsschatz"; issue #42, 1).
"""

from __future__ import annotations

import copy

import pytest

from tests.e2e.test_editor_browser import _browser
from wdg.bots.briefing import brief
from wdg.bots.players import write_sheet
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.store.months import read_order_files
from wdg.engine.month_sheets import take_in
from wdg.engine.turn import resolve_intake
from wdg.orders.forecast import forecast, running_costs
from wdg.orders.view import build_view
from wdg.orders.generate import default_passwords, playing_kingdoms
from wdg.reports.editor import editor_data
from wdg.reports.render import Renderer
from wdg.reports.settings import load_report_settings
from wdg.reports.sheet import render_sheets, report_model
from wdg.rules import Rules
from wdg.store.segment import load_segment

pytestmark = pytest.mark.slow

HUMAN = 3
"""The kingdom played through the editor (issue #42: "Played as kingdom 3")."""
MONTHS = 8
SHORT_PAY = {1, 3, 5, 6}
"""Months (0-based) before which the treasury is cut to half of pay and upkeep."""
GREEDY = {0, 2, 4, 7}
"""Months whose orders ask more gold than the treasury holds."""
BOTS = ("Baumeister", "Eroberer", "Kriegsherr")


def _human_sheet(data: dict, password: str, greedy: bool) -> str:
    """The orders a player picks in the editor: per army the recruits its
    settlement allows (one army per settlement) or an activation; every other
    army rests; the kingdom orders: the buildings on offer, a festival last.
    ``greedy``: a large festival first, so what follows runs short."""
    ch = data["choices"]
    lines = [f"Segment: {data['segment']}", f"Königreich: {data['kingdom']}",
             f"Passwort: {password}", f"Mond: {data['month']}", "", "H: Heeresbefehle"]
    places: set[str] = set()
    for a in ch["armies"]:
        lines += ["", f"Heer {a['number']:04d} {a['position']}"]
        by = {c["code"]: c for c in a["a"]}
        if "nr" in by and a["position"] not in places:
            places.add(a["position"])
            lines.append(f"A: nr {by['nr']['max']}")
        elif "nh" in by:
            lines.append(f"A: nh {by['nh']['options'][0]}")
        if any(c["code"] == "r" for c in a["b"]):
            lines.append("B: r")
    lines += ["", "K: Königreichbefehle"]
    k = ch["kingdom"]
    orders = [f"{c['code']} {c['options'][0]}" for c in k["orders"]
              if c["code"] in ("BK", "BH", "BQ", "BM")]
    gold = ch["gold"]["after_pay"] or 0
    festival = f"F+ {max(1, gold - 1000)}" if greedy else "F+ 1000"
    orders = [festival] + orders if greedy else orders + [festival]
    lines += orders[:k["limit"]]
    return "\n".join(lines) + "\n"


PASTE = """
var box = document.getElementById('ed-text');
box.value = arguments[0];
box.dispatchEvent(new Event('input'));
"""
READ = """
var gold = document.querySelector('.ed-gold');
return [gold.getAttribute('data-end'), gold.textContent,
        document.querySelectorAll('#ed-problems li').length,
        Array.prototype.filter.call(document.querySelectorAll('.ed-bad'),
          function (e) { return e.textContent.indexOf('verweigert') >= 0; }).length,
        document.getElementById('ed-text').value];
"""


def test_the_editors_gold_box_is_the_forecast_and_the_month_in_every_month(tmp_path, capsys):
    from selenium.webdriver.support.ui import WebDriverWait

    camp = copy_demo(tmp_path / "c")
    rules = Rules.load(camp.rules_dir)
    settings = load_report_settings(camp.rules_dir)
    seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
    # the demo month with its shipped sheets: the first result sheet
    files = read_order_files(camp.orders_dir(DEMO_SEGMENT, seg.date))
    result = resolve_intake(seg, take_in(seg, files), rules)
    seg, events, sheet = result.state, result.log.events, None
    assert HUMAN in playing_kingdoms(seg)
    drv = _browser()
    seen: list[tuple[str, int, int, int, int, int, int]] = []
    try:
        for i in range(MONTHS):
            if i in SHORT_PAY:
                dues = sum(sum(x) for x in running_costs(build_view(seg, HUMAN), rules).values())
                seg.kingdoms[HUMAN].treasury = dues // 2
            # the sheet the player reads, with its editor, as the month renders it
            _, doc = report_model(seg, events, sheet, HUMAN, settings, rules=rules)
            view = build_view(seg, HUMAN, [e for e in events if e.kingdom == HUMAN])
            page = tmp_path / f"m{i}.html"
            out = render_sheets(doc, Renderer(), settings, pdf=False, view=view, rules=rules)
            page.write_text(out["ergebnis.html"], encoding="utf-8")
            data = editor_data(doc, view, [], rules)
            pw = default_passwords(seg)
            text = _human_sheet(data, pw[HUMAN], i in GREEDY)
            drv.get(page.as_uri())
            drv.execute_script("localStorage.clear()")
            drv.get(page.as_uri())
            drv.execute_script(PASTE, text)
            WebDriverWait(drv, 5).until(
                lambda d: "Text gelesen" in d.find_element("id", "ed-loaded").text)
            end, box, problems, marked, written = drv.execute_script(READ)
            assert problems == 0 and written == text, (i, box)
            # the month: the human's sheet as the editor holds it, the bots' sheets
            files = {f"k{k}.txt": (written if k == HUMAN else write_sheet(
                brief(seg, k, events), BOTS[k % 3], rules, password=pw[k], seed=i)).encode()
                for k in playing_kingdoms(seg)}
            before = copy.deepcopy(seg)
            intake = take_in(seg, files)
            fc = forecast(build_view(before, HUMAN, events), intake.sheets[HUMAN], rules)
            result = resolve_intake(seg, intake, rules)
            real = result.state.kingdoms[HUMAN].treasury
            # orders refused for gold (pay left unpaid has no order line: the
            # editor says it at the army, counted apart)
            gold_refused = sum(r.cause == "gold" and r.line > 0 for r in fc.refused)
            seen.append((before.date.key, int(end), fc.gold_after, real, fc.unpaid,
                         gold_refused, marked))
            assert int(end) == fc.gold_after == real, (seen[-1], box)
            assert marked == gold_refused, (seen[-1], box)
            seg, events, sheet = result.state, result.log.events, intake.sheets[HUMAN]
    finally:
        drv.quit()
    with capsys.disabled():
        print("\nmonth, editor, forecast, month's treasury, unpaid, refused for gold, marked:")
        for s in seen:
            print("  ", s)
    assert len(seen) == MONTHS
    # the short months happened: pay left unpaid, and orders refused for gold
    assert sum(1 for s in seen if s[4] > 0) >= 4, seen
    assert sum(1 for s in seen if s[5] > 0) >= 2, seen
