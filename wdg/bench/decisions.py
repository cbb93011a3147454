"""ISMCTS decisions per CPU-second per budget, at the seeded two-player
positions of :func:`wdg.bench.games.bench_mcts` (issue 33: "Measure decisions
per CPU-second before and after").

Run it by path so that ``wdg`` may come from another checkout, e.g. the
commit before the widening root::

    git worktree add /tmp/before adddb70^
    PYTHONPATH=/tmp/before python wdg/bench/decisions.py --json before.json
    python wdg/bench/decisions.py --json after.json

Each budget is asked twice with a fresh bot and a fresh generator; the rate
is positions / CPU seconds of this process (other work on the machine does
not count against it, but shares caches: a few per cent are noise).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

GAMES = ("lords_of_creation", "four_gods", "empires_of_middle_earth")


def positions(name: str, want: int) -> list:
    """Seeded positions of random two-player play with more than one legal
    action (also the positions of :func:`wdg.bench.games.bench_mcts`). Kept in
    this file, not imported, so the script measures an older checkout too."""
    from wdg.games.base import CHANCE, load_game
    from wdg.games.bots import random_bot
    game = load_game(name, players=2)
    rng = np.random.default_rng(5)
    out: list = []
    s = game.new_initial_state()
    while len(out) < want:
        if s.is_terminal():
            s = game.new_initial_state()
        if s.current_player() == CHANCE:
            s.apply_action(s.sample_chance(rng))
            continue
        if len(s.legal_actions()) > 1 and rng.random() < 0.2:
            out.append(s.clone())
        s.apply_action(random_bot(s, rng))
    return out


def rates(name: str, budgets: list[int], runs: int = 2) -> dict[str, list[float]]:
    """Per budget: decisions per CPU-second of each run."""
    from wdg.bench.games import MCTS_DECISIONS
    from wdg.games.ismcts import ISMCTSBot
    pos = positions(name, MCTS_DECISIONS[name])
    out = {}
    for budget in budgets:
        got = []
        for _ in range(runs):
            bot, r = ISMCTSBot(budget), np.random.default_rng(1)
            t0 = time.process_time()
            for p in pos:
                bot(p, r)
            got.append(round(len(pos) / (time.process_time() - t0), 2))
        out[f"mcts:{budget}"] = got
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python wdg/bench/decisions.py",
                                 description="ISMCTS-Entscheidungen je CPU-Sekunde je Budget.")
    ap.add_argument("--budgets", default="60,200", help="Budgets, z. B. 60,200")
    ap.add_argument("--game", choices=GAMES, action="append", help="nur dieses Spiel (wiederholbar)")
    ap.add_argument("--json", dest="json_path", help="Ergebnis zusätzlich als JSON")
    args = ap.parse_args(argv)
    import wdg
    res: dict = {"wdg": wdg.__file__}
    for name in args.game or GAMES:
        res[name] = rates(name, [int(b) for b in args.budgets.split(",")])
        print(name, " ".join(f"{k} {v}" for k, v in res[name].items()), flush=True)
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=1)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
