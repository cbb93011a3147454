"""A run report's lines go to stderr by their level (:class:`wdg.exitcodes.Level`),
never by their first German word (issue #44): ``wdg mail run`` prints
warnings, errors, refusals and lock messages on stderr and the rest on
stdout; with ``--json`` only the errors go to stderr too."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wdg import exitcodes
from wdg.campaign import DEMO_SEGMENT, copy_demo
from wdg.cli import app
from wdg.mail import run
from wdg.mail.run import RunReport

Level = exitcodes.Level


def _report(*_a, **_k) -> RunReport:
    rep = RunReport(DEMO_SEGMENT, exitcodes.REFUSED)
    rep.note("Fehlerfrei eingelesen: 3 Spielzüge")  # information, whatever its first word
    rep.note("Warnung: eine Antwort ist ungewiss", Level.WARNING)
    rep.note("Der Mond darf nicht laufen: zu viele Spielzüge fehlen", Level.REFUSED)
    rep.note("Fehler: der SMTP-Server antwortet nicht", Level.ERROR)
    return rep


def test_mail_run_sends_lines_to_stderr_by_level(tmp_path, monkeypatch):
    camp = copy_demo(tmp_path / "demo")
    monkeypatch.setattr(run, "run_unattended", _report)
    res = CliRunner().invoke(app, ["mail", "run", DEMO_SEGMENT, "-C", str(camp.root)])
    assert res.exit_code == exitcodes.REFUSED, res.output
    assert "Fehlerfrei eingelesen" in res.stdout and "Fehlerfrei" not in res.stderr
    for problem in ("Warnung: eine Antwort", "Der Mond darf nicht laufen", "Fehler: der SMTP"):
        assert problem in res.stderr and problem not in res.stdout
    res = CliRunner().invoke(app, ["mail", "run", DEMO_SEGMENT, "--json", "-C", str(camp.root)])
    assert json.loads(res.stdout)["messages"] == _report().lines
    assert res.stderr.splitlines() == ["Fehler: der SMTP-Server antwortet nicht"]


def test_a_report_keeps_each_lines_level():
    rep = _report()
    assert [rep.level(i) for i in range(len(rep.lines))] == [
        Level.INFO, Level.WARNING, Level.REFUSED, Level.ERROR]
    rep.lines.append("eine Zeile ohne Stufe")
    assert rep.level(4) is Level.INFO
    failed = RunReport.failed("x", exitcodes.LOCKED, "gesperrt: vom Prozess 7", Level.LOCKED)
    assert (failed.lines, failed.level(0)) == (["gesperrt: vom Prozess 7"], Level.LOCKED)
