"""The documented unattended recipes work as printed (issue #39 item 3):
``wdg mail install-timer`` writes systemd units that ``systemd-analyze verify``
accepts, with one install path and absolute paths; the crontab lines run under
cron's bare environment (``PATH=/usr/bin:/bin``, every ``%`` escaped) and the
backup they write is 0600; a timer's ``wdg mail run`` that meets the lock of
``wdg mail watch`` waits for it instead of failing, and one that never gets it
ends with code 6, which the unit counts as success (the next call does the work).

systemd-analyze must be installed (``make test`` installs Debian's systemd
package); WDG_SKIP_SYSTEMD=1 skips the unit check."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.skips import cannot_run
from wdg.mail.units import crontab_lines, units

ROOT = Path(__file__).resolve().parents[2]
SEG = "rezept"


def _wdg(camp: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wdg", *args, "-C", str(camp)],
                          capture_output=True, text=True, cwd=camp, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "WDG_CAMPAIGN": ""}, **kw)


@pytest.fixture
def camp(tmp_path) -> Path:
    c = tmp_path / "kampagne mit leerzeichen"
    c.mkdir()
    res = _wdg(c, "segment", "new", SEG, "--provinces", "2x2", "--kingdoms", "2", "--seed", "3")
    assert res.returncode == 0, res.stderr
    # a mail.yaml without servers: 'mail run' has nothing to fetch and no deadline (exit 3)
    (c / "worlds" / SEG / "mail.yaml").write_text('from: "SL <sl@example.org>"\n',
                                                 encoding="utf-8")
    return c


def _analyze() -> str:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        cannot_run("WDG_SKIP_SYSTEMD", "systemd-analyze is missing: 'make test' installs "
                   "Debian's systemd package")
    return exe


def test_installed_units_verify_and_use_absolute_paths(camp, tmp_path):
    exe = _analyze()
    target = tmp_path / "units"
    res = _wdg(camp, "mail", "install-timer", SEG, "--dir", str(target))
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in target.iterdir())
    assert names == [f"wdg-{SEG}-run.service", f"wdg-{SEG}-run.timer",
                     f"wdg-{SEG}-watch.service"]
    wdg = Path(sys.executable).parent / "wdg"
    for name in names:
        text = (target / name).read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.startswith("ExecStart="):
                assert line.startswith(f"ExecStart={wdg} mail ")  # the full path
                assert f'-C "{camp}"' in line  # the campaign, quoted (a blank in it)
    run = (target / f"wdg-{SEG}-run.service").read_text(encoding="utf-8")
    assert re.search(r"^SuccessExitStatus=3 4 6$", run, re.M)
    watch = (target / f"wdg-{SEG}-watch.service").read_text(encoding="utf-8")
    assert re.search(r"^RestartPreventExitStatus=1 7$", watch, re.M)
    res = subprocess.run([exe, "verify", *names], cwd=target, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Unknown" not in res.stderr and "not executable" not in res.stderr, res.stderr
    # the same text the --print recipe shows
    shown = _wdg(camp, "mail", "install-timer", SEG, "--print").stdout
    for name, text in units(SEG, camp).items():
        assert f"# ~/.config/systemd/user/{name}\n{text}" in shown


def _cron(line: str) -> str:
    """What cron runs for a crontab line: the sixth field on, ``\\%`` made ``%``; an
    unescaped ``%`` would end the command there (crontab(5))."""
    command = line.split(None, 5)[5]
    assert not re.search(r"(?<!\\)%", command), f"unescaped % in {line!r}"
    return command.replace("\\%", "%")


def test_crontab_lines_run_under_crons_environment(camp, tmp_path):
    run, backup = crontab_lines(SEG, camp)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "SHELL": "/bin/sh"}
    res = subprocess.run(["/bin/sh", "-c", _cron(run)], env=env, capture_output=True,
                         text=True, cwd=home, timeout=120)
    # wdg was found and ran: no deadline set, nothing to do (3), not 127 "not found"
    assert res.returncode == 3, (res.returncode, res.stderr)
    res = subprocess.run(["/bin/sh", "-c", _cron(backup)], env=env, capture_output=True,
                         text=True, cwd=home, timeout=120)
    assert res.returncode == 0, res.stderr
    tars = list((home / "sicherung").glob(f"{SEG}-*.tar.gz"))
    assert len(tars) == 1 and re.fullmatch(rf"{SEG}-\d{{4}}-\d\d-\d\d\.tar\.gz", tars[0].name)
    assert stat.S_IMODE(tars[0].stat().st_mode) == 0o600  # it holds password hashes
    with tarfile.open(tars[0]) as tf:
        assert f"worlds/{SEG}/kingdoms.yaml" in tf.getnames()


def _hold_lock(camp: Path) -> int:
    fd = os.open(camp / "worlds" / SEG / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()} {socket.gethostname()}".encode())
    return fd


def test_a_timer_call_waits_for_the_watchs_lock(camp):
    fd = _hold_lock(camp)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "wdg", "mail", "run", SEG, "-C",
                                 str(camp), "--wait", "60"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=camp,
                                env={**os.environ, "PYTHONPATH": str(ROOT),
                                     "WDG_CAMPAIGN": ""})
        first = proc.stderr.readline()  # it met the lock and says it waits
        assert "warte bis zu 60 s auf die Sperre" in first, first
    finally:
        os.close(fd)  # the watch is done with its mail
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, (out, err)  # it did the work: nothing to do, no failure
    # never getting the lock: code 6, a success for the unit (SuccessExitStatus)
    fd = _hold_lock(camp)
    try:
        res = _wdg(camp, "mail", "run", SEG, "--wait", "0")
    finally:
        os.close(fd)
    assert res.returncode == 6, res.stderr
    assert "der nächste Aufruf holt es nach" in res.stdout + res.stderr
    ok = re.search(r"^SuccessExitStatus=(.*)$", units(SEG, camp)[f"wdg-{SEG}-run.service"],
                   re.M).group(1).split()
    assert "6" in ok
