"""Suite-wide hooks: the fault-injection counts are printed at the end of every
run (``make test``), since pytest keeps a passing test's output to itself."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import faultinject  # noqa: E402


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if faultinject.SUMMARY:
        terminalreporter.section("fault injection (issue #21)")
        for line in faultinject.SUMMARY:
            terminalreporter.write_line(line)
