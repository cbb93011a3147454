"""``wdg lab``: a bot campaign on a copy, its report folder, a rules comparison."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wdg.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture
def camp(tmp_path):
    root = tmp_path / "c"
    shutil.copytree(ROOT / "worlds", root / "worlds",
                    ignore=shutil.ignore_patterns("turns", ".lock"))
    return root


def _tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file()}


def test_the_lab_writes_its_report_and_never_touches_the_segment(camp, tmp_path) -> None:
    before = _tree(camp / "worlds")
    out = tmp_path / "rep"
    res = runner.invoke(app, ["lab", "canura", "--months", "3", "--plots", "svg",
                              "-o", str(out), "-C", str(camp)])
    assert res.exit_code == 0, res.output
    assert "Erhaltungsfehler 0; Wiederholungsfehler 0" in res.output
    assert _tree(camp / "worlds") == before
    assert not (camp / "orders").exists()
    summary = yaml.safe_load((out / "summary.yaml").read_text(encoding="utf-8"))
    assert summary["months"] == 3 and summary["replay_failures"] == []
    assert set(summary["kingdoms"]) == {1, 2, 3, 4, 5, 6, 9}
    html = (out / "index.html").read_text(encoding="utf-8")
    for name in ("treasury", "income", "soldiers", "gemarks", "settlements", "battles",
                 "losses"):
        assert (out / "plots" / f"{name}.svg").is_file()
        assert f"plots/{name}.svg" in html
    rows = (out / "metrics.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 3 * 7


def test_two_rules_sets_are_compared_on_the_same_seeds(camp, tmp_path) -> None:
    other = tmp_path / "teuer"
    shutil.copytree(camp / "worlds" / "rules", other)
    text = (other / "economy.yaml").read_text(encoding="utf-8")
    (other / "economy.yaml").write_text(text.replace("  Krieger: 1000\n", "  Krieger: 5000\n", 1)
                                        .replace("  Krieger: 1000\n", "  Krieger: 5000\n", 1),
                                        encoding="utf-8")
    out = tmp_path / "rep"
    res = runner.invoke(app, ["lab", "canura", "--months", "2", "--plots", "matplotlib",
                              "--rules", str(other), "-o", str(out), "-C", str(camp)])
    assert res.exit_code == 0, res.output
    summary = yaml.safe_load((out / "summary.yaml").read_text(encoding="utf-8"))
    a, b = summary["compare"]
    assert (a["label"], b["label"]) == ("rules", "teuer")
    assert (out / "plots" / "treasury.png").is_file()
    # same seeds, same start: the first month differs only by the dearer upkeep
    import csv
    rows = list(csv.DictReader((out / "metrics.csv").open(encoding="utf-8")))
    first = {(r["rules"], r["kingdom"]): int(r["upkeep"]) for r in rows
             if r["month"] == "0412-04"}
    for k in ("1", "2", "3"):
        assert first[("teuer", k)] == first[("rules", k)] + 4000


def test_a_bad_rules_directory_is_a_clear_error(camp, tmp_path) -> None:
    res = runner.invoke(app, ["lab", "canura", "--months", "1", "--rules", str(tmp_path),
                              "-C", str(camp)])
    assert res.exit_code != 0 and "kein Regelverzeichnis" in str(res.exception)


def test_without_matplotlib_the_lab_draws_its_own_svg_and_says_so(camp, tmp_path,
                                                                  monkeypatch) -> None:
    import wdg.lab.report as report

    monkeypatch.setattr(report, "have_matplotlib", lambda: False)
    out = tmp_path / "rep"
    res = runner.invoke(app, ["lab", "canura", "--months", "1", "--no-replay", "-o", str(out),
                              "-C", str(camp)])
    assert res.exit_code == 0, res.output
    assert (out / "plots" / "soldiers.svg").is_file()
    assert not list((out / "plots").glob("*.png"))
    assert "matplotlib ist nicht installiert" in (out / "index.html").read_text(encoding="utf-8")
