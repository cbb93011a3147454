"""The tests wait on events and never skip on their own (issue #44; docs/testing.md,
"Tests that need the machine" and "Waiting for mail").

An AST scan of every module under ``tests/``:

- a ``sleep(...)`` is a polling interval inside a loop that ends on what it waits
  for (a ``while`` loop, or a ``for`` loop that can ``break``/``return``), at most
  :data:`POLL` seconds; a fixed sleep that waits for something to have happened,
  or to have not happened, is a test that passes on a fast machine and misses a late
  event on a slow one. The only other sleeps are the deliberate random kill moments
  of :data:`RANDOM_KILL_DELAYS`, each taken after the work was seen to begin;
- no ``pytest.skip``, ``skipif``, ``importorskip`` or ``xfail`` but in
  ``tests/skips.py``: a test that cannot run fails, naming what is missing, unless
  its ``WDG_SKIP_*`` variable says to skip it (:func:`tests.skips.cannot_run`);
- every ``WDG_SKIP_*`` variable the tests or the Makefile name is in README's
  table, and ``.ci/run`` sets none.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

POLL = 0.5
"""The longest sleep that counts as a polling interval (seconds)."""

RANDOM_KILL_DELAYS: dict[tuple[str, str, str], str] = {
    # (module under tests/, function, the sleep's argument): why it is a random delay
    ("mail/test_fetch_kill.py", "test_sigkill_at_random_points_loses_nothing_and_doubles_nothing",
     "rng.uniform(0.0, 1.5)"):
        "a quarter of the kills fall anywhere from the fetch's start-up on (starting, "
        "connecting, logging in): a moment before any work is part of what is tested",
    ("mail/test_fetch_kill.py", "test_sigkill_at_random_points_loses_nothing_and_doubles_nothing",
     "rng.uniform(0.0, 0.4)"):
        "the other kills: a random moment after the fetch's first record is seen in "
        "seen.yaml (between recording, storing, answering and filing away)",
    ("mail/test_mailout_kill.py", "test_ctrl_c_while_sending_records_the_mail_in_flight_and_exits_130",
     "rng.uniform(0.0, 0.3)"):
        "Ctrl-C at a random moment after the send was seen to begin (the send ledger "
        "changed)",
    ("mail/test_mailout_kill.py", "test_ctrl_c_during_turn_run_never_prints_a_traceback",
     "rng.uniform(0.0, 2.0)"):
        "Ctrl-C at a random moment after the run was seen to begin (its staging folder "
        "appeared)",
}

SKIPS = {"skip", "skipif", "importorskip", "xfail", "skipTest", "SkipTest"}
"""Names that skip a test (pytest's, unittest's) — allowed in tests/skips.py only."""

SKIP_OWNERS = {"pytest", "pytest.mark", "unittest", "self"}
"""Whose ``skip``/``xfail``... are meant (not, say, a game's "skip" action)."""

SKIP_MODULE = TESTS / "skips.py"


def _modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts)


def _rel(path: Path) -> str:
    return path.relative_to(TESTS).as_posix()


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_sleep(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr == "sleep") or \
        (isinstance(f, ast.Name) and f.id == "sleep")


def _polling_loop(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """True when the innermost loop around ``node`` (in its own function) ends on
    what it waits for: a ``while``, or a ``for`` with a ``break`` or ``return``."""
    at = parents.get(node)
    while at is not None and not isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda, ast.Module)):
        if isinstance(at, ast.While):
            return True
        if isinstance(at, (ast.For, ast.AsyncFor)):
            return any(isinstance(n, (ast.Break, ast.Return)) for n in ast.walk(at))
        at = parents.get(at)
    return False


def _function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    at = parents.get(node)
    while at is not None and not isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef)):
        at = parents.get(at)
    return at.name if at is not None else "<module>"


def sleeps(source: str, rel: str) -> list[str]:
    """The sleeps of one module that are neither a short poll in a loop nor a
    listed random kill delay, as ``file:line: sleep(...) in function``."""
    tree = ast.parse(source)
    parents = _parents(tree)
    found = []
    for node in ast.walk(tree):
        if not _is_sleep(node):
            continue
        assert isinstance(node, ast.Call)
        arg = ast.unparse(node.args[0]) if node.args else ""
        where = _function(node, parents)
        if (rel, where, arg) in RANDOM_KILL_DELAYS:
            continue
        value = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) \
            else None
        if isinstance(value, (int, float)) and value <= POLL and _polling_loop(node, parents):
            continue
        found.append(f"tests/{rel}:{node.lineno}: sleep({arg}) in {where}")
    return found


