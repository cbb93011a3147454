"""The exact version, offline, from the export package (issue #40 "The exact version
offline"; docs/turns.md, "Replaying with the exact version").

``wdg export SEG --archive --software`` adds the running wdg's wheel (built from the
installed code) and its dependencies' wheels (packed from the installed files) with
their hashes. The test follows the recipe of docs/turns.md literally: a fresh venv,
``pip install --no-index --find-links software/wheels --require-hashes -r
software/requirements.txt`` with pip's configuration switched off (no index, no
other wheel folder), then the venv's own ``wdg turn replay`` on the unpacked
package: byte for byte. Slow-ish (packing and installing numpy, Pillow, fontTools:
about a minute).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.provenance import build_info
from wdg.software import wdg_wheel


@pytest.mark.slow
def test_export_with_software_replays_offline_in_a_fresh_venv(tmp_path: Path):
    camp = copy_demo(tmp_path / "campaign")
    run = CliRunner().invoke(app, ["turn", "run", DEMO_SEGMENT, "--no-pdf", "-q",
                                   "-C", str(camp.root)])
    assert run.exit_code == 0, run.output
    month = "0412-04"
    prov = yaml.safe_load((camp.archive_dir(DEMO_SEGMENT) / month / "provenance.yaml")
                          .read_text(encoding="utf-8"))
    assert prov["wdg"]["wheel_sha256"] == wdg_wheel().sha256  # the month names its wheel

    pkg = tmp_path / "paket.tar"
    got = CliRunner().invoke(app, ["export", DEMO_SEGMENT, "--archive", "--software",
                                   "-o", str(pkg), "-C", str(camp.root)])
    assert got.exit_code == 0, got.output
    assert f"genau dieses Wheel hat ausgewertet: {month}" in got.output, got.output
    dest = tmp_path / "x"
    with tarfile.open(pkg) as tar:
        tar.extractall(dest, filter="data")
    root = dest / f"wdg-archiv-{DEMO_SEGMENT}"
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    assert index["software"]["wdg"]["sha256"] == prov["wdg"]["wheel_sha256"]
    reqs = (root / "software" / "requirements.txt").read_text(encoding="utf-8")
    assert f"--hash=sha256:{prov['wdg']['wheel_sha256']}" in reqs
    assert all(" --hash=sha256:" in line for line in reqs.splitlines())
    sheet = (root / f"worlds/{DEMO_SEGMENT}/turns/{month}/orders/k1.txt").read_text("utf-8")
    assert "canura-1" in sheet  # not redacted: the replay checks the password
    sums = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], capture_output=True,
                          text=True, cwd=root / f"worlds/{DEMO_SEGMENT}/turns/{month}")
    assert sums.returncode == 0, sums.stdout  # docs/storage.md: unchanged with --software

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    base = getattr(sys, "_base_executable", None) or sys.executable
    venv = tmp_path / "venv"
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=120, env=env)
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--no-index", "--find-links",
         str(root / "software" / "wheels"), "--require-hashes", "-r",
         str(root / "software" / "requirements.txt")],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    py = str(venv / "bin" / "python")
    where = subprocess.run([py, "-c", "import wdg, wdg.software as s; print(wdg.__file__); "
                            "print(s.wdg_wheel().sha256)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    lines = where.stdout.split()
    assert where.returncode == 0 and lines[0].startswith(str(venv)), where.stdout + where.stderr
    assert lines[1] == prov["wdg"]["wheel_sha256"]  # the installed wheel rebuilds to itself
    version = subprocess.run([str(venv / "bin" / "wdg"), "--version"], capture_output=True,
                             text=True, env=env, cwd=tmp_path, timeout=120)
    assert version.stdout.strip() == f"wdg {build_info()['version']} (commit " \
        f"{build_info()['commit'][:12]}{', mit nicht eingecheckten Änderungen' if build_info()['dirty'] else ''})", \
        version.stdout + version.stderr
    replay = subprocess.run([str(venv / "bin" / "wdg"), "turn", "replay", DEMO_SEGMENT, month,
                             "-j", "1", "-C", str(root)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert replay.returncode == 0 and "Dateien identisch" in replay.stdout, \
        replay.stdout + replay.stderr
