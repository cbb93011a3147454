"""A test that guards against data loss or a protocol fact fails where it cannot run,
naming what is missing; only its ``WDG_SKIP_*`` variable makes it skip (issue #44,
tests/skips.py, README "Set-up"). Shown end to end: the real tests run in a pytest
of their own on a machine made to lack the facility — ``mount`` refused (a
``mount`` on PATH that fails as it does for a user who is not root), or Dovecot
missing (``mailservers.missing_binaries`` reports it) — once without the variable
(failed, with the reason) and once with it (skipped, with the same reason)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

FAKE_MOUNT = """#!/bin/sh
echo "mount: only root can use \\"--options\\" option (effective UID is 1000)" >&2
exit 1
"""

HIDE_DOVECOT = """
import mailservers

mailservers.missing_binaries = lambda: ["/usr/sbin/dovecot"]
"""


def _pytest(tmp_path: Path, node: str, skip: str | None, *more: str,
            **env: str) -> tuple[str, str]:
    """Run ``node`` (one test) in a pytest of its own; its outcome ("FAILED",
    "ERROR": a fixture failed, "SKIPPED", "PASSED") and its output. ``skip``: the
    WDG_SKIP_* variable to set."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("WDG_SKIP_", "PYTEST_"))}
    if skip:
        clean[skip] = "1"
    clean.update(env)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0",
                        "-rA", "--basetemp", str(tmp_path / "run"), *more, node],
                       cwd=ROOT, env=clean, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    got = set(re.findall(r"^(FAILED|ERROR|SKIPPED|PASSED) ", out, re.M))
    assert len(got) == 1 and r.returncode == (0 if got <= {"SKIPPED", "PASSED"} else 1), \
        (r.returncode, out)
    return got.pop(), out


@pytest.mark.parametrize("node", [
    "tests/engine/test_store_safety.py::test_a_real_bind_mounted_segment_directory_works",
    "tests/engine/test_integrity.py::"
    "test_turn_run_refuses_up_front_when_the_archive_or_reports_folder_is_read_only[turns]",
])
@pytest.mark.parametrize("skip", [None, "WDG_SKIP_MOUNTS"])
def test_a_mount_test_fails_where_mount_is_refused(tmp_path: Path, node: str,
                                                   skip: str | None) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "mount").write_text(FAKE_MOUNT)
    (fake / "mount").chmod(0o755)
    outcome, out = _pytest(tmp_path, node, skip, PATH=f"{fake}:{os.environ['PATH']}")
    assert outcome == ("SKIPPED" if skip else "FAILED"), out
    assert "only root can use" in out and "needs root" in out, out
    if skip:
        assert "WDG_SKIP_MOUNTS=1: cannot" in out, out
    else:
        assert "does not skip on its own: set WDG_SKIP_MOUNTS=1 to skip it" in out, out


@pytest.mark.parametrize("skip", [None, "WDG_SKIP_MAILSERVERS"])
def test_a_mail_test_fails_where_the_mail_servers_are_missing(tmp_path: Path,
                                                              skip: str | None) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "hide_dovecot.py").write_text(HIDE_DOVECOT)
    outcome, out = _pytest(tmp_path, "tests/mail/test_spamassassin.py", skip,
                           "-p", "hide_dovecot",
                           PYTHONPATH=f"{plugin}:{ROOT / 'tests'}:{ROOT}")
    assert outcome == ("SKIPPED" if skip else "ERROR"), out  # ERROR: the fixture failed
    assert "cannot start the test mail servers, missing: /usr/sbin/dovecot" in out, out
    if not skip:
        assert "set WDG_SKIP_MAILSERVERS=1 to skip it" in out, out
