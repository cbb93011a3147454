"""The order editor in a real browser (issue #24, "Must show").

Headless Chromium (Debian's ``chromium``, driven by Selenium through
Debian's ``chromium-driver``; ``make test`` installs both) opens a demo
kingdom's HTML result sheet from disk with the network off, gives orders to
two armies (one through the form, one by clicking a gemark in reach on the
map) and one kingdom order, writes a message whose lines look like sheet
structure, takes the text the editor produced and runs ``wdg orders check``
on it: 0 errors. No request leaves the file. A screenshot of the map with
the planned paths is written (``WDG_EDITOR_SCREENSHOT=path`` keeps it, as
for ``docs/editor-map.png``). With JavaScript switched off the same page
shows the pre-filled order form in an editable text field.

Without Chromium the test fails and says how to install it; only
``WDG_SKIP_BROWSER=1`` skips it (a machine where the browser cannot be
installed).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.engine.turn import run_month
from wdg.reports.archived import archive_writers, deliver

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
SKIP_ENV = "WDG_SKIP_BROWSER"
ADDRESS = "segmentleiter@canura.invalid"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--window-size=1100,1400",
         # the network off: every host resolves to nothing, every request goes
         # to a proxy on the discard port that does not answer
         "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]
HOSTILE_LINES = "Grüße aus Elunmund.\nENDE\nHeer 0101 304.25\nK\nPasswort: geheim\n> zitiert\n--\nNoch ein Satz."


def _browser(javascript: bool = True):
    """A headless Chromium session, or a failure that says what to install."""
    if os.environ.get(SKIP_ENV):
        pytest.skip(f"{SKIP_ENV} is set: the real-browser test of the order editor is skipped")
    missing = [p for p in (CHROMIUM, DRIVER) if not (Path(p).is_file() and os.access(p, os.X_OK))]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: run 'make test' (it installs Debian's chromium "
                    f"and chromium-driver) or 'apt-get install chromium chromium-driver'; "
                    f"{SKIP_ENV}=1 skips this test")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is missing: pip install -e '.[test]' (make test does it)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="wdg-chromium-")
    for f in FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(f)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    if not javascript:
        opts.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    drv = webdriver.Chrome(options=opts, service=Service(DRIVER))
    drv.profile_dir = profile
    return drv


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo campaign after its first month (no PDFs), with the game
    master's address for order sheets set."""
    camp = copy_demo(tmp_path_factory.mktemp("editor") / "c")
    rules = camp.rules_dir / "reports.yaml"
    text = rules.read_text(encoding="utf-8")
    assert 'orders_address: ""' in text
    rules.write_text(text.replace('orders_address: ""', f"orders_address: {ADDRESS}"),
                     encoding="utf-8")
    result = run_month(camp, DEMO_SEGMENT, force=True,
                       outputs=archive_writers(camp.templates_dir, camp.rules_dir, pdf=False))
    deliver(camp, DEMO_SEGMENT, result.date)
    return camp.root


COVERED_NUMBERS = """
var tags = 0, covered = [];
document.querySelectorAll('.mappage .map svg').forEach(function (svg) {
  var digits = [];
  svg.querySelectorAll('text.g').forEach(function (t) {
    for (var i = 0; i < t.getNumberOfChars(); i++) {
      var r = t.getExtentOfChar(i);
      if (r.width > 0 && t.textContent.charAt(i).trim()) { digits.push(r); }
    }
  });
  svg.querySelectorAll('g.ed-plan text').forEach(function (t) {
    var b = t.getBBox();
    tags += 1;
    digits.forEach(function (r) {
      if (b.x < r.x + r.width && r.x < b.x + b.width && b.y < r.y + r.height && r.y < b.y + b.height) {
        covered.push([t.textContent, r.x, r.y]);
      }
    });
  });
});
return [tags, covered];
"""
"""Planned-path tags (``g.ed-plan text``) whose box meets a digit of a gemark
number (``text.g``, one box per character) on the same map."""


def _editor_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="ed-data">(.*?)</script>', html, re.S)
    assert m, "no editor data in the sheet"
    return json.loads(m.group(1))


