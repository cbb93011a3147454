"""Refusals the forecast foresees reach the player (issue #42, 2): the editor
does not offer ``o`` where the diplomatic status allows no conquest and says
why; ``wdg orders check`` (with ``--view`` and with ``-C``) warns at such an
order; the forecast's refusal summary lists it, and failed conquests too.

"Fremde Gemarken können erobert werden" only at status 1 or 2 ("Der
Diplomatiestatus"); "Bei der Okkupation einer Gemark muß sich das Heer zum
Beginn des Mondes in der betreffenden Gemark aufhalten" ("Die Eroberung")."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.orders.choices import order_choices
from wdg.orders.forecast import forecast, forecast_text
from wdg.orders.generate import default_passwords
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view, view_to_yaml
from wdg.rules import shipped_rules
from wdg.store.segment import load_segment, save_segment

runner = CliRunner()


def _foreign_gemark(seg, k):
    """A land gemark of another (non city-state) kingdom with a land neighbour
    of the same owner, and that owner; ``k`` is made to have seen both with
    their owners (its scouts' known map)."""
    from wdg.world.terrain import is_land, terrain

    land = lambda h: is_land(terrain(int(seg.at(seg.terrain, h))))
    for h in seg.grid.hexes():
        o = int(seg.at(seg.owner, h))
        if not o or o == k or seg.kingdoms[o].city_state or not land(h):
            continue
        if any(int(seg.at(seg.owner, x)) == o and land(x) for x in seg.grid.neighbours(h)):
            km = seg.known[k]
            for x in [h, *seg.grid.neighbours(h)]:
                r, c = seg.grid.index(x)
                km.seen[r, c] = seg.date.previous().ordinal
                km.terrain[r, c] = seg.terrain[r, c]
                km.owner[r, c] = seg.owner[r, c]
            return h, o
    raise AssertionError("no foreign gemark")


@pytest.fixture(scope="module")
def camp(tmp_path_factory):
    """The demo campaign with kingdom 1's first army standing on a gemark of
    another kingdom toward which kingdom 1 holds status 3."""
    camp = copy_demo(tmp_path_factory.mktemp("refusals") / "c")
    d = camp.segment_dir(DEMO_SEGMENT)
    seg = load_segment(d)
    k = 1
    at, other = _foreign_gemark(seg, k)
    army = next(a for n, a in sorted(seg.armies.items()) if a.kingdom == k and a.is_active
                and not a.is_fleet and a.units > 0)
    army.position = at
    seg.kingdoms[k].diplomacy[other] = 3
    save_segment(seg, d)
    return camp, seg, k, army.number, seg.label(at), other


def _sheet(seg, k, number, where, order):
    pw = default_passwords(seg)[k]
    return (f"Segment: {seg.name}\nKönigreich: {k}\nPasswort: {pw}\nMond: {seg.date.short()}\n"
            f"H\nHeer {number:04d} {where}\nB: {order}\nK\n")


def test_o_at_status_3_is_not_offered_and_the_editor_says_why(camp):
    _, seg, k, number, where, other = camp
    ch = order_choices(build_view(seg, k), shipped_rules())
    army = next(a for a in ch["armies"] if a["number"] == number)
    assert "o" not in {c["code"] for c in army["b"]}
    why = [x["why"] for x in army["left_out"] if x["code"] == "o"]
    assert why and f"Königreich {other}" in why[0] and "Diplomatiestatus zu ihm ist 3" in why[0] \
        and "nur bei 1 oder 2" in why[0], army["left_out"]


def test_the_forecast_lists_the_refused_o_and_the_checker_warns_with_view_and_with_c(camp, tmp_path):
    c, seg, k, number, where, _ = camp
    text = _sheet(seg, k, number, where, "o")
    fc = forecast(build_view(seg, k), parse_sheet(text), shipped_rules())
    assert [(r.line, r.cause) for r in fc.refused] == [(7, "rule")]
    assert "nur bei 1 oder 2" in fc.refused[0].reason
    assert "Zeile 7: o – Okkupation verweigert" in forecast_text(fc)
    sheet = tmp_path / "k.txt"
    sheet.write_text(text, encoding="utf-8")
    view = tmp_path / "ansicht.yaml"
    view.write_text(view_to_yaml(build_view(seg, k)), encoding="utf-8")
    for args in (["--view", str(view)], ["-C", str(c.root)]):
        res = runner.invoke(app, ["orders", "check", str(sheet), *args])
        assert res.exit_code == 0, res.output  # a warning, not an error: the sheet is sent
        assert "Warnung (Zeile 7, Spalte 1): Vorschau: voraussichtlich verweigert (Regel) – " \
            "Okkupation verweigert" in res.output, res.output
        assert "0 Fehler" in res.output, res.output
        js = json.loads(runner.invoke(app, ["orders", "check", str(sheet), *args,
                                            "--format", "json"]).output)
        assert [(d["line"], d["severity"]) for d in js["diagnostics"] if d["line"]] == \
            [(7, "warning")]


def test_a_failed_conquest_is_in_the_refusal_summary(camp):
    """"Einnahme" (``e``) of a foreign gemark fails at the end of the month
    (only neutral gemarks without settlement and building are taken by moving
    in): the forecast's summary names it, where it said "nichts" before."""
    _, seg, k, number, where, _ = camp
    view = build_view(seg, k)
    # a step from where the army stands onto a gemark of the same foreign owner
    from wdg.world.address import Address
    from wdg.world.hexgrid import Direction

    here = Address.parse(where)
    step = next(d for d in Direction if (x := view.neighbour(here, d)) is not None
                and view.owners.get(x, 0) not in (0, k) and x not in view.owned
                and (t := view.terrain_at(x)) is not None and t.height < 5)
    text = _sheet(seg, k, number, where, f"e {step.value}")
    fc = forecast(view, parse_sheet(text), shipped_rules())
    failed = [r for r in fc.refused if "Eroberung mißlungen" in r.reason]
    assert failed and failed[0].line == 7, forecast_text(fc)
    assert "  nichts" not in forecast_text(fc).split("nur teilweise ausgeführt:")[1]


def test_an_army_short_of_pay_is_offered_only_what_is_left_after_desertion(tmp_path):
    """Pay and upkeep come first ("Besoldung und Unterhalt"): with an empty
    treasury the forecast expects soldiers to desert before Phase A, so the
    editor offers ``er`` only up to what is left (the engine's figure), says
    why, and the largest ``er`` it offers is carried out whole."""
    camp = copy_demo(tmp_path / "c")
    seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
    k = 1
    seg.kingdoms[k].treasury = 0
    view = build_view(seg, k)
    ch = order_choices(view, shipped_rules())
    gone = ch["gold"]["deserters"]
    assert gone and ch["gold"]["unpaid"] > 0 and ch["gold"]["after_pay"] == 0
    number = int(next(iter(gone)))
    army = next(a for a in ch["armies"] if a["number"] == number)
    er = next(c for c in army["a"] if c["code"] == "er")
    assert er["max"] == army["units"] - gone[str(number)]
    assert any(x["code"] == "er" and "desertieren" in x["why"] for x in army["left_out"])
    text = _sheet(seg, k, number, army["position"], "r").replace("B: r", f"A: er {er['max']}")
    fc = forecast(view, parse_sheet(text), shipped_rules())
    assert not [r for r in fc.refused if r.line == 7], forecast_text(fc)
