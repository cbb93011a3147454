"""German in the sheets (issue #18, item 6): singular forms, articles, distinct
generals, no raw data or English keys, a chronicle that says who fought whom, and
one orthography — the 1994 rule text's (docs/german.md)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np

from wdg.campaign import PACKAGE_ROOT
from wdg.engine.army_orders import launch_boats, phase_a
from wdg.engine.combat import battle
from wdg.engine.economy import draw_offer
from wdg.engine.events import Event
from wdg.engine.kingdom_orders import kingdom_orders
from wdg.engine.turn import begin_month
from wdg.orders.model import ArmyBlock, Build, BuildBoats, Release, Sheet
from wdg.reports.model import DATA_LABELS, event_line
from wdg.reports.settings import load_report_settings
from wdg.rules import Rules
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, small_segment
from wdg.world.generator import generate_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import Building

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules.load(PACKAGE_ROOT / "worlds" / "rules")
SETTINGS = load_report_settings()


def _sheet(seg, kingdom, *blocks, orders=()):
    s = Sheet(kingdom=kingdom, kingdom_orders=list(orders))
    for number, order in blocks:
        s.armies.append(ArmyBlock(number, seg.grid.address_of(seg.armies[number].position),
                                  line=10, phase_a=order))
    return {kingdom: s}


def test_one_boat_and_one_rustgut_are_written_in_the_singular():
    """Sheet text "1 Boote", "auf 1 Booten", "1 Rüstgüter entlassen" — with one of a
    thing the noun is singular: "1 Boot", "auf 1 Boot", "1 Rüstgut entlassen; es
    zerstreut sich"."""
    seg = small_segment(["~K ~K", "Tw T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    add_army(seg, 11, 1, (0, 1), units=15)
    add_army(seg, 12, 1, (1, 1), units=5)
    h = at(seg, (0, 1))
    water = next(d for d in Direction if seg.grid.contains(h.neighbour(d))
                 and seg.at(seg.terrain, h.neighbour(d)) == seg.at(seg.terrain, at(seg, (0, 0))))
    m = begin_month(seg, {**_sheet(seg, 1, (11, BuildBoats(water)), (12, Release(1)))}, RULES)
    phase_a(m)
    launch_boats(m)
    texts = " | ".join(e.why for e in m.log)
    assert "baut 1 Boot in" in texts and "auf 1 Boot ein" in texts
    assert "1 Rüstgut entlassen; es zerstreut sich" in texts
    assert not re.search(r"\b1 (Boote|Booten|Rüstgüter)\b", texts)


def test_a_building_at_its_top_level_is_named_with_its_own_article():
    """Sheet text "der Kaserne/der Mine hat schon die größte sinnvolle Stufe" — the
    refusal names "die Kaserne", "die Mine", "der Hafen", "der Palast"."""
    cap = RULES.int("economy", "buildings", "max_level")
    texts = []
    for b in Building:
        seg = small_segment(["~K ~K ~K", "T. T. T."], date=MonthDate(412, 7))
        add_kingdom(seg, 1, treasury=10_000_000)
        h = add_settlement(seg, (1, 1), 300, kingdom=1)
        row, col = seg.grid.index(h)
        seg.buildings[:, row, col] = cap
        m = begin_month(seg, {1: Sheet(kingdom=1, kingdom_orders=[
            Build(b, seg.grid.address_of(h), line=1)])}, RULES)
        kingdom_orders(m)
        texts += [e.why for e in m.log if e.kind.endswith("refused")]
    joined = " | ".join(texts)
    for phrase in ("die Kaserne hat schon", "die Mine hat schon", "der Hafen hat schon",
                   "der Palast hat schon"):
        assert phrase in joined, joined
    assert "der Kaserne" not in joined and "der Mine" not in joined


def test_generals_of_one_kingdom_never_share_a_name():
    """Sheet text "Feldherr Kunigunde angeworben …; Kunigunde wird entlassen" — a
    kingdom's generals and the general on offer have distinct names: the generator
    and the monthly offer add an ordinal ("Kunigunde II") to a name already in use."""
    seg, _ = generate_segment("namen", 4, 3, 6, 412, armies_per_kingdom=40,
                              active_per_kingdom=4, capital_radius=2, demo_passwords=True)
    for k in seg.kingdoms:
        names = [a.general.name for a in seg.armies.values() if a.kingdom == k and a.general]
        if seg.kingdoms[k].offer is not None:
            names.append(seg.kingdoms[k].offer.general.name)
        assert len(names) == len(set(names)), (k, names)
    data = copy.deepcopy(RULES._data)
    data["generals"]["offers"].update(chance=1.0, names=["Kunigunde"])
    rules = Rules(data)
    offer = draw_offer(np.random.default_rng(1), rules, {"Kunigunde", "Kunigunde II"})
    assert offer is not None and offer.general.name == "Kunigunde III"


def test_player_sheets_show_no_raw_data():
    """Sheet text "( von: 0 )", "( Reichweite: 2 )" — a neutral former owner reads
    "keinem Königreich", the scouts' reach reads "2 Gemarken weit"."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    won = event_line(Event("conquest.won", 1, 11, at(seg, (0, 0)), "Gemark erobert",
                           data={"from": 0}), seg, SETTINGS)
    scouted = event_line(Event("recon.scouted", 1, 11, at(seg, (0, 0)), "Erkundung",
                               data={"reach": 2, "buildings": []}), seg, SETTINGS)
    assert won.details == [("von", "keinem Königreich (neutrale Gemark)")]
    assert scouted.details == [("Erkundung", "2 Gemarken weit")]


def test_the_game_masters_overview_shows_no_english_keys():
    """Sheet text: the game master's overview showed "gain", "target", "spent",
    "reason" — every data key the engine writes in a month of the stress preset (all
    orders in use) has a German label."""
    from wdg.engine.turn import resolve_month
    from wdg.orders.generate import generate_sheets
    from wdg.orders.parser import parse_sheet
    from wdg.world.stress import stress_segment

    seg, passwords = stress_segment(0.1)
    keys: set[str] = set()
    for i in range(2):
        texts = generate_sheets(seg, np.random.default_rng(i), passwords)
        r = resolve_month(seg, {k: parse_sheet(t) for k, t in texts.items()}, RULES)
        keys |= {k for e in r.log for k in e.data}
    assert {"gain", "target", "spent", "reason"} <= keys
    assert sorted(k for k in keys if k not in DATA_LABELS) == []


def test_the_chronicle_says_who_fought_whom_and_who_won():
    """Sheet text: the Götterbotschaft's chronicle printed both sides' lines of a battle
    ("Kampf gegen Heer 0201 …: gewonnen", "… verloren") without saying who fought — it
    prints one line naming both armies, their kingdoms and the victor."""
    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, diplomacy={2: 1})
    add_kingdom(seg, 2, diplomacy={1: 1})
    add_army(seg, 101, 1, (0, 0), units=900)
    add_army(seg, 201, 2, (0, 0), units=100)
    m = begin_month(seg, {}, RULES)
    battle(m, seg.armies[101], seg.armies[201])
    shown = [e for e in m.log if SETTINGS.in_chronicle(e.kind, e.public)]
    assert [e.kind for e in shown] == ["combat.chronicle"]
    text = shown[0].why
    k1, k2 = seg.kingdoms[1].name, seg.kingdoms[2].name
    assert f"Heer 0101 von {k1}" in text and f"Heer 0201 von {k2}" in text
    assert f"Heer 0101 von {k1} griff Heer 0201 von {k2}" in text
    assert "gewann" in text and "vernichtet" in text


NEW_SPELLING = re.compile(
    r"\b(dass|muss|musst|müsste|lässt|verlässt|misslungen|misslingt|Eintreffschluss|"
    r"umfasst|Einfluss|bewusst|gewiss|Fluss|Schluss|Anschluss|Beschluss|Abschluss|"
    r"Schloss|wusste|passt|fasst)\b")


def _german_sources() -> list[Path]:
    files = [*ROOT.glob("templates/**/*.j2"), *ROOT.glob("worlds/rules/*.yaml"),
             *ROOT.glob("orders/**/*.txt")]
    files += [p for p in ROOT.glob("wdg/**/*.py") if "games" not in p.parts]
    return files


def test_player_facing_german_keeps_the_1994_orthography():
    """Sheet text "Eintreffschluss" beside "mißlungen": wdg writes its German in the
    orthography of the 1994 rule text ("daß", "muß", "mißlungen", "Eintreffschluß";
    docs/german.md) — no source of sheet text (engine, orders, reports, templates,
    rules files, the demo's sheets) uses the reformed forms."""
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group(0)}" for p in _german_sources()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for m in NEW_SPELLING.finditer(line)]
    assert found == []
    assert "Eintreffschluß" in (ROOT / "wdg" / "world" / "deadline.py").read_text("utf-8")
    assert "Eintreffschluß" in (ROOT / "docs" / "german.md").read_text("utf-8")


def test_a_wizard_duel_is_one_chronicle_line_naming_both_sides():
    """Sheet text: battle lines in the chronicle "without saying who fought whom" — a
    wizard duel ("Zauberer ... duellieren sich") is one chronicle line naming both
    wizards, their armies and kingdoms; each side still reads it on its own sheet."""
    from wdg.engine.wizards import wizard_duels

    seg = small_segment(["T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    add_army(seg, 101, 1, (0, 0), wizard=True)
    add_army(seg, 201, 2, (1, 0), wizard=True)
    m = begin_month(seg, {}, RULES)
    wizard_duels(m)
    duels = m.log.of_kind("wizard.duel")
    assert sorted(e.kingdom for e in duels) == [1, 2]
    shown = [e for e in m.log if SETTINGS.in_chronicle(e.kind, e.public)]
    assert len(shown) == 1
    for n, k in ((101, 1), (201, 2)):
        assert f"Heer {n:04d} von {seg.kingdoms[k].name}" in shown[0].why
