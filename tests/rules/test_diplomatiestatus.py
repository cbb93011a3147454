""""Der Diplomatiestatus": "9 Automatischer Bericht über die eigenen
Steuereinnahmen und die Höhe des Reichsschatzes" with "Währung und Steuern":
"Steuereinnahmen aus den Gemarken und Siedlungen"."""

from __future__ import annotations

from rulekit import RULES

from wdg.engine.turn import resolve_month
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_kingdom, add_settlement, small_segment


def test_the_status_9_report_counts_the_settlements_income_among_the_taxes():
    """"9 Automatischer Bericht über die eigenen Steuereinnahmen" — the taxes are those
    "aus den Gemarken und Siedlungen": a kingdom with a Dorf (6.000 GS) reports its
    gemarks' taxes plus the Dorf's income, exactly what its own ledger received."""
    seg = small_segment(["T. T. T."], date=MonthDate(412, 7))
    add_kingdom(seg, 1, diplomacy={2: 9}, treasury=1000)
    add_kingdom(seg, 2, diplomacy={1: 5})
    add_settlement(seg, (0, 0), 300, kingdom=1)
    seg.owner[0, 1] = 1
    r = resolve_month(seg, {}, RULES)
    gemarks = sum(e.gold for e in r.log.of_kind("tax.gemarks") if e.kingdom == 1)
    towns = sum(e.gold for e in r.log.of_kind("tax.settlements") if e.kingdom == 1)
    assert towns == 6000 and gemarks > 0
    report, = [e for e in r.log.of_kind("diplomacy.report") if e.kingdom == 2]
    assert report.data["taxes"] == gemarks + towns
    assert report.data["treasury"] == seg.kingdoms[1].treasury
