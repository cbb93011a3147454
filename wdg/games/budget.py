"""What a larger budget changes in the search's decisions (issue 33).

``mcts:60`` against ``mcts:30`` won 0.50-0.54 in every 4 Gods batch. This
module measures why, without changing the bots: on a fixed sample of
positions from seeded games it runs :class:`~wdg.games.ismcts.ISMCTSBot`
with each budget (twice, with two generators) and a reference search with a
larger budget, and reports per budget

- how many legal actions the positions have and how many root candidates
  the progressive widening admits (root children after the search);
- how often the choice is the first of the search's candidate ranking
  (greedy's, or the game's ``search_candidate_values``);
- how often two runs of the same budget agree (the noise of the choice),
  and how often the choice agrees with the other budgets' and the
  reference's;
- the *regret* by the reference: the reference search's mean value of its
  own choice minus its mean value of the budget's choice (values in
  [0, 1], ``σ(Δ search_value / value_scale)``; 0 where they agree), over
  the positions where the reference visited the budget's choice.

Positions: seeded games (``game_seeds(seed, …)``, seats rotated from game
to game) played by the ``play`` bots; every ``every``-th decision with more
than one legal action, until ``positions`` are collected. Everything is
seeded: the same arguments give the same figures.

    python -m wdg.games.budget four_gods -n 2 --positions 300 --seed 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

import numpy as np

from wdg.games.base import GameError, State, game_params, load_game
from wdg.games.batch import game_seeds, seat_bots
from wdg.games.bots import parse_bots
from wdg.games.ismcts import ISMCTSBot
from wdg.games.records import play

MAX_GAMES = 500
"""Games played at most to collect the positions."""


def sample_positions(name: str, params: dict[str, Any], play_bots: list[str], count: int,
                     seed: int, every: int = 3) -> list[tuple[State, int]]:
    """``count`` positions ``(state, player to move)``: every ``every``-th
    decision with more than one legal action of seeded games between
    ``play_bots`` (seats rotated from game to game)."""
    game = load_game(name, **params)
    out: list[tuple[State, int]] = []
    seen = 0
    for index, gseed in enumerate(game_seeds(seed, MAX_GAMES)):
        _, rec = play(game, list(seat_bots(play_bots, index, True)), gseed, with_text=False)
        s = game.new_initial_state()
        for p, a, _ in rec.actions:
            if p >= 0 and len(s.legal_actions()) > 1:
                if seen % every == 0:
                    out.append((s.clone(), p))
                    if len(out) == count:
                        return out
                seen += 1
            s.apply_action(a)
    raise GameError(f"{name}: only {len(out)} positions in {MAX_GAMES} games; expected {count}")


def _search(s: State, player: int, budget: int, rng: np.random.Generator) -> dict[str, Any]:
    """One search: its choice, the root's candidates and their mean values."""
    bot = ISMCTSBot(budget)
    choice = bot(s, rng)
    root = bot.root
    assert root is not None
    values = {a: ch.value / ch.visits for (p, a), ch in root.children.items()
              if p == player and ch.visits}
    return {"choice": choice, "admitted": sum(1 for p, _ in root.children if p == player),
            "first": bot.rank[choice] == 0, "values": values}


def measure(name: str, params: dict[str, Any], *, budgets: list[int], reference: int,
            positions: int, seed: int, play_bots: list[str], every: int = 3) -> dict[str, Any]:
    """The figures above, for ``budgets`` against a ``reference`` search."""
    sample = sample_positions(name, params, play_bots, positions, seed, every)
    rows: list[dict[str, Any]] = []
    for idx, (s, player) in enumerate(sample):
        runs = {b: [_search(s, player, b, np.random.default_rng([seed, idx, b, rep])) for rep in (0, 1)]
                for b in budgets}
        ref = _search(s, player, reference, np.random.default_rng([seed, idx, reference, 9]))
        rows.append({"legal": len(s.legal_actions()), "runs": runs, "ref": ref})
    out: dict[str, Any] = {"game": name, "params": params, "seed": seed, "positions": len(rows),
                           "play": play_bots, "every": every, "reference": reference, "budgets": {}}
    for b in budgets:
        regrets = []
        for r in rows:
            ref, a = r["ref"], r["runs"][b][0]["choice"]
            if a in ref["values"]:
                regrets.append(ref["values"][ref["choice"]] - ref["values"][a])
        agree = {str(c): _share(r["runs"][b][0]["choice"] == r["runs"][c][0]["choice"] for r in rows)
                 for c in budgets if c != b}
        out["budgets"][str(b)] = {
            "legal_mean": statistics.fmean(r["legal"] for r in rows),
            "admitted_mean": statistics.fmean(r["runs"][b][0]["admitted"] for r in rows),
            "first_candidate": _share(r["runs"][b][0]["first"] for r in rows),
            "self_agreement": _share(r["runs"][b][0]["choice"] == r["runs"][b][1]["choice"] for r in rows),
            "agreement": agree,
            "reference_agreement": _share(r["runs"][b][0]["choice"] == r["ref"]["choice"] for r in rows),
            "regret_mean": statistics.fmean(regrets) if regrets else 0.0,
            "regret_positions": len(regrets),
        }
    return out


def _share(flags: Any) -> float:
    xs = list(flags)
    return sum(1 for x in xs if x) / len(xs) if xs else 0.0


def format_table(res: dict[str, Any]) -> str:
    """The figures as a Markdown table, one row per budget."""
    budgets = list(res["budgets"])
    head = ["budget", "positions", "legal (mean)", "root candidates (mean)", "first candidate",
            "two runs agree"] + [f"agrees with mcts:{c}" for c in budgets] + [
        f"agrees with mcts:{res['reference']}", f"regret by mcts:{res['reference']} (positions)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in budgets:
        f = res["budgets"][b]
        cells = [f"mcts:{b}", str(res["positions"]), f"{f['legal_mean']:.1f}", f"{f['admitted_mean']:.1f}",
                 f"{f['first_candidate']:.2f}", f"{f['self_agreement']:.2f}"]
        cells += ["—" if c == b else f"{f['agreement'][c]:.2f}" for c in budgets]
        cells += [f"{f['reference_agreement']:.2f}", f"{f['regret_mean']:.4f} ({f['regret_positions']})"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wdg.games.budget", description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("-n", "--players", type=int, default=2)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--budgets", default="30,60,200")
    ap.add_argument("--reference", type=int, default=400)
    ap.add_argument("--play", default="mcts:60,mcts:30", help="bots of the games the positions come from")
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", dest="json_path")
    ap.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE",
                    help="game parameter as in `wdg games batch --param`, e.g. tiles=first")
    args = ap.parse_args(argv)
    try:
        budgets = [int(x) for x in args.budgets.split(",") if x.strip()]
        if not budgets or min(budgets) < 1 or args.reference < 1 or args.positions < 1 or args.every < 1:
            raise ValueError
    except ValueError:
        print(f"error: --budgets {args.budgets!r}, --reference, --positions and --every must be whole "
              f"numbers >= 1, e.g. --budgets 30,60,200", file=sys.stderr)
        return 2
    try:
        res = measure(args.game, game_params(args.players, args.param), budgets=budgets, reference=args.reference,
                      positions=args.positions, seed=args.seed,
                      play_bots=parse_bots(args.play, args.players), every=args.every)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(res))
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
