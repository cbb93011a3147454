"""The compatibility matrix (issue #40): a campaign of every release so far, run
by today's code on every ``make test``.

Fixtures (tests/fixtures/releases/README.md; how to add a release there): the demo
campaign with three months resolved by the release's own code, real sheets and
PDFs. For each: list, verify, show; replay of every month with its explanation
checked against an independent diff of the files the replay made; upgrade; a
further month; replay again; and the older release's own wheel refusing the
upgraded campaign while today's wdg opens it cleanly (the 3c97e08 case: an older
0.2.0 must not resolve a month of a campaign whose password hashes it cannot read).
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.errors import WdgError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RELEASES = {
    # folder: (path, release that made it, its wheel, what replay must say about the state)
    "614f8e9": (FIXTURES / "old_archives" / "614f8e9", "0.1.0",
                FIXTURES / "wheels" / "614f8e9" / "wdg-0.1.0-py3-none-any.whl"),
    "3c97e08": (FIXTURES / "releases" / "3c97e08", "0.2.0",
                FIXTURES / "wheels" / "3c97e08" / "wdg-0.2.0-py3-none-any.whl"),
    "c97684b": (FIXTURES / "releases" / "c97684b", "0.2.0",
                FIXTURES / "wheels" / "3c97e08" / "wdg-0.2.0-py3-none-any.whl"),
}
MONTHS = ("0412-04", "0412-05", "0412-06")


def wdg(*args: str) -> tuple[int, str]:
    """``wdg ARGS`` in this process; a WdgError is one clean message, anything else
    would be a traceback (fails the test)."""
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


@pytest.fixture(params=sorted(RELEASES))
def release(request, tmp_path: Path) -> tuple[str, Path]:
    camp = tmp_path / request.param
    shutil.copytree(RELEASES[request.param][0], camp)
    return request.param, camp


def test_list_verify_show(release):
    commit, camp = release
    code, out = wdg("turn", "list", "canura", "-C", str(camp))
    assert code == 0 and all(m in out for m in MONTHS), out
    if commit != "614f8e9":  # provenance read first (item 5): the commit that made each month
        assert out.count(f"(commit {commit}") == 3, out
    code, out = wdg("turn", "list", "canura", "--verify", "-C", str(camp))
    assert code == 0, out
    # months of 0.2.0 have no hash list yet (outputs checked against the manifest);
    # since the integrity layer every file is covered
    assert out.count("Hashes ok" if commit == "c97684b" else "Ausgaben laut Manifest ok") == 3, out
    code, out = wdg("turn", "show", "canura", "0412-05", "-k", "2", "-C", str(camp))
    assert code == 0 and "K2" in out, out


# --- replay against an independent diff ---------------------------------------------


class _Kept:
    """tempfile.TemporaryDirectory that keeps the replay's folder (for the oracle)."""

    made: list[Path] = []

    def __init__(self, suffix=None, prefix=None, dir=None, **kw):
        self.name = tempfile.mkdtemp(suffix=suffix, prefix=prefix, dir=dir)
        _Kept.made.append(Path(self.name))

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        return False

    def cleanup(self):
        pass


def _plain(path: Path) -> bytes | None:
    for p, dec in ((path, None), (path.with_name(path.name + ".gz"), gzip.decompress)):
        if p.is_file():
            return dec(p.read_bytes()) if dec else p.read_bytes()
    return None


def _events(path_dir: Path) -> list | None:
    for name in ("events.jsonl.xz", "events.yaml.gz", "events.yaml"):
        p = path_dir / name
        if p.is_file():
            data = p.read_bytes()
            data = lzma.decompress(data) if name.endswith(".xz") else \
                gzip.decompress(data) if name.endswith(".gz") else data
            if ".jsonl" in name:
                import json
                return [json.loads(x) for x in data.decode().splitlines() if x]
            return yaml.safe_load(data)
    return None


