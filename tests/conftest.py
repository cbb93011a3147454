"""Suite-wide hooks: the fault-injection counts are printed at the end of every
run (``make test``), since pytest keeps a passing test's output to itself."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import faultinject
from wdg.provenance import environment

# What a month's provenance records (wdg's commit and dirty flag, the installed
# distributions) is taken once, in this process, before any test forks: children
# that compare a run with its re-run (fault injection) record the same software
# even while the checkout is being edited during the test run.
environment()

# A test run started in the background by a non-interactive shell (`make test &`,
# `nohup ... &`) inherits SIGINT ignored, and so would every wdg it starts: the
# tests that press Ctrl-C on a running `wdg turn run` or `wdg mail watch` would
# then wait for nothing. A handler here is reset to the default in each child at
# exec, so the children answer Ctrl-C as they do for a game master.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_sessionfinish(session, exitstatus):
    """A pytest-xdist worker hands its fault-injection lines to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["faultinject_summary"] = list(faultinject.SUMMARY)


@__import__("pytest").hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller (``make test`` runs ``pytest -n auto``) collects the workers' lines."""
    faultinject.SUMMARY.extend(getattr(node, "workeroutput", {}).get("faultinject_summary", []))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if faultinject.SUMMARY:
        terminalreporter.section("fault injection (issue #21)")
        for line in faultinject.SUMMARY:
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------
# Real mail servers (issue #34): Dovecot + Postfix on 127.0.0.1, started by the
# test run itself (tests/mailservers.py).  Session-scoped: started once, on first
# use; every test gets fresh accounts from ``mail_world``.

import os

import pytest


@pytest.fixture(scope="session")
def mail_servers():
    """The session's Dovecot + Postfix (see tests/mailservers.py for ports, TLS, users).

    Fails when the servers cannot be started; skips only when WDG_SKIP_MAILSERVERS=1 is
    set and the binaries are missing or the run is not root."""
    import mailservers

    from tests.skips import cannot_run

    problem = mailservers.missing_binaries()
    if os.geteuid() != 0:
        problem.append("root (Postfix and Dovecot run as root with their own users)")
    if problem:
        cannot_run("WDG_SKIP_MAILSERVERS",
                   f"cannot start the test mail servers, missing: {', '.join(problem)}; "
                   f"run 'make test' as root (it installs {mailservers.PACKAGES})")
    servers = mailservers.MailServers().start()
    try:
        yield servers
    finally:
        servers.stop()
        servers.cleanup()


@pytest.fixture
def mail_world(mail_servers):
    """Fresh mailboxes for one test: ``.gm`` and five ``.players`` (Account objects),
    ``.servers`` = the session's MailServers."""
    return mail_servers.new_world(players=5)
