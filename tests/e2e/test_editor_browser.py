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
``WDG_SKIP_BROWSER=1`` skips it there (a machine where the browser cannot be
installed; tests/skips.py).
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

from tests.skips import cannot_run
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.engine.turn import run_month
from wdg.reports.archived import archive_writers
from wdg.store.delivery import deliver

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
    missing = [p for p in (CHROMIUM, DRIVER) if not (Path(p).is_file() and os.access(p, os.X_OK))]
    if missing:
        cannot_run(SKIP_ENV, f"missing {', '.join(missing)}: run 'make test' (it installs "
                   f"Debian's chromium and chromium-driver) or 'apt-get install chromium "
                   f"chromium-driver'")
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
    from wdg.store.segment import load_segment

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
        target = drv.find_element(By.CSS_SELECTOR, f"#ed-army-{n1} select[aria-label$='(Ziel)']")
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


# ---------------------------------------------------------------------------
# Issue #32: the editor never pretends, the map a player plans on, any screen.
# One browser for the tests below (a session costs seconds); every test opens
# its page afresh and clears what the page keeps in the browser first.

SCREENS = (390, 1280)
"""A phone (390 px) and a desktop (1280 px) width."""
BAD_NUMBERS = ("-5", "0", "2000000", "12.5", "1e3")
SHOTS_ENV = "WDG_SCREENSHOTS"
"""A folder: the screenshots of these tests are kept there (64 colours), as for docs/."""