def state_diff(archived: Path, made: Path) -> set[str]:
    """What differs between the archived ``state/`` and the replay's, by a plain
    line diff: ``format`` (only ``format:`` lines), ``passwords`` (only
    ``password_hash:`` lines), ``game`` (anything else)."""
    kinds: set[str] = set()
    for p in sorted(made.iterdir()):
        old, new = _plain(archived / p.name), p.read_bytes()
        if old == new:
            continue
        if p.suffix == ".npz" or old is None:
            kinds.add("game")
            continue
        for line in difflib.unified_diff(old.decode().splitlines(), new.decode().splitlines(),
                                         lineterm="", n=0):
            if line.startswith(("---", "+++", "@@")):
                continue
            body = line[1:].strip()
            kinds.add("format" if body.startswith("format:") else
                      "passwords" if body.startswith("password_hash:") else "game")
    return kinds


@pytest.mark.slow
def test_replay_explains_what_an_independent_diff_finds(release, monkeypatch):
    """Every month replays without a traceback; the state layer's verdict is the
    one a plain diff of the archived and the re-made state files gives: equal,
    only the segment format, only the password scheme (pbkdf2 → scrypt: issue #40
    item 3), or another game; the events layer says whether the counts differ."""
    commit, camp = release
    monkeypatch.setattr(tempfile, "TemporaryDirectory", _Kept)
    for month in MONTHS:
        _Kept.made.clear()
        code, out = wdg("turn", "replay", "canura", month, "-C", str(camp))
        assert "Traceback" not in out
        own = next(d / "own" for d in _Kept.made if (d / "own" / "state").is_dir())
        mdir = camp / "worlds" / "canura" / "turns" / month
        kinds = state_diff(mdir / "state", own / "state")
        lines = out.splitlines()
        at = next(i for i, x in enumerate(lines) if x.strip().startswith("Zustand:"))
        line = lines[at]
        block = "\n".join(lines[at:at + 2])  # the layer and its "Grund:" line
        if not kinds:
            assert line.strip() == "Zustand: gleich", out
        elif kinds == {"format"}:
            assert "nur das Segmentformat" in line, out
        elif kinds <= {"format", "passwords"}:
            assert "nur das Passwortverfahren" in block, out
            assert "anderer Spielstand" not in out, out
        else:
            assert "anderer Spielstand" in out, out
        old_events, new_events = _events(mdir), _events(own)
        ev = next(x for x in out.splitlines() if x.strip().startswith("Ereignisse:"))
        if old_events == new_events:
            assert ev.strip() == "Ereignisse: gleich", out
        elif len(old_events) != len(new_events):
            assert f"{len(old_events)} Ereignisse archiviert, jetzt {len(new_events)}" in ev, out
        else:
            assert "ABWEICHUNG" in ev, out
        assert "(None)" not in out, out  # a PDF's reason is named, never "None"
        if commit == "c97684b":  # made by the code right before this release: the same game,
            # only the segment format this release raised (password scheme, issue #40 item 1);
            # events and reports follow what 0.3.0 changed (CHANGELOG.md)
            assert line.strip() == "Zustand: ABWEICHUNG — state/segment.yaml: nur das " \
                "Segmentformat (format: 2 → 3); derselbe Spielstand", out


@pytest.mark.parametrize("commit", ["3c97e08", "c97684b"])
def test_a_deleted_provenance_is_named_missing_not_older(commit, tmp_path: Path):
    """Issue #40 item 9: a month of 0.2.0 or newer whose provenance.yaml was deleted
    is listed as missing it, not as made by a wdg before 0.2.0."""
    camp = tmp_path / commit
    shutil.copytree(RELEASES[commit][0], camp)
    (camp / "worlds/canura/turns/0412-05/provenance.yaml").unlink()
    code, out = wdg("turn", "list", "canura", "-C", str(camp))
    line = next(x for x in out.splitlines() if x.startswith("0412-05"))
    assert "Herkunftsangaben fehlen: provenance.yaml fehlt" in line, out
    assert "vor 0.2.0" not in line, out


