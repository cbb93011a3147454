"""A female ruler is called "Herrscherin" (issue 20): the kingdom's optional
``herrscherin`` field (``wdg kingdom add --herrscherin``, ``kingdom set
--herrscherin/--herrscher``) reaches the sheet's head and totals, the
Götterbotschaft's announcements, the overview, the confirmation mail and the
engine's texts about her; without it everything reads "Herrscher" and the
kingdom file and the JSON report are as before."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wdg.cli import app
from wdg.orders.confirm import confirmation
from wdg.reports.batch import MonthInput, render_common, render_kingdom
from wdg.world import admin
from wdg.world.factory import add_kingdom, own, small_segment
from wdg.world.state import ruler_title
from wdg.store.segment import load_segment, save_segment


def _render(tmp_path, month, settings, herrscherin: bool):
    before, after, events, sheets = month
    after.kingdoms[1].herrscherin = herrscherin
    inp = MonthInput(before, after, events, sheets, None, tmp_path, None, settings, pdf=False)
    render_kingdom(inp, 1)
    render_common(inp)
    return {p.name: p.read_text(encoding="utf-8")
            for p in [*(tmp_path / "k1").iterdir(), *tmp_path.iterdir()] if p.is_file()}


def test_a_herrscherin_is_called_so_on_her_sheet_the_goetterbotschaft_and_the_overview(
        tmp_path, month, settings):
    files = _render(tmp_path, month, settings, True)
    txt, html = files["ergebnis.txt"], files["ergebnis.html"]
    assert "— Herrscherin: Ulrike von Arkon" in txt
    assert "Beliebtheit der Herrscherin beim Volk" in " ".join(txt.split())
    assert "Herrscherin: Ulrike von Arkon<br>" in html and "Herrscher:" not in html
    assert json.loads(files["bericht.json"])["report"]["header"]["herrscherin"] is True
    assert "Ulrike von Arkon, Herrscherin von Arkonia" in " ".join(
        files["goetterbotschaft.txt"].split())
    assert "Ulrike von Arkon, Herrscherin von Arkonia" in files["goetterbotschaft.html"]
    assert "<td>Ulrike von Arkon (Herrscherin)</td>" in files["overview.html"]


def test_without_the_field_the_ruler_is_a_herrscher_and_the_report_has_no_such_key(
        tmp_path, month, settings):
    files = _render(tmp_path, month, settings, False)
    assert "— Herrscher: Ulrike von Arkon" in files["ergebnis.txt"]
    assert "Beliebtheit des Herrschers beim Volk" in " ".join(files["ergebnis.txt"].split())
    assert "herrscherin" not in files["bericht.json"]
    assert "Herrscherin" not in files["overview.html"] + files["goetterbotschaft.txt"]


def test_the_confirmation_mail_greets_a_herrscherin():
    assert confirmation("angenommen", "", 1, "", herrscherin=True).startswith(
        "Sehr geehrte Herrscherin,\n")
    assert confirmation("angenommen", "", 1, "").startswith("Sehr geehrter Herrscher,\n")


def test_the_titles_for_each_use():
    assert [ruler_title(True, u) for u in ("nom", "gen", "subject", "dear")] == [
        "Herrscherin", "der Herrscherin", "Die Herrscherin", "Sehr geehrte Herrscherin"]
    assert [ruler_title(False, u) for u in ("nom", "gen", "subject", "dear")] == [
        "Herrscher", "des Herrschers", "Der Herrscher", "Sehr geehrter Herrscher"]


def test_the_field_is_stored_only_when_set_and_old_files_load_unchanged(tmp_path):
    seg = small_segment(["T. T. T. T. T. T. T. T."] * 6, prov_cols=2)
    add_kingdom(seg, 1)
    own(seg, 1, (0, 0))
    save_segment(seg, tmp_path / "a")
    plain = (tmp_path / "a" / "kingdoms.yaml").read_text(encoding="utf-8")
    assert "herrscherin" not in plain
    assert load_segment(tmp_path / "a").kingdoms[1].herrscherin is False
    seg.kingdoms[1].herrscherin = True
    save_segment(seg, tmp_path / "b")
    assert "herrscherin: true" in (tmp_path / "b" / "kingdoms.yaml").read_text(encoding="utf-8")
    assert load_segment(tmp_path / "b").kingdoms[1].herrscherin is True


def test_the_game_master_adds_and_changes_a_herrscherin_on_the_command_line(tmp_path):
    seg = small_segment(["T. T. T. T. T. T. T. T."] * 6, prov_cols=2)
    add_kingdom(seg, 1)
    own(seg, 1, (0, 0))
    save_segment(seg, tmp_path / "worlds" / "test")
    r = CliRunner().invoke(app, ["kingdom", "add", "test", "--name", "Ostland", "--ruler", "Ida",
                                 "--herrscherin", "--email", "ida@example.org",
                                 "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert load_segment(tmp_path / "worlds" / "test").kingdoms[2].herrscherin is True
    r = CliRunner().invoke(app, ["kingdom", "show", "test", "2", "-C", str(tmp_path)])
    assert "Herrscherin: Ida" in r.output
    r = CliRunner().invoke(app, ["kingdom", "set", "test", "2", "--herrscher", "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert load_segment(tmp_path / "worlds" / "test").kingdoms[2].herrscherin is False
    k = admin.set_player(load_segment(tmp_path / "worlds" / "test"), 2, herrscherin=True)
    assert k.herrscherin is True