def skips(source: str, rel: str) -> list[str]:
    """Every way of skipping (or expecting a failure) in one module."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in SKIPS \
                and ast.unparse(node.value) in SKIP_OWNERS:
            found.append(f"tests/{rel}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and node.module in ("pytest", "unittest"):
            found += [f"tests/{rel}:{node.lineno}: from {node.module} import {a.name}"
                      for a in node.names if a.name in SKIPS]
    return found


def test_no_fixed_sleep_in_the_tests() -> None:
    found = [f for p in _modules() for f in sleeps(p.read_text(encoding="utf-8"), _rel(p))]
    assert not found, (
        "a fixed sleep waits for something to have happened (or not): wait on the "
        "observable event instead (tests/procwatch.py wait_until, MailServers.settled/"
        "wait_for/wait_idling; docs/testing.md), or poll it in a loop with a deadline "
        f"(at most {POLL} s a round):\n" + "\n".join(found))


def test_every_listed_random_delay_is_still_there() -> None:
    """The allow-list holds no stale entry (a stale one would let a new sleep in)."""
    seen = set()
    for p in _modules():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        parents = _parents(tree)
        seen |= {(_rel(p), _function(n, parents), ast.unparse(n.args[0]))
                 for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_sleep(n) and n.args}
    assert set(RANDOM_KILL_DELAYS) <= seen, set(RANDOM_KILL_DELAYS) - seen


def test_no_test_skips_on_its_own() -> None:
    found = [f for p in _modules() if p != SKIP_MODULE
             for f in skips(p.read_text(encoding="utf-8"), _rel(p))]
    assert not found, (
        "a test that cannot run fails, naming what is missing; only its WDG_SKIP_* "
        "variable may skip it: use tests/skips.py cannot_run (and list the variable "
        "in README.md, 'Set-up'):\n" + "\n".join(found))


def _skip_variables(text: str) -> set[str]:
    return set(re.findall(r"\bWDG_SKIP_[A-Z0-9_]*[A-Z0-9]\b", text))


def test_every_skip_variable_is_in_the_readme_and_ci_sets_none() -> None:
    named = set()
    for p in [*(m for m in _modules() if m != Path(__file__).resolve()), ROOT / "Makefile"]:
        named |= _skip_variables(p.read_text(encoding="utf-8"))
    table = "\n".join(line for line in (ROOT / "README.md").read_text(encoding="utf-8")
                      .splitlines() if line.startswith("| `WDG_SKIP_"))
    assert named, "no WDG_SKIP_* variable found: the scan is broken"
    assert named <= _skip_variables(table), \
        f"WDG_SKIP_* variables missing in README's table: {sorted(named - _skip_variables(table))}"
    # .ci/run may only clear them (so that none leaks in from the CI machine)
    ci = [line.split("#")[0].strip() for line in
          (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    setting = [line for line in ci if "WDG_SKIP" in line and not line.startswith("unset ")]
    assert not setting, f".ci/run sets a skip variable: {setting}"


@pytest.mark.parametrize("code, expected", [
    ("import time\ndef t():\n    time.sleep(0.5)\n", ["t"]),
    ("import time\ndef t():\n    while x():\n        time.sleep(2.0)\n", ["t"]),
    ("import time\ndef t():\n    for k in ks:\n        go(k)\n        time.sleep(0.1)\n", ["t"]),
    ("from time import sleep\nsleep(0.1)\n", ["<module>"]),
    ("import time\ndef t():\n    while x():\n        time.sleep(0.05)\n", []),
    ("import time\ndef t():\n    for _ in range(9):\n        if x():\n            break\n"
     "        time.sleep(0.2)\n", []),
    ("import time\ndef t():\n    while x():\n        def f():\n            time.sleep(0.1)\n", ["f"]),
])
def test_the_sleep_scan_tells_a_poll_from_a_fixed_wait(code: str, expected: list[str]) -> None:
    assert [f.rsplit(" in ", 1)[1] for f in sleeps(code, "x.py")] == expected


@pytest.mark.parametrize("code, found", [
    ("import pytest\npytest.skip('x')\n", True),
    ("import pytest\n@pytest.mark.skipif(True, reason='x')\ndef t(): pass\n", True),
    ("import pytest\nm = pytest.importorskip('numpy')\n", True),
    ("import pytest\npytestmark = pytest.mark.xfail\n", True),
    ("from pytest import skip\n", True),
    ("import unittest\nraise unittest.SkipTest('x')\n", True),
    ("def t(game):\n    return game.layout.skip\n", False),
    ("from tests.skips import cannot_run\ncannot_run('WDG_SKIP_X', 'y')\n", False),
    ("import pytest\npytest.fail('x')\n", False),
])
def test_the_skip_scan_finds_every_way_of_skipping(code: str, found: bool) -> None:
    assert bool(skips(code, "x.py")) is found
