"""``wdg orders simulate`` and ``wdg orders check --forecast`` through the real CLI,
on every sheet of the demo campaign's month (issue #24: "wdg orders simulate on
every demo sheet")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from wdg.campaign import PACKAGE_ROOT
from wdg.cli import app

runner = CliRunner()
DEMO = PACKAGE_ROOT / "orders" / "canura" / "0412-04"


@pytest.mark.parametrize("k", range(1, 7))
def test_simulate_prints_a_german_forecast_for_every_demo_sheet(k):
    res = runner.invoke(app, ["orders", "simulate", str(DEMO / f"k{k}.txt"), "-C",
                              str(PACKAGE_ROOT)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.startswith("Vorschau für Reich ") and \
        f" (Königreich {k}), Segment canura, Mond 0412-04\n" in out.splitlines(True)[0]
    for part in ("Heere:", "Reichsschatz:", "am Ende des Mondes voraussichtlich",
                 "Was die Vorschau nicht wissen kann oder nicht berechnet:"):
        assert part in out
    assert f"Heer 0{k}01 (" in out
    assert max(len(line) for line in out.splitlines()) <= 80  # as the text result sheets


def test_simulate_as_json_is_plain_data_with_the_gold_after_the_month():
    res = runner.invoke(app, ["orders", "simulate", str(DEMO / "k2.txt"), "--format", "json",
                              "-C", str(PACKAGE_ROOT)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["kingdom"] == 2 and data["gold_after"] == data["gold_before"] - data["costs"] \
        + data["income"]
    assert data["armies"][0]["path"][0]["at"] == "101.21"


def _wdg(*args: str) -> subprocess.CompletedProcess:
    """The real command (``python -m wdg``), as a player runs it."""
    return subprocess.run([sys.executable, "-m", "wdg", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_bad_sheet_gives_one_clear_line_and_exit_code_1(tmp_path):
    """The game master's sheet names no kingdom; a missing file cannot be read; a
    sheet for a segment the campaign does not have."""
    (tmp_path / "x.txt").write_text("Segment: nirgendwo\nKönigreich: 1\n", encoding="utf-8")
    for args, says in (((str(DEMO / "sl.txt"), "-C", str(PACKAGE_ROOT)), "nennt kein Reich"),
                       ((str(tmp_path / "none.txt"),), "ist nicht lesbar"),
                       ((str(tmp_path / "x.txt"), "-C", str(tmp_path)), "kein Segment für den")):
        proc = _wdg("orders", "simulate", *args)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and proc.stdout == "", proc
        assert len(lines) == 1 and lines[0].startswith("Fehler: ") and says in lines[0], lines


def test_check_with_forecast_appends_the_same_forecast_as_simulate():
    """One forecast function: the checker's --forecast text ends with exactly what
    ``simulate`` prints."""
    sim = runner.invoke(app, ["orders", "simulate", str(DEMO / "k5.txt"), "-C",
                              str(PACKAGE_ROOT)]).output
    res = runner.invoke(app, ["orders", "check", str(DEMO / "k5.txt"), "--forecast", "-C",
                              str(PACKAGE_ROOT)])
    assert res.exit_code == 0, res.output
    assert res.output.endswith(sim)
