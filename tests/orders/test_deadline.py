"""The EINTREFFSCHLUSS: set once per month, used by the mailbox intake, shown
before the run and printed on the result sheets.

Rule ("Der Spielzug"): "Der Spielzug muß den Segmentleiter bis zu dem von ihm
angegebenen Datum (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben!"
"""

from __future__ import annotations

import pytest
from test_intake import standard_mails, write_mbox
from typer.testing import CliRunner

from wdg.cli import app
from wdg.errors import WdgError
from wdg.world.deadline import deadline_for, describe, normalise, set_deadline
from wdg.store.segment import load_segment, save_segment


def test_a_deadline_given_as_a_day_means_13_00():
    """"bis zu dem ... angegebenen Datum ... bis 13:00 Uhr (mittags)"."""
    assert normalise("2024-05-01") == "2024-05-01 13:00"
    assert normalise(" 2024-05-01 18:30 ") == "2024-05-01 18:30"
    with pytest.raises(WdgError, match="kein Eintreffschluß"):
        normalise("1. Mai")


def test_a_deadline_is_taken_in_the_german_form_and_the_form_wdg_prints():
    """"bis zu dem ... angegebenen Datum": ``03.12.2026 13:00`` as a German game master
    writes it, a day alone meaning 13:00, and wdg's own ``3.12.2026, 13:00 Uhr``."""
    assert normalise("03.12.2026 13:00") == "2026-12-03 13:00"
    assert normalise("3.12.2026") == "2026-12-03 13:00"
    assert normalise("3.12.2026, 18:30 Uhr") == "2026-12-03 18:30"
    with pytest.raises(WdgError, match="TT.MM.JJJJ HH:MM"):
        normalise("12/03/2026")


