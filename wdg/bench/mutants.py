"""``python -m wdg.bench.mutants [--only NAME] [--list]``: a mutation spot check of
the engine's rules (issue #44).

Each mutation below changes one line of a rule in ``wdg/engine/`` the way a slip
would (``ceil`` for ``floor``, the other rounding, the other order); for each,
the checkout's ``wdg/``, ``tests/``, ``worlds/``, ``templates/`` and
``orders/`` are copied into a temporary directory, the line is changed there
and the tests that cover the rule run against the copy. A mutation that no test
notices *survives*: a rule no test pins. The score is killed / all; the checkout
itself is never changed. A mutation whose line is no longer in the code is
reported as *stale* (the list must follow the code) and fails the run.

Prints one line per mutation and the score; exit code 0 when every mutation was
killed, 1 otherwise. docs/testing.md keeps the last score.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("wdg", "tests", "worlds", "templates", "orders", "pyproject.toml")


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


ROUNDING = "tests/engine/test_rounding.py"
MUTATIONS = (
    Mutation("militia regrowth rounds down", "wdg/engine/militia.py",
             "np.ceil(np.round(gap * np.minimum(rate, 1.0), 6))",
             "np.floor(np.round(gap * np.minimum(rate, 1.0), 6))",
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("militia decay rounds up", "wdg/engine/militia.py",
             'np.floor(gap * r.num(AREA, "decay_rate"))',
             'np.ceil(gap * r.num(AREA, "decay_rate"))',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("militia cap rounds up", "wdg/engine/militia.py",
             'return np.floor(inhabitants * rules.num(AREA, "militia_share")',
             'return np.ceil(inhabitants * rules.num(AREA, "militia_share")',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("help does not speed up the regrowth", "wdg/engine/militia.py",
             'r.num(AREA, "growth_rate") * r.num(AREA, "help_growth_factor")',
             'r.num(AREA, "growth_rate")',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("unpaid units round down", "wdg/engine/economy.py",
             "unpaid_units = math.ceil(army.units * (due - paid) / due)",
             "unpaid_units = math.floor(army.units * (due - paid) / due)",
             (ROUNDING, "tests/engine/test_economy_pay.py")),
    Mutation("an activating army pays nothing", "wdg/engine/economy.py",
             "return status in (ArmyStatus.ACTIVE, ArmyStatus.ACTIVATING) and has_general",
             "return status is ArmyStatus.ACTIVE and has_general",
             (ROUNDING, "tests/engine/test_economy_pay.py",
              "tests/orders/test_forecast_asks_engine.py")),
    Mutation("the pay is taken before the upkeep", "wdg/engine/economy.py",
             'for amount, kind, ledger, what in ((upkeep, "pay.upkeep", "upkeep", "Unterhalt"),\n'
             '                                       (wages, "pay.wages", "pay", "Besoldung")):',
             'for amount, kind, ledger, what in ((wages, "pay.wages", "pay", "Besoldung"),\n'
             '                                       (upkeep, "pay.upkeep", "upkeep", "Unterhalt")):',
             (ROUNDING, "tests/engine/test_economy_pay.py")),
    Mutation("taxes round to nearest", "wdg/engine/economy.py",
             "return (int(gemarks * factor), int(settlements * factor), int(mines * factor))",
             "return (round(gemarks * factor), round(settlements * factor), round(mines * factor))",
             (ROUNDING, "tests/engine/test_economy_end.py")),
    Mutation("settlement income per started hundred", "wdg/engine/economy.py",
             "settlements = int(((start.settlement[mask] // 100) * per100).sum())",
             "settlements = int((np.ceil(start.settlement[mask] / 100) * per100).sum())",
             (ROUNDING, "tests/engine/test_economy_end.py")),
    Mutation("terrain losses round to nearest", "wdg/engine/movement.py",
             "return units * int(t.loss[tid]) // 100",
             "return round(units * int(t.loss[tid]) / 100)",
             (ROUNDING, "tests/engine/test_movement.py")),
    Mutation("winner losses round down", "wdg/engine/combat.py",
             "return min(fighters, int(round(fighters * share)))",
             "return min(fighters, int(fighters * share))",
             (ROUNDING, "tests/engine/test_combat.py")),
    Mutation("demoralised part rounds to nearest", "wdg/engine/combat.py",
             "return int(army.units * share)",
             "return round(army.units * share)",
             (ROUNDING, "tests/engine/test_combat.py")),
    Mutation("drowned cargo rounds down", "wdg/engine/combat.py",
             "drowned = math.ceil(cargo.units * sunk / before)",
             "drowned = math.floor(cargo.units * sunk / before)",
             (ROUNDING, "tests/engine/test_combat.py", "tests/engine/test_transport.py")),
)


def _copy(dest: Path) -> None:
    for part in COPIED:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, dest / part)


def run_one(mu: Mutation, work: Path) -> tuple[str, float]:
    """``killed``, ``survived`` or ``stale``, and the seconds the tests took."""
    target = work / mu.path
    text = target.read_text(encoding="utf-8")
    if text.count(mu.old) != 1:
        return "stale", 0.0
    target.write_text(text.replace(mu.old, mu.new), encoding="utf-8")
    try:
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
             "no:xdist", "-o", "addopts=", *mu.tests], cwd=work, capture_output=True, text=True)
        took = time.monotonic() - start
    finally:
        target.write_text(text, encoding="utf-8")
    # 1: a test failed (the mutation was noticed); 0: all passed (it survived);
    # anything else (collection error, no tests) is a broken run, not a kill
    if proc.returncode == 1:
        return "killed", took
    if proc.returncode == 0:
        return "survived", took
    raise RuntimeError(f"{mu.name}: pytest exited {proc.returncode}\n{proc.stdout[-3000:]}"
                       f"{proc.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wdg.bench.mutants",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run the mutations whose name contains this text")
    ap.add_argument("--list", action="store_true", help="list the mutations and stop")
    ap.add_argument("--set", choices=("rounding", "rules", "all"), default="all",
                    help="the roundings (MUTATIONS), the other rules (RULE_MUTATIONS) or all")
    args = ap.parse_args(argv)
    # here, not at the top: wdg.bench.mutations_rules imports Mutation from this module
    from wdg.bench.mutations_rules import RULE_MUTATIONS
    pool = {"rounding": MUTATIONS, "rules": RULE_MUTATIONS,
            "all": MUTATIONS + RULE_MUTATIONS}[args.set]
    chosen = [mu for mu in pool if not args.only or args.only in mu.name]
    if args.list:
        for mu in chosen:
            print(f"{mu.name}: {mu.path}: {' '.join(mu.tests)}")
        return 0
    killed = 0
    bad = 0
    with tempfile.TemporaryDirectory(prefix="wdg-mutants-") as tmp:
        work = Path(tmp)
        _copy(work)
        for mu in chosen:
            verdict, took = run_one(mu, work)
            killed += verdict == "killed"
            bad += verdict != "killed"
            print(f"{verdict:9} {mu.name} ({mu.path}, {took:.0f} s)", flush=True)
    print(f"score: {killed}/{len(chosen)} mutations killed")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
