"""NPC kingdoms: the game master hands a kingdom to a bot; ``wdg turn run``
writes its sheet when none arrived, archived like any sheet (docs/bots.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.store.files import read_archived
from wdg.store.segment import load_segment

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def camp(tmp_path):
    """The demo campaign without its sheets."""
    root = tmp_path / "c"
    shutil.copytree(ROOT / "worlds", root / "worlds",
                    ignore=shutil.ignore_patterns("turns", ".lock"))
    return root


def _wdg(*args: str):
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_the_demo_ships_a_hostile_npc_power() -> None:
    seg = load_segment(ROOT / "worlds" / "canura")
    npc = [k for k in seg.kingdoms.values() if k.bot]
    assert [(k.name, k.bot) for k in npc] == [("Mächte der Nacht", "Kriegsherr+feind")]


def test_turn_run_writes_the_bot_kingdoms_sheet_and_the_month_replays(camp) -> None:
    _wdg("kingdom", "set", "canura", "2", "--bot", "Baumeister", "-C", str(camp))
    out = _wdg("turn", "run", "canura", "--force", "--no-render", "-q", "-C", str(camp))
    assert "Bot Baumeister (Königreich 2): Spielzug k2.txt geschrieben" in out
    assert "Bot Kriegsherr+feind (Königreich 9): Spielzug k9.txt geschrieben" in out
    month = camp / "worlds" / "canura" / "turns" / "0412-04"
    assert (month / "orders" / "k2.txt").read_bytes() == \
        (camp / "orders" / "canura" / "0412-04" / "k2.txt").read_bytes()
    events = read_archived(month / "events.jsonl").decode("utf-8")
    assert "sheet.refused" not in events
    _wdg("turn", "replay", "canura", "0412-04", "-C", str(camp))
    # the next month the bot reads its last result sheet (the archived events)
    out = _wdg("turn", "run", "canura", "--force", "--no-render", "-q", "-C", str(camp))
    assert "k2.txt geschrieben" in out


def test_a_sheet_that_arrived_is_not_overwritten(camp) -> None:
    folder = camp / "orders" / "canura" / "0412-04"
    folder.mkdir(parents=True)
    (folder / "k9.txt").write_text("# von Hand\n", encoding="utf-8")
    out = _wdg("turn", "run", "canura", "--force", "--no-render", "-q", "-C", str(camp))
    assert "ein Spielzug liegt schon vor" in out
    assert (folder / "k9.txt").read_text(encoding="utf-8") == "# von Hand\n"


def test_a_kingdom_goes_back_to_a_human_with_a_new_password(camp) -> None:
    out = _wdg("kingdom", "set", "canura", "9", "--bot", "", "-C", str(camp))
    assert "neues Passwort" in out
    seg = load_segment(camp / "worlds" / "canura")
    assert seg.kingdoms[9].bot == "" and seg.kingdoms[9].bot_password == ""


def test_an_unknown_bot_is_refused_and_nothing_changes(camp) -> None:
    before = (camp / "worlds" / "canura" / "kingdoms.yaml").read_bytes()
    res = runner.invoke(app, ["kingdom", "set", "canura", "3", "--bot", "Händler",
                              "-C", str(camp)])
    assert res.exit_code != 0 and "Baumeister" in str(res.exception)
    assert (camp / "worlds" / "canura" / "kingdoms.yaml").read_bytes() == before


def test_a_new_password_for_a_bot_kingdom_stops_its_bot_with_a_notice(camp) -> None:
    _wdg("kingdom", "set-password", "canura", "9", "-C", str(camp))
    out = _wdg("turn", "run", "canura", "--force", "--no-render", "-q", "--dry-run",
               "-C", str(camp))
    assert "das Passwort des Bots gilt nicht mehr" in out
    assert not (camp / "orders" / "canura" / "0412-04" / "k9.txt").exists()
