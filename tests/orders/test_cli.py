"""``wdg orders check/template/view/import`` through the real CLI."""

from __future__ import annotations

import mailbox

from typer.testing import CliRunner

from wdg.cli import app
from wdg.store.segment import save_segment

runner = CliRunner()


def campaign(world, tmp_path):
    save_segment(world, tmp_path / "worlds" / "test")
    return tmp_path


def test_template_then_check_against_the_campaign_segment(world, tmp_path):
    """The pre-filled form, with the password filled in, checks without errors."""
    root = campaign(world, tmp_path)
    res = runner.invoke(app, ["orders", "template", "test", "1", "-C", str(root)])
    assert res.exit_code == 0, res.output
    form = res.output.replace("Passwort: ", "Passwort: geheim-1", 1)
    (tmp_path / "k1.txt").write_text(form, encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "k1.txt"), "-C", str(root)])
    assert res.exit_code == 0, res.output
    assert res.output.rstrip().endswith("0 Fehler, 0 Warnungen")


def test_check_prints_messages_under_their_lines_and_fails_on_errors(world, tmp_path):
    root = campaign(world, tmp_path)
    (tmp_path / "bad.txt").write_text("Segment: test\nKönigreich: 1\nPasswort: geheim-1\nH\n"
                                      "Heer 0101 101.10\nB: b NX\n", encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "bad.txt"), "-C", str(root)])
    assert res.exit_code == 1
    lines = res.output.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.endswith("B: b NX"))
    assert "unbekannte Himmelsrichtung" in lines[at + 2]
    assert "1 Fehler, 5 Warnungen" in res.output


def test_check_with_a_view_file_and_json_output(world, tmp_path):
    root = campaign(world, tmp_path)
    res = runner.invoke(app, ["orders", "view", "test", "1", "-C", str(root),
                              "-o", str(tmp_path / "v.yaml")])
    assert res.exit_code == 0
    (tmp_path / "s.txt").write_text("Königreich: 1\nK\nDS 4 +\n", encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "s.txt"), "--view",
                              str(tmp_path / "v.yaml"), "--format", "json"])
    assert res.exit_code == 1 and '"errors": 1' in res.output


def test_import_prints_the_summary_table(world, tmp_path):
    from email.message import EmailMessage

    root = campaign(world, tmp_path)
    msg = EmailMessage()
    msg["From"], msg["Date"], msg["Message-ID"] = "a@x.org", "Wed, 01 May 2024 10:00 +0200", "<1@x>"
    msg.set_content("Segment: test\nKönigreich: 1\nPasswort: geheim-1\n")
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    box.add(msg)
    box.close()
    res = runner.invoke(app, ["orders", "import", "test", str(tmp_path / "in.mbox"), "-C",
                              str(root), "--deadline", "2024-05-01 13:00"])
    assert res.exit_code == 0, res.output
    assert "Gültige Spielzüge: 1" in res.output
    assert (root / "orders" / "test" / "0412-07" / "k1.txt").is_file()


def test_check_refuses_exactly_what_the_import_refuses(world, tmp_path):
    """One function decides both: wrong month, missing password, unknown kingdom
    and wrong segment are errors in ``orders check`` as they are refusals on import."""
    root = campaign(world, tmp_path)
    cases = {
        "Segment: test\nKönigreich: 1\nPasswort: geheim-1\nMond: 0412-03\n": "Mond",
        "Segment: test\nKönigreich: 1\n": "Passwort fehlt",
        "Segment: test\nKönigreich: 9\nPasswort: geheim-1\n": "unbekanntes Königreich 9",
        "Segment: anders\nKönigreich: 1\nPasswort: geheim-1\n": "falsches Segment",
    }
    for head, reason in cases.items():
        (tmp_path / "s.txt").write_text(head + "K\nF+ 10\n", encoding="utf-8")
        res = runner.invoke(app, ["orders", "check", str(tmp_path / "s.txt"), "-C", str(root)])
        assert res.exit_code == 1, (head, res.output)
        assert reason in res.output and "Fehler" in res.output, (head, res.output)


def test_check_without_view_outside_a_campaign_says_it_checks_only_the_form(tmp_path):
    """Issue #32: without ``--view`` and without the sheet's segment the checker
    sees only the form; it says so and names what it cannot check, instead of
    a bare "0 Fehler"."""
    (tmp_path / "s.txt").write_text("Segment: nirgends\nKönigreich: 1\nPasswort: p\nH\n"
                                    "Heer 0101 101.01\nB: b O O\n", encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "s.txt"), "-C", str(tmp_path)])
    out = " ".join(res.output.split())
    assert "geprüft wurde nur die Form des Spielzugs" in out
    assert "ins Meer" in out and "Reichsschatz" in out and "--view" in out


def test_check_with_the_segment_does_not_claim_to_check_only_the_form(world, tmp_path):
    root = campaign(world, tmp_path)
    (tmp_path / "s.txt").write_text("Segment: test\nKönigreich: 1\nPasswort: geheim-1\nH\n",
                                    encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "s.txt"), "-C", str(root)])
    assert "nur die Form" not in res.output


def test_a_command_glued_to_its_number_gets_a_suggestion(tmp_path):
    """Issue #32: ``NR300`` gets "meinten Sie 'nr 300'?"."""
    (tmp_path / "s.txt").write_text("Segment: x\nKönigreich: 1\nPasswort: p\nH\n"
                                    "Heer 0101 101.01\nNR300\n", encoding="utf-8")
    res = runner.invoke(app, ["orders", "check", str(tmp_path / "s.txt"), "-C", str(tmp_path)])
    assert "meinten Sie 'nr 300'?" in res.output
