"""Campaigns made by OLDER commits of wdg (issue #29, "Must show").

tests/fixtures/old_archives/<commit>/ are the demo campaign with three months run
by that commit's code (how: tests/fixtures/old_archives/make_fixtures.sh; which
commit and version made them: MADE_BY). On every run, with today's code:
list, verify, show, replay with an explained difference (never a traceback),
upgrade, a further month on top; an export package verified by Python's standard
library alone; a too-new format refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg import __version__ as wdg_version
from wdg.cli import app
from wdg.errors import WdgError
from wdg.store.segment import FORMAT

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "old_archives"
COMMITS = ("614f8e9", "95d5bf3", "df2cb43")
"""The release of 2026-11-21 (reports stored as they are, events as YAML), one of
2026-11-24 (reports and event log gzip-compressed), the last before 0.2.0 (one xz pack)."""
MONTHS = ("0412-04", "0412-05", "0412-06")


def wdg(*args: str) -> tuple[int, str]:
    """``wdg ARGS`` as the console script runs it: a WdgError is one clean message
    (wdg.cli.main prints it, exit code 1); anything else would be a traceback."""
    result = CliRunner().invoke(app, list(args))
    exc = result.exception
    if isinstance(exc, WdgError):
        return 1, result.output + f"Fehler: {exc}\n"
    assert exc is None or isinstance(exc, SystemExit), \
        f"traceback for wdg {' '.join(args)}: {exc!r}"
    return result.exit_code, result.output


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(params=COMMITS)
def old(request, tmp_path: Path) -> tuple[str, Path]:
    camp = tmp_path / request.param
    shutil.copytree(FIXTURES / request.param, camp)
    return request.param, camp


def test_list_verify_show(old):
    commit, camp = old
    code, out = wdg("turn", "list", "canura", "-C", str(camp))
    assert code == 0 and all(m in out for m in MONTHS), out
    code, out = wdg("turn", "list", "canura", "--verify", "-C", str(camp))
    # months of older wdg versions have no hash list: their outputs are checked against
    # the manifest and the line says what is not covered (issue #29 "a month verifies
    # on its own"; docs/storage.md, "The integrity layer")
    assert code == 0 and out.count("Ausgaben laut Manifest ok") == 3, out
    assert out.count("nicht abgesichert: Eingaben und Index") == 3, out
    code, out = wdg("turn", "show", "canura", "0412-05", "-k", "1", "-C", str(camp))
    assert code == 0 and "K1" in out, out


@pytest.mark.slow
def test_replay_explains_in_layers(old):
    """Replay of every old month never crashes; it names who made it and which
    layer differs and why. The game state reproduces (equal but for the format
    number); the 614f8e9 months lack rules keys added since (filled with the old
    behaviour's value), word their event texts otherwise and bring templates
    that do not fit today's code; what differs in df2cb43's months depends on
    what changed since — each differing layer says it."""
    commit, camp = old
    for month in (MONTHS[0], MONTHS[-1]):
        code, out = wdg("turn", "replay", "canura", month, "-j", "1", "-C", str(camp))
        assert code == 1, out  # the state's segment.yaml now says format 2
        assert "ausgewertet mit einer wdg-Version vor 0.2.0" in out, out
        assert f"dies ist wdg {wdg_version}" in out, out
        assert "Zustand: ABWEICHUNG — state/segment.yaml: nur das Segmentformat (format: 1 → " \
            f"{FORMAT})" \
            in out, out
        assert "Ereignisse: " in out and "Ausgabe" in out, out
        for line in out.splitlines():
            if "ABWEICHUNG" in line and line.strip().startswith(("Ereignisse", "Ausgabe")):
                following = out.split(line, 1)[1].lstrip("\n")
                assert following.strip().startswith("Grund:"), (line, out)  # every difference explained
        if commit == "614f8e9":
            assert "Regeln: ABWEICHUNG — fehlende Schlüssel ergänzt" in out, out
            assert "settlement.treasury_min_units = 0 (altes Verhalten)" in out, out
            # its templates (not archived: the campaign's) do not render with today's
            # code: the shipped ones are used, said so, and the reports are compared
            # (issue #40 item 3)
            assert "Vorlagen: ABWEICHUNG — die Vorlagen der Kampagne lassen sich mit dieser " \
                "Version nicht rendern (UndefinedError" in out, out
            assert "mit den mitgelieferten Vorlagen gerendert und verglichen" in out, out
            assert "Ausgabe reports: ergebnis.txt: ABWEICHUNG" in out, out
            assert "nur im Wortlaut" in out, out
        elif commit == "df2cb43":
            assert "Regeln: gleich" in out, out


@pytest.mark.slow
def test_upgrade_and_a_further_month(old):
    """An old campaign refuses changes until upgraded; the upgrade adds the rules keys
    (old behaviour where known), moves the old templates aside on request, never
    touches the archived months; then a further month runs and replays byte for byte."""
    commit, camp = old
    archived = tree(camp / "worlds" / "canura" / "turns")
    code, out = wdg("turn", "run", "canura", "--no-pdf", "-q", "--force", "-C", str(camp))
    assert code == 1 and "wdg segment upgrade canura" in out, out
    if commit == "614f8e9":  # its templates differ from today's: the game master chooses
        code, out = wdg("segment", "upgrade", "canura", "-C", str(camp))
        assert code == 1 and "--templates replace" in out, out
        assert (camp / "worlds" / "canura" / "segment.yaml").read_text().startswith("format: 1")
    outbox = camp / "reports" / "canura" / "0412-04" / "outbox"  # a send record of old
    outbox.mkdir(parents=True)
    (outbox / "sent.yaml").write_text("- {kingdom: 1, to: a@example.org}\n", encoding="utf-8")
    whole = tree(camp)
    code, out = wdg("segment", "upgrade", "canura", "--templates", "replace", "--dry-run",
                    "-C", str(camp))
    assert code == 0 and "Probelauf, nichts geändert" in out and tree(camp) == whole, out
    code, out = wdg("segment", "upgrade", "canura", "--templates", "replace", "-C", str(camp))
    assert code == 0 and f"Format 1 → {FORMAT}" in out, out
    legacy = camp / "worlds" / "canura" / "mail" / "legacy-sent" / "0412-04.yaml"
    if legacy.is_file():  # (or the mail ledger imported it, and said so)
        assert legacy.read_bytes() == (outbox / "sent.yaml").read_bytes()
    assert "reports/canura/0412-04/outbox/sent.yaml" in out, out
    assert (outbox / "sent.yaml").is_file()  # the original stays
    assert "format: 1" in (camp / "worlds/canura/upgrades.yaml").read_text(encoding="utf-8") \
        or "from_format: 1" in (camp / "worlds/canura/upgrades.yaml").read_text(encoding="utf-8")
    if commit == "614f8e9":
        assert "settlement.treasury_min_units = 0 ergänzt (Wert des alten Verhaltens" in out, out
        assert "worlds/rules/text.yaml: fehlte" in out, out
        assert (camp / "templates.vor-upgrade-1").is_dir() and not (camp / "templates").exists()
    assert tree(camp / "worlds" / "canura" / "turns") == archived
    code, out = wdg("segment", "check", "canura", "-C", str(camp))
    assert "Segmentformat" not in out, out
    orders = camp / "orders" / "canura" / "0412-07"
    orders.mkdir(parents=True)
    for k in (1, 2, 3):
        (orders / f"k{k}.txt").write_text(f"Segment: canura\nKönigreich: {k}\n"
                                          f"Passwort: canura-{k}\n", encoding="utf-8")
    code, out = wdg("turn", "run", "canura", "--no-pdf", "-q", "--force", "-C", str(camp))
    assert code == 0 and "0412-07" in out, out
    mdir = camp / "worlds" / "canura" / "turns" / "0412-07"
    assert (mdir / "provenance.yaml").is_file()
    code, out = wdg("turn", "replay", "canura", "0412-07", "-j", "1", "-C", str(camp))
    assert code == 0 and "Dateien identisch" in out, out
    code, out = wdg("turn", "list", "canura", "-C", str(camp))  # a mixed archive says who made what
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4, out
    assert all(line.endswith("(wdg vor 0.2.0)") for line in lines[:3]), out
    assert lines[3].startswith("0412-07") and f"(wdg {wdg_version}" in lines[3], out
    assert tree(camp / "worlds" / "canura" / "turns" / "0412-04") == \
        {k[len("0412-04/"):]: v for k, v in archived.items() if k.startswith("0412-04/")}


def test_a_newer_format_is_refused_by_every_command(old):
    commit, camp = old
    head = camp / "worlds" / "canura" / "segment.yaml"
    head.write_text(head.read_text().replace("format: 1", "format: 99"))
    for args in (("turn", "list", "canura"), ("turn", "status", "canura"),
                 ("segment", "check", "canura"), ("segment", "upgrade", "canura"),
                 ("turn", "run", "canura", "--no-pdf"), ("turn", "replay", "canura", "0412-04"),
                 ("export", "canura", "--archive", "-o", str(camp / "x.tar"))):
        code, out = wdg(*args, "-C", str(camp))
        assert code == 1 and "Segmentformat 99 ist neuer als diese wdg-Version" in out, (args, out)


def test_export_package_verifies_with_the_standard_library_alone(old, tmp_path: Path):
    """``wdg export --archive``: one tar; its verify.py runs under ``python3 -I`` from
    a folder where wdg is not importable, finds everything in order, and names a
    changed archived file; sheets' passwords are redacted."""
    commit, camp = old
    pkg = tmp_path / "paket.tar"
    code, out = wdg("export", "canura", "--archive", "-o", str(pkg), "-C", str(camp))
    assert code == 0, out
    dest = tmp_path / "x"
    with tarfile.open(pkg) as tar:
        tar.extractall(dest, filter="data")
    root = dest / "wdg-archiv-canura"
    assert (root / "README.md").is_file() and (root / "schemas" / "provenance.schema.json").is_file()
    sheet = (root / "worlds/canura/turns/0412-04/orders/k1.txt").read_text(encoding="utf-8")
    assert "canura-1" not in sheet and "******" in sheet
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    python = getattr(sys, "_base_executable", None) or sys.executable  # not the venv's
    run = lambda: subprocess.run([python, "-I", "verify.py"], cwd=root, env=env,
                                 capture_output=True, text=True, timeout=60)
    check = subprocess.run([python, "-I", "-c", "import wdg"], cwd=root, env=env,
                           capture_output=True, text=True)
    assert check.returncode != 0  # wdg is not importable there
    got = run()
    assert got.returncode == 0 and "Paket in Ordnung" in got.stdout, got.stdout + got.stderr
    index = json.loads((root / "index.json").read_text())
    assert [m["month"] for m in index["months"]] == list(MONTHS)
    events = root / "worlds/canura/turns/0412-05" / next(
        n for n in ("events.jsonl.xz", "events.yaml.gz", "events.yaml")
        if (root / "worlds/canura/turns/0412-05" / n).is_file())
    data = events.read_bytes()
    events.write_bytes(data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 1])
                       + data[len(data) // 2 + 1:])
    got = run()
    assert got.returncode == 1 and "worlds/canura/turns/0412-05/events" in got.stdout, got.stdout
    assert "Traceback" not in got.stdout + got.stderr
