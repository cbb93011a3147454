"""The game master's commands at the command line: a clear message and exit code
for bad input, and no change to the segment when a request is refused."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import copy_demo
from wdg.store.lock import segment_lock
from wdg.engine.turn import run_month
from wdg.errors import StateError
from wdg.world.factory import add_army, add_kingdom, add_settlement, small_segment
from wdg.world.state import BUILDING_ORDER, Building
from wdg.store.segment import load_segment, save_segment


def _tree(d: Path) -> dict[str, str]:
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


def _campaign(tmp_path: Path, broken: bool = False) -> Path:
    seg = small_segment(["T. T. ~K"])
    add_kingdom(seg, 1)
    add_kingdom(seg, 2)
    add_settlement(seg, (0, 0), 300, kingdom=1, buildings={Building.KASERNE: 1})
    add_army(seg, 101, 1, (0, 0))
    if broken:
        seg.buildings[BUILDING_ORDER.index(Building.PALAST), 0, 1] = 1
        add_army(seg, 102, 1, (2, 0))
    save_segment(seg, tmp_path / "worlds" / "test")
    return tmp_path


def test_segment_check_is_silent_and_exits_0_on_a_consistent_segment(tmp_path):
    r = CliRunner().invoke(app, ["segment", "check", "test", "-C", str(_campaign(tmp_path))])
    assert r.exit_code == 0 and "keine Befunde" in r.output


def test_segment_check_prints_one_line_per_finding_and_exits_1(tmp_path):
    r = CliRunner().invoke(app, ["segment", "check", "test", "-C", str(_campaign(tmp_path, True))])
    assert r.exit_code == 1
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert lines == ["101.02: Palast außerhalb einer Siedlung",
                     "Heer 0102: Landheer auf Wasser 101.03"]


def test_kingdom_set_and_retire_from_the_command_line(tmp_path):
    camp = _campaign(tmp_path)
    r = CliRunner().invoke(app, ["kingdom", "set", "test", "2", "--contact", "geheim",
                                 "--email", "zwei@example.org", "-C", str(camp)])
    assert r.exit_code == 0, r.output
    assert load_segment(camp / "worlds" / "test").kingdoms[2].player.email == "zwei@example.org"
    r = CliRunner().invoke(app, ["kingdom", "retire", "test", "2", "--to", "neutral", "-C", str(camp)])
    assert r.exit_code == 0 and load_segment(camp / "worlds" / "test").kingdoms[2].retired


def test_a_bad_contact_status_changes_nothing(tmp_path):
    camp = _campaign(tmp_path)
    before = _tree(camp / "worlds")
    r = CliRunner().invoke(app, ["kingdom", "set", "test", "1", "--contact", "halboffen", "-C", str(camp)])
    assert r.exit_code != 0 and "unbekannter Kontaktstatus 'halboffen'" in str(r.exception)
    assert _tree(camp / "worlds") == before


def test_a_malformed_gm_line_stops_the_run_and_changes_nothing(tmp_path):
    """The run refuses to start while the game master's sheet has errors, naming
    the line, and the segment stays as it was."""
    camp = copy_demo(tmp_path / "demo")
    (camp.root / "orders" / "canura" / "0412-04" / "sl.txt").write_text(
        "GOLD 1 5000 ohne Vorzeichen\n", encoding="utf-8")
    before = _tree(camp.worlds)
    with pytest.raises(StateError, match="line 1: Betrag ohne Vorzeichen"):
        run_month(camp, "canura")
    assert _tree(camp.worlds) == before


@pytest.mark.parametrize("args", [["kingdom", "set-password", "test", "1"],
                                  ["kingdom", "set", "test", "2", "--email", "neu@example.org"],
                                  ["kingdom", "retire", "test", "2"],
                                  ["kingdom", "add", "test", "--name", "Neu", "--ruler", "R",
                                   "--email", "neu@example.org", "--at", "101.02"],
                                  ["orders", "import", "test", "{camp}/leer.mbox"]])
def test_changes_between_months_wait_for_a_running_month(tmp_path, args):
    """While ``wdg turn run`` holds the segment's lock, a change of the kingdoms (or a
    mailbox import into the month being run) is refused: the run's commit would
    otherwise overwrite it (or leave the sheets in a month already resolved)."""
    camp = _campaign(tmp_path)
    (camp / "leer.mbox").write_bytes(b"")
    lock = camp / "worlds" / "test" / ".lock"
    args = [a.format(camp=camp) for a in args]
    with segment_lock(camp / "worlds" / "test"):  # the run holding the lock
        before = _tree(camp)
        r = CliRunner().invoke(app, [*args, "-C", str(camp)])
        assert r.exit_code != 0 and f"gesperrt von Prozess {os.getpid()}" in str(r.exception)
        assert _tree(camp) == before
    r = CliRunner().invoke(app, [*args, "-C", str(camp)])
    assert r.exit_code == 0, r.output
    assert not lock.exists()