def test_a_deadline_in_the_past_is_refused_unless_forced(world, tmp_path):
    """The EINTREFFSCHLUSS is announced for sheets still to come: one in the past is
    refused (nothing changed); --force sets it (to read old mail in afterwards)."""
    save_segment(world, tmp_path / "worlds" / "test")
    r = CliRunner().invoke(app, ["turn", "deadline", "test", "01.05.2024 13:00", "-C",
                                 str(tmp_path)])
    assert r.exit_code != 0 and "liegt in der Vergangenheit" in str(r.exception)
    assert load_segment(tmp_path / "worlds" / "test").settings.deadline in ("", None)
    r = CliRunner().invoke(app, ["turn", "deadline", "test", "01.05.2024 13:00", "--force",
                                 "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert load_segment(tmp_path / "worlds" / "test").settings.deadline == "2024-05-01 13:00"


def test_the_deadline_belongs_to_one_month(world):
    set_deadline(world, "2024-05-01", tz="Europe/Berlin")
    d = deadline_for(world, world.date)
    assert (d.year, d.month, d.day, d.hour) == (2024, 5, 1, 13)
    assert deadline_for(world, world.date.next()) is None
    assert describe(world, world.date).endswith("1.5.2024, 13:00 Uhr")
    assert "wie vom Segmentleiter angekündigt" in describe(world, world.date.next())
    with pytest.raises(WdgError, match="unbekannte Zeitzone"):
        set_deadline(world, "2024-05-01", tz="Mars/Olympus")


def test_import_without_deadline_option_uses_the_month_s_deadline(world, tmp_path):
    """Set once with ``wdg turn deadline``, the deadline rejects a late mail on
    every later import without repeating it."""
    save_segment(world, tmp_path / "worlds" / "test")
    write_mbox(tmp_path / "in.mbox", standard_mails())
    r = CliRunner().invoke(app, ["turn", "deadline", "test", "2024-05-01", "--force", "-C",
                                 str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert load_segment(tmp_path / "worlds" / "test").settings.deadline == "2024-05-01 13:00"
    r = CliRunner().invoke(app, ["orders", "import", "test", str(tmp_path / "in.mbox"),
                                 "--outbox", str(tmp_path / "out"), "-C", str(tmp_path)])
    assert r.exit_code == 3, r.output  # 3: some mails refused
    folder = tmp_path / "orders" / "test" / world.date.key
    assert not (folder / "k3.txt").exists()  # sent 13:05, after the deadline
    assert (folder / "k1.txt").exists()
    r = CliRunner().invoke(app, ["turn", "status", "test", "-C", str(tmp_path)])
    assert "Eintreffschluß: 1.5.2024, 13:00 Uhr" in r.output


def test_a_game_year_deadline_is_refused_before_the_month_is_committed(world, tmp_path):
    """"bis zu dem von ihm angegebenen Datum (EINTREFFSCHLUSS)": the deadline is a real
    date. ``--next-deadline "0412-06-03 13:00"`` (a game-year date written like the
    month key) stops ``wdg turn run`` before anything is resolved or stored, with a
    message saying what was expected; the segment stays in its month."""
    save_segment(world, tmp_path / "worlds" / "test")
    before = world.date.key
    r = CliRunner().invoke(app, ["turn", "run", "test", "-q", "--force", "--next-deadline",
                                 "0412-06-03 13:00", "-C", str(tmp_path)])
    assert r.exit_code != 0 and isinstance(r.exception, WdgError)  # main() prints it
    assert "0412-06-03 13:00" in str(r.exception) and "JJJJ-MM-TT" in str(r.exception)
    assert not (tmp_path / "worlds" / "test" / "turns" / before).exists()
    seg = load_segment(tmp_path / "worlds" / "test")
    assert seg.date.key == before and seg.settings.deadline in ("", None)
    with pytest.raises(WdgError, match="Spieljahr"):
        normalise("0412-06-03")


def test_a_next_deadline_in_the_past_is_refused_before_the_month_is_run(world, tmp_path):
    """"bis zu dem von ihm angegebenen Datum (EINTREFFSCHLUSS)": the deadline announced
    for next month's sheets lies ahead. ``wdg turn run --next-deadline`` with a date
    already past is refused like ``wdg turn deadline`` refuses one (the same message),
    before the month is resolved: nothing stored, the segment stays in its month."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    save_segment(world, tmp_path / "worlds" / "test")
    before = world.date.key
    yesterday = (datetime.now(ZoneInfo(world.settings.timezone)) - timedelta(days=1))
    past = yesterday.strftime("%d.%m.%Y %H:%M")
    refused = CliRunner().invoke(app, ["turn", "deadline", "test", past, "-C", str(tmp_path)])
    assert refused.exit_code != 0 and isinstance(refused.exception, WdgError)
    r = CliRunner().invoke(app, ["turn", "run", "test", "-q", "--force", "--next-deadline",
                                 past, "-C", str(tmp_path)])
    assert r.exit_code != 0 and isinstance(r.exception, WdgError), r.output
    said = str(r.exception)
    assert "liegt in der Vergangenheit" in said and yesterday.strftime("%H:%M") in said
    # the same message as 'turn deadline' up to how to set it anyway (and the time now)
    assert said.split("(jetzt:")[0] == str(refused.exception).split("(jetzt:")[0]
    assert "--force" in said
    assert not (tmp_path / "worlds" / "test" / "turns" / before).exists()
    seg = load_segment(tmp_path / "worlds" / "test")
    assert seg.date.key == before and seg.settings.deadline in ("", None)
    # a date ahead is taken
    ahead = (yesterday + timedelta(days=8)).strftime("%d.%m.%Y %H:%M")
    r = CliRunner().invoke(app, ["turn", "run", "test", "-q", "--force", "--no-pdf",
                                 "--next-deadline", ahead, "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "worlds" / "test" / "turns" / before).exists()


def test_a_stored_deadline_that_cannot_be_read_never_makes_a_command_crash(world, tmp_path):
    """"EINTREFFSCHLUSS": a stored deadline written badly (by hand, or by an older
    version: ``412-06-03 13:00``) counts as not set — ``wdg turn status`` and ``wdg
    turn deadline`` show it with a warning instead of failing, the result sheets
    print the fallback line, and a new deadline can be set."""
    world.settings.deadline, world.settings.deadline_month = "412-06-03 13:00", world.date.key
    save_segment(world, tmp_path / "worlds" / "test")
    for args in (["turn", "status", "test"], ["turn", "deadline", "test"]):
        r = CliRunner().invoke(app, [*args, "-C", str(tmp_path)])
        assert r.exit_code == 0, r.output
        assert "412-06-03 13:00" in r.output and "wdg turn deadline" in r.output
    assert deadline_for(world, world.date) is None
    assert "wie vom Segmentleiter angekündigt" in describe(world, world.date)
    r = CliRunner().invoke(app, ["turn", "deadline", "test", "2036-12-03", "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["turn", "status", "test", "-C", str(tmp_path)])
    assert "3.12.2036, 13:00 Uhr" in r.output and "Warnung: der gespeicherte" not in r.output


@pytest.mark.parametrize("zone", ["Europe", "Mars/Olympus", "../etc/passwd", "x" * 300, ""])
def test_a_zone_name_that_is_no_zone_is_refused_clearly_and_stored_reads_as_utc(world, zone):
    """Every name ``ZoneInfo`` cannot read — a folder of the zone database
    (``Europe``: IsADirectoryError), a name too long for the file system
    (OSError), a path (ValueError), an unknown one — is refused with the German
    message, never a traceback; stored by hand, a mail's date, a log line and
    an arrival are taken in UTC (wdg.world.deadline.ZONE_ERRORS)."""
    from datetime import timedelta

    from wdg.mail.results import segment_now
    from wdg.world.deadline import stored_problem, zone_or_utc

    with pytest.raises(WdgError, match="unbekannte Zeitzone"):
        set_deadline(world, "2036-05-01", tz=zone)
    assert str(zone_or_utc(zone)) == "UTC"
    world.settings.timezone = zone
    assert segment_now(world).utcoffset() == timedelta(0)
    world.settings.deadline, world.settings.deadline_month = "2036-05-01 13:00", world.date.key
    assert "unbekannte Zeitzone" in (stored_problem(world) or "")
    assert deadline_for(world, world.date) is None
