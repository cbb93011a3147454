"""``wdg turn run / replay / undo`` on a small campaign."""

from __future__ import annotations

from turn_helpers import NAME, make_campaign, standard_sheets
from typer.testing import CliRunner

from wdg.cli import app
from wdg.world.calendar import MonthDate


def test_run_replay_and_undo_from_the_command_line(tmp_path):
    """The CLI is thin: one library call per command, a WdgError becomes exit code 1."""
    camp = make_campaign(tmp_path)
    standard_sheets(camp, MonthDate(412, 4))
    runner = CliRunner()
    r = runner.invoke(app, ["turn", "run", NAME, "-q", "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "0412-04" in r.output
    r = runner.invoke(app, ["turn", "replay", NAME, "0412-04", "-C", str(tmp_path)])
    assert r.exit_code == 0 and "identisch" in r.output
    (camp.archive_dir(NAME) / "0412-04" / "orders" / "k2.txt").write_text(
        "Segment: probe\nKönigreich: 2\nPasswort: pw-2\n", encoding="utf-8")
    r = runner.invoke(app, ["turn", "replay", NAME, "0412-04", "-C", str(tmp_path)])
    assert r.exit_code == 1
    r = runner.invoke(app, ["turn", "undo", NAME, "-C", str(tmp_path)])
    assert r.exit_code == 0 and "rückgängig" in r.output
