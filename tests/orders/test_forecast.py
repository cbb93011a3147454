"""The forecast (wdg.orders.forecast): what a sheet would do, on what the kingdom
knows — the same step rule as the engine, the engine's costs and taxes, chances
instead of dice, and nothing the kingdom cannot see."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from tests.engine._phase_b_world import RULES, month_of
from wdg.engine.movement import movement
from wdg.orders import model as m
from wdg.orders.forecast import forecast, forecast_text, order_costs, plan_data, reach
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view, view_from_dict, view_to_dict
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment
from wdg.world.hexgrid import Direction
from wdg.world.state import BUILDING_ORDER, Building, TroopType
from wdg.world.terrain import terrain

HEAD = "Segment: test\nKönigreich: 1\nPasswort: x\n"


def know_all(seg, k: int = 1) -> None:
    """Kingdom ``k`` has seen the whole map (terrain and owners) this month."""
    km = seg.known[k]
    km.terrain[:] = seg.terrain
    km.owner[:] = seg.owner
    km.settlement[:] = seg.settlement
    km.seen[:] = seg.date.previous().ordinal


def world(*rows: str, month: int = 7, treasury: int = 100_000):
    seg = small_segment(rows, date=MonthDate(412, month))
    add_kingdom(seg, 1, treasury=treasury)
    add_kingdom(seg, 2)
    return seg


def fc_of(seg, body: str, k: int = 1):
    sheet = parse_sheet(HEAD.replace("Königreich: 1", f"Königreich: {k}") + body)
    return forecast(build_view(seg, k), sheet, RULES)


def block(seg, n: int, *orders: str) -> str:
    a = seg.armies[n]
    pos = seg.grid.address_of(a.position) if a.position is not None else "000.00"
    return f"H\nHeer {n:04d} {pos}\n" + "".join(f"{o}\n" for o in orders)


# --- movement: the engine's rule ------------------------------------------------------

LAND = ["T.", "T.", "Tw", "Tp", "Ts", "Tu", "H.", "Hw", "B.", "G.", "Td"]
SEA = ["~M", "~K"]


@pytest.mark.parametrize("seed", range(120))
def test_the_forecast_walks_like_the_engine_on_a_fully_known_map(seed):
    """"Die Bewegung", (c)-(h), (k), "Das Boot": on a map the kingdom knows
    completely, the forecast's path, end and spent budget are the engine's — for
    warriors, riders, boats and fleets, any season, foreign gemarks on the way
    (owner's status toward the mover 6 or less). Where the engine's dice made an
    army lose its way or a fleet shatter, the forecast gave that chance (> 0)
    and nothing more is compared: the forecast assumes the army keeps its way."""
    rng = np.random.default_rng(seed)
    pool = LAND * 2 + SEA
    rows = [" ".join(rng.choice(pool, 8)) for _ in range(6)]
    seg = world(*rows, month=int(rng.integers(1, 13)))
    seg.kingdoms[2].diplomacy[1] = int(rng.integers(1, 7))
    for _ in range(3):
        own(seg, 2, (int(rng.integers(8)), int(rng.integers(6))))
    kind = ["krieger", "reiter", "boote", "schiffe"][seed % 4]
    start = (int(rng.integers(1, 7)), int(rng.integers(1, 5)))
    r, c = seg.grid.index(at(seg, start))
    seg.terrain[r, c] = terrain("~K" if kind in ("boote", "schiffe") else "T.").id
    seg.owner[r, c] = 0
    troop = {"reiter": TroopType.REITER, "schiffe": TroopType.SCHIFFE}.get(kind,
                                                                          TroopType.KRIEGER)
    a = add_army(seg, 101, 1, start, troop=troop, units=int(rng.integers(1, 900)))
    if kind == "boote":
        a.boats = 50
    know_all(seg)
    dirs = tuple(Direction(d) for d in rng.choice([d.value for d in Direction],
                                                 int(rng.integers(1, 6))))
    fc = fc_of(seg, block(seg, 101, "b " + " ".join(d.value for d in dirs)))
    mo = month_of(seg, {101: m.Move(dirs)})
    movement(mo)
    got = fc.army(101)
    if mo.log.of_kind("move.lost") or mo.log.of_kind("move.shattered"):
        assert got.lost_chance > 0 or got.shatter_chance > 0
        return
    assert got.end == seg.label(a.position)
    moved = mo.log.of_kind("move.moved")
    assert got.spent == (moved[0].data["spent"] if moved else 0)
    assert [s.at for s in got.path] == (moved[0].data["path"] if moved else [])
    assert got.units_after == a.units


def test_a_rider_stops_when_the_budget_is_spent_and_the_forecast_says_why():
    """Reiter: "33% ... Tiefland"; a step taking the sum over 100% is not made:
    three steps (99 %), the fourth refused for range."""
    seg = world("T. T. T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER, units=100)
    know_all(seg)
    fc = fc_of(seg, block(seg, 101, "b O O O O"))
    a = fc.army(101)
    assert (a.end, a.spent, a.remaining) == ("101.04", 99, ["O"])
    assert a.stop == "Die Bewegungsreichweite ist erschöpft"
    assert [(r.cause, r.line) for r in fc.refused] == [("range", 6)]
    assert "voraussichtlich in 101.04" in forecast_text(fc)


def test_spring_closes_the_stromtal_in_the_forecast():
    """(f) "In den Monden des Frühjahres (4-6) kann die Geländeart Stromtal nicht
    betreten werden"; in summer it can."""
    for month, end in ((4, "101.01"), (7, "101.02")):
        seg = world("T. Ts T.", month=month)
        add_army(seg, 101, 1, (0, 0))
        know_all(seg)
        assert fc_of(seg, block(seg, 101, "b O")).army(101).end == end


def test_a_foreign_gemark_as_last_seen_ends_the_move():
    """"Der Kontrollbereich": the move ends on entering a foreign kingdom's gemark;
    the forecast takes the owner as last seen and says it cannot know the owner's
    status toward the mover."""
    seg = world("T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    own(seg, 2, (1, 0))
    know_all(seg)
    a = fc_of(seg, block(seg, 101, "b O O")).army(101)
    assert a.end == "101.02"
    assert "Kontrollbereich von Königreich 2" in a.stop


def test_the_forecast_names_a_kingdom_as_the_sheet_does():
    """Issue #42: not "Reich 6" where the sheet says "Reich Thaledorf": a kingdom
    on the diplomacy list is named by its name (the view carries the names of
    the list, as the sheet's diplomacy section shows them)."""
    seg = world("T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    own(seg, 2, (1, 0))
    seg.kingdoms[2].name = "Thaledorf"
    seg.kingdoms[1].diplomacy[2] = 5
    know_all(seg)
    a = fc_of(seg, block(seg, 101, "b O O")).army(101)
    assert "Thaledorf" in a.stop and "Reich 2" not in a.stop, a.stop


def test_the_chance_of_getting_lost_is_given_as_a_percentage_not_rolled():
    """(e): leaving a Sumpf outside the own territory the army may lose its way
    (movement.yaml get_lost_chance 0.5): 50 %; the path assumes it keeps its way."""
    seg = world("Tu T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    know_all(seg)
    a = fc_of(seg, block(seg, 101, "b O O")).army(101)
    assert a.lost_chance == 50 and a.end == "101.03"
    own(seg, 1, (0, 0))
    know_all(seg)
    assert fc_of(seg, block(seg, 101, "b O O")).army(101).lost_chance == 0


def test_losses_in_difficult_terrain_are_forecast():
    """"Schwieriges Gelände": entering Tieflandsumpf costs 3 % of the soldiers
    (movement.yaml losses, Sumpf 3)."""
    seg = world("T. Tu")
    add_army(seg, 101, 1, (0, 0), units=1000)
    know_all(seg)
    a = fc_of(seg, block(seg, 101, "b O")).army(101)
    assert a.units_after == 970 and a.path[0].losses == 30


def test_an_unknown_gemark_ends_the_forecast_of_a_move():
    """The forecast never steps on terrain the kingdom has not seen."""
    seg = world("T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    know_all(seg)
    seg.known[1].terrain[0, 2] = 255
    seg.known[1].seen[0, 2] = 0
    a = fc_of(seg, block(seg, 101, "b O O O")).army(101)
    assert a.end == "101.02" and "unbekannt" in a.stop


# --- Phase A and gold ------------------------------------------------------------------

def test_gold_before_and_after_with_every_cost_and_the_taxes():
    """"Besoldung und Unterhalt" (1.000 GS upkeep, 1 GS per Krieger), "(nr)" 10 GS
    per Krieger, "Die Bauwerke" (Mine 50.000 GS), then the taxes of the own
    gemarks (Tiefland 600) and the settlement (Flecken 2.000 GS)."""
    seg = world("T. T. T.", treasury=100_000)
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=5000)
    own(seg, 1, (1, 0))
    add_army(seg, 101, 1, (0, 0), units=500)
    fc = fc_of(seg, block(seg, 101, "nr 100") + "K\nBM 101.02\n")
    cats = {b.category: b.amount for b in fc.bookings}
    assert cats == {"upkeep": -1000, "pay": -500, "recruit": -1000, "build": -50000,
                    "tax": 1200, "income": 2000}
    assert fc.gold_after == 100_000 - 52_500 + 3_200
    assert fc.army(101).units_after == 600


def test_orders_the_treasury_cannot_pay_are_refused_for_lack_of_gold():
    """"Der Reichsschatz" (e): "ein Herrscher kann keine Schulden machen!" — the
    Hafen (100.000 GS) does not fit into 60.000 GS; the recruits after it do."""
    seg = world("~K T. T.", treasury=60_000)
    add_settlement(seg, (1, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=9000)
    add_army(seg, 101, 1, (1, 0), units=100)
    fc = fc_of(seg, block(seg, 101, "nr 1000") + "K\nBH 101.02\n")
    assert [(r.cause, r.order) for r in fc.refused] == [("gold", "BH 101.02")]
    assert fc.army(101).units_after == 1100
    fc = fc_of(seg, block(seg, 101, "nr 6000"))
    assert [r.cause for r in fc.refused] == ["gold"]
    assert fc.army(101).units_after == 100


def test_boats_are_built_for_the_whole_army():
    """"Das Boot": "Es werden genau so viele Boote gebaut, daß das gesamte Heer
    einschiffen kann" — 300 Krieger (Raumfaktor 1) in boats of 20: 15 boats, the
    army on the water at the end of the month."""
    seg = world("Tw ~K")
    add_army(seg, 101, 1, (0, 0), units=300)
    know_all(seg)
    a = fc_of(seg, block(seg, 101, "bb O")).army(101)
    assert (a.boats, a.end) == (15, "101.02")


def test_boarding_a_fleet_too_small_is_refused_for_capacity():
    """"Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": 2 ships carry 200,
    300 Krieger need 300."""
    seg = world("T. ~K")
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.HAFEN: 1})
    add_army(seg, 101, 1, (0, 0), units=300)
    add_army(seg, 102, 1, (0, 0), troop=TroopType.SCHIFFE, units=2)
    fc = fc_of(seg, block(seg, 101, "bs 0102") + "Heer 0102 101.01\n")
    assert [r.cause for r in fc.refused] == ["capacity"]
    seg.armies[102].units = 3
    fc = fc_of(seg, block(seg, 101, "bs 0102") + "Heer 0102 101.01\nb O\n")
    assert fc.refused == [] and fc.army(101).carried_by == 102
    assert fc.army(102).end == "101.02" and fc.army(101).end == "101.02"


# --- privacy ---------------------------------------------------------------------------

def test_an_enemy_army_the_kingdom_cannot_see_changes_nothing_and_is_never_named():
    """Issue #24 (3): the forecast uses only the kingdom's own view. An enemy army
    of kingdom 2 stands on the path of army 0101 where kingdom 1 has not seen it:
    the forecast (data and text) is identical with and without it and names
    neither the army nor its strength."""
    seg = world("T. T. T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER, units=100)
    know_all(seg)
    body = block(seg, 101, "b O O O")
    without = fc_of(seg, body)
    add_army(seg, 201, 2, (1, 0), units=4321)
    hidden = fc_of(seg, body)
    assert hidden.to_dict() == without.to_dict()
    text = forecast_text(hidden)
    assert text == forecast_text(without)
    assert "0201" not in text and "4321" not in text and "4.321" not in text
    assert "0201" not in json.dumps(reach(build_view(seg, 1), 101, RULES))


# --- editor data -------------------------------------------------------------------------

def test_reach_lists_each_gemark_in_range_with_path_and_cost():
    """Reiter on Tiefland (33 % each): three gemarks to the east at 33/66/99 %;
    a foreign gemark is reachable but ends the move ("stops")."""
    seg = world("T. T. T. T. T.", "~M ~M ~M ~M ~M")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    own(seg, 2, (1, 0))
    know_all(seg)
    got = {e["to"]: e for e in reach(build_view(seg, 1), 101, RULES)}
    assert got["101.02"] == {"to": "101.02", "directions": ["O"], "path": ["101.02"],
                             "cost": 33, "stops": True, "lost_chance": 0}
    assert "101.03" not in got  # only through the foreign gemark, where the move ends
    json.dumps(got)
    own(seg, 0, (1, 0))
    know_all(seg)
    got = {e["to"]: e["cost"] for e in reach(build_view(seg, 1), 101, RULES)}
    assert (got["101.02"], got["101.03"], got["101.04"]) == (33, 66, 99)
    assert "101.05" not in got


def test_order_costs_are_plain_data_from_the_rules_file():
    """economy.yaml: premium (Krieger 10 GS), activation, building prices."""
    seg = world("T. T.")
    own(seg, 1, (0, 0))
    costs = order_costs(build_view(seg, 1), RULES)
    json.dumps(costs)
    assert costs["nr"]["Krieger"] == 10 and costs["B"]["H"] == 100_000
    assert costs["SS_factor"] == {"101.01": 1}


def test_the_view_carries_treasury_popularity_mines_and_owners_through_yaml():
    """What the forecast needs travels in ``ansicht.yaml`` to the player."""
    seg = world("T. T. T.")
    own(seg, 1, (0, 0))
    seg.buildings[BUILDING_ORDER.index(Building.MINE), 0, 0] = 2
    own(seg, 2, (1, 0))
    know_all(seg)
    v = build_view(seg, 1)
    back = view_from_dict(copy.deepcopy(view_to_dict(v)))
    assert (back.treasury, back.popularity) == (100_000, 50)
    assert back.owners == v.owners and back.owners[seg.grid.address_of(at(seg, (1, 0)))] == 2
    assert back.mines == {seg.grid.address_of(at(seg, (0, 0))): 2}


def test_the_bots_plan_with_the_forecasts_step_rule_and_running_costs():
    """One planning module: the bots' planner prices a step as the forecast's walk
    does, and their budget's running costs are the forecast's pay and upkeep."""
    from wdg.bots.briefing import brief
    from wdg.bots.plan import Planner
    from wdg.bots.players import _Bot, personality

    seg = world("T. Tw Ts H. T.", month=5)
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER, units=300)
    know_all(seg)
    b = brief(seg, 1)
    plan = Planner(b, RULES)
    h = [at(seg, (c, 0)) for c in range(5)]
    costs = [plan.step_cost("reiter", h[i], h[i + 1]) for i in range(4)]
    assert costs == [50, None, 33, 33]  # Wald 50 %; Stromtal closed in spring (f); Hochland 33 %
    fc = fc_of(seg, block(seg, 101, "b O O"))
    assert [s.cost for s in fc.army(101).path] == [50]
    bot = _Bot(b, personality("Baumeister"), RULES, np.random.default_rng(1))
    paid = -sum(x.amount for x in fc.bookings if x.category in ("upkeep", "pay"))
    assert bot.running_costs() == paid == 3000 + 600


def test_plan_data_gives_an_editor_the_running_total_the_forecast_computes():
    """The editor's running gold total from plan_data (treasury - running costs -
    order costs + income) equals the forecast of the sheet it writes: here one
    recruit order (nr 100: 10 GS each, economy.yaml premium)."""
    seg = world("T. T. T.", treasury=50_000)
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=5000)
    add_army(seg, 101, 1, (0, 0), units=500)
    know_all(seg)
    data = plan_data(build_view(seg, 1), RULES)
    json.dumps(data)
    total = data["treasury"] - data["armies"]["101"]["running"] \
        - 100 * data["costs"]["nr"]["Krieger"] + data["income"]
    fc = fc_of(seg, block(seg, 101, "nr 100"))
    assert total == fc.gold_after == 50_000 - 1_500 - 1_000 + 600 + 2_000
    # a Krieger: 100 % per land gemark, one step east or south-east (the map's corner)
    assert [(e["to"], e["directions"], e["cost"]) for e in data["armies"]["101"]["reach"]] == \
        [("101.02", ["O"], 100), ("101.09", ["SO"], 100)]


def test_plan_data_leaves_out_the_scouting_without_changing_any_gold():
    """plan_data foresees the sheet without orders without Phase E's scouting
    (``GOLD_ONLY_SKIP``): its gold — pay, shortfall, deserters, income, the
    treasury after — equals that of the whole month foreseen, here with a
    treasury too small for the pay (deserters) and a foreign army in sight."""
    from wdg.orders.forecast import GOLD_ONLY_SKIP, gold_plan

    assert GOLD_ONLY_SKIP == frozenset({"recon"})
    seg = world("T. T. T.", treasury=700)
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=5000)
    add_army(seg, 101, 1, (0, 0), units=500)
    add_army(seg, 102, 1, (0, 1), units=900)
    add_kingdom(seg, 2)
    add_army(seg, 201, 2, (0, 2), units=300)
    know_all(seg)
    view = build_view(seg, 1)
    data = plan_data(view, RULES)
    whole = gold_plan(view, RULES)  # the whole month foreseen, scouting included
    assert data["gold"] == whole
    assert whole["unpaid"] > 0 and whole["deserters"]
    assert (data["income"], data["after_without_orders"]) == \
        (whole["income"], whole["after_without_orders"])


def test_an_army_without_soldiers_builds_no_boats():
    """"Das Heer": a general with his Troß alone "ist ... zu keinen besonderen
    Aktionen fähig" (actions.yaml minimum_soldiers bb 1): the engine refuses bb,
    and so does the forecast — the army stays on land."""
    seg = world("Tw ~K")
    add_army(seg, 101, 1, (0, 0), units=0)
    know_all(seg)
    fc = fc_of(seg, block(seg, 101, "bb O"))
    assert fc.army(101).end == "101.01" and fc.army(101).boats == 0
    assert [r.cause for r in fc.refused] == ["rule"]


def test_a_gemark_seen_from_afar_without_its_owner_is_named_on_the_path():
    """"Die Erkundung der Heere" (c): the ring beyond shows terrain only. A path
    through such a gemark is forecast, and the gemark named: a foreign owner
    would end the move there ("Der Kontrollbereich")."""
    seg = world("T. T. T. T.")
    add_army(seg, 101, 1, (0, 0), troop=TroopType.REITER)
    own(seg, 2, (2, 0))
    know_all(seg)
    seg.known[1].owner[0, 2] = -1  # terrain known, owner not
    fc = fc_of(seg, block(seg, 101, "b O O O"))
    a = fc.army(101)
    assert (a.end, a.unknown_owners) == ("101.04", ["101.03"])
    assert "Besitzer unbekannt: " in forecast_text(fc)


def test_occupation_without_soldiers_is_refused():
    """"Das Heer": a general and his Troß alone are "zu keinen besonderen Aktionen
    fähig" (actions.yaml minimum_soldiers o 1)."""
    seg = world("T. T.")
    add_army(seg, 101, 1, (0, 0), units=0)
    know_all(seg)
    fc = fc_of(seg, block(seg, 101, "o"))
    assert [(r.cause, r.order) for r in fc.refused] == [("rule", "o")]


def test_recruits_are_cut_to_the_settlements_militia_as_the_month_cuts_them():
    """"(nr)": "bis zum Rüstvolumen" — a settlement with 3.642 militia raises at
    most 3.642 Krieger. The view carries the militia, and the forecast runs the
    engine's own recruiting (issue #32: ``nr 6000`` was forecast as refused for
    gold while the month recruited 3.642)."""
    seg = world("T. T. T.", treasury=100_000)
    add_settlement(seg, (0, 0), 150, kingdom=1, buildings={Building.KASERNE: 1}, militia=3642)
    add_army(seg, 101, 1, (0, 0), units=100)
    assert [s.militia for s in build_view(seg, 1).settlements.values()] == [3642]
    fc = fc_of(seg, block(seg, 101, "nr 6000"))
    assert fc.army(101).units_after == 100 + 3642
    assert [(r.cause, r.order) for r in fc.refused] == [("volume", "nr 6000")]
    assert [b.amount for b in fc.bookings if b.category == "recruit"] == [-3642 * 10]


def test_a_sheet_the_checker_refuses_whole_gets_no_forecast_only_the_reason():
    """Issue #32: a sheet for another month is not taken at all ("der ganze Spielzug
    wird nicht angenommen"), so nothing is foreseen — no booking, no army, the
    reason in the text."""
    seg = world("T. T. T.")
    add_settlement(seg, (0, 0), 150, kingdom=1)
    add_army(seg, 101, 1, (0, 0), units=100)
    sheet = parse_sheet(HEAD.replace("Königreich: 1", "Königreich: 1\nMond: 0412-09")
                        + "K\nSS 101.01 100\n")
    fc = forecast(build_view(seg, 1), sheet, RULES)
    assert fc.refused_whole and fc.bookings == [] and fc.armies == [] and fc.gold_after is None
    text = forecast_text(fc)
    assert "Keine Vorschau: der ganze Spielzug wird nicht angenommen" in text
    assert "Siedlung" not in text and "Reichsschatz:" not in text


def test_a_foreign_army_the_scouts_saw_is_in_the_forecast_and_the_fight_foreseen():
    """Issue #32: the forecast runs the engine's steps on the view "with foreign
    armies as the view has them". Kingdom 1 holds status 2 toward kingdom 2
    ("Angriff auf fremde Heere möglich" at 1-3) and its scouts saw army 0201 (50
    Krieger, reported) in 101.02: army 0101 (1.000 Krieger) marches there and
    the engine's combat step fights it — the stronger side wins, as
    ExpectedDice states (the likelier case of a yes/no draw). Without the
    sighting the way is free and no fight is foreseen."""
    from wdg.engine.events import Event
    from wdg.world.factory import add_kingdom as _k

    seg = small_segment(["T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, diplomacy={2: 2})
    _k(seg, 2, diplomacy={1: 5})
    add_army(seg, 101, 1, (0, 0), units=1000)
    enemy = add_army(seg, 201, 2, (1, 0), units=50)
    know_all(seg)
    body = block(seg, 101, "B: b O")
    seen = Event("recon.sighting", 1, at=enemy.position, why="Heer 0201 ...",
                 data={"what": "heer", "id": 201, "of": 2, "troop": "Krieger", "units": 50,
                       "exact": True})
    view = build_view(seg, 1, [seen])
    assert [(f.number, f.kingdom, str(f.position), f.units) for f in view.foreign] == \
        [(201, 2, "101.02", 50)]
    sheet = parse_sheet(HEAD + body)
    fought = forecast(view, sheet, RULES)
    assert any("0201" in e for e in fought.army(101).effects), fought.army(101).effects
    assert fought.army(201) is None  # the forecast lists the kingdom's own armies only
    free = forecast(build_view(seg, 1), sheet, RULES)
    assert not any("0201" in e for e in free.army(101).effects)
    assert view_from_dict(view_to_dict(view)).foreign == view.foreign  # ansicht.yaml keeps it
