"""The exact version that made a month, installed from a wheel into a fresh venv
(issue #29, docs/turns.md "Replaying with the exact version").

tests/fixtures/wheels/614f8e9/wdg-0.1.0-py3-none-any.whl was built from commit
614f8e9 (the release of four days before 0.2.0):

    git worktree add /tmp/wdg-614 614f8e9 && pip wheel --no-deps -w DIR /tmp/wdg-614

The test follows the documented procedure: a fresh venv, ``pip install`` of that
wheel, the dependencies (documented: ``pip install -r`` the month's recorded versions;
here, offline, the versions installed beside this test are put on the venv's path
with a ``.pth`` file — the fixture months were made with exactly these, see
tests/fixtures/old_archives/make_fixtures.sh), then that version's own ``wdg turn
replay`` of the month it made: byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

HERE = Path(__file__).resolve().parent.parent / "fixtures"
WHEEL = HERE / "wheels" / "614f8e9" / "wdg-0.1.0-py3-none-any.whl"
CAMPAIGN = HERE / "old_archives" / "614f8e9"


@pytest.mark.slow
def test_the_wheel_of_an_older_commit_replays_its_month_byte_for_byte(tmp_path: Path):
    base = getattr(sys, "_base_executable", None) or sys.executable
    venv = tmp_path / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                    "--no-deps", "--no-index", str(WHEEL)], check=True, timeout=300, env=env)
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path("
                                "'purelib'))"], capture_output=True, text=True, check=True,
                               env=env).stdout.strip())
    deps = Path(typer.__file__).resolve().parent.parent  # this environment's site-packages
    (site / "wdg-dependencies.pth").write_text(f"{deps}\n", encoding="utf-8")
    camp = tmp_path / "campaign"
    shutil.copytree(CAMPAIGN, camp)
    wdg = [str(venv / "bin" / "wdg")]
    version = subprocess.run(wdg + ["--version"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=120)
    assert version.stdout.strip() == "wdg 0.1.0", version.stdout + version.stderr
    where = subprocess.run([str(py), "-c", "import wdg; print(wdg.__file__)"], env=env,
                           capture_output=True, text=True, cwd=tmp_path)
    assert where.stdout.startswith(str(site)), where.stdout  # the wheel's code, not this checkout
    for month in ("0412-05",):  # (each replay starts that version afresh: one month is enough)
        got = subprocess.run(wdg + ["turn", "replay", "canura", month, "-C", str(camp)],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert got.returncode == 0 and "Dateien identisch" in got.stdout, got.stdout + got.stderr
