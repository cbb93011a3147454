"""``python -m wdg.bench.mutants [--only NAME] [--list]``: a mutation spot check of
the engine's rules (issue #44).

Each mutation below changes one line of a rule in ``wdg/engine/`` the way a slip
would (``ceil`` for ``floor``, the other rounding, the other order); for each,
the checkout's ``wdg/``, ``tests/``, ``worlds/``, ``templates/``, ``orders/``,
``docs/`` and ``README.md`` are copied into a temporary directory, the line is changed there
and the tests that cover the rule run against the copy. A mutation that no test
notices *survives*: a rule no test pins. The score is killed / all; the checkout
itself is never changed. A mutation whose line is no longer in the code is
reported as *stale* (the list must follow the code) and fails the run.

The listed tests first run on the unchanged copy; if any fails there, the run
stops with exit code 2 (a test failing anyway would "kill" every mutation).
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
COPIED = ("wdg", "tests", "worlds", "templates", "orders", "docs", "README.md", "pyproject.toml")


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
             "return min(fighters, nearest(fighters * share, m.rules))",
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
    # --- to the nearest: an exact half (combat.yaml halves_round_up) ---
    Mutation("an exact half rounds down", "wdg/engine/rounding.py",
             "up = abs(x) - whole >= 0.5", "up = abs(x) - whole > 0.5", (ROUNDING,)),
    Mutation("halves round up without the rules key", "wdg/engine/rounding.py",
             "    if not halves_round_up(rules):\n        return int(round(x))\n", "",
             (ROUNDING,)),
    Mutation("an upgrade with --rules keep adds halves_round_up", "wdg/engine/upgrade.py",
             '    ("combat.yaml", "halves_round_up"),\n', "", (ROUNDING,)),
    Mutation("partisan militia killed round down", "wdg/engine/militia.py",
             'return (nearest(militia * r.num(AREA, "loser_loss"), r),',
             'return (int(militia * r.num(AREA, "loser_loss")),',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("militia winning a partisan fight lose men rounded down", "wdg/engine/militia.py",
             'return (nearest(militia * min(r.num(AREA, "winner_loss_max"),\n'
             '                                  r.num(AREA, "winner_loss_factor") * sa / max(sm, 1e-9)), r),',
             'return (int(militia * min(r.num(AREA, "winner_loss_max"),\n'
             '                                  r.num(AREA, "winner_loss_factor") * sa / max(sm, 1e-9))),',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("army beaten by partisans loses men rounded down", "wdg/engine/militia.py",
             'nearest(fighters * r.num(AREA, "loser_loss"), r))',
             'int(fighters * r.num(AREA, "loser_loss")))',
             (ROUNDING, "tests/engine/test_militia.py")),
    Mutation("creature horde losses round down", "wdg/engine/creatures.py",
             'return nearest(count_ * min(r.num("combat", "winner_loss_max"),\n'
             '                                r.num("combat", "winner_loss_factor") * sa / max(sc, 1e-9)), r)',
             'return int(count_ * min(r.num("combat", "winner_loss_max"),\n'
             '                                r.num("combat", "winner_loss_factor") * sa / max(sc, 1e-9)))',
             (ROUNDING, "tests/engine/test_creatures.py")),
    Mutation("joined morale rounds down", "wdg/engine/army_orders.py",
             "nearest((morale_a * units_a + morale_b * units_b) / total, rules)",
             "(morale_a * units_a + morale_b * units_b) // total",
             (ROUNDING, "tests/engine/test_phase_a.py")),
    Mutation("information estimate rounds down", "wdg/engine/actions.py",
             "nearest(noisy / step_, m.rules)", "int(noisy / step_)",
             (ROUNDING, "tests/engine/test_actions.py")),
    Mutation("recon estimate rounds down", "wdg/engine/recon.py",
             "nearest(noisy / max(1, round_to), m.rules)", "int(noisy / max(1, round_to))",
             (ROUNDING, "tests/engine/test_recon.py")),
    # --- down or up ---
    Mutation("estimate range low end rounds down", "wdg/engine/recon.py",
             "math.ceil((units - half) / (1.0 + error))",
             "math.floor((units - half) / (1.0 + error))",
             (ROUNDING, "tests/engine/test_recon.py")),
    Mutation("estimate range high end rounds up", "wdg/engine/recon.py",
             "high = math.floor((units + half) / (1.0 - error))",
             "high = math.ceil((units + half) / (1.0 - error))",
             (ROUNDING, "tests/engine/test_recon.py")),
    Mutation("creature effects round up", "wdg/engine/creatures.py",
             "n = min(army.units, int(base * float(share)))",
             "n = min(army.units, int(-(-base * float(share) // 1)))",
             (ROUNDING, "tests/engine/test_creatures.py")),
    Mutation("undead per started twenty", "wdg/engine/creatures.py",
             'undead = n // m.rules.int(AREA, "undead_per_creature")',
             'undead = -(-n // m.rules.int(AREA, "undead_per_creature"))',
             (ROUNDING, "tests/engine/test_creatures.py")),
    Mutation("hypnotised round up", "wdg/engine/creatures.py",
             'return int(units * float(kind.get("effects", {}).get("hypnotisieren", 0)))',
             'return int(-(-units * float(kind.get("effects", {}).get("hypnotisieren", 0)) // 1))',
             (ROUNDING, "tests/engine/test_creatures.py")),
    Mutation("recruitment volume rounds up", "wdg/engine/army_orders.py",
             'return max(0, militia) // rules.int("economy", "recruit_volume", troop)',
             'return -(-max(0, militia) // rules.int("economy", "recruit_volume", troop))',
             (ROUNDING, "tests/engine/test_phase_a.py")),
    Mutation("bb builds boats rounded down", "wdg/engine/army_orders.py",
             'boats = max(1, math.ceil(_space(m, army) / m.rules.int("economy", "space", "boat_capacity")))',
             'boats = max(1, math.floor(_space(m, army) / m.rules.int("economy", "space", "boat_capacity")))',
             (ROUNDING, "tests/engine/test_phase_a.py")),
    Mutation("launched boats rounded down", "wdg/engine/army_orders.py",
             "army.boats = max(1, math.ceil(_space(m, army) / cap))",
             "army.boats = max(1, math.floor(_space(m, army) / cap))",
             (ROUNDING, "tests/engine/test_phase_a.py", "tests/engine/test_transport.py")),
    Mutation("an overloaded fleet keeps soldiers rounded up", "wdg/engine/combat.py",
             'keep = room // m.rules.int("economy", "space", cargo.troop.value)',
             'keep = -(-room // m.rules.int("economy", "space", cargo.troop.value))',
             (ROUNDING, "tests/engine/test_transport.py")),
    Mutation("er names spare ships rounded up", "wdg/engine/army_orders.py",
             '            // m.rules.int("economy", "space", "ship_capacity")\n',
             '            // -m.rules.int("economy", "space", "ship_capacity") * -1\n',
             (ROUNDING, "tests/engine/test_phase_a.py")),
    Mutation("destruction levels per started 500", "wdg/engine/conquest.py",
             'n = army.units // int(d["soldiers_per_level"])',
             'n = -(-army.units // int(d["soldiers_per_level"]))',
             (ROUNDING, "tests/engine/test_conquest.py")),
    Mutation("settlement damage rounds to nearest", "wdg/engine/conquest.py",
             'damage = int(army.units / 100 * float(d["settlement_units_per_100"]) * morale_factor(m, army))',
             'damage = round(army.units / 100 * float(d["settlement_units_per_100"]) * morale_factor(m, army))',
             (ROUNDING, "tests/engine/test_conquest.py")),
    Mutation("festival points per started step", "wdg/engine/kingdom_orders.py",
             "points = min(gold // per,", "points = min(-(-gold // per),",
             (ROUNDING, "tests/engine/test_kingdom_orders.py")),
    Mutation("treasury share rounds up", "wdg/engine/economy.py",
             "return seg.kingdoms[kingdom].treasury // n if n else 0",
             "return -(-seg.kingdoms[kingdom].treasury // n) if n else 0",
             (ROUNDING, "tests/engine/test_economy_end.py", "tests/engine/test_conquest.py")),
    Mutation("settlement income per started hundred (one settlement)", "wdg/engine/economy.py",
             'return (size // 100) * rules.int("economy", "settlement", "income_per_hundred")',
             'return -(-size // 100) * rules.int("economy", "settlement", "income_per_hundred")',
             (ROUNDING, "tests/engine/test_economy_end.py")),
    Mutation("shortfall desertion drawn over the whole army", "wdg/engine/economy.py",
             "deserters = int(m.rng.binomial(unpaid_units, p)) if unpaid_units else 0",
             "deserters = int(m.rng.binomial(army.units, p)) if unpaid_units else 0",
             (ROUNDING, "tests/engine/test_economy_pay.py")),
    Mutation("desertion chance in whole steps", "wdg/engine/morale.py",
             "(below - max(0, morale)) / below", "(below - max(0, morale)) // below",
             (ROUNDING, "tests/rules/test_heeresmoral.py")),
    Mutation("low-morale desertion drawn over half the army", "wdg/engine/morale.py",
             "deserters = int(m.rng.binomial(army.units, p))",
             "deserters = int(m.rng.binomial(army.units // 2, p))",
             (ROUNDING, "tests/rules/test_heeresmoral.py")),
    Mutation("harvest help gold rounds up", "wdg/engine/actions.py",
             'return int(min(units * float(sec["gold_per_soldier"]),\n'
             '                   int(TAXES[tid]) * float(sec["gold_max_share_of_tax"])))',
             'return int(-(-min(units * float(sec["gold_per_soldier"]),\n'
             '                   int(TAXES[tid]) * float(sec["gold_max_share_of_tax"])) // 1))',
             (ROUNDING, "tests/engine/test_actions.py")),
    Mutation("repairs round up", "wdg/engine/actions.py",
             'return max(1, int(units * rules.num(AREA, "help", "repair_per_1000_soldiers") / 1000))',
             'return max(1, int(-(-units * rules.num(AREA, "help", "repair_per_1000_soldiers") / 1000 // 1)))',
             (ROUNDING, "tests/engine/test_actions.py")),
    Mutation("a Werber's militia rounds up", "wdg/engine/wizards.py",
             "gained = int(militia_cap(seg, m.rules)[r, c] * share)",
             "gained = int(-(-militia_cap(seg, m.rules)[r, c] * share // 1))",
             (ROUNDING, "tests/engine/test_wizards.py")),
)


def _copy(dest: Path) -> None:
    for part in COPIED:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, dest / part)


def _pytest(work: Path, tests: list[str] | tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
         "no:xdist", "-o", "addopts=", *tests], cwd=work, capture_output=True, text=True)


def baseline(work: Path, chosen: list[Mutation]) -> str | None:
    """Run every test file of ``chosen`` on the unchanged copy: a test that fails
    there (a file the copy lacks, a broken test) would "kill" every mutation
    that lists it. ``None`` if all pass, else pytest's report."""
    proc = _pytest(work, sorted({t for mu in chosen for t in mu.tests}))
    return None if proc.returncode == 0 else proc.stdout[-3000:] + proc.stderr[-3000:]


def run_one(mu: Mutation, work: Path) -> tuple[str, float]:
    """``killed``, ``survived`` or ``stale``, and the seconds the tests took."""
    target = work / mu.path
    text = target.read_text(encoding="utf-8")
    if text.count(mu.old) != 1:
        return "stale", 0.0
    target.write_text(text.replace(mu.old, mu.new), encoding="utf-8")
    try:
        start = time.monotonic()
        proc = _pytest(work, mu.tests)
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
        broken = baseline(work, chosen)
        if broken is not None:
            print(f"the tests fail without any mutation; no kill would mean anything:\n{broken}")
            return 2
        for mu in chosen:
            verdict, took = run_one(mu, work)
            killed += verdict == "killed"
            bad += verdict != "killed"
            print(f"{verdict:9} {mu.name} ({mu.path}, {took:.0f} s)", flush=True)
    print(f"score: {killed}/{len(chosen)} mutations killed")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