def _pick(root: Path) -> tuple[Path, dict, list[dict]]:
    """The sheet of the kingdom whose two armies reach farthest, and its data."""
    found = []
    for sheet in sorted(root.glob(f"reports/{DEMO_SEGMENT}/*/k*/ergebnis.html")):
        data = _editor_data(sheet.read_text(encoding="utf-8"))
        movers = [a for a in data["choices"]["armies"] if len(a["reach"]) >= 2 and a["a"]]
        if len(movers) >= 2 and data["choices"]["kingdom"]["orders"]:
            far = sum(max(len(r["dirs"].split()) for r in a["reach"]) for a in movers[:2])
            found.append((-far, str(sheet), sheet, data, movers[:2]))
    assert found, "no demo kingdom with two armies in reach of gemarks"
    return min(found)[2:]


def _centre(root: Path, m: dict, address: str, index: int) -> tuple[float, float]:
    """Where the editor draws the end of the path of the ``index``-th army to
    ``address``: the hexagon's centre on the map page (as
    :func:`wdg.reports.exploration.render_svg` places it), moved by the army's offset."""
    from wdg.world.storage import load_segment

    grid = load_segment(root / "worlds" / DEMO_SEGMENT).grid
    row, col = grid.index(grid.parse(address))
    s, w = m["s"], 3 ** 0.5 * m["s"]
    off = ((index % 4) - 1.5) * s * 0.18
    return (s + w * (col - m["c0"] + 0.5 * (row & 1)) + w / 2 + off,
            2 * s + 1.5 * s * (row - m["r0"]) + off)


def _longest(reach: list[dict]) -> dict:
    """The reachable gemark with the longest path (then the dearest, the first address)."""
    return min(reach, key=lambda r: (-len(r["dirs"].split()), -r["cost"], r["to"]))