def test_upgrade_keeps_only_templates_that_render(tmp_path: Path):
    """Issue #40 item 2: ``segment upgrade --templates keep`` renders the last month's
    Götterbotschaft, overview and one result sheet with the kept templates before it
    accepts; templates that cannot render (0.1.0's, with today's report model) are
    refused with the template's own error and nothing is changed; templates that
    render are kept, and the next month runs with them."""
    from wdg.reports.render import SHIPPED_TEMPLATES

    camp = tmp_path / "c"
    shutil.copytree(RELEASES["614f8e9"][0], camp)
    before = tree(camp)
    code, out = wdg("segment", "upgrade", "canura", "--templates", "keep", "-C", str(camp))
    assert code == 1 and "--templates keep: die eigenen Vorlagen (templates/) lassen sich" in out
    assert "UndefinedError" in out and "Nichts wurde verändert" in out, out
    assert tree(camp) == before
    shutil.rmtree(camp / "templates")  # own templates that fit: today's with a change
    shutil.copytree(SHIPPED_TEMPLATES, camp / "templates")
    text = camp / "templates" / "goetterbotschaft.txt.j2"
    text.write_text(text.read_text(encoding="utf-8") + "{# eigene Fußzeile #}\n", encoding="utf-8")
    code, out = wdg("segment", "upgrade", "canura", "--templates", "keep", "-C", str(camp))
    assert code == 0 and "behaltene Vorlagen probeweise gerendert" in out, out
    assert "Ergebnisblatt von Königreich 1 (Text und HTML) des Monds 0412-06" in out, out
    assert text.is_file()
    orders = camp / "orders" / "canura" / "0412-07"
    orders.mkdir(parents=True)
    (orders / "k1.txt").write_text("Segment: canura\nKönigreich: 1\nPasswort: canura-1\n",
                                   encoding="utf-8")
    code, out = wdg("turn", "run", "canura", "--no-pdf", "-q", "--force", "-C", str(camp))
    assert code == 0 and "0412-07" in out, out


# --- upgrade, a further month, replay again; the older release refuses ---------------


def bot_sheets(camp: Path) -> None:
    """Real sheets for the segment's current month: kingdoms 1-6 by the Baumeister
    bot with their own passwords (as tests/fixtures/releases/make_fixtures.sh)."""
    from wdg.bots.briefing import brief
    from wdg.bots.npc import last_events, last_sheet
    from wdg.bots.players import write_sheet
    from wdg.campaign import Campaign
    from wdg.rules import Rules
    from wdg.store.segment import load_segment

    c = Campaign(camp)
    seg = load_segment(c.segment_dir("canura"))
    rules = Rules.load(c.rules_dir)
    events = last_events(c, seg)
    folder = c.orders_dir("canura", seg.date)
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, 7):
        text = write_sheet(brief(seg, n, events, last_sheet(c, seg, n)), "Baumeister", rules,
                           password=f"canura-{n}", seed=seg.seed)
        (folder / f"k{n}.txt").write_text(text, encoding="utf-8")


_VENVS: dict[Path, Path] = {}


def old_release(wheel: Path, root: Path) -> Path:
    """The ``wdg`` script of the release's own wheel in a venv of its own (the
    dependencies: those installed beside this test, as in test_exact_version_wheel)."""
    if wheel in _VENVS:
        return _VENVS[wheel]
    base = getattr(sys, "_base_executable", None) or sys.executable
    venv = root / f"venv-{wheel.parent.name}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                    "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, timeout=300, env=env)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; "
                           "print(sysconfig.get_path('purelib'))"], capture_output=True,
                          text=True, check=True, env=env).stdout.strip()
    (Path(site) / "wdg-dependencies.pth").write_text(
        f"{Path(typer.__file__).resolve().parent.parent}\n", encoding="utf-8")
    _VENVS[wheel] = venv / "bin" / "wdg"
    return _VENVS[wheel]


@pytest.fixture(scope="module")
def venv_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("old-releases")


