"""The forecast against the real month: the demo campaign's month 0412-04 with the
shipped sheets (orders/canura/0412-04), then two more months with generated
sheets and six months the bots play (boats, fleets, conquest, war), each
forecast from the kingdom's view before the month and compared with what the
engine did (issue #24: "for the demo month and every army no
other kingdom interferes with, the forecast's end position and the kingdom's
gold equal the real month's outcome")."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pytest

from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.store.months import read_order_files
from wdg.engine.month_sheets import take_in
from wdg.engine.treasury import gs
from wdg.engine.turn import resolve_intake
from wdg.orders.forecast import Forecast, forecast
from wdg.bots.briefing import brief
from wdg.bots.players import write_sheet
from wdg.orders.generate import default_passwords, generate_sheets, playing_kingdoms
from wdg.orders.view import build_view
from wdg.rules import Rules
from wdg.store.segment import load_segment

GENERATED = 2
"""Months after the demo month with sheets of :func:`generate_sheets`."""
BOT_MONTHS = 6
"""Months after those with the bots' sheets (docs/bots.md), Baumeister, Eroberer
and Kriegsherr by turns."""
BOTS = ("Baumeister", "Eroberer", "Kriegsherr")
FORECAST_LEDGERS = {"upkeep", "pay", "general", "activate", "recruit", "build", "settlement",
                    "festival", "tax", "income"}
"""The treasury categories the forecast books; any other gold (conquest, treasure,
the game master's sheet, combat loot) comes from what the kingdom cannot know."""
INTERFERENCE = ("combat", "militia", "partisan", "creature", "conquest", "gm", "move.lost",
                "move.shattered", "move.drowned", "pay.shortfall", "durability.sunk",
                "durability.drowned", "durability.boats_lost", "a.nr.partial", "wizard", "c.")
"""Event kinds of an army that the forecast cannot foresee: fights (with armies,
militia, partisans, creatures), conquest, the game master, the dice (getting
lost, shattering, desertion when pay falls short), the wear of ships and boats
at the end of the month, recruits cut short by the militia it does not know
exactly (Rüstvolumen), and character actions (``c``: spells, teleports,
taming) and wizards' duels, which it does not model."""


@dataclass
class Month:
    key: str
    before: object
    after: object
    events: list
    forecasts: dict[int, Forecast]


@pytest.fixture(scope="module")
def months(tmp_path_factory) -> list[Month]:
    camp = copy_demo(tmp_path_factory.mktemp("truth") / "c")
    rules = Rules.load(camp.rules_dir)
    seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
    files = read_order_files(camp.orders_dir(DEMO_SEGMENT, seg.date))
    out: list[Month] = []
    for i in range(1 + GENERATED + BOT_MONTHS):
        if 0 < i <= GENERATED:
            files = {f"k{k}.txt": text.encode("utf-8")
                     for k, text in generate_sheets(seg, np.random.default_rng(i)).items()}
        elif i > GENERATED:
            pw = default_passwords(seg)
            files = {f"k{k}.txt": write_sheet(brief(seg, k, out[-1].events), BOTS[k % 3], rules,
                                              password=pw[k], seed=i).encode("utf-8")
                     for k in playing_kingdoms(seg)}
        before = copy.deepcopy(seg)
        intake = take_in(seg, files)
        seen = out[-1].events if out else []  # the foreign armies last month's scouts saw
        fcs = {k: forecast(build_view(before, k, seen), sheet, rules)
               for k, sheet in intake.sheets.items()}
        result = resolve_intake(seg, intake, rules)
        out.append(Month(before.date.key, before, copy.deepcopy(result.state),
                         result.log.events, fcs))
        seg = result.state
    return out


def _spots(fc_army) -> set[str]:
    return {fc_army.start, fc_army.end, *(s.at for s in fc_army.path)}


def _interfered(mo: Month, kingdom: int, fa) -> bool:
    """True if what the forecast cannot know decided the army's month: an event of
    :data:`INTERFERENCE` for it; a foreign army or creature at the start or the end
    of the month on a gemark of its forecast path; a move into a gemark the kingdom
    has never seen (the forecast ends the path before it and says so,
    ``unknown_ahead``) or through one whose owner it has not seen
    (``unknown_owners``: the forecast names them, a foreign owner would end the
    move there); or recruits of its kingdom cut short by the militia
    earlier in the month (``a.nr.partial``: the forecast assumed the whole premium
    paid, so every later order that needs gold may fare otherwise)."""
    if fa.unknown_ahead or fa.unknown_owners:
        return True
    if any(e.kingdom == kingdom and e.kind == "a.nr.partial" for e in mo.events):
        return True
    if any(e.army == fa.number and e.kind.startswith(INTERFERENCE) for e in mo.events):
        return True
    spots = _spots(fa)
    for seg in (mo.before, mo.after):
        for a in seg.armies.values():
            if a.kingdom != kingdom and a.position is not None and seg.label(a.position) in spots:
                return True
        for c in seg.creatures.values():
            if seg.label(c.position) in spots:
                return True
    return False


def test_each_untouched_armys_forecast_end_is_where_the_month_left_it(months):
    """Per army: end position, status and soldiers as forecast — for every army no
    other kingdom, creature, game master or die touched (see :data:`INTERFERENCE`).
    An army with a chance of getting lost that the dice spared must arrive where
    forecast; one the dice sent astray is excluded by its ``move.lost`` event."""
    compared = 0
    for mo in months:
        for k, fc in mo.forecasts.items():
            for fa in fc.armies:
                if _interfered(mo, k, fa):
                    continue
                real = mo.after.armies[fa.number]
                where = mo.after.label(real.position) if real.position is not None else "000.00"
                assert (where, real.status.value, real.units) == \
                    (fa.end, fa.status_after, fa.units_after), (mo.key, fa)
                compared += 1
    assert compared >= 150  # 6 kingdoms x 4+ armies x 9 months; fights etc. excluded


def test_the_demo_month_has_no_exclusions(months):
    """In 0412-04 (the shipped sheets) nothing interferes: every army of every
    kingdom is compared, none left out."""
    mo = months[0]
    assert mo.key == "0412-04"
    assert not [fa.number for k, fc in mo.forecasts.items() for fa in fc.armies
                if _interfered(mo, k, fa)]


def test_the_treasury_after_the_month_is_the_forecast_gold(months):
    """"Besoldung und Unterhalt", the K orders, Phase A costs, the taxes of
    "Währung und Steuern": the kingdom's treasury after the month equals the
    forecast — for each kingdom whose treasury only the forecast's categories
    moved (:data:`FORECAST_LEDGERS`) and whose recruits were not cut short by the
    militia (``a.nr.partial``: the Rüstvolumen is not exactly known)."""
    compared = 0
    for mo in months:
        for k, fc in mo.forecasts.items():
            mine = [e for e in mo.events if e.kingdom == k]
            if any(e.gold and e.ledger not in FORECAST_LEDGERS for e in mine) or \
                    any(e.kind == "a.nr.partial" for e in mine):
                continue
            assert mo.after.kingdoms[k].treasury == fc.gold_after, (mo.key, k)
            real = {}
            for e in mine:
                if e.gold:
                    real[e.ledger] = real.get(e.ledger, 0) + e.gold
            booked = {}
            for b in fc.bookings:
                booked[b.category] = booked.get(b.category, 0) + b.amount
            assert booked == real, (mo.key, k)
            compared += 1
    assert compared >= 40
    assert all(k in {kk for kk in months[0].forecasts} for k in range(1, 7))



# --- issue #32: one source of truth on every sheet; the forecast's agreement by cause ----

def test_every_treasury_share_and_militia_figure_on_every_sheet_is_the_engines(months):
    """Issue #32 (1): "Der Reichsschatz verteilt sich stets gleichmäßig auf alle
    Siedlungen" — on every kingdom's sheet of the nine months (six played by
    the bots) each settlement's share is the engine's own
    (:func:`treasury_share` over :func:`treasury_sites`; none in a Lager under
    ``treasury_min_units``), agrees with the month's own ``treasury.spread``
    event, and its militia and Rüstvolumen are the engine's
    (:func:`recruit_volume`); the text sheet prints exactly those shares."""
    from wdg.engine.army_orders import recruit_volume
    from wdg.engine.economy import treasury_share, treasury_sites
    from wdg.reports.render import Renderer
    from wdg.reports.settings import load_report_settings
    from wdg.reports.sheet import render_sheets, report_model
    from wdg.rules import shipped_rules
    from wdg.world.state import TroopType

    rules, settings, r = shipped_rules(), load_report_settings(None), Renderer()
    checked = sites_seen = 0
    for mo in months:
        after = mo.after
        for k in sorted(after.kingdoms):
            _, doc = report_model(after, mo.events, None, k, settings, seg_before=mo.before,
                                  rules=rules)
            sites = {after.label(h) for h in treasury_sites(after, k, rules)}
            share = treasury_share(after, k, rules)
            spread = [e for e in mo.events if e.kind == "treasury.spread" and e.kingdom == k]
            assert [(e.data["settlements"], e.data["share"]) for e in spread] == \
                [(len(sites), share)], (mo.key, k)
            rows = doc["report"]["settlements"]
            for row in rows:
                h = after.grid.parse(row["address"])
                militia = int(after.at(after.militia, h))
                assert row["treasury_site"] == (row["address"] in sites), (mo.key, k, row)
                assert row["share"] == (share if row["treasury_site"] else 0), (mo.key, k, row)
                assert row["militia"] == militia, (mo.key, k, row)
                assert row["volume"] == {t: recruit_volume(militia, t, rules)
                                         for t in row["volume"]}, (mo.key, k, row)
                assert set(row["volume"]) <= {t.value for t in TroopType}
                checked += 1
            assert sum(r_["treasury_site"] for r_ in rows) == len(sites)
            sites_seen += len(sites)
            text = render_sheets(doc, r, settings, pdf=False)["ergebnis.txt"]
            assert text.count("Anteil ") == len(sites), (mo.key, k)
            if sites:
                assert f"Anteil {gs(share)}" in text, (mo.key, k)
    assert checked >= 100 and sites_seen >= 50


AGREEMENT_CAUSES = (
    ("Kampf", ("combat", "wizard")),
    ("Miliz oder Partisanen", ("militia", "partisan")),
    ("Fabelwesen", ("creature",)),
    ("Eroberung", ("conquest",)),
    ("Würfel: verirrt oder zerschellt", ("move.lost", "move.shattered", "move.drowned")),
    ("Würfel: Desertion bei knappem Sold", ("pay.shortfall",)),
    ("Würfel: Desertion bei niedriger Moral", ("morale.desertion",)),
    ("Abnutzung der Boote und Schiffe", ("durability.sunk", "durability.drowned",
                                         "durability.boats_lost")),
    ("Segmentleiter", ("gm",)),
    ("Charakteraktion", ("c.",)),
    ("Rüstvolumen (Miliz) der Siedlung", ("a.nr.partial",)),
)
"""The causes a forecast miss is put down to, by the army's (or kingdom's)
events of the real month; "Rüstvolumen" must no longer be one (issue #32)."""


def _miss_cause(mo: Month, kingdom: int, fa) -> str:
    """Why an army's real month differs from its forecast, by its events, then by
    what the kingdom could not see."""
    evs = [e for e in mo.events if e.army == fa.number]
    for name, kinds in AGREEMENT_CAUSES:
        if any(e.kind.startswith(kinds) for e in evs):
            return name
    if fa.unknown_ahead or fa.unknown_owners:
        return "unbekanntes Gelände oder unbekannter Besitzer"
    spots = _spots(fa)
    for seg in (mo.before, mo.after):
        if any(a.kingdom != kingdom and a.position is not None and seg.label(a.position) in spots
               for a in seg.armies.values()):
            return "fremde Heere auf dem Weg"
    return "unerklärt"


def agreement(months) -> tuple[int, int, dict[str, int]]:
    """``(facts compared, facts agreed, misses by cause)``: per army its end
    position, status and soldiers; per kingdom its treasury after the month."""
    facts = agreed = 0
    misses: dict[str, int] = {}
    for mo in months:
        for k, fc in mo.forecasts.items():
            for fa in fc.armies:
                real = mo.after.armies[fa.number]
                where = mo.after.label(real.position) if real.position is not None else "000.00"
                facts += 1
                if (where, real.status.value, real.units) == (fa.end, fa.status_after,
                                                              fa.units_after):
                    agreed += 1
                else:
                    cause = _miss_cause(mo, k, fa)
                    misses[cause] = misses.get(cause, 0) + 1
            facts += 1
            if mo.after.kingdoms[k].treasury == fc.gold_after:
                agreed += 1
            else:
                mine = {e.ledger for e in mo.events if e.kingdom == k and e.gold} - \
                    {b.category for b in fc.bookings}
                cause = "Gold aus " + ", ".join(sorted(mine)) if mine else next(
                    (c for c in (_miss_cause(mo, k, fa) for fa in fc.armies)
                     if c != "unerklärt"), "unerklärt")
                misses[cause] = misses.get(cause, 0) + 1
    return facts, agreed, misses


def test_the_forecasts_agreement_with_the_month_by_cause(months, capsys):
    """Issue #32: the forecast's agreement with the real outcome measured per
    cause (docs/players.md states the figures): every miss has a cause the
    kingdom cannot know (fights, creatures, the dice, unseen land, foreign
    armies, gold from events it cannot foresee); the settlement's militia
    (Rüstvolumen) is no longer one, and none is unexplained."""
    facts, agreed, misses = agreement(months)
    with capsys.disabled():
        print(f"\nforecast agreement: {agreed} of {facts} facts; misses by cause: "
              + ", ".join(f"{c}: {n}" for c, n in sorted(misses.items(), key=lambda x: -x[1])))
    assert "Rüstvolumen (Miliz) der Siedlung" not in misses
    assert "unerklärt" not in misses, misses
    assert agreed / facts >= 0.9 and facts >= 250

