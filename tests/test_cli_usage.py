"""A wrong command line is answered in German (issue #34, Deliver 6: every message
the game master reads is German): click and typer word usage errors in English
("No such option", "Missing argument", "Usage: …" in a box); wdg prints them itself
(wdg/usage.py), one German line with what was wrong and one with the command's
syntax, exit code 2. ``--help`` stays as it is."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wdg.cli import main

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ("Usage", "Error", "Missing", "No such", "Try ", "Invalid", "Got unexpected",
           "requires", "Possible", "Aborted", "─")


def _usage_error(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    assert done.value.code == 2, (out, err)
    assert out == ""
    assert "Traceback" not in err
    for word in ENGLISH:
        assert word not in err, (word, err)
    assert err.startswith("Fehler: "), err
    return err


@pytest.mark.parametrize(("args", "said", "usage"), [
    (("turn", "run", "--bogus"), "Fehler: unbekannte Option --bogus", "turn run [OPTIONS] {segment}"),
    (("turn", "run"), "Fehler: Argument 'segment' fehlt", "turn run [OPTIONS] {segment}"),
    (("turn", "bogus"), "Fehler: unbekannter Befehl 'bogus'", "turn [OPTIONS] COMMAND"),
    (("bogus",), "Fehler: unbekannter Befehl 'bogus'", "[OPTIONS] COMMAND"),
    (("--bogus",), "Fehler: unbekannte Option --bogus", "[OPTIONS] COMMAND"),
    (("turn", "deadline", "s", "1.1.2030", "13:00", "x"), "Fehler: überzählige Angabe(n): 13:00 x",
     "turn deadline [OPTIONS] {segment} [when]"),
    (("turn", "run", "s", "--next-deadline"), "Fehler: Option '--next-deadline' verlangt einen "
     "Wert", None),
    (("turn", "run", "s", "--jobs", "zwei"), "Fehler: ungültiger Wert für '--jobs' / '-j': ",
     "turn run [OPTIONS] {segment}"),
])
def test_usage_errors_are_german_with_the_command_s_syntax(capsys, args, said, usage):
    err = _usage_error(capsys, *args)
    assert err.startswith(said), err
    if usage is not None:
        assert "\nAufruf: " in err and usage in err, err
        assert "(Hilfe: " in err and "--help)" in err, err


def test_a_wrong_number_says_what_was_expected(capsys):
    err = _usage_error(capsys, "turn", "run", "s", "--jobs", "zwei")
    assert "ganze Zahl" in err, err


def test_usage_error_of_the_installed_command_names_it(tmp_path):
    """Through the real entry point: exit code 2, the German lines, the command as
    it was called."""
    proc = subprocess.run([sys.executable, "-m", "wdg", "orders", "import", "--bogus"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == "Fehler: unbekannte Option --bogus", proc.stderr
    assert lines[1].startswith("Aufruf: ") and "orders import [OPTIONS]" in lines[1], proc.stderr
    assert len(lines) == 2, proc.stderr


def test_help_is_german(capsys):
    """``--help`` is German (issue 39): typer's and click's own words
    (``Aufruf:``, the panels ``Argumente``/``Optionen``/``Befehle``, the help
    option, ``[Standard: …]``) and the commands' texts; exit 0. Option names
    stay as they are spelled."""
    with pytest.raises(SystemExit) as done:
        main(["turn", "run", "--help"])
    out, _ = capsys.readouterr()
    assert done.value.code == 0
    assert "Aufruf:" in out and "--next-deadline" in out
    for word in ("Optionen", "Argumente", "Diese Hilfe zeigen und beenden.", "[Standard: 0]",
                 "Den laufenden Monat des Segments"):
        assert word in out, word
    for word in ("Usage", "Options", "Arguments", "Show this message", "[default", "[required"):
        assert word not in out, word


HELP_ENGLISH = frozenset(
    "the and of to with default only for from this is are each every when which be or into "
    "its it one that by not as on at".split())
"""Words that are English and not German: none may stand in a help text
(outside names: "Empires of Middle-earth", identifiers, paths, options,
quoted values and titles)."""


def _command_tree():
    import typer

    from wdg.cli import build_app

    def walk(cmd, path):
        yield path, cmd
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            yield from walk(sub, [*path, name])
    return list(walk(typer.main.get_command(build_app()), []))


def test_every_help_text_of_every_command_is_german():
    """Every command's and every option's help text (issue 39: "All
    ``--help`` is English"): no English word outside paths, option names
    and quoted values; and ``--help`` of every command prints German frame
    words (``Aufruf:``, ``Optionen``), never typer's English ones."""
    from typer.testing import CliRunner

    from wdg.cli import app

    found = []
    for path, cmd in _command_tree():
        texts = [("", cmd.help or "")] + [(p.name, getattr(p, "help", None) or "") for p in cmd.params]
        for name, text in texts:
            plain = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\S*/\S*|--?[\w-]+|\S+\.(yaml|svg|json|md|eml|py)\b"
                           r"|\w+_\w+|Empires of Middle-earth|Lords of Creation", " ", text)
            words = set(re.findall(r"[A-Za-zÄÖÜäöüß]+", plain.lower()))
            if words & HELP_ENGLISH:
                found.append((" ".join(path), name, sorted(words & HELP_ENGLISH)))
    assert not found, found
    runner = CliRunner()
    for path, _ in _command_tree():
        res = runner.invoke(app, [*path, "--help"], terminal_width=120)
        assert res.exit_code == 0, (path, res.output)
        assert "Aufruf:" in res.output and "Optionen" in res.output, path
        assert "Usage" not in res.output and "Show this message" not in res.output, path