@pytest.mark.slow
def test_upgrade_further_month_and_the_older_release_refuses(release, venv_root):
    """Upgrade, a further month with real sheets, its replay byte for byte, an old
    month replayed again (still explained, never a traceback); then every command of
    the release that made the campaign, from its own wheel, refuses the upgraded
    campaign with its own message naming the newer format — nothing is changed, no
    month is committed (the 3c97e08 case of issue #40 item 1) — and today's wdg
    opens it cleanly."""
    from wdg.store.segment import FORMAT

    commit, camp = release
    archived = tree(camp / "worlds" / "canura" / "turns")
    code, out = wdg("segment", "upgrade", "canura", "--templates", "replace", "-C", str(camp))
    assert code == 0 and f"→ {FORMAT}" in out, out
    assert tree(camp / "worlds" / "canura" / "turns") == archived
    bot_sheets(camp)
    code, out = wdg("turn", "run", "canura", "--no-pdf", "-q", "-C", str(camp))
    assert code == 0 and "0412-07" in out, out
    code, out = wdg("turn", "replay", "canura", "0412-07", "-C", str(camp))
    assert code == 0 and "Dateien identisch" in out, out
    code, out = wdg("turn", "replay", "canura", "0412-06", "-C", str(camp))
    assert "Zustand:" in out and "Ereignisse:" in out and "Traceback" not in out, out
    if commit == "c97684b":
        assert "nur das Segmentformat (format: 2 → 3)" in out, out

    old = old_release(RELEASES[commit][2], venv_root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    nxt = camp / "orders" / "canura" / "0412-08"
    nxt.mkdir(parents=True)
    for k in range(1, 4):
        (nxt / f"k{k}.txt").write_text(f"Segment: canura\nKönigreich: {k}\n"
                                       f"Passwort: canura-{k}\n", encoding="utf-8")
    own_message = {  # each release's own words for a segment format it cannot read
        "0.1.0": f"key 'format': found {FORMAT}, expected format 1",
        "0.2.0": f"Segmentformat {FORMAT} ist neuer als diese wdg-Version (0.2.0, liest Format bis 2)",
    }[RELEASES[commit][1]]
    whole = tree(camp)
    for args in (["turn", "run", "canura", "--force"], ["turn", "list", "canura"],
                 ["turn", "status", "canura"], ["segment", "check", "canura"],
                 ["turn", "undo", "canura"], ["kingdom", "set", "canura", "1", "--ruler", "X"],
                 ["orders", "import", "canura", os.devnull]):
        got = subprocess.run([str(old), *args, "-C", str(camp)], capture_output=True,
                             text=True, env=env, cwd=venv_root, timeout=300)
        text = got.stdout + got.stderr
        assert got.returncode != 0, (args, text)
        assert own_message in text, (args, text)
        assert "Traceback" not in text, (args, text)
        assert tree(camp) == whole, args  # nothing changed, no month committed
    code, out = wdg("segment", "check", "canura", "-C", str(camp))
    assert code == 0, out
    code, out = wdg("turn", "list", "canura", "--verify", "-C", str(camp))
    assert code == 0 and "0412-07" in out and "ABWEICHUNG" not in out, out


def test_sha256sum_checks_an_exported_month_as_the_docs_say(tmp_path: Path):
    """docs/storage.md: in an export the redacted sheets' lines fail; the documented
    ``grep -v '  orders/' SHA256SUMS | sha256sum -c`` passes and still finds a
    damaged file (with --software, sheets kept: test_exact_version_offline)."""
    import tarfile

    if shutil.which("sha256sum") is None:
        pytest.fail("sha256sum (GNU coreutils) is missing: docs/storage.md tells the game "
                    "master to check an export with it", pytrace=False)
    camp = tmp_path / "c"
    shutil.copytree(RELEASES["c97684b"][0], camp)
    pkg = tmp_path / "p.tar"
    code, out = wdg("export", "canura", "--archive", "-o", str(pkg), "-C", str(camp))
    assert code == 0, out
    with tarfile.open(pkg) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    mdir = tmp_path / "x" / "wdg-archiv-canura" / "worlds/canura/turns/0412-05"
    plain = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=mdir,
                           capture_output=True, text=True)
    assert plain.returncode != 0 and "orders/k1.txt: FAILED" in plain.stdout, plain.stdout
    documented = subprocess.run("grep -v '  orders/' SHA256SUMS | sha256sum -c", shell=True,
                                cwd=mdir, capture_output=True, text=True)
    assert documented.returncode == 0, documented.stdout + documented.stderr
    readme = (tmp_path / "x" / "wdg-archiv-canura" / "README.md").read_text(encoding="utf-8")
    assert "grep -v '  orders/' SHA256SUMS | sha256sum -c" in readme
    (mdir / "events.jsonl.xz").write_bytes(b"x")  # and a damaged file is still found
    documented = subprocess.run("grep -v '  orders/' SHA256SUMS | sha256sum -c", shell=True,
                                cwd=mdir, capture_output=True, text=True)
    assert documented.returncode != 0 and "events.jsonl.xz: FAILED" in documented.stdout