def test_orders_given_by_clicking_in_the_sheet_pass_the_check_with_no_error(demo, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    started = time.monotonic()
    sheet, data, (first, second) = _pick(demo)
    drv = _browser()
    try:
        drv.get(sheet.as_uri())
        assert not drv.find_element(By.ID, "ed-form").get_attribute("hidden")
        drv.find_element(By.ID, "ed-pw").send_keys(f"{DEMO_SEGMENT}-{data['kingdom']}")

        # army 1: its first Phase A order and a move to the gemark with the longest path
        n1 = f"{first['number']:04d}"
        Select(drv.find_element(By.ID, f"ed-a-{n1}")).select_by_index(1)
        b1 = Select(drv.find_element(By.ID, f"ed-b-{n1}"))
        b1.select_by_visible_text(next(o.text for o in b1.options if o.text.startswith("b –")))
        target = drv.find_element(By.CSS_SELECTOR, f"#ed-army-{n1} select[aria-label=Ziel]")
        far1 = _longest(first["reach"])
        Select(target).select_by_value(far1["to"])

        # army 2: focus its Phase B and click a gemark in reach on the map
        n2 = f"{second['number']:04d}"
        drv.find_element(By.ID, f"ed-b-{n2}").click()
        dots = drv.find_elements(By.CSS_SELECTOR, ".mappage svg g.ed-reachable circle")
        assert len(dots) == len(second["reach"])
        far2 = _longest([r for r in second["reach"] if r["to"] != far1["to"]])
        dot = dots[second["reach"].index(far2)]
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", dot)
        ActionChains(drv).move_to_element(dot).click().perform()

        # one kingdom order: the first the kingdom may give, with its first choice
        Select(drv.find_element(By.ID, "ed-k-1")).select_by_index(1)

        # a message whose lines look like the sheet's structure
        drv.find_element(By.ID, "ed-add-msg").click()
        drv.find_element(By.CSS_SELECTOR, ".ed-msg textarea").send_keys(HOSTILE_LINES)

        text = drv.find_element(By.ID, "ed-text").get_attribute("value")
        plan = drv.find_elements(By.CSS_SELECTOR, ".mappage svg g.ed-plan polyline")
        ends = [(float(c.get_attribute("cx")), float(c.get_attribute("cy"))) for c in
                drv.find_elements(By.CSS_SELECTOR, ".mappage svg g.ed-plan circle")]
        gold = drv.find_element(By.CSS_SELECTOR, ".ed-gold").text
        mail = drv.find_element(By.ID, "ed-mail").get_attribute("href")
        svg = drv.find_element(By.CSS_SELECTOR, ".mappage .map svg")
        tags, covered = drv.execute_script(COVERED_NUMBERS)
        drv.execute_script("arguments[0].scrollIntoView()", svg)
        shot = tmp_path / "editor-map.png"
        svg.screenshot(str(shot))
        errors = [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]
        requests = [json.loads(e["message"])["message"] for e in drv.get_log("performance")]
    finally:
        drv.quit()
        shutil.rmtree(drv.profile_dir, ignore_errors=True)

    assert not errors, errors
    urls = {r["params"]["request"]["url"] for r in requests
            if r["method"] == "Network.requestWillBeSent"}
    assert sheet.as_uri() in urls
    # the browser's own pages (chrome://) are no network; nothing else may be asked for
    leaving = [u for u in urls if not u.startswith(("file:", "data:", "about:", "chrome:",
                                                    "chrome-untrusted:"))]
    assert not leaving, leaving

    lines = text.splitlines()
    k1 = lines.index(f"Heer {n1} {first['position']}")
    assert lines[k1 + 1].startswith("A: " + first["a"][0]["code"] + " "), lines[k1:k1 + 3]
    assert lines[k1 + 2] == "B: b " + far1["dirs"]
    k2 = lines.index(f"Heer {n2} {second['position']}")
    assert lines[k2 + 1] == "B: b " + far2["dirs"]
    korder = lines[lines.index("K: Königreichbefehle") + 1]
    assert korder.startswith(data["choices"]["kingdom"]["orders"][0]["code"] + " ")
    assert "- ENDE" in lines and "- Heer 0101 304.25" in lines and "- K" in lines, lines
    assert len(plan) == 2 and "GS" in gold
    # the armies' number tags at the paths' ends cover no gemark number
    assert tags == 2 and covered == [], covered
    # each path ends on its target's hexagon (the page's geometry, drawn a little apart)
    order = [a["number"] for a in data["choices"]["armies"]]
    want = [_centre(demo, data["maps"][0], r["to"], order.index(a["number"]))
            for a, r in ((first, far1), (second, far2))]
    for (x, y), (wx, wy) in zip(sorted(ends), sorted(want)):
        assert abs(x - wx) < 0.2 and abs(y - wy) < 0.2, (ends, want)
    assert mail.startswith(f"mailto:{ADDRESS}?subject=") and "body=" in mail

    form = tmp_path / "spielzug.txt"
    form.write_text(text, encoding="utf-8")
    check = subprocess.run([sys.executable, "-m", "wdg", "orders", "check", str(form),
                            "-C", str(demo)], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 Fehler" in check.stdout, check.stdout

    assert shot.stat().st_size > 5000
    keep = os.environ.get("WDG_EDITOR_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, keep)
    assert time.monotonic() - started < 30


def test_without_javascript_the_sheet_shows_the_pre_filled_form_to_edit(demo):
    from selenium.webdriver.common.by import By

    sheet, data, _ = _pick(demo)
    drv = _browser(javascript=False)
    try:
        drv.get(sheet.as_uri())
        field = drv.find_element(By.ID, "ed-text")
        text = field.get_attribute("value")
        shown = field.is_displayed() and field.is_enabled() and not field.get_attribute("readonly")
        form_shown = drv.find_element(By.ID, "ed-form").is_displayed()
        notice = drv.find_element(By.ID, "ed-intro").text
    finally:
        drv.quit()
        shutil.rmtree(drv.profile_dir, ignore_errors=True)
    assert text == (sheet.parent / "spielzug.txt").read_text(encoding="utf-8")
    assert shown and not form_shown
    assert "Passwort" in notice and ADDRESS in notice
