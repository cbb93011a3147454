"""A test that guards against data loss or a protocol fact never skips on its own:
where it cannot run it fails, unless the named ``WDG_SKIP_*`` variable says to
skip it (README, "Tests that need the machine"; ``.ci/run`` sets none).

- ``WDG_SKIP_MAILSERVERS=1``: the mail tests' own Dovecot/Postfix, getmail,
  fetchmail and SpamAssassin (tests/conftest.py, tests/mailservers.py);
- ``WDG_SKIP_BROWSER=1``: the real-browser tests in Chromium, the order
  editor's and the accessibility test (tests/e2e/test_editor_browser.py,
  tests/e2e/test_accessibility_browser.py, which uses its browser);
- ``WDG_SKIP_MOUNTS=1``: the real full-disk (tmpfs) and read-only and bind
  mount tests (root and ``mount`` needed);
- ``WDG_SKIP_SYSTEMD=1``: the ``systemd-analyze verify`` check of the units
  ``wdg mail install-timer`` writes (tests/mail/test_recipes.py).
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def cannot_run(variable: str, why: str) -> NoReturn:
    """Skip when ``variable`` is ``1``, else fail with ``why`` and how to skip."""
    if os.environ.get(variable) == "1":
        pytest.skip(f"{variable}=1: {why}")
    pytest.fail(f"{why}; this test guards against data loss or a protocol fact and does "
                f"not skip on its own: set {variable}=1 to skip it", pytrace=False)
