"""Deposits ("Bodenschätze") and mines. "Die Bauwerke": "Der Begriff Mine ist ein
Sammelbegriff für alle Anlagen, die für die Ausbeutung eines bereits bekannten
Bodenschatzes verwendet werden können." Numbers in ``worlds/rules/deposits.yaml``;
the reading in docs/rules.md, "Deposits and mines"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rulekit import RULES, sheets

from wdg.engine.deposits import upgrade
from wdg.engine.turn import resolve_month
from wdg.errors import InvalidInputError
from wdg.orders import model as mo
from wdg.orders.checker import check_sheet
from wdg.orders.forecast import forecast
from wdg.orders.model import Search
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view, view_from_dict, view_to_dict
from wdg.reports.build import build_kingdom_report
from wdg.reports.jsonreport import build_json
from wdg.reports.settings import load_report_settings
from wdg.rules import Rules
from wdg.store.segment import FORMAT
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, at, own, small_segment
from wdg.world.generator import generate_segment
from wdg.world.state import BUILDING_ORDER, Building, Deposit
from wdg.store.segment import load_segment, save_segment
from wdg.world.terrain import HEIGHTS, WATER

MINE = BUILDING_ORDER.index(Building.MINE)
NO_DEPOSITS = Rules({a: RULES.section(a) for a in RULES.areas() if a != "deposits"})


def mountain_mine():
    """Kingdom 1 owns a Gebirge gemark (2,2) with a level-2 mine on a Silber
    deposit nobody knows; its army of 5,000 stands there."""
    seg = small_segment(["T. T. T. T.", "T. T. T. T.", "T. T. G. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, treasury=0)
    h = at(seg, (2, 2))
    own(seg, 1, h)
    seg.buildings[MINE][seg.grid.index(h)] = 2
    seg.deposits = {h: Deposit(h, "Silber")}
    add_army(seg, 101, 1, h, units=5000, morale=80, experience=60)
    return seg, h


def test_the_generator_places_deposits_on_land_by_the_terrain_table_known_to_nobody():
    """"eines bereits bekannten Bodenschatzes": deposits exist before anybody knows
    them. The generator places them on land only, more often in the mountains
    (chance by terrain, deposits.yaml), known to no kingdom; their own generator
    leaves the rest of the map as it was without them."""
    seg, _ = generate_segment("probe", 6, 3, 4, 7)
    old, _ = generate_segment("probe", 6, 3, 4, 7, rules=NO_DEPOSITS)
    assert seg.deposits and old.deposits == {}
    assert (seg.terrain == old.terrain).all() and (seg.owner == old.owner).all()
    kinds = set(RULES.section("deposits", "kinds"))
    for h, d in seg.deposits.items():
        tid = seg.at(seg.terrain, h)
        assert not WATER[tid] and d.kind in kinds and d.known_by == [] and d.position == h
    land = ~WATER[seg.terrain]
    high = land & (HEIGHTS[seg.terrain] >= 3)
    hits = np.zeros(seg.terrain.shape, dtype=bool)
    for h in seg.deposits:
        hits[seg.grid.index(h)] = True
    assert hits[high].mean() > hits[land & ~high].mean()


def test_a_search_finds_the_deposit_and_scouting_does_not():
    """"(s) Suche: Die Gemark ... wird ... nach Schätzen oder ungewöhnlichen
    Gegenständen usw. durchsucht" — a Bodenschatz is a treasure of the ground: a
    searching army finds it (with the search's chance) and its kingdom knows it
    from then on; an army that only stands there (its scouts report "Geländeart,
    Art der Bauwerke ...") learns nothing of it."""
    seg, h = mountain_mine()
    resolve_month(seg, {}, RULES)
    assert seg.deposits[h].known_by == []
    for _ in range(12):
        r = resolve_month(seg, sheets(seg, b={101: Search()}), RULES)
        if seg.deposits[h].known_by:
            break
    assert seg.deposits[h].known_by == [1]
    found = [e for e in r.log.events if e.kind == "action.search.deposit"]
    assert found and found[0].data["kind"] == "Silber" and "Bodenschatz" in found[0].why


def test_a_mine_yields_only_on_a_deposit_its_owner_knows():
    """A level-2 mine on an unknown deposit yields nothing (the audit: every mine
    yielded 1.000-5.000 GS per level without any deposit); from the month after
    the deposit is found it yields 2 x 3.000 GS (Silber)."""
    seg, h = mountain_mine()
    r = resolve_month(seg, {}, RULES)
    assert not [e for e in r.log.events if e.kind == "tax.mines"]
    seg.deposits[h].known_by = [1]
    r = resolve_month(seg, {}, RULES)
    mines = [e for e in r.log.events if e.kind == "tax.mines"]
    assert mines and mines[0].gold == int(2 * 3000 * (1 + (seg.kingdoms[1].popularity - 50)
                                                      * RULES.num("economy", "taxes",
                                                                  "popularity_effect")))


def test_a_mine_without_any_deposit_yields_nothing_and_the_checker_warns():
    """``BM`` is allowed "in jeder Landgemark" ("(Bn)"), but where the kingdom
    knows no deposit the checker warns that the mine will bring nothing."""
    seg, h = mountain_mine()
    seg.kingdoms[1].player.password_hash = ""
    other = at(seg, (1, 1))
    own(seg, 1, other)

    def warned(where) -> bool:
        text = f"Segment: test\nKönigreich: 1\nPasswort: x\nK\nBM {seg.label(where)}\n"
        return any(d.severity is mo.Severity.WARNING and "Bodenschatz" in d.message
                   for d in check_sheet(parse_sheet(text), build_view(seg, 1)))

    assert warned(other) and warned(h)
    seg.deposits[h].known_by = [1]
    assert warned(other) and not warned(h)


def test_the_forecast_counts_a_mine_only_on_a_known_deposit():
    """The forecast asks the engine's tax function with the deposits the view
    shows (one rule, one place): no mine income before the find, 6.000 GS after."""
    seg, h = mountain_mine()
    sheet = parse_sheet("Segment: test\nKönigreich: 1\nPasswort: x\n")

    def mine_income(view) -> int:
        fc = forecast(view, sheet, RULES)
        return sum(b.amount for b in fc.bookings if "Minen" in b.text)

    assert mine_income(build_view(seg, 1)) == 0
    seg.deposits[h].known_by = [1]
    view = view_from_dict(view_to_dict(build_view(seg, 1)))
    assert view.deposits == {seg.grid.address_of(h): "Silber"}
    assert mine_income(view) == 6000


def test_the_finder_s_sheet_map_and_json_report_show_the_deposit(tmp_path: Path):
    """The finder's report lists the deposit (JSON ``deposits`` and a map marker
    ``deposit``); another kingdom's report does not; a kingdom that found none
    has no ``deposits`` key (reports of segments without deposits stay as they were)."""
    seg, h = mountain_mine()
    add_kingdom(seg, 2)
    seg.deposits[h].known_by = [1]
    settings = load_report_settings()
    docs = {}
    for k in (1, 2):
        rep = build_kingdom_report(seg, [], None, k, settings)
        docs[k] = build_json(rep, seg, k, None)
    d1 = docs[1]["report"]
    assert d1["deposits"] == [{"address": seg.label(h), "kind": "Silber", "mine": 2, "own": True}]
    assert {"kind": "deposit", "gemark": seg.label(h), "label": "Silber"} in d1["markers"]
    assert "deposits" not in docs[2]["report"]
    assert all(m["kind"] != "deposit" for m in docs[2]["report"]["markers"])


def test_deposits_are_saved_and_a_segment_from_before_them_loads_as_such(tmp_path: Path):
    """Storage keeps the deposits and who found them; a world.yaml without a
    ``deposits`` key (saved before deposits existed) loads as "no deposits yet"
    and is written back without the key, byte for byte."""
    seg, h = mountain_mine()
    seg.deposits[h].known_by = [1]
    save_segment(seg, tmp_path / "a")
    back = load_segment(tmp_path / "a")
    assert back.deposits == {h: Deposit(h, "Silber", [1])}
    seg.deposits = None
    save_segment(seg, tmp_path / "b")
    text = (tmp_path / "b" / "world.yaml").read_bytes()
    assert b"deposits" not in text
    old = load_segment(tmp_path / "b")
    assert old.deposits is None
    save_segment(old, tmp_path / "c")
    assert (tmp_path / "c" / "world.yaml").read_bytes() == text


def test_an_old_segment_is_refused_until_upgraded_and_its_mines_keep_working():
    """Existing campaigns: a segment saved before deposits existed is not run
    under rules with deposits.yaml (its mines would fall silent without a word) —
    the message names ``wdg segment upgrade``; under its old rules it runs as
    before (mine by height). :func:`upgrade` places the deposits and puts one
    under every mine already built, known to its owner, so the mine keeps yielding."""
    seg, h = mountain_mine()
    seg.deposits = None
    with pytest.raises(InvalidInputError, match="wdg segment upgrade"):
        resolve_month(seg, {}, RULES)
    r = resolve_month(seg, {}, NO_DEPOSITS)
    assert [e.gold for e in r.log.events if e.kind == "tax.mines"]
    lines = upgrade(seg, RULES)
    assert seg.deposits is not None and 1 in seg.deposits[h].known_by
    assert any(seg.label(h) in line for line in lines)
    r = resolve_month(seg, {}, RULES)
    assert [e.gold for e in r.log.events if e.kind == "tax.mines"][0] > 0
    assert upgrade(seg, RULES) == []


def test_the_upgrade_places_deposits_and_a_replay_never_adds_them(tmp_path: Path):
    """Existing campaigns: ``wdg segment upgrade`` of a segment from before deposits
    (format 1, no ``deposits`` in world.yaml, a mine built) places them and puts one
    under the mine, known to its owner; replaying an old month never completes
    deposits.yaml or morale.yaml into its rules (their absence is how that month was
    resolved), while other missing keys are still completed."""
    import shutil

    import yaml

    from wdg.campaign import PACKAGE_ROOT, Campaign
    from wdg.engine.replay import _rules_with_defaults, fill_month_rules
    from wdg.engine.upgrade import upgrade_segment
    from wdg.reports.kept import check_kept_templates

    camp = Campaign(tmp_path / "camp")
    seg_dir = camp.segment_dir("canura")
    shutil.copytree(PACKAGE_ROOT / "worlds" / "canura", seg_dir,
                    ignore=shutil.ignore_patterns("turns"))
    seg = load_segment(seg_dir)
    h = next(iter(sorted(x for x in seg.settlement_names if seg.at(seg.owner, x) == 1)))
    seg.buildings[MINE][seg.grid.index(h)] = 2
    seg.deposits = None
    save_segment(seg, seg_dir)
    head = (seg_dir / "segment.yaml").read_text(encoding="utf-8")
    (seg_dir / "segment.yaml").write_text(head.replace(f"format: {FORMAT}", "format: 1"), encoding="utf-8")
    (seg_dir / "SHA256SUMS").unlink()  # a format-1 segment was written before the hash lists
    report = upgrade_segment(camp, "canura", templates="keep",
                             check_templates=check_kept_templates)
    assert any(seg.label(h) in line for line in report.changes["Bodenschätze"])
    after = load_segment(seg_dir)
    assert after.deposits and after.deposits[h].known_by == [1]

    old_rules = tmp_path / "rules-old"
    shutil.copytree(PACKAGE_ROOT / "worlds" / "rules", old_rules)
    for name in ("deposits.yaml", "morale.yaml"):
        (old_rules / name).unlink()
    economy = yaml.safe_load((old_rules / "economy.yaml").read_text(encoding="utf-8"))
    del economy["settlement"]["treasury_min_units"]
    (old_rules / "economy.yaml").write_text(yaml.safe_dump(economy, allow_unicode=True),
                                            encoding="utf-8")
    completed = _rules_with_defaults(old_rules, ["economy.yaml: settlement.treasury_min_units"])
    assert "deposits" not in completed.areas() and "morale" not in completed.areas()
    assert completed.int("economy", "settlement", "treasury_min_units") == 0
    mdir = tmp_path / "month"
    shutil.copytree(old_rules, mdir / "rules")
    added = fill_month_rules(mdir, tmp_path / "filled")
    assert added and not any("deposits" in a or "morale" in a for a in added)
    assert not (tmp_path / "filled" / "deposits.yaml").exists()


def test_the_order_editor_offers_mines_on_found_deposits_first():
    """The editor's choices (``wdg.orders.choices``) follow the rule: the gemark with
    a found deposit comes first in ``BM``'s list and the label says that a mine
    yields only there; without a find it says that a mine yields nothing."""
    from wdg.orders.choices import order_choices

    seg, h = mountain_mine()
    seg.buildings[MINE][seg.grid.index(h)] = 0
    own(seg, 1, at(seg, (1, 1)))

    def bm():
        k = order_choices(build_view(seg, 1), RULES)["kingdom"]
        return next(o for o in k["orders"] if o["code"] == "BM")

    assert "kein Bodenschatz gefunden" in bm()["label"]
    seg.deposits[h].known_by = [1]
    choice = bm()
    assert choice["options"][0] == seg.label(h)
    assert f"{seg.label(h)} Silber" in choice["label"]