@pytest.fixture(scope="module")
def browser():
    drv = _browser()
    yield drv
    drv.quit()
    shutil.rmtree(drv.profile_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def stress_sheet(tmp_path_factory) -> Path:
    """The HTML sheet of a 60-army kingdom of the full-size stress preset
    (60 kingdoms), as the month renders it."""
    from tests.reports.reportkit import stress_month
    from wdg.orders.view import build_view
    from wdg.reports.render import Renderer
    from wdg.reports.settings import load_report_settings
    from wdg.reports.sheet import report_model, render_sheets

    result, intake = stress_month()
    settings = load_report_settings()
    armies = {k: sum(1 for a in result.state.armies.values() if a.kingdom == k)
              for k in intake.sheets}
    k = min(armies, key=lambda k: (-armies[k], k))
    assert armies[k] >= 60
    _, doc = report_model(result.state, list(result.log), intake.sheets[k], k, settings)
    files = render_sheets(doc, Renderer(), settings, pdf=False, view=build_view(result.state, k))
    out = tmp_path_factory.mktemp("stress") / "ergebnis.html"
    out.write_text(files["ergebnis.html"], encoding="utf-8")
    return out


def _open(drv, page: Path, width: int, height: int = 900) -> None:
    """``page`` at ``width`` CSS pixels, with nothing kept from before."""
    drv.set_window_size(width, height)
    drv.get(page.as_uri())
    drv.execute_script("localStorage.clear()")
    drv.get(page.as_uri())
    assert drv.execute_script("return window.innerWidth") == width


def _shot(drv, tmp_path: Path, name: str) -> Path:
    """A screenshot of the window (kept in $WDG_SCREENSHOTS as a 64-colour PNG)."""
    from PIL import Image

    shot = tmp_path / name
    drv.save_screenshot(str(shot))
    assert shot.stat().st_size > 5000
    keep = os.environ.get(SHOTS_ENV)
    if keep:
        Image.open(shot).convert("RGB").quantize(64).save(Path(keep) / name, optimize=True)
    return shot


def _gs(n: int) -> str:
    """A number as the sheets write it (1.000)."""
    return f"{n:,}".replace(",", ".")


def _text(drv) -> str:
    return drv.find_element("id", "ed-text").get_attribute("value")


def _block(text: str, number: int) -> list[str]:
    """The lines of army ``number``'s block in the sheet text."""
    lines = text.splitlines()
    i = next(i for i, l in enumerate(lines) if l.startswith(f"Heer {number:04d} "))
    j = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
    return lines[i + 1:j]


def _recruiter(data: dict) -> dict:
    """An army that may recruit (``nr``)."""
    return next(a for a in data["choices"]["armies"] if any(c["code"] == "nr" for c in a["a"]))


def _choose(drv, select_id: str, code: str) -> None:
    from selenium.webdriver.support.ui import Select

    s = Select(drv.find_element("id", select_id))
    s.select_by_visible_text(next(o.text for o in s.options if o.text.startswith(code + " –")))


NO_SIDEWAYS = """
var out = [], vw = document.documentElement.clientWidth;
document.querySelectorAll('body *').forEach(function (e) {
  var r = e.getBoundingClientRect();
  if (r.width === 0 || r.right <= vw + 0.5) { return; }
  /* allowed: inside a box that scrolls sideways by itself */
  for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    var s = getComputedStyle(p).overflowX;
    if ((s === 'auto' || s === 'scroll') && p.getBoundingClientRect().right <= vw + 0.5) { return; }
  }
  out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right));
});
return [document.documentElement.scrollWidth, vw, out.slice(0, 5)];
"""
"""The page's width against the window's (without its scroll bar), and elements that stick out of the
window other than inside their own sideways-scrolling box."""


@pytest.mark.parametrize("width", SCREENS)
def test_the_sheet_and_the_editor_never_scroll_the_page_sideways(browser, demo, stress_sheet,
                                                                 tmp_path, width):
    """Issue #32, "Any screen": the demo sheet and the 60-army stress sheet at
    390 px and 1280 px: the page is no wider than the window, the wide tables
    scroll inside themselves; the map is one link away from the top of the page."""
    from selenium.webdriver.common.by import By

    sheet, _, _ = _pick(demo)
    for page in (sheet, stress_sheet):
        _open(browser, page, width)
        page_w, window_w, out = browser.execute_script(NO_SIDEWAYS)
        assert page_w <= window_w and not out, (page.name, width, page_w, out)
        link = browser.find_element(By.CSS_SELECTOR, "nav.toc a[href='#karte']")
        assert link.location["y"] < 600  # on the first screen
        link.click()
        top, high = browser.execute_script("return [document.getElementById('karte')"
                                           ".getBoundingClientRect().top, window.innerHeight]")
        assert -5 < top < high / 2, (top, high)  # the map in view (at the top, or the page ends)
    # the stress sheet's orders table at phone width: one block per order, nothing overlaps
    if width == 390:
        rows = browser.execute_script(
            "return Array.from(document.querySelectorAll('table.orders tbody tr')).slice(0, 40)"
            ".map(function (r) { var b = r.getBoundingClientRect(); return [b.top, b.bottom]; })")
        assert all(a[1] <= b[0] + 0.5 for a, b in zip(rows, rows[1:])), rows
        browser.execute_script("window.scrollTo(0, 0)")
        _shot(browser, tmp_path, "sheet-390.png")


def test_the_editor_refuses_bad_numbers_and_names_in_place_and_writes_nothing_wrong(
        browser, demo, tmp_path):
    """Issue #32, "The editor rewrites numbers silently": `-5`, `0`, `2000000`,
    `12.5`, `1e3` in the recruit field are each refused next to the field
    with the allowed range (the town's militia bounds it); no `nr` line is
    written (the text says in a comment what was not written), the gold
    counts nothing; an allowed number is written as it is. A name with `#`, `;` or a quote is refused, not stripped.
    Passive armies are offered `nf` and `nh` only."""
    from selenium.webdriver.common.by import By

    sheet, data, _ = _pick(demo)
    _open(browser, sheet, 390)
    a = _recruiter(data)
    n = a["number"]
    nr = next(c for c in a["a"] if c["code"] == "nr")
    _choose(browser, f"ed-a-{n:04d}", "nr")
    field = browser.find_element(By.CSS_SELECTOR, f"#ed-army-{n:04d} input")
    for value in BAD_NUMBERS:
        field.clear()
        field.send_keys(value)
        error = browser.find_element(By.CSS_SELECTOR, f"#ed-army-{n:04d} .ed-err").text
        block = _block(_text(browser), n)
        assert f"von {_gs(nr['min'])} bis {_gs(nr['max'])}" in error and "nicht in den Spielzug geschrieben" in error, error
        assert field.get_attribute("aria-invalid") == "true"
        assert not [l for l in block if l.startswith("A:")], (value, block)
        assert block == [f"# nicht geschrieben: A: nr {value} ({error.split(' – ')[0]})"], block
        gold = browser.find_element(By.CSS_SELECTOR, ".ed-gold").text  # (no-break spaces read as spaces)
        assert "Befehle 0 GS" in gold, gold
        if value == "12.5":
            _shot(browser, tmp_path, "editor-refused-390.png")
    good = str(min(nr["max"], 300))
    field.clear()
    field.send_keys(good)
    assert _block(_text(browser), n) == [f"A: nr {good}"]
    assert browser.find_element(By.CSS_SELECTOR, f"#ed-army-{n:04d} .ed-err").text == ""

    # a new name for the settlement: characters the sheet would cut are refused
    namer = next((x for x in data["choices"]["armies"] if any(c["code"] == "nn" for c in x["a"])), None)
    assert namer is not None
    m = namer["number"]
    _choose(browser, f"ed-a-{m:04d}", "nn")
    name = browser.find_element(By.CSS_SELECTOR, f"#ed-army-{m:04d} input")
    for bad, why in (("Neu#stadt", "„#“"), ("Neu;stadt", "„;“"), ('"Neustadt"', "Anführungszeichen"),
                     ("Neustadt am Meer", "16 Zeichen")):
        name.clear()
        name.send_keys(bad)
        error = browser.find_element(By.CSS_SELECTOR, f"#ed-army-{m:04d} .ed-err").text
        assert why in error, (bad, error)
        assert not [l for l in _block(_text(browser), m) if l.startswith("A:")], bad
    name.clear()
    name.send_keys("Neustadt")
    assert "A: nn Neustadt" in _block(_text(browser), m)

    # passive armies: only nf (hire the general on offer) and nh (activate)
    passive = [x for x in data["choices"]["armies"] if x["passive"]]
    assert passive
    for x in passive:
        codes = {o.text.split(" –")[0] for o in
                 browser.find_elements(By.CSS_SELECTOR, f"#ed-a-{x['number']:04d} option")[1:]}
        assert codes <= {"nf", "nh"}, (x["number"], codes)
        assert not browser.find_elements(By.ID, f"ed-b-{x['number']:04d}")


def test_a_reload_keeps_the_orders_but_never_the_password(browser, demo):
    """Issue #32: the editor keeps its state across a reload (the browser's
    local storage, per segment, kingdom and month); the password is typed
    again, it is never stored."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sheet, data, (first, _) = _pick(demo)
    _open(browser, sheet, 1280)
    browser.find_element(By.ID, "ed-pw").send_keys("geheim-123")
    a = _recruiter(data)
    _choose(browser, f"ed-a-{a['number']:04d}", "nr")
    field = browser.find_element(By.CSS_SELECTOR, f"#ed-army-{a['number']:04d} input")
    count = str(min(next(c for c in a["a"] if c["code"] == "nr")["max"], 250))
    field.clear()
    field.send_keys(count)
    _choose(browser, f"ed-b-{first['number']:04d}", "b")
    far = _longest(first["reach"])
    Select(browser.find_element(By.CSS_SELECTOR, f"#ed-army-{first['number']:04d} select[aria-label$='(Ziel)']")
           ).select_by_value(far["to"])
    _choose(browser, "ed-k-1", data["choices"]["kingdom"]["orders"][0]["code"])
    before = _text(browser)
    assert "Passwort: geheim-123" in before

    browser.refresh()
    after = _text(browser)
    assert after == before.replace("Passwort: geheim-123", "Passwort: ")
    assert f"B: b {far['dirs']}" in _block(after, first["number"])
    assert Select(browser.find_element(By.ID, f"ed-b-{first['number']:04d}")).first_selected_option.text.startswith("b –")
    assert browser.find_element(By.CSS_SELECTOR, f"#ed-army-{a['number']:04d} input").get_attribute("value") == count
    assert "gespeichert" in browser.find_element(By.ID, "ed-loaded").text
    stored = browser.execute_script("return JSON.stringify(localStorage)")
    assert "geheim-123" not in stored and f"nr {count}" in stored
    assert len(browser.find_elements(By.CSS_SELECTOR, ".mappage svg g.ed-plan polyline")) == 1


def test_a_pasted_or_loaded_sheet_shows_in_the_form_and_unreadable_lines_are_kept(
        browser, demo, tmp_path):
    """Issue #32: a sheet pasted into the text field (or loaded from a file)
    is shown in the form — orders, kingdom orders, a message — and a line the
    form cannot show is kept in the text, listed with its reason; a bad number
    in a pasted sheet is refused in place like a typed one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    sheet, data, (first, _) = _pick(demo)
    a = _recruiter(data)
    far = _longest(first["reach"])
    # an army that may release soldiers (er), not the recruiting one: "12.5" for it
    other = next(x for x in data["choices"]["armies"] if x["number"] != a["number"]
                 and any(c["code"] == "er" for c in x["a"]))
    korder = next(c for c in data["choices"]["kingdom"]["orders"] if c.get("param") == "choice")
    recipient = data["choices"]["recipients"][0]
    blocks: dict[int, list[str]] = {}
    count = min(next(c for c in a["a"] if c["code"] == "nr")["max"], 120)
    blocks.setdefault(a["number"], []).append(f"A: NR {count}")
    blocks.setdefault(other["number"], []).append("A: er 12.5")
    blocks.setdefault(first["number"], []).append(f"B: b {far['dirs']}")
    blocks.setdefault(other["number"], []).append("B: q unbekannt" if other is not first else "B: q 1")
    positions = {x["number"]: x["position"] for x in data["choices"]["armies"]}
    lines = [f"Segment: {data['segment']}", f"Königreich: {data['kingdom']}", "Passwort: aus-der-datei",
             "H:"]
    for number, orders in blocks.items():
        lines += [f"Heer {number:04d} {positions[number]}", *orders]
    lines += ["K:", f"{korder['code']} {korder['options'][0]}",
              f"BOTSCHAFT {recipient}", "Gruß aus dem Norden.", "- ENDE", "ENDE"]
    pasted = "\n".join(lines) + "\n"

    _open(browser, sheet, 1280)
    box = browser.find_element(By.ID, "ed-text")
    box.click()
    box.send_keys(Keys.CONTROL, "a")
    browser.execute_cdp_cmd("Input.insertText", {"text": pasted})  # what a paste types
    WebDriverWait(browser, 5).until(lambda d: "Text gelesen" in d.find_element(By.ID, "ed-loaded").text)
    assert _text(browser) == pasted  # the player's text stays as he wrote it
    army = lambda n: browser.find_element(By.ID, f"ed-army-{n:04d}")
    assert Select(browser.find_element(By.ID, f"ed-a-{a['number']:04d}")).first_selected_option.text.startswith("nr –")
    assert army(a["number"]).find_element(By.CSS_SELECTOR, "input").get_attribute("value") == str(count)
    assert Select(army(first["number"]).find_element(By.CSS_SELECTOR, "select[aria-label$='(Ziel)']")
                  ).first_selected_option.get_attribute("value") == far["to"]
    assert Select(browser.find_element(By.ID, "ed-k-1")).first_selected_option.text.startswith(korder["code"])
    assert browser.find_element(By.ID, "ed-pw").get_attribute("value") == "aus-der-datei"
    assert browser.find_element(By.CSS_SELECTOR, ".ed-msg textarea").get_attribute("value") == \
        "Gruß aus dem Norden.\nENDE"
    problems = browser.find_element(By.ID, "ed-problems").text
    unknown = blocks[other["number"]][-1]
    assert unknown in problems, problems
    err = army(other["number"]).find_element(By.CSS_SELECTOR, ".ed-err").text
    assert "„12.5“" in err and "nicht in den Spielzug geschrieben" in err, err
    browser.execute_script("document.getElementById('ed-loaded').scrollIntoView(); window.scrollBy(0, -90)")
    _shot(browser, tmp_path, "editor-pasted-1280.png")

    # a change in the form writes the text again: the unreadable line is still there,
    # the refused number is not written
    browser.find_element(By.ID, "ed-pw").send_keys("!")
    text = _text(browser)
    assert "Passwort: aus-der-datei!" in text
    assert unknown in _block(text, other["number"]) and f"A: nr {count}" in _block(text, a["number"])
    assert f"B: b {far['dirs']}" in _block(text, first["number"]) and "- ENDE" in text
    assert not [l for l in _block(text, other["number"]) if l.startswith("A:")]

    # the same sheet from a file
    path = tmp_path / "mein-spielzug.txt"
    path.write_text(pasted.replace(f"NR {count}", f"nr {count - 1 or 1}"), encoding="utf-8")
    _open(browser, sheet, 1280)
    browser.find_element(By.ID, "ed-file").send_keys(str(path))
    WebDriverWait(browser, 5).until(lambda d: "mein-spielzug.txt" in d.find_element(By.ID, "ed-loaded").text)
    assert f"A: nr {count - 1 or 1}" in _block(_text(browser), a["number"])


GEMARK_AT = """
var svg = document.querySelectorAll('.mappage .map svg')[0], m = arguments[1], c = arguments[0];
var box = svg.parentNode, w = Math.sqrt(3) * m.s, p = svg.createSVGPoint();
p.x = m.s + w * (c[1] - m.c0 + 0.5 * (c[0] & 1)) + w / 2; p.y = 2 * m.s + 1.5 * m.s * (c[0] - m.r0);
box.scrollIntoView({block: 'start'});
var q = p.matrixTransform(svg.getScreenCTM()), b = box.getBoundingClientRect();
box.scrollLeft += q.x - (b.left + box.clientWidth / 2);  /* a zoomed map: the gemark into its box's view */
box.scrollTop += q.y - (b.top + Math.min(box.clientHeight, window.innerHeight) / 3);
window.scrollBy(0, box.getBoundingClientRect().top - 10);
q = p.matrixTransform(svg.getScreenCTM());
return [q.x, q.y];
"""
"""The window coordinates of a gemark's centre on the first map page."""


def _pointer(drv, x: float, y: float, kind: str = "mouse", click: bool = False) -> None:
    """A real pointer (mouse or finger) moved to the window point, tapping or clicking there."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    touch = kind == "touch"
    act = ActionBuilder(drv, mouse=PointerInput(interaction.POINTER_TOUCH if touch else
                                                interaction.POINTER_MOUSE, kind))
    act.pointer_action.move_to_location(int(round(x)), int(round(y)))
    if click:
        act.pointer_action.click()
    act.perform()


def test_the_map_shows_owners_with_a_legend_and_a_gemarks_details_on_hover_and_tap(
        browser, stress_sheet, tmp_path):
    """Issue #32, "A map a player plans on", at stress size: foreign owners'
    land in their colour with a legend naming them; hovering (1280 px) or
    tapping (390 px) a gemark shows its terrain, owner, settlement, the armies
    seen and when it was last seen; zoom makes the map larger inside its own
    box; the own armies' numbers and a planned path's number are readable."""
    from selenium.webdriver.common.by import By

    html = stress_sheet.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="map-data">(.*?)</script>', html, re.S).group(1))
    owners = data["owners"]
    assert owners, "the stress kingdom knows no foreign land"
    cell = next(c for c in data["cells"] if c[4] >= 0)
    owner = owners[cell[4]]

    _open(browser, stress_sheet, 1280)
    key = browser.find_element(By.CSS_SELECTOR, ".map-key").text
    assert all(f"{o['name']} ({o['k']})" in key for o in owners), key
    drawn = browser.find_elements(By.CSS_SELECTOR, ".mappage svg g.map-owners path")
    assert sorted(p.get_attribute("stroke") for p in drawn[:len(owners)]) == sorted(o["colour"] for o in owners)
    x, y = browser.execute_script(GEMARK_AT, cell, data["pages"][0])
    _pointer(browser, x, y)
    info = browser.find_element(By.CSS_SELECTOR, ".map-info")
    assert info.is_displayed()
    assert f"Gemark {cell[2]} · {cell[3]}" in info.text, info.text
    assert f"Besitzer: {owner['name']} ({owner['k']})" in info.text, info.text
    assert f"zuletzt gesehen: {cell[6]}" in info.text and "Siedlung: " in info.text
    assert "Heere und Fabelwesen: " in info.text
    _shot(browser, tmp_path, "map-hover-1280.png")
    # the own armies' numbers: at least 10 px high on the screen
    tags = browser.execute_script(
        "return Array.from(document.querySelectorAll('.mappage .map svg text.m')).slice(0, 20)"
        ".map(function (t) { return t.getBoundingClientRect().height; })")
    assert tags and min(tags) >= 10, tags
    # a planned path's number too
    mover = next(a for a in json.loads(re.search(r'id="ed-data">(.*?)</script>', html, re.S).group(1))
                 ["choices"]["armies"] if a["reach"])
    _choose(browser, f"ed-b-{mover['number']:04d}", "b")
    plan = browser.execute_script(
        "return Array.from(document.querySelectorAll('.mappage svg g.ed-plan text'))"
        ".map(function (t) { return t.getBoundingClientRect().height; })")
    assert plan and min(plan) >= 10, plan

    # at phone width zoom grows the map inside its box, and a tap shows the same
    _open(browser, stress_sheet, 390)
    svg = browser.find_element(By.CSS_SELECTOR, ".mappage .map svg")
    width = svg.rect["width"]
    browser.find_element(By.CSS_SELECTOR, ".map-plus").click()
    browser.find_element(By.CSS_SELECTOR, ".map-plus").click()
    assert abs(svg.rect["width"] - 2.25 * width) < 2
    page_w, window_w, out = browser.execute_script(NO_SIDEWAYS)
    assert page_w <= window_w and not out, out
    box = browser.find_element(By.CSS_SELECTOR, ".mappage .map")
    assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", box)
    x, y = browser.execute_script(GEMARK_AT, cell, data["pages"][0])
    _pointer(browser, x, y, kind="touch", click=True)
    info = browser.find_element(By.CSS_SELECTOR, ".map-info")
    assert info.is_displayed() and f"Besitzer: {owner['name']} ({owner['k']})" in info.text, info.text
    _shot(browser, tmp_path, "map-zoomed-390.png")