def test_a_command_group_without_a_command_still_shows_its_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["turn"])
    out, err = capsys.readouterr()
    assert done.value.code == 2
    assert "run" in out + err and "deadline" in out + err


def test_a_disk_error_is_german_only(capsys, tmp_path):
    """The hints of wdg.fsio.describe_os_error have no English half any more."""
    from wdg.fsio import describe_os_error

    for code in (errno.ENOSPC, errno.EACCES, errno.EROFS, errno.ENOENT, errno.EIO,
                 errno.EXDEV):
        for committed in (None, True, False):
            text = describe_os_error(OSError(code, os.strerror(code), str(tmp_path / "x")),
                                     committed=committed)
            assert str(tmp_path / "x") in text
            for word in (" / ", "space", "permission", "denied", "file system", "run the",
                         "committed", "intact", "Nothing"):
                assert word not in text, (word, text)
    assert describe_os_error(OSError(errno.ENOSPC, "No space left on device", "/x")).startswith(
        "kein Platz mehr auf dem Datenträger: /x — Platz freimachen")


ENGLISH_WORDS = (" not ", " expected", " found", " no such", " missing", " the ", " a ", " an ",
                 " of ", " is ", " must ", " cannot ", " unknown ", " got ", " line ", " key ")


def _german_lines(capsys, *args: str, code: int = 1) -> list[str]:
    """Run the command line; every line it prints (stdout and stderr) is German."""
    try:
        main(list(args))
        exit_code = 0
    except SystemExit as done:
        exit_code = done.code
    out, err = capsys.readouterr()
    assert exit_code == code, (args, out, err)
    assert "Traceback" not in err
    lines = [ln for ln in (out + err).splitlines() if ln.strip()]
    for line in lines:
        for word in ENGLISH_WORDS:
            assert word not in f" {line.lower()} ", (args, word, line)
    return lines


def test_typical_bad_input_is_answered_in_german(capsys, tmp_path):
    """Issue #34, Deliver 6: what a game master meets when a segment is missing, a
    file is broken or damaged, a value or a date is wrong is German throughout —
    the frame ("Zeile", "Schlüssel", "gefunden", "erwartet") and the words in it
    (file names, keys and the values found stay as they are)."""
    camp = str(tmp_path)
    main_ok = ["segment", "new", "probe", "--provinces", "1x1", "--kingdoms", "2",
               "--city-states", "0", "--creatures", "0", "--armies", "1", "--seed", "1", "-C", camp]
    _german_lines(capsys, *main_ok, code=0)
    seg = tmp_path / "worlds" / "probe"
    pristine = {p.name: p.read_bytes() for p in seg.iterdir()}

    def restore() -> None:
        for name, data in pristine.items():
            (seg / name).write_bytes(data)

    # a missing segment directory
    said = _german_lines(capsys, "segment", "status", "fehlt", "-C", camp)
    assert said[0].startswith("Fehler: kein Segment 'fehlt'")
    # broken YAML in kingdoms.yaml: the hash list names the change, the reader the line
    text = (seg / "kingdoms.yaml").read_text(encoding="utf-8").splitlines()
    text[1] = text[1] + ": x"
    (seg / "kingdoms.yaml").write_text("\n".join(text) + "\n", encoding="utf-8")
    said = _german_lines(capsys, "map", "probe", "-C", camp)
    assert "kingdoms.yaml, Zeile 2: gefunden" in said[0] and "erwartet gültiges YAML" in said[0]
    _german_lines(capsys, "segment", "check", "probe", "-C", camp)
    _german_lines(capsys, "turn", "status", "probe", "-C", camp)
    # the same file accepted by hand and then wrong in a value: key and value named
    restore()
    kingdoms = (seg / "kingdoms.yaml").read_text(encoding="utf-8")
    (seg / "kingdoms.yaml").write_text(kingdoms.replace("number: 2", "number: zwei", 1),
                                       encoding="utf-8")
    said = _german_lines(capsys, "segment", "accept", "probe", "-C", camp)
    assert "Schlüssel 'kingdoms[1].number': gefunden 'zwei', erwartet eine ganze Zahl" in said[0]
    # a damaged layer file and a damaged map
    restore()
    (seg / "layers.npz").write_bytes(pristine["layers.npz"][:300])
    said = _german_lines(capsys, "segment", "status", "probe", "-C", camp)
    assert "layers.npz: gefunden 'kein ZIP-Archiv" in said[0]
    restore()
    (seg / "map.txt").write_text(pristine["map.txt"].decode("utf-8").replace("\n", "\nZz", 1)
                                 .replace("Zz", "Zz ", 1), encoding="utf-8")
    _german_lines(capsys, "segment", "accept", "probe", "-C", camp)
    _german_lines(capsys, "segment", "check", "probe", "-C", camp)
    restore()
    # bad dates and months, a bad option value
    _german_lines(capsys, "turn", "show", "probe", "0412-13", "-C", camp)
    _german_lines(capsys, "turn", "show", "probe", "Dormat 412", "-C", camp)
    _german_lines(capsys, "turn", "show", "probe", "0412-05", "-C", camp)
    _german_lines(capsys, "turn", "deadline", "probe", "32.13.2030", "-C", camp)
    _german_lines(capsys, "segment", "new", "x", "--provinces", "120x9", "-C", camp)
    _german_lines(capsys, "segment", "new", "Bad Name", "-C", camp)
    # and after all that the segment is whole again: no findings
    said = _german_lines(capsys, "segment", "check", "probe", "-C", camp, code=0)
    assert said[-1].startswith("Segment probe: keine Befunde")
