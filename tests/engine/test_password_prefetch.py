"""The month's password checks start while the segment loads
(:meth:`wdg.engine.month_sheets.PasswordChecks.prefetch`); what they decide must
be exactly what checking at intake decides ("Ein Spielzug ... mit falschem
Passwort wird nicht ausgewertet": docs/orders.md, the intake's refusal)."""

from __future__ import annotations

import pytest
from turn_helpers import NAME, make_campaign, standard_sheets, write_sheet

from wdg.store.months import read_order_files
from wdg.engine.month_sheets import PasswordChecks, take_in
from wdg.world.calendar import MonthDate
from wdg.store.segment import load_segment

APRIL = MonthDate(412, 4)


@pytest.fixture
def camp(tmp_path):
    c = make_campaign(tmp_path)
    standard_sheets(c, APRIL)
    return c


def _orders(camp):
    return lambda key: camp.orders_dir(NAME, MonthDate.parse(key))


def _intake(camp, checks=None):
    seg = load_segment(camp.segment_dir(NAME))
    return take_in(seg, read_order_files(camp.orders_dir(NAME, APRIL)), checks)


def _refusals(intake):
    return [(e.kingdom, e.why) for e in intake.events if e.kind == "sheet.refused"]


def test_prefetched_checks_are_used_and_decide_as_the_intake_does(camp):
    with PasswordChecks() as checks:
        started = checks.prefetch(camp.segment_dir(NAME), _orders(camp))
        got = _intake(camp, checks)
        threaded = checks._pool is not None
        used = len(checks._started)
    plain = _intake(camp)
    assert sorted(got.sheets) == sorted(plain.sheets) == [1, 2]
    assert _refusals(got) == _refusals(plain) == []
    if threaded:  # one check per sheet, each started before the segment was loaded
        assert started == 2 and used == 2


def test_a_sheet_changed_after_the_prefetch_is_checked_with_its_own_password(camp):
    """A check is keyed by the password it compares: a sheet replaced by one
    with a wrong password is refused, a wrong one corrected is used."""
    with PasswordChecks() as checks:
        checks.prefetch(camp.segment_dir(NAME), _orders(camp))
        write_sheet(camp, APRIL, 1, "H\nHeer 0101 101.09\nA: nr 200\n", password="falsch")
        write_sheet(camp, APRIL, 2, "H\nHeer 0201 101.14\nA: er 100\n", password="pw-2")
        got = _intake(camp, checks)
    assert 1 not in got.sheets and 2 in got.sheets
    assert any(k == 1 and "Passwort ist falsch" in why for k, why in _refusals(got))


def test_prefetch_of_an_unreadable_segment_starts_nothing_and_raises_nothing(camp):
    (camp.segment_dir(NAME) / "kingdoms.yaml").write_text("kingdoms: [unclosed", encoding="utf-8")
    with PasswordChecks() as checks:
        assert checks.prefetch(camp.segment_dir(NAME), _orders(camp)) == 0
